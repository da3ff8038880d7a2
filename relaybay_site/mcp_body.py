"""The /mcp body's texts measured as the body arrives, before the MCP SDK reads it.

The SDK joins the body (Starlette's `request.body()`), parses it (`pydantic_core.from_json`)
and validates it into its JSON-RPC model before relaybay's argument check (core/mcp.py)
can refuse an over-long text: attach_file's content_base64 one character over its limit
(14.2 million characters) lived four times at once, RSS 131 → 195 MiB (bench/README.md,
"RSS"). Here a body that could hold a text longer than any tool takes is scanned chunk by
chunk for JSON string literals, never joined or decoded. A text over that length is dropped
as it arrives, and the SDK reads what is left, a short placeholder in the text's place
(core.mcp.cut_placeholder), with the request's scope marked (core.mcp.CUT_TEXT): the SDK
answers exactly as it would have (its header checks, the id, the method), and call_tool
refuses the call naming the argument, its length and its limit. Any other body reaches the
SDK unchanged, message by message.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from core.mcp import CUT_TEXT, cut_placeholder

Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]

_QUOTE, _BACKSLASH, _U = 0x22, 0x5C, 0x75
# String content made of plain text and whole escapes: where it stops is the closing quote,
# the chunk's end or an escape the chunk's end splits (sre skips escaped quotes in C).
_CONTENT = re.compile(rb'[^"\\]*(?:\\(?:u[0-9a-fA-F]{4}|[^u])[^"\\]*)*')
# Text between strings and whole strings, as many as follow one another (sre, in C).
_WHOLE_STRINGS = re.compile(rb'(?:[^"]*"[^"\\]*(?:\\.[^"\\]*)*")*', re.DOTALL)
_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that start no character
_LOW_SURROGATES = (b"\\udc", b"\\udd", b"\\ude", b"\\udf")  # a pair's second half


class TextScanner:
    """The JSON string literals of a body fed chunk by chunk, each measured in characters
    as Python decodes it (a UTF-8 character, an escape and a surrogate pair count one).

    Until a string is longer than `limit` the scanner only holds references to the chunks
    it was fed; from then on it keeps the body without the over-long strings' contents
    (`kept`), each replaced by its placeholder, and drops every chunk once read.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_string = False
        self.run = 0  # characters of the open string so far
        self.cutting = False  # the open string is over the limit: its bytes are dropped
        self.start = 0  # where the open string's content starts: in the body, or in `kept`
        self.pending = b""  # an escape split by a chunk boundary, read with the next chunk
        self.fed = 0  # body bytes fed so far
        self.chunks: list[bytes] = []  # the body as fed, until a string is cut
        self.kept: bytearray | None = None  # the body without its cut strings, once one is
        self.longest_cut = 0

    @property
    def cut(self) -> bool:
        """Whether a string over the limit was found (and cut)."""
        return self.kept is not None

    def feed(self, chunk: bytes) -> None:
        """Read the next chunk of the body: bytes.find between strings and through plain
        text, C code through escapes, a few Python steps per string, none per character."""
        data = self.pending + chunk if self.pending else chunk
        base = self.fed - len(self.pending)  # the body offset of data[0]
        self.pending = b""
        self.fed += len(chunk)
        if self.kept is None:
            self.chunks.append(chunk)
        ascii_only = data.isascii()
        i, end = 0, len(data)
        while i < end:
            if not self.in_string:
                if end - i <= self.limit:  # no string closing in this chunk can be over
                    skipped = _WHOLE_STRINGS.match(data, i).end()  # type: ignore[union-attr]
                    self._keep(data, i, skipped)
                    i = skipped
                j = data.find(b'"', i)
                stop = end if j < 0 else j + 1
                self._keep(data, i, stop)
                if j >= 0:
                    self._open(base + stop)
                i = stop
                continue
            j = data.find(b'"', i)
            stop = end if j < 0 else j
            if j > i and data[j - 1] == _BACKSLASH:  # the quote may be escaped: C skips escapes
                stop = _CONTENT.match(data, i).end()  # type: ignore[union-attr]
            elif j < 0:
                stop = _split_escape(data, i, end)
            if stop > i:
                plain = ascii_only and data.find(b"\\", i, stop) < 0
                self._text(data, i, stop, stop - i if plain else _characters(data[i:stop]))
            if stop == end:
                break
            if data[stop] == _QUOTE:
                self._close()
                i = stop + 1
            elif end - stop < 6:  # an escape split by the chunk's end: read with the next one
                self.pending = data[stop:]
                break
            else:  # no JSON escape (\u12zz): the SDK refuses the body as before
                self._text(data, stop, stop + 2, 1)
                i = stop + 2

    def body(self) -> bytes:
        """The body as the SDK should read it once a string was cut (kept as it is if the
        body ended inside that string: the SDK then answers its parse error)."""
        assert self.kept is not None
        if self.cutting:
            self.kept += cut_placeholder(self.run).encode()
            self.longest_cut = max(self.longest_cut, self.run)
        else:
            self.kept += self.pending
        return bytes(self.kept)

    # --- steps ------------------------------------------------------------------------------

    def _keep(self, data: bytes, start: int, stop: int) -> None:
        if self.kept is not None and not self.cutting:
            self.kept += data[start:stop]

    def _open(self, start: int) -> None:
        self.in_string, self.run = True, 0
        self.start = start if self.kept is None else len(self.kept)

    def _text(self, data: bytes, start: int, stop: int, characters: int) -> None:
        """A run of the open string's content, `characters` long once decoded."""
        self.run += characters
        if not self.cutting and self.run > self.limit:
            self._cut_open_string()
        self._keep(data, start, stop)

    def _cut_open_string(self) -> None:
        """The open string is over the limit: keep the body up to its content, no more."""
        if self.kept is None:
            self.kept = bytearray(_head(self.chunks, self.start))
            self.chunks = []
        else:
            del self.kept[self.start :]
        self.cutting = True

    def _close(self) -> None:
        if self.cutting:
            assert self.kept is not None
            self.kept += cut_placeholder(self.run).encode()
            self.longest_cut = max(self.longest_cut, self.run)
            self.cutting = False
        self.in_string = False
        if self.kept is not None:
            self.kept += b'"'


