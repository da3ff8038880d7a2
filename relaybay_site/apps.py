from django.apps import AppConfig


class RelaybaySiteConfig(AppConfig):
    name = "relaybay_site"
    default_auto_field = "django.db.models.BigAutoField"
