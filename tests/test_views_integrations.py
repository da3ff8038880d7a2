"""Settings → Integrations through Django's test client (§5 Integrations page, §9 relaybay_flash).

Claude Code's files live under a throwaway HOME, `claude` is a fake executable on PATH (or
missing), hook sessions come from the real hook service.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client, RequestFactory
from django.utils.html import escape

from agents.claude_code.hooks import hook_event
from agents.claude_code.setup.detect import mcp_add_command
from agents.claude_code.setup.entries import EVENTS, is_relaybay_hook
from agents.claude_code.setup.plan import HTTP_SESSIONSTART_NOTE, make_plan
from agents.setup.plan import write_plan
from agents.setup.target import server_target
from core import flash, tokens
from core.config import Config
from core.security import COOKIE_NAME, current_token
from sessions.hooks import activity
from tests.sessions.hook_payloads import CWD, payload
from tests.support.server import write_fake_claude
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).parent / "setup" / "corpus"
PAGE = "/settings/integrations"
APPLY = "/settings/integrations/apply"
REMOVE = "/settings/integrations/remove"
CHECK = "/settings/integrations/check"
CHANGED = "changed since the plan was shown, so nothing was written"
EVIL = "<script>alert(1)</script>"


# --- fixtures and helpers -------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _fresh_activity_clock() -> Iterator[None]:
    activity.activity_clock.clear()
    yield
    activity.activity_clock.clear()


@pytest.fixture
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The HOME whose ~/.claude/settings.json and ~/.claude.json the page reads."""
    home = tmp_path / "profile"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def settings_file(profile: Path) -> Path:
    return profile / ".claude" / "settings.json"


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH with only an empty folder: no `claude` unless a test puts one there."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    return folder


@pytest.fixture
def fake_claude(bin_dir: Path):
    def make(version_line: str) -> Path:
        return write_fake_claude(bin_dir, version_line)

    return make


@pytest.fixture
def web(profile: Path, bin_dir: Path) -> Client:
    c = Client()
    c.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return c


@pytest.fixture
def quiet_port(settings) -> Iterator[str]:
    """The server's base URL moved to a port that is bound but never listens (refused)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    cfg = django_settings.RELAYBAY
    settings.RELAYBAY = Config({**cfg, "port": port}, dict(cfg.sources))
    try:
        yield settings.RELAYBAY.base_url
    finally:
        sock.close()


def target():
    return server_target(django_settings.RELAYBAY)


def write_headers() -> dict[str, str]:
    return {"HTTP_ORIGIN": "http://testserver", "HTTP_HOST": "testserver"}


def csrf() -> str:
    return tokens.csrf_token(current_token())


def post(client: Client, url: str, data: dict[str, str] | None = None, **extra: str):
    return client.post(url, {"csrf_token": csrf(), **(data or {})}, **write_headers(), **extra)


def get_html(client: Client, url: str = PAGE) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return response.content.decode()


def block(html: str, start: str, end: str) -> str:
    found = re.search(re.escape(start) + r".*?" + re.escape(end), html, re.S)
    assert found is not None, start
    return found[0]


def apply_part(html: str) -> str:
    return block(html, '<div class="ig-plan" id="ig-claude-code-apply">', "</div>")


def remove_part(html: str) -> str:
    return block(html, '<div class="ig-plan" id="ig-claude-code-remove">', "</div>")


def form_hash(part: str) -> str:
    found = re.search(r'name="expect" value="([0-9a-f]{12})"', part)
    assert found is not None, part
    return found[1]


def shown_hash(part: str) -> str:
    found = re.search(r'<code class="ig-hash">([0-9a-f]{12})</code>', part)
    assert found is not None, part
    return found[1]


def diff_text(html: str) -> str:
    return block(html, '<pre class="ig-diff"', "</pre>")


def backups(settings_path: Path) -> list[Path]:
    return sorted(settings_path.parent.glob("settings.json.relaybay-backup-*"))


def relaybay_events(settings_path: Path) -> list[str]:
    """The events holding one of relaybay's hooks for this server, in file order."""
    data = json.loads(settings_path.read_bytes())
    return [
        event
        for event, groups in data.get("hooks", {}).items()
        if any(is_relaybay_hook(h, target()) for g in groups for h in g["hooks"])
    ]


