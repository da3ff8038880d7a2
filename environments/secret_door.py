"""The door of every write: each string it stores, at any depth, meets the secret detectors
before anything is written (§7 Access map, §8 Secret scan, §9.9).

relaybay never stores a secret, only where it lives. A service hands the door what it is
about to store, by field, in two kinds:

- texts, what people write — titles, bodies, notes, comments, plans, captions: the token
  shapes that cannot be prose (policy.catalog.TOKEN_DETECTOR_IDS: private key blocks,
  GitHub / GitLab / Slack / OpenAI / Anthropic / AWS / Google / Stripe keys, JWTs, each by
  its vendor's published length, alphabet and checksum — environments/secret_spots.py);
- values, what names and structures — names, labels, kinds, roles, sources, and whatever
  is stored as JSON (a proposal's change, a policy patch): every value detector, and for a
  mapping's text entry the field-name rules of its key (a "password" holds a reference).

Either kind is walked to any depth, mapping keys included, within a size and depth limit
checked before anything else looks at it. The policy (secrets.disable, secrets.allow) is
read only when a detector found something — it can only let findings through — so a clean
write costs a scan. What the policy lets through is told to the database's last line
(core/no_secrets.py), which refuses a token shape in any write no service named.

A refusal names the field's path and the detector, never the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from core import no_secrets
from core.errors import InvalidField, SecretRefused
from environments import secrets
from policy import selectors as policy_selectors
from policy.merge import Merged
from tasks.extensions import plug_in_once
from tasks.models import Project

# Which writes hand the door what (docs/policy.md "Which writes the detectors guard" is
# rendered from this table): (the writes, what meets the token shapes, what meets every
# detector). tests/test_secret_probes.py and the generated tests/integration
# test_no_secret_at_rest_*.py prove each place.
GUARDED_WRITES: tuple[tuple[str, str, str], ...] = (
    (
        "Tasks: task_create, task_update, task_patch, task_set_stage, the board's edit form",
        "every field (title, description, progress, next step, waiting on, stage note, "
        "branch, tracker fields …)",
        "",
    ),
    ("Reports: report_add", "the body, progress, next step, waiting on", ""),
    (
        "Comments: comment_add, the owner's comment, a review step's decision",
        "the body or comment",
        "",
    ),
    ("Plans: plan_set, plan_step_update", "every step, its details, outcome, reason", "link"),
    (
        "Owner checks and screenshots: review_steps_set, review_step_update, attach_file, "
        "attachment_caption",
        "steps, titles, details, captions, the file's path",
        "",
    ),
    (
        "Sessions: the caller parameters of every write, task_bind_session, task_unbind_session",
        "session_title, reason",
        "session, hook_session",
    ),
    ("Projects: project_upsert", "description, repo_path", "slug, name"),
    (
        "Decisions and memory: decision_add, memory_add, memory_update, doc_update, block_set, "
        "the owner's block form",
        "",
        "every text, title and reason; tags, source, role, kind, name and label as given, "
        "before they are lowercased",
    ),
    (
        "Stands: the owner's environment and access entry forms",
        "",
        "the name and every text; access entry fields with their field-name rules, and "
        "the fields' and test secrets' names as typed",
    ),
    (
        "Proposals: environment_propose, policy_propose",
        "",
        "the whole change or patch at any depth, keys too, and the reason",
    ),
    ("Policy layers: Settings → Policy's editor", "", "the whole layer at any depth, keys too"),
)
JSON_MAX = 64 * 1024  # characters of one JSON value (its strings, keys and structure)
MAX_DEPTH = 12  # nesting of one JSON value


def _refusal(field: str, finding: secrets.Finding, text: str) -> SecretRefused:
    """The field (the parameter or form field), and in the message the path inside it and
    the detector — never the value, which the error keeps only to mask it in a form."""
    secret = text[finding.start : finding.end]
    return SecretRefused(field, f"Refused: {finding.message()}", secret)


@dataclass(frozen=True)
class _Piece:
    field: str  # the parameter or form field it came in
    path: str  # where it sits: change.access[0].fields.host, or "a key of change.access[0]"
    text: str
    key: str | None  # the mapping key this text is the value of (field-name rules)
    tokens_only: bool


def refuse(
    project: Project | str | None = None,
    *,
    texts: Mapping[str, Any] | None = None,
    values: Mapping[str, Any] | None = None,
    policy: Merged | None = None,
    limit: int = JSON_MAX,
) -> None:
    """Raise SecretRefused for the first secret in any string of `texts` (token shapes) or
    `values` (every detector), under `policy` or the effective policy of `project` (a
    Project or its slug; the global policy without one). InvalidField when a value is bigger
    than `limit`."""
    pieces = [
        *(p for f, v in (texts or {}).items() for p in _walk(f, v, limit, tokens_only=True)),
        *(p for f, v in (values or {}).items() for p in _walk(f, v, limit, tokens_only=False)),
    ]
    suspects = [p for p in pieces if _findings(p, secrets.SecretsPolicy())]
    if not suspects:
        return
    if policy is None and isinstance(project, str):  # a slug, looked up only now
        project = Project.objects.filter(slug=project.strip()).first()
    merged = policy if policy is not None else policy_selectors.effective_for(project).merged
    rules = secrets.SecretsPolicy.of(merged)
    for piece in suspects:
        found = _findings(piece, rules)
        if found:
            raise _refusal(piece.field, found[0], piece.text)
        no_secrets.let_through(token for _, token in tokens(piece.text))


def tokens(text: str) -> Iterator[tuple[str, str]]:
    """(detector, token) of every token shape in a text: the scan core.no_secrets runs on
    every written value. A cheap look for the shapes' first letters comes first."""
    if not _may_hold_token(text):
        return
    for finding in secrets.find(text, field="value", tokens_only=True):
        yield finding.detector, text[finding.start : finding.end]


