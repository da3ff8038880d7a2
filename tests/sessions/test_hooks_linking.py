"""Linking a Claude Code hook session to a relaybay session, in the order of §4.

1. the desktop session of the environment (with the live-link move rules), 2. the session
already holding the id, 3. the folder's one desktop session by guess, 4. ambiguous → an
unlinked hook row with its reason, 5. a plain hook row named after the folder.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from agents.claude_code.hooks import HookResult, hook_event
from agents.claude_code.setup.entries import http_hook
from agents.setup.target import Target
from sessions import selectors, services
from sessions.hooks import activity, linking
from sessions.models import Session, TaskBinding
from tasks.models import Event, Project, Task
from tests.sessions.hook_payloads import CWD, payload
from tests.tasks.factories import make_project, make_task

pytestmark = pytest.mark.django_db

DESKTOP = "local_1b4e28ba-2fa1-11d2-883f-0016d3cca427"
OTHER_DESKTOP = "local_9f0c7a52-3c1e-4b7a-8d6e-2f4b1c0a9e77"
INTERACTIVE = "f11e0ae8-da13-46f8-8af2-fe0033a8fe55"  # SessionStart.startup.interactive
PRINTED = "78a6a9df-545d-4090-8a48-00105ebe22e7"  # SessionStart.startup.print, resume.print
CLEARED = "430009dd-5530-4fbd-8d18-5c78bdf50673"  # SessionStart.clear.interactive


@pytest.fixture(autouse=True)
def _fresh_activity_clock() -> Any:
    activity.activity_clock.clear()
    yield
    activity.activity_clock.clear()


def hook(name: str, headers: dict[str, str] | None = None, **changes: Any) -> HookResult:
    return hook_event(payload=payload(name, **changes), headers=headers)


def from_window(name: str, desktop: str = DESKTOP, attended: str = "1", **changes: Any):
    """An event whose command hook added the desktop app's environment to the body."""
    return hook(name, relaybay_host_session=desktop, relaybay_host_attended=attended, **changes)


def acme(**fields: Any) -> Project:
    return make_project("acme-shop", repo_path=CWD, **fields)


def bound_desktop(project: Project, desktop: str = DESKTOP) -> tuple[Session, Task]:
    task = make_task(project)
    services.task_bind_session(task=task, session=desktop, actor="tester")
    return Session.objects.get(desktop_id=desktop), task


def known_desktop(desktop: str = DESKTOP) -> Session:
    return services.session_touch(session=desktop, actor="tester").session


def fresh(session: Session) -> Session:
    return Session.objects.get(pk=session.pk)


def holder(agent_id: str) -> Session | None:
    return selectors.session_by_agent_id(agent_id)


# --- 5. a plain session named after the folder --------------------------------------------


def test_a_hook_session_outside_every_project_is_a_plain_session_named_after_the_folder():
    result = hook("SessionStart.startup.print")
    s = fresh(result.session)
    assert (s.name, s.kind, s.project_id) == ("acme-shop", "hook", None)
    assert (s.agent_session_id, s.agent_exact, s.unlinked_reason) == (PRINTED, False, "")
    assert s.cwd == CWD
    [seen] = Event.objects.filter(kind="session.seen")
    assert seen.payload == {"session": "acme-shop", "kind": "hook", "title": "", "created": True}


def test_a_plain_session_is_placed_in_the_project_whose_repo_path_contains_the_folder():
    project = make_project("acme-shop", repo_path="/home/dev/")
    s = hook("PostToolUse.Bash", cwd="/home/dev/acme-shop/web/src").session
    assert (s.name, s.project_id, s.unlinked_reason) == ("src", project.id, "")


def test_a_folder_next_to_the_repo_path_is_not_inside_it():
    make_project("acme", repo_path="/home/dev/acme")
    assert hook("SessionStart.startup.print").session.project_id is None


def test_the_next_event_of_the_same_id_reaches_the_same_session():
    first = hook("SessionStart.startup.print").session
    again = hook("UserPromptSubmit.print").session
    assert again.pk == first.pk
    assert Session.objects.count() == 1


# --- 3. fallback on first sight -----------------------------------------------------------


def test_the_one_desktop_session_bound_in_the_folders_project_is_linked_by_guess():
    desktop, _task = bound_desktop(acme())
    result = hook("SessionStart.startup.print")
    s = fresh(desktop)
    assert result.session.pk == desktop.pk
    assert (s.agent_session_id, s.agent_exact, s.agent_link) == (PRINTED, False, "guess")
    assert s.hook_status == "working"
    assert Session.objects.filter(kind="hook").count() == 0