def user_commands(settings_path: Path) -> list[tuple[str, str]]:
    """(event, command or url) of every hook that is not relaybay's."""
    data = json.loads(settings_path.read_bytes())
    return [
        (event, h.get("command") or h.get("url"))
        for event, groups in data.get("hooks", {}).items()
        for g in groups
        for h in g["hooks"]
        if not is_relaybay_hook(h, target())
    ]


def apply_through_the_page(client: Client, mode: str = "command") -> None:
    html = get_html(client, f"{PAGE}?mode={mode}")
    expect = form_hash(apply_part(html))
    assert post(client, APPLY, {"mode": mode, "expect": expect}).status_code == 200
    done = post(client, APPLY, {"mode": mode, "expect": expect, "confirmed": "yes"})
    assert done.status_code == 303


def _ambiguous_hook_session():
    make_project("acme", repo_path="/home/dev")
    make_project("acme-shop", repo_path=CWD)
    return hook_event(payload=payload("SessionStart.startup.print"), headers=None).session


# --- 1. the page in the Settings frame -------------------------------------------------------


def test_settings_leads_to_the_integrations_page_with_its_tab_and_breadcrumb(web):
    response = web.get("/settings")
    assert response.status_code == 302
    assert response["Location"] == PAGE
    html = get_html(web)
    assert "<h1>Integrations</h1>" in html
    tabs = block(html, '<nav class="settings-tabs" aria-label="Settings">', "</nav>")
    assert '<a href="/settings/integrations" aria-current="page">Integrations</a>' in tabs
    assert '<a href="/settings/notifications">Notifications</a>' in tabs
    assert '<a href="/settings">Settings</a><span aria-current="page">Integrations</span>' in html


# --- 2. detection ------------------------------------------------------------------------------


def test_a_claude_on_path_is_shown_with_its_version_and_http_hooks_supported(
    web, fake_claude, settings_file
):
    exe = fake_claude("2.1.332 (Claude Code)")
    html = get_html(web)
    detected = block(html, 'id="integrations-claude-code"', "</section>")
    assert f"<code>{exe}</code> version 2.1.332" in detected
    assert '<span class="state-pill is-ok">Supported</span>' in detected
    assert "Not found" not in detected
    assert f"<dt>Settings file</dt>\n    <dd><code>{settings_file}</code></dd>" in detected
    assert f"<code>{django_settings.RELAYBAY.base_url}</code>" in detected


def test_without_claude_on_path_the_page_says_not_found(web, settings_file):
    detected = block(get_html(web), 'id="integrations-claude-code"', "</section>")
    # not connected either: a warning, not a failure
    assert '<span class="state-pill is-warn">Not found</span>' in detected
    assert "is not on the PATH of the relaybay server" in detected
    assert '<span class="state-pill is-warn">Not supported</span>' in detected
    assert f"<code>{settings_file}</code>" in detected


def test_an_old_claude_has_no_http_hooks_and_http_mode_warns_about_it(web, fake_claude):
    exe = fake_claude("2.0.5 (Claude Code)")
    html = get_html(web)
    detected = block(html, 'id="integrations-claude-code"', "</section>")
    assert f"<code>{exe}</code> version 2.0.5" in detected
    assert '<span class="state-pill is-warn">Not supported</span>' in detected
    assert "Claude Code 2.1.63 or newer" in detected
    assert "Supported</span>" not in detected.replace("Not supported</span>", "")
    http_page = get_html(web, f"{PAGE}?mode=http")
    assert "Claude Code 2.0.5 may not run http hooks" in apply_part(http_page)


def test_the_desktop_app_folder_is_reported_when_it_exists(web, profile):
    assert "no Claude desktop app folder found" in get_html(web)
    (profile / ".config" / "Claude").mkdir(parents=True)
    html = get_html(web)
    assert f"found: {profile / '.config' / 'Claude'} (its local sessions" in html


# --- 3. MCP registration --------------------------------------------------------------------


def test_without_claude_json_the_mcp_server_is_not_registered_and_the_line_hides_the_token(web):
    html = get_html(web)
    mcp = block(html, '<dd id="ig-claude-code-mcp">', "</dd>")
    assert '<span class="state-pill is-warn">Not registered</span>' in mcp
    line = mcp_add_command(django_settings.RELAYBAY.base_url, "<token>")
    assert (
        "claude mcp add --transport http --scope user relaybay "
        f"{django_settings.RELAYBAY.base_url}/mcp "
        '--header "Authorization: Bearer <token>"'
    ) == line
    assert f"<code>{escape(line)}</code>" in mcp
    assert "&lt;token&gt;" in mcp
    assert current_token() not in html


