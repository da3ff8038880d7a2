"""Docs & rules through Django's test client (§8 Docs & rules page, §9 relaybay_flash).

Documents, notes and blocks are written through memory's services, decisions through
tasks.services.decision_add, as agents' tools would write them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from core import row_html, tokens
from core.security import COOKIE_NAME, current_token
from memory import services
from memory.models import MemoryBlock
from tasks.live_refresh import hx_trigger, kinds
from tests.tasks.factories import add_decision, make_project

pytestmark = pytest.mark.django_db

AGENT = "agent"
OWNER = "owner"
EVIL = '<script>alert(1)</script><img src=x onerror="alert(2)">'


@pytest.fixture(autouse=True)
def acme() -> None:
    make_project("acme", name="Acme Shop")


@pytest.fixture
def web() -> Client:
    client = Client()
    client.cookies[COOKIE_NAME] = tokens.cookie_value(current_token())
    return client


def page(client: Client, query: str = "", status: int = 200) -> str:
    url = reverse("docs", args=["acme"]) + (f"?q={query}" if query else "")
    response = client.get(url)
    assert response.status_code == status, response.content.decode()[:2000]
    return response.content.decode()


def write_doc(text: str, base: int = 0, name: str = "runbook", **kw: Any) -> None:
    extra = {"title": "Release runbook", "kind": "runbook"} if base == 0 else {}
    services.doc_update(
        project="acme", name=name, text=text, base_version=base, actor=AGENT, **extra, **kw
    )


def post_block(client: Client, data: dict[str, str], **extra: Any) -> Any:
    body = {"csrf_token": tokens.csrf_token(current_token()), **data}
    headers = {"HTTP_ORIGIN": "http://testserver", "HTTP_HOST": "testserver", **extra}
    return client.post(reverse("docs_block_save", args=["acme"]), body, **headers)


def element(html: str, ident: str) -> str:
    start = re.search(rf'<(\w+)[^>]*\sid="{ident}"', html)
    assert start is not None, ident
    tag, depth = start[1], 0
    for m in re.compile(rf"<(/?){tag}\b[^>]*>").finditer(html, start.start()):
        depth += -1 if m[1] else 1
        if depth == 0:
            return html[start.start() : m.end()]
    raise AssertionError(ident)


# --- the page ------------------------------------------------------------------------------------


def test_page_lists_documents_decisions_notes_blocks_and_rules(web: Client) -> None:
    write_doc("# Release\n\nShip on Fridays.\n")
    add_decision("acme", "Use SQLite in WAL mode")
    services.memory_add(
        scope="project",
        project="acme",
        title="Deploy needs VPN",
        body="Use **wg0**.",
        kind="project",
        actor=AGENT,
    )
    services.memory_add(
        scope="global", title="Prefer small PRs", body="b", kind="user", actor=AGENT
    )
    services.block_set(
        label="persona", body="Be brief.", base_version=0, actor=AGENT, project="acme"
    )
    html = page(web)
    docs = element(html, "docs-documents")
    assert "Release runbook" in docs
    assert "runbook" in docs
    assert "v1" in docs
    assert reverse("doc", args=["acme", "runbook"]) in docs
    assert "Use SQLite in WAL mode" in element(html, "docs-decisions")
    notes = element(html, "docs-notes")
    assert "Deploy needs VPN" in notes
    assert "<strong>wg0</strong>" in notes
    assert "Prefer small PRs" in notes
    assert "global" in notes
    blocks = element(html, "docs-blocks")
    assert "persona" in blocks
    assert "Be brief." in blocks
    assert 'name="csrf_token"' in blocks
    assert "Working rules for acme" in element(html, "docs-rules")
    # the sidebar links the page
    assert f'href="{reverse("docs", args=["acme"])}"' in html


def test_live_section_listens_to_docs_events_and_swaps_its_content(web: Client) -> None:
    assert {"document.updated", "decision.added", "memory.added", "memory.updated"} <= set(
        kinds("docs")
    )
    live = element(page(web), "docs-live")
    assert hx_trigger("docs") in live.split(">", 1)[0].replace("&gt;", ">")
    assert 'hx-select="#docs-live &gt; *"' in live or 'hx-select="#docs-live > *"' in live
    assert 'hx-swap="innerHTML"' in live
    assert "docs-blocks" not in live
    assert "docs-search" not in live
    part = web.get(reverse("docs_lists", args=["acme"]))
    assert part.status_code == 200
    assert 'id="docs-live"' in part.content.decode()


def test_superseded_decisions_and_notes_are_collapsed_naming_the_newer(web: Client) -> None:
    old = add_decision("acme", "Use Postgres")
    new = add_decision("acme", "Use SQLite", supersedes=old.id)
    first = services.memory_add(
        scope="project",
        project="acme",
        title="Old deploy path",
        body="x",
        kind="project",
        actor=AGENT,
    ).obj
    second = services.memory_add(
        scope="project",
        project="acme",
        title="New deploy path",
        body="y",
        kind="project",
        actor=AGENT,
        op="supersede",
        target=first.id,
    ).obj
    html = page(web)
    decisions = element(html, "docs-decisions")
    current, collapsed = decisions.split("<details", 1)
    assert "Use SQLite" in current
    assert "Use Postgres" not in current
    assert "Use Postgres" in collapsed
    assert f'superseded by <a href="#decision-{new.id}">#{new.id}</a>' in collapsed
    assert f'Supersedes <a href="#decision-{old.id}">#{old.id}</a>' in current
    notes = element(html, "docs-notes")
    current, collapsed = notes.split("<details", 1)
    assert "New deploy path" in current
    assert "Old deploy path" in collapsed
    assert f"#{second.id}</a>" in collapsed


def test_a_row_is_rendered_once_and_again_only_when_what_it_shows_changes(web: Client) -> None:
    """The lists' rows are kept as HTML by what they show (core/row_html.py): a second
    look renders none, and superseding a decision renders the two rows that changed."""
    write_doc("# Runbook\n\nStep one.")
    old = add_decision("acme", "Use Postgres")
    services.memory_add(
        scope="project", project="acme", title="Deploy path", body="x", kind="project", actor=AGENT
    )
    row_html.reset()
    first = page(web)
    assert row_html.info().misses == 3  # a document, a decision, a note
    assert page(web) == first
    assert (row_html.info().misses, row_html.info().hits) == (3, 3)

    new = add_decision("acme", "Use SQLite", supersedes=old.id)
    html = page(web)
    assert row_html.info().misses == 5  # the new decision; the old one, now superseded
    assert f'superseded by <a href="#decision-{new.id}">#{new.id}</a>' in html
    assert f'Supersedes <a href="#decision-{old.id}">#{old.id}</a>' in html


def test_a_decision_shows_its_source(web: Client) -> None:
    add_decision("acme", "Ship on Fridays", source="message:slack-42", source_text="<b>chat</b>")
    add_decision("acme", "Ship on Mondays", source="message:slack-43")
    decisions = element(page(web), "docs-decisions")
    assert "Source: &lt;b&gt;chat&lt;/b&gt;" in decisions  # agent text, escaped
    assert "Source: message:slack-43" in decisions


def test_search_shows_hits_with_their_line(web: Client) -> None:
    write_doc("# Release\n\nThe rollback needs the blue database.\n")
    add_decision("acme", "Rollback by tag, never by hand")
    html = page(web, "rollback")
    hits = element(html, "docs-hits")
    assert "The rollback needs the blue database." in hits
    assert "Rollback by tag" in hits
    assert reverse("doc", args=["acme", "runbook"]) in hits
    assert 'value="rollback"' in html
    assert "Nothing found" in page(web, "zebra")


def superseded_box(html: str) -> str:
    found = re.search(r'<input[^>]*\sid="docs-superseded"[^>]*>', html)
    assert found is not None, "the search form has no Include superseded checkbox"
    return found[0]


def test_search_leaves_superseded_decisions_and_notes_out_unless_asked(web: Client) -> None:
    old = add_decision("acme", "Rollback by hand")
    add_decision("acme", "Rollback by tag", supersedes=old.id)
    first = services.memory_add(
        scope="project",
        project="acme",
        title="Rollback drill weekly",
        body="x",
        kind="project",
        actor=AGENT,
    ).obj
    services.memory_add(
        scope="project",
        project="acme",
        title="Rollback drill monthly",
        body="y",
        kind="project",
        actor=AGENT,
        op="supersede",
        target=first.id,
    )
    html = page(web, "rollback")
    hits = element(html, "docs-hits")
    assert "Rollback by tag" in hits
    assert "Rollback drill monthly" in hits
    assert "Rollback by hand" not in hits
    assert "Rollback drill weekly" not in hits
    assert 'name="superseded"' in superseded_box(html)
    assert "checked" not in superseded_box(html)

    html = page(web, "rollback&superseded=1")
    hits = element(html, "docs-hits")
    assert "Rollback by hand" in hits
    assert "Rollback drill weekly" in hits
    assert "Rollback by tag" in hits
    assert hits.count("· superseded") == 2
    assert "checked" in superseded_box(html)  # the results page keeps the box ticked


def test_unknown_project_and_document_are_404(web: Client) -> None:
    assert web.get(reverse("docs", args=["nope"])).status_code == 404
    assert web.get(reverse("doc", args=["acme", "nope"])).status_code == 404
    write_doc("x\n")
    assert web.get(reverse("doc", args=["acme", "runbook"]) + "?version=9").status_code == 404


# --- a document ----------------------------------------------------------------------------------


def test_document_renders_with_anchors_sections_and_history(web: Client) -> None:
    write_doc("# Release\n\nIntro.\n\n## Gift cards\n\nText.\n\n## Gift cards\n\nAgain.\n")
    write_doc("# Release\n\nIntro v2.\n", base=1, reason="shorter")
    url = reverse("doc", args=["acme", "runbook"])
    html = web.get(url).content.decode()
    assert '<h2 id="release">Release</h2>' in html
    assert "Intro v2." in html
    history = element(html, "doc-history")
    assert f'href="{url}?version=1"' in history
    assert f'href="{url}?version=2"' in history
    assert "shorter" in history
    old = web.get(url + "?version=1").content.decode()
    assert '<h3 id="gift-cards">' in old
    assert '<h3 id="gift-cards-2">' in old
    toc = element(old, "doc-sections")
    assert 'href="#gift-cards"' in toc
    assert 'href="#gift-cards-2"' in toc
    assert "You are reading version 1" in old


def test_script_in_a_document_is_escaped(web: Client) -> None:
    write_doc(f"# Title\n\n{EVIL}\n\n[x](javascript:alert(3))\n")
    html = web.get(reverse("doc", args=["acme", "runbook"])).content.decode()
    body = element(html, "doc-body")
    assert "<script>" not in body
    assert "&lt;script&gt;" in body
    assert "<img" not in body
    assert 'href="javascript' not in body


def test_diff_is_escaped_with_marked_lines(web: Client) -> None:
    write_doc("# T\n\nkeep\nold <b>line</b>\n")
    write_doc("# T\n\nkeep\nnew <script>x</script>\n", base=1)
    url = reverse("doc_diff", args=["acme", "runbook"]) + "?from=1&to=2"
    html = web.get(url).content.decode()
    diff = element(html, "doc-diff")
    assert (
        '<span class="diff-line is-del"><span class="visually-hidden">removed: </span>'
        "-old &lt;b&gt;line&lt;/b&gt;</span>" in diff
    )
    assert "is-add" in diff
    assert "+new &lt;script&gt;x&lt;/script&gt;" in diff
    assert "<script>" not in diff
    assert (
        web.get(reverse("doc_diff", args=["acme", "runbook"]) + "?from=1&to=7").status_code == 404
    )


# --- blocks --------------------------------------------------------------------------------------


def block_data(**kw: str) -> dict[str, str]:
    data = {
        "label": "persona",
        "scope": "project",
        "base_version": "1",
        "body": "Be kind.",
        "description": "How to talk",
        "char_limit": "100",
        "owner_only": "1",
    }
    return {**data, **kw}


def test_owner_edits_a_block_303_and_flash(web: Client) -> None:
    services.block_set(
        label="persona", body="Be brief.", base_version=0, actor=AGENT, project="acme"
    )
    response = post_block(web, block_data())
    assert response.status_code == 303
    assert response["Location"] == reverse("docs", args=["acme"])
    block = MemoryBlock.objects.get(label="persona")
    assert (block.body, block.description, block.char_limit, block.owner_only, block.version) == (
        "Be kind.",
        "How to talk",
        100,
        True,
        2,
    )
    html = page(web)
    assert "Block persona saved (version 2)." in element(html, "flash")


def test_stale_edit_rerenders_with_the_reason_and_the_typed_text(web: Client) -> None:
    services.block_set(
        label="persona", body="Be brief.", base_version=0, actor=AGENT, project="acme"
    )
    services.block_set(
        label="persona", body="Changed.", base_version=1, actor=AGENT, project="acme"
    )
    response = post_block(web, block_data(body="My typed <text>"))
    assert response.status_code == 409
    html = response.content.decode()
    assert "Conflict" in element(html, "refusal")
    form = element(html, "block-project-persona")
    assert "My typed &lt;text&gt;" in form
    assert '<details class="docs-edit" open>' in form
    assert MemoryBlock.objects.get(label="persona").body == "Changed."


def test_over_limit_edit_rerenders_with_the_reason(web: Client) -> None:
    services.block_set(
        label="persona", body="Be brief.", base_version=0, actor=AGENT, project="acme"
    )
    response = post_block(web, block_data(body="x" * 30, char_limit="10"))
    assert response.status_code == 400
    html = response.content.decode()
    assert "the body has 30 characters; the limit is 10" in element(html, "refusal")
    assert "x" * 30 in element(html, "block-project-persona")


def test_owner_creates_a_block_with_the_new_block_form(web: Client) -> None:
    form = element(page(web), "block-new")
    assert 'name="base_version" value="0"' in form
    assert 'value="2000"' in form  # block_set's default limit
    data = block_data(label="Style", scope="global", base_version="0", body="Short answers.")
    response = post_block(web, data)
    assert response.status_code == 303
    block = MemoryBlock.objects.get(label="style")
    assert (block.project_id, block.body, block.version, block.owner_only) == (
        None,
        "Short answers.",
        1,
        True,
    )
    html = page(web)
    assert "Block style saved (version 1)." in element(html, "flash")
    assert "Short answers." in element(html, "block-global-style")


def test_refused_new_block_keeps_what_was_typed_in_the_new_form(web: Client) -> None:
    services.block_set(
        label="persona", body="Be brief.", base_version=0, actor=AGENT, project="acme"
    )
    response = post_block(web, block_data(base_version="0", body="My new <text>"))
    assert response.status_code == 409  # the label exists: a conflict naming its text
    html = response.content.decode()
    assert 'href="#block-new"' in element(html, "refusal")
    form = element(html, "block-new")
    assert "My new &lt;text&gt;" in form
    assert 'value="persona"' in form
    assert "open" in form.split(">", 1)[0]
    assert "My new" not in element(html, "block-project-persona")
    assert MemoryBlock.objects.get(label="persona").body == "Be brief."


def test_bearer_block_edit_is_refused_403(web: Client) -> None:
    services.block_set(
        label="persona", body="Be brief.", base_version=0, actor=AGENT, project="acme"
    )
    response = Client().post(
        reverse("docs_block_save", args=["acme"]),
        block_data(),
        HTTP_AUTHORIZATION=f"Bearer {current_token()}",
    )
    assert response.status_code == 403
    assert "block_set" in response.content.decode()
    assert MemoryBlock.objects.get(label="persona").body == "Be brief."


def test_block_edit_without_csrf_is_refused(web: Client) -> None:
    services.block_set(
        label="persona", body="Be brief.", base_version=0, actor=AGENT, project="acme"
    )
    response = web.post(
        reverse("docs_block_save", args=["acme"]), block_data(), HTTP_ORIGIN="http://testserver"
    )
    assert response.status_code == 403
