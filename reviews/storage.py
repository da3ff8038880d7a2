"""Where a screenshot's file lives on disk (§1 Screenshots (attachments), §9.10).

<data folder>/attachments/<project>/<task key>/<stored name>. A file is written (temp +
rename) before its row commits and removed again if the transaction fails; a removed row's
file is deleted only after the commit; at start, what no row names is swept. No database
writes: the rows are reviews.services' (attachments.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
from pathlib import Path

from django.conf import settings

from reviews import selectors
from reviews.models import Attachment

log = logging.getLogger(__name__)


def attachments_root() -> Path:
    return Path(settings.RELAYBAY.home_path) / "attachments"


def file_path(attachment: Attachment) -> Path:
    task = attachment.task
    return attachments_root() / task.project.slug / task.key / attachment.stored_name


def write(folder: Path, name: str, data: bytes) -> Path:
    """Write `data` to folder/name atomically: a temp file in the same folder, renamed."""
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / name
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return final


def unlink(path: Path) -> None:
    """Delete one stored file; a failure is logged, never raised (the row is gone already)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        log.warning("could not delete %s", path, exc_info=True)


def sweep_orphans() -> int:
    """Delete every file and folder under attachments/ that no row names; the count.

    Called at every start (relaybay serve, after migrations): a crash between writing a
    file and committing its row, or a rolled-back outer transaction, leaves such files.
    """
    root = attachments_root()
    if root.is_symlink() or not root.is_dir():  # never sweep through a link
        return 0
    kept = {os.path.join(slug, key, name) for slug, key, name in selectors.stored_files()}
    removed = 0
    for here, dirs, names in os.walk(root, topdown=False, followlinks=False):
        rel = os.path.relpath(here, root)
        for name in names:
            if os.path.normpath(os.path.join(rel, name)) not in kept:
                removed += _remove(os.path.join(here, name))
        for name in dirs:
            full = os.path.join(here, name)
            if os.path.islink(full):
                removed += _remove(full)
            else:
                with contextlib.suppress(OSError):
                    os.rmdir(full)  # only succeeds when nothing kept is left inside
                    removed += 1
    return removed


def _remove(path: str) -> int:
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except OSError:
        log.warning("could not delete %s", path, exc_info=True)
        return 0
    return 1
