"""fakecli's transcripts: a format of its own, so effort's reader is proved to name no agent.

`<home>/logs/<sid>.jsonl`, where <home> is `$FAKECLI_HOME`, else `~/.fakecli`. Each line is
{"t": ISO time, "what": "answer" | "said", …}; an `answer` line is one model response:
{"rid": its id, "brain": the model, "spent": {"in", "out", "think", "memo_hit",
"memo_put"}} (`in` excludes the cached tokens, `memo_hit`; `think` is a part of `out`).
`said` lines hold text and are never counted.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from effort.readers import Found, TranscriptReader
from effort.transcripts import Response, count, digest, mapping, model_name, timestamp
from tests.fake_agent import prices
from tests.fake_agent.hooks import AGENT

FOLDER_VARIABLE = "FAKECLI_HOME"


def answer(line: dict[str, Any]) -> Response | None:
    """An `answer` line's response; None for any other line or one without id or time."""
    rid, at = line.get("rid"), timestamp(line.get("t"))
    if line.get("what") != "answer" or not isinstance(rid, str) or not rid or at is None:
        return None
    spent = mapping(line.get("spent"))
    return Response(
        key=digest(AGENT, rid),
        at=at,
        model=model_name(line.get("brain")),
        input=count(spent.get("in")),
        output=count(spent.get("out")),
        cache_write=count(spent.get("memo_put")),
        cache_read=count(spent.get("memo_hit")),
        reasoning=count(spent.get("think")),
    )


def parse(lines: Iterable[dict[str, Any]], model: str) -> Iterator[Found]:
    """Every answer, in order; each line names its model, so `model` is unused."""
    for line in lines:
        found = answer(line)
        if found is not None:
            yield found


def folder(env: Mapping[str, str]) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    return env.get(FOLDER_VARIABLE) or os.path.join(home, ".fakecli")


def names_session(parts: tuple[str, ...], session_id: str) -> bool:
    """logs/<sid>.jsonl right below fakecli's home, nothing deeper."""
    return parts == ("logs", f"{session_id}.jsonl")


READER = TranscriptReader(
    agent=AGENT,
    folder=folder,
    names_session=names_session,
    session_id_of=lambda stem: stem,
    words=(b"answer",),
    parse=parse,
    prices=prices.PRICES,
    prices_as_of=prices.AS_OF,
    lines_doc="`answer` lines carry `rid`, `brain` and `spent` (in, out, think, memo_hit).",
    files_doc="`logs/<sid>.jsonl` in `$FAKECLI_HOME` (else `~/.fakecli`)",
)