def test_a_relaybay_mcp_server_for_this_url_is_registered(web, profile):
    url = django_settings.RELAYBAY.base_url + "/mcp"
    (profile / ".claude.json").write_text(
        json.dumps({"mcpServers": {"relaybay": {"type": "http", "url": url}}})
    )
    mcp = block(get_html(web), '<dd id="ig-claude-code-mcp">', "</dd>")
    assert '<span class="state-pill is-ok">Registered</span>' in mcp
    assert f"<code>{url}</code>" in mcp
    assert "claude mcp add" not in mcp


def test_a_relaybay_mcp_server_for_another_url_is_reported(web, profile):
    (profile / ".claude.json").write_text(
        json.dumps({"mcpServers": {"relaybay": {"url": "http://127.0.0.1:9999/mcp"}}})
    )
    mcp = block(get_html(web), '<dd id="ig-claude-code-mcp">', "</dd>")
    assert '<span class="state-pill is-bad">Other URL</span>' in mcp
    assert "<code>http://127.0.0.1:9999/mcp</code>" in mcp
    assert "Registered</span>" not in mcp


# --- 4. the plan ---------------------------------------------------------------------------------


def test_an_empty_settings_file_plans_every_event_with_the_hash_in_the_apply_form(
    web, settings_file
):
    settings_file.write_bytes(b"")
    html = get_html(web)
    part = apply_part(html)
    diff = diff_text(part)
    for event in EVENTS:
        assert f"&quot;{event}&quot;: [" in diff, event
    assert '<span class="d-add">+' in diff
    expected = make_plan(settings_file, target(), action="apply", mode="command").hash
    assert shown_hash(part) == expected
    assert form_hash(part) == expected
    assert f'<form method="post" action="{APPLY}">' in part
    assert '<input type="hidden" name="mode" value="command">' in part
    assert '<option value="command" selected>' in html
    assert "No relaybay entries to remove." in remove_part(html)
    assert settings_file.read_bytes() == b""


def test_http_mode_plans_http_hooks_with_the_sessionstart_note(web, fake_claude, settings_file):
    fake_claude("2.1.332 (Claude Code)")
    html = get_html(web, f"{PAGE}?mode=http")
    part = apply_part(html)
    diff = diff_text(part)
    assert "&quot;type&quot;: &quot;http&quot;" in diff
    assert "Bearer ${RELAYBAY_TOKEN}" in diff
    assert escape(HTTP_SESSIONSTART_NOTE) in part
    assert '<option value="http" selected>' in html
    expected = make_plan(settings_file, target(), action="apply", mode="http")
    assert form_hash(part) == expected.hash
    assert expected.hash != make_plan(settings_file, target(), mode="command").hash
    assert HTTP_SESSIONSTART_NOTE not in get_html(web, f"{PAGE}?mode=command")


def test_an_unknown_hook_type_is_refused_naming_the_choices(web):
    for url in (f"{PAGE}?mode=bogus", f"{PAGE}/plan?mode=bogus"):
        response = web.get(url)
        assert response.status_code == 400, url
        assert "command or http" in response.content.decode()


def test_installed_http_hooks_make_http_the_default_hook_type(web, settings_file):
    write_plan(make_plan(settings_file, target(), action="apply", mode="http"))
    html = get_html(web)
    assert '<option value="http" selected>' in html
    assert '<option value="command" selected>' not in html
    assert "already holds relaybay's http hooks" in apply_part(html)


def test_the_plan_fragment_is_only_the_plan_section(web, settings_file):
    response = web.get(f"{PAGE}/plan?mode=http")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<section class="ig-panel" id="integrations-plan-claude-code"' in html
    assert "<html" not in html
    assert 'id="integrations-claude-code"' not in html
    assert 'id="integrations-check"' not in html
    expected = make_plan(settings_file, target(), action="apply", mode="http").hash
    assert form_hash(apply_part(html)) == expected
    # The swapped-in Apply form can still be sent: it carries the CSRF token and the mode.
    assert f'<input type="hidden" name="csrf_token" value="{csrf()}">' in apply_part(html)
    assert '<input type="hidden" name="mode" value="http">' in apply_part(html)


