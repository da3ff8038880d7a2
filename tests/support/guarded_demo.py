"""The demo's guard as the hook integration tests set it: the mode and the live stand's level
written as the owner's policy layer, the last guarded call read back from the journal, and
the demo served with the guard blocking and the live stand asking (the approvals' tests)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.server import RelaybayServer, read_only_db, run_cli, run_django


def guard_mode(home: Path, mode: str, live_level: str = "read") -> None:
    layer = json.dumps({"guard": {"mode": mode}, "levels": {"live": {"default": live_level}}})
    run_django(
        home,
        f"""
        from policy import services
        services.policy_layer_save(scope="acme-shop", text={layer!r}, actor="owner",
                                   confirmed=True)
        """,
    )


def journal(home: Path) -> dict[str, Any]:
    """The newest live.action event's payload: what the guard decided last."""
    with read_only_db(home) as db:
        last = db.execute(
            "SELECT payload FROM tasks_event WHERE kind = 'live.action' ORDER BY id DESC LIMIT 1"
        ).fetchone()
    return json.loads(last[0])


@contextmanager
def asking_demo(home: Path) -> Iterator[RelaybayServer]:
    """The demo in `home`, served, its guard blocking and its live stand at ask."""
    assert run_cli("demo", "--home", str(home)).returncode == 0
    server = RelaybayServer(home=home).start()
    guard_mode(home, "block", live_level="ask")
    try:
        yield server
    finally:
        server.stop()
