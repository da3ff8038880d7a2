"""Owner comments through the hooks, against a real `relaybay serve` (§4, §1 Comment, §2).

Everything as in real use: the agent's writes through the real MCP client, the owner's
comment through the board's form (cookie + CSRF, as htmx posts it), the hook events as the
real Claude Code 2.1.332 payloads (tests/fixtures) POSTed to /hooks/claude-code with the
Bearer token. Each test uses its own project, folder, session name and Claude Code id, so
they share one server.
"""

from __future__ import annotations

import itertools
import json
import re
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from core import tokens
from core.security import COOKIE_NAME
from tests.integration.mcp_agent import Agent
from tests.sessions.hook_payloads import payload
from tests.support.mcp_client import call_tool, mcp_client, run_async
from tests.support.server import RelaybayServer

_numbers = itertools.count(1)
BUDGET = 8000


@dataclass
class Answer:
    status: int
    body: dict[str, Any] | None

    @property
    def context(self) -> str:
        return ((self.body or {}).get("hookSpecificOutput") or {}).get("additionalContext", "")


def http(
    server: RelaybayServer, method: str, path: str, data: bytes | None, headers: dict[str, str]
) -> tuple[int, bytes]:
    request = urllib.request.Request(server.base_url + path, data=data, method=method)
    for name, value in headers.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@dataclass
class World:
    """One project with one task bound to a session whose agent linked its hook session."""

    server: RelaybayServer
    slug: str
    key: str
    cwd: str
    session: str
    agent_id: str

    # --- the agent (MCP) -----------------------------------------------------------------
    def tool(self, name: str, **args: Any) -> str:
        return call_tool(self.server.base_url, self.server.token, name, args)

    # --- Claude Code (hooks) -------------------------------------------------------------
    def hook(self, fixture: str, agent_id: str | None = None, **changes: Any) -> Answer:
        body = payload(fixture, session_id=agent_id or self.agent_id, cwd=self.cwd, **changes)
        status, raw = http(
            self.server,
            "POST",
            "/hooks/claude-code",
            json.dumps(body).encode(),
            {"Authorization": f"Bearer {self.server.token}", "Content-Type": "application/json"},
        )
        assert status in (200, 204), (status, raw)
        return Answer(status, json.loads(raw) if status == 200 else None)

    def post_tool(self, agent_id: str | None = None) -> Answer:
        return self.hook("PostToolUse.Bash", agent_id)

    def stop(self, active: bool = False) -> Answer:
        name = "Stop.after_block" if active else "Stop.first"
        return self.hook(name, stop_hook_active=active)

    # --- the owner (board) ---------------------------------------------------------------
    def board(self, method: str, path: str, form: dict[str, str] | None = None) -> str:
        token = self.server.token
        headers = {
            "Cookie": f"{COOKIE_NAME}={tokens.cookie_value(token)}",
            "X-Relaybay-CSRF": tokens.csrf_token(token),
            "Sec-Fetch-Site": "same-origin",
            "HX-Request": "true",
        }
        data = None
        if form is not None:
            data = "&".join(f"{k}={urllib.request.quote(v)}" for k, v in form.items()).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        status, raw = http(self.server, method, path, data, headers)
        assert status == 200, (status, raw[:300])
        return raw.decode()

    def comment(self, body: str) -> int:
        """The owner writes a comment in the task dialog; its id."""
        before = set(re.findall(r'data-comment-id="(\d+)"', self.thread()))
        page = self.board("POST", f"/p/{self.slug}/t/{self.key}/comments", {"body": body})
        ids = set(re.findall(r'data-comment-id="(\d+)"', page)) - before
        assert len(ids) == 1, page[:500]
        return int(ids.pop())

    def thread(self) -> str:
        return self.board("GET", f"/p/{self.slug}/t/{self.key}/comments/thread")


@pytest.fixture
def world(server: RelaybayServer) -> World:
    n = next(_numbers)
    slug, cwd, name, agent_id = f"shop-{n}", f"/home/dev/shop-{n}", f"agent-{n}", str(uuid.uuid4())
    w = World(server, slug, f"{slug}-1", cwd, name, agent_id)
    w.tool("project_upsert", slug=slug, repo_path=cwd)
    w.tool("task_create", project=slug, title="Login with 2FA")
    w.tool("task_bind_session", task=w.key, session=name)
    w.hook("SessionStart.startup.print")  # Claude Code starts: a hook row for the folder
    # The agent passes the id its session start gave it: the exact link (§4 step 2).
    w.tool("task_update", task=w.key, next_step="Build it", session=name, hook_session=agent_id)
    return w


# --- delivery ----------------------------------------------------------------------------------


