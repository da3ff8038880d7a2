"""Stands & access in headless Chromium against a real server (§7 Stands & access).

The owner adds environments and access entries, raises a live level through the
confirmation page and accepts agents' proposals on the page; agents propose through the
real MCP client (environment_propose). Every flow runs at desktop and at 390 px phone width
and checks that nothing scrolls sideways; every test asserts that the page logged no CSP
violation and no console error. Screenshots: tests/artifacts/browser/.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture skips, or fails with RELAYBAY_REQUIRE_BROWSER=1
    expect = None

from tests.browser.conftest import save_shot
from tests.browser.helpers import sign_in, wait_state
from tests.support import tokens
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = [pytest.mark.browser, pytest.mark.integration]

FLOW_WIDTHS = {"desktop": 1280, "phone": 390}
SHOT_WIDTHS = {"desktop-1280": 1280, "desktop-1440": 1440, "phone": 390}
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth + 1"
SCROLL_WIDTH = "document.documentElement.scrollWidth"
TEST_PASSWORD = "Pa55-for-tests-only"
GITHUB_TOKEN = tokens.github()
SECRET_SHOWN = re.compile(r"password\s*••• \(test secret\)")
_numbers = itertools.count(1)


@pytest.fixture(scope="module", autouse=True)
def test_secrets_on_test(server: RelaybayServer) -> None:
    """The global policy allows test secrets on test stands (never on live, whatever it says)."""
    policy = {"secrets": {"test_secrets": {"test": True}}}
    (server.home / "policy.json").write_text(json.dumps(policy))


def agent(server: RelaybayServer, tool: str, **args: Any) -> str:
    return call_tool(server.base_url, server.token, tool, {"session": "agent-env", **args})


def new_project(server: RelaybayServer, name: str = "Stands Shop") -> str:
    slug = f"stands-shop-{next(_numbers)}"
    agent(server, "project_upsert", slug=slug, name=name)
    return slug


def propose(server: RelaybayServer, slug: str, change: dict[str, Any], reason: str) -> int:
    answer = agent(server, "environment_propose", project=slug, change=change, reason=reason)
    found = re.search(r"Proposed environment change #(\d+)", answer)
    assert found is not None, answer
    return int(found[1])


def page_path(slug: str) -> str:
    return f"/p/{slug}/environments"


WIDER = """() => Array.from(document.querySelectorAll("main *"))
  .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 5)
  .map(el => el.tagName + "." + el.className + " in ." + el.parentElement.className + " "
    + JSON.stringify(el.textContent.slice(0, 40)))"""


def no_overflow(page: Any) -> None:
    """Nothing scrolls sideways; else the first elements reaching past the window."""
    assert page.evaluate(NO_OVERFLOW), (page.evaluate(SCROLL_WIDTH), page.evaluate(WIDER))


def panel(page: Any, name: str) -> Any:
    return page.locator(".env-panel").filter(has=page.get_by_role("heading", name=name, exact=True))


def add_environment(w: Any, name: str, kind: str, **fields: str) -> None:
    page = w.page
    form = page.locator("#env-new")
    if not form.evaluate("d => d.open"):
        form.locator("summary").click()
    form.locator('input[name="name"]').fill(name)
    form.locator('select[name="kind"]').select_option(kind)
    for field, value in fields.items():
        form.locator(f'[name="{field}"]').fill(value)
    w.remember_violations()
    form.get_by_role("button", name="Add environment").click()
    expect(page.locator("#flash")).to_have_text(f"Environment {name} added.")


def add_entry(w: Any, env: str, kind: str, lines: str, test_secrets: str = "") -> None:
    page = w.page
    tools = panel(page, env).locator(".env-tools > details").first
    tools.locator("summary").click()
    tools.locator('select[name="kind"]').select_option(kind)
    tools.locator('textarea[name="fields"]').fill(lines)
    if test_secrets:
        tools.locator('textarea[name="test_secrets"]').fill(test_secrets)
    w.remember_violations()
    tools.get_by_role("button", name="Add entry").click()
    expect(page.locator("#flash")).to_contain_text(f"added to {env}.")


def accept(w: Any, proposal: int) -> None:
    """Accept on the page, confirming when it raises live; back on the page with the flash."""
    page = w.page
    item = page.locator(f"#env-proposal-{proposal}")
    w.remember_violations()
    item.get_by_role("button", name=re.compile(r"^Accept")).click()
    if page.locator("#env-confirm").count():
        w.remember_violations()
        page.get_by_role("button", name="Confirm: raise live").click()
    expect(page.locator("#flash")).to_contain_text(f"Accepted environment proposal #{proposal}")


# --- the owner's writes ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FLOW_WIDTHS))
def test_add_an_environment_and_its_access_entries(server, new_page, name):
    slug = new_project(server)
    w = new_page(width=FLOW_WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, page_path(slug))
    expect(page.get_by_role("heading", level=1)).to_have_text("Stands & access")
    expect(page.locator(".env-none")).to_contain_text("No environments yet.")
    expect(page.locator('#sidebar [aria-current="page"]')).to_have_text("Stands & access")
    no_overflow(page)

    # A refused write answers 400 with the reason and keeps what was typed.
    form = page.locator("#env-new")
    form.locator('input[name="name"]').fill("staging")
    form.locator('input[name="base_url"]').fill("ftp://files.stands.test")
    form.locator('textarea[name="notes"]').fill("typed before the refusal")
    w.remember_violations()
    form.get_by_role("button", name="Add environment").click()
    expect(page.locator("#refusal")).to_contain_text("base_url must start with http://")
    expect(form.locator('input[name="base_url"]')).to_have_value("ftp://files.stands.test")
    expect(form.locator('textarea[name="notes"]')).to_have_value("typed before the refusal")
    no_overflow(page)

    add_environment(
        w,
        "staging",
        "test",
        base_url="https://staging.stands.test",
        notes="Seeded every night from fixtures.\nAsk before truncating.",
    )
    staging = panel(page, "staging")
    expect(staging.locator(".env-head")).to_contain_text("agents: full (default)")
    expect(staging.locator(".env-facts")).to_contain_text("Seeded every night")
    expect(staging.get_by_role("link", name="https://staging.stands.test")).to_be_visible()
    no_overflow(page)

    add_entry(w, "staging", "ssh", "alias: staging\nhost: 10.20.0.7\nkey_path_ref: ~/.ssh/st")
    add_entry(w, "staging", "db", "host: db.staging.internal", f"password: {TEST_PASSWORD}")
    staging = panel(page, "staging")
    expect(staging.locator(".env-entry")).to_have_count(2)
    expect(staging.locator(".env-entry").first).to_contain_text("10.20.0.7")
    secret = staging.locator(".env-entry").nth(1)
    expect(secret).to_contain_text(SECRET_SHOWN)
    assert TEST_PASSWORD not in page.content()

    # Editing an entry: name: *** keeps the stored test secret.
    secret.locator("summary", has_text="Edit").click()
    expect(secret.locator('textarea[name="test_secrets"]')).to_have_value("password: ***")
    secret.locator('textarea[name="fields"]').fill("host: db2.staging.internal")
    w.remember_violations()
    secret.get_by_role("button", name=re.compile(r"^Save entry")).click()
    expect(page.locator("#flash")).to_contain_text("saved.")
    expect(panel(page, "staging").locator(".env-entry").nth(1)).to_contain_text(SECRET_SHOWN)
    assert TEST_PASSWORD not in page.content()

    # Removing asks first, on the page.
    first = panel(page, "staging").locator(".env-entry").first
    first.locator("summary", has_text="Remove…").click()
    no_overflow(page)
    w.remember_violations()
    first.get_by_role("button", name=re.compile(r"^Remove entry #")).click()
    expect(page.locator("#flash")).to_contain_text("(ssh) removed.")
    expect(panel(page, "staging").locator(".env-entry")).to_have_count(1)
    no_overflow(page)
    # The refused write answered 400 (Chromium logs that much) and loaded like any page.
    assert w.csp_violations() == []
    assert [e for e in w.errors() if "status of 400 (Bad Request)" not in e] == []


@pytest.mark.parametrize("name", list(FLOW_WIDTHS))
def test_raising_a_live_level_goes_through_the_confirmation_page(server, new_page, name):
    slug = new_project(server)
    w = new_page(width=FLOW_WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, page_path(slug))
    add_environment(w, "prod", "live", base_url="https://shop.stands.example")
    prod = panel(page, "prod")
    expect(prod.locator(".env-head")).to_contain_text("agents: read (default)")
    edit = prod.locator("details", has=page.locator("summary", has_text="Edit prod"))
    edit.locator("summary").click()
    expect(edit.locator('input[name="sign_in_allowed"]')).to_be_disabled()
    edit.locator('select[name="level"]').select_option("full")
    no_overflow(page)
    w.remember_violations()
    edit.get_by_role("button", name="Save prod").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Save prod?")
    expect(page.locator("#env-confirm")).to_contain_text("the level rises from read to full")
    no_overflow(page)
    w.remember_violations()
    page.get_by_role("button", name="Confirm: raise live").click()
    page.wait_for_url(re.compile(rf"{re.escape(page_path(slug))}$"))
    expect(page.locator("#flash")).to_have_text("Environment prod saved.")
    expect(panel(page, "prod").locator(".env-head")).to_contain_text("agents: full")
    expect(panel(page, "prod").locator(".env-head")).not_to_contain_text("(default)")

    # Deleting asks on the page first.
    delete = panel(page, "prod").locator("details.is-danger").last
    delete.locator("summary").click()
    expect(delete).to_contain_text("This cannot be undone.")
    w.remember_violations()
    delete.get_by_role("button", name="Delete prod").click()
    expect(page.locator("#flash")).to_have_text("Environment prod deleted.")
    expect(page.locator(".env-panel")).to_have_count(0)
    w.assert_clean()


# --- agents' proposals ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FLOW_WIDTHS))
def test_a_proposal_made_over_mcp_appears_live_and_is_accepted(server, new_page, name):
    slug = new_project(server)
    w = new_page(width=FLOW_WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, page_path(slug))
    wait_state(page, "live")
    page.evaluate("window.__envMarker = 'kept'")

    change = {
        "environment": "qa",
        "kind": "test",
        "base_url": "https://qa.stands.test",
        "access": [{"kind": "kubectl", "fields": {"context": "qa-eu", "namespace": "shop"}}],
    }
    proposal = propose(server, slug, change, "QA needs its own stand for the release checks.")
    item = page.locator(f"#env-proposal-{proposal}")
    expect(item).to_contain_text("QA needs its own stand")
    expect(item).to_contain_text("proposed by agent-env")
    expect(item.locator(".pol-json")).to_contain_text('"namespace": "shop"')
    assert page.evaluate("window.__envMarker") == "kept"  # arrived without a reload
    no_overflow(page)

    accept(w, proposal)
    expect(page.locator(f"#env-proposal-{proposal}")).to_have_count(0)
    qa = panel(page, "qa")
    expect(qa.locator(".env-head")).to_contain_text("agents: full (default)")
    expect(qa.locator(".env-entry")).to_contain_text("qa-eu")
    no_overflow(page)
    w.assert_clean()


def test_the_panels_refresh_live_but_never_over_typed_text(server, new_page):
    slug = new_project(server)
    first = propose(server, slug, {"environment": "dev", "kind": "local"}, "a local stand")
    second = propose(server, slug, {"environment": "uat", "kind": "test"}, "acceptance runs")
    watcher = new_page(width=1280, height=900)
    sign_in(watcher.page, server, page_path(slug))
    wait_state(watcher.page, "live")
    owner = new_page(width=1280, height=900)
    sign_in(owner.page, server, page_path(slug))

    # Accepted in another tab: the watcher's proposals and panels follow without a reload.
    accept(owner, first)
    expect(watcher.page.locator(f"#env-proposal-{first}")).to_have_count(0)
    expect(panel(watcher.page, "dev")).to_be_visible()

    # Typed text in an open form is never refetched away: a note says the stands changed.
    edit = panel(watcher.page, "dev").locator("details", has_text="Edit dev")
    edit.locator("summary").click()
    edit.locator('textarea[name="notes"]').fill("half-typed")
    owner.page.goto(f"{server.base_url}{page_path(slug)}")
    accept(owner, second)
    expect(watcher.page.locator(f"#env-proposal-{second}")).to_have_count(0)
    expect(watcher.page.locator("#env-stale")).to_be_visible()
    expect(panel(watcher.page, "uat")).to_have_count(0)
    expect(edit.locator('textarea[name="notes"]')).to_have_value("half-typed")
    watcher.assert_clean()
    owner.assert_clean()


# --- screenshots ----------------------------------------------------------------------------------


STANDS = (
    {
        "environment": "dev",
        "kind": "local",
        "base_url": "http://localhost:8000",
        "notes": "docker compose up; fixtures load on start.",
        "access": [{"kind": "other", "fields": {"compose_file": "./docker-compose.yml"}}],
    },
    {
        "environment": "staging",
        "kind": "test",
        "base_url": "https://staging.acme-checkout.test",
        "overrides": {"db": "ask"},
        "login_state_path": "~/.relaybay/login/acme-checkout-staging.json",
        "access": [
            {
                "kind": "ssh",
                "fields": {
                    "alias": "acme-staging",
                    "host": "10.20.0.7",
                    "user": "deploy",
                    "key_path_ref": "~/.ssh/acme_checkout_staging_ed25519",
                },
            },
            {
                "kind": "db",
                "fields": {
                    "type": "postgres",
                    "host": "checkout-db.staging.internal",
                    "port": "5432",
                    "database": "checkout",
                    "user": "checkout_app",
                    "password_ref": "$CHECKOUT_STAGING_DB_PASSWORD",
                },
            },
        ],
    },
    {
        "environment": "prod",
        "kind": "live",
        "base_url": "https://checkout.acme-shop.example/eu-central-1/storefront",
        "notes": "Customers pay here. Deploys only through the release train (GitOps); "
        "never restart pods by hand during the EU evening peak, 18:00-22:00 CET.",
        "access": [
            {
                "kind": "kubectl",
                "fields": {"context": "acme-prod-eu-central-1", "namespace": "checkout"},
            },
            {
                "kind": "logs",
                "fields": {
                    "url": "https://grafana.acme-shop.example/d/checkout-logs?orgId=1&var-namespace=checkout"
                },
            },
            {
                "kind": "gitops",
                "fields": {
                    "repo": "git@github.com:acme-shop/deploy-config.git",
                    "path": "clusters/prod-eu/checkout",
                    "branch": "main",
                },
            },
        ],
    },
)
PENDING = {
    "environment": "prod",
    "overrides": {"deploy": "ask"},
    "notes": "Rollbacks go through the release train; ask before each one.",
}


PENDING_REASON = (
    "The release train rolls back by itself when the error budget burns; deploy on prod "
    "should be ask rather than read so a rollback can be approved from the board."
)


@pytest.fixture(scope="module")
def showcase(server: RelaybayServer) -> dict[str, Any]:
    """Three stands proposed by an agent; the first screenshot test accepts them on the page,
    types a test secret there and leaves one more proposal pending (it raises live)."""
    slug = new_project(server, "Acme Checkout")
    ids = [propose(server, slug, change, f"Map of {change['environment']}") for change in STANDS]
    return {"slug": slug, "ids": ids, "pending": 0}


def set_the_scene(server: RelaybayServer, w: Any, scene: dict[str, Any]) -> None:
    page = w.page
    for proposal in scene["ids"]:
        if page.locator(f"#env-proposal-{proposal}").count():
            accept(w, proposal)
    if not panel(page, "staging").locator(".env-secret").count():
        lines = "test_user: qa-buyer@acme.test"
        add_entry(w, "staging", "other", lines, f"password: {TEST_PASSWORD}")
    if not scene["pending"]:
        scene["pending"] = propose(server, scene["slug"], PENDING, PENDING_REASON)


@pytest.mark.parametrize("name", list(SHOT_WIDTHS))
def test_screenshots_of_the_stands_page(server, showcase, new_page, name):
    slug = showcase["slug"]
    w = new_page(width=SHOT_WIDTHS[name], height=900)
    page = w.page
    sign_in(page, server, page_path(slug))
    set_the_scene(server, w, showcase)
    pending = showcase["pending"]
    w.remember_violations()
    page.goto(f"{server.base_url}{page_path(slug)}")
    expect(page.locator(f"#env-proposal-{pending} .state-pill")).to_have_text("raises live")
    expect(page.locator(".env-panel")).to_have_count(3)
    expect(panel(page, "staging").locator(".env-secret")).to_have_count(1)
    assert TEST_PASSWORD not in page.content()
    no_overflow(page)
    save_shot(page, f"environments-{name}", full_page=True, parts=10)

    # Every form open: the longest the page gets.
    page.evaluate(
        "document.querySelectorAll('#env-stands details').forEach(d => { d.open = true; })"
    )
    no_overflow(page)
    save_shot(page, f"environments-{name}-forms", full_page=True, parts=10)

    # A refused write: the reason on top, the form open with the secret masked.
    w.remember_violations()
    page.goto(f"{server.base_url}{page_path(slug)}")
    form = page.locator("#env-new")
    form.locator("summary").click()
    form.locator('input[name="name"]').fill("preview")
    form.locator('textarea[name="notes"]').fill(f"Deploy token {GITHUB_TOKEN} rotates monthly.")
    w.remember_violations()
    form.get_by_role("button", name="Add environment").click()
    expect(page.locator("#refusal")).to_contain_text("notes looks like it contains a secret")
    expect(form.locator('textarea[name="notes"]')).to_have_value(
        "Deploy token *** rotates monthly."
    )
    assert GITHUB_TOKEN not in page.content()
    no_overflow(page)
    save_shot(page, f"environments-{name}-refused", full_page=True, parts=10)

    # The confirmation page of accepting the pending proposal.
    w.remember_violations()
    page.goto(f"{server.base_url}{page_path(slug)}")
    page.locator(f"#env-proposal-{pending}").get_by_role("button", name="Accept…").click()
    expect(page.locator("#env-confirm")).to_contain_text("deploy rises from read to ask")
    no_overflow(page)
    save_shot(page, f"environments-{name}-confirm", full_page=True, parts=10)
    assert w.csp_violations() == []
    assert [e for e in w.errors() if "status of 400 (Bad Request)" not in e] == []
