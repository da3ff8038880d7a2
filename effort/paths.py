"""Which transcript files relaybay may read: only what the agent itself would write.

A hook names its transcript (`transcript_path`). The hook body is authenticated, but a path
is not a licence to read files: only a regular file (no symlink) on this machine, named for
the session, in the agent's own folder —

- Claude Code: `<config>/projects/<folder>/<session_id>.jsonl`, where <config> is
  `$CLAUDE_CONFIG_DIR`, else `~/.claude`;
- Codex: `<home>/sessions/…/rollout-…-<session_id>.jsonl`, where <home> is `$CODEX_HOME`,
  else `~/.codex`.

The path is first judged as a string; the filesystem is touched (realpath, lstat) only for a
path that passed, so nothing outside those folders is ever opened or even looked at.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from effort.transcripts import CLAUDE, CODEX

_SESSION_ID_MAX = 100


@dataclass(frozen=True)
class Roots:
    """The agents' own folders: Claude Code's configuration folder, Codex's home."""

    claude: str
    codex: str

    @classmethod
    def of(cls, env: Mapping[str, str] | None = None) -> Roots:
        """The folders this process's environment names (the server runs as the user)."""
        env = os.environ if env is None else env
        home = env.get("HOME") or os.path.expanduser("~")
        return cls(
            claude=env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude"),
            codex=env.get("CODEX_HOME") or os.path.join(home, ".codex"),
        )


def _plain_id(session_id: str) -> bool:
    return 0 < len(session_id) <= _SESSION_ID_MAX and all(
        c.isascii() and (c.isalnum() or c in "-_") for c in session_id
    )


def _inside(path: PurePosixPath, folder: str) -> tuple[str, ...] | None:
    """The parts of `path` below `folder`, judged on the strings alone."""
    base = PurePosixPath(os.path.normpath(folder))
    if not base.is_absolute() or ".." in path.parts or str(path) != os.path.normpath(path):
        return None
    try:
        return path.relative_to(base).parts
    except ValueError:
        return None


def shape_ok(agent: str, path: str, session_id: str, roots: Roots) -> bool:
    """Whether `path` is, as a string, the transcript the agent writes for `session_id`."""
    if not path or "\0" in path or not _plain_id(session_id):
        return False
    pure = PurePosixPath(path)
    if agent == CLAUDE:
        parts = _inside(pure, os.path.join(roots.claude, "projects"))
        return parts is not None and len(parts) == 2 and parts[1] == f"{session_id}.jsonl"
    if agent == CODEX:
        parts = _inside(pure, os.path.join(roots.codex, "sessions"))
        name = parts[-1] if parts else ""
        return (
            parts is not None
            and 1 <= len(parts) <= 5
            and name.startswith("rollout-")
            and name.endswith(f"-{session_id}.jsonl")
        )
    return False


def allowed(agent: str, path: str, session_id: str, roots: Roots) -> bool:
    """`shape_ok`, then on disk: the real path is the same (no symlink on the way below the
    agent's folder) and it is a regular file."""
    if not shape_ok(agent, path, session_id, roots):
        return False
    root = roots.claude if agent == CLAUDE else roots.codex
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if os.path.relpath(real, real_root) != os.path.relpath(path, os.path.normpath(root)):
        return False
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def session_id_of(agent: str, path: str) -> str:
    """The session id a transcript's name carries ("" when it carries none)."""
    name = PurePosixPath(path).name
    if not name.endswith(".jsonl"):
        return ""
    stem = name[: -len(".jsonl")]
    if agent == CLAUDE:
        return stem if _plain_id(stem) else ""
    if agent == CODEX and stem.startswith("rollout-"):
        # rollout-<local time>-<uuid>: the id is the last five dash-separated groups
        groups = stem.split("-")
        found = "-".join(groups[-5:]) if len(groups) > 6 else ""
        return found if _plain_id(found) else ""
    return ""
