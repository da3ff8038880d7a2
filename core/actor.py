"""Who made a change: shown in the event log and Activity, never used for authorisation."""

OWNER = "owner"
BOARD = "board"
HOOK = "hook"
SYSTEM = "relaybay"


def agent(session_name: str | None) -> str:
    """An agent write is attributed to the session it names (display only, §1)."""
    return session_name.strip() if session_name and session_name.strip() else "agent"


def is_owner(actor: object) -> bool:
    """The owner's own writes (the board, the owner's commands), which rules for agents —
    owner-only stages — never stop. Agents' writes come as a CallerRef or their name."""
    return actor in (OWNER, BOARD)