# --- 5. apply: confirm, write, 303 with a one-time flash ----------------------------------


def test_apply_asks_for_confirmation_then_writes_backs_up_and_flashes_once(web, settings_file):
    shutil.copyfile(CORPUS / "hand_edited.json", settings_file)
    before = settings_file.read_bytes()
    expect = form_hash(apply_part(get_html(web)))

    confirm = post(web, APPLY, {"mode": "command", "expect": expect})
    assert confirm.status_code == 200
    page = confirm.content.decode()
    assert "Apply relaybay's hooks?" in page
    assert '<span class="d-add">+' in diff_text(page)
    assert '<input type="hidden" name="confirmed" value="yes">' in page
    assert f'<input type="hidden" name="expect" value="{expect}">' in page
    assert settings_file.read_bytes() == before
    assert backups(settings_file) == []

    done = post(web, APPLY, {"mode": "command", "expect": expect, "confirmed": "yes"})
    assert done.status_code == 303
    assert done["Location"] == "/settings/integrations?mode=command"
    cookie = done.cookies[flash.COOKIE]
    assert cookie["max-age"] == 60
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    assert cookie["path"] == "/"
    header = cookie.OutputString()
    for part in ("Max-Age=60", "HttpOnly", "SameSite=Strict", "Path=/"):
        assert part in header

    assert sorted(relaybay_events(settings_file)) == sorted(EVENTS)
    data = json.loads(settings_file.read_bytes())
    assert data["model"] == "sonnet"
    assert data["permissions"] == {"allow": ["Bash(ls)", "Bash(git status)"]}
    assert data["includeCoAuthoredBy"] is False
    assert data["hooks"]["Stop"][0]["hooks"][0] == {"type": "command", "command": "say done"}
    [backup] = backups(settings_file)
    assert backup.read_bytes() == before

    shown = web.get(done["Location"])
    assert shown.status_code == 200
    html = shown.content.decode()
    message = block(html, '<p class="flash is-ok" id="flash" role="status">', "</p>")
    assert f"Wrote {settings_file}." in message
    assert backup.name in message
    assert shown.cookies[flash.COOKIE]["max-age"] == 0
    assert shown.cookies[flash.COOKIE].value == ""
    assert "Nothing to apply" in apply_part(html)
    assert f'action="{APPLY}"' not in apply_part(html)

    again = get_html(web, done["Location"])
    assert 'id="flash"' not in again
    assert "Nothing to apply" in apply_part(again)


def test_a_page_without_the_flash_cookie_shows_no_flash_and_deletes_nothing(web):
    response = web.get(PAGE)
    assert 'id="flash"' not in response.content.decode()
    assert flash.COOKIE not in response.cookies


# --- 6. a file changed after the plan was shown -----------------------------------------------


@pytest.mark.parametrize("confirmed", ["", "yes"], ids=["unconfirmed", "confirmed"])
def test_a_file_changed_since_the_plan_was_shown_is_refused_with_the_new_plan(
    web, settings_file, confirmed
):
    shutil.copyfile(CORPUS / "hand_edited.json", settings_file)
    old = form_hash(apply_part(get_html(web)))
    settings_file.write_text(
        settings_file.read_text().replace('"model":"sonnet",', '"model":"sonnet", "mine": 1,')
    )
    changed = settings_file.read_bytes()
    assert b'"mine": 1' in changed

    data = {"mode": "command", "expect": old, **({"confirmed": "yes"} if confirmed else {})}
    response = post(web, APPLY, data)
    assert response.status_code == 409
    html = response.content.decode()
    refusal = block(html, '<p class="error" id="refusal" role="alert">', "</p>")
    assert f"{settings_file} {CHANGED}" in refusal
    assert "press Apply again" in refusal
    new = make_plan(settings_file, target(), action="apply", mode="command").hash
    assert new != old
    assert shown_hash(apply_part(html)) == new
    assert form_hash(apply_part(html)) == new
    assert settings_file.read_bytes() == changed
    assert backups(settings_file) == []
    assert flash.COOKIE not in response.cookies


