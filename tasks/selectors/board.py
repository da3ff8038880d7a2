"""The project board's data (§2 Paged board, Cards, Done column and archive).

`board_data()` answers one board state (page or selected stage, search, archive) with a
fixed number of queries whatever the task count: the project, one count per stage, the
open tasks of the page, the done tasks of the page (capped) and one batched call per card
extension. Templates only loop over what is computed here.

An open column shows its first COLUMN_LIMIT cards (newest stage change first) and says how
many more there are; "Show N more" asks for the column again with `shown_<stage>` raised by
COLUMN_LIMIT, so the page stays bounded however many tasks agents create, and the
board state (which the live refresh sends back) keeps what the reader opened.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from core.display import STAGES, safe_href, stage_label  # noqa: F401 - safe_href read here too
from core.errors import NotFound
from tasks.fields import QUERY_MAX
from tasks.models import Project, Task
from tasks.selectors import cards as card_values
from tasks.selectors.cards import Badge, Card  # noqa: F401 - Badge re-exported with Card

# Wide screens show six columns on two pages (§2 Paged board).
PAGES: tuple[tuple[str, ...], ...] = (("plan", "dev", "review", "test"), ("live", "done"))
DONE_CAP = 200
COLUMN_LIMIT = 50  # cards an open column shows before "Show N more" (4 columns ≈ 190 KiB)
SHOWN_MAX = 10_000  # a `shown_<stage>` above this is read as this
OPEN_STAGES = tuple(s for s in STAGES if s != "done")
# Columns no card or card extension reads: left in the database (a board of hundreds of cards
# reads less, and every datetime left out is a converter call less per row).
CARD_DEFERRED = (
    "description",
    "progress",
    "stage_note",
    "document_path",
    "priority",
    "size",
    "created_at",
    "updated_at",
)
# Links agent or extension text may carry: never a script (§9.8 untrusted content).


def page_of(stage: str) -> int:
    return next(n for n, stages in enumerate(PAGES, 1) if stage in stages)


def page_label(page: int) -> str:
    return " · ".join(stage_label(s) for s in PAGES[page - 1])


# --- the board state of a URL ----------------------------------------------------------


@dataclass(frozen=True)
class BoardState:
    """What the URL asks for: page 1/2 (clamped), a selected stage, search, archive."""

    page: int = 1
    stage: str | None = None  # the phone's tab; implies its page
    q: str = ""
    archived: bool = False
    shown: tuple[tuple[str, int], ...] = ()  # open columns showing more than COLUMN_LIMIT

    @classmethod
    def from_query(cls, query: Any) -> BoardState:
        stage = (query.get("stage") or "").strip().lower()
        stage = stage if stage in STAGES else None
        try:
            page = int((query.get("page") or "1").strip())
        except ValueError:
            page = 1
        page = min(max(page, 1), len(PAGES))  # out of range clamps
        if stage is not None:
            page = page_of(stage)
        q = (query.get("q") or "").strip()[:QUERY_MAX]
        archived = (query.get("archived") or "").strip().lower() in ("1", "true", "on", "yes")
        shown = []
        for s in OPEN_STAGES:
            try:
                n = int((query.get(f"shown_{s}") or "0").strip())
            except ValueError:
                continue
            if n > COLUMN_LIMIT:
                shown.append((s, min(n, SHOWN_MAX)))
        return cls(page=page, stage=stage, q=q, archived=archived, shown=tuple(shown))

    @property
    def selected(self) -> str:
        return self.stage or PAGES[self.page - 1][0]

    def limit(self, stage: str) -> int:
        """How many cards the open column `stage` shows."""
        return dict(self.shown).get(stage, COLUMN_LIMIT)

    def state_params(self, **shown: int) -> dict[str, str]:
        """params() and the open columns' `shown_<stage>` (changed by `shown`): the query of
        the page's own address and of its live refresh. Links to another page, tab, search
        or the archive use params() and start every column at COLUMN_LIMIT again."""
        out = self.params()
        for s, n in {**dict(self.shown), **shown}.items():
            if n > COLUMN_LIMIT:
                out[f"shown_{s}"] = str(n)
        return out

    def params(self, **changes: Any) -> dict[str, str]:
        """The query of this state (changed), without defaults: page=1, no stage …"""
        merged = {"page": self.page, "stage": self.stage, "q": self.q, "archived": self.archived}
        merged.update(changes)
        out: dict[str, str] = {}
        if merged["stage"]:
            out["stage"] = merged["stage"]
        elif merged["page"] and merged["page"] != 1:
            out["page"] = str(merged["page"])
        if merged["q"]:
            out["q"] = merged["q"]
        if merged["archived"]:
            out["archived"] = "1"
        return out


def query_string(params: dict[str, str]) -> str:
    return ("?" + urlencode(params)) if params else ""


def _cutoff() -> datetime:
    return timezone.now() - timedelta(days=settings.RELAYBAY.done_window_days)


def _archived_q(cutoff: datetime) -> Q:
    """Done tasks the board archives: closed before the window; with require_tracker_log a
    done task without the tracker mark is never archived (§2 Done column and archive)."""
    q = Q(stage="done", closed_at__lt=cutoff)
    if settings.RELAYBAY.require_tracker_log:
        q &= Q(tracker_logged=True)
    return q


def card_data(project: Project, key: str) -> Card:
    """One card of the project (live refresh); NotFound for a key of no task here."""
    wanted = (key or "").strip().lower()
    task = Task.objects.filter(project=project, key=wanted).first()
    if task is None:
        raise NotFound(f"Unknown task {wanted or '(empty)'} in project {project.slug}.")
    task.project = project
    return card_values.cards(project, [task], _cutoff())[0]


def task_in_project(project: Project, key: str) -> Task:
    """The task a ?task= link names, only when it belongs to this board's project."""
    wanted = (key or "").strip().lower()
    task = Task.objects.filter(project=project, key=wanted).first()
    if task is None:
        raise NotFound(
            f"There is no task {wanted or '(empty)'} in {project.name}. It may have been "
            "mistyped, or belong to another project."
        )
    task.project = project
    return task


