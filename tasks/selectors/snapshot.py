"""project_snapshot and the board's frame: a project's open tasks by stage, its recent
done ones, its current decisions and the lines other apps add (§2, §7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core.rows import columns, fetch_all
from tasks import extensions
from tasks.models import STAGES, Decision, Project, Task
from tasks.rules import EffectiveRules, summary_line
from tasks.selectors.projects import get_project, project_rules
from tasks.selectors.tasks import TaskLine, snapshot_lines

SNAPSHOT_DECISIONS = 20


@dataclass(frozen=True)
class Snapshot:
    """project_snapshot and the board: open tasks by stage, recent done ones, decisions."""

    project: Project
    rules: EffectiveRules
    rules_line: str  # "Rules <hash>: … (read relaybay://rules/<slug>)"
    stages: list[tuple[str, list[TaskLine]]]  # every stage in order; done holds recent ones
    decisions: list[tuple[Decision, str]]  # (decision, its task's key or ""), newest first
    counts: dict[str, int]  # stage → all tasks in it (done: every done task)
    done_hidden: int  # done tasks closed before the done window
    done_window_days: int
    extra_lines: list[str] = field(default_factory=list)  # other apps' lines (stands, §7)


def _done_cutoff() -> datetime:
    return timezone.now() - timedelta(days=settings.RELAYBAY.done_window_days)


_TASKS, _DECISION = Task._meta.db_table, columns(Decision, "d")
# The snapshot's reads, written once (issue 33: compiling their querysets cost more than
# running them): the task count per stage, and the current decisions (§8) with their tasks'
# keys, what `.select_related("task").order_by("-id")[:20]` asked.
_COUNTS_SQL = f'SELECT "stage", COUNT(*) FROM "{_TASKS}" WHERE "project_id" = %s GROUP BY 1'  # noqa: S608
_DECISIONS_SQL = (
    f'SELECT {_DECISION.select}, t."key" FROM {_DECISION.table} '  # noqa: S608
    f'LEFT OUTER JOIN "{_TASKS}" t ON t."id" = d."task_id" WHERE d."project_id" = %s '
    f'AND d."superseded_at" IS NULL ORDER BY d."id" DESC LIMIT {SNAPSHOT_DECISIONS}'
)


def snapshot_data(slug: str) -> Snapshot:
    """Four queries plus one per registered line-suffix extension, whatever the task count."""
    project = get_project(slug)
    rules = project_rules(project)
    lines = snapshot_lines(project, _done_cutoff())
    counts = dict.fromkeys(STAGES, 0) | dict(fetch_all(_COUNTS_SQL, [project.pk]))
    decisions = [
        (_DECISION.build(row), row[_DECISION.width] or "")
        for row in fetch_all(_DECISIONS_SQL, [project.pk])
    ]
    by_stage: dict[str, list[TaskLine]] = {s: [] for s in STAGES}
    for line in lines:
        by_stage[line.stage].append(line)
    # Recent done first: the one closed last is what the reader looks for.
    by_stage["done"].sort(key=lambda ln: ln.last_moved, reverse=True)
    return Snapshot(
        project=project,
        rules=rules,
        rules_line=summary_line(rules, project.slug),
        stages=[(s, by_stage[s]) for s in STAGES],
        decisions=decisions,
        counts=counts,
        done_hidden=counts["done"] - len(by_stage["done"]),
        done_window_days=settings.RELAYBAY.done_window_days,
        extra_lines=extensions.project_lines(project),
    )
