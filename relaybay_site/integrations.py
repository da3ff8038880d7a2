"""Settings → Integrations: every agent CLI on this machine, from the board (§5
#spec-setup).

For each agent of the registry (agents/registry.py), in its order, the page shows what
`relaybay setup --agent …` shows — the package's facts section (detection, its file, the
MCP registration), the plan for the chosen hook type, its diff, notes and hash — then the
check results of all of them and the unlinked hook sessions. Apply and Remove ask for
confirmation on a rendered page and write only the plan that page showed: the form
carries the agent and the plan hash, and a file that changed meanwhile is refused with
the new plan shown. Writes need the board cookie and the CSRF token (the middleware) and
are refused with the Bearer token. Successful writes answer 303 with a flash (§9). The
check, as `relaybay doctor`, gives an agent not connected one ok line naming the command.

Detection runs the agents' CLIs (`<cli> --version`) and the check calls this server over
HTTP, so both run in worker threads from async views: neither holds the thread the rest
of Django needs. This module names no agent; each package's setup.panel does its part.
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

from agents.registry import panels, specs
from agents.setup import items as setup_items
from agents.setup import server
from agents.setup.panel import Panel, Plans
from agents.setup.plan import Plan, PlanChanged, write_plan
from core import flash
from core.responses import plain
from core.security import current_token, owner_only
from relaybay_site.settings_pages import settings_sections
from sessions.selectors import unlinked_hook_sessions

BEARER_REFUSAL = (
    "Refused: Settings → Integrations acts only for a signed-in browser (board cookie and "
    "CSRF token), not with the Bearer token."
)
CHANGED = (
    "{path} changed since the plan was shown, so nothing was written. The new plan is "
    "below: check it, then press {button} again."
)


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
    """One agent's detection and both plans for one hook type."""

    panel: Panel
    mode: str
    facts: dict[str, Any]
    plans: Plans


def _state(panel: Panel, mode: str | None, facts: dict[str, Any] | None = None) -> State:
    """Detection (unless given) and the plans; the installed hook type when `mode` is None.
    Subprocesses and file reads: a worker thread runs this."""
    facts = panel.facts() if facts is None else facts
    mode = mode or panel.installed_mode(settings.RELAYBAY.base_url)
    return State(panel, mode, facts, panel.plans(mode, facts))


def _panel(raw: str | None) -> Panel | None:
    """The agent a request names, the first of the registry when it names none."""
    found = panels()
    if not raw:
        return found[0]
    return next((p for p in found if p.name == raw), None)


def _unknown_agent(raw: str | None) -> str:
    names = " or ".join(p.name for p in panels())
    return f"Unknown agent {raw!r}: choose {names}."


def _unknown_mode(panel: Panel, raw: str | None) -> str:
    return f"Unknown hook type {raw!r}: choose {' or '.join(panel.modes)}."


def page_url(agent: str | None = None, mode: str | None = None) -> str:
    """The page (for `agent`'s hook type `mode`); the first agent of the registry, the
    default, is not named."""
    url = reverse("integrations")
    agent = None if agent == panels()[0].name else agent
    query = {k: v for k, v in (("agent", agent), ("mode", mode)) if v}
    return f"{url}?{urlencode(query)}" if query else url


# --- page context ---------------------------------------------------------------------------


def _plan_context(state: State) -> dict[str, Any]:
    panel, plans = state.panel, state.plans
    notes = panel.apply_notes(state.mode, state.facts)
    return {
        "agent": panel.name,
        "title": panel.title,
        "file_label": panel.file_label,
        "mode": state.mode,
        "modes": panel.modes,
        "mode_help": panel.mode_help(state.mode),
        "plan_help": panel.plan_help(),
        "settings_path": plans.path,
        "settings_error": plans.error,
        "apply": _view(plans.apply, notes) if plans.apply else None,
        "remove": _view(plans.remove) if plans.remove else None,
        "urls": {
            "page": reverse("integrations"),
            "plan": reverse("integrations_plan"),
            "apply": reverse("integrations_apply"),
            "remove": reverse("integrations_remove"),
        },
    }


