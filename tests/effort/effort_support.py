"""Sessions with real transcripts for the effort tests (issue 31): made through the hooks
and the services, the transcript a file in a throwaway Claude Code configuration folder."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from agents.claude_code import hooks as claude_code
from effort.paths import Roots
from sessions import services
from sessions.hooks import activity
from sessions.models import Session
from tasks.models import Task


def roots_in(folder: Path) -> Roots:
    """A Claude Code configuration folder and a Codex home inside `folder`."""
    return Roots({"claude-code": str(folder / "claude"), "codex": str(folder / "codex")})


def claude_session(name: str, roots: Roots, *, cwd: str = "/home/dev/acme-shop") -> Session:
    """The named session `name` whose agent linked a Claude Code id, and whose hooks named
    its transcript (empty until `say` writes to it)."""
    agent_id = str(uuid.uuid4())
    services.session_touch(session=name, hook_session=agent_id, actor="tester")
    path = (
        Path(roots.folder("claude-code")) / "projects" / "-home-dev-acme-shop" / f"{agent_id}.jsonl"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    activity.activity_clock.clear()
    body = {
        "session_id": agent_id,
        "hook_event_name": "UserPromptSubmit",
        "cwd": cwd,
        "transcript_path": str(path),
        "prompt": "go on",
    }
    session = claude_code.hook_event(payload=body).session
    assert session is not None
    assert session.name == name
    assert (session.agent, session.transcript_path) == ("claude-code", str(path))
    return session


def codex_session(name: str, roots: Roots, rollout: Path) -> Session:
    """The named session `name` linked to a Codex thread whose rollout is a copy of the
    captured `rollout` under the Codex home, named as its hooks name it (the hook room's
    part is tested with the adapters: here only the counting is)."""
    thread = str(uuid.uuid4())
    services.session_touch(session=name, hook_session=thread, actor="tester")
    folder = Path(roots.folder("codex")) / "sessions" / "2026" / "12" / "05"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-12-05T21-58-54-{thread}.jsonl"
    path.write_bytes(rollout.read_bytes())
    Session.objects.filter(name=name).update(agent="codex", transcript_path=str(path))
    session = Session.objects.get(name=name)
    assert session.agent_session_id == thread
    return session


def assistant(
    message_id: str,
    at: datetime,
    *,
    model: str = "claude-opus-5-5",
    input_: int = 100,
    output: int = 20,
    cache_write: int = 0,
    cache_read: int = 0,
) -> dict[str, Any]:
    """An `assistant` line as Claude Code 2.1.332 writes it (the shape of the fixtures)."""
    return {
        "type": "assistant",
        "timestamp": at.isoformat().replace("+00:00", "Z"),
        "message": {
            "id": message_id,
            "model": model,
            "role": "assistant",
            "content": [{"type": "text", "text": "prose that is never stored"}],
            "usage": {
                "input_tokens": input_,
                "output_tokens": output,
                "cache_creation_input_tokens": cache_write,
                "cache_read_input_tokens": cache_read,
                "output_tokens_details": {"thinking_tokens": 0},
            },
        },
    }


CAPTURED = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "claude-code-2.1.332"
    / "transcripts"
    / "print-mode-mcp-calls.jsonl"
)


def captured_assistant(nth: int, at: datetime) -> dict[str, Any]:
    """The `nth` assistant line Claude Code 2.1.332 really wrote (a model's response), as
    written but for its `timestamp`, moved to `at`."""
    lines = [json.loads(raw) for raw in CAPTURED.read_text().splitlines()]
    line = [x for x in lines if x.get("type") == "assistant"][nth]
    return {**line, "timestamp": at.isoformat().replace("+00:00", "Z")}


def api_error(line: dict[str, Any]) -> dict[str, Any]:
    """What Claude Code writes itself after an HTTP error, made from a real assistant line
    with only the fields that tell it apart changed: `message.model` "<synthetic>",
    `isApiErrorMessage` true and every usage count 0 (its id stays the line's own)."""
    message = dict(line["message"])
    usage = {k: 0 if isinstance(v, int) else v for k, v in message["usage"].items()}
    usage["output_tokens_details"] = {"thinking_tokens": 0}
    message.update(model="<synthetic>", usage=usage)
    return {**line, "message": message, "isApiErrorMessage": True}


def say(session: Session, *lines: dict[str, Any] | str) -> None:
    """Append lines to the session's transcript, as the agent would."""
    with open(session.transcript_path, "a", encoding="utf-8") as handle:
        for line in lines:
            handle.write((line if isinstance(line, str) else json.dumps(line)) + "\n")


def bind(task: Task, session: Session) -> None:
    services.task_bind_session(task=task, session=session.name, actor="tester")


def counted(session: Session, roots: Roots) -> None:
    """Read the session's transcript to its end, step by step, as the worker would."""
    from effort import services as effort

    while effort.transcript_read(session_id=session.id, roots=roots).more:
        pass
