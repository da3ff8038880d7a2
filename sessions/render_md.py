"""The short markdown answers of the session tools and the task_get session section."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from core.display import ago
from sessions import brief
from sessions.models import Session, TaskBinding
from sessions.selectors import desktop_link, label
from sessions.services import BindResult, UnbindResult
from tasks.models import Task

HISTORY_LINES = 5


def _with_notes(text: str, notes: tuple[str, ...] | list[str]) -> str:
    return "\n".join([text, *notes]) if notes else text


def bind_answer(result: BindResult) -> str:
    """task_bind_session's answer; a new binding of an open task adds its resume brief."""
    key = result.task.key
    session = result.session
    if result.alias:
        text = (
            f"{result.alias} is now an alias of session {label(session)}; {key} stays bound to it."
        )
    elif result.changed:
        text = f"Bound {key} to session {label(session)}."
        if result.previous is not None:
            text += f" It was bound to {result.previous.name}."
    elif result.notes and result.notes[0].startswith("Warning:"):
        return "\n".join(result.notes)
    else:
        text = f"{key} is already bound to session {label(session)}; nothing changed."
    text = _with_notes(text, result.notes)
    # A newly bound session starts from where the task stands: the same brief a
    # resumed session's start gets.
    where = brief.brief([result.task]) if result.changed and brief.enabled() else ""
    return f"{text}\n\n{where}" if where else text


def unbind_answer(result: UnbindResult) -> str:
    key = result.task.key
    if result.session is None:
        text = f"{key} has no bound session; nothing changed."
    else:
        text = f"Unbound {key} from session {label(result.session)}."
    return _with_notes(text, result.caller_notes)


def utc(when: datetime) -> str:
    return when.astimezone(timezone.UTC).strftime("%Y-%m-%d %H:%MZ")


def session_line(session: Session) -> str:
    status = session.hook_status or "no hook status"
    if session.activity:
        activity = f"last activity: {session.activity}, {ago(session.activity_at)}"
    else:
        activity = "no activity yet"
    return f"{label(session)} · {session.kind} · {status} · {activity}"


def _history_line(b: TaskBinding) -> str:
    who = f" by {b.bound_by}" if b.bound_by else ""
    if b.unbound_at is None:
        return f"- {label(b.session)}: since {utc(b.bound_at)}{who} (current)"
    why = f" ({b.unbind_reason})" if b.unbind_reason else ""
    return f"- {label(b.session)}: {utc(b.bound_at)}{who} → {utc(b.unbound_at)}{why}"


def task_section(task: Task, history: list[TaskBinding], total: int) -> str:
    """task_get's "Session" section: the bound session, then the history, latest first."""
    current = history[0] if history and history[0].unbound_at is None else None
    lines = ["## Session", ""]
    if current is None:
        lines.append("None bound. Bind one with task_bind_session.")
    else:
        lines.append(session_line(current.session))
        if link := desktop_link(current.session):
            lines.append(f"Open in desktop: {link}")
    if history:
        lines += ["", "History (latest first):"]
        lines += [_history_line(b) for b in history]
        if total > len(history):
            lines.append(f"- … and {total - len(history)} earlier binding(s)")
    return "\n".join(lines)
