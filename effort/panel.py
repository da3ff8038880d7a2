"""The task dialog's and task page's "Effort" section: what the task's time,
tokens and money came to, ready for templates/effort/partials/effort_panel.html.

Registered in effort.apps.ready() through tasks.extensions.register_task_panel. The
section is refetched on its task's events like every panel, and also on the throttled
`effort.updated` notice, which refetches it alone (its mark `data-live-effort`,
static/relaybay/live_sections.js).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.display import STAGES, stage_label
from effort import charts, figures, words
from effort.figures import Cost, Effort, OwnFigure
from tasks.extensions import Panel, plug_in_once, register_task_panel
from tasks.models import Task

PANEL_ID = "effort"
PANEL_TEMPLATE = "effort/partials/effort_panel.html"
PANEL_ORDER = 50  # after the session, the comments and the actions on live
# The stages whose time the bar shows: a done task's time since it closed is not effort.
BAR_STAGES = tuple(s for s in STAGES if s != "done")


@dataclass(frozen=True)
class StagePart:
    """One stage's part of the stage bar and its legend entry."""

    stage: str
    label: str
    time: str  # "2h 05m"
    share: str  # "42%"
    x: str  # SVG attributes: where the part starts, how wide (percent of the bar)
    width: str


@dataclass(frozen=True)
class Figure:
    """One labelled figure of the section ("Agent time", "3h 20m", what it counts)."""

    label: str
    value: str
    note: str = ""


@dataclass(frozen=True)
class EffortPanel:
    key: str
    stages: tuple[StagePart, ...]
    stages_text: str  # the bar in words, for its accessible name
    counted: bool  # a session worked on it or a response was counted
    working: int  # sessions working on it now (their time is still growing)
    times: tuple[Figure, ...]
    tokens: tuple[Figure, ...]
    tokens_total: str
    responses: str
    cost: str
    cost_known: bool
    shared: str  # "N responses shared with other tasks bound at the same time, split evenly"
    models: tuple[Figure, ...]  # per model, when more than one
    own: tuple[str, ...]  # the agent's own totals beside relaybay's


def stage_parts(effort: Effort) -> list[StagePart]:
    """The stage bar: each stage's share of the task's time outside done, in board order."""
    seconds = effort.times.stage_seconds
    return [
        StagePart(
            stage=p.key,
            label=stage_label(p.key),
            time=words.duration(p.value),
            share=f"{round(p.share * 100)}%",
            x=p.x,
            width=p.width,
        )
        for p in charts.parts([(s, seconds.get(s, 0.0)) for s in BAR_STAGES])
    ]


def _plural(n: int, word: str) -> str:
    return f"{words.count(n)} {word}{'s' * (n != 1)}"


def usd_or_unknown(cost: Cost) -> str:
    """relaybay's figure beside the agent's own: dollars, or why there are none."""
    if cost.known:
        return words.usd(cost.usd)
    return f"{words.usd(cost.usd)} + cost unknown ({', '.join(cost.unpriced)} has no price)"


def own_lines(found: list[OwnFigure]) -> tuple[str, ...]:
    return tuple(
        f"{f.agent or 'The agent'}'s own total for session {f.session}: "
        f"{words.usd(f.agent_usd)} · "
        f"relaybay: {usd_or_unknown(f.relaybay)}"
        for f in found
    )


def shared_note(responses: int, shared: int) -> str:
    """How many of the task's responses went to other tasks bound at the same time too."""
    if not shared:
        return ""
    verb = "was" if shared == 1 else "were"
    if shared == responses == 1:
        subject = "Its one response"
    elif shared == responses:
        subject = f"All {words.count(shared)} of its responses"
    else:
        subject = f"{words.count(shared)} of its {_plural(responses, 'response')}"
    return f"{subject} {verb} shared with other tasks bound at the same time, split evenly"


def effort_panel(task: Task, effort: Effort, own: list[OwnFigure]) -> EffortPanel:
    """The section's values from the task's figures (effort/figures.py)."""
    t, tokens = effort.times, effort.tokens
    stages = stage_parts(effort)
    return EffortPanel(
        key=task.key,
        stages=tuple(stages),
        stages_text=", ".join(f"{p.label} {p.time}" for p in stages) or "no time yet",
        counted=bool(t.sessions or tokens.responses),
        working=t.agents_open,
        times=(
            Figure("Agent time", words.duration(t.agent_seconds)),
            Figure("Wall time", words.duration(t.wall_seconds)),
            Figure("Waiting on you", words.duration(t.waiting_seconds)),
            Figure("Sessions", words.count(t.sessions)),
            Figure("Turns", words.count(t.turns)),
        ),
        tokens=(
            Figure("Input", words.count(tokens.input)),
            Figure(
                "Output",
                words.count(tokens.output),
                f"of which {words.count(tokens.reasoning)} thinking" if tokens.reasoning else "",
            ),
            Figure("Cache write", words.count(tokens.cache_write)),
            Figure("Cache read", words.count(tokens.cache_read)),
        ),
        tokens_total=words.count(tokens.total),
        responses=_plural(tokens.responses, "response"),
        cost=words.cost(effort.cost, tokens),
        cost_known=effort.cost.known,
        shared=shared_note(tokens.responses, tokens.shared),
        models=tuple(
            Figure(
                model,
                f"{words.count(part.total)} tokens",
                words.usd(usd) if usd is not None else "cost unknown (no price)",
            )
            for model, part, usd in effort.by_model
        )
        if len(effort.by_model) > 1
        else (),
        own=own_lines(own),
    )


def panel_context(task: Task) -> dict[str, Any]:
    """What the section's template needs, also when rendered without a request."""
    return {"ef": effort_panel(task, figures.effort(task), figures.own_figures(task))}


@plug_in_once
def register() -> None:
    """Plug into the board's seams once, even if ready() runs again (plain lists)."""
    register_task_panel(PANEL_ORDER, Panel(PANEL_ID, "Effort", PANEL_TEMPLATE, panel_context))
