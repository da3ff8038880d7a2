"""The Codex adapter of the hook room (issue 30) on every real Codex 0.169.0 hook input:
what each becomes as a neutral event, and what Codex is answered — never "allow" or
"ask", which it treats as a failed hook and runs the tool anyway."""

from __future__ import annotations

import pytest

from agents.codex import hooks as codex
from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer
from tests.sessions.codex_payloads import NAMES, SESSION, codex_payload

HANDLED = {
    "SessionStart": ev.SESSION_START,
    "UserPromptSubmit": ev.PROMPT,
    "PreToolUse": ev.PRE_TOOL,
    "PermissionRequest": ev.APPROVAL,
    "PostToolUse": ev.POST_TOOL,
    "Stop": ev.STOP,
    "SessionEnd": ev.SESSION_END,
}


@pytest.mark.parametrize("name", NAMES)
def test_every_captured_input_is_an_event_of_its_kind_or_none(name: str) -> None:
    body = codex_payload(name)
    event = codex.parse(body)
    kind = HANDLED.get(body["hook_event_name"])
    if kind is None or name == "UserPromptSubmit.subagent":
        assert event is None  # compaction, sub-agents, interrupts, a sub-agent's task
        return
    assert event is not None
    assert (event.agent, event.kind, event.session_id, event.name) == (
        "codex",
        kind,
        body["session_id"],
        body["hook_event_name"],
    )
    assert event.cwd == body["cwd"]
    assert codex.CAPABILITIES.asks is False
    assert codex.CAPABILITIES.meta_links is True


def test_a_shell_call_and_an_mcp_call_are_read_for_the_guard() -> None:
    shell = codex.parse(codex_payload("PreToolUse.Bash"))
    assert shell.tool.kind == ev.SHELL
    assert shell.tool.command == "ls"
    mcp = codex.parse(codex_payload("PreToolUse.mcp"))
    assert (mcp.tool.kind, mcp.tool.mcp_server, mcp.tool.mcp_tool) == (
        ev.MCP,
        "relaybay",
        "task_create",
    )
    other = codex.parse(codex_payload("PreToolUse.spawn_agent"))
    assert other.tool.kind == ev.OTHER


def test_a_session_end_ends_the_process_and_keeps_the_work() -> None:
    end = codex.parse(codex_payload("SessionEnd.exec"))
    assert end.reason == "other"
    assert end.keeps_bindings is True
    assert end.process_only is True


def test_a_permission_request_is_codex_waiting_on_the_owner() -> None:
    """Codex's own prompt for a tool call: the owner may answer it on the board (APPROVAL)."""
    asked = codex.parse(codex_payload("PermissionRequest.Bash"))
    assert asked.kind == ev.APPROVAL
    assert asked.tool.command == "touch escalated-1.txt"


def test_the_owners_answer_to_a_permission_request_is_its_decision_shape() -> None:
    """As captured (answers honoured by Codex 0.169.0): allow runs the command, deny with a
    message refuses it; a PreToolUse the owner approved is the empty answer."""
    approve = HookAnswer()
    approve.allow("The owner approved this on the relaybay board.")
    assert render("PermissionRequest.Bash", approve) == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }
    assert render("PreToolUse.Bash", approve) is None
    refuse = HookAnswer()
    refuse.deny("The owner denied this on the relaybay board: not now")
    assert render("PermissionRequest.Bash", refuse)["hookSpecificOutput"]["decision"] == {
        "behavior": "deny",
        "message": "The owner denied this on the relaybay board: not now",
    }


def test_the_transcript_is_the_parents_rollout_not_a_sub_agents() -> None:
    start = codex.parse(codex_payload("SessionStart.startup.exec"))
    assert start.transcript_path.endswith(f"-{SESSION}.jsonl")
    child = codex.parse(codex_payload("SubagentStart"))
    assert child is None
    ephemeral = codex.parse(codex_payload("SessionStart.startup.ephemeral"))
    assert ephemeral.transcript_path == ""  # --ephemeral sends null


def render(name: str, answer: HookAnswer) -> object:
    return codex.render(answer, codex.parse(codex_payload(name)))


def test_an_ask_is_sent_as_a_deny_that_tells_the_agent_to_ask_the_owner() -> None:
    answer = HookAnswer()
    answer.ask("relaybay guard: acme-shop live (live) asks the owner first.")
    output = render("PreToolUse.Bash", answer)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert output["permissionDecisionReason"].startswith(
        "relaybay guard: acme-shop live (live) asks the owner first. Codex cannot ask"
    )
    assert "ask the owner in the chat" in output["permissionDecisionReason"]


@pytest.mark.parametrize("name", NAMES)
def test_no_answer_ever_says_allow_or_ask(name: str) -> None:
    if codex.parse(codex_payload(name)) is None:
        return
    for decide in (HookAnswer.deny, HookAnswer.ask):
        answer = HookAnswer()
        answer.add_context("a line")
        decide(answer, "why")
        answer.block_reason = "blocked"
        body = render(name, answer)
        decision = (body or {}).get("hookSpecificOutput", {}).get("permissionDecision")
        assert decision in (None, "deny")


def test_context_stop_blocks_and_the_permission_request_are_answered_codexs_way() -> None:
    answer = HookAnswer()
    answer.add_context("Owner comment on acme-shop-1 (#3): use the staging db")
    assert render("UserPromptSubmit.exec", answer) == {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "Owner comment on acme-shop-1 (#3): use the staging db",
        }
    }
    assert render("PermissionRequest.Bash", answer) is None  # the owner's to answer
    assert render("Stop.first", answer) is None
    answer.block_reason = "Handle owner comment #3 first."
    assert render("Stop.first", answer) == {
        "decision": "block",
        "reason": "Handle owner comment #3 first.",
    }
    assert render("SessionEnd.exec", answer) is None
