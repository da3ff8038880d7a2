"""What every app's MCP tools stand on (§3): `call_service`, `add_tools` (how an app's
`register(server)` adds its list) and the transport settings.

Tools are `async def` over sync domain code (`call_service`), so SQLite writes stay on
Django's one sync thread (or, short ones, on the loop's own: core/on_loop.py) and no AnyIO
worker thread can keep daphne from stopping.
Domain failures become tool errors whose message says what to do next. The server itself,
which registers every app's tools, is built in the roof (relaybay_site/mcp_server.py).
"""

from __future__ import annotations

import contextlib
import difflib
import inspect
import json
import logging
import re
from collections.abc import Callable, Iterable
from typing import Any, overload

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from core import calls, no_secrets
from core.errors import DomainError, NotFound
from core.on_loop import LockTaken
from core.on_loop import run_on_loop as on_loop_run
from core.on_loop import settle as settle_left

log = logging.getLogger("relaybay.mcp")


@overload
async def call_service[T](
    fn: Callable[..., T], /, *args: Any, answer: None = None, on_loop: bool = False, **kwargs: Any
) -> T: ...
@overload
async def call_service[T](
    fn: Callable[..., T],
    /,
    *args: Any,
    answer: Callable[[T], str],
    on_loop: bool = False,
    **kwargs: Any,
) -> str: ...
async def call_service[T](
    fn: Callable[..., T],
    /,
    *args: Any,
    answer: Callable[[T], str] | None = None,
    on_loop: bool = False,
    **kwargs: Any,
) -> T | str:
    """Run sync domain code on Django's sync thread; DomainError → ToolError.

    A write tool names its service and how its answer is built from the service's result:
    `call_service(services.task_set_stage, key=…, actor=…, answer=render_md.task_write_md)`.
    The answer is built on the same thread in the same hop, since it may read a related row.
    A short write in one transaction says `on_loop=True`: it runs on the loop's own thread
    while SQLite's write lock is free, else on the sync thread (core/on_loop.py).
    """

    def run() -> T | str:
        result = fn(*args, **kwargs)
        return result if answer is None else answer(result)

    run.__name__ = getattr(fn, "__name__", "service")
    try:
        if on_loop:  # a refused lock means nothing was written: wait for it on the sync thread
            with contextlib.suppress(LockTaken):
                return on_loop_run(run)
        else:
            settle_left()  # what earlier writes left for after their answers, before a read
        return await sync_to_async(run, thread_sensitive=True)()
    except DomainError as exc:
        raise ToolError(no_secrets.masked(str(exc))) from None
    except ToolError:
        raise
    except Exception:
        log.exception("tool failed in %s", run.__name__)
        raise ToolError(
            "relaybay hit an internal error; nothing was changed by this call. "
            "Try again, and tell the owner if it repeats."
        ) from None


async def resource_answer(fn: Callable[..., str], /, *args: Any) -> str:
    """Resources answer protocol errors, not tool results: keep the message readable."""
    try:
        return await call_service(fn, *args)
    except ToolError as exc:
        if isinstance(exc.__context__, NotFound):
            raise ResourceNotFoundError(str(exc)) from None
        raise ResourceError(str(exc)) from None


# An app's tools as its register(server) lists them: the tool and its hints (tasks.mcp_params
# READ / WRITE); its resources: the URI template, the name and the function.
type ToolEntry = tuple[Callable[..., Any], ToolAnnotations]
type ResourceEntry = tuple[str, str, Callable[..., Any]]


def add_tools(
    server: MCPServer, tools: Iterable[ToolEntry], resources: Iterable[ResourceEntry] = ()
) -> None:
    """Add an app's tools, then its resources, in the order given: the order the model sees.

    Each is described by its docstring (the model reads it; docs/mcp-tools.md is generated
    from it) and answers markdown as it is, not `{"result": …}` (fixtures/mcp README).
    """
    for fn, hints in tools:
        server.add_tool(
            fn,
            description=inspect.cleandoc(fn.__doc__ or ""),
            annotations=hints,
            structured_output=False,
        )
    for uri, name, fn in resources:
        description = inspect.cleandoc(fn.__doc__ or "")
        server.resource(uri, name=name, description=description, mime_type="text/markdown")(fn)


# Parameters whose valid values another tool lists (§5: an argument error names that tool).
LISTED_BY = {"project": "project_list", "slug": "project_list", "task": "task_list"}

_TYPE_WORDS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
}


def _expects(schema: dict[str, Any]) -> str:
    """What a parameter takes, in words, from its JSON schema (never pydantic's text)."""
    options = schema.get("anyOf") or [schema]
    words = [_TYPE_WORDS[o["type"]] for o in options if o.get("type") in _TYPE_WORDS]
    what = " or ".join(dict.fromkeys(words)) or "a value"
    description = schema.get("description", "").strip()
    return f"{what} ({description})" if description else what