@plug_in_once
def register() -> None:
    """The database's last line runs the same token scan (idempotent)."""
    no_secrets.register_scan(tokens)


# --- the walk ---------------------------------------------------------------------------------


def _walk(field: str, value: Any, limit: int, *, tokens_only: bool) -> Iterator[_Piece]:
    """Every string of `value` (keys too) with its path, refusing a value over `limit`
    characters or MAX_DEPTH levels before any detector sees it."""
    budget = limit
    stack: list[tuple[str, Any, str | None, int]] = [(field, value, field, 0)]
    while stack:
        path, item, key, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidField(field, f"{field} nests deeper than {MAX_DEPTH} levels.")
        if isinstance(item, str):
            budget -= len(item) + 2
            if budget < 0:
                raise InvalidField(
                    field, f"{field} is too big: at most {limit:,} characters as JSON."
                )
            if item:
                yield _Piece(field, path, item, key, tokens_only)
        elif isinstance(item, Mapping):
            budget -= 2
            for index, (name, inner) in reversed(list(enumerate(item.items()))):
                name = str(name)
                budget -= len(name) + 3
                stack.append((_key_path(path, name, index), inner, name, depth + 1))
                stack.append((f"a key of {path}", name, None, depth + 1))
        elif isinstance(item, list | tuple):
            budget -= 2
            for index in reversed(range(len(item))):
                stack.append((f"{path}[{index}]", item[index], key, depth + 1))
        elif item is not None and not isinstance(item, bool | int | float):
            stack.append((path, str(item), key, depth))
        else:
            budget -= 8


# A key a refusal may quote in a path: a short identifier. Without white space, a colon, an
# equals sign, a slash or an @ only a token shape could be a secret in it (_PLAIN below).
_SAFE_KEY = re.compile(r"[A-Za-z_][\w.\-]{0,40}")


def _key_path(path: str, name: str, index: int) -> str:
    """`path.name` for a plain key; `path[index]`, its place in the mapping, for any other
    key, which may be a secret typed where a name goes and a refusal must not repeat."""
    if _SAFE_KEY.fullmatch(name) and next(tokens(name), None) is None:
        return f"{path}.{name}"
    return f"{path}[{index}]"


def _findings(piece: _Piece, rules: secrets.SecretsPolicy) -> list[secrets.Finding]:
    if not _may_hold_token(piece.text) and (piece.tokens_only or _plain(piece)):
        return []  # most of a write: a look that no detector could find anything here
    return secrets.find(
        piece.text,
        field=piece.path,
        policy=rules,
        name=piece.key,
        tokens_only=piece.tokens_only,
    )


# The first letters of every token shape (environments/secret_spots.py): a text without
# any of them holds no token, and most texts are told so by one pass of this search.
# tests/environments/test_secret_corpus.py checks every line of the token corpus passes it.
_TOKEN_START = re.compile(
    r"-----BEGIN|gh[pousr]_|github_pat_|gl(?:pat|dt|rt|ptt|cbt|ft|oas|soat|ffct)-"
    r"|xox[abeoprs]-|xapp-|sk-|AKIA|ASIA|AIza|[sr]k_live_|eyJ"
)
# The AWS secret key is found by the name before it, in any case: looked for in the text
# lowercased, and only when it holds "key" (a case-insensitive part in _TOKEN_START made
# every write's look nine times slower).
_SECRET_KEY_NAME = re.compile(r"secret_?access_?key|aws_?secret_?key")


def _may_hold_token(text: str) -> bool:
    if _TOKEN_START.search(text) is not None:
        return True
    lowered = text.lower()
    return "key" in lowered and _SECRET_KEY_NAME.search(lowered) is not None


# A name, slug or word: without white space, a colon, an equals sign, a slash or an @, no
# detector but the token shapes and a field's name rules can find a secret in it.
_PLAIN = re.compile(r"[\w.\-]*")


def _plain(piece: _Piece) -> bool:
    named = piece.key is not None and secrets.has_name_rules(piece.key)
    return not named and _PLAIN.fullmatch(piece.text) is not None
