"""The wake-up waits on a plain event loop: superseding, waking on bus events, shutdown.

No server and no database: each test runs its own loop with its own LiveBus and a fake
check standing in for sessions.wake.check_session (the real one runs in
tests/integration/test_wake.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from core.live import QUEUE_SIZE, LiveBus, LiveMessage
from sessions.hooks import wake
from sessions.hooks.wake import GONE, Check, WaitRoom

HOUR = 3600.0


def run[T](coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, 10))


def event(kind: str, key: str | None = None, session: str | None = None, n: int = 1) -> LiveMessage:
    data = {"kind": kind, "key": key, "session": session}
    return LiveMessage(id=n, kind=kind, project="acme", data=data)


class FakeCheck:
    """Answers from a mutable state (gone, pending lines, bound task keys); counts calls."""

    def __init__(self, **state: Any) -> None:
        self.state: dict[str, Any] = {"gone": False, "lines": None, "keys": {"acme-1"}}
        self.state.update(state)
        self.calls: list[str] = []

    async def __call__(self, agent_id: str, wanted: Callable[[], bool]) -> Check:
        self.calls.append(agent_id)
        if self.state["gone"]:
            return GONE
        keys = frozenset(self.state["keys"])
        lines = self.state["lines"]
        if lines and wanted():
            self.state["lines"] = None  # taken: marked delivered
            return Check(lines=lines, keys=keys, names=frozenset({"agent"}))
        return Check(keys=keys, names=frozenset({"agent"}))


def new_room(check: FakeCheck) -> tuple[WaitRoom, LiveBus]:
    bus = LiveBus()
    return WaitRoom(asyncio.get_running_loop(), check=check, bus=bus), bus


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_pending_lines_answer_at_once() -> None:
    async def main() -> str | None:
        room, _ = new_room(FakeCheck(lines="Owner comment on acme-1 (#1): hi"))
        return await room.hold("cc-1", HOUR)

    assert run(main()) == "Owner comment on acme-1 (#1): hi"


def test_a_session_gone_answers_none_at_once() -> None:
    async def main() -> str | None:
        room, _ = new_room(FakeCheck(gone=True))
        return await room.hold("cc-1", HOUR)

    assert run(main()) is None


def test_time_up_answers_none_and_leaves_no_waiter_or_subscriber() -> None:
    async def main() -> tuple[str | None, int, int]:
        room, bus = new_room(FakeCheck())
        result = await room.hold("cc-1", 0.05)
        await settle()
        return result, room.open_waits, bus.count

    assert run(main()) == (None, 0, 0)


def test_an_event_for_a_bound_task_wakes_the_wait() -> None:
    async def main() -> tuple[str | None, int]:
        check = FakeCheck()
        room, bus = new_room(check)
        held = asyncio.create_task(room.hold("cc-1", HOUR))
        await asyncio.sleep(0.01)
        check.state["lines"] = "Owner comment on acme-1 (#2): look"
        bus.publish(event("comment.added", key="acme-1"))
        return await held, len(check.calls)

    lines, calls = run(main())
    assert lines == "Owner comment on acme-1 (#2): look"
    assert calls == 2


def test_events_about_other_tasks_or_kinds_check_nothing() -> None:
    async def main() -> int:
        check = FakeCheck()
        room, bus = new_room(check)
        held = asyncio.create_task(room.hold("cc-1", HOUR))
        await asyncio.sleep(0.01)
        before = len(check.calls)
        bus.publish(event("comment.added", key="acme-2", session="someone else"))
        bus.publish(event("task.updated", key="acme-1"))
        await asyncio.sleep(0.01)
        held.cancel()
        return len(check.calls) - before

    assert run(main()) == 0


def test_an_event_naming_the_session_wakes_the_wait() -> None:
    async def main() -> str | None:
        check = FakeCheck(keys=set())
        room, bus = new_room(check)
        held = asyncio.create_task(room.hold("cc-1", HOUR))
        await asyncio.sleep(0.01)
        check.state.update(keys={"acme-9"}, lines="Owner comment on acme-9 (#3): bound now")
        bus.publish(event("task.session_bound", key="acme-9", session="agent"))
        return await held

    assert run(main()) == "Owner comment on acme-9 (#3): bound now"


def test_a_newer_wait_ends_the_older_with_none() -> None:
    async def main() -> tuple[str | None, str | None]:
        check = FakeCheck()
        room, bus = new_room(check)
        older = asyncio.create_task(room.hold("cc-1", HOUR))
        await asyncio.sleep(0.01)
        newer = asyncio.create_task(room.hold("cc-1", HOUR))
        first = await older
        check.state["lines"] = "for the newer"
        bus.publish(event("comment.added", key="acme-1"))
        return first, await newer

    assert run(main()) == (None, "for the newer")


def test_lines_taken_for_a_superseded_wait_go_to_the_newer_one() -> None:
    """The older wait's check took the lines (marked delivered) just as the newer wait
    arrived: they are not lost, the newer wait answers with them."""
    calls: list[str] = []

    async def check(agent_id: str, wanted: Callable[[], bool]) -> Check:
        calls.append(agent_id)
        if len(calls) == 1:
            await asyncio.sleep(0.05)  # still in the sync thread when the newer wait comes
            return Check(lines="taken during the switch", keys=frozenset({"acme-1"}))
        return Check(keys=frozenset({"acme-1"}))

    async def main() -> tuple[str | None, str | None]:
        room = WaitRoom(asyncio.get_running_loop(), check=check, bus=LiveBus())
        older = asyncio.create_task(room.hold("cc-1", HOUR))
        await asyncio.sleep(0.01)
        newer = asyncio.create_task(room.hold("cc-1", HOUR))
        return await older, await newer

    assert run(main()) == (None, "taken during the switch")


def test_waits_recheck_each_once_more_after_the_settle_delay(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(wake, "SETTLE_SECONDS", 0.05)

    async def main() -> str | None:
        check = FakeCheck()
        room, _ = new_room(check)
        held = asyncio.create_task(room.hold("cc-1", HOUR))
        await asyncio.sleep(0.01)
        check.state["lines"] = "the Stop was written after the first check"  # no event
        return await held

    assert run(main()) == "the Stop was written after the first check"


def test_a_bus_overflow_resubscribes_and_checks_everyone() -> None:
    async def main() -> tuple[str | None, int]:
        check = FakeCheck()
        room, bus = new_room(check)
        held = asyncio.create_task(room.hold("cc-1", HOUR))
        await asyncio.sleep(0.01)
        check.state["lines"] = "lost among many events"
        for n in range(QUEUE_SIZE + 5):  # delivered in one go: the queue overflows
            bus.publish(event("task.updated", key="acme-5", n=n))
        result = await held
        await settle()
        return result, bus.count

    assert run(main()) == ("lost among many events", 0)


def test_shutdown_ends_every_wait_and_refuses_new_ones() -> None:
    async def main() -> tuple[list[str | None], str | None]:
        room, _ = new_room(FakeCheck(keys=set()))
        held = [asyncio.create_task(room.hold(f"cc-{n}", HOUR)) for n in range(200)]
        await asyncio.sleep(0.01)
        assert room.open_waits == 200
        room.close()
        answers = await asyncio.gather(*held)
        return answers, await room.hold("cc-late", HOUR)

    answers, late = run(main())
    assert answers == [None] * 200
    assert late is None


def test_the_shutdown_closer_reaches_the_room_of_the_running_loop() -> None:
    async def main() -> str | None:
        the_room = wake.room()
        the_room.check = FakeCheck(keys=set())
        held = asyncio.create_task(the_room.hold("cc-1", HOUR))
        await asyncio.sleep(0.01)
        assert wake.open_waits() >= 1
        wake.close_all()
        return await held

    assert run(main()) is None


def test_wait_seconds_come_from_the_body_capped_at_25_minutes() -> None:
    assert wake.wait_seconds({}) == 1500
    assert wake.wait_seconds({"relaybay_wait_seconds": 2}) == 2
    assert wake.wait_seconds({"relaybay_wait_seconds": 10**9}) == 1500
    assert wake.wait_seconds({"relaybay_wait_seconds": -3}) == 0
    assert wake.wait_seconds({"relaybay_wait_seconds": "5"}) == 1500
    assert wake.wait_seconds({"relaybay_wait_seconds": True}) == 1500
    assert wake.wait_seconds({"relaybay_wait_seconds": float("nan")}) == 1500
