"""The guard as a step of the PreToolUse answer (§7): real Claude Code payloads through the
hook service, the stands of the hook's project, the answer and the live.action journal."""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agents.claude_code.hooks import hook_event
from environments import services
from environments.services import Change
from policy import services as policy_services
from tasks.models import Event
from tests.environments.factories import guard_mode, live_stand
from tests.sessions.hook_payloads import CWD, payload
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db
OWNER = "owner"
SSH = [{"kind": "ssh", "fields": {"alias": "prod-alias", "host": "10.0.0.5"}}]


@pytest.fixture(autouse=True)
def acme() -> None:
    make_project("acme-shop", repo_path=CWD)
    live_stand("acme-shop", SSH, base_url="https://acme-shop.example")


def mode(name: str) -> None:
    guard_mode("acme-shop", name)


def bash(command: str, **changes: Any) -> dict[str, Any] | None:
    body = payload(
        "PreToolUse.Bash",
        session_id=str(uuid.uuid4()),
        tool_input={"command": command, "description": "x"},
        **changes,
    )
    return hook_event(payload=body).answer


def journal() -> list[dict[str, Any]]:
    return [e.payload for e in Event.objects.filter(kind="live.action").order_by("id")]


def test_block_mode_denies_a_remote_change_on_a_read_only_live_stand() -> None:
    mode("block")
    answer = bash("ssh prod-alias sudo systemctl restart app")
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert output["permissionDecisionReason"] == (
        "relaybay guard: acme-shop live (live) is read-only for agents; this looks like a "
        "remote change over ssh (matched 'prod-alias'). Ask the owner, or propose a change "
        "with environment_propose."
    )
    assert journal() == [
        {
            "environment": "live",
            "tool": "Bash",
            "command": "ssh prod-alias sudo systemctl restart app",
            "decision": "deny",
            "level": "read",
            "rule": "ssh-remote-change",
            "agent": "claude-code",
            "sent": "deny",
        }
    ]


def test_a_read_on_live_passes_silently_and_is_journaled() -> None:
    mode("block")
    assert bash("ssh prod-alias uptime") is None  # 204: no answer, never "allow"
    assert [(j["decision"], j["rule"]) for j in journal()] == [("allow", "")]


def test_warn_mode_lets_the_call_go_on_with_the_reason_in_context() -> None:
    answer = bash("ssh prod-alias sudo reboot")  # the default preset: warn
    output = answer["hookSpecificOutput"]
    assert "permissionDecision" not in output
    assert output["additionalContext"].endswith("(warn mode: not blocked)")
    assert "remote change over ssh" in output["additionalContext"]
    assert journal()[0]["decision"] == "warn"


def test_the_guard_off_neither_answers_nor_journals() -> None:
    mode("off")
    assert bash("ssh prod-alias sudo reboot") is None
    assert journal() == []


def test_a_call_naming_no_stand_is_left_alone() -> None:
    mode("block")
    assert bash("rm -rf build") is None
    assert journal() == []


def test_a_commit_message_naming_the_stand_is_no_change_but_is_journaled() -> None:
    mode("block")
    assert bash("git commit -m 'ssh prod-alias sudo reboot'") is None
    # A dashed identifier counts anywhere (§7), so the call touched live: journaled, allowed.
    assert [(j["decision"], j["rule"]) for j in journal()] == [("allow", "")]


def test_the_journal_masks_secrets() -> None:
    mode("block")
    bash("ssh prod-alias 'PGPASSWORD=hunter22 psql -c \"drop table x\"'")
    assert "hunter22" not in journal()[0]["command"]


def test_a_guard_error_is_logged_and_the_call_goes_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from sessions.hooks import guard as guard_step

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("guard bug")

    mode("block")
    monkeypatch.setattr(guard_step.guard, "decide", broken)
    with caplog.at_level(logging.ERROR, logger="relaybay.hooks"):
        assert bash("ssh prod-alias sudo reboot") is None
    assert "guard_call" in caplog.text


