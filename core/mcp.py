"""What every app's MCP tools stand on (§3): `call_service` and the transport settings.

Tools are `async def` over sync domain code (`call_service`), so SQLite writes stay on
Django's one sync thread and no AnyIO worker thread can keep daphne from stopping.
Domain failures become tool errors whose message says what to do next. The server itself,
which registers every app's tools, is built in the roof (relaybay_site/mcp_server.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings

from core.errors import DomainError

log = logging.getLogger("relaybay.mcp")


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
