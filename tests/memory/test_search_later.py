"""A new report's search row from an MCP write on the loop's thread is written after the
write's answer (memory/search.py, core/on_loop.py): not before the answer, then once, and
a stop in between is caught by the start's count check."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from django.db import connection

from core import on_loop
from memory import search, sql
from tests.support.on_loop import answer_sent, on_loop_write
from tests.tasks.factories import add_report, make_project, make_task

pytestmark = pytest.mark.django_db(transaction=True)  # real commits: left work runs on commit


@pytest.fixture(autouse=True)
def own_index() -> Iterator[None]:
    """An empty index, left empty: it is no model's table, so no flush empties it, and the
    tests after these expect it to exist."""
    search.forget()
    search.ensure_table()
    empty()
    yield
    search._left_events.clear()
    empty()


def empty() -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql.DELETE_ALL.text)


def found(word: str) -> list[tuple[str, str]]:
    return [(h.kind, h.ref) for h in search.search(word, project="acme")]


def test_a_reports_row_is_written_after_the_answer_once() -> None:
    task = make_task(make_project("acme"), title="Gift cards")

    report = on_loop_write(lambda: add_report(task, body="changed · M · the ledger sync"))

    assert found("ledger") == []
    assert len(search._left_events) == 1
    answer_sent()
    assert found("ledger") == [("report", str(report.id))]
    answer_sent()  # nothing left: written once
    assert found("ledger") == [("report", str(report.id))]
    assert search.rebuild_if_needed() is False


def test_a_report_off_the_loop_is_indexed_in_its_write() -> None:
    task = make_task(make_project("acme"), title="Gift cards")

    report = add_report(task, body="changed · M · the ledger sync")

    assert found("ledger") == [("report", str(report.id))]
    assert len(search._left_events) == 0


def test_a_row_a_stop_left_unwritten_is_written_at_start() -> None:
    task = make_task(make_project("acme"), title="Gift cards")
    report = on_loop_write(lambda: add_report(task, body="changed · M · the ledger sync"))
    search._left_events.clear()  # the server stopped before its loop wrote the row

    assert search.rebuild_if_needed() is True  # what serve runs before it listens

    assert found("ledger") == [("report", str(report.id))]


def test_a_read_tool_first_does_what_writes_left() -> None:
    """A tool that is not an on-loop write (memory_search here) runs after the left work,
    however soon it comes after the write's answer (core/mcp.py call_service)."""
    from core.mcp import call_service

    task = make_task(make_project("acme"), title="Gift cards")

    async def main() -> list[tuple[str, str]]:
        report = on_loop.run_on_loop(lambda: add_report(task, body="changed · M · the ledger"))
        # no answer sent yet: only the read can do what the write left
        hits = await call_service(search.search, "ledger", project="acme")
        assert [(h.kind, h.ref) for h in hits] == [("report", str(report.id))]
        return hits

    asyncio.run(main())
    assert not on_loop.pending()


def test_any_other_request_first_does_what_writes_left() -> None:
    """A page or a hook: the outer app does the left work before it (asgi.py)."""
    import httpx2

    from relaybay_site.asgi import application

    task = make_task(make_project("acme"), title="Gift cards")

    async def main() -> int:
        on_loop.run_on_loop(lambda: add_report(task, body="changed · M · the ledger"))
        transport = httpx2.ASGITransport(app=application)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as web:
            reply = await web.get("/", headers={"Host": "127.0.0.1:8765"})
        return reply.status_code

    assert asyncio.run(main()) in (200, 302)
    assert not on_loop.pending()
    assert [h.kind for h in search.search("ledger", project="acme")] == ["report"]
