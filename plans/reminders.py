"""Plan reminders through the hooks (§4 "Plan reminders").

A context provider for SessionStart and PostToolUse, registered from PlansConfig.ready().
Only a hook call whose session is exactly linked to this Claude Code id (HookCall.exact)
gets a reminder: per open task bound to the session (at most three) its current plan step
and "Now doing:" with the todo item in progress; without plan steps the todo summary, or
for a task in dev with neither the §6 hint; then one line on plan_step_update.

When it is sent:
- SessionStart (a new context): always, after the core's hook session line;
- the PostToolUse of a todo change (Claude Code's todo tools, sessions.hooks.todos):
  unless it is the text this session was sent last (never twice in a row);
- every `plan_reminder_every` PostToolUse events of the exactly linked session since its
  last SessionStart (0 turns this one off): the current text, even when unchanged.

It runs before the owner comments (order 50): they get the rest of the shared 8000-character
budget, so the reminder stays short (step details are cut) and never exceeds budget_left.

The same register() adds the plan's line to the resume brief (sessions.brief):
`brief_line`, the step in progress and how far the plan is.

The per-session state (the last text sent, the PostToolUse count) is kept in memory in this
process, keyed by relaybay session id and Claude Code id. A server restart forgets it, which
is harmless: the next todo change may repeat a text once and the periodic count starts again.
"""

from __future__ import annotations

from django.conf import settings

from core import caches
from core.memo import Memo
from plans import selectors as plan_selectors
from plans.models import BLOCKED, DONE, IN_PROGRESS, PlanStep
from sessions import brief
from sessions import selectors as session_selectors
from sessions.hooks import answer as hook_answer
from sessions.hooks import event as ev
from sessions.hooks.answer import HookAnswer, HookCall
from sessions.models import Session
from tasks.extensions import plug_in_once
from tasks.models import Task
from tasks.render_md import one_line
from tasks.services import dev_hint

# Before the owner comments (sessions.hooks.comments.ORDER = 50).
ORDER = 40
KINDS = frozenset({ev.SESSION_START, ev.POST_TOOL})
MAX_TASKS = 3
TITLE_CUT = 120
DETAILS_CUT = 200
DOING_CUT = 120
UPDATE_LINE = (
    'Mark steps with plan_step_update as you go; done needs "as planned" or "deviation: <why>".'
)
STATE_MAX = 10_000  # sessions remembered; the oldest are forgotten past this


# --- the text --------------------------------------------------------------------------------


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _step_text(step: PlanStep, total: int) -> str:
    """ "step 2/3 'Address book page' — Add, edit and remove addresses." """
    text = f"step {step.position}/{total} '{one_line(step.title, TITLE_CUT)}'"
    if step.status == BLOCKED:
        text += " (blocked)"
    if step.details.strip():
        text += f" — {one_line(step.details, DETAILS_CUT)}"
    return _sentence(text)


def plan_line(task: Task, steps: list[PlanStep], doing: str) -> str:
    """The current step of a task's plan (in progress, else the next one, else all done)."""
    state = "accepted" if task.plan_status == "accepted" else "draft, not accepted yet"
    current = next((s for s in steps if s.status == IN_PROGRESS), None)
    if current is not None:
        where = _step_text(current, len(steps))
    elif (upcoming := next((s for s in steps if s.status != DONE), None)) is not None:
        where = "next " + _step_text(upcoming, len(steps))
    else:
        where = f"all {len(steps)} steps done."
    line = f"Plan of {task.key} ({state}): {where}"
    if doing:
        line += f" Now doing: {_sentence(one_line(doing, DOING_CUT))}"
    return line


def task_line(task: Task, steps: list[PlanStep], todo: session_selectors.TodoSummary | None) -> str:
    """One task's reminder, or "" when there is nothing to remind of."""
    if steps:
        return plan_line(task, steps, todo.in_progress if todo else "")
    if todo is not None:
        return f"{task.key} has no plan; the todo: {_sentence(todo.text)}"
    if task.stage == "dev":
        return dev_hint(task.key)
    return ""


def reminder_lines(session: Session, bound: list[Task]) -> list[str]:
    """The task lines (at most three) and the plan_step_update line; [] for nothing.
    `bound`: the tasks bound to the session now (the hook call has read them)."""
    tasks = [t for t in bound if t.stage != "done"]
    if not tasks:
        return []
    steps: dict[int, list[PlanStep]] = {}
    rows = PlanStep.objects.filter(task_id__in=[t.id for t in tasks]).order_by(
        "task_id", "position"
    )
    for step in rows:
        steps.setdefault(step.task_id, []).append(step)
    todo = session_selectors.todo_summary(session)
    lines = []
    for task in tasks:
        line = task_line(task, steps.get(task.id, []), todo)
        if line:
            lines.append(line)
        if len(lines) == MAX_TASKS:
            break
    return [*lines, UPDATE_LINE] if lines else []