def test_an_mcp_tool_touching_live_is_guarded_and_relaybays_own_are_not() -> None:
    mode("block")
    body = payload("PreToolUse.mcp", session_id=str(uuid.uuid4()))
    body["tool_name"] = "mcp__deployer__restart_service"
    body["tool_input"] = {"host": "acme-shop.example", "service": "app"}
    answer = hook_event(payload=body).answer
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    body["tool_name"] = "mcp__relaybay__task_update"
    assert hook_event(payload=body).answer is None


def test_the_journal_names_the_bound_task_and_the_session() -> None:
    from sessions import services as session_services
    from tests.tasks.factories import make_task

    mode("block")
    task = make_task("acme-shop", title="Restart the shop")
    agent_id = str(uuid.uuid4())
    session_services.session_touch(session="alice", hook_session=agent_id, actor=OWNER)
    session_services.task_bind_session(task=task, session="alice", actor=OWNER)
    body = payload(
        "PreToolUse.Bash",
        session_id=agent_id,
        tool_input={"command": "ssh prod-alias sudo reboot", "description": "x"},
    )
    hook_event(payload=body)
    event = Event.objects.get(kind="live.action")
    assert event.task_id == task.id
    assert event.actor == "alice"


def test_the_journal_masks_the_test_secrets_of_every_stand_of_the_project() -> None:
    """§7 Test secrets: a live stand never holds one, so the values to mask are those of the
    project's local and test stands."""
    layer = {"secrets": {"test_secrets": {"local": True, "test": True}}}
    policy_services.policy_layer_save(scope="acme-shop", text=json.dumps(layer), actor=OWNER)
    for name, kind, value in (("staging", "test", "pw-staging-7781"), ("laptop", "local", "q7")):
        services.environment_save(
            project="acme-shop", change=Change(environment=name, kind=kind), actor=OWNER
        )
        services.access_add(
            project="acme-shop",
            environment=name,
            kind="db",
            fields={"host": f"db.{name}.example"},
            test_secrets={"password": value},
            actor=OWNER,
        )
    bash("ssh prod-alias 'cat /srv/pw-staging-7781.txt; echo q7'")
    (entry,) = journal()
    assert "pw-staging-7781" not in entry["command"]
    assert "q7" not in entry["command"]
    assert entry["command"] == "ssh prod-alias 'cat /srv/***.txt; echo ***'"


def test_a_change_past_the_200th_segment_asks_the_owner_and_is_journaled() -> None:
    """A call the guard cannot read whole fails closed on a stand it mentions."""
    command = "true;" * 250 + "ssh prod-alias rm -rf /x"
    for name in ("block", "warn"):
        mode(name)
        output = bash(command)["hookSpecificOutput"]
        assert output["permissionDecision"] == "ask"
        assert output["permissionDecisionReason"].startswith(
            "relaybay guard: this command has more than 200 command segments, so the guard "
            "could not read all of it, and it names acme-shop live (live)"
        )
    mode("log")
    assert bash(command) is None
    mode("off")
    assert bash(command) is None
    assert [(j["decision"], j["level"], j["rule"]) for j in journal()] == [
        ("ask", "read", ""),
        ("ask", "read", ""),
        ("log", "read", ""),
    ]
    mode("block")
    assert bash("true;" * 250 + "ls") is None  # names no stand: nothing to fail closed for


def test_a_pre_tool_use_reads_each_stand_once_with_its_policy() -> None:
    """The stands map keeps each stand's effective policy for the guard: one statement per
    stand on every PreToolUse (the policy was read a second time per stand, issue 29)."""

    def pre_tool_use_queries() -> int:
        body = payload(
            "PreToolUse.Bash", session_id="guard-count", tool_input={"command": "ssh x uptime"}
        )
        hook_event(payload=body)  # the session exists before the counted call
        with CaptureQueriesContext(connection) as queries:
            hook_event(payload=body)
        return len(queries)

    def add_stands(first: int, count: int) -> None:
        for i in range(first, first + count):
            change = Change(
                environment=f"test-{i}",
                kind="test",
                access=[{"kind": "ssh", "fields": {"alias": f"alias-{i}", "host": f"10.0.1.{i}"}}],
            )
            services.environment_save(project="acme-shop", change=change, actor=OWNER)

    add_stands(0, 1)
    two = pre_tool_use_queries()  # live and test-0
    add_stands(1, 2)
    four = pre_tool_use_queries()
    assert four - two == 2
