"""The PreToolUse guard as one step of the hook answer (§7 Guard, Journal of actions on live).

Every Bash or MCP tool call an agent is about to make is read by environments.guard
against the stands it could touch: those of the session's project and of the tasks bound
to it, or, for a session the hooks could not place, of the project whose repo_path holds
the hook's cwd. A deny or an ask becomes the answer's permissionDecision with the guard's
reason (Claude Code shows it to the model or in the permission prompt); a warning rides in
additionalContext; relaybay never answers allow. Every touched live stand gets a
live.action event, whatever the decision, its command masked with every stored test
secret value of every stand in scope — a live stand never holds one (§7 Test secrets), so
the values to mask are the local and test stands'. The step runs in its own savepoint
(hook_answer.run_providers): a guard error is logged and the call goes on.
"""

from __future__ import annotations

from environments import guard
from environments import selectors as env_selectors
from environments.services import live_action_record
from policy import selectors as policy_selectors
from sessions import hook_answer
from sessions.hook_answer import HookAnswer, HookCall
from sessions.linking import projects_containing
from tasks.models import Project, Task

# (project slug, environment name) → the project and the guard's view of that stand
Stands = dict[tuple[str, str], tuple[Project, guard.StandRules]]

ORDER = 10  # first: the guard's reason leads; owner comments (50) ride in the same answer
EVENTS = frozenset({"PreToolUse"})


def guard_call(call: HookCall, answer: HookAnswer) -> None:
    tool = str(call.payload.get("tool_name") or "")
    tool_input = call.payload.get("tool_input")
    if not isinstance(tool_input, dict) or guard.read_call(tool, tool_input) is None:
        return
    projects, tasks = _scope(call)
    stands: Stands = {}
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
        )


def _test_values(stands: Stands) -> tuple[str, ...]:
    """Every stored test secret value of the stands in scope, whatever their kind: the
    stands map already holds their entries, so this costs no query. Values of another
    project in scope are masked too; masking more can only hide, never reveal."""
    values = (value for _, rules in stands.values() for value in rules.test_values)
    return tuple(dict.fromkeys(values))


def _answer(verdict: guard.Verdict, answer: HookAnswer) -> None:
    if verdict.decision in ("deny", "ask"):
        answer.hook_output["permissionDecision"] = verdict.decision
        answer.hook_output["permissionDecisionReason"] = verdict.reason
    elif verdict.decision == "warn" and verdict.reason:
        answer.add_context(verdict.reason)


def register() -> None:
    """Plug into the hook answers (idempotent: the registry skips a provider it holds)."""
    hook_answer.register_context_provider(ORDER, EVENTS, guard_call)
