from django.apps import AppConfig


class EnvironmentsConfig(AppConfig):
    name = "environments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The project_snapshot lines, the Inbox group and the task dialog's "Actions on
        # live" panel (tasks never imports environments).
        from environments import panels
        from environments.extensions import register

        register()
        panels.register()
