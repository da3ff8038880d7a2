"""The soak bench, 30 seconds of it, as a smoke test (issue 18; docs/architecture.md §10).

bench/soak.py runs as a user runs it, with `--seconds 30 --json FILE`: every kind of client
at once against its own real `relaybay serve` (20 hook sessions, 8 MCP clients, 50 SSE
streams, 200 held wake-up waits, the board). The run must see no error and no 5xx, and
the server's file descriptors must come back to the baseline once the clients have closed.
Latencies are printed by the bench, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server import clean_env

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SOAK = ROOT / "bench" / "soak.py"
FD_MARGIN = 5


def test_thirty_seconds_of_mixed_load_leave_no_error_and_no_descriptor_behind(
    tmp_path: Path,
) -> None:
    out = tmp_path / "soak.json"
    done = subprocess.run(
        [sys.executable, str(SOAK), "--seconds", "30", "--json", str(out)],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = json.loads(out.read_text())
    print(done.stdout[-2500:])

    # Every kind of client really ran and was answered.
    for endpoint in (
        "hook PreToolUse",
        "hook PostToolUse",
        "hook Stop",
        "hook UserPromptSubmit",
        "mcp task_update",
        "mcp report_add",
        "mcp task_set_stage",
        "board page",
    ):
        assert summary["endpoints"].get(endpoint, {}).get("n", 0) > 0, endpoint
    assert summary["waits_held"] == 200
    assert summary["sse_events_min"] > 0, "every SSE stream sees the writes"
    # The long-lived requests held their sockets, so the descriptor count is a real measure.
    assert summary["fds_loaded_max"] >= summary["fds_baseline"] + 250

    assert summary["errors"] == 0, summary["error_samples"]
    assert summary["server_errors"] == 0
    assert summary["tracebacks_in_log"] == 0
    assert summary["fds_after_close"] <= summary["fds_baseline"] + FD_MARGIN
