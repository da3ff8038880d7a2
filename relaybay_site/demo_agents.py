"""The demo's Codex and Gemini CLI sessions: the board shows every agent it supports.

Two named sessions bound to tasks (demo_data.CODEX_SESSION, GEMINI_SESSION; their scenes link
their agent's id with hook_session, as an agent does) report a few hook events through their
own agent's adapter and the hook service, as a real Codex and Gemini CLI would: the Codex
session works on its task, the Gemini one waits on a confirmation in its terminal. Their
effort comes from a transcript in their own agent's format, written under the demo's folder
(`<data folder>/demo-agents/codex/sessions/…`, `…/gemini/tmp/<project>/chats/…`) and counted
by the effort service with those folders as the agents' own, priced by their packages'
prices. Made-up ids and numbers in the shapes of the Codex 0.169.0 and Gemini CLI 0.61.0
captures: never a real transcript, and the same on every run but for the times.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from relaybay_site.demo_data import (
    CODEX_HOOK_SESSION,
    CODEX_SESSION,
    GEMINI_HOOK_SESSION,
    GEMINI_SESSION,
    REPO_PATH,
)

CODEX_MODEL = "gpt-5.5"  # priced by agents/codex/prices.py ("gpt-5*")
GEMINI_MODEL = "gemini-2.5-pro"  # priced by agents/gemini_cli/prices.py
GEMINI_CWD = "/home/dev/demo-api"  # the API's checkout (the project names no folder)
GEMINI_WAITS_ON = "curl -sI https://gateway.demo-api.example/v1/limits"
RESPONSES = {CODEX_SESSION: 36, GEMINI_SESSION: 22}


@dataclass(frozen=True)
class Agent:
    """One demo session's agent: its package's adapter, its folder under the demo's and how
    it writes its transcript and hook inputs."""

    name: str  # the agent's package NAME (Session.agent)
    parse: Callable[..., Any]  # its adapter's parse: hook input in, a neutral event out
    session: str  # the named session it reports for
    transcript: Callable[[Path, datetime], Path]  # the file's path, from its folder and start
    lines: Callable[[random.Random, int, datetime], list[dict[str, Any]]]
    payloads: Callable[[str], list[dict[str, Any]]]  # its hook inputs, given the transcript


def seed(home: Path) -> None:
    """The Codex and Gemini sessions' hooks, transcripts and counted effort."""
    from effort.paths import Roots
    from effort.services import transcript_read
    from sessions.hooks import activity, service
    from sessions.models import TaskBinding

    agents = _agents()
    roots = Roots({a.name: str(home / "demo-agents" / a.name) for a in agents})
    for index, agent in enumerate(agents):
        binding = (
            TaskBinding.objects.filter(unbound_at__isnull=True, session__name=agent.session)
            .select_related("session")
            .get()
        )
        path = agent.transcript(Path(roots.folder(agent.name)), binding.bound_at)
        path.parent.mkdir(parents=True, exist_ok=True)
        rng = random.Random(100 + index)  # noqa: S311 - made-up demo numbers, the same every run
        lines = agent.lines(rng, RESPONSES[agent.session], binding.bound_at)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        for payload in agent.payloads(str(path)):
            event = agent.parse(payload, {})
            if event is not None:
                service.hook_event(event)
        # A working session's activity is written at most every 5 s (the latest wins): write
        # the held one now, as the server does when it stops.
        activity.flush_pending_activity(all_of_them=True)
        while transcript_read(session_id=binding.session_id, roots=roots).more:
            pass


def _agents() -> tuple[Agent, ...]:
    from agents.codex import hooks as codex
    from agents.gemini_cli import hooks as gemini

    return (
        Agent(codex.AGENT, codex.parse, CODEX_SESSION, _codex_path, _codex_lines, _codex_hooks),
        Agent(
            gemini.AGENT, gemini.parse, GEMINI_SESSION, _gemini_path, _gemini_lines, _gemini_hooks
        ),
    )


def _times(since: datetime, count: int) -> list[datetime]:
    """`count` moments spread between `since` and now (the task bound before the first)."""
    from django.utils import timezone

    now = timezone.now()
    return [since + (now - since) * ((n + 0.5) / count) for n in range(count)]


