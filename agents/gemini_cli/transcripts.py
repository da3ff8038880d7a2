"""Gemini CLI's transcripts (chat files): where they live, what their records hold, one parser.

`<home>/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 chars of the session
id>.jsonl`, where <home> is `$GEMINI_CLI_HOME`, else the user's home. The file is an
append-only log of records, not a list of messages: a record with an `id` is a message,
upserted by id — a `gemini` message (one model response) is written first without, then
again with its `toolCalls`, the same `tokens` both times; `{"$set": {"messages": …}}`
replaces the whole history (at start, at every `--resume`, after a compression) with copies
that carry no tokens and a new time. So a response is counted once, by its id, from its own
record: its time, its model and its `tokens` (`input` holds the cached part, `cached`;
`thoughts` are billed as output, `tool` as input); `$set` is never counted. Side requests
(the model router, a compression) are not in the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from agents.gemini_cli import prices
from agents.gemini_cli.hooks import AGENT
from effort.readers import Found, TranscriptReader
from effort.transcripts import Response, count, digest, mapping, model_name, timestamp

ID_CHARS = 8  # the file's name carries the first 8 characters of the session id


def gemini_line(line: Mapping[str, Any]) -> Response | None:
    """One `gemini` message record's response; None for any other record (a user message,
    `$set`, a header) or one without id, time or tokens."""
    rid, at = line.get("id"), timestamp(line.get("timestamp"))
    tokens = mapping(line.get("tokens"))
    if line.get("type") != "gemini" or not isinstance(rid, str) or not rid or at is None:
        return None
    if not tokens:
        return None
    cached = count(tokens.get("cached"))
    thoughts = count(tokens.get("thoughts"))
    return Response(
        key=digest(AGENT, rid),
        at=at,
        model=model_name(line.get("model")),
        input=max(count(tokens.get("input")) - cached, 0) + count(tokens.get("tool")),
        output=count(tokens.get("output")) + thoughts,
        cache_read=cached,
        reasoning=thoughts,
    )


def parse(lines: Iterable[dict[str, Any]], model: str) -> Iterator[Found]:
    """Every response, once, in order; each record names its model, so `model` is unused.
    A message written again (with its tool calls) adds nothing: across steps the service's
    dedupe keeps the first the same way."""
    keys: set[int] = set()
    for line in lines:
        found = gemini_line(line)
        if found is not None and found.key not in keys:
            keys.add(found.key)
            yield found


def folder(env: Mapping[str, str]) -> str:
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".gemini")


def names_session(parts: tuple[str, ...], session_id: str) -> bool:
    """tmp/<project>/chats/session-…-<first 8 of the id>.jsonl below the Gemini folder."""
    if len(parts) != 4 or parts[0] != "tmp" or parts[2] != "chats" or not session_id:
        return False
    name = parts[3]
    return name.startswith("session-") and name.endswith(f"-{session_id[:ID_CHARS]}.jsonl")


def session_id_of(stem: str) -> str:
    """The file's name carries only the id's first 8 characters: not an id to read by."""
    return ""


READER = TranscriptReader(
    agent=AGENT,
    folder=folder,
    names_session=names_session,
    session_id_of=session_id_of,
    words=(b'"gemini"',),
    parse=parse,
    prices=prices.PRICES,
    prices_as_of=prices.AS_OF,
    lines_doc=(
        "`gemini` message records carry `tokens` (input, output, cached, thoughts, tool) and "
        "the `model` of that response; a message is written again with its tool calls, and "
        "`$set.messages` rewrites the history with copies that carry no tokens, so each "
        "response counts once, by its id, at its own record's time. Gemini counts cached "
        "input inside `input`: relaybay counts it once, as cache read; thoughts count as output."
    ),
    files_doc=(
        "`session-<time>-<first 8 characters of the session id>.jsonl` under "
        "`$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats` (else `~/.gemini/tmp/<project>/chats`)"
    ),
)
