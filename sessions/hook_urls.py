"""The machine endpoints of the hooks channel (§4), under the Bearer-guarded /hooks prefix."""

from django.urls import path

from sessions import hooks

urlpatterns = [
    path("hooks/claude-code", hooks.claude_code, name="hooks_claude_code"),
]
