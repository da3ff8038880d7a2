"""The Gemini CLI adapter of the hook room on every real Gemini CLI 0.61.0 hook input: what
each becomes as a neutral event, and what Gemini is answered — a deny as
`{"decision": "deny"}`, never "allow" or "ask" (an ask hangs `gemini -p`), context only on
the events whose context Gemini reads."""

from __future__ import annotations

from typing import Any

import pytest

from agents.gemini_cli import hooks as gemini
from agents.gemini_cli import tools
from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer
from tests.sessions.gemini_payloads import NAMES, SESSION, fixture, gemini_payload, sequence

HANDLED = {
    "SessionStart": ev.SESSION_START,
    "BeforeAgent": ev.PROMPT,
    "BeforeTool": ev.PRE_TOOL,
    "AfterTool": ev.POST_TOOL,
    "Notification": ev.NOTICE,
    "AfterAgent": ev.STOP,
    "SessionEnd": ev.SESSION_END,
}


@pytest.mark.parametrize("name", NAMES)
def test_every_captured_input_is_an_event_of_its_kind_or_none(name: str) -> None:
    body = gemini_payload(name)
    event = gemini.parse(body)
    kind = HANDLED.get(body["hook_event_name"])
    if kind is None:
        assert event is None  # BeforeModel, AfterModel, BeforeToolSelection, PreCompress
        return
    assert event is not None
    assert (event.agent, event.kind, event.session_id, event.name) == (
        "gemini",
        kind,
        body["session_id"],
        body["hook_event_name"],
    )
    assert (event.cwd, event.transcript_path) == (body["cwd"], body["transcript_path"])


def test_pre_compress_auto_is_not_a_compaction() -> None:
    for name in ("PreCompress.auto.p", "PreCompress.auto.before-real-compression"):
        assert gemini.parse(gemini_payload(name)) is None


def test_the_shell_the_edits_and_the_mcp_calls_are_neutral_tools() -> None:
    shell = gemini.parse(gemini_payload("BeforeTool.run_shell_command")).tool
    assert (shell.kind, shell.command, shell.waits_on) == (ev.SHELL, "ls", "ls")
    wrote = gemini.parse(gemini_payload("BeforeTool.write_file")).tool
    assert (wrote.kind, wrote.paths) == (ev.EDIT, ("notes.txt",))  # relative to the cwd
    replaced = gemini.parse(gemini_payload("AfterTool.replace")).tool
    assert (replaced.kind, replaced.paths) == (ev.EDIT, ("README.md",))
    read = gemini.parse(gemini_payload("BeforeTool.read_file")).tool
    assert (read.kind, read.paths, read.waits_on) == (ev.OTHER, (), "README.md")
    mcp = gemini.parse(gemini_payload("BeforeTool.mcp")).tool
    assert (mcp.kind, mcp.mcp_server, mcp.mcp_tool) == (ev.MCP, "relaybay", "task_create")
    assert mcp.input == {"project": "acme-shop", "title": "Review the README"}
    failed = gemini.parse(gemini_payload("AfterTool.mcp-isError")).tool
    assert (failed.mcp_server, failed.mcp_tool) == ("relaybay", "task_fail")


def test_mcp_context_names_a_server_whose_name_holds_an_underscore() -> None:
    context = {"server_name": "ops_tools", "tool_name": "restart_app"}
    named = tools.tool("mcp_ops_tools_restart_app", {"host": "prod"}, context)
    assert (named.kind, named.mcp_server, named.mcp_tool) == (ev.MCP, "ops_tools", "restart_app")
    guessed = tools.tool("mcp_ops_restart_app", {})  # no mcp_context: the first underscore
    assert (guessed.kind, guessed.mcp_server, guessed.mcp_tool) == (ev.MCP, "ops", "restart_app")
    assert tools.tool("mcp_", {}).kind == ev.OTHER


def test_a_tool_permission_waits_on_the_owner_with_the_question_of_its_details() -> None:
    questions = {
        "Notification.exec.tui": "Confirm Shell Command: touch tui.txt",
        "Notification.edit.tui": "Confirm Write: notes.txt",
        "Notification.mcp.tui": "Confirm MCP Tool Execution: task_create (relaybay MCP Server)",
        "Notification.after-BeforeTool-ask.p": "Confirm Shell Command: ls",
    }
    for name, question in questions.items():
        notice = gemini.parse(gemini_payload(name)).notice
        assert (notice.kind, notice.question) == (ev.PERMISSION, question), name
    other = gemini.parse(gemini_payload("Notification.exec.tui", notification_type="Other"))
    assert other.notice.kind == ev.MESSAGE


def test_every_session_end_ends_the_process_and_keeps_the_work() -> None:
    for name in ("SessionEnd.exit.p", "SessionEnd.exit.tui", "SessionEnd.clear.tui"):
        end = gemini.parse(gemini_payload(name))
        assert (end.keeps_bindings, end.process_only) == (True, True), name


def test_stop_hook_active_is_read_as_it_comes_and_only_as_true() -> None:
    flags = [
        gemini.parse(body).stop_continued
        for body in sequence("afteragent-block")
        if body["hook_event_name"] == "AfterAgent"
    ]
    assert flags == [False, True, True]
    for odd in ("true", 1, None):
        body = gemini_payload("AfterAgent.p", stop_hook_active=odd)
        assert gemini.parse(body).stop_continued is False


