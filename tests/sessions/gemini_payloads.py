"""The real Gemini CLI 0.61.0 hook inputs (tests/fixtures/gemini-cli-0.61.0/hooks, captured
from the real CLI; NOTES.md there says how), as the Gemini tests send them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "gemini-cli-0.61.0"
HOOKS = FIXTURES / "hooks"
NAMES = sorted(p.stem for p in HOOKS.glob("*.json") if not p.name.startswith("_"))
SESSION = "5fe3fccf-eb77-4c98-a91e-efe83e125ece"  # the `gemini -p` + `--resume` run's id
CWD = "/home/dev/acme-shop"


def gemini_payload(name: str, **changes: Any) -> dict[str, Any]:
    """One captured input (e.g. "BeforeTool.run_shell_command"), with fields replaced."""
    body = json.loads((HOOKS / f"{name}.json").read_text())
    return {**copy.deepcopy(body), **changes}


def sequence(name: str) -> list[dict[str, Any]]:
    """All inputs of one captured run in firing order (e.g. "p-two-turns")."""
    return json.loads((HOOKS / f"_sequence.{name}.json").read_text())


def fixture(path: str) -> Any:
    """Another captured file as JSON (e.g. "answers/AfterAgent.block.model_saw.json")."""
    return json.loads((FIXTURES / path).read_text())
