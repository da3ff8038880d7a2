"""What Settings → Policy shows, computed here so its templates only loop and branch (§7).

Reads only: the pending proposals with what each would do, the preset picker, the scopes,
the effective policy of the chosen scope as rows of setting, value and source, the layer
in the editor, the editor's preview (Validate) and the stored layers. The views in
policy/views.py render these; every write goes through policy.services.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from core.display import Stamp, stamp
from core.errors import NotFound
from policy import global_file, seams, selectors, validate
from policy.merge import Merged, merge_patch, show
from policy.models import PolicyProposal
from policy.presets import PRESETS, SUMMARY
from policy.selectors import GLOBAL, Scope
from tasks.proposals import ProposalView, Section, Words, proposal_view

SUMMARY_LABELS = ("Levels", "Guard", "Secrets")
# What the page calls agents' proposals and the second confirmation (tasks/proposals.py).
WORDS = Words(
    prefix="policy",
    verb="widen",
    title="Pending proposals",
    live="policy_proposals",
    tool="policy_propose",
    none="No pending proposals.",
    shown="Merge patch of proposal",
    back="Back to the editor",
    confirm_template="policy/confirm.html",
    calm="does not widen live",
)


@dataclass(frozen=True)
class Row:
    """One line of an effective-policy table. change: "", "changed", "added" or "removed"."""

    path: str
    value: str
    source: str
    change: str = ""


@dataclass(frozen=True)
class EffectiveView:
    scope: str
    chain: tuple[str, ...]
    ignored: tuple[tuple[str, tuple[str, ...]], ...]  # (source, its problems)
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Preview:
    """The editor's Validate: the scope's table if the text were saved, and what widens."""

    scope: str
    chain: tuple[str, ...]
    rows: tuple[Row, ...]
    widens: tuple[str, ...]
    changes: int
    removes_layer: bool


@dataclass(frozen=True)
class LayerView:
    source: str
    scope: str
    scope_url: str
    raw: str  # pretty JSON
    changed_by: str
    when: Stamp | None
    problems: tuple[str, ...]  # a broken layer is ignored: why
    current: bool


@dataclass(frozen=True)
class PresetView:
    name: str
    summary: tuple[tuple[str, str], ...]
    current: bool


@dataclass(frozen=True)
class ScopeOption:
    name: str
    label: str
    selected: bool


@dataclass(frozen=True)
class Editor:
    scope: str
    title: str
    text: str
    database: bool  # a project or environment layer: empty text removes it
    path: str  # the global file's path ("" for a database layer)


def page_url(scope: str = "", anchor: str = "") -> str:
    """/settings/policy, with ?scope= for anything but global."""
    url = reverse("policy")
    if scope and scope != GLOBAL:
        url += "?" + urlencode({"scope": scope})
    return url + (f"#{anchor}" if anchor else "")


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def context(
    scope_name: str, *, text: str | None = None, preview: Preview | None = None
) -> dict[str, Any]:
    """Everything the page shows for `scope_name` (global, acme, acme/live).

    `text` is what the owner typed (kept on every refusal); None fills the editor with the
    scope's layer as stored. An unknown scope leaves the scope's sections out and says why
    in `scope_error`; the editor still holds the text and the scope as written.
    """
    scope, name, scope_error = _resolve(scope_name)
    current = global_file.state()
    return {
        "scope_name": name,
        "scope_error": scope_error,
        "global_error": current.error,
        "global_path": str(current.path),
        "proposals": proposals(name),
        "presets": presets(),
        "scopes": scope_options(name),
        "effective": effective_view(scope) if scope is not None else None,
        "editor": editor(scope, name, text),
        "preview": preview,
        "layers": layers(name),
        "urls": urls(name),
    }


def section(part: str, scope_name: str) -> dict[str, Any]:
    """The context of one live section (proposals, effective, layers) for its refetch."""
    scope, name, scope_error = _resolve(scope_name)
    found: dict[str, Any] = {"scope_name": name, "scope_error": scope_error, "urls": urls(name)}
    if part == "proposals":
        found["proposals"] = proposals(name)
    elif part == "effective":
        found["effective"] = effective_view(scope) if scope is not None else None
    else:
        found["layers"] = layers(name)
    return found


def _resolve(scope_name: str) -> tuple[Scope | None, str, str]:
    """(the scope or None, its name as the page writes it, why it is unknown or "")."""
    name = (scope_name or "").strip() or GLOBAL
    try:
        scope = selectors.resolve_scope(name)
    except NotFound as exc:
        return None, name, str(exc)
    return scope, scope.name, ""


def urls(scope_name: str) -> dict[str, str]:
    query = "?" + urlencode({"scope": scope_name})
    return {
        "page": reverse("policy"),
        "global": page_url(GLOBAL, "policy-editor"),
        "preset": reverse("policy_preset"),
        "validate": reverse("policy_validate") + "#policy-editor",
        "save": reverse("policy_save"),
        "effective": reverse("policy_effective") + query,
        "layers": reverse("policy_layers") + query,
    }


# --- the sections --------------------------------------------------------------------------


def proposals(scope_name: str) -> Section:
    """The pending proposals of every scope, oldest first, each with what accepting it would
    do now; a decision posts the scope shown back, so the page comes back to it."""
    url = reverse("policy_proposals") + "?" + urlencode({"scope": scope_name})
    return Section(WORDS, url, _pending(), fields=(("scope", scope_name),))


def proposal(proposal_id: int) -> ProposalView | None:
    """One pending proposal as the list shows it (the confirmation page of Accept)."""
    return next((p for p in _pending() if p.id == proposal_id), None)


def _pending() -> tuple[ProposalView, ...]:
    return tuple(
        proposal_view(
            p,
            anchor=f"proposal-{p.id}",
            subject=p.scope,
            subject_url=page_url(p.scope),
            shown=p.patch,
            would=_would(p),
            reopened=p.error,
            accept_url=reverse("policy_proposal_accept", args=[p.id]),
            reject_url=reverse("policy_proposal_reject", args=[p.id]),
        )
        for p in selectors.pending_proposals()
    )


def _would(p: PolicyProposal) -> tuple[tuple[str, ...], str]:
    """(what it widens on live, why accepting it would be refused) as things stand now."""
    try:
        target = selectors.proposal_scope(p)
    except NotFound as exc:
        return (), str(exc)
    current = global_file.state()
    if target.kind == GLOBAL and current.error:
        return (), f"{current.path} is broken; fix it in the global editor before accepting."
    body = merge_patch(selectors.own_body(target), p.patch)
    label = f"proposal #{p.id} for {target.label()}"
    problems = validate.errors(body, label=label, scope=target.kind, probes=False)
    if problems:
        return (), "; ".join(problems)
    return selectors.widens_on_live(target, body), ""


def presets() -> list[PresetView]:
    current = selectors.effective(Scope()).preset
    return [
        PresetView(name, tuple(zip(SUMMARY_LABELS, SUMMARY[name], strict=True)), name == current)
        for name in PRESETS
    ]


def scope_options(current: str) -> list[ScopeOption]:
    options = []
    for scope in selectors.all_scopes():
        if scope.kind == GLOBAL:
            label = f"global ({global_file.policy_path().name})"
        elif scope.environment is not None:
            label = f"{scope.name} ({scope.environment.kind} environment)"
        else:
            label = f"{scope.name} (project)"
        options.append(ScopeOption(scope.name, label, scope.name == current))
    return options


def effective_view(scope: Scope) -> EffectiveView:
    found = selectors.effective(scope)
    return EffectiveView(
        scope=scope.name,
        chain=found.chain,
        ignored=tuple((source, _problems(source, text)) for source, text in found.ignored),
        rows=tuple(Row(path, show(value), source) for path, value, source in found.lines()),
    )


def _problems(source: str, text: str) -> tuple[str, ...]:
    """selectors' "<source>: a; <source>: b" as ("a", "b"): the list names the source once."""
    return tuple(p.removeprefix(f"{source}: ") for p in text.split(f"; {source}: "))


