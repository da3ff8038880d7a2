"""Settings → Integrations shows Codex beside Claude Code (issue 30 item 4), through Django's
test client: a throwaway HOME and CODEX_HOME, a fake `codex` on PATH or none."""

from __future__ import annotations

import re
import shutil
import socket
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client

from agents.codex.setup.plan import make_codex_plan
from agents.setup.plan import write_plan
from agents.setup.target import server_target
from core import tokens
from core.config import Config
from core.security import COOKIE_NAME, current_token

pytestmark = pytest.mark.django_db

PAGE = "/settings/integrations"
CHECK = "/settings/integrations/check"
HAND_WRITTEN = Path(__file__).parent / "corpus" / "codex_hand_written.toml"
FAKE_CODEX = """#!/bin/sh
case "$*" in
  --version) echo "codex-cli 0.169.0";;
  "mcp add --help") echo "  --bearer-token-env-var <ENV_VAR>";;
esac
"""


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and CODEX_HOME under tmp_path, an empty PATH: no Claude Code, no Codex."""
    (tmp_path / "profile" / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "profile"))
    folder = tmp_path / "codex"
    folder.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(folder))
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    return folder


@pytest.fixture
def web(codex_home: Path) -> Client:
    c = Client()
    c.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return c


@pytest.fixture
def quiet_port(settings) -> Iterator[str]:
    """The server's base URL moved to a port that is bound but never listens."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    cfg = django_settings.RELAYBAY
    settings.RELAYBAY = Config({**cfg, "port": sock.getsockname()[1]}, dict(cfg.sources))
    try:
        yield settings.RELAYBAY.base_url
    finally:
        sock.close()


def fake_codex(tmp_path: Path) -> Path:
    exe = tmp_path / "bin" / "codex"
    exe.write_text(FAKE_CODEX)
    exe.chmod(0o755)
    return exe


def codex_section(client: Client) -> str:
    response = client.get(PAGE)
    assert response.status_code == 200
    html = response.content.decode()
    found = re.search(r'<section class="ig-panel" id="integrations-codex".*?</section>', html, re.S)
    assert found is not None
    return found[0]


def rows(html: str) -> list[tuple[str, str]]:
    return re.findall(
        r'state-pill is-(?:ok|bad)">(ok|FAIL)</span> <span><strong>([^<]+)</strong>', html
    )


def apply_codex(codex_home: Path) -> Path:
    config = codex_home / "config.toml"
    shutil.copyfile(HAND_WRITTEN, config)
    write_plan(make_codex_plan(config, server_target(django_settings.RELAYBAY)))
    return config


def test_without_codex_the_section_says_so_and_how_to_connect(web, codex_home) -> None:
    section = codex_section(web)
    assert "Not found</span>" in section
    assert 'id="ig-codex-none"' in section
    assert (
        f"no relaybay hooks or MCP server in <code>{codex_home / 'config.toml'}</code>" in section
    )
    assert "Connect Codex</h3>" in section
    assert 'id="ig-codex-items"' not in section
    assert "ig-fix" not in section
    assert "[mcp_servers.relaybay]" in section  # no codex: the table, not `codex mcp add`
    assert "bearer_token_env_var = &quot;RELAYBAY_TOKEN&quot;" in section
    home = django_settings.RELAYBAY.home_path
    assert unescape(f'export RELAYBAY_TOKEN="$(cat {home / "token"})"') in unescape(section)
    assert current_token() not in section


def test_a_codex_on_path_that_was_never_connected_is_not_failed(web, codex_home, tmp_path):
    """`codex` on the server's PATH and a config.toml without relaybay: not connected, so
    the section shows how to connect it and no failed item."""
    shutil.copyfile(HAND_WRITTEN, codex_home / "config.toml")
    exe = fake_codex(tmp_path)
    section = codex_section(web)
    assert f"<code>{exe}</code> version 0.169.0" in section
    assert 'id="ig-codex-none"' in section
    assert "Not connected: no relaybay hooks or MCP server in" in section
    assert rows(section) == []
    assert "Connect Codex</h3>" in section


