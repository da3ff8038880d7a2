"""An owner decision on the Owner check reaches an exactly linked session through a real
hook, as an owner comment line (§1 Review checklist, §4 "Owner comments through hooks").

Data through the services; the hook core's hook_event with the real Claude Code 2.1.332
payloads.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agents.claude_code.hooks import HookResult, hook_event
from reviews import services
from sessions import services as session_services
from sessions.hooks import activity
from tasks.models import Comment, Task
from tests.sessions.hook_payloads import payload
from tests.tasks.factories import ACTOR, make_task

pytestmark = pytest.mark.django_db

AGENT_ID = "78a6a9df-545d-4090-8a48-00105ebe22e7"
STEPS = ["Open the shop", "Login with 2FA", "Checkout"]


@pytest.fixture(autouse=True)
def _fresh_clock() -> Iterator[None]:
    activity.activity_clock.clear()
    yield
    activity.activity_clock.clear()


def post_bash() -> str:
    result: HookResult = hook_event(payload=payload("PostToolUse.Bash", session_id=AGENT_ID))
    if result.answer is None:
        return ""
    return result.answer["hookSpecificOutput"].get("additionalContext", "")


@pytest.fixture
def task() -> Task:
    """A task bound to session alice, whose agent linked AGENT_ID exactly; its checklist set."""
    made = make_task(stage="review")
    session_services.task_bind_session(task=made, session="alice", actor=ACTOR)
    session_services.session_touch(session="alice", hook_session=AGENT_ID, actor=ACTOR)
    services.review_steps_set(key=made.key, steps=STEPS, actor="alice")
    post_bash()  # nothing pending yet: start from a quiet session
    return made


def decide(task: Task, step: int, decision: str, comment: str | None = None) -> None:
    services.review_step_decide(
        key=task.key, step=step, decision=decision, comment=comment, actor="owner"
    )


def test_a_rejection_reaches_the_linked_session_as_an_owner_comment_line(task: Task) -> None:
    decide(task, 2, "reject", "The code never arrives")
    comment = Comment.objects.get(task=task, author_kind="owner")
    context = post_bash()
    assert (
        f"Owner comment on {task.key} (#{comment.id}): "
        "Step 2 'Login with 2FA' rejected: The code never arrives"
    ) in context
    comment.refresh_from_db()
    assert comment.delivered_at is not None
    assert comment.delivered_to_name == "alice"


def test_an_acceptance_says_which_step_to_continue_with(task: Task) -> None:
    decide(task, 1, "accept")
    assert "Step 1 'Open the shop' accepted — continue with step 2" in post_bash()


def test_a_double_click_delivers_nothing_more(task: Task) -> None:
    decide(task, 1, "accept")
    assert "accepted" in post_bash()
    decide(task, 1, "accept")  # a double click or a stale panel
    assert Comment.objects.filter(task=task).count() == 1
    assert "Owner comment" not in post_bash()
