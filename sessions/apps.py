from django.apps import AppConfig


class AgentSessionsConfig(AppConfig):
    """Label agent_sessions: `sessions` would collide with django.contrib.sessions."""

    name = "sessions"
    label = "agent_sessions"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The caller resolver, the task_get section and the task-line suffix (tasks never
        # imports sessions; it calls what is registered in tasks.extensions).
        from sessions.extensions import register

        register()
