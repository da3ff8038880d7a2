"""Seams through which later apps extend the base without `tasks` importing them.

`tasks` imports no other app (docs/architecture.md §2), yet task_get, project_snapshot and
the board show the bound session, the plan and the review checklist. Those apps register
small functions here in their AppConfig.ready(); tasks calls whatever is registered.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from django.db import transaction

from core import calls

if TYPE_CHECKING:
    from tasks.models import Project, Task


@dataclass(frozen=True)
class Caller:
    """Who is calling a write tool: the display name and any notes for the answer."""

    name: str
    session_id: int | None = None
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class CallerRef:
    """Who a write tool's arguments say is calling, not yet resolved.

    A service resolves it inside its own transaction (`caller_in`), so the session it
    creates or marks seen is written with the write and rolled back with a refused one
    (docs/architecture.md §3: one transaction per write).
    """

    session: str = ""
    session_title: str = ""
    hook_session: str = ""
    # The agent session id the MCP call itself carried (Codex's _meta.sessionId; core/calls):
    # it links like hook_session when the call names its session, and never wins over it.
    call_session: str = field(default_factory=calls.call_session)


# Who writes, as a service takes it: a display name (owner, board, hook) or a CallerRef.
type Actor = str | CallerRef

CallerResolver = Callable[..., Caller]
TaskSection = Callable[["Task"], str | None]
TaskFacts = Callable[["Task"], dict[str, Any]]


class LineTask(Protocol):
    """What a task line's suffix may read of its task: a Task, or the plain line project_snapshot
    and task_list build from its row (tasks.selectors.TaskLine)."""

    @property
    def id(self) -> int: ...
    @property
    def plan_status(self) -> str: ...


TaskLineSuffixes = Callable[[Sequence[LineTask]], dict[int, str]]
ProjectLines = Callable[["Project"], list[str]]

_caller_resolver: CallerResolver | None = None
_md_sections: list[tuple[int, TaskSection]] = []
_line_suffixes: list[tuple[int, TaskLineSuffixes]] = []
# (the fact names a function provides, or None for any; the function)
_move_facts: list[tuple[frozenset[str] | None, TaskFacts]] = []
_project_lines: list[tuple[int, ProjectLines]] = []


def plug_in_once(register: Callable[[], None]) -> Callable[[], None]:
    """An app's register(): plugs into these seams once, even when ready() runs again
    (the registries are plain lists, so a second run would show every section twice)."""
    done = False

    @functools.wraps(register)
    def register_once() -> None:
        nonlocal done
        if not done:
            done = True
            register()

    return register_once


def _holds(registry: list[Any], fn: Callable[..., Any]) -> bool:
    """Whether a registry already holds `fn` (an entry is the function or ends with it):
    every register_* below skips it, so an app's register() is idempotent however often
    ready() runs."""
    return any((entry[-1] if isinstance(entry, tuple) else entry) is fn for entry in registry)


def register_caller_resolver(fn: CallerResolver) -> None:
    """sessions registers how `session`, `session_title`, `hook_session` become a Caller."""
    global _caller_resolver
    _caller_resolver = fn


def _resolve_caller(
    *,
    session: str | None,
    session_title: str | None,
    hook_session: str | None,
    call_session: str | None = None,
    task_key: str | None,
    task: Task | None,
) -> Caller:
    if _caller_resolver is None:
        name = (session or "").strip() or "agent"
        return Caller(name=name)
    return _caller_resolver(
        session=session,
        session_title=session_title,
        hook_session=hook_session,
        call_session=call_session,
        task_key=task_key,
        task=task,
    )


def caller_in(actor: Actor, *, task_key: str | None = None, task: Task | None = None) -> Caller:
    """Who is writing, resolved inside the calling service's transaction.

    A display name stays as it is; a CallerRef goes through the registered resolver, which
    may create or mark a session — so only inside the write's own transaction, where a
    refused write rolls that back too (§2 one transaction per write).
    """
    if isinstance(actor, str):
        return Caller(name=actor)
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("caller_in resolves a CallerRef inside the service's transaction")
    return _resolve_caller(
        session=actor.session or None,
        session_title=actor.session_title or None,
        hook_session=actor.hook_session or None,
        call_session=actor.call_session or None,
        task_key=task_key,
        task=task,  # the service's own row: the resolver need not read it again by key
    )


def register_task_section(order: int, fn: TaskSection) -> None:
    """A markdown section of task_get (the bound session, the plan, the checklist …)."""
    if _holds(_md_sections, fn):
        return
    _md_sections.append((order, fn))
    _md_sections.sort(key=lambda item: item[0])


def task_sections(task: Task) -> list[str]:
    return [text for _, fn in _md_sections if (text := fn(task))]


def register_project_lines(order: int, fn: ProjectLines) -> None:
    """Lines of project_snapshot after the description (the project's stands, §7)."""
    if _holds(_project_lines, fn):
        return
    _project_lines.append((order, fn))
    _project_lines.sort(key=lambda item: item[0])


def project_lines(project: Project) -> list[str]:
    return [line for _, fn in _project_lines for line in fn(project)]


def register_task_line_suffix(order: int, fn: TaskLineSuffixes) -> None:
    """Short suffixes of task lines in project_snapshot / task_list (" · session x").

    Batched (one call for the whole list → {task id: text}) so a list costs one query per
    extension, not one per task.
    """
    if _holds(_line_suffixes, fn):
        return
    _line_suffixes.append((order, fn))
    _line_suffixes.sort(key=lambda item: item[0])


def task_line_suffixes(tasks: Sequence[LineTask]) -> dict[int, list[str]]:
    result: dict[int, list[str]] = {t.id: [] for t in tasks}
    for _, fn in _line_suffixes:
        for task_id, text in fn(tasks).items():
            if text:
                result.setdefault(task_id, []).append(text)
    return result


def register_move_facts(fn: TaskFacts, keys: tuple[str, ...] | None = None) -> None:
    """Extra facts for the working-rules check of a stage move (e.g. the agent's todo);
    `keys` names the facts `fn` answers, so a move asks only for what its target needs."""
    if _holds(_move_facts, fn):
        return
    _move_facts.append((frozenset(keys) if keys else None, fn))


def move_fact(task: Task, key: str) -> Any:
    """One fact about a task for a stage move, or None when no app provides it (the last
    registered provider wins, as a later dict update would)."""
    for provides, fn in reversed(_move_facts):
        if provides is None or key in provides:
            facts = fn(task)
            if key in facts:
                return facts[key]
    return None


# --- board seams (§2): cards, the task dialog, the Inbox --------------------------------


class CardBadge(NamedTuple):
    """A card badge whose text is shown in (text, css class) parts, so one part of it can be
    highlighted: the plan badge's "2 deviations" (§2 Cards). `text` is the whole of it."""

    text: str
    css: str
    href: str = ""
    parts: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class RowBlock:
    """Part of a card or an Inbox row another app renders with its own template from a
    frozen view (a request waiting for the owner, with its buttons), so the row's HTML stays
    a pure function of what it shows (core/row_html.py)."""

    template: str
    view: Hashable


@dataclass(frozen=True)
class CardExtra:
    """What another app adds to a card: badges and the session's status dot and link."""

    # (text, css class, href or "") or a CardBadge, which may split its text into spans
    badges: tuple[tuple[str, str, str] | CardBadge, ...] = ()
    session_name: str = ""
    hook_status: str = ""  # working / waiting / idle / ended / "" (no hook status)
    desktop_link: str = ""
    agent: str = ""  # whose hooks report the session ("Claude Code", "Codex")
    agent_mark: str = ""  # its two letters on the card ("CC", "CX")
    blocks: tuple[RowBlock, ...] = ()  # under the card's texts


@dataclass(frozen=True)
class TaskPanel:
    """A section of the task dialog and page, rendered by another app's template."""

    id: str
    title: str
    template: str
    context: dict[str, Any]
    tab: str = "overview"  # overview | plan | review


@dataclass(frozen=True)
class InboxRow:
    title: str
    href: str
    detail: str = ""
    key: str = ""
    project: str = ""
    # One POST button after the row (e.g. Dismiss a forgotten session): its URL and label.
    action_url: str = ""
    action_label: str = ""
    block: RowBlock | None = None  # the whole row, rendered by its app's template instead
    mark: str = ""  # a session's row: its agent's two letters before the title, as on cards


@dataclass(frozen=True)
class InboxGroup:
    id: str
    title: str
    rows: tuple[InboxRow, ...]
    link: str = ""  # e.g. the Integrations page for unlinked hook sessions
    # How many rows the group has in all when `rows` holds only its first ones (a group
    # registered with `limited` answers at most the rows asked for); None: all
    # of them are in `rows`.
    total: int | None = None

    @property
    def count(self) -> int:
        return len(self.rows) if self.total is None else self.total


CardExtras = Callable[[list["Task"]], dict[int, CardExtra]]
PanelsFn = Callable[["Task"], list[TaskPanel]]
InboxFn = Callable[..., InboxGroup | None]  # () or, registered `limited`, (limit)
InboxCount = Callable[[], int]

_card_extras: list[CardExtras] = []
_panels: list[tuple[int, PanelsFn]] = []
_inbox_groups: list[tuple[int, InboxFn]] = []
_inbox_counts: dict[InboxFn, InboxCount] = {}
_inbox_limited: dict[InboxFn, str] = {}  # a group that takes the rows wanted → its id


def register_card_extras(fn: CardExtras) -> None:
    """Batched per board render ({task id: CardExtra}), so a column costs one query."""
    if _holds(_card_extras, fn):
        return
    _card_extras.append(fn)


def card_extras(tasks: list[Task]) -> dict[int, list[CardExtra]]:
    result: dict[int, list[CardExtra]] = {}
    for fn in _card_extras:
        for task_id, extra in fn(tasks).items():
            result.setdefault(task_id, []).append(extra)
    return result


def register_task_panels(order: int, fn: PanelsFn) -> None:
    """Panels of the task dialog and page; idempotent like the other board seams."""
    if _holds(_panels, fn):
        return
    _panels.append((order, fn))
    _panels.sort(key=lambda item: item[0])


@dataclass(frozen=True)
class Panel:
    """A panel every task has, built from its `context(task)`: what most apps plug in."""

    id: str
    title: str
    template: str
    context: Callable[[Task], dict[str, Any]]
    tab: str = "overview"

    def __call__(self, task: Task) -> list[TaskPanel]:
        return [TaskPanel(self.id, self.title, self.template, self.context(task), self.tab)]


def register_task_panel(order: int, panel: Panel) -> None:
    """One panel on every task's dialog and page; idempotent by the panel's id."""
    if any(isinstance(fn, Panel) and fn.id == panel.id for _, fn in _panels):
        return
    register_task_panels(order, panel)


def task_panels(task: Task) -> list[TaskPanel]:
    return [panel for _, fn in _panels for panel in fn(task)]


def register_inbox_group(
    order: int, fn: InboxFn, count: InboxCount | None = None, *, limited: str = ""
) -> None:
    """One more Inbox group (Review queue, Unlinked hook sessions, Agent replies …).

    `count`, when given, answers len(fn().rows) without building the rows: the sidebar
    badge on every page asks for the total only. `limited`, the group's id, says that
    fn(limit) builds at most `limit` rows (None: all) and the group's `total`: a group that
    can grow with the tasks, whose page shows its first rows only; the others
    are built whole and cut by the page. Idempotent, so a second ready() (tests) never
    shows a group twice.
    """
    if count is not None:
        _inbox_counts[fn] = count
    if limited:
        _inbox_limited[fn] = limited
    if _holds(_inbox_groups, fn):
        return
    _inbox_groups.append((order, fn))
    _inbox_groups.sort(key=lambda item: item[0])


def _built(fn: InboxFn, limit: Callable[[str], int | None] | None) -> InboxGroup | None:
    group_id = _inbox_limited.get(fn)
    if group_id is None:
        return fn()
    return fn(limit(group_id) if limit is not None else None)


def inbox_groups(limit: Callable[[str], int | None] | None = None) -> list[InboxGroup]:
    """Every group with rows or not, in order; `limit(group id)` is how many rows a limited
    group builds (None: all)."""
    return [group for _, fn in _inbox_groups if (group := _built(fn, limit)) is not None]


def inbox_group(group_id: str, limit: int | None) -> InboxGroup | None:
    """One group by its id: a limited one alone, built with `limit` rows; another by
    building the groups that are not limited until it is found."""
    for _, fn in _inbox_groups:
        if _inbox_limited.get(fn) == group_id:
            return fn(limit)
    for _, fn in _inbox_groups:
        if fn not in _inbox_limited and (group := fn()) is not None and group.id == group_id:
            return group
    return None


def _one_row(group_id: str) -> int:
    return 1


def inbox_total() -> int:
    """The rows of every group: each group's count when it registered one, else its rows.

    A limited group is built with one row, since its `total` counts the rest: building the
    hundred forgotten, waiting and stuck sessions whole cost the badge ~50 ms at a year."""
    total = 0
    for _, fn in _inbox_groups:
        count = _inbox_counts.get(fn)
        if count is not None:
            total += count()
        elif (group := _built(fn, _one_row)) is not None:
            total += group.count
    return total


# --- the secret door: what a write stores meets the detectors first --------------------------


class SecretDoor(Protocol):
    def __call__(
        self,
        project: Project | None,
        *,
        texts: Mapping[str, Any] | None = None,
        values: Mapping[str, Any] | None = None,
    ) -> None: ...


_secret_doors: list[SecretDoor] = []


def register_secret_door(fn: SecretDoor) -> None:
    """The app that owns the secret detectors plugs its door in (environments/secret_door.py;
    tasks imports no other app). Idempotent."""
    if fn not in _secret_doors:
        _secret_doors.append(fn)


def refuse_secrets(
    project: Project | None,
    *,
    texts: Mapping[str, Any] | None = None,
    values: Mapping[str, Any] | None = None,
) -> None:
    """Every string a write stores, at any depth, before anything is written (§9.9): texts
    people write meet the token shapes, values (names, sources, JSON) every detector, under
    the project's policy. Raises InvalidField naming the field and the detector."""
    for fn in _secret_doors:
        fn(project, texts=texts, values=values)
