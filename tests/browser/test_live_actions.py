"""The journal of actions on live in headless Chromium against a real server (§2 Activity,
§7 Journal): Activity's "Actions on live" block and the task dialog's panel of that name.

The guard will record live.action inside the server (its hook step calls
environments.services.live_action_record), and the live bus publishes it like any write.
The guard is not there yet, so these tests write the rows through that same service in a
process of their own on the server's data folder (run_django). The server publishes only
its own writes; rows another process wrote reach the browser when its stream reconnects and
replays from the last event id it saw — the path a page takes after sleep or a lost
connection (app.js, docs/architecture.md §5). So after each write the test asks the page's
stream to reconnect (window.relaybay.reconnect): the page then gets a real `live.action`
message and refreshes exactly as it will when the guard's write is published directly.

Screenshots of ~10 actions of every decision at 1280, 1440 and 390 px (and 1440 dark) land in
tests/artifacts/browser/ (live-actions-*.png), the full page in viewport-sized slices.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.conftest import save_shot
from tests.browser.helpers import sign_in, wait_state
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer, run_django

pytestmark = [pytest.mark.browser, pytest.mark.integration]

SHOTS = (  # name, width, colour scheme
    ("desktop-1280", 1280, "light"),
    ("desktop-1440", 1440, "light"),
    ("phone", 390, "light"),
    ("dark", 1440, "dark"),
)
HEIGHT = {1280: 800, 1440: 900, 390: 844}
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth + 1"
# A masked command at the journal's limit with no space to break at (§7: ≤ 200 characters).
LONG_COMMAND = "curl -H Authorization:•••• https://api.example.com/v1/" + "x" * 146
_numbers = itertools.count(1)


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-live", **args})


def shop_with_live_stand(server: RelaybayServer, name: str = "Live Shop") -> tuple[str, str]:
    """A project with a live stand and one task; returns (slug, task key)."""
    slug = f"live-shop-{next(_numbers)}"
    agent(server, "project_upsert", slug=slug, name=name)
    text = agent(server, "task_create", project=slug, title="Restart the checkout service")
    key = re.match(r"Created (\S+) ", text).group(1)
    run_django(
        server.home,
        f"""
        from environments.services import Change, environment_save

        environment_save(
            project={slug!r},
            change=Change(environment="prod", kind="live", base_url="https://shop.example"),
            actor="owner",
            confirmed=True,
        )
        """,
    )
    return slug, key


def record(server: RelaybayServer, actions: list[dict[str, Any]]) -> None:
    """live.action rows through environments.services.live_action_record, as the guard will
    write them; each action names its project slug and task key (or None)."""
    run_django(
        server.home,
        f"""
        from environments.services import live_action_record
        from tasks.models import Project, Task

        for a in {actions!r}:
            live_action_record(
                project=Project.objects.get(slug=a["project"]),
                environment=a.get("environment", "prod"),
                task=Task.objects.get(key=a["task"]) if a.get("task") else None,
                tool=a.get("tool", "Bash"),
                command=a["command"],
                decision=a["decision"],
                level=a.get("level", "read"),
                rule=a.get("rule", ""),
                actor=a.get("actor", "agent-live"),
            )
        """,
    )


def replay(*pages: Any) -> None:
    """Reconnect each page's stream: it replays what it has not seen (see the docstring)."""
    for page in pages:
        page.evaluate("window.relaybay.reconnect()")


def open_page(w: Any, server: RelaybayServer, path: str) -> Any:
    page = w.page
    sign_in(page, server, path)
    wait_state(page, "live")
    page.evaluate("window.__marker = 'still here'")
    return page


def not_reloaded(page: Any) -> bool:
    return page.evaluate("window.__marker") == "still here"


def open_dialog(w: Any, server: RelaybayServer, slug: str, key: str) -> Any:
    page = open_page(w, server, f"/p/{slug}")
    page.goto(f"{server.base_url}/p/{slug}?task={key}")
    wait_state(page, "live")
    page.evaluate("window.__marker = 'still here'")
    expect(page.locator("#task-dialog")).to_be_visible()
    return page


def no_overflow(page: Any) -> None:
    assert page.evaluate(NO_OVERFLOW), page.evaluate("document.documentElement.scrollWidth")


# --- live ------------------------------------------------------------------------------------


def test_an_action_on_live_appears_on_activity_and_in_the_dialog_without_a_reload(server, new_page):
    slug, key = shop_with_live_stand(server)
    activity_w = new_page(width=1280, height=800)
    activity = open_page(activity_w, server, "/activity")
    block = activity.locator("#live-actions")
    rows = block.locator(".la-row")
    before = rows.count()
    dialog_w = new_page(width=1280, height=800)
    dialog = open_dialog(dialog_w, server, slug, key)
    panel = dialog.locator("#panel-live-actions")
    expect(panel).to_contain_text("Nothing run on live for this task yet.")

    record(
        server,
        [
            {
                "project": slug,
                "task": key,
                "command": "ssh prod-alias sudo systemctl restart <checkout>",
                "decision": "deny",
                "rule": "ssh-remote-change",
            }
        ],
    )
    replay(activity, dialog)

    expect(rows).to_have_count(min(before + 1, 20))
    top = rows.first
    expect(top.locator(".la-decision")).to_have_text("deny")
    expect(top.locator(".la-command")).to_have_text(
        "ssh prod-alias sudo systemctl restart <checkout>"
    )
    expect(top.locator(".la-task")).to_have_attribute("href", f"/p/{slug}?task={key}")
    expect(top.locator(".la-where a")).to_have_text("Live Shop")
    expect(block.get_by_role("link", name="All actions on live →")).to_have_attribute(
        "href", "/activity?kind=live.action"
    )
    # The feed under it prepends the event too.
    feed = activity.locator('#activity-rows > .activity-row[data-kind="live.action"]')
    expect(feed).to_have_count(1)
    panel_rows = panel.locator(".la-row")
    expect(panel_rows).to_have_count(1)
    expect(panel_rows.first.locator(".la-command")).to_contain_text("restart <checkout>")
    expect(panel.locator(".la-task")).to_have_count(0)  # its own task: no link to itself

    # A second one arrives on top; an action of another task stays out of this panel.
    record(
        server,
        [
            {"project": slug, "task": None, "command": "kubectl get pods", "decision": "log"},
            {"project": slug, "task": key, "command": "kubectl rollout restart", "decision": "ask"},
        ],
    )
    replay(activity, dialog)
    expect(rows.first.locator(".la-decision")).to_have_text("ask")
    expect(panel_rows).to_have_count(2)
    expect(panel_rows.first.locator(".la-decision")).to_have_text("ask")
    expect(panel).not_to_contain_text("kubectl get pods")

    assert not_reloaded(activity)
    assert not_reloaded(dialog)
    assert activity.locator("script:not([src])").count() == 0
    activity_w.assert_clean()
    dialog_w.assert_clean()


