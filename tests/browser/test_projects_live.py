"""The projects page follows agents live: a project or task created over MCP shows up
without a reload (§2 Projects, Live updates)."""

from __future__ import annotations

import pytest

from tests.browser.helpers import sign_in, wait_state
from tests.support.mcp_client import call_tool

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def test_a_project_created_by_an_agent_appears_on_the_open_projects_page(
    fresh_server, new_page, shot
):
    w = new_page(width=1440, height=900)
    page = w.page
    sign_in(page, fresh_server, "/")
    wait_state(page, "live")
    page.evaluate("() => { window.__noReload = true; }")
    assert page.get_by_text("No projects yet").is_visible()

    call_tool(
        fresh_server.base_url,
        fresh_server.token,
        "project_upsert",
        {"slug": "acme-shop", "name": "Acme shop"},
    )
    page.locator(".project-row", has_text="Acme shop").wait_for(timeout=10_000)

    call_tool(
        fresh_server.base_url,
        fresh_server.token,
        "task_create",
        {"project": "acme-shop", "title": "Fix login", "stage": "dev"},
    )
    page.locator(".project-row", has_text="1 task").wait_for(timeout=10_000)

    assert page.evaluate("() => window.__noReload === true")
    shot(page, "projects-live")
    w.assert_clean()