# The limit of a text parameter whose schema names none (a name, a reason, a filter …).
# Parameters that carry more (a description, a report, a document, a file) declare their own
# maxLength from the app's value rules; call_tool refuses any text over its limit before the
# tool runs, so no oversized value reaches a query or SQLite (a 100,000-character task_list
# query did, and answered "internal error").
TEXT_PARAM_MAX = 1_000


def text_limit(schema: dict[str, Any]) -> int | None:
    """The maxLength of a text parameter (also inside anyOf), None when it takes no text."""
    options = [schema, *schema.get("anyOf", ())]
    if not any(o.get("type") == "string" for o in options):
        return None
    limits = [o["maxLength"] for o in options if "maxLength" in o]
    return min(limits) if limits else TEXT_PARAM_MAX


def _with_limits(parameters: dict[str, Any]) -> None:
    """Write the default limit into every text parameter's schema that declares none, so
    the model sees the limit the server enforces (tools/list shows it)."""
    for schema in parameters.get("properties", {}).values():
        options = [schema, *schema.get("anyOf", ())]
        if text_limit(schema) is not None and not any("maxLength" in o for o in options):
            schema["maxLength"] = TEXT_PARAM_MAX


def _too_long(tool: str, properties: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    """A sentence per text argument over its limit; a list's text items count too."""
    lines = []
    for name, value in arguments.items():
        limit = text_limit(properties.get(name, {}))
        if isinstance(value, list):  # tags, kinds, step titles: each item within the default
            limit = limit or TEXT_PARAM_MAX
            value = max((item for item in value if isinstance(item, str)), key=len, default="")
        if limit is not None and isinstance(value, str) and len(value) > limit:
            # The words of the value rules' own refusal (tasks.fields.check_length).
            lines.append(
                f"{tool}: {name} is {len(value)} characters long; the limit is {limit}. Shorten it."
            )
    return lines


# The limit of an object or list argument (a proposal's change, a policy patch, plan and
# review steps) as JSON, refused before anything parses it further; the services keep
# tighter limits of their own (environments.services.proposals.CHANGE_MAX …). 30 review
# steps of 4,200 characters are the largest a valid call sends.
JSON_PARAM_MAX = 256 * 1024


def _too_big(tool: str, arguments: dict[str, Any]) -> list[str]:
    """A sentence per object or list argument over JSON_PARAM_MAX characters as JSON."""
    lines = []
    for name, value in arguments.items():
        if isinstance(value, dict | list):
            size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
            if size > JSON_PARAM_MAX:
                lines.append(
                    f"{tool}: {name} is {size:,} characters as JSON; the limit is "
                    f"{JSON_PARAM_MAX:,}. Send less."
                )
    return lines


# A text longer than any parameter takes is cut out of the /mcp body before the SDK reads it
# (relaybay_site/mcp_body.py: 14 million characters lived four times in the server): the
# SDK parses the rest with a placeholder in the text's place, and the request's ASGI scope
# holds (the longest text any tool takes, the longest text cut) under CUT_TEXT. call_tool
# then refuses the call whatever the text's place, a placeholder measuring as its text.
CUT_TEXT = "relaybay.cut_text"
_PLACEHOLDER = re.compile(r"\[cut: (\d+) characters\]")


def cut_placeholder(length: int) -> str:
    """What stands in the body for a cut text of `length` characters."""
    return f"[cut: {length} characters]"


class _CutText(str):
    """A cut text's placeholder whose len() is the length of the text it stands for."""

    length = 0

    def __len__(self) -> int:
        return self.length


def _measured(value: Any) -> Any:
    """A placeholder argument (or list item) as a _CutText; any other value as it is."""
    if isinstance(value, list):
        return [_measured(item) for item in value]
    found = _PLACEHOLDER.fullmatch(value) if isinstance(value, str) else None
    if found is None:
        return value
    text = _CutText(value)
    text.length = int(found[1])
    return text


def _max_lengths(schema: Any) -> Iterable[int]:
    """Every maxLength in a JSON schema, however deep."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "maxLength" and isinstance(value, int):
                yield value
            else:
                yield from _max_lengths(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _max_lengths(item)


def unknown_parameter(tool: str, name: str, properties: dict[str, Any], required: list[str]) -> str:
    """One unknown argument: its name, the nearest valid one and every valid name."""
    valid = list(properties)
    line = f'{tool}: unknown parameter "{name}"'
    near = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
    if near:
        line += f' — did you mean "{near[0]}"?'
    else:
        line += "."
    takes = ", ".join(f"{n} (required)" if n in required else n for n in valid)
    return line + f" Valid: {takes or 'none, it takes no arguments'}."


def argument_error(tool: str, properties: dict[str, Any], required: list[str], exc: Any) -> str:
    """relaybay's own sentence for a tool called with a missing, mistyped or unknown argument.

    Names the parameter, what it expects and which tool lists the valid values; the SDK's
    text would be pydantic's ("1 validation error for …Arguments … https://errors…").
    """
    lines = []
    if isinstance(exc, ValidationError):
        for err in exc.errors():
            name = str(err["loc"][0]) if err["loc"] else "?"
            schema = properties.get(name, {})
            problem = "is missing" if err["type"] == "missing" else "has the wrong type or value"
            line = f"{tool}: argument {name} {problem}; it expects {_expects(schema)}."
            if name in LISTED_BY:
                line += f" {LISTED_BY[name]} lists the valid values."
            lines.append(line)
    else:
        lines = [unknown_parameter(tool, name, properties, required) for name in exc]
    return "\n".join(dict.fromkeys(lines)) + "\nNothing changed."


class RelaybayMCPServer(MCPServer):
    """The SDK's server with relaybay's own argument errors (§5), decided once for every tool.

    Unknown arguments are refused too: pydantic would drop them silently, and a write that
    ignores a misspelt field (`next_stpe`) would look like it succeeded. Every text
    parameter has a limit in the tool's schema (its own, else TEXT_PARAM_MAX), refused here.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._longest_text: int | None = None
        super().__init__(*args, **kwargs)
        # §3 "No MCP prompts yet": the SDK advertises the prompts capability whenever its
        # low-level server holds a prompts/list handler, so an agent saw an empty, useless
        # list. Without the handlers the capability is not advertised at all (pinned by
        # tests/integration/test_mcp_arguments.py, which fails if an SDK upgrade moves this).
        handlers = self._lowlevel_server._request_handlers
        for method in ("prompts/list", "prompts/get"):
            handlers.pop(method, None)

    def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """The SDK's add_tool (the @tool decorator calls it too), then the default limits
        (written once per parameter: a schema that has its limit is left alone)."""
        super().add_tool(fn, *args, **kwargs)
        for tool in self._tool_manager.list_tools():
            _with_limits(tool.parameters)
        self._longest_text = None

    def longest_text(self) -> int:
        """The longest text any tool takes: the largest maxLength in the tools' schemas, or
        what an object argument may hold if that is more. A longer one is always refused."""
        if self._longest_text is None:
            schemas = [tool.parameters for tool in self._tool_manager.list_tools()]
            self._longest_text = max([JSON_PARAM_MAX, *_max_lengths(schemas)])
        return self._longest_text

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return await super().call_tool(name, arguments, context)
        properties: dict[str, Any] = tool.parameters.get("properties", {})
        required: list[str] = tool.parameters.get("required", [])
        cut = _cut_text(context)
        if cut is not None:
            arguments = {key: _measured(value) for key, value in arguments.items()}
        unknown = [key for key in arguments if key not in properties]
        if unknown:  # a refusal never says a secret back, even one sent as a name
            raise ToolError(no_secrets.masked(argument_error(name, properties, required, unknown)))
        too_long = _too_long(name, properties, arguments) + _too_big(name, arguments)
        if cut is not None and not too_long:  # cut from an object, a key or _meta
            longest, length = cut
            too_long = [
                f"{name}: a text in this call is {length} characters long; "
                f"no parameter takes more than {longest}. Shorten it."
            ]
        if too_long:
            raise ToolError("\n".join(too_long) + "\nNothing changed.")
        # Codex's _meta.sessionId, or an X-Relaybay-Session header (core/calls.py)
        token = calls.enter(_request_meta(context), _session_header(context))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_error(name, properties, required, exc.__cause__)) from None
            raise
        finally:
            calls.leave(token)


