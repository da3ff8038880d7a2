"""task_list and comments_list read with SQL written once (issue 33): each answer equals,
byte for byte, the one the querysets they replaced gave, on projects with varied tasks,
bindings, plans and comments of every state."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.apps import apps
from django.db.models import Count, Q
from django.db.models.signals import post_init, pre_init  # noqa: TID251 (asks only)
from django.utils import timezone

from plans.services import plan_set
from sessions import services as session_services
from sessions.models import ENDED
from sessions.selectors import bound_sessions
from tasks import extensions, render_md, services
from tasks.extensions import CallerRef
from tasks.mcp_comments import _list as comments_list
from tasks.mcp_comments import comments_md
from tasks.mcp_reports import _decision_list as decision_list
from tasks.mcp_tasks import _task_list as task_list
from tasks.models import COMMENT_OWNER, STAGES, Comment, Decision, Project, Task
from tasks.rules import summary_line
from tasks.selectors import comments as sel
from tasks.selectors import get_project, get_task, project_rules
from tasks.selectors.projects import DECISION_LIST_MAX
from tasks.selectors.snapshot import SNAPSHOT_DECISIONS, Snapshot, _done_cutoff, snapshot_data
from tasks.selectors.tasks import TaskLine, TaskListData, is_next_step_stale
from tests.tasks.factories import ACTOR, make_project, make_task

pytestmark = pytest.mark.django_db


# --- the reads as they were before issue 33's rewrite ---------------------------------------


def old_lines(tasks: list[Task]) -> list[TaskLine]:
    """Lines built from Task instances, as task_lines did before it read plain rows."""
    suffixes = extensions.task_line_suffixes(tasks) if tasks else {}
    return [
        TaskLine(
            *(t.id, t.key, t.title, t.stage, t.size, t.waiting_on, t.next_step),
            is_next_step_stale(t),
            *(t.tracker_name, t.tracker_ref, t.tracker_logged, t.plan_status),
            last_moved="",  # the old code sorted by the moments themselves
            suffixes=tuple(suffixes.get(t.id, ())),
        )
        for t in tasks
    ]


def old_task_list(project: str, stage: str, include_done: bool, query: str) -> str:
    proj = get_project(project)
    wanted = stage.strip().lower() or None
    rows = Task.objects.filter(project=proj)
    if wanted:
        rows = rows.filter(stage=wanted)
    text = query.strip()
    if text:
        rows = rows.filter(
            Q(key__icontains=text)
            | Q(title__icontains=text)
            | Q(description__icontains=text)
            | Q(progress__icontains=text)
            | Q(next_step__icontains=text)
        )
    hidden = 0
    if not include_done and wanted is None:
        hidden = rows.filter(stage="done").count()
        rows = rows.exclude(stage="done")
    tasks = list(rows.order_by("number"))
    data = TaskListData(proj, old_lines(tasks), wanted, include_done, text or None, hidden)
    return render_md.task_list_md(data)


def old_decision_list(project: str, query: str, task: str | None, superseded: bool) -> str:
    """decision_list as its queryset read it before issue 33: each decision's whole task."""
    found = get_project(project)
    rows = Decision.objects.filter(project=found).select_related("task").order_by("-id")
    if not superseded:
        rows = rows.filter(superseded_at__isnull=True)
    if task:
        rows = rows.filter(task__key=task.strip().lower())
    for word in query.split():
        rows = rows.filter(Q(text__icontains=word) | Q(source_text__icontains=word))
    pairs = [(d, d.task.key if d.task_id else "") for d in rows[:DECISION_LIST_MAX]]
    return render_md.decision_list_md(found, pairs, query=query)


def old_snapshot(slug: str) -> str:
    """project_snapshot as its querysets read it before issue 33's rewrite."""
    project = get_project(slug)
    rules = project_rules(project)
    tasks = list(
        Task.objects.filter(project=project)
        .filter(~Q(stage="done") | Q(closed_at__gte=_done_cutoff()))
        .order_by("number")
    )
    counts = dict.fromkeys(STAGES, 0)
    for row in Task.objects.filter(project=project).values("stage").annotate(n=Count("id")):
        counts[row["stage"]] = row["n"]
    decisions = list(
        Decision.objects.filter(project=project, superseded_at__isnull=True)
        .select_related("task")
        .order_by("-id")[:SNAPSHOT_DECISIONS]
    )
    moved = {t.id: t.closed_at or t.stage_changed_at for t in tasks}
    by_stage: dict[str, list[TaskLine]] = {s: [] for s in STAGES}
    for line in old_lines(tasks):
        by_stage[line.stage].append(line)
    by_stage["done"].sort(key=lambda ln: moved[ln.id], reverse=True)
    snap = Snapshot(
        project=project,
        rules=rules,
        rules_line=summary_line(rules, project.slug),
        stages=[(s, by_stage[s]) for s in STAGES],
        decisions=[(d, d.task.key if d.task_id else "") for d in decisions],
        counts=counts,
        done_hidden=counts["done"] - len(by_stage["done"]),
        done_window_days=7,
        extra_lines=extensions.project_lines(project),
    )
    return render_md.snapshot_md(snap)