def editor(scope: Scope | None, name: str, text: str | None) -> Editor:
    database = scope is not None and scope.kind != GLOBAL
    if scope is None:
        title = f"Layer of {name}"
    elif scope.kind == GLOBAL:
        title = f"The global file {global_file.policy_path().name}"
    else:
        title = f"The {scope.source} layer"
    path = str(global_file.policy_path()) if scope is not None and not database else ""
    if text is None:
        text = _stored_text(scope) if scope is not None else ""
    return Editor(scope=name, title=title, text=text, database=database, path=path)


def _stored_text(scope: Scope) -> str:
    """For global the file's own text (even broken: the editor is how it gets fixed)."""
    if scope.kind == GLOBAL:
        try:
            return global_file.policy_path().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return pretty(global_file.state().body) if global_file.state().body else ""
    layer = selectors.own_layer(scope)
    return pretty(layer.body) if layer is not None else ""


def layers(current: str = "") -> list[LayerView]:
    """Every stored project and environment layer, with who changed it when."""
    found = []
    for layer in selectors.stored_layers():
        source = selectors.layer_source(layer)
        scope = source.partition(":")[2]
        found.append(
            LayerView(
                source=source,
                scope=scope,
                scope_url=page_url(scope),
                raw=pretty(layer.body),
                changed_by=layer.changed_by or "unknown",
                when=stamp(layer.changed_at),
                problems=tuple(selectors.layer_problems(layer)),
                current=scope == current,
            )
        )
    return found


