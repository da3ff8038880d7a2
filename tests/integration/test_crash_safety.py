"""kill -9 in the middle of concurrent writes loses no acknowledged write (issue 18; §3).

Eight official MCP clients write at once (task_create, task_update's progress on their own
task and on one shared task, report_add) while an SSE client follows /events. When enough
writes have been answered, the server is killed with SIGKILL — no shutdown of any kind —
and started again on the same data folder and port. Then:
- the serve lock (an OS lock, relaybay_site/serve_lock.py) did not outlive the process, so
  the restart proceeds;
- every write that got a success answer is in the database, as that answer said: the task
  exists with its title, the report with its body, the version the answer named is the
  one the event log records for that writer;
- each task's versions are gap-free: the task's version equals the number of its
  version-bumping events, which run 1, 2, 3 … in the log's order;
- `PRAGMA integrity_check` says ok and no foreign key dangles;
- the SSE client reconnecting with Last-Event-ID gets exactly the events it missed, so
  what it saw before the crash plus the replay is the whole log since it connected.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import random
import re
import signal
import socket
import sqlite3
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.mcp_client import mcp_client, text_of
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration

CLIENTS = 8
KILL_AFTER = 160  # acknowledged writes before the kill
MAX_CALLS = 400  # per client: the loop ends even if the kill never came
HEARTBEAT = 0.3
SLUG = "crash"
SHARED = f"{SLUG}-1"
VERSION = re.compile(r"\(version (\d+)\)")
# The events that each stand for one version of a task in these writes (no stage moves).
BUMPS = ("task.created", "task.updated", "report.added")


@dataclass(frozen=True)
class Ack:
    """One write the server answered with success."""

    client: int
    tool: str
    key: str
    version: int
    text: str  # the title, progress or report body this write sent


def session(n: int) -> str:
    return f"crash-writer-{n}"


# --- the SSE follower -----------------------------------------------------------------------


class Follower:
    """GET /events in a thread: the ids of every event until the stream breaks."""

    def __init__(self, server: RelaybayServer, last_event_id: int | None = None) -> None:
        self.ids: list[int] = []
        self.kinds: list[str] = []
        self.connected = threading.Event()
        self.heartbeat = threading.Event()
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        headers = {"Authorization": f"Bearer {server.token}"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.conn.request("GET", "/events", headers=headers)
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.connected.wait(10), "the stream never said it was connected"

    def _read(self) -> None:
        with contextlib.suppress(OSError, http.client.HTTPException):
            while raw := self.response.readline():
                line = raw.decode().rstrip("\n")
                if line == ": connected":
                    self.connected.set()
                elif line == ": heartbeat":
                    self.heartbeat.set()
                elif line.startswith("id: "):
                    self.ids.append(int(line[4:]))
                elif line.startswith("event: "):
                    self.kinds.append(line[7:])

    def close(self) -> None:
        """Shut the socket so the reading thread sees the end, then close."""
        if self.conn.sock is not None:
            with contextlib.suppress(OSError):
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(10)
        self.conn.close()


# --- the writers ------------------------------------------------------------------------------


async def set_up(server: RelaybayServer) -> None:
    async with mcp_client(server.base_url, server.token) as client:
        for tool, args in (
            ("project_upsert", {"slug": SLUG, "name": "Crash"}),
            # Size S, as the reports say: a report that also set the size would add a
            # task.updated event to its version, and versions would no longer be one
            # event each.
            ("task_create", {"project": SLUG, "title": "Shared by every writer", "size": "S"}),
        ):
            result = await client.call_tool(tool, args)
            assert not result.is_error, text_of(result)


@dataclass
class Run:
    """What the writers share: the answered writes, the calls sent and not yet answered,
    and how many of those there were when the server was killed."""

    acks: list[Ack] = field(default_factory=list)
    in_flight: int = 0
    in_flight_at_kill: int = 0
    killed: asyncio.Event = field(default_factory=asyncio.Event)


async def writer(server: RelaybayServer, n: int, run: Run) -> BaseException | None:
    """Write until the server goes away; returns the failure that ended it (None if none)."""
    own = ""
    try:
        async with mcp_client(server.base_url, server.token) as client:
            for i in range(MAX_CALLS):
                step = i % 4
                if step == 0 or not own:
                    tool, text = "task_create", f"w{n} task {i}"
                    args = {"project": SLUG, "title": text}
                elif step == 1:
                    tool, text = "task_update", f"w{n} progress {i}"
                    args = {"task": own, "progress": text}
                elif step == 2:
                    tool, text = "report_add", f"changed · S · w{n} report {i}"
                    args = {"task": SHARED, "body": text}
                else:
                    tool, text = "task_update", f"w{n} shared progress {i}"
                    args = {"task": SHARED, "progress": text}
                run.in_flight += 1
                result = await client.call_tool(tool, {**args, "session": session(n)})
                run.in_flight -= 1
                answer = text_of(result)
                assert not result.is_error, answer
                key = answer.split()[1] if tool == "task_create" else args["task"]
                if tool == "task_create":
                    own = key
                run.acks.append(Ack(n, tool, key, int(VERSION.search(answer).group(1)), text))
    except Exception as exc:  # the kill: whatever the client raises then ends this writer
        if not run.killed.is_set() or failed_check(exc):
            raise
        return exc
    return None


def failed_check(exc: BaseException) -> bool:
    """An assertion of this test, even wrapped in the client's exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        return any(failed_check(inner) for inner in exc.exceptions)
    return isinstance(exc, AssertionError)


