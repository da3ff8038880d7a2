"""`relaybay demo`: a made-up workspace seeded through the domain services (§5).

Every row comes from the same functions real use calls (project_upsert, task_create,
report_add, plan_set, hook_event, …), so the events, versions and plan revisions are real.
`prepare_database` runs before Django opens the database: it refuses a database that
already holds a project or an event, or (with force) renames it aside with its WAL files.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import struct
import uuid
import zlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from relaybay_site import demo_memory, demo_stands

DB_SIDE_FILES = ("-wal", "-shm")
BACKUP_INFIX = ".before-demo-"
REPO_PATH = "/home/dev/acme-shop"
REVIEW_HOOK_SESSION = "demo-review-hook-session"
TODO_HOOK_SESSION = "demo-todo-hook-session"


class DemoRefused(Exception):
    """The data folder already holds work and --force was not given."""


# --- the database file ----------------------------------------------------------------


def has_content(db: Path) -> bool:
    """Whether the database holds a project or an event (read-only, no Django connection)."""
    if not db.exists():
        return False
    uri = f"{db.resolve().as_uri()}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as con:
            for table in ("tasks_project", "tasks_event"):
                try:
                    if con.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():  # noqa: S608
                        return True
                except sqlite3.OperationalError:
                    continue  # no such table yet
    except sqlite3.Error:
        return True  # unreadable: never seed over it
    return False


def prepare_database(db: Path, *, force: bool, now: datetime) -> list[Path]:
    """Refuse a database with work in it, or move it (and its WAL files) aside with force.

    Returns the new names of the files moved. The attachments folder goes along with the
    database, since the next start deletes every stored file no row of the new one names.
    """
    if not force:
        if has_content(db):
            raise DemoRefused(
                f"{db} already holds projects or events: the demo seeds an empty data folder. "
                "Pass --force to rename the database aside and seed a new one, or use another "
                "--home."
            )
        return []
    if not any(Path(f"{db}{s}").exists() for s in ("", *DB_SIDE_FILES)):
        return []
    stamp = now.strftime("%Y%m%d-%H%M%S")
    moved: list[Path] = []
    for suffix in ("", *DB_SIDE_FILES):
        source = Path(f"{db}{suffix}")
        if source.exists():
            target = Path(f"{db}{BACKUP_INFIX}{stamp}{suffix}")
            os.replace(source, target)
            moved.append(target)
    attachments = db.parent / "attachments"
    if attachments.is_dir() and not attachments.is_symlink():
        target = db.parent / f"attachments{BACKUP_INFIX}{stamp}"
        os.replace(attachments, target)
        moved.append(target)
    return moved


# --- generated screenshots ------------------------------------------------------------


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(width: int, height: int, colour: tuple[int, int, int], bar: tuple[int, int, int]) -> bytes:
    """A small RGB PNG: a coloured page with a bar across its top fifth (no Pillow)."""
    top = b"\x00" + bytes(bar) * width
    rest = b"\x00" + bytes(colour) * width
    rows = [top if y < height // 5 else rest for y in range(height)]
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + _chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + _chunk(b"IEND", b"")
    )


# --- hook payloads (the shapes of Claude Code 2.1.332) ---------------------------------


def _hook_base(cc_id: str, event: str) -> dict[str, Any]:
    folder = REPO_PATH.replace("/", "-")
    return {
        "session_id": cc_id,
        "transcript_path": f"/home/dev/.claude/projects/{folder}/{cc_id}.jsonl",
        "cwd": REPO_PATH,
        "hook_event_name": event,
    }


def session_start_payload(cc_id: str, desktop_id: str) -> dict[str, Any]:
    return {
        **_hook_base(cc_id, "SessionStart"),
        "source": "startup",
        "relaybay_host_session": desktop_id,
    }


def todo_write_payload(cc_id: str, todos: list[dict[str, str]]) -> dict[str, Any]:
    return {
        **_hook_base(cc_id, "PostToolUse"),
        "permission_mode": "default",
        "tool_name": "TodoWrite",
        "tool_input": {"todos": todos},
        "tool_response": {"oldTodos": [], "newTodos": todos},
        "tool_use_id": "toolu_demo0000000000000000000001",
    }


# --- seeding --------------------------------------------------------------------------


@dataclass
class Seeded:
    projects: list[str]
    tasks: dict[str, str]  # role → key


def seed() -> Seeded:
    """Write the demo workspace through the services; the keys of the tasks by role."""
    from core import actor as actors
    from plans.services import plan_accept, plan_set, plan_step_update
    from reviews.attachments import attach_file
    from reviews.services import review_steps_set
    from sessions.hook_service import hook_event
    from sessions.services import session_touch, task_bind_session
    from tasks.services import (
        decision_add,
        project_upsert,
        report_add,
        task_create,
        task_set_stage,
        task_update,
    )

    owner = actors.OWNER
    project_upsert(
        slug="acme-shop",
        name="Acme Shop",
        repo_path=REPO_PATH,
        description="The web shop: catalogue, cart, checkout and the customer account.",
        actor=owner,
    )
    project_upsert(
        slug="demo-api",
        name="Demo API",
        description="The public REST API partners use for orders and stock.",
        actor=owner,
    )
    keys: dict[str, str] = {}

    def create(role: str, project: str, title: str, agent: str, **fields: Any) -> str:
        key = task_create(project=project, title=title, actor=agent, **fields).obj.key
        keys[role] = key
        return key

    def report(key: str, agent: str, body: str, **fields: Any) -> int:
        return report_add(key=key, body=body, actor=agent, **fields).obj.id

    # plan ------------------------------------------------------------------------------
    key = create(
        "plan",
        "acme-shop",
        "Gift cards at checkout",
        owner,
        size="M",
        priority="high",
        description="Customers redeem a gift card code at checkout; a partial balance stays "
        "on the card.\n\n- code field under the coupon field\n- balance shown after redeeming",
        progress="Compared two providers; waiting for the owner's pick.",
        waiting_on="owner",
    )
    report(
        key,
        "shop-agent",
        "inspected · M · two gift card providers compared\n\n"
        "Giftly has a sandbox and webhooks; CardPal only a nightly export.",
    )
    decision_add(
        project="acme-shop",
        task=key,
        text="Use Giftly for gift cards: it has a sandbox and webhooks; no nightly import.",
        decided_by="owner",
        actor=owner,
    )
    key = create(
        "plan2",
        "acme-shop",
        "Search suggestions while typing",
        "shop-agent",
        size="L",
        description="Suggest products after two letters, with typo tolerance.",
        progress="Measured the current search: 180 ms median.",
    )
    report(
        key,
        "shop-agent",
        "inspected · L · measured the current search\n\n180 ms median, "
        "too slow for suggestions without an index.",
    )
    key = create(
        "api-plan",
        "demo-api",
        "Rate limits per API key",
        "api-agent",
        size="M",
        description="Limit each partner key to 100 requests a minute; answer 429 with Retry-After.",
        progress="Read the gateway docs: it can count per header.",
    )
    report(key, "api-agent", "inspected · M · the gateway can count per header")

    # dev: a desktop session shown as working --------------------------------------------
    desktop_id = f"local_{uuid.uuid4()}"
    key = create(
        "desktop",
        "acme-shop",
        "Order history page",
        owner,
        stage="dev",
        size="S",
        description="A page in the account listing past orders with their status and invoice.",
        progress="Route and empty page are in; the list query is next.",
        branch="feature/order-history",
    )
    task = _task(key)
    task_bind_session(
        task=task, session=desktop_id, session_title="Order history page", actor=owner
    )
    report(key, "shop-agent", "changed · S · route and empty page added")
    hook_event(payload=session_start_payload(str(uuid.uuid4()), desktop_id))

    # dev: an M task with an accepted plan ------------------------------------------------
    key = create(
        "planned",
        "acme-shop",
        "Saved carts",
        "cart-agent",
        size="M",
        description="Signed-in customers keep their cart across devices for 30 days.",
        progress="Model and migration done; merging on sign-in is under way.",
    )
    task_bind_session(task=_task(key), session="cart-agent", actor="cart-agent")
    plan_set(
        key=key,
        actor="cart-agent",
        steps=[
            {"title": "Cart model and migration", "details": "cart and cart_item tables."},
            {"title": "Store the cart on every change"},
            {"title": "Merge the guest cart on sign-in"},
            {"title": "Expire carts after 30 days"},
        ],
    )
    plan_accept(key=key, actor=owner)
    task_set_stage(
        key=key, stage="dev", actor="cart-agent", next_step="Merge the guest cart on sign-in."
    )
    first = report(
        key,
        "cart-agent",
        "changed · M · cart model and migration\n\nTwo tables, indexed by customer.",
    )
    plan_step_update(
        key=key,
        step=1,
        status="done",
        conformance="as planned",
        link=str(first),
        outcome="Tables cart and cart_item with a migration.",
        actor="cart-agent",
    )
    plan_step_update(
        key=key,
        step=2,
        status="done",
        actor="cart-agent",
        conformance="deviation: saved on checkout page visits too, not only on changes",
        outcome="Saved on change and on checkout visits.",
    )
    plan_step_update(key=key, step=3, status="in_progress", actor="cart-agent")

    # dev: an S task without a plan whose session reported a todo ------------------------
    key = create(
        "todo",
        "acme-shop",
        "VAT rounding on invoices",
        "invoice-agent",
        size="S",
        stage="dev",
        description="Invoices round VAT per line; the law wants it per invoice total.",
        progress="Found the rounding in invoice_lines(); a test reproduces the cent off.",
    )
    task_bind_session(task=_task(key), session="invoice-agent", actor="invoice-agent")
    session_touch(session="invoice-agent", hook_session=TODO_HOOK_SESSION, actor="invoice-agent")
    report(key, "invoice-agent", "inspected · S · rounding happens per line")
    todos = [
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
    hook_event(payload=todo_write_payload(TODO_HOOK_SESSION, todos))

    # review: a three-step checklist with two screenshots ---------------------------------
    key = create(
        "review",
        "acme-shop",
        "Product page image gallery",
        "gallery-agent",
        size="M",
        description="Swipeable gallery with thumbnails on the product page.",
        progress="Gallery, thumbnails and zoom are done; ready for the owner's check.",
    )
    task_bind_session(task=_task(key), session="gallery-agent", actor="gallery-agent")
    session_touch(session="gallery-agent", hook_session=REVIEW_HOOK_SESSION, actor="gallery-agent")
    report(
        key,
        "gallery-agent",
        "verified · M · gallery with thumbnails and zoom\n\n"
        "Tested on a phone and a desktop browser.",
    )
    task_set_stage(key=key, stage="review", actor="gallery-agent", waiting_on="owner")
    review_steps_set(
        key=key,
        actor="gallery-agent",
        steps=[
            {"title": "Open a product with five images", "details": "Thumbnails show below."},
            {"title": "Swipe through the images on a phone"},
            {"title": "Click an image to zoom"},
        ],
    )
    attach_file(
        key=key,
        step=1,
        actor="gallery-agent",
        caption="Thumbnails under the image",
        content=png(64, 40, (240, 240, 236), (40, 90, 160)),
    )
    attach_file(
        key=key,
        step=3,
        actor="gallery-agent",
        caption="Zoomed image",
        content=png(64, 40, (30, 30, 30), (200, 120, 40)),
    )

    # test: a stale next step -------------------------------------------------------------
    key = create(
        "stale",
        "acme-shop",
        "Password reset emails",
        "shop-agent",
        size="S",
        stage="review",
        description="Send the reset link by email; the link works once, for an hour.",
        progress="Emails go out; the link expires after an hour.",
        next_step="Owner checks the email text.",
    )
    report(key, "shop-agent", "verified · S · reset emails sent and links expire")
    task_set_stage(key=key, stage="test", actor="shop-agent", note="On staging.")

    # live and done: tracker badges -------------------------------------------------------
    key = create(
        "live",
        "acme-shop",
        "Coupon codes",
        "shop-agent",
        size="M",
        stage="test",
        description="Percentage and fixed coupons with an end date.",
        progress="Released; usage looks normal.",
        tracker_ref="ACME-101",
        tracker_name="Jira",
        tracker_url="https://tracker.example.com/browse/ACME-101",
    )
    report(key, "shop-agent", "pushed · M · coupons released")
    task_set_stage(key=key, stage="live", actor="shop-agent")
    key = create(
        "logged",
        "acme-shop",
        "Newsletter sign-up in the footer",
        "shop-agent",
        size="S",
        stage="live",
        description="A double opt-in sign-up field in the footer.",
        progress="Released and logged; 40 sign-ups in the first week.",
        tracker_ref="ACME-88",
        tracker_name="Jira",
        tracker_url="https://tracker.example.com/browse/ACME-88",
    )
    report(key, "shop-agent", "pushed · S · sign-up field released")
    task_set_stage(key=key, stage="done", actor=owner)
    task_update(key=key, tracker_logged=True, actor=owner)
    key = create(
        "api-done",
        "demo-api",
        "Publish the OpenAPI schema",
        "api-agent",
        size="S",
        stage="live",
        description="Serve the schema at /v1/openapi.json and link it from the docs.",
        progress="Published and linked from the docs.",
    )
    report(key, "api-agent", "pushed · S · schema served and linked")
    task_set_stage(key=key, stage="done", actor=owner)
    _seed_policy(owner)
    demo_stands.seed(owner)
    demo_memory.seed(owner)
    return Seeded(projects=["acme-shop", "demo-api"], tasks=keys)


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


def _seed_policy(owner: str) -> None:
    """Through the services, as the editor and policy_propose write them (§7)."""
    from policy.services import policy_layer_save, policy_propose
    from tasks.extensions import CallerRef

    policy_layer_save(scope="acme-shop", text=json.dumps(POLICY_LAYER, indent=2), actor=owner)
    policy_propose(
        scope="acme-shop",
        patch=POLICY_PROPOSAL,
        reason="manage.py migrate ran against the test database while I fixed saved carts: "
        "count it as a database change so the guard asks first.",
        actor=CallerRef(session=POLICY_PROPOSAL_AGENT),
    )


def _task(key: str) -> Any:
    from tasks.models import Task

    return Task.objects.get(key=key)