def test_an_ended_desktop_session_is_no_candidate():
    project = acme()
    desktop, _task = bound_desktop(project)
    from_window("SessionStart.startup.interactive")
    hook("SessionEnd.other.print", session_id=INTERACTIVE)
    assert fresh(desktop).hook_status == "ended"

    s = hook("SessionStart.startup.print").session
    assert (s.kind, s.project_id, s.unlinked_reason) == ("hook", project.id, "")


def test_a_session_end_for_an_id_no_session_holds_is_dropped():
    acme()
    result = hook("SessionEnd.other.print")
    assert (result.dropped, result.answer) == (True, None)
    assert Session.objects.count() == 0
    assert Event.objects.filter(kind__startswith="session.").count() == 0


# --- 4. ambiguous: unlinked with a reason -------------------------------------------------


def test_several_candidate_desktop_sessions_leave_the_hook_session_unlinked():
    project = acme()
    bound_desktop(project, DESKTOP)
    bound_desktop(project, OTHER_DESKTOP)

    s = fresh(hook("SessionStart.startup.print").session)

    assert (s.kind, s.agent_session_id, s.project_id) == ("hook", PRINTED, project.id)
    assert s.unlinked_reason.startswith("2 desktop sessions are bound to tasks of acme-shop")
    assert "hook_session" in s.unlinked_reason
    [row] = selectors.unlinked_hook_sessions()
    assert (row.id, row.project, row.cwd, row.agent_session_id) == (s.id, "acme-shop", CWD, PRINTED)
    assert row.reason == s.unlinked_reason
    assert Session.objects.filter(agent_session_id__isnull=False).count() == 1


def test_a_folder_in_several_projects_is_ambiguous():
    make_project("acme", repo_path="/home/dev")
    make_project("acme-shop", repo_path=CWD)
    s = hook("SessionStart.startup.print").session
    assert s.project_id is None
    assert s.unlinked_reason.startswith(f"The folder {CWD} is in several projects")
    assert "acme, acme-shop" in s.unlinked_reason


def test_a_candidate_linked_to_another_live_hook_session_is_not_taken():
    desktop, _task = bound_desktop(acme())
    hook("SessionStart.startup.interactive")  # the desktop session guesses this one
    assert fresh(desktop).agent_session_id == INTERACTIVE

    s = hook("SessionStart.startup.print").session

    assert s.kind == "hook"
    assert "already linked to another live Claude Code session" in s.unlinked_reason
    assert fresh(desktop).agent_session_id == INTERACTIVE


def test_an_unlinked_session_that_ended_is_no_longer_listed():
    project = acme()
    bound_desktop(project, DESKTOP)
    bound_desktop(project, OTHER_DESKTOP)
    hook("SessionStart.startup.print")
    assert len(selectors.unlinked_hook_sessions()) == 1
    hook("SessionEnd.other.print", session_id=PRINTED)
    assert selectors.unlinked_hook_sessions() == []


def test_the_agent_links_an_unlinked_hook_session_by_passing_hook_session():
    project = acme()
    bound_desktop(project, DESKTOP)
    bound_desktop(project, OTHER_DESKTOP)
    row = hook("SessionStart.startup.print").session

    touched = services.session_touch(session=DESKTOP, hook_session=PRINTED, actor="tester")

    assert not Session.objects.filter(pk=row.pk).exists()
    s = fresh(touched.session)
    assert (s.agent_session_id, s.agent_exact, s.agent_link, s.hook_status) == (
        PRINTED,
        True,
        "agent",
        "working",
    )
    assert selectors.unlinked_hook_sessions() == []


# --- 2. an exact link made by a write -----------------------------------------------------


def test_an_id_the_agent_linked_with_a_write_reaches_its_session_exactly():
    alice = services.session_touch(session="alice", hook_session=PRINTED, actor="t").session
    result = hook("PostToolUse.Bash")
    assert result.session.pk == alice.pk
    s = fresh(alice)
    assert (s.hook_status, s.activity, s.agent_exact) == ("working", "Bash", True)


# --- 1. the desktop session from the environment ------------------------------------------


def test_the_desktop_session_of_the_environment_is_linked_exactly():
    desktop = known_desktop()
    result = from_window("SessionStart.startup.interactive")
    s = fresh(desktop)
    assert result.session.pk == desktop.pk
    assert (s.agent_session_id, s.agent_exact, s.agent_link) == (INTERACTIVE, True, "env")


