"""Effort on the board in headless Chromium against a real server (issue 31): the task
dialog's Effort section and the project's Effort page, live.

Everything as in real use: the agent's writes through the real MCP client, Claude Code's
hooks POSTed to /hooks/claude-code naming a transcript inside the server's Claude Code
configuration folder (CLAUDE_CONFIG_DIR), which the server reads after answering the hook.
A transcript that grows makes the server send a throttled `effort.updated` notice: the Effort
section refetches itself alone (no other section of the dialog), and the Effort page's
region refetches too. The page at 390 px has no sideways scrolling. Screenshots land in
tests/artifacts/browser/.
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.helpers import htmx_idle, sign_in, wait_state
from tests.integration.test_hooks_comments import World
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

_numbers = itertools.count(1)


@pytest.fixture(scope="module")
def claude_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's Claude Code configuration folder: where transcripts may be read."""
    return tmp_path_factory.mktemp("claude")


@pytest.fixture(scope="module")
def effort_server(
    tmp_path_factory: pytest.TempPathFactory, claude_home: Path
) -> Iterator[RelaybayServer]:
    env = {"CLAUDE_CONFIG_DIR": str(claude_home)}
    srv = RelaybayServer(home=tmp_path_factory.mktemp("home"), env=env).start()
    yield srv
    srv.stop()


class Agent(World):
    """A Claude Code session bound to one task, with a transcript the server may read."""

    transcript: Path
    said = 0

    def respond(self, count: int, *, input_: int = 100_000, output: int = 20_000) -> None:
        """The model answers `count` times (lines in the transcript), then a hook fires."""
        at = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        with self.transcript.open("a") as handle:
            for _ in range(count):
                self.said += 1
                line = {
                    "type": "assistant",
                    "timestamp": at,
                    "message": {
                        "id": f"msg_{self.agent_id[:8]}_{self.said}",
                        "model": "claude-opus-5-5",
                        "role": "assistant",
                        "usage": {
                            "input_tokens": input_,
                            "output_tokens": output,
                            "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": 0,
                        },
                    },
                }
                handle.write(json.dumps(line) + "\n")
        self.hook("PostToolUse.Bash", transcript_path=str(self.transcript))


def working_agent(server: RelaybayServer, claude_home: Path) -> Agent:
    n = next(_numbers)
    slug = f"effort-shop-{n}"
    cwd = f"/home/dev/{slug}"
    w = Agent(server, slug, f"{slug}-1", cwd, f"effort-agent-{n}", str(uuid.uuid4()))
    w.transcript = claude_home / "projects" / cwd.replace("/", "-") / f"{w.agent_id}.jsonl"
    w.transcript.parent.mkdir(parents=True, exist_ok=True)
    w.transcript.touch()
    w.tool("project_upsert", slug=slug, repo_path=cwd)
    w.tool("task_create", project=slug, title="Order history page")
    w.tool("task_create", project=slug, title="Saved carts")
    w.tool("task_bind_session", task=w.key, session=w.session)
    w.hook("SessionStart.startup.print", transcript_path=str(w.transcript))
    w.tool("task_update", task=w.key, next_step="Build", session=w.session, hook_session=w.agent_id)
    w.hook("UserPromptSubmit.print", transcript_path=str(w.transcript))
    return w


def log_since(watched: Any, start: int) -> list[str]:
    return watched.live_log()[start:]


def test_the_dialog_shows_effort_and_only_that_section_follows_the_tokens(
    effort_server: RelaybayServer, claude_home: Path, new_page: Any, shot: Any
) -> None:
    w = working_agent(effort_server, claude_home)
    w.respond(2)  # 2 × (100k in, 20k out) of claude-opus-*: $1.60
    watched = new_page(1440, 900)
    page = watched.page
    sign_in(page, effort_server, f"/p/{w.slug}?task={w.key}")
    wait_state(page, "live")
    section = page.locator("#panel-effort")
    expect(section).to_be_visible()
    expect(section).to_contain_text("240,000")
    expect(section).to_contain_text("$1.60")
    expect(section).to_contain_text("Agent time")
    expect(section.locator("svg.ef-bar rect")).not_to_have_count(0)
    htmx_idle(page)
    page.wait_for_timeout(600)  # let the events of the setup settle
    start = len(watched.live_log())

    w.respond(1)  # one more response: the server reads it and sends effort.updated

    expect(section).to_contain_text("360,000")
    expect(section).to_contain_text("$2.40")
    htmx_idle(page)
    page.wait_for_timeout(300)
    seen = log_since(watched, start)
    events = [line.split(" event ")[1].split(" ")[0] for line in seen if " event " in line]
    sent = [line for line in seen if " send get " in line]
    assert set(events) == {"effort.updated"}, seen  # the hook itself changed nothing else
    assert sent, seen
    assert all(line.endswith("/panel/effort from section#panel-effort") for line in sent), seen
    section.scroll_into_view_if_needed()
    shot(page, "effort-dialog-1440")
    watched.assert_clean()


def test_the_effort_page_at_390_px_has_no_sideways_scroll_and_refreshes_live(
    effort_server: RelaybayServer, claude_home: Path, new_page: Any, shot: Any
) -> None:
    w = working_agent(effort_server, claude_home)
    w.respond(3)
    watched = new_page(390, 844)
    page = watched.page
    sign_in(page, effort_server, f"/p/{w.slug}/effort")
    wait_state(page, "live")

    row = page.locator(f"#effort-row-{w.key}")
    expect(row).to_contain_text("360,000")
    expect(row).to_contain_text("$2.40")
    expect(page.locator(".ef-plot rect.ef-s0")).not_to_have_count(0)  # the cost chart
    expect(page.locator(".ef-hbar")).to_have_count(5)  # time per stage
    expect(page.locator(".ef-sorts")).to_be_visible()  # the sort, as a choice on a phone
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls {overflow} px sideways"
    assert page.evaluate("document.body.scrollWidth") <= 390
    shot(page, "effort-page-390", full_page=True, parts=3)

    w.respond(1)  # the region refetches on the notice (effort.js, at most once per 3 s)

    expect(row).to_contain_text("480,000")
    expect(page.locator(".ef-total")).to_contain_text("$3.20")
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    watched.assert_clean()


def test_the_effort_page_is_in_the_sidebar_and_sorts_by_its_column_heads(
    effort_server: RelaybayServer, claude_home: Path, new_page: Any, shot: Any
) -> None:
    w = working_agent(effort_server, claude_home)
    w.respond(1)
    watched = new_page(1280, 900)
    page = watched.page
    sign_in(page, effort_server, f"/p/{w.slug}")
    page.locator("#sidebar").get_by_role("link", name="Effort").first.click()
    expect(page.locator("h1")).to_have_text("Effort")
    keys = page.locator("tbody tr").evaluate_all("rows => rows.map(r => r.id)")
    assert keys[0] == f"effort-row-{w.key}"  # the dearest first

    page.get_by_role("link", name="Cost").click()  # again: the cheapest first
    expect(page.locator("th[aria-sort='ascending']")).to_contain_text("Cost")
    keys = page.locator("tbody tr").evaluate_all("rows => rows.map(r => r.id)")
    assert keys[-1] == f"effort-row-{w.key}"
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    shot(page, "effort-page-1280", full_page=True)
    watched.assert_clean()
