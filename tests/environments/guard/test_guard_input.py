"""What the guard reads of a call and what the journal keeps of it (§7 Guard, Journal of
actions on live): an MCP input's keyed secrets masked in the journal, and a call cut at any
cap — 8 KB of text, the values of an MCP input — failing closed like one past 200 segments.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from agents.claude_code.hooks import hook_event
from environments.guard import Verdict, decide, read_call
from environments.guard.reading import MAX_INPUT_NODES, READ_LIMIT
from tasks.models import Event
from tests.environments.factories import live_stand
from tests.environments.guard.stands import as_call, bash, live
from tests.sessions.hook_payloads import CWD, payload
from tests.tasks.factories import make_project

PASSWORD = "Hunter2-correct-horse"


def mcp(tool_input: dict[str, Any], *stands: Any, tool: str = "mcp__pg__query") -> Verdict:
    return decide(as_call(tool, tool_input), list(stands))


# --- the journal reads key: value -------------------------------------------------------------


def test_the_journal_masks_a_value_whose_key_says_secret() -> None:
    verdict = mcp(
        {"password": PASSWORD, "db": "shop", "sql": "select 1", "host": "db.live.example"},
        live("block"),
    )
    journal = verdict.journal_command()
    assert PASSWORD not in journal
    assert journal == "password: *** db: shop sql: select 1 host: db.live.example"


def test_a_user_value_keeps_its_user_and_masks_its_password() -> None:
    verdict = mcp({"host": "db.live.example", "user": f"admin:{PASSWORD}"}, live("block"))
    assert verdict.journal_command() == "host: db.live.example user: admin:***"
    kept = mcp({"host": "db.live.example", "login": "admin:$DB_PASSWORD"}, live("block"))
    assert kept.journal_command() == "host: db.live.example login: admin:$DB_PASSWORD"


@pytest.mark.parametrize(
    "tool_input",
    [
        {"connection": {"host": "db.live.example", "auth": {"pwd": PASSWORD}}},
        {"host": "db.live.example", "api_keys": ["k1-" + PASSWORD, PASSWORD]},
        {"host": "db.live.example", "credentials": {"value": PASSWORD}},  # under a secret key
        {"host": "db.live.example", "steps": [{"x": 1}, [{"PRIVATE_KEY": PASSWORD}]]},
        {"host": "db.live.example", "Token": f"  {PASSWORD} with spaces  "},
    ],
    ids=["nested-dict", "list", "inherited", "deep-list", "spaces"],
)
def test_keyed_secrets_are_masked_at_any_depth(tool_input: dict[str, Any]) -> None:
    verdict = mcp(tool_input, live("block"))
    assert verdict.touches  # the call touches live: it is journaled
    assert PASSWORD not in verdict.journal_command()
    assert "***" in verdict.journal_command()


def test_a_reference_under_a_secret_key_stays_visible() -> None:
    verdict = mcp(
        {"token": "$API_TOKEN", "password_file": "~/.pgpass", "host": "db.live.example"},
        live("block"),
    )
    assert verdict.journal_command() == (
        "token: $API_TOKEN password_file: ~/.pgpass host: db.live.example"
    )


def test_keys_do_not_change_what_the_guard_matches() -> None:
    """A key is no value: `{"prod-alias": "uptime"}` names nothing, and a key named like a
    host is not where a host is expected."""
    assert (
        read_call(as_call("mcp__x__y", {"password": PASSWORD, "db": "shop"})) == f"{PASSWORD}\nshop"
    )
    assert mcp({"prod-alias": "uptime", "app": "x"}, live("block")).touches == ()
    named = mcp({"context": "prod-ctx", "delete_from": "pods"}, live("block"))
    assert [(t.identifier, t.rule) for t in named.touches] == [("prod-ctx", "")]


def test_test_values_and_spots_in_values_are_still_masked_in_keyed_lines() -> None:
    tool_input = {
        "command": "PGPASSWORD='s3cr3t-value' psql -h db.live.example",
        "extra": "pw-for-tests",
    }
    journal = mcp(tool_input, live()).journal_command(["pw-for-tests"])
    assert journal == "command: PGPASSWORD='***' psql -h db.live.example extra: ***"


@pytest.mark.django_db
def test_the_hook_journals_an_mcp_call_with_its_keys_and_without_its_password() -> None:
    make_project("acme-shop", repo_path=CWD)
    db = {"kind": "db", "fields": {"host": "db.live.example"}}
    live_stand("acme-shop", [db], mode="block", base_url="https://acme-shop.example")
    hook = payload("PreToolUse.mcp", session_id=str(uuid.uuid4()))
    hook["tool_name"] = "mcp__pg__query"
    hook["tool_input"] = {"host": "db.live.example", "password": PASSWORD, "sql": "select 1"}
    hook_event(payload=hook)
    (event,) = Event.objects.filter(kind="live.action")
    assert event.payload["command"] == "host: db.live.example password: *** sql: select 1"
    assert PASSWORD not in json.dumps(event.payload)


# --- past a cap the guard fails closed -----------------------------------------------------------

BULK = "delete from orders where id = any(:ids)"


@pytest.mark.parametrize("count", [MAX_INPUT_NODES + 1, 20_000])
def test_past_the_mcp_value_cap_a_call_naming_live_asks_the_owner(count: int) -> None:
    tool_input = {"sql": BULK, "ids": list(range(count)), "host": "db.live.example"}
    verdict = mcp(tool_input, live("block"), tool="mcp__pg__execute")
    assert verdict.decision == "ask"
    (touch,) = verdict.touches
    assert (touch.decision, touch.level, touch.rule, touch.identifier) == (
        "ask",
        "read",
        "",
        "db.live.example",
    )
    assert verdict.reason == (
        "relaybay guard: this call's input is larger than the guard reads (8 KB of text, "
        "10,000 values), so the guard could not read all of it, and it names acme-shop live "
        "(live) (matched 'db.live.example'); the owner decides. Split it into smaller calls "
        "to have it checked."
    )


def test_under_the_mcp_value_cap_the_call_is_decided_as_before() -> None:
    tool_input = {"sql": BULK, "ids": list(range(9_990)), "host": "db.live.example"}
    verdict = mcp(tool_input, live("block"), tool="mcp__pg__execute")
    assert (verdict.decision, verdict.touches[0].rule) == ("deny", "sql-change")


def test_past_the_mcp_caps_log_mode_logs_and_unnamed_or_full_stands_pass() -> None:
    big = {"sql": BULK, "ids": list(range(MAX_INPUT_NODES + 5)), "host": "db.live.example"}
    logged = mcp(big, live("log"))
    assert (logged.decision, logged.touches[0].decision) == ("log", "log")
    assert mcp(big, live("block", "full")).decision == "allow"
    assert mcp(big, live("off")).touches == ()
    elsewhere = {**big, "host": "db.staging.example"}
    assert mcp(elsewhere, live("block")).touches == ()
    only_numbers = {"host": "db.live.example", "sql": "select 1", "ids": list(range(20_000))}
    assert mcp(only_numbers, live("block")).decision == "allow"  # nothing left unread


def test_past_8_kb_of_mcp_text_a_name_read_or_not_asks_the_owner() -> None:
    late = {"notes": "x" * READ_LIMIT, "sql": "drop table orders", "host": "db.live.example"}
    assert mcp(late, live("block")).decision == "ask"
    early = {"host": "db.live.example", "notes": "x" * READ_LIMIT, "sql": "drop table orders"}
    assert mcp(early, live("block")).decision == "ask"


def test_a_bash_command_past_8_kb_with_a_name_asks_the_owner() -> None:
    """§7 reads the first 8 KB: what follows may hold a change, so it fails closed."""
    hidden = "ssh prod-alias uptime; " + "ls " * 2800 + "; ssh prod-alias sudo reboot"
    verdict = bash(hidden, live("block"))
    assert verdict.decision == "ask"
    assert verdict.reason.startswith(
        "relaybay guard: this command is longer than the 8 KB the guard reads, so the guard "
        "could not read all of it, and it names acme-shop live (live) (matched 'prod-alias')"
    )
    assert len(verdict.command) == READ_LIMIT
    only_late = "ls " * 2800 + "; ssh prod-alias sudo reboot"  # the name itself past 8 KB
    assert bash(only_late, live("block")).decision == "ask"
    assert bash("ls " * 2800 + "; ls", live("block")).touches == ()  # names no stand
    read_first = "ssh prod-alias sudo reboot; " + "ls " * 2800
    assert bash(read_first, live("block")).decision == "deny"  # what was read decides more
