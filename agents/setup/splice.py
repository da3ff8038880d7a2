"""Textual edits of a hand-edited settings file: only what changed is rewritten (§5).

For a file that is not exactly `json.dumps` output, setup must still keep every byte it
does not need to change. The top-level object, the "hooks" object and each event's list
are scanned for the text span of every item; appended groups and events are inserted
after the last item, removed ones are cut out with their comma, a changed group is
rewritten alone. Another top-level object an agent's setup writes into (an MCP server
entry under "mcpServers") is edited member by member the same way. Anything else falls
back to rewriting the event's list (or the member's value) with the file's own indent and
line ending.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any, NamedTuple

_WS = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()


class Item(NamedTuple):
    key: str | None  # None in a list
    start: int  # the key (or the value, in a list)
    value_start: int
    value_end: int


class Style(NamedTuple):
    indent: str
    newline: str


class _Overlap(Exception):
    """Two edits touch the same text: rewrite the enclosing value instead."""


def items(text: str, start: int) -> tuple[int, list[Item]]:
    """The object or list opening at text[start]: index of its closing bracket, its items."""
    closing = "}" if text[start] == "{" else "]"
    i = _WS.match(text, start + 1).end()
    found = []
    while text[i] != closing:
        item_start, key = i, None
        if closing == "}":
            key, i = _DECODER.raw_decode(text, i)
            i = _WS.match(text, _WS.match(text, i).end() + 1).end()  # past the ":"
        _, end = _DECODER.raw_decode(text, i)
        found.append(Item(key, item_start, i, end))
        i = _WS.match(text, end).end()
        if text[i] == ",":
            i = _WS.match(text, i + 1).end()
    return i, found


def line_indent(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    return re.match(r"[ \t]*", text[start:at]).group(0)


def indented(value: Any, style: Style, base: str) -> str:
    lines = json.dumps(value, indent=style.indent, ensure_ascii=False).split("\n")
    return style.newline.join([lines[0], *(base + line for line in lines[1:])])


def _render(key: str | None, value: Any, style: Style, base: str) -> str:
    text = indented(value, style, base)
    return text if key is None else f"{json.dumps(key, ensure_ascii=False)}: {text}"


def _append(text: str, opening: int, close: int, found: list[Item], new: list, style: Style):
    """One edit adding (key, value) pairs after the last item of a container."""
    if not found:
        base = line_indent(text, opening) + style.indent
        body = ("," + style.newline + base).join(_render(k, v, style, base) for k, v in new)
        closing_line = style.newline + line_indent(text, opening)
        return (opening + 1, close, style.newline + base + body + closing_line)
    if "\n" in text[opening : found[-1].start]:
        base = line_indent(text, found[-1].start)
        separator = "," + style.newline + base
    else:
        base, separator = line_indent(text, opening), ", "
    body = "".join(separator + _render(k, v, style, base) for k, v in new)
    return (found[-1].value_end, found[-1].value_end, body)


def _cut(found: list[Item], index: int, close: int) -> tuple[int, int, str]:
    if index > 0:
        return (found[index - 1].value_end, found[index].value_end, "")
    end = found[1].start if len(found) > 1 else close
    return (found[0].start, end, "")


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    edits = sorted(edits)
    for (_, end, _), (start, _, _) in itertools.pairwise(edits):
        if start < end:
            raise _Overlap
    for start, end, replacement in reversed(edits):
        text = text[:start] + replacement + text[end:]
    return text


def _list_edits(text: str, item: Item, old: list, new: list, style: Style) -> list:
    close, found = items(text, item.value_start)
    if new[: len(old)] == old:
        pairs = [(None, g) for g in new[len(old) :]]
        return [_append(text, item.value_start, close, found, pairs, style)]
    if len(new) == len(old):
        return [
            (f.value_start, f.value_end, indented(n, style, line_indent(text, f.start)))
            for f, o, n in zip(found, old, new, strict=True)
            if o != n
        ]
    j, removed = 0, []
    for index, group in enumerate(old):
        if j < len(new) and new[j] == group:
            j += 1
        else:
            removed.append(index)
    if j == len(new):
        return [_cut(found, index, close) for index in removed]
    base = line_indent(text, item.start)
    return [(item.value_start, item.value_end, indented(new, style, base))]


def hooks_edits(text: str, item: Item, old: dict, new: dict, style: Style) -> list:
    """Edits turning the "hooks" object at `item` from `old` into `new`."""
    close, found = items(text, item.value_start)
    edits = [_cut(found, i, close) for i, f in enumerate(found) if f.key not in new]
    seen = {f.key: f for f in found}
    for event, groups in new.items():
        if event in seen and old.get(event) != groups:
            edits += _list_edits(text, seen[event], old[event], groups, style)
    added = [(k, v) for k, v in new.items() if k not in seen]
    if added:
        edits.append(_append_after_kept(text, item.value_start, close, found, new, added, style))
    return edits


def _append_after_kept(
    text: str, opening: int, close: int, found: list[Item], new: dict, added: list, style: Style
) -> tuple[int, int, str]:
    """The edit appending `added` after the last item that stays (a cut item's end is no
    place to write); _Overlap when none stays, so the whole value is rewritten instead."""
    kept = [f for f in found if f.key in new]
    if found and not kept:
        raise _Overlap
    return _append(text, opening, close, kept, added, style)


def _cuts(found: list[Item], removed: list[int], close: int) -> list[tuple[int, int, str]]:
    """One cut per run of neighbouring items, so removing two neighbours never overlaps."""
    edits, runs = [], []
    for index in sorted(removed):
        if runs and runs[-1][1] == index - 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    for first, last in runs:
        if first > 0:
            edits.append((found[first - 1].value_end, found[last].value_end, ""))
        else:
            end = found[last + 1].start if last + 1 < len(found) else close
            edits.append((found[0].start, end, ""))
    return edits


def _checked(edits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    edits = sorted(edits)
    for (_, end, _), (start, _, _) in itertools.pairwise(edits):
        if start < end:
            raise _Overlap
    return edits


def object_edits(text: str, item: Item, old: dict, new: dict, style: Style) -> list:
    """Edits turning the object at `item` from `old` into `new`, member by member: a member
    removed is cut (every copy of a repeated key), a changed one has its value rewritten
    alone, a new one is appended after the last."""
    close, found = items(text, item.value_start)
    last = {f.key: f for f in found}
    edits = _cuts(found, [i for i, f in enumerate(found) if f.key not in new], close)
    for key, value in new.items():
        if key in last and old.get(key) != value:
            f = last[key]
            edits.append(
                (f.value_start, f.value_end, indented(value, style, line_indent(text, f.start)))
            )
    added = [(k, v) for k, v in new.items() if k not in last]
    if added:
        edits.append(_append_after_kept(text, item.value_start, close, found, new, added, style))
    return edits


def _member_edits(text: str, item: Item, old: Any, new: Any, style: Style) -> list:
    """Edits of one top-level member's value; the whole value rewritten when the finer
    edits would touch the same text."""
    try:
        if item.key == "hooks" and isinstance(old, dict) and isinstance(new, dict):
            return _checked(hooks_edits(text, item, old, new, style))
        if isinstance(old, dict) and isinstance(new, dict):
            return _checked(object_edits(text, item, old, new, style))
    except _Overlap:
        pass
    base = line_indent(text, item.start)
    return [(item.value_start, item.value_end, indented(new, style, base))]


def splice(text: str, style: Style, old: dict[str, Any], new: dict[str, Any]) -> str:
    """The new text: only the top-level members whose value changed are touched ("hooks"
    event by event and group by group, another object member by member), removed ones
    are cut and new ones appended after the last."""
    first = _WS.match(text, 1 if text.startswith("\ufeff") else 0).end()
    close, found = items(text, first)
    last = {f.key: f for f in found}
    edits = _cuts(found, [i for i, f in enumerate(found) if f.key not in new], close)
    for key, value in new.items():
        if key in last and old.get(key) != value:
            edits += _member_edits(text, last[key], old.get(key), value, style)
    added = [(k, v) for k, v in new.items() if k not in last]
    if added:
        try:
            edits.append(_append_after_kept(text, first, close, found, new, added, style))
        except _Overlap:  # every member goes and others come: the object is rewritten
            return text[:first] + indented(new, style, "") + text[close + 1 :]
    return _apply(text, edits)
