"""What the guard reads of a tool call, and what the journal keeps of it (§7 Guard, Journal of
actions on live).

A shell call is read as its command; an MCP tool's input as every
string value in it, depth first, joined by newlines. Only the first 8 KB are read, and of
an MCP input at most MAX_INPUT_NODES values. Keys are not read: `{"prod-alias": "x"}` names
nothing, and a key is no place a host is expected.

The journal needs more than that and less. An MCP input is journaled as `key: value` lines,
so a value under a key whose name says it holds a secret (password, api_key, token …, also
any value nested under such a key) is masked whole unless it points elsewhere ($API_TOKEN,
~/.pgpass); the rest meets environments.secrets.mask like any command.

A call cut at a cap (8 KB of text, or the values of an MCP input) is not passed unread: the
text says so (`cut`) and keeps the whole call's text for the one question that must still be
asked of it — which environments it mentions at all — so decide() can fail closed on them
exactly as past 200 segments (decide.py). Walking the rest only collects strings: linear in
the input, which the hook caps before the guard sees it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from environments.secret_spots import points_elsewhere
from environments.secrets import MASK, names_secret, names_user, user_password_masked

READ_LIMIT = 8192  # §7: only the first 8 KB (of UTF-8) of a call are read
MAX_INPUT_NODES = 10_000  # values of an MCP input read at most, whatever their nesting
MAX_KEY = 64  # characters of a key the journal writes; a longer one is no name
OWN_SERVER = "relaybay"

# Why a call was cut: past 8 KB of a command, or past an MCP input's caps.
CUT_COMMAND = "command"
CUT_INPUT = "input"


class CallText(str):
    """The text the guard reads of a call (a str: what the rules and names see), with what
    the journal keeps and what a cap left unread."""

    journal: str  # an MCP input as key: value lines, keyed secrets masked; "": the text itself
    cut: str  # "" when read whole, CUT_COMMAND or CUT_INPUT
    whole: str  # when cut: the call's whole text, for the mention test of failing closed

    def __new__(cls, text: str, *, journal: str = "", cut: str = "", whole: str = "") -> CallText:
        self = super().__new__(cls, text)
        self.journal = journal
        self.cut = cut
        self.whole = whole if cut else ""
        return self


SHELL = "shell"  # a shell command
MCP = "mcp"  # an MCP server's tool and its input


@dataclass(frozen=True)
class Call:
    """One tool call as the guard reads it, whatever agent CLI made it: a shell command, or
    an MCP server's tool with its input. Each agent's tool table says which of its tools is
    which (the guard never reads an agent's own tool names)."""

    kind: str  # SHELL or MCP; anything else is not read
    command: str = ""  # SHELL
    server: str = ""  # MCP: the server as the agent's settings name it
    tool: str = ""  # MCP: the tool's own name
    input: Mapping[str, Any] = field(default_factory=dict)  # MCP: its arguments


def shell(command: str) -> Call:
    """A shell command as the guard reads it."""
    return Call(SHELL, command=command)


def mcp(server: str, tool: str, tool_input: Mapping[str, Any]) -> Call:
    """An MCP tool call as the guard reads it."""
    return Call(MCP, server=server, tool=tool, input=tool_input)


def read_call(call: Call, *, own_server: str = OWN_SERVER) -> CallText | None:
    """The text the guard reads from a tool call: a shell call's command, or every string in
    an MCP tool's input joined by newlines, cut to its first 8 KB. None for relaybay's own
    MCP tools (its server, or `own_server` when registered under another name) and for
    every other kind of call."""
    if call.kind == SHELL:
        if not isinstance(call.command, str):
            return None
        text = first_8kb(call.command)
        cut = CUT_COMMAND if len(text) < len(call.command) else ""
        return CallText(text, cut=cut, whole=call.command)
    if call.kind == MCP and isinstance(call.input, Mapping):
        if call.server in (OWN_SERVER, own_server):
            return None
        return _read_input(call.input)
    return None


def first_8kb(text: str) -> str:
    """The longest start of `text` whose UTF-8 fits in READ_LIMIT bytes (never half a
    character)."""
    if len(text) * 4 <= READ_LIMIT:  # no character takes more than 4 bytes
        return text
    data = text[:READ_LIMIT].encode("utf-8", "surrogatepass")
    if len(data) <= READ_LIMIT:
        return text[:READ_LIMIT]
    cut = READ_LIMIT
    while cut > 0 and data[cut] & 0xC0 == 0x80:  # the cut splits a character: drop it
        cut -= 1
    return data[:cut].decode("utf-8", "surrogatepass")


def _read_input(tool_input: Mapping[str, Any]) -> CallText:
    """An MCP input read depth first, in order, until READ_LIMIT characters or
    MAX_INPUT_NODES values; the strings after that only gathered for the mention test (the
    text is cut when there are any). Never recursion, so any nesting is fine.

    Each value comes with its nearest key (a list's items with their list's), written
    before it in the journal when it is a name (at most MAX_KEY characters), and whether a
    key on its way says it holds a secret."""
    values: list[str] = []
    lines: list[str] = []
    left, nodes = READ_LIMIT, 0
    # (key, under a secret key, the container's items, whether they are (key, value) pairs)
    frames: list[_Frame] = [("", False, iter(tool_input.items()), True)]
    while frames and left > 0 and nodes < MAX_INPUT_NODES:
        key, secret, items, keyed = frames[-1]
        item = next(items, _END)
        if item is _END:
            frames.pop()
            continue
        nodes += 1
        if keyed:
            name, item = item
            name = name if isinstance(name, str) else str(name)
            secret = secret or _names_secret(name)
            key = name if len(name) <= MAX_KEY else ""
        if isinstance(item, str):
            values.append(item)
            shown = MASK if secret and not points_elsewhere(item) else item
            if not secret and key and names_user(key):
                shown = user_password_masked(shown)  # user: admin:*** (the user kept)
            lines.append(f"{key}: {shown}" if key else shown)
            left -= len(item) + 1
        elif isinstance(item, Mapping):
            frames.append((key, secret, iter(item.items()), True))
        elif isinstance(item, list | tuple):
            frames.append((key, secret, iter(item), False))
    joined = "\n".join(values)
    text = first_8kb(joined)
    journal = first_8kb("\n".join(lines))
    rest = _strings_left(frames)
    if len(text) == len(joined) and not rest:
        return CallText(text, journal=journal)
    return CallText(text, journal=journal, cut=CUT_INPUT, whole="\n".join([joined, *rest]))


_Frame = tuple[str, bool, Iterator[Any], bool]
_END = object()


def _strings_left(frames: list[_Frame]) -> list[str]:
    """Every string value the reading left in its frames, in no particular order: only
    whether an environment's name occurs among them is asked."""
    stack: list[Any] = []
    for _, _, items, keyed in frames:
        stack.extend((value for _, value in items) if keyed else items)
    found: list[str] = []
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind in _SCALARS:  # most of a large input: numbers (the ABC checks cost more)
            continue
        if kind is str or isinstance(value, str):
            found.append(value)
        elif kind is dict or isinstance(value, Mapping):
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return found


_SCALARS = frozenset({int, float, bool, type(None)})


def _names_secret(key: str) -> bool:
    """Does the key's name say its value is a secret (password, api_key, token …)? The
    write checks' own field-name rule (environments.secrets): a plain value under such a
    key is refused there as secret-field. A user or login key is no secret's name."""
    return names_secret(key)
