"""`relaybay setup` for Claude Code (the default agent; §5 #spec-setup): the hooks in
~/.claude/settings.json, command or http hooks, the opt-in wake-up hook.

Dry run by default: detection, the exact diff of the settings file and its plan hash.
`--apply` / `--remove` back the file up and write only relaybay's hook entries. The MCP
registration is never written (~/.claude.json belongs to Claude Code): it is reported, or
the `claude mcp add` line to run is printed.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from agents.claude_code.setup import checks, detect
from agents.claude_code.setup.plan import make_plan
from agents.setup import command
from agents.setup.command import Output
from agents.setup.document import SettingsError
from agents.setup.target import server_target, target_problem


class ClaudeSetup:
    name = "claude-code"
    title = "Claude Code"
    own = ("mode", "wake", "no_wake", "force_wake", "claude_home")
    connect_words = "the claude mcp add line"

    def connect_line(self, base_url: str, token: str) -> str:
        return detect.mcp_add_command(base_url, token)

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--mode", choices=("command", "http"), default="command", help="Hook type to write."
        )
        wake = parser.add_mutually_exclusive_group()
        wake.add_argument(
            "--wake", action="store_true", help="Add the wake-up hook to Stop (command mode)."
        )
        wake.add_argument("--no-wake", action="store_true", help="Remove the wake-up hook.")
        parser.add_argument(
            "--force-wake",
            action="store_true",
            help="Allow --wake on a Claude Code older than 2.1.309 or of unknown version.",
        )
        parser.add_argument(
            "--claude-home",
            metavar="FOLDER",
            help="Folder holding .claude/settings.json and .claude.json (default: your home).",
        )

    def handle(self, out: Output, cfg: Any, options: dict[str, Any]) -> None:
        claude_home = Path(options["claude_home"] or Path.home()).expanduser()
        if options["check"]:
            if options["apply"] or options["remove"] or options["wake"] or options["no_wake"]:
                out.refuse("--check writes nothing: it takes no --apply, --remove or --wake.")
            command.check(
                out,
                cfg,
                options,
                lambda token: checks.check_items(cfg.base_url, token, claude_home),
            )
            return
        settings_path = detect.settings_file(claude_home)
        claude = detect.detect_claude()
        _check_options(out, options, claude)
        problem = target_problem(server_target(cfg))
        if problem:
            out.refuse(problem)
        _print_detection(out, claude, settings_path, claude_home)
        wake = True if options["wake"] else (False if options["no_wake"] else None)
        action = "remove" if options["remove"] else "apply"
        try:
            plan = make_plan(
                settings_path, server_target(cfg), action=action, mode=options["mode"], wake=wake
            )
        except SettingsError as exc:
            out.refuse(str(exc))
        except OSError as exc:
            out.refuse(f"Cannot read {settings_path}: {exc}")
        command.print_plan(out, plan, "No change: the settings file already is as planned.")
        http_note = detect.http_hooks_note(claude)
        if action == "apply" and options["mode"] == "http" and http_note:
            out.stdout.write(f"Note: {http_note}")
        command.write_or_show(out, plan, options, file="settings file", title=self.title)
        if action == "apply":
            _print_mcp(out, claude_home, cfg.base_url)


def _check_options(out: Output, options: dict[str, Any], claude: detect.ClaudeCode) -> None:
    if options["remove"] and (
        options["wake"] or options["no_wake"] or options["mode"] != "command"
    ):
        out.refuse("--remove takes no --mode, --wake or --no-wake.")
    if options["force_wake"] and not options["wake"]:
        out.refuse("--force-wake goes with --wake.")
    if options["wake"] and options["mode"] == "http":
        out.refuse("The wake-up hook is a command hook: --wake needs --mode command.")
    if options["wake"] and not claude.async_rewake and not options["force_wake"]:
        out.refuse(
            f"--wake refused: Claude Code {detect.show_version(claude.version)} is older "
            f"than {detect.show_version(detect.MIN_ASYNC_REWAKE_VERSION)} or unknown, and "
            "a build that ignores asyncRewake would hold the end of every turn for up to "
            "30 minutes. Add --force-wake to write it anyway."
        )


def _print_detection(
    out: Output, claude: detect.ClaudeCode, settings_path: Path, claude_home: Path
) -> None:
    if claude.path is None:
        out.stdout.write("Claude Code: `claude` not found on PATH")
    else:
        http = "supported" if claude.http_hooks else "not supported (needs 2.1.63)"
        out.stdout.write(
            f"Claude Code: {claude.path} version {detect.show_version(claude.version)}; "
            f"http hooks {http}"
        )
    out.stdout.write(f"Settings file: {settings_path}")
    out.stdout.write(f"Claude desktop app: {detect.desktop_line(claude_home)}")


def _print_mcp(out: Output, claude_home: Path, base_url: str) -> None:
    url = detect.mcp_registration(claude_home / ".claude.json")
    if url is not None:
        out.stdout.write(f"MCP: relaybay is registered for Claude Code ({url or 'no url'}).")
        return
    out.stdout.write(
        "MCP: relaybay is not registered for Claude Code. Register it with the line "
        "below (run relaybay token to print it with your token):"
    )
    out.stdout.write(detect.mcp_add_command(base_url, "<token>"))


SETUP = ClaudeSetup()
