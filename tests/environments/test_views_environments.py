"""Stands & access through Django's test client (§7 Stands & access, §9 relaybay_flash).

Environments and entries are made through their services (tests/environments/factories.py);
proposals come from environment_propose as an agent session would make them. Every test has
its own policy.json (tests/environments/conftest.py).
"""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from core import tokens
from core.security import COOKIE_NAME, current_token
from environments import services
from environments.models import Environment, EnvironmentAccess, EnvironmentProposal
from policy import services as policy_services
from policy.catalog import SECRET_DETECTOR_IDS
from tasks.extensions import CallerRef
from tasks.live_refresh import hx_trigger
from tasks.models import Event
from tests.environments.factories import OWNER, make_environment
from tests.support import tokens as fake_tokens
from tests.tasks.factories import make_project

pytestmark = pytest.mark.django_db

EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'
BEARER_SENTENCE = (
    "Refused: Stands & access acts only for a signed-in browser (board cookie and CSRF "
    "token), not with the Bearer token. Agents propose changes with environment_propose."
)
GITHUB_TOKEN = fake_tokens.github()
TEST_SECRETS = json.dumps({"secrets": {"test_secrets": {"test": True}}})


@pytest.fixture(autouse=True)
def acme() -> None:
    make_project("acme", name="Acme Shop")


@pytest.fixture
def web() -> Client:
    client = Client()
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


# --- helpers ----------------------------------------------------------------------------------


def page_url(slug: str = "acme") -> str:
    return reverse("environments", args=[slug])


def get_html(client: Client, slug: str = "acme", status: int = 200) -> str:
    response = client.get(page_url(slug))
    assert response.status_code == status, response.content.decode()[:2000]
    return response.content.decode()


def post(
    client: Client, name: str, data: dict[str, str], *args: Any, slug: str = "acme", **extra: Any
) -> Any:
    body = {"csrf_token": tokens.csrf_token(current_token()), **data}
    headers = {"HTTP_ORIGIN": "http://testserver", "HTTP_HOST": "testserver", **extra}
    return client.post(reverse(name, args=[slug, *args]), body, **headers)


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


