"""A planned change to an agent's settings file, its diff and hash, and writing it with a
backup (§5), whichever agent's file it is.

A plan is computed from the file's bytes alone; its hash (SHA-256 over the current bytes
and the planned bytes, first 12 hex digits) lets `--expect` refuse a write when the file
or the plan changed since the user looked at the diff.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True)
class Plan:
    path: Path
    action: str  # "apply" or "remove"
    before: bytes
    after: bytes
    notes: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.before + self.after).hexdigest()[:12]

    @property
    def diff(self) -> str:
        old = self.before.decode("utf-8", "replace").splitlines()
        new = self.after.decode("utf-8", "replace").splitlines()
        name = str(self.path)
        lines = difflib.unified_diff(old, new, f"{name} (now)", f"{name} (after)", lineterm="")
        return "\n".join(lines)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def backup_path(path: Path, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now().astimezone()).strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.relaybay-backup-{stamp}")
    n = 1
    while candidate.exists() or candidate.is_symlink():
        candidate = path.with_name(f"{path.name}.relaybay-backup-{stamp}-{n}")
        n += 1
    return candidate


class PlanChanged(Exception):
    """The file (or the plan) no longer hashes to what the user approved."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        super().__init__(f"{plan.path} changed since the plan was shown; nothing was written.")


def write_plan(plan: Plan, now: datetime | None = None) -> Path | None:
    """Back the file up, then write the planned bytes through a symlink to its target.

    Refuses (PlanChanged) when the file no longer holds the bytes the plan was made from.
    Returns the backup's path (None when there was no file to back up).
    """
    if not plan.changed:
        return None
    if read_bytes(plan.path) != plan.before:
        raise PlanChanged(plan)
    real = plan.path.resolve()
    backup = None
    if real.exists():
        backup = backup_path(plan.path, now)
        shutil.copy2(real, backup)
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}-", dir=real.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(plan.after)
            fh.flush()
            os.fsync(fh.fileno())
        if real.exists():
            shutil.copymode(real, tmp)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return backup
