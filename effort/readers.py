"""The agents' transcript readers, as effort knows them: effort never names an agent.

Each agent package's transcripts.py holds a `READER` (where its files live, which file is a
session's, which words its counted lines hold, its one parser, its shipped prices and its
lines of docs/effort.md); agents/apps.py registers every one when Django starts. The reader
(reader.py), the path rule (paths.py), the price table (figures.py) and the docs read only
what is registered here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from core.prices import Price
from effort.transcripts import ProcessTotal, Response, TurnModel

Found = Response | ProcessTotal | TurnModel
# (the lines of one step, the turn's model as the last step left it) → what they hold,
# in order; a parser may keep state within the step (Codex counts a response once).
Parse = Callable[[Iterable[dict[str, Any]], str], Iterator[Found]]


@dataclass(frozen=True)
class TranscriptReader:
    """One agent CLI's transcripts."""

    agent: str  # its name in the hook room's registry
    # Its own folder, from the server's environment (the server runs as the user).
    folder: Callable[[Mapping[str, str]], str]
    # Whether the path's parts below that folder are the file it writes for a session id.
    names_session: Callable[[tuple[str, ...], str], bool]
    # The session id a transcript's file name carries ("" when it carries none).
    session_id_of: Callable[[str], str]
    words: tuple[bytes, ...]  # a counted line holds one of these (looked for before parsing)
    parse: Parse
    prices: Mapping[str, Price]  # its models' shipped prices (its prices.py)
    prices_as_of: str
    lines_doc: str  # docs/effort.md "Tokens": what its lines carry
    files_doc: str  # docs/effort.md "Which files are read": which file is a session's
    prices_doc: str = ""  # docs/effort.md "Prices": how its prices were checked, if they were


_readers: dict[str, TranscriptReader] = {}


def register(reader: TranscriptReader) -> None:
    """Add an agent's reader (agents/apps.py, in ready(); again is a no-op)."""
    _readers.setdefault(reader.agent, reader)


def reader_of(agent: str) -> TranscriptReader | None:
    """The reader of the agent's transcripts, or None for an agent without one."""
    return _readers.get(agent)


def every() -> tuple[TranscriptReader, ...]:
    """Every registered reader, in the order they were registered."""
    return tuple(_readers.values())


def shipped_prices() -> dict[str, Price]:
    """Every agent's shipped prices, one table (config.toml's `[prices]` goes over it)."""
    table: dict[str, Price] = {}
    for reader in _readers.values():
        table.update(reader.prices)
    return table


def prices_date() -> str:
    """The date of the newest shipped price list."""
    return max((reader.prices_as_of for reader in _readers.values()), default="")
