"""Gemini CLI's agent package (docs/architecture.md "An agent is a package")."""

NAME = "gemini"  # its hook route /hooks/gemini, Session.agent, --agent
