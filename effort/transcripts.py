"""Transcript lines → counts: the model responses of Claude Code and Codex (issue 31).

Pure functions over parsed JSON lines. What comes out are numbers, a model name that passed
a strict pattern, a timestamp and a dedupe key that is hashed before it is stored — never
text from the transcript. Unknown line types and keys are skipped, as are lines whose
numbers are not numbers.

Claude Code: `assistant` lines carry message.id (a response written as several lines
shares it; it is counted once), message.model and message.usage; `cost-state` lines carry
Claude Code's own total for the process so far. An assistant line Claude Code writes itself
(model "<synthetic>", e.g. after an API error, with zero usage) is no model's response: it
is skipped, else it would be a response of an unpriced model and make the cost unknown.

Codex: `turn_context` names the model of the turn. Each response has two lines with its
counts: a `token_usage_record` (`usage`, `thread_token_usage`), written as the response
came, and an `event_msg` of type `token_count` (`info.last_token_usage`,
`info.total_token_usage`), written only after the tool the response called has run — a
response that called task_bind_session would be dated after its binding. Both key the
response by the session's running total, so it counts once, at the time of whichever line
is read first: the record, in the files Codex writes; a token_count where there is none.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import regex

CLAUDE = "claude-code"
CODEX = "codex"
_MODEL = regex.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+/\-\[\]]{0,99}")
UNKNOWN_MODEL = "unknown"
SYNTHETIC = "<synthetic>"  # Claude Code's model name of the lines it writes itself
_MAX_TOKENS = 10**12  # more than any response: a number past it is not a count


@dataclass(frozen=True)
class Response:
    """One model response's token counts (normalised: `input` excludes cached tokens)."""

    key: int  # a 63-bit digest of the agent's response id
    at: datetime
    model: str
    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0
    reasoning: int = 0  # a part of output, told apart


@dataclass(frozen=True)
class ProcessTotal:
    """Claude Code's own cost of one process so far (its `cost-state` line)."""

    started: int
    total_usd: float


def digest(agent: str, response_id: str) -> int:
    """63 bits of blake2b: the key of a response, stored instead of its id."""
    raw = hashlib.blake2b(f"{agent}\0{response_id}".encode(), digest_size=8).digest()
    return int.from_bytes(raw, "big") >> 1


def model_name(value: object) -> str:
    """The model as stored: a plain model name, else "unknown"."""
    if isinstance(value, str) and _MODEL.fullmatch(value):
        return value
    return UNKNOWN_MODEL


def timestamp(value: object) -> datetime | None:
    """An ISO timestamp as an aware UTC datetime; None when it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found.astimezone(UTC) if found.tzinfo else found.replace(tzinfo=UTC)


def count(value: object) -> int:
    """A token count: a non-negative integer, anything else 0."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < _MAX_TOKENS:
        return 0
    return value


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def claude_line(line: dict[str, Any]) -> Response | ProcessTotal | None:
    """A Claude Code transcript line's response or process total; None for anything else."""
    kind = line.get("type")
    if kind == "assistant":
        message = _dict(line.get("message"))
        if message.get("model") == SYNTHETIC or line.get("isApiErrorMessage") is True:
            return None  # Claude Code's own line, not a model's response
        usage = _dict(message.get("usage"))
        response_id, at = message.get("id"), timestamp(line.get("timestamp"))
        if not usage or not isinstance(response_id, str) or not response_id or at is None:
            return None
        details = _dict(usage.get("output_tokens_details"))
        return Response(
            key=digest(CLAUDE, response_id),
            at=at,
            model=model_name(message.get("model")),
            input=count(usage.get("input_tokens")),
            output=count(usage.get("output_tokens")),
            cache_write=count(usage.get("cache_creation_input_tokens")),
            cache_read=count(usage.get("cache_read_input_tokens")),
            reasoning=count(details.get("thinking_tokens")),
        )
    if kind == "cost-state":
        total, started = line.get("totalCostUSD"), line.get("startTime")
        if isinstance(total, bool) or not isinstance(total, int | float) or total < 0:
            return None
        if isinstance(started, bool) or not isinstance(started, int):
            return None
        return ProcessTotal(started=started, total_usd=float(total))
    return None


def codex_model(line: dict[str, Any]) -> str | None:
    """The model a Codex `turn_context` line names for its turn; None for other lines."""
    if line.get("type") != "turn_context":
        return None
    return model_name(_dict(line.get("payload")).get("model"))


def codex_line(line: dict[str, Any], model: str) -> Response | None:
    """A Codex response from its `token_usage_record` or `token_count` line, priced as
    `model` (the turn's); None for other lines."""
    kind, payload = line.get("type"), _dict(line.get("payload"))
    if kind == "token_usage_record":
        last, total = _dict(payload.get("usage")), _dict(payload.get("thread_token_usage"))
    elif kind == "event_msg" and payload.get("type") == "token_count":
        info = _dict(payload.get("info"))
        last, total = _dict(info.get("last_token_usage")), _dict(info.get("total_token_usage"))
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
