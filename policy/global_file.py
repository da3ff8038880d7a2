"""The global layer: the file policy.json in the data folder (§7).

Read again whenever its modification time or size changes — no restart, no command. A file
that breaks later is logged once and shown on the Policy page while the last valid version
stays in effect; at start a broken file stops `relaybay serve` (exit 2) like a broken
config.toml. Writes are atomic (a temporary file beside it, then a rename) and happen after
the database transaction that records them has committed.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from core import caches
from core.errors import DomainError
from policy import validate

log = logging.getLogger("relaybay.policy")


class PolicyFileError(DomainError):
    """policy.json cannot be read as a valid policy, or cannot be written."""

    status = 409


@dataclass(frozen=True)
class GlobalState:
    """What the global layer is now.

    body: the layer in effect — the file's, or the last valid one while the file is broken,
    or {} when there is no file. error: the file's current problem (None when it is fine).
    """

    path: Path
    body: dict[str, Any]
    exists: bool
    error: str | None = None
    stamp: tuple[int, int] | None = None

    @property
    def label(self) -> str:
        return self.path.name


def policy_path() -> Path:
    """The setting policy_file; a relative path is read from the data folder."""
    cfg = settings.RELAYBAY
    path = Path(cfg["policy_file"]).expanduser()
    return path if path.is_absolute() else cfg.home_path / path


_lock = threading.Lock()
_current: GlobalState | None = None
_logged: set[str] = set()  # problems already logged: each once
caches.register(
    "policy.global_file._current",
    key="none: policy.json as last read",
    bound="one value",
    invalidation="the file's path or stamp changed: read again",
    reset="`global_file.forget()`",
)
caches.register(
    "policy.global_file._logged",
    key="a problem's text (logged once)",
    bound="the problems of the file as read",
    invalidation="`forget()`",
    reset="`global_file.forget()`",
)


def state() -> GlobalState:
    """The global layer in effect; stats the file and re-reads it only when it changed."""
    global _current
    path = policy_path()
    stamp = _stamp(path)
    current = _current
    if current is not None and current.path == path and current.stamp == stamp:
        return current
    with _lock:
        if _current is not None and _current.path == path and _current.stamp == stamp:
            return _current
        previous = _current if _current is not None and _current.path == path else None
        _current = _read(path, stamp, previous)
        return _current


def check_at_start() -> GlobalState:
    """For `relaybay serve`: the file as it is now, or PolicyFileError (path and problem).

    Not logged here: serve reports the problem itself, one line per error, like a broken
    config.toml, and a log line on top would say it twice.
    """
    global _current
    forget()
    path = policy_path()
    with _lock:
        _current = _read(path, _stamp(path), None, quiet=True)
        current = _current
    if current.error:
        raise PolicyFileError(current.error)
    return current


def forget() -> None:
    """Drop what was read (tests, a changed data folder)."""
    global _current
    with _lock:
        _current = None
        _logged.clear()


def write(body: dict[str, Any]) -> None:
    """Replace policy.json atomically; PolicyFileError naming the file when that fails."""
    path = policy_path()
    text = json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".policy-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise PolicyFileError(
            f"Could not write {path}: {exc.strerror or exc}. Nothing in the file changed; "
            "check the folder's permissions and free space, then save again."
        ) from None


def content_is(body: dict[str, Any]) -> bool:
    """Does the file on disk hold exactly this policy (after an interrupted write)?"""
    try:
        return json.loads(policy_path().read_text(encoding="utf-8")) == body
    except (OSError, ValueError):
        return False


# --- reading --------------------------------------------------------------------------------


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


def _read(
    path: Path, stamp: tuple[int, int] | None, previous: GlobalState | None, *, quiet: bool = False
) -> GlobalState:
    if stamp is None:
        return GlobalState(path=path, body={}, exists=False, stamp=None)
    label = str(path)
    try:
        text = path.read_text(encoding="utf-8")
        body = validate.parse(text, label=label)
        validate.check(body, label=label, scope="global")
    except validate.PolicyInvalid as exc:
        problem = str(exc)
    except (OSError, UnicodeDecodeError) as exc:
        problem = f"{label}: cannot read: {exc}"
    else:
        return GlobalState(path=path, body=body, exists=True, stamp=stamp)
    last_valid = previous.body if previous is not None else {}
    if problem not in _logged and not quiet:
        _logged.add(problem)
        kept = "the last valid version stays in effect" if previous else "it is not applied"
        log.error("policy file is broken (%s): %s", kept, problem)
    return GlobalState(path=path, body=last_valid, exists=True, error=problem, stamp=stamp)