def _request_meta(context: Context | None) -> Any:
    """The `_meta` of the tools/call request, None outside one."""
    try:
        return context.request_context.meta if context is not None else None
    except (ValueError, AttributeError):
        return None


def _cut_text(context: Context | None) -> tuple[int, int] | None:
    """(longest text any tool takes, longest text cut) when a text was cut from this
    request's body (relaybay_site/mcp_body.py), else None."""
    try:
        request = context.request_context.request if context is not None else None
        return getattr(request, "scope", {}).get(CUT_TEXT)
    except (ValueError, AttributeError):
        return None


def _session_header(context: Context | None) -> str:
    """The HTTP request's X-Relaybay-Session header, "" when there is none."""
    try:
        request = context.request_context.request if context is not None else None
        headers = getattr(request, "headers", None)
        return str(headers.get(calls.SESSION_HEADER, "")) if headers is not None else ""
    except (ValueError, AttributeError):
        return ""


def transport_security(hosts: list[str], port: int) -> TransportSecuritySettings:
    """The SDK's own DNS-rebinding check with the same lists as the outer app (§9.3)."""
    allowed_hosts: list[str] = []
    allowed_origins: list[str] = []
    for host in hosts:
        allowed_hosts += [host, f"{host}:*"]
        allowed_origins += [f"http://{host}:{port}", f"https://{host}:{port}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
    )
