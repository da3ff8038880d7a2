"""docs/policy.md: the policy reference (§7), rendered by `docgen.render_policy`, which sets
Django up before it imports this module.

Everything a reader could see go stale comes from the code that decides it: the key table
is walked from policy/schema.json, the presets from policy/presets.py, the rule and
detector ids from policy/catalog.py, where the detectors are implemented and who calls them
from environments/secret_spots.py and secrets.py, the regular-expression limits from
policy/safe_regex.py,
what widens live from policy/widen.py's docstring, the error line and the merge example
from running validate and merge, the two tools from the MCP server's own listing.
tests/test_docs_current.py fails when docs/policy.md differs from what this renders, and
validates EXAMPLE with policy.validate.check.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import regex

from policy import catalog, safe_regex, validate, widen
from policy.merge import EDITABLE_LISTS, Layer, merge, preset_layer, show
from policy.presets import PRESETS, SUMMARY
from relaybay_site.docgen.common import GENERATED, cell, limits, parameter_rows, split_docstring
from relaybay_site.docgen.guard import render as guard_rules
from relaybay_site.docgen.observations import render as observation_sections
from relaybay_site.docgen.secrets import render as secret_sections

# A complete policy.json that validates (a test runs policy.validate.check on it).
EXAMPLE: dict[str, Any] = {
    "$schema": "https://relaybay.dev/schema/policy.json",
    "description": "My machine: careful on live, our own deploy script counts as a change.",
    "preset": "default",
    "levels": {
        "test": {"default": "full", "deploy": "ask"},
        "live": {"default": "read", "db": "none"},
    },
    "guard": {
        "mode": "block",
        "disable+": ["sftp-session"],
        "patterns+": [
            {
                "id": "acme-release",
                "capability": "deploy",
                "command": r"\brelease\.sh\b",
                "change": r"\b(publish|promote)\b",
                "description": "release script that publishes a build",
            }
        ],
    },
    "secrets": {
        "allow+": [r"test-[a-z0-9]{8}"],
        "test_secrets": {"local": True, "test": False},
        "expose_test_secrets_to_agents": False,
    },
}

# The merge example: three layers editing one list and two scalars.
MERGE_EXAMPLE = (
    Layer("global", {"levels": {"live": {"default": "read"}}, "guard": {"disable": ["git-push"]}}),
    Layer(
        "project:acme-shop",
        {"levels": {"live": {"db": "ask"}}, "guard": {"disable+": ["sftp-session"]}},
    ),
    Layer("environment:acme-shop/live", {"guard": {"mode": "block", "disable-": ["git-push"]}}),
)

# $defs whose type reads better as words (and a link) than as the enum they hold.
DEF_TYPES = {
    "level": "level: " + ", ".join(f"`{v}`" for v in catalog.LEVELS),
    "ruleIds": "list of [guard rule ids](#built-in-guard-rules), each once",
    "detectorIds": "list of [secret detector ids](#secret-detectors), each once",
    "allow": "list of regular expressions",
}


def render() -> str:
    """docs/policy.md, section by section; Django must be set up (the tools, the example)."""
    lines = [
        GENERATED,
        "",
        "# Policy",
        "",
        "The policy says what agents may do on each kind of environment (`levels`), what the "
        "PreToolUse guard counts as a change and what it does about one (`guard`), and what "
        "counts as a secret in what agents and the owner write (`secrets`) (§7, §9.9). "
        "It is data: JSON layers merged in order, each value remembering the layer that set "
        "it. Agents read it with `policy_get` and may propose a change with `policy_propose`; "
        "only the owner changes it, on Settings → Policy or by editing `policy.json`.",
        "",
        "Generated from `policy/schema.json`, `policy/presets.py` and `policy/catalog.py`.",
        "",
        *_layers(),
        *_merging(),
        *_presets(),
        *_keys(),
        *_validation(),
        *_widening(),
        *guard_rules(),
        *secret_sections(),
        *observation_sections(),
        *_tools(),
        *_example(),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


# --- sections ------------------------------------------------------------------------------


def _layers() -> list[str]:
    rows = [
        (
            "1",
            "`preset:<name>`",
            "The preset `policy.json` names in `preset` (`default` when it names none).",
        ),
        (
            "2",
            "`config`",
            "The legacy settings `guard_mode` and `[permission_defaults]` of `config.toml` "
            "(or their `RELAYBAY_*` variables), only when set.",
        ),
        (
            "3",
            "`global`",
            "The file `policy.json` in the data folder (the setting `policy_file`), read "
            "again whenever its modification time or size changes.",
        ),
        (
            "4",
            "`project:<slug>`",
            "A project's layer, stored in the database (Settings → Policy, or an accepted "
            "proposal).",
        ),
        (
            "5",
            "`environment:<slug>/<name>`",
            "One environment's layer, stored in the database like the project's.",
        ),
    ]
    return [
        "## Layers",
        "",
        "Five layers, a later one winning. The source name is what `policy_get` and "
        "Settings → Policy print after every value.",
        "",
        "| # | Source | Where it comes from |",
        "| --- | --- | --- |",
        *(f"| {n} | {source} | {cell(text)} |" for n, source, text in rows),
        "",
        "A scope is the global policy (layers 1–3), a project (1–4) or one of its "
        "environments (1–5); `policy_propose` writes it as `global`, `<project>` or "
        "`<project>/<environment>`. A stored layer that no longer validates is logged once, "
        "left out and listed as ignored.",
        "",
    ]


def _merging() -> list[str]:
    merged = merge(MERGE_EXAMPLE)
    shown = [(p, v, s) for p, v, s in merged.lines() if not s.startswith("preset:")]
    editable = ", ".join(f"`{'.'.join(path)}`" for path in sorted(EDITABLE_LISTS))
    return [
        "## How layers merge",
        "",
        "- Objects merge key by key: a layer names only the keys it changes.",
        "- Scalars and lists replace what an earlier layer said.",
        f"- {editable} may also be written `key+` (add; a pattern whose `id` exists replaces "
        "it) and `key-` (remove by value, or a pattern by its `id`). Both are applied after "
        "`key` of the same layer, so a layer can replace a list and still edit it.",
        "- `preset` counts only in the global layer; `$schema` and `description` are ignored.",
        "",
        "For example these three layers, in this order:",
        "",
        "```text",
        *(f"{layer.source}: {show(layer.body)}" for layer in MERGE_EXAMPLE),
        "```",
        "",
        "give (values the preset set are left out):",
        "",
        "```text",
        *(f"{path} = {show(value)} ({source})" for path, value, source in shown),
        "```",
        "",
    ]


def _presets() -> list[str]:
    rows = [f"| `{name}` | {' | '.join(cell(c) for c in SUMMARY[name])} |" for name in PRESETS]
    return [
        "## Presets",
        "",
        "The first layer of every policy. `default` is relaybay as it was before policies: "
        "an owner with no `policy.json` and no legacy settings has it.",
        "",
        "| Preset | Levels | Guard | Secrets |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
        "The `default` preset in full:",
        "",
        "```json",
        json.dumps(PRESETS["default"], indent=2),
        "```",
        "",
    ]


def _keys() -> list[str]:
    root = validate.schema()
    rows: list[str] = []
    _walk(root["properties"], "", root["$defs"], rows, {})
    return [
        "## Keys",
        "",
        "Every key a layer may hold, walked from `policy/schema.json` (JSON Schema 2020-12; "
        "point `$schema` at it and an editor completes the keys). Any other key is refused. "
        "`[]` stands for each item of a list.",
        "",
        "| Key | Type | Description |",
        "| --- | --- | --- |",
        *rows,
        "",
    ]


def _walk(
    props: dict[str, Any],
    prefix: str,
    defs: dict[str, Any],
    rows: list[str],
    walked: dict[str, str],
    required: frozenset[str] = frozenset(),
) -> None:
    """One row per key, depth first; an object $def is expanded once, later rows point to it."""
    for name, raw in props.items():
        path = f"{prefix}.{name}" if prefix else name
        node, ref = _deref(raw, defs)
        description = raw.get("description") or node.get("description") or ""
        if name in required:
            description = "Required. " + description
        items = node.get("items") if node.get("type") == "array" else None
        item, item_ref = _deref(items, defs) if isinstance(items, dict) else ({}, "")
        expand = item.get("type") == "object" and item_ref not in walked
        kind = _type_text(node, ref)
        if item.get("type") == "object":
            kind = f"list of {item_ref} objects" + (
                f" (the fields of `{walked[item_ref]}`)" if not expand else " (fields below)"
            )
        rows.append(f"| `{path}` | {cell(kind)} | {cell(description)} |")
        if node.get("type") == "object" and "properties" in node:
            _walk(node["properties"], path, defs, rows, walked)
        if expand:
            walked[item_ref] = f"{path}[]"
            _walk(
                item["properties"],
                f"{path}[]",
                defs,
                rows,
                walked,
                frozenset(item.get("required", ())),
            )


def _deref(raw: dict[str, Any], defs: dict[str, Any]) -> tuple[dict[str, Any], str]:
    ref = raw.get("$ref", "")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        return defs[name], name
    return raw, ""


def _type_text(node: dict[str, Any], ref: str) -> str:
    if ref in DEF_TYPES:
        return DEF_TYPES[ref]
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    kind = node.get("type", "any")
    if kind == "array":
        items = node.get("items") or {}
        kind = f"list of {items.get('type', 'values')}s"
    elif kind == "boolean":
        kind = "`true` or `false`"
    bounds = limits(node)
    return f"{kind} ({bounds})" if bounds else kind


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:g} ms"


def _validation() -> list[str]:
    example = validate.errors({"guard": {"mode": "loud"}}, label="policy.json", scope="global")
    at_start = validate.errors(
        {"guard": {"mode": "loud"}}, label="<data folder>/policy.json", scope="global"
    )
    return [
        "## Validation",
        "",
        "A layer is checked when it is saved, proposed, accepted and (for `policy.json`) read:",
        "",
        "1. against `policy/schema.json`: known keys only, the types and values above;",
        "2. `preset` only in the global layer;",
        "3. custom pattern ids unique across `guard.patterns` and `guard.patterns+`, and never "
        "a built-in rule id;",
        "4. every regular expression (`guard.patterns[].command`, `guard.patterns[].change`, "
        "`secrets.allow[]`, also in their `+` lists) is safe (`policy/safe_regex.py`):",
        f"   - at most {safe_regex.MAX_LENGTH} characters long, and it compiles "
        f"({_case_words()}, Python's `regex` module);",
        "   - no back-references (`\\1`, `\\g<name>`), and no repeated group that holds a "
        "quantifier or an alternation (`(a+)+`, `(a|aa)*`);",
        f"   - at most {safe_regex.MAX_UNBOUNDED} unbounded quantifiers (`*`, `+`, `{{n,}}`; a "
        "lazy or possessive suffix does not count again);",
        "   - when a layer is saved, proposed or accepted and when policy.json is read, all "
        "the hostile probes "
        f"({safe_regex.PROBE_LENGTH // 1024} KB inputs that make backtracking slow) run "
        f"within {_ms(safe_regex.PROBE_BUDGET)} together (a stored project or "
        "environment layer read back is not timed again).",
        "",
        f"While the guard runs, a pattern sees the first {safe_regex.MAX_INPUT} characters of "
        f"its input, and a match that takes over {_ms(safe_regex.RUN_LIMIT)} fails closed "
        "(CPU time, measured around each call, so also when the regex engine lets it run on "
        "and answer): a guard pattern counts as matched (the call looks like a change), an "
        "allow pattern allows nothing; it is logged at most once a minute. Guard patterns "
        "match anywhere in the text, allow patterns must match the whole value.",
        "",
        f"At most {validate.MAX_ERRORS} errors are reported at once, each on its own line "
        "naming the layer, the path and the problem:",
        "",
        "```text",
        *example,
        "```",
        "",
        "A broken `policy.json` stops `relaybay serve` before anything starts, with one line "
        "per error and exit code 2:",
        "",
        "```text",
        *(f"relaybay: invalid policy file: {line}" for line in at_start),
        "```",
        "",
        "A `policy.json` that breaks while the server runs is logged once; its last valid "
        "version stays in effect, and `policy_get` and Settings → Policy say the file is "
        "broken until it is fixed.",
        "",
    ]


def _case_words() -> str:
    return "case-insensitive" if safe_regex.FLAGS & regex.IGNORECASE else "case-sensitive"


def _widening() -> list[str]:
    doc = inspect.getdoc(widen) or ""
    body = " ".join(doc.split("\n\n", 1)[-1].split())
    return [
        "## What widens access on live",
        "",
        body,
        "",
        "`policy_propose` says so in its answer, and the owner confirms such a proposal a "
        "second time when accepting it.",
        "",
    ]


def _tools() -> list[str]:
    import asyncio

    from relaybay_site.mcp_server import build_server

    tools = asyncio.run(build_server().list_tools())
    lines = [
        "## MCP tools",
        "",
        "No tool changes a policy: an agent reads it and proposes; the owner accepts or "
        "rejects proposals on Settings → Policy. The full reference is in "
        "[mcp-tools.md](mcp-tools.md).",
        "",
    ]
    for tool in sorted((t for t in tools if t.name.startswith("policy_")), key=lambda t: t.name):
        description, returns, _errors = split_docstring(tool.description)
        kind = "read-only" if tool.annotations and tool.annotations.read_only_hint else "write"
        lines += [
            f"### [`{tool.name}`](mcp-tools.md#{tool.name}) ({kind})",
            "",
            " ".join(description.split()),
            "",
            "| Parameter | Type | Required | Default | Description |",
            "| --- | --- | --- | --- | --- |",
            *parameter_rows(tool.input_schema or {}),
            "",
            "Answers: " + " ".join(returns),
            "",
        ]
    return lines


def _example() -> list[str]:
    from policy.render_md import policy_md
    from policy.selectors import Effective, Scope

    layers = [preset_layer(EXAMPLE["preset"]), Layer("global", EXAMPLE)]
    effective = Effective(
        scope=Scope(),
        merged=merge(layers),
        preset=EXAMPLE["preset"],
        chain=tuple(layer.source for layer in layers),
        ignored=(),
        global_error=None,
    )
    return [
        "## A complete policy.json",
        "",
        "```json",
        json.dumps(EXAMPLE, indent=2, ensure_ascii=False),
        "```",
        "",
        "With it (and no legacy settings), `policy_get` without arguments answers:",
        "",
        "```markdown",
        policy_md(effective),
        "```",
    ]
