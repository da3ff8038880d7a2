"""Request size limits enforced by the HTTP parser itself, before a body is buffered.

daphne (on Twisted) reads a whole request body into memory or a temp file before the ASGI
app sees the request, so relaybay's own Host, Origin, token and size checks came too late:
one 200 MB `text/plain` POST without a token — which any web page may send to 127.0.0.1
without a preflight — grew the server by 200 MiB for good. Here the parser refuses an
over-limit `Content-Length` as soon as the headers are read, stops a chunked body at the
limit, and answers an over-long request line with 414 and over-large headers with 431
(Twisted just dropped the connection). Nothing of a refused body is kept: the rest the
client still sends is read and thrown away for a few seconds, so an ordinary client sees
the answer instead of a reset, then the connection is closed.

`relaybay serve` installs `LimitedHTTPFactory` as daphne's HTTP factory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from daphne.http_protocol import HTTPFactory, WebRequest
from twisted.web import http

from core.display import size_text
from core.responses import PLAIN_TEXT
from core.security import SECURITY_HEADERS

KB = 1024
MB = 1024 * 1024
HOOK_BODY_MAX = 256 * KB  # §4 / §9.8: hook bodies are capped at 256 KB (dropped with 204)
FORM_BODY_MAX = 1 * MB  # board forms, sign-in, comments, policy editors: all far below
DISCARD_SECONDS = 5.0  # how long the rest of a refused body is read and dropped

_HOOKS = "/hooks/"  # every agent's hooks and wake-up waits
_PASTE_PATH = re.compile(r"^/p/[^/]+/t/[^/]+/review/\d+/paste$")


@dataclass(frozen=True, slots=True)
class BodyLimit:
    """The largest body a path takes, and how a larger one is answered."""

    max_bytes: int
    status: int  # 413, or 204 for hooks: §4 says an oversize hook body is dropped with 204


def body_limit(path: str, attachments_max_mb: int) -> BodyLimit:
    """The ceiling for `path`: each is the largest legitimate body of that address.

    /mcp carries attach_file's base64 image (4/3 of the file limit) plus its JSON; a paste
    carries the raw image; the views then apply the exact file limit with their own message.
    """
    if path.startswith(_HOOKS):
        return BodyLimit(HOOK_BODY_MAX, 204)
    image = attachments_max_mb * MB
    if path == "/mcp":
        return BodyLimit(image * 4 // 3 + MB, 413)
    if _PASTE_PATH.match(path):
        return BodyLimit(image + 64 * KB, 413)
    return BodyLimit(FORM_BODY_MAX, 413)


def raw_response(status: int, reason: str, text: str = "") -> bytes:
    """A complete HTTP/1.1 answer that closes the connection, with the §9.7 headers."""
    body = (text + "\n").encode() if text else b""
    lines = [f"HTTP/1.1 {status} {reason}".encode(), b"Connection: close"]
    if status != 204:
        lines += [b"Content-Type: " + PLAIN_TEXT.encode(), b"Content-Length: %d" % len(body)]
    lines += [name.title() + b": " + value for name, value in SECURITY_HEADERS]
    return b"\r\n".join(lines) + b"\r\n\r\n" + (body if status != 204 else b"")


class LimitedRequest(WebRequest):
    """daphne's request, counting a chunked body as it arrives."""

    body_limit: BodyLimit | None = None
    _received = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # daphne hands the raw body to the ASGI app and never reads Twisted's form arguments,
        # which Twisted parses by default from every POST: the Content-Type through the email
        # package (~8 % of the event loop's time under 20 hook sessions, bench/README.md) and
        # a multipart body (a pasted screenshot) a second time.
        self._parsePOSTFormSubmission = False

    def handleContentChunk(self, data: bytes) -> None:
        channel: LimitedChannel = self.channel
        if channel.refused:
            return
        self._received += len(data)
        limit = self.body_limit
        if limit is not None and self._received > limit.max_bytes:
            channel.refuse_body(limit)
            return
        super().handleContentChunk(data)


