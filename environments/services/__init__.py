"""The one write path of the environments app (docs/architecture.md §1, §3).

stands.py: the owner's writes on the Stands & access page; proposals.py: agents'
proposals and the owner's decisions; _steps.py: what they share (a board write and an
accepted proposal go through the same steps).
"""

from environments.services._steps import Change, NeedsConfirmation
from environments.services.journal import live_action_record
from environments.services.proposals import (
    AlreadyDecided,
    environment_proposal_accept,
    environment_proposal_reject,
    environment_propose,
)
from environments.services.stands import (
    access_add,
    access_remove,
    access_update,
    environment_delete,
    environment_save,
)

__all__ = [
    "AlreadyDecided",
    "Change",
    "NeedsConfirmation",
    "access_add",
    "access_remove",
    "access_update",
    "environment_delete",
    "environment_proposal_accept",
    "environment_proposal_reject",
    "environment_propose",
    "environment_save",
    "live_action_record",
]
