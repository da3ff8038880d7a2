"""task_create, task_update and task_patch: keys, field rules, clearing, versions, no-ops."""

from __future__ import annotations

import pytest

from core.errors import InvalidField, NotFound, VersionConflict
from tasks import services
from tasks.fields import (
    EDITABLE_FIELD_NAMES,
    EDITABLE_FIELDS,
    FIELDS_BY_NAME,
    editable_fields_line,
    schema_table_md,
)
from tasks.models import Event, Project, Task
from tasks.selectors import get_task
from tests.tasks.factories import ACTOR, make_project, make_task, reload

pytestmark = pytest.mark.django_db

CLEARABLE_TEXT = [
    f.name for f in EDITABLE_FIELDS if f.clearable and f.type in ("text", "line", "url")
]
LIMITED = [(f.name, f.max_length) for f in EDITABLE_FIELDS if f.max_length]
ONE_LINE = [f.name for f in EDITABLE_FIELDS if f.type in ("line", "url")]


def sample(name: str) -> str:
    return "https://example.com/x" if name == "tracker_url" else f"some {name}"


# --- the field list ----------------------------------------------------------------------


def test_every_editable_field_is_a_column_of_task():
    columns = {f.name for f in Task._meta.get_fields()}
    assert set(EDITABLE_FIELD_NAMES) <= columns


def test_the_field_limits_fit_the_database_columns():
    for spec in EDITABLE_FIELDS:
        column = Task._meta.get_field(spec.name)
        if column.max_length and spec.max_length:
            assert spec.max_length <= column.max_length, spec.name


def test_the_schema_table_has_a_row_for_every_editable_field():
    table = schema_table_md()
    assert "| Field | Type | Max | Description | Clear with |" in table
    for spec in EDITABLE_FIELDS:
        assert f"| {spec.name} | " in table
    assert "| tracker_ref | line | 100 |" in table
    assert "| size | choice: S / M / L |" in table
    assert "cannot be cleared |" in table  # title and stage


def test_the_editable_fields_line_names_every_field():
    assert editable_fields_line() == "Editable fields: " + ", ".join(EDITABLE_FIELD_NAMES)


# --- creating ----------------------------------------------------------------------------


def test_task_keys_are_numbered_per_project():
    acme, beta = make_project("acme"), make_project("beta")
    assert [make_task(acme).key, make_task(acme).key, make_task(beta).key] == [
        "acme-1",
        "acme-2",
        "beta-1",
    ]
    assert Project.objects.get(slug="acme").next_number == 3


def test_a_new_task_starts_in_plan_at_version_1_with_its_times_set():
    task = make_task(title="Login")
    assert (task.stage, task.version, task.closed_at) == ("plan", 1, None)
    assert task.stage_changed_at == task.created_at == task.updated_at
    assert task.next_step_at is None


def test_a_task_can_be_created_with_any_editable_field_and_a_stage():
    make_project("acme")
    out = services.task_create(
        project="acme",
        title="Login",
        actor=ACTOR,
        stage="review",
        size="m",
        priority="high",
        next_step="Write tests",
        tracker_ref="JIRA-7",
    )
    task = reload(out.obj)
    assert out.created
    assert (task.stage, task.size, task.priority, task.tracker_ref) == (
        "review",
        "M",
        "high",
        "JIRA-7",
    )
    assert task.next_step_at == task.created_at
    assert task.tracker_entries.get().ref == "JIRA-7"
    event = Event.objects.get(task=task)
    assert event.payload == {
        "title": "Login",
        "stage": "review",
        "fields": ["size", "priority", "next_step", "tracker_ref"],
    }


def test_a_task_created_in_done_is_closed():
    task = make_task(stage="done")
    assert task.closed_at == task.created_at


def test_creating_a_task_in_an_unknown_project_says_how_to_find_one():
    with pytest.raises(NotFound, match=r"Unknown project nope\. Call project_list"):
        services.task_create(project="nope", title="x", actor=ACTOR)


@pytest.mark.parametrize("title", ["", "-", "   "])
def test_a_task_needs_a_title(title):
    make_project("acme")
    with pytest.raises(InvalidField, match="title cannot be cleared or empty") as exc:
        services.task_create(project="acme", title=title, actor=ACTOR)
    assert exc.value.field == "title"
    assert Task.objects.count() == 0
    assert Project.objects.get().next_number == 1


def test_creating_with_an_unknown_field_names_the_editable_fields():
    make_project("acme")
    with pytest.raises(InvalidField, match=r"Unknown task field\. Editable fields: title,"):
        services.task_create(project="acme", title="x", actor=ACTOR, colour="red")


def test_creating_with_an_unknown_stage_lists_the_stages():
    make_project("acme")
    with pytest.raises(InvalidField) as exc:
        services.task_create(project="acme", title="x", actor=ACTOR, stage="qa")
    assert str(exc.value) == "Unknown stage 'qa'. Stages: plan, dev, review, test, live, done."


# --- updating ----------------------------------------------------------------------------


