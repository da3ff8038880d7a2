import importlib
import os

from django.apps import AppConfig

# Agent packages from outside this tree, by import path (comma-separated), each with a SPEC:
# how the tests' made-up agent proves the door (tests/fake_agent/), and how one would try
# an agent package before it has its line in agents/registry.py.
EXTRA_AGENTS = "RELAYBAY_AGENT_PACKAGES"


class AgentsConfig(AppConfig):
    """The agent CLIs' packages: no models, only their registration with the hook room."""

    name = "agents"

    def ready(self) -> None:
        from agents.registry import AGENTS
        from sessions.hooks import registry

        for spec in AGENTS:
            registry.register(spec)
        for path in filter(None, os.environ.get(EXTRA_AGENTS, "").split(",")):
            registry.register(importlib.import_module(path.strip()).SPEC)
