"""The task dialog (`/p/<slug>?task=<key>`, over the board), the task page (`/t/<key>`) and
the fragments they refetch (§2 Task dialog / page, Live updates).

Reads through tasks.selectors.task_page; the one write, the edit form, goes through the
same services as the MCP tools (task_set_stage for a move, task_update otherwise; actor
board) with the form's version as expected_version, so a concurrent agent write is a 409
conflict, never a silent overwrite. Routes:
- `/t/<key>`: the task page;
- `/p/<slug>/t/<key>/dialog`: the dialog fragment the board's cards load;
- `/p/<slug>/t/<key>/details`: the details section (live refresh, `?in=page` on the page);
- `/p/<slug>/t/<key>/panel/<id>`: one registered panel (live refresh);
- `/p/<slug>/t/<key>/edit`: GET the form with fresh values, POST saves it.
The board includes templates/tasks/partials/task_dialog.html with `dialog_context()`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.views.decorators.http import require_http_methods, require_safe

from core import actor, tokens
from core.errors import InvalidField, NotFound, RuleRefusal, VersionConflict
from core.responses import fragment
from core.security import current_token
from tasks import extensions, services
from tasks.extensions import TaskPanel
from tasks.forms import FormField, TaskEdit, digest, form_fields, parse_task_edit
from tasks.models import Task
from tasks.selectors import get_task, is_next_step_stale
from tasks.selectors.task_page import (
    TABS,
    Tab,
    TaskPage,
    panel_context,
    task_in_project,
    task_page_data,
    task_urls,
)

DIALOG = "tasks/partials/task_dialog.html"
DETAILS = "tasks/partials/task_details.html"
FORM = "tasks/partials/task_form.html"
PANEL = "tasks/partials/task_panel.html"
PAGE = "tasks/task_page.html"
SAVED_EVENT = "rb-task-saved"


# --- view data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedPanel:
    """A registered panel (tasks.extensions.TaskPanel) rendered by its own template."""

    id: str
    title: str
    tab: str
    html: str
    fragment: str  # its own URL, refetched on this task's live events


@dataclass(frozen=True)
class TabSection:
    """The Plan or Review tab (a section on the task page) with its panels."""

    tab: Tab
    panels: list[RenderedPanel]


@dataclass(frozen=True)
class TaskView:
    """The details of one task as the dialog (mode "dialog") or the page shows them."""

    data: TaskPage
    mode: str  # dialog | page
    tab: str  # the selected tab
    tabs: list[Tab]  # Overview, then Plan / Review when a panel lives there
    overview_panels: list[RenderedPanel]
    sections: list[TabSection]  # the tabs after Overview

    @property
    def task(self) -> Task:
        return self.data.task

    @property
    def details_url(self) -> str:
        suffix = "?in=page" if self.mode == "page" else ""
        return self.data.urls.details + suffix


@dataclass(frozen=True)
class FormState:
    """The edit form: its widgets and what the last submit answered."""

    task: Task
    fields: list[FormField]
    version: int  # the version the values come from (expected_version)
    action: str
    refresh: str
    csrf_token: str
    unsaved: bool = False  # a draft the server did not save (kept across live refreshes)
    status: str = ""  # saved | unchanged | invalid | conflict | refused
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # hints and notes
    conflict_version: int | None = None
    conflict_fields: list[str] = field(default_factory=list)


def _csrf() -> str:
    return tokens.csrf_token(current_token())


def _tab_of(request: HttpRequest) -> str:
    tab = request.GET.get("tab", "overview")
    return tab if tab in TABS else "overview"


def _render_panel(task: Task, panel: TaskPanel) -> RenderedPanel:
    """A panel's own template with its own context (plus task, panel and csrf_token)."""
    context = panel_context(panel, task, {"csrf_token": _csrf()})
    html = render_to_string(panel.template, context)
    tab = panel.tab if panel.tab in TABS else "overview"
    return RenderedPanel(panel.id, panel.title, tab, html, task_urls(task).panel(panel.id))


def _render_panels(data: TaskPage) -> dict[str, list[RenderedPanel]]:
    return {t: [_render_panel(data.task, p) for p in data.panels_of(t)] for t in TABS}


def task_view(task: Task, *, mode: str, tab: str = "overview") -> TaskView:
    data = task_page_data(task)
    tabs = data.tabs(tab)
    panels = _render_panels(data)
    return TaskView(
        data=data,
        mode=mode,
        tab=next(t.id for t in tabs if t.selected),
        tabs=tabs,
        overview_panels=panels["overview"],
        sections=[TabSection(t, panels[t.id]) for t in tabs if t.id != "overview"],
    )


def form_state(
    task: Task, *, draft: TaskEdit | None = None, errors: dict[str, str] | None = None, **kw: Any
) -> FormState:
    urls = task_urls(task)
    version = (draft.rendered_version if draft else None) or task.version
    return FormState(
        task=task,
        fields=form_fields(
            task,
            stage_labels=settings.RELAYBAY.stage_labels,
            next_step_stale=is_next_step_stale(task),
            draft=draft,
            errors=errors,
        ),
        version=version,
        action=urls.edit,
        refresh=urls.edit,
        csrf_token=_csrf(),
        unsaved=draft is not None,
        **kw,
    )


def dialog_context(request: HttpRequest, task: Task) -> dict[str, Any]:
    """What templates/tasks/partials/task_dialog.html needs (the board includes it)."""
    return {
        "task_view": task_view(task, mode="dialog", tab=_tab_of(request)),
        "task_form": form_state(task),
    }


