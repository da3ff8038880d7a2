"""core.clock: the demo's scenes and the benches' histories are stamped through it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.clock import set_back


def test_the_clock_is_set_back_while_the_block_runs_and_put_back_after() -> None:
    real = timezone.datetime
    before = timezone.now()
    with set_back(timedelta(days=3)):
        then = timezone.now()
        with set_back(timedelta(days=1)):  # nested: a day before the set-back clock
            assert abs(timezone.now() - (before - timedelta(days=4))) < timedelta(seconds=5)
        assert abs(timezone.now() - then) < timedelta(seconds=5)
    assert abs(then - (before - timedelta(days=3))) < timedelta(seconds=5)
    assert timezone.datetime is real
    assert abs(timezone.now() - before) < timedelta(seconds=5)


def test_the_real_clock_comes_back_after_an_error() -> None:
    real = timezone.datetime
    with pytest.raises(RuntimeError), set_back(timedelta(hours=2)):
        raise RuntimeError("a seed step failed")
    assert timezone.datetime is real
