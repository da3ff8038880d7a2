"""The file checks of attach_file (§1 Screenshots, §9.10).

What is kept is decided by the bytes, never by the name or a claimed type: only PNG, JPEG,
WebP and GIF, recognised by their header structure. A path is read only when it is
absolute, not a share or device path by its text (unless under a share in
attachment_roots), and its real path (symlinks and .. resolved) is a regular file inside
an allowed folder — the project's repo, the user's temp folder or attachment_roots — and
not inside relaybay's data folder. The file opened is the file checked: same device and
inode, still a regular file, never followed through a link, and read up to limit + 1 bytes.
"""

from __future__ import annotations

import base64
import binascii
import os
import stat
import tempfile
from dataclasses import dataclass

from django.conf import settings

from core.display import size_text
from core.errors import InvalidField

MB = 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ACCEPTED = "PNG, JPEG, WebP or GIF"
_SEPARATORS = ("/", "\\")


@dataclass(frozen=True)
class ImageKind:
    content_type: str
    ext: str


PNG = ImageKind("image/png", "png")
JPEG = ImageKind("image/jpeg", "jpg")
GIF = ImageKind("image/gif", "gif")
WEBP = ImageKind("image/webp", "webp")


def sniff(data: bytes) -> ImageKind | None:
    """The image kind of `data` by its header structure; None for anything else."""
    if data[:8] == PNG_SIGNATURE:
        # The first chunk must be a 13-byte IHDR (length, type, data, CRC).
        ok = data[8:12] == b"\x00\x00\x00\x0d" and data[12:16] == b"IHDR" and len(data) >= 33
        return PNG if ok else None
    if data[:3] == b"\xff\xd8\xff":
        return JPEG
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return GIF if len(data) >= 13 else None  # the logical screen descriptor
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        ok = data[12:16] in (b"VP8 ", b"VP8L", b"VP8X") and len(data) >= 20
        return WEBP if ok else None
    return None


def image_kind(data: bytes) -> ImageKind:
    """sniff, or InvalidField saying what is accepted."""
    kind = sniff(data)
    if kind is None:
        raise InvalidField(
            "file",
            f"This file is not a {ACCEPTED} image (checked by its content, not its name): "
            "attach a screenshot in one of these formats.",
        )
    return kind


def file_limit() -> int:
    return int(settings.RELAYBAY.attachments_max_mb) * MB


def task_limit() -> int:
    return int(settings.RELAYBAY.attachments_task_max_mb) * MB


def too_big(size: int, limit: int, what: str) -> InvalidField:
    return InvalidField(
        "file",
        f"{what} is {size_text(size)}, over the limit of {size_text(limit)} "
        f"({'attachments_max_mb' if what == 'The file' else 'attachments_task_max_mb'}).",
    )


PATH_MAX = 4096  # the longest path an operating system here takes (Linux PATH_MAX)


