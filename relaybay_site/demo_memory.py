"""The demo's Docs & rules (§8): two documents (one edited by section, so it has a history
and a diff), a decision that supersedes another, memory notes of every scope (one of them
superseded) and a block, so a newcomer sees the page full and memory_search finds things.

Written through the memory and tasks services, as agents and the board write them, so every
row has its event and its line in the search index; `relaybay_site.demo.seed` calls `seed`
after the tasks, whose reports the decisions cite. The documents, notes and block are tables
walked in order; the two decisions stay code, since the newer one cites a report by its id.
"""

from __future__ import annotations

from core.actor import OWNER

ARCHITECTURE = """# Acme Shop architecture

The shop is one Django project with an app per area; checkout talks to payment and gift
card providers through small adapters.

## Checkout

The cart is a session object until the customer signs in. Prices are stored in cents.

## Deployment

Merges to main deploy to test from CI. Live is deployed by hand from a tagged release.

## Gift cards

Not built yet: see the decision about Giftly.
"""
DEPLOYMENT_SECTION = """## Deployment

CI deploys to test every night at 03:00 UTC, after the anonymised copy of live is restored;
a merge to main no longer deploys. Live is deployed from a tagged release through CI only.
"""
RUNBOOK = """# Releasing to live

1. Tag the release on main (`vX.Y.Z`) after the test stand passed its checks.
2. CI builds the image and waits for the owner's approval.
3. Watch the shop dashboard for ten minutes; roll back with the previous tag if errors rise.

```bash
git tag v1.4.0 && git push origin v1.4.0
```
"""
BLOCK = """- Commit messages in English, imperative mood.
- Run `make test` before report_add; paste the failing test if any.
- Money is integer cents everywhere; never floats.
"""


DOCUMENTS = (
    {
        "name": "architecture",
        "title": "Acme Shop architecture",
        "kind": "design",
        "text": ARCHITECTURE,
        "base_version": 0,
        "actor": "shop-agent",
        "reason": "What I learned reading the code for the gift cards task.",
    },
    {
        "name": "architecture",
        "section": "deployment",
        "text": DEPLOYMENT_SECTION,
        "base_version": 1,
        "actor": "cart-agent",
        "reason": "The test stand is now restored nightly, so deploys moved to 03:00 UTC.",
    },
    {
        "name": "release-runbook",
        "title": "Releasing to live",
        "kind": "runbook",
        "text": RUNBOOK,
        "base_version": 0,
        "actor": OWNER,
    },
)
PREVIOUS = "{the note before}"  # a target seed fills in: the id of the note added before
NOTES = (
    {
        "scope": "project",
        "project": "acme-shop",
        "kind": "project",
        "title": "Prices are stored in cents",
        "body": "Every amount in the shop is an integer number of cents. Convert at the edges "
        "(templates, provider adapters), never in the models.",
        "tags": "money, checkout",
        "op": "add",
        "actor": "cart-agent",
    },
    {
        "scope": "global",
        "kind": "feedback",
        "title": "Ask before running database migrations",
        "body": "The owner wants to be asked before any migrate command.",
        "op": "add",
        "actor": "shop-agent",
    },
    {
        "scope": "global",
        "kind": "feedback",
        "title": "Database migrations need the owner's yes on test and live",
        "body": "Local migrations are fine; on test and live ask first and say what the "
        "migration changes. Why: a migration on test once dropped a column a demo relied on.",
        "tags": "database, owner",
        "op": "supersede",
        "target": PREVIOUS,
        "actor": "shop-agent",
    },
    {
        "scope": "role",
        "role": "coordinator",
        "kind": "user",
        "title": "The owner reviews boards in the morning",
        "body": "Put questions for the owner in waiting_on before 09:00 UTC; answers come "
        "in one batch.",
        "op": "add",
        "actor": OWNER,
    },
)
CONVENTIONS = {
    "label": "conventions",
    "description": "House rules every agent on the shop follows.",
    "body": BLOCK,
    "char_limit": 1000,
    "base_version": 0,
    "actor": OWNER,
    "as_owner": True,
}


def seed() -> None:
    """Through the services, as doc_update, decision_add, memory_add and block_set write them."""
    from memory.services import block_set, doc_update, memory_add

    for document in DOCUMENTS:
        doc_update(project="acme-shop", **document)
    _decisions()
    previous = None
    for note in NOTES:
        fields = {k: previous if v == PREVIOUS else v for k, v in note.items()}
        previous = memory_add(**fields).obj.id
    block_set(project="acme-shop", **CONVENTIONS)


def _decisions() -> None:
    """A decision superseded by a newer one that cites the report comparing providers."""
    from tasks.models import Report
    from tasks.services import decision_add

    first = decision_add(
        project="acme-shop",
        text="Deploy to test from CI on every merge to main.",
        decided_by="owner",
        actor=OWNER,
    ).obj
    compared = Report.objects.filter(task__project__slug="acme-shop", body__contains="Giftly")
    source = f"report:{compared.first().id}" if compared.exists() else None
    decision_add(
        project="acme-shop",
        text="Deploy to test nightly at 03:00 UTC, after the anonymised copy of live is "
        "restored: a deploy during the restore broke the test stand twice.",
        decided_by="owner",
        supersedes=first.id,
        source=source,
        source_text="Measured while comparing gift card providers" if source else None,
        actor=OWNER,
    )