def test_the_http_hook_headers_name_the_desktop_session_too():
    desktop = known_desktop()
    headers = {"x-relaybay-host-session": DESKTOP, "x-relaybay-host-attended": "1"}
    hook("Stop.first", headers=headers)
    s = fresh(desktop)
    assert (s.agent_session_id, s.agent_exact, s.hook_status) == (
        "40f76e57-78f2-4a22-82d2-11206736c928",
        True,
        "idle",
    )


@pytest.mark.parametrize(
    "value", ["local_desktop_abc", "local_1b4e28ba", "1b4e28ba-2fa1-11d2-883f-0016d3cca427", 7]
)
def test_a_malformed_desktop_id_is_ignored(value: object):
    known_desktop()
    s = hook("SessionStart.startup.print", relaybay_host_session=value).session
    assert s.kind == "hook"


def test_the_captured_http_header_value_is_malformed_and_ignored():
    known_desktop()
    s = hook("Stop.first", headers={"x-relaybay-host-session": "local_desktop_abc"}).session
    assert s.kind == "hook"


def test_an_unknown_desktop_id_is_ignored_and_creates_no_desktop_session():
    s = from_window("SessionStart.startup.interactive").session
    assert s.kind == "hook"
    assert not Session.objects.filter(kind="desktop").exists()


def test_the_desktop_id_is_matched_whatever_the_case_of_its_uuid():
    desktop = known_desktop()
    from_window(
        "SessionStart.startup.interactive", desktop=DESKTOP.upper().replace("LOCAL", "local")
    )
    assert fresh(desktop).agent_session_id == INTERACTIVE


def test_the_environment_takes_an_id_over_from_a_guessed_hook_row():
    desktop = known_desktop()
    row = hook("SessionStart.startup.print").session
    task = make_task()
    TaskBinding.objects.create(task=task, session=row, bound_at=row.created_at)

    from_window("UserPromptSubmit.print", attended="0")

    assert not Session.objects.filter(pk=row.pk).exists()
    s = fresh(desktop)
    assert (s.agent_session_id, s.agent_exact, s.hook_status) == (PRINTED, True, "working")
    assert selectors.bound_session(task).pk == desktop.pk


def test_an_id_another_sessions_agent_linked_itself_is_never_taken():
    known_desktop()
    alice = services.session_touch(session="alice", hook_session=INTERACTIVE, actor="t").session

    result = from_window("SessionStart.resume.print", session_id=INTERACTIVE)

    assert result.session.pk == alice.pk
    assert holder(INTERACTIVE).pk == alice.pk
    assert Session.objects.get(desktop_id=DESKTOP).agent_session_id is None


class TestTheLiveLinkMoveRules:
    """While the desktop session is exactly linked to another live id, only the window
    itself moves it: an attended ("1") resume, clear or compact start."""

    @pytest.fixture
    def desktop(self) -> Session:
        desktop, _task = bound_desktop(acme())
        from_window("SessionStart.startup.interactive")
        assert fresh(desktop).agent_session_id == INTERACTIVE
        return desktop

    @pytest.mark.parametrize("source", ["resume", "clear", "compact"])
    def test_an_attended_resume_clear_or_compact_start_moves_it(self, desktop, source):
        from_window("SessionStart.resume.print", source=source)
        s = fresh(desktop)
        assert (s.agent_session_id, s.agent_exact, s.hook_status) == (PRINTED, True, "working")
        assert s.activity == f"started ({source})"
        assert holder(INTERACTIVE) is None

    def test_a_plain_startup_never_moves_a_live_link(self, desktop):
        result = from_window("SessionStart.startup.print")
        assert fresh(desktop).agent_session_id == INTERACTIVE
        assert result.session.pk != desktop.pk
        assert "already linked to another live" in result.session.unlinked_reason

    def test_an_unattended_print_run_inherits_the_id_but_does_not_move_it(self, desktop):
        from_window("SessionStart.resume.print", attended="0")
        from_window("UserPromptSubmit.print", attended="0")
        assert fresh(desktop).agent_session_id == INTERACTIVE

    def test_other_events_never_move_a_live_link(self, desktop):
        from_window("PostToolUse.Bash")
        assert fresh(desktop).agent_session_id == INTERACTIVE

    def test_once_the_linked_process_ended_the_next_startup_links_the_new_id(self, desktop):
        hook("SessionEnd.other.print", session_id=INTERACTIVE)
        from_window("SessionStart.startup.print", attended="0")
        s = fresh(desktop)
        assert (s.agent_session_id, s.hook_status) == (PRINTED, "working")

    def test_clear_ends_the_old_id_and_links_the_new_one(self, desktop):
        hook("SessionEnd.clear.interactive")
        from_window("SessionStart.clear.interactive")
        s = fresh(desktop)
        assert (s.agent_session_id, s.agent_exact, s.activity) == (CLEARED, True, "started (clear)")
        assert selectors.tasks_bound_to(s)  # desktop sessions keep their tasks


