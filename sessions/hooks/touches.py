"""Which files a tool call is about to change (for the collision warnings): paths only,
never contents.

From the neutral tool call of a PreToolUse: the files an edit tool changes (each agent's
tool table names them: agents/<agent>/tools.py), and the obvious writes of a shell
command — `>` and `>>` redirects, `tee`, `sed -i`, the targets of `mv`, `cp` and `rm`,
`git checkout -- <path>`. Anything less obvious is not guessed at: a missed write costs a
warning, a false one costs trust.

Each path is resolved against the session's cwd and kept only inside the repository, as a
path relative to its root. Pure: strings in, strings out.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable

from core.no_secrets import holds_token
from sessions.hooks import event as ev

_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "\n"})
_REDIRECTS = frozenset({">", ">>", "1>", "1>>", "2>", "2>>", "&>", "&>>", ">|"})
_NOWHERE = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
MAX_PATHS = 20  # one call's paths kept at most
PATH_MAX = 300  # a longer one is not kept
_COMMAND_MAX = 20_000


def written_paths(tool: ev.Tool | None) -> list[str]:
    """The paths a tool call is about to change, as written (absolute or relative): an edit
    tool's own (its agent's tool table names them), or a shell command's obvious writes."""
    if tool is None:
        return []
    if tool.kind == ev.EDIT:
        return _unique(p for p in tool.paths if p)
    if tool.kind == ev.SHELL and tool.command:
        return _unique(_shell_writes(tool.command[:_COMMAND_MAX]))
    return []


def in_repository(paths: Iterable[str], cwd: str, root: str) -> list[str]:
    """The paths inside the repository at `root`, relative to it (cwd resolves the
    relative ones; a path outside, or one that climbs out, is dropped)."""
    if not root or not os.path.isabs(root):
        return []
    base = os.path.normpath(root)
    found = []
    for path in paths:
        if len(path) > PATH_MAX or any(c < " " or c == "\x7f" for c in path):
            continue  # not a path a person would name: it never reaches another agent
        if holds_token(path):
            continue  # a secret's shape is never kept, not even as a file's name
        if not os.path.isabs(path):
            if not cwd or not os.path.isabs(cwd):
                continue
            path = os.path.join(cwd, path)
        full = os.path.normpath(path)
        if full != base and full.startswith(base.rstrip("/") + "/"):
            found.append(os.path.relpath(full, base))
    return _unique(found)


def _unique(paths: Iterable[str]) -> list[str]:
    found: list[str] = []
    for path in paths:
        if path not in found:
            found.append(path)
            if len(found) == MAX_PATHS:
                break
    return found


def _words(command: str) -> list[str]:
    """Shell words, with the separators as words of their own (quotes respected)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # an open quote: not a command we can read
        return []


def _commands(words: list[str]) -> Iterable[list[str]]:
    current: list[str] = []
    for word in words:
        if word in _SEPARATORS:
            if current:
                yield current
            current = []
        else:
            current.append(word)
    if current:
        yield current


def _shell_writes(command: str) -> list[str]:
    found: list[str] = []
    here = ""  # where an earlier `cd` in the command went (relative to the cwd, or absolute)
    for line in command.splitlines():  # each line a command list of its own
        for words in _commands(_words(line)):
            if len(words) == 2 and words[0] == "cd" and not words[1].startswith(("-", "~", "$")):
                here = os.path.join(here, words[1])
                continue
            written: list[str] = []
            words = _redirect_targets(words, written)
            written += _targets(words)
            found += [p if p in _NOWHERE else os.path.join(here, p) for p in written]
    return [p for p in found if p not in _NOWHERE and not p.startswith("-")]


def _redirect_targets(words: list[str], found: list[str]) -> list[str]:
    """Take `> file` and `>> file` out of a command (the file is written), the rest back."""
    rest: list[str] = []
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word in _REDIRECTS or (word.endswith(">") and word.rstrip(">").isdigit()):
            if i + 1 < len(words) and not words[i + 1].startswith("&"):
                found.append(words[i + 1])
            skip = True
            continue
        rest.append(word)
    return rest


def _operands(words: list[str]) -> list[str]:
    return [w for w in words if not w.startswith("-")]


def _targets(words: list[str]) -> list[str]:
    """The files the command itself writes, for the few commands whose writes are plain."""
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # VAR=value before the command
    if words and words[0] in ("sudo", "command", "env"):
        words = words[1:]
    if not words:
        return []
    name, args = os.path.basename(words[0]), words[1:]
    if name == "tee":
        return _operands(args)
    if name == "sed" and any(a == "-i" or a.startswith(("-i", "--in-place")) for a in args):
        scripts = {i + 1 for i, a in enumerate(args) if a in ("-e", "-f")}
        operands = [a for i, a in enumerate(args) if i not in scripts and not a.startswith("-")]
        return operands if scripts else operands[1:]
    if name in ("mv", "rm"):
        return _operands(args)
    if name == "cp":
        operands = _operands(args)
        return operands[-1:] if len(operands) >= 2 else []
    if name == "git" and args[:1] == ["checkout"] and "--" in args:
        return args[args.index("--") + 1 :]
    return []
