"""One bounded step of reading a transcript: on from where the last step ended.

A step reads at most `limit` bytes (1 MB) of complete lines; a half-written last line is
left for the next step. A file that shrank, or another file under the name (device and
inode differ), is read again from the start; the responses already seen keep that from
counting twice. Lines that are not JSON objects are skipped, as are all line types that do
not carry counts — before parsing, by a look for the words those lines must hold.

The file is opened by `opener` only (tests hand in one that records every call), without
following a symlink.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO

from effort import readers
from effort.transcripts import ProcessTotal, Response, TurnModel

STEP_BYTES = 1_000_000
LINE_MAX = 64_000_000  # a line longer than this is given up (its tail then fails to parse)

Opener = Callable[[str], BinaryIO]


def open_plain(path: str) -> BinaryIO:
    """Open for reading without following a symlink at the last step."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    return os.fdopen(fd, "rb")


@dataclass(frozen=True)
class Cursor:
    """Where a transcript's reading stands."""

    path: str = ""
    device: int = 0
    inode: int = 0
    offset: int = 0
    model: str = ""  # the model of the turn being read, for an agent that names it per turn


@dataclass
class Step:
    """What one step found, and the cursor after it."""

    cursor: Cursor
    responses: list[Response] = field(default_factory=list)
    totals: list[ProcessTotal] = field(default_factory=list)
    more: bool = False  # complete lines remain past this step
    restarted: bool = False  # the file was read again from the start


def read_step(
    agent: str,
    path: str,
    cursor: Cursor,
    *,
    limit: int = STEP_BYTES,
    opener: Opener = open_plain,
) -> Step:
    """Read the complete lines after `cursor` (at most `limit` bytes of them)."""
    with opener(path) as handle:
        info = os.fstat(handle.fileno())
        same = (path, info.st_dev, info.st_ino) == (cursor.path, cursor.device, cursor.inode)
        restarted = not same or info.st_size < cursor.offset
        if restarted:
            cursor = Cursor(path=path, device=info.st_dev, inode=info.st_ino)
        handle.seek(cursor.offset)
        data = handle.read(limit)
        end = data.rfind(b"\n")
        while end < 0 and data and len(data) < LINE_MAX:  # one line longer than a step
            more_data = handle.read(limit)
            if not more_data:
                break
            data += more_data
            end = data.rfind(b"\n")
    if end < 0 and len(data) < LINE_MAX:  # nothing complete yet: a half line waits
        return Step(cursor=cursor, restarted=restarted)
    used = end + 1 if end >= 0 else len(data)
    step = Step(cursor=cursor, restarted=restarted)
    model = _read_lines(agent, memoryview(data)[:used], step, cursor.model)
    step.cursor = replace(cursor, offset=cursor.offset + used, model=model)
    step.more = step.cursor.offset < info.st_size
    return step


def _read_lines(agent: str, data: memoryview, step: Step, model: str) -> str:
    """Hand the step's JSON-object lines that hold one of the agent's words to its parser
    (its package's transcripts.py); a synthetic response is no model's and is dropped."""
    reader = readers.reader_of(agent)
    if reader is None:
        return model
    for found in reader.parse(_objects(bytes(data), reader.words), model):
        if isinstance(found, TurnModel):
            model = found.name
        elif isinstance(found, Response):
            if not found.synthetic:
                step.responses.append(found)
        elif isinstance(found, ProcessTotal):
            step.totals.append(found)
    return model


def _objects(data: bytes, words: tuple[bytes, ...]) -> Iterator[dict[str, Any]]:
    for raw in data.split(b"\n"):
        if not raw or not any(word in raw for word in words):
            continue
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, or nested past reason
            continue
        if isinstance(line, dict):
            yield line
