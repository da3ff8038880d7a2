"""Is a policy layer acceptable? (§7 Validation)

JSON Schema 2020-12 (policy/schema.json) first, then what a schema cannot say: preset only
in the global layer, custom pattern ids unique and not built-in, and every custom regular
expression safe (policy/safe_regex.py). Every error names the layer, the path and the
problem — `policy.json: guard.mode: 'loud' is not one of ['off', 'log', 'warn', 'block']` —
and at most five are reported at once, so a long broken file stays readable. A problem names
the allowed values and quotes a value only when it is short and plain
(tasks.fields.shown_value); an unknown key is never repeated, only the nearest real key: a
layer is agents' text too (policy_propose), and a secret pasted into it must not come back
in the refusal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from core.caches import CODE, kept
from core.errors import DomainError
from policy import safe_regex
from policy.catalog import GUARD_RULE_IDS
from tasks.fields import nearest, quotable, shown_value

MAX_ERRORS = 5
MAX_PROBLEM = 300  # characters of one problem line
SCHEMA_PATH = Path(__file__).with_name("schema.json")


class PolicyInvalid(DomainError):
    """A layer refused; `errors` are the lines (at most five), each complete on its own."""

    status = 400

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors[:MAX_ERRORS]
        super().__init__("\n".join(self.errors))


@kept("none (one value)", bound="one value", invalidation=CODE)
@cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@kept("none (one value)", bound="one value", invalidation=CODE)
@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


def parse(text: str, *, label: str) -> dict[str, Any]:
    """A layer's JSON text as an object, or PolicyInvalid saying where the JSON breaks."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PolicyInvalid(
            [f"{label}: not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"]
        ) from None
    if not isinstance(body, dict):
        raise PolicyInvalid([f"{label}: the policy must be a JSON object ({{…}})"])
    return body


def errors(body: Any, *, label: str, scope: str, probes: bool = True) -> list[str]:
    """Up to five problems of one layer; [] when it may be stored.

    scope: "global", "project" or "environment". probes=False leaves the regular
    expressions out: a stored layer read back was checked when it was saved, and one that
    skipped validation still cannot hurt — safe_regex skips a pattern that does not compile
    and cuts a slow one off at run time (§7), so only that pattern is lost, not the layer.
    """
    found: list[str] = []
    for problem in _problems(body, scope=scope, probes=probes):
        # The schema's messages quote the value: a 100,000-character one came back whole.
        if len(problem) > MAX_PROBLEM:
            problem = problem[:MAX_PROBLEM] + "…"
        found.append(f"{label}: {problem}")
        if len(found) == MAX_ERRORS:
            break
    return found


def check(body: Any, *, label: str, scope: str, probes: bool = True) -> None:
    """errors(), raised as PolicyInvalid."""
    found = errors(body, label=label, scope=scope, probes=probes)
    if found:
        raise PolicyInvalid(found)


# --- the checks, in the order their errors are reported ----------------------------------------


def _problems(body: Any, *, scope: str, probes: bool) -> Iterator[str]:
    if not isinstance(body, dict):
        yield "the policy must be a JSON object ({…})"
        return
    schema_errors = sorted(_validator().iter_errors(body), key=lambda e: list(e.absolute_path))
    for error in schema_errors:
        yield f"{_path(error.absolute_path)}: {_schema_problem(error)}"
    if "preset" in body and scope != "global":
        yield "preset: only the global policy (policy.json) names a preset"
    if schema_errors:
        return  # the checks below read the structure the schema promises
    yield from _pattern_problems(body.get("guard") or {}, probes=probes)
    secrets = body.get("secrets") or {}
    for key in ("allow", "allow+"):
        for i, pattern in enumerate(secrets.get(key) or []):
            problem = _regex_problem(pattern, probes=probes)
            if problem:
                yield f"secrets.{key}[{i}]: {problem}"


def _pattern_problems(guard: dict[str, Any], *, probes: bool) -> Iterator[str]:
    seen: set[str] = set()
    for key in ("patterns", "patterns+"):
        for i, pattern in enumerate(guard.get(key) or []):
            ident = pattern["id"]
            where = f"guard.{key}[{i}]"
            shown = f"'{ident}'" if quotable(ident) else "this id"
            if ident in GUARD_RULE_IDS:
                yield f"{where}.id: '{ident}' is a built-in rule id; choose another id"
            elif ident in seen:
                yield f"{where}.id: {shown} is used twice; pattern ids are unique"
            seen.add(ident)
            for part in ("command", "change"):
                if part in pattern:
                    problem = _regex_problem(pattern[part], probes=probes)
                    if problem:
                        named = f" (id {shown})" if quotable(ident) else ""
                        yield f"{where}.{part}{named}: {problem}"


def _regex_problem(pattern: str, *, probes: bool) -> str | None:
    return safe_regex.problem(pattern) if probes else None


def _schema_problem(error: ValidationError) -> str:
    """The schema's complaint in relaybay's words: jsonschema's own quote the value whole
    (a 100,000-character one came back entire) and name an unknown key."""
    value, rule, expected = error.instance, error.validator, error.validator_value
    if rule == "enum":
        return f"{shown_value(value)} is not one of {list(expected)}"
    if rule == "type":
        return f"{shown_value(value)} is not of type {expected!r}"
    if rule == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        extra = [key for key in value if key not in known] if isinstance(value, dict) else []
        near = sorted({n for key in extra if (n := nearest(key, known))})
        line = f"unknown key{'s' if len(extra) > 1 else ''}; the keys here are {', '.join(known)}"
        return line + (f" (did you mean {', '.join(near)}?)" if near else "")
    if rule == "pattern":
        return f"{shown_value(value)} does not match {expected!r}"
    if rule in ("minLength", "maxLength") and isinstance(value, str):
        bound = "at least" if rule == "minLength" else "at most"
        return f"is {len(value)} characters long; {bound} {expected}"
    if rule == "uniqueItems":
        return "holds the same item twice; list each once"
    if rule == "required":
        return error.message  # names the schema's own key, never the layer's text
    return f"{shown_value(value)} breaks the schema's {rule} rule"


def _path(parts: Any) -> str:
    """guard.patterns[0].change — how the errors name a place; (top level) for the root."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"
