"""What plans plugs into the seams of tasks.extensions (registered in PlansConfig.ready)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

from core.links import link_pattern
from plans import render_md, selectors
from tasks.extensions import (
    CardBadge,
    CardExtra,
    LineTask,
    plug_in_once,
    register_card_extras,
    register_move_facts,
    register_task_line_suffix,
    register_task_section,
)
from tasks.models import Task
from tasks.render_md import one_line


def task_section(task: Task) -> str:
    """task_get's "## Plan": state, "2 of 5 done · 1 deviation", steps with checkpoints."""
    steps = selectors.plan_steps(task)
    if not steps:
        return ""
    return render_md.plan_md(task, steps, selectors.summarize(task, steps), full=False)


def line_suffixes(tasks: Sequence[LineTask]) -> dict[int, str]:
    """ " · plan 2/5 (draft)" on project_snapshot / task_list lines, one query per list."""
    drafts = {t.id for t in tasks if t.plan_status == "draft"}
    return {
        task_id: f"plan {done}/{total}" + (" (draft)" if task_id in drafts else "")
        for task_id, (done, total) in selectors.step_counts(tasks).items()
    }


def badge_parts(s: selectors.PlanSummary) -> tuple[tuple[str, str], ...]:
    """The card badge in (text, css) parts: "Plan 2/5 · draft · 2 deviations · now: <step>";
    the number of deviations is highlighted (§2 Cards)."""
    parts = [(f"Plan {s.done}/{s.total}", "")]
    if s.status == "draft":
        parts.append((" · draft", ""))
    if s.deviations:
        noun = "deviation" if s.deviations == 1 else "deviations"
        parts += [(" · ", ""), (f"{s.deviations} {noun}", "plan-deviations")]
    if s.now:
        parts.append((f" · now: {one_line(s.now, 40)}", ""))
    return tuple(parts)


def badge_text(s: selectors.PlanSummary) -> str:
    """The card badge as plain text: "Plan 2/5 · draft · 2 deviations · now: <step>" (§2)."""
    return "".join(text for text, _ in badge_parts(s))


def card_extras(tasks: list[Task]) -> dict[int, CardExtra]:
    """Batched per board render: one query whatever the number of cards."""
    keys = {t.id: t.key for t in tasks}
    board = link_pattern("board", "slug")  # once per render, not per card
    extras = {}
    for task_id, (slug, s) in selectors.card_summaries(tasks).items():
        key = keys[task_id]
        css = "plan-badge" + (" plan-draft" if s.status == "draft" else "")
        if s.deviations:
            css += " plan-deviation"
        href = f"{board(slug)}?{urlencode({'task': key, 'tab': 'plan'})}"
        badge = CardBadge(badge_text(s), css, href, parts=badge_parts(s))
        extras[task_id] = CardExtra(badges=(badge,))
    return extras


@plug_in_once
def register() -> None:
    """Plug into tasks once, even if ready() runs again (the seams are plain lists)."""
    register_task_section(20, task_section)
    register_task_line_suffix(20, line_suffixes)
    # §6: "no plan and no todo" — plan steps count as written-down work.
    register_move_facts(
        lambda task: {"has_plan_steps": selectors.has_plan_steps(task)}, keys=("has_plan_steps",)
    )
    register_card_extras(card_extras)
