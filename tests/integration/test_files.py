"""Screenshots end to end: attach_file through the real MCP client, then GET /files/<id>
from the real server with its headers (§1 Screenshots, §9.7, §9.10)."""

from __future__ import annotations

import base64
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.integration.mcp_agent import Agent, new_project, new_task, run
from tests.reviews import images
from tests.support.mcp_client import call_tool
from tests.support.server import RelaybayServer

pytestmark = pytest.mark.integration


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


OPENER = urllib.request.build_opener(_NoRedirect)


def fetch(server: RelaybayServer, path: str, token: str | None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(server.base_url + path)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with OPENER.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def attachment_id(answer: str) -> int:
    return int(re.search(r"Attachment #(\d+)", answer).group(1))


def test_an_attached_png_is_served_inline_with_its_type_and_nosniff(
    server: RelaybayServer,
) -> None:
    async def scenario(agent: Agent) -> str:
        await new_project(agent, "shots")
        key = await new_task(agent, "shots", title="Checkout", stage="dev")
        await agent.ok("review_steps_set", task=key, steps=["Open the cart"], session="worker")
        return key

    key = run(server, scenario)
    png = images.png(width=3, height=2)
    answer = call_tool(
        server.base_url,
        server.token,
        "attach_file",
        {"task": key, "content_base64": base64.b64encode(png).decode(), "step": 1},
    )
    number = attachment_id(answer)
    assert answer.startswith(f"Attachment #{number} on step 1 of {key} attached: image/png")
    assert len(png) < 1024
    assert f"image/png, {len(png)} B." in answer  # under 1 KB in bytes, not "1 KB"

    status, headers, body = fetch(server, f"/files/{number}", server.token)
    assert status == 200
    assert body == png
    assert headers["Content-Type"] == "image/png"
    assert headers["Content-Disposition"] == "inline"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src" in headers["Content-Security-Policy"]

    again = call_tool(
        server.base_url,
        server.token,
        "attach_file",
        {"task": key, "content_base64": base64.b64encode(png).decode()},
    )
    assert again.startswith(f"Already attached: attachment #{number} on step 1 of {key}")

    caption = call_tool(
        server.base_url,
        server.token,
        "attachment_caption",
        {"attachment": number, "caption": "Cart"},
    )
    assert caption.startswith(f"Caption of attachment #{number} on {key} written.")

    assert fetch(server, "/files/999999", server.token)[0] == 404
    status, headers, body = fetch(server, f"/files/{number}", None)
    assert status == 302  # no cookie, no token: sent to /login, never the file
    assert headers["Location"].startswith("/login?next=/files/")
    assert body != png
    assert fetch(server, f"/files/{number}", "wrong-token")[0] in (302, 401, 403)


def test_a_gif_polyglot_is_served_as_a_gif_and_svg_is_refused(server: RelaybayServer) -> None:
    polyglot = images.GIF + b"<html><script>alert(document.cookie)</script></html>"

    async def scenario(agent: Agent) -> tuple[str, str]:
        await new_project(agent, "polyglot")
        key = await new_task(agent, "polyglot", title="Polyglot")
        refused = await agent.err(
            "attach_file", task=key, content_base64=base64.b64encode(images.SVG).decode()
        )
        shared = await agent.err("attach_file", task=key, path="//server/share/x.png")
        assert "Network share and device paths" in shared
        ok = await agent.ok(
            "attach_file", task=key, content_base64=base64.b64encode(polyglot).decode()
        )
        return refused, ok

    refused, ok = run(server, scenario)
    assert "not a PNG, JPEG, WebP or GIF image" in refused
    status, headers, body = fetch(server, f"/files/{attachment_id(ok)}", server.token)
    assert status == 200
    assert body == polyglot
    assert headers["Content-Type"] == "image/gif"
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_serve_sweeps_what_a_crash_left_under_attachments(tmp_path: Path) -> None:
    home = tmp_path / "home"
    stray = home / "attachments" / "crashed" / "crashed-1"
    stray.mkdir(parents=True)
    (stray / "0123456789abcdef0123456789abcdef.png").write_bytes(images.png())
    srv = RelaybayServer(home=home).start()
    try:
        assert not (home / "attachments" / "crashed").exists()
        assert (home / "attachments").is_dir()
    finally:
        srv.stop()


def test_a_file_past_the_sdks_4_mib_body_default_reaches_attach_file(
    server: RelaybayServer,
) -> None:
    """The SDK refused /mcp bodies over 4 MiB with a bare 413, so a 3 MB screenshot failed
    as a protocol error although attachments_max_mb is 10: the transport now admits what
    the HTTP parser admits for /mcp, and the tool's own file limit answers."""
    big = images.GIF + b"\0" * (6 * 1024 * 1024)
    over = images.GIF + b"\0" * (10 * 1024 * 1024)

    async def scenario(agent: Agent) -> tuple[str, str]:
        await new_project(agent, "bigfile")
        key = await new_task(agent, "bigfile", title="Big file")
        ok = await agent.ok("attach_file", task=key, content_base64=base64.b64encode(big).decode())
        refused = await agent.err(
            "attach_file", task=key, content_base64=base64.b64encode(over).decode()
        )
        return ok, refused

    ok, refused = run(server, scenario)
    status, _, body = fetch(server, f"/files/{attachment_id(ok)}", server.token)
    assert (status, len(body)) == (200, len(big))
    assert "10 MB" in refused
