"""The guard's decision for one tool call (§7 Guard, PreToolUse).

decide() reads the call (a shell command, or every string of an MCP tool's input), finds the
environments it names, and for each asks: which rules agree with what was named, how
strict is the level they meet, and what does the environment's guard mode make of that.
The hook answers with the strongest decision; the journal records every touch of a live
environment. No database and no settings: the caller passes the environments as
StandRules and turns the Verdict into the hook's answer and the live.action events.

Names and rules are paired across the whole call, not per segment:
`kubectl config use-context prod && kubectl delete pod x` names prod in one segment and
deletes in the next, and the guard cannot tell which host a change elsewhere reaches, so
it stays careful.

A call the guard cannot read whole — more than 200 command segments (§7), nested scripts
(bash -c, eval, ssh, here-documents, $( … )) past what commands.Budget reads, or a call
cut at a cap of reading.py (a command past its first 8 KB, an MCP input past 8 KB of text
or MAX_INPUT_NODES values) — fails closed: what was not read may hold a change, so each
environment the call mentions at all, in its whole text (the same substring test that
decides whether a call is read; an environment whose name does not occur cannot be
touched however the text is read) whose guard is on and whose levels for those names are
not all full gets `ask` (`log` in log mode), journaled like any touch. Calls that mention
no environment, and calls read whole, are decided as before.

What the call's text is, and what the journal keeps of it, is reading.py's.

A bug here raises: the hook logs it and lets the call go on (§7: a guard error never stops
an agent), which beats hiding the error behind an answer nobody chose.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from environments.guard.commands import Budget, invocations
from environments.guard.identifiers import (
    MAX_IDENTIFIERS,
    MIN_LENGTH,
    Identifier,
    Names,
    mentions_any,
    unquoted,
)
from environments.guard.reading import (
    CUT_COMMAND,
    CUT_INPUT,
    MAX_INPUT_NODES,
    MCP,
    OWN_SERVER,
    READ_LIMIT,
    Call,
    CallText,
    read_call,
)
from environments.guard.rules import (
    CustomRule,
    PatternSearch,
    Rule,
    builtin_matches,
    custom_rules,
)
from environments.guard.shell import MAX_SEGMENTS, read_segments
from environments.guard.stand import StandRules
from environments.secrets import mask
from policy.catalog import LEVELS

DECISIONS = ("allow", "log", "warn", "ask", "deny")  # weakest to strongest
_RANK = {decision: rank for rank, decision in enumerate(DECISIONS)}
_STRICTNESS = {level: rank for rank, level in enumerate(LEVELS)}  # none 0 … full 3

# Which rules count for which identifiers (§7): ssh → ssh, kubectl → kubectl, db → db,
# gitops → deploy; the base_url host (capability "") and rules of no capability (MCP tool
# names, custom patterns without one) take any. A kubectl context also takes deploy rules:
# helm deploys into the context it names (helm upgrade … --kube-context prod).
_AGREES = {
    "ssh": frozenset({"ssh"}),
    "kubectl": frozenset({"kubectl", "deploy"}),
    "db": frozenset({"db"}),
    "deploy": frozenset({"deploy"}),
}


@dataclass(frozen=True)
class Touch:
    """What the call does to one environment it names."""

    project: str
    environment: str
    kind: str
    decision: str  # "allow" (nothing), "log", "warn", "ask", "deny"
    level: str  # the level that decided
    rule: str  # rule id ("" when none matched)
    identifier: str  # what matched
    reason: str  # the §7 reason sentence ("" for allow); warn ends " (warn mode: not blocked)"


@dataclass(frozen=True)
class Verdict:
    """The guard's answer for one tool call."""

    touches: tuple[Touch, ...]  # one per touched environment whose guard is not off
    decision: str  # the strongest of the touches' (deny > ask > warn > log > allow)
    reason: str  # the strongest touch's reason ("" for allow and log)
    command: str  # the text read (its first 8 KB), not masked
    # What the journal reads instead of `command` when set: an MCP input's key: value lines.
    journal: str = field(default="", compare=False, repr=False)

    def journal_command(self, test_values: Iterable[str] = ()) -> str:
        """The command as the journal keeps it: whitespace collapsed, secrets (an MCP
        input's keyed ones too) and the given test values masked, at most 200 characters."""
        return mask(self.journal or self.command, test_values=test_values)


