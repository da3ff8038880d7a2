"""The one write path of the tasks app (docs/architecture.md §1, §3).

Every public service here is keyword-only, runs as one durable `transaction.atomic()`
(so a public service called inside another's transaction fails loudly), validates,
writes, appends its events with `record_event` in the same transaction and returns an
`Outcome`. Services never call each other; shared steps are private helpers. The steps
other apps run inside their own service's transaction are named `*_step`
(`owner_comment_step`, `plan_status_step`); `comments_deliver` runs in the hook's
transaction when a hook delivers, so it is the one service that is not durable.

Common conventions:
- `actor` is the display name of who writes (owner, a session, board, hook);
- an optional parameter left at None is "not given" and changes nothing;
- "-" or "" clears an optional text field;
- a write that changes nothing is a no-op: no version bump, no event;
- failures raise core.errors.DomainError subclasses whose message says what to do.
"""

from tasks.services._common import Outcome
from tasks.services._taskwrite import dev_hint, plan_status_step
from tasks.services.comments import (
    comment_ack,
    comment_add,
    comment_replies_read,
    comments_deliver,
    owner_comment_add,
    owner_comment_step,
)
from tasks.services.decisions import decision_add
from tasks.services.projects import project_upsert, set_project_rules
from tasks.services.reports import ReportHead, parse_first_line, report_add, report_summary
from tasks.services.tasks import task_create, task_patch, task_set_stage, task_update

__all__ = [
    "Outcome",
    "ReportHead",
    "comment_ack",
    "comment_add",
    "comment_replies_read",
    "comments_deliver",
    "decision_add",
    "dev_hint",
    "owner_comment_add",
    "owner_comment_step",
    "parse_first_line",
    "plan_status_step",
    "project_upsert",
    "report_add",
    "report_summary",
    "set_project_rules",
    "task_create",
    "task_patch",
    "task_set_stage",
    "task_update",
]