def _stamp(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- Codex: a rollout file and its hooks ----------------------------------------------


def _codex_path(folder: Path, started: datetime) -> Path:
    day = started.strftime("%Y/%m/%d")
    name = f"rollout-{started.strftime('%Y-%m-%dT%H-%M-%S')}-{CODEX_HOOK_SESSION}.jsonl"
    return folder / "sessions" / day / name


def _codex_lines(rng: random.Random, count: int, since: datetime) -> list[dict[str, Any]]:
    """A `turn_context` naming the model every few responses, and a `token_usage_record` per
    response with the thread's running total (what Codex's reader counts)."""
    total = dict.fromkeys(("input", "cached", "output", "reasoning", "all"), 0)
    lines: list[dict[str, Any]] = []
    for n, at in enumerate(_times(since, count)):
        if n % 6 == 0:
            payload = {"turn_id": f"demo-turn-{n:03d}", "cwd": REPO_PATH, "model": CODEX_MODEL}
            lines.append({"timestamp": _stamp(at), "type": "turn_context", "payload": payload})
        cached = rng.randint(12_000, 70_000)
        usage = {
            "input_tokens": cached + rng.randint(200, 4000),
            "cached_input_tokens": cached,
            "cache_write_input_tokens": 0,
            "output_tokens": rng.randint(80, 1600),
            "reasoning_output_tokens": rng.randint(0, 600),
        }
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        for key, kind in (
            ("input_tokens", "input"),
            ("cached_input_tokens", "cached"),
            ("output_tokens", "output"),
            ("reasoning_output_tokens", "reasoning"),
            ("total_tokens", "all"),
        ):
            total[kind] += usage[key]
        running = {
            "input_tokens": total["input"],
            "cached_input_tokens": total["cached"],
            "cache_write_input_tokens": 0,
            "output_tokens": total["output"],
            "reasoning_output_tokens": total["reasoning"],
            "total_tokens": total["all"],
        }
        record = {
            "thread_id": CODEX_HOOK_SESSION,
            "session_id": CODEX_HOOK_SESSION,
            "response_id": f"resp_demo{rng.getrandbits(64):016x}",
            "usage": usage,
            "thread_token_usage": running,
        }
        lines.append({"timestamp": _stamp(at), "type": "token_usage_record", "payload": record})
    return lines


def _codex_hooks(transcript: str) -> list[dict[str, Any]]:
    """A Codex session picking its task up again: the start, the prompt and a test run."""
    base = {
        "session_id": CODEX_HOOK_SESSION,
        "transcript_path": transcript,
        "cwd": REPO_PATH,
        "model": CODEX_MODEL,
        "permission_mode": "default",
    }
    turn = {"turn_id": "demo-turn-036"}
    command = "pytest tests/test_saved_carts.py -q"
    return [
        {**base, "hook_event_name": "SessionStart", "source": "resume"},
        {
            **base,
            **turn,
            "hook_event_name": "UserPromptSubmit",
            "prompt": "Merge the guest cart on sign-in, then run the cart tests.",
        },
        {
            **base,
            **turn,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": "14 passed in 2.31s\n",
            "tool_use_id": "call_demo0000000000000001",
        },
    ]


# --- Gemini CLI: a chat file and its hooks ----------------------------------------------


def _gemini_path(folder: Path, started: datetime) -> Path:
    name = f"session-{started.strftime('%Y-%m-%dT%H-%M')}-{GEMINI_HOOK_SESSION[:8]}.jsonl"
    return folder / "tmp" / Path(GEMINI_CWD).name / "chats" / name


def _gemini_lines(rng: random.Random, count: int, since: datetime) -> list[dict[str, Any]]:
    """The file's header, then a user message and the model's response (written again with
    its tool call, as Gemini does) per turn: the reader counts each response once."""
    lines: list[dict[str, Any]] = [
        {
            "sessionId": GEMINI_HOOK_SESSION,
            "projectHash": f"{rng.getrandbits(128):032x}",
            "startTime": _stamp(since),
            "lastUpdated": _stamp(since),
            "kind": "main",
        }
    ]
    for n, at in enumerate(_times(since, count)):
        lines.append({"id": f"demo-user-{n:03d}", "timestamp": _stamp(at), "type": "user"})
        tokens = {
            "input": rng.randint(8_000, 60_000),
            "output": rng.randint(60, 1400),
            "thoughts": rng.randint(0, 900),
            "tool": rng.choice((0, 0, rng.randint(100, 2000))),
        }
        tokens["cached"] = rng.choice((0, tokens["input"] // 2, tokens["input"] * 3 // 4))
        tokens["total"] = tokens["input"] + tokens["output"] + tokens["thoughts"] + tokens["tool"]
        response = {
            "id": f"demo-gemini-{rng.getrandbits(64):016x}",
            "timestamp": _stamp(at),
            "type": "gemini",
            "content": "(demo)",
            "thoughts": [],
            "tokens": tokens,
            "model": GEMINI_MODEL,
        }
        lines.append(response)
        if n % 3 == 0:  # written again with its tool call: the same tokens, counted once
            call = {"id": f"read_file_demo_{n}", "name": "read_file", "status": "success"}
            lines.append({**response, "toolCalls": [call]})
        lines.append({"$set": {"lastUpdated": _stamp(at)}})
    return lines


def _gemini_hooks(transcript: str) -> list[dict[str, Any]]:
    """A Gemini session in its terminal: the start, the prompt, a file read and then the
    confirmation it waits on (a shell command the owner has to allow there)."""
    from django.utils import timezone

    base = {
        "session_id": GEMINI_HOOK_SESSION,
        "transcript_path": transcript,
        "cwd": GEMINI_CWD,
        "timestamp": _stamp(timezone.now()),
    }
    return [
        {**base, "hook_event_name": "SessionStart", "source": "startup"},
        {
            **base,
            "hook_event_name": "BeforeAgent",
            "prompt": "Check how the gateway counts requests per key, then plan the limits.",
        },
        {
            **base,
            "hook_event_name": "AfterTool",
            "tool_name": "read_file",
            "tool_input": {"file_path": "docs/gateway.md"},
            "tool_response": {"llmContent": "# Gateway\n\nCounts per header.\n"},
        },
        _gemini_confirmation(base),
    ]


def _gemini_confirmation(base: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **base,
        "hook_event_name": "Notification",
        "notification_type": "ToolPermission",
        "message": "Tool Confirm Shell Command requires execution",
        "details": {
            "type": "exec",
            "title": "Confirm Shell Command",
            "command": GEMINI_WAITS_ON,
            "rootCommand": "curl",
        },
    }
