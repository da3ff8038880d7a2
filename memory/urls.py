"""Docs & rules (§8): the page, its live section, a document, its diff and the block form
(memory/views.py)."""

from django.urls import path

from memory import views

urlpatterns = [
    path("p/<str:slug>/docs", views.docs, name="docs"),
    path("p/<str:slug>/docs/_lists", views.docs_part, {"part": "lists"}, name="docs_lists"),
    path("p/<str:slug>/docs/_list/<str:name>", views.docs_list, name="docs_list"),
    path("p/<str:slug>/docs/_blocks/save", views.block_save, name="docs_block_save"),
    path("p/<str:slug>/docs/<str:name>", views.doc, name="doc"),
    path("p/<str:slug>/docs/<str:name>/diff", views.doc_diff, name="doc_diff"),
]