def old_recipients(tasks: list[Task]) -> dict[int, sel.Recipient]:
    return {
        task_id: sel.Recipient(
            name=s.name,
            session_id=s.id,
            exact=bool(s.agent_exact and s.agent_session_id),
            ended=s.hook_status == ENDED,
        )
        for task_id, s in bound_sessions(tasks).items()
    }


def old_comments_list(task: str, project: str, unread_only: bool) -> str:
    found_task = get_task(task) if task else None
    found_project = get_project(project) if project and not found_task else None
    rows = Comment.objects.select_related("task", "task__project")
    if found_task is not None:
        rows, scope = rows.filter(task=found_task), found_task.key
    elif found_project is not None:
        rows, scope = rows.filter(task__project=found_project), f"project {found_project.slug}"
    else:
        scope = "all projects"
    if unread_only:
        rows = rows.filter(author_kind=COMMENT_OWNER, read_at__isnull=True)
    newest = list(rows.order_by("-id")[: sel.LIST_MAX])
    left_out = max(rows.count() - sel.LIST_MAX, 0)
    by_task: dict[int, list[Comment]] = {}
    for c in reversed(newest):
        by_task.setdefault(c.task_id, []).append(c)
    tasks = sorted({c.task_id: c.task for c in newest}.values(), key=lambda t: t.id)
    found = old_recipients(tasks)
    threads = [sel.TaskThread(t, found.get(t.id), by_task[t.id]) for t in tasks]
    return comments_md(sel.CommentList(threads, scope, unread_only, left_out))


# --- a world with a bit of everything ---------------------------------------------------------


def _world() -> tuple[Project, Project, list[Task]]:
    session_services.session_touch(
        session="alice", hook_session="4d7c0d3e-1f7b-4a53-9e55-0c4f2f1b7a10", actor="alice"
    )
    session_services.session_touch(session="bob", actor="bob")
    a, b = make_project("lists-a"), make_project("lists-b")
    tasks = [
        make_task(a, "Plain"),
        make_task(a, "Half 50% done_x", size="M", stage="dev", waiting_on="owner"),
        make_task(a, "Tracked", tracker_ref="ABC-1", tracker_name="Jira", tracker_logged=True),
        make_task(a, "Untracked name", tracker_ref="ABC-2", stage="review"),
        make_task(a, "Deploy it", description="Deploy to the stand", stage="test"),
        make_task(a, "Closed", stage="done", next_step="nothing"),
        make_task(a, "Long next", next_step="Write the tests\nthen   ship " + "x" * 150),
        make_task(b, "Other project", stage="live"),
    ]
    services.task_set_stage(key=tasks[6].key, stage="dev", actor=ACTOR)  # its next step: stale
    plan_set(key=tasks[1].key, steps=["One", "Two"], actor=ACTOR)
    session_services.task_bind_session(task=tasks[1], session="alice", actor=ACTOR)
    session_services.task_bind_session(task=tasks[4], session="bob", actor=ACTOR)
    for task in (tasks[1], tasks[4], tasks[7]):
        first = services.owner_comment_add(key=task.key, body="Look at\n\nthis  ").obj
        services.owner_comment_add(key=task.key, body="Unread")
        services.comments_deliver(
            comment_ids=[first.id], session_id=1, session_name="alice", via="x"
        )
        services.comment_add(
            key=task.key, body="Done", in_reply_to=first.id, actor=CallerRef("alice")
        )
    services.comment_add(key=tasks[0].key, body="A question", actor=CallerRef("bob"))
    return a, b, tasks


def test_task_list_answers_equal_the_querysets_they_replace():
    a, b, _ = _world()
    for slug in (a.slug, b.slug):
        for stage in ("", "dev", "done", "Plan"):
            for include_done in (False, True):
                for query in ("", "deploy", "50%", "done_x", "abc-", "\\", "nothing at all"):
                    args = (slug, stage, include_done, query)
                    assert task_list(*args) == old_task_list(*args), args
    every = task_list(a.slug, "", True, "")
    for part in ("session alice", "plan 0/2", "(stale)", "Jira ABC-1 ✓", "(not logged)", "## done"):
        assert part in every, part


