"""What other apps plug into the policy: the secret door of what a policy write stores.

policy imports no app above it (docs/architecture.md §2), yet a policy proposal's patch and
reason, and every layer the owner saves, must pass the same secret door as every other write
(§9.9): every string at any depth, keys too. The environments app, which owns the secret
detectors, registers its door here from its ready().
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from policy.merge import Merged

TextCheck = Callable[[dict[str, Any], Merged], None]  # raises a DomainError to refuse

_text_checks: list[TextCheck] = []


def register_text_check(fn: TextCheck) -> None:
    """Idempotent, so a second ready() (tests) never runs a check twice."""
    if fn not in _text_checks:
        _text_checks.append(fn)


def check_texts(values: dict[str, Any], policy: Merged) -> None:
    """Run every registered check on the values (JSON at any depth) under `policy`; the
    first refusal raises."""
    for fn in _text_checks:
        fn(values, policy)
