"""Claude Code's agent package (docs/architecture.md "An agent is a package")."""

NAME = "claude-code"  # its hook route /hooks/claude-code, Session.agent, --agent