def test_an_update_changes_the_given_fields_and_bumps_the_version_by_one():
    task = make_task()
    out = services.task_update(key=task.key, actor=ACTOR, branch="feat/login", priority="P1")
    assert out.changed == ("branch", "priority")
    fresh = reload(task)
    assert (fresh.branch, fresh.priority, fresh.version) == ("feat/login", "P1", 2)
    assert out.obj.version == 2
    event = Event.objects.last()
    assert (event.kind, event.payload, event.actor) == (
        "task.updated",
        {"fields": ["branch", "priority"]},
        ACTOR,
    )


def test_task_patch_takes_the_fields_as_one_mapping():
    task = make_task()
    out = services.task_patch(key=task.key, fields={"description": "Why", "size": "L"}, actor=ACTOR)
    assert set(out.changed) == {"description", "size"}
    assert (reload(task).description, reload(task).size) == ("Why", "L")


def test_task_patch_refuses_an_unknown_field_and_changes_nothing():
    task = make_task()
    with pytest.raises(InvalidField, match=r"Unknown task field\. Editable fields"):
        services.task_patch(key=task.key, fields={"title": "New", "version": 9}, actor=ACTOR)
    assert reload(task).title == "A task"


@pytest.mark.parametrize("fields", [{}, [], "title=x"])
def test_task_patch_needs_a_non_empty_mapping(fields):
    task = make_task()
    with pytest.raises(InvalidField, match="fields"):
        services.task_patch(key=task.key, fields=fields, actor=ACTOR)


def test_none_means_not_given_and_changes_nothing():
    task = make_task(branch="main")
    out = services.task_update(key=task.key, actor=ACTOR, branch=None, title=None)
    assert out.changed == ()
    assert reload(task).branch == "main"


@pytest.mark.parametrize("name", CLEARABLE_TEXT)
@pytest.mark.parametrize("clear", ["-", "", " - "])
def test_a_dash_or_an_empty_string_clears_an_optional_text_field(name, clear):
    task = make_task(**{name: sample(name)})
    out = services.task_patch(key=task.key, fields={name: clear}, actor=ACTOR)
    assert name in out.changed
    assert getattr(reload(task), name) == ""


def test_a_dash_clears_the_size():
    task = make_task(size="M")
    services.task_update(key=task.key, actor=ACTOR, size="-")
    assert reload(task).size == ""


@pytest.mark.parametrize("clear", ["-", ""])
def test_the_title_cannot_be_cleared(clear):
    task = make_task()
    with pytest.raises(InvalidField, match="title cannot be cleared"):
        services.task_update(key=task.key, actor=ACTOR, title=clear)


@pytest.mark.parametrize(("name", "limit"), LIMITED)
def test_an_oversize_value_is_refused_naming_the_field_and_the_limit(name, limit):
    task = make_task()
    value = "x" * (limit + 1)
    if name == "tracker_url":
        value = "https://e.com/" + "x" * (limit - 13)
    with pytest.raises(InvalidField) as exc:
        services.task_patch(key=task.key, fields={name: value}, actor=ACTOR)
    assert exc.value.field == name
    assert str(exc.value) == (
        f"{name} is {limit + 1} characters long; the limit is {limit}. Shorten it."
    )
    assert reload(task).version == 1


@pytest.mark.parametrize(("name", "limit"), LIMITED)
def test_a_value_at_the_limit_is_kept(name, limit):
    task = make_task()
    value = "x" * limit
    if name == "tracker_url":
        value = "https://e.com/" + "x" * (limit - 14)
    services.task_patch(key=task.key, fields={name: value}, actor=ACTOR)
    assert getattr(reload(task), name) == value


@pytest.mark.parametrize("name", ONE_LINE)
def test_one_line_fields_refuse_line_breaks(name):
    task = make_task()
    with pytest.raises(InvalidField, match=f"{name} must be one line"):
        services.task_patch(key=task.key, fields={name: "a\nb"}, actor=ACTOR)


@pytest.mark.parametrize("name", ONE_LINE)
@pytest.mark.parametrize("control", ["\x00", "\x01", "\x08", "\x0b", "\x1b", "\x1f"])
def test_one_line_fields_refuse_control_characters_naming_the_field(name, control):
    task = make_task()
    with pytest.raises(InvalidField, match=f"{name} contains the control character U\\+00"):
        services.task_patch(key=task.key, fields={name: f"a{control}b"}, actor=ACTOR)
    assert reload(task).version == task.version


def test_a_tab_is_kept_in_a_one_line_field_and_multi_line_text_refuses_only_nul():
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, title="a\tb", description="x\n\x1b[1my\x07")
    fresh = reload(task)
    assert (fresh.title, fresh.description) == ("a\tb", "x\n\x1b[1my\x07")
    with pytest.raises(InvalidField, match="description contains a NUL character"):
        services.task_update(key=task.key, actor=ACTOR, description="x\x00y")


def test_surrounding_whitespace_is_dropped():
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, branch="  main \n", description="\n\nWhy\n")
    fresh = reload(task)
    assert (fresh.branch, fresh.description) == ("main", "Why")


@pytest.mark.parametrize(("given", "stored"), [("s", "S"), ("M", "M"), (" l ", "L")])
def test_size_is_s_m_or_l_in_any_case(given, stored):
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, size=given)
    assert reload(task).size == stored


