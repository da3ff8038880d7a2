"""Held hooks, for any agent: the events whose answer the agent's CLI waits for while the
owner decides on the board (its capabilities' `holds`, named the CLI's way by its SPEC's
`kinds`), the long timeout and `--hold` setup writes on them, and the check line that says
whether approvals from the board are possible with the hooks a settings file holds.

The client waits up to HOLD_SECONDS (--hold, sent as X-Relaybay-Hold); the server answers
MARGIN_SECONDS before that at the latest, and after approval_wait_seconds at most; the
agent's own timeout is above both, so a held guard ask is always answered before the CLI
gives up on its hook (a PreToolUse that times out lets the tool run).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.setup.items import Item

HOLD_SECONDS = 590  # --hold: how long the hook client waits for the owner's answer
HOLD_TIMEOUT = 600  # seconds: the agent's timeout of a held hook (Claude Code and Codex's
# default too), above the client's wait and its start-up
MARGIN_SECONDS = 10  # the server answers this long before the client stops waiting
# (sessions/hooks/approvals.py MARGIN_SECONDS; tests/setup/test_hold.py holds them equal)
HOLD_OPTION = "--hold"
ITEM = "approvals from the board"


def held_events(spec: Any) -> tuple[str, ...]:
    """The agent's own names of the events its CLI waits on (its SPEC's capabilities'
    `holds`, through `kinds`), in the order of `kinds`."""
    holds = spec.capabilities.holds
    return tuple(name for kind, name in spec.kinds.items() if kind in holds)


def hold_args() -> list[str]:
    """What a held event's hook command adds after its other arguments."""
    return [HOLD_OPTION, str(HOLD_SECONDS)]


def command_hold(args: Sequence[str]) -> float:
    """The --hold of a hook command's arguments in seconds, 0 when it has none (or one the
    client would not take: not a number, or not above 0)."""
    value = ""
    for i, arg in enumerate(args):
        if arg == HOLD_OPTION and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith(HOLD_OPTION + "="):
            value = arg.removeprefix(HOLD_OPTION + "=")
    try:
        seconds = float(value)
    except ValueError:
        return 0.0
    return seconds if seconds > 0 else 0.0


def plan_notes(events: Sequence[str], timeout: str = f"{HOLD_TIMEOUT} s") -> tuple[str, ...]:
    """The plan's note on the held events: why their timeout is long (`timeout` as the
    agent's file writes it); none when the agent holds no event."""
    if not events:
        return ()
    return (
        f"{_names(events)}: timeout {timeout} and {HOLD_OPTION} {HOLD_SECONDS}, so the answer "
        "can wait for your Approve or Deny on the board (up to approval_wait_seconds; the "
        f"server answers within {HOLD_SECONDS - MARGIN_SECONDS} s whatever it is set to); "
        "every other event keeps its short timeout.",
    )


@dataclass(frozen=True)
class Held:
    """One of relaybay's hooks of a held event as a settings file has it."""

    hold: float  # what its client waits (--hold, or the X-Relaybay-Hold header); 0: none
    timeout: float  # the agent's timeout of the hook, in seconds


def _minutes(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{int(seconds)} s"


def _names(events: Sequence[str]) -> str:
    return events[0] if len(events) == 1 else ", ".join(events[:-1]) + f" and {events[-1]}"


def _problems(events: Sequence[str], found: Mapping[str, Sequence[Held]]) -> list[str]:
    problems = []
    for event in events:
        hooks = found.get(event, ())
        if not hooks:
            problems.append(f"{event} has no relaybay hook")
        elif any(h.hold <= MARGIN_SECONDS for h in hooks):
            shown = max(h.timeout for h in hooks)
            problems.append(f"{event} has no --hold (timeout {int(shown)} s)")
        elif any(h.timeout <= h.hold for h in hooks):
            h = min(hooks, key=lambda h: h.timeout - h.hold)
            problems.append(
                f"{event}'s timeout {int(h.timeout)} s is not above its hold "
                f"{int(h.hold)} s, so the CLI gives up first"
            )
    return problems


def approvals_item(
    events: Sequence[str],
    found: Mapping[str, Sequence[Held]],
    *,
    fix: str,
    note: str = "",
    wait: float | None = None,
    name: str = ITEM,
) -> Item:
    """Whether the owner can approve from the board: every held event has relaybay's hook
    with a --hold and a timeout above it (ok, with `note`), else FAIL with `fix` (a setup
    older than approvals wrote no --hold and a short timeout). `wait` is
    approval_wait_seconds (the settings' when None): 0 means holding is off. `name` is the
    line's name ("Codex approvals from the board" beside other agents' lines)."""
    if wait is None:
        from django.conf import settings

        wait = float(settings.RELAYBAY.approval_wait_seconds)
    if not events:
        return Item(True, name, "no hook of this agent waits for you: nothing to approve here")
    names = _names(events)
    if wait <= 0:
        detail = (
            f"holding is off (approval_wait_seconds is 0): {names} never wait for you, the "
            "guard's ask goes out at once and a permission prompt is left to the CLI; set "
            "approval_wait_seconds above 0 to approve from the board"
        )
        return Item(True, name, detail)
    problems = _problems(events, found)
    if problems:
        detail = (
            f"{names} cannot wait for your Approve or Deny: " + "; ".join(problems) + " (hooks "
            "written by a relaybay setup older than approvals, or edited)"
        )
        return Item(False, name, detail, fix)
    hold = min(h.hold for event in events for h in found[event])
    waits = min(wait, hold - MARGIN_SECONDS)
    verb = "waits" if len(events) == 1 else "wait"
    detail = f"{names} {verb} up to {_minutes(waits)} for you"
    if wait > hold - MARGIN_SECONDS:
        detail += (
            f" (approval_wait_seconds {int(wait)} is more than the hooks' --hold "
            f"{int(hold)} allows: the server answers {int(MARGIN_SECONDS)} s before it)"
        )
    return Item(True, name, detail + (f"; {note}" if note else ""))
