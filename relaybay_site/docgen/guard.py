"""docs/policy.md's section on the guard's rules: the built-in table from policy/catalog.py,
how the guard reads a call and what it does with one it cannot read whole, from
environments/guard's own limits."""

from __future__ import annotations

from environments.guard.reading import MAX_INPUT_NODES, READ_LIMIT
from environments.guard.shell import MAX_SEGMENTS
from policy import catalog
from relaybay_site.docgen.common import cell


def render() -> list[str]:
    """The "Built-in guard rules" section."""
    rows = [
        f"| `{r.id}` | {r.capability or 'any'} | {cell(r.title)}: {cell(r.looks_for)} |"
        for r in catalog.GUARD_RULES
    ]
    return [
        "## Built-in guard rules",
        "",
        "The ids `guard.disable` names. A command or MCP tool call a rule matches is a change "
        "for that capability; `guard.mode` decides what happens to it.",
        "",
        "| Id | Capability | What it looks for |",
        "| --- | --- | --- |",
        *rows,
        "",
        "A rule reads the commands a call runs, not the words it holds: past `sudo`, `env`, "
        "`timeout` and the like, inside `$( … )`, and in every script a command hands on — "
        "`bash -c`, `eval`, ssh's remote command (the words after the host, or "
        "`-o RemoteCommand=…`), `kubectl exec … --`, `docker exec`, and a here-document or "
        "here-string fed to a shell or to `ssh host` (`bash <<'EOF'`, `bash <<< '…'`, "
        "`ssh host <<'EOF'`). A here-document fed to any other command is data "
        "(`cat <<EOF > notes.txt`), except that a database client reads its SQL.",
        "",
        f"The guard reads the first {READ_LIMIT // 1024} KB of a call: a Bash command, or the "
        f"string values of an MCP tool's input (at most {MAX_INPUT_NODES:,} values). A call it "
        f"cannot read whole — past that, past {MAX_SEGMENTS} command segments, or with "
        "scripts nested deeper than it reads — fails closed: each environment the call "
        "mentions anywhere, whose guard is on and whose levels are not all `full`, gets ask "
        "(log in log mode), journaled like any other call. The journal keeps an MCP input as "
        "`key: value`, a value under a key whose name says secret (password, token, api_key "
        "…) masked unless it is a reference (`$API_TOKEN`).",
        "",
    ]
