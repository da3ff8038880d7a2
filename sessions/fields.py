"""The rules of session identity values: desktop ids, names, titles, hook session ids (§1).

`""` and `"-"` mean "not given" for all of them (models cannot always send an empty string).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from core.errors import InvalidField
from environments.secrets import safe_text
from sessions.models import AGENT_ID_MAX, KIND_DESKTOP, KIND_NAMED, NAME_MAX, TITLE_MAX

_LOCAL_ID = re.compile(
    r"local_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.IGNORECASE
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_AGENT_ID = re.compile(rf"[A-Za-z0-9._:-]{{1,{AGENT_ID_MAX}}}")


def valid_agent_session_id(value: object) -> bool:
    """An agent's session id as hooks send it (Claude Code's session_id, a thread id)."""
    return isinstance(value, str) and _AGENT_ID.fullmatch(value) is not None


def stored_agent_id(value: str) -> str:
    """An agent's session id as relaybay keeps it: itself, or — when it holds a secret's
    shape (an id is an observation: masked, never refused, docs/policy.md) — a stable
    stand-in, `masked-<digest>`, so every hook event, MCP call (_meta.sessionId) and wait of
    that session still finds the same row. The SessionStart line hands the agent this."""
    if not value or safe_text(value) == value:
        return value
    return MASKED_ID_PREFIX + hashlib.sha256(value.encode()).hexdigest()[:24]


MASKED_ID_PREFIX = "masked-"


def desktop_id(value: object) -> str | None:
    """local_<uuid> (any case, spaces around) as the stored desktop id, else None."""
    if not isinstance(value, str):
        return None
    match = _LOCAL_ID.fullmatch(value.strip())
    return None if match is None else "local_" + match.group(1).lower()


def given(value: str | None) -> str | None:
    """Identity parameters: "" and "-" mean "not given" (models cannot always send "")."""
    text = (value or "").strip()
    return None if text in ("", "-") else text


@dataclass(frozen=True)
class Ident:
    kind: str  # desktop or named
    name: str


def parse_session(value: str | None, field_name: str = "session") -> Ident | None:
    """A local_<uuid> desktop id or a plain name; None when nothing was passed."""
    text = given(value)
    if text is None:
        return None
    if text[:6].lower() == "local_":
        match = _LOCAL_ID.fullmatch(text)
        if match is None:
            raise InvalidField(
                field_name,
                f"'{text[:60]}' is not a Claude desktop session id: it must be local_ followed "
                "by a UUID (local_1b4e28ba-2fa1-11d2-883f-0016d3cca427). Pass your desktop "
                "session id exactly as the app gives it, or a plain name without local_.",
            )
        desktop_id = "local_" + match.group(1).lower()
        return Ident(KIND_DESKTOP, desktop_id)
    if len(text) > NAME_MAX:
        raise InvalidField(
            field_name,
            f"Session names are at most {NAME_MAX} characters (this one has {len(text)}). "
            "Pass a shorter name.",
        )
    if _CONTROL.search(text):
        raise InvalidField(
            field_name,
            "Session names cannot contain control characters (new lines, tabs …). "
            "Pass the name on one line.",
        )
    return Ident(KIND_NAMED, text)


def parse_title(value: str | None) -> str | None:
    text = given(value)
    if text is None:
        return None
    if len(text) > TITLE_MAX:
        raise InvalidField(
            "session_title",
            f"session_title is at most {TITLE_MAX} characters (this one has {len(text)}). "
            "Pass a shorter title.",
        )
    if _CONTROL.search(text):
        raise InvalidField(
            "session_title",
            "session_title cannot contain control characters (new lines, tabs …). "
            "Pass the title on one line.",
        )
    return text


def parse_hook_session(value: str | None) -> str | None:
    text = given(value)
    if text is None:
        return None
    if not _AGENT_ID.fullmatch(text):
        raise InvalidField(
            "hook_session",
            f"hook_session '{text[:60]}' is not a Claude Code session id. Pass it exactly as "
            "the line 'Your relaybay hook session: <id>' gave it, or leave hook_session out.",
        )
    return text
