"""project_upsert and set_project_rules (§1 Project, §6 project override)."""

from __future__ import annotations

import re

from django.db import transaction
from django.utils import timezone

from core.errors import InvalidField
from tasks import extensions
from tasks import fields as F
from tasks.events import EventKind, record_event
from tasks.extensions import Actor, caller_in
from tasks.models import Project, ProjectRules
from tasks.services._common import Outcome, load_project

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _suggest(slug: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", slug.lower()).strip("-")


def clean_slug(slug: object) -> str:
    """A project slug: lowercase letters, digits and single dashes, at most 64 characters."""
    if not isinstance(slug, str) or not slug.strip():
        raise InvalidField(
            "slug", "slug is required: lowercase letters, digits and dashes, e.g. acme-shop."
        )
    text = slug.strip()
    F.check_length("slug", text, F.PROJECT_SLUG_MAX)
    if SLUG_RE.match(text):
        return text
    rule = "a slug uses lowercase letters, digits and dashes only"
    if SLUG_RE.match(text.lower()):
        raise InvalidField("slug", f"Invalid slug '{text}': {rule}. Use '{text.lower()}'.")
    suggestion = _suggest(text)
    hint = f" such as '{suggestion}'" if suggestion else ", e.g. acme-shop"
    raise InvalidField("slug", f"Invalid slug '{text}': {rule}{hint}.")


def _clean_project_fields(
    name: str | None, repo_path: str | None, description: str | None
) -> dict[str, str]:
    values: dict[str, str] = {}
    if name is not None:
        values["name"] = F.clean_text("name", name, F.PROJECT_NAME_MAX, one_line=True)
        if not values["name"]:
            raise InvalidField("name", "name cannot be cleared; give the project a name.")
    if repo_path is not None:
        values["repo_path"] = F.clean_text(
            "repo_path", repo_path, F.PROJECT_REPO_PATH_MAX, one_line=True
        )
    if description is not None:
        values["description"] = F.clean_text("description", description, F.PROJECT_DESCRIPTION_MAX)
    return values


def project_upsert(
    *,
    slug: str,
    name: str | None = None,
    repo_path: str | None = None,
    description: str | None = None,
    actor: Actor,
) -> Outcome[Project]:
    """Create the project of `slug` or update the given fields.

    Creating: name defaults to the slug; event project.created {slug, name}.
    Updating: only the fields given (not None) change; "-" or "" clears repo_path or
    description (name cannot be cleared); event project.updated {slug, fields}. A write that
    changes nothing writes no event. Raises InvalidField for a bad slug (the message suggests
    the lowercased slug when capitals were the only problem) or an oversize value.
    """
    extensions.refuse_secrets(None, values={"slug": slug})  # before its refusal quotes it
    slug = clean_slug(slug)
    values = _clean_project_fields(name, repo_path, description)
    with transaction.atomic(durable=True):
        project = Project.objects.filter(slug=slug).first()
        extensions.refuse_secrets(
            project,
            values={"name": values.get("name")},
            texts={"repo_path": values.get("repo_path"), "description": values.get("description")},
        )
        who = caller_in(actor)
        now = timezone.now()
        if project is None:
            project = Project.objects.create(
                slug=slug,
                name=values.get("name", slug),
                repo_path=values.get("repo_path", ""),
                description=values.get("description", ""),
                created_at=now,
                updated_at=now,
            )
            record_event(
                EventKind.PROJECT_CREATED,
                project=project,
                actor=who.name,
                payload={"slug": slug, "name": project.name},
            )
            changed = tuple(n for n in ("name", "repo_path", "description") if n in values)
            return Outcome(obj=project, created=True, changed=changed, caller_notes=who.notes)
        changed = tuple(n for n, v in values.items() if getattr(project, n) != v)
        if not changed:
            nothing = f"Nothing changed: project {slug} is as given."
            return Outcome(obj=project, notes=(nothing,), caller_notes=who.notes)
        for n in changed:
            setattr(project, n, values[n])
        project.updated_at = now
        project.save(update_fields=[*changed, "updated_at"])
        record_event(
            EventKind.PROJECT_UPDATED,
            project=project,
            actor=who.name,
            payload={"slug": slug, "fields": list(changed)},
        )
        return Outcome(obj=project, changed=changed, caller_notes=who.notes)


def set_project_rules(*, project: str, body: str, actor: str) -> Outcome[ProjectRules]:
    """Store a project's working-rules override (§6) exactly as given — for tests and admin.

    There is no MCP tool for it (§6: the row is inserted by hand). The text is not validated:
    the effective-rules reader ignores a broken override and says so. "" or "-" keeps an
    empty row, which means no override. Event project.updated {slug, fields: ["rules"]}
    unless the body is unchanged.
    """
    if not isinstance(body, str):
        raise InvalidField("body", "body must be the rules document as JSON text.")
    text = "" if body.strip() == "-" else body
    with transaction.atomic(durable=True):
        proj = load_project(project)
        extensions.refuse_secrets(proj, texts={"body": text})
        now = timezone.now()
        row = ProjectRules.objects.filter(project=proj).first()
        if row is not None and row.body == text:
            return Outcome(
                obj=row, notes=(f"Nothing changed: the rules of {proj.slug} are as given.",)
            )
        created = row is None
        if row is None:
            row = ProjectRules.objects.create(project=proj, body=text, updated_at=now)
        else:
            row.body = text
            row.updated_at = now
            row.save(update_fields=["body", "updated_at"])
        record_event(
            EventKind.PROJECT_UPDATED,
            project=proj,
            actor=actor,
            payload={"slug": proj.slug, "fields": ["rules"]},
        )
        return Outcome(obj=row, created=created, changed=("rules",))