def test_with_relaybays_hooks_each_item_shows_with_its_fix(web, codex_home, tmp_path) -> None:
    apply_codex(codex_home)
    exe = fake_codex(tmp_path)
    section = codex_section(web)
    assert f"<code>{exe}</code> version 0.169.0" in section
    assert rows(section) == [
        ("ok", "Codex hooks in config.toml"),
        ("ok", "Codex hooks trusted"),
        ("ok", "Codex hook command runs"),
        ("ok", "Codex approvals from the board"),  # the hooks Codex waits on carry --hold
        ("FAIL", "Codex MCP registered"),
        ("FAIL", "Codex hook event seen"),
    ]
    fixes = re.findall(r'Fix: <code class="ig-fix">([^<]*)</code>', section)
    base = django_settings.RELAYBAY.base_url
    assert fixes == [
        f"codex mcp add relaybay --url {base}/mcp --bearer-token-env-var RELAYBAY_TOKEN",
        "start a Codex session (codex, in a project folder), then check again",
    ]
    assert "Set up again</h3>" in section
    assert "relaybay setup --agent codex" in section


def test_run_check_adds_codex_after_claude_code_when_it_is_there(
    web, codex_home, quiet_port
) -> None:
    def check() -> list[tuple[str, str]]:
        response = web.post(
            CHECK,
            {"csrf_token": tokens.csrf_token(current_token())},
            HTTP_ORIGIN="http://testserver",
            HTTP_HOST="testserver",
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 200
        return rows(response.content.decode())

    # no agent connected: one ok line each, naming the command that connects it
    assert check() == [
        ("FAIL", "relaybay server"),
        ("ok", "Claude Code"),
        ("ok", "Codex"),
        ("ok", "Gemini CLI"),
    ]
    apply_codex(codex_home)
    names = [name for _, name in check()]
    # nothing listens, so no hook endpoint is asked; the file items and the database are read
    assert names == [
        "relaybay server",
        "Claude Code",
        "Codex hooks in config.toml",
        "Codex hooks trusted",
        "Codex hook command runs",
        "Codex approvals from the board",
        "Codex MCP registered",
        "Codex hook event seen",
        "Gemini CLI",
    ]


def _write_from_page(web: Client, action: str, expect: str) -> None:
    """Apply or Remove Codex's plan as the page's two forms do: confirm, then write."""
    from tests.test_views_integrations import post

    url = f"/settings/integrations/{action}"
    data = {"agent": "codex", "mode": "command", "expect": expect}
    confirm = post(web, url, data)
    assert confirm.status_code == 200
    assert '<input type="hidden" name="agent" value="codex">' in confirm.content.decode()
    done = post(web, url, {**data, "confirmed": "yes"})
    assert done.status_code == 303, done.content
    assert "Restart Codex sessions" in web.get(done["Location"]).content.decode()


def _codex_hash(web: Client, action: str) -> str:
    html = web.get(PAGE).content.decode()
    part = re.search(rf'id="ig-codex-{action}">.*?</div>', html, re.S)
    assert part is not None
    found = re.search(r'name="expect" value="([0-9a-f]+)"', part[0])
    assert found is not None, part[0]
    return found[1]


def test_codex_is_applied_and_removed_from_the_page_byte_for_byte(web, codex_home) -> None:
    config = codex_home / "config.toml"
    shutil.copyfile(HAND_WRITTEN, config)
    before = config.read_bytes()

    _write_from_page(web, "apply", _codex_hash(web, "apply"))
    written = config.read_text()
    assert "/hooks/codex" in written
    assert written.startswith(before.decode()[:40])
    assert list(codex_home.glob("config.toml.*")), "a backup beside config.toml"

    _write_from_page(web, "remove", _codex_hash(web, "remove"))
    assert config.read_bytes() == before


def test_a_stale_codex_plan_is_refused_and_writes_nothing(web, codex_home) -> None:
    from tests.test_views_integrations import post

    config = codex_home / "config.toml"
    shutil.copyfile(HAND_WRITTEN, config)
    expect = _codex_hash(web, "apply")
    config.write_bytes(config.read_bytes() + b"\n# edited meanwhile\n")
    before = config.read_bytes()
    data = {"agent": "codex", "mode": "command", "expect": expect, "confirmed": "yes"}
    refused = post(web, "/settings/integrations/apply", data)
    assert refused.status_code == 409
    assert "changed since the plan was shown" in refused.content.decode()
    assert config.read_bytes() == before


def test_an_unknown_agent_is_a_400_that_names_the_agents(web, codex_home) -> None:
    from tests.test_views_integrations import post

    refused = post(web, "/settings/integrations/apply", {"agent": "nope", "expect": "x"})
    assert refused.status_code == 400
    text = refused.content.decode()
    assert "Unknown agent &#x27;nope&#x27;: choose claude-code or codex" in text
    assert web.get(PAGE + "?agent=nope").status_code == 400
