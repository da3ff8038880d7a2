"""docs/policy.md's sections on what is refused and what is masked, and on the guard that
never fails open — from the observations table (sessions/hooks/observed.py OBSERVED) and the
functions that do it, named from the code."""

from __future__ import annotations

from core import no_secrets
from environments import secret_door, secrets
from relaybay_site.docgen.common import cell
from sessions.hooks import answer, observed


def render() -> list[str]:
    """The two sections, in the order docs/policy.md shows them."""
    rows = [f"| {cell(what)} | {cell(kept)} |" for what, kept in observed.OBSERVED]
    return [
        "## Written: refused. Observed: masked, never refused",
        "",
        "relaybay tells apart what somebody *writes* and what it *observes*:",
        "",
        f"- **Writes are refused.** What a person or an agent deliberately writes — an MCP "
        "write, a board form — meets the detectors at the write door "
        f"(`{secret_door.__name__}.{secret_door.refuse.__name__}`, above) and a secret is "
        "refused with the field and the detector named, never the value, and nothing is "
        "stored.",
        f"- **Observations are masked.** What relaybay only observes is kept with every spot "
        f"of the same table masked with `{secrets.MASK}` (`{secrets.__name__}."
        f"{secrets.safe_text.__name__}`, the journal's table, keys and `name=value` "
        "assignments included), and every stored test secret value masked too. A folder "
        "named `sk-…-fix-login` or a notification holding `PGPASSWORD=…` is kept masked; "
        "it is never a reason to refuse, and never costs a hook its answer:",
        "",
        "| Observed | What is kept, masked |",
        "| --- | --- |",
        *rows,
        "",
        f"- **The last line is a net.** `{no_secrets.__name__}` still refuses a token shape "
        "in any write no door let through; what the door's policy let through is allowed "
        "for that transaction only (forgotten when it commits or rolls back). A refusal "
        "there inside a hook's bookkeeping is a bug: the hook logs it as one line and "
        "answers all the same.",
        "",
        "## The guard never fails open",
        "",
        "A hook decides first and stores second. On a PreToolUse the guard is the answer's "
        f"decider (`{answer.__name__}.{answer.register_decider.__name__}`): it reads the "
        "call as it came, before anything of the event is stored, sets the deny or ask, and "
        "only then writes its `live.action` journal entry; the session's bookkeeping (the "
        "link, the status, the todo) runs after it in a savepoint of its own. When the "
        "bookkeeping or the journal fails — the database locked, a bug — that is one log "
        "line, and the guard's answer, the owner comments and the Stop block still go out. "
        "Where the guard cannot read a call whole it fails closed (an `ask`, or `log` in log "
        "mode, journaled): past 200 command segments, past the nested scripts it reads, and "
        "past the size or the number of values it reads of an MCP tool's input. A guard "
        "error (a bug in the guard itself) is logged and the call goes on (§7).",
        "",
    ]
