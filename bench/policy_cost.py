"""The cost of the policy (issue 14): an effective policy, and the hostile-probe check of
one regular expression. Targets: effective policy p99 ≤ 1 ms when cached; the probe
validation of one pattern ≤ 50 ms (the budget policy/safe_regex.py gives it).

The guard asks for the effective policy on every PreToolUse call, so it must cost about
what its one query costs. In-process, on a throwaway data folder migrated like `serve`
does: one project with a stored layer (policy_layer_save) and a policy.json holding a
custom pattern, then, per call, time.perf_counter_ns around:

- the floors: a bare dict lookup (≈ the timer's own cost) and a one-row ORM query
  (Project by slug) on the same SQLite file;
- selectors.effective(project scope), cached: what every guard call after the first pays
  (stat policy.json, one query for the stored layers, a dictionary lookup);
- the same after policy.json changed: the file rewritten before each timed call (not
  timed), so each call stats, re-reads, validates (schema and the regex probes) and merges;
- safe_regex.problem(pattern) for a few patterns: what a saved or proposed layer (and a
  re-read policy.json) pays per regular expression — the structure checks and, when they
  pass, every hostile 4 KB probe. A pattern the structure checks refuse costs only them.

The file is policy_cost.py, not policy.py: run as a script, bench/ comes first on sys.path
and a bench/policy.py would be imported in place of the policy app.

Prints a table and asserts nothing. Run: .venv/bin/python bench/policy_cost.py [N]
(N calls per row, default 2000; a few seconds).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import percentile, table

CALLS = 2000
PROBE_CALLS = 50
SLUG = "bench-shop"
CACHED_TARGET_MS = 1.0
PROBE_TARGET_MS = 50.0
LAYER = {"guard": {"mode": "block"}, "levels": {"live": {"db": "ask"}, "test": {"deploy": "ask"}}}
GLOBAL = {
    "preset": "default",
    "guard": {
        "disable+": ["sftp-session"],
        "patterns+": [
            {
                "id": "bench-release",
                "capability": "deploy",
                "command": r"\brelease\.sh\b",
                "change": r"\b(publish|promote)\b",
            }
        ],
    },
    "secrets": {"allow+": [r"test-[a-z0-9]{8}"]},
}
PROBED = [
    ("custom change", r"\b(publish|promote)\b"),
    ("allow pattern", r"test-[a-z0-9]{8}"),
    ("two unbounded", r"[a-z0-9._-]+@[a-z0-9.-]+\.example"),
    ("long alternation", "|".join(f"word{n}" for n in range(30))),
    ("nested quantifier (refused)", r"(a+)+b"),
]


def setup(home: Path) -> None:
    for name in list(os.environ):
        if name.startswith("RELAYBAY_"):
            del os.environ[name]
    os.environ["RELAYBAY_HOME"] = str(home)
    os.environ["DJANGO_SETTINGS_MODULE"] = "relaybay_site.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def timed(
    fn: Callable[[], Any], count: int, before: Callable[[], Any] | None = None
) -> list[float]:
    """Seconds per call; `before` runs untimed ahead of each call."""
    samples = []
    for _ in range(count):
        if before is not None:
            before()
        began = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - began) / 1e9)
    return samples


def us(seconds: float) -> str:
    return f"{seconds * 1e6:9.1f}"


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else CALLS
    with tempfile.TemporaryDirectory(prefix="relaybay-bench-policy-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        setup(home)
        from policy import global_file, safe_regex, selectors
        from policy.services import policy_layer_save
        from tasks.models import Project
        from tasks.services import project_upsert

        project_upsert(slug=SLUG, name="Bench Shop", actor="bench")
        policy_layer_save(scope=SLUG, text=json.dumps(LAYER), actor="bench", confirmed=True)
        policy_file = global_file.policy_path()
        policy_file.write_text(json.dumps(GLOBAL))
        scope = selectors.resolve_scope(SLUG)
        first = selectors.effective(scope)
        assert first.chain == ("preset:default", "global", f"project:{SLUG}"), first.chain

        lookup = {f"key{n}": n for n in range(100)}
        results: dict[str, list[float]] = {
            "floor: dict lookup": timed(lambda: lookup["key42"], count),
            "floor: one-row ORM query": timed(
                lambda: Project.objects.filter(slug=SLUG).first(), count
            ),
            "effective policy, cached": timed(lambda: selectors.effective(scope), count),
        }
        bodies = [json.dumps(GLOBAL), json.dumps({**GLOBAL, "description": "changed"})]
        turn = iter(range(10**9))

        def change_file() -> None:
            policy_file.write_text(bodies[next(turn) % 2])

        changed = max(50, count // 10)
        results["effective policy, policy.json changed"] = timed(
            lambda: selectors.effective(scope), changed, before=change_file
        )
        probes = {
            f"probe: {label}": timed(lambda p=pattern: safe_regex.problem(p), PROBE_CALLS)
            for label, pattern in PROBED
        }
        verdicts = {f"probe: {label}": safe_regex.problem(p) for label, p in PROBED}

        floor_orm = statistics.median(results["floor: one-row ORM query"])
        rows = []
        for label, samples in {**results, **probes}.items():
            p50 = statistics.median(samples)
            rows.append(
                (
                    label,
                    len(samples),
                    us(p50),
                    us(percentile(samples, 99)),
                    f"{p50 / floor_orm:7.2f}×",
                    (verdicts.get(label) or "ok")[:40] if label in verdicts else "",
                )
            )
        stub = not hasattr(safe_regex, "PROBE_BUDGET")
        table(
            f"Policy cost ({count} calls per row; load average {os.getloadavg()[0]:.1f} on "
            f"{os.cpu_count()} CPUs{'; safe_regex is the STUB' if stub else ''})",
            ("call", "n", "p50 µs", "p99 µs", "p50 / ORM floor", "probe verdict"),
            rows,
        )
        cached = percentile(results["effective policy, cached"], 99) * 1000
        probe = max(percentile(s, 99) for s in probes.values()) * 1000
        print(
            f"\nEffective policy, cached: p99 {cached:.3f} ms — "
            f"{'meets' if cached <= CACHED_TARGET_MS else 'MISSES'} the "
            f"{CACHED_TARGET_MS:g} ms target. Probe validation of one pattern: worst p99 "
            f"{probe:.3f} ms — {'meets' if probe <= PROBE_TARGET_MS else 'MISSES'} the "
            f"{PROBE_TARGET_MS:g} ms target"
            + (
                " (with the stub: a cached compile, not the probes; re-run with the real module)."
                if stub
                else "."
            )
        )


if __name__ == "__main__":
    main(sys.argv[1:])
