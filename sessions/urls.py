"""Board URLs of the sessions app (§2 Sessions, the task dialog's Session panel)."""

from django.urls import path

from sessions import views
from sessions.approvals import views as approvals

urlpatterns = [
    path("sessions", views.sessions_page, name="sessions"),
    path("sessions/rows", views.sessions_rows, name="sessions_rows"),
    # a str id: the notification's URL template carries an __approval_id__ placeholder
    path("approvals/<str:approval_id>", approvals.approval_info, name="approval"),
    path(
        "approvals/<int:approval_id>/approve", approvals.approval_approve, name="approval_approve"
    ),
    path("approvals/<int:approval_id>/deny", approvals.approval_deny, name="approval_deny"),
    path("sessions/<int:session_id>/dismiss", views.session_dismiss, name="session_dismiss"),
    path("p/<str:slug>/sessions", views.project_sessions, name="project_sessions"),
    path("p/<str:slug>/sessions/rows", views.project_sessions_rows, name="project_sessions_rows"),
    path("p/<str:slug>/t/<str:key>/session", views.session_panel, name="session_panel"),
    path("p/<str:slug>/t/<str:key>/session/bind", views.session_bind, name="session_bind"),
    path("p/<str:slug>/t/<str:key>/session/unbind", views.session_unbind, name="session_unbind"),
]
