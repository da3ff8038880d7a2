"""The forms of the Stands & access page, filled in (environments/page.py shows them).

Each form is computed from its row or, after a refused write, from the Draft of what was
posted: that form opens again holding the typed text, except what must never travel back to
the page — a secret the write checks find is replaced by ***, and a typed test secret value
is left out (its name stays). Nothing here decides whether a value is allowed: the services
do, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.urls import reverse

from core import no_secrets
from environments import secrets, selectors
from environments.fields import ACCESS_FIELDS
from environments.levels import policy_only
from environments.models import ACCESS_KINDS, Environment, EnvironmentAccess
from environments.services.stands import KEEP
from policy.catalog import CAPABILITIES, KINDS, LEVELS
from policy.merge import Merged

SECRET_SHOWN = "•••"  # noqa: S105 - what a test secret shows instead of its value


@dataclass(frozen=True)
class Draft:
    """A refused form's own fields as posted, shown again in that form (never re-checked)."""

    form: str  # the form's id: env-new, env-<id>-edit, entry-new-<env id>, entry-<id>-edit
    values: Mapping[str, str]
    error: str = ""


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    selected: bool


@dataclass(frozen=True)
class OverrideField:
    capability: str
    name: str  # the select's name
    choices: tuple[Choice, ...]


@dataclass(frozen=True)
class EnvForm:
    id: str
    original: str  # the name the form was rendered for; "" adds a new environment
    name: str
    kinds: tuple[Choice, ...]
    base_url: str
    sign_in: bool
    sign_in_locked: bool  # live: forced off, the checkbox disabled
    login_state_path: str
    notes: str
    levels: tuple[Choice, ...]
    overrides: tuple[OverrideField, ...]
    submit: str
    error: str
    draft: bool  # holds what a refused write typed: open, and never refetched away


@dataclass(frozen=True)
class EntryForm:
    id: str
    action: str
    environment: str
    kinds: tuple[Choice, ...]  # the add form's kind select; () when editing (kind is fixed)
    fields_text: str
    hints: tuple[tuple[str, str], ...]  # (kind, its field names)
    test_box: bool
    test_text: str
    test_note: str
    submit: str
    error: str
    draft: bool


# --- the forms ----------------------------------------------------------------------------------


def env_form(env: Environment | None, policy: Merged, draft: Draft | None) -> EnvForm:
    """The Add form (env None) or an environment's Edit form, from the row or a draft."""
    ident = f"env-{env.id}-edit" if env is not None else "env-new"
    mine = draft if draft is not None and draft.form == ident else None
    if mine is not None:
        values = dict(mine.values)
        for name in ("name", "base_url", "login_state_path", "notes"):
            values[name] = _unsecret(values.get(name, ""), name, policy)
    elif env is not None:
        values = {
            "name": env.name,
            "kind": env.kind,
            "base_url": env.base_url,
            "login_state_path": env.login_state_path,
            "notes": env.notes,
            "level": env.level or "default",
            **{f"override_{c}": env.overrides.get(c, "default") for c in CAPABILITIES},
        }
        if env.sign_in_allowed:
            values["sign_in_allowed"] = "1"
    else:
        values = {"kind": "test", "sign_in_allowed": "1"}
    given = policy_only(env.kind, policy)["default"] + ", " if env is not None else ""
    follows = f"default — {given}from the policy"
    level = values.get("level") or "default"
    return EnvForm(
        id=ident,
        original=env.name if env is not None else "",
        name=values.get("name", ""),
        kinds=_choices(KINDS, values.get("kind", "")),
        base_url=values.get("base_url", ""),
        sign_in=bool(values.get("sign_in_allowed")) and not (env and env.kind == "live"),
        sign_in_locked=env is not None and env.kind == "live",
        login_state_path=values.get("login_state_path", ""),
        notes=values.get("notes", ""),
        levels=(Choice("default", follows, level == "default"), *_choices(LEVELS, level)),
        overrides=tuple(
            OverrideField(c, f"override_{c}", _override_choices(values.get(f"override_{c}")))
            for c in CAPABILITIES
        ),
        submit=f"Save {env.name}" if env is not None else "Add environment",
        error=mine.error if mine else "",
        draft=mine is not None,
    )


