"""The §9 security layers, one by one, against a real `relaybay serve` over real HTTP."""

from __future__ import annotations

import http.client
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from email.message import Message
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlencode

import pytest

from core import tokens
from tests.support.server import RelaybayServer, run_cli

pytestmark = pytest.mark.integration

# Written out on purpose (not imported from core.security): §9.7 says exactly this.
CSP = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
SESSION_COOKIE = "relaybay_session"
NONCE_COOKIE = "relaybay_login_nonce"
ONE_YEAR = 365 * 24 * 3600
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
DISCOVER = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "server/discover",
    "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
}


@dataclass
class Reply:
    status: int
    headers: Message
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def cookies(self) -> dict[str, dict[str, str]]:
        """Set-Cookie headers: name → {"value": …, "httponly": "", "max-age": …, …}."""
        found: dict[str, dict[str, str]] = {}
        for raw in self.headers.get_all("Set-Cookie") or []:
            first, *attributes = (part.strip() for part in raw.split(";"))
            name, _, value = first.partition("=")
            parsed = {"value": value}
            for attribute in attributes:
                key, _, val = attribute.partition("=")
                parsed[key.lower()] = val
            found[name] = parsed
        return found


def call(
    server: RelaybayServer,
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: bytes | str | None = None,
    host: str | None = None,
    read_body: bool = True,
) -> Reply:
    """One request on its own connection; redirects are not followed."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(
            method,
            path,
            body=body,
            headers={"Host": host or f"127.0.0.1:{server.port}", **(headers or {})},
        )
        response = conn.getresponse()
        data = response.read() if read_body else b""
        return Reply(response.status, response.headers, data)
    finally:
        conn.close()


def bearer(server: RelaybayServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.token}"}


def origin(server: RelaybayServer) -> str:
    return f"http://127.0.0.1:{server.port}"


def sign_in(server: RelaybayServer) -> str:
    """The Cookie header a browser holds after opening /login?token=…."""
    reply = call(server, "GET", "/login?" + urlencode({"token": server.token}))
    assert reply.status == 303, reply.text
    return f"{SESSION_COOKIE}={reply.cookies()[SESSION_COOKIE]['value']}"


def assert_security_headers(reply: Reply) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert reply.headers.get_all(name) == [value], (name, reply.status)


def wait_for_log(server: RelaybayServer, needle: str, timeout: float = 5) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = server.log()
        if needle in log:
            return log
        time.sleep(0.05)
    return server.log()


# --- §9.2 Host allow-list -----------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:{port}",
        "127.0.0.1.evil.example:{port}",
        "localhost.evil:{port}",
    ],
)
def test_a_request_with_a_foreign_host_is_refused_before_anything_else(server, host):
    reply = call(server, "GET", "/healthz", host=host.format(port=server.port))
    assert reply.status == 403
    assert "token_id" not in reply.text


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "localhost"]
)
def test_the_loopback_names_are_accepted_as_host(server, host):
    assert call(server, "GET", "/healthz", host=host.format(port=server.port)).status == 200


def test_the_allowed_hosts_setting_adds_a_name_for_the_board_and_for_mcp(server, tmp_path):
    assert call(server, "GET", "/healthz", host=f"board.test:{server.port}").status == 403

    lan = RelaybayServer(home=tmp_path / "home", env={"RELAYBAY_ALLOWED_HOSTS": "board.test"})
    lan.start()
    try:
        host = f"board.test:{lan.port}"
        assert call(lan, "GET", "/healthz", host=host).status == 200
        mcp = call(
            lan,
            "POST",
            "/mcp",
            host=host,
            headers={**MCP_HEADERS, **bearer(lan), "Origin": f"http://{host}"},
            body=json.dumps(DISCOVER),
        )
        assert mcp.status == 200, mcp.text
        assert call(lan, "GET", "/healthz", host=f"other.test:{lan.port}").status == 403
    finally:
        lan.stop()


# --- §9.3 Origin check ----------------------------------------------------------------------

FOREIGN_ORIGINS = ["https://evil.example", "http://127.0.0.1:1", "null"]


@pytest.mark.parametrize("foreign", FOREIGN_ORIGINS)
def test_a_foreign_origin_is_refused_on_a_board_post(server, foreign):
    reply = call(
        server,
        "POST",
        "/",
        headers={**bearer(server), "Origin": foreign, "Sec-Fetch-Site": "same-origin"},
        body=b"",
    )
    assert reply.status == 403


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/mcp"),
        ("GET", "/mcp"),
        ("GET", "/hooks/claude-code"),
        ("POST", "/hooks/claude-code"),
        ("GET", "/api/stats"),
    ],
)
def test_a_foreign_origin_is_refused_on_every_machine_endpoint_even_a_get(server, method, path):
    reply = call(
        server,
        method,
        path,
        headers={**MCP_HEADERS, **bearer(server), "Origin": "https://evil.example"},
        body=json.dumps(DISCOVER) if method == "POST" else None,
    )
    assert reply.status == 403


def test_a_foreign_origin_on_a_board_get_is_left_to_the_sign_in(server):
    # §9.3 refuses a foreign Origin on non-GET requests and machine prefixes only.
    reply = call(server, "GET", "/", headers={**bearer(server), "Origin": "https://evil.example"})
    assert reply.status == 200


def test_the_servers_own_origin_is_accepted(server):
    own = {"Origin": origin(server)}
    stats = call(server, "GET", "/api/stats", headers={**bearer(server), **own})
    assert stats.status == 200
    mcp = call(
        server,
        "POST",
        "/mcp",
        headers={**MCP_HEADERS, **bearer(server), **own},
        body=json.dumps(DISCOVER),
    )
    assert mcp.status == 200, mcp.text


# --- §9.4 Bearer on /mcp, /hooks, /api ------------------------------------------------------

MACHINE_ENDPOINTS = [
    ("POST", "/mcp"),
    ("GET", "/hooks/claude-code"),
    ("POST", "/hooks/claude-code"),
    ("GET", "/api/stats"),
]


@pytest.mark.parametrize(("method", "path"), MACHINE_ENDPOINTS)
@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", "Bearer ", "Basic dXNlcjpwYXNz", "{token}", "Bearer {token}x"],
)
def test_a_missing_or_wrong_bearer_token_gets_401(server, method, path, authorization):
    headers = dict(MCP_HEADERS)
    if authorization is not None:
        headers["Authorization"] = authorization.format(token=server.token)
    body = json.dumps(DISCOVER) if method == "POST" else None
    reply = call(server, method, path, headers=headers, body=body)
    assert reply.status == 401
    assert reply.headers["WWW-Authenticate"] == "Bearer"


def test_the_board_cookie_is_not_a_bearer_token(server):
    reply = call(server, "GET", "/api/stats", headers={"Cookie": sign_in(server)})
    assert reply.status == 401


def test_the_bearer_token_opens_the_machine_endpoints(server):
    stats = call(server, "GET", "/api/stats", headers=bearer(server))
    assert stats.status == 200
    assert "subscribers" in json.loads(stats.body)
    hooks = call(server, "GET", "/hooks/claude-code", headers=bearer(server))
    assert hooks.status not in (401, 403)


# --- §9.5 Browser session -------------------------------------------------------------------


def test_the_bearer_token_also_works_for_board_pages(server):
    reply = call(server, "GET", "/", headers=bearer(server))
    assert reply.status == 200
    assert "text/html" in reply.headers["Content-Type"]


def test_an_unauthenticated_page_visit_redirects_to_login_with_next(server):
    reply = call(server, "GET", "/")
    assert reply.status == 302
    assert reply.headers["Location"] in ("/login?next=%2F", "/login?next=/")
    deep = call(server, "GET", "/some/page?x=1")
    assert deep.status == 302
    assert deep.headers["Location"].startswith("/login?next=")
    assert "/some/page" in deep.headers["Location"]


def test_an_unauthenticated_write_is_refused_without_a_redirect(server):
    reply = call(server, "POST", "/", body=b"")
    assert reply.status == 401


def test_login_with_the_token_sets_the_board_cookie_and_redirects(server):
    reply = call(server, "GET", "/login?" + urlencode({"token": server.token}))
    assert reply.status == 303
    assert reply.headers["Location"] == "/"
    cookie = reply.cookies()[SESSION_COOKIE]
    assert cookie["value"]
    assert server.token not in cookie["value"]
    assert "httponly" in cookie
    assert cookie["samesite"] == "Strict"
    assert cookie["max-age"] == str(ONE_YEAR)
    assert cookie["path"] == "/"
    assert "secure" not in cookie, "plain http: a Secure cookie would never come back"
    page = call(server, "GET", "/", headers={"Cookie": f"{SESSION_COOKIE}={cookie['value']}"})
    assert page.status == 200


def test_login_redirects_to_a_local_next(server):
    query = urlencode({"token": server.token, "next": "/settings?tab=policy"})
    reply = call(server, "GET", "/login?" + query)
    assert reply.status == 303
    assert reply.headers["Location"] == "/settings?tab=policy"


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example",
        "https://evil.example/",
        "/\\evil.example",
        "javascript:alert(1)",
        "///evil.example",
        "\\\\evil.example",
        "/\t/evil.example",
        "http:evil.example",
    ],
)
def test_login_never_redirects_off_site(server, target):
    reply = call(server, "GET", "/login?" + urlencode({"token": server.token, "next": target}))
    assert reply.status == 303
    assert reply.headers["Location"] == "/"


def test_login_with_a_wrong_token_sets_no_cookie(server):
    reply = call(server, "GET", "/login?" + urlencode({"token": "not-the-token", "next": "/"}))
    assert reply.status != 303
    assert SESSION_COOKIE not in reply.cookies()


def login_form(server: RelaybayServer) -> tuple[str, str]:
    """GET /login: the nonce cookie and the nonce in the form must be the same value."""
    page = call(server, "GET", "/login")
    assert page.status == 200
    cookie = page.cookies()[NONCE_COOKIE]
    field = re.search(r'name="nonce" value="([^"]+)"', page.text)
    assert field, page.text
    assert "httponly" in cookie
    assert cookie["samesite"] == "Strict"
    return cookie["value"], field.group(1)


def post_login(server: RelaybayServer, form: dict[str, str], cookie_nonce: str | None) -> Reply:
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if cookie_nonce is not None:
        headers["Cookie"] = f"{NONCE_COOKIE}={cookie_nonce}"
    return call(server, "POST", "/login", headers=headers, body=urlencode(form))


def test_the_sign_in_form_signs_in_with_the_matching_nonce(server):
    cookie_nonce, field_nonce = login_form(server)
    assert cookie_nonce == field_nonce
    reply = post_login(
        server, {"nonce": field_nonce, "token": server.token, "next": "/x"}, cookie_nonce
    )
    assert reply.status == 303
    assert reply.headers["Location"] == "/x"
    assert reply.cookies()[SESSION_COOKIE]["samesite"] == "Strict"


@pytest.mark.parametrize("case", ["no-field", "no-cookie", "mismatch", "both-missing"])
def test_the_sign_in_form_without_the_double_submit_nonce_is_refused(server, case):
    cookie_nonce, field_nonce = login_form(server)
    form = {"token": server.token, "next": "/"}
    if case in ("no-cookie", "mismatch"):
        form["nonce"] = field_nonce
    if case == "mismatch":
        cookie_nonce = "another-" + cookie_nonce
    if case in ("no-cookie", "both-missing"):
        cookie_nonce = None
    reply = post_login(server, form, cookie_nonce)
    assert reply.status != 303
    assert SESSION_COOKIE not in reply.cookies()


def test_the_sign_in_form_with_a_wrong_token_sets_no_cookie(server):
    cookie_nonce, field_nonce = login_form(server)
    reply = post_login(server, {"nonce": field_nonce, "token": "wrong", "next": "/"}, cookie_nonce)
    assert reply.status != 303
    assert SESSION_COOKIE not in reply.cookies()


def test_the_access_log_never_holds_the_token(server):
    call(server, "GET", "/login?" + urlencode({"token": server.token, "next": "/"}))
    call(server, "GET", "/login?" + urlencode({"next": "/", "token": server.token}))
    log = wait_for_log(server, "/login?[redacted]")
    assert "/login?[redacted]" in log
    assert server.token not in log


AWS_KEY_ID = "AKIAQ7ZKM2WX4RT5HJ3N"  # an AWS access key id's shape


def test_the_access_log_masks_secrets_in_every_query_string(server):
    # issue 38: a search for a token was written to the log as typed.
    queries = {
        "token-shaped search": {"q": f"rotate {AWS_KEY_ID} today", "page": "2"},
        "a password by its name": {"password": "Hunter2Hunter2", "next": "/"},
        "user:password in a url": {"q": "https://deploy:S3cretPassw0rd@git.acme.test/x"},
        "a token as a name": {AWS_KEY_ID: ""},
    }
    for query in queries.values():
        call(server, "GET", "/p/acme/docs?" + urlencode(query))
    log = wait_for_log(server, "page=2")
    log = wait_for_log(server, "git.acme.test")
    lines = [line for line in log.splitlines() if "/p/acme/docs?" in line]
    assert len(lines) == len(queries), log
    assert AWS_KEY_ID not in log
    assert "Hunter2Hunter2" not in log
    assert "S3cretPassw0rd" not in log
    assert "/p/acme/docs?q=rotate+***+today&page=2 " in lines[0]
    assert "/p/acme/docs?password=***&next=%2F " in lines[1]  # the rest kept as it came
    assert "/p/acme/docs?q=https://deploy:***@git.acme.test/x " in lines[2]
    assert "/p/acme/docs?***= " in lines[3]


# --- §9.6 CSRF on cookie writes -------------------------------------------------------------


def cookie_post(server: RelaybayServer, extra: dict[str, str], form: dict[str, str] | None = None):
    headers = {"Cookie": sign_in(server), "Content-Type": "application/x-www-form-urlencoded"}
    return call(server, "POST", "/", headers={**headers, **extra}, body=urlencode(form or {}))


def csrf(server: RelaybayServer) -> str:
    return tokens.csrf_token(server.token)


def test_a_cookie_post_without_the_csrf_token_is_refused(server):
    reply = cookie_post(server, {"Origin": origin(server)})
    assert reply.status == 403
    assert "CSRF" in reply.text


def test_a_cookie_post_with_a_wrong_csrf_token_is_refused(server):
    reply = cookie_post(server, {"Origin": origin(server), "X-Relaybay-CSRF": "0" * 40})
    assert reply.status == 403


def test_a_cookie_post_with_the_csrf_token_from_a_foreign_origin_is_refused(server):
    reply = cookie_post(server, {"Origin": "https://evil.example", "X-Relaybay-CSRF": csrf(server)})
    assert reply.status == 403


@pytest.mark.parametrize("fetch_site", [None, "cross-site", "same-site", "none"])
def test_a_cookie_post_that_does_not_show_it_is_same_origin_is_refused(server, fetch_site):
    extra = {"X-Relaybay-CSRF": csrf(server)}
    if fetch_site:
        extra["Sec-Fetch-Site"] = fetch_site
    assert cookie_post(server, extra).status == 403


def test_a_same_origin_cookie_post_with_the_csrf_header_gets_past_security(server):
    reply = cookie_post(server, {"Sec-Fetch-Site": "same-origin", "X-Relaybay-CSRF": csrf(server)})
    assert reply.status not in (401, 403)
    assert reply.status < 500


def test_a_same_origin_cookie_post_with_the_csrf_form_field_gets_past_security(server):
    reply = cookie_post(server, {"Origin": origin(server)}, form={"csrf_token": csrf(server)})
    assert reply.status not in (401, 403)
    assert reply.status < 500


def test_the_board_page_carries_the_csrf_token_for_htmx(server):
    page = call(server, "GET", "/", headers={"Cookie": sign_in(server)})
    assert page.status == 200
    assert csrf(server) in page.text
    assert server.token not in page.text


# --- §9.7 headers on every kind of response --------------------------------------------------


def css_link(server: RelaybayServer) -> str:
    page = call(server, "GET", "/login")
    found = re.search(r'href="(/static/[^"]+\.css\?v=[0-9a-f]+)"', page.text)
    assert found, page.text
    return found.group(1)


RESPONSE_KINDS = {
    "page": lambda s: call(s, "GET", "/", headers=bearer(s)),
    "login page": lambda s: call(s, "GET", "/login"),
    "302 to login": lambda s: call(s, "GET", "/"),
    "303 after login": lambda s: call(s, "GET", "/login?" + urlencode({"token": s.token})),
    "403 host": lambda s: call(s, "GET", "/", host="evil.example"),
    "403 origin": lambda s: call(s, "POST", "/", headers={"Origin": "https://evil.example"}),
    "403 csrf": lambda s: cookie_post(s, {"Origin": origin(s)}),
    "401": lambda s: call(s, "GET", "/api/stats"),
    "404": lambda s: call(s, "GET", "/no-such-page", headers=bearer(s)),
    "static": lambda s: call(s, "GET", css_link(s)),
    "static without v": lambda s: call(s, "GET", css_link(s).split("?")[0]),
    "healthz": lambda s: call(s, "GET", "/healthz"),
    "sse": lambda s: call(s, "GET", "/events", headers=bearer(s), read_body=False),
    "mcp": lambda s: call(
        s, "POST", "/mcp", headers={**MCP_HEADERS, **bearer(s)}, body=json.dumps(DISCOVER)
    ),
}
EXPECTED_STATUS = {
    "page": 200,
    "login page": 200,
    "302 to login": 302,
    "303 after login": 303,
    "403 host": 403,
    "403 origin": 403,
    "403 csrf": 403,
    "401": 401,
    "404": 404,
    "static": 200,
    "static without v": 200,
    "healthz": 200,
    "sse": 200,
    "mcp": 200,
}


@pytest.mark.parametrize("kind", list(RESPONSE_KINDS))
def test_every_kind_of_response_carries_the_security_headers(server, kind):
    reply = RESPONSE_KINDS[kind](server)
    assert reply.status == EXPECTED_STATUS[kind]
    assert_security_headers(reply)


def test_the_event_stream_is_a_server_sent_events_response(server):
    reply = call(server, "GET", "/events", headers=bearer(server), read_body=False)
    assert reply.headers["Content-Type"].startswith("text/event-stream")


def test_static_files_are_immutable_only_at_their_content_hash(server):
    link = css_link(server)
    hashed = call(server, "GET", link)
    assert hashed.status == 200
    assert hashed.headers["Content-Type"].startswith("text/css")
    assert "immutable" in hashed.headers["Cache-Control"]
    assert "max-age=31536000" in hashed.headers["Cache-Control"]
    for stale in (link.split("?")[0], link.split("?")[0] + "?v=000000000000"):
        reply = call(server, "GET", stale)
        assert reply.status == 200
        assert reply.headers["Cache-Control"] == "no-cache"


def test_static_paths_cannot_escape_the_static_folder(server):
    for path in ("/static/../relaybay_site/settings.py", "/static/%2e%2e/%2e%2e/pyproject.toml"):
        reply = call(server, "GET", path)
        assert reply.status in (302, 404), path
        assert b"SECRET_KEY" not in reply.body
        assert b"[project]" not in reply.body


# --- /healthz and the token file ------------------------------------------------------------


def test_healthz_is_public_and_reveals_nothing_about_the_token(server):
    reply = call(server, "GET", "/healthz")
    assert reply.status == 200
    data = json.loads(reply.body)
    assert data["status"] == "ok"
    assert data["version"] == version("relaybay")
    assert re.fullmatch(r"[0-9a-f]{12}", data["token_id"])
    assert data["token_id"] not in server.token
    assert server.token not in reply.text
    assert re.fullmatch(r"[0-9a-f]{8}", data["rules_hash"])


def token_leftovers(home: Path) -> list[str]:
    return [p.name for p in home.iterdir() if p.name.startswith(".token")]


def test_the_token_file_is_private_and_complete(server):
    path = server.home / "token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", server.token), "32 random bytes, URL-safe"
    assert path.read_text().endswith("\n")
    assert token_leftovers(server.home) == []


def test_rotating_the_token_replaces_the_file_and_the_old_sign_in_stops_working(fresh_server):
    srv = fresh_server
    old_token, old_cookie = srv.token, sign_in(srv)
    old_id = srv.healthz()["token_id"]
    path = srv.home / "token"
    old_inode = path.stat().st_ino

    with path.open() as reader_of_the_old_file:
        result = run_cli("token", "--rotate", home=srv.home, timeout=60)
        assert result.returncode == 0, result.stderr
        # Atomic: a new file was renamed over the old one, never rewritten in place.
        assert reader_of_the_old_file.read().strip() == old_token
    new_token = srv.token
    assert new_token != old_token
    assert f"Bearer {new_token}" in result.stdout
    assert path.stat().st_ino != old_inode
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert token_leftovers(srv.home) == []

    srv.stop()
    srv.start()
    assert call(srv, "GET", "/", headers={"Cookie": old_cookie}).status == 302
    assert (
        call(srv, "GET", "/api/stats", headers={"Authorization": f"Bearer {old_token}"}).status
        == 401
    )
    assert call(srv, "GET", "/", headers={"Cookie": sign_in(srv)}).status == 200
    assert call(srv, "GET", "/api/stats", headers=bearer(srv)).status == 200
    assert srv.healthz()["token_id"] != old_id


def test_a_token_file_others_can_read_logs_a_warning_at_start(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    token = tokens.new_token()
    (home / "token").write_text(token + "\n")
    os.chmod(home / "token", 0o644)
    srv = RelaybayServer(home=home).start()
    try:
        assert srv.healthz()["token_id"] == tokens.token_id(token)
        log = srv.log()
        assert "readable by other users" in log
        assert token not in log
    finally:
        srv.stop()


def test_a_private_token_file_logs_no_warning(fresh_server):
    assert "readable by other users" not in fresh_server.log()
