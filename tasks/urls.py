"""Board URLs of the tasks app: each page module under tasks/views/ owns its routes."""

from importlib import import_module
from importlib.util import find_spec

from django.urls import path

from tasks import views

urlpatterns = [
    path("", views.projects, name="projects"),
    path("projects/list", views.projects_list, name="projects_list"),
]

for _module in ("board", "task", "inbox", "activity", "comments"):
    if find_spec(f"tasks.views.{_module}") is not None:
        urlpatterns += import_module(f"tasks.views.{_module}").urlpatterns
