"""The one write path of the project memory (§8; docs/architecture.md §1, §3): documents,
blocks and notes. Each public service is one `transaction.atomic()` that resolves its
caller, validates (the value rules, the secret scan, the base version), writes and records
its event.
"""

from memory.services.blocks import BlockResult, block_set
from memory.services.documents import DocResult, doc_update
from memory.services.notes import Candidate, NoteOutcome, memory_add, memory_get, memory_update

__all__ = [
    "BlockResult",
    "Candidate",
    "DocResult",
    "NoteOutcome",
    "block_set",
    "doc_update",
    "memory_add",
    "memory_get",
    "memory_update",
]
