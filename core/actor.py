"""Who made a change: shown in the event log and Activity, never used for authorisation."""

OWNER = "owner"
BOARD = "board"
HOOK = "hook"
SYSTEM = "relaybay"


def agent(session_name: str | None) -> str:
    """An agent write is attributed to the session it names (display only, §1)."""
    return session_name.strip() if session_name and session_name.strip() else "agent"