# --- Validate ------------------------------------------------------------------------------


def check(scope_name: str, text: str) -> Preview:
    """The editor's Validate: parse and check `text` as the scope's layer exactly as Save
    would (PolicyInvalid, NotFound), then the table after the change. Writes nothing."""
    scope = selectors.resolve_scope(scope_name)
    label = scope.label()
    before = selectors.effective(scope)
    body = validate.parse(text, label=label) if text.strip() else None
    if body is not None:
        seams.check_texts({"layer": body}, before.merged)  # §9.9, as policy_layer_save
        validate.check(body, label=label, scope=scope.kind)
    rows = _compare(before.merged, selectors.preview(scope, body or {}))
    return Preview(
        scope=scope.name,
        chain=tuple(_chain_after(scope, before.chain, body)),
        rows=rows,
        widens=selectors.widens_on_live(scope, body or {}),
        changes=sum(1 for row in rows if row.change),
        removes_layer=body is None and scope.kind != GLOBAL,
    )


def _chain_after(scope: Scope, chain: tuple[str, ...], body: dict[str, Any] | None) -> list[str]:
    """The layer chain once `body` is the scope's own layer (None: the layer is removed)."""
    if scope.kind == GLOBAL:
        preset = (body or {}).get("preset") or "default"
        return [f"preset:{preset}", *[s for s in chain if s == "config"], GLOBAL]
    rest = [s for s in chain if s != scope.source]
    if body is None:
        return rest
    if scope.kind == "project":  # before the environment layer, if any
        at = next((i for i, s in enumerate(rest) if s.startswith("environment:")), len(rest))
        return [*rest[:at], scope.source, *rest[at:]]
    return [*rest, scope.source]


def _compare(before: Merged, after: Merged) -> tuple[Row, ...]:
    rows = []
    for path, value, source in after.lines():
        if path not in before.sources:
            change = "added"
        elif before.get(path) != value or before.sources[path] != source:
            change = "changed"
        else:
            change = ""
        rows.append(Row(path, show(value), source, change))
    for path, value, source in before.lines():
        if path not in after.sources:
            rows.append(Row(path, show(value), source, "removed"))
    return tuple(rows)
