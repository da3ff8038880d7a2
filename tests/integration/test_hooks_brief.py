"""The resume brief against a real `relaybay serve` (issue 32).

As in real use: the agent's writes and its binding through the real MCP client, the owner's
comment through the board's form (cookie + CSRF, as htmx posts it), Claude Code's hook
events as the captured 2.1.332 bodies POSTed to /hooks/claude-code with the Bearer token.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from typing import Any

from core import tokens
from core.security import COOKIE_NAME
from tests.sessions.hook_payloads import payload
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

HEAD = "relaybay resume brief: "
SLUG, CWD, AGENT = "brief-shop", "/home/dev/brief-shop", "brief-agent"


def http(server: RelaybayServer, path: str, data: bytes, headers: dict[str, str]) -> bytes:
    request = urllib.request.Request(server.base_url + path, data=data, method="POST")
    for name, value in headers.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status in (200, 204), response.status
            return response.read()
    except urllib.error.HTTPError as exc:
        raise AssertionError((exc.code, exc.read()[:300])) from None


def tool(server: RelaybayServer, name: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, name, args)


def hook(server: RelaybayServer, fixture: str, agent_id: str) -> str:
    """A Claude Code hook event; the additionalContext of its answer ("" for none)."""
    body = payload(fixture, session_id=agent_id, cwd=CWD)
    headers = {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"}
    raw = http(server, "/hooks/claude-code", json.dumps(body).encode(), headers)
    answer = json.loads(raw) if raw else {}
    return (answer.get("hookSpecificOutput") or {}).get("additionalContext", "")


def owner_comment(server: RelaybayServer, key: str, body: str) -> None:
    token = server.token
    headers = {
        "Cookie": f"{COOKIE_NAME}={tokens.cookie_value(token)}",
        "X-Relaybay-CSRF": tokens.csrf_token(token),
        "Sec-Fetch-Site": "same-origin",
        "HX-Request": "true",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    form = f"body={urllib.request.quote(body)}".encode()
    http(server, f"/p/{SLUG}/t/{key}/comments", form, headers)


def test_a_session_resuming_gets_the_brief_its_new_binding_got(server: RelaybayServer):
    agent_id = str(uuid.uuid4())
    tool(server, "project_upsert", slug=SLUG, repo_path=CWD)
    key = f"{SLUG}-1"
    tool(server, "task_create", project=SLUG, title="Address book", session=AGENT)
    steps = [{"title": "Address model"}, {"title": "Address book page"}]
    tool(server, "plan_set", task=key, steps=steps, session=AGENT)
    tool(server, "plan_step_update", task=key, step=1, status="in_progress", session=AGENT)
    tool(server, "task_set_stage", task=key, stage="dev", note="Model first", session=AGENT)
    tool(server, "report_add", task=key, body="changed · M · address model\n\nTwo tables.")
    tool(server, "decision_add", project=SLUG, task=key, text="One address book per customer")

    bound = tool(server, "task_bind_session", task=key, session=AGENT)
    assert bound.startswith(f"Bound {key} to session {AGENT}.\n\n{HEAD}")
    assert (
        hook(server, "SessionStart.startup.print", agent_id).count(HEAD) == 0
    )  # nothing to resume
    # The agent passes the id its session start gave it: the exact link (§4 step 2).
    link = {"session": AGENT, "hook_session": agent_id}
    tool(server, "task_update", task=key, next_step="Build the page", **link)
    owner_comment(server, key, "Keep the\nold addresses")

    resumed = hook(server, "SessionStart.resume.print", agent_id)
    where = resumed[resumed.index(HEAD) :]
    assert f"\n## {key} Address book\n- Stage: dev — Model first\n" in where
    assert "- Plan (draft, not accepted yet): step 1/2 in progress: 'Address model'" in where
    assert "\n- Next step: Build the page\n" in where
    assert "\n- Last report: changed · M · address model — Two tables.\n" in where
    assert "): Keep the old addresses\n" in where
    assert where.endswith("\n- Decisions (newest first): One address book per customer")
    assert len(resumed) <= 8000

    # The same state gives the same bytes: a new binding's answer carries the same brief.
    tool(server, "task_unbind_session", task=key, session=AGENT)
    again = tool(server, "task_bind_session", task=key, session=AGENT)
    assert again == f"Bound {key} to session {AGENT}.\n\n{where}"
