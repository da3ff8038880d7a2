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


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt only")
def test_the_arenas_can_be_limited_on_glibc():
    assert heap.limit_arenas() is True


def test_serve_settles_the_heap_before_serving_and_the_sweep_trims_it():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    serve = (root / "relaybay_site/management/commands/serve.py").read_text()
    assert serve.index("heap.limit_arenas()") < serve.index("self._migrate()")
    assert serve.index("heap.settle()") < serve.index("server.run()")
    assert "heap.trim()" in (root / "relaybay_site/asgi.py").read_text()


@pytest.mark.django_db
def test_every_database_connection_keeps_a_small_page_cache():
    """SQLite's default 2 MiB per connection filled slowly in a soak and fragmented the heap
    around it (bench/README.md, Soak); 256 KiB kept RSS flat at the same speed."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        assert cursor.fetchone()[0] == -256
