"""Stands & access (§7): the page, its live sections and its forms (environments/views.py)."""

from django.urls import path

from environments import views

urlpatterns = [
    path("p/<str:slug>/environments", views.environments, name="environments"),
    path(
        "p/<str:slug>/environments/proposals",
        views.environments_part,
        {"part": "proposals"},
        name="environments_proposals",
    ),
    path(
        "p/<str:slug>/environments/stands",
        views.environments_part,
        {"part": "stands"},
        name="environments_stands",
    ),
    path("p/<str:slug>/environments/save", views.environment_save, name="environment_save"),
    path("p/<str:slug>/environments/delete", views.environment_delete, name="environment_delete"),
    path("p/<str:slug>/environments/access/add", views.access_add, name="access_add"),
    path(
        "p/<str:slug>/environments/access/<int:entry>/update",
        views.access_update,
        name="access_update",
    ),
    path(
        "p/<str:slug>/environments/access/<int:entry>/remove",
        views.access_remove,
        name="access_remove",
    ),
    path(
        "p/<str:slug>/environments/proposals/<int:proposal>/accept",
        views.environment_proposal_accept,
        name="environment_proposal_accept",
    ),
    path(
        "p/<str:slug>/environments/proposals/<int:proposal>/reject",
        views.environment_proposal_reject,
        name="environment_proposal_reject",
    ),
]
