"""Heap facts of a served process every 30 s, for `bench/soak.py --heap-log FILE`.

Python imports this folder's `sitecustomize` at start when the folder is on PYTHONPATH; in a
`relaybay serve` with HEAPWATCH_LOG set, a daemon thread appends one line per period with
what separates a leak from a heap that fragments: Python's allocated blocks and tracked
objects (a leak of Python objects grows them), glibc's main arena (in use and free,
mallinfo2) and SQLite's own total (sqlite3_memory_used). Investigation only: the product
never loads it.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading
import time

LOG = os.environ.get("HEAPWATCH_LOG")


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _line(started: float) -> str:
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    sqlite = ctypes.CDLL("libsqlite3.so.0")
    sqlite.sqlite3_memory_used.restype = ctypes.c_int64
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
    m, mib = libc.mallinfo2(), 2**20
    return (
        f"{time.monotonic() - started:5.0f}s rss {rss:.1f} MiB | python blocks "
        f"{sys.getallocatedblocks()} objects {len(gc.get_objects())} | threads "
        f"{threading.active_count()} | main arena {m.arena / mib:.1f} MiB: in use "
        f"{m.uordblks / mib:.1f}, free {m.fordblks / mib:.1f} | mmapped {m.hblkhd / mib:.1f} | "
        f"sqlite {sqlite.sqlite3_memory_used() / mib:.1f} MiB\n"
    )


def _watch() -> None:
    started = time.monotonic()
    while True:
        time.sleep(30)
        with open(LOG, "a") as log:  # type: ignore[arg-type]
            log.write(_line(started))


if LOG and "serve" in sys.argv:
    threading.Thread(target=_watch, name="heapwatch", daemon=True).start()
