"""Django's clock set back for a block of writes.

The demo's scenes and the benches' seeded histories are written through the real services,
which stamp every row with django.utils.timezone.now(): setting that clock back is how a
history of days or a year is made without writing a timestamp by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, tzinfo

from django.utils import timezone


@contextmanager
def set_back(shift: timedelta) -> Iterator[None]:
    """timezone.now() — which the services and the models' defaults read — `shift` in the
    past and running on from there while the block runs; the real clock after (nested blocks
    put back the one they found)."""
    real = timezone.datetime

    class Then(real):  # type: ignore[misc, valid-type]
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> datetime:
            return real.now(tz) - shift

    timezone.datetime = Then
    try:
        yield
    finally:
        timezone.datetime = real
