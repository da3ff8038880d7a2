"""doc_update and the document reads (§8 Documents): create, section writes, optimistic
locking with the current text in the conflict, no-op writes, the secret scan, history and
diffs."""

from __future__ import annotations

import pytest

from core.errors import InvalidField, NotFound, VersionConflict
from memory import selectors
from memory.models import Document, DocumentVersion
from memory.services import doc_update
from tasks.models import Event
from tests.support import tokens
from tests.tasks.factories import ACTOR, make_project

pytestmark = pytest.mark.django_db

SPEC = "# Shop spec\n\nIntro.\n\n## Gift cards\n\nCards expire.\n\n## Refunds\n\nIn 14 days.\n"
AKIA = tokens.aws_key_id()


def create(**kwargs):
    args = {
        "project": "acme-shop",
        "name": "shop-spec",
        "text": SPEC,
        "base_version": 0,
        "title": "Shop spec",
        "kind": "spec",
        "actor": ACTOR,
    }
    return doc_update(**{**args, **kwargs})


def update(**kwargs):
    return doc_update(project="acme-shop", name="shop-spec", actor=ACTOR, **kwargs)


@pytest.fixture(autouse=True)
def _project():
    make_project("acme-shop")


def events() -> list[tuple[str, dict]]:
    return [(e.kind, e.payload) for e in Event.objects.filter(kind="document.updated")]


def test_base_version_0_creates_version_1_with_an_event():
    result = create(reason="first draft")
    assert result.created
    assert result.changed
    doc = Document.objects.get()
    assert (doc.name, doc.title, doc.kind, doc.version, doc.updated_by) == (
        "shop-spec",
        "Shop spec",
        "spec",
        1,
        ACTOR,
    )
    row = DocumentVersion.objects.get()
    assert (row.version, row.body, row.base_version, row.reason) == (1, SPEC, 0, "first draft")
    assert events() == [
        (
            "document.updated",
            {"name": "shop-spec", "version": 1, "section": "", "reason": "first draft"},
        )
    ]


def test_creating_needs_a_title_and_a_slug_name_and_refuses_an_existing_name():
    with pytest.raises(InvalidField, match="title is required"):
        create(title=None)
    with pytest.raises(InvalidField, match="lowercase letters") as bad:
        create(name="Shop spec!")
    assert bad.value.field == "name"
    create()
    with pytest.raises(VersionConflict, match="already exists at version 1") as exists:
        create()
    assert "Cards expire." in str(exists.value)
    assert Document.objects.count() == 1


def test_a_section_write_with_and_without_a_heading():
    create()
    result = update(text="Cards never expire.", base_version=1, section="gift-cards")
    assert result.section == "gift-cards"
    assert result.document.version == 2
    body = selectors.doc_version(result.document).body
    assert "## Gift cards\nCards never expire.\n## Refunds" in body
    assert body.startswith("# Shop spec\n\nIntro.\n")
    update(text="## Store credit\n\nCredit stays.\n", base_version=2, section="gift-cards")
    body = selectors.doc_version(Document.objects.get()).body
    assert "## Gift cards" not in body
    assert "## Store credit\n\nCredit stays.\n" in body
    assert body.endswith("## Refunds\n\nIn 14 days.\n")
    assert DocumentVersion.objects.get(version=3).section == "gift-cards"
    assert events()[-1][1]["section"] == "gift-cards"


def test_an_unknown_section_names_the_known_anchors():
    create()
    with pytest.raises(InvalidField, match="shop-spec, gift-cards, refunds") as err:
        update(text="x", base_version=1, section="returns")
    assert err.value.field == "section"


def test_a_stale_base_version_holds_the_current_version_and_text_or_section():
    create()
    update(text=SPEC.replace("14 days", "30 days"), base_version=1)
    with pytest.raises(VersionConflict) as whole:
        update(text="mine", base_version=1)
    message = str(whole.value)
    assert whole.value.current_version == 2
    assert "is at version 2, not 1" in message
    assert "base_version 2" in message
    assert "In 30 days." in message
    assert "Intro." in message
    with pytest.raises(VersionConflict) as part:
        update(text="mine", base_version=1, section="refunds")
    message = str(part.value)
    assert "current section refunds" in message
    assert "## Refunds\n\nIn 30 days.\n" in message
    assert "Intro." not in message
    assert Document.objects.get().version == 2


def test_writing_the_same_text_again_writes_no_version():
    create()
    result = update(text=SPEC, base_version=1)
    assert not result.changed
    assert result.notes == ("Nothing changed: shop-spec already reads so at version 1.",)
    result = update(text="\nCards expire.\n\n", base_version=1, section="gift-cards")
    assert not result.changed
    assert DocumentVersion.objects.count() == 1
    assert len(events()) == 1


@pytest.mark.parametrize("field", ["text", "title", "reason"])
def test_a_secret_value_is_refused_with_the_field_and_detector_never_the_value(field):
    args = {"text": SPEC, "title": "Shop spec", "reason": "why"}
    args[field] = f"key {AKIA} here"
    with pytest.raises(InvalidField) as err:
        create(**args)
    assert err.value.field == field
    assert str(err.value).startswith(f"Refused: {field} looks like it contains a secret value (")
    assert AKIA not in str(err.value)
    assert Document.objects.count() == 0
    assert events() == []


def test_unknown_document_and_version_say_what_to_do():
    with pytest.raises(NotFound, match="doc_list"):
        update(text="x", base_version=3)
    create()
    with pytest.raises(NotFound, match="versions 1 to 1"):
        selectors.doc_version(Document.objects.get(), 5)


def test_history_and_a_diff_between_two_versions():
    create()
    update(text="Cards never expire.\n", base_version=1, section="gift-cards", reason="policy")
    doc = selectors.doc_get("acme-shop", "shop-spec")
    history = selectors.doc_history(doc)
    assert [(r.version, r.section, r.reason) for r in history] == [
        (2, "gift-cards", "policy"),
        (1, "", ""),
    ]
    diff = selectors.doc_diff(doc, 1, 2)
    assert diff[:2] == ["--- shop-spec v1", "+++ shop-spec v2"]
    assert "-Cards expire." in diff
    assert "+Cards never expire." in diff
    assert selectors.doc_diff(doc, 2, 2) == []
