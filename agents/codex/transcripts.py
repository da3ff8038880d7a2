"""Codex's transcripts (rollout files): where they live, what their lines hold, one parser.

`<home>/sessions/…/rollout-<local time>-<session_id>.jsonl`, where <home> is `$CODEX_HOME`,
else `~/.codex`. `turn_context` names the model of the turn. Each response has two lines with
its counts: a `token_usage_record` (`usage`, `thread_token_usage`), written as the response
came, and an `event_msg` of type `token_count` (`info.last_token_usage`,
`info.total_token_usage`), written only after the tool the response called has run — a
response that called task_bind_session would be dated after its binding. Both key the
response by the session's running total, so it counts once, at the time of whichever line
is read first: the record, in the files Codex writes; a token_count where there is none.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from agents.codex import prices
from agents.codex.hooks import AGENT
from effort.readers import Found, TranscriptReader
from effort.transcripts import (
    UNKNOWN_MODEL,
    Response,
    TurnModel,
    count,
    digest,
    mapping,
    model_name,
    timestamp,
)

CODEX = AGENT


def codex_model(line: dict[str, Any]) -> str | None:
    """The model a Codex `turn_context` line names for its turn; None for other lines."""
    if line.get("type") != "turn_context":
        return None
    return model_name(mapping(line.get("payload")).get("model"))


def codex_line(line: dict[str, Any], model: str) -> Response | None:
    """A Codex response from its `token_usage_record` or `token_count` line, priced as
    `model` (the turn's); None for other lines."""
    kind, payload = line.get("type"), mapping(line.get("payload"))
    if kind == "token_usage_record":
        last, total = mapping(payload.get("usage")), mapping(payload.get("thread_token_usage"))
    elif kind == "event_msg" and payload.get("type") == "token_count":
        info = mapping(payload.get("info"))
        last, total = mapping(info.get("last_token_usage")), mapping(info.get("total_token_usage"))
    else:
        return None
    at = timestamp(line.get("timestamp"))
    running = count(total.get("total_tokens"))
    if not last or at is None or not running:
        return None
    cached = count(last.get("cached_input_tokens"))
    return Response(
        key=digest(CODEX, f"total:{running}"),
        at=at,
        model=model or UNKNOWN_MODEL,
        input=max(count(last.get("input_tokens")) - cached, 0),
        output=count(last.get("output_tokens")),
        cache_write=count(last.get("cache_write_input_tokens")),
        cache_read=cached,
        reasoning=count(last.get("reasoning_output_tokens")),
    )


def parse(lines: Iterable[dict[str, Any]], model: str) -> Iterator[Found]:
    """The turns' models and the responses, in order, starting in the turn of `model`. A
    response's second line adds nothing: it is counted at its first line's time. Across
    steps the service's dedupe keeps the first the same way."""
    keys: set[int] = set()
    for line in lines:
        named = codex_model(line)
        if named is not None:
            model = named
            yield TurnModel(named)
        elif (response := codex_line(line, model)) is not None and response.key not in keys:
            keys.add(response.key)
            yield response


def folder(env: Mapping[str, str]) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    return env.get("CODEX_HOME") or os.path.join(home, ".codex")


def names_session(parts: tuple[str, ...], session_id: str) -> bool:
    """sessions/…/rollout-…-<session_id>.jsonl below the Codex home, at most four deep."""
    name = parts[-1] if parts else ""
    return (
        2 <= len(parts) <= 6
        and parts[0] == "sessions"
        and name.startswith("rollout-")
        and name.endswith(f"-{session_id}.jsonl")
    )


def session_id_of(stem: str) -> str:
    """rollout-<local time>-<uuid>: the id is the last five dash-separated groups."""
    if not stem.startswith("rollout-"):
        return ""
    groups = stem.split("-")
    return "-".join(groups[-5:]) if len(groups) > 6 else ""


READER = TranscriptReader(
    agent=CODEX,
    folder=folder,
    names_session=names_session,
    session_id_of=session_id_of,
    words=(b"token_count", b"token_usage_record", b"turn_context"),
    parse=parse,
    prices=prices.PRICES,
    prices_as_of=prices.AS_OF,
    lines_doc=(
        "`token_usage_record` lines carry `usage` (this response) and the "
        "session's running total, which keys the response; the model is the one its turn's "
        "`turn_context` names. A response is dated by that line, written as the response "
        "came — its `token_count` line (the same counts) comes only after the tool it called "
        "has run, and is read only where a response has no record. Codex counts cached input "
        "inside `input_tokens`: relaybay counts it once, as cache read."
    ),
    files_doc=(
        "`rollout-…-<session_id>.jsonl` under `$CODEX_HOME/sessions` (else `~/.codex/sessions`)"
    ),
)
