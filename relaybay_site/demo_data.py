"""The demo workspace as data (§5): its projects, its tasks with what happens to each after
it is created, the todos a session reports and the policy of Settings → Policy.

`relaybay_site.demo.seed` walks these tables through the services in the order written, so
the ids, versions, plan revisions and events come out the same on every run. A step names
a service call by its verb (`demo.seed`'s table of calls) and the actor who makes it; the
stands and the memory have their own tables (demo_stands.py, demo_memory.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.actor import OWNER

REPO_PATH = "/home/dev/acme-shop"
REVIEW_HOOK_SESSION = "demo-review-hook-session"
TODO_HOOK_SESSION = "demo-todo-hook-session"
# The sessions another agent CLI reports for (demo_agents.py), and their own ids.
CODEX_SESSION, CODEX_HOOK_SESSION = "cart-agent", "019b2c4e-6a10-7d31-8f2a-5c0e9b7a1d42"
GEMINI_SESSION, GEMINI_HOOK_SESSION = "api-agent", "7c3e91a2-4b5d-4f86-9e0a-2d6b8c1f3e57"
# Values a step cannot know when this table is written: seed fills them in as it runs.
DESKTOP = "{the desktop session}"  # a new local_<uuid> on every run
LAST_REPORT = "{the task's last report}"  # that report's id


@dataclass(frozen=True)
class Step:
    """One service call on the scene's task: `verb` names it, `by` makes it (hooks: none)."""

    verb: str
    by: str = ""
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scene:
    """A task `by` creates with `fields`, then its steps in order; `role` keys Seeded.tasks."""

    role: str
    project: str
    title: str
    by: str
    fields: dict[str, Any]
    steps: tuple[Step, ...] = ()


def hook_linked(agent: str, hook_session: str) -> tuple[Step, Step]:
    """The agent binds the task to its named session, then links its own agent id to it."""
    return (
        Step("bind", agent, {"session": agent}),
        Step("touch", agent, {"session": agent, "hook_session": hook_session}),
    )


PROJECTS = (
    {
        "slug": "acme-shop",
        "name": "Acme Shop",
        "repo_path": REPO_PATH,
        "description": "The web shop: catalogue, cart, checkout and the customer account.",
    },
    {
        "slug": "demo-api",
        "name": "Demo API",
        "description": "The public REST API partners use for orders and stock.",
    },
)

TODOS = [
    {
        "content": "Write a failing test for the cent off",
        "status": "completed",
        "activeForm": "Writing a failing test",
    },
    {
        "content": "Round VAT on the invoice total",
        "status": "in_progress",
        "activeForm": "Rounding VAT on the total",
    },
    {
        "content": "Regenerate the sample invoices",
        "status": "pending",
        "activeForm": "Regenerating the sample invoices",
    },
]

# plan: two acme-shop tasks (one with the owner's decision) and one of demo-api.
PLANNING = (
    Scene(
        "plan",
        "acme-shop",
        "Gift cards at checkout",
        OWNER,
        {
            "size": "M",
            "priority": "high",
            "description": "Customers redeem a gift card code at checkout; a partial balance "
            "stays on the card.\n\n- code field under the coupon field\n- balance shown after "
            "redeeming",
            "progress": "Compared two providers; waiting for the owner's pick.",
            "waiting_on": "owner",
        },
        (
            Step(
                "report",
                "shop-agent",
                {
                    "body": "inspected · M · two gift card providers compared\n\n"
                    "Giftly has a sandbox and webhooks; CardPal only a nightly export."
                },
            ),
            Step(
                "decision",
                OWNER,
                {
                    "project": "acme-shop",
                    "text": "Use Giftly for gift cards: it has a sandbox and webhooks; no "
                    "nightly import.",
                    "decided_by": "owner",
                },
            ),
        ),
    ),
    Scene(
        "plan2",
        "acme-shop",
        "Search suggestions while typing",
        "shop-agent",
        {
            "size": "L",
            "description": "Suggest products after two letters, with typo tolerance.",
            "progress": "Measured the current search: 180 ms median.",
        },
        (
            Step(
                "report",
                "shop-agent",
                {
                    "body": "inspected · L · measured the current search\n\n180 ms median, "
                    "too slow for suggestions without an index."
                },
            ),
        ),
    ),
    Scene(
        "api-plan",
        "demo-api",
        "Rate limits per API key",
        "api-agent",
        {
            "size": "M",
            "description": "Limit each partner key to 100 requests a minute; answer 429 with "
            "Retry-After.",
            "progress": "Read the gateway docs: it can count per header.",
        },
        (
            *hook_linked(GEMINI_SESSION, GEMINI_HOOK_SESSION),
            Step(
                "report", "api-agent", {"body": "inspected · M · the gateway can count per header"}
            ),
        ),
    ),
)

