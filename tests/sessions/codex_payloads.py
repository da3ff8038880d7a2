"""The real Codex 0.169.0 hook inputs (tests/fixtures/codex-0.169.0/hooks, captured from the
real CLI; its README says how), as the Codex tests send them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

HOOKS = Path(__file__).resolve().parent.parent / "fixtures" / "codex-0.169.0" / "hooks"
NAMES = sorted(p.stem for p in HOOKS.glob("*.json") if not p.name.startswith("_"))
SESSION = "01a24837-a070-71b3-94a8-3c4850047b3a"  # the exec run's thread id
CWD = "/home/dev/acme-shop"


def codex_payload(name: str, **changes: Any) -> dict[str, Any]:
    """One captured input (e.g. "PreToolUse.Bash"), with fields replaced."""
    body = json.loads((HOOKS / f"{name}.json").read_text())
    return {**copy.deepcopy(body), **changes}


def sequence(name: str) -> list[dict[str, Any]]:
    """All inputs of one captured run in firing order (e.g. "exec-two-turns")."""
    return json.loads((HOOKS / f"_sequence.{name}.json").read_text())
