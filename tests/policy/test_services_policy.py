"""policy_propose, accepting and rejecting, the editor and the preset: every rule of §7
Policy proposals and Settings → Policy, against a real database and a real policy.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.errors import InvalidField, NotFound
from policy import global_file, selectors, services
from policy.models import PolicyLayer, PolicyProposal
from policy.validate import PolicyInvalid
from tasks.events import describe
from tasks.extensions import CallerRef
from tasks.models import Event
from tests.policy.conftest import make_environment
from tests.support import tokens
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db
OWNER = "owner"


def propose(scope: str, patch: Any, reason: str = "because", **kw: Any) -> PolicyProposal:
    actor = kw.pop("actor", CallerRef(session="agent-7"))
    return services.policy_propose(scope=scope, patch=patch, reason=reason, actor=actor, **kw).obj


def kinds() -> list[str]:
    return list(Event.objects.filter(kind__startswith="policy.").values_list("kind", flat=True))


def effective(scope: str) -> selectors.Effective:
    return selectors.effective(selectors.resolve_scope(scope))


def test_a_proposal_changes_nothing_and_records_who_proposed_it() -> None:
    make_project("acme")
    proposal = propose("acme", {"guard": {"mode": "block"}}, reason="prod is close")
    assert proposal.status == "pending"
    assert proposal.proposed_by == "agent-7"
    assert proposal.session is not None
    assert proposal.session.name == "agent-7"
    assert not PolicyLayer.objects.exists()
    assert effective("acme").merged.get("guard.mode") == "warn"
    event = Event.objects.get(kind="policy.proposed")
    assert event.project.slug == "acme"
    assert describe(event.kind, event.payload) == (
        f"policy proposal #{proposal.id} for acme: prod is close"
    )


@pytest.mark.parametrize(
    ("patch", "words"),
    [
        (
            {"guard": {"mode": "loud"}},
            "proposal for project:acme: guard.mode: "
            "'loud' is not one of ['off', 'log', 'warn', 'block']",
        ),
        ({"preset": "strict"}, "preset: only the global policy"),
        (
            {"guard": {"patterns": [{"id": "git-push", "change": "x"}]}},
            "'git-push' is a built-in rule id",
        ),
        (
            {"levels": {"staging": {"default": "full"}}},
            "levels: unknown key; the keys here are local, test, live",
        ),
    ],
)
def test_a_proposal_that_breaks_the_policy_is_refused_and_leaves_nothing(
    patch: Any, words: str
) -> None:
    make_project("acme")
    with pytest.raises(PolicyInvalid) as refused:
        propose("acme", patch)
    assert words in str(refused.value)
    assert not PolicyProposal.objects.exists()
    assert kinds() == []


def test_at_most_five_errors_are_reported_each_naming_layer_and_path() -> None:
    bad = {
        "guard": {"mode": "x"},
        "levels": {k: {"default": "x"} for k in ("local", "test", "live")},
        "secrets": {"disable": ["nope"], "allow": [3]},
    }
    with pytest.raises(PolicyInvalid) as refused:
        propose("global", bad)
    assert len(refused.value.errors) == 5
    assert all(e.startswith("proposal for policy.json: ") for e in refused.value.errors)


@pytest.mark.parametrize(
    ("scope", "patch", "field"),
    [("acme", [], "patch"), ("acme", {}, "patch"), ("acme", "not json", "patch")],
)
def test_a_patch_must_be_an_object(scope: str, patch: Any, field: str) -> None:
    make_project("acme")
    with pytest.raises(InvalidField) as refused:
        propose(scope, patch)
    assert refused.value.field == field


def test_a_reason_is_required() -> None:
    with pytest.raises(InvalidField, match="reason is required"):
        propose("global", {"guard": {"mode": "block"}}, reason="  ")


def test_unknown_scopes_say_how_to_find_the_right_one() -> None:
    with pytest.raises(NotFound, match="project_list"):
        propose("nope", {"guard": {"mode": "block"}})
    make_project("acme")
    with pytest.raises(NotFound, match="environments_get"):
        propose("acme/nowhere", {"guard": {"mode": "block"}})


def test_accepting_a_project_proposal_stores_the_layer_and_records_both_events() -> None:
    make_project("acme")
    proposal = propose("acme", {"guard": {"mode": "block"}})
    services.policy_proposal_accept(proposal=proposal.id, actor=OWNER)
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decided_by) == ("accepted", OWNER)
    layer = PolicyLayer.objects.get()
    assert layer.body == {"guard": {"mode": "block"}}
    assert layer.changed_by == OWNER
    merged = effective("acme").merged
    assert merged.get("guard.mode") == "block"
    assert merged.sources["guard.mode"] == "project:acme"
    assert kinds() == ["policy.proposed", "policy.updated", "policy.proposal_accepted"]


def test_a_decided_proposal_cannot_be_decided_again() -> None:
    make_project("acme")
    proposal = propose("acme", {"guard": {"mode": "block"}})
    services.policy_proposal_reject(proposal=proposal.id, actor=OWNER)
    with pytest.raises(services.AlreadyDecided, match="already rejected by owner"):
        services.policy_proposal_accept(proposal=proposal.id, actor=OWNER)
    with pytest.raises(services.AlreadyDecided):
        services.policy_proposal_reject(proposal=proposal.id, actor=OWNER)
    assert kinds() == ["policy.proposed", "policy.proposal_rejected"]


def test_a_proposal_is_validated_again_when_accepted() -> None:
    project = make_project("acme")
    proposal = propose("acme", {"guard": {"patterns+": [{"id": "mine", "change": "x"}]}})
    # Meanwhile the owner stored a layer with the same pattern id in guard.patterns.
    services.policy_layer_save(
        scope="acme",
        text=json.dumps({"guard": {"patterns": [{"id": "mine", "change": "y"}]}}),
        actor=OWNER,
    )
    with pytest.raises(PolicyInvalid, match="'mine' is used twice"):
        services.policy_proposal_accept(proposal=proposal.id, actor=OWNER)
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    assert PolicyLayer.objects.get(project=project).body["guard"]["patterns"][0]["change"] == "y"


def test_accepting_a_change_that_widens_live_needs_a_second_confirmation() -> None:
    make_project("acme")
    proposal = propose("acme", {"levels": {"live": {"default": "full"}}})
    with pytest.raises(services.NeedsConfirmation) as asked:
        services.policy_proposal_accept(proposal=proposal.id, actor=OWNER)
    assert asked.value.reasons == ("levels.live.default rises from read to full",)
    assert not PolicyLayer.objects.exists()
    services.policy_proposal_accept(proposal=proposal.id, actor=OWNER, confirmed=True)
    updated = Event.objects.get(kind="policy.updated")
    assert updated.payload["widens"] == ["levels.live.default rises from read to full"]
    assert "widens live: levels.live.default rises from read to full" in describe(
        updated.kind, updated.payload
    )


def test_an_environment_layer_of_a_test_stand_does_not_ask_and_a_live_one_does() -> None:
    project = make_project("acme")
    make_environment(project, "staging", "test")
    make_environment(project, "prod", "live")
    wide = json.dumps({"levels": {"live": {"default": "full"}}, "guard": {"mode": "off"}})
    services.policy_layer_save(scope="acme/staging", text=wide, actor=OWNER)
    with pytest.raises(services.NeedsConfirmation):
        services.policy_layer_save(scope="acme/prod", text=wide, actor=OWNER)
    services.policy_layer_save(scope="acme/prod", text=wide, actor=OWNER, confirmed=True)
    merged = effective("acme/PROD").merged
    assert merged.sources["guard.mode"] == "environment:acme/prod"


def test_the_editor_removes_a_database_layer_with_empty_text() -> None:
    make_project("acme")
    services.policy_layer_save(scope="acme", text='{"guard": {"mode": "block"}}', actor=OWNER)
    with pytest.raises(services.NeedsConfirmation, match="block → warn"):
        services.policy_layer_save(scope="acme", text="  ", actor=OWNER)
    outcome = services.policy_layer_save(scope="acme", text="  ", actor=OWNER, confirmed=True)
    assert outcome.notes == ("Saved the acme policy.",)
    assert not PolicyLayer.objects.exists()
    again = services.policy_layer_save(scope="acme", text="", actor=OWNER)
    assert again.changed == ()


def test_the_editor_refuses_broken_json_with_the_place() -> None:
    make_project("acme")
    with pytest.raises(PolicyInvalid, match=r"project:acme: not valid JSON: line 1 column \d+"):
        services.policy_layer_save(scope="acme", text='{"guard": ', actor=OWNER)


def test_saving_the_same_layer_again_writes_nothing() -> None:
    make_project("acme")
    services.policy_layer_save(scope="acme", text='{"guard": {"mode": "block"}}', actor=OWNER)
    outcome = services.policy_layer_save(
        scope="acme", text='{"guard":{"mode":"block"}}', actor=OWNER
    )
    assert outcome.notes == ("Nothing changed: the acme policy already says so.",)
    assert kinds() == ["policy.updated"]


# --- the global file ------------------------------------------------------------------------


def test_the_preset_picker_keeps_the_rest_of_the_file(policy_file: Path) -> None:
    policy_file.write_text(json.dumps({"description": "mine", "guard": {"disable": ["git-push"]}}))
    services.policy_preset_set(preset="strict", actor=OWNER)
    assert json.loads(policy_file.read_text()) == {
        "description": "mine",
        "guard": {"disable": ["git-push"]},
        "preset": "strict",
    }
    merged = effective("global").merged
    assert merged.get("guard.mode") == "block"
    assert merged.sources["guard.mode"] == "preset:strict"


def test_switching_to_the_trusted_preset_widens_live() -> None:
    with pytest.raises(services.NeedsConfirmation) as asked:
        services.policy_preset_set(preset="trusted", actor=OWNER)
    assert "levels.live.default rises from read to full" in asked.value.reasons
    assert "guard.mode gets weaker: warn → log" in asked.value.reasons


def test_the_preset_picker_refuses_a_broken_file_and_the_editor_replaces_it(
    policy_file: Path,
) -> None:
    policy_file.write_text('{"guard": {"mode": "loud"}}')
    with pytest.raises(global_file.PolicyFileError, match="is broken, so it was not changed"):
        services.policy_preset_set(preset="strict", actor=OWNER)
    assert policy_file.read_text() == '{"guard": {"mode": "loud"}}'
    services.policy_layer_save(scope="global", text='{"guard": {"mode": "block"}}', actor=OWNER)
    assert json.loads(policy_file.read_text()) == {"guard": {"mode": "block"}}
    assert selectors.effective(selectors.Scope()).global_error is None


def test_an_accepted_global_proposal_writes_the_file_atomically(policy_file: Path) -> None:
    proposal = propose("global", {"guard": {"disable+": ["sftp-session"]}})
    services.policy_proposal_accept(proposal=proposal.id, actor=OWNER, confirmed=True)
    assert json.loads(policy_file.read_text()) == {"guard": {"disable+": ["sftp-session"]}}
    assert [p.name for p in policy_file.parent.iterdir() if p.name.startswith(".policy-")] == []
    proposal.refresh_from_db()
    assert not proposal.file_pending


def test_a_failed_write_reopens_the_proposal_and_names_the_file(
    policy_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proposal = propose("global", {"guard": {"mode": "block"}})

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(global_file.tempfile, "mkstemp", refuse)
    with pytest.raises(global_file.PolicyFileError) as failed:
        services.policy_proposal_accept(proposal=proposal.id, actor=OWNER)
    assert str(policy_file) in str(failed.value)
    assert "pending again" in str(failed.value)
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    assert "Permission denied" in proposal.error
    assert kinds()[-1] == "policy.proposal_reopened"
    assert not policy_file.exists()


def test_a_crash_between_the_commit_and_the_write_leaves_a_reopened_proposal(
    policy_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proposal = propose("global", {"guard": {"mode": "block"}})

    class Crash(BaseException):
        pass

    def crash(body: Any) -> None:
        raise Crash

    monkeypatch.setattr(global_file, "write", crash)
    with pytest.raises(Crash):
        services.policy_proposal_accept(proposal=proposal.id, actor=OWNER)
    proposal.refresh_from_db()
    assert proposal.status == "accepted"
    assert proposal.file_pending
    monkeypatch.undo()
    monkeypatch.setattr(global_file, "policy_path", lambda: policy_file)
    assert services.policy_reopen_unwritten() == 1  # what the next start does
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    assert "stopped before" in proposal.error
    assert kinds()[-1] == "policy.proposal_reopened"


def test_a_write_that_happened_before_the_crash_is_not_reopened(policy_file: Path) -> None:
    proposal = propose("global", {"guard": {"mode": "block"}})
    services.policy_proposal_accept(proposal=proposal.id, actor=OWNER)
    PolicyProposal.objects.filter(id=proposal.id).update(file_pending=True)
    assert services.policy_reopen_unwritten() == 0
    proposal.refresh_from_db()
    assert proposal.status == "accepted"
    assert not proposal.file_pending


def test_a_broken_stored_layer_is_ignored_listed_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from django.utils import timezone

    project = make_project("acme")
    PolicyLayer.objects.create(
        project=project, body={"guard": {"mode": "loud"}}, changed_at=timezone.now()
    )
    with caplog.at_level("ERROR", logger="relaybay.policy"):
        first = effective("acme")
        second = effective("acme")
    assert first.chain == ("preset:default",)
    assert first.ignored == (
        (
            "project:acme",
            "project:acme: guard.mode: 'loud' is not one of ['off', 'log', 'warn', 'block']",
        ),
    )
    assert second.ignored == first.ignored
    assert len([r for r in caplog.records if "project:acme" in r.getMessage()]) == 1


def test_a_stored_pattern_that_does_not_compile_loses_only_that_pattern() -> None:
    from django.utils import timezone

    project = make_project("acme")
    body = {"guard": {"mode": "block", "patterns": [{"id": "odd", "change": "(?u)(?a)x"}]}}
    PolicyLayer.objects.create(project=project, body=body, changed_at=timezone.now())
    merged = effective("acme").merged
    assert merged.get("guard.mode") == "block"  # the layer stays in effect
    assert merged.get("guard.patterns")[0]["id"] == "odd"  # the guard skips the pattern itself


def test_a_proposal_reason_holding_a_secret_is_refused_without_repeating_it() -> None:
    make_project("acme")
    token = tokens.github()
    with pytest.raises(InvalidField) as refused:
        propose("acme", {"guard": {"mode": "block"}}, reason=f"CI uses {token} for pushes")
    assert "(github-token)" in str(refused.value)
    assert token not in str(refused.value)
    assert not PolicyProposal.objects.exists()