# --- columns ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    stage: str
    label: str
    count: int  # tasks in the column under the current filter (done: before the cap)
    cards: list[Card]
    selected: bool  # the phone's tab
    capped: bool  # done only: more than DONE_CAP, the most recent shown
    archived_hidden: int  # done only: archived tasks left out (no search, archive off)
    empty_text: str
    more: int = 0  # open columns: tasks beyond the shown cards
    next_shown: int = 0  # open columns: the `shown_<stage>` of "Show N more"

    @property
    def next_batch(self) -> int:
        """The N of "Show N more"."""
        return min(self.more, self.next_shown - len(self.cards))


@dataclass(frozen=True)
class Tab:
    stage: str
    label: str
    count: int
    selected: bool
    on_page: bool  # its column is in the page (aria-controls)
    params: dict[str, str]


@dataclass(frozen=True)
class Board:
    project: Project
    state: BoardState
    columns: list[Column]
    tabs: list[Tab]
    page_labels: tuple[str, ...]
    total: int  # every task of the project, whatever the filter (the empty board hint)
    done_cap: int
    done_window_days: int
    require_tracker_log: bool


def _filtered(project: Project, state: BoardState) -> Any:
    rows = Task.objects.filter(project=project)
    if state.q:
        # Key or title, case-insensitive; a search also finds archived done tasks.
        rows = rows.filter(Q(key__icontains=state.q) | Q(title__icontains=state.q))
    return rows


