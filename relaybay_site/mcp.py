"""The MCP server (§3): one `MCPServer`, each app adds its tools through `register(server)`.

Tools are `async def` over sync domain code (`call_service`), so SQLite writes stay on
Django's one sync thread and no AnyIO worker thread can keep daphne from stopping.
Domain failures become tool errors whose message says what to do next.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import import_module
from importlib.util import find_spec
from typing import Any

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings

from relaybay import get_version
from relaybay_site.errors import DomainError

log = logging.getLogger("relaybay.mcp")
APPS_WITH_TOOLS = ("tasks", "sessions", "plans", "reviews", "environments", "policy", "memory")


async def call_service[T](fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run sync domain code on Django's sync thread; DomainError → ToolError."""
    try:
        return await sync_to_async(fn, thread_sensitive=True)(*args, **kwargs)
    except DomainError as exc:
        raise ToolError(str(exc)) from None
    except ToolError:
        raise
    except Exception:
        log.exception("tool failed in %s", getattr(fn, "__name__", fn))
        raise ToolError(
            "relaybay hit an internal error; nothing was changed by this call. "
            "Try again, and tell the owner if it repeats."
        ) from None


def server_instructions() -> str:
    """The working contract sent on connect; tasks owns the text (it needs the rules)."""
    if find_spec("tasks.instructions") is None:
        return "relaybay: a local task board for Claude Code agents."
    return import_module("tasks.instructions").server_instructions()


def build_server() -> MCPServer:
    server = MCPServer(
        name="relaybay",
        title="relaybay",
        version=get_version(),
        instructions=server_instructions(),
        subscriptions=False,  # no listen stream: restarts stay invisible to Claude Code
    )
    for app in APPS_WITH_TOOLS:
        if find_spec(f"{app}.mcp_tools") is not None:
            import_module(f"{app}.mcp_tools").register(server)
    return server


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