def _override_choices(value: str | None) -> tuple[Choice, ...]:
    chosen = value or "default"
    follows = Choice("default", "default", chosen == "default")  # follows the level
    return (follows, *_choices(LEVELS, chosen))


def _choices(values: tuple[str, ...], chosen: str) -> tuple[Choice, ...]:
    return tuple(Choice(v, v, v == chosen) for v in values)


def entry_form(
    slug: str,
    env: Environment,
    entry: EnvironmentAccess | None,
    allowed: bool,
    policy: Merged,
    draft: Draft | None,
) -> EntryForm:
    """An environment's Add entry form (entry None) or an entry's Edit form.

    The Test secrets box is there when the policy allows them on this environment or the
    entry already has some; stored ones read `name: ***` (kept as they are).
    """
    ident = f"entry-{entry.id}-edit" if entry is not None else f"entry-new-{env.id}"
    mine = draft if draft is not None and draft.form == ident else None
    stored = selectors.test_secret_names(entry) if entry is not None else []
    kind = entry.kind if entry is not None else ""
    if mine is not None:
        fields_text = _unsecret_lines(mine.values.get("fields", ""), policy)
        test_text, blanked = _test_lines(mine.values.get("test_secrets", ""))
        kind = entry.kind if entry is not None else mine.values.get("kind", "")
    else:
        shown = selectors.text_fields(entry) if entry is not None else {}
        fields_text = "\n".join(f"{k}: {v}" for k, v in shown.items())
        test_text, blanked = "\n".join(f"{name}: {KEEP}" for name in stored), False
    if stored and not allowed:
        note = (
            "The policy no longer allows test secrets here: empty this box to remove them; "
            "saving with them is refused."
        )
    else:
        note = (
            f"Harmless test values only, one name: value per line. name: {KEEP} keeps a stored "
            f"value, a removed line removes it. The board shows them as {SECRET_SHOWN}, never "
            "the value."
        )
    if blanked:
        note += " Values you typed are not shown again: type them once more."
    kinds = ACCESS_KINDS if entry is None else ()
    action = (
        reverse("access_update", args=[slug, entry.id])
        if entry is not None
        else reverse("access_add", args=[slug])
    )
    return EntryForm(
        id=ident,
        action=action,
        environment=env.name,
        kinds=_choices(kinds, kind or "ssh") if kinds else (),
        fields_text=fields_text,
        hints=tuple((k, _field_names(k)) for k in ((kind,) if entry is not None else kinds)),
        test_box=allowed or bool(stored),
        test_text=test_text,
        test_note=note,
        submit=f"Save entry #{entry.id}" if entry is not None else "Add entry",
        error=mine.error if mine else "",
        draft=mine is not None,
    )


def _field_names(kind: str) -> str:
    names = ACCESS_FIELDS[kind]
    return ", ".join(names) if names is not None else "any lowercase names"


# --- what a refused form shows again --------------------------------------------------------------


def _unsecret(text: str, name: str, policy: Merged) -> str:
    """`text` with every secret the write checks find replaced by ***, so a refusal for a
    secret never sends it back to the page (the owner types it elsewhere, or a reference).
    Detectors may overlap (a token after "Bearer"): overlapping spans become one ***."""
    findings = secrets.check_fields({name: text}, secrets.SecretsPolicy.of(policy))
    return secrets.mask_findings(text, findings)


def _unsecret_lines(text: str, policy: Merged) -> str:
    """The fields box, each `name: value` line checked under its own name."""
    lines = []
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip():  # a name is read too: a token pasted as one is masked
            key = no_secrets.masked(name)
            lines.append(f"{key}:{_unsecret(value, name.strip().lower(), policy)}")
        else:
            lines.append(_unsecret(line, "fields", policy))
    return "\n".join(lines)


def _test_lines(text: str) -> tuple[str, bool]:
    """The Test secrets box of a refused form: names kept, typed values never sent back
    (`name: ***` stays, as it names a stored value; a token pasted as a name is masked).
    True when a value was left out."""
    lines, blanked = [], False
    for line in text.splitlines():
        raw_name, _, value = line.partition(":")
        if not line.strip():
            continue
        name = no_secrets.masked(raw_name)
        if value.strip() == KEEP:
            lines.append(f"{name.strip()}: {KEEP}")
        else:
            lines.append(f"{name.strip()}: ")
            blanked = blanked or bool(value.strip())
    return "\n".join(lines), blanked