def decide(
    call: Call,
    stands: Sequence[StandRules],
    *,
    own_server: str = OWN_SERVER,
    text: str | None = None,
) -> Verdict:
    """The guard's verdict on one tool call against the environments it may touch: those of
    the session's project and its bound tasks' (the caller chooses them). `text`: what
    read_call returned for this call (the hook reads it first to know whether to load the
    stands at all), so it is read once; a plain str is read again."""
    if not isinstance(text, CallText):
        text = read_call(call, own_server=own_server)
    if text is None:
        return Verdict((), "allow", "", "")
    read, journal = str(text), text.journal
    active = [(stand, _usable(stand.identifiers)) for stand in stands if stand.mode != "off"]
    low = read.lower()
    plain = unquoted(low)
    mentioned = unquoted(text.whole.lower()) if text.cut else plain  # what the call names
    if not any(mentions_any(mentioned, usable) for _, usable in active):
        return Verdict((), "allow", "", read, journal)  # no environment's name occurs
    reading = _Reading(call.tool if call.kind == MCP else None, read, low)
    unread = reading.unread or text.cut
    touches = []
    for stand, usable in active:
        touch = _touch(stand, usable, reading)
        if unread:
            touch = _failed_closed(touch, stand, usable, mentioned, unread)
        if touch is not None:
            touches.append(touch)
    if not touches:
        return Verdict((), "allow", "", read, journal)
    strongest = max(touches, key=lambda touch: _RANK[touch.decision])  # the first of equals
    shown = strongest.reason if strongest.decision in ("warn", "ask", "deny") else ""
    return Verdict(tuple(touches), strongest.decision, shown, read, journal)


class _Reading:
    """One call read once for every environment: its segments, the commands they run, the
    names they mention; the rules it matches, found only when an environment is touched."""

    def __init__(self, mcp_tool: str | None, text: str, low: str) -> None:
        self.mcp_tool = mcp_tool  # an MCP call's tool name; None for a shell command
        self.segments, complete = read_segments(text)
        budget = Budget()
        self.calls = [call for s in self.segments for call in invocations(s, budget)]
        # Why the call was not read whole ("" when it was): past the cap, or nested.
        self.unread = "segments" if not complete else "nested" if budget.unread else ""
        # An MCP input's value that is a name alone ({"context": "prod"}) stands where a
        # host is expected, like the value of --context.
        lines = low.splitlines() if self.mcp_tool else ()
        self.names = Names(low, self.calls, lines)
        self.patterns = PatternSearch(text, self.segments)
        self._builtin: tuple[Rule, ...] | None = None

    def rules_for(self, stand: StandRules) -> list[Rule | CustomRule]:
        """The rules the call matches that count on this stand, built-in ones first."""
        if self._builtin is None:
            self._builtin = builtin_matches(self.calls, self.segments, self.mcp_tool)
        found: list[Rule | CustomRule] = [r for r in self._builtin if r.id not in stand.disabled]
        found += [r for r in custom_rules(stand.patterns) if self.patterns.matches(r)]
        return found


def _usable(identifiers: Sequence[Identifier]) -> list[Identifier]:
    """§7: identifiers of 3 characters or more, at most 50 per environment."""
    return [i for i in identifiers if len(i.text) >= MIN_LENGTH][:MAX_IDENTIFIERS]


def _touch(stand: StandRules, usable: list[Identifier], call: _Reading) -> Touch | None:
    """The strongest decision over the identifiers of the stand that the call names."""
    named = [identifier for identifier in usable if call.names.name(identifier)]
    if not named:
        return None
    rules = call.rules_for(stand)
    by_capability: dict[str, tuple[str, Rule | CustomRule | None]] = {}
    best: tuple[tuple[int, bool, int], Touch] | None = None
    for order, identifier in enumerate(named):
        if identifier.capability not in by_capability:  # the level depends on nothing else
            by_capability[identifier.capability] = _level(stand.levels, identifier, rules)
        level, rule = by_capability[identifier.capability]
        decision = _decision(level, rule is not None, stand.mode)
        key = (_RANK[decision], rule is not None, -order)
        if best is None or key > best[0]:
            touch = Touch(
                project=stand.project,
                environment=stand.environment,
                kind=stand.kind,
                decision=decision,
                level=level,
                rule=rule.id if rule else "",
                identifier=identifier.text,
                reason=_reason(stand, level, rule, identifier.text, decision),
            )
            best = (key, touch)
    return best[1] if best else None


