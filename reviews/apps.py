from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The task_get section, the move fact for the review/test hint, the card badge and
        # the Inbox "Review queue" (tasks never imports reviews; it calls what is registered).
        from reviews.extensions import register

        register()
        # The Review tab of the task dialog (a section on the task page).
        from reviews.panels import register as register_panels

        register_panels()