def base64_max() -> int:
    """The longest content_base64 text of a file within the limit, a line break allowed
    every 64 characters (PEM and MIME wrap their base64)."""
    chars = (file_limit() // 3 + 1) * 4
    return chars + chars // 64 + 2


def decode_base64(text: str) -> bytes:
    """content_base64 decoded strictly; at most the per-file limit."""
    limit = file_limit()
    compact = "".join(text.split())
    if len(compact) > (limit // 3 + 1) * 4:  # over the limit without decoding it
        raise too_big(len(compact) * 3 // 4, limit, "The file")
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidField(
            "content_base64", "content_base64 is not valid base64: send the file's bytes."
        ) from None
    if len(data) > limit:
        raise too_big(len(data), limit, "The file")
    return data


# --- paths ---------------------------------------------------------------------------------


def _is_share_text(path: str) -> bool:
    return len(path) >= 2 and path[0] in _SEPARATORS and path[1] in _SEPARATORS


def _share_key(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").lower()


def _under_listed_share(path: str, roots: list[str]) -> bool:
    key = _share_key(path)
    if key[2:4] in ("?/", "./"):  # \\?\ and \\.\ device namespaces: never a share
        return False
    for root in roots:
        if not _is_share_text(root):
            continue
        base = _share_key(root)
        if base[2:4] in ("?/", "./") or len(base) <= 2:
            continue
        if key.startswith(base + "/") and "/../" not in key[len(base) :] + "/":
            return True
    return False


def check_path_text(path: str) -> None:
    """The checks made on the text alone, before the disk is touched."""
    if not path or "\x00" in path:
        raise InvalidField("path", "path is empty or has a NUL byte: give the file's full path.")
    roots = [str(r) for r in settings.RELAYBAY.attachment_roots or []]
    if _is_share_text(path) and not _under_listed_share(path, roots):
        raise InvalidField(
            "path",
            "Network share and device paths (\\\\server\\share, //server, \\\\?\\, \\\\.\\) are "
            "refused: copy the screenshot into the project folder or the temp folder, or send "
            "content_base64.",
        )
    if not os.path.isabs(path):
        raise InvalidField("path", f"path must be absolute, not {path!r}.")


def _real(folder: str) -> str:
    return os.path.normcase(os.path.realpath(folder))


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def allowed_folders(repo_path: str) -> list[str]:
    folders = [_real(tempfile.gettempdir())]
    if repo_path and os.path.isabs(repo_path):
        folders.append(_real(repo_path))
    roots = [str(r) for r in settings.RELAYBAY.attachment_roots or []]
    folders += [_real(r) for r in roots if os.path.isabs(r)]  # never relative to the cwd
    return folders


def data_folder() -> str:
    return _real(str(settings.RELAYBAY.home_path))


def checked_path(path: str, repo_path: str) -> tuple[str, os.stat_result]:
    """The real path of `path` and its stat, after every check of §9.10."""
    check_path_text(path)
    real = os.path.realpath(path)
    key = os.path.normcase(real)
    if _inside(key, data_folder()):
        raise InvalidField("path", "path is inside relaybay's data folder: that is refused.")
    if not any(_inside(key, folder) for folder in allowed_folders(repo_path)):
        raise InvalidField(
            "path",
            "path is outside the allowed folders (the project's repo_path, the temp folder "
            "and attachment_roots, after resolving links and ..): copy it there or send "
            "content_base64.",
        )
    try:
        st = os.stat(real)
    except OSError:
        raise InvalidField("path", f"No file at {path}.") from None
    if not stat.S_ISREG(st.st_mode):
        raise InvalidField("path", "path is not a regular file (a folder, device or pipe).")
    return real, st


def read_checked(real: str, expected: os.stat_result, limit: int) -> bytes:
    """Open `real` without following links and read it only if it is still the file whose
    stat `expected` the checks saw (same device and inode, a regular file); at most
    limit + 1 bytes are read, so a file over the limit is refused without reading it all."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_BINARY", 0)
    changed = InvalidField("path", "The file changed while it was being checked: try again.")
    try:
        fd = os.open(real, flags)
    except OSError:
        raise changed from None
    with os.fdopen(fd, "rb", buffering=0) as handle:
        st = os.fstat(fd)
        same = (st.st_dev, st.st_ino) == (expected.st_dev, expected.st_ino)
        if not same or not stat.S_ISREG(st.st_mode):
            raise changed
        if st.st_size > limit:
            raise too_big(st.st_size, limit, "The file")
        chunks, left = [], limit + 1
        while left > 0 and (chunk := handle.read(min(left, MB))):
            chunks.append(chunk)
            left -= len(chunk)
    data = b"".join(chunks)
    if len(data) > limit:
        raise too_big(len(data), limit, "The file")
    return data


def read_path(path: str, repo_path: str) -> bytes:
    """The bytes of the file at `path`, after every check; InvalidField otherwise."""
    real, st = checked_path(path, repo_path)
    limit = file_limit()
    if st.st_size > limit:
        raise too_big(st.st_size, limit, "The file")
    return read_checked(real, st, limit)


def display_name(path: str) -> str:
    """The last part of `path` for display only: never used on disk."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(c for c in name if c.isprintable())[:255]
