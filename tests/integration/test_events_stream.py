"""GET /events against a real `relaybay serve` over real HTTP (§2 Live updates).

Events are written the real way, through the MCP tools over the SDK client. The one
exception is the server that must hold more than 5,000 events: its data folder is
filled before the server starts by a script run with the server's own Python, which
calls `record_event` (the one append function) 5,001 times in one transaction — through
MCP that would take minutes for a test of one boundary.
"""

from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer, clean_env

pytestmark = pytest.mark.integration

HEARTBEAT = 0.2
DATA_KEYS = {"kind", "project", "key", "stage", "from", "to", "session", "summary"}
CROWD = 5001  # one more than the replay limit


# --- a small SSE client -------------------------------------------------------------------


@dataclass
class Block:
    """One SSE block: the fields of one message, or only comments (heartbeat, connected)."""

    id: int | None = None
    event: str | None = None
    data: dict[str, Any] | None = None
    comments: list[str] = field(default_factory=list)
    retry: int | None = None


class EventStream:
    """GET /events over http.client; reads block by block with a socket timeout."""

    def __init__(
        self,
        server: RelaybayServer,
        query: str = "",
        headers: dict[str, str] | None = None,
        timeout: float = 5,
        auth: bool = True,
    ) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
        sent = {"Authorization": f"Bearer {server.token}"} if auth else {}
        self.conn.request("GET", "/events" + query, headers={**sent, **(headers or {})})
        self.response = self.conn.getresponse()

    def block(self) -> Block:
        block, seen = Block(), False
        while True:
            raw = self.response.readline()
            if raw == b"":
                raise EOFError("the server ended the stream")
            line = raw.decode().rstrip("\n")
            if line == "":
                if seen:
                    return block
                continue
            seen = True
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "":
                block.comments.append(value)
            elif name == "id":
                block.id = int(value)
            elif name == "event":
                block.event = value
            elif name == "data":
                block.data = json.loads(value)
            elif name == "retry":
                block.retry = int(value)

    def message(self) -> Block:
        """The next block that is an event, skipping comments."""
        while True:
            block = self.block()
            if block.event is not None:
                return block

    def messages_until_heartbeat(self) -> list[Block]:
        """Everything sent before the first heartbeat: the replay of a fresh connection."""
        found = []
        while True:
            block = self.block()
            if "heartbeat" in block.comments:
                return found
            if block.event is not None:
                found.append(block)

    def messages_through(self, last_id: int | None) -> list[Block]:
        """Every event up to and including the one with `last_id`, heartbeats skipped: a
        slow machine may beat between two writes, and the stream keeps their order."""
        found: list[Block] = []
        while not found or found[-1].id != last_id:
            block = self.block()
            if block.event is not None:
                found.append(block)
        return found

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- helpers ---------------------------------------------------------------------------------


def stats(server: RelaybayServer) -> dict[str, int]:
    """The live-stream counters of /api/stats (other holders add their own keys)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", "/api/stats", headers={"Authorization": f"Bearer {server.token}"})
        response = conn.getresponse()
        assert response.status == 200
        counters = json.loads(response.read())
        return {name: counters[name] for name in ("subscribers", "streams")}
    finally:
        conn.close()


def wait_for_stats(server: RelaybayServer, want: dict[str, int], within: float) -> dict[str, int]:
    deadline = time.monotonic() + within
    seen = stats(server)
    while seen != want and time.monotonic() < deadline:
        time.sleep(0.05)
        seen = stats(server)
    return seen


def leave_before_the_answer(server: RelaybayServer, path: str) -> None:
    """Send a request and hang up at once, before the response (the body never starts)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: Bearer {server.token}\r\n\r\n".encode()
        )


def call_tools(server: RelaybayServer, *calls: tuple[str, dict[str, Any]]) -> list[str]:
    """Run MCP tool calls in order through the real client; every call must succeed."""

    async def run() -> list[str]:
        answers = []
        async with mcp_client(server.base_url, server.token) as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, f"{name} failed: {text_of(result)}"
                answers.append(text_of(result))
        return answers

    return asyncio.run(run())


def written_events(stream: EventStream, count: int) -> list[Block]:
    """The next `count` events on an open live stream."""
    return [stream.message() for _ in range(count)]


# --- servers -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stream_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    srv = RelaybayServer(
        home=tmp_path_factory.mktemp("home"),
        env={"RELAYBAY_HEARTBEAT_SECONDS": str(HEARTBEAT)},
    ).start()
    yield srv
    srv.stop()


