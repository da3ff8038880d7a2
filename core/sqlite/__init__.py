"""relaybay's database backend: Django's SQLite backend with the last line against a
secret at rest (core/no_secrets.py) on every cursor."""
