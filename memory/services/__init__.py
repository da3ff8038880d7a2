"""The writes of the project memory (§8; docs/architecture.md §1, §3): one service per
operation, named like its MCP tool, each one transaction with its events."""

from memory.services.notes import Candidate, NoteOutcome, memory_add, memory_get, memory_update

__all__ = ["Candidate", "NoteOutcome", "memory_add", "memory_get", "memory_update"]
