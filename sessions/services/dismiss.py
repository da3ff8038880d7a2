"""The owner dismisses a forgotten session: it is marked ended.

A session idle for a day, or working with no task, that the owner knows about leaves the
Inbox's "Forgotten sessions". Nothing is deleted: its status becomes ended with the
activity "dismissed by the owner", and session.status_changed is recorded for its bound
tasks as for any status change. Its next hook event, if it ever comes, brings it back.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from core.errors import NotFound
from sessions.models import ENDED, Session
from sessions.services._steps import _status_events
from sessions.services.collisions import forget_paths_step

DISMISSED = "dismissed by the owner"


def session_dismiss(*, session_id: int, actor: str) -> Session:
    """Mark a session ended as the owner's dismissal. Raises NotFound."""
    with transaction.atomic(durable=True):
        session = Session.objects.filter(pk=session_id).first()
        if session is None:
            raise NotFound(f"No session #{session_id}: it may have been removed.")
        before = session.hook_status
        session.hook_status = ENDED
        session.activity = DISMISSED
        session.activity_at = timezone.now()
        session.save(update_fields=["hook_status", "activity", "activity_at"])
        if before != ENDED:
            _status_events(session, before, actor)
        forget_paths_step(session)
        return session
