from django.apps import AppConfig


class TasksConfig(AppConfig):
    name = "tasks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The Inbox groups of the tasks app itself; other apps register theirs the same way.
        from tasks.selectors import inbox

        inbox.register()