class LimitedChannel(http.HTTPChannel):
    """Twisted's HTTP/1.1 parser with relaybay's limits and proper 414 / 431 answers."""

    attachments_max_mb = 10
    refused = False

    @property
    def _in_first_line(self) -> bool:
        """Whether the parser waits for a request line (Twisted keeps this private)."""
        return bool(self._HTTPChannel__first_line)  # type: ignore[attr-defined]

    def lineReceived(self, line: bytes) -> None:
        if self.refused:
            return
        if self._receivedHeaderSize + len(line) > self.totalHeadersSize:
            self._refuse_head(self._in_first_line)
            return
        super().lineReceived(line)

    def lineLengthExceeded(self, line: bytes) -> None:
        self._refuse_head(self._in_first_line)

    def headerReceived(self, line: bytes) -> bool:
        if self._receivedHeaderCount + 1 > self.maxHeaders:
            self._refuse_head(False)
            return False
        return super().headerReceived(line)

    def allHeadersReceived(self) -> None:
        request: LimitedRequest = self.requests[-1]
        path = self._path.split(b"?", 1)[0].decode("latin-1")
        limit = body_limit(path, self.attachments_max_mb)
        request.body_limit = limit
        if self.length is not None and self.length > limit.max_bytes:
            request.gotLength(0)  # an empty body: nothing of it is buffered
            self.refuse_body(limit, declared=self.length)
            return
        super().allHeadersReceived()

    def allContentReceived(self) -> None:
        if not self.refused:
            super().allContentReceived()

    def refuse_body(self, limit: BodyLimit, declared: int | None = None) -> None:
        if limit.status == 204:
            self._refuse(raw_response(204, "No Content"))
            return
        said = f"is {size_text(declared)}" if declared is not None else "went past that"
        text = (
            f"Refused: the request body {said}; this address takes at most "
            f"{size_text(limit.max_bytes)}."
        )
        self._refuse(raw_response(413, "Content Too Large", text))

    def _refuse_head(self, first_line: bool) -> None:
        if first_line:
            answer = raw_response(414, "URI Too Long", "Refused: the URL is too long.")
        else:
            answer = raw_response(
                431,
                "Request Header Fields Too Large",
                "Refused: the request headers are too large.",
            )
        self._refuse(answer)

    def _refuse(self, answer: bytes) -> None:
        """Answer, stop parsing, drop whatever else arrives, close after DISCARD_SECONDS."""
        if self.refused:
            return
        self.refused = True
        self.persistent = False
        self.setTimeout(None)
        self.dataReceived = self.rawDataReceived = _drop  # type: ignore[method-assign]
        self.transport.write(answer)
        half_close = getattr(self.transport, "loseWriteConnection", None)
        if half_close is not None:
            half_close()
        from twisted.internet import reactor

        reactor.callLater(DISCARD_SECONDS, self._abort)

    def _abort(self) -> None:
        if self.transport is not None and self.transport.connected:
            self.transport.abortConnection()


def _drop(data: bytes) -> None:
    """The rest of a refused request: read (so the client is not reset) and forgotten."""


def _limited_channel_factory(factory: LimitedHTTPFactory) -> Any:
    channel = LimitedChannel()
    channel.attachments_max_mb = factory.attachments_max_mb
    return http._GenericHTTPChannelProtocol(channel)


class LimitedHTTPFactory(HTTPFactory):
    """daphne's factory building `LimitedChannel`s with `LimitedRequest`s."""

    protocol = _limited_channel_factory
    attachments_max_mb = 10

    def buildProtocol(self, addr: Any) -> Any:
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = LimitedRequest
        return protocol


def install(attachments_max_mb: int) -> None:
    """Make daphne's Server build its HTTP factory from this module (called by serve).

    daphne constructs `HTTPFactory(self)` inside `Server.run()` with no hook to pass another
    one, so the name it looks up is replaced; nothing else in the process uses it.
    """
    import daphne.server

    LimitedHTTPFactory.attachments_max_mb = attachments_max_mb
    daphne.server.HTTPFactory = LimitedHTTPFactory  # type: ignore[misc]
