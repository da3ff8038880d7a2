"""Where relaybay's hooks point, for any agent: the server's base URL, the token file and
the interpreter that runs the hook client (`server_target`), and why a hook command cannot
be written for it (`target_problem`)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

TOKEN_ENV = "RELAYBAY_TOKEN"  # noqa: S105 - the name of a variable, not a secret


@dataclass(frozen=True)
class Target:
    """Where the hooks point: the server's base URL, the token file and the interpreter."""

    base_url: str
    token_file: str
    python: str
    host: str = "127.0.0.1"  # the configured host, also accepted for http hooks
    windows: bool = False


def server_target(cfg: Any) -> Target:
    """The hooks of the server `cfg` describes, run by the interpreter running relaybay."""
    return Target(
        base_url=cfg.base_url,
        token_file=str(cfg.home_path / "token"),
        python=sys.executable,
        host=cfg.host,
        windows=os.name == "nt",
    )


def target_problem(target: Target) -> str | None:
    """Why the hook command cannot be written for this target, None when it can."""
    if target.windows and any(c in f"{target.python}{target.token_file}" for c in "$`"):
        return (
            "A path with $ or a backtick cannot be quoted for Windows; move the data "
            "folder (--home) or the interpreter to a path without them."
        )
    return None
