"""Shell text as the guard reads it: command segments and shell words (§7 Guard).

The guard never runs a shell, but it must read a command closely enough to tell where one
command ends and what its words are: `ssh app uptime; rm -rf build` is two commands, only
the first of them remote, and `git commit -m "ssh prod rm"` is one git command whose
message merely mentions ssh. So the text is split into segments at |, ;, & and newlines
outside quotes, and each segment into POSIX-ish shell words (quotes removed, escapes
applied).

Both steps are single regular expressions walked with possessive quantifiers, so 8 KB of
hostile text costs one linear pass, and neither raises: an unbalanced quote simply runs to
the end of the text, as a shell would keep reading. The splitting errs towards keeping
text together (a redirection such as 2>&1 or &> is not a separator, a here-document stays
with its command), because a segment that holds too much can only make the guard more
careful, while one that holds too little can hide a change from its command.
"""

from __future__ import annotations

import itertools
import re
from typing import NamedTuple

MAX_SEGMENTS = 200  # §7: at most 200 command segments are read; the last one keeps the rest
MAX_HEREDOCS = 20  # here-documents of one command followed (a longer list reads as text)
# What separates words: Python's white space (str.isspace, str.split), a little more than a
# shell's space, tab and newline, so the quick split of an unquoted segment and the full one
# agree.
SPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_S = re.escape(SPACE)

# One segment: unquoted text, quoted strings (an unterminated one runs to the end), escapes
# (a backslash-newline continues the line), and the redirections that contain & or |.
_SEGMENT = re.compile(
    r"""(?:
        [^'"\\|;&\n<>]++
      | '[^']*+'?
      | "(?:[^"\\]++|\\.?)*+"?
      | \\.?
      | [<>]&            # 2>&1, <&3
      | &>               # &>file
      | >\|              # >|file
      | [<>]
    )*+""",
    re.VERBOSE | re.DOTALL,
)
_GAP = re.compile(rf"[{_S}|;&]*+")  # separators and the white space around them
_SEGMENTS = re.compile(rf"{_GAP.pattern}({_SEGMENT.pattern})", re.VERBOSE | re.DOTALL)
_HEREDOC = re.compile(r"""(?<!<)<<-?[ \t]*+(['"]?)([\w.@%+-]++)\1""")  # <<EOF, <<-'SQL'

# One shell word, and the pieces inside a word that quoting removal reads one by one.
_WORD = re.compile(rf"""(?:[^{_S}'"\\]++|'[^']*+'?|"(?:[^"\\]++|\\.?)*+"?|\\.?)++""", re.DOTALL)
_PIECE = re.compile(rf"""([^{_S}'"\\]++)|'([^']*+)'?|"((?:[^"\\]++|\\.?)*+)"?|\\(.?)""", re.DOTALL)
_QUOTING = re.compile(r"""['"\\]""")
_DOUBLE_ESCAPE = re.compile(r"""\\([\\"$`]|\n)""")  # the escapes double quotes honour


class Segments(NamedTuple):
    """A text's command segments, and whether they are all of it."""

    segments: list[str]
    complete: bool  # False: more than MAX_SEGMENTS, the last one holds the unsplit rest


def split_segments(text: str) -> list[str]:
    """The command segments of `text`: split at |, ;, & and newlines outside quotes, white
    space around each removed, empty ones dropped. At most MAX_SEGMENTS: the last one keeps
    the whole rest of the text, separators and all (read_segments() says when it did)."""
    return read_segments(text).segments


def read_segments(text: str) -> Segments:
    """split_segments(), saying whether the text had more than MAX_SEGMENTS segments: the
    guard cannot read what the last one holds beyond its first command, so such a call
    fails closed (decide.py) instead of passing unread."""
    if "<<" in text:
        return _with_heredocs(text)
    segments: list[str] = []
    last = 0  # where the last segment kept starts
    for match in _SEGMENTS.finditer(text):  # no here-document: the engine walks it all
        piece = match.group(1).strip()
        if not piece:
            continue
        if len(segments) == MAX_SEGMENTS:  # one more than the cap: the last keeps the rest
            segments[-1] = text[last:].strip()
            return Segments(segments, complete=False)
        last = match.start(1)
        segments.append(piece)
    return Segments(segments, complete=True)


