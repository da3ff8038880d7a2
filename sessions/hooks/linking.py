"""Which relaybay session a hook event belongs to (§4 "Linking", in order).

Reads only: `decide` says what to do and the hook service applies it (through
sessions.services.hooks) inside the hook request's transaction. The steps, in order:

1. the desktop session the environment names (HookEvent.host: the agent's adapter reads it
   from the body or the headers): an exact link, moved off another live agent session id
   only by the window itself (an attended resume, clear or compact start);
2. the session already holding the id (an agent's hook_session write, an earlier event);
3. on first sight, the one desktop session (not ended) bound to a task of the project
   whose repo_path contains the hook's cwd — a guessed link; a SESSION_END is dropped;
4. ambiguous → a hook row left unlinked with the reason;
5. otherwise a plain hook row named after the folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from sessions.hooks import event as ev
from sessions.hooks.event import HookEvent, Host
from sessions.hooks.registry import agent_title
from sessions.models import ENDED, KIND_DESKTOP, LINK_AGENT, Session, TaskBinding
from sessions.selectors import session_by_agent_id
from tasks.models import Project

EXISTING = "existing"  # the session holding the id (step 2)
ENV = "env"  # link the id to the desktop session the environment names (step 1)
GUESS = "guess"  # link the id by guess to the folder's one desktop session (step 3)
UNLINKED = "unlinked"  # a hook row that stays unlinked, with its reason (step 4)
PLAIN = "plain"  # a plain hook row named after the folder (step 5)
DROP = "drop"  # a SESSION_END for an id no session holds

# The starts that come from the window itself and may move a live link (§4 step 1).
MOVING_SOURCES = frozenset({"resume", "clear", "compact"})
REASON_MAX = 300
HOW_TO_LINK = "The agent links itself by passing hook_session on a relaybay write."


@dataclass(frozen=True)
class Link:
    action: str
    session: Session | None = None  # EXISTING: the holder; ENV: the desktop; GUESS: candidate
    holder: Session | None = None  # ENV: another session holding the id, to take over from
    project: Project | None = None  # UNLINKED / PLAIN: where the new hook row is placed
    folder: str = ""
    reason: str = ""


def decide(event: HookEvent) -> Link:
    agent_id = event.session_id
    holder = session_by_agent_id(agent_id)
    host = event.host
    if host is not None:
        desktop = Session.objects.filter(kind=KIND_DESKTOP, desktop_id=host.desktop_id).first()
        linked = desktop is not None and holder is not None and holder.pk == desktop.pk
        if linked and holder.agent_exact:
            # Already linked exactly: an http hook sends the headers with every event, and
            # repeating the link must not write each one at once (the 5 s activity window).
            return Link(EXISTING, session=holder)
        if desktop is not None and _env_may_link(desktop, holder, event, host):
            other = holder if holder is not None and holder.pk != desktop.pk else None
            return Link(ENV, session=desktop, holder=other)
    if holder is not None:
        return Link(EXISTING, session=holder)
    if event.kind == ev.SESSION_END:
        return Link(DROP)
    return _first_sight(event.cwd, event.agent)


def _env_may_link(desktop: Session, holder: Session | None, event: HookEvent, host: Host) -> bool:
    if holder is not None and holder.pk == desktop.pk:
        return True
    if holder is not None and holder.agent_exact and holder.agent_link == LINK_AGENT:
        return False  # an id another session's agent linked itself is never taken
    if _holds_live_exact(desktop, event.session_id):
        # Only the window itself moves a live link: a claude -p started from one of its
        # tools inherits the desktop id but runs unattended; a plain startup never moves.
        return event.kind == ev.SESSION_START and event.source in MOVING_SOURCES and host.attended
    return True


def _holds_live_exact(session: Session, agent_id: str) -> bool:
    return (
        bool(session.agent_session_id)
        and session.agent_session_id != agent_id
        and session.agent_exact
        and session.hook_status != ENDED
    )


def _first_sight(cwd: str, agent: str) -> Link:
    folder = folder_name(cwd, agent)
    projects = projects_containing(cwd)
    if len(projects) > 1:
        slugs = ", ".join(p.slug for p in projects)
        return Link(
            UNLINKED,
            folder=folder,
            reason=_cut(f"The folder {cwd} is in several projects ({slugs}). {HOW_TO_LINK}"),
        )
    project = projects[0] if projects else None
    if project is None:
        return Link(PLAIN, folder=folder)
    candidates = _candidates(project)
    if not candidates:
        return Link(PLAIN, project=project, folder=folder)
    if len(candidates) > 1:
        names = ", ".join(c.name for c in candidates[:5])
        return Link(
            UNLINKED,
            project=project,
            folder=folder,
            reason=_cut(
                f"{len(candidates)} desktop sessions are bound to tasks of {project.slug} "
                f"({names}). {HOW_TO_LINK}"
            ),
        )
    [candidate] = candidates
    if candidate.agent_session_id and candidate.hook_status != ENDED:
        return Link(
            UNLINKED,
            project=project,
            folder=folder,
            reason=_cut(
                f"The desktop session bound in {project.slug} ({candidate.name}) is already "
                f"linked to another live {agent_title(candidate.agent) or 'agent'} session. "
                f"{HOW_TO_LINK}"
            ),
        )
    return Link(GUESS, session=candidate, project=project, folder=folder)


def _candidates(project: Project) -> list[Session]:
    """The desktop sessions (not ended) bound to a task of the project now."""
    ids = TaskBinding.objects.filter(unbound_at__isnull=True, task__project=project).values(
        "session_id"
    )
    return list(
        Session.objects.filter(kind=KIND_DESKTOP, id__in=ids)
        .exclude(hook_status=ENDED)
        .order_by("id")
    )


# --- folders ----------------------------------------------------------------------------

_DRIVE = re.compile(r"^[A-Za-z]:")


def normalise(path: str) -> str:
    """One spelling for comparing folders: forward slashes, no trailing slash, and a Windows
    drive path in lower case (its file system ignores case)."""
    text = os.path.expanduser(path.strip()).replace("\\", "/")
    while len(text) > 1 and text.endswith("/") and not text.endswith(":/"):
        text = text[:-1]
    return text.lower() if _DRIVE.match(text) else text


def contains(folder: str, path: str) -> bool:
    """True when `path` is `folder` or lies inside it."""
    outer, inner = normalise(folder), normalise(path)
    if not outer or not inner:
        return False
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def projects_containing(cwd: str) -> list[Project]:
    """The projects whose repo_path contains the folder (a short table: read in full)."""
    if not cwd.strip():
        return []
    return [p for p in Project.objects.exclude(repo_path="") if contains(p.repo_path, cwd)]


def folder_name(cwd: str, fallback: str = "agent") -> str:
    """The last part of the folder: the name of a plain hook session (§4 step 5)."""
    text = cwd.strip().replace("\\", "/").rstrip("/")  # its own case, even on Windows
    name = text.rsplit("/", 1)[-1] if text else ""
    return (name or fallback or "agent")[:200]


def _cut(text: str) -> str:
    return text if len(text) <= REASON_MAX else text[: REASON_MAX - 1] + "…"
