"""The real hook inputs of Claude Code 2.1.332 (tests/fixtures), for the hook tests.

`payload("PostToolUse.Bash", session_id=…)` is the captured body with some fields changed;
a field set to None is removed.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.claude_code import CLAUDE_CODE

FIXTURES = CLAUDE_CODE
HOOKS = FIXTURES / "hooks"
CWD = "/home/dev/acme-shop"  # the folder every captured event ran in


def payload(name: str, **changes: Any) -> dict[str, Any]:
    data = json.loads((HOOKS / f"{name}.json").read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def http_stop_request() -> dict[str, Any]:
    """The captured http hook request (path, headers, body) of a Stop."""
    return json.loads((FIXTURES / "hooks-http/Stop.request.json").read_text())


def env(name: str) -> dict[str, str]:
    """The environment a command hook saw (hooks-env/)."""
    return json.loads((FIXTURES / f"hooks-env/{name}.env.json").read_text())
