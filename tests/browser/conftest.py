"""Headless Chromium for the board tests: Debian's /usr/bin/chromium driven by Playwright.

No `playwright install`: the browser is the system one (CI installs it with apt). Without
Playwright or Chromium the tests are skipped with the reason, unless
RELAYBAY_REQUIRE_BROWSER=1 (CI), where that is a failure. CHROMIUM_PATH points at another
Chromium binary (tests/conftest.py clears every other RELAYBAY_* variable).

`new_page(width, height, color_scheme=...)` opens a page in a fresh browser context and
returns a `WatchedPage`: the page plus every console message, page error and CSP violation
seen on it. `save_shot(page, name)` (also the `shot` fixture) saves a screenshot under
tests/artifacts/browser/ for a person to look at.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import pytest

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "browser"

# Added to every document before its own scripts. Init scripts run through the DevTools
# protocol, outside the page's CSP, so the watcher itself can never cause a violation;
# test_the_csp_watcher_sees_a_violation proves the listener fires.
CSP_WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__cspViolations.push({
    directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile,
    line: e.lineNumber, sample: e.sample,
  });
});
"""

# The page's side of live updates, kept for a failed test's report (the teardown prints it):
# the stream opening and failing, every live event app.js dispatches, and every htmx
# request with its answer and whether it was swapped. A live update that never shows in CI
# then says which step was missing. Bounded, so a long test cannot grow it without end.
LIVE_RECORDER = """
(function () {
  var log = window.__rbLive = [];
  var start = Date.now();
  function note(text) {
    log.push((Date.now() - start) + " ms " + text);
    if (log.length > 300) { log.shift(); }
  }
  var Real = window.EventSource;
  if (Real) {
    window.EventSource = function (url, options) {
      var es = new Real(url, options);
      note("stream open " + url);
      es.addEventListener("open", function () { note("stream opened"); });
      es.addEventListener("error", function () { note("stream error " + es.readyState); });
      return es;
    };
    window.EventSource.prototype = Real.prototype;
  }
  document.addEventListener("DOMContentLoaded", function () {
    var body = document.body;
    body.addEventListener("rb-event", function (e) {
      var d = e.detail || {};
      note("event " + d.kind + " key=" + (d.key || "") + " session=" + (d.session || ""));
    });
    body.addEventListener("htmx:beforeRequest", function (e) {
      var d = e.detail, elt = d.elt, xhr = d.xhr;
      var what = d.requestConfig.verb + " " + d.pathInfo.requestPath + " from " +
        elt.tagName.toLowerCase() + (elt.id ? "#" + elt.id : "");
      note("send " + what);
      xhr.addEventListener("loadend", function () { note("answer " + xhr.status + " " + what); });
    });
    body.addEventListener("htmx:beforeSwap", function (e) {
      var d = e.detail, t = d.target;
      // Read after every listener of this event had its say (live_sections.js refuses some).
      setTimeout(function () {
        note((d.shouldSwap ? "swap " : "swap refused ") + (t && t.id ? "#" + t.id : "?"));
      }, 0);
    });
  });
})();
"""


def _require() -> bool:
    return os.environ.get("RELAYBAY_REQUIRE_BROWSER") == "1"


def _unavailable(reason: str) -> NoReturn:
    if _require():
        pytest.fail(f"RELAYBAY_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def chromium_path() -> str | None:
    override = os.environ.get("CHROMIUM_PATH")
    if override:
        return override if Path(override).is_file() else None
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).is_file():
            return candidate
    return shutil.which("chromium")


@dataclass
class WatchedPage:
    """A Playwright page with what it logged: console messages, page errors, CSP reports."""

    page: Any
    console: list[tuple[str, str]] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    seen_violations: list[dict[str, Any]] = field(default_factory=list)

    def csp_violations(self) -> list[Any]:
        """Violations reported to the listener on the current document, plus any CSP
        complaint Chromium wrote to the console (covers earlier documents too)."""
        try:
            current = self.page.evaluate("window.__cspViolations || []")
        except Exception:  # page closed or navigating: the console list still counts
            current = []
        console = [t for kind, t in self.console if "Content Security Policy" in t]
        return [*self.seen_violations, *current, *console]

    def errors(self) -> list[str]:
        """Console errors and warnings, and uncaught page errors — but not an aborted request.

        htmx logs an abort as two console errors, `htmx:afterRequest` then `htmx:sendAbort`.
        The page aborts on purpose: `hx-sync="…:replace"` drops a search or tab request a
        newer one supersedes, and navigating away drops what is in flight. What the newer
        request shows is checked by the test itself; a failed request (`htmx:sendError`,
        `htmx:responseError`) still counts.
        """
        logged = [(kind, text) for kind, text in self.console if kind in ("error", "warning")]
        kept = []
        for at, (kind, text) in enumerate(logged):
            following = logged[at + 1][1] if at + 1 < len(logged) else ""
            if text.startswith("htmx:sendAbort") or (
                text.startswith("htmx:afterRequest") and following.startswith("htmx:sendAbort")
            ):
                continue
            kept.append(f"{kind}: {text}")
        return [*kept, *self.page_errors]

    def remember_violations(self) -> None:
        """Keep the current document's violations before navigating away from it."""
        self.seen_violations.extend(self.page.evaluate("window.__cspViolations || []"))

    def live_log(self) -> list[str]:
        """What LIVE_RECORDER saw on the current document (empty if the page is gone)."""
        try:
            return self.page.evaluate("window.__rbLive || []")
        except Exception:
            return []

    def assert_clean(self) -> None:
        assert self.csp_violations() == [], "CSP violations"
        assert self.errors() == [], "console errors"