# dev: a desktop session shown as working, an M task with an accepted plan, and an S task
# without a plan whose session reported a todo.
DEVELOPMENT = (
    Scene(
        "desktop",
        "acme-shop",
        "Order history page",
        OWNER,
        {
            "stage": "dev",
            "size": "S",
            "description": "A page in the account listing past orders with their status and "
            "invoice.",
            "progress": "Route and empty page are in; the list query is next.",
            "branch": "feature/order-history",
        },
        (
            Step("bind", OWNER, {"session": DESKTOP, "session_title": "Order history page"}),
            Step("report", "shop-agent", {"body": "changed · S · route and empty page added"}),
            Step("session_start", args={"desktop": DESKTOP}),
        ),
    ),
    Scene(
        "planned",
        "acme-shop",
        "Saved carts",
        "cart-agent",
        {
            "size": "M",
            "description": "Signed-in customers keep their cart across devices for 30 days.",
            "progress": "Model and migration done; merging on sign-in is under way.",
        },
        (
            *hook_linked(CODEX_SESSION, CODEX_HOOK_SESSION),
            Step(
                "plan",
                "cart-agent",
                {
                    "steps": [
                        {
                            "title": "Cart model and migration",
                            "details": "cart and cart_item tables.",
                        },
                        {"title": "Store the cart on every change"},
                        {"title": "Merge the guest cart on sign-in"},
                        {"title": "Expire carts after 30 days"},
                    ]
                },
            ),
            Step("accept", OWNER),
            Step(
                "stage",
                "cart-agent",
                {"stage": "dev", "next_step": "Merge the guest cart on sign-in."},
            ),
            Step(
                "report",
                "cart-agent",
                {
                    "body": "changed · M · cart model and migration\n\n"
                    "Two tables, indexed by customer."
                },
            ),
            Step(
                "step",
                "cart-agent",
                {
                    "step": 1,
                    "status": "done",
                    "conformance": "as planned",
                    "link": LAST_REPORT,
                    "outcome": "Tables cart and cart_item with a migration.",
                },
            ),
            Step(
                "step",
                "cart-agent",
                {
                    "step": 2,
                    "status": "done",
                    "conformance": "deviation: saved on checkout page visits too, not only on "
                    "changes",
                    "outcome": "Saved on change and on checkout visits.",
                },
            ),
            Step("step", "cart-agent", {"step": 3, "status": "in_progress"}),
        ),
    ),
    Scene(
        "todo",
        "acme-shop",
        "VAT rounding on invoices",
        "invoice-agent",
        {
            "size": "S",
            "stage": "dev",
            "description": "Invoices round VAT per line; the law wants it per invoice total.",
            "progress": "Found the rounding in invoice_lines(); a test reproduces the cent off.",
        },
        (
            *hook_linked("invoice-agent", TODO_HOOK_SESSION),
            Step("report", "invoice-agent", {"body": "inspected · S · rounding happens per line"}),
            Step("todos", args={"hook_session": TODO_HOOK_SESSION, "todos": TODOS}),
        ),
    ),
)

