"""The planned change to the settings file, its diff and hash, and writing it (§5).

A plan is computed from the file's bytes alone; its hash (SHA-256 over the current bytes
and the planned bytes, first 12 hex digits) lets `--expect` refuse a write when the file
or the plan changed since the user looked at the diff.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from agents.claude_code.setup.entries import (
    EVENTS,
    desired_hook,
    held_events,
    is_relaybay_hook,
    is_wake_hook,
    new_group,
    wake_hook,
)
from agents.setup import document, hold
from agents.setup.plan import Plan, read_bytes
from agents.setup.target import Target

HTTP_SESSIONSTART_NOTE = (
    "SessionStart is written as the command hook: Claude Code 2.1.332 never runs http "
    "hooks for SessionStart, so its event and the hook-session line would be lost."
)


def with_hooks(
    data: dict[str, Any], target: Target, *, mode: str = "command", wake: bool | None = None
) -> dict[str, Any]:
    """`data` with relaybay's entries in place: existing ones updated where they stand,
    missing ones appended after the user's hooks. wake True adds the wake-up hook to Stop,
    False removes it, None keeps (and updates) an existing one."""
    new = copy.deepcopy(data)
    hooks = new.setdefault("hooks", {})
    held = held_events()
    for event in EVENTS:
        hook = desired_hook(event, target, mode, held)
        _put(hooks, event, hook, lambda h: is_relaybay_hook(h, target))
    has_wake = any(is_wake_hook(h) for g in hooks.get("Stop", []) for h in g["hooks"])
    if wake or (wake is None and has_wake):
        _put(hooks, "Stop", wake_hook(target), is_wake_hook)
    elif wake is False:
        _drop(hooks, is_wake_hook)
    return new


def without_hooks(data: dict[str, Any], target: Target) -> dict[str, Any]:
    new = copy.deepcopy(data)
    if isinstance(new.get("hooks"), dict):
        _drop(new["hooks"], lambda h: is_relaybay_hook(h, target) or is_wake_hook(h))
        if not new["hooks"] and data["hooks"]:
            del new["hooks"]
    return new


def _put(hooks: dict[str, Any], event: str, hook: dict[str, Any], ours: Any) -> None:
    """Replace the first hook of ours in `event` with `hook`, drop any duplicate, or append."""
    groups = hooks.setdefault(event, [])
    placed = False
    for group in groups:
        kept = []
        for item in group["hooks"]:
            if not ours(item):
                kept.append(item)
            elif not placed:
                kept.append(hook)
                placed = True
        group["hooks"] = kept
    groups[:] = [g for g in groups if g["hooks"]]
    if not placed:
        groups.append(new_group(event, hook))


def _drop(hooks: dict[str, Any], ours: Any) -> None:
    for event in list(hooks):
        groups = hooks[event]
        if not any(ours(h) for g in groups for h in g["hooks"]):
            continue
        for group in groups:
            group["hooks"] = [h for h in group["hooks"] if not ours(h)]
        groups[:] = [g for g in groups if g["hooks"]]
        if not groups:
            del hooks[event]


def make_plan(
    path: Path,
    target: Target,
    *,
    action: str = "apply",
    mode: str = "command",
    wake: bool | None = None,
) -> Plan:
    """Read the file and compute the change; SettingsError when it must not be touched."""
    before = read_bytes(path)
    text = document.decode(before, path.name)
    data = document.parse(text, path.name)
    if action == "remove":
        new = without_hooks(data, target)
    else:
        new = with_hooks(data, target, mode=mode, wake=wake)
    if new == data:
        return Plan(path, action, before, before, _notes(action, mode))
    layout = document.layout_of(text, data)
    after = document.render(text, layout, data, new).encode("utf-8")
    return Plan(path, action, before, after, _notes(action, mode))


def _notes(action: str, mode: str) -> tuple[str, ...]:
    if action != "apply":
        return ()
    held = hold.plan_notes(held_events())
    if mode != "http":
        return held
    return (
        *held,
        HTTP_SESSIONSTART_NOTE,
        "http mode: RELAYBAY_TOKEN must be set to the token in Claude Code's environment.",
    )
