"""Settings → Integrations against a real `relaybay serve` over real HTTP (§5, §9).

The server runs with HOME set to a throwaway folder, so the page reads and writes that
folder's .claude/settings.json (Path.home()). Each test starts from the same seeded
settings file, so the tests share one server but not their order.
"""

from __future__ import annotations

import html
import http.client
import json
import re
import shlex
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from urllib.parse import urlencode

import pytest

from agents.claude_code.setup.entries import EVENTS, HOOK_PATH
from core import tokens
from core.flash import COOKIE as FLASH_COOKIE
from core.security import COOKIE_NAME
from tests.support.server import (
    RelaybayServer,
    profile_env,
    run_cli,
    seed_claude_settings,
    write_fake_claude,
)

pytestmark = pytest.mark.integration

PAGE = "/settings/integrations"
# A user's own settings: relaybay must keep all of it and only add its entries.
SEED = {
    "model": "opus",
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send 'Claude Code' done"}]}]
    },
}


@dataclass
class Reply:
    status: int
    headers: Message
    body: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def cookie(self, name: str) -> dict[str, str] | None:
        """The Set-Cookie of `name`: {"value": …, "httponly": "", "max-age": …, …}."""
        for raw in self.headers.get_all("Set-Cookie") or []:
            first, *attributes = (part.strip() for part in raw.split(";"))
            key, _, value = first.partition("=")
            if key != name:
                continue
            parsed = {"value": value}
            for attribute in attributes:
                k, _, v = attribute.partition("=")
                parsed[k.lower()] = v
            return parsed
        return None


@dataclass
class Machine:
    """The server and the Claude Code profile (its HOME) the page works on."""

    server: RelaybayServer
    claude_home: Path

    @property
    def settings_file(self) -> Path:
        return self.claude_home / ".claude" / "settings.json"

    def request(
        self,
        method: str,
        path: str,
        *,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        flash: str | None = None,
    ) -> Reply:
        """One signed-in request on its own connection; redirects are not followed."""
        token = self.server.token
        cookie = f"{COOKIE_NAME}={tokens.cookie_value(token)}"
        if flash is not None:
            cookie += f"; {FLASH_COOKIE}={flash}"
        sent = {"Host": f"127.0.0.1:{self.server.port}", "Cookie": cookie, **(headers or {})}
        body = None
        if form is not None:
            body = urlencode({"csrf_token": tokens.csrf_token(token), **form})
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            sent["Origin"] = self.server.base_url
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        started = time.monotonic()
        try:
            conn.request(method, path, body=body, headers=sent)
            response = conn.getresponse()
            data = response.read()
            return Reply(response.status, response.headers, data, time.monotonic() - started)
        finally:
            conn.close()


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Machine]:
    root = tmp_path_factory.mktemp("integrations")
    claude_home = root / "profile"
    bin_dir = root / "bin"
    write_fake_claude(bin_dir)
    env = profile_env(claude_home, bin_dir)
    server = RelaybayServer(home=root / "data", env=env)
    # The MCP registration Claude Code would hold (the port is known before the start).
    claude_home.mkdir()
    registration = {"mcpServers": {"relaybay": {"type": "http", "url": server.base_url + "/mcp"}}}
    (claude_home / ".claude.json").write_text(json.dumps(registration))
    server.start()
    yield Machine(server, claude_home)
    server.stop()


@pytest.fixture
def ig(machine: Machine) -> Machine:
    """The machine with the seeded settings file and no backups, whatever ran before."""
    seed_claude_settings(machine.settings_file, SEED)
    return machine


def check_items(page: str) -> dict[str, tuple[bool, str]]:
    """The check results on a page or partial: name → (ok, detail)."""
    found = {}
    pill_name = (
        r'<span class="state-pill is-(?:ok|bad)">(ok|FAIL)</span> <span><strong>(.*?)</strong>'
    )
    for pill, name, detail in re.findall(pill_name + r": (.*?)</span></li>", page):
        found[html.unescape(name)] = (pill == "ok", html.unescape(detail))
    return found


