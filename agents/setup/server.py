"""What every agent's check asks the server, and the relaybay command line a fix names:
the server answering with the same token, MCP initialize with it, a synthetic event on the
agent's hook route, and whether the interpreter a hook command names imports the hook client.
HTTP goes through http.client directly, so a system proxy never gets in the way of a
loopback check. Nothing here writes a file or creates the token."""

from __future__ import annotations

import http.client
import json
import shlex
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from agents.setup.hook_line import command_args
from agents.setup.items import Item
from core import tokens
from core.config import default_home

HTTP_TIMEOUT = 5.0
IMPORT_TIMEOUT = 15.0
MCP_PROTOCOL_VERSION = "2025-11-25"
DEFAULT_PORT = 8765
CHECK_EVENT = "RelaybayCheck"  # an unknown hook_event_name: the endpoint ignores it (204)


def request(
    base_url: str,
    method: str,
    path: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    """One request to the server; OSError when nothing answers."""
    parts = urlsplit(base_url)
    conn_class = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    conn = conn_class(parts.hostname or "127.0.0.1", parts.port, timeout=HTTP_TIMEOUT)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def healthz(base_url: str) -> dict[str, Any] | None:
    """The server's /healthz answer, None when nothing (or something else) answers."""
    try:
        status, body = request(base_url, "GET", "/healthz")
        data = json.loads(body)
    except (OSError, http.client.HTTPException, ValueError):
        return None
    return data if status == 200 and isinstance(data, dict) else None


def server_items(
    base_url: str,
    token: str | None,
    health: dict[str, Any] | None,
    *,
    reached: bool,
    hook_path: str,
    hook_name: str = "hook endpoint",
) -> list[Item]:
    """relaybay server, MCP with the token, the agent's hook route `hook_path`; only the
    first without a token or when nothing listens. `reached` is whether anything answered."""
    name = "relaybay server"
    if token is None:
        return [
            Item(False, name, "no token file, so the server cannot be checked", relaybay("serve"))
        ]
    if health is None:
        why = "something answers but not as relaybay" if reached else "nothing listens"
        return [Item(False, name, f"{base_url}: {why}", relaybay("serve"))]
    mine = tokens.token_id(token)
    theirs = health.get("token_id")
    version = health.get("version", "?")
    if theirs == mine:
        first = Item(True, name, f"{base_url} answers (relaybay {version}) with the same token")
    else:
        first = Item(
            False,
            name,
            f"{base_url} answers with another token (token id {theirs}, the token file has {mine})",
            "stop that server and run relaybay serve here, or pass its data folder with --home",
        )
    return [first, mcp_item(base_url, token), hook_item(base_url, token, hook_path, hook_name)]


def mcp_item(base_url: str, token: str) -> Item:
    name = "MCP with the token"
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": MCP_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "relaybay-check", "version": "1"},
            },
        }
    ).encode()
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
    }
    try:
        status, reply = request(base_url, "POST", "/mcp", body=body, headers=headers)
    except (OSError, http.client.HTTPException) as exc:
        return Item(False, name, f"POST {base_url}/mcp failed: {exc}", restart())
    if status == 200 and has_result(reply):
        return Item(True, name, f"initialize accepted at {base_url}/mcp")
    detail = f"initialize at {base_url}/mcp answered {status} without a result"
    return Item(False, name, detail, restart())


def has_result(reply: bytes) -> bool:
    """A JSON-RPC result, as plain JSON or in the data lines of an event stream."""
    text = reply.decode("utf-8", "replace")
    candidates = [text] + [
        line.removeprefix("data:").strip() for line in text.splitlines() if line.startswith("data:")
    ]
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict) and "result" in data:
            return True
    return False