def _characters(content: bytes) -> int:
    """How many characters Python decodes from string content of plain text and whole
    escapes: every byte that starts a UTF-8 character, less what the escapes take."""
    count = len(content) if content.isascii() else len(content.translate(None, _CONTINUATION))
    backslashes = content.count(b"\\")
    if not backslashes:
        return count
    rest = content.replace(b"\\\\", b"") if b"\\\\" in content else content
    pairs = (len(content) - len(rest)) // 2  # each \\ is one character of two bytes
    units = rest.count(b"\\u")  # \u and 4 hex digits: one of six bytes; a low surrogate: none
    lowered = rest.lower() if units else b""
    lows = sum(lowered.count(low) for low in _LOW_SURROGATES)
    return count - pairs - (backslashes - 2 * pairs - units) - 5 * units - lows


def _split_escape(data: bytes, start: int, end: int) -> int:
    """Where an escape the chunk's end splits begins (`\\` or `\\u12`), else `end`; `start`
    is in string content, outside any escape."""
    at = data.rfind(b"\\", max(start, end - 5), end)
    if at < 0:
        return end
    run = at + 1 - start - len(data[start : at + 1].rstrip(b"\\"))  # backslashes up to `at`
    if run % 2 == 0:  # `at` ends a \\ escape
        return end
    if at == end - 1 or (data[at + 1] == _U and end - at < 6):
        return at
    return end


def _head(chunks: list[bytes], size: int) -> bytes:
    """The first `size` bytes of the chunks, copying no more than those."""
    parts, left = [], size
    for chunk in chunks:
        if left <= 0:
            break
        parts.append(chunk[:left])
        left -= len(chunk)
    return b"".join(parts)


def _declared_length(scope: dict[str, Any]) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """`receive` answering the messages already read first, then the client's own."""
    queue = deque(messages)
    messages.clear()

    async def replayed() -> Message:
        return queue.popleft() if queue else await receive()

    return replayed


async def with_texts_checked(
    app: ASGIApp, limit: int, scope: dict[str, Any], receive: Receive, send: Send
) -> None:
    """Run the SDK's `app` on this /mcp request, any JSON text over `limit` characters cut
    out of its body first. A body no longer than `limit` bytes cannot hold such a text (a
    character is at least a byte) and goes through untouched, as does any other method."""
    declared = _declared_length(scope)
    if scope.get("method") != "POST" or (declared is not None and declared <= limit):
        await app(scope, receive, send)
        return
    scanner = TextScanner(limit)
    held: list[Message] = []
    ended = False
    while not ended:
        message = await receive()
        if message["type"] != "http.request":  # the client left before the body ended
            held.append(message)
            break
        scanner.feed(message.get("body", b""))
        ended = not message.get("more_body", False)
        if scanner.cut:
            held.clear()  # what was read is in the scanner's body now
        else:
            held.append(message)
    if scanner.cut:
        whole = {"type": "http.request", "body": scanner.body(), "more_body": not ended}
        held = [whole, *held]
        scope = {**scope, CUT_TEXT: (limit, scanner.longest_cut)}
    del scanner  # its references to the chunks: each is freed once the SDK has read it
    await app(scope, _replay(held, receive), send)
