"""The journal of actions on live (§7): one live.action event per guarded tool call that
touches a live environment, whatever the guard decided (not with the guard off).

The command arrives masked (environments.guard Verdict.journal_command: whitespace
collapsed, every secret spot and stored test secret masked, at most 200 characters); this
service only checks the values it records and appends the event in the hook's transaction:
so it is the one public service of the app that is not durable (sessions' guard step calls it).
"""

from __future__ import annotations

from django.db import transaction

from core.errors import InvalidField
from tasks.events import EventKind, record_event
from tasks.models import Event, Project, Task

DECISIONS = ("allow", "log", "warn", "ask", "deny")
HELD = "hold"  # sent: the ask was held for the owner's answer on the board
COMMAND_MAX = 200


def live_action_record(
    *,
    project: Project,
    environment: str,
    task: Task | None,
    tool: str,
    command: str,
    decision: str,
    level: str,
    rule: str,
    actor: str,
    agent: str = "",
    sent: str = "",
) -> Event:
    """Append the live.action event of one guarded call on one live environment. `agent`:
    whose hooks sent the call ("claude-code", "codex"); `sent`: what the agent was answered
    when it differs from the decision (an agent that cannot ask gets a deny; an ask its hook
    waits on is "hold": the owner answers on the board, approval.decided says how)."""
    for name, value, allowed in (
        ("decision", decision, DECISIONS),
        ("sent", sent or decision, (*DECISIONS, HELD)),
    ):
        if value not in allowed:
            raise InvalidField(name, f"{name} must be one of {', '.join(allowed)}.")
    with transaction.atomic():
        return record_event(
            EventKind.LIVE_ACTION,
            project=project,
            task=task,
            actor=actor,
            payload={
                "environment": environment,
                "tool": tool[:200],
                "command": command[:COMMAND_MAX],
                "decision": decision,
                "level": level,
                "rule": rule,
                "agent": agent[:20],
                "sent": sent or decision,
            },
        )