def _check_context(items: list[dict[str, Any]] | None, message: str = "") -> dict[str, Any]:
    return {
        "check": items,
        "check_message": message,
        "check_url": reverse("integrations_check"),
        "check_agents": ", ".join(p.title for p in panels()),
    }


def _section(state: State) -> dict[str, Any]:
    """One agent's part of the page: its facts (with its lines that need the database)
    for its own template, and its plan."""
    seen = [i.as_dict() for i in state.panel.seen_items()]
    return {
        "template": state.panel.template,
        "facts": {**state.facts, "seen": seen},
        "plan": _plan_context(state),
    }


def _page(
    request: HttpRequest,
    states: list[State],
    *,
    refusal: str | None = None,
    status: int = 200,
) -> HttpResponse:
    shown = flash.take(request)
    context = {
        "sections": settings_sections("integrations"),
        "agents": [_section(s) for s in states],
        "titles": _spoken([s.panel.title for s in states]),
        "flash": shown,
        "refusal": refusal,
        "unlinked": unlinked_hook_sessions(),
        "unlinked_url": reverse("integrations_unlinked"),
        **(
            _check_context(list(shown.items), shown.message)
            if shown and shown.items
            else _check_context(None)
        ),
    }
    response = render(request, "relaybay_site/integrations.html", context, status=status)
    return flash.forget(request, response)


async def _states(chosen: Panel | None = None, mode: str | None = None) -> list[State]:
    """Every agent's state at once (each in a worker thread): `mode` for the chosen one,
    the installed hook type for the others."""
    return list(
        await asyncio.gather(
            *(
                asyncio.to_thread(_state, panel, mode if panel is chosen else None)
                for panel in panels()
            )
        )
    )


def _spoken(names: list[str]) -> str:
    """ "Claude Code, Codex and Gemini CLI"."""
    return " and ".join(filter(None, (", ".join(names[:-1]), names[-1] if names else "")))


def _summary(items: list[setup_items.Item]) -> str:
    failed = sum(not i.ok for i in items)
    if not failed:
        return f"Check: all {len(items)} items ok."
    return f"Check: {failed} of {len(items)} items failed."


def _refused_request(raw_agent: str | None, raw_mode: str | None) -> tuple[Panel | None, str]:
    """The agent and why its mode cannot be used ("" when it can)."""
    panel = _panel(raw_agent)
    if panel is None:
        return None, _unknown_agent(raw_agent)
    if raw_mode and raw_mode not in panel.modes:
        return panel, _unknown_mode(panel, raw_mode)
    return panel, ""


# --- views ----------------------------------------------------------------------------------


@require_safe
async def integrations(request: HttpRequest) -> HttpResponse:
    panel, refusal = _refused_request(request.GET.get("agent"), request.GET.get("mode"))
    mode = None if refusal else request.GET.get("mode") or None
    states = await _states(panel, mode)
    return await sync_to_async(_page)(
        request, states, refusal=refusal or None, status=400 if refusal else 200
    )


