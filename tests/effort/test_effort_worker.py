"""The transcript reader's queue and the live notice's throttle (issue 31): pokes of one
session fold into one read, a backlog goes to the back of the line, and however fast tokens
arrive a task gets one notice at once and one more when the interval is over."""

from __future__ import annotations

import threading
import time

from effort.notify import Throttle
from effort.services import ReadResult
from effort.worker import Reader


def test_pokes_fold_and_a_backlog_waits_behind_the_others() -> None:
    order: list[int] = []
    told: list[set[int]] = []
    gate = threading.Event()
    backlog = {1: 3}  # session 1 needs three steps

    def read(session_id: int) -> ReadResult:
        gate.wait(5)
        order.append(session_id)
        left = backlog.get(session_id, 1) - 1
        backlog[session_id] = left
        return ReadResult(task_ids={session_id * 10}, responses=1, more=left > 0)

    reader = Reader(read=read, told=told.append)
    for session_id in (1, 1, 2, 1, 3, 2):
        reader.poke(session_id)
    gate.set()
    assert reader.idle.wait(5)

    # each session read as often as it had steps, however often it was poked …
    assert sorted(order) == [1, 1, 1, 2, 3]
    # … and 1's backlog waited behind the others (the first read of 1 may have begun before
    # the other pokes came, so only its last step is surely behind them)
    assert order[-1] == 1
    assert order.index(2) < len(order) - 1
    assert order.index(3) < len(order) - 1
    assert sorted(map(sorted, told)) == [[10], [10], [10], [20], [30]]
    assert (reader.steps, reader.responses) == (5, 5)


def test_a_failing_read_is_logged_and_the_others_go_on(caplog) -> None:
    def read(session_id: int) -> ReadResult:
        if session_id == 1:
            raise OSError("gone")
        return ReadResult(task_ids={2})

    told: list[set[int]] = []
    reader = Reader(read=read, told=told.append)
    reader.poke(1)
    reader.poke(2)
    assert reader.idle.wait(5)

    assert told == [{2}]
    assert "reading the transcript of session 1 failed" in caplog.text


def test_the_throttle_sends_one_at_once_and_folds_the_rest_into_one_later() -> None:
    sent: list[tuple[object, float]] = []
    done = threading.Event()

    def send(key: object) -> None:
        sent.append((key, time.monotonic()))
        if len(sent) == 3:
            done.set()

    throttle = Throttle(send, interval=0.3)
    began = time.monotonic()
    for _ in range(50):  # a burst of tokens on task a
        throttle("a")
    throttle("b")  # another task is not held up by a's

    assert [k for k, _ in sent] == ["a", "b"]
    assert done.wait(5)
    assert [k for k, _ in sent] == ["a", "b", "a"]
    assert sent[2][1] - began >= 0.29  # the folded one after the interval, not before
    time.sleep(0.4)
    assert len(sent) == 3  # nothing more was owed
