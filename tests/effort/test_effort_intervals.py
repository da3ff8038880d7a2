"""A task's time from its events (issue 31), as tables: stages, agent and wall time across
rebinds and concurrent sessions, the owner's time, turns — and the tally kept between
events (a restart in between) comes to what one replay of the whole history does."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from effort.intervals import Fact, Tally, Times, owners, replay

T0 = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def created(stage: str = "plan", **extra: object) -> Fact:
    return Fact(at(0), "task.created", {"title": "t", "stage": stage, **extra})


def move(s: float, to: str) -> Fact:
    return Fact(at(s), "task.stage_changed", {"from": "", "to": to, "stage": to})


def bound(s: float, session: str, status: str = "", previous: str | None = None) -> Fact:
    payload = {"session": session, "previous": previous} | ({"status": status} if status else {})
    return Fact(at(s), "task.session_bound", payload)


def unbound(s: float, session: str) -> Fact:
    return Fact(at(s), "task.session_unbound", {"session": session, "reason": ""})


def status(s: float, session: str, to: str) -> Fact:
    return Fact(at(s), "session.status_changed", {"session": session, "from": "", "to": to})


def waiting_on(s: float, who: str) -> Fact:
    return Fact(at(s), "task.updated", {"fields": ["waiting_on"], "waiting_on": who})


def step(s: float, kind: str, position: int, state: str) -> Fact:
    return Fact(at(s), f"review.step_{kind}", {"position": position, "title": "x", "status": state})


def figures(facts: list[Fact], now: float) -> Times:
    return replay(
        facts, created_at=T0, first_stage="dev", owner_names=["owner", "Anna"], now=at(now)
    ).times()


CASES = {
    "stages from the moves": (
        [created("plan"), move(60, "dev"), move(180, "review")],
        300,
        {"stages": {"plan": 60, "dev": 120, "review": 120}, "agent": 0, "wall": 0},
    ),
    "one session, two turns": (
        [
            created(),
            bound(10, "a"),
            status(20, "a", "working"),
            status(50, "a", "idle"),
            status(70, "a", "working"),
            status(100, "a", "idle"),
        ],
        200,
        {"agent": 60, "wall": 60, "turns": 2, "sessions": 1},
    ),
    "bound while working: the time counts from the binding": (
        [created(), bound(30, "a", "working"), status(90, "a", "idle")],
        100,
        {"agent": 60, "wall": 60, "turns": 1},
    ),
    "two sessions on one task: summed, and wall time once": (
        [
            created(),
            bound(0, "a", "working"),
            Fact(at(0), "session.status_changed", {"session": "b", "to": "idle"}),
            status(50, "b", "working"),
            status(100, "a", "idle"),
            status(150, "b", "idle"),
        ],
        200,
        {"agent": 200, "wall": 150, "sessions": 2, "turns": 2},
    ),
    "a rebind mid-turn: the old session stops counting, the new one starts": (
        [
            created(),
            bound(0, "a", "working"),
            bound(30, "b", "working", previous="a"),
            status(45, "a", "idle"),  # a's later news does not reach this task's time
            status(60, "b", "idle"),
        ],
        100,
        {"agent": 60, "wall": 60, "sessions": 2, "turns": 2},
    ),
    "an unbind stops the time": (
        [created(), bound(0, "a", "working"), unbound(40, "a")],
        100,
        {"agent": 40, "wall": 40, "open": 0},
    ),
    "the owner's time: waiting_on, a session waiting, open review steps in review": (
        [
            created("dev"),
            waiting_on(10, "Owner "),  # trimmed, any case
            waiting_on(40, "agent"),
            bound(45, "a", "working"),
            status(50, "a", "waiting"),
            status(70, "a", "working"),
            step(80, "added", 1, "open"),  # open in dev: the agent's, not the owner's
            move(100, "review"),
            step(130, "accepted", 1, "accepted"),
            status(150, "a", "idle"),
        ],
        160,
        {"waiting": 30 + 20 + 30, "agent": 105 - 20 + 0, "waiting_open": False},
    ),
    "done: neither the owner's nor growing in the bar's stages": (
        [created("dev"), waiting_on(0, "anna"), move(50, "done")],
        80,
        {"waiting": 50, "stages": {"dev": 50, "done": 30}},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_time_figures(name: str) -> None:
    facts, now, expected = CASES[name]

    t = figures(facts, now)

    got = {
        "stages": {k: round(v) for k, v in t.stage_seconds.items()},
        "agent": round(t.agent_seconds),
        "wall": round(t.wall_seconds),
        "waiting": round(t.waiting_seconds),
        "turns": t.turns,
        "sessions": t.sessions,
        "open": t.agents_open,
        "waiting_open": t.waiting_open,
    }
    assert {k: got[k] for k in expected} == expected


def test_what_is_still_going_on_grows_until_it_is_read() -> None:
    facts = [created("dev"), bound(0, "a", "working"), bound(0, "b", "waiting")]
    t = figures(facts, 100)
    assert (t.agents_open, t.waiting_open) == (1, True)

    later = t.grown(at(160))

    assert round(later.agent_seconds) == 160
    assert round(later.wall_seconds) == 160
    assert round(later.waiting_seconds) == 160
    assert round(later.stage_seconds["dev"]) == 160
    assert t.grown(at(50)) == t  # never backwards


def test_the_tally_kept_between_events_comes_to_one_replay() -> None:
    """Each event a step of a tally that went through JSON (a row, a restart in between)."""
    facts = [f for name in CASES for f in CASES[name][0] if f.kind != "task.created"]
    facts = sorted(facts, key=lambda f: f.at)
    whole = replay([created(), *facts], created_at=T0, first_stage="dev", owner_names=["owner"])

    tally = replay([created()], created_at=T0, first_stage="dev", owner_names=["owner"])
    for fact in facts:
        times, state = tally.times(), json.loads(json.dumps(tally.state()))
        tally = Tally.of(times, state)
        tally.step(fact, owners(["owner"]))

    assert tally.times() == whole.times()
