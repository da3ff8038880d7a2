"""Decide first, store second (issue 38): what a hook observes is masked, never refused, and
the guard's answer never depends on storing it. Real Claude Code payloads through the hook
service and a real SQLite database; the failures are made by the database's own last line
(or a failing step), never by a stand-in for the guard."""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import pytest
from django.db import connection

from agents.claude_code.hooks import hook_event
from sessions.fields import stored_agent_id
from sessions.hooks import waiting
from sessions.models import Session, SessionTodo
from tasks.models import Event
from tests.environments.factories import live_stand
from tests.sessions.hook_payloads import CWD, payload
from tests.support.tokens import aws_key_id, slack_bot
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db
OWNER = "owner"
TOKEN = aws_key_id()  # a token shape that fits an agent's session id as well
SLACK = slack_bot()
PG = "PGPASSWORD=Hunter2pw"


@pytest.fixture(autouse=True)
def acme() -> None:
    make_project("acme-shop", repo_path=CWD)
    ssh = {"kind": "ssh", "fields": {"alias": "prod-alias", "host": "10.0.0.5"}}
    live_stand("acme-shop", [ssh], mode="block")


def stored_anywhere(*literals: str) -> list[str]:
    """Every table.column holding any of the literals (or it lowercased)."""
    found = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            for column in connection.introspection.get_table_description(cursor, table):
                for literal in literals:
                    text = f'CAST("{column.name}" AS TEXT)'
                    cursor.execute(
                        f'SELECT COUNT(*) FROM "{table}" WHERE {text} LIKE %s OR {text} LIKE %s',
                        [f"%{literal}%", f"%{literal.lower()}%"],
                    )
                    if cursor.fetchone()[0]:
                        found.append(f"{table}.{column.name}")
    return found


def remote_rm(session_id: str, cwd: str) -> dict[str, Any] | None:
    body = payload(
        "PreToolUse.Bash",
        session_id=session_id,
        cwd=cwd,
        tool_input={"command": "ssh prod-alias rm -rf /srv/x", "description": "x"},
    )
    return hook_event(payload=body).answer


def decision(answer: dict[str, Any] | None) -> str | None:
    return None if answer is None else answer["hookSpecificOutput"].get("permissionDecision")


@pytest.mark.parametrize(
    "folder",
    [f"{CWD}/worktrees/{TOKEN}-fix-login", f"{CWD}/{PG}", f"{CWD}/wt/{SLACK}"],
)
def test_a_secret_shaped_folder_keeps_the_guard_and_the_session(folder: str, caplog) -> None:
    caplog.set_level(logging.INFO)
    start = payload("SessionStart.startup.print", session_id=str(uuid.uuid4()), cwd=folder)
    answer = hook_event(payload=start).answer
    assert "Your relaybay hook session:" in answer["hookSpecificOutput"]["additionalContext"]
    assert decision(remote_rm(start["session_id"], folder)) == "deny"
    session = Session.objects.get()
    assert session.project is not None
    assert session.project.slug == "acme-shop"
    assert "***" in session.cwd
    assert Event.objects.filter(kind="live.action").count() == 1
    assert stored_anywhere(TOKEN, SLACK, "Hunter2pw") == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_token_shaped_session_id_gets_a_stable_stand_in() -> None:
    first = hook_event(payload=payload("SessionStart.startup.print", session_id=TOKEN)).answer
    stand_in = stored_agent_id(TOKEN)
    assert stand_in.startswith("masked-")
    assert stand_in == stored_agent_id(TOKEN)
    assert f"Your relaybay hook session: {stand_in}." in json.dumps(first)
    assert decision(remote_rm(TOKEN, CWD)) == "deny"
    assert Session.objects.get().agent_session_id == stand_in  # one session, both events
    assert stored_anywhere(TOKEN) == []


def test_every_observed_text_is_masked_never_refused(caplog) -> None:
    sid = str(uuid.uuid4())
    hook_event(payload=payload("SessionStart.startup.print", session_id=sid, source=f"x {PG}"))
    note = payload("Notification.permission_prompt.interactive", session_id=sid)
    note["message"] = f"Claude needs your permission ({SLACK})"
    hook_event(payload=note)
    todo = payload("PostToolUse.TaskCreate", session_id=sid)
    todo["tool_input"]["subject"] = f"rotate {TOKEN} then export {PG}"
    hook_event(payload=todo)
    hook_event(payload=payload("SessionEnd.other.print", session_id=sid, reason=PG))
    assert stored_anywhere(TOKEN, SLACK, "Hunter2pw") == []
    assert SessionTodo.objects.exists()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_refused_bookkeeping_is_one_error_line_and_the_deny_still_goes_out(
    monkeypatch, caplog
) -> None:
    """Were an observation ever to reach the database's last line unmasked (a bug, made
    here by switching the masking off), the real last line refuses the session row; the
    hook says so in one line without a traceback, and the guard's answer stands."""
    from sessions.hooks import service

    monkeypatch.setattr(service, "observe", lambda event, values: event)
    caplog.set_level(logging.INFO)
    assert decision(remote_rm(str(uuid.uuid4()), f"{CWD}/wt/{SLACK}")) == "deny"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
    assert errors[0].exc_info is None
    assert "refused the session's bookkeeping, a bug" in errors[0].getMessage()
    assert SLACK not in errors[0].getMessage()
    assert Event.objects.filter(kind="live.action").count() == 1
    assert not Session.objects.exists()
    assert stored_anywhere(SLACK) == []


def test_a_journal_that_fails_does_not_take_the_deny_back(monkeypatch, caplog) -> None:
    from sessions.hooks import guard as hook_guard

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(hook_guard, "live_action_record", broken)
    assert decision(remote_rm(str(uuid.uuid4()), CWD)) == "deny"
    assert any("journal entry" in r.getMessage() for r in caplog.records)


def test_a_waiting_line_masks_the_stored_test_secret_values() -> None:
    line = waiting.summary("Bash", "psql -c 'select 1' --pw-hint Tst-Value-7", ("Tst-Value-7",))
    assert "Tst-Value-7" not in line
    assert "***" in line


def test_the_quick_look_of_safe_text_misses_no_token_of_the_corpus() -> None:
    from environments.secrets import _may_hold_secret, safe_text
    from tests.environments.test_secret_corpus import TOKENS

    for line, _ in TOKENS:
        assert _may_hold_secret(line), line
        assert safe_text(line) != line, line


def test_a_touched_path_holding_an_assignment_is_kept_masked() -> None:
    from sessions.models import TouchedPath

    body = payload(
        "PreToolUse.Bash",
        session_id=str(uuid.uuid4()),
        tool_name="Write",
        tool_input={"file_path": f"{CWD}/notes/{PG}", "content": "x"},
    )
    hook_event(payload=body)
    assert list(TouchedPath.objects.values_list("path", flat=True)) == ["notes/PGPASSWORD=***"]
    assert stored_anywhere("Hunter2pw") == []