async def write_and_kill(server: RelaybayServer, run: Run) -> list[BaseException | None]:

    async def killer() -> None:
        while len(run.acks) < KILL_AFTER:
            await asyncio.sleep(0.005)
        # A moment later, at a point that differs from run to run: the kill then lands
        # sometimes between calls, sometimes inside a transaction or its answer.
        await asyncio.sleep(random.uniform(0, 0.05))
        run.killed.set()
        run.in_flight_at_kill = run.in_flight
        server.proc.send_signal(signal.SIGKILL)  # type: ignore[union-attr]

    kill = asyncio.create_task(killer())
    ends = await asyncio.gather(*(writer(server, n, run) for n in range(CLIENTS)))
    await kill
    server.proc.wait(10)  # type: ignore[union-attr]
    return ends


# --- the database after the restart ---------------------------------------------------------


def bumps_by_task(db: sqlite3.Connection) -> dict[str, list[tuple[int, str, str]]]:
    """Per task key, its version-bumping events (id, kind, actor) in the log's order."""
    rows = db.execute(
        "SELECT t.key, e.id, e.kind, e.actor FROM tasks_event e JOIN tasks_task t "
        f"ON t.id = e.task_id WHERE e.kind IN ({','.join('?' * len(BUMPS))}) ORDER BY e.id",
        BUMPS,
    )
    found: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for key, event_id, kind, actor in rows:
        found[key].append((event_id, kind, actor))
    return found


