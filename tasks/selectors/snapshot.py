"""project_snapshot and the board's frame: a project's open tasks by stage, its recent
done ones, its current decisions and the lines other apps add (§2, §7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core.rows import columns, fetch_all
from tasks import extensions, sql
from tasks.models import STAGES, Decision, Project
from tasks.rules import EffectiveRules, summary_line
from tasks.selectors.projects import get_project, project_rules
from tasks.selectors.tasks import TaskLine, snapshot_lines

SNAPSHOT_DECISIONS = sql.SNAPSHOT_DECISIONS


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


_DECISION = columns(Decision, "d")


def snapshot_data(slug: str) -> Snapshot:
    """Four queries plus one per registered line-suffix extension, whatever the task count."""
    project = get_project(slug)
    rules = project_rules(project)
    lines = snapshot_lines(project, _done_cutoff())
    counts = dict.fromkeys(STAGES, 0) | dict(fetch_all(sql.STAGE_COUNTS.text, [project.pk]))
    decisions = [
        (_DECISION.build(row), row[_DECISION.width] or "")
        for row in fetch_all(sql.CURRENT_DECISIONS.text, [project.pk])
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
