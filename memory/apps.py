from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The base's writes the search index covers (decisions, reports, comments) reach it
        # through the event observer seam: tasks imports no other app.
        from memory import search
        from tasks.events import register_event_observer

        register_event_observer(search.observe)
