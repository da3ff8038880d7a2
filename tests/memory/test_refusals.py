"""Memory refusals never echo what was refused (issue 28), and the dedupe answer's grammar.

A document name or block label is described by type and length unless short and plain, an
unknown section anchor is not repeated (the nearest real one may be offered), a refused tag
is named by its place; the values have a token's or a password's shape.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import DomainError
from memory import notes, selectors
from memory.render_notes import note_add_md
from memory.services import block_set, doc_update, memory_add
from tests.support import tokens
from tests.tasks.factories import ACTOR, make_project

GHP = tokens.github()  # a GitHub token's shape, 40 characters
HUNTER = "Hunter2-" + "x7Yq" * 7 + "zz"  # a password's shape, 38 characters
SPEC = "# Shop spec\n\nIntro.\n\n## Gift cards\n\nCards expire.\n\n## Refunds\n\nIn 14 days.\n"


def refused(call: Any, **kw: Any) -> str:
    with pytest.raises(DomainError) as caught:
        call(**kw)
    return str(caught.value)


@pytest.fixture
def spec() -> None:
    make_project("acme-shop")
    doc_update(
        project="acme-shop",
        name="shop-spec",
        text=SPEC,
        base_version=0,
        title="Shop spec",
        actor=ACTOR,
    )


@pytest.mark.django_db
@pytest.mark.parametrize("secret", [GHP, HUNTER])
def test_a_refused_name_or_label_is_not_repeated(secret: str) -> None:
    make_project("acme-shop")
    bad = f"{secret} x"  # a space: not a name
    name = refused(doc_update, project="acme-shop", name=bad, text="x", base_version=0, actor=ACTOR)
    assert secret not in name
    label = refused(
        block_set, project="acme-shop", label=bad, body="x", base_version=0, actor=ACTOR
    )
    assert secret not in label


@pytest.mark.django_db
def test_a_refused_name_is_described_by_its_length_unless_short_and_plain() -> None:
    make_project("acme-shop")
    long = refused(
        doc_update, project="acme-shop", name=f"{HUNTER}!", text="x", base_version=0, actor=ACTOR
    )
    assert long.endswith("doc_list shows the existing ones. Got a text of 39 characters.")
    short = refused(
        doc_update, project="acme-shop", name="Shop Spec", text="x", base_version=0, actor=ACTOR
    )
    assert short.endswith("Got 'Shop Spec'.")


@pytest.mark.django_db
@pytest.mark.parametrize("secret", [GHP, HUNTER])
def test_an_unknown_section_is_not_repeated(spec: None, secret: str) -> None:
    write = refused(
        doc_update,
        project="acme-shop",
        name="shop-spec",
        text="x",
        base_version=1,
        section=secret,
        actor=ACTOR,
    )
    assert secret not in write
    assert secret.lower() not in write
    assert write == (
        "shop-spec has no such section. Its sections: shop-spec, gift-cards, refunds. Leave "
        "section out to write the whole text."
    )
    doc = selectors.doc_get("acme-shop", "shop-spec")
    read = refused(selectors.doc_section, doc=doc, body=SPEC, anchor=secret)
    assert secret not in read
    assert read == "shop-spec has no such section. Its sections: shop-spec, gift-cards, refunds."


@pytest.mark.django_db
def test_a_misspelt_section_gets_the_nearest_real_one(spec: None) -> None:
    write = refused(
        doc_update,
        project="acme-shop",
        name="shop-spec",
        text="x",
        base_version=1,
        section="refnuds",
        actor=ACTOR,
    )
    assert write.startswith("shop-spec has no such section. Did you mean refunds? Its sections")
    assert "refnuds" not in write


@pytest.mark.parametrize("secret", [GHP, HUNTER])
def test_a_refused_tag_is_named_by_its_place(secret: str) -> None:
    with pytest.raises(ValueError, match="comma") as comma:
        notes.clean_tags(["ok", f"{secret},x"])
    assert str(comma.value) == "tag 2 holds a comma; pass the tags one by one"
    with pytest.raises(ValueError, match="control character") as control:
        notes.clean_tags([f"{secret}\x1b"])
    assert str(control.value) == "tag 1 holds a control character; remove it"
    with pytest.raises(ValueError, match="characters long") as long:
        notes.clean_tags(f"ok, {secret}{secret}")
    assert str(long.value) == f"tag 2 is {2 * len(secret)} characters long; at most 40"
    for message in (comma.value, control.value, long.value):
        assert secret.lower()[:20] not in str(message).lower()


@pytest.mark.django_db
def test_the_dedupe_answer_agrees_with_its_count() -> None:
    make_project("acme-shop")
    note = {"scope": "project", "project": "acme-shop", "kind": "feedback", "actor": ACTOR}
    memory_add(title="SQLite WAL mode", body="Keep WAL on.", op="add", **note)
    one = note_add_md(memory_add(title="WAL checkpoints", body="Nightly.", **note))
    assert one.startswith(
        "Nothing written: 1 current project acme-shop note shares a title word:\n"
    )
    memory_add(title="WAL size limit", body="1 GB.", op="add", force_new=True, **note)
    two = note_add_md(memory_add(title="WAL on replicas", body="Same.", **note))
    assert two.startswith("Nothing written: 2 current project acme-shop notes share a title word:")
