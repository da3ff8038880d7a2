"""`relaybay setup --agent codex`: relaybay's hooks and their trust in Codex's config.toml.

The same steps as every agent's setup — detection, the diff and its plan hash, `--apply
--expect` with a backup, `--remove`, `--check` — over agents.codex.setup.plan. The MCP
registration is printed, never written: `codex mcp add …` when this codex offers it, else
the `[mcp_servers.relaybay]` table; the token goes into RELAYBAY_TOKEN, never into
config.toml.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from agents.codex.setup import checks as codex_checks
from agents.codex.setup import config as codex
from agents.codex.setup.plan import make_codex_plan
from agents.setup import command
from agents.setup.command import Output
from agents.setup.document import SettingsError
from agents.setup.found import show_version
from agents.setup.target import server_target, target_problem
from core import tokens


class CodexSetup:
    name = "codex"
    title = "Codex"
    own = ("codex_home",)
    connect_words = "the codex mcp add line"

    def connect_line(self, base_url: str, token: str) -> str:
        """`codex mcp add …` with the token's variable: the token stays out of config.toml."""
        return codex.mcp_add_command(base_url)

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--codex-home",
            metavar="DIR",
            help="With --agent codex: Codex's folder holding config.toml (default: "
            "$CODEX_HOME, else ~/.codex).",
        )

    def handle(self, out: Output, cfg: Any, options: dict[str, Any]) -> None:
        home = codex.codex_home(options["codex_home"])
        config = codex.config_file(home)
        if options["check"]:
            if options["apply"] or options["remove"]:
                out.refuse("--check writes nothing: it takes no --apply or --remove.")
            token_file = str(tokens.token_path(cfg.home_path))
            command.check(
                out,
                cfg,
                options,
                lambda token: codex_checks.check_items(cfg.base_url, token, home, token_file),
            )
            return
        found = codex.detect_codex()
        target = server_target(cfg)
        problem = target_problem(target)
        if problem:
            out.refuse(problem)
        _print_detection(out, found, config)
        action = "remove" if options["remove"] else "apply"
        try:
            plan = make_codex_plan(config, target, action=action)
        except SettingsError as exc:
            out.refuse(str(exc))
        except OSError as exc:
            out.refuse(f"Cannot read {config}: {exc}")
        command.print_plan(out, plan, "No change: config.toml already is as planned.")
        command.write_or_show(out, plan, options, file="config.toml", title=self.title)
        if action == "apply":
            _print_mcp(out, cfg, config, found)


def _print_detection(out: Output, found: codex.Codex, config: Path) -> None:
    if found.path is None:
        out.stdout.write("Codex: `codex` not found on PATH")
    else:
        version = show_version(found.version)
        out.stdout.write(f"Codex: {found.path} version {version}")
    out.stdout.write(f"Config file: {config}")


def _print_mcp(out: Output, cfg: Any, config: Path, found: codex.Codex) -> None:
    """The registration as config.toml has it now, or how to make it (never written here)."""
    doc, _ = codex.read_config(config)
    entry = codex.mcp_registration(doc or {})
    url = cfg.base_url + "/mcp"
    write = out.stdout.write
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


SETUP = CodexSetup()
