"""The one list of agent CLIs (docs/architecture.md "An agent is a package"): one line each.
agents/apps.py registers every one with the hook room (sessions/hooks/registry.py) when
Django starts; the roof's setup, doctor, Integrations and docs read the same list."""

from __future__ import annotations

from agents.claude_code.hooks import SPEC as CLAUDE_CODE
from agents.codex.hooks import SPEC as CODEX
from sessions.hooks.registry import AgentSpec

AGENTS: tuple[AgentSpec, ...] = (CLAUDE_CODE, CODEX)
