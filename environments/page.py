"""What the Stands & access page shows, computed here so its templates only loop and branch
(§7 Stands & access).

Reads only: the project's pending proposals with what accepting each would do now, one
panel per environment — levels with their sources, access entries with test secrets as
names only, every form filled in — and, after a refused write, that form again holding what
was typed, minus any secret the checks find in it. The views (environments/views.py)
render these; every write goes through environments.services.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from core.display import Stamp, safe_href, stamp
from environments import selectors
from environments.fields import URL_FIELDS
from environments.levels import Level
from environments.models import Environment, EnvironmentAccess
from environments.page_forms import (
    SECRET_SHOWN,
    Draft,
    EntryForm,
    EnvForm,
    entry_form,
    env_form,
)
from environments.secrets import SecretsPolicy
from environments.services import (
    environment_policy,
    environment_proposal_check,
    test_secrets_allowed,
)
from policy.catalog import CAPABILITIES, SECRET_DETECTOR_IDS
from policy.merge import Merged
from policy.page import page_url as policy_url
from tasks.models import Project
from tasks.proposals import ProposalView, Section, Words, proposal_view

# What the page calls agents' proposals and the second confirmation (tasks/proposals.py).
WORDS = Words(
    prefix="env",
    verb="raise",
    title="Proposed by agents",
    live="stands",
    tool="environment_propose",
    none="None pending.",
    shown="Change proposed in",
    back="Back to the form",
    confirm_template="environments/confirm.html",
)


@dataclass(frozen=True)
class LevelView:
    """`read (default)`: the level, and where it comes from ("" when the environment sets it)."""

    aspect: str
    level: str
    source: str  # "(default)", "(policy: project:acme)" or ""

    @classmethod
    def of(cls, aspect: str, level: Level) -> LevelView:
        return cls(aspect, level.level, f"({level.source})" if level.source else "")


@dataclass(frozen=True)
class FieldLine:
    name: str
    value: str  # SECRET_SHOWN for a test secret
    href: str  # logs / monitoring URLs link out
    test_secret: bool


@dataclass(frozen=True)
class EntryView:
    id: int
    anchor: str
    kind: str
    lines: tuple[FieldLine, ...]
    changed_by: str
    when: Stamp | None
    form: EntryForm
    remove_url: str


@dataclass(frozen=True)
class StandPanel:
    id: int
    anchor: str
    name: str
    kind: str
    level: LevelView
    capabilities: tuple[LevelView, ...]
    base_url: str
    base_href: str
    sign_in: str
    login_state_path: str
    notes: str
    guard: str  # its own guard mode when its policy makes it differ, else ""
    ignored: tuple[str, ...]  # broken policy layers left out of its policy
    changed_by: str
    when: Stamp | None
    entries: tuple[EntryView, ...]
    edit: EnvForm
    add_entry: EntryForm
    policy_url: str
    open_form: str  # the id of the form a refusal left open in this panel, else ""


def page_url(slug: str) -> str:
    return reverse("environments", args=[slug])


def urls(slug: str) -> dict[str, str]:
    return {
        "page": page_url(slug),
        "stands": reverse("environments_stands", args=[slug]),
        "save": reverse("environment_save", args=[slug]),
        "delete": reverse("environment_delete", args=[slug]),
        "policy": policy_url(slug),
    }


def context(project: Project, draft: Draft | None = None) -> dict[str, Any]:
    """Everything the page shows; `draft` refills the form a refused write came from."""
    data = selectors.stands_map(project)
    return {
        "project": project,
        "project_slug": project.slug,
        "preset": data.preset,
        "guard_mode": data.guard_mode,
        "detectors": detectors(data.policy),
        "proposals": proposals(project),
        "stands": panels(data, draft),
        "new_form": env_form(None, data.policy, draft),
        "urls": urls(project.slug),
    }


def detectors(policy: Merged) -> dict[str, list[str]]:
    """Which secret detectors guard this page's writes and agents' proposals (every one the
    project's policy leaves on: docs/policy.md "Which writes the detectors guard")."""
    off = set(SecretsPolicy.of(policy).disabled)
    return {
        "on": [d for d in SECRET_DETECTOR_IDS if d not in off],
        "off": [d for d in SECRET_DETECTOR_IDS if d in off],
    }


def section(part: str, project: Project) -> dict[str, Any]:
    """The context of one live section (proposals, stands) for its refetch."""
    found: dict[str, Any] = {"project": project, "urls": urls(project.slug)}
    if part == "proposals":
        found["proposals"] = proposals(project)
    else:
        found["stands"] = panels(selectors.stands_map(project), None)
    return found


# --- proposals ----------------------------------------------------------------------------------


def proposals(project: Project) -> Section:
    """The pending proposals, oldest first, each with what accepting it would do now."""
    slug = project.slug
    pending = tuple(
        proposal_view(
            p,
            anchor=f"env-proposal-{p.id}",
            subject=str(p.change.get("environment", "")),
            shown=p.change,
            would=environment_proposal_check(project=project, change=p.change),
            accept_url=reverse("environment_proposal_accept", args=[slug, p.id]),
            reject_url=reverse("environment_proposal_reject", args=[slug, p.id]),
        )
        for p in selectors.pending_proposals(project)
    )
    return Section(WORDS, reverse("environments_proposals", args=[slug]), pending)


def proposal(project: Project, proposal_id: int) -> ProposalView | None:
    """One pending proposal as the list shows it (the confirmation page of Accept)."""
    return next((p for p in proposals(project).pending if p.id == proposal_id), None)


# --- the panels ---------------------------------------------------------------------------------


def panels(data: selectors.StandsMap, draft: Draft | None) -> list[StandPanel]:
    slug = data.project.slug
    found = []
    for view in data.stands:
        env = view.environment
        policy = environment_policy(data.project, env)
        allowed = test_secrets_allowed(env.kind, policy)
        entries = tuple(_entry(slug, env, e, allowed, policy, draft) for e in view.entries)
        edit = env_form(env, policy, draft)
        add_entry = entry_form(slug, env, None, allowed, policy, draft)
        drafted = [f.id for f in (edit, add_entry, *(e.form for e in entries)) if f.draft]
        found.append(
            StandPanel(
                id=env.id,
                anchor=f"env-{env.id}",
                name=env.name,
                kind=env.kind,
                level=LevelView.of("default", view.levels["default"]),
                capabilities=tuple(LevelView.of(c, view.levels[c]) for c in CAPABILITIES),
                base_url=env.base_url,
                base_href=safe_href(env.base_url, web_only=True),
                sign_in=_sign_in(env),
                login_state_path=env.login_state_path,
                notes=env.notes,
                guard=view.guard_mode if view.guard_differs else "",
                ignored=tuple(source for source, _ in view.ignored_layers),
                changed_by=env.changed_by or "unknown",
                when=stamp(env.changed_at),
                entries=entries,
                edit=edit,
                add_entry=add_entry,
                policy_url=policy_url(f"{slug}/{env.name}"),
                open_form=drafted[0] if drafted else "",
            )
        )
    return found


def _sign_in(env: Environment) -> str:
    if env.kind == "live":
        return "never on live"
    return "allowed" if env.sign_in_allowed else "not allowed"


def _entry(
    slug: str,
    env: Environment,
    entry: EnvironmentAccess,
    allowed: bool,
    policy: Merged,
    draft: Draft | None,
) -> EntryView:
    lines = [
        FieldLine(name, value, _href(entry.kind, name, value), False)
        for name, value in selectors.text_fields(entry).items()
    ]
    lines += [
        FieldLine(name, SECRET_SHOWN, "", True) for name in selectors.test_secret_names(entry)
    ]
    return EntryView(
        id=entry.id,
        anchor=f"env-entry-{entry.id}",
        kind=entry.kind,
        lines=tuple(lines),
        changed_by=entry.changed_by or "unknown",
        when=stamp(entry.changed_at),
        form=entry_form(slug, env, entry, allowed, policy, draft),
        remove_url=reverse("access_remove", args=[slug, entry.id]),
    )


def _href(kind: str, name: str, value: str) -> str:
    return safe_href(value, web_only=True) if (kind, name) in URL_FIELDS else ""