def test_a_guessed_link_is_replaced_by_the_environments_exact_one():
    desktop, _task = bound_desktop(acme())
    hook("SessionStart.startup.interactive")
    assert fresh(desktop).agent_exact is False
    from_window("SessionStart.startup.print", attended="0")
    s = fresh(desktop)
    assert (s.agent_session_id, s.agent_exact) == (PRINTED, True)


# --- folders ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "path", "inside"),
    [
        ("/home/dev/acme", "/home/dev/acme", True),
        ("/home/dev/acme/", "/home/dev/acme/web", True),
        ("/home/dev/acme", "/home/dev/acme-shop", False),
        ("/home/dev/acme", "/home/dev", False),
        ("C:\\Users\\dev\\Acme", "c:/users/dev/acme/src", True),
        ("", "/home/dev", False),
    ],
)
def test_a_folder_contains_itself_and_what_lies_below(folder: str, path: str, inside: bool):
    assert linking.contains(folder, path) is inside


@pytest.mark.parametrize(
    ("cwd", "name"),
    [
        ("/home/dev/acme-shop", "acme-shop"),
        ("/home/dev/acme-shop/", "acme-shop"),
        ("C:\\Users\\dev\\Acme", "Acme"),
        ("", "claude-code"),
        ("/", "claude-code"),
    ],
)
def test_a_plain_session_is_named_after_the_last_part_of_its_folder(cwd: str, name: str):
    assert linking.folder_name(cwd, "claude-code") == name  # no folder: the agent's name


def headers_of_the_written_http_hook(environ: dict[str, str]) -> dict[str, str]:
    """The headers Claude Code sends for relaybay's http hook entry: each ${VAR} filled from
    `environ` when allowedEnvVars names it, else empty (the documented interpolation)."""
    target = Target(base_url="http://127.0.0.1:8765", token_file="/t/token", python="python3")
    entry = http_hook(target)
    allowed = set(entry["allowedEnvVars"])

    def fill(value: str) -> str:
        return re.sub(
            r"\$\{(\w+)\}", lambda m: environ.get(m[1], "") if m[1] in allowed else "", value
        )

    return {name.lower(): fill(value) for name, value in entry["headers"].items()}


def test_the_written_http_hook_entry_names_the_desktop_session_to_the_handler():
    desktop = known_desktop()
    environ = {"CLAUDE_CODE_HOST_SESSION_ID": DESKTOP, "CLAUDE_CODE_SESSION_ATTENDED": "1"}
    hook("PreToolUse.mcp", headers=headers_of_the_written_http_hook(environ))
    s = fresh(desktop)
    assert (s.agent_session_id, s.agent_exact, s.agent_link, s.activity) == (
        "40f76e57-78f2-4a22-82d2-11206736c928",
        True,
        "env",
        "mcp__demo__echo",
    )


def test_the_written_http_hook_entry_outside_the_desktop_app_links_nothing():
    known_desktop()
    s = hook("PreToolUse.mcp", headers=headers_of_the_written_http_hook({})).session
    assert (s.kind, s.agent_exact) == ("hook", False)


def test_http_hook_headers_on_every_event_keep_the_activity_window():
    """An http hook sends the headers with every event: once the id is linked exactly they
    change nothing, so a working session's activity is still coalesced (§4)."""
    desktop = known_desktop()
    headers = {"x-relaybay-host-session": DESKTOP, "x-relaybay-host-attended": "1"}
    hook("PreToolUse.mcp", headers=headers)
    first = fresh(desktop)
    result = hook("PostToolUse.mcp.structured", headers=headers, tool_name="Edit")
    s = fresh(desktop)
    assert result.flush_in is not None  # held for the end of the window
    assert (s.activity, s.activity_at) == (first.activity, first.activity_at)
    assert (s.agent_exact, s.agent_link) == (True, "env")
