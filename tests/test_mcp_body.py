"""The /mcp body scanner of relaybay_site/mcp_body.py: JSON texts measured in characters
across any chunking, a text over the limit cut out of the body, every other body handed to
the SDK unchanged."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.mcp import CUT_TEXT, cut_placeholder
from relaybay_site.mcp_body import TextScanner, with_texts_checked


def scanned(body: bytes, limit: int, size: int | list[int]) -> TextScanner:
    """`body` fed in chunks of `size` bytes (or of the sizes listed, the rest in one)."""
    scanner = TextScanner(limit)
    sizes = size if isinstance(size, list) else [size] * (len(body) // size + 1)
    at = 0
    for step in sizes:
        scanner.feed(body[at : at + step])
        at += step
    scanner.feed(body[at:])
    return scanner


def encoded(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def cut_body(value: Any, limit: int) -> Any:
    """`value` with every text over `limit` characters as its placeholder."""
    if isinstance(value, str):
        return cut_placeholder(len(value)) if len(value) > limit else value
    if isinstance(value, list):
        return [cut_body(item, limit) for item in value]
    if isinstance(value, dict):
        return {cut_body(k, limit): cut_body(v, limit) for k, v in value.items()}
    return value


# Each decodes to 4 characters: escapes, a surrogate pair, 2-, 3- and 4-byte UTF-8.
HARD = [
    r'"\"\\\/\n"',
    r'"\u00e9\u20ac\ud83d\ude80x"',
    '"é€🚀x"',
    r'"a\"\"b"',
    r'"\\\\\"z"',
    r'"abc\\"',  # an escaped backslash right before the closing quote
]


def test_hard_texts_are_measured_as_python_decodes_them_at_every_split() -> None:
    for literal in HARD:
        body = ('{"v": ' + literal + "}").encode()
        assert len(json.loads(body)["v"]) == 4
        for split in range(len(body) + 1):
            assert not scanned(body, 4, [split]).cut, (literal, split)
            cut = scanned(body, 3, [split])
            assert cut.cut, (literal, split)
            assert json.loads(cut.body()) == {"v": cut_placeholder(4)}
        assert scanned(body, 3, 1).body() == ('{"v": "' + cut_placeholder(4) + '"}').encode()


def test_an_escaped_quote_does_not_end_the_text() -> None:
    body = encoded({"a": 'x"' * 10, "b": "y"})  # 20 characters, 30 bytes between quotes
    assert not scanned(body, 20, 1).cut
    scanner = scanned(body, 19, 3)
    assert json.loads(scanner.body()) == {"a": cut_placeholder(20), "b": "y"}


def test_a_text_split_across_many_chunks_is_measured_whole() -> None:
    body = encoded({"id": 1, "t": "ab" * 5_000})
    for size in (1, 7, 8192):
        assert not scanned(body, 10_000, size).cut
        scanner = scanned(body, 9_999, size)
        assert scanner.cut
        assert scanner.longest_cut == 10_000
        assert json.loads(scanner.body()) == {"id": 1, "t": cut_placeholder(10_000)}


def test_exactly_at_the_limit_passes_and_one_over_is_cut() -> None:
    for limit in (14, 100, 65_536):  # 14: the key's own length
        at = encoded({"content_base64": "Q" * limit})
        over = encoded({"content_base64": "Q" * (limit + 1)})
        assert not scanned(at, limit, 8192).cut
        assert scanned(over, limit, 8192).cut
        assert len(scanned(over, limit, 8192).body()) < 100


def test_what_a_cut_body_keeps_is_the_rest_of_it_and_drops_the_chunks() -> None:
    head = {"jsonrpc": "2.0", "id": "call-7", "method": "tools/call"}
    args = {"task": "acme-1", "content_base64": "A" * 50_000, "caption": 'the "screen"'}
    body = encoded({**head, "params": {"name": "attach_file", "arguments": args}})
    scanner = scanned(body, 40_000, 8192)
    assert scanner.chunks == []
    assert json.loads(scanner.body()) == {
        **head,
        "params": {
            "name": "attach_file",
            "arguments": {**args, "content_base64": "[cut: 50000 characters]"},
        },
    }


def test_a_body_ending_inside_a_cut_text_stays_unparseable() -> None:
    scanner = scanned(b'{"a": "' + b"x" * 100, 10, 8)
    body = scanner.body()
    assert body == b'{"a": "' + cut_placeholder(100).encode()
    assert scanner.longest_cut == 100


# Quotes, backslashes and a "u" often, so escapes meet chunk ends in every way.
tricky = st.sampled_from(['"', "\\", "u", "é", "🚀", "\n", "x"])
texts = st.text(tricky | st.characters(exclude_categories=("Cs",)), max_size=40)
documents = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(documents, st.integers(0, 30), st.lists(st.integers(1, 9), max_size=40), st.booleans())
def test_any_document_in_any_chunking_is_cut_exactly_where_a_text_is_over(
    document: Any, limit: int, sizes: list[int], ascii_escapes: bool
) -> None:
    body = json.dumps(document, ensure_ascii=ascii_escapes).encode()
    scanner = scanned(body, limit, sizes)
    expected = cut_body(document, limit)
    assert scanner.cut == (expected != document)
    if scanner.cut:
        assert json.loads(scanner.body()) == expected


# --- the ASGI step ------------------------------------------------------------------------------


def request(body: bytes, chunk: int = 8192, length: bool = True) -> tuple[dict, Any, list]:
    """A POST /mcp scope, its receive over `body` in chunks, and the list `receive` pops."""
    messages = [
        {"type": "http.request", "body": body[at : at + chunk], "more_body": at + chunk < len(body)}
        for at in range(0, max(len(body), 1), chunk)
    ]
    headers = [(b"content-type", b"application/json")]
    if length:
        headers.append((b"content-length", str(len(body)).encode()))
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    queue = list(messages)

    async def receive() -> dict:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    return scope, receive, messages


def through(body: bytes, limit: int, **kw: Any) -> tuple[dict, list[dict], Any, Any]:
    """What the SDK's app sees: its scope, the messages it reads, and both receives."""
    scope, receive, _ = request(body, **kw)
    seen: dict[str, Any] = {}

    async def app(scope: dict, receive_: Any, send: Any) -> None:
        seen["scope"], seen["receive"], seen["messages"] = scope, receive_, []
        while True:
            message = await receive_()
            seen["messages"].append(message)
            if not message.get("more_body"):
                return

    asyncio.run(with_texts_checked(app, limit, scope, receive, None))  # type: ignore[arg-type]
    return seen["scope"], seen["messages"], seen["receive"], receive


