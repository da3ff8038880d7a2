"""The one write path of the reviews app (docs/architecture.md §1, §3): the Owner check
(steps.py) and its screenshots (attachments.py). Each public service is one durable
`transaction.atomic()` that resolves its caller, validates, writes and records its events;
the tools and views find them here by name.
"""

from reviews.services.attachments import attach_file, attachment_caption, attachment_remove
from reviews.services.steps import review_step_decide, review_step_update, review_steps_set

__all__ = [
    "attach_file",
    "attachment_caption",
    "attachment_remove",
    "review_step_decide",
    "review_step_update",
    "review_steps_set",
]
