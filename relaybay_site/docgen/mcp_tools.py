"""docs/mcp-tools.md: the tools and resources the MCP server registers, as the model sees
them (description, input schema, annotations, output schema; docgen/common.py lifts the
`Returns:` / `Errors:` sections out of a docstring)."""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

from relaybay_site.docgen.common import (
    GENERATED,
    GENERIC_ERRORS,
    cell,
    ensure_django,
    parameter_rows,
    split_docstring,
)


def _annotations_text(annotations: Any) -> str:
    if annotations is None:
        return "none (clients treat the tool as one that may write)"
    hints = [
        ("readOnlyHint", annotations.read_only_hint),
        ("destructiveHint", annotations.destructive_hint),
        ("idempotentHint", annotations.idempotent_hint),
        ("openWorldHint", annotations.open_world_hint),
    ]
    shown = ", ".join(f"`{k}: {json.dumps(v)}`" for k, v in hints if v is not None)
    kind = "read-only" if annotations.read_only_hint else "writes"
    return f"{kind}" + (f" ({shown})" if shown else "")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _tool_section(tool: Any) -> list[str]:
    description, returns, errors = split_docstring(tool.description)
    lines = [f"### `{tool.name}`", ""]
    if tool.title:
        lines += [f"*{tool.title}*", ""]
    lines += [description or "(no description)", ""]
    lines += [f"- **Annotations:** {_annotations_text(tool.annotations)}"]
    if tool.output_schema:
        shape = "structured content with this JSON schema, plus the same as text: " + (
            f"`{json.dumps(tool.output_schema, sort_keys=True)}`"
        )
    else:
        shape = "short markdown text (one text block)"
    if returns:
        shape += " — " + " ".join(returns)
    lines += [f"- **Result:** {shape}", ""]
    rows = parameter_rows(tool.input_schema or {})
    if rows:
        lines += [
            "| Parameter | Type | Required | Default | Description |",
            "| --- | --- | --- | --- | --- |",
            *rows,
            "",
        ]
    else:
        lines += ["No parameters.", ""]
    lines += ["**Errors:**", ""]
    lines += [f"- {e}" for e in errors] if errors else [f"- {GENERIC_ERRORS}"]
    lines.append("")
    return lines


def _resource_lines(resources: list[Any], templates: list[Any]) -> list[str]:
    lines = ["## Resources", ""]
    if not resources and not templates:
        return [*lines, "No resources are registered yet.", ""]
    lines += [
        "| URI | Name | Type | Description |",
        "| --- | --- | --- | --- |",
    ]
    entries = [(str(t.uri_template), t) for t in templates] + [(str(r.uri), r) for r in resources]
    for uri, item in sorted(entries, key=lambda e: e[0]):
        desc = inspect.cleandoc(item.description or "")
        row = [f"`{uri}`", item.name or "", item.mime_type or "", desc]
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    lines += [
        "",
        "A URI with `{…}` is a template: fill in the variable (for example a project slug).",
        "",
    ]
    return lines


async def _listing(server: Any) -> tuple[list[Any], list[Any], list[Any]]:
    tools = await server.list_tools()
    resources = await server.list_resources()
    templates = await server.list_resource_templates()
    return tools, resources, templates


def render_mcp_tools(server: Any = None) -> str:
    """docs/mcp-tools.md from the tools and resources the MCP server registers."""
    if server is None:
        ensure_django()
        from relaybay_site.mcp_server import build_server

        server = build_server()
    tools, resources, templates = asyncio.run(_listing(server))
    tools = sorted(tools, key=lambda t: t.name)
    lines = [
        GENERATED,
        "",
        "# MCP tools",
        "",
        "relaybay's MCP server (§3) answers Streamable HTTP at exactly `/mcp` on the board's "
        "port; every request needs `Authorization: Bearer <token>` (`relaybay token` prints "
        "the `claude mcp add` line). Tool results are short markdown for the model. "
        + GENERIC_ERRORS,
        "",
        "An unknown parameter is refused, naming the nearest valid one. Every text parameter "
        "has a length limit (its type below says it), and a longer value is refused before "
        "the tool runs. A one-line value (a title, a name, a label) takes no control "
        "characters but the tab, and no text takes NUL.",
        "",
        "## Tools",
        "",
    ]
    if not tools:
        lines += ["No tools are registered yet.", ""]
    else:
        lines += ["| Tool | Kind | Summary |", "| --- | --- | --- |"]
        for tool in tools:
            kind = "read-only" if tool.annotations and tool.annotations.read_only_hint else "write"
            summary = _first_line(split_docstring(tool.description)[0])
            lines.append(f"| [`{tool.name}`](#{tool.name}) | {kind} | {cell(summary)} |")
        lines.append("")
        for tool in tools:
            lines += _tool_section(tool)
    lines += _resource_lines(resources, templates)
    return "\n".join(lines).rstrip("\n") + "\n"
