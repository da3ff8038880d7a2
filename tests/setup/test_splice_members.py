"""The kit's surgery on top-level members besides "hooks" (an MCP server entry an agent's
setup writes): only the member that changed is touched, neighbours removed together never
overlap, and what is appended after a cut lands after the item that stays."""

from __future__ import annotations

import json

import pytest

from agents.setup import splice

STYLE = splice.Style("  ", "\n")


def run(text: str, new: dict) -> str:
    out = splice.splice(text, STYLE, json.loads(text), new)
    assert json.loads(out) == new
    return out


def test_one_server_added_to_an_object_keeps_the_others_bytes() -> None:
    text = '{"mcpServers": {"a":   {"url": "x"}},  "theme": "y"}\n'
    out = run(text, {"mcpServers": {"a": {"url": "x"}, "b": {"t": True}}, "theme": "y"})
    assert out.startswith('{"mcpServers": {"a":   {"url": "x"}, "b": {')
    assert out.endswith('},  "theme": "y"}\n')


def test_a_changed_member_is_rewritten_alone() -> None:
    text = '{\n    "mcpServers": { "a": 1,   "r": {"u": 1} },\n    "z": [1,2]\n}\n'
    out = run(text, {"mcpServers": {"a": 1, "r": {"u": 2}}, "z": [1, 2]})
    assert '{ "a": 1,   "r": {' in out
    assert '"z": [1,2]' in out


@pytest.mark.parametrize(
    "text",
    [
        '{"hooks": {"X": []}, "mcpServers": {"r": {}}, "keep": 1}\n',
        '{\n  "hooks": {"X": []},\n  "mcpServers": {"r": {}},\n  "keep": 1\n}\n',
    ],
)
def test_two_neighbours_removed_together(text: str) -> None:
    out = run(text, {"keep": 1})
    assert '"keep": 1' in out


def test_cut_and_append_in_one_object_append_after_the_item_that_stays() -> None:
    text = '{"hooks": {"P": [1], "Q": [2]}}\n'
    out = run(text, {"hooks": {"Q": [2], "S": [3]}})
    assert out.startswith('{"hooks": {"Q": [2], "S": [')
    text = '{"hooks": {"P": [1]}}\n'
    run(text, {"hooks": {"S": [3]}})  # nothing stays: the value is rewritten, still valid


def test_every_member_replaced_rewrites_the_object() -> None:
    run('{"a": 1}\n', {"b": 2})
