"""Settings → Policy (§7): the board's page of the policy, thin over policy.services.

GET `policy` (?scope=global|<project>|<project>/<environment>) renders the page
(policy/page.py computes it); its three live sections refetch themselves from
`policy_proposals`, `policy_effective` and `policy_layers` on policy.* events. The POST
views parse the form, call one service and answer:

- success: 303 back to the page of the same scope with the one-time relaybay_flash
  (POST → redirect → GET, core/flash.py);
- a DomainError: the page again with the reason and the error's 4xx status (400 invalid,
  404 unknown scope or proposal, 409 decided twice or a broken policy.json), the editor
  still holding what the owner typed;
- NeedsConfirmation (the change widens agents' access on live): a rendered confirmation
  page with status 200 — a step the owner takes, not a failure, as Integrations' Apply —
  listing what widens, whose form posts the same fields again with confirmed=1; that
  confirmed POST redirects like any success.

Validate (`policy_validate`) is not a write: it renders the page with the preview. Every
POST needs the board cookie and the CSRF token (the middleware) and is refused with the
Bearer token (403, @owner_only): agents propose with policy_propose.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from core import actor, flash
from core.errors import DomainError, InvalidField
from core.no_secrets import kept_typed
from core.security import owner_only
from policy import global_file, page, services
from policy.validate import PolicyInvalid
from tasks import proposals

BEARER_REFUSAL = (
    "Refused: Settings → Policy acts only for a signed-in browser (board cookie and CSRF "
    "token), not with the Bearer token. Agents propose changes with policy_propose."
)
PARTIALS = {
    "proposals": proposals.SECTION_TEMPLATE,
    "effective": "policy/partials/effective.html",
    "layers": "policy/partials/layers.html",
}


def _lines(exc: DomainError) -> list[str]:
    return list(exc.errors) if isinstance(exc, PolicyInvalid) else str(exc).splitlines()


def _page(
    request: HttpRequest,
    scope: str,
    *,
    text: str | None = None,
    preview: page.Preview | None = None,
    refusal: DomainError | None = None,
    editor_errors: list[str] | None = None,
    status: int = 200,
) -> HttpResponse:
    data = page.context(scope, text=text, preview=preview)
    lines = _lines(refusal) if refusal is not None else []
    if data["scope_error"] and not lines:
        lines, status = [data["scope_error"]], 404
    context = {
        **data,
        "flash": flash.take(request),
        "refusal": lines,
        "editor_errors": editor_errors or [],
    }
    response = render(request, "policy/policy.html", context, status=status)
    return flash.forget(request, response)


def _done(request: HttpRequest, scope: str, message: str) -> HttpResponse:
    return flash.redirect_with(request, page.page_url(scope), flash.Flash(message))


def _confirm(
    request: HttpRequest,
    exc: services.NeedsConfirmation,
    *,
    action: str,
    fields: dict[str, str],
    title: str,
    what: str,
    shown: str = "",
    back: str = "",
) -> HttpResponse:
    """The second confirmation: what widens, and the same form again with confirmed=1."""
    return proposals.confirm(
        request,
        exc,
        page.WORDS,
        action=action,
        fields=sorted(fields.items()),
        title=title,
        cancel_url=page.page_url(fields.get("scope", "")),
        what=what,
        shown=shown,
        back=back,
    )


def _confirmed(request: HttpRequest) -> bool:
    return request.POST.get("confirmed") in ("1", "yes")


# --- reads ---------------------------------------------------------------------------------


@require_safe
def policy(request: HttpRequest) -> HttpResponse:
    return _page(request, request.GET.get("scope", ""))


@require_safe
def policy_part(request: HttpRequest, part: str) -> HttpResponse:
    """One live section alone (no page frame), refetched on policy.* events."""
    context = page.section(part, request.GET.get("scope", ""))
    return render(request, PARTIALS[part], context)


# --- writes --------------------------------------------------------------------------------


@require_POST
@owner_only(BEARER_REFUSAL)
def policy_preset(request: HttpRequest) -> HttpResponse:
    scope, preset = request.POST.get("scope", ""), request.POST.get("preset", "")
    try:
        outcome = services.policy_preset_set(
            preset=preset, actor=actor.OWNER, confirmed=_confirmed(request)
        )
    except services.NeedsConfirmation as exc:
        name = global_file.policy_path().name
        return _confirm(
            request,
            exc,
            action=reverse("policy_preset"),
            fields={"scope": scope, "preset": preset},
            title=f"Use the {preset} preset?",
            what=f'This writes "preset": "{preset}" into {name}, keeping the rest of it.',
        )
    except DomainError as exc:
        return _page(request, scope, refusal=exc, status=exc.status)
    name = global_file.policy_path().name
    message = outcome.notes[0] if not outcome.changed else f"Wrote the {preset} preset to {name}."
    return _done(request, scope, message)


def _editor_form(request: HttpRequest) -> tuple[str, str]:
    return request.POST.get("scope", "").strip(), request.POST.get("text", "")


def _check_scope(scope: str) -> None:
    if not scope:  # never read as "global": that would write policy.json
        raise InvalidField(
            "scope", "The form names no scope, so nothing was done: reload the page."
        )


@require_POST
@owner_only(BEARER_REFUSAL)
def policy_validate(request: HttpRequest) -> HttpResponse:
    """Check the editor's text as Save would and show the preview; writes nothing."""
    scope, text = _editor_form(request)
    try:
        _check_scope(scope)
        shown = page.check(scope, text)
    except DomainError as exc:
        shown_text = kept_typed(exc, text)
        return _page(request, scope, text=shown_text, editor_errors=_lines(exc), status=exc.status)
    return _page(request, scope, text=text, preview=shown)


