"""Generated references: docs/configuration.md, docs/mcp-tools.md, docs/commands.md,
docs/policy.md, docs/agents.md, docs/effort.md, and the generated blocks of
docs/architecture.md.

Each file is rendered from the code that defines it — the settings table
(`config.SETTINGS`), the tools and resources `mcp.build_server()` registers, the
argument parsers of the `relaybay` commands, and the policy's schema, presets and
catalogue (`make docs`) — and tests/test_docs_current.py fails when a file differs from
what this package renders now. One module per file (configuration.py, mcp_tools.py,
commands.py, policy.py with secrets.py for its sections on secrets), over common.py (the
banner, the table cell, a docstring's sections, a schema's type, limits and parameter rows);
this face re-exports them and writes the files.

Tool docs come from what the model itself sees: the docstring (description), the input
schema (each parameter's JSON type, whether it is required, its default and its
`Field(description=…)`), the annotations and the output schema. A docstring may end with
sections the generator lifts out of the description:

    Returns:
        What the markdown answer holds.
    Errors:
        - Unknown task: the message names task_list.

Run: `python -m relaybay_site.docgen [--out DIR]` (DIR defaults to the checkout's docs/).
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import tempfile
from pathlib import Path

from relaybay_site.docgen.commands import command_help, render_commands
from relaybay_site.docgen.common import (
    GENERATED,
    GENERIC_ERRORS,
    ensure_django,
    json_type,
    split_docstring,
)
from relaybay_site.docgen.configuration import DOC_LINK_RE, render_configuration
from relaybay_site.docgen.mcp_tools import render_mcp_tools

__all__ = [
    "DOCS_DIR",
    "DOC_LINK_RE",
    "GENERATED",
    "GENERIC_ERRORS",
    "command_help",
    "json_type",
    "main",
    "render_agents",
    "render_commands",
    "render_configuration",
    "render_effort",
    "render_mcp_tools",
    "render_policy",
    "split_docstring",
    "write_docs",
]

DOCS_DIR = Path(__file__).resolve().parent.parent.parent / "docs"


def render_agents() -> str:
    """docs/agents.md from the hook room's adapters (sessions/hooks/)."""
    ensure_django()
    from relaybay_site.docgen.agents import render

    return render()


def render_effort() -> str:
    """docs/effort.md from the effort code (effort/) and the shipped prices."""
    ensure_django()
    from relaybay_site.docgen.effort import render

    return render()


def render_policy() -> str:
    """docs/policy.md from policy/schema.json, the presets and the catalogue of ids."""
    ensure_django()  # the example's policy_get answer and the tools need the apps
    from relaybay_site.docgen.policy import render

    return render()


def render_architecture(current: str) -> str:
    """docs/architecture.md with its generated blocks (§11's agents and hook steps) as the
    code says them now; the hand-written rest as it is."""
    ensure_django()
    from relaybay_site.docgen.architecture import BLOCKS, fill

    return fill(current, BLOCKS)


# --- running it ------------------------------------------------------------------------------


def _isolate_environment() -> None:
    """Render from defaults: the developer's own config.toml or RELAYBAY_* must not leak in."""
    for name in list(os.environ):
        if name.startswith("RELAYBAY_"):
            del os.environ[name]
    os.environ["RELAYBAY_HOME"] = tempfile.mkdtemp(prefix="relaybay-docgen-")
    atexit.register(shutil.rmtree, os.environ["RELAYBAY_HOME"], ignore_errors=True)


def write_docs(out: Path) -> list[Path]:
    """Render every reference and write it into out; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        ("configuration.md", render_configuration()),
        ("mcp-tools.md", render_mcp_tools()),
        ("commands.md", render_commands()),
        ("policy.md", render_policy()),
        ("agents.md", render_agents()),
        ("effort.md", render_effort()),
    ):
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    plan = out / "architecture.md"
    source = plan if plan.exists() else DOCS_DIR / "architecture.md"
    plan.write_text(render_architecture(source.read_text(encoding="utf-8")), encoding="utf-8")
    written.append(plan)
    return written


def main(argv: list[str] | None = None) -> int:
    """`python -m relaybay_site.docgen [--out DIR]` (`make docs`)."""
    parser = argparse.ArgumentParser(prog="python -m relaybay_site.docgen", description=__doc__)
    parser.add_argument("--out", type=Path, default=DOCS_DIR, help="folder to write (docs/)")
    args = parser.parse_args(argv)
    from django.apps import apps

    if not apps.ready:  # run as a command: render from defaults, not from this machine
        _isolate_environment()
    ensure_django()
    for path in write_docs(args.out):
        print(f"wrote {path}")  # noqa: T201 - a developer command
    return 0
