"""The PreToolUse guard as one step of the hook answer (§7 Guard, Journal of actions on live).

Every Bash or MCP tool call an agent is about to make is read by environments.guard
against the stands it could touch: those of the session's project and of the tasks bound
to it, or, for a session the hooks could not place, of the project whose repo_path holds
the hook's cwd. A deny or an ask becomes the answer's permissionDecision with the guard's
reason (Claude Code shows it to the model or in the permission prompt); a warning rides in
additionalContext; relaybay never answers allow. Every touched live stand gets a
live.action event, whatever the decision. The step runs in its own savepoint
(hook_answer.run_providers): a guard error is logged and the call goes on.
"""

from __future__ import annotations

from typing import Any

from environments import guard
from environments import selectors as env_selectors
from environments.services import live_action_record
from policy import selectors as policy_selectors
from sessions import hook_answer
from sessions.hook_answer import HookAnswer, HookCall
from sessions.linking import projects_containing
from tasks.models import Project, Task

ORDER = 10  # first: the guard's reason leads; owner comments (50) ride in the same answer
EVENTS = frozenset({"PreToolUse"})


def guard_call(call: HookCall, answer: HookAnswer) -> None:
    tool = str(call.payload.get("tool_name") or "")
    tool_input = call.payload.get("tool_input")
    if not isinstance(tool_input, dict) or guard.read_call(tool, tool_input) is None:
        return
    projects, tasks = _scope(call)
    stands = {}
    for project in projects:
        for view in env_selectors.stands_map(project).stands:
            env = view.environment
            policy = policy_selectors.effective_for(project, env).merged
            stands[(project.slug, env.name)] = (
                project,
                guard.stand_rules(view, policy, project.slug),
            )
    if not stands:
        return
    verdict = guard.decide(tool, tool_input, [rules for _, rules in stands.values()])
    _journal(call, verdict, stands, tasks, tool)
    _answer(verdict, answer)


def _scope(call: HookCall) -> tuple[list[Project], list[Task]]:
    """The projects whose stands the call may touch, and the session's bound tasks."""
    session = call.session
    tasks = call.bound_tasks
    projects: dict[int, Project] = {}
    if session is not None and session.project is not None:
        projects[session.project.id] = session.project
    for task in tasks:
        projects.setdefault(task.project.id, task.project)
    if not projects:
        cwd = str(call.payload.get("cwd") or "")
        projects = {p.id: p for p in projects_containing(cwd)}
    return list(projects.values()), tasks


def _journal(
    call: HookCall,
    verdict: guard.Verdict,
    stands: dict[tuple[str, str], tuple[Project, Any]],
    tasks: list[Task],
    tool: str,
) -> None:
    actor = call.session.name if call.session is not None else "hook"
    for touch in verdict.touches:
        if touch.kind != "live":
            continue
        project, rules = stands[(touch.project, touch.environment)]
        task = next((t for t in tasks if t.project_id == project.id), None)
        live_action_record(
            project=project,
            environment=touch.environment,
            task=task,
            tool=tool,
            command=verdict.journal_command(rules.test_values),
            decision=touch.decision,
            level=touch.level,
            rule=touch.rule,
            actor=actor,
        )


def _answer(verdict: guard.Verdict, answer: HookAnswer) -> None:
    if verdict.decision in ("deny", "ask"):
        answer.hook_output["permissionDecision"] = verdict.decision
        answer.hook_output["permissionDecisionReason"] = verdict.reason
    elif verdict.decision == "warn" and verdict.reason:
        answer.add_context(verdict.reason)


def register() -> None:
    """Plug into the hook answers (idempotent: the registry skips a provider it holds)."""
    hook_answer.register_context_provider(ORDER, EVENTS, guard_call)
