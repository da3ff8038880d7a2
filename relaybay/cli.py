"""The `relaybay` command: setting flags are taken first, then a management command runs.

Every subcommand (serve, token, …) is a Django management command. The flags of the
settings table (--home, --port, …) may stand anywhere on the line; they are validated
here, before Django starts, so a bad value is one line on stderr and exit code 2.
"""

from __future__ import annotations

import json
import os
import sys

from relaybay import get_version

COMMANDS = {
    "serve": "Start the server (board, /mcp, /hooks) on 127.0.0.1.",
    "token": "Print the `claude mcp add` line with the token; --rotate replaces the token.",
    "setup": "Show or write relaybay's hooks in Claude Code's settings (dry run by default).",
    "doctor": "Check relaybay, the server and Claude Code's setup; writes nothing.",
    "hook": "Forward one Claude Code hook event (stdin) to the server; what setup's hooks run.",
    "demo": "Seed a made-up workspace into a data folder (--home, --force) to look around.",
}


def split_setting_flags(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """Take `--key value` / `--key=value` for every setting flag out of argv."""
    from core.config import SETTINGS

    by_flag = {s.flag_name: s.name for s in SETTINGS if s.flag_name}
    flags: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if name in by_flag:
            if not eq:
                if i + 1 >= len(argv):
                    raise SystemExit(_fail(f"{name} needs a value"))
                i += 1
                value = argv[i]
            flags[by_flag[name]] = value
        else:
            rest.append(arg)
        i += 1
    return flags, rest


def _fail(message: str) -> int:
    print(f"relaybay: {message}", file=sys.stderr)
    return 2


def _usage() -> str:
    lines = [
        f"relaybay {get_version()} — a live board for your Claude Code agents",
        "",
        "usage: relaybay <command> [options]   (relaybay <command> --help for options)",
        "",
    ]
    lines += [f"  {name:<8} {text}" for name, text in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script, `python -m relaybay` and manage.py."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "--version":
        print(f"relaybay {get_version()}")
        return 0

    from core.config import FLAGS_ENV, ConfigError, load_config

    flags, rest = split_setting_flags(args)
    if rest[:1] == ["hook"] and not {"-h", "--help"} & set(rest):
        return _hook(flags, rest)
    if rest in ([], ["-h"], ["--help"], ["help"]):
        print(_usage())
        return 0
    if "--version" in rest:  # `relaybay serve --version` would print Django's version
        print(f"relaybay {get_version()}")
        return 0
    os.environ[FLAGS_ENV] = json.dumps(flags)
    try:
        load_config()
    except ConfigError as exc:
        if rest[:1] == ["doctor"]:
            # doctor reports invalid settings as a failed "settings" item (§5) instead of
            # exit 2; Django's settings would not load, so it runs without Django.
            from relaybay_site.management.commands.doctor import run_without_settings

            return run_without_settings(rest[1:], exc)
        return _fail(str(exc))
    return _run(rest)


def _run(rest: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "relaybay_site.settings")
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(["relaybay", *rest])
    except KeyboardInterrupt:
        return 130
    return 0


def _hook(flags: dict[str, str], rest: list[str]) -> int:
    """`relaybay hook`: like the hook client, never in Claude Code's way (§4).

    Exit code 2 from a hook is a *blocking* error for Claude Code (a refused tool call, a
    turn that cannot end), so a bad setting, an unknown option or any failure around the
    forwarder exits 0 silently; only the forwarder's own wake-up answer exits 2.
    """
    from core.config import FLAGS_ENV, load_config

    try:
        os.environ[FLAGS_ENV] = json.dumps(flags)
        load_config()
        _run(rest)
    except SystemExit as exc:
        from relaybay_site.management.commands.hook import WakeUp

        return int(exc.code or 0) if isinstance(exc, WakeUp) else 0
    except BaseException:  # a hook must never fail the session
        return 0
    return 0
