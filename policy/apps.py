from django.apps import AppConfig


class PolicyConfig(AppConfig):
    name = "policy"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The Inbox group "Policy proposals" (tasks never imports policy).
        from policy.extensions import register

        register()
