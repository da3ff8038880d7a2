"""The PreToolUse guard's decision engine (§7 Guard): pure logic, no views, no hooks.

    verdict = decide(shell(command) or mcp(server, tool, input), [stand_rules(view, …), …])

shell.py splits a command into segments and shell words, commands.py finds the commands
they run, identifiers.py where the text names an environment, rules.py the one table of
mutating heuristics (plus the policy's own patterns), stand.py what the guard knows of an
environment, decide.py the decision. The PreToolUse hook turns the Verdict into its answer
and the journal's live.action events.
"""

from environments.guard.decide import Touch, Verdict, decide
from environments.guard.identifiers import Identifier
from environments.guard.reading import Call, CallText, mcp, read_call, shell
from environments.guard.shell import shell_words, split_segments
from environments.guard.stand import StandRules, stand_rules

__all__ = [
    "Call",
    "CallText",
    "Identifier",
    "StandRules",
    "Touch",
    "Verdict",
    "decide",
    "mcp",
    "read_call",
    "shell",
    "shell_words",
    "split_segments",
    "stand_rules",
]
