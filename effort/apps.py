from django.apps import AppConfig


class EffortConfig(AppConfig):
    """What each task cost (§12): above sessions, as plans is; sessions never imports it."""

    name = "effort"
    label = "effort"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # task_get's effort line, project_snapshot's total, the time tally's observer, the
        # task dialog's Effort section, and the hook door's poke after its answer.
        from effort.extensions import register

        register()
