"""Shared fixtures: a running server per test module, and a fresh one per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import RelaybayServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    """One real `relaybay serve` shared by the tests of a module."""
    srv = RelaybayServer(home=tmp_path_factory.mktemp("home")).start()
    yield srv
    srv.stop()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[RelaybayServer]:
    """A server of this test's own, for tests that change state others would see."""
    srv = RelaybayServer(home=tmp_path / "home").start()
    yield srv
    srv.stop()


@pytest.fixture
def configure(settings: Any) -> Any:
    """`configure(key=value, …)`: this test's config with those keys changed, the rest and
    every key's source kept (as config.toml or the environment would set them)."""
    from core.config import Config

    def apply(**values: Any) -> None:
        cfg = settings.RELAYBAY
        settings.RELAYBAY = Config({**cfg._values, **values}, dict(cfg.sources))

    return apply


# Where the agent CLIs keep their files, as a developer's own shell may set them: a test that
# reads a Gemini, Codex or Claude Code home (Settings → Integrations, doctor, setup, the
# transcripts' folders) must see the home it made, never the developer's.
AGENT_HOME_VARIABLES = (
    "GEMINI_CLI_HOME",
    "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
)


@pytest.fixture(scope="session", autouse=True)
def _no_agent_homes_for_shared_servers() -> Iterator[None]:
    """Cleared before any module's shared server starts (it copies this environment)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in AGENT_HOME_VARIABLES:
            patch.delenv(name, raising=False)
        yield


@pytest.fixture(autouse=True)
def _no_agent_homes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cleared again for every test, so one that set a variable by hand leaks it to no
    other; a test sets its own with monkeypatch.setenv, or in a subprocess's env."""
    for name in AGENT_HOME_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _forget_signal_memory() -> None:
    """The board's signals keep per-session state in process memory, keyed by session id;
    a rolled-back test database hands the same ids out again, so every test starts clean."""
    from environments.selectors import forget_test_values
    from plans import reminders
    from sessions.hooks import activity, approvals, carried, guard, stuck, sweep, turn_end, waiting
    from tasks.selectors import inbox

    reminders.state.clear()
    activity.activity_clock.clear()
    inbox.forget_badge()
    stuck.forget()
    sweep.forget()
    turn_end.forget()
    waiting.forget()
    carried.forget()
    guard.forget()
    approvals.forget()
    forget_test_values()


@pytest.fixture(scope="session", autouse=True)
def _search_index(django_db_setup: Any, django_db_blocker: Any) -> None:
    """The memory's search index, made once outside every test's transaction as `relaybay
    serve` makes it at start (§11): memory.search trusts it exists after its first look."""
    from memory import search

    with django_db_blocker.unblock():
        search.forget()
        search.ensure_table()


@pytest.fixture
def migrations_restored() -> Iterator[None]:
    """A migration test moves apps back in time: put every app at its newest migration
    again afterwards, so the tests after it on the same worker see the whole schema."""
    yield
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
