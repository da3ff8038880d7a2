"""Django settings, built from the relaybay settings table (core.config).

There is no SECRET_KEY-protected feature here (no contrib sessions, auth or admin): the
board cookie and CSRF token are derived from the relaybay token (core.tokens).
"""

from pathlib import Path

from core.config import load_config

RELAYBAY = load_config()
HOME = RELAYBAY.home_path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
# An installed wheel carries templates/ and static/ inside relaybay_site; a checkout has
# them at the top of the repository.
TEMPLATES_DIR = next(p for p in (PACKAGE_DIR / "templates", REPO_DIR / "templates") if p.is_dir())
STATIC_DIR = next(p for p in (PACKAGE_DIR / "static", REPO_DIR / "static") if p.is_dir())
# An agent's own templates stay in its package ("codex/templates/panel.html"): beside
# relaybay_site in a checkout and in an installed wheel alike.
AGENTS_DIR = REPO_DIR / "agents"

SECRET_KEY = "relaybay-has-no-django-secrets"  # noqa: S105 - nothing signed with it
DEBUG = False
ALLOWED_HOSTS = ["*"]  # the outer ASGI app enforces the §9 Host allow-list
USE_TZ = True
TIME_ZONE = "UTC"
USE_I18N = False
LANGUAGE_CODE = "en"
ROOT_URLCONF = "relaybay_site.urls"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
APPEND_SLASH = False

INSTALLED_APPS = [
    "relaybay_site",
    "tasks",
    "plans",
    "reviews",
    "sessions.apps.AgentSessionsConfig",
    "effort",
    "agents",
    "environments",
    "policy",
    "memory",
]

MIDDLEWARE = [
    "core.security.BoardAuthMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [TEMPLATES_DIR, AGENTS_DIR],
        "APP_DIRS": False,
        "OPTIONS": {
            "context_processors": ["relaybay_site.context.frame"],
            "builtins": ["relaybay_site.templatetags.relaybay", "tasks.templatetags.live"],
        },
    }
]

# cache_size=-256: each connection's page cache holds 256 KiB instead of SQLite's 2 MiB.
# The caches of the connections that live long (the sync thread's) filled slowly over a
# soak and fragmented the C heap around them: RSS rose 0.7-0.9 MiB a minute with the
# default and stayed flat with this, at the same board and MCP speed (bench/README.md,
# Soak). The OS's file cache holds the database anyway.
DATABASES = {
    "default": {
        "ENGINE": "core.sqlite",  # Django's, with core.no_secrets on every write
        "NAME": HOME / "relaybay.sqlite",
        # Kept: the pages' few threads (relaybay_site/pages_asgi.py) and the one sync thread
        # each keep theirs, so a request neither opens one nor parses the schema again.
        "CONN_MAX_AGE": None,
        "OPTIONS": {
            "timeout": 5,
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-256"
            ),
            "transaction_mode": "IMMEDIATE",
        },
        # In memory, as Django does for SQLite without a name; said outright, because
        # pytest-django recognises that default only under the stock ENGINE name.
        "TEST": {"NAME": ":memory:"},
    }
}

STATIC_URL = "/static/"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["stderr"], "level": "WARNING"},
    "loggers": {
        "relaybay": {"level": "INFO"},
        "django.request": {"level": "ERROR"},
        "mcp": {"level": "WARNING"},
    },
}
