from django.apps import AppConfig


class AgentSessionsConfig(AppConfig):
    """Label agent_sessions: `sessions` would collide with django.contrib.sessions."""

    name = "sessions"
    label = "agent_sessions"
    default_auto_field = "django.db.models.BigAutoField"