PREFILL = f"""
import os
import django
os.environ["DJANGO_SETTINGS_MODULE"] = "relaybay_site.settings"
django.setup()
from django.core.management import call_command
from django.db import transaction
from tasks.events import EventKind, record_event
call_command("migrate", interactive=False, verbosity=0)
with transaction.atomic():
    for n in range({CROWD}):
        record_event(EventKind.SESSION_SEEN, project=None, actor="prefill",
                     payload={{"session": f"bulk-{{n}}"}})
"""


@pytest.fixture(scope="module")
def crowded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    """A server whose event log already holds 5,001 events (ids 1…5001)."""
    home: Path = tmp_path_factory.mktemp("crowded")
    subprocess.run(
        [sys.executable, "-c", PREFILL],
        env=clean_env(RELAYBAY_HOME=str(home)),
        check=True,
        timeout=120,
    )
    srv = RelaybayServer(home=home, env={"RELAYBAY_HEARTBEAT_SECONDS": str(HEARTBEAT)}).start()
    yield srv
    srv.stop()


# --- the stream itself ------------------------------------------------------------------------


def test_the_stream_is_event_stream_without_caching(stream_server: RelaybayServer) -> None:
    with EventStream(stream_server) as stream:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
        assert stream.response.getheader("Cache-Control") == "no-cache"
        first = stream.block()
        assert first.retry == 2000
        assert first.comments == ["connected"]


def test_the_stream_sends_a_client_that_is_not_signed_in_to_login(
    stream_server: RelaybayServer,
) -> None:
    with EventStream(stream_server, auth=False) as stream:
        assert stream.response.status == 302
        assert stream.response.getheader("Location", "").startswith("/login?next=/events")


def test_heartbeat_comments_arrive_on_the_configured_schedule(
    stream_server: RelaybayServer,
) -> None:
    with EventStream(stream_server) as stream:
        stream.block()  # connected
        started = time.monotonic()
        beats = []
        while len(beats) < 4:
            block = stream.block()
            if "heartbeat" in block.comments:
                beats.append(time.monotonic() - started)
    assert beats[-1] < 4 * HEARTBEAT + 0.3, f"four heartbeats took {beats[-1]:.2f}s"
    gaps = [b - a for a, b in itertools.pairwise(beats)]
    assert all(0.5 * HEARTBEAT < gap < 2 * HEARTBEAT for gap in gaps), gaps


def test_an_event_written_through_mcp_reaches_an_open_stream_with_the_small_json_data(
    stream_server: RelaybayServer,
) -> None:
    with EventStream(stream_server) as stream:
        stream.block()
        call_tools(stream_server, ("project_upsert", {"slug": "live-one", "name": "Live one"}))
        (created,) = written_events(stream, 1)
    assert created.event == "project.created"
    assert created.id > 0
    assert set(created.data) == DATA_KEYS
    assert created.data["kind"] == "project.created"
    assert created.data["project"] == "live-one"
    assert created.data["summary"]


def test_a_task_stage_change_carries_its_key_and_stages(stream_server: RelaybayServer) -> None:
    call_tools(stream_server, ("project_upsert", {"slug": "stages", "name": "Stages"}))
    with EventStream(stream_server, "?project=stages") as stream:
        stream.block()
        call_tools(
            stream_server,
            ("task_create", {"project": "stages", "title": "Move me"}),
            ("task_set_stage", {"task": "stages-1", "stage": "dev"}),
        )
        created, moved = written_events(stream, 2)
    assert created.event == "task.created"
    assert created.data["key"] == "stages-1"
    assert moved.event == "task.stage_changed"
    assert set(moved.data) == DATA_KEYS
    assert (moved.data["key"], moved.data["from"], moved.data["to"]) == ("stages-1", "plan", "dev")
    assert moved.data["stage"] == "dev"
    assert moved.id > created.id


def test_the_project_parameter_narrows_the_stream_to_that_project(
    stream_server: RelaybayServer,
) -> None:
    with (
        EventStream(stream_server, "?project=narrow-b") as narrow,
        EventStream(stream_server) as wide,
    ):
        narrow.block()
        wide.block()
        call_tools(
            stream_server,
            ("project_upsert", {"slug": "narrow-a", "name": "A"}),
            ("project_upsert", {"slug": "narrow-b", "name": "B"}),
            ("task_create", {"project": "narrow-a", "title": "Not for B"}),
            ("task_create", {"project": "narrow-b", "title": "For B"}),
        )
        everything = written_events(wide, 4)
        only_b = narrow.messages_through(everything[3].id)
    assert [m.data["project"] for m in everything if m.data] == [
        "narrow-a",
        "narrow-b",
        "narrow-a",
        "narrow-b",
    ]
    assert [m.id for m in only_b] == [everything[1].id, everything[3].id]


