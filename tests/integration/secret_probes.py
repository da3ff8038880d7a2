"""What the generated no-secret-at-rest tests share: made-up secrets, their placement in a
value at every depth, and the search of a whole data folder (issue 28)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.support import tokens

_counter = itertools.count(1)


def new_secret() -> str:
    """A fresh made-up secret in one of the token shapes (tests/support/tokens.py: the
    vendors' lengths, alphabets and GitHub's checksum), different each call."""
    n = next(_counter)
    seed = f"secret-{n}"
    shapes = (
        lambda: tokens.github(seed=seed),
        lambda: tokens.aws_key_id(seed=seed),
        lambda: tokens.jwt({"sub": seed}, seed=seed),
        lambda: tokens.slack_bot(seed=seed),
        lambda: tokens.gitlab(seed=seed),
        lambda: tokens.openai(seed=seed),
        lambda: tokens.anthropic(seed=seed),
        lambda: tokens.google(seed=seed),
        lambda: tokens.stripe(seed=seed),
    )
    return shapes[n % len(shapes)]()


def placements(value: Any) -> Iterator[tuple[str, Any, str]]:
    """(where, the value with a new secret placed there, the secret): every string leaf
    replaced, a key and a value added to every mapping, an item added to every list."""
    if isinstance(value, str):
        secret = new_secret()
        yield "", f"see {secret} here", secret
    elif isinstance(value, dict):
        secret = new_secret()
        yield "{+key}", {**value, secret: "x"}, secret
        secret = new_secret()
        yield "{+value}", {**value, "extra": secret}, secret
        for key, inner in value.items():
            for where, placed, secret in placements(inner):
                yield f".{key}{where}", {**value, key: placed}, secret
    elif isinstance(value, list):
        secret = new_secret()
        yield "[+]", [*value, secret], secret
        for index, inner in enumerate(value):
            for where, placed, secret in placements(inner):
                copy = list(value)
                copy[index] = placed
                yield f"[{index}]{where}", copy, secret


def found_in_folder(home: Path, secrets: list[str]) -> dict[str, list[str]]:
    """Each secret (or it lowercased) found in any file of the data folder: the database,
    its WAL, the server's log, policy.json, attachments."""
    found: dict[str, list[str]] = {}
    files = [p for p in home.rglob("*") if p.is_file()]
    contents = {p: p.read_bytes() for p in files}
    for secret in secrets:
        for form in {secret, secret.lower()}:
            for path, data in contents.items():
                if form.encode() in data:
                    found.setdefault(secret, []).append(str(path.relative_to(home)))
    return found