# review: a three-step checklist with two screenshots.
REVIEW = Scene(
    "review",
    "acme-shop",
    "Product page image gallery",
    "gallery-agent",
    {
        "size": "M",
        "description": "Swipeable gallery with thumbnails on the product page.",
        "progress": "Gallery, thumbnails and zoom are done; ready for the owner's check.",
    },
    (
        *hook_linked("gallery-agent", REVIEW_HOOK_SESSION),
        Step(
            "report",
            "gallery-agent",
            {
                "body": "verified · M · gallery with thumbnails and zoom\n\n"
                "Tested on a phone and a desktop browser."
            },
        ),
        Step("stage", "gallery-agent", {"stage": "review", "waiting_on": "owner"}),
        Step(
            "checklist",
            "gallery-agent",
            {
                "steps": [
                    {
                        "title": "Open a product with five images",
                        "details": "Thumbnails show below.",
                    },
                    {"title": "Swipe through the images on a phone"},
                    {"title": "Click an image to zoom"},
                ]
            },
        ),
        Step(
            "screenshot",
            "gallery-agent",
            {
                "step": 1,
                "caption": "Thumbnails under the image",
                "page": (240, 240, 236),
                "bar": (40, 90, 160),
            },
        ),
        Step(
            "screenshot",
            "gallery-agent",
            {"step": 3, "caption": "Zoomed image", "page": (30, 30, 30), "bar": (200, 120, 40)},
        ),
    ),
)

# test: a stale next step; live and done: tracker badges.
RELEASE = (
    Scene(
        "stale",
        "acme-shop",
        "Password reset emails",
        "shop-agent",
        {
            "size": "S",
            "stage": "review",
            "description": "Send the reset link by email; the link works once, for an hour.",
            "progress": "Emails go out; the link expires after an hour.",
            "next_step": "Owner checks the email text.",
        },
        (
            Step(
                "report",
                "shop-agent",
                {"body": "verified · S · reset emails sent and links expire"},
            ),
            Step("stage", "shop-agent", {"stage": "test", "note": "On staging."}),
        ),
    ),
    Scene(
        "live",
        "acme-shop",
        "Coupon codes",
        "shop-agent",
        {
            "size": "M",
            "stage": "test",
            "description": "Percentage and fixed coupons with an end date.",
            "progress": "Released; usage looks normal.",
            "tracker_ref": "ACME-101",
            "tracker_name": "Jira",
            "tracker_url": "https://tracker.example.com/browse/ACME-101",
        },
        (
            Step("report", "shop-agent", {"body": "pushed · M · coupons released"}),
            Step("stage", "shop-agent", {"stage": "live"}),
        ),
    ),
    Scene(
        "logged",
        "acme-shop",
        "Newsletter sign-up in the footer",
        "shop-agent",
        {
            "size": "S",
            "stage": "live",
            "description": "A double opt-in sign-up field in the footer.",
            "progress": "Released and logged; 40 sign-ups in the first week.",
            "tracker_ref": "ACME-88",
            "tracker_name": "Jira",
            "tracker_url": "https://tracker.example.com/browse/ACME-88",
        },
        (
            Step("report", "shop-agent", {"body": "pushed · S · sign-up field released"}),
            Step("stage", OWNER, {"stage": "done"}),
            Step("update", OWNER, {"tracker_logged": True}),
        ),
    ),
    Scene(
        "api-done",
        "demo-api",
        "Publish the OpenAPI schema",
        "api-agent",
        {
            "size": "S",
            "stage": "live",
            "description": "Serve the schema at /v1/openapi.json and link it from the docs.",
            "progress": "Published and linked from the docs.",
        },
        (
            Step("report", "api-agent", {"body": "pushed · S · schema served and linked"}),
            Step("stage", OWNER, {"stage": "done"}),
        ),
    ),
)

SCENES = (*PLANNING, *DEVELOPMENT, REVIEW, *RELEASE)

# Settings → Policy, full: the owner's layer for acme-shop and an agent's pending proposal.
POLICY_LAYER = {
    "description": "The shop deploys from CI only: agents ask before deploying to test.",
    "guard": {"mode": "block"},
    "levels": {"test": {"deploy": "ask"}},
    "secrets": {"allow+": ["demo-[a-z0-9]{6}"]},
}
POLICY_PROPOSAL = {
    "guard": {
        "patterns+": [
            {
                "id": "shop-migrate",
                "capability": "db",
                "command": r"\bmanage\.py\b",
                "change": r"\bmigrate\b",
                "description": "database migration of the shop",
            }
        ]
    }
}
POLICY_PROPOSAL_AGENT = "cart-agent"
POLICY_PROPOSAL_REASON = (
    "manage.py migrate ran against the test database while I fixed saved carts: "
    "count it as a database change so the guard asks first."
)
