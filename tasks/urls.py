"""Board URLs of the tasks app: each page module under tasks/views/ owns its routes."""

from django.urls import path

from tasks import views
from tasks.views import activity, board, comments, events, inbox, task

urlpatterns = [
    path("", views.projects, name="projects"),
    path("projects/list", views.projects_list, name="projects_list"),
    *board.urlpatterns,
    *task.urlpatterns,
    *inbox.urlpatterns,
    *activity.urlpatterns,
    *comments.urlpatterns,
    *events.urlpatterns,
]
