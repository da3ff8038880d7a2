"""`relaybay demo`: the seeded workspace (§5), the refusal, --force and serving the result."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import urllib.request
from pathlib import Path

import pytest

from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer, run_cli

DB = "relaybay.sqlite"


def rows(home: Path, sql: str) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(home / DB)) as con:
        return con.execute(sql).fetchall()


def one(home: Path, sql: str):  # type: ignore[no-untyped-def]
    return rows(home, sql)[0][0]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("demo")
    result = run_cli("demo", "--home", str(home))
    assert result.returncode == 0, result.stderr
    assert "11 tasks" in result.stdout
    return home


def test_projects_and_tasks(seeded: Path) -> None:
    assert rows(seeded, "SELECT slug, repo_path FROM tasks_project ORDER BY slug") == [
        ("acme-shop", "/home/dev/acme-shop"),
        ("demo-api", ""),
    ]
    tasks = rows(seeded, "SELECT stage, description, progress FROM tasks_task")
    assert len(tasks) == 11
    assert {t[0] for t in tasks} == {"plan", "dev", "review", "test", "live", "done"}
    assert all(t[1] and t[2] for t in tasks)
    assert one(seeded, "SELECT COUNT(DISTINCT task_id) FROM tasks_report") == 11
    assert one(seeded, "SELECT COUNT(*) FROM tasks_task WHERE version > 1") == 11


def test_tracker_stale_next_step_and_decision(seeded: Path) -> None:
    tracked = rows(seeded, "SELECT stage, tracker_logged FROM tasks_task WHERE tracker_ref != ''")
    assert len(tracked) >= 2
    assert [t for t in tracked if t[1]] == [("done", 1)]
    stale = rows(
        seeded,
        "SELECT key FROM tasks_task WHERE next_step != '' AND next_step_at < stage_changed_at",
    )
    assert len(stale) == 1
    assert one(seeded, "SELECT COUNT(*) FROM tasks_decision WHERE task_id IS NOT NULL") == 1
    assert one(seeded, "SELECT COUNT(*) FROM tasks_event WHERE kind = 'decision.added'") == 3


def test_docs_and_rules_are_full(seeded: Path) -> None:
    """Documents with a history, a superseded decision, notes of every scope and a block."""
    docs = rows(seeded, "SELECT name, kind, version FROM memory_document ORDER BY name")
    assert docs == [("architecture", "design", 2), ("release-runbook", "runbook", 1)]
    [(section, reason)] = rows(
        seeded,
        "SELECT section, reason FROM memory_documentversion WHERE version = 2",
    )
    assert section == "deployment"
    assert "03:00 UTC" in reason
    chain = rows(
        seeded,
        "SELECT id, superseded_by_id, source_kind FROM tasks_decision "
        "WHERE task_id IS NULL ORDER BY id",
    )
    assert [(old, new) for old, new, _ in chain] == [
        (chain[0][0], chain[1][0]),
        (chain[1][0], None),
    ]
    assert chain[1][2] == "report"
    notes = rows(
        seeded, "SELECT scope, superseded_at IS NOT NULL FROM memory_memorynote ORDER BY id"
    )
    assert sorted(notes) == [("global", 0), ("global", 1), ("project", 0), ("role", 0)]
    [(label, limit)] = rows(seeded, "SELECT label, char_limit FROM memory_memoryblock")
    assert (label, limit) == ("conventions", 1000)
    kinds = {k for (k,) in rows(seeded, "SELECT DISTINCT kind FROM tasks_event")}
    assert {"document.updated", "memory.added", "block.updated"} <= kinds


def _bound_task(home: Path, session_id: int) -> tuple:
    return rows(
        home,
        "SELECT t.stage, t.size, t.plan_status FROM agent_sessions_taskbinding b "
        "JOIN tasks_task t ON t.id = b.task_id "
        f"WHERE b.session_id = {session_id} AND b.unbound_at IS NULL",
    )[0]


def test_the_tasks_were_made_over_days_and_their_tokens_fall_on_several(seeded: Path) -> None:
    """The cost per day has days to show: each task made (and bound) a day or so after the one
    before; a transcript's responses fall between its task's binding and now."""
    made = rows(seeded, "SELECT DISTINCT date(created_at) FROM tasks_task")
    assert len(made) >= 7
    days = one(seeded, "SELECT COUNT(DISTINCT day) FROM agent_sessions_tokenusage")
    assert days >= 4
    early = "SELECT COUNT(*) FROM agent_sessions_tokenusage u JOIN agent_sessions_taskbinding b "
    early += (
        "ON b.task_id = u.task_id AND b.session_id = u.session_id WHERE u.day < date(b.bound_at)"
    )
    assert one(seeded, early) == 0  # no response counted for a task before it was bound
    last = "SELECT MAX(created_at) FROM tasks_report"
    assert one(seeded, last) > one(seeded, "SELECT MAX(created_at) FROM tasks_task")  # writes now


def test_desktop_session_is_working_on_a_dev_task(seeded: Path) -> None:
    [(sid, desktop_id, exact, status)] = rows(
        seeded,
        "SELECT id, desktop_id, agent_exact, hook_status FROM agent_sessions_session "
        "WHERE kind = 'desktop'",
    )
    assert re.fullmatch(r"local_[0-9a-f-]{36}", desktop_id)
    assert (exact, status) == (1, "working")
    assert _bound_task(seeded, sid)[0] == "dev"


def test_review_task_checklist_screenshots_and_exact_link(seeded: Path) -> None:
    [(sid, link)] = rows(
        seeded,
        "SELECT id, agent_link FROM agent_sessions_session "
        "WHERE agent_session_id = 'demo-review-hook-session' AND agent_exact = 1",
    )
    assert link == "agent"
    assert _bound_task(seeded, sid)[0] == "review"
    [task_id] = rows(seeded, "SELECT id FROM tasks_task WHERE stage = 'review'")[0]
    assert one(seeded, f"SELECT COUNT(*) FROM reviews_reviewstep WHERE task_id = {task_id}") == 3
    files = rows(
        seeded,
        f"SELECT content_type, task_id FROM reviews_attachment WHERE task_id = {task_id}",
    )
    assert [f[0] for f in files] == ["image/png", "image/png"]
    stored = list((seeded / "attachments").rglob("*.png"))
    assert len(stored) == 2
    assert all(p.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for p in stored)


def test_accepted_plan_step_states(seeded: Path) -> None:
    [(task_id, stage, size)] = rows(
        seeded, "SELECT id, stage, size FROM tasks_task WHERE plan_status = 'accepted'"
    )
    assert (stage, size) == ("dev", "M")
    steps = rows(
        seeded,
        "SELECT status, conformance, link FROM plans_planstep "
        f"WHERE task_id = {task_id} ORDER BY position",
    )
    assert [s[0] for s in steps] == ["done", "done", "in_progress", "pending"]
    assert steps[0][1] == "as planned"
    assert re.fullmatch(r"report:\d+", steps[0][2])
    assert steps[1][1].startswith("deviation: ")


def test_s_task_without_plan_has_a_three_item_todo(seeded: Path) -> None:
    [(sid, link)] = rows(
        seeded,
        "SELECT id, agent_link FROM agent_sessions_session "
        "WHERE agent_session_id = 'demo-todo-hook-session' AND agent_exact = 1",
    )
    assert link == "agent"
    assert _bound_task(seeded, sid) == ("dev", "S", "none")
    todo = rows(
        seeded,
        f"SELECT status FROM agent_sessions_sessiontodo WHERE session_id = {sid} ORDER BY position",
    )
    assert [t[0] for t in todo] == ["completed", "in_progress", "pending"]
    assert one(seeded, "SELECT COUNT(*) FROM tasks_event WHERE kind = 'session.todo_updated'")


def test_settings_policy_has_a_project_layer_and_a_pending_proposal(seeded: Path) -> None:
    from relaybay_site import demo

    [(body, changed_by, environment)] = rows(
        seeded,
        "SELECT l.body, l.changed_by, l.environment_id FROM policy_policylayer l "
        "JOIN tasks_project p ON p.id = l.project_id WHERE p.slug = 'acme-shop'",
    )
    assert json.loads(body) == demo.POLICY_LAYER
    assert (changed_by, environment) == ("owner", None)
    [(number, scope, patch, status, by, session)] = rows(
        seeded,
        "SELECT pp.id, pp.scope, pp.patch, pp.status, pp.proposed_by, s.name "
        "FROM policy_policyproposal pp JOIN agent_sessions_session s ON s.id = pp.session_id",
    )
    assert (scope, status, by, session) == ("acme-shop", "pending", "cart-agent", "cart-agent")
    assert json.loads(patch) == demo.POLICY_PROPOSAL
    # Both came through the services: their events are in the log.
    events = rows(seeded, "SELECT kind, actor, payload FROM tasks_event WHERE kind LIKE 'policy.%'")
    assert [(k, a) for k, a, _ in events] == [
        ("policy.updated", "owner"),
        ("policy.proposed", "cart-agent"),
    ]
    assert json.loads(events[1][2])["proposal"] == number
    assert not (seeded / "policy.json").exists(), "the demo leaves the global policy alone"


def test_acme_shop_has_local_test_and_live_stands_with_access_and_a_pending_proposal(
    seeded: Path,
) -> None:
    from relaybay_site import demo_stands

    stands = rows(
        seeded,
        "SELECT e.name, e.kind, e.base_url, e.sign_in_allowed, e.changed_by "
        "FROM environments_environment e JOIN tasks_project p ON p.id = e.project_id "
        "WHERE p.slug = 'acme-shop' ORDER BY e.position",
    )
    assert stands == [
        ("local", "local", "http://localhost:8000", 1, "owner"),
        ("test", "test", "https://test.acme-shop.example", 1, "owner"),
        ("live", "live", "https://acme-shop.example", 0, "owner"),
    ]
    entries = rows(
        seeded,
        "SELECT e.name, a.kind, a.fields FROM environments_environmentaccess a "
        "JOIN environments_environment e ON e.id = a.environment_id "
        "ORDER BY e.position, a.position",
    )
    assert [(env, kind) for env, kind, _ in entries] == [
        ("test", "db"),
        ("test", "kubectl"),
        ("live", "ssh"),
        ("live", "logs"),
    ]
    fields = {kind: json.loads(text) for _, kind, text in entries}
    assert fields["db"]["password_ref"] == "$ACME_TEST_DB_PASSWORD"
    assert fields["ssh"] == {
        "alias": "prod-alias",
        "host": "shop-1.acme-shop.example",
        "user": "deploy",
        "key_path_ref": "~/.ssh/acme_live",
    }
    [(number, change, status, by, session)] = rows(
        seeded,
        "SELECT ep.id, ep.change, ep.status, ep.proposed_by, s.name "
        "FROM environments_environmentproposal ep "
        "JOIN agent_sessions_session s ON s.id = ep.session_id",
    )
    assert json.loads(change) == demo_stands.ENVIRONMENT_PROPOSAL
    assert (status, by, session) == ("pending", "invoice-agent", "invoice-agent")
    # Every row came through the services: the log has its events, in order.
    events = rows(
        seeded, "SELECT kind, actor, payload FROM tasks_event WHERE kind LIKE 'environment.%'"
    )
    assert [(k, a) for k, a, _ in events] == [
        ("environment.created", "owner"),
        ("environment.created", "owner"),
        ("environment.created", "owner"),
        *[("environment.access_added", "owner")] * 4,
        ("environment.proposed", "invoice-agent"),
    ]
    assert json.loads(events[-1][2])["proposal"] == number


def test_a_guard_ask_waits_for_the_owner_on_the_vat_task(seeded: Path) -> None:
    """The guard's own verdict on a helm change on test (deploy there is at level ask), held
    as the hook holds one: the Inbox opens on "Waiting for your approval"."""
    [(state, source, agent, summary, stand, level, rule, key, session)] = rows(
        seeded,
        "SELECT a.state, a.source, a.agent, a.summary, a.stand, a.level, a.rule, t.key, s.name "
        "FROM agent_sessions_approvalrequest a JOIN tasks_task t ON t.id = a.task_id "
        "JOIN agent_sessions_session s ON s.id = a.session_id",
    )
    assert (state, source, agent, stand, level, rule) == (
        "pending",
        "guard",
        "claude-code",
        "test",
        "ask",
        "helm-change",
    )
    assert summary.startswith("helm upgrade shop ./chart --kube-context acme-test")
    [(waits,)] = rows(
        seeded,
        "SELECT julianday(deadline) - julianday(requested_at) FROM agent_sessions_approvalrequest",
    )
    assert round(waits) == 7  # no hook holds it: it stays on the board for a week
    assert session == "invoice-agent"
    title = one(seeded, f"SELECT title FROM tasks_task WHERE key = '{key}'")
    assert title == "VAT rounding on invoices"
    kinds = [
        k for (k,) in rows(seeded, "SELECT kind FROM tasks_event WHERE kind LIKE 'approval.%'")
    ]
    assert kinds == ["approval.requested"]


def test_no_token_is_created(seeded: Path) -> None:
    assert not (seeded / "token").exists()


def test_home_is_required(tmp_path: Path) -> None:
    result = run_cli("demo", home=tmp_path)
    assert result.returncode != 0
    assert "--home is required" in result.stderr
    assert not (tmp_path / DB).exists()


def test_a_database_with_work_is_refused_and_force_renames_it(tmp_path: Path) -> None:
    assert run_cli("demo", "--home", str(tmp_path)).returncode == 0
    before = (tmp_path / DB).read_bytes()
    refused = run_cli("demo", "--home", str(tmp_path))
    assert refused.returncode == 1
    assert "--force" in refused.stderr
    assert (tmp_path / DB).read_bytes() == before
    (tmp_path / f"{DB}-wal").write_bytes(b"wal")
    (tmp_path / f"{DB}-shm").write_bytes(b"shm")

    forced = run_cli("demo", "--home", str(tmp_path), "--force")
    assert forced.returncode == 0, forced.stderr
    [moved] = [
        p for p in tmp_path.iterdir() if re.fullmatch(rf"{DB}\.before-demo-\d{{8}}-\d{{6}}", p.name)
    ]
    assert moved.read_bytes() == before
    assert Path(f"{moved}-wal").read_bytes() == b"wal"
    assert Path(f"{moved}-shm").read_bytes() == b"shm"
    assert one(tmp_path, "SELECT COUNT(*) FROM tasks_task") == 11
    # the old database's screenshots go along, or the next start would sweep them
    [old_files] = list(tmp_path.glob("attachments.before-demo-*"))
    assert len(list(old_files.rglob("*.png"))) == 2
    assert len(list((tmp_path / "attachments").rglob("*.png"))) == 2
    assert not (tmp_path / "token").exists()


def test_serve_serves_the_seeded_folder(seeded: Path) -> None:
    assert not (seeded / "token").exists()
    server = RelaybayServer(home=seeded).start()
    try:
        assert server.healthz()["status"] == "ok"
        # An agent reads the demo's stands before touching a server (§7 MCP).
        stands = call_tool(
            server.base_url, server.token, "environments_get", {"project": "acme-shop"}
        )
        assert "Policy: preset default · guard block." in stands
        assert (
            "- access #3 ssh: alias=prod-alias, host=shop-1.acme-shop.example, user=deploy, "
            "key_path_ref=~/.ssh/acme_live" in stands
        )
        snapshot = call_tool(
            server.base_url, server.token, "project_snapshot", {"project": "acme-shop"}
        )
        assert "- live — live · agents: read (default) · https://acme-shop.example" in snapshot
        # The demo's memory is in the search index: a stemmed word finds the new decision,
        # the superseded one stays out, and the document's section names the hit.
        found = call_tool(
            server.base_url,
            server.token,
            "memory_search",
            {"query": "deploying", "project": "acme-shop"},
        )
        assert "nightly at 03:00 UTC" in found
        assert "on every merge to main." not in found
        assert "architecture" in found
        # The board opens on the request waiting for the owner.
        inbox = urllib.request.Request(
            server.base_url + "/inbox", headers={"Authorization": f"Bearer {server.token}"}
        )
        with urllib.request.urlopen(inbox, timeout=10) as answer:
            html = answer.read().decode()
        assert 'id="inbox-approvals"' in html
        assert "helm upgrade shop ./chart" in html
    finally:
        server.stop()
    assert len(list((seeded / "attachments").rglob("*.png"))) == 2  # not swept as orphans