def _failed_closed(
    touch: Touch | None, stand: StandRules, usable: list[Identifier], plain: str, why: str
) -> Touch | None:
    """A call the guard could not read whole: `ask` (`log` in log mode) for the stand when
    the call mentions one of its identifiers and the strictest level a rule could meet
    through them is not full, unless what was read decided as much or more already."""
    decision = "log" if stand.mode == "log" else "ask"
    if touch is not None and _RANK[touch.decision] >= _RANK[decision]:
        return touch
    named, level = "", "full"
    reached: set[str] = set()  # capabilities whose level is counted: one test each
    for identifier in usable:
        if identifier.capability in reached or not mentions_any(plain, (identifier,)):
            continue
        reached.add(identifier.capability)
        named = named or identifier.text
        level = min(level, _reachable(stand.levels, identifier), key=_STRICTNESS.__getitem__)
    if not named or level == "full":
        return touch
    where = f"{stand.project} {stand.environment} ({stand.kind})"
    reason = (
        f"relaybay guard: {_UNREAD[why]}, so the guard could not read all of it, and it "
        f"names {where} (matched '{named}'); the owner decides. "
        f"Split it into {'smaller calls' if why == CUT_INPUT else 'shorter commands'} to have "
        "it checked."
    )
    return Touch(stand.project, stand.environment, stand.kind, decision, level, "", named, reason)


# Why a call was not read whole (_Reading.unread, CallText.cut), as its reason says it.
_UNREAD = {
    "segments": f"this command has more than {MAX_SEGMENTS} command segments",
    "nested": "this command nests more scripts (bash -c, eval, ssh, $( … )) than the guard reads",
    CUT_COMMAND: f"this command is longer than the {READ_LIMIT // 1024} KB the guard reads",
    CUT_INPUT: (
        f"this call's input is larger than the guard reads ({READ_LIMIT // 1024} KB of text, "
        f"{MAX_INPUT_NODES:,} values)"
    ),
}


def _reachable(levels: Mapping[str, str], identifier: Identifier) -> str:
    """The strictest level a rule could meet through this identifier (_level's choices):
    its own capability's and those of the rules that agree with it, every one for the
    base_url host."""
    if identifier.capability:
        capabilities = {identifier.capability, *_AGREES.get(identifier.capability, ())}
    else:
        capabilities = {"", *levels}
    found = (_level_of(levels, capability) for capability in capabilities)
    return min(found, key=_STRICTNESS.__getitem__)


def _level(
    levels: Mapping[str, str], identifier: Identifier, rules: Sequence[Rule | CustomRule]
) -> tuple[str, Rule | CustomRule | None]:
    """The strictest level over the capabilities of the rules that agree with the
    identifier, and the first rule at that level; with none, the identifier's own level."""
    found: tuple[str, Rule | CustomRule] | None = None
    for rule in rules:
        if not _agree(identifier.capability, rule.capability):
            continue
        level = _level_of(levels, rule.capability or identifier.capability)
        if found is None or _STRICTNESS[level] < _STRICTNESS[found[0]]:
            found = (level, rule)
    if found is None:
        return _level_of(levels, identifier.capability), None
    return found


def _agree(identifier_capability: str, rule_capability: str) -> bool:
    if not identifier_capability or not rule_capability:
        return True
    return rule_capability in _AGREES.get(identifier_capability, frozenset())


def _level_of(levels: Mapping[str, str], capability: str) -> str:
    """An unknown level counts as none: a typo must not open an environment."""
    level = levels.get(capability or "default") or levels.get("default") or "read"
    return level if level in _STRICTNESS else "none"


def _decision(level: str, ruled: bool, mode: str) -> str:
    """full → nothing; read → nothing unless a rule matched; ask → ask; none, or read with a
    rule → deny in block mode, a warning otherwise; in log mode each of these is log."""
    if level == "full" or (level == "read" and not ruled):
        return "allow"
    if mode == "log":
        return "log"
    if level == "ask":
        return "ask"
    return "deny" if mode == "block" else "warn"


def _reason(
    stand: StandRules, level: str, rule: Rule | CustomRule | None, identifier: str, decision: str
) -> str:
    """relaybay guard: acme-shop live (live) is read-only for agents; this looks like a
    remote change over ssh (matched 'prod-alias'). Ask the owner, or propose a change with
    environment_propose."""
    if decision == "allow":
        return ""
    state = {
        "none": "is off limits for agents",
        "ask": "needs the owner's approval for every action",
    }.get(level, "is read-only for agents")
    looks = f"; this looks like a {rule.title}" if rule is not None else ""
    where = f"{stand.project} {stand.environment} ({stand.kind})"
    reason = f"relaybay guard: {where} {state}{looks} (matched '{identifier}')."
    if level != "ask":  # an ask is shown to the owner, who needs no advice to ask himself
        reason += " Ask the owner, or propose a change with environment_propose."
    if decision == "warn":
        reason += " (warn mode: not blocked)"
    return reason
