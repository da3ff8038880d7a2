"""Settings → Integrations: Claude Code and Codex on this machine, from the board (§5
#spec-setup).

The page shows what `relaybay setup` shows — detection, the plan for the chosen hook type,
its diff, notes and hash — plus the check results and the unlinked hook sessions. Apply
and Remove ask for confirmation on a rendered page and write only the plan that page
showed: the form carries the plan hash, and a file that changed meanwhile is refused with
the new plan shown. Writes need the board cookie and the CSRF token (the middleware) and
are refused with the Bearer token. Successful writes answer 303 with a flash (§9). The
check, as `relaybay doctor`, gives an agent not connected one ok line naming the command.

Codex is shown beside it: detected, its hooks in config.toml present and trusted, MCP
registered, a hook event seen, each failure with its fix, and the `relaybay setup --agent
codex` lines that connect it (the page writes only Claude Code's file).

Detection runs `claude --version` (and `codex --version`) and the check calls this server
over HTTP, so both run in a worker thread from async views: neither holds the thread the
rest of Django needs.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.views.decorators.http import require_POST, require_safe

from agents.claude_code.setup import checks, detect
from agents.claude_code.setup.plan import make_plan
from agents.codex.setup import checks as codex_checks
from agents.codex.setup import config as codex
from agents.setup import document
from agents.setup import items as setup_items
from agents.setup.plan import Plan, PlanChanged, read_bytes, write_plan
from agents.setup.target import server_target, target_problem
from core import flash, tokens
from core.responses import plain
from core.security import current_token, owner_only
from relaybay_site.settings_pages import settings_sections
from sessions.selectors import unlinked_hook_sessions

MODES = ("command", "http")
BEARER_REFUSAL = (
    "Refused: Settings → Integrations acts only for a signed-in browser (board cookie and "
    "CSRF token), not with the Bearer token."
)
CHANGED = (
    "{path} changed since the plan was shown, so nothing was written. The new plan is "
    "below: check it, then press {button} again."
)


def claude_home() -> Path:
    """Whose Claude Code: the user running the server (HOME), as `relaybay setup` does."""
    return Path.home()


@dataclass(frozen=True)
class PlanView:
    """A plan as the page shows it: the diff as classed lines, notes and the hash."""

    action: str
    hash: str
    changed: bool
    lines: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]


def _view(plan: Plan, extra_notes: tuple[str, ...] = ()) -> PlanView:
    return PlanView(
        action=plan.action,
        hash=plan.hash,
        changed=plan.changed,
        lines=tuple((_line_class(line), line) for line in plan.diff.splitlines()),
        notes=plan.notes + extra_notes,
    )


def _line_class(line: str) -> str:
    if line.startswith(("---", "+++")):
        return "file"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "ctx")


@dataclass(frozen=True)
class State:
    """Detection and both plans for one hook type; `error` when the file is refused."""

    mode: str
    claude: detect.ClaudeCode
    settings_path: Path
    apply: Plan | None
    remove: Plan | None
    error: str | None

    def plan(self, action: str) -> Plan | None:
        return self.apply if action == "apply" else self.remove


def _state(mode: str, claude: detect.ClaudeCode) -> State:
    cfg = settings.RELAYBAY
    target = server_target(cfg)
    settings_path = detect.settings_file(claude_home())
    problem = target_problem(target)
    if problem:
        return State(mode, claude, settings_path, None, None, problem)
    try:
        apply = make_plan(settings_path, target, action="apply", mode=mode)
        remove = make_plan(settings_path, target, action="remove")
    except document.SettingsError as exc:
        return State(mode, claude, settings_path, None, None, f"Refused: {exc}")
    except OSError as exc:
        return State(mode, claude, settings_path, None, None, f"Cannot read {settings_path}: {exc}")
    return State(mode, claude, settings_path, apply, remove, None)


def installed_mode(settings_path: Path, base_url: str) -> str:
    """The hook type installed for this server: http when its hooks are http hooks."""
    try:
        data = document.parse(document.decode(read_bytes(settings_path)))
    except (document.SettingsError, OSError):
        return "command"
    hooks = [h for found in checks.hooks_for(data, base_url).values() for h in found]
    return "http" if any(h.get("type") == "http" for h in hooks) else "command"


def _mode_of(raw: str | None) -> str | None:
    """The chosen hook type, by default the installed one; None when the value is not one."""
    if raw is None or raw == "":
        return installed_mode(detect.settings_file(claude_home()), settings.RELAYBAY.base_url)
    return raw if raw in MODES else None


def _unknown_mode(raw: str | None) -> str:
    return f"Unknown hook type {raw!r}: choose command or http."


def page_url(mode: str | None = None) -> str:
    url = reverse("integrations")
    return f"{url}?{urlencode({'mode': mode})}" if mode else url


# --- page context ---------------------------------------------------------------------------


def _extra_notes(state: State, plan: Plan) -> tuple[str, ...]:
    """Notes that depend on the detected Claude Code, not on the file (as the CLI prints)."""
    if plan.action != "apply" or state.mode != "http":
        return ()
    note = detect.http_hooks_note(state.claude)
    return (note,) if note else ()


def _plan_context(state: State) -> dict[str, Any]:
    return {
        "mode": state.mode,
        "modes": MODES,
        "settings_path": state.settings_path,
        "settings_error": state.error,
        "apply": _view(state.apply, _extra_notes(state, state.apply)) if state.apply else None,
        "remove": _view(state.remove) if state.remove else None,
        "urls": {
            "page": reverse("integrations"),
            "plan": reverse("integrations_plan"),
            "apply": reverse("integrations_apply"),
            "remove": reverse("integrations_remove"),
        },
    }


def _machine(state: State) -> dict[str, Any]:
    cfg = settings.RELAYBAY
    registered = detect.mcp_registration(claude_home() / ".claude.json")
    return {
        "claude_path": state.claude.path,
        "connected": detect.claude_connected(claude_home()),
        "claude_version": detect.show_version(state.claude.version),
        "http_hooks": state.claude.http_hooks,
        "http_minimum": detect.show_version(detect.MIN_HTTP_HOOKS_VERSION),
        "desktop": detect.desktop_line(claude_home()),
        "base_url": cfg.base_url,
        "mcp_url": registered,
        "mcp_other": bool(registered) and registered != cfg.base_url + "/mcp",
        "mcp_command": tokens.mcp_add_command(cfg.base_url, "<token>"),
    }


def _check_context(items: list[dict[str, Any]] | None, message: str = "") -> dict[str, Any]:
    return {
        "check": items,
        "check_message": message,
        "check_url": reverse("integrations_check"),
    }


def _codex_files() -> dict[str, Any]:
    """Codex's detection, its config.toml items and how to connect it: subprocesses and file
    reads, so a worker thread runs this; `_page` adds the hook event seen (the database)."""
    cfg = settings.RELAYBAY
    home = codex.codex_home()  # the server's $CODEX_HOME, else ~/.codex, as setup's
    found = codex.detect_codex()
    using = codex_checks.connected(home)
    token_file = str(tokens.token_path(cfg.home_path))
    items = []
    if using:
        items = codex_checks.codex_items(
            home, cfg.base_url, token_file, found, env=False, seen=False
        )
    offers = codex.offers_mcp_add(found)
    return {
        "path": found.path,
        "version": detect.show_version(found.version),
        "using": using,
        "config": codex.config_file(home),
        "items": [i.as_dict() for i in items],
        "mcp_ok": any(i.ok for i in items if i.name == codex_checks.MCP),
        "mcp_line": codex.mcp_add_command(cfg.base_url) if offers else None,
        "mcp_table": None if offers else codex.mcp_table(cfg.base_url),
        "token_export": codex.token_export(token_file),
        "setup": codex_checks.setup_fix(home),
    }


def _with_seen(view: dict[str, Any] | None) -> dict[str, Any] | None:
    if view is None or not view["using"]:
        return view
    seen = codex_checks.seen_item(database_file=False).as_dict()
    return {**view, "items": [*view["items"], seen]}


def _page(
    request: HttpRequest,
    state: State,
    *,
    refusal: str | None = None,
    status: int = 200,
    codex_view: dict[str, Any] | None = None,
) -> HttpResponse:
    shown = flash.take(request)
    context = {
        "sections": settings_sections("integrations"),
        "machine": _machine(state),
        "codex": _with_seen(codex_view),
        "flash": shown,
        "refusal": refusal,
        "unlinked": unlinked_hook_sessions(),
        "unlinked_url": reverse("integrations_unlinked"),
        **_plan_context(state),
        **(
            _check_context(list(shown.items), shown.message)
            if shown and shown.items
            else _check_context(None)
        ),
    }
    response = render(request, "relaybay_site/integrations.html", context, status=status)
    return flash.forget(request, response)


def _summary(items: list[setup_items.Item]) -> str:
    failed = sum(not i.ok for i in items)
    if not failed:
        return f"Check: all {len(items)} items ok."
    return f"Check: {failed} of {len(items)} items failed."


# --- views ----------------------------------------------------------------------------------


@require_safe
async def integrations(request: HttpRequest) -> HttpResponse:
    raw = request.GET.get("mode")
    mode = _mode_of(raw)
    refusal = None if mode is not None else _unknown_mode(raw)
    claude, codex_view = await asyncio.gather(
        asyncio.to_thread(detect.detect_claude), asyncio.to_thread(_codex_files)
    )
    state = await asyncio.to_thread(_state, mode or _mode_of(None) or "command", claude)
    return await sync_to_async(_page)(
        request,
        state,
        refusal=refusal,
        status=200 if refusal is None else 400,
        codex_view=codex_view,
    )


@require_safe
async def integrations_plan(request: HttpRequest) -> HttpResponse:
    """The plan section for the Hook type select (htmx swaps it in place)."""
    raw = request.GET.get("mode")
    mode = _mode_of(raw)
    if mode is None:
        return plain(_unknown_mode(raw), 400)
    claude = await asyncio.to_thread(detect.detect_claude)
    state = await asyncio.to_thread(_state, mode, claude)
    return await sync_to_async(render)(
        request, "relaybay_site/partials/integrations_plan.html", _plan_context(state)
    )


@require_safe
def integrations_unlinked(request: HttpRequest) -> HttpResponse:
    """The unlinked hook sessions, refetched when sessions change."""
    return render(
        request,
        "relaybay_site/partials/integrations_unlinked.html",
        {"unlinked": unlinked_hook_sessions(), "unlinked_url": reverse("integrations_unlinked")},
    )


@require_POST
@owner_only(BEARER_REFUSAL)
async def integrations_check(request: HttpRequest) -> HttpResponse:
    """Run the §5 check items; htmx gets the results in place, a plain form a 303 + flash."""
    items = await asyncio.to_thread(
        checks.check_items,
        settings.RELAYBAY.base_url,
        current_token(),
        claude_home(),
        if_connected=True,
    )
    items += await _codex_check_items(current_token(), server_ok=items[0].ok)
    rows = [i.as_dict() for i in items]
    if request.htmx:
        return await sync_to_async(render)(
            request,
            "relaybay_site/partials/integrations_check.html",
            _check_context(rows, _summary(items)),
        )
    mode = request.POST.get("mode")
    target = page_url(mode if mode in MODES else None)
    return flash.redirect_with(
        request, target, flash.Flash(_summary(items), all(i.ok for i in items), tuple(rows))
    )


async def _codex_check_items(token: str, *, server_ok: bool) -> list[setup_items.Item]:
    """Codex's items after Claude Code's when it is connected (else one ok line naming the
    command): its hook route (when the server answered), config.toml and a hook event seen
    (not RELAYBAY_TOKEN: the server's environment is not Codex's)."""
    cfg = settings.RELAYBAY
    home = codex.codex_home()
    if not await asyncio.to_thread(codex_checks.connected, home):
        connect = codex_checks.setup_fix(home, "--apply")
        return [setup_items.not_connected(codex_checks.DETECTED, connect)]
    found = await asyncio.to_thread(codex.detect_codex)
    token_file = str(tokens.token_path(cfg.home_path))
    items = []
    if server_ok:
        items.append(await asyncio.to_thread(codex_checks.endpoint_item, cfg.base_url, token))
    items += await asyncio.to_thread(
        codex_checks.codex_items, home, cfg.base_url, token_file, found, env=False, seen=False
    )
    seen = await sync_to_async(codex_checks.seen_item)(database_file=False)
    return [*items, seen]


@require_POST
@owner_only(BEARER_REFUSAL)
async def integrations_write(request: HttpRequest, action: str) -> HttpResponse:
    """Apply or Remove: confirm the plan shown, then write exactly that plan."""
    raw = request.POST.get("mode", "command") if action == "apply" else "command"
    mode = raw if raw in MODES else None
    expect = request.POST.get("expect", "").strip()
    refusal = None
    if mode is None:
        refusal = _unknown_mode(raw) + " Nothing was written."
    elif not expect:
        refusal = (
            "The plan hash (expect) is missing, so nothing was written: confirm the plan "
            "shown below."
        )
    claude = await asyncio.to_thread(detect.detect_claude)
    if refusal is not None:
        state = await asyncio.to_thread(_state, _mode_of(None) or "command", claude)
        return await sync_to_async(_page)(request, state, refusal=refusal, status=400)
    return await sync_to_async(_write)(request, action, mode, expect, claude)


def _write(
    request: HttpRequest, action: str, mode: str, expect: str, claude: detect.ClaudeCode
) -> HttpResponse:
    state = _state(mode, claude)
    plan = state.plan(action)
    button = "Apply" if action == "apply" else "Remove"
    if plan is None:
        return _page(request, state, refusal=state.error, status=409)
    if plan.hash != expect:
        refusal = CHANGED.format(path=plan.path, button=button)
        return _page(request, state, refusal=refusal, status=409)
    if request.POST.get("confirmed") != "yes":
        return _confirm(request, state, plan)
    try:
        backup = write_plan(plan)
    except PlanChanged:
        refusal = CHANGED.format(path=plan.path, button=button)
        return _page(request, _state(mode, claude), refusal=refusal, status=409)
    except OSError as exc:
        return _page(request, state, refusal=f"Cannot write {plan.path}: {exc}", status=409)
    back = page_url(mode if action == "apply" else None)
    return flash.redirect_with(request, back, flash.Flash(_written(plan, backup)))


def _written(plan: Plan, backup: Path | None) -> str:
    if not plan.changed:
        return f"Nothing to write: {plan.path} already is as planned."
    done = "Removed relaybay's entries from" if plan.action == "remove" else "Wrote"
    kept = f" Backup: {backup}." if backup else ""
    return f"{done} {plan.path}.{kept} Restart Claude Code sessions to load it."


def _confirm(request: HttpRequest, state: State, plan: Plan) -> HttpResponse:
    context = {
        "sections": settings_sections("integrations"),
        "plan": _view(plan, _extra_notes(state, plan)),
        "mode": state.mode,
        "settings_path": state.settings_path,
        "write_url": reverse(f"integrations_{plan.action}"),
        "cancel_url": page_url(state.mode),
    }
    return render(request, "relaybay_site/integrations_confirm.html", context)


urlpatterns = [
    path("settings/integrations", integrations, name="integrations"),
    path("settings/integrations/plan", integrations_plan, name="integrations_plan"),
    path("settings/integrations/unlinked", integrations_unlinked, name="integrations_unlinked"),
    path("settings/integrations/check", integrations_check, name="integrations_check"),
    path(
        "settings/integrations/apply",
        integrations_write,
        {"action": "apply"},
        name="integrations_apply",
    ),
    path(
        "settings/integrations/remove",
        integrations_write,
        {"action": "remove"},
        name="integrations_remove",
    ),
]