def text(html: str) -> str:
    """What a reader sees: tags gone, entities read, white space collapsed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def flash_of(client: Client, response: Any) -> str:
    """Follow a 303 like the browser: the page shows the flash once, then forgets it."""
    assert response.status_code == 303, response.content.decode()[:3000]
    assert response["Location"] == page_url()
    client.cookies["relaybay_flash"] = response.cookies["relaybay_flash"].value
    html = client.get(response["Location"]).content.decode()
    shown = re.search(r'<p class="flash[^"]*" id="flash" role="status">(.*?)</p>', html, re.S)
    assert shown is not None, "no flash shown"
    return unescape(shown[1])


def textarea(html: str, name: str) -> str:
    found = re.search(rf'<textarea[^>]*name="{name}"[^>]*>\n?(.*?)</textarea>', html, re.S)
    assert found is not None, name
    return unescape(found[1])


def field_value(html: str, name: str) -> str:
    found = re.search(rf'<input name="{name}" value="([^"]*)"', html)
    assert found is not None, name
    return unescape(found[1])


def env_form(name: str = "staging", **values: str) -> dict[str, str]:
    """The Add form as the browser posts it (the checkbox sent only when ticked)."""
    data = {
        "form": "env-new",
        "environment": "",
        "name": name,
        "kind": "test",
        "base_url": "",
        "login_state_path": "",
        "notes": "",
        "level": "default",
        **{f"override_{c}": "default" for c in ("sign_in", "ssh", "kubectl", "db", "deploy")},
    }
    data.update(values)
    return data


def edit_form(env: Environment, **values: str) -> dict[str, str]:
    data = env_form(
        env.name,
        form=f"env-{env.id}-edit",
        environment=env.name,
        kind=env.kind,
        base_url=env.base_url,
        notes=env.notes,
        level=env.level or "default",
    )
    data.update(values)
    return data


def propose(change: dict[str, Any], reason: str = "needed for the deploy") -> EnvironmentProposal:
    return services.environment_propose(
        project="acme", change=change, reason=reason, actor=CallerRef(session="agent-1")
    ).obj


def allow_test_secrets() -> None:
    policy_services.policy_layer_save(scope="acme", text=TEST_SECRETS, actor=OWNER)


# --- the page -----------------------------------------------------------------------------------


def test_each_environment_has_a_panel_with_its_levels_and_where_they_come_from(web) -> None:
    policy_services.policy_layer_save(
        scope="acme", text=json.dumps({"levels": {"test": {"db": "ask"}}}), actor=OWNER
    )
    make_environment("acme", "prod", "live", base_url="https://acme.example", notes="EU only")
    make_environment("acme", "staging", "test", overrides={"deploy": "full"})
    html = get_html(web)
    assert "<h1>Stands &amp; access</h1>" in html
    prod = Environment.objects.get(name="prod")
    panel = text(section(html, f"env-{prod.id}"))
    assert panel.startswith("prod live agents: read (default)")
    assert "https://acme.example" in panel
    assert "Sign-in never on live" in panel
    assert "Notes EU only" in panel
    assert "Changed by owner" in panel
    for capability in ("sign_in", "ssh", "kubectl", "db", "deploy"):
        assert f"{capability} read (default)" in panel
    staging = Environment.objects.get(name="staging")
    panel = text(section(html, f"env-{staging.id}"))
    assert "agents: full (default)" in panel
    assert "db ask (policy: project:acme)" in panel
    assert "deploy full" in panel
    assert "deploy full (" not in panel
    assert "No access entries" in panel
    assert html.index(f'id="env-{prod.id}"') < html.index(f'id="env-{staging.id}"')
    assert "Policy: preset default · guard warn" in text(html)


def test_an_empty_project_says_how_stands_arrive_and_opens_the_add_form(web) -> None:
    html = get_html(web)
    assert "No environments yet." in html
    assert re.search(r'<details class="env-tool" id="env-new" open>', html)
    assert "None pending." in section(html, "env-proposals")


def test_the_sidebar_shows_stands_and_access_under_each_project(web) -> None:
    html = get_html(web)
    assert re.search(rf'<a href="{page_url()}"\s+aria-current="page">Stands &amp; access</a>', html)
    board = web.get(reverse("board", args=["acme"])).content.decode()
    assert f'<a href="{page_url()}" >Stands &amp; access</a>' in board
    assert f'<a href="{reverse("board", args=["acme"])}">Acme Shop</a>' in html  # crumbs


def test_an_unknown_project_is_a_404_with_the_reason(web) -> None:
    html = get_html(web, "nope", status=404)
    assert "Project not found" in html
    assert "Unknown project nope." in html
    response = post(web, "environment_save", env_form(), slug="nope")
    assert response.status_code == 404
    assert "Unknown project" in response.content.decode()


def test_the_live_sections_refetch_themselves_on_the_stands_events(web) -> None:
    make_environment("acme", "staging", "test")
    propose({"environment": "qa", "kind": "test"})
    html = get_html(web)
    trigger = escape(hx_trigger("stands"))
    assert "rbp-environment-proposed from:body" in hx_trigger("stands")
    assert "rbp-policy-updated from:body" in hx_trigger("stands")
    for ident, name in (
        ("env-proposals", "environments_proposals"),
        ("env-stands", "environments_stands"),
    ):
        opening = re.search(rf'<(?:section|div) [^>]*id="{ident}"[^>]*>', html)[0]
        assert f'hx-get="{reverse(name, args=["acme"])}"' in opening
        assert f'hx-trigger="{trigger}"' in opening
        fragment = web.get(reverse(name, args=["acme"]))
        assert fragment.status_code == 200
        assert f'id="{ident}"' in fragment.content.decode()
        assert "<html" not in fragment.content.decode()
        # Its forms post like the page's own: with the CSRF token.
        token = tokens.csrf_token(current_token())
        assert (
            f'<input type="hidden" name="csrf_token" value="{token}">' in fragment.content.decode()
        )
    assert 'data-project="acme"' in html  # app.js sends this project's events as rbp-…
    assert "relaybay/stands.js" in html
    assert web.get(reverse("environments_stands", args=["nope"])).status_code == 404


# --- environments -------------------------------------------------------------------------------


def test_adding_an_environment_redirects_with_the_flash_shown_once(web) -> None:
    data = env_form(
        base_url="https://staging.acme.test", notes="seeded nightly", sign_in_allowed="1"
    )
    response = post(web, "environment_save", data)
    assert flash_of(web, response) == "Environment staging added."
    env = Environment.objects.get()
    assert (env.kind, env.base_url, env.sign_in_allowed) == (
        "test",
        "https://staging.acme.test",
        True,
    )
    assert (env.level, env.overrides, env.changed_by) == ("", {}, "owner")
    again = get_html(web)
    assert 'id="flash"' not in again
    assert "seeded nightly" in section(again, f"env-{env.id}")


def test_editing_sets_the_level_and_overrides_and_renames(web) -> None:
    env = make_environment("acme", "staging", "test")
    data = edit_form(env, name="stage-2", level="ask", override_db="none", sign_in_allowed="1")
    assert flash_of(web, post(web, "environment_save", data)) == "Environment stage-2 saved."
    env.refresh_from_db()
    assert (env.name, env.level, env.overrides) == ("stage-2", "ask", {"db": "none"})
    panel = text(section(get_html(web), f"env-{env.id}"))
    assert "agents: ask" in panel
    assert "agents: ask (" not in panel
    assert "db none" in panel
    # "default" takes an override away again; an unchanged form says so.
    data = edit_form(env, level="ask", sign_in_allowed="1")
    assert flash_of(web, post(web, "environment_save", data)) == "Environment stage-2 saved."
    env.refresh_from_db()
    assert env.overrides == {}
    same = post(web, "environment_save", edit_form(env, level="ask", sign_in_allowed="1"))
    assert flash_of(web, same) == "Nothing changed: stage-2 already says so."


def test_the_edit_form_is_filled_from_the_environment(web) -> None:
    env = make_environment("acme", "prod", "live", level="ask", overrides={"db": "none"})
    html = section(get_html(web), f"env-{env.id}-edit")
    assert field_value(html, "name") == "prod"
    assert '<option value="live" selected>live</option>' in html
    assert '<option value="ask" selected>ask</option>' in section(html, f"env-{env.id}-edit-form")
    assert re.search(r'<select name="override_db">.*?<option value="none" selected>', html, re.S)
    assert re.search(
        r'<select name="override_ssh"><option value="default" selected>default</option>', html
    )
    # The level's own default names what the policy gives live.
    assert '<option value="default">default — read, from the policy</option>' in html
    # Sign-in is forced off on live: the box is disabled and says why.
    assert re.search(r'name="sign_in_allowed" value="1" disabled>', html)
    assert "Never on live: agents do not sign in to a live environment" in html


def test_adding_a_name_that_exists_is_refused_not_an_overwrite(web) -> None:
    make_environment("acme", "staging", "test", notes="keep me")
    response = post(web, "environment_save", env_form("Staging", notes="other"))
    assert response.status_code == 400
    assert "acme already has an environment named Staging" in section(
        response.content.decode(), "refusal"
    )
    assert Environment.objects.get().notes == "keep me"


def test_a_bad_base_url_is_a_400_with_the_form_open_and_the_typed_text_kept(web) -> None:
    typed = env_form(base_url="ftp://files.acme", notes="line one\nline two", kind="live")
    response = post(web, "environment_save", typed)
    assert response.status_code == 400
    html = response.content.decode()
    assert "base_url must start with http:// or https://" in section(html, "refusal")
    assert '<a href="#env-new">' in section(html, "refusal")
    form = section(html, "env-new")
    assert form.startswith('<details class="env-tool" id="env-new" open>')
    assert "data-unsaved" in form  # stands.js never refetches it away
    assert "base_url must start with http://" in form
    assert field_value(form, "base_url") == "ftp://files.acme"
    assert textarea(form, "notes") == "line one\nline two"
    assert '<option value="live" selected>live</option>' in form
    assert not Environment.objects.exists()


def test_a_secret_in_the_notes_is_refused_naming_field_and_detector_never_the_value(web) -> None:
    response = post(web, "environment_save", env_form(notes=f"deploy with {GITHUB_TOKEN} ok"))
    assert response.status_code == 400
    html = response.content.decode()
    assert "notes looks like it contains a secret value (github-token)" in section(html, "refusal")
    assert GITHUB_TOKEN not in html
    assert textarea(section(html, "env-new"), "notes") == "deploy with *** ok"
    # Two detectors on one secret (a token after "token"): one *** covers both.
    response = post(web, "environment_save", env_form(notes=f"token {GITHUB_TOKEN}, then go"))
    assert GITHUB_TOKEN[4:12] not in response.content.decode()
    assert textarea(section(response.content.decode(), "env-new"), "notes") == "token *** then go"
    assert not Environment.objects.exists()


def test_raising_a_live_level_asks_first_and_writes_nothing_until_confirmed(web) -> None:
    env = make_environment("acme", "prod", "live")
    data = edit_form(env, level="full", notes="deploys <b>daily</b>")
    response = post(web, "environment_save", data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Save prod?</h1>" in html
    assert "the level rises from read to full" in section(html, "env-confirm")
    assert '<input type="hidden" name="level" value="full">' in html
    assert '<input type="hidden" name="notes" value="deploys &lt;b&gt;daily&lt;/b&gt;">' in html
    assert '<input type="hidden" name="confirmed" value="1">' in html
    env.refresh_from_db()
    assert env.level == ""
    assert not Event.objects.filter(kind="environment.updated").exists()
    # Back to the form: the page with the form refilled, nothing written.
    back = post(web, "environment_save", {**data, "back": "1"})
    assert back.status_code == 200
    form = section(back.content.decode(), f"env-{env.id}-edit")
    assert " open>" in form.split("\n")[0]
    assert '<option value="full" selected>full</option>' in form
    confirmed = post(web, "environment_save", {**data, "confirmed": "1"})
    assert flash_of(web, confirmed) == "Environment prod saved."
    env.refresh_from_db()
    assert env.level == "full"


def test_deleting_an_environment_asks_on_the_page_then_deletes(web) -> None:
    env = make_environment("acme", "staging", "test")
    services.access_add(
        project="acme", environment="staging", kind="kubectl", fields={"context": "k"}, actor=OWNER
    )
    question = section(get_html(web), f"env-{env.id}-delete")
    assert question.startswith('<details class="env-tool is-danger"')  # a second button first
    assert "Delete staging with its 1 access entry and its own policy layer?" in text(question)
    response = post(web, "environment_delete", {"environment": "staging"})
    assert flash_of(web, response) == "Environment staging deleted."
    assert not Environment.objects.exists()
    assert not EnvironmentAccess.objects.exists()
    gone = post(web, "environment_delete", {"environment": "staging"})
    assert gone.status_code == 404
    assert "Unknown environment in acme; its environments: none yet." in section(
        gone.content.decode(), "refusal"
    )


def test_agent_text_is_escaped_everywhere(web) -> None:
    make_environment("acme", "staging", "test", notes=EVIL)
    services.access_add(
        project="acme", environment="staging", kind="other", fields={"vpn": EVIL}, actor=OWNER
    )
    propose({"environment": "staging", "notes": EVIL}, reason=EVIL)
    html = get_html(web)
    assert EVIL not in html
    assert "<script>alert" not in html
    assert html.count(escape(EVIL)) >= 3  # the notes, the entry's field, the reason (+ the change)


# --- access entries -----------------------------------------------------------------------------


def test_access_entries_are_added_updated_and_removed_with_name_value_lines(web) -> None:
    env = make_environment("acme", "prod", "live")
    lines = "alias: prod\r\nhost: 10.0.0.5\r\n\r\nkey_path_ref: ~/.ssh/acme_live\r\n"
    data = {"form": f"entry-new-{env.id}", "environment": "prod", "kind": "ssh", "fields": lines}
    response = post(web, "access_add", data)
    entry = EnvironmentAccess.objects.get()
    assert flash_of(web, response) == f"Access entry #{entry.id} (ssh) added to prod."
    assert entry.fields == {"alias": "prod", "host": "10.0.0.5", "key_path_ref": "~/.ssh/acme_live"}
    html = get_html(web)
    shown = text(section(html, f"env-entry-{entry.id}"))
    assert "ssh" in shown
    assert f"#{entry.id} · changed by owner" in shown
    assert "host 10.0.0.5" in shown
    edit = section(html, f"entry-{entry.id}-edit")
    assert textarea(edit, "fields") == "alias: prod\nhost: 10.0.0.5\nkey_path_ref: ~/.ssh/acme_live"
    assert 'name="test_secrets"' not in edit  # no test secrets on live
    response = post(
        web,
        "access_update",
        {"form": f"entry-{entry.id}-edit", "fields": "alias: prod-2"},
        entry.id,
    )
    assert flash_of(web, response) == f"Access entry #{entry.id} saved."
    entry.refresh_from_db()
    assert entry.fields == {"alias": "prod-2"}
    response = post(web, "access_remove", {}, entry.id)
    assert flash_of(web, response) == f"Access entry #{entry.id} (ssh) removed."
    assert not EnvironmentAccess.objects.exists()
    assert post(web, "access_remove", {}, entry.id).status_code == 404


def test_a_refused_entry_keeps_its_lines_and_names_the_field(web) -> None:
    env = make_environment("acme", "prod", "live")
    form = f"entry-new-{env.id}"
    lines = "host: db.internal\npassword_ref: hunter2hunter2\nport: 5432"
    response = post(
        web, "access_add", {"form": form, "environment": "prod", "kind": "db", "fields": lines}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "password_ref must be a reference" in section(html, "refusal")
    assert "(secret-field)" in html
    assert "hunter2hunter2" not in html
    assert (
        textarea(section(html, form), "fields")
        == "host: db.internal\npassword_ref: ***\nport: 5432"
    )
    assert '<option value="db" selected>db</option>' in section(html, form)
    bad = post(
        web,
        "access_add",
        {"form": form, "environment": "prod", "kind": "ssh", "fields": "just text"},
    )
    assert bad.status_code == 400
    assert "line 1: write it as name: value." in section(bad.content.decode(), "refusal")
    assert textarea(section(bad.content.decode(), form), "fields") == "just text"
    assert not EnvironmentAccess.objects.exists()


def test_test_secrets_are_never_rendered_and_the_box_keeps_or_removes_them(web) -> None:
    allow_test_secrets()
    env = make_environment("acme", "staging", "test")
    form = f"entry-new-{env.id}"
    assert 'name="test_secrets"' in section(get_html(web), form)  # the policy allows them
    data = {
        "form": form,
        "environment": "staging",
        "kind": "db",
        "fields": "host: db.staging",
        "test_secrets": "password: Sup3r-test-pw\napi_token: tok-test-7781",
    }
    flash_of(web, post(web, "access_add", data))
    entry = EnvironmentAccess.objects.get()
    html = get_html(web)
    assert "Sup3r-test-pw" not in html
    assert "tok-test-7781" not in html
    shown = text(section(html, f"env-entry-{entry.id}"))
    assert "password ••• (test secret)" in shown
    assert "api_token ••• (test secret)" in shown
    edit = section(html, f"entry-{entry.id}-edit")
    assert textarea(edit, "test_secrets") == "api_token: ***\npassword: ***"
    # name: *** keeps a value, a removed line removes it.
    data = {
        "form": f"entry-{entry.id}-edit",
        "fields": "host: db2",
        "test_secrets": "password: ***",
    }
    flash_of(web, post(web, "access_update", data, entry.id))
    entry.refresh_from_db()
    assert entry.fields == {"host": "db2", "password": {"value": "Sup3r-test-pw", "test": True}}
    # A form without the box keeps them.
    flash_of(web, post(web, "access_update", {"fields": "host: db3"}, entry.id))
    entry.refresh_from_db()
    assert entry.fields["password"] == {"value": "Sup3r-test-pw", "test": True}


def test_a_refused_form_never_sends_a_typed_test_secret_back(web) -> None:
    allow_test_secrets()
    env = make_environment("acme", "staging", "test")
    form = f"entry-new-{env.id}"
    data = {
        "form": form,
        "environment": "staging",
        "kind": "db",
        "fields": "colour: red",
        "test_secrets": "password: Sup3r-test-pw",
    }
    response = post(web, "access_add", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "fields names a field that db entries do not have" in html
    assert "Sup3r-test-pw" not in html
    assert textarea(section(html, form), "test_secrets") == "password: "
    assert "Values you typed are not shown again" in section(html, form)


def test_the_test_secrets_box_is_there_only_when_allowed_or_already_used(web) -> None:
    env = make_environment("acme", "staging", "test")
    entry = services.access_add(
        project="acme", environment="staging", kind="db", fields={"host": "h"}, actor=OWNER
    ).obj
    html = get_html(web)
    assert 'name="test_secrets"' not in section(html, f"env-{env.id}")  # default preset: off
    allow_test_secrets()
    services.access_update(
        entry=entry.id, fields={"host": "h"}, test_secrets={"password": "pw-1"}, actor=OWNER
    )
    policy_services.policy_layer_save(scope="acme", text="", actor=OWNER)  # not allowed again
    html = get_html(web)
    assert 'name="test_secrets"' not in section(html, f"entry-new-{env.id}")
    edit = section(html, f"entry-{entry.id}-edit")
    assert textarea(edit, "test_secrets") == "password: ***"
    assert "no longer allows test secrets here" in edit
    assert "pw-1" not in html


# --- proposals ------------------------------------------------------------------------------------


def test_pending_proposals_are_listed_on_top_with_the_change_and_what_accepting_does(web) -> None:
    make_environment("acme", "prod", "live")
    calm = propose({"environment": "staging", "kind": "test"}, reason="a place to try")
    wide = propose({"environment": "prod", "level": "full"}, reason="hotfix")
    html = get_html(web)
    assert html.index('id="env-proposals"') < html.index('id="env-stands"')
    first = section(html, f"env-proposal-{calm.id}")
    assert "a place to try" in first
    assert "proposed by agent-1" in first
    assert escape('"kind": "test"') in first
    assert "raises live" not in first
    assert f'action="{reverse("environment_proposal_accept", args=["acme", calm.id])}"' in first
    assert f'action="{reverse("environment_proposal_reject", args=["acme", calm.id])}"' in first
    second = section(html, f"env-proposal-{wide.id}")
    assert '<span class="state-pill is-warn">raises live</span>' in second
    assert "the level rises from read to full" in second
    assert ">Accept…</button>" in second
    assert html.index(f"env-proposal-{calm.id}") < html.index(f"env-proposal-{wide.id}")


def test_accepting_and_rejecting_redirect_with_the_outcome(web) -> None:
    keep = propose({"environment": "staging", "kind": "test", "base_url": "https://s.acme.test"})
    drop = propose({"environment": "qa", "kind": "test"})
    response = post(web, "environment_proposal_accept", {}, keep.id)
    assert flash_of(web, response) == f"Accepted environment proposal #{keep.id} for staging."
    response = post(web, "environment_proposal_reject", {}, drop.id)
    assert flash_of(web, response) == f"Rejected environment proposal #{drop.id} for qa."
    assert list(Environment.objects.values_list("name", "base_url")) == [
        ("staging", "https://s.acme.test")
    ]
    keep.refresh_from_db()
    drop.refresh_from_db()
    assert (keep.status, keep.decided_by, drop.status) == ("accepted", "owner", "rejected")
    assert "None pending." in get_html(web)


def test_accepting_a_proposal_that_raises_live_asks_first(web) -> None:
    make_environment("acme", "prod", "live")
    wide = propose({"environment": "prod", "overrides": {"db": "full"}}, reason="migrations")
    response = post(web, "environment_proposal_accept", {}, wide.id)
    assert response.status_code == 200
    html = response.content.decode()
    assert f"Accept environment proposal #{wide.id}?" in html
    assert "db rises from read to full" in section(html, "env-confirm")
    assert "agent-1 proposed this change of prod: migrations" in html
    assert "Back to the form" not in html
    wide.refresh_from_db()
    assert wide.status == "pending"
    assert Environment.objects.get().overrides == {}
    confirmed = post(web, "environment_proposal_accept", {"confirmed": "1"}, wide.id)
    assert flash_of(web, confirmed) == f"Accepted environment proposal #{wide.id} for prod."
    assert Environment.objects.get().overrides == {"db": "full"}


def test_deciding_a_proposal_twice_shows_the_reason_not_a_500(web) -> None:
    proposal = propose({"environment": "qa", "kind": "test"})
    post(web, "environment_proposal_reject", {}, proposal.id)
    for name in ("environment_proposal_accept", "environment_proposal_reject"):
        response = post(web, name, {}, proposal.id)
        assert response.status_code == 409
        assert "was already rejected by owner" in section(response.content.decode(), "refusal")
    missing = post(web, "environment_proposal_accept", {}, 999)
    assert missing.status_code == 404
    assert "Unknown environment proposal #999." in missing.content.decode()


def test_the_inbox_group_proposed_by_agents_links_to_the_page(web) -> None:
    proposal = propose({"environment": "qa", "kind": "test"}, reason="a place for QA")
    html = web.get(reverse("inbox")).content.decode()
    assert "Proposed by agents" in html
    assert f"#{proposal.id} acme/qa: a place for QA" in html
    assert escape(f"{page_url()}#env-proposal-{proposal.id}") in html
    assert f'id="env-proposal-{proposal.id}"' in get_html(web)


# --- who may write ----------------------------------------------------------------------------


WRITES = (
    ("environment_save", env_form(), ()),
    ("environment_delete", {"environment": "staging"}, ()),
    ("access_add", {"environment": "staging", "kind": "ssh", "fields": "alias: x"}, ()),
    ("access_update", {"fields": "alias: y"}, (1,)),
    ("access_remove", {}, (1,)),
    ("environment_proposal_accept", {}, (1,)),
    ("environment_proposal_reject", {}, (1,)),
)


@pytest.mark.parametrize(("name", "data", "args"), WRITES)
def test_the_bearer_token_is_refused_with_the_sentence(
    client, name: str, data: dict[str, str], args: tuple[int, ...]
) -> None:
    make_environment("acme", "staging", "test")
    response = client.post(
        reverse(name, args=["acme", *args]), data, HTTP_AUTHORIZATION=f"Bearer {current_token()}"
    )
    assert response.status_code == 403
    assert response.content.decode() == BEARER_SENTENCE + "\n"
    assert Event.objects.filter(kind__startswith="environment.").count() == 1  # the factory's


@pytest.mark.parametrize(("name", "data", "args"), WRITES)
def test_a_write_without_the_csrf_token_or_from_elsewhere_is_refused(
    web, name: str, data: dict[str, str], args: tuple[int, ...]
) -> None:
    foreign = post(web, name, data, *args, HTTP_ORIGIN="http://evil.example")
    assert foreign.status_code == 403
    bare = web.post(reverse(name, args=["acme", *args]), data, HTTP_SEC_FETCH_SITE="same-origin")
    assert bare.status_code == 403
    assert "CSRF" in bare.content.decode()
    assert not Event.objects.filter(kind__startswith="environment.").exists()


def test_the_page_answers_only_reads_and_writes_only_posts(web) -> None:
    assert web.post(page_url()).status_code in (403, 405)
    assert web.get(reverse("environment_save", args=["acme"])).status_code == 405


def test_the_page_says_which_detectors_guard_its_writes_and_which_the_policy_switched_off(
    web,
) -> None:
    help_text = text(section(get_html(web), "env-secrets")).replace(" ,", ",")
    assert f"{len(SECRET_DETECTOR_IDS)} secret detectors check every name" in help_text
    assert "Checked: secret-field, user-password, private-key" in help_text
    assert "switched off" not in help_text
    policy_services.policy_layer_save(
        scope="acme", text='{"secrets": {"disable": ["jwt", "secret-prose"]}}', actor=OWNER
    )
    help_text = text(section(get_html(web), "env-secrets")).replace(" ,", ",")
    assert "(2 switched off by the policy)" in help_text
    assert "switched off by the policy: jwt, secret-prose ." in help_text
    assert ", jwt," not in help_text


AWS_KEY_ID = "AKIAQ7ZKM2WX4RT5HJ3N"  # an AWS access key id's shape, no docs placeholder


@pytest.mark.parametrize("box", ["fields", "test_secrets"])
def test_a_token_typed_as_a_field_name_is_refused_never_stored_lowercased(web, box) -> None:
    # issue 38: the names of `name: value` lines went round the door, and lowercasing hid
    # the token's shape from the database's last line.
    allow_test_secrets()
    env = make_environment("acme", "staging", "test")
    form = f"entry-new-{env.id}"
    lines = {"fields": "host: db", "test_secrets": ""}
    lines[box] = f"{lines[box]}\n{AWS_KEY_ID}: x"
    data = {"form": form, "environment": "staging", "kind": "other", **lines}
    response = post(web, "access_add", data)
    assert response.status_code == 400, response.content.decode()[:2000]
    html = response.content.decode()
    assert (
        f"Refused: a key of {box} looks like it contains a secret value (aws-access-key)"
        in text(section(html, "refusal"))
    )
    assert AWS_KEY_ID not in html
    assert AWS_KEY_ID.lower() not in html
    assert not EnvironmentAccess.objects.exists()
    entry = services.access_add(
        project="acme", environment="staging", kind="other", fields={"host": "h"}, actor=OWNER
    ).obj
    update = {"form": f"entry-{entry.id}-edit", **lines}
    response = post(web, "access_update", update, entry.id)
    assert response.status_code == 400
    assert AWS_KEY_ID.lower() not in response.content.decode()
    entry.refresh_from_db()
    assert entry.fields == {"host": "h"}
