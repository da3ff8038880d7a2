"""`relaybay setup --agent codex`: relaybay's hooks and their trust in Codex's config.toml.

The same steps as Claude Code's setup — detection, the diff and its plan hash, `--apply
--expect` with a backup, `--remove`, `--check` — over agents.codex.setup.plan. The
MCP registration is printed, never written: `codex mcp add …` when this codex offers it,
else the `[mcp_servers.relaybay]` table; the token goes into RELAYBAY_TOKEN, never into
config.toml.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from agents.claude_code.setup import detect
from agents.codex.setup import checks as codex_checks
from agents.codex.setup import config as codex
from agents.codex.setup.plan import make_codex_plan
from agents.setup.document import SettingsError
from agents.setup.items import render as render_items
from agents.setup.plan import Plan
from agents.setup.target import server_target, target_problem
from core import tokens


class Command(Protocol):
    """What this module uses of `relaybay setup`'s Command: its output and its two ways out
    (a Protocol, so that setup.py imports this module and not the other way round)."""

    stdout: Any

    def _write(
        self, plan: Plan, expect: str | None, *, file: str = ..., agent: str = ...
    ) -> None: ...

    def _refuse(self, message: str) -> None: ...


CLAUDE_ONLY = ("mode", "wake", "no_wake", "force_wake", "claude_home")


def handle(command: Command, cfg: Any, options: dict[str, Any]) -> None:
    """Plan (dry run), write, remove or check, as the options say."""
    given = [f"--{n.replace('_', '-')}" for n in CLAUDE_ONLY if options[n] not in (None, False)]
    if options["mode"] == "command":
        given = [g for g in given if g != "--mode"]
    if given:
        command._refuse(f"--agent codex takes no {', '.join(given)} (they are Claude Code's).")
    home = codex.codex_home(options["codex_home"])
    config = codex.config_file(home)
    found = codex.detect_codex()
    if options["check"]:
        _check(command, cfg, home, options)
        return
    if options["json"]:
        command._refuse("--json goes with --check.")
    target = server_target(cfg)
    problem = target_problem(target)
    if problem:
        command._refuse(problem)
    _print_detection(command, found, config)
    action = "remove" if options["remove"] else "apply"
    try:
        plan = make_codex_plan(config, target, action=action)
    except SettingsError as exc:
        command._refuse(str(exc))
    except OSError as exc:
        command._refuse(f"Cannot read {config}: {exc}")
    _print_plan(command, plan)
    if (options["apply"] or options["remove"]) and not options["dry_run"]:
        command._write(plan, options["expect"], file="config.toml", agent="Codex")
    else:
        command.stdout.write(
            f"Dry run: nothing written. To write this plan, run the same command with "
            f"--{action} --expect {plan.hash}."
        )
    if action == "apply":
        _print_mcp(command, cfg, config, found)


def _print_detection(command: Command, found: codex.Codex, config: Path) -> None:
    if found.path is None:
        command.stdout.write("Codex: `codex` not found on PATH")
    else:
        version = detect.show_version(found.version)
        command.stdout.write(f"Codex: {found.path} version {version}")
    command.stdout.write(f"Config file: {config}")


def _print_plan(command: Command, plan: Plan) -> None:
    if plan.changed:
        command.stdout.write(plan.diff)
    else:
        command.stdout.write("No change: config.toml already is as planned.")
    for note in plan.notes:
        command.stdout.write(f"Note: {note}")
    command.stdout.write(f"Plan hash: {plan.hash}")


def _print_mcp(command: Command, cfg: Any, config: Path, found: codex.Codex) -> None:
    """The registration as config.toml has it now, or how to make it (never written here)."""
    doc, _ = codex.read_config(config)
    entry = codex.mcp_registration(doc or {})
    url = cfg.base_url + "/mcp"
    write = command.stdout.write
    if entry is not None and entry.url == url and (entry.token_env or entry.headers):
        write(f"MCP: relaybay is registered for Codex ({url}).")
    else:
        if entry is None:
            header = "MCP: relaybay is not registered for Codex."
        else:
            header = f"MCP: [mcp_servers.{codex.MCP_NAME}] in {config} does not reach {url}."
        if codex.offers_mcp_add(found):
            write(f"{header} Register it:")
            if entry is not None:
                write(f"codex mcp remove {codex.MCP_NAME}")
            write(codex.mcp_add_command(cfg.base_url))
        else:
            where = "Add" if entry is None else "Put"
            write(f"{header} {where} this table in {config} (setup does not write it):")
            write(codex.mcp_table(cfg.base_url))
    token_file = str(tokens.token_path(cfg.home_path))
    write(
        f"Codex sends the token from {codex.TOKEN_ENV}, never from config.toml: "
        f"{codex.token_export(token_file)} before starting Codex."
    )


def _check(command: Command, cfg: Any, home: Path, options: dict[str, Any]) -> None:
    """`--check`: one ok / FAIL line per item (or --json); exit 1 when one fails."""
    if options["apply"] or options["remove"]:
        command._refuse("--check writes nothing: it takes no --apply or --remove.")
    token = tokens.ensure_token(cfg.home_path)
    token_file = str(tokens.token_path(cfg.home_path))
    items = codex_checks.check_items(cfg.base_url, token, home, token_file)
    command.stdout.write(render_items(items, as_json=options["json"]))
    if not all(item.ok for item in items):
        raise SystemExit(1)
