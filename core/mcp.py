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
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.transport_security import TransportSecuritySettings

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