def test_a_remove_with_a_stale_hash_is_refused_and_writes_nothing(web, settings_file):
    shutil.copyfile(CORPUS / "hand_edited_mixed.json", settings_file)
    old = form_hash(remove_part(get_html(web)))
    settings_file.write_text(settings_file.read_text().replace('"x"', '"y"'))
    changed = settings_file.read_bytes()
    response = post(web, REMOVE, {"expect": old, "confirmed": "yes"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "press Remove again" in block(html, 'id="refusal"', "</p>")
    assert form_hash(remove_part(html)) == make_plan(settings_file, target(), action="remove").hash
    assert settings_file.read_bytes() == changed
    assert backups(settings_file) == []


# --- 7. remove ----------------------------------------------------------------------------------


def test_remove_after_apply_takes_out_only_relaybays_entries(web, settings_file):
    shutil.copyfile(CORPUS / "user_hooks.json", settings_file)
    original = settings_file.read_bytes()
    users = user_commands(settings_file)
    assert len({event for event, _ in users}) >= 6

    apply_through_the_page(web)
    assert sorted(relaybay_events(settings_file)) == sorted(EVENTS)
    assert user_commands(settings_file) == users

    html = get_html(web)
    expect = form_hash(remove_part(html))
    assert f'<form method="post" action="{REMOVE}">' in remove_part(html)
    confirm = post(web, REMOVE, {"expect": expect})
    assert confirm.status_code == 200
    page = confirm.content.decode()
    assert "Remove relaybay's hooks?" in page
    assert f'<form class="ig-confirm" method="post" action="{REMOVE}">' in page
    removed = re.findall(r'<span class="d-del">(-[^<]*)</span>', diff_text(page))
    hook_url = f"{django_settings.RELAYBAY.base_url}/hooks/claude-code"
    hooks = sum("relaybay.hook_client" in line and hook_url in line for line in removed)
    assert hooks == len(EVENTS)  # PermissionRequest's too, since the owner approves on the board
    assert '<span class="d-add">' not in diff_text(page)
    assert f'<code class="ig-hash">{expect}</code>' in page
    assert len(backups(settings_file)) == 1

    done = post(web, REMOVE, {"expect": expect, "confirmed": "yes"})
    assert done.status_code == 303
    assert done["Location"] == PAGE
    assert relaybay_events(settings_file) == []
    assert user_commands(settings_file) == users
    assert settings_file.read_bytes() == original
    assert len(backups(settings_file)) == 2
    after = get_html(web)
    assert "Removed relaybay&#x27;s entries from" in after
    assert "No relaybay entries to remove." in remove_part(after)


# --- 8. bad input and who may write ---------------------------------------------------------


def refusal_of(html: str) -> str:
    return block(html, '<p class="error" id="refusal" role="alert">', "</p>")


def test_apply_without_the_plan_hash_is_refused_with_a_reason(web, settings_file):
    for url in (APPLY, REMOVE):
        response = post(web, url, {"mode": "command", "confirmed": "yes"})
        assert response.status_code == 400, url
        # A refused write renders the page with the reason (§9), here with the plan to confirm.
        html = response.content.decode()
        assert "The plan hash (expect) is missing, so nothing was written" in refusal_of(html)
        assert 'id="integrations-plan-claude-code"' in html
    assert not settings_file.exists()


def test_apply_with_an_unknown_hook_type_is_refused(web, settings_file):
    expect = form_hash(apply_part(get_html(web)))
    response = post(web, APPLY, {"mode": "bogus", "expect": expect, "confirmed": "yes"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Unknown hook type &#x27;bogus&#x27;: choose command or http." in refusal_of(html)
    assert not settings_file.exists()


def test_an_invalid_settings_file_is_refused_on_the_page_and_on_write(web, settings_file):
    shutil.copyfile(CORPUS / "invalid.json", settings_file)
    before = settings_file.read_bytes()
    html = get_html(web)
    error = block(html, '<p class="error" id="ig-claude-code-settings-error" role="alert">', "</p>")
    assert "Refused:" in error
    plans = block(html, 'id="integrations-plan-claude-code"', "</section>")
    assert f'action="{APPLY}"' not in plans
    assert f'action="{REMOVE}"' not in plans
    assert 'id="ig-claude-code-apply"' not in html

    for url in (APPLY, REMOVE):
        response = post(web, url, {"mode": "command", "expect": "0123456789ab", "confirmed": "yes"})
        assert response.status_code == 409, url
        assert "Refused:" in block(response.content.decode(), 'id="refusal"', "</p>")
    assert settings_file.read_bytes() == before
    assert backups(settings_file) == []


def test_the_bearer_token_cannot_apply_remove_or_run_the_check(profile, bin_dir, settings_file):
    bearer = Client(HTTP_AUTHORIZATION=f"Bearer {current_token()}")
    assert bearer.get(PAGE).status_code == 200  # reading is signed in
    expect = make_plan(settings_file, target(), action="apply").hash
    for url in (APPLY, REMOVE, CHECK):
        response = bearer.post(url, {"mode": "command", "expect": expect, "confirmed": "yes"})
        assert response.status_code == 403, url
        assert "not with the Bearer token" in response.content.decode()
    assert not settings_file.exists()


def test_a_cookie_write_without_the_csrf_token_or_from_another_site_is_refused(web, settings_file):
    expect = form_hash(apply_part(get_html(web)))
    data = {"mode": "command", "expect": expect, "confirmed": "yes"}
    for url in (APPLY, REMOVE, CHECK):
        response = web.post(url, data, **write_headers())
        assert response.status_code == 403, url
        assert "CSRF" in response.content.decode()
        foreign = web.post(
            url,
            {**data, "csrf_token": csrf()},
            HTTP_ORIGIN="http://evil.example",
            HTTP_HOST="testserver",
        )
        assert foreign.status_code == 403, url
    assert not settings_file.exists()


# --- 9. a forged flash -------------------------------------------------------------------------


def _flash_cookie(message: str) -> str:
    request = RequestFactory().get(PAGE)
    return flash.redirect_with(request, PAGE, flash.Flash(message)).cookies[flash.COOKIE].value


def test_a_flash_cookie_with_a_wrong_signature_is_not_shown_and_is_deleted(web):
    real = _flash_cookie("Made by the server.")
    web.cookies[flash.COOKIE] = real
    assert "Made by the server." in get_html(web)

    body, mac = real.split(".")
    swapped = ("B" if body[0] != "B" else "C") + body[1:]
    forged_body = json.dumps({"m": "Forged!", "ok": True, "i": []}).encode()
    other = base64.urlsafe_b64encode(forged_body).decode().rstrip("=")
    for forged in (f"{swapped}.{mac}", f"{other}.{mac}", other, f"{body}.{mac[:-1]}x"):
        web.cookies[flash.COOKIE] = forged
        response = web.get(PAGE)
        html = response.content.decode()
        assert 'id="flash"' not in html, forged
        assert "Forged!" not in html
        assert "Made by the server." not in html
        assert response.cookies[flash.COOKIE]["max-age"] == 0, forged
        assert response.cookies[flash.COOKIE].value == ""


# --- 10. Run check ---------------------------------------------------------------------------


def check_rows(html: str) -> list[tuple[str, str, str]]:
    items = block(html, '<ul class="ig-check" id="ig-check-items">', "</ul>")
    return re.findall(
        r'<span class="state-pill is-(?:ok|bad)">(ok|FAIL)</span> <span><strong>([^<]+)</strong>: '
        r"([^<]*?)(?:\. Fix: <code[^>]*>[^<]*</code>)?</span></li>",
        items,
    )


def test_run_check_without_htmx_redirects_and_shows_the_items_once(web, quiet_port):
    response = post(web, CHECK, {"mode": "command"})
    assert response.status_code == 303
    assert response["Location"] == "/settings/integrations?mode=command"
    assert response.cookies[flash.COOKIE]["max-age"] == 60

    html = get_html(web, response["Location"])
    rows = check_rows(html)
    assert ("FAIL", "relaybay server", f"{quiet_port}: nothing listens") in rows
    port = quiet_port.rsplit(":", 1)[1]
    # Every failed item ends with the command that fixes it (issue 13 §5).
    # The fixes carry the flags of this server (its data folder, its port) to paste as is.
    fixes = re.findall(r'\. Fix: <code class="ig-fix">([^<]*)</code>', html)
    assert len(fixes) == 1
    assert fixes[0].startswith("relaybay serve ")
    assert fixes[0].endswith(f"--port {port}")
    # No settings file, no ~/.claude.json, no config.toml, no .gemini: no agent is connected, so
    # each is one ok line naming the command that connects it (as `relaybay doctor` says).
    flags = f"--home {django_settings.RELAYBAY.home_path} --port {port}"
    assert rows[1:] == [
        ("ok", "Claude Code", f"not connected (to connect: relaybay setup --apply {flags})"),
        (
            "ok",
            "Codex",
            f"not connected (to connect: relaybay setup --agent codex --apply {flags})",
        ),
        (
            "ok",
            "Gemini CLI",
            f"not connected (to connect: relaybay setup --agent gemini --apply {flags})",
        ),
    ]
    summary = "Check: 1 of 4 items failed."
    assert f'<p class="ig-check-summary" role="status">{summary}</p>' in html
    assert 'id="flash"' not in html  # the check results are the flash, shown in place

    later = get_html(web, response["Location"])
    assert 'id="ig-check-items"' not in later
    assert "Run check</button>" in later


def test_run_check_with_htmx_answers_only_the_check_section(web, quiet_port):
    response = post(web, CHECK, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert flash.COOKIE not in response.cookies
    html = response.content.decode()
    assert '<section class="ig-panel" id="integrations-check"' in html
    assert "<html" not in html
    assert 'id="integrations-plan-claude-code"' not in html
    rows = check_rows(html)
    assert rows[0][:2] == ("FAIL", "relaybay server")
    assert f'<input type="hidden" name="csrf_token" value="{csrf()}">' in html  # run it again
    failed = sum(state == "FAIL" for state, _, _ in rows)
    assert f"Check: {failed} of {len(rows)} items failed." in html


def test_run_check_checks_claude_code_once_relaybays_hooks_are_in_its_settings(
    web, quiet_port, settings_file
):
    write_plan(make_plan(settings_file, target(), action="apply", mode="command"))
    rows = check_rows(post(web, CHECK, HTTP_HX_REQUEST="true").content.decode())
    assert [(state, name) for state, name, _ in rows] == [
        ("FAIL", "relaybay server"),
        ("ok", "hooks in user settings"),
        ("ok", "command hook runs"),
        ("ok", "approvals from the board"),  # PreToolUse, PermissionRequest carry --hold
        ("FAIL", "MCP registered"),
        ("ok", "Codex"),
        ("ok", "Gemini CLI"),
    ]
    detected = block(get_html(web), 'id="integrations-claude-code"', "</section>")
    assert '<span class="state-pill is-bad">Not found</span>' in detected  # connected, no CLI


# --- 11. unlinked hook sessions -------------------------------------------------------------


def unlinked_section(html: str) -> str:
    return block(html, '<section class="ig-panel" id="integrations-unlinked"', "</section>")


def test_with_every_hook_session_linked_the_page_says_none(web):
    section = unlinked_section(get_html(web))
    assert "None: every hook session is linked" in section
    assert 'class="ig-unlinked-row"' not in section


def test_an_unlinked_hook_session_is_listed_with_its_reason(web):
    session = _ambiguous_hook_session()
    assert session.unlinked_reason
    section = unlinked_section(get_html(web))
    assert "None: every hook session" not in section
    assert f"<strong>{escape(session.name)}</strong>" in section
    assert f"<code>{session.agent_session_id}</code>" in section
    assert "several projects" in section
    assert f'<p class="ig-reason">{escape(session.unlinked_reason)}</p>' in section
    assert '<span class="count">1</span>' in section

    response = web.get("/settings/integrations/unlinked")
    assert response.status_code == 200
    fragment = response.content.decode()
    assert "<html" not in fragment
    assert unlinked_section(fragment) == section


# --- 12. escaping ---------------------------------------------------------------------------


def test_a_user_hook_with_markup_is_shown_escaped_in_the_diff(web, settings_file):
    evil = {"type": "command", "command": f"echo {EVIL}"}
    settings_file.write_text(
        json.dumps({"hooks": {event: [{"hooks": [evil]}] for event in EVENTS}}, indent=2) + "\n"
    )
    html = get_html(web)
    diff = diff_text(apply_part(html))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in diff
    assert EVIL not in html

    expect = form_hash(apply_part(html))
    confirm = post(web, APPLY, {"mode": "command", "expect": expect})
    assert confirm.status_code == 200
    page = confirm.content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in diff_text(page)
    assert EVIL not in page
