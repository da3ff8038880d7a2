"""Collision warnings: sessions that change the same files hear of each other.

On a PreToolUse that is about to change files (touches.py says which), the paths inside the
session's repository are kept (sessions.services.collisions). When another live session of
that repository changed one of them in the last 30 minutes, this call's answer carries one
line per such path — "acme-shop-12 (agent-two) edited src/cart.py 4 min ago — coordinate
before changing it" — and the other session hears the mirror line on its next hook answer.
Two live sessions in one checkout for tasks on different branches are told the same way.
Never a deny: information. Once per pair and path per hour; a `session.collision` event
carries it (paths only) to the Inbox's "Sessions colliding" and the Session panel.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.utils import timezone

from core.display import ago
from environments.secrets import safe_text
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks import touches
from sessions.hooks.answer import HookAnswer, HookCall
from sessions.hooks.linking import contains, projects_containing
from sessions.models import ENDED, Collision, Session
from sessions.services import collisions as steps
from tasks.extensions import plug_in_once
from tasks.models import Project

ORDER = 30  # after the guard (10): a denied call changes nothing
TOLD_KINDS = frozenset({ev.SESSION_START, ev.PROMPT, ev.PRE_TOOL, ev.POST_TOOL})
LIVE = (ENDED,)


def warn(call: HookCall, answer: HookAnswer) -> None:
    """The lines of this call's collisions, and of the ones others found with this session."""
    session = call.session
    if session is None or not settings.RELAYBAY.collision_warnings:
        return
    now = timezone.now()
    lines: list[str] = []
    if call.kind == ev.PRE_TOOL and answer.decision is None:
        lines += _touch(call, session, now)
    lines += [_mirror(found, now) for found in steps.untold_step(session, now=now)]
    for line in lines:
        if len(line) <= answer.budget_left:
            answer.add_context(line)


def _touch(call: HookCall, session: Session, now: datetime) -> list[str]:
    written = touches.written_paths(call.event.tool)
    if not written:
        return []
    project = repository(call.event.cwd)
    if project is None:
        return []
    paths = touches.in_repository(written, call.event.cwd, project.repo_path)
    if not paths:
        return []
    # An observation: a name=value or a test secret in a path is masked, never refused.
    paths = list(dict.fromkeys(safe_text(p, test_values=call.event.test_values) for p in paths))
    found = steps.paths_touched_step(session, project, paths, actor=call.actor, now=now)
    found += _branches(session, project, call.event.cwd, call.actor, now)
    return [_line(f, now) for f in found]


def repository(cwd: str) -> Project | None:
    """The project whose repository holds the folder (the innermost, for nested ones)."""
    found = projects_containing(cwd)
    return max(found, key=lambda p: len(p.repo_path)) if found else None


def _branches(
    session: Session, project: Project, cwd: str, actor: str, now: datetime
) -> list[steps.Found]:
    """Live sessions in this checkout whose task is for another branch than this one's."""
    own = steps.first_task(session)
    if own is None or not own.branch:
        return []
    others = []
    live = (
        Session.objects.exclude(pk=session.pk)
        .exclude(hook_status__in=LIVE)
        .filter(last_seen_at__gte=now - steps.KEPT)
        .exclude(cwd="")
    )
    for other in live:
        if not contains(project.repo_path, other.cwd) or repository(other.cwd) != project:
            continue
        task = steps.first_task(other)
        if task is not None and task.branch and task.branch != own.branch:
            others.append((other, task.branch))
    return steps.branches_step(session, project, own.branch, others, actor=actor, now=now)


def _named(task_key: str | None, name: str) -> str:
    return f"{task_key} ({name})" if task_key else name


def _line(found: steps.Found, now: datetime) -> str:
    """What the session that touched second is told."""
    who = _named(found.other_task.key if found.other_task else None, found.other.name)
    if found.path:
        when = ago(found.other_touched_at, now)
        return f"{who} edited {found.path} {when} — coordinate before changing it."
    return (
        f"{who} works in this checkout for branch {found.other_branch}; your task's branch "
        f"is {found.own_branch} — coordinate before changing files here (or use a worktree)."
    )


def _mirror(found: Collision, now: datetime) -> str:
    """What the session that touched first is told, on its next hook answer."""
    task = steps.first_task(found.session)
    who = _named(task.key if task else None, found.session.name)
    if found.path:
        return (
            f"{who} is changing {found.path} too ({ago(found.at, now)}), after you — "
            "coordinate before changing it further."
        )
    return (
        f"{who} works in this checkout for another branch ({ago(found.at, now)}) — coordinate "
        "before changing files here (or use a worktree)."
    )


@plug_in_once
def register() -> None:
    hook_answer.register_context_provider(ORDER, TOLD_KINDS, warn)
