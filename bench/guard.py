"""The guard's decision (§7 Guard) on the worst call it reads: 8 KB of command in 200
segments, against 3 environments of 50 identifiers each and 10 custom patterns. Target:
decide() p99 ≤ 5 ms, since it runs inside every PreToolUse hook.

In-process, no server and no database: decide() is pure. Per call, time.perf_counter_ns
around:

- the floors: read_call on a tiny command (a bare function call, ≈ the timer's own cost)
  and json.loads of the worst case's hook body (what the hook pays to read the call at
  all, whatever the guard then does);
- decide() on the worst case: 200 segments that name the environments' identifiers in every
  place the guard looks (ssh destinations, --context, -h, copy targets, URLs, dotted names)
  and run every kind of rule; 2 of the 10 custom patterns find their command and their
  change in the text but never in one segment, so they are searched segment by segment;
- decide() on the same 8 KB naming nothing (the text is read, nothing touched), on an
  8 KB MCP input, and on one short command (the usual call);
- Verdict.journal_command() on the worst case: the journal's masking of a live touch.

The text is built from a fixed seed, so every run decides the same call. Prints a table
and asserts nothing. Run: .venv/bin/python bench/guard.py [N] (N calls per row, default
2000; about 30 s).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from _common import percentile, table  # noqa: E402

from environments.guard import (  # noqa: E402
    Identifier,
    StandRules,
    decide,
    mcp,
    read_call,
    shell,
    split_segments,
)
from policy.catalog import CAPABILITIES  # noqa: E402

CALLS = 2000
TINY = "ls"
TARGET_MS = 5.0
SEED = 14
SOURCES = (  # capability, source: the five kinds of identifier, in turn
    ("ssh", "ssh alias"),
    ("kubectl", "kubectl context"),
    ("db", "db host"),
    ("deploy", "gitops repo"),
    ("", "base_url"),
)
COMMANDS = (  # {h}: an identifier of one of the environments; about 40 characters each
    "ssh {h} sudo reboot",
    "ssh -p22 {h} 'tail -n 5 /var/log/x'",
    "kubectl --context {h} get po",
    "kubectl --context={h} delete po x",
    'psql -h {h} -c "drop table t"',
    "mysql -h{h} -e 'select 1'",
    "rsync -a dist/ deploy@{h}:/srv",
    "scp {h}:/var/log/x .",
    "curl -s https://{h}/x",
    "git push git@{h}.git",
    "helm --kube-context {h} list",
    "git status",
    "ls -la",
)
PATTERNS = (
    *(
        {
            "id": f"release-{n}",
            "capability": "deploy",
            "command": rf"\brelease{n}\.sh\b",
            "change": r"\b(publish|promote)\b",
            "description": "release script that publishes a build",
        }
        for n in range(4)
    ),
    *({"id": f"wipe-{n}", "change": rf"\bwipe-all-{n}\b"} for n in range(4)),
    # both halves occur in the text, never in one segment: searched segment by segment
    {"id": "ssh-then-status", "command": r"\bgit\b", "change": r"\bsystemctl\b"},
    {"id": "curl-then-tmp", "command": r"\bcurl\b", "change": r"/tmp\b"},
)


def identifiers(environment: str) -> tuple[Identifier, ...]:
    found = []
    for n in range(50):
        capability, source = SOURCES[n % len(SOURCES)]
        if source == "gitops repo":
            text = f"github.com/acme/{environment}-gitops-{n}"
        elif n % 3 == 0:
            text = f"host{n}{environment}"  # a single word: found only where a host goes
        else:
            text = f"{environment}-host-{n}.example"
        found.append(Identifier(text, capability, source))
    return tuple(found)


def stands() -> list[StandRules]:
    levels = {"default": "read", **dict.fromkeys(CAPABILITIES, "read"), "kubectl": "ask"}
    return [
        StandRules("acme", name, "live", identifiers(name), levels, "block", patterns=PATTERNS)
        for name in ("live", "staging", "demo")
    ]


def worst_command(names: list[str]) -> str:
    """Segments drawn from COMMANDS until 8 KB: exactly 200 of them once cut."""
    chosen = random.Random(SEED)
    segments: list[str] = []
    while len("; ".join(segments)) < 8300:
        name = chosen.choice(names)
        host = name.split("/", 1)[0] + ":" + name.split("/", 1)[1] if "/" in name else name
        segments.append(chosen.choice(COMMANDS).format(h=host))
    return "; ".join(segments)


def timed(fn: Callable[[], Any], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        began = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - began) / 1e9)
    return samples


def us(seconds: float) -> str:
    return f"{seconds * 1e6:9.1f}"


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else CALLS
    environments = stands()
    names = [i.text for stand in environments for i in stand.identifiers]
    command = worst_command(names)
    nothing = "".join(c if not c.isdigit() else "x" for c in command)  # names no identifier
    body = json.dumps({"tool_name": "Bash", "tool_input": {"command": command}})
    mcp_input = {"sql": command.replace("; ", "\n"), "host": names[2]}
    worst = decide(shell(command), environments)
    checks = {
        "segments": len(split_segments(worst.command)),
        "bytes read": len(worst.command.encode()),
        "touched": len(worst.touches),
        "decision": worst.decision,
    }

    results: dict[str, list[float]] = {
        "floor: read_call, tiny command": timed(lambda: read_call(shell(TINY)), count),
        "floor: json.loads of the hook body": timed(lambda: json.loads(body), count),
        "decide: worst case": timed(lambda: decide(shell(command), environments), count),
        "decide: 8 KB naming nothing": timed(lambda: decide(shell(nothing), environments), count),
        "decide: 8 KB MCP input": timed(
            lambda: decide(mcp("pg", "execute", mcp_input), environments), count
        ),
        "decide: ssh prod uptime": timed(
            lambda: decide(shell(f"ssh {names[1]} uptime"), environments), count
        ),
        "journal_command: worst case": timed(worst.journal_command, max(50, count // 10)),
    }
    floor_call = statistics.median(results["floor: read_call, tiny command"])
    floor_json = statistics.median(results["floor: json.loads of the hook body"])
    rows = []
    for label, samples in results.items():
        p50, p99 = statistics.median(samples), percentile(samples, 99)
        rows.append(
            (
                label,
                len(samples),
                us(p50),
                us(p99),
                f"{p50 / floor_call:9.0f}×",
                f"{p50 / floor_json:7.1f}×",
                f"{p99 / floor_json:7.1f}×",
            )
        )
    table(
        f"Guard decision ({count} calls per row; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} CPUs; worst case: {checks})",
        ("call", "n", "p50 µs", "p99 µs", "p50/call", "p50/json", "p99/json"),
        rows,
    )
    p99 = percentile(results["decide: worst case"], 99) * 1000
    print(
        f"\nWorst case: p99 {p99:.2f} ms — {'meets' if p99 <= TARGET_MS else 'MISSES'} the "
        f"{TARGET_MS:g} ms target."
    )


if __name__ == "__main__":
    main(sys.argv[1:])
