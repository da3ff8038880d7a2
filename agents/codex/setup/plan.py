"""relaybay's block in Codex's config.toml: the plan, its diff and hash.

No TOML writer is at hand, and the file is the user's, comments and all: relaybay's part is
one marked block of text (its `[[hooks.<Event>]]` groups and the `[hooks.state."…"]` tables
that trust them), appended at the end of the file or replaced where it stands. Every byte
outside the block stays as it was, with the one line break before the block being the
block's own, so `--remove` gives the original bytes back. Trust keys name each group's place
among all of that event's groups, so they are computed from the text before the block and
checked against the final file parsed with tomllib; a file that could not hold the block
(it does not parse, `hooks` is an inline table …) is refused, never corrupted. The plan is
plan.Plan, written by plan.write_plan (backup, atomic replace, --expect).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from agents.codex.setup import config as codex
from agents.setup import document, hold
from agents.setup.document import SettingsError
from agents.setup.plan import Plan, read_bytes
from agents.setup.target import Target

START = "# >>> relaybay (managed by relaybay setup --agent codex; do not edit) >>>"
END = "# <<< relaybay <<<"
NAME = "config.toml"
CANNOT_HOLD = (
    "{path} cannot take relaybay's hooks as [[hooks.<Event>]] groups ({error}). Usually "
    "`hooks`, `hooks.state` or an event's list is written inline (`= {{ … }}` or `= [ … ]`); "
    "write it as [hooks…] tables instead, then run setup again. Nothing was written."
)


class Parts(NamedTuple):
    """The file around relaybay's block: head + (line break) + block + tail."""

    head: str
    block: str  # "" when there is none
    tail: str

    @property
    def user(self) -> str:
        """The file without relaybay's block: what --remove leaves."""
        return self.head + self.tail


@dataclass(frozen=True)
class Hook:
    """One of relaybay's groups as planned: its event, place, command and trust."""

    event: str
    group: int
    command: str
    timeout: int
    key: str
    hash: str
    trust_written: bool  # False when the file already trusts it outside the block


def split(text: str) -> Parts:
    """The file's parts; SettingsError for a damaged block (a marker without its pair)."""
    starts, ends = [], []
    for line in re.finditer(r"[^\n]*\n?", text):  # lines end at \n only, as in TOML
        bare = line[0].rstrip()
        if bare == START:
            starts.append(line.start())
        elif bare == END:
            ends.append(line.end())
    if not starts and not ends:
        return Parts(text, "", "")
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise SettingsError(
            f"{NAME} holds {len(starts)} start and {len(ends)} end lines of relaybay's block "
            f"({START!r} … {END!r}); delete the damaged block by hand, or restore a "
            "config.toml.relaybay-backup-… file, then run setup again."
        )
    start, end = starts[0], ends[0]
    cut = start - 2 if text[:start].endswith("\r\n") else max(start - 1, 0)
    return Parts(text[:cut], text[start:end], text[end:])


def join(head: str, block: str, tail: str, newline: str) -> str:
    return head + (newline if head else "") + block + tail


def parse(text: str, what: str = NAME) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(
            f"{what} is not valid TOML ({exc}); fix it, then run setup again."
        ) from None


def check_shape(doc: dict[str, Any], path: Path) -> None:
    """`hooks` a table, each of relaybay's events a list of groups, `hooks.state` a table."""
    hooks = doc.get("hooks", {})
    problem = None
    if not isinstance(hooks, dict):
        problem = "`hooks` is not a table"
    else:
        for event in codex.EVENTS:
            groups = hooks.get(event, [])
            if not (isinstance(groups, list) and all(isinstance(g, dict) for g in groups)):
                problem = f"`hooks.{event}` is not a list of [[hooks.{event}]] groups"
        if not isinstance(hooks.get("state", {}), dict):
            problem = "`hooks.state` is not a table"
    if problem:
        raise SettingsError(
            f"{path}: {problem}, which is not the shape Codex documents; fix it, then run "
            "setup again. Nothing was written."
        )


def _groups_before(head: str) -> dict[str, int]:
    doc = parse(head) if head.strip() else {}
    hooks = doc.get("hooks", {})
    return {e: len(hooks.get(e, [])) if isinstance(hooks, dict) else 0 for e in codex.EVENTS}


