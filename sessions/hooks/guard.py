"""The PreToolUse guard as one step of the hook answer (§7 Guard, Journal of actions on live).

Every shell or MCP tool call an agent is about to make (a PRE_TOOL) is read by
environments.guard
against the stands it could touch: those of the session's project and of the tasks bound
to it, or, for a session the hooks could not place, of the project whose repo_path holds
the hook's cwd (found once per agent session and folder). It is the hook answer's decider:
it runs on the event as it came, before anything of the event is stored, and its decision
stands whatever the session's bookkeeping after it does (the guard never fails open
because of relaybay's own storage); the journal entry is written after the decision is
made, and its failure is logged without changing it. A deny or an ask becomes the
answer's decision with the guard's reason (the adapter writes it as the agent reads it:
Claude Code's permissionDecision); a warning rides in the context; relaybay never answers
allow. Every touched live stand gets a
live.action event, whatever the decision, its command masked with every stored test
secret value of every stand in scope — a live stand never holds one (§7 Test secrets), so
the values to mask are the local and test stands'. A guard error is logged and the call
goes on (§7).
"""

from __future__ import annotations

import logging

from core import caches
from core.memo import Memo
from environments import guard
from environments import selectors as env_selectors
from environments.services import live_action_record
from sessions.hooks import answer as hook_answer
from sessions.hooks import approvals as held
from sessions.hooks import event as ev
from sessions.hooks import registry
from sessions.hooks.answer import HookAnswer, HookCall
from sessions.hooks.event import Tool
from sessions.hooks.linking import projects_containing
from tasks.extensions import plug_in_once
from tasks.models import Project, Task

log = logging.getLogger("relaybay.hooks")

# (project slug, environment name) → the project and the guard's view of that stand
Stands = dict[tuple[str, str], tuple[Project, guard.StandRules]]

KINDS = frozenset({ev.PRE_TOOL})
# An unplaced session's projects, found from its cwd once per agent session and folder.
_cwd_projects: Memo[tuple[str, str], tuple[Project, ...]] = Memo(1_000)
caches.register(
    "sessions.hooks.guard._cwd_projects",
    key="(agent session id, cwd)",
    bound=_cwd_projects.cap,
    invalidation="never but the bound: found once per agent session and folder",
    reset="`guard.forget()` (the autouse fixture)",
)


def guard_call(call: HookCall, answer: HookAnswer) -> None:
    tool = call.event.tool
    engine = engine_call(tool)
    if tool is None or engine is None:
        return
    text = guard.read_call(engine)
    if text is None:  # relaybay's own tools, and nothing to read
        return
    projects, tasks = _scope(call)
    stands: Stands = {
        (project.slug, view.environment.name): (
            project,
            guard.stand_rules(view, view.policy, project.slug),
        )
        for project in projects
        for view in env_selectors.guard_stands(project)
    }
    if not stands:
        return
    verdict = guard.decide(engine, [rules for _, rules in stands.values()], text=text)
    # decided: nothing after this can take the decision back
    _answer(verdict, answer, _test_values(stands))
    try:
        _journal(call, verdict, stands, tasks, tool.name)
    except Exception:
        log.exception("the guard's journal entry of a %s call failed", tool.name)


def engine_call(tool: Tool | None) -> guard.Call | None:
    """The neutral tool as the guard's engine reads it (a shell command, or an MCP server's
    tool and its input); None for a tool it does not read."""
    if tool is None:
        return None
    if tool.kind == ev.SHELL:
        return guard.shell(tool.command)
    if tool.kind == ev.MCP:
        return guard.mcp(tool.mcp_server, tool.mcp_tool, tool.input)
    return None


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
        key = (call.event.session_id, call.event.cwd)
        found = _cwd_projects.get(key)
        if found is None:
            found = tuple(projects_containing(call.event.cwd))
            _cwd_projects.set(key, found)
        projects = {p.id: p for p in found}
    return list(projects.values()), tasks


def forget() -> None:
    """Drop the folders' projects found so far (tests)."""
    _cwd_projects.clear()


def _journal(
    call: HookCall,
    verdict: guard.Verdict,
    stands: Stands,
    tasks: list[Task],
    tool: str,
) -> None:
    actor = call.session.name if call.session is not None else "hook"
    command: str | None = None
    for touch in verdict.touches:
        if touch.kind != "live":
            continue
        project, _ = stands[(touch.project, touch.environment)]
        task = next((t for t in tasks if t.project_id == project.id), None)
        if command is None:
            command = verdict.journal_command(_test_values(stands))
        live_action_record(
            project=project,
            environment=touch.environment,
            task=task,
            tool=tool,
            command=command,
            decision=touch.decision,
            level=touch.level,
            rule=touch.rule,
            actor=actor,
            agent=call.event.agent,
            sent=_sent(
                touch.decision,
                registry.capabilities(call.event.agent).asks,
                held.hold_seconds(call.event) > 0,
            ),
        )


def _sent(decision: str, asks: bool, holds: bool) -> str:
    """What the agent is answered: an ask its hook can wait on is held for the owner on the
    board (approval.decided says how it ended); else an agent that cannot ask (Codex) is
    denied instead."""
    if decision == "ask" and holds:
        return "hold"
    return "deny" if decision == "ask" and not asks else decision


def _test_values(stands: Stands) -> tuple[str, ...]:
    """Every stored test secret value of the stands in scope, whatever their kind: the
    stands map already holds their entries, so this costs no query. Values of another
    project in scope are masked too; masking more can only hide, never reveal."""
    values = (value for _, rules in stands.values() for value in rules.test_values)
    return tuple(dict.fromkeys(values))


def _answer(verdict: guard.Verdict, answer: HookAnswer, test_values: tuple[str, ...]) -> None:
    """The decision as relaybay means it; the agent's adapter says it the agent's way (an
    agent that cannot ask renders an ask as a deny that tells it to ask the owner). An ask
    carries what the owner is asked about, should the hook wait for them on the board."""
    if verdict.decision == "deny":
        answer.deny(verdict.reason)
    elif verdict.decision == "ask":
        touch = next(t for t in verdict.touches if t.decision == "ask")
        answer.ask(
            verdict.reason,
            stand=touch.environment,
            level=touch.level,
            rule=touch.rule,
            summary=verdict.journal_command(test_values),
        )
    elif verdict.decision == "warn" and verdict.reason:
        answer.add_context(verdict.reason)


@plug_in_once
def register() -> None:
    """Plug into the hook answers as their decider: before anything of the event is stored
    (idempotent: the registry skips a decider it holds)."""
    hook_answer.register_decider(KINDS, guard_call)