def hook_item(base_url: str, token: str, path: str, name: str = "hook endpoint") -> Item:
    """A synthetic event of a kind no adapter handles: accepted (204) and ignored."""
    body = json.dumps({"hook_event_name": CHECK_EVENT, "session_id": "relaybay-check"}).encode()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    try:
        status, _ = request(base_url, "POST", path, body=body, headers=headers)
    except (OSError, http.client.HTTPException) as exc:
        return Item(False, name, f"POST {base_url}{path} failed: {exc}", restart())
    if status in (200, 204):
        return Item(True, name, f"a synthetic hook event was accepted ({status})")
    detail = f"a synthetic hook event was answered {status}"
    if status == 404:
        detail += f": this server has no {path} (one started from an older relaybay?)"
    return Item(False, name, detail, restart())


def rules_item(settings_hash: str, health: dict[str, Any] | None) -> Item:
    name = "rules hash"
    if health is None or "rules_hash" not in health:
        return Item(True, name, f"{settings_hash} (no running server to compare with)")
    running = health["rules_hash"]
    if running == settings_hash:
        return Item(True, name, f"{settings_hash}, the same as the running server's")
    return Item(
        False,
        name,
        f"the settings give {settings_hash} but the running server uses {running}",
        restart() + " (it loads the rules at start)",
    )


def command_runs_item(hook: dict[str, Any], apply: str) -> Item:
    """Whether the interpreter the hook command names imports the hook client; `apply` is
    the agent's `relaybay setup … --apply` line, which writes the hook with this Python."""
    name = "command hook runs"
    args = command_args(hook) or []
    if not args:
        return Item(False, name, "the hook command cannot be parsed", apply)
    python = args[0]
    try:
        done = subprocess.run(  # noqa: S603 - the interpreter named in the user's settings
            [python, "-I", "-c", "import relaybay.hook_client"],
            capture_output=True,
            text=True,
            timeout=IMPORT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Item(False, name, f"{python} cannot run: {exc}", apply)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        detail = f"{python} cannot import relaybay.hook_client: {last}"
        return Item(False, name, detail, f"{apply} (writes the hook with this Python)")
    return Item(True, name, f"{python} imports relaybay.hook_client")


def relaybay(*words: str) -> str:
    """A relaybay command line with the flags that point it at this server's data folder
    and address (none when they are the defaults), so a fix can be pasted as it is."""
    cfg = settings.RELAYBAY
    args = ["relaybay", *words]
    if Path(cfg.home_path) != default_home():
        args += ["--home", str(cfg.home_path)]
    for name, default in (("host", "127.0.0.1"), ("port", DEFAULT_PORT)):
        if cfg[name] != default:
            args += [f"--{name}", str(cfg[name])]
    return shlex.join(args)


def restart() -> str:
    return f"restart the server: stop it, then {relaybay('serve')}"


def listens(base_url: str) -> bool:
    try:
        request(base_url, "GET", "/healthz")
    except (OSError, http.client.HTTPException):
        return False
    return True


def seen_item(agent: str, name: str, title: str, run: str, *, database_file: bool = True) -> Item:
    """`name` ("Codex hook event seen"): a session the agent's hooks reported (Session.agent),
    from the server's database, or `run` (how to make one) as the fix. With `database_file`
    the database file is looked for first, so that reading never creates it."""
    from django.core.exceptions import FieldError
    from django.db import DatabaseError
    from django.db.models.functions import Coalesce

    from core.display import ago
    from sessions.models import Session

    database = settings.DATABASES["default"]["NAME"]
    if database_file and not Path(database).is_file():
        return Item(
            False, name, f"no database in the data folder yet ({database})", relaybay("serve")
        )
    # the hook activity (written at most every 5 s), else the last write, else the start
    last = Coalesce("activity_at", "last_seen_at", "created_at")
    try:
        row = (
            Session.objects.filter(agent=agent)
            .annotate(last=last)
            .order_by("-last", "-id")
            .values_list("name", "last")
            .first()
        )
    except (DatabaseError, FieldError) as exc:
        return Item(False, name, f"cannot read the sessions ({exc})", restart())
    if row is None:
        return Item(False, name, f"no session reported by {title}'s hooks yet", run)
    session, when = row
    return Item(True, name, f"last from session {session}, {ago(when)}")
