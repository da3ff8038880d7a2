"""docs/policy.md's sections on secrets: the detectors, where they live, and which writes
they guard — from policy/catalog.py, environments/secret_spots.py, secrets.py and the write
door's own table (environments/secret_door.py GUARDED_WRITES)."""

from __future__ import annotations

from typing import Any

from environments import secret_door, secret_spots, secrets
from policy import catalog
from relaybay_site.docgen.common import cell


def render() -> list[str]:
    """The sections, in the order docs/policy.md shows them."""
    return [*_detectors(), *_home(), *_writes()]


def _detectors() -> list[str]:
    rows = [
        f"| `{d.id}` | {cell(d.title)} | {cell(d.looks_for)} | {cell(d.source) or '—'} |"
        for d in catalog.SECRET_DETECTORS
    ]
    tokens = ", ".join(f"`{d}`" for d in catalog.TOKEN_DETECTOR_IDS)
    return [
        "## Secret detectors",
        "",
        "The ids `secrets.disable` names. `secrets.allow` lets through a value (or a detected "
        "secret) that one of its regular expressions matches whole.",
        "",
        "| Id | Finds | What it looks for | Published rule it follows |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
        f"The token shapes ({tokens}) are a secret wherever they stand, so each is held to a "
        "vendor's shape, not a prefix alone: the length and alphabet that gitleaks publishes "
        "for the rule named above, a fixed infix or suffix where there is one (OpenAI's "
        "`T3BlbkFJ`, Anthropic's closing `AA`), GitHub's CRC32 checksum in the last 6 "
        "characters of a classic token, a JWT's header and payload decoded as JSON, a "
        "private key's base64 body. "
        "GitHub's fine-grained tokens have no public checksum and are held to their length "
        "and alphabet. Documentation placeholders (`AKIAIOSFODNN7EXAMPLE`, "
        "`…EXAMPLEKEY`, the Firebase SDK's example key) are no token.",
        "",
        f"Two corpora kept in the repository hold them to it: `{BENIGN}`, text an agent "
        "writes every day (branch and package names, Kubernetes objects, constants, digests, "
        "data URIs, documentation placeholders, `sk-…` words, PEM headers named in prose), "
        "which no token shape may find; and "
        f"`{TOKENS}`, real-shaped fakes of every token shape, which each must refuse. "
        "`tests/environments/test_secret_corpus.py` reads both through the detectors, the "
        "database's last line and the write door; a benign line refused there is a detector "
        "made more precise, never a line deleted.",
        "",
    ]


BENIGN = "tests/fixtures/secrets/benign.txt"
TOKENS = "tests/fixtures/secrets/tokens.txt"


def _home() -> list[str]:
    """Where the table lives and its callers, named from the modules themselves."""
    spots, checks, door = _path(secret_spots), _path(secrets), _path(secret_door)
    with_patterns = {spot.detector for spot in secret_spots.SECRET_SPOTS}
    name_rules = [d.id for d in catalog.SECRET_DETECTORS if d.id not in with_patterns]
    return [
        f"They are implemented once, in `{spots}`: a table of "
        f"{len(secret_spots.SECRET_SPOTS)} patterns under these ids ("
        + " and ".join(f"`{d}`" for d in name_rules)
        + f" are rules on a field's name instead, in `{checks}`). Three callers share the "
        f"table through `{checks}`:",
        "",
        f"- `{door}` (`{secret_door.refuse.__name__}`), the door of every write: each string "
        "a write stores, at any depth and mapping keys too, before anything is written "
        "(below); a refusal names the field, its path and the detector, never the value;",
        f"- `{secrets.mask.__name__}`: the guard's journal, which masks every spot whatever "
        "`secrets.disable` says, and every stored test secret of the project;",
        "- `core/no_secrets.py`, the database's last line: every INSERT and UPDATE has its "
        "text values read for the token shapes, and one that no door let through refuses the "
        "write (what the policy or a test secret lets through is let through there too).",
        "",
        "These are pattern checks: a secret in an unusual shape, such as plain prose, can pass.",
        "",
    ]


def _writes() -> list[str]:
    tokens = ", ".join(f"`{d}`" for d in catalog.TOKEN_DETECTOR_IDS)
    rows = [
        f"| {cell(what)} | {cell(texts) or '—'} | {cell(values) or '—'} |"
        for what, texts, values in secret_door.GUARDED_WRITES
    ]
    return [
        "## Which writes the detectors guard",
        "",
        f"Texts people write meet the token shapes that cannot be prose ({tokens}); names, "
        "labels, sources and JSON meet every detector, and a text under a key whose name "
        "says secret (password, token, key …) must be a reference. Every one follows "
        "`secrets.disable` and `secrets.allow` under the project's policy (the global one "
        "for global rows). A JSON value over "
        f"{secret_door.JSON_MAX:,} characters (a proposal's change: fewer) or nested deeper "
        f"than {secret_door.MAX_DEPTH} levels is refused before any detector reads it.",
        "",
        "| Write | Token shapes | Every detector |",
        "| --- | --- | --- |",
        *rows,
        "",
    ]


def _path(module: Any) -> str:
    return module.__name__.replace(".", "/") + ".py"
