"""The turn-end status check against a real `relaybay serve` (issue 19 §1): a scripted
Claude Code session, exactly linked and bound to a task, edits a file (PostToolUse of Bash
with the real 2.1.332 payloads) and stops without writing to relaybay. In warn mode the
reminder reaches the next prompt's context; in strict mode that Stop is blocked once."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.integration.test_hooks_comments import World
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration


def scripted(server: RelaybayServer, slug: str) -> World:
    agent_id = str(uuid.uuid4())
    w = World(server, slug, f"{slug}-1", f"/home/dev/{slug}", f"{slug}-agent", agent_id)
    w.tool("project_upsert", slug=slug, repo_path=w.cwd)
    w.tool("task_create", project=slug, title="Gift cards at checkout", size="S")
    w.tool("task_bind_session", task=w.key, session=w.session)
    w.hook("SessionStart.startup.print")
    w.tool(
        "task_update", task=w.key, next_step="Build it", session=w.session, hook_session=agent_id
    )
    return w


def reminder(key: str) -> str:
    return f"{key}: you changed files this turn; update progress and next_step"


def test_warn_mode_reminds_at_the_next_prompt(server: RelaybayServer) -> None:
    w = scripted(server, "turn-warn")
    w.hook("UserPromptSubmit.print")
    w.post_tool()
    assert w.stop().status == 204  # warn mode never blocks
    assert reminder(w.key) in w.hook("UserPromptSubmit.print").context
    # A turn that writes progress is not reminded.
    w.post_tool()
    w.tool("task_update", task=w.key, progress="Field added", session=w.session)
    assert w.stop().status == 204
    assert reminder(w.key) not in w.hook("UserPromptSubmit.print").context


def test_strict_mode_blocks_the_stop_once(tmp_path: Path) -> None:
    strict = RelaybayServer(home=tmp_path / "home", env={"RELAYBAY_RULES_MODE": "strict"})
    strict.start()
    try:
        w = scripted(strict, "turn-strict")
        w.hook("UserPromptSubmit.print")
        w.post_tool()
        blocked = w.stop()
        assert blocked.status == 200
        assert blocked.body is not None
        assert blocked.body["decision"] == "block"
        assert blocked.body["reason"].startswith(reminder(w.key))
        assert w.stop(active=True).status == 204  # the second Stop in a row passes
    finally:
        strict.stop()
