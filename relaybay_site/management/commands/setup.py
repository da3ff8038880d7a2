"""`relaybay setup`: connect an agent CLI on this machine (§5 #spec-setup).

Dry run by default: detection, the exact diff of the agent's settings file and its plan
hash. `--apply` / `--remove` back the file up and write only relaybay's hook entries. The
agent's MCP registration is never written: it is only reported, or the line to run is
printed. Refusals exit 2 and write nothing.

Which agents there are comes from the registry (agents/registry.py); each package's
setup.command adds its own options and does its part. This command names no agent.
"""

from __future__ import annotations

from typing import Any, NoReturn

from django.conf import settings

from agents.registry import setups
from relaybay_site.management.commands._flags import RelaybayCommand


class Refused(SystemExit):
    """Exit code 2 after the reason went to stderr."""


class Command(RelaybayCommand):
    help = (
        "Show (dry run) or write relaybay's hook entries in an agent CLI's user settings, "
        "with a backup (--agent picks the agent)."
    )

    def add_arguments(self, parser) -> None:  # type: ignore[no-untyped-def]
        agents = setups()
        names = ", ".join(f"{a.name} ({a.title})" for a in agents)
        parser.add_argument(
            "--agent",
            choices=[a.name for a in agents],
            default=agents[0].name,
            help=f"Which agent CLI to connect: {names}; default {agents[0].name}.",
        )
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--apply", action="store_true", help="Write the hook entries.")
        action.add_argument("--remove", action="store_true", help="Remove only relaybay's.")
        parser.add_argument("--dry-run", action="store_true", help="Show the plan; write nothing.")
        parser.add_argument("--expect", metavar="HASH", help="Write only if the plan hash is this.")
        parser.add_argument(
            "--check",
            action="store_true",
            help="Check the server, the hooks and the MCP registration; write nothing "
            "(may create the token, like relaybay serve). Exit 1 when an item fails.",
        )
        parser.add_argument("--json", action="store_true", help="With --check: a JSON list.")
        for agent in agents:
            agent.add_arguments(parser)
        self._defaults = {dest: parser.get_default(dest) for a in agents for dest in a.own}

    def handle(self, *args: Any, **options: Any) -> None:
        agents = setups()
        chosen = next(a for a in agents if a.name == options["agent"])
        for other in agents:
            given = [
                "--" + dest.replace("_", "-")
                for dest in other.own
                if other is not chosen and options[dest] != self._defaults[dest]
            ]
            if given and chosen is agents[0]:  # no --agent given: say which one they need
                verb = "goes" if len(given) == 1 else "go"
                self.refuse(f"{', '.join(given)} {verb} with --agent {other.name}.")
            if given:
                self.refuse(
                    f"--agent {chosen.name} takes no {', '.join(given)} (they are {other.title}'s)."
                )
        if options["json"] and not options["check"]:
            self.refuse("--json goes with --check.")
        chosen.handle(self, settings.RELAYBAY, options)

    def refuse(self, message: str) -> NoReturn:
        self.stderr.write(f"relaybay setup: {message}")
        raise Refused(2)
