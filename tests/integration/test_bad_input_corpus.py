"""Bad input never leaks internals (issue 18): a corpus generated from what the server says.

Every tool that tools/list shows is called, through the official client against a real
`relaybay serve`, with each required parameter missing and each parameter of the wrong
type, over its limit by one, holding control characters and holding hard unicode (emoji,
right-to-left, combining marks), and with a misspelt parameter. Every answer must be a
clean tool result: no protocol error, no 5xx, no "internal error", no Python or pydantic
text. The hook endpoint gets malformed, deeply nested, oversize, non-UTF-8 and wrongly
typed bodies, and /mcp malformed JSON-RPC: a 4xx, a JSON-RPC error or the fail-open
200/204, never a 5xx. One server for the module.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import re
from typing import Any

import pytest

from core.mcp import text_limit
from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.sessions.hook_payloads import HOOKS
from tests.support.mcp_client import text_of
from tests.support.server import RelaybayServer, read_only_db

pytestmark = pytest.mark.integration

INTERNALS = (
    "Traceback",
    "pydantic",
    "validation error for",
    "input_value",
    "errors.pydantic.dev",
    'File "',
    "internal error",
)
CONTROLS = "a\x00b\x01c\x08d\x0be\x1bf\x1fg\x7fh"
UNICODE = "🚀 deploy 👩‍💻 — שלום עולם \u202eevil\u202c e\u0301 Z\u0335\u0321a\u0336lgo ｆｕｌｌ"
HOOK = "/hooks/claude-code"
HOOK_BODY_MAX = 256 * 1024

# A plausible value for a parameter by its name, so that one bad value at a time reaches
# as deep as it can; anything else gets a value of its type.
PLAUSIBLE: dict[str, Any] = {
    "project": "corpus",
    "slug": "corpus",
    "stage": "dev",
    "scope": "global",
    "kind": "project",
    "name": "notes",
    "label": "notes",
    "session": "corpus-agent",
}
BY_TYPE: dict[str, Any] = {
    "string": "x",
    "integer": 1,
    "number": 1,
    "boolean": False,
    "array": [],
    "object": {},
}
WRONG: dict[str, Any] = {
    "string": 12345,
    "integer": "not a number",
    "number": "not a number",
    "boolean": "maybe",
    "array": {"not": "a list"},  # a lone number is read as a list of one (comment_ids)
    "object": 5,
}


def types_of(schema: dict[str, Any]) -> list[str]:
    options = schema.get("anyOf") or [schema]
    return [o["type"] for o in options if o.get("type") in BY_TYPE]


def plausible(name: str, schema: dict[str, Any], key: str) -> Any:
    if name == "task":
        return key
    if name in PLAUSIBLE and "string" in types_of(schema):
        return PLAUSIBLE[name]
    return BY_TYPE[(types_of(schema) or ["string"])[0]]


def cases(tool: Any, key: str) -> list[tuple[str, dict[str, Any], str | None]]:
    """(what, arguments, the parameter an error must name or None) for one tool."""
    properties: dict[str, Any] = tool.input_schema.get("properties", {})
    required: list[str] = tool.input_schema.get("required", [])
    base = {n: plausible(n, properties[n], key) for n in required}
    out: list[tuple[str, dict[str, Any], str | None]] = []
    for name in required:
        out.append((f"{name} missing", {n: v for n, v in base.items() if n != name}, name))
    for name in list(properties)[:1]:  # a misspelt parameter is refused, naming the real one
        out.append(("a misspelt parameter", {**base, name + "x": "x"}, f'mean "{name}"'))
    for name, schema in properties.items():
        kinds = types_of(schema)
        wrong = WRONG[kinds[0]] if kinds else None
        if wrong is not None and not any(isinstance(wrong, type(BY_TYPE[k])) for k in kinds):
            out.append((f"{name} of the wrong type", {**base, name: wrong}, name))
        limit = text_limit(schema)
        if limit is None:
            continue
        assert "maxLength" in schema or any("maxLength" in o for o in schema.get("anyOf", ()))
        out.append((f"{name} at limit + 1", {**base, name: "a" * (limit + 1)}, name))
        out.append((f"{name} with control characters", {**base, name: CONTROLS}, None))
        out.append((f"{name} in hard unicode", {**base, name: UNICODE}, None))
    return out


def leaks(text: str) -> list[str]:
    return [marker for marker in INTERNALS if marker in text]


NUL = re.compile("\x00")
C0_BUT_TAB_AND_BREAKS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def stored(server: RelaybayServer, pattern: re.Pattern[str]) -> list[str]:
    """table.column of every text value in the database that matches `pattern`."""
    found = []
    with read_only_db(server.home) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for column in db.execute(f'PRAGMA table_info("{table}")').fetchall():
                name = column[1]
                rows = db.execute(f'SELECT "{name}" FROM "{table}" WHERE typeof("{name}")=\'text\'')
                if any(pattern.search(value) for (value,) in rows):
                    found.append(f"{table}.{name}")
    return found


def test_every_tool_answers_every_bad_argument_with_a_clean_tool_result(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> tuple[int, list[str]]:
        await new_project(agent, "corpus")
        key = await new_task(agent, "corpus")
        tools = (await agent.client.list_tools()).tools
        assert len(tools) > 30
        calls = [(tool.name, *case) for tool in tools for case in cases(tool, key)]
        gate = asyncio.Semaphore(4)
        problems: list[str] = []

        async def call(tool: str, what: str, args: dict[str, Any], names: str | None) -> None:
            async with gate:
                try:
                    result = await agent.client.call_tool(tool, args)
                except Exception as exc:  # a protocol error is a failure of this test
                    problems.append(f"{tool}, {what}: protocol error {exc!r}"[:300])
                    return
            text = text_of(result)
            if leaks(text):
                problems.append(f"{tool}, {what}: leaks {leaks(text)}: {text[:200]!r}")
            if names is not None and not result.is_error:
                problems.append(f"{tool}, {what}: accepted")
            elif names is not None and names not in text:
                problems.append(f"{tool}, {what}: the error does not name {names}: {text[:200]}")

        await asyncio.gather(*(call(*c) for c in calls))
        return len(calls), problems

    count, problems = run(server, scenario)
    assert count > 500
    assert not problems, f"{len(problems)} of {count} calls:\n" + "\n".join(problems[:40])
    assert "Traceback" not in server.log()
    # Every value above held NUL: none of them may have been stored anywhere.
    assert stored(server, C0_BUT_TAB_AND_BREAKS) == []


def test_control_characters_in_one_line_fields_are_refused_with_the_field_named(
    server: RelaybayServer,
) -> None:
    """A NUL in a task title was stored; a one-line value takes no C0 control but the tab,
    and no text takes NUL."""

    async def scenario(agent: Agent) -> None:
        await new_project(agent, "controls")
        text = await agent.err("task_create", project="controls", title="bad\x00title")
        assert "title contains the control character U+0000" in text
        key = await new_task(agent, "controls", title="tab\tis fine")
        text = await agent.err("task_update", task=key, branch="feature\x1b[31m")
        assert "branch contains the control character U+001B" in text
        text = await agent.err("task_update", task=key, description="text\x00with NUL")
        assert "description contains a NUL character" in text
        await agent.ok("task_update", task=key, description="line 1\nline 2\twith tab\x1b ok")
        text = await agent.err("project_upsert", slug="controls", name="Acme\x07")
        assert "name contains the control character U+0007" in text
        text = await agent.err("report_add", task=key, body="done\x00")
        assert "body contains a NUL character" in text
        text = await agent.err("plan_set", task=key, steps=["step\x01one"])
        assert "title of step 1 contains the control character U+0001" in text
        text = await agent.err(
            "memory_add", scope="global", kind="project", title="a\x00", body="b"
        )
        assert "title contains the control character U+0000" in text

    run(server, scenario)


def test_an_oversize_value_inside_an_object_is_refused_without_being_echoed(
    server: RelaybayServer,
) -> None:
    """Objects (task_patch fields, a policy patch, a stand change, plan steps) are checked
    by their services; a 100,000-character key or value came back whole in the error."""
    big = "x" * 100_000

    async def scenario(agent: Agent) -> None:
        await new_project(agent, "nested")
        key = await new_task(agent, "nested")
        calls: list[tuple[str, dict[str, Any]]] = [
            ("task_patch", {"task": key, "fields": {"title": big}}),
            ("task_patch", {"task": key, "fields": {big: "x"}}),
            ("policy_propose", {"scope": "nested", "patch": {"guard": {"mode": big}}}),
            ("policy_propose", {"scope": "nested", "patch": {big: 1}}),
            ("environment_propose", {"project": "nested", "change": {"environment": big}}),
            ("plan_set", {"task": key, "steps": [{"title": "a", "details": big}]}),
            ("review_steps_set", {"task": key, "steps": [{"title": big}]}),
        ]
        for tool, args in calls:
            if tool.endswith("_propose"):
                args["reason"] = "corpus"
            text = await agent.err(tool, **args)
            assert not leaks(text), (tool, text[:300])
            assert len(text) < 1_000, (tool, len(text), text[:300])

    run(server, scenario)


# --- the hook endpoint -----------------------------------------------------------------------


def post_raw(server: RelaybayServer, body: bytes, path: str = HOOK) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=15)
    try:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {server.token}",
        }
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def hook_bodies() -> list[tuple[str, bytes]]:
    bodies = [
        ("malformed JSON", b'{"hook_event_name": "Stop", '),
        ("empty body", b""),
        ("null", b"null"),
        ("a list", b"[1, 2]"),
        ("a string", b'"PostToolUse"'),
        ("a number", b"5"),
        ("10,000 nested lists", b"[" * 10_000 + b"]" * 10_000),
        ("10,000 nested objects", b'{"a":' * 10_000 + b"1" + b"}" * 10_000),
        ("oversize", b'{"pad": "' + b"x" * HOOK_BODY_MAX + b'"}'),
        ("invalid UTF-8", b'{"hook_event_name": "Stop", "session_id": "\xff\xfe\xc3"}'),
        ("a lone surrogate", b'{"hook_event_name": "Stop", "session_id": "\\ud800"}'),
        ("NUL in a value", b'{"hook_event_name": "Stop\\u0000", "session_id": "a\\u0000b"}'),
    ]
    for path in sorted(HOOKS.glob("*.json")):
        payload = json.loads(path.read_text())
        for field in payload:
            for wrong in (None, 5, [1], {"x": 1}, "x" * 300, CONTROLS, UNICODE):
                changed = {**payload, field: wrong}
                bodies.append(
                    (f"{path.stem} {field}={str(wrong)[:10]!r}", json.dumps(changed).encode())
                )
    return bodies


def test_the_hook_endpoint_answers_bad_bodies_with_4xx_or_fail_open_never_5xx(
    server: RelaybayServer,
) -> None:
    problems = []
    bodies = hook_bodies()
    for what, body in bodies:
        status, answer = post_raw(server, body)
        text = answer.decode("utf-8", "replace")
        if status >= 500 or not (status in (200, 204) or 400 <= status < 500):
            problems.append(f"{what}: {status} {text[:200]}")
        elif leaks(text):
            problems.append(f"{what}: leaks {leaks(text)}: {text[:200]}")
    assert len(bodies) > 300
    assert not problems, f"{len(problems)} of {len(bodies)} bodies:\n" + "\n".join(problems[:40])
    assert "Traceback" not in server.log()
    assert stored(server, NUL) == []


def test_malformed_json_rpc_to_mcp_is_a_4xx_or_a_json_rpc_error_never_5xx(
    server: RelaybayServer,
) -> None:
    def call(params: str) -> bytes:
        head = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
        return (head + params + "}").encode()

    deep = "[" * 10_000 + "]" * 10_000
    bodies = {
        "malformed": b'{"jsonrpc": "2.0", ',
        "invalid UTF-8": call('{"name": "task_get", "arguments": {"task": "#"}}').replace(
            b"#", b"\xff\xfe"
        ),
        "10,000 nested lists as an argument": call(
            '{"name": "task_patch", "arguments": {"task": "x-1", "fields": ' + deep + "}}"
        ),
        "10,000 nested lists": deep.encode(),
        "arguments a list": call('{"name": "task_get", "arguments": [1]}'),
        "a tool name that is a number": call('{"name": 5}'),
        "an unknown tool": call('{"name": "nope", "arguments": {}}'),
        "a lone surrogate": call('{"name": "task_get", "arguments": {"task": "\\ud800"}}'),
    }
    for what, body in bodies.items():
        status, answer = post_raw(server, body, "/mcp")
        text = answer.decode("utf-8", "replace")
        assert status in (200, 400), (what, status, text[:200])
        assert '"error"' in text or '"isError":true' in text, (what, text[:200])
        assert not leaks(text), (what, text[:200])
    assert "Traceback" not in server.log()