def render(name: str, answer: HookAnswer, **changes: Any) -> Any:
    return gemini.render(answer, gemini.parse(gemini_payload(name, **changes)))


def test_a_deny_is_gemini_decision_deny_that_keeps_the_tool_from_running() -> None:
    answer = HookAnswer()
    answer.deny("relaybay guard: acme-shop live (live) is read-only for agents.")
    assert render("BeforeTool.run_shell_command", answer) == {
        "decision": "deny",
        "reason": "relaybay guard: acme-shop live (live) is read-only for agents.",
    }
    # The shape Gemini honoured in the capture: the tool did not run, the model saw the reason.
    captured = fixture("answers/BeforeTool.deny-json.model_saw.json")["answers"][0]
    assert captured["hook_answer"]["stdout"].keys() == {"decision", "reason"}
    said = captured["next_model_request_new_contents"][1]["parts"][0]["functionResponse"]
    assert said["response"]["error"].startswith("Tool execution blocked: DENY-JSON")


def test_an_ask_is_sent_as_a_deny_that_tells_the_agent_to_ask_the_owner() -> None:
    answer = HookAnswer()
    answer.ask("relaybay guard: acme-shop live (live) asks the owner first.")
    body = render("BeforeTool.mcp", answer)
    assert body["decision"] == "deny"
    assert body["reason"].startswith(
        "relaybay guard: acme-shop live (live) asks the owner first. Gemini CLI cannot ask"
    )
    assert "ask the owner in the chat" in body["reason"]
    # Why: "ask" hangs `gemini -p` until it is killed.
    hung = fixture("answers/BeforeTool.ask.p-hangs.json")
    assert hung["hook_answer"]["stdout"]["decision"] == "ask"
    assert hung["run"]["exit_code"] == -9


@pytest.mark.parametrize("name", NAMES)
def test_no_answer_ever_says_allow_or_ask(name: str) -> None:
    if gemini.parse(gemini_payload(name)) is None:
        return
    for decide in (HookAnswer.deny, HookAnswer.ask):
        answer = HookAnswer()
        answer.add_context("a line")
        decide(answer, "why")
        answer.block_reason = "blocked"
        body = render(name, answer) or {}
        assert body.get("decision") in (None, "deny")
        assert "permissionDecision" not in str(body)


def test_context_goes_out_only_where_gemini_reads_it() -> None:
    answer = HookAnswer()
    answer.add_context("Owner comment on acme-shop-1 (#3): use the staging db")
    assert render("BeforeAgent.p", answer) == {
        "hookSpecificOutput": {
            "hookEventName": "BeforeAgent",
            "additionalContext": "Owner comment on acme-shop-1 (#3): use the staging db",
        }
    }
    assert render("AfterTool.run_shell_command", answer)["hookSpecificOutput"] == {
        "hookEventName": "AfterTool",
        "additionalContext": "Owner comment on acme-shop-1 (#3): use the staging db",
    }
    # SessionStart's would start the stored prompt (and vanish on --resume); BeforeTool's and
    # AfterAgent's are ignored by Gemini.
    for name in ("SessionStart.startup.p", "BeforeTool.run_shell_command", "AfterAgent.p"):
        assert render(name, answer) is None, name
    assert gemini.CAPABILITIES.context_on == frozenset({ev.PROMPT, ev.POST_TOOL})
    seen = fixture("answers/additionalContext.model_saw.json")
    assert seen["BeforeAgent_hook_saw_prompt"].startswith("<hook_context>CTX-SESSIONSTART")
    parts = seen["first_model_request_last_content"]["parts"]
    assert parts[2]["text"].startswith("<hook_context>CTX-BEFOREAGENT")  # a part of its own
    assert "CTX-BEFORETOOL" not in str(seen["after_run_shell_command"])


def test_a_turn_end_block_is_a_deny_with_the_reason_and_nothing_else() -> None:
    answer = HookAnswer()
    assert render("AfterAgent.p", answer) is None
    answer.block_reason = "relaybay: the owner commented on your tasks."
    assert render("AfterAgent.p", answer) == {
        "decision": "deny",
        "reason": "relaybay: the owner commented on your tasks.",
    }
    captured = fixture("answers/AfterAgent.block.model_saw.json")["rounds"][0]
    assert captured["hook_answer"]["stdout"]["decision"] == "deny"
    came_back = captured["next_model_request_new_contents"][1]["parts"][0]["text"]
    assert came_back == captured["hook_answer"]["stdout"]["reason"]  # as a new prompt
    assert gemini.CAPABILITIES.block_returns_as_prompt is True
    assert gemini.CAPABILITIES.turn_end_blocks == 1


def test_notifications_and_session_ends_are_answered_with_nothing() -> None:
    answer = HookAnswer()
    answer.add_context("a line")
    for name in ("Notification.exec.tui", "SessionEnd.exit.p"):
        assert render(name, answer) is None


def test_the_spec_names_gemini_and_its_route() -> None:
    spec = gemini.SPEC
    assert (spec.name, spec.title, spec.mark, spec.path) == (
        "gemini",
        "Gemini CLI",
        "GM",
        "/hooks/gemini",
    )
    assert spec.capabilities.asks is False
    assert spec.capabilities.allows is False
    assert gemini.parse(gemini_payload("SessionStart.startup.p")).session_id == SESSION
