"""`relaybay setup --agent gemini`: relaybay's hooks and MCP server in Gemini CLI's user
settings (`$GEMINI_CLI_HOME/.gemini/settings.json`, else `~/.gemini/settings.json`), over
the shared kit agents/setup/."""
