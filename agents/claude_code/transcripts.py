"""Claude Code's transcripts: where they live, what their lines hold, and one parser.

`<config>/projects/<folder>/<session_id>.jsonl`, where <config> is `$CLAUDE_CONFIG_DIR`,
else `~/.claude`. `assistant` lines carry message.id (a response written as several lines
shares it; it is counted once), message.model and message.usage; `cost-state` lines carry
Claude Code's own total for the process so far. An assistant line Claude Code writes itself
(model "<synthetic>", e.g. after an API error, with zero usage) is no model's response: it
is flagged synthetic and never counted, else it would be a response of an unpriced model and
make the cost unknown.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from agents.claude_code import prices
from agents.claude_code.hooks import AGENT
from effort.readers import Found, TranscriptReader
from effort.transcripts import ProcessTotal, Response, count, digest, mapping, model_name, timestamp

CLAUDE = AGENT
SYNTHETIC = "<synthetic>"  # Claude Code's model name of the lines it writes itself


def record(line: dict[str, Any]) -> Response | ProcessTotal | None:
    """A line's response (flagged synthetic when Claude Code wrote it itself) or process
    total; None for anything else."""
    kind = line.get("type")
    if kind == "assistant":
        message = mapping(line.get("message"))
        usage = mapping(message.get("usage"))
        response_id, at = message.get("id"), timestamp(line.get("timestamp"))
        if not usage or not isinstance(response_id, str) or not response_id or at is None:
            return None
        details = mapping(usage.get("output_tokens_details"))
        return Response(
            key=digest(CLAUDE, response_id),
            at=at,
            model=model_name(message.get("model")),
            input=count(usage.get("input_tokens")),
            output=count(usage.get("output_tokens")),
            cache_write=count(usage.get("cache_creation_input_tokens")),
            cache_read=count(usage.get("cache_read_input_tokens")),
            reasoning=count(details.get("thinking_tokens")),
            synthetic=message.get("model") == SYNTHETIC or line.get("isApiErrorMessage") is True,
        )
    if kind == "cost-state":
        total, started = line.get("totalCostUSD"), line.get("startTime")
        if isinstance(total, bool) or not isinstance(total, int | float) or total < 0:
            return None
        if isinstance(started, bool) or not isinstance(started, int):
            return None
        return ProcessTotal(started=started, total_usd=float(total))
    return None


def claude_line(line: dict[str, Any]) -> Response | ProcessTotal | None:
    """A line's counted response or process total; None for anything else, a synthetic
    line included."""
    found = record(line)
    return None if isinstance(found, Response) and found.synthetic else found


def parse(lines: Iterable[dict[str, Any]], model: str) -> Iterator[Found]:
    """Every line's record, in order (a response written twice comes twice: the service
    counts each key once). Claude Code names the model on each line: `model` is unused."""
    for line in lines:
        found = record(line)
        if found is not None:
            yield found


def folder(env: Mapping[str, str]) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")


def names_session(parts: tuple[str, ...], session_id: str) -> bool:
    """projects/<folder>/<session_id>.jsonl below the configuration folder."""
    return len(parts) == 3 and parts[0] == "projects" and parts[2] == f"{session_id}.jsonl"


READER = TranscriptReader(
    agent=CLAUDE,
    folder=folder,
    names_session=names_session,
    session_id_of=lambda stem: stem,
    words=(b"assistant", b"cost-state"),
    parse=parse,
    prices=prices.PRICES,
    prices_as_of=prices.AS_OF,
    lines_doc=(
        "`assistant` lines carry `message.id`, `message.model` and "
        "`message.usage` (input, output, cache write, cache read, thinking); a response "
        "written as several lines shares its id and is counted once. `cost-state` lines "
        "carry Claude Code's own total per process: shown beside relaybay's figure for the "
        "same session (they should agree). A line Claude Code writes itself (`message.model` "
        "`<synthetic>`, e.g. after an API error, with no tokens) is no model's response and "
        "is skipped."
    ),
    files_doc=(
        "`<session_id>.jsonl` in a folder of `projects` in its "
        "configuration folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`)"
    ),
    prices_doc=(
        "`claude-opus-*` was checked against Claude Code's own total (its `cost-state` line: "
        "900 input and 180 output tokens of claude-opus-5-5 cost $0.0072)"
    ),
)
