"""What every app's MCP tools stand on (§3): `call_service` and the transport settings.

Tools are `async def` over sync domain code (`call_service`), so SQLite writes stay on
Django's one sync thread and no AnyIO worker thread can keep daphne from stopping.
Domain failures become tool errors whose message says what to do next. The server itself,
which registers every app's tools, is built in the roof (relaybay_site/mcp_server.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, overload

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import ValidationError

from core.errors import DomainError, NotFound

log = logging.getLogger("relaybay.mcp")


@overload
async def call_service[T](
    fn: Callable[..., T], /, *args: Any, answer: None = None, **kwargs: Any
) -> T: ...
@overload
async def call_service[T](
    fn: Callable[..., T], /, *args: Any, answer: Callable[[T], str], **kwargs: Any
) -> str: ...
async def call_service[T](
    fn: Callable[..., T], /, *args: Any, answer: Callable[[T], str] | None = None, **kwargs: Any
) -> T | str:
    """Run sync domain code on Django's sync thread; DomainError → ToolError.

    A write tool names its service and how its answer is built from the service's result:
    `call_service(services.task_set_stage, key=…, actor=…, answer=render_md.task_write_md)`.
    The answer is built on the same thread in the same hop, since it may read a related row.
    """

    def run() -> T | str:
        result = fn(*args, **kwargs)
        return result if answer is None else answer(result)

    run.__name__ = getattr(fn, "__name__", "service")
    try:
        return await sync_to_async(run, thread_sensitive=True)()
    except DomainError as exc:
        raise ToolError(str(exc)) from None
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
        takes = ", ".join(f"{n} (required)" if n in required else n for n in properties)
        for name in exc:
            lines.append(f"{tool} has no argument {name}. It takes: {takes or 'no arguments'}.")
    return "\n".join(dict.fromkeys(lines)) + "\nNothing changed."


class RelaybayMCPServer(MCPServer):
    """The SDK's server with relaybay's own argument errors (§5), decided once for every tool.

    Unknown arguments are refused too: pydantic would drop them silently, and a write that
    ignores a misspelt field (`nextstep`) would look like it succeeded.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # §3 "No MCP prompts yet": the SDK advertises the prompts capability whenever its
        # low-level server holds a prompts/list handler, so an agent saw an empty, useless
        # list. Without the handlers the capability is not advertised at all (pinned by
        # tests/integration/test_mcp_arguments.py, which fails if an SDK upgrade moves this).
        handlers = self._lowlevel_server._request_handlers
        for method in ("prompts/list", "prompts/get"):
            handlers.pop(method, None)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return await super().call_tool(name, arguments, context)
        properties: dict[str, Any] = tool.parameters.get("properties", {})
        required: list[str] = tool.parameters.get("required", [])
        unknown = [key for key in arguments if key not in properties]
        if unknown:
            raise ToolError(argument_error(name, properties, required, unknown))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_error(name, properties, required, exc.__cause__)) from None
            raise


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
