"""A task's time, from its own events. Pure: events in, figures out.

A `Tally` goes through the task's events in order. Between two events nothing changes, so
each gap is added to the stage the task was in, to the agent time once per bound session
that was working (sessions on the task at once are summed), to the wall time when at least
one was, and to the owner's time when the task waited on the owner: its waiting_on names
one of `owner_names`, a bound session waits for an answer, or it is in review or test with
review steps still open. A turn is a bound session going to work.

The tally is kept between events (`state()` / `Tally.of()`), so each new event costs one
step, not a replay; `replay` folds a whole history, for a task that has no tally yet. What
is still going on after the last event (sessions working, the owner awaited, the current
stage) is read as rates: `Times.grown(now)` adds the time since.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# The events that change a task's time figures (Tally.step).
TIME_EVENTS = frozenset(
    {
        "task.created",
        "task.updated",
        "task.stage_changed",
        "task.session_bound",
        "task.session_unbound",
        "session.status_changed",
        "review.step_added",
        "review.step_updated",
        "review.step_removed",
        "review.step_accepted",
        "review.step_rejected",
    }
)
WORKING, WAITING = "working", "waiting"
OWNER_STAGES = ("review", "test")
DONE = "done"


@dataclass(frozen=True)
class Fact:
    """One event of the task as the tally needs it."""

    at: datetime
    kind: str
    payload: Mapping[str, Any]


@dataclass(frozen=True)
class Times:
    """A task's time figures (seconds) as of `as_of`, and what was going on then."""

    as_of: datetime
    stage: str
    stage_seconds: dict[str, float] = field(default_factory=dict)
    agent_seconds: float = 0.0
    wall_seconds: float = 0.0
    waiting_seconds: float = 0.0
    agents_open: int = 0
    waiting_open: bool = False
    sessions: int = 0
    turns: int = 0

    def grown(self, now: datetime) -> Times:
        """The figures at `now`, what was going on at `as_of` having gone on since."""
        gap = (now - self.as_of).total_seconds()
        if gap <= 0:
            return self
        stages = dict(self.stage_seconds)
        stages[self.stage] = stages.get(self.stage, 0.0) + gap
        # Made whole, not with dataclasses.replace: the Effort page grows 2,000 at once.
        return Times(
            now,
            self.stage,
            stages,
            self.agent_seconds + gap * self.agents_open,
            self.wall_seconds + (gap if self.agents_open else 0.0),
            self.waiting_seconds + (gap if self.waiting_open else 0.0),
            self.agents_open,
            self.waiting_open,
            self.sessions,
            self.turns,
        )


@dataclass
class Tally:
    """The running sums of one task and what they depend on next."""

    at: datetime
    stage: str
    stages: dict[str, float] = field(default_factory=dict)
    agent: float = 0.0
    wall: float = 0.0
    waiting: float = 0.0
    statuses: dict[str, str] = field(default_factory=dict)  # bound session → its status
    steps: dict[str, str] = field(default_factory=dict)  # review step position → status
    waiting_on_owner: bool = False
    seen: list[str] = field(default_factory=list)  # every session ever bound
    turns: int = 0

    # --- kept between events ---------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """What a TaskEffort row keeps of the tally besides its figures."""
        return {
            "statuses": self.statuses,
            "steps": self.steps,
            "waiting_on_owner": self.waiting_on_owner,
            "seen": self.seen,
        }

    @classmethod
    def of(cls, times: Times, state: Mapping[str, Any]) -> Tally:
        return cls(
            at=times.as_of,
            stage=times.stage,
            stages=dict(times.stage_seconds),
            agent=times.agent_seconds,
            wall=times.wall_seconds,
            waiting=times.waiting_seconds,
            statuses=dict(state.get("statuses") or {}),
            steps=dict(state.get("steps") or {}),
            waiting_on_owner=bool(state.get("waiting_on_owner")),
            seen=list(state.get("seen") or []),
            turns=times.turns,
        )

    def times(self) -> Times:
        return Times(
            as_of=self.at,
            stage=self.stage,
            stage_seconds=dict(self.stages),
            agent_seconds=self.agent,
            wall_seconds=self.wall,
            waiting_seconds=self.waiting,
            agents_open=self.working(),
            waiting_open=self.owner_awaited(),
            sessions=len(self.seen),
            turns=self.turns,
        )

    # --- one step ----------------------------------------------------------------------

    def working(self) -> int:
        return sum(status == WORKING for status in self.statuses.values())

    def owner_awaited(self) -> bool:
        if self.stage == DONE:
            return False
        open_steps = self.stage in OWNER_STAGES and "open" in self.steps.values()
        return self.waiting_on_owner or open_steps or WAITING in self.statuses.values()

    def advance(self, to: datetime) -> None:
        """Add the time from the last event to `to`, nothing having changed in between."""
        gap = (to - self.at).total_seconds()
        if gap <= 0:
            return
        working = self.working()
        self.stages[self.stage] = self.stages.get(self.stage, 0.0) + gap
        self.agent += gap * working
        self.wall += gap if working else 0.0
        self.waiting += gap if self.owner_awaited() else 0.0
        self.at = to

    def step(self, fact: Fact, owner_names: frozenset[str]) -> None:
        """Advance to the event, then apply it."""
        self.advance(fact.at)
        p = fact.payload
        if fact.kind in ("task.created", "task.stage_changed"):
            stage = p.get("to", p.get("stage"))
            self.stage = stage if isinstance(stage, str) and stage else self.stage
        if fact.kind in ("task.created", "task.updated") and "waiting_on" in p:
            value = p["waiting_on"]
            self.waiting_on_owner = isinstance(value, str) and (
                value.strip().casefold() in owner_names
            )
        elif fact.kind == "task.session_bound":
            self.statuses.pop(str(p.get("previous") or ""), None)
            self._status(p.get("session"), p.get("status", ""))
        elif fact.kind == "task.session_unbound":
            self.statuses.pop(str(p.get("session") or ""), None)
        elif fact.kind == "session.status_changed":
            self._status(p.get("session"), p.get("to"))
        elif fact.kind == "review.step_removed":
            self.steps.pop(str(p.get("position")), None)
        elif fact.kind.startswith("review.step_"):
            self.steps[str(p.get("position"))] = str(p.get("status") or "")

    def _status(self, name: object, status: object) -> None:
        if not isinstance(name, str) or not name:
            return
        status = status if isinstance(status, str) else ""
        if status == WORKING and self.statuses.get(name) != WORKING:
            self.turns += 1
        self.statuses[name] = status
        if name not in self.seen:
            self.seen.append(name)


def owners(names: Iterable[str]) -> frozenset[str]:
    """owner_names as compared: trimmed, case-folded."""
    return frozenset(n.strip().casefold() for n in names if n.strip())


def replay(
    facts: Iterable[Fact],
    *,
    created_at: datetime,
    first_stage: str,
    owner_names: Iterable[str],
    now: datetime | None = None,
) -> Tally:
    """The tally of a task created at `created_at` in `first_stage`, through its events
    (and on to `now` when given)."""
    facts = list(facts)
    if facts and facts[0].kind == "task.created" and isinstance(facts[0].payload.get("stage"), str):
        first_stage = facts[0].payload["stage"]  # the stage it was created in, not today's
    tally = Tally(at=created_at, stage=first_stage)
    names = owners(owner_names)
    for fact in facts:
        tally.step(fact, names)
    if now is not None:
        tally.advance(now)
    return tally
