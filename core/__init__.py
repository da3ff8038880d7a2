"""The foundation every app stands on: settings table, errors, actors, the token and what
derives from it, request security, the live bus, flash, markdown, display helpers, static
URLs and the MCP tool helpers. It imports no app (docs/architecture.md §2)."""
