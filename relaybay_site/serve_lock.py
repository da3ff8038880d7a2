"""One `relaybay serve` per data folder, and the listening socket taken before any work.

Two servers on one data folder each have their own live bus, so a board open on one never
sees writes made through the other, and a second start that failed later (say, on a taken
port) had already run the start-up clean-up and deleted screenshots the first server had
just written. So `serve` first takes an exclusive lock on `<data folder>/serve.lock` — an
operating-system lock, released when the process dies however it dies, so a crash never
leaves a stale lock — then binds its port, and only then migrates and sweeps. Either
refusal is one line and a non-zero exit, with nothing in the data folder touched.
"""

from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path

LOCK_NAME = "serve.lock"


class StartRefused(Exception):
    """Why this server cannot start; the message is the one line the user reads."""


@dataclass
class FolderLock:
    """The held lock; `record` writes who holds it for the next start's message."""

    path: Path
    fd: int

    def record(self, *, pid: int, what: str) -> None:
        """`what` is the server's base URL, or what else holds the folder (the demo)."""
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{pid} {what}\n".encode(), 0)

    def release(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


def _try_lock(fd: int) -> bool:
    if os.name == "nt":  # pragma: no cover - Windows
        import msvcrt

        os.lseek(fd, 1 << 30, os.SEEK_SET)  # lock a byte far past the text, which stays readable
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _holder(fd: int) -> str:
    """`PID 123, http://127.0.0.1:8765` from the lock file, or a plain word if unreadable."""
    try:
        text = os.pread(fd, 300, 0).decode("utf-8", "replace").strip().split(" ", 1)
    except OSError:
        text = []
    if len(text) == 2 and text[0].isdigit():
        return f"PID {text[0]}, {text[1]}"
    return "still starting"


def lock_data_folder(home: Path) -> FolderLock:
    """Take the data folder's lock, or refuse naming the server that holds it.

    Opening the file neither truncates nor writes it: a refused start changes nothing.
    """
    path = home / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    if not _try_lock(fd):
        holder = _holder(fd)
        os.close(fd)
        raise StartRefused(
            f"another relaybay serve ({holder}) already uses the data folder {home}; "
            "use that one, stop it first, or start this one with another --home."
        )
    return FolderLock(path, fd)


def hold_port(host: str, port: int) -> socket.socket:
    """A socket bound to host:port while the start works, or refuse naming the port.

    Closed just before daphne binds the same address (Twisted 26 can no longer adopt a
    socket from a daphne endpoint string); daphne's own failure is reported the same way.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE
        )[0]
    except OSError as exc:
        raise StartRefused(f"cannot listen on {host}: {exc.strerror or exc}.") from None
    sock = socket.socket(family, kind, proto)
    try:
        if os.name != "nt":  # a restart right after a stop must not wait for TIME_WAIT
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise port_refusal(host, port, exc.strerror or str(exc)) from None
    return sock


def port_refusal(host: str, port: int, why: str) -> StartRefused:
    return StartRefused(
        f"cannot listen on port {port} of {host}: {why}. "
        "Stop what uses that port, or pick another with --port."
    )
