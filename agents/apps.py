import importlib
import importlib.util
import os

from django.apps import AppConfig

# Agent packages from outside this tree, by import path (comma-separated), each with a SPEC:
# how the tests' made-up agent proves the door (tests/fake_agent/), and how one would try
# an agent package before it has its line in agents/registry.py.
EXTRA_AGENTS = "RELAYBAY_AGENT_PACKAGES"


class AgentsConfig(AppConfig):
    """The agent CLIs' packages: no models, only their registration with the hook room and
    effort's transcript readers."""

    name = "agents"

    def ready(self) -> None:
        from agents.registry import specs
        from sessions.hooks import registry

        for spec in specs():
            registry.register(spec)
            register_reader(spec.parse.__module__)
        for path in filter(None, os.environ.get(EXTRA_AGENTS, "").split(",")):
            registry.register(importlib.import_module(path.strip()).SPEC)
            register_reader(path.strip())


def register_reader(module: str) -> None:
    """The transcript reader and prices of the agent package `module` belongs to (its
    transcripts.py's READER), registered with effort; an agent without one has none."""
    from effort import readers

    package = module.rpartition(".")[0]  # the SPEC's module (hooks.py) is in the package
    name = f"{package}.transcripts"
    if package and importlib.util.find_spec(name) is not None:
        readers.register(importlib.import_module(name).READER)