@require_POST
@owner_only(BEARER_REFUSAL)
def policy_save(request: HttpRequest) -> HttpResponse:
    scope, text = _editor_form(request)
    try:
        _check_scope(scope)
        outcome = services.policy_layer_save(
            scope=scope, text=text, actor=actor.OWNER, confirmed=_confirmed(request)
        )
    except services.NeedsConfirmation as exc:
        name = global_file.policy_path().name if scope.lower() == "global" else f"the {scope} layer"
        replaces = f"This replaces {name} with:"
        return _confirm(
            request,
            exc,
            action=reverse("policy_save"),
            fields={"scope": scope, "text": text},
            title=f"Save the {scope} policy?",
            what=replaces if text.strip() else f"This removes {name}.",
            shown=text,
            back=reverse("policy_validate") + "#policy-editor",
        )
    except DomainError as exc:
        status, errors, typed = exc.status, _lines(exc), kept_typed(exc, text)
        return _page(request, scope, text=typed, refusal=exc, editor_errors=errors, status=status)
    return _done(request, scope, outcome.notes[0])


@require_POST
@owner_only(BEARER_REFUSAL)
def policy_proposal_accept(request: HttpRequest, proposal: int) -> HttpResponse:
    scope = request.POST.get("scope", "")
    try:
        outcome = services.policy_proposal_accept(
            proposal=proposal, actor=actor.OWNER, confirmed=_confirmed(request)
        )
    except services.NeedsConfirmation as exc:
        found = page.proposal(proposal)
        return _confirm(
            request,
            exc,
            action=reverse("policy_proposal_accept", args=[proposal]),
            fields={"scope": scope},
            title=f"Accept policy proposal #{proposal}?",
            what=f"{found.proposed_by} proposed this change of the {found.subject} policy: "
            f"{found.reason}"
            if found
            else "",
            shown=found.shown if found else "",
        )
    except DomainError as exc:
        return _page(request, scope, refusal=exc, status=exc.status)
    found = outcome.obj
    return _done(request, scope, f"Accepted policy proposal #{found.id} for {found.scope}.")


@require_POST
@owner_only(BEARER_REFUSAL)
def policy_proposal_reject(request: HttpRequest, proposal: int) -> HttpResponse:
    scope = request.POST.get("scope", "")
    try:
        outcome = services.policy_proposal_reject(proposal=proposal, actor=actor.OWNER)
    except DomainError as exc:
        return _page(request, scope, refusal=exc, status=exc.status)
    found = outcome.obj
    return _done(request, scope, f"Rejected policy proposal #{found.id} for {found.scope}.")
