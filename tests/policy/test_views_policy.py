"""Settings → Policy through Django's test client (§7 Settings → Policy, §9 relaybay_flash).

Proposals come from policy_propose as an agent session would make them; layers from the
editor's service, except the broken one, stored directly as an older version or a hand
edit of the database would leave it. Every policy test has its own policy.json
(tests/policy/conftest.py).
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from core import tokens
from core.security import COOKIE_NAME, current_token
from policy import services
from policy.models import PolicyLayer, PolicyProposal
from tasks.extensions import CallerRef
from tasks.live_refresh import hx_trigger
from tasks.models import Event
from tests.policy.conftest import make_environment
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db

EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'
BEARER_SENTENCE = (
    "Refused: Settings → Policy acts only for a signed-in browser (board cookie and CSRF "
    "token), not with the Bearer token. Agents propose changes with policy_propose."
)
WIDE = {"levels": {"live": {"default": "full"}}}


# --- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def web() -> Client:
    client = Client()
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


def page_url(scope: str = "") -> str:
    url = reverse("policy")
    return f"{url}?scope={scope}" if scope else url


def get_html(client: Client, scope: str = "", status: int = 200) -> str:
    response = client.get(page_url(scope))
    assert response.status_code == status, response.content.decode()[:2000]
    return response.content.decode()


def post(client: Client, name: str, data: dict[str, str], *args: Any, **extra: Any) -> Any:
    body = {"csrf_token": tokens.csrf_token(current_token()), **data}
    headers = {"HTTP_ORIGIN": "http://testserver", "HTTP_HOST": "testserver", **extra}
    return client.post(reverse(name, args=args), body, **headers)


def section(html: str, ident: str) -> str:
    """The element with id=`ident`, up to its own closing tag (same-named tags may nest)."""
    start = re.search(rf'<(\w+)[^>]*\sid="{ident}"', html)
    assert start is not None, ident
    tag, depth = start[1], 0
    for m in re.compile(rf"<(/?){tag}\b[^>]*>").finditer(html, start.start()):
        depth += -1 if m[1] else 1
        if depth == 0:
            return html[start.start() : m.end()]
    raise AssertionError(f"{ident} is not closed")


def table_rows(html: str) -> dict[str, tuple[str, str, str]]:
    """setting → (value, source, row class) of the first table in `html`."""
    rows = {}
    pattern = (
        r'<tr(?: class="([^"]*)")?><th scope="row"><code>([^<]+)</code></th>'
        r'<td class="pol-value"><code>([^<]*)</code>.*?</td><td class="pol-source">([^<]*)</td>'
    )
    for m in re.finditer(pattern, html, re.S):
        rows[m[2]] = (unescape(m[3]), m[4], m[1] or "")
    return rows


def textarea(html: str) -> str:
    found = re.search(r'<textarea id="policy-text"[^>]*>\n?(.*?)</textarea>', html, re.S)
    assert found is not None
    return unescape(found[1])


def flash_of(client: Client, response: Any) -> str:
    """Follow a 303 like the browser: the page shows the flash once, then forgets it."""
    assert response.status_code == 303, response.content.decode()[:2000]
    client.cookies["relaybay_flash"] = response.cookies["relaybay_flash"].value
    html = client.get(response["Location"]).content.decode()
    shown = re.search(r'<p class="flash[^"]*" id="flash" role="status">(.*?)</p>', html, re.S)
    assert shown is not None, "no flash shown"
    return unescape(shown[1])


def propose(scope: str, patch: dict[str, Any], reason: str = "because") -> PolicyProposal:
    return services.policy_propose(
        scope=scope, patch=patch, reason=reason, actor=CallerRef(session="agent-1")
    ).obj


def written(policy_file: Path) -> dict[str, Any]:
    return json.loads(policy_file.read_text())


# --- the page -----------------------------------------------------------------------------------


def test_the_policy_tab_sits_in_the_settings_tabs_and_the_sidebar_marks_settings(web) -> None:
    html = get_html(web)
    tabs = re.search(r'<nav class="settings-tabs" aria-label="Settings">(.*?)</nav>', html, re.S)
    assert tabs is not None
    assert f'<a href="{reverse("policy")}" aria-current="page">Policy</a>' in tabs[1]
    assert f'<a href="{reverse("integrations")}">Integrations</a>' in tabs[1]
    assert re.search(rf'<a href="{reverse("settings")}" aria-current="page">', html)
    assert "<h1>Policy</h1>" in html


def test_the_global_scope_shows_every_value_with_its_source_and_the_chain(
    web, policy_file: Path
) -> None:
    policy_file.write_text(json.dumps({"guard": {"mode": "block"}}))
    html = get_html(web)
    effective = section(html, "policy-effective")
    assert "Effective policy: global" in effective
    rows = table_rows(effective)
    assert rows["guard.mode"] == ('"block"', "global", "")
    assert rows["levels.live.default"] == ('"read"', "preset:default", "")
    assert "Layers, a later one winning:" in effective
    assert '<code>preset:default</code><span class="pol-arrow"> → </span><code>global</code>' in (
        effective
    )
    editor = section(html, "policy-editor")
    assert "The global file policy.json" in editor
    assert json.loads(textarea(html)) == {"guard": {"mode": "block"}}


def test_project_and_environment_scopes_show_their_layers_as_sources(web) -> None:
    project = make_project("acme")
    make_environment(project, "live", "live")
    services.policy_layer_save(scope="acme", text='{"guard": {"mode": "block"}}', actor="owner")
    services.policy_layer_save(
        scope="acme/live", text='{"levels": {"live": {"db": "none"}}}', actor="owner"
    )
    html = get_html(web, "acme/live")
    rows = table_rows(section(html, "policy-effective"))
    assert rows["guard.mode"] == ('"block"', "project:acme", "")
    assert rows["levels.live.db"] == ('"none"', "environment:acme/live", "")
    assert rows["levels.local.default"] == ('"full"', "preset:default", "")
    text = unescape(re.sub(r"<[^>]+>", "", section(html, "policy-effective")))
    assert "preset:default → project:acme → environment:acme/live" in text
    assert json.loads(textarea(html)) == {"levels": {"live": {"db": "none"}}}
    # The scope picker lists global, the project and its environment, the current selected.
    picker = section(html, "policy-scope-form")
    options = re.findall(r'<option value="([^"]+)"( selected)?>', picker)
    assert options == [("global", ""), ("acme", ""), ("acme/live", " selected")]
    project_html = get_html(web, "acme")
    assert table_rows(section(project_html, "policy-effective"))["guard.mode"][1] == "project:acme"


def test_a_broken_stored_layer_is_listed_as_ignored_with_its_problem(web) -> None:
    project = make_project("acme")
    PolicyLayer.objects.create(
        project=project,
        body={"guard": {"mode": "loud"}},
        changed_at=timezone.now(),
        changed_by="old-version",
    )
    html = get_html(web, "acme")
    ignored = section(html, "policy-ignored")
    assert "project:acme" in ignored
    assert "guard.mode: &#x27;loud&#x27; is not one of" in ignored
    assert table_rows(section(html, "policy-effective"))["guard.mode"] == (
        '"warn"',
        "preset:default",
        "",
    )
    layers = section(html, "policy-layers")
    assert '<span class="state-pill is-bad">ignored</span>' in layers
    assert "changed by old-version" in layers
    assert escape('"mode": "loud"') in layers


def test_a_broken_policy_file_is_shown_in_a_banner_and_its_last_valid_version_stays(
    web, policy_file: Path
) -> None:
    policy_file.write_text('{"guard": {"mode": "block"}}')
    get_html(web)
    policy_file.write_text('{"guard": {"mode": "loud"}')  # broken JSON, and a new size
    html = get_html(web)
    banner = section(html, "policy-file-error")
    assert "is broken" in banner
    assert "not valid JSON" in banner
    assert table_rows(section(html, "policy-effective"))["guard.mode"][0] == '"block"'
    assert textarea(html) == '{"guard": {"mode": "loud"}'  # the editor holds the file's text


def test_an_unknown_scope_is_a_404_with_the_reason_never_a_500(web) -> None:
    html = get_html(web, "nope", status=404)
    assert "Unknown project in the scope." in section(html, "refusal")
    assert "<table" not in section(html, "policy-effective")
    make_project("acme")
    html = get_html(web, "acme/nowhere", status=404)
    assert "Unknown environment in acme; its environments: none yet." in html


def test_the_live_sections_refetch_themselves_on_policy_events(web) -> None:
    make_project("acme")
    html = get_html(web, "acme")
    trigger = escape(hx_trigger("policy_proposals"))
    for ident, name in (
        ("policy-proposals", "policy_proposals"),
        ("policy-effective", "policy_effective"),
        ("policy-layers", "policy_layers"),
    ):
        opening = re.search(rf'<section [^>]*id="{ident}"[^>]*>', html)[0]
        assert f'hx-get="{reverse(name)}?scope=acme"' in opening
        assert f'hx-trigger="{trigger}"' in opening
        fragment = web.get(f"{reverse(name)}?scope=acme")
        assert fragment.status_code == 200
        assert f'id="{ident}"' in fragment.content.decode()
        assert "<html" not in fragment.content.decode()
    assert "rb-policy-proposed from:body" in hx_trigger("policy_proposals")


# --- the preset picker --------------------------------------------------------------------------


def test_the_preset_picker_marks_the_current_preset_with_its_summary(web) -> None:
    html = section(get_html(web), "policy-presets")
    assert re.search(r'value="default" checked>', html)
    assert '<span class="state-pill is-ok">current</span>' in section(html, "preset-default")
    assert "local full, test ask, live none" in section(html, "preset-strict")
    assert "checked" not in section(html, "preset-trusted")


def test_the_preset_is_written_into_the_file_keeping_the_rest_and_flashed_once(
    web, policy_file: Path
) -> None:
    policy_file.write_text(json.dumps({"description": "mine", "guard": {"disable": ["git-push"]}}))
    response = post(web, "policy_preset", {"preset": "strict", "scope": "global"})
    assert response["Location"] == reverse("policy")
    assert flash_of(web, response) == "Wrote the strict preset to policy.json."
    assert written(policy_file) == {
        "description": "mine",
        "guard": {"disable": ["git-push"]},
        "preset": "strict",
    }
    again = get_html(web)  # shown once: the page deleted the cookie
    assert 'id="flash"' not in again
    assert '<span class="state-pill is-ok">current</span>' in section(again, "preset-strict")


def test_the_preset_picker_refuses_a_broken_file_and_leaves_it(web, policy_file: Path) -> None:
    policy_file.write_text('{"guard": {"mode": "loud"}}')
    response = post(web, "policy_preset", {"preset": "strict", "scope": "global"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "is broken, so it was not changed" in section(html, "refusal")
    assert "policy-file-error" in html
    assert policy_file.read_text() == '{"guard": {"mode": "loud"}}'


def test_a_preset_that_widens_live_asks_first_then_writes(web, policy_file: Path) -> None:
    response = post(web, "policy_preset", {"preset": "trusted", "scope": "global"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Use the trusted preset?" in html
    assert "levels.live.default rises from read to full" in html
    assert not policy_file.exists()
    assert '<input type="hidden" name="preset" value="trusted">' in html
    confirmed = post(
        web, "policy_preset", {"preset": "trusted", "scope": "global", "confirmed": "1"}
    )
    assert confirmed.status_code == 303
    assert written(policy_file) == {"preset": "trusted"}


# --- the editor -----------------------------------------------------------------------------------


def test_validate_shows_the_preview_and_the_widening_and_writes_nothing(web) -> None:
    make_project("acme")
    text = json.dumps({"levels": {"live": {"default": "full"}}, "guard": {"mode": "block"}})
    response = post(web, "policy_validate", {"scope": "acme", "text": text})
    assert response.status_code == 200
    html = response.content.decode()
    preview = section(html, "policy-preview")
    assert "Widens access on live:" in preview
    assert "levels.live.default rises from read to full" in preview
    rows = table_rows(preview)
    assert rows["levels.live.default"] == ('"full"', "project:acme", "is-changed")
    assert rows["guard.mode"] == ('"block"', "project:acme", "is-changed")
    assert rows["levels.local.default"] == ('"full"', "preset:default", "")
    assert "2 settings change" in preview
    assert "<code>project:acme</code>" in preview  # the chain after the change
    assert json.loads(textarea(html)) == json.loads(text)
    assert not PolicyLayer.objects.exists()
    assert not Event.objects.filter(kind__startswith="policy.").exists()
    calm = post(web, "policy_validate", {"scope": "acme", "text": '{"guard": {"mode": "block"}}'})
    assert "Does not widen access on live." in section(calm.content.decode(), "policy-preview")


def test_save_redirects_with_the_flash_and_the_new_source_shows(web) -> None:
    make_project("acme")
    response = post(web, "policy_save", {"scope": "acme", "text": '{"guard": {"mode": "block"}}'})
    assert response["Location"] == page_url("acme")
    assert flash_of(web, response) == "Saved the acme policy."
    assert PolicyLayer.objects.get().changed_by == "owner"
    html = get_html(web, "acme")
    assert table_rows(section(html, "policy-effective"))["guard.mode"] == (
        '"block"',
        "project:acme",
        "",
    )
    layers = section(html, "policy-layers")
    assert "<code>project:acme</code>" in layers
    assert "changed by owner" in layers


def test_a_save_that_widens_live_is_confirmed_on_its_own_page_before_anything_is_written(
    web,
) -> None:
    make_project("acme")
    text = json.dumps(WIDE, indent=2)
    response = post(web, "policy_save", {"scope": "acme", "text": text})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Save the acme policy?" in html
    assert "levels.live.default rises from read to full" in section(html, "policy-confirm")
    assert not PolicyLayer.objects.exists()
    hidden = re.search(r'<input type="hidden" name="text" value="([^"]*)">', html, re.S)
    assert hidden is not None
    assert json.loads(unescape(hidden[1])) == WIDE
    assert f'formaction="{reverse("policy_validate")}#policy-editor"' in html  # back, text kept
    confirmed = post(
        web, "policy_save", {"scope": "acme", "text": unescape(hidden[1]), "confirmed": "1"}
    )
    assert flash_of(web, confirmed) == "Saved the acme policy."
    assert PolicyLayer.objects.get().body == WIDE
    assert Event.objects.get(kind="policy.updated").payload["widens"] == [
        "levels.live.default rises from read to full"
    ]


def test_invalid_json_is_a_400_with_the_place_and_the_typed_text_is_kept(web) -> None:
    make_project("acme")
    typed = '{"guard": {"mode": "block"}, <b>oops'
    for name in ("policy_save", "policy_validate"):
        response = post(web, name, {"scope": "acme", "text": typed})
        assert response.status_code == 400, name
        html = response.content.decode()
        assert "project:acme: not valid JSON: line 1 column" in section(html, "policy-editor")
        assert textarea(html) == typed
        assert "<b>oops" not in html
    assert not PolicyLayer.objects.exists()


def test_a_schema_error_names_the_path_and_keeps_the_text(web) -> None:
    make_project("acme")
    typed = '{"guard": {"mode": "loud"}}'
    response = post(web, "policy_save", {"scope": "acme", "text": typed})
    assert response.status_code == 400
    html = response.content.decode()
    assert "project:acme: guard.mode: &#x27;loud&#x27; is not one of" in html
    assert textarea(html) == typed


def test_empty_text_removes_a_project_layer(web) -> None:
    make_project("acme")
    services.policy_layer_save(scope="acme", text='{"secrets": {"disable": ["jwt"]}}', actor="x")
    preview = post(web, "policy_validate", {"scope": "acme", "text": "  "})
    assert "The layer is removed." in section(preview.content.decode(), "policy-preview")
    response = post(web, "policy_save", {"scope": "acme", "text": ""})
    assert flash_of(web, response) == "Saved the acme policy."
    assert not PolicyLayer.objects.exists()


def test_the_editor_replaces_a_broken_policy_file(web, policy_file: Path) -> None:
    policy_file.write_text("{broken")
    response = post(web, "policy_save", {"scope": "global", "text": '{"guard": {"mode": "log"}}'})
    assert response.status_code == 200  # log is weaker than warn: asked first
    response = post(
        web,
        "policy_save",
        {"scope": "global", "text": '{"guard": {"mode": "block"}}'},
    )
    assert flash_of(web, response) == "Saved the global policy."
    assert written(policy_file) == {"guard": {"mode": "block"}}
    assert "policy-file-error" not in get_html(web)


def test_a_save_to_an_unknown_scope_keeps_the_text_and_says_why(web) -> None:
    response = post(web, "policy_save", {"scope": "gone", "text": '{"guard": {"mode": "block"}}'})
    assert response.status_code == 404
    html = response.content.decode()
    assert "Unknown project in the scope." in section(html, "refusal")
    assert textarea(html) == '{"guard": {"mode": "block"}}'
    assert '<input type="hidden" name="scope" value="gone">' in section(html, "policy-editor")


def test_a_form_without_a_scope_never_writes_the_global_file(web, policy_file: Path) -> None:
    response = post(web, "policy_save", {"text": '{"guard": {"mode": "block"}}'})
    assert response.status_code == 400
    assert "names no scope" in response.content.decode()
    assert not policy_file.exists()


# --- proposals ------------------------------------------------------------------------------------


def test_pending_proposals_show_scope_reason_author_patch_and_widening(web) -> None:
    make_project("acme")
    calm = propose("acme", {"guard": {"mode": "block"}}, reason="prod is close")
    wide = propose("acme", WIDE, reason="deploys")
    html = section(get_html(web), "policy-proposals")
    first = section(html, f"proposal-{calm.id}")
    assert "prod is close" in first
    assert "proposed by agent-1" in first
    assert escape('"mode": "block"') in first
    assert "does not widen live" in first
    assert f'action="{reverse("policy_proposal_accept", args=[calm.id])}"' in first
    assert f'action="{reverse("policy_proposal_reject", args=[calm.id])}"' in first
    second = section(html, f"proposal-{wide.id}")
    assert '<span class="state-pill is-warn">widens live</span>' in second
    assert "levels.live.default rises from read to full" in second
    assert html.index(f"proposal-{calm.id}") < html.index(f"proposal-{wide.id}")


def test_accepting_and_rejecting_a_proposal_redirect_with_the_outcome(web) -> None:
    make_project("acme")
    keep = propose("acme", {"guard": {"mode": "block"}})
    drop = propose("acme", {"secrets": {"disable": ["jwt"]}})
    response = post(web, "policy_proposal_accept", {"scope": "acme"}, keep.id)
    assert response["Location"] == page_url("acme")
    assert flash_of(web, response) == f"Accepted policy proposal #{keep.id} for acme."
    response = post(web, "policy_proposal_reject", {"scope": "acme"}, drop.id)
    assert flash_of(web, response) == f"Rejected policy proposal #{drop.id} for acme."
    assert PolicyLayer.objects.get().body == {"guard": {"mode": "block"}}
    keep.refresh_from_db()
    drop.refresh_from_db()
    assert (keep.status, keep.decided_by, drop.status) == ("accepted", "owner", "rejected")
    assert "No pending proposals." in get_html(web, "acme")


def test_accepting_a_proposal_that_widens_live_asks_first(web) -> None:
    make_project("acme")
    wide = propose("acme", WIDE, reason="deploys need it")
    response = post(web, "policy_proposal_accept", {"scope": "acme"}, wide.id)
    assert response.status_code == 200
    html = response.content.decode()
    assert f"Accept policy proposal #{wide.id}?" in html
    assert "levels.live.default rises from read to full" in html
    assert "agent-1 proposed this change of the acme policy: deploys need it" in html
    assert not PolicyLayer.objects.exists()
    wide.refresh_from_db()
    assert wide.status == "pending"
    confirmed = post(web, "policy_proposal_accept", {"scope": "acme", "confirmed": "1"}, wide.id)
    assert confirmed.status_code == 303
    assert PolicyLayer.objects.get().body == WIDE


def test_deciding_a_proposal_twice_shows_the_reason_not_a_500(web) -> None:
    make_project("acme")
    proposal = propose("acme", {"guard": {"mode": "block"}})
    post(web, "policy_proposal_reject", {"scope": "acme"}, proposal.id)
    for name in ("policy_proposal_accept", "policy_proposal_reject"):
        response = post(web, name, {"scope": "acme"}, proposal.id)
        assert response.status_code == 409
        assert "was already rejected by owner" in section(response.content.decode(), "refusal")
    missing = post(web, "policy_proposal_accept", {"scope": "acme"}, 999)
    assert missing.status_code == 404
    assert "Unknown policy proposal #999." in missing.content.decode()


def test_a_global_proposal_is_not_accepted_over_a_broken_file(web, policy_file: Path) -> None:
    proposal = propose("global", {"guard": {"mode": "block"}})
    policy_file.write_text("{broken")
    html = get_html(web)
    assert "is broken; fix it in the global editor" in section(html, f"proposal-{proposal.id}")
    response = post(web, "policy_proposal_accept", {"scope": "global"}, proposal.id)
    assert response.status_code == 409
    assert "is broken, so it was not accepted" in response.content.decode()
    assert policy_file.read_text() == "{broken"


def test_agent_text_is_escaped_everywhere(web) -> None:
    make_project("acme")
    proposal = propose("acme", {"description": EVIL, "guard": {"mode": "block"}}, reason=EVIL)
    html = get_html(web, "acme")
    assert EVIL not in html
    assert escape(EVIL) in section(html, f"proposal-{proposal.id}")
    services.policy_proposal_accept(proposal=proposal.id, actor="owner")
    html = get_html(web, "acme")
    assert EVIL not in html
    assert "&lt;script&gt;" in section(html, "policy-layers")
    confirm = post(web, "policy_save", {"scope": "acme", "text": json.dumps({**WIDE, "x": EVIL})})
    assert EVIL not in confirm.content.decode()


# --- who may write ----------------------------------------------------------------------------


WRITES = (
    ("policy_preset", {"preset": "strict", "scope": "global"}, ()),
    ("policy_validate", {"scope": "global", "text": "{}"}, ()),
    ("policy_save", {"scope": "global", "text": '{"guard": {"mode": "block"}}'}, ()),
    ("policy_proposal_accept", {"scope": "global"}, (1,)),
    ("policy_proposal_reject", {"scope": "global"}, (1,)),
)


@pytest.mark.parametrize(("name", "data", "args"), WRITES)
def test_the_bearer_token_is_refused_with_the_sentence(
    client, policy_file: Path, name: str, data: dict[str, str], args: tuple[int, ...]
) -> None:
    response = client.post(
        reverse(name, args=args), data, HTTP_AUTHORIZATION=f"Bearer {current_token()}"
    )
    assert response.status_code == 403
    assert response.content.decode() == BEARER_SENTENCE + "\n"
    assert not policy_file.exists()


@pytest.mark.parametrize(("name", "data", "args"), WRITES)
def test_a_write_from_another_origin_or_without_the_csrf_token_is_refused(
    web, policy_file: Path, name: str, data: dict[str, str], args: tuple[int, ...]
) -> None:
    foreign = post(web, name, data, *args, HTTP_ORIGIN="http://evil.example")
    assert foreign.status_code == 403
    assert "did not come from a relaybay page" in foreign.content.decode()
    bare = web.post(reverse(name, args=args), data, HTTP_SEC_FETCH_SITE="same-origin")
    assert bare.status_code == 403
    assert "CSRF" in bare.content.decode()
    assert not policy_file.exists()


def test_the_page_answers_only_reads_and_writes_only_posts(web) -> None:
    assert web.post(reverse("policy")).status_code in (403, 405)
    assert web.get(reverse("policy_save")).status_code == 405


# --- the Inbox ---------------------------------------------------------------------------------


def test_the_inbox_shows_the_policy_proposals_group_linking_to_the_page(web) -> None:
    make_project("acme")
    proposal = propose("acme", {"guard": {"mode": "block"}}, reason="prod is close")
    html = web.get(reverse("inbox")).content.decode()
    assert "Policy proposals" in html
    assert f"#{proposal.id} acme: prod is close" in html
    assert escape(f"{page_url('acme')}#proposal-{proposal.id}") in html
