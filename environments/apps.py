from django.apps import AppConfig


class EnvironmentsConfig(AppConfig):
    name = "environments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The project_snapshot lines and the Inbox group (tasks never imports environments).
        from environments.extensions import register

        register()
