"""An open board page after `relaybay token --rotate` and a restart (§2 Live updates, §9).

The board cookie is an HMAC of the token, so a rotation signs every browser out. The page's
live connection then fails for a reason the EventSource cannot see; app.js asks the server
once per failed attempt and, when it is signed out, goes to the sign-in page with the same
`next` the server's own redirect for a signed-out GET would give. A server that is merely
down (or back with the same token) keeps the page where it is: offline, then live again.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.browser.helpers import sign_in, wait_state
from tests.support.server import RelaybayServer, run_cli

pytestmark = [pytest.mark.browser, pytest.mark.integration]

DESKTOP = {"width": 1440, "height": 900}
# A page with a query string, so the test also sees that the query goes into `next`.
PAGE = "/activity?kind=task.created"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def server_redirect_for(server: RelaybayServer, path: str) -> str:
    """Where the server itself sends a signed-out GET of `path` (its Location header)."""
    opener = urllib.request.build_opener(_NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as caught:
        opener.open(server.base_url + path, timeout=5)
    assert caught.value.code == 302
    return caught.value.headers["Location"]


def expected_noise(errors: list[str]) -> list[str]:
    """Console lines a server restart may leave: failed requests while it was down, and the
    live stream answered with the sign-in page (HTML) once the old cookie stopped counting."""
    return [
        e
        for e in errors
        if "/events" not in e
        and "/session-check" not in e
        and "ERR_" not in e
        and "EventSource's response has a MIME type" not in e
    ]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_after_a_token_rotation_and_restart_the_page_goes_to_sign_in(home, new_page):
    first = RelaybayServer(home=home).start()
    again: RelaybayServer | None = None
    try:
        w = new_page(**DESKTOP)
        page = w.page
        sign_in(page, first, PAGE)
        wait_state(page, "live")
        old_token = first.token

        first.stop()
        wait_state(page, "offline")
        rotated = run_cli("token", "--rotate", home=home)
        assert rotated.returncode == 0, rotated.stderr
        assert first.token != old_token
        again = RelaybayServer(home=home, port=first.port).start()

        login_url = f"{again.base_url}/login?next={quote(PAGE, safe='/')}"
        # Exactly what the server answers a signed-out GET of the same page.
        assert server_redirect_for(again, PAGE) == login_url.removeprefix(again.base_url)
        page.wait_for_url(login_url, timeout=20_000)
        assert page.locator('input[name="next"]').input_value() == PAGE
        w.remember_violations()

        # Signing in with the new token leads back to the page, live again.
        page.locator("#token").fill(again.token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(again.base_url + PAGE)
        wait_state(page, "live")
        assert w.csp_violations() == []
        assert expected_noise(w.errors()) == []
    finally:
        first.stop()
        if again is not None:
            again.stop()


def test_a_restart_without_rotation_keeps_the_page_and_goes_live_again(home, new_page):
    first = RelaybayServer(home=home).start()
    again: RelaybayServer | None = None
    try:
        w = new_page(**DESKTOP)
        page = w.page
        sign_in(page, first, PAGE)
        wait_state(page, "live")

        first.stop()
        wait_state(page, "offline")
        again = RelaybayServer(home=home, port=first.port).start()
        wait_state(page, "live", timeout=30_000)
        assert page.url == again.base_url + PAGE
        # Still signed in: a few more seconds bring no detour to the sign-in page.
        page.wait_for_timeout(1500)
        assert page.url == again.base_url + PAGE
        assert page.locator("#live-status .label").inner_text() == "live"
        assert w.csp_violations() == []
        assert expected_noise(w.errors()) == []
    finally:
        first.stop()
        if again is not None:
            again.stop()


def test_a_server_that_stays_down_leaves_the_page_offline_and_retrying(home, new_page):
    """No answer at all is not "signed out": the page stays, offline, and keeps trying."""
    srv = RelaybayServer(home=home).start()
    try:
        w = new_page(**DESKTOP)
        page = w.page
        sign_in(page, srv, PAGE)
        wait_state(page, "live")
        srv.stop()
        wait_state(page, "offline")
        page.wait_for_timeout(4000)  # several failed attempts (1 s, 2 s backoff)
        assert page.url == srv.base_url + PAGE
        assert page.locator("#live-status .label").inner_text() == "offline"
        assert w.csp_violations() == []
        assert expected_noise(w.errors()) == []
    finally:
        srv.stop()