def dialog_missing_context(slug: str, message: str) -> dict[str, Any]:
    """The dialog that says the task is not there (an unknown key, another project)."""
    return {"task_missing": message, "task_board_url": reverse("board", args=[slug])}


def _gone(message: str) -> HttpResponse:
    return fragment("tasks/partials/task_missing.html", {"task_missing": message}, status=404)


# --- pages and fragments ---------------------------------------------------------------------


@require_safe
def task_page(request: HttpRequest, key: str) -> HttpResponse:
    """`/t/<key>`: the same details as the dialog on a page of its own."""
    try:
        task = get_task(key)
    except NotFound as exc:
        return render(request, PAGE, {"task_missing": str(exc)}, status=404)
    context = {
        "project_slug": task.project.slug,
        "task_view": task_view(task, mode="page"),
        "task_form": form_state(task),
    }
    return render(request, PAGE, context)


@require_safe
def task_dialog(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """The dialog fragment a card loads into the board's #dialog-slot."""
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return fragment(DIALOG, dialog_missing_context(slug, str(exc)), status=404)
    return fragment(DIALOG, dialog_context(request, task))


@require_safe
def task_details(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """The details section, refetched on this task's live events."""
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return _gone(str(exc))
    mode = "page" if request.GET.get("in") == "page" else "dialog"
    return fragment(DETAILS, {"task_view": task_view(task, mode=mode)})


@require_safe
def task_panel(request: HttpRequest, slug: str, key: str, panel_id: str) -> HttpResponse:
    """One registered panel, refetched on this task's live events."""
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return _gone(str(exc))
    for panel in extensions.task_panels(task):
        if panel.id == panel_id:
            return fragment(PANEL, {"p": _render_panel(task, panel)})
    return _gone(f"{task.key} has no panel {panel_id}.")


@require_http_methods(["GET", "HEAD", "POST"])
def task_edit(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """GET: the form with fresh values. POST: save what the owner edited."""
    try:
        task = task_in_project(slug, key)
    except NotFound as exc:
        return _gone(str(exc))
    if request.method != "POST":
        return fragment(FORM, {"task_form": form_state(task)})
    state, status = _save(request, task)
    if not request.htmx:
        if status == 200:
            return HttpResponseRedirect(task_urls(state.task).page, status=303)
        context = {
            "project_slug": task.project.slug,
            "task_view": task_view(state.task, mode="page"),
            "task_form": state,
        }
        return render(request, PAGE, context, status=status)
    response = fragment(FORM, {"task_form": state}, status=status)
    if status == 200 and state.status == "saved":
        response["HX-Trigger"] = json.dumps({SAVED_EVENT: {"key": state.task.key}})
    return response


# --- saving ----------------------------------------------------------------------------------


def _write(task: Task, edit: TaskEdit) -> services.Outcome[Task]:
    values = edit.values
    if edit.is_move_only:
        return services.task_set_stage(
            key=task.key,
            stage=values["stage"],
            note=values.get("stage_note"),
            next_step=values.get("next_step"),
            waiting_on=values.get("waiting_on"),
            actor=actor.BOARD,
            expected_version=edit.expected_version,
        )
    return services.task_update(
        key=task.key, actor=actor.BOARD, expected_version=edit.expected_version, **values
    )


def _clashes(edit: TaskEdit, fresh: Task) -> list[str]:
    """The fields the owner edited that the other write changed too."""
    return [
        name
        for name in edit.values
        if name in edit.digests and digest(getattr(fresh, name)) != edit.digests[name]
    ]


def _save(request: HttpRequest, task: Task) -> tuple[FormState, int]:
    edit = parse_task_edit(request.POST, task)
    if edit.errors:
        errors = {k: v for k, v in edit.errors.items() if k != "expected_version"}
        marked = "field" if len(errors) == 1 else "fields"
        message = (
            edit.errors.get("expected_version") or f"Nothing was saved: fix the marked {marked}."
        )
        return form_state(task, draft=edit, errors=errors, status="invalid", message=message), 400
    if not edit.values:
        return form_state(
            task, status="unchanged", message="Nothing to save: no field was changed."
        ), 200
    try:
        outcome = _write(task, edit)
    except VersionConflict as exc:
        fresh = get_task(task.key)
        return form_state(
            fresh,
            draft=edit,
            status="conflict",
            message=(
                f"An agent saved version {exc.current_version} of {task.key} while you were "
                f"editing version {edit.rendered_version}. Nothing was saved; your edits are "
                "still in the form."
            ),
            conflict_version=exc.current_version,
            conflict_fields=_clashes(edit, fresh),
        ), 409
    except RuleRefusal as exc:
        return form_state(task, draft=edit, status="refused", message=str(exc)), 409
    except InvalidField as exc:
        return form_state(
            task,
            draft=edit,
            errors={exc.field: str(exc)},
            status="invalid",
            message=f"Nothing was saved: {exc}",
        ), 400
    saved = outcome.obj
    return form_state(
        saved,
        status="saved",
        message=f"Saved · version {saved.version}.",
        warnings=list(outcome.warnings),
        lines=[*outcome.hints, *outcome.notes],
    ), 200


urlpatterns = [
    path("t/<str:key>", task_page, name="task_page"),
    path("p/<str:slug>/t/<str:key>/dialog", task_dialog, name="task_dialog"),
    path("p/<str:slug>/t/<str:key>/details", task_details, name="task_details"),
    path("p/<str:slug>/t/<str:key>/panel/<str:panel_id>", task_panel, name="task_panel"),
    path("p/<str:slug>/t/<str:key>/edit", task_edit, name="task_edit"),
]
