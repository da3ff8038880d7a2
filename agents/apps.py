from django.apps import AppConfig


class AgentsConfig(AppConfig):
    """The agent CLIs' packages: no models, only their registration with the hook room."""

    name = "agents"

    def ready(self) -> None:
        from agents.registry import AGENTS
        from sessions.hooks import registry

        for spec in AGENTS:
            registry.register(spec)