def test_a_project_filter_keeps_other_projects_actions_out_of_the_block(server, new_page):
    mine, _ = shop_with_live_stand(server, "Mine")
    other, _ = shop_with_live_stand(server, "Other")
    w = new_page(width=1280, height=800)
    page = open_page(w, server, f"/activity?project={mine}")
    rows = page.locator("#live-actions .la-row")
    record(
        server,
        [
            {"project": other, "command": "rm -rf /tmp/other", "decision": "deny"},
            {"project": mine, "command": "df -h", "decision": "allow"},
        ],
    )
    replay(page)
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("df -h")
    expect(page.get_by_role("link", name="All actions on live →")).to_have_attribute(
        "href", f"/activity?project={mine}&kind=live.action"
    )
    assert not_reloaded(page)
    w.assert_clean()


def test_a_long_command_wraps_inside_its_box_at_390_px(server, new_page):
    slug, key = shop_with_live_stand(server)
    record(server, [{"project": slug, "task": key, "command": LONG_COMMAND, "decision": "warn"}])
    w = new_page(width=390, height=844)
    page = open_page(w, server, "/activity")
    command = page.locator("#live-actions .la-row").first.locator(".la-command")
    expect(command).to_have_text(LONG_COMMAND)
    no_overflow(page)
    box = command.bounding_box()
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 390
    assert box["height"] > 40  # it wrapped instead of running off the screen

    page.goto(f"{server.base_url}/p/{slug}?task={key}")
    panel = page.locator("#panel-live-actions")
    expect(panel.locator(".la-command")).to_have_text(LONG_COMMAND)
    panel.scroll_into_view_if_needed()
    no_overflow(page)
    box = panel.locator(".la-command").bounding_box()
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 390
    w.assert_clean()


# --- screenshots -----------------------------------------------------------------------------

CALLS = [
    ("deny", "Bash", "ssh prod-alias sudo systemctl restart checkout", "read", "ssh-remote-change"),
    ("ask", "Bash", "kubectl -n shop rollout restart deploy/checkout", "ask", "k8s-write"),
    ("warn", "Bash", "psql -h db.live.internal -c 'select count(*) from orders'", "read", "db"),
    ("log", "Bash", "curl -s https://shop.example/healthz", "read", ""),
    ("allow", "Read", "/srv/shop/logs/app.log", "full", ""),
    ("deny", "Bash", "kubectl delete pod checkout-7d9f --force", "read", "k8s-delete"),
    ("ask", "Bash", "ssh prod-alias 'sudo tail -n 200 /var/log/nginx/error.log'", "ask", ""),
    ("warn", "WebFetch", "https://admin.shop.example/api/orders?token=••••", "read", "url-secret"),
    ("log", "Bash", "git -C /srv/shop log -3 --oneline", "read", ""),
    ("deny", "Bash", LONG_COMMAND, "none", "live-none"),
    ("allow", "Bash", "uptime", "full", ""),
]


def test_screenshots_of_actions_on_live(fresh_server, new_page):
    slug, key = shop_with_live_stand(fresh_server, "Shop Web")
    other, other_key = shop_with_live_stand(fresh_server, "Billing API")
    actors = ("agent-live", "shop-backend", "billing-bot")
    record(
        fresh_server,
        [
            {
                "project": slug if i % 3 else other,
                "task": (key if i % 2 == 0 else None) if i % 3 else other_key,
                "environment": "prod",
                "decision": decision,
                "tool": tool,
                "command": command,
                "level": level,
                "rule": rule,
                "actor": actors[i % 3],
            }
            for i, (decision, tool, command, level, rule) in enumerate(CALLS)
        ],
    )
    for name, width, scheme in SHOTS:
        w = new_page(width=width, height=HEIGHT[width], color_scheme=scheme)
        page = open_page(w, fresh_server, "/activity")
        expect(page.locator("#live-actions .la-row")).to_have_count(len(CALLS))
        no_overflow(page)
        save_shot(page, f"live-actions-activity-{name}", parts=3)

        page.goto(f"{fresh_server.base_url}/p/{slug}?task={key}")
        panel = page.locator("#panel-live-actions")
        expect(panel.locator(".la-row")).to_have_count(4)
        no_overflow(page)
        save_shot(page, f"live-actions-dialog-{name}-1")
        panel.scroll_into_view_if_needed()
        save_shot(page, f"live-actions-dialog-{name}-2")
        w.assert_clean()
