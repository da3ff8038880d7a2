"""Driving core/on_loop as the server does, for the tests of what writes leave for after
their answers (effort's time step, the search row of a new report)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from core import on_loop


def on_loop_write(fn: Callable[[], Any]) -> Any:
    """fn as an MCP write runs it: on a running loop's own thread, through run_on_loop."""

    async def main() -> Any:
        return on_loop.run_on_loop(fn)

    return asyncio.run(main())


def answer_sent() -> None:
    """What /mcp's send does after the answer's last bytes, and the loop's turns after it."""

    async def main() -> None:
        on_loop.answer_sent(asyncio.get_running_loop())
        for _ in range(3):  # the loop's turns after the answer
            await asyncio.sleep(0)

    asyncio.run(main())
