"""The token (§9.4) and everything derived from it: token_id, board cookie, CSRF token.

The token file is the only secret. Everything else is an HMAC of it, so rotating the
token invalidates every cookie and CSRF token at once and nothing else needs storing.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import stat
import tempfile
from functools import cache
from pathlib import Path

from core.caches import kept

log = logging.getLogger("relaybay.tokens")
TOKEN_FILE = "token"  # noqa: S105 - a file name, not a secret


def token_path(home: Path) -> Path:
    return home / TOKEN_FILE


def read_token(home: Path) -> str | None:
    """The token, or None when there is no (non-empty) token file. Never creates one."""
    try:
        text = token_path(home).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return text or None


def write_token_atomically(path: Path, token: str) -> None:
    """Write via a 0600 temp file in the same folder and rename, so no reader sees half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".token-", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(token + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def new_token() -> str:
    return secrets.token_urlsafe(32)


def ensure_token(home: Path) -> str:
    """Read the token, creating it on first start; warn when others can read the file."""
    token = read_token(home)
    if token is None:
        token = new_token()
        write_token_atomically(token_path(home), token)
        log.info("created a new token in %s", token_path(home))
    warn_if_readable(token_path(home))
    return token


def rotate_token(home: Path) -> str:
    token = new_token()
    write_token_atomically(token_path(home), token)
    return token


def warn_if_readable(path: Path) -> bool:
    """True (and a logged warning) when group or others may read the token file."""
    if os.name != "posix":
        return False
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning(
            "%s is readable by other users (mode %o); run chmod 600 on it", path, stat.S_IMODE(mode)
        )
        return True
    return False


def _derive(token: str, purpose: str) -> str:
    return hmac.new(token.encode(), purpose.encode(), hashlib.sha256).hexdigest()


@kept("the token", bound="one per token (a rotation adds one)")
@cache
def token_id(token: str) -> str:
    """12 hex digits that identify the token without revealing it (/healthz, doctor)."""
    return _derive(token, "relaybay token id")[:12]


@kept("the token", bound="one per token (a rotation adds one)")
@cache
def cookie_value(token: str) -> str:
    return _derive(token, "relaybay board cookie")


@kept("the token", bound="one per token (a rotation adds one)")
@cache
def csrf_token(token: str) -> str:
    return _derive(token, "relaybay csrf")[:40]


def sign(token: str, purpose: str, data: str) -> str:
    """A MAC of `data` under a key derived from the token (the flash cookie)."""
    key = _derive(token, purpose).encode()
    return hmac.new(key, data.encode(), hashlib.sha256).hexdigest()[:32]


def same(a: str | None, b: str) -> bool:
    """Constant-time comparison that tolerates a missing value."""
    return a is not None and hmac.compare_digest(a.encode(), b.encode())
