"""The server process's heap, kept small and quiet for a server that runs for weeks.

Two habits of CPython on glibc show in a long soak. The cyclic collector's full passes walk
every object ever made, and most of them — Django, the MCP SDK, pydantic's schemas — were
made at start and live for ever: such a pass paused one write in forty by ~100 ms in the
SSE fan-out bench. And glibc keeps freed memory in each thread's arena instead of handing
it back, so the resident size crept up as the worker threads came and went; and a thread
that finds the arenas busy gets one of its own (up to eight per CPU), each with its own
free pages — two arenas cost the soak 8 MiB less. `limit_arenas` runs first thing in
serve, before any thread; `settle` runs once before serving; `trim` runs with the minute's
sweep (relaybay_site/asgi.py). The figures are in bench/README.md (Soak).
"""

from __future__ import annotations

import ctypes
import gc
import sys
from typing import Any


def _glibc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # musl or another C library: nothing to trim
        return None
    return libc if hasattr(libc, "malloc_trim") else None


_LIBC = _glibc()
_M_ARENA_MAX = -8  # glibc's malloc.h
ARENAS = 2


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Let the threads share `arenas` malloc arenas instead of one each (glibc makes up to
    eight per CPU); the GIL serialises their allocations anyway. Call before threads start:
    arenas made earlier stay. False where the C library has no such setting."""
    if _LIBC is None or not hasattr(_LIBC, "mallopt"):
        return False
    return bool(_LIBC.mallopt(_M_ARENA_MAX, arenas))


def settle() -> None:
    """Move everything made at start out of the collector's sight (gc.freeze), so a full
    collection walks what the requests made, not the frameworks."""
    gc.collect()
    gc.freeze()


def trim() -> bool:
    """Hand freed heap pages back to the system; False where the C library cannot."""
    if _LIBC is None:
        return False
    _LIBC.malloc_trim(0)
    return True