def _empty_text(stage: str, state: BoardState, archived_hidden: int) -> str:
    if state.q:
        return f"No {stage_label(stage)} task matches “{state.q}”."
    if stage == "done":
        days = settings.RELAYBAY.done_window_days
        text = f"Nothing closed in the last {days} day{'s' if days != 1 else ''}."
        if state.archived:
            text = "No done tasks yet."
        elif archived_hidden:
            text += " Older ones are archived."
        return text
    return f"No tasks in {stage_label(stage)}."


def _counts(project: Project, state: BoardState, cutoff: datetime) -> tuple[dict, int, int]:
    """Per stage the tasks shown under the filter; the archived ones the done column leaves
    out; and every task of the project (for the "no tasks yet" hint)."""
    rows = (
        _filtered(project, state)
        .values("stage")
        .annotate(n=Count("id"), old=Count("id", filter=_archived_q(cutoff)))
        .order_by()
    )
    counts = dict.fromkeys(STAGES, 0)
    hidden = 0
    for row in rows:
        counts[row["stage"]] = row["n"]
        if row["stage"] == "done" and not (state.q or state.archived):
            hidden = row["old"]
            counts["done"] -= hidden
    if state.q:  # the hint is about the project, not about the search
        return counts, hidden, Task.objects.filter(project=project).count()
    return counts, hidden, sum(counts.values()) + hidden


def _page_tasks(project: Project, state: BoardState, cutoff: datetime) -> list[Task]:
    stages = PAGES[state.page - 1]
    open_stages = [s for s in stages if s != "done"]
    tasks: list[Task] = []
    if open_stages:
        # Newest stage change first: what an agent moved a second ago is on top. Each
        # column's first state.limit(stage) ids come from a LIMIT subquery of its own, all
        # in one query (a window over every open task cost more as the tasks grew).
        newest = ("-stage_changed_at", "-number")
        firsts = Q()
        for s in open_stages:
            ids = _filtered(project, state).filter(stage=s).order_by(*newest).values("id")
            firsts |= Q(id__in=ids[: state.limit(s)])
        tasks += list(Task.objects.filter(firsts).defer(*CARD_DEFERRED).order_by(*newest))
    if "done" in stages:
        done = _filtered(project, state).filter(stage="done")
        if not (state.q or state.archived):
            done = done.exclude(_archived_q(cutoff))
        tasks += list(done.defer(*CARD_DEFERRED).order_by("-closed_at", "-number")[:DONE_CAP])
    for t in tasks:
        t.project = project  # no query per card for the key's project
    return tasks


def board_data(project: Project, state: BoardState) -> Board:
    cutoff = _cutoff()
    counts, hidden, total = _counts(project, state, cutoff)
    cards = card_values.cards(project, _page_tasks(project, state, cutoff), cutoff)
    by_stage: dict[str, list[Card]] = {s: [] for s in STAGES}
    for card in cards:
        by_stage[card.stage].append(card)
    columns = [
        Column(
            stage=s,
            label=stage_label(s),
            count=counts[s],
            cards=by_stage[s],
            selected=s == state.selected,
            capped=s == "done" and counts[s] > DONE_CAP,
            archived_hidden=hidden if s == "done" else 0,
            empty_text=_empty_text(s, state, hidden),
            more=0 if s == "done" else max(0, counts[s] - len(by_stage[s])),
            next_shown=0 if s == "done" else state.limit(s) + COLUMN_LIMIT,
        )
        for s in PAGES[state.page - 1]
    ]
    tabs = [
        Tab(
            stage=s,
            label=stage_label(s),
            count=counts[s],
            selected=s == state.selected,
            on_page=page_of(s) == state.page,
            params=state.params(stage=s),
        )
        for s in STAGES
    ]
    return Board(
        project=project,
        state=state,
        columns=columns,
        tabs=tabs,
        page_labels=tuple(page_label(n) for n in range(1, len(PAGES) + 1)),
        total=total,
        done_cap=DONE_CAP,
        done_window_days=settings.RELAYBAY.done_window_days,
        require_tracker_log=settings.RELAYBAY.require_tracker_log,
    )
