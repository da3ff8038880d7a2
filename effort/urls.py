"""Board URLs of the effort app: a project's Effort page, its live region and its CSV."""

from django.urls import path

from effort import views

urlpatterns = [
    path("p/<str:slug>/effort", views.project_effort, name="project_effort"),
    path("p/<str:slug>/effort/region", views.project_effort_region, name="project_effort_region"),
    path("p/<str:slug>/effort.csv", views.project_effort_csv, name="project_effort_csv"),
]
