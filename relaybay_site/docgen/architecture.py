"""The generated blocks of docs/architecture.md, so the house's plan cannot drift from the
code where the code can say it: §11's agents and the hook room's steps in their order, read
from the registries the apps fill at start (the agents, the deciders, the context
providers, the stop handlers). Each block sits between `<!-- generated: NAME -->` and
`<!-- /generated: NAME -->`; the prose around it stays hand-written."""

from __future__ import annotations

import re
from collections.abc import Callable

from relaybay_site.docgen.common import cell


def fill(text: str, blocks: dict[str, Callable[[], list[str]]]) -> str:
    """The page with every named block's lines replaced by what the code says now."""
    for name, render in blocks.items():
        mark = re.escape(name)
        pattern = re.compile(
            rf"(<!-- generated: {mark} -->\n).*?(<!-- /generated: {mark} -->)", re.S
        )
        body = "\n".join(render())
        text, found = pattern.subn(lambda m, b=body: f"{m.group(1)}{b}\n{m.group(2)}", text)
        if not found:
            raise ValueError(f"docs/architecture.md has no generated block {name!r}")
    return text


def hook_room() -> list[str]:
    """The registered agents and the steps of a hook event, in the order they run."""
    from sessions.hooks import answer, registry

    agents = [
        f"| `{a.name}` | {cell(a.title)} | `{a.path}`"
        + (f", `{a.wait_path}`" if a.wait_path else "")
        + f" | `{a.parse.__module__}` |"
        for a in registry.registered()
    ]
    deciders = [f"`{_name(fn)}` ({_kinds(kinds)})" for kinds, fn in answer._deciders]
    providers = [
        f"{order}: `{_name(fn)}` ({_kinds(kinds)})" for order, kinds, fn in answer._providers
    ]
    stops = [f"`{_name(fn)}`" for fn in answer._stop_handlers]
    return [
        "| Agent | Title | Routes | Adapter |",
        "| --- | --- | --- | --- |",
        *agents,
        "",
        "Deciders, before anything is stored: " + ", ".join(deciders) + ".",
        "",
        "Context providers, after the bookkeeping, by order: " + "; ".join(providers) + ".",
        "",
        "Stop handlers, the first request granted: " + ", ".join(stops) + ".",
    ]


def caches() -> list[str]:
    """Every cache and in-process store, as each says where it is made (core/caches.py)."""
    from relaybay_site.docgen.caches import table

    return table()


BLOCKS: dict[str, Callable[[], list[str]]] = {"hook-room": hook_room, "caches": caches}


def _name(fn: Callable[..., object]) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _kinds(kinds: frozenset[str]) -> str:
    from sessions.hooks import event as ev

    return ", ".join(k for k in ev.KINDS if k in kinds)