def planned_hooks(target: Target, parts: Parts, user: dict[str, Any], key_path: str) -> list[Hook]:
    """relaybay's group of each event, placed after the groups before the block."""
    before = _groups_before(parts.head)
    held = codex.held_events()
    hooks = []
    for event in codex.EVENTS:
        command = codex.hook_command(target, held=event in held)
        timeout = codex.hook_timeout(event, held=event in held)
        found = codex.Found(event, before[event], 0, command, timeout, None, "")
        key, digest = found.key(key_path), found.hash()
        existing = codex.trust_entry(user, key)
        if existing is not None and existing.get("trusted_hash") != digest:
            raise SettingsError(
                f"{NAME} already has a [hooks.state.{codex.toml_string(key)}] table outside "
                "relaybay's block, trusting another hook at the place relaybay's goes (a hook "
                "deleted since?). Delete that table, then run setup again. Nothing was written."
            )
        hooks.append(Hook(event, found.group, command, timeout, key, digest, existing is None))
    return hooks


def render_block(hooks: list[Hook], newline: str) -> str:
    lines = [
        START,
        "# relaybay's hooks (relaybay.hook_client) and the [hooks.state] tables that trust them;",
        "# setup recomputes the trust hashes whenever the command changes.",
    ]
    for hook in hooks:
        lines += [
            f"[[hooks.{hook.event}]]",
            f"[[hooks.{hook.event}.hooks]]",
            'type = "command"',
            f"command = {codex.toml_string(hook.command)}",
            f"timeout = {hook.timeout}",
            "",
        ]
    for hook in hooks:
        if hook.trust_written:
            lines += [f"[hooks.state.{codex.toml_string(hook.key)}]"]
            lines += [f'trusted_hash = "{hook.hash}"', ""]
    if lines[-1] == "":
        lines.pop()
    lines.append(END)
    return newline.join(lines) + newline


def verify(text: str, parts: Parts, hooks: list[Hook], path: Path) -> None:
    """The written file parses, holds each hook at its key's place with its trust, and is
    byte for byte the user's file outside the block."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(CANNOT_HOLD.format(path=path, error=exc)) from None
    for hook in hooks:
        groups = doc.get("hooks", {}).get(hook.event, [])
        placed = groups[hook.group] if hook.group < len(groups) else None
        wanted = {"type": "command", "command": hook.command, "timeout": hook.timeout}
        entry = codex.trust_entry(doc, hook.key) or {}
        if placed != {"hooks": [wanted]} or entry.get("trusted_hash") != hook.hash:
            raise SettingsError(
                f"relaybay's {hook.event} group would not be where its trust entry says "
                f"({hook.key}); {path} was left as it is."
            )
    if split(text).user != parts.user:
        raise SettingsError(f"the plan would change {path} outside relaybay's block")


def make_codex_plan(
    path: Path, target: Target, *, action: str = "apply", key_path: str | None = None
) -> Plan:
    """Read config.toml and compute the change; SettingsError when it must not be touched.
    `key_path` is the file's name in trust keys (by default `path` itself)."""
    before = read_bytes(path)
    text = document.decode(before, NAME)
    parse(text)
    parts = split(text)
    user = parse(parts.user)
    check_shape(user, path)
    if action == "remove":
        return _remove_plan(path, before, parts)
    newline = "\r\n" if "\r\n" in parts.user else "\n"
    hooks = planned_hooks(target, parts, user, key_path or str(path))
    after = join(parts.head, render_block(hooks, newline), parts.tail, newline)
    verify(after, parts, hooks, path)
    notes = _apply_notes(user, parts, hooks)
    return Plan(path, "apply", before, after.encode("utf-8"), notes)


def _remove_plan(path: Path, before: bytes, parts: Parts) -> Plan:
    if not parts.block:
        return Plan(path, "remove", before, before)
    after = parts.user
    parse(after)  # cannot fail for a block setup wrote; refuses one edited into the file
    moved = _groups_after(parts)
    notes: tuple[str, ...] = ()
    if moved:
        notes = (
            f"Your own hooks of {', '.join(moved)} come after relaybay's block: without it "
            "each moves up one place, and Codex asks to trust it again (trust keys name the "
            "place).",
        )
    return Plan(path, "remove", before, after.encode("utf-8"), notes)


def _groups_after(parts: Parts) -> list[str]:
    before = _groups_before(parts.head)
    hooks = parse(parts.user).get("hooks", {})
    return [e for e in codex.EVENTS if len(hooks.get(e, [])) > before[e]]


def _apply_notes(user: dict[str, Any], parts: Parts, hooks: list[Hook]) -> tuple[str, ...]:
    notes = list(hold.plan_notes(codex.held_events()))
    outside = sorted({f.event for f in codex.relaybay_hooks(user)})
    if outside:
        notes.append(
            f"{NAME} also runs relaybay's hook client outside the block ({', '.join(outside)}); "
            "Codex would send those events twice: delete those groups by hand."
        )
    kept = [h.event for h in hooks if not h.trust_written]
    if kept:
        notes.append(
            f"{', '.join(kept)}: already trusted by a [hooks.state] table outside the block, "
            "which is kept as it is."
        )
    return tuple(notes)