def test_decision_list_answers_equal_the_queryset_it_replaced():
    a, _, tasks = _world()
    first = services.decision_add(project=a.slug, text="Use SQLite", actor=ACTOR).obj
    services.decision_add(project=a.slug, text="Use Postgres", supersedes=first.id, actor=ACTOR)
    for n in range(DECISION_LIST_MAX + 3):  # more than a list shows
        on = tasks[n % 3].key if n % 2 else None
        services.decision_add(project=a.slug, text=f"Rule {n} use it", task=on, actor=ACTOR)
    for query in ("", "use", "use rule", "sqlite", "postgres", "nothing"):
        for task in (None, tasks[1].key, tasks[1].key.upper()):
            for superseded in (False, True):
                args = (a.slug, query, task, superseded)
                assert decision_list(*args) == old_decision_list(*args), args
    assert f"{tasks[1].key}: Rule" in decision_list(a.slug, "", None, False)
    assert "superseded by #" in decision_list(a.slug, "sqlite", None, True)


def test_comments_list_answers_equal_the_querysets_they_replace():
    a, b, tasks = _world()
    # More than LIST_MAX on one task of b, some of them read: the newest are shown.
    now, older = timezone.now(), timezone.now() - timedelta(days=3)
    Comment.objects.bulk_create(
        Comment(
            task=tasks[7],
            author_kind=COMMENT_OWNER,
            author_name="owner",
            body=f"n{n}",
            created_at=older,
            read_at=now if n % 3 == 0 else None,
            read_by="alice" if n % 6 == 0 else "",
        )
        for n in range(sel.LIST_MAX + 5)
    )
    scopes = [("", a.slug), ("", b.slug), ("", "")] + [(t.key, "") for t in tasks]
    for task, project in scopes:
        for unread_only in (False, True):
            args = (task, project, unread_only)
            assert comments_list(*args) == old_comments_list(*args), args
    assert "8 older comment(s) not shown" in comments_list("", b.slug, False)
    shown = comments_list("", a.slug, False)
    for part in ("bound to alice", "bound to bob", "no session bound", "reply by", "to #"):
        assert part in shown, part


def test_rows_build_instances_as_from_db_would():
    """core.rows sets an instance's values without Model.__init__: right only while no init
    signal has a receiver and every column attribute is a plain one, for every model."""
    from core.rows import _plain_init

    for model in apps.get_models():
        assert not pre_init.has_listeners(model), model
        assert not post_init.has_listeners(model), model
        assert _plain_init(model), model
    task = make_task(make_project("rows-init"), "Built", next_step="Go")
    built = get_task(task.key)
    fetched = Task.objects.get(pk=task.pk)
    assert vars(built) | {"_state": None} == vars(fetched) | {"_state": None}
    assert (built._state.adding, built._state.db) == (False, "default")


def test_snapshot_answers_equal_the_querysets_they_replace() -> None:
    """Open tasks, done ones on both sides of the window (closing moments with and without a
    fraction of a second, ties included), next steps stale by a fraction of a second or not,
    decisions of the project and of a task, superseded ones left out."""
    a, b, tasks = _world()
    now = timezone.now().replace(microsecond=0)
    done = [make_task(a, f"Done {i}") for i in range(6)]
    closed = [now - timedelta(days=1), now - timedelta(days=1, microseconds=-5), now, now]
    closed += [now - timedelta(days=8), now - timedelta(days=6, hours=23)]
    for task, when in zip(done, closed, strict=True):
        services.task_set_stage(key=task.key, stage="done", actor=ACTOR)
        Task.objects.filter(pk=task.pk).update(closed_at=when)
    # A next step written in the same second as the stage change, a fraction before it.
    fresh, stale = make_task(a, "Fresh", next_step="go"), make_task(a, "Stale", next_step="go")
    Task.objects.filter(pk=fresh.pk).update(next_step_at=now, stage_changed_at=now)
    later = now + timedelta(microseconds=300)
    Task.objects.filter(pk=stale.pk).update(next_step_at=now, stage_changed_at=later)
    first = services.decision_add(project=a.slug, text="Use SQLite", actor=ACTOR).obj
    services.decision_add(project=a.slug, text="Use Postgres", supersedes=first.id, actor=ACTOR)
    services.decision_add(project=a.slug, text="Ship Fridays", task=tasks[1].key, actor=ACTOR)

    for slug in (a.slug, b.slug):
        assert snapshot_data(slug).rules_line  # the world's rules are in place
        assert render_md.snapshot_md(snapshot_data(slug)) == old_snapshot(slug), slug
    shown = render_md.snapshot_md(snapshot_data(a.slug))
    order = [shown.index(f"Done {i}") for i in (2, 3, 1, 0)]  # newest first; a tie by number
    assert order == sorted(order)
    assert "Done 4" not in shown
    assert "Done 5" in shown
    assert "1 older" in shown
    assert "Fresh · next: go\n" in shown
    assert "Stale · next: go (stale)" in shown
    assert "Use SQLite" not in shown
    assert f"{tasks[1].key}: Ship Fridays" in shown
