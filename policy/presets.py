"""The three built-in presets, exactly as §7's table (the first layer of every policy).

default equals relaybay before policies: an owner with no policy.json and no legacy
guard keys gets it.
"""

from __future__ import annotations

import copy
from typing import Any


def _levels(local: str, test: str, live: str) -> dict[str, Any]:
    return {"local": {"default": local}, "test": {"default": test}, "live": {"default": live}}


def _secrets(test_secrets: bool) -> dict[str, Any]:
    return {
        "disable": [],
        "allow": [],
        "test_secrets": {"local": test_secrets, "test": test_secrets},
        "expose_test_secrets_to_agents": False,
    }


PRESETS: dict[str, dict[str, Any]] = {
    "default": {
        "levels": _levels("full", "full", "read"),
        "guard": {"mode": "warn", "disable": [], "patterns": []},
        "secrets": _secrets(False),
    },
    "strict": {
        "levels": _levels("full", "ask", "none"),
        "guard": {"mode": "block", "disable": [], "patterns": []},
        "secrets": _secrets(False),
    },
    "trusted": {
        "levels": _levels("full", "full", "full"),
        "guard": {"mode": "log", "disable": [], "patterns": []},
        "secrets": _secrets(True),
    },
}

SUMMARY = {
    "default": (
        "local and test full, live read",
        "warn, all rules",
        "all detectors, no test secrets",
    ),
    "strict": (
        "local full, test ask, live none",
        "block, all rules",
        "all detectors, no test secrets",
    ),
    "trusted": (
        "full everywhere",
        "log",
        "all detectors; test secrets on local and test, not shown to agents",
    ),
}


def preset(name: str) -> dict[str, Any]:
    """A fresh copy: merging must never change the table."""
    return copy.deepcopy(PRESETS[name])