def apply_hash(page: str) -> str:
    """The plan hash the Apply form of the page carries."""
    section = page.split('id="ig-claude-code-apply"', 1)[1].split('id="ig-claude-code-remove"', 1)[
        0
    ]
    return re.search(r'name="expect" value="([0-9a-f]{12})"', section).group(1)


def apply_through_the_page(ig: Machine) -> Reply:
    """Apply → confirmation → Write the settings, as a browser without JavaScript does."""
    page = ig.request("GET", PAGE + "?mode=command")
    assert page.status == 200, page.text
    expect = apply_hash(page.text)

    confirm = ig.request("POST", PAGE + "/apply", form={"mode": "command", "expect": expect})
    assert confirm.status == 200, confirm.text
    assert "<h1>Apply relaybay's hooks?</h1>" in confirm.text
    assert "Write the settings" in confirm.text
    assert f'name="expect" value="{expect}"' in confirm.text
    assert 'name="confirmed" value="yes"' in confirm.text

    written = ig.request(
        "POST",
        PAGE + "/apply",
        form={"mode": "command", "expect": expect, "confirmed": "yes"},
    )
    assert written.status == 303, written.text
    assert written.headers["Location"] == PAGE + "?mode=command"
    return written


def relaybay_commands(settings: dict, base_url: str) -> dict[str, list[str]]:
    """Per event, the argument list of the command hook pointing at this server."""
    found = {}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                if hook.get("type") == "command" and base_url + HOOK_PATH in hook["command"]:
                    found[event] = shlex.split(hook["command"])
    return found


def test_the_plain_check_form_answers_303_with_the_flash_and_the_page_shows_it_once(ig):
    reply = ig.request("POST", PAGE + "/check", form={"mode": "command"})

    assert reply.status == 303, reply.text
    assert reply.headers["Location"] == PAGE + "?mode=command"
    cookie = reply.cookie(FLASH_COOKIE)
    assert cookie is not None, reply.headers.get_all("Set-Cookie")
    assert "httponly" in cookie
    assert cookie["samesite"] == "Strict"
    assert cookie["max-age"] == "60"
    assert cookie["path"] == "/"
    # The check called this very server from inside the request: no deadlock, no timeout.
    assert reply.seconds < 15

    page = ig.request("GET", reply.headers["Location"], flash=cookie["value"])
    assert page.status == 200
    items = check_items(page.text)
    server_ok, server_detail = items["relaybay server"]
    assert server_ok, server_detail
    assert "with the same token" in server_detail
    assert items["MCP with the token"][0], items["MCP with the token"]
    assert items["hook endpoint"][0], items["hook endpoint"]
    hooks_ok, hooks_detail = items["hooks in user settings"]
    assert not hooks_ok
    assert f"no relaybay hooks for {ig.server.base_url}" in hooks_detail
    # Codex, never connected here, is one ok line with the command that connects it
    codex_ok, codex_detail = items["Codex"]
    assert codex_ok
    assert codex_detail.startswith("not connected (to connect: relaybay setup --agent codex")
    gemini_ok, gemini_detail = items["Gemini CLI"]  # so is Gemini CLI
    assert gemini_ok
    assert gemini_detail.startswith("not connected (to connect: relaybay setup --agent gemini")
    assert "Check: 1 of 7 items failed." in page.text
    # Shown once: the page deletes the cookie.
    gone = page.cookie(FLASH_COOKIE)
    assert gone is not None
    assert gone["value"] in ("", '""')
    assert gone["max-age"] == "0"

    again = ig.request("GET", PAGE)
    assert check_items(again.text) == {}


def test_a_forged_flash_cookie_is_ignored(ig):
    page = ig.request("GET", PAGE, flash="eyJtIjoiaGkifQ.0000")
    assert page.status == 200
    assert 'id="flash"' not in page.text
    assert check_items(page.text) == {}


