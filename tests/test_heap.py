"""core.heap: what serve does to its own heap before serving and once a minute (issue 18)."""

from __future__ import annotations

import gc
import platform

import pytest

from core import heap


def test_settle_moves_what_exists_out_of_the_collectors_passes():
    made_at_start = [object() for _ in range(10)]  # noqa: F841 - alive through the freeze
    try:
        heap.settle()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()  # the test process keeps its usual collector


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc_trim only")
def test_trim_hands_pages_back_on_glibc():
    assert heap.trim() is True


def test_serve_settles_the_heap_before_serving_and_the_sweep_trims_it():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    serve = (root / "relaybay_site/management/commands/serve.py").read_text()
    assert serve.index("heap.settle()") < serve.index("server.run()")
    assert "heap.trim()" in (root / "relaybay_site/asgi.py").read_text()
