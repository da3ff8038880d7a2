"""`relaybay setup`: surgery on Claude Code's user settings file (§5 #spec-setup).

Pure functions, no Django models: `entries` builds relaybay's hook entries and recognises
them (the marker rules), `document` reads a settings file and writes it back keeping the
user's formatting, `plan` computes the change, its diff and hash and writes it with a
backup, `detect` looks at the installed Claude Code and its MCP registration.
"""
