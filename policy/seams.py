"""What other apps plug into the policy: checks of the text a proposal carries.

policy imports no app above it (docs/architecture.md §2), yet a policy proposal's reason
must pass the same secret checks as every other proposal (§9.9). The environments app,
which owns the secret detectors, registers its check here from its ready().
"""

from __future__ import annotations

from collections.abc import Callable

from policy.merge import Merged

TextCheck = Callable[[dict[str, str], Merged], None]  # raises a DomainError to refuse

_text_checks: list[TextCheck] = []


def register_text_check(fn: TextCheck) -> None:
    """Idempotent, so a second ready() (tests) never runs a check twice."""
    if fn not in _text_checks:
        _text_checks.append(fn)


def check_texts(values: dict[str, str], policy: Merged) -> None:
    """Run every registered check; the first refusal raises."""
    for fn in _text_checks:
        fn(values, policy)
