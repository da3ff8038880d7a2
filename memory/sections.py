"""The sections of a versioned document, and the diff between two versions (§8 Documents).

An agent reads or rewrites one section of a document by its anchor instead of the whole
text, so the anchors must be stable and the section bounds predictable:

- a heading is an ATX heading (# … ######, then a space or the end of the line, up to three
  spaces of indentation, an optional closing # sequence) outside fenced code (``` or ~~~,
  three or more; the closing fence uses the same character and is at least as long; an
  unclosed fence runs to the end of the document);
- its anchor keeps letters of any script, digits, spaces, dashes and underscores, turns runs
  of spaces and dashes into one dash, strips dashes at the ends and lowercases; an empty
  anchor is "section";
- repeats, in document order: a heading takes its anchor unless an earlier heading took it,
  else the first "<anchor>-N" (N = 2, 3 …) that no earlier heading took. So `## A`, `## A`,
  `## A-2` get a, a-2, a-2-2: an earlier heading never changes because of a later one;
- a section is its heading and every line until the next heading of the same or a higher
  level (as many # or fewer), so a ## section holds its ### children. Text before the first
  heading belongs to no section.

Pure functions over the text, so every rule is tested as a table. Lines are split on "\\n"
only; a "\\r" before it stays part of the line and never hides a heading.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "Section",
    "anchor_of",
    "find_section",
    "replace_section",
    "section_text",
    "sections",
    "unified_diff",
]

EMPTY_ANCHOR = "section"

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?")
_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_DASHES = re.compile(r"[\s-]+")


@dataclass(frozen=True)
class Section:
    anchor: str  # gift-cards, section, intro-2 …
    title: str  # the heading text as written, without the #s and closing #s
    level: int  # 1..6
    start: int  # line index of the heading
    end: int  # line index after the section's last line (exclusive)


def anchor_of(title: str) -> str:
    """A title's anchor before repeats are numbered: ## Gift cards → gift-cards."""
    kept = "".join(ch for ch in title if _kept(ch))
    return _DASHES.sub("-", kept).strip("-").lower() or EMPTY_ANCHOR


def sections(markdown: str) -> list[Section]:
    """Every section in document order, with unique anchors."""
    lines = _lines(markdown)
    headings = _headings(lines)
    taken: set[str] = set()
    found = []
    for i, (start, level, title) in enumerate(headings):
        end = next((s for s, lv, _ in headings[i + 1 :] if lv <= level), len(lines))
        anchor = _unique(anchor_of(title), taken)
        taken.add(anchor)
        found.append(Section(anchor, title, level, start, end))
    return found


def find_section(markdown: str, anchor: str) -> Section | None:
    """The section with this anchor, or None."""
    return next((s for s in sections(markdown) if s.anchor == anchor), None)


def section_text(markdown: str, anchor: str) -> str:
    """The section exactly as it stands in the document, heading included.

    Raises KeyError for an unknown anchor; the service turns it into a domain error.
    """
    section = _require(markdown, anchor)
    return "".join(_lines(markdown)[section.start : section.end])


def replace_section(markdown: str, anchor: str, new_text: str) -> str:
    """The document with one section rewritten.

    A new_text whose first line is an ATX heading replaces the heading and the body; any
    other new_text replaces only the body, and the heading stays. Everything outside the
    section is kept byte for byte, and so is whether the document ends with a newline.
    Raises KeyError for an unknown anchor; the service turns it into a domain error.
    """
    section = _require(markdown, anchor)
    lines = _lines(markdown)
    first_line = new_text.split("\n", 1)[0].rstrip("\r")
    start = section.start if _heading(first_line) else section.start + 1
    head, tail = lines[:start], lines[section.end :]
    if head and not head[-1].endswith("\n") and new_text:
        head[-1] += "\n"  # the kept heading was the last line, with no newline after it
    at_end = not tail
    if new_text and not new_text.endswith("\n") and (not at_end or markdown.endswith("\n")):
        new_text += "\n"
    if at_end and not markdown.endswith("\n"):
        new_text = new_text.removesuffix("\n")
    return "".join(head) + new_text + "".join(tail)


def unified_diff(old: str, new: str, *, from_label: str, to_label: str) -> list[str]:
    """difflib.unified_diff of two versions, line by line, without line ends.

    Whether a version ends with a newline does not show: the lines are compared without it.
    """
    return list(
        difflib.unified_diff(
            [line.removesuffix("\n") for line in _lines(old)],
            [line.removesuffix("\n") for line in _lines(new)],
            fromfile=from_label,
            tofile=to_label,
            lineterm="",
        )
    )


def _lines(markdown: str) -> list[str]:
    """The lines with their "\\n"; the last has none when the document does not end with one."""
    parts = markdown.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of every ATX heading outside fenced code."""
    found = []
    fence = ""  # the opening fence we are inside, "" outside code
    for index, raw in enumerate(lines):
        line = raw.removesuffix("\n").removesuffix("\r")
        if fence:
            if _closes(line, fence):
                fence = ""
            continue
        if opened := _opens(line):
            fence = opened
        elif heading := _heading(line):
            found.append((index, *heading))
    return found


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) when the line is an ATX heading: #hashtag and ####### x are not."""
    match = _HEADING.fullmatch(line)
    if match is None:
        return None
    title = _CLOSING.sub("", (match.group(2) or "").strip(" \t"))
    return len(match.group(1)), title.strip(" \t")


def _opens(line: str) -> str:
    """The fence a line opens, or "". A backtick fence's info string holds no backtick."""
    match = _FENCE.fullmatch(line)
    if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
        return ""
    return match.group(1)


def _closes(line: str, fence: str) -> bool:
    """Whether the line closes the fence: the same character, at least as long, nothing after."""
    match = _FENCE.fullmatch(line)
    return (
        match is not None
        and match.group(1)[0] == fence[0]
        and len(match.group(1)) >= len(fence)
        and not match.group(2).strip(" \t")
    )


def _kept(ch: str) -> bool:
    """Letters of any script (with their combining marks), digits, spaces, dashes, underscores."""
    return ch.isalnum() or ch.isspace() or ch in "-_" or unicodedata.category(ch).startswith("M")


def _unique(anchor: str, taken: set[str]) -> str:
    if anchor not in taken:
        return anchor
    n = 2
    while f"{anchor}-{n}" in taken:
        n += 1
    return f"{anchor}-{n}"


def _require(markdown: str, anchor: str) -> Section:
    section = find_section(markdown, anchor)
    if section is None:
        raise KeyError(anchor)
    return section