def _with_heredocs(text: str) -> Segments:
    """read_segments() one segment at a time, since a here-document moves the end."""
    segments: list[str] = []
    last = 0
    end_of_text = len(text)
    at = _GAP.match(text).end()
    while at < end_of_text:
        if len(segments) == MAX_SEGMENTS:  # text after the gap is one more segment
            segments[-1] = text[last:].strip()
            return Segments(segments, complete=False)
        end = max(_SEGMENT.match(text, at).end(), at + 1)
        if "<<" in text[at:end]:
            end = _heredoc_end(text, at, end)
        piece = text[at:end].strip()
        if piece:
            last = at
            segments.append(piece)
        at = _GAP.match(text, end).end()
    return Segments(segments, complete=True)


def _heredoc_end(text: str, start: int, end: int) -> int:
    """A here-document's body belongs to its command (psql <<SQL … SQL): the segment runs
    on to the end of each delimiter line (or of the text when a delimiter never comes)."""
    found = _bodies(text, start, end)
    return end if found is None else found[1]


def here_documents(segment: str) -> tuple[str, list[str]]:
    """A segment's command line and the bodies of the here-documents its operators open, in
    order (each with its lines' newlines, without its delimiter line): `bash <<EOF` runs its
    body as a script, `cat <<EOF` only reads it. Without a here-document: (segment, [])."""
    if "<<" not in segment:
        return segment, []
    found = _bodies(segment, 0, max(_SEGMENT.match(segment).end(), 1))
    if found is None or not found[0]:
        return segment, []
    spans, _ = found
    return segment[: spans[0][0] - 1], [segment[start:stop] for start, stop in spans]


def _bodies(text: str, start: int, end: int) -> tuple[list[tuple[int, int]], int] | None:
    """Where the bodies opened by the here-document operators in text[start:end] lie, and
    where the last delimiter line ends; None without an operator. Bodies start on the line
    after `end` and follow each other, at most MAX_HEREDOCS of them."""
    operators = _HEREDOC.finditer(text, start, end)
    delimiters = [m.group(2) for m in itertools.islice(operators, MAX_HEREDOCS) if m.group(2)]
    if not delimiters:
        return None
    line_end = text.find("\n", end)
    if line_end < 0:
        return [], len(text)
    spans: list[tuple[int, int]] = []
    at = line_end
    for delimiter in delimiters:
        closing = re.compile(rf"^[ \t]*+{re.escape(delimiter)}[ \t]*+$", re.MULTILINE)
        body = min(at + 1, len(text))
        line = closing.search(text, body)
        spans.append((body, len(text) if line is None else line.start()))
        at = len(text) if line is None else line.end()
    return spans, at


def shell_words(segment: str) -> list[str]:
    """The shell words of one segment, quotes removed and escapes applied; empty words are
    dropped. Never raises: an unterminated quote runs to the end of the segment."""
    if _QUOTING.search(segment) is None:  # nothing to unquote: the words are the pieces
        return segment.split()
    words = []
    for word in _WORD.findall(segment):
        if _QUOTING.search(word) is not None:
            word = _unquote(word)
        if word:
            words.append(word)
    return words


def _unquote(word: str) -> str:
    """One word with its quoting removed: single quotes keep everything, double quotes
    honour the escapes of backslash, double quote, $ and backtick, and a backslash outside
    quotes keeps the character after it."""
    parts = []
    for plain, single, double, escaped in _PIECE.findall(word):
        if plain:
            parts.append(plain)
        elif single:
            parts.append(single)
        elif double:
            parts.append(_DOUBLE_ESCAPE.sub(_escaped, double))
        elif escaped != "\n":  # a backslash-newline continues the line
            parts.append(escaped)
    return "".join(parts)


def _escaped(match: re.Match[str]) -> str:
    char = match.group(1)
    return "" if char == "\n" else char
