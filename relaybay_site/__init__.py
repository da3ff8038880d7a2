"""The relaybay Django project: settings, configuration, security, ASGI routing, live bus."""