def test_the_owners_comment_reaches_the_next_post_tool_use_and_the_reply_reaches_the_thread(
    world: World,
):
    cid = world.comment("Please also cover the **recovery codes**.")
    assert "not delivered yet" in world.thread()

    answer = world.post_tool()

    assert answer.status == 200
    assert answer.body["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    first = answer.context.splitlines()[0]
    assert first == (
        f"Owner comment on {world.key} (#{cid}): Please also cover the **recovery codes**."
    )
    assert "comment_add" in answer.context
    assert "comment_ack" in answer.context
    assert world.post_tool().status == 204  # never sent again by these events
    assert re.search(rf"delivered <time [^>]*>[^<]+</time> to {world.session}", world.thread())

    text = world.tool(
        "comment_add",
        task=world.key,
        body="Done: codes are shown once.",
        in_reply_to=cid,
        session=world.session,
    )
    assert f"in reply to #{cid}" in text
    assert f"Owner comment #{cid} is marked read." in text
    thread = world.thread()
    assert "Done: codes are shown once." in thread
    assert ">unread<" in thread
    assert re.search(r"read <time", thread)
    listed = world.tool("comments_list", task=world.key)
    assert f"#{cid} owner" in listed
    assert f"read by {world.session}" in listed
    assert f"reply by {world.session}" in listed


def test_a_guessed_or_unlinked_hook_session_gets_no_comment(world: World):
    # A desktop session bound to a task of the project: a new Claude Code id in the folder
    # is linked to it by guess (§4 step 3), and a guess never gets comment text.
    desktop = "local_" + str(uuid.uuid4())
    world.tool("task_create", project=world.slug, title="Second")
    world.tool("task_bind_session", task=f"{world.slug}-2", session=desktop)
    guessed = str(uuid.uuid4())
    world.hook("SessionStart.startup.print", guessed)
    cid = world.comment("Only for the linked agent")

    for fixture in ("UserPromptSubmit.print", "PreToolUse.Bash", "PostToolUse.Bash"):
        assert "Owner comment" not in world.hook(fixture, guessed).context
    assert world.hook("Stop.first", guessed).status == 204
    unknown = world.hook("PostToolUse.Bash", str(uuid.uuid4()))
    assert "Owner comment" not in unknown.context
    assert "not delivered yet" in world.thread()

    assert f"(#{cid})" in world.post_tool().context  # the exact link still gets it


def test_the_budget_splits_many_comments_over_several_events_with_a_count(world: World):
    ids = [world.comment(f"{n}" * 3000) for n in range(5)]

    answers = [world.post_tool() for _ in range(3)]

    seen = [[i for i in ids if f"(#{i})" in a.context] for a in answers]
    assert seen == [ids[0:2], ids[2:4], ids[4:5]]
    assert all(len(a.context) <= BUDGET for a in answers)
    assert "3 more owner comment(s) waiting — they come with the next events." in answers[0].context
    assert "1 more owner comment(s) waiting" in answers[1].context
    assert "more owner comment" not in answers[2].context
    assert world.post_tool().status == 204


# --- Stop and SessionStart -----------------------------------------------------------------------


def test_stop_blocks_a_comment_at_most_twice_across_turns(world: World):
    cid = world.comment("Rename the button before you finish.")

    first = world.stop()
    assert first.status == 200
    assert first.body["decision"] == "block"
    assert f"Owner comment on {world.key} (#{cid}): Rename the button" in first.body["reason"]
    assert re.search(rf"delivered <time [^>]*>[^<]+</time> to {world.session}", world.thread())
    assert world.post_tool().status == 204  # the block delivered it

    world.hook("UserPromptSubmit.print")  # a new turn
    second = world.stop()
    assert second.status == 200
    assert f"(#{cid})" in second.body["reason"]

    world.hook("UserPromptSubmit.print")
    assert world.stop().status == 204  # the comment has caused its two blocks

    start = world.hook("SessionStart.resume.print")
    assert (
        "You have 1 unread owner comment(s) on your relaybay tasks: call comments_list, then "
        "comment_ack or comment_add."
    ) in start.context
    listed = world.tool("comments_list", unread_only=True, project=world.slug)
    assert f"#{cid} owner" in listed
    assert "not acknowledged" in listed


def test_an_acknowledged_comment_no_longer_holds_the_turn(world: World):
    cid = world.comment("Check the logs.")
    assert f"(#{cid})" in world.post_tool().context
    assert world.stop().status == 200  # delivered, not acknowledged

    # Models send ids in many shapes: "#12" is as good as [12].
    text = world.tool("comment_ack", comment_ids=f"#{cid}", session=world.session)
    assert f"Acknowledged owner comment(s) #{cid} on {world.key}." in text

    world.hook("UserPromptSubmit.print")
    assert world.stop().status == 204
    assert "unread owner comment" not in world.hook("SessionStart.resume.print").context
    assert re.search(r"read <time", world.thread())


def test_comment_added_carries_an_excerpt_that_events_since_shows(world: World):
    body = "Excerpt check " + "z" * 300
    cid = world.comment(body)
    events = world.tool("events_since", project=world.slug)
    line = next(x for x in events.splitlines() if f"owner comment #{cid}" in x)
    assert ("Excerpt check " + "z" * 185) in line


# --- the MCP tools' refusals ------------------------------------------------------------------


def test_the_comment_tools_refuse_with_a_message_that_says_what_to_do(world: World):
    async def main() -> list[str]:
        async with mcp_client(world.server.base_url, world.server.token) as client:
            agent = Agent(client)
            other = await agent.ok("task_create", project=world.slug, title="Other")
            other_key = re.match(r"Created (\S+) ", other).group(1)
            await agent.ok("comment_add", task=other_key, body="a reply elsewhere")
            return [
                await agent.err("comment_add", task=world.key, body="x", in_reply_to=1_000_000),
                await agent.err("comment_add", task=world.key, body=""),
                await agent.err("comment_add", task=world.key, body="y" * 4001),
                await agent.err("comment_ack", comment_ids=[1_000_000]),
                await agent.err("comment_ack"),
                await agent.err("comments_list", task="nope-404"),
            ]

    answers = run_async(main())
    assert f"Comment #1000000 is not on {world.key}. Call comments_list" in answers[0]
    assert "body is empty" in answers[1]
    assert "the limit is 4000" in answers[2]
    assert "Unknown comment #1000000. Call comments_list" in answers[3]
    assert "Pass comment_ids" in answers[4]
    assert "Unknown task nope-404" in answers[5]
    assert "No comments on" in world.tool("comments_list", task=world.key)
