"""`relaybay setup --agent gemini`: relaybay's hooks and MCP server in Gemini CLI's user
settings.

The same steps as every agent's setup — detection, the diff and its plan hash, `--apply
--expect` with a backup, `--remove`, `--check` — over agents.gemini_cli.setup.plan. Unlike
the others, Gemini's MCP registration lives in the same settings.json, so setup writes it
too: `mcpServers.relaybay` with the token as `${RELAYBAY_TOKEN}`, which Gemini reads from its
environment (never the token itself). Folder trust is the owner's: setup never writes
trustedFolders.json, --check says which project folders Gemini does not trust.

A script that starts Gemini can tie its MCP calls to its session (Gemini sends no session
id with them): `gemini --session-id <id>` with `RELAYBAY_SESSION=<id>` in its environment,
and `"X-Relaybay-Session": "${RELAYBAY_SESSION}"` added to the entry's headers, which setup
keeps when it writes the entry again; relaybay's MCP server reads that header (core/calls.py),
so setup's output and Settings → Integrations offer it.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from agents.gemini_cli.setup import checks, detect, entries
from agents.gemini_cli.setup.plan import make_plan
from agents.setup import command
from agents.setup.command import Output
from agents.setup.document import SettingsError
from agents.setup.found import show_version
from agents.setup.target import server_target, target_problem
from core import tokens


class GeminiSetup:
    name = "gemini"
    title = "Gemini CLI"
    own = ("gemini_home",)
    connect_words = "the relaybay setup --agent gemini line"

    def connect_line(self, base_url: str, token: str) -> str:
        """Setup writes Gemini's MCP entry itself; Gemini reads the token from the variable."""
        return (
            f"relaybay setup --agent gemini --apply, then export {entries.TOKEN_ENV}={token} "
            "where Gemini CLI starts"
        )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--gemini-home",
            metavar="DIR",
            help="With --agent gemini: the folder holding Gemini CLI's .gemini/settings.json "
            "(default: $GEMINI_CLI_HOME, else your home).",
        )

    def handle(self, out: Output, cfg: Any, options: dict[str, Any]) -> None:
        home = detect.gemini_home(options["gemini_home"])
        token_file = str(tokens.token_path(cfg.home_path))
        if options["check"]:
            if options["apply"] or options["remove"]:
                out.refuse("--check writes nothing: it takes no --apply or --remove.")
            command.check(
                out,
                cfg,
                options,
                lambda token: checks.check_items(cfg.base_url, token, home, token_file),
            )
            return
        path = detect.settings_file(home)
        target = server_target(cfg)
        problem = target_problem(target)
        if problem:
            out.refuse(problem)
        _print_detection(out, detect.detect_gemini(), path)
        action = "remove" if options["remove"] else "apply"
        try:
            plan = make_plan(path, target, action=action)
        except SettingsError as exc:
            out.refuse(str(exc))
        except OSError as exc:
            out.refuse(f"Cannot read {path}: {exc}")
        command.print_plan(out, plan, "No change: settings.json already is as planned.")
        command.write_or_show(out, plan, options, file="settings.json", title=self.title)
        if action == "apply":
            out.stdout.write(
                f"Gemini sends the token from {entries.TOKEN_ENV}, never from settings.json: "
                f"{checks.token_export(token_file)} before starting Gemini."
            )
            out.stdout.write(
                f"From a script, tie Gemini's MCP calls to its session: start it with "
                f"--session-id <id> and {entries.SESSION_ENV}=<id>, and add "
                f'"{entries.SESSION_HEADER}": "${{{entries.SESSION_ENV}}}" to the headers of '
                f"mcpServers.{entries.MCP_NAME} (setup keeps it)."
            )


def _print_detection(out: Output, found: detect.Gemini, path: Path) -> None:
    if found.path is None:
        out.stdout.write("Gemini CLI: `gemini` not found on PATH")
    else:
        out.stdout.write(f"Gemini CLI: {found.path} version {show_version(found.version)}")
    out.stdout.write(f"Settings file: {path}")


SETUP = GeminiSetup()
