"""The per-path body ceilings of relaybay_site/http_limits.py: each the largest legitimate
body of that address, so nothing a real client sends is refused by the parser."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from relaybay_site.http_limits import HOOK_BODY_MAX, MB, LimitedRequest, body_limit, raw_response


@pytest.mark.parametrize(
    ("path", "at_least", "status"),
    [
        ("/hooks/claude-code", HOOK_BODY_MAX, 204),
        ("/hooks/claude-code/wait", HOOK_BODY_MAX, 204),
        ("/mcp", 10 * MB * 4 // 3, 413),  # attach_file's base64 image of the largest size
        ("/p/acme/t/acme-1/review/3/paste", 10 * MB, 413),
        ("/p/acme/t/acme-1/comments", MB, 413),
        ("/login", MB, 413),
    ],
)
def test_each_path_takes_its_largest_legitimate_body(path: str, at_least: int, status: int) -> None:
    limit = body_limit(path, attachments_max_mb=10)
    assert limit.max_bytes >= at_least
    assert limit.status == status


def test_hook_bodies_are_capped_at_256_kb_as_the_spec_says() -> None:
    assert body_limit("/hooks/claude-code", 10).max_bytes == 256 * 1024


def test_the_image_ceilings_follow_attachments_max_mb() -> None:
    assert body_limit("/mcp", 50).max_bytes > 50 * MB * 4 // 3
    assert body_limit("/p/a/t/a-1/review/1/paste", 50).max_bytes >= 50 * MB


def test_a_refusal_is_a_whole_closing_answer_with_the_security_headers() -> None:
    answer = raw_response(413, "Content Too Large", "Refused: too big.")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 Content Too Large\r\n")
    assert b"Connection: close" in head
    assert b"Content-Length: 18" in head
    assert b"X-Frame-Options: DENY" in head
    assert body == b"Refused: too big.\n"
    assert raw_response(204, "No Content").endswith(b"\r\n\r\n")


def test_twisted_leaves_post_bodies_to_the_asgi_app() -> None:
    """Twisted parses every POST's form arguments by default (the Content-Type through the
    email package, a multipart body a second time); daphne never reads them."""
    server = SimpleNamespace(protocol_connected=lambda request: None)
    channel = SimpleNamespace(
        getPeer=lambda: None,
        getHost=lambda: None,
        transport=None,
        factory=SimpleNamespace(server=server),
    )
    request = LimitedRequest(channel)
    assert request._parsePOSTFormSubmission is False
