"""The planned change to the settings file, its diff and hash, and writing it (§5).

A plan is computed from the file's bytes alone; its hash (SHA-256 over the current bytes
and the planned bytes, first 12 hex digits) lets `--expect` refuse a write when the file
or the plan changed since the user looked at the diff.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agents.claude_code.setup.entries import (
    EVENTS,
    Target,
    desired_hook,
    is_relaybay_hook,
    is_wake_hook,
    new_group,
    wake_hook,
)
from agents.setup import document

HTTP_SESSIONSTART_NOTE = (
    "SessionStart is written as the command hook: Claude Code 2.1.332 never runs http "
    "hooks for SessionStart, so its event and the hook-session line would be lost."
)


@dataclass(frozen=True)
class Plan:
    path: Path
    action: str  # "apply" or "remove"
    before: bytes
    after: bytes
    notes: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.before + self.after).hexdigest()[:12]

    @property
    def diff(self) -> str:
        old = self.before.decode("utf-8", "replace").splitlines()
        new = self.after.decode("utf-8", "replace").splitlines()
        name = str(self.path)
        lines = difflib.unified_diff(old, new, f"{name} (now)", f"{name} (after)", lineterm="")
        return "\n".join(lines)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def with_hooks(
    data: dict[str, Any], target: Target, *, mode: str = "command", wake: bool | None = None
) -> dict[str, Any]:
    """`data` with relaybay's entries in place: existing ones updated where they stand,
    missing ones appended after the user's hooks. wake True adds the wake-up hook to Stop,
    False removes it, None keeps (and updates) an existing one."""
    new = copy.deepcopy(data)
    hooks = new.setdefault("hooks", {})
    for event in EVENTS:
        _put(hooks, event, desired_hook(event, target, mode), lambda h: is_relaybay_hook(h, target))
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
    if action != "apply" or mode != "http":
        return ()
    return (
        HTTP_SESSIONSTART_NOTE,
        "http mode: RELAYBAY_TOKEN must be set to the token in Claude Code's environment.",
    )


def backup_path(path: Path, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now().astimezone()).strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.relaybay-backup-{stamp}")
    n = 1
    while candidate.exists() or candidate.is_symlink():
        candidate = path.with_name(f"{path.name}.relaybay-backup-{stamp}-{n}")
        n += 1
    return candidate


class PlanChanged(Exception):
    """The file (or the plan) no longer hashes to what the user approved."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        super().__init__(f"{plan.path} changed since the plan was shown; nothing was written.")


def write_plan(plan: Plan, now: datetime | None = None) -> Path | None:
    """Back the file up, then write the planned bytes through a symlink to its target.

    Refuses (PlanChanged) when the file no longer holds the bytes the plan was made from.
    Returns the backup's path (None when there was no file to back up).
    """
    if not plan.changed:
        return None
    if read_bytes(plan.path) != plan.before:
        raise PlanChanged(plan)
    real = plan.path.resolve()
    backup = None
    if real.exists():
        backup = backup_path(plan.path, now)
        shutil.copy2(real, backup)
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}-", dir=real.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(plan.after)
            fh.flush()
            os.fsync(fh.fileno())
        if real.exists():
            shutil.copymode(real, tmp)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return backup
