"""What `relaybay setup` asks of each agent's package (agents/<agent>/setup/command.py's
SETUP): the roof's command (relaybay_site/management/commands/setup.py) names no agent. It
takes `--agent` from the registry and the options every agent shares (--apply, --remove,
--dry-run, --expect, --check, --json), lets each package add its own (a folder, a hook
type), refuses one agent's options given to another, and hands the rest to the package.

The steps every agent's setup shares are here: the plan printed with its diff and hash,
the dry run's line, the write with `--expect` and a backup, and the check's lines.
"""

from __future__ import annotations

from argparse import ArgumentParser
from collections.abc import Callable
from typing import Any, NoReturn, Protocol

from agents.setup.items import Item
from agents.setup.items import render as render_items
from agents.setup.plan import Plan, PlanChanged, write_plan
from core import tokens


class Output(Protocol):
    """What a package's setup uses of the command: its output and its way out."""

    stdout: Any

    def refuse(self, message: str) -> NoReturn:
        """The reason on stderr, exit 2, nothing written."""
        ...


class AgentSetup(Protocol):
    name: str  # the --agent value, the agent's SPEC.name
    title: str  # "Claude Code"
    own: tuple[str, ...]  # the dests of the options it adds (refused for other agents)
    connect_words: str  # how the banner names its connect line ("the claude mcp add line")

    def connect_line(self, base_url: str, token: str) -> str:
        """The line that registers relaybay's MCP server with the agent (never written by
        relaybay); `relaybay token` and the banner print the default agent's."""
        ...

    def add_arguments(self, parser: ArgumentParser) -> None:
        """Its own options (each dest listed in `own`)."""
        ...

    def handle(self, out: Output, cfg: Any, options: dict[str, Any]) -> None:
        """Plan (dry run), write, remove or check, as the options say."""
        ...


def print_plan(out: Output, plan: Plan, unchanged: str) -> None:
    """The diff (or `unchanged`), the plan's notes and its hash."""
    out.stdout.write(plan.diff if plan.changed else unchanged)
    for note in plan.notes:
        out.stdout.write(f"Note: {note}")
    out.stdout.write(f"Plan hash: {plan.hash}")


def write_or_show(
    out: Output, plan: Plan, options: dict[str, Any], *, file: str, title: str
) -> None:
    """With --apply / --remove (and no --dry-run) write the plan after a backup, refused
    unless it is the one --expect names; else the line that writes exactly this plan."""
    if (options["apply"] or options["remove"]) and not options["dry_run"]:
        write(out, plan, options["expect"], file=file, title=title)
        return
    out.stdout.write(
        f"Dry run: nothing written. To write this plan, run the same command with "
        f"--{plan.action} --expect {plan.hash}."
    )


def write(out: Output, plan: Plan, expect: str | None, *, file: str, title: str) -> None:
    if expect is not None and expect != plan.hash:
        out.refuse(
            f"The {file} or the plan changed since plan {expect} was shown "
            f"(the plan above is {plan.hash}); nothing was written. Check the diff, then "
            f"run again with --expect {plan.hash}."
        )
    try:
        backup = write_plan(plan)
    except PlanChanged as exc:
        out.refuse(f"{exc} Run setup again to see the new plan.")
    except OSError as exc:
        out.refuse(f"Cannot write {plan.path}: {exc}")
    if not plan.changed:
        out.stdout.write("Nothing to write.")
        return
    if backup is not None:
        out.stdout.write(f"Backup: {backup}")
    done = "Removed relaybay's entries from" if plan.action == "remove" else "Wrote"
    out.stdout.write(f"{done} {plan.path}. Restart {title} sessions to load it.")


def check(
    out: Output, cfg: Any, options: dict[str, Any], items: Callable[[str], list[Item]]
) -> None:
    """`--check`: one ok / FAIL line per item (or --json); exit 1 when one fails. It may
    create the token, like relaybay serve; `items` gets it."""
    found = items(tokens.ensure_token(cfg.home_path))
    out.stdout.write(render_items(found, as_json=options["json"]))
    if not all(item.ok for item in found):
        raise SystemExit(1)
