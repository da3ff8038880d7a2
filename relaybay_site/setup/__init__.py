"""`relaybay setup`: surgery on Claude Code's user settings file (§5 #spec-setup) and on
Codex's config.toml (issue 30).

Pure functions, no Django models: `entries` builds relaybay's hook entries and recognises
them (the marker rules), `document` reads a settings file and writes it back keeping the
user's formatting, `plan` computes the change, its diff and hash and writes it with a
backup, `detect` looks at the installed Claude Code and its MCP registration. For Codex,
`codex` holds the hook command, the trust hash and what config.toml says, and `codex_plan`
the marked block setup writes (through plan's Plan and write_plan). `checks` and
`codex_checks` are the items of --check, doctor and Settings → Integrations; only
`codex_checks.seen_item` reads the database.
"""