def check_database(home: Path, acks: list[Ack]) -> int:
    """Check the stored data against the answers; returns how many writes by the writers
    were stored without an answer (the calls in flight at the kill that had committed)."""
    with contextlib.closing(sqlite3.connect(home / "relaybay.sqlite")) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        tasks = {
            key: (title, progress, version)
            for key, title, progress, version in db.execute(
                "SELECT key, title, progress, version FROM tasks_task"
            )
        }
        reports = {body for (body,) in db.execute("SELECT body FROM tasks_report")}
        bumps = bumps_by_task(db)

    # Gap-free: version v of a task is its v-th bumping event, and there is one per version.
    for key, (_, _, version) in tasks.items():
        assert len(bumps[key]) == version, f"{key} is at version {version}: {bumps[key]}"
        assert bumps[key][0][1] == "task.created"

    # Every acknowledged write is there, at the version its answer named, by its writer.
    seen: set[tuple[str, int]] = set()
    for ack in acks:
        assert ack.key in tasks, f"{ack} was answered but its task is missing"
        assert (ack.key, ack.version) not in seen, f"two answers named {ack.key} v{ack.version}"
        seen.add((ack.key, ack.version))
        assert ack.version <= tasks[ack.key][2], f"{ack} is newer than the stored task"
        _, kind, actor = bumps[ack.key][ack.version - 1]
        assert actor == session(ack.client), f"{ack}: version {ack.version} is by {actor}"
        if ack.tool == "task_create":
            assert (kind, tasks[ack.key][0]) == ("task.created", ack.text)
        elif ack.tool == "report_add":
            assert kind == "report.added", ack
            assert ack.text in reports, ack
        else:
            assert kind == "task.updated", ack

    # A task written by one writer only ends at its last answered progress, or one write
    # later (the call in flight at the kill may have committed without its answer).
    last: dict[str, Ack] = {}
    for ack in acks:
        if ack.key != SHARED and ack.tool == "task_update":
            last[ack.key] = ack
    for key, ack in last.items():
        _, progress, version = tasks[key]
        assert version in (ack.version, ack.version + 1), (key, version, ack)
        if version == ack.version:
            assert progress == ack.text, (key, progress, ack)
    by_writers = sum(
        1 for events in bumps.values() for _, _, actor in events if actor.startswith("crash-")
    )
    return by_writers - len(acks)


# --- the test ---------------------------------------------------------------------------------


def test_kill_9_mid_write_loses_no_acknowledged_write_and_the_restart_resyncs(
    tmp_path: Path,
) -> None:
    server = RelaybayServer(
        home=tmp_path / "home", env={"RELAYBAY_HEARTBEAT_SECONDS": str(HEARTBEAT)}
    ).start()
    try:
        asyncio.run(set_up(server))
        with contextlib.closing(sqlite3.connect(server.home / "relaybay.sqlite")) as db:
            (before,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM tasks_event").fetchone()
        follower = Follower(server)
        run = Run()
        ends = asyncio.run(write_and_kill(server, run))
        acks = run.acks
        follower.close()

        # The kill came while every writer was still writing, not after they finished.
        assert len(acks) >= KILL_AFTER
        assert run.in_flight_at_kill >= 1, "no call was waiting for its answer at the kill"
        assert all(end is not None for end in ends), ends

        server.start()  # same data folder, same port: the lock died with the process
        assert server.log().count("already uses the data folder") == 0
        asyncio.run(set_up_after_restart(server))
        last_seen = follower.ids[-1]
        again = Follower(server, last_event_id=last_seen)
        assert again.heartbeat.wait(10), "the replay never ended with a heartbeat"
        again.close()
        replayed = again.ids
    finally:
        server.stop()

    with contextlib.closing(sqlite3.connect(server.home / "relaybay.sqlite")) as db:
        log_ids = [i for (i,) in db.execute("SELECT id FROM tasks_event WHERE id > ?", (before,))]
    assert "resync" not in again.kinds
    assert replayed == sorted(set(replayed))
    assert all(i > last_seen for i in replayed)
    assert sorted({*follower.ids, *replayed}) == log_ids
    assert len(follower.ids) + len(replayed) == len(log_ids), "an event came twice"
    unanswered = check_database(server.home, acks)
    print(
        f"{len(acks)} acknowledged writes, all stored ({run.in_flight_at_kill} calls in flight "
        f"at the kill, {unanswered} of them stored); {len(log_ids)} events since the follower "
        f"connected, {len(replayed)} of them replayed after the restart"
    )


async def set_up_after_restart(server: RelaybayServer) -> None:
    """One write after the restart: the server takes writes again, and the follower's
    replay has an event from either side of the crash."""
    async with mcp_client(server.base_url, server.token) as client:
        result = await client.call_tool(
            "task_update", {"task": SHARED, "next_step": "after the restart", "session": "after"}
        )
        assert not result.is_error, text_of(result)
