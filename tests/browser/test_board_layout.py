"""Cards stay inside their column on the demo board (§2 Cards; issue 13 §5).

The demo seeds long plan badges ("Plan 2/4 · 2 deviations · now: …"), branch names and
session status dots. A card never grows wider than its column, at desktop widths or on a
phone, and a card's status dot never covers a task key (its own or a neighbour's).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import htmx_idle, sign_in
from tests.support.server import RelaybayServer, run_cli

pytestmark = [pytest.mark.browser, pytest.mark.integration]

SLOP = 1  # px of subpixel rounding
PROJECTS = ("acme-shop", "demo-api")

# Every card's box, its column's box, its key's box and its status dot's box (if any).
BOXES = """() => [...document.querySelectorAll('.column')]
  .filter(col => col.offsetParent !== null)
  .flatMap(col => [...col.querySelectorAll('.card')].map(card => {
    const box = el => { if (!el) return null; const r = el.getBoundingClientRect();
      return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
    return {key: card.dataset.key, stage: col.dataset.stage, card: box(card),
            column: box(col), cardKey: box(card.querySelector('.card-key')),
            dot: box(card.querySelector('.status-dot'))};
  }))"""


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelaybayServer]:
    home: Path = tmp_path_factory.mktemp("demo")
    seeded = run_cli("demo", "--home", str(home), "--force")
    assert seeded.returncode == 0, seeded.stderr
    srv = RelaybayServer(home=home).start()
    yield srv
    srv.stop()


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["left"] >= outer["left"] - SLOP
        and inner["right"] <= outer["right"] + SLOP
        and inner["top"] >= outer["top"] - SLOP
        and inner["bottom"] <= outer["bottom"] + SLOP
    )


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"] - SLOP
        and b["left"] < a["right"] - SLOP
        and a["top"] < b["bottom"] - SLOP
        and b["top"] < a["bottom"] - SLOP
    )


def check(cards: list[dict[str, Any]], where: str, viewport: int | None = None) -> None:
    assert cards, f"no cards shown on {where}"
    wide = [c["key"] for c in cards if not inside(c["card"], c["column"])]
    assert wide == [], f"cards wider than their column on {where}"
    if viewport is not None:
        out = [c["key"] for c in cards if c["card"]["left"] < -SLOP]
        out += [c["key"] for c in cards if c["card"]["right"] > viewport + SLOP]
        assert out == [], f"cards outside the {viewport} px viewport on {where}"
    covered = [
        (c["key"], other["key"])
        for c in cards
        if c["dot"]
        for other in cards
        if overlap(c["dot"], other["cardKey"])
    ]
    assert covered == [], f"status dots over task keys on {where}"


@pytest.mark.parametrize("width", [1280, 1440, 1920])
def test_desktop_cards_stay_inside_their_columns(demo_server, new_page, shot, width) -> None:
    w = new_page(width, 900)
    page = w.page
    sign_in(page, demo_server, f"/p/{PROJECTS[0]}")
    seen = 0
    for slug in PROJECTS:
        for number in (1, 2):
            path = f"/p/{slug}?page={number}"
            page.goto(demo_server.base_url + path)
            page.wait_for_selector(".columns")
            cards = page.evaluate(BOXES)
            if slug == PROJECTS[0] and number == 1:
                shot(page, f"board-layout-{width}")
                assert any(c["dot"] for c in cards), "the demo shows a status dot on page 1"
            if cards:
                check(cards, f"{path} at {width} px", viewport=width)
            seen += len(cards)
    assert seen >= 10
    w.assert_clean()


def test_phone_cards_stay_inside_their_column_and_the_screen(demo_server, new_page, shot) -> None:
    w = new_page(390, 844)
    page = w.page
    sign_in(page, demo_server, f"/p/{PROJECTS[0]}")
    seen = 0
    for slug in PROJECTS:
        page.goto(f"{demo_server.base_url}/p/{slug}")
        tabs = page.locator(".stage-tab")
        for i in range(tabs.count()):
            stage = tabs.nth(i).get_attribute("data-stage")
            tabs.nth(i).click()  # htmx swaps the columns in with this stage selected
            page.wait_for_selector(f"#col-{stage}.is-selected:visible")
            htmx_idle(page)  # the first tab is selected before its request answers
            cards = page.evaluate(BOXES)
            assert {c["stage"] for c in cards} <= {stage}
            if cards:
                check(cards, f"/p/{slug} {stage} tab at 390 px", viewport=390)
                if slug == PROJECTS[0] and stage == "dev":
                    shot(page, "board-layout-390-dev")
            seen += len(cards)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert seen >= 10
    w.assert_clean()
