"""project_snapshot and the board's frame: a project's open tasks by stage, its recent
done ones, its current decisions and the lines other apps add (§2, §7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from tasks import extensions
from tasks.models import STAGES, Decision, Project, Task
from tasks.rules import EffectiveRules, summary_line
from tasks.selectors.projects import get_project, project_rules
from tasks.selectors.tasks import TaskLine, snapshot_tasks, task_lines

SNAPSHOT_DECISIONS = 20


@dataclass(frozen=True)
class Snapshot:
    """project_snapshot and the board: open tasks by stage, recent done ones, decisions."""

    project: Project
    rules: EffectiveRules
    rules_line: str  # "Rules <hash>: … (read relaybay://rules/<slug>)"
    stages: list[tuple[str, list[TaskLine]]]  # every stage in order; done holds recent ones
    decisions: list[Decision]  # newest first, at most SNAPSHOT_DECISIONS
    counts: dict[str, int]  # stage → all tasks in it (done: every done task)
    done_hidden: int  # done tasks closed before the done window
    done_window_days: int
    extra_lines: list[str] = field(default_factory=list)  # other apps' lines (stands, §7)


def _done_cutoff() -> datetime:
    return timezone.now() - timedelta(days=settings.RELAYBAY.done_window_days)


def snapshot_data(slug: str) -> Snapshot:
    """Four queries plus one per registered line-suffix extension, whatever the task count."""
    project = get_project(slug)
    rules = project_rules(project)
    cutoff = _done_cutoff()
    tasks = snapshot_tasks(project, cutoff)
    counts = dict.fromkeys(STAGES, 0)
    for row in Task.objects.filter(project=project).values("stage").annotate(n=Count("id")):
        counts[row["stage"]] = row["n"]
    decisions = list(
        Decision.objects.filter(project=project, superseded_at__isnull=True)  # current (§8)
        .select_related("task")
        .order_by("-id")[:SNAPSHOT_DECISIONS]
    )
    lines = task_lines(tasks)
    by_stage: dict[str, list[TaskLine]] = {s: [] for s in STAGES}
    for line in lines:
        by_stage[line.stage].append(line)
    # Recent done first: the one closed last is what the reader looks for.
    by_stage["done"].sort(key=lambda ln: ln.closed_at or ln.stage_changed_at, reverse=True)
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