@require_safe
async def integrations_plan(request: HttpRequest) -> HttpResponse:
    """One agent's plan section for its Hook type select (htmx swaps it in place)."""
    raw = request.GET.get("mode")
    panel, refusal = _refused_request(request.GET.get("agent"), raw)
    if panel is None or refusal or not raw:
        return plain(refusal or (_unknown_mode(panel, raw) if panel else ""), 400)
    state = await asyncio.to_thread(_state, panel, raw)
    return await sync_to_async(render)(
        request, "relaybay_site/partials/integrations_plan.html", {"p": _plan_context(state)}
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
    """The §5 check items: the server once, then each agent's; htmx gets the results in
    place, a plain form a 303 + flash."""
    items = await asyncio.to_thread(_server_items, current_token())
    server_ok = items[0].ok
    found = await asyncio.gather(
        *(
            asyncio.to_thread(
                p.check_items, settings.RELAYBAY.base_url, current_token(), server_ok=server_ok
            )
            for p in panels()
        )
    )
    for panel, agent_items in zip(panels(), found, strict=True):
        items += agent_items + await sync_to_async(panel.seen_items)()
    rows = [i.as_dict() for i in items]
    if request.htmx:
        return await sync_to_async(render)(
            request,
            "relaybay_site/partials/integrations_check.html",
            _check_context(rows, _summary(items)),
        )
    panel, refusal = _refused_request(request.POST.get("agent"), request.POST.get("mode"))
    mode = request.POST.get("mode") if panel and not refusal else None
    target = page_url(panel.name if panel and mode else None, mode)
    return flash.redirect_with(
        request, target, flash.Flash(_summary(items), all(i.ok for i in items), tuple(rows))
    )


def _server_items(token: str) -> list[setup_items.Item]:
    """The server with the token, MCP, and a synthetic event on the first agent's route."""
    base_url = settings.RELAYBAY.base_url
    health = server.healthz(base_url)
    reached = health is not None or server.listens(base_url)
    return server.server_items(base_url, token, health, reached=reached, hook_path=specs()[0].path)


@require_POST
@owner_only(BEARER_REFUSAL)
async def integrations_write(request: HttpRequest, action: str) -> HttpResponse:
    """Apply or Remove: confirm the plan shown, then write exactly that plan."""
    raw_mode = request.POST.get("mode", "") if action == "apply" else ""
    panel, refusal = _refused_request(request.POST.get("agent"), raw_mode)
    expect = request.POST.get("expect", "").strip()
    if refusal:
        refusal += " Nothing was written."
    elif not expect:
        refusal = (
            "The plan hash (expect) is missing, so nothing was written: confirm the plan "
            "shown below."
        )
    if panel is None or refusal:
        return await sync_to_async(_page)(request, await _states(), refusal=refusal, status=400)
    state = await asyncio.to_thread(_state, panel, raw_mode or panel.modes[0])
    plan = state.plans.plan(action)
    if plan is None:
        states = await _states(panel, state.mode)
        return await sync_to_async(_page)(request, states, refusal=state.plans.error, status=409)
    return await _write(request, plan, state, expect)


async def _write(request: HttpRequest, plan: Plan, state: State, expect: str) -> HttpResponse:
    action = plan.action
    button = "Apply" if action == "apply" else "Remove"
    changed = CHANGED.format(path=plan.path, button=button)
    if plan.hash != expect:
        states = await _states(state.panel, state.mode)
        return await sync_to_async(_page)(request, states, refusal=changed, status=409)
    if request.POST.get("confirmed") != "yes":
        return await sync_to_async(_confirm)(request, state, plan)
    try:
        backup = await asyncio.to_thread(write_plan, plan)
    except PlanChanged:
        states = await _states(state.panel, state.mode)
        return await sync_to_async(_page)(request, states, refusal=changed, status=409)
    except OSError as exc:
        states = await _states(state.panel, state.mode)
        refusal = f"Cannot write {plan.path}: {exc}"
        return await sync_to_async(_page)(request, states, refusal=refusal, status=409)
    back = page_url(state.panel.name, state.mode) if action == "apply" else page_url()
    return flash.redirect_with(request, back, flash.Flash(_written(state.panel, plan, backup)))


def _written(panel: Panel, plan: Plan, backup: Path | None) -> str:
    if not plan.changed:
        return f"Nothing to write: {plan.path} already is as planned."
    done = "Removed relaybay's entries from" if plan.action == "remove" else "Wrote"
    kept = f" Backup: {backup}." if backup else ""
    return f"{done} {plan.path}.{kept} Restart {panel.title} sessions to load it."


def _confirm(request: HttpRequest, state: State, plan: Plan) -> HttpResponse:
    context = {
        "sections": settings_sections("integrations"),
        "plan": _view(plan, state.panel.apply_notes(state.mode, state.facts)),
        "agent": state.panel.name,
        "title": state.panel.title,
        "mode": state.mode,
        "modes": state.panel.modes,
        "settings_path": state.plans.path,
        "write_url": reverse(f"integrations_{plan.action}"),
        "cancel_url": page_url(state.panel.name, state.mode),
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
