"""The one write path of the environments app (docs/architecture.md §1, §3).

stands.py: the owner's writes on the Stands & access page; proposals.py: agents'
proposals, the owner's decisions and the page's check of what accepting one would do;
_steps.py: what they share (a board write and an accepted proposal go through the same
steps), of which the page reads a stand's effective policy and whether it may hold test
secrets. Every public service is one durable transaction, except live_action_record, which
appends its event in the hook's transaction (journal.py). The proposal mechanics every
app shares (AlreadyDecided, NeedsConfirmation) are tasks/proposals.py.
"""

from environments.services._steps import Change, environment_policy, test_secrets_allowed
from environments.services.journal import live_action_record
from environments.services.proposals import (
    environment_proposal_accept,
    environment_proposal_check,
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
from tasks.proposals import AlreadyDecided, NeedsConfirmation

__all__ = [
    "AlreadyDecided",
    "Change",
    "NeedsConfirmation",
    "access_add",
    "access_remove",
    "access_update",
    "environment_delete",
    "environment_policy",
    "environment_proposal_accept",
    "environment_proposal_check",
    "environment_proposal_reject",
    "environment_propose",
    "environment_save",
    "live_action_record",
    "test_secrets_allowed",
]
