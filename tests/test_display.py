"""The board's vocabulary and display helpers live once (core/display.py).

They had been written two to four times and drifted apart ("5m ago" in MCP answers,
"5 min ago" on the board; two different ideas of a safe link), so the definitions are
pinned here and a scan fails when a second one appears.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.display import STAGES, ago, safe_href, size_text, stage_label

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 5, 1, 14, 3, 30, tzinfo=UTC)
ONE_HOME = re.compile(
    r"^(STAGES\s*=|def (stage_label|_stage|ago|age|age_text|utc_text|safe_href"
    r"|size_text|_size|_mb|_kb|human_size|format_size|filesize)\()",
    re.MULTILINE,
)


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (timedelta(seconds=12), "just now"),
        (timedelta(minutes=5, seconds=59), "5 min ago"),
        (timedelta(hours=3, minutes=1), "3 h ago"),
        (timedelta(days=2), "2 d ago"),
        (timedelta(days=45), "2026-03-17"),
        (timedelta(seconds=-30), "just now"),  # a skewed clock never reads as a negative age
    ],
)
def test_ages_are_short_and_turn_into_the_date_after_a_month(delta: timedelta, text: str) -> None:
    assert ago(NOW - delta, NOW) == text


def test_no_moment_reads_never() -> None:
    assert ago(None, NOW) == "never"


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        " JavaScript:alert(1)",
        "java\tscript:alert(1)",
        "data:text/html,x",
        "",
    ],
)
def test_a_link_that_could_run_script_is_dropped(url: str) -> None:
    assert safe_href(url) == ""


def test_web_only_links_need_http_and_a_host() -> None:
    assert safe_href("https://example.com/x", web_only=True) == "https://example.com/x"
    assert safe_href("claude://resume?session=1") == "claude://resume?session=1"
    assert safe_href("claude://resume?session=1", web_only=True) == ""
    assert safe_href("https:///nohost", web_only=True) == ""


def test_stage_labels_come_from_the_setting_and_fall_back_to_the_key(settings) -> None:
    assert STAGES == ("plan", "dev", "review", "test", "live", "done")
    labels = settings.RELAYBAY.stage_labels  # type: ignore[attr-defined]
    assert stage_label("dev") == (labels.get("dev") or "Dev")


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0 B"),
        (73, "73 B"),  # a tiny screenshot is not "1 KB"
        (1023, "1023 B"),
        (1024, "1 KB"),
        (34 * 1024 + 200, "34 KB"),
        (256 * 1024, "256 KB"),
        (1024 * 1024 - 1, "1.0 MB"),  # never "1024 KB"
        (1024 * 1024, "1 MB"),
        (1536 * 1024, "1.5 MB"),
        (10 * 1024 * 1024, "10 MB"),  # a limit reads whole
        (10 * 1024 * 1024 + 5, "10.0 MB"),  # a file just over it does not
    ],
)
def test_sizes_read_in_bytes_kilobytes_and_megabytes(n: int, text: str) -> None:
    assert size_text(n) == text


def test_each_helper_is_defined_only_in_display() -> None:
    found = []
    for top in (
        "relaybay",
        "relaybay_site",
        "core",
        "tasks",
        "plans",
        "reviews",
        "sessions",
        "environments",
        "memory",
        "policy",
    ):
        for path in (ROOT / top).rglob("*.py"):
            if path.name == "display.py" or "migrations" in path.parts:
                continue
            for match in ONE_HOME.finditer(path.read_text()):
                found.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert found == [], "use core.display instead:\n" + "\n".join(found)
