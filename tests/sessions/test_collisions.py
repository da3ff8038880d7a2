"""Collision warnings through the hook service on a real SQLite (issue 32): two sessions
of one repository, the real PreToolUse payloads with their tools replaced; the line each
hears, once per pair and path per hour, expiry, an ended session forgotten, branches, the
switch — and nothing but paths stored."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from agents.claude_code import hooks as claude_code
from core.config import load_config
from sessions import services
from sessions.hooks import activity
from sessions.models import Collision, TouchedPath
from tasks.models import Event
from tests.sessions.hook_payloads import CWD, payload
from tests.support import tokens
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop():
    return make_project("acme-shop", repo_path=CWD)


def agent(name: str, project, **task_fields) -> str:
    """A named session whose agent linked a Claude Code id, bound to a task of its own."""
    agent_id = str(uuid.uuid4())
    task = make_task(project, f"Work of {name}", **task_fields)
    services.session_touch(session=name, hook_session=agent_id, actor="tester")
    services.task_bind_session(task=task, session=name, actor="tester")
    return agent_id


def hook(agent_id: str, name: str = "PreToolUse.Bash", **changes) -> str:
    """The additionalContext the agent gets for one hook event."""
    activity.activity_clock.clear()
    result = claude_code.hook_event(payload=payload(name, session_id=agent_id, **changes))
    out = (result.answer or {}).get("hookSpecificOutput", {})
    return out.get("additionalContext", "")


def edit(agent_id: str, path: str, **changes) -> str:
    tool = {"file_path": path, "old_string": "a", "new_string": "b"}
    return hook(agent_id, tool_name="Edit", tool_input=tool, **changes)


def bash(agent_id: str, command: str) -> str:
    return hook(agent_id, tool_input={"command": command, "description": "x"})


def test_the_second_session_hears_at_once_and_the_first_on_its_next_answer(shop) -> None:
    alice, bob = agent("alice", shop), agent("bob", shop)

    assert edit(alice, f"{CWD}/src/cart.py") == ""
    told = edit(bob, "src/cart.py")

    assert told == (
        "acme-shop-1 (alice) edited src/cart.py just now — coordinate before changing it."
    )
    mirror = hook(alice, "PostToolUse.Bash")
    assert mirror == (
        "acme-shop-2 (bob) is changing src/cart.py too (just now), after you — coordinate "
        "before changing it further."
    )
    assert hook(alice, "PostToolUse.Bash") == ""  # told once
    [event] = Event.objects.filter(kind="session.collision")
    assert event.payload == {
        "session": "bob",
        "other": "alice",
        "path": "src/cart.py",
        "task": "acme-shop-2",
        "other_task": "acme-shop-1",
    }


def test_once_per_pair_and_path_per_hour(shop) -> None:
    alice, bob = agent("alice", shop), agent("bob", shop)
    edit(alice, "src/cart.py")
    assert edit(bob, "src/cart.py") != ""
    assert edit(bob, "src/cart.py") == ""
    assert edit(alice, "src/cart.py").startswith("acme-shop-2 (bob) is changing")  # the mirror
    assert bash(bob, "sed -i 's/a/b/' src/cart.py src/other.py") == ""  # other.py is only bob's
    Collision.objects.update(at=timezone.now() - timedelta(minutes=61))  # an hour on

    assert edit(bob, "src/cart.py").startswith("acme-shop-1 (alice) edited src/cart.py")


def test_a_touch_older_than_thirty_minutes_is_no_collision(shop) -> None:
    alice, bob = agent("alice", shop), agent("bob", shop)
    edit(alice, "src/cart.py")
    TouchedPath.objects.update(touched_at=timezone.now() - timedelta(minutes=31))

    assert edit(bob, "src/cart.py") == ""


def test_paths_older_than_two_hours_are_forgotten(shop) -> None:
    alice, bob = agent("alice", shop), agent("bob", shop)
    edit(alice, "src/old.py")
    TouchedPath.objects.update(touched_at=timezone.now() - timedelta(hours=2, minutes=1))
    edit(bob, "src/new.py")

    assert list(TouchedPath.objects.values_list("path", flat=True)) == ["src/new.py"]


def test_an_ended_session_is_forgotten(shop) -> None:
    alice, bob = agent("alice", shop), agent("bob", shop)
    edit(alice, "src/cart.py")
    hook(alice, "SessionEnd.other.print")

    assert not TouchedPath.objects.filter(session__name="alice").exists()
    assert edit(bob, "src/cart.py") == ""


def test_other_repositories_and_paths_outside_do_not_collide(shop) -> None:
    other = make_project("blog", repo_path="/home/dev/blog")
    alice, bob = agent("alice", shop), agent("bob", other)
    edit(alice, f"{CWD}/README.md")
    assert edit(bob, "README.md", cwd="/home/dev/blog") == ""
    assert edit(bob, "/etc/hosts", cwd="/home/dev/blog") == ""
    assert sorted(TouchedPath.objects.values_list("project__slug", "path")) == [
        ("acme-shop", "README.md"),
        ("blog", "README.md"),
    ]


def test_one_checkout_for_two_branches_is_a_collision(shop) -> None:
    alice = agent("alice", shop, branch="feature/cart")
    bob = agent("bob", shop, branch="feature/search")
    hook(alice, "PostToolUse.Bash")  # alice is live in this checkout

    told = edit(bob, "src/search.py")

    assert told == (
        "acme-shop-1 (alice) works in this checkout for branch feature/cart; your task's "
        "branch is feature/search — coordinate before changing files here (or use a "
        "worktree)."
    )
    assert Collision.objects.get().path == ""


def test_the_switch_turns_it_off(shop, settings, tmp_path) -> None:
    alice, bob = agent("alice", shop), agent("bob", shop)
    edit(alice, "src/cart.py")
    settings.RELAYBAY = load_config(
        environ={"RELAYBAY_HOME": str(tmp_path), "RELAYBAY_COLLISION_WARNINGS": "false"}
    )

    assert edit(bob, "src/cart.py") == ""
    assert not Collision.objects.exists()


def test_nothing_but_paths_is_kept(shop) -> None:
    alice, bob = agent("alice", shop), agent("bob", shop)
    marker = "CONTENT-THAT-MUST-NOT-BE-KEPT"
    hook(alice, tool_name="Write", tool_input={"file_path": "src/a.py", "content": marker})
    bash(bob, f"echo {marker}-TOO > src/a.py")

    kept = [
        *TouchedPath.objects.values_list("path", flat=True),
        *Collision.objects.values_list("path", flat=True),
        *(str(e.payload) for e in Event.objects.filter(kind="session.collision")),
    ]
    assert sorted(TouchedPath.objects.values_list("path", flat=True)) == ["src/a.py", "src/a.py"]
    assert Collision.objects.get().path == "src/a.py"
    assert not any("MUST-NOT" in text for text in kept)


def test_a_path_shaped_like_a_secret_is_left_out_not_refused(shop, caplog) -> None:
    alice, bob = agent("alice", shop), agent("bob", shop)
    token = tokens.github()
    for session in (alice, bob):
        hook(session, tool_name="Write", tool_input={"file_path": f"src/{token}.py"})
    assert not TouchedPath.objects.exists()
    assert not Collision.objects.exists()
    assert "failed" not in caplog.text  # no provider fell over on the database's refusal
