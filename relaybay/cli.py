"""The `relaybay` command: setting flags are taken first, then a management command runs.

Every subcommand (serve, token, …) is a Django management command. The flags of the
settings table (--home, --port, …) may stand anywhere on the line; they are validated
here, before Django starts, so a bad value is one line on stderr and exit code 2.
"""

from __future__ import annotations

import json
import os
import sys

from relaybay import get_version, hook_client

TYPE_CHECKING = False
if TYPE_CHECKING:
    from core.config import Config

COMMANDS = {
    "serve": "Start the server (board, /mcp, /hooks) on 127.0.0.1.",
    "token": "Print the token's MCP registration line; --rotate replaces the token.",
    "setup": "Show or write relaybay's hooks for an agent CLI (--agent); dry run by default.",
    "doctor": "Check relaybay, the server and each agent CLI you connected; writes nothing.",
    "hook": "Forward one agent hook event (stdin) to the server; what setup's hooks run.",
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
        f"relaybay {get_version()} — a live board for your coding agents",
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

    try:
        flags, rest = split_setting_flags(args)
    except SystemExit:  # a setting flag at the very end, without its value
        if split_setting_flags(args[:-1])[1][:1] == ["hook"]:
            return 0  # exit 2 would block the agent (see _hook); the message is on stderr
        raise
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


HOOK_ROUTE = "/hooks/<agent>"  # each agent's route (agents/<agent>/hooks.py's SPEC.path)
WAIT_ROUTE = "/hooks/<agent>/wait"
HOOK_OPTIONS = hook_client.OPTIONS
HookUsageError = hook_client.UsageError  # an option `relaybay hook` does not take, or no value


def agent_names() -> tuple[str, ...]:
    """The agents `relaybay hook --agent` takes, the default first (agents/registry.py)."""
    from agents.registry import names

    return names()


def parse_hook_options(argv: list[str]) -> tuple[str, str, bool, str, str]:
    """(url, token file, wait, agent, hold) from `[--agent A] [--url U] [--token-file F]
    [--wait] [--hold S]`; "" when not given.

    The hook client's own parser, strict: argparse is the management command's, and
    importing it (with Django) is what made every hook event cost most of a second.
    """
    agent = ""
    rest = []
    i = 0
    while i < len(argv):
        name, eq, value = argv[i].partition("=")
        if name != "--agent":
            rest.append(argv[i])
        elif eq:
            agent = value
        elif i + 1 < len(argv):
            i += 1
            agent = argv[i]
        else:
            raise HookUsageError("--agent needs a value")
        i += 1
    if agent and agent not in agent_names():
        raise HookUsageError(f"unknown agent {agent!r}: choose {', '.join(agent_names())}")
    url, token_file, wait, hold = hook_client.read_options(rest, strict=True)
    return url, token_file, wait, agent, hold


def hook_client_argv(
    cfg: Config, url: str, token_file: str, wait: bool, agent: str = "", hold: str = ""
) -> list[str]:
    """The hook client's arguments, each default filled in from this configuration.

    The base URL plus /hooks/<agent> (/hooks/<agent>/wait with --wait; the default agent
    when none is named), and <data folder>/token; the token is never created here.
    """
    route = "/hooks/" + (agent or agent_names()[0])
    url = url or cfg.base_url + route + ("/wait" if wait else "")
    token_file = token_file or str(cfg.home_path / "token")
    held = ["--hold", hold] if hold else []
    return ["--url", url, "--token-file", token_file, *(["--wait"] if wait else []), *held]


def _hook(flags: dict[str, str], rest: list[str]) -> int:
    """`relaybay hook`: the hook client with this configuration's defaults (§4).

    Every hook event pays this process's start-up, so Django is never set up here: the
    settings table gives the URL and token file and relaybay.hook_client does the rest.
    Exit code 2 from a hook is a *blocking* error for the agents (a refused tool call, a
    turn that cannot end), so a bad setting, an unknown option or any failure around the
    forwarder exits 0; only the forwarder's own wake-up answer exits 2.
    """
    from core.config import load_config

    try:
        url, token_file, wait, agent, hold = parse_hook_options(rest[1:])
        argv = hook_client_argv(load_config(flags=flags), url, token_file, wait, agent, hold)
    except HookUsageError as exc:
        print(f"relaybay hook: {exc}", file=sys.stderr)
        return 0
    except BaseException:  # a hook must never fail the session
        return 0
    return hook_client.main(argv)
