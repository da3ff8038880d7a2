"""The one write path of the project memory (§8): documents and blocks.

Each public service is one `transaction.atomic()` that resolves its caller, validates (the
value rules, the secret scan, the base version), writes and records its event.
"""

from memory.services.blocks import BlockResult, block_set
from memory.services.documents import DocResult, doc_update

__all__ = ["BlockResult", "DocResult", "block_set", "doc_update"]