def _browser_scope(fixture_name: str, config: pytest.Config) -> str:
    """One Chromium for the whole run; one per module in a pytest-xdist worker (`make test`).

    Playwright's sync API keeps an event loop running in the main thread while it is open, so
    a worker that runs a browser module and then another module would see asyncio.run refuse
    to start and Django refuse database calls ("async context"): the module's end closes it.
    """
    return "module" if os.environ.get("PYTEST_XDIST_WORKER") else "session"


@pytest.fixture(scope=_browser_scope)
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import Error, expect, sync_playwright
    except ImportError:
        _unavailable(
            "playwright is not installed (pip install playwright, no `playwright install`)"
        )
    executable = chromium_path()
    if executable is None:
        _unavailable("Chromium is not installed (apt-get install chromium)")
    # expect() waits 5 s by default: on a 2-CPU machine four times slower than usual, a live
    # update behind a full suite's load took longer (two flakes in one run). The same 10 s
    # as every page action's own default (watched_page).
    expect.set_options(timeout=10_000)
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        except Error as exc:
            _unavailable(f"Chromium at {executable} did not start: {exc.message.splitlines()[0]}")
        yield browser
        browser.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Mark the test whose body failed, so its pages' teardown prints their live logs."""
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


def _print_live_logs(request: pytest.FixtureRequest, pages: list[WatchedPage]) -> None:
    if not request.node.stash.get(_FAILED, False):
        return
    for number, watched in enumerate(pages, start=1):
        print(f"--- live log of page {number} ({watched.page.url}) ---")
        print("\n".join(watched.live_log()) or "(nothing recorded)")


@pytest.fixture
def new_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., WatchedPage]]:
    """Factory: a page of the given viewport in a fresh context (own cookies and storage)."""
    contexts: list[Any] = []
    pages: list[WatchedPage] = []

    def make(
        width: int = 1440,
        height: int = 900,
        color_scheme: str = "light",
        reduced_motion: str = "reduce",  # still screenshots; "no-preference" runs transitions
    ) -> WatchedPage:
        context = browser.new_context(
            viewport={"width": width, "height": height},
            color_scheme=color_scheme,
            reduced_motion=reduced_motion,
        )
        contexts.append(context)
        pages.append(watched_page(context))
        return pages[-1]

    yield make
    _print_live_logs(request, pages)
    for context in contexts:
        context.close()


def watched_page(context: Any, *scripts: str) -> WatchedPage:
    """A new page of `context` whose console, page errors and CSP violations are recorded
    (CSP_WATCH, then `scripts`, run before the page's own)."""
    context.set_default_timeout(10_000)
    for script in (CSP_WATCH, LIVE_RECORDER, *scripts):
        context.add_init_script(script)
    page = context.new_page()
    watched = WatchedPage(page)
    page.on("console", lambda m: watched.console.append((m.type, m.text)))
    page.on("pageerror", lambda e: watched.page_errors.append(str(e)))
    return watched


def save_shot(page: Any, name: str, *, full_page: bool = False, parts: int = 0) -> None:
    """`name`.png: the viewport, or the whole page with `full_page`; with `parts`, also up to
    that many viewport-high slices `name`-part1.png … (a whole long page is too small to
    read), and then without `full_page` the slices alone.

    caret="initial": Playwright's caret hiding leaves style="" behind, and the next htmx
    swap of that element would then count as a CSP violation.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    if full_page or not parts:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page, caret="initial")
    if not parts:
        return
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    total = page.evaluate("document.documentElement.scrollHeight")
    for number, top in enumerate(range(0, min(total, parts * height), height), start=1):
        clip = {"x": 0, "y": top, "width": width, "height": min(height, total - top)}
        path = ARTIFACTS / f"{name}-part{number}.png"
        page.screenshot(path=str(path), full_page=True, clip=clip, caret="initial")


@pytest.fixture
def shot() -> Callable[..., None]:
    return save_shot


# Records notifications and permission requests; `__fakePermission` (set by a test before
# the page's scripts run) stands in for a browser that has not decided yet.
NOTIFICATION_RECORDER = """
(function () {
  var Real = window.Notification;
  window.__notes = [];
  window.__permissionRequests = 0;
  function Recorded(title, options) {
    this.title = title;
    this.tag = options && options.tag;
    this.body = options && options.body;
    this.onclick = null;
    window.__notes.push(this);
  }
  Recorded.prototype.close = function () { this.closed = true; };
  Object.defineProperty(Recorded, "permission", {
    get: function () { return window.__fakePermission || (Real ? Real.permission : "denied"); },
  });
  Recorded.requestPermission = function () {
    window.__permissionRequests += 1;
    if (window.__fakePermission) { window.__fakePermission = "granted"; }
    return Promise.resolve(Recorded.permission);
  };
  window.Notification = Recorded;
})();
"""


@pytest.fixture
def context_page(
    browser: Any, request: pytest.FixtureRequest
) -> Iterator[Callable[..., WatchedPage]]:
    """Like `new_page`, with browser permissions and extra init scripts."""
    contexts: list[Any] = []
    pages: list[WatchedPage] = []

    def make(
        *, permissions: list[str] | None = None, scripts: tuple[str, ...] = (), **viewport: int
    ) -> WatchedPage:
        context = browser.new_context(
            viewport=viewport or {"width": 1440, "height": 900},
            color_scheme="light",
            reduced_motion="reduce",
            permissions=permissions or [],
        )
        contexts.append(context)
        pages.append(watched_page(context, NOTIFICATION_RECORDER, *scripts))
        return pages[-1]

    yield make
    _print_live_logs(request, pages)
    for context in contexts:
        context.close()
