from django.apps import AppConfig


class TasksConfig(AppConfig):
    name = "tasks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The Inbox groups of the tasks app itself; other apps register theirs the same way.
        import tasks.services  # noqa: F401 - first: the comment selectors and services import each other
        from tasks.selectors import comments, inbox

        inbox.register()
        comments.register()
