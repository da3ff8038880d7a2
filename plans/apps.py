from django.apps import AppConfig


class PlansConfig(AppConfig):
    name = "plans"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The task_get section, the list-line suffix, the §6 move fact and the card badge
        # (tasks never imports plans; it calls what is registered in tasks.extensions).
        from plans.extensions import register

        register()
        from plans import reminders

        reminders.register()  # §4 Plan reminders in the hook answers
        # The Plan tab of the task dialog (a section on the task page).
        from plans.panels import register as register_panels

        register_panels()