def fit(lines: list[str], budget: int) -> str:
    """The reminder that fits `budget` characters: fewer tasks (then without the
    plan_step_update line) when it does not; "" when not even one task line fits."""
    if not lines:
        return ""
    tasks = lines[:-1]
    for tail in ([lines[-1]], []):
        for count in range(len(tasks), 0, -1):
            text = "\n".join([*tasks[:count], *tail])
            if len(text) <= budget:
                return text
    return ""


def brief_line(task: Task) -> str:
    """The plan's line of the resume brief (sessions.brief): the step in progress, else the
    next one, and how far the plan is; "" without plan steps (no query then)."""
    if task.plan_status == "none":  # exactly the tasks without steps
        return ""
    steps = plan_selectors.plan_steps(task)
    if not steps:
        return ""
    state = "accepted" if task.plan_status == "accepted" else "draft, not accepted yet"
    counts = plan_selectors.summarize(task, steps).counts_text
    current = next((s for s in steps if s.status == IN_PROGRESS), None)
    upcoming = next((s for s in steps if s.status != DONE), None)
    if current is not None:
        where = f"step {current.position}/{len(steps)} in progress: "
        where += f"'{one_line(current.title, TITLE_CUT)}' · "
    elif upcoming is not None:
        blocked = " (blocked)" if upcoming.status == BLOCKED else ""
        where = f"next step {upcoming.position}/{len(steps)}{blocked}: "
        where += f"'{one_line(upcoming.title, TITLE_CUT)}' · "
    else:
        where = ""
    return f"Plan ({state}): {where}{counts}"


# --- per-session state (memory of this process) ----------------------------------------------


class ReminderState:
    """The last reminder text sent and the PostToolUse count, per (session id, agent session
    id): two core.memo.Memo stores, the oldest forgotten past STATE_MAX."""

    def __init__(self) -> None:
        self._last: Memo[tuple[int, str], str] = Memo(STATE_MAX)
        self._posts: Memo[tuple[int, str], int] = Memo(STATE_MAX)

    def new_context(self, key: tuple[int, str]) -> None:
        """SESSION_START: nothing was sent in this context yet; the count starts again."""
        self._last.pop(key)
        self._posts.pop(key)

    def count_post(self, key: tuple[int, str]) -> int:
        """Count one POST_TOOL; the count so far in this context."""
        with self._posts.lock:
            count = (self._posts.get(key) or 0) + 1
            self._posts.set(key, count)
            return count

    def last(self, key: tuple[int, str]) -> str | None:
        return self._last.get(key)

    def sent(self, key: tuple[int, str], text: str) -> None:
        self._last.set(key, text)

    def clear(self) -> None:
        self._last.clear()
        self._posts.clear()


state = ReminderState()
caches.register(
    "plans.reminders.state._last",
    key="(session id, agent session id)",
    bound=STATE_MAX,
    invalidation="a SESSION_START of that context; the oldest set first past the bound",
    reset="`reminders.state.clear()` (the autouse fixture)",
)
caches.register(
    "plans.reminders.state._posts",
    key="(session id, agent session id)",
    bound=STATE_MAX,
    invalidation="a SESSION_START of that context; the oldest set first past the bound",
    reset="`reminders.state.clear()` (the autouse fixture)",
)


# --- the hook seam ---------------------------------------------------------------------------


def is_todo_change(call: HookCall) -> bool:
    """A POST_TOOL of the agent's own todo tool (the calls sessions.hooks.todos stores).

    The hook core does not say whether the call changed the stored list; a call that changed
    nothing gives the text sent last, which is not sent twice in a row anyway.
    """
    return call.event.todo is not None


def _periodic(count: int) -> bool:
    every = settings.RELAYBAY.plan_reminder_every
    return every > 0 and count % every == 0


def remind(call: HookCall, answer: HookAnswer) -> None:
    """SESSION_START and POST_TOOL: the plan reminder when one is due (see the module)."""
    session = call.session
    if not call.exact or session is None:
        return
    key = (session.pk, call.agent_session_id)
    if call.kind == ev.SESSION_START:
        state.new_context(key)
        repeat = True
    else:
        periodic = _periodic(state.count_post(key))
        if not periodic and not is_todo_change(call):
            return
        repeat = periodic
    text = fit(reminder_lines(session, call.bound_tasks), answer.budget_left)
    if not text or (not repeat and state.last(key) == text):
        return
    answer.add_context(text)
    state.sent(key, text)


@plug_in_once
def register() -> None:
    """Plug into the hook answers (idempotent: the registry skips a provider it holds)."""
    hook_answer.register_context_provider(ORDER, KINDS, remind)
    brief.register_brief_section(brief.PLAN, brief_line)  # the resume brief's plan line
