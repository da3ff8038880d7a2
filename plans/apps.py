from django.apps import AppConfig


class PlansConfig(AppConfig):
    name = "plans"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The task_get section, the list-line suffix, the §6 move fact and the card badge
        # (tasks never imports plans; it calls what is registered in tasks.extensions).
        from plans.extensions import register

        register()
