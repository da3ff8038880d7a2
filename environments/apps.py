from django.apps import AppConfig


class EnvironmentsConfig(AppConfig):
    name = "environments"
    default_auto_field = "django.db.models.BigAutoField"
