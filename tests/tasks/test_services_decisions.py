"""decision_add's supersede chains and sources, and decision_list (§8 Decisions)."""

from __future__ import annotations

import pytest

from core.errors import InvalidField, NotFound
from tasks import render_md, selectors, services
from tasks.events import describe
from tasks.models import Decision, Event
from tests.support import tokens
from tests.tasks.factories import ACTOR, add_report, make_project, make_task

pytestmark = pytest.mark.django_db


def decide(project: str, text: str, **kw: object) -> Decision:
    return services.decision_add(project=project, text=text, actor=ACTOR, **kw).obj  # type: ignore[arg-type]


def test_a_decision_records_its_scope_and_both_time_axes() -> None:
    project = make_project("acme")
    task = make_task(project)
    on_project = decide("acme", "Use SQLite")
    on_task = decide("acme", "Cache carts", task=task.key)
    assert (on_project.scope, on_task.scope) == ("project", "task")
    assert on_project.recorded_at == on_project.valid_from == on_project.created_at
    assert on_project.superseded_at is None


def test_supersedes_replaces_a_current_decision_and_keeps_it() -> None:
    make_project("acme")
    old = decide("acme", "Use SQLite")
    new = decide("acme", "Use Postgres", supersedes=old.id)
    old.refresh_from_db()
    assert old.superseded_by_id == new.id
    assert old.superseded_at == old.valid_to == new.recorded_at
    event = Event.objects.filter(kind="decision.added").last()
    assert event.payload["supersedes"] == old.id
    assert describe(event.kind, event.payload) == f"Use Postgres (supersedes #{old.id})"
    assert Decision.objects.count() == 2  # nothing is deleted


def test_a_superseded_decision_cannot_be_superseded_again_so_chains_have_no_cycles() -> None:
    make_project("acme")
    first = decide("acme", "A")
    second = decide("acme", "B", supersedes=first.id)
    with pytest.raises(InvalidField, match=f"already superseded by #{second.id}"):
        decide("acme", "C", supersedes=first.id)
    third = decide("acme", "C", supersedes=second.id)
    # Following superseded_by from the first always ends: no decision can point back.
    seen, current = set(), Decision.objects.get(id=first.id)
    while current.superseded_by_id:
        assert current.id not in seen
        seen.add(current.id)
        current = Decision.objects.get(id=current.superseded_by_id)
    assert current.id == third.id


def test_a_decision_of_another_project_cannot_be_superseded() -> None:
    make_project("acme")
    make_project("beta")
    theirs = decide("beta", "Beta's choice")
    with pytest.raises(NotFound, match="No decision #"):
        decide("acme", "Ours", supersedes=theirs.id)


def test_a_source_must_exist_in_the_project() -> None:
    acme, beta = make_project("acme"), make_project("beta")
    report = add_report(make_task(acme))
    foreign = add_report(make_task(beta))
    ok = decide("acme", "Ship it", source=f"report:{report.id}", source_text="the last report")
    assert (ok.source_kind, ok.source_ref, ok.source_text) == (
        "report",
        str(report.id),
        "the last report",
    )
    with pytest.raises(NotFound, match=f"No report #{foreign.id} in project acme"):
        decide("acme", "Ship it", source=f"report:{foreign.id}")
    message = decide("acme", "As agreed", source="message:slack-1234")
    assert message.source_ref == "slack-1234"
    with pytest.raises(InvalidField, match="source is report:<id>"):
        decide("acme", "x", source="email")


def test_the_snapshot_shows_current_decisions_and_decision_list_finds_the_rest() -> None:
    make_project("acme")
    old = decide("acme", "Deploy on Fridays")
    decide("acme", "Deploy on Tuesdays", supersedes=old.id)
    snap = selectors.snapshot_data("acme")
    assert [d.text for d, _ in snap.decisions] == ["Deploy on Tuesdays"]
    project, current = selectors.decision_list("acme", query="deploy")
    assert [d.text for d, _ in current] == ["Deploy on Tuesdays"]
    _, every = selectors.decision_list("acme", query="deploy", include_superseded=True)
    assert [d.text for d, _ in every] == ["Deploy on Tuesdays", "Deploy on Fridays"]
    text = render_md.decision_list_md(project, every, query="deploy")
    assert f"#{old.id} Deploy on Fridays" in text
    assert "superseded by #" in text


def test_a_decision_holding_a_secret_is_refused_without_repeating_it() -> None:
    make_project("acme")
    token = tokens.github()
    with pytest.raises(InvalidField) as refused:
        decide("acme", f"Deploy with {token}")
    assert "(github-token)" in str(refused.value)
    assert token not in str(refused.value)
    assert not Decision.objects.exists()