@pytest.mark.parametrize("size", ["XL", "small", "1"])
def test_an_unknown_size_is_refused_with_the_choices(size):
    task = make_task()
    with pytest.raises(InvalidField) as exc:
        services.task_update(key=task.key, actor=ACTOR, size=size)
    assert str(exc.value) == f"size must be one of S, M, L, or - to clear; got '{size}'."


@pytest.mark.parametrize(
    "url", ["ftp://e.com/x", "javascript:alert(1)", "e.com/x", "https://", "file:///etc/passwd"]
)
def test_a_tracker_url_must_be_http_or_https(url):
    task = make_task()
    with pytest.raises(InvalidField, match="tracker_url must be an http:// or https:// link"):
        services.task_update(key=task.key, actor=ACTOR, tracker_url=url)


@pytest.mark.parametrize(
    "url", ["http://e.com", "https://jira.example.com/browse/X-1", "HTTPS://E"]
)
def test_http_and_https_tracker_urls_are_kept(url):
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, tracker_url=url)
    assert reload(task).tracker_url == url


def test_priority_is_short_free_text():
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, priority="after the release")
    assert reload(task).priority == "after the release"
    assert FIELDS_BY_NAME["priority"].max_length == 40


@pytest.mark.parametrize(("given", "stored"), [(True, True), ("yes", True), ("false", False)])
def test_tracker_logged_takes_a_boolean_or_its_words(given, stored):
    task = make_task(tracker_ref="X-1", tracker_logged=not stored)
    services.task_update(key=task.key, actor=ACTOR, tracker_logged=given)
    assert reload(task).tracker_logged is stored


def test_tracker_logged_refuses_other_values():
    task = make_task()
    with pytest.raises(InvalidField, match="tracker_logged must be true or false"):
        services.task_update(key=task.key, actor=ACTOR, tracker_logged="maybe")


def test_a_non_text_value_for_a_text_field_is_refused():
    task = make_task()
    with pytest.raises(InvalidField, match="branch must be text, got int"):
        services.task_patch(key=task.key, fields={"branch": 5}, actor=ACTOR)


# --- no-ops and versions -------------------------------------------------------------------


def test_a_write_that_changes_nothing_is_a_no_op():
    task = make_task(branch="main")
    events = Event.objects.count()
    out = services.task_update(key=task.key, actor=ACTOR, branch="main", title="A task")
    assert out.changed == ()
    assert out.notes == (f"Nothing changed: {task.key} already has these values (version 1).",)
    assert reload(task).version == 1
    assert reload(task).updated_at == task.updated_at
    assert Event.objects.count() == events


def test_every_real_write_bumps_the_version_by_exactly_one():
    task = make_task()
    for n in range(2, 6):
        out = services.task_update(key=task.key, actor=ACTOR, progress=f"step {n}")
        assert out.obj.version == n
    assert reload(task).version == 5


def test_a_stale_expected_version_fails_with_the_current_version_and_what_to_do():
    task = make_task()
    for n in range(6):
        services.task_update(key=task.key, actor=ACTOR, progress=str(n))
    with pytest.raises(VersionConflict) as exc:
        services.task_update(key=task.key, actor=ACTOR, expected_version=5, title="Mine")
    assert str(exc.value) == (
        f"{task.key} is at version 7, not 5. Read it with task_get and write again with "
        "expected_version=7."
    )
    assert exc.value.current_version == 7
    assert reload(task).title == "A task"


def test_a_matching_expected_version_writes():
    task = make_task()
    out = services.task_patch(
        key=task.key, fields={"title": "Mine"}, actor=ACTOR, expected_version=1
    )
    assert out.obj.version == 2


def test_a_stale_expected_version_fails_even_when_the_write_would_change_nothing():
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, branch="x")
    with pytest.raises(VersionConflict):
        services.task_update(key=task.key, actor=ACTOR, branch="x", expected_version=1)


@pytest.mark.parametrize("version", ["two", 1.5, True])
def test_expected_version_must_be_a_whole_number(version):
    task = make_task()
    with pytest.raises(InvalidField, match="expected_version must be a whole number"):
        services.task_update(key=task.key, actor=ACTOR, expected_version=version, title="x")


def test_an_unknown_task_says_how_to_find_the_keys():
    with pytest.raises(NotFound) as exc:
        services.task_update(key="acme-shop-99", actor=ACTOR, title="x")
    assert str(exc.value) == "Unknown task acme-shop-99. Call task_list to see the keys."
    with pytest.raises(NotFound, match="Unknown task acme-shop-99"):
        get_task("acme-shop-99")


def test_a_task_key_is_found_whatever_its_case():
    task = make_task(make_project("acme"))
    assert get_task(" ACME-1 ").pk == task.pk


def test_metadata_writes_do_not_touch_the_stage_times():
    task = make_task()
    services.task_update(key=task.key, actor=ACTOR, description="d")
    fresh = reload(task)
    assert fresh.stage_changed_at == task.stage_changed_at
    assert fresh.updated_at > task.updated_at