def test_a_body_no_longer_than_the_limit_goes_through_untouched() -> None:
    body = encoded({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"a": "x" * 90}})
    scope, messages, their_receive, our_receive = through(body, len(body), chunk=16)
    assert their_receive is our_receive
    assert CUT_TEXT not in scope
    assert b"".join(m["body"] for m in messages) == body


def test_a_longer_body_with_no_text_over_is_replayed_message_by_message() -> None:
    bodies = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"a": "x" * 90}},
        [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, {"x": "y" * 90}],  # a batch
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "u" * 90}},
        'not json at all, \\ " unbalanced',
    ]
    for value in bodies:
        body = value.encode() if isinstance(value, str) else encoded(value)
        for length in (True, False):
            _, received, _, _ = through(body, 90, chunk=7, length=length)
            _, _, original = request(body, chunk=7, length=length)
            assert received == original


def test_a_body_with_a_text_over_reaches_the_sdk_cut_and_marked() -> None:
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call"}
    args = {"task": "acme-1", "content_base64": "QUJD" * 100}
    body = encoded({**call, "params": {"name": "attach_file", "arguments": args}})
    scope, messages, _, _ = through(body, 399, chunk=64)
    assert scope[CUT_TEXT] == (399, 400)
    assert len(messages) == 1
    assert messages[0]["more_body"] is False
    cut = {**args, "content_base64": cut_placeholder(400)}
    assert json.loads(messages[0]["body"]) == {
        **call,
        "params": {"name": "attach_file", "arguments": cut},
    }


def test_other_methods_than_post_go_through_untouched() -> None:
    scope, receive, _ = request(b"")
    scope["method"] = "GET"
    seen = []

    async def app(scope: dict, receive_: Any, send: Any) -> None:
        seen.append(receive_)

    asyncio.run(with_texts_checked(app, 0, scope, receive, None))  # type: ignore[arg-type]
    assert seen == [receive]
