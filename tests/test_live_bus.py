"""The live bus and the /events stream generator on a plain event loop (§2 Live updates).

No server and no database: each test runs its own loop with asyncio.run and its own
LiveBus, and drives `_stream` the way Django does (anext, aclose, task cancel).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from core import live
from core.live import (
    HEARTBEAT,
    PREAMBLE,
    QUEUE_SIZE,
    RESYNC,
    LiveBus,
    LiveMessage,
    stream,
)

HOUR = 3600.0  # a heartbeat that never comes during a test


def run[T](coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, 10))


def message(event_id: int, project: str | None = "acme") -> LiveMessage:
    data = {"kind": "task.updated", "project": project, "summary": f"event {event_id}"}
    return LiveMessage(id=event_id, kind="task.updated", project=project, data=data)


async def no_replay(project: str | None, last_id: int) -> list[LiveMessage] | None:
    raise AssertionError("no replay expected without a last event id")


async def settle() -> None:
    """Let call_soon_threadsafe callbacks and woken generators run."""
    for _ in range(5):
        await asyncio.sleep(0)


async def collect(gen: AsyncIterator[str], until: int) -> list[str]:
    chunks = []
    async for chunk in gen:
        chunks.append(chunk)
        if len(chunks) == until:
            break
    return chunks


def test_publish_reaches_only_subscribers_of_the_event_project_and_unfiltered_ones() -> None:
    async def scenario() -> None:
        bus = LiveBus()
        acme, other, everything = bus.subscribe("acme"), bus.subscribe("other"), bus.subscribe(None)
        bus.publish(message(1, "acme"))
        bus.publish(message(2, None))
        await settle()
        assert [acme.queue.get_nowait().id for _ in range(acme.queue.qsize())] == [1]
        assert other.queue.empty()
        assert [everything.queue.get_nowait().id for _ in range(2)] == [1, 2]

    run(scenario())


def test_a_subscriber_whose_queue_overflows_is_dropped_and_its_stream_ends() -> None:
    async def scenario() -> None:
        bus = LiveBus()
        gen = stream(bus, None, None, HOUR, no_replay)
        assert await anext(gen) == PREAMBLE
        (sub,) = bus.subscribers
        for n in range(1, QUEUE_SIZE + 1):
            bus.publish(message(n))
        await settle()
        assert not sub.dropped, "a full queue is not an overflow yet"
        bus.publish(message(QUEUE_SIZE + 1))
        await settle()
        assert sub.dropped
        rest = [chunk async for chunk in gen]
        assert rest == [], "a dropped stream ends instead of draining its queue"
        assert (bus.count, bus.streams) == (0, 0)

    run(scenario())


def test_close_all_ends_every_stream_and_later_streams_end_at_once() -> None:
    async def scenario() -> None:
        bus = LiveBus()

        async def read_all() -> list[str]:
            return [chunk async for chunk in stream(bus, None, None, HOUR, no_replay)]

        readers = [asyncio.create_task(read_all()) for _ in range(5)]
        await settle()
        assert (bus.count, bus.streams) == (5, 5)
        bus.close_all()
        results = await asyncio.wait_for(asyncio.gather(*readers), 1)
        assert results == [[PREAMBLE]] * 5
        assert (bus.count, bus.streams) == (0, 0)
        late = await asyncio.wait_for(read_all(), 1)
        assert late == [PREAMBLE]
        assert bus.count == 0

    run(scenario())


def test_closing_the_generator_unsubscribes_it() -> None:
    async def scenario() -> None:
        bus = LiveBus()
        gen = stream(bus, "acme", None, HOUR, no_replay)
        assert bus.count == 0, "a generator that never ran holds no subscriber"
        await anext(gen)
        assert (bus.count, bus.streams) == (1, 1)
        await gen.aclose()
        assert (bus.count, bus.streams) == (0, 0)

    run(scenario())


def test_cancelling_the_task_that_reads_the_stream_unsubscribes_it() -> None:
    async def scenario() -> None:
        bus = LiveBus()

        async def read_forever() -> None:
            async for _ in stream(bus, None, None, HOUR, no_replay):
                pass

        tasks = [asyncio.create_task(read_forever()) for _ in range(50)]
        await settle()
        assert (bus.count, bus.streams) == (50, 50)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert (bus.count, bus.streams) == (0, 0)

    run(scenario())


def test_an_event_published_from_another_thread_reaches_thestream() -> None:
    async def scenario() -> None:
        bus = LiveBus()
        gen = stream(bus, None, None, HOUR, no_replay)
        await anext(gen)
        writer = threading.Thread(target=bus.publish, args=(message(7),))
        writer.start()
        chunk = await asyncio.wait_for(anext(gen), 2)
        writer.join()
        assert chunk == message(7).encode()
        assert chunk.startswith("id: 7\nevent: task.updated\ndata: {")
        await gen.aclose()

    run(scenario())


def test_replay_comes_first_and_a_live_copy_of_a_replayed_event_is_not_sent_twice() -> None:
    async def scenario() -> None:
        bus = LiveBus()

        async def replay(project: str | None, last_id: int) -> list[LiveMessage] | None:
            assert (project, last_id) == ("acme", 1)
            # Event 3 commits while the table is read: the replay has it, and so does the
            # queue, because the stream subscribed before reading.
            bus.publish(message(3))
            await settle()
            return [message(2), message(3)]

        gen = stream(bus, "acme", 1, HOUR, replay)
        chunks = await collect(gen, 3)
        bus.publish(message(1))  # not newer than what the client has
        bus.publish(message(3))
        bus.publish(message(4))
        chunks.append(await asyncio.wait_for(anext(gen), 2))
        await gen.aclose()
        assert chunks == [PREAMBLE, *(message(n).encode() for n in (2, 3, 4))]

    run(scenario())


def test_a_replay_that_cannot_be_served_sends_resync() -> None:
    async def scenario() -> None:
        bus = LiveBus()

        async def too_far_behind(project: str | None, last_id: int) -> None:
            return None

        gen = stream(bus, None, 5, HOUR, too_far_behind)
        assert await collect(gen, 2) == [PREAMBLE, RESYNC]
        await gen.aclose()

    run(scenario())


def test_heartbeats_keep_a_fixed_schedule_whatever_events_arrive_between() -> None:
    period = 0.2

    async def scenario() -> list[float]:
        bus = LiveBus()
        loop = asyncio.get_running_loop()
        gen = stream(bus, None, None, period, no_replay)
        await anext(gen)
        start = loop.time()
        # Events just before each deadline: a "period since the last chunk" timer would
        # push the first heartbeat to 0.55 s; the fixed schedule sends it at 0.2 s.
        loop.call_later(0.15, bus.publish, message(1))
        loop.call_later(0.35, bus.publish, message(2))
        beats: list[float] = []
        async for chunk in gen:
            if chunk == HEARTBEAT:
                beats.append(loop.time() - start)
                if len(beats) == 3:
                    break
        await gen.aclose()
        return beats

    beats = run(scenario())
    for n, at in enumerate(beats, start=1):
        assert abs(at - n * period) < 0.07, f"heartbeat {n} at {at:.3f}s, expected {n * period}s"


def test_stopping_long_lived_requests_closes_the_bus_and_runs_every_registered_closer() -> None:
    woken: list[str] = []

    def broken() -> None:
        raise RuntimeError("a closer that fails")

    def held_requests() -> None:
        woken.append("held requests")

    async def scenario() -> list[str]:
        bus = LiveBus()
        reader = asyncio.create_task(collect(stream(bus, None, None, HOUR, no_replay), 99))
        await settle()
        live.stop_long_lived(bus)
        return await asyncio.wait_for(reader, 1)

    live.on_shutdown(broken)
    live.on_shutdown(held_requests)
    live.on_shutdown(held_requests)  # registering twice still wakes once
    try:
        assert run(scenario()) == [PREAMBLE]
    finally:
        live._shutdown_hooks.remove(broken)
        live._shutdown_hooks.remove(held_requests)
    assert woken == ["held requests"]
