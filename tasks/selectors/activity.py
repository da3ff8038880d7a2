"""The Activity feed (§2 Activity): the event log newest first, in pages, with filters.

Every read here is a fixed number of queries whatever the page holds (the log's rows, then
their projects and tasks by id), and
each row's text is tasks.events.describe — the same line events_since shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from core.display import ago, utc_text
from core.errors import InvalidField
from tasks.events import KINDS, describe
from tasks.models import Event, Project
from tasks.selectors.events import log_rows

PAGE_SIZE = 50
LIVE_MAX = 200  # new rows one live refetch prepends at most (the next one brings the rest)
# Hook status changes would drown the feed: shown only when their kind is selected (§2).
HIDDEN_UNLESS_SELECTED = frozenset({"session.status_changed"})


def task_href(slug: str, key: str, tab: str = "") -> str:
    """Where a task row leads: its dialog over the project's board (§2 Task dialog)."""
    query = {"task": key, **({"tab": tab} if tab else {})}
    return reverse("board", args=[slug]) + "?" + urlencode(query)


# --- filters ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActivityFilters:
    project: Project | None = None
    kind: str | None = None

    @property
    def project_slug(self) -> str:
        return self.project.slug if self.project else ""

    @property
    def active(self) -> bool:
        return self.project is not None or self.kind is not None

    def query(self, **extra: int | str | None) -> str:
        """The filters (and `extra`) as a query string, empty values left out."""
        values = {"project": self.project_slug, "kind": self.kind or "", **extra}
        return urlencode({k: v for k, v in values.items() if v not in (None, "")})


def parse_filters(project: str | None, kind: str | None) -> ActivityFilters:
    """?project= and ?kind= of the feed; an unknown one raises InvalidField (a 400 page)."""
    slug = (project or "").strip().lower()
    wanted_kind = (kind or "").strip()
    proj = None
    if slug:
        proj = Project.objects.filter(slug=slug).first()
        if proj is None:
            raise InvalidField(
                "project", f"Unknown project '{slug}'. Pick a project from the list."
            )
    if wanted_kind and wanted_kind not in KINDS:
        raise InvalidField(
            "kind", f"Unknown event kind '{wanted_kind}'. Pick a kind from the list."
        )
    return ActivityFilters(project=proj, kind=wanted_kind or None)


def parse_event_id(name: str, raw: str | None) -> int | None:
    """?before= / ?after=: a positive event id, or None when absent."""
    text = (raw or "").strip()
    if not text:
        return None
    if not text.isdigit() or len(text) > 18:
        raise InvalidField(name, f"{name} must be an event id (a positive number), not '{text}'.")
    return int(text)


def kind_choices() -> list[str]:
    return sorted(KINDS)


def project_choices() -> list[tuple[str, str]]:
    return list(Project.objects.order_by("name", "slug").values_list("slug", "name"))


# --- rows ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActivityRow:
    id: int
    kind: str
    kind_group: str  # task, report, session … (the chip's colour)
    text: str  # tasks.events.describe(kind, payload)
    actor: str
    age: str
    utc: str
    iso: str
    project_slug: str
    project_name: str
    task_key: str
    href: str  # the task dialog, else the project's board, else ""


def _row(event: Event, now: datetime) -> ActivityRow:
    project, task = event.project, event.task
    slug = project.slug if project else ""
    href = ""
    if task is not None and slug:
        href = task_href(slug, task.key)
    elif slug:
        href = reverse("board", args=[slug])
    return ActivityRow(
        id=event.id,
        kind=event.kind,
        kind_group=event.kind.split(".", 1)[0],
        text=describe(event.kind, event.payload),
        actor=event.actor,
        age=ago(event.created_at, now),
        utc=utc_text(event.created_at),
        iso=event.created_at.astimezone(UTC).isoformat(),
        project_slug=slug,
        project_name=project.name if project else "",
        task_key=task.key if task else "",
        href=href,
    )


def _filtered(filters: ActivityFilters):  # -> QuerySet[Event]
    """The filters as one query on the log alone: project and kind each meet an index
    ((project, id), (kind, id), both (project, kind, id)); the rows' projects and tasks
    come after it (events.log_rows), so the plan never depends on a join."""
    rows = log_rows()
    if filters.project is not None:
        rows = rows.filter(project=filters.project)
    if filters.kind:
        return rows.filter(kind=filters.kind)
    return rows.exclude(kind__in=HIDDEN_UNLESS_SELECTED)


@dataclass(frozen=True)
class ActivityPage:
    rows: list[ActivityRow]  # newest first
    filters: ActivityFilters
    before: int | None  # this page starts below this id (None: the first page)
    more_before: int | None  # "Load more" continues below this id; None: the log ends here
    newest_id: int  # live refetches ask for rows after this id (first page only)

    @property
    def is_first(self) -> bool:
        return self.before is None


def activity_page(filters: ActivityFilters, before: int | None = None) -> ActivityPage:
    """One page of the feed: PAGE_SIZE events below `before` (or the newest), one query."""
    rows = _filtered(filters)
    if before is not None:
        rows = rows.filter(id__lt=before)
    events = list(rows.order_by("-id")[: PAGE_SIZE + 1])
    more = len(events) > PAGE_SIZE
    events = events[:PAGE_SIZE]
    now = timezone.now()
    return ActivityPage(
        rows=[_row(e, now) for e in events],
        filters=filters,
        before=before,
        more_before=events[-1].id if more else None,
        # The newest row shown: any matching event above it is new, whatever the filters.
        newest_id=events[0].id if events else 0,
    )


@dataclass(frozen=True)
class LiveRows:
    rows: list[ActivityRow]  # newest first, to prepend
    newest_id: int  # the next refetch asks for rows after this id


def activity_after(filters: ActivityFilters, after: int) -> LiveRows:
    """Rows newer than `after` for the live prepend: the oldest LIVE_MAX of them, so a
    burst larger than that arrives over several refetches without a gap."""
    events = list(_filtered(filters).filter(id__gt=after).order_by("id")[:LIVE_MAX])
    now = timezone.now()
    events.reverse()
    return LiveRows(
        rows=[_row(e, now) for e in events],
        newest_id=events[0].id if events else after,
    )
