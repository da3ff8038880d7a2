"""The demo's Stands & access (§7): acme-shop's local, test and live stands with their access
entries — references only, never a secret — an agent's pending proposal for live, and a
call the guard asks the owner about (deploy on test is at level ask), waiting on the board.

Written through the environments services, as the Stands & access page and
environment_propose write them, so the rows have their events; `relaybay_site.demo.seed`
calls `seed` after the policy layer, whose levels the stands then show.
"""

from __future__ import annotations

ENVIRONMENTS = (
    ("local", "local", "http://localhost:8000", "make run; the shop's own SQLite file."),
    (
        "test",
        "test",
        "https://test.acme-shop.example",
        "Restored from last night's anonymised copy of live at 03:00 UTC.",
    ),
    (
        "live",
        "live",
        "https://acme-shop.example",
        "Deploys go through CI only; look, do not change.",
    ),
)
ACCESS = (
    (
        "test",
        "db",
        {
            "type": "postgres",
            "host": "db.test.acme-shop.internal",
            "port": "5432",
            "database": "shop",
            "user": "shop_agent",
            "password_ref": "$ACME_TEST_DB_PASSWORD",
        },
    ),
    ("test", "kubectl", {"context": "acme-test", "namespace": "shop"}),
    (
        "live",
        "ssh",
        {
            "alias": "prod-alias",
            "host": "shop-1.acme-shop.example",
            "user": "deploy",
            "key_path_ref": "~/.ssh/acme_live",
        },
    ),
    ("live", "logs", {"url": "https://logs.acme-shop.example/app/shop"}),
)
ENVIRONMENT_PROPOSAL = {
    "environment": "live",
    "access": [
        {"kind": "monitoring", "fields": {"url": "https://grafana.acme-shop.example/d/shop"}}
    ],
}
ENVIRONMENT_PROPOSAL_AGENT = "invoice-agent"
# The VAT task's agent puts its fix on test: a helm change there asks the owner first.
ASK_SESSION = "invoice-agent"
ASK_WAIT_SECONDS = 7 * 24 * 3600
ASK_COMMAND = "helm upgrade shop ./chart --kube-context acme-test --set image.tag=vat-rounding"


def seed(owner: str) -> None:
    """Through the services, as the Stands & access page and environment_propose write them."""
    from environments.services import Change, access_add, environment_propose, environment_save
    from tasks.extensions import CallerRef

    for name, kind, base_url, notes in ENVIRONMENTS:
        change = Change(environment=name, kind=kind, base_url=base_url, notes=notes)
        environment_save(project="acme-shop", change=change, actor=owner, confirmed=True)
    for environment, kind, fields in ACCESS:
        access_add(
            project="acme-shop", environment=environment, kind=kind, fields=fields, actor=owner
        )
    environment_propose(
        project="acme-shop",
        change=ENVIRONMENT_PROPOSAL,
        reason="I checked the VAT fix on live by asking for logs; with the shop dashboard in "
        "live's map the next agent looks there first.",
        actor=CallerRef(session=ENVIRONMENT_PROPOSAL_AGENT),
    )


def seed_ask(key: str) -> None:
    """The guard's real verdict on ASK_COMMAND, stored as the hook stores a held ask, so the
    Inbox opens on "Waiting for your approval" (and the task's card and Session panel)."""
    from django.db import transaction

    from environments import guard
    from environments import selectors as stands
    from sessions.approvals.services import Asked, approval_requested_step
    from sessions.models import FROM_GUARD, Session
    from tasks.models import Task

    task = Task.objects.select_related("project").get(key=key)
    rules = [
        guard.stand_rules(v, v.policy, task.project.slug) for v in stands.guard_stands(task.project)
    ]
    call = guard.shell(ASK_COMMAND)
    verdict = guard.decide(call, rules, text=guard.read_call(call))
    touch = next(t for t in verdict.touches if t.decision == "ask")
    session = Session.objects.get(name=ASK_SESSION)
    asked = Asked(
        agent=session.agent,
        agent_session_id=session.agent_session_id,
        source=FROM_GUARD,
        tool="Bash",
        summary=verdict.journal_command(()),
        stand=touch.environment,
        level=touch.level,
        rule=touch.rule,
        reason=verdict.reason,
    )
    # No hook holds it, and a request past its deadline leaves the board (nobody could
    # answer it any more): the demo's waits a week, so whoever opens the demo later sees it.
    seconds = ASK_WAIT_SECONDS
    with transaction.atomic():
        approval_requested_step(asked, session=session, task=task, seconds=seconds, actor="hook")
