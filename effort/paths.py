"""Which transcript files relaybay may read: only what the agent itself would write.

A hook names its transcript (`transcript_path`). The hook body is authenticated, but a path
is not a licence to read files: only a regular file (no symlink) on this machine, named for
the session, in the agent's own folder, as its reader (effort.readers) says: the folder
from the environment, and which names below it are a session's file.

The path is first judged as a string; the filesystem is touched (realpath, lstat) only for a
path that passed, so nothing outside those folders is ever opened or even looked at.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from effort import readers

_SESSION_ID_MAX = 100


@dataclass(frozen=True)
class Roots:
    """The agents' own folders, by agent name (Claude Code's configuration folder, Codex's
    home …): each agent's reader says which from the environment."""

    folders: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, env: Mapping[str, str] | None = None) -> Roots:
        """The folders this process's environment names (the server runs as the user)."""
        env = os.environ if env is None else env
        return cls({reader.agent: reader.folder(env) for reader in readers.every()})

    def folder(self, agent: str) -> str:
        """The agent's folder ("" for an agent without a reader)."""
        return self.folders.get(agent, "")


def plain_id(session_id: str) -> bool:
    """A session id as a transcript's name may carry it: ASCII letters, digits, - and _."""
    return 0 < len(session_id) <= _SESSION_ID_MAX and all(
        c.isascii() and (c.isalnum() or c in "-_") for c in session_id
    )


def inside(path: PurePosixPath, folder: str) -> tuple[str, ...] | None:
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
    reader, root = readers.reader_of(agent), roots.folder(agent)
    if reader is None or not root or not path or "\0" in path or not plain_id(session_id):
        return False
    parts = inside(PurePosixPath(path), root)
    return parts is not None and reader.names_session(parts, session_id)


def allowed(agent: str, path: str, session_id: str, roots: Roots) -> bool:
    """`shape_ok`, then on disk: the real path is the same (no symlink on the way below the
    agent's folder) and it is a regular file."""
    if not shape_ok(agent, path, session_id, roots):
        return False
    root = roots.folder(agent)
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
    reader = readers.reader_of(agent)
    name = PurePosixPath(path).name
    if reader is None or not name.endswith(".jsonl"):
        return ""
    found = reader.session_id_of(name[: -len(".jsonl")])
    return found if plain_id(found) else ""
