"""Codex's agent package (docs/architecture.md "An agent is a package")."""

NAME = "codex"  # its hook route /hooks/codex, Session.agent, --agent
