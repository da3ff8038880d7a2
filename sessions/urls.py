"""Board URLs of the sessions app (§2 Sessions, the task dialog's Session panel)."""

from django.urls import path

from sessions import views

urlpatterns = [
    path("sessions", views.sessions_page, name="sessions"),
    path("sessions/rows", views.sessions_rows, name="sessions_rows"),
    path("sessions/<int:session_id>/dismiss", views.session_dismiss, name="session_dismiss"),
    path("p/<str:slug>/sessions", views.project_sessions, name="project_sessions"),
    path("p/<str:slug>/sessions/rows", views.project_sessions_rows, name="project_sessions_rows"),
    path("p/<str:slug>/t/<str:key>/session", views.session_panel, name="session_panel"),
    path("p/<str:slug>/t/<str:key>/session/bind", views.session_bind, name="session_bind"),
    path("p/<str:slug>/t/<str:key>/session/unbind", views.session_unbind, name="session_unbind"),
]
