"""Small steps the browser tests share (the fixtures are in conftest.py)."""

from __future__ import annotations

import json
from typing import Any

from tests.support.server import RelaybayServer


def sign_in(page: Any, server: RelaybayServer, path: str = "/") -> None:
    """Sign in the quick way (/login?token=…) and open `path`; the form has its own test."""
    page.goto(f"{server.base_url}/login?token={server.token}&next={path}")
    page.wait_for_url(f"{server.base_url}{path}")


def wait_state(page: Any, state: str = "live", timeout: float = 10_000) -> None:
    """Wait until the header's live-status indicator shows `state`."""
    page.wait_for_selector(f'#live-status[data-state="{state}"]', timeout=timeout)


def htmx_idle(page: Any, timeout: float = 10_000) -> None:
    """Wait until no htmx request is in flight (htmx marks its element `.htmx-request`).

    A step that clicks again, or navigates, before the last click's request answered makes
    htmx abort that request and log `htmx:sendAbort` as a console error: a step whose
    wait is already satisfied before the request ends (clicking the tab that is already
    selected) waits here first.
    """
    page.wait_for_function("() => !document.querySelector('.htmx-request')", timeout=timeout)


SLOW_GETS = """([part, ms]) => {
  const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    this.__slow = method === "GET" && String(url).includes(part);
    return open.call(this, method, url, ...rest);
  };
  XMLHttpRequest.prototype.send = function (...args) {
    if (this.__slow) { setTimeout(() => send.apply(this, args), ms); }
    else { send.apply(this, args); }
  };
}"""


def slow_gets(page: Any, part: str, ms: int) -> None:
    """Hold every GET whose URL contains `part` for `ms` before it is sent (an XHR wrapper
    added before the page's scripts): a slow server for one kind of fragment."""
    page.add_init_script(f"({SLOW_GETS})({json.dumps([part, ms])})")


def focused(page: Any) -> str:
    """A short description of the focused element: its id, else tag and text."""
    return page.evaluate(
        """() => {
            const el = document.activeElement;
            if (!el || el === document.body) return "body";
            return el.id ? "#" + el.id : el.tagName.toLowerCase() + ":" + el.textContent.trim();
        }"""
    )


def in_sidebar(page: Any) -> bool:
    return page.evaluate(
        "() => document.getElementById('sidebar').contains(document.activeElement)"
    )