def test_apply_through_the_page_writes_the_hooks_then_the_htmx_check_passes(ig):
    before = ig.settings_file.read_bytes()
    base_url = ig.server.base_url

    written = apply_through_the_page(ig)

    text = ig.settings_file.read_text()
    settings = json.loads(text)
    assert settings["model"] == "opus"
    assert settings["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send 'Claude Code' done"
    commands = relaybay_commands(settings, base_url)
    assert sorted(commands) == sorted(EVENTS)
    token_file = str(ig.server.home / "token")
    for event, args in commands.items():
        assert args[1:4] == ["-I", "-m", "relaybay.hook_client"], event
        assert args[args.index("--url") + 1] == base_url + HOOK_PATH, event
        assert args[args.index("--token-file") + 1] == token_file, event
    assert ig.server.token not in text
    [backup] = ig.settings_file.parent.glob("settings.json.relaybay-backup-*")
    assert backup.read_bytes() == before

    page = ig.request(
        "GET", written.headers["Location"], flash=written.cookie(FLASH_COOKIE)["value"]
    )
    message = html.unescape(
        re.search(r'<p class="flash is-ok" id="flash" role="status">(.*?)</p>', page.text).group(1)
    )
    assert message.startswith(f"Wrote {ig.settings_file}. Backup: {backup}.")
    assert "Nothing to apply" in page.text

    check = ig.request(
        "POST", PAGE + "/check", form={"mode": "command"}, headers={"HX-Request": "true"}
    )
    assert check.status == 200, check.text
    assert check.cookie(FLASH_COOKIE) is None
    assert '<section class="ig-panel" id="integrations-check"' in check.text
    assert "<html" not in check.text
    items = check_items(check.text)
    assert all(ok for ok, _ in items.values()), items
    assert items["hooks in user settings"] == (
        True,
        f"all 8 events point at {base_url} in {ig.settings_file}",  # PermissionRequest too
    )
    assert items["command hook runs"][0]
    assert items["approvals from the board"] == (
        True,
        "PreToolUse and PermissionRequest wait up to 9 min for you",
    )
    # Codex's and Gemini CLI's "not connected" lines included
    assert "Check: all 9 items ok." in check.text


def test_the_cli_agrees_with_what_the_page_wrote(ig):
    apply_through_the_page(ig)
    common = ("--port", str(ig.server.port), "--claude-home", str(ig.claude_home))

    check = run_cli("setup", "--check", "--json", *common, home=ig.server.home)
    assert check.returncode == 0, check.stdout + check.stderr
    items = {i["name"]: i for i in json.loads(check.stdout)}
    assert items["hooks in user settings"]["ok"], items["hooks in user settings"]
    assert items["relaybay server"]["ok"], items["relaybay server"]

    dry = run_cli("setup", *common, home=ig.server.home)
    assert dry.returncode == 0, dry.stderr
    assert "No change: the settings file already is as planned." in dry.stdout


def test_a_file_changed_after_the_confirmation_is_refused_with_the_new_plan(ig):
    page = ig.request("GET", PAGE + "?mode=command")
    shown = apply_hash(page.text)
    confirm = ig.request("POST", PAGE + "/apply", form={"mode": "command", "expect": shown})
    assert confirm.status == 200
    edited = {**SEED, "model": "sonnet"}
    ig.settings_file.write_text(json.dumps(edited, indent=2) + "\n")

    refused = ig.request(
        "POST", PAGE + "/apply", form={"mode": "command", "expect": shown, "confirmed": "yes"}
    )

    assert refused.status == 409, refused.text
    assert refused.cookie(FLASH_COOKIE) is None
    assert f"{ig.settings_file} changed since the plan was shown" in html.unescape(refused.text)
    assert 'id="refusal"' in refused.text
    new = apply_hash(refused.text)
    assert new != shown
    assert json.loads(ig.settings_file.read_text()) == edited
    assert list(ig.settings_file.parent.glob("settings.json.relaybay-backup-*")) == []
