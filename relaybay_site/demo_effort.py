"""The demo's effort: a transcript per demo session that works on a task.

Each session bound to a task (but the Codex and Gemini ones of demo_agents.py, which write
their own) gets a Claude Code transcript in the demo's own folder
(`<data folder>/demo-agents/claude/projects/…`) and one PostToolUse hook naming it, as
Claude Code would; the lines are counted by the same service the hooks trigger, given the
demo's folder as the agent's. The responses fall between the task's binding and now, so the
Effort page and charts have data from the first look. Made-up numbers, in the shapes of the
Claude Code 2.1.332 captures: never a real transcript.
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from core import prices
from core.actor import OWNER
from effort import readers
from relaybay_site.demo_data import REPO_PATH

# The session's model and how many responses it wrote: the busy one writes more.
MODELS = ("claude-opus-5-5", "claude-sonnet-4-5", "claude-opus-5-5", "claude-haiku-4-5")
RESPONSES = (64, 41, 27, 12)


def seed(home: Path) -> None:
    """Write, link and count a transcript for every session bound to a task."""
    from agents.claude_code.hooks import AGENT, hook_event
    from effort.paths import Roots
    from effort.services import transcript_read
    from sessions import services as session_services
    from sessions.models import TaskBinding

    roots = Roots({AGENT: str(home / "demo-agents" / "claude")})
    folder = Path(roots.folder(AGENT)) / "projects" / REPO_PATH.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    bindings = TaskBinding.objects.filter(unbound_at__isnull=True).select_related("session")
    for index, binding in enumerate(bindings.order_by("id")):
        session = binding.session
        if session.agent not in ("", AGENT):
            continue  # another agent's session: demo_agents wrote its own transcript
        agent_id = session.agent_session_id
        if not agent_id:
            agent_id = str(uuid.uuid4())
            session_services.session_touch(session=session.name, hook_session=agent_id, actor=OWNER)
        path = folder / f"{agent_id}.jsonl"
        rng = random.Random(index)  # noqa: S311 - made-up demo numbers, the same every run
        lines = _lines(rng, MODELS[index % 4], RESPONSES[index % 4], binding.bound_at)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        hook_event(payload=_post_tool(agent_id, str(path)))
        while transcript_read(session_id=session.id, roots=roots).more:
            pass


def _post_tool(agent_id: str, path: str) -> dict[str, Any]:
    return {
        "session_id": agent_id,
        "transcript_path": path,
        "cwd": REPO_PATH,
        "hook_event_name": "PostToolUse",
        "permission_mode": "default",
        "tool_name": "Read",
        "tool_input": {"file_path": f"{REPO_PATH}/README.md"},
        "tool_response": {"type": "text"},
        "tool_use_id": f"toolu_demo{uuid.uuid4().hex[:20]}",
    }


def _lines(rng: random.Random, model: str, count: int, since: datetime) -> list[dict[str, Any]]:
    """`count` responses between `since` and now, and Claude Code's own total at the end."""
    from django.utils import timezone

    usage: dict[str, int] = dict.fromkeys(prices.KINDS, 0)
    lines = []
    for n in range(count):
        at = since + (timezone.now() - since) * ((n + 0.5) / count)
        tokens = {
            "input_tokens": rng.randint(4, 60),
            "cache_creation_input_tokens": rng.choice((0, 0, 0, rng.randint(800, 6000))),
            "cache_read_input_tokens": rng.randint(18_000, 90_000),
            "output_tokens": rng.randint(60, 1800),
        }
        usage["input"] += tokens["input_tokens"]
        usage["output"] += tokens["output_tokens"]
        usage["cache_write"] += tokens["cache_creation_input_tokens"]
        usage["cache_read"] += tokens["cache_read_input_tokens"]
        lines.append(_assistant(f"msg_demo{rng.getrandbits(64):016x}", model, at, tokens))
    price = prices.price_of(model, readers.shipped_prices())
    total = prices.cost(usage, price) if price else 0.0
    start = int(since.timestamp() * 1000)
    lines.append({"type": "cost-state", "totalCostUSD": total, "startTime": start})
    return lines


def _assistant(message_id: str, model: str, at: datetime, usage: dict[str, int]) -> dict:
    return {
        "type": "assistant",
        "timestamp": at.isoformat().replace("+00:00", "Z"),
        "message": {
            "id": message_id,
            "model": model,
            "role": "assistant",
            "content": [{"type": "text", "text": "(demo)"}],
            "usage": {**usage, "output_tokens_details": {"thinking_tokens": 0}},
        },
    }
