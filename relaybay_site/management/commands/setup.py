"""`relaybay setup`: connect Claude Code (or, with --agent codex, Codex) on this machine
(§5 #spec-setup).

Dry run by default: detection, the exact diff of ~/.claude/settings.json (Codex:
$CODEX_HOME/config.toml) and its plan hash. `--apply` / `--remove` back the file up and
write only relaybay's hook entries. MCP registration is never written (~/.claude.json
belongs to Claude Code; Codex registers with `codex mcp add`): it is only reported, or the
line to run is printed. Refusals exit 2 and write nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from agents.claude_code.setup import detect
from agents.claude_code.setup.plan import make_plan
from agents.setup.document import SettingsError
from agents.setup.items import render as render_items
from agents.setup.plan import Plan, PlanChanged, write_plan
from agents.setup.target import Target, server_target, target_problem
from core import tokens
from relaybay_site.management.commands import _setup_codex
from relaybay_site.management.commands._flags import RelaybayCommand


class Refused(SystemExit):
    """Exit code 2 after the reason went to stderr."""


class Command(RelaybayCommand):
    help = (
        "Show (dry run) or write relaybay's hook entries in Claude Code's user settings "
        "(~/.claude/settings.json) or, with --agent codex, Codex's config.toml, with a backup."
    )

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        parser.add_argument(
            "--agent",
            choices=("claude-code", "codex"),
            default="claude-code",
            help="Which agent CLI to connect (default: claude-code).",
        )
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--apply", action="store_true", help="Write the hook entries.")
        action.add_argument("--remove", action="store_true", help="Remove only relaybay's.")
        parser.add_argument("--dry-run", action="store_true", help="Show the plan; write nothing.")
        parser.add_argument("--expect", metavar="HASH", help="Write only if the plan hash is this.")
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
        parser.add_argument(
            "--check",
            action="store_true",
            help="Check the server, the hooks and the MCP registration; write nothing "
            "(may create the token, like relaybay serve). Exit 1 when an item fails.",
        )
        parser.add_argument("--json", action="store_true", help="With --check: a JSON list.")
        parser.add_argument(
            "--codex-home",
            metavar="DIR",
            help="With --agent codex: Codex's folder holding config.toml (default: "
            "$CODEX_HOME, else ~/.codex).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        cfg = settings.RELAYBAY
        if options["agent"] == "codex":
            _setup_codex.handle(self, cfg, options)
            return
        if options["codex_home"] is not None:
            self._refuse("--codex-home goes with --agent codex.")
        claude_home = Path(options["claude_home"] or Path.home()).expanduser()
        if options["check"]:
            self._check(cfg, claude_home, options)
            return
        if options["json"]:
            self._refuse("--json goes with --check.")
        settings_path = detect.settings_file(claude_home)
        target = server_target(cfg)
        claude = detect.detect_claude()
        self._check_options(options, claude, target)
        self._print_detection(claude, settings_path, claude_home)
        wake = True if options["wake"] else (False if options["no_wake"] else None)
        action = "remove" if options["remove"] else "apply"
        try:
            plan = make_plan(settings_path, target, action=action, mode=options["mode"], wake=wake)
        except SettingsError as exc:
            self._refuse(str(exc))
        except OSError as exc:
            self._refuse(f"Cannot read {settings_path}: {exc}")
        self._print_plan(plan)
        http_note = detect.http_hooks_note(claude)
        if action == "apply" and options["mode"] == "http" and http_note:
            self.stdout.write(f"Note: {http_note}")
        writing = (options["apply"] or options["remove"]) and not options["dry_run"]
        if writing:
            self._write(plan, options["expect"])
        else:
            self.stdout.write(
                f"Dry run: nothing written. To write this plan, run the same command with "
                f"--{action} --expect {plan.hash}."
            )
        if action == "apply":
            self._print_mcp(claude_home, cfg.base_url)

    def _check_options(
        self, options: dict[str, Any], claude: detect.ClaudeCode, target: Target
    ) -> None:
        if options["remove"] and (
            options["wake"] or options["no_wake"] or options["mode"] != "command"
        ):
            self._refuse("--remove takes no --mode, --wake or --no-wake.")
        problem = target_problem(target)
        if problem:
            self._refuse(problem)
        if options["force_wake"] and not options["wake"]:
            self._refuse("--force-wake goes with --wake.")
        if options["wake"] and options["mode"] == "http":
            self._refuse("The wake-up hook is a command hook: --wake needs --mode command.")
        if options["wake"] and not claude.async_rewake and not options["force_wake"]:
            self._refuse(
                f"--wake refused: Claude Code {detect.show_version(claude.version)} is older "
                f"than {detect.show_version(detect.MIN_ASYNC_REWAKE_VERSION)} or unknown, and "
                "a build that ignores asyncRewake would hold the end of every turn for up to "
                "30 minutes. Add --force-wake to write it anyway."
            )

    def _print_detection(
        self, claude: detect.ClaudeCode, settings_path: Path, claude_home: Path
    ) -> None:
        if claude.path is None:
            self.stdout.write("Claude Code: `claude` not found on PATH")
        else:
            http = "supported" if claude.http_hooks else "not supported (needs 2.1.63)"
            self.stdout.write(
                f"Claude Code: {claude.path} version {detect.show_version(claude.version)}; "
                f"http hooks {http}"
            )
        self.stdout.write(f"Settings file: {settings_path}")
        self.stdout.write(f"Claude desktop app: {detect.desktop_line(claude_home)}")

    def _print_plan(self, plan: Plan) -> None:
        if plan.changed:
            self.stdout.write(plan.diff)
        else:
            self.stdout.write("No change: the settings file already is as planned.")
        for note in plan.notes:
            self.stdout.write(f"Note: {note}")
        self.stdout.write(f"Plan hash: {plan.hash}")

    def _write(
        self, plan: Plan, expect: str | None, *, file: str = "settings file", agent: str = ""
    ) -> None:
        if expect is not None and expect != plan.hash:
            self._refuse(
                f"The {file} or the plan changed since plan {expect} was shown "
                f"(the plan above is {plan.hash}); nothing was written. Check the diff, then "
                f"run again with --expect {plan.hash}."
            )
        try:
            backup = write_plan(plan)
        except PlanChanged as exc:
            self._refuse(f"{exc} Run setup again to see the new plan.")
        except OSError as exc:
            self._refuse(f"Cannot write {plan.path}: {exc}")
        if not plan.changed:
            self.stdout.write("Nothing to write.")
            return
        if backup is not None:
            self.stdout.write(f"Backup: {backup}")
        done = "Removed relaybay's entries from" if plan.action == "remove" else "Wrote"
        self.stdout.write(
            f"{done} {plan.path}. Restart {agent or 'Claude Code'} sessions to load it."
        )

    def _print_mcp(self, claude_home: Path, base_url: str) -> None:
        url = detect.mcp_registration(claude_home / ".claude.json")
        if url is not None:
            self.stdout.write(f"MCP: relaybay is registered for Claude Code ({url or 'no url'}).")
            return
        self.stdout.write(
            "MCP: relaybay is not registered for Claude Code. Register it with the line "
            "below (run relaybay token to print it with your token):"
        )
        self.stdout.write(tokens.mcp_add_command(base_url, "<token>"))

    def _check(self, cfg: Any, claude_home: Path, options: dict[str, Any]) -> None:
        """`--check`: one ok / FAIL line per item (or --json); exit 1 when one fails."""
        from agents.claude_code.setup import checks

        if options["apply"] or options["remove"] or options["wake"] or options["no_wake"]:
            self._refuse("--check writes nothing: it takes no --apply, --remove or --wake.")
        token = tokens.ensure_token(cfg.home_path)
        items = checks.check_items(cfg.base_url, token, claude_home)
        self.stdout.write(render_items(items, as_json=options["json"]))
        if not all(item.ok for item in items):
            raise SystemExit(1)

    def _refuse(self, message: str) -> None:
        self.stderr.write(f"relaybay setup: {message}")
        raise Refused(2)
