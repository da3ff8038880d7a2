"""project_upsert, set_project_rules and the project lookups (§1 Project, §6 override)."""

from __future__ import annotations

import pytest

from core.errors import InvalidField, NotFound
from tasks import services
from tasks.models import Event, Project
from tasks.selectors import get_project, project_rules
from tests.tasks.factories import ACTOR, make_project

pytestmark = pytest.mark.django_db


def kinds() -> list[str]:
    return list(Event.objects.values_list("kind", flat=True))


def test_creating_a_project_stores_it_and_records_project_created():
    out = services.project_upsert(
        slug="acme-shop", name="Acme shop", repo_path="/src/acme", actor=ACTOR
    )
    assert out.created
    assert (out.obj.slug, out.obj.name, out.obj.repo_path) == (
        "acme-shop",
        "Acme shop",
        "/src/acme",
    )
    event = Event.objects.get()
    assert event.kind == "project.created"
    assert event.payload == {"slug": "acme-shop", "name": "Acme shop"}
    assert event.actor == ACTOR
    assert event.project_id == out.obj.id


def test_a_new_project_without_a_name_is_named_after_its_slug():
    assert services.project_upsert(slug="acme", actor=ACTOR).obj.name == "acme"


def test_upserting_an_existing_slug_changes_only_the_given_fields():
    make_project("acme", name="Acme", description="Shop")
    out = services.project_upsert(slug="acme", repo_path="/src/acme", actor=ACTOR)
    assert not out.created
    assert out.changed == ("repo_path",)
    project = Project.objects.get(slug="acme")
    assert (project.name, project.description, project.repo_path) == ("Acme", "Shop", "/src/acme")
    event = Event.objects.last()
    assert event.kind == "project.updated"
    assert event.payload == {"slug": "acme", "fields": ["repo_path"]}


@pytest.mark.parametrize("clear", ["-", "", "  -  "])
def test_a_dash_or_an_empty_string_clears_repo_path_and_description(clear):
    make_project("acme", repo_path="/src", description="Shop")
    out = services.project_upsert(slug="acme", repo_path=clear, description=clear, actor=ACTOR)
    assert set(out.changed) == {"repo_path", "description"}
    project = Project.objects.get(slug="acme")
    assert (project.repo_path, project.description) == ("", "")


@pytest.mark.parametrize("clear", ["-", ""])
def test_the_project_name_cannot_be_cleared(clear):
    make_project("acme", name="Acme")
    with pytest.raises(InvalidField, match="name cannot be cleared") as exc:
        services.project_upsert(slug="acme", name=clear, actor=ACTOR)
    assert exc.value.field == "name"


def test_an_upsert_that_changes_nothing_writes_no_event():
    make_project("acme", name="Acme")
    before = Event.objects.count()
    out = services.project_upsert(slug="acme", name="Acme", actor=ACTOR)
    assert out.changed == ()
    assert not out.created
    assert Event.objects.count() == before
    assert out.notes == ("Nothing changed: project acme is as given.",)


def test_a_slug_with_capitals_is_refused_with_the_lowercased_slug_suggested():
    with pytest.raises(InvalidField) as exc:
        services.project_upsert(slug="Acme-Shop", actor=ACTOR)
    assert str(exc.value) == (
        "Invalid slug 'Acme-Shop': a slug uses lowercase letters, digits and dashes only. "
        "Use 'acme-shop'."
    )
    assert exc.value.field == "slug"
    assert Project.objects.count() == 0


@pytest.mark.parametrize(
    ("slug", "suggestion"),
    [("acme shop", "acme-shop"), ("acme_shop!", "acme-shop"), ("-acme", "acme"), ("a--b", "a-b")],
)
def test_a_slug_with_other_characters_is_refused_with_a_cleaned_suggestion(slug, suggestion):
    with pytest.raises(InvalidField, match="lowercase letters, digits and dashes") as exc:
        services.project_upsert(slug=slug, actor=ACTOR)
    assert f"such as '{suggestion}'" in str(exc.value)


def test_an_empty_slug_is_refused_with_an_example():
    with pytest.raises(InvalidField, match="slug is required"):
        services.project_upsert(slug=" ", actor=ACTOR)


def test_a_slug_longer_than_64_characters_is_refused_naming_the_limit():
    with pytest.raises(InvalidField, match="slug is 65 characters long; the limit is 64"):
        services.project_upsert(slug="a" * 65, actor=ACTOR)


@pytest.mark.parametrize(
    ("field", "limit"), [("name", 200), ("repo_path", 1000), ("description", 5000)]
)
def test_oversize_project_fields_are_refused_naming_the_field_and_limit(field, limit):
    with pytest.raises(InvalidField, match=f"{field} is {limit + 1} characters long; the limit"):
        services.project_upsert(slug="acme", actor=ACTOR, **{field: "x" * (limit + 1)})
    assert Project.objects.count() == 0


def test_an_unknown_project_says_how_to_find_or_create_one():
    with pytest.raises(NotFound) as exc:
        get_project("x")
    assert str(exc.value) == (
        "Unknown project x. Call project_list to see the slugs, or create it with project_upsert."
    )


def test_a_project_is_found_whatever_the_case_of_the_slug():
    make_project("acme")
    assert get_project(" ACME ").slug == "acme"


def test_project_rules_are_stored_as_given_and_recorded_as_a_project_update():
    make_project("acme")
    body = '{"guidance": "Ship small."}'
    out = services.set_project_rules(project="acme", body=body, actor=ACTOR)
    assert out.created
    assert out.obj.body == body
    assert Event.objects.last().payload == {"slug": "acme", "fields": ["rules"]}
    assert "Ship small." in project_rules(get_project("acme")).doc["guidance"]


def test_setting_the_same_project_rules_again_writes_nothing():
    make_project("acme")
    services.set_project_rules(project="acme", body="{}", actor=ACTOR)
    before = Event.objects.count()
    out = services.set_project_rules(project="acme", body="{}", actor=ACTOR)
    assert out.changed == ()
    assert Event.objects.count() == before


def test_a_broken_project_override_is_stored_but_ignored_with_a_note():
    make_project("acme")
    services.set_project_rules(project="acme", body="{not json", actor=ACTOR)
    eff = project_rules(get_project("acme"))
    assert eff.ignored is not None
    assert eff.ignored.startswith("project override ignored: not valid JSON")
    assert eff.hash == project_rules(None).hash


def test_an_override_with_an_unknown_key_is_ignored_naming_the_key():
    make_project("acme")
    services.set_project_rules(project="acme", body='{"stage_rules": {}}', actor=ACTOR)
    eff = project_rules(get_project("acme"))
    assert eff.ignored == (
        "project override ignored: stage_rules: unknown key 'stage_rules' "
        "(keys: report_format, stage_requirements, description_template, guidance, "
        "owner_only_stages, turn_end_update)"
    )


def test_rules_for_an_unknown_project_are_refused():
    with pytest.raises(NotFound):
        services.set_project_rules(project="nope", body="{}", actor=ACTOR)
    assert kinds() == []
