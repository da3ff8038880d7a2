"""The server process's heap, kept small and quiet for a server that runs for weeks (issue 18).

Two habits of CPython on glibc show in a long soak. The cyclic collector's full passes walk
every object ever made, and most of them — Django, the MCP SDK, pydantic's schemas — were
made at start and live for ever: such a pass paused one write in forty by ~100 ms in the
SSE fan-out bench. And glibc keeps freed memory in each thread's arena instead of handing
it back, so the resident size crept up as the worker threads came and went. `settle` runs
once before serving; `trim` runs with the minute's sweep (relaybay_site/asgi.py).
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