# --- replay ---------------------------------------------------------------------------------


def replay_fixture(server: RelaybayServer, slug: str) -> list[Block]:
    """Write four events of a new project through MCP; return them as a live stream saw them."""
    with EventStream(server, f"?project={slug}") as stream:
        stream.block()
        call_tools(
            server,
            ("project_upsert", {"slug": slug, "name": slug}),
            ("task_create", {"project": slug, "title": "First"}),
            ("task_create", {"project": slug, "title": "Second"}),
            ("task_set_stage", {"task": f"{slug}-1", "stage": "dev"}),
        )
        return written_events(stream, 4)


def test_last_event_id_header_replays_exactly_the_newer_events_in_order(
    stream_server: RelaybayServer,
) -> None:
    events = replay_fixture(stream_server, "replay-header")
    with EventStream(stream_server, headers={"Last-Event-ID": str(events[0].id)}) as stream:
        replayed = stream.messages_until_heartbeat()
    assert [(m.id, m.event, m.data) for m in replayed] == [
        (m.id, m.event, m.data) for m in events[1:]
    ]


def test_last_event_id_query_parameter_replays_like_the_header(
    stream_server: RelaybayServer,
) -> None:
    events = replay_fixture(stream_server, "replay-query")
    with EventStream(stream_server, f"?project=replay-query&last_event_id={events[1].id}") as s:
        replayed = s.messages_until_heartbeat()
    assert [m.id for m in replayed] == [m.id for m in events[2:]]


def test_a_replayed_stream_goes_on_with_live_events(stream_server: RelaybayServer) -> None:
    events = replay_fixture(stream_server, "replay-then-live")
    with EventStream(stream_server, headers={"Last-Event-ID": str(events[-1].id)}) as stream:
        assert stream.messages_until_heartbeat() == []
        call_tools(stream_server, ("task_create", {"project": "replay-then-live", "title": "Late"}))
        (late,) = written_events(stream, 1)
    assert late.event == "task.created"
    assert late.id > events[-1].id


def test_a_client_ahead_of_the_newest_event_gets_resync(stream_server: RelaybayServer) -> None:
    with EventStream(stream_server, headers={"Last-Event-ID": "999999999"}) as stream:
        stream.block()
        assert stream.block().event == "resync"
    with EventStream(stream_server, "?last_event_id=999999999") as stream:
        stream.block()
        assert stream.block().event == "resync"


def test_a_client_more_than_5000_events_behind_gets_resync(
    crowded_server: RelaybayServer,
) -> None:
    with EventStream(crowded_server, headers={"Last-Event-ID": "0"}) as stream:
        stream.block()
        assert stream.block().event == "resync"


def test_a_client_exactly_5000_events_behind_gets_all_of_them_in_order(
    crowded_server: RelaybayServer,
) -> None:
    with EventStream(crowded_server, headers={"Last-Event-ID": "1"}, timeout=10) as stream:
        replayed = stream.messages_until_heartbeat()
    assert [m.id for m in replayed] == list(range(2, CROWD + 1))
    assert {m.event for m in replayed} == {"session.seen"}
    assert replayed[-1].data["session"] == f"bulk-{CROWD - 1}"


# --- no leaks ---------------------------------------------------------------------------------


def test_connect_disconnect_cycles_leave_no_subscriber_or_stream_behind(
    stream_server: RelaybayServer,
) -> None:
    one, idle = {"subscribers": 1, "streams": 1}, {"subscribers": 0, "streams": 0}
    with EventStream(stream_server) as held:
        held.block()
        assert wait_for_stats(stream_server, one, 2) == one, "the counters must see a stream"
    assert wait_for_stats(stream_server, idle, 2) == idle
    for n in range(100):
        query = "?project=leak" if n % 2 else ""
        if n % 3 == 0:
            leave_before_the_answer(stream_server, "/events" + query)
            continue
        stream = EventStream(stream_server, query)
        if n % 3 == 1:
            stream.block()  # the generator runs and waits: the server must cancel it
        stream.close()
    assert wait_for_stats(stream_server, idle, 2) == idle
