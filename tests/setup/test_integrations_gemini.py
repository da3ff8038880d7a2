"""Settings → Integrations' Gemini CLI panel through Django's test client (a throwaway HOME
and GEMINI_CLI_HOME, no `gemini` on PATH): the --session-id way a script ties Gemini's MCP
calls to its session (relaybay's MCP server reads X-Relaybay-Session), and once setup's
hooks are in, the line that says the guard's ask can be approved on the board."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client

from agents.gemini_cli.setup import detect
from agents.gemini_cli.setup.plan import make_plan
from agents.setup.plan import write_plan
from agents.setup.target import server_target
from core import tokens
from core.security import COOKIE_NAME, current_token

pytestmark = pytest.mark.django_db

PAGE = "/settings/integrations"


@pytest.fixture
def gemini_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "profile"))
    folder = tmp_path / "gemini"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(folder))
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    return folder


def gemini_section(gemini_home: Path) -> str:
    client = Client()
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    response = client.get(PAGE)
    assert response.status_code == 200
    found = re.search(
        r'<section class="ig-panel" id="integrations-gemini".*?</section>',
        response.content.decode(),
        re.S,
    )
    assert found is not None
    return unescape(re.sub(r"<[^>]+>", "", found[0]))


def test_the_panel_offers_the_session_id_way_for_scripts(gemini_home) -> None:
    text = gemini_section(gemini_home)
    assert "start it with --session-id <id> and RELAYBAY_SESSION=<id>" in text
    assert '"X-Relaybay-Session": "${RELAYBAY_SESSION}"' in text


def test_once_connected_the_panel_says_the_guards_ask_waits_for_the_board(gemini_home) -> None:
    target = server_target(django_settings.RELAYBAY)
    write_plan(make_plan(detect.settings_file(gemini_home), target))
    text = " ".join(gemini_section(gemini_home).split())
    assert (
        "Gemini approvals from the board: BeforeTool waits up to 9 min for you; only the "
        "guard's ask can be approved on the board" in text
    )
