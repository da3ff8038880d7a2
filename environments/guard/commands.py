"""Which commands a segment runs, and with which arguments (§7 Guard).

A rule such as "kubectl … apply" or "ssh … with rm" is about a command that actually runs,
not about a word that happens to appear: `echo kubectl delete` runs echo, and
`git commit -m "ssh prod rm"` runs git. So each segment's shell words are read into
invocations — a command's base name and its arguments — the way a shell starts commands:

- past the words that only start another command: VAR=value, sudo, env, time, nohup,
  nice, timeout, xargs, watch … (with their own options and option values);
- inside $( … ), backticks and <( … ), each of which starts a command of its own;
- into scripts a command hands to a shell: bash -c "…", eval …, the remote command of ssh
  (its words after the host, or -o RemoteCommand=…), the command after kubectl exec … -- or
  docker exec CONTAINER, and a here-document or here-string fed to a shell or to ssh
  (bash <<'EOF' … EOF, bash <<< '…', ssh host <<'EOF' … EOF: the shell, or the host's,
  runs it line by line) — and into the scripts those run, to any depth: an agent can wrap
  a change in as many shells as it likes.

What a here-document or here-string feeds a command is its `stdin`, not its arguments: a
shell runs it, ssh sends it to the host, a database client reads SQL from it, and for any
other command (cat <<EOF > notes.txt) it is data. The commands of a nested script share the
stdin of the command that runs the script (ssh host psql <<SQL … SQL feeds psql).

Nested reading is bounded per call (Budget): segments, characters and depth. A script inside
a script re-reads most of its text, so depth times length is what the character budget
holds down. What a budget leaves unread is not ignored: Budget.unread says so, and the call
then fails closed like one past the 200-segment cap (decide.py).

Option parsing follows getopt closely enough for the guard: a short option that takes a
value takes the next word, or the rest of its own word (-p 22, -p22, -oX=Y, -avze ssh);
a long one takes the next word unless it is written --name=value.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from core.caches import kept
from environments.guard.shell import here_documents, read_segments, shell_words

# Nested scripts read inside each other (bash -c "ssh host 'sudo …'" is two levels). Deep
# enough for any wrapping an 8 KB call can quote (each level of bash -c doubles the
# escapes), yet far from Python's recursion limit (three frames a level).
MAX_DEPTH = 64
MAX_NESTED_SEGMENTS = 200  # segments of nested scripts read per call, beyond the 200 own
MAX_NESTED_TEXT = 4 * 8192  # characters of nested scripts read per call

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+\+?=")
# 2>/dev/null, > out, >&2, <<EOF, <<< "$x", &>log, >|file
_REDIRECTION = re.compile(r"\d*+(?:&>>?|<<<|<<-?|>>|<>|>\||[<>]&?)")
_SUBSTITUTION = re.compile(r"\$\(|`|<\(|>\(")
_CLOSERS = frozenset(")`")  # what ends a substitution
_OPENERS = "({!"  # ( subshell, { group, ! negation written against the command

# Commands that run the command after them: their options that take a value, and how many
# plain words (a duration, a user) come before that command.
_PREFIXES: dict[str, tuple[str, frozenset[str], int]] = {
    # name: (short options with a value, long options with a value, words to skip)
    "sudo": ("ughpCDrtUTR", frozenset({"--user", "--group", "--host", "--prompt"}), 0),
    "doas": ("uC", frozenset(), 0),
    "env": ("uCS", frozenset({"--unset", "--chdir", "--split-string"}), 0),
    "time": ("fo", frozenset({"--format", "--output"}), 0),
    "nohup": ("", frozenset(), 0),
    "nice": ("n", frozenset({"--adjustment"}), 0),
    "ionice": ("cnp", frozenset({"--class", "--classdata"}), 0),
    "exec": ("a", frozenset(), 0),
    "command": ("", frozenset(), 0),
    "builtin": ("", frozenset(), 0),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"}), 0),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"}), 1),
    "xargs": ("aEdIiLlnPs", frozenset({"--arg-file", "--delimiter", "--max-args"}), 0),
    "watch": ("dn", frozenset({"--interval", "--differences"}), 0),
    "then": ("", frozenset(), 0),
    "do": ("", frozenset(), 0),
    "else": ("", frozenset(), 0),
    "if": ("", frozenset(), 0),
    "elif": ("", frozenset(), 0),
    "while": ("", frozenset(), 0),
    "until": ("", frozenset(), 0),
}


def word_set(text: str) -> frozenset[str]:
    """The words of a space-separated list: tables of command words read as prose."""
    return frozenset(text.split())


_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"})
_CONTAINER_RUNNERS = frozenset({"docker", "podman", "nerdctl"})
_HANDS_ON = _SHELLS | _CONTAINER_RUNNERS | {"eval", "ssh", "kubectl", "oc"}  # run a script
# The options of ssh that take a value; the destination is the first word after them.
SSH_SHORT_VALUES = "BbcDEeFIiJLlmOoPpQRSWw"
# -o RemoteCommand=… (ssh_config: any case, "=" or white space between keyword and value).
_REMOTE_COMMAND = re.compile(r"[ \t]*+remotecommand(?:[ \t]*+=|[ \t])(.*)", re.I | re.S)
# The options of the copy commands that take a value: (short letters, long names).
COPY_OPTIONS: dict[str, tuple[str, frozenset[str]]] = {
    "scp": ("cDFiJloPSX", frozenset()),
    "sftp": ("BbcDFiJloPRSX", frozenset()),
    "rsync": (
        "efTBM",
        word_set(
            "--rsh --exclude --include --filter --exclude-from --include-from --files-from "
            "--rsync-path --chmod --chown --log-file --password-file --port --timeout "
            "--temp-dir --backup-dir --suffix --compare-dest --copy-dest --link-dest --bwlimit "
            "--max-size --min-size --block-size --remote-option --out-format --usermap "
            "--groupmap --contimeout"
        ),
    ),
}


class Invocation(NamedTuple):
    """One command that a segment runs (a tuple: a long command makes hundreds)."""

    name: str  # base name, lowercased: /usr/bin/ssh → ssh, kubectl.exe → kubectl
    args: tuple[str, ...]  # its words after the name, redirections left out
    prefix: tuple[str, ...] = ()  # the VAR=value words written before it
    stdin: str = ""  # what here-documents and here-strings feed it, one per line


class Budget:
    """What nested scripts may still cost: one per tool call, shared by its segments, and
    whether a script went unread because the budget or MAX_DEPTH ran out."""

    def __init__(self) -> None:
        self.nested_segments = MAX_NESTED_SEGMENTS
        self.nested_text = MAX_NESTED_TEXT
        self.seen: set[str] = set()
        self.unread = False


def invocations(segment: str, budget: Budget | None = None) -> list[Invocation]:
    """Every command one segment runs, in the order they start."""
    found: list[Invocation] = []
    _read(segment, found, 0, budget or Budget(), "")
    return found


def ssh_command(args: Sequence[str]) -> str:
    """What ssh runs on the host as its command: the words after the destination, joined as
    ssh sends them, then the value of each -o RemoteCommand=… (-oRemoteCommand=…,
    -o 'RemoteCommand …'), a line each; "" when it runs the login shell."""
    words, commands = _ssh_options(args)
    return "\n".join([" ".join(args[words + 1 :]), *commands]).strip()


def _ssh_options(args: Sequence[str]) -> tuple[int, list[str]]:
    """The index of ssh's destination (skip_options' answer) and the RemoteCommand values
    among its options, one pair of double quotes around a value removed."""
    commands: list[str] = []
    at = 0
    while at < len(args):
        word = args[at]
        if word == "--":
            return at + 1, commands
        if len(word) < 2 or word[0] != "-":
            break
        takes = _takes_next(word, SSH_SHORT_VALUES, ())
        letter = next((i for i, c in enumerate(word) if c in SSH_SHORT_VALUES), 0)
        if letter and word[letter] == "o" and not word.startswith("--"):
            value = (args[at + 1] if at + 1 < len(args) else "") if takes else word[letter + 1 :]
            match = _REMOTE_COMMAND.fullmatch(value)
            if match is not None:
                command = match.group(1).strip()
                quoted = len(command) > 1 and command[0] == command[-1] == '"'
                commands.append(command[1:-1] if quoted else command)
        at += 1 + takes
    return at, commands


def skip_options(words: Sequence[str], start: int, short: str, long: Iterable[str]) -> int:
    """The index of the first word after the options beginning at `start` (after `--`)."""
    at = start
    while at < len(words):
        word = words[at]
        if word == "--":
            return at + 1
        if len(word) < 2 or word[0] != "-":
            return at
        at += 1 + _takes_next(word, short, long)
    return at


def positionals(args: tuple[str, ...], short: str, long: Iterable[str]) -> list[str]:
    """The words of `args` that are no option and no option's value (options may come
    after operands, as rsync and GNU tools allow); everything after `--` is an operand."""
    found: list[str] = []
    at = 0
    while at < len(args):
        word = args[at]
        if word == "--":
            found += args[at + 1 :]
            break
        if len(word) < 2 or word[0] != "-":
            found.append(word)
            at += 1
        else:
            at += 1 + _takes_next(word, short, long)
    return found


def _takes_next(option: str, short: str, long: Iterable[str]) -> int:
    """1 when the option's value is the next word: -p 22 and --context prod, not -p22,
    -oX=Y or --context=prod. In a cluster (-avze) the first letter that takes a value takes
    the rest of the word, or the next word when it is the last letter."""
    if option.startswith("--"):
        return int("=" not in option and option in long)
    for position, letter in enumerate(option[1:], start=1):
        if letter in short:
            return int(position == len(option) - 1)
    return 0


@kept("a command's first word")
@functools.lru_cache(maxsize=2048)
def command_name(word: str) -> str:
    """/usr/bin/ssh → ssh; (kubectl → kubectl; KUBECTL.EXE → kubectl."""
    name = word.lstrip(_OPENERS).rsplit("/", 1)[-1].lower()
    return name.removesuffix(".exe")


def without_redirections(words: Iterable[str]) -> tuple[str, ...]:
    """Arguments as the command sees them: `2>/dev/null`, `> out` and `<<EOF` left out."""
    kept: list[str] = []
    skip_target = False
    for word in words:
        if skip_target:
            skip_target = False
            continue
        operator = _REDIRECTION.match(word)
        if operator is None:
            kept.append(word)
        else:  # a bare operator (> out, <<- EOF) takes the next word as its target
            skip_target = operator.end() == len(word)
    return tuple(kept)


# --- reading a segment ----------------------------------------------------------------------


def _read(segment: str, found: list[Invocation], depth: int, budget: Budget, stdin: str) -> None:
    """The segment's own command, fed its here-documents and here-strings (or else `stdin`,
    what feeds the script it belongs to), then each command substitution in it as a script
    of its own: the text after $(, ` or <( up to the word that closes it (quoting may have
    made the substitution one word, "$(ssh app rm x)", or several, $(ssh app rm x)); in a
    here-document's body too, where the shell expands it."""
    words = shell_words(segment)
    redirected = "<" in segment or ">" in segment
    if "<<" in segment:
        head, bodies = here_documents(segment)
        command = shell_words(head) if bodies else words
        fed = [*bodies, *_here_strings(command)]
        stdin = "\n".join(fed) if fed else stdin
    else:
        command = words
    _start(command, found, depth, budget, redirected=redirected, stdin=stdin)
    if _SUBSTITUTION.search(segment) is None:
        return
    for at, word in enumerate(words):
        if budget.unread:  # the call fails closed already; reading on would only cost
            return
        if budget.nested_segments <= 0:  # spent: what is left stays unread (and linear)
            if any(_SUBSTITUTION.search(rest) is not None for rest in words[at:]):
                budget.unread = True
            return
        if _SUBSTITUTION.search(word) is not None:
            inner = _SUBSTITUTION.split(word)[-1]
            end = at + 1
            if _CLOSERS.isdisjoint(inner):
                size = len(inner)  # the scan for the closer stops where the budget does
                while end < len(words) and _CLOSERS.isdisjoint(words[end]):
                    size += len(words[end]) + 1
                    if size > budget.nested_text:
                        budget.unread = True
                        return
                    end += 1
                end += 1  # the closing word belongs to it
            _nested(" ".join((inner, *words[at + 1 : end])), found, depth + 1, budget, "")


def _start(
    words: list[str],
    found: list[Invocation],
    depth: int,
    budget: Budget,
    *,
    redirected: bool,
    stdin: str,
) -> None:
    """The segment's command, after the words that only start another one."""
    prefix: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        if "=" in word and _ASSIGNMENT.match(word):
            prefix.append(word)
            at += 1
            continue
        if redirected and _REDIRECTION.match(word):
            at += 1 + (_REDIRECTION.fullmatch(word) is not None)  # > out: the target too
            continue
        name = command_name(word)
        if name in _PREFIXES:
            short, long, plain = _PREFIXES[name]
            at = skip_options(words, at + 1, short, long) + plain
        elif not name:  # a lone ( or !
            at += 1
        else:
            args = words[at + 1 :]
            kept = without_redirections(args) if redirected else tuple(args)
            invocation = Invocation(name, kept, tuple(prefix), stdin)
            found.append(invocation)
            script, fed = _script(invocation) if name in _HANDS_ON else ("", "")
            if script:
                _nested(script, found, depth + 1, budget, fed)
            return


def _here_strings(words: Sequence[str]) -> list[str]:
    """The words a command's here-strings feed it: <<< word, <<<word, 0<<< "…"."""
    fed: list[str] = []
    for at, word in enumerate(words):
        if "<<<" not in word:
            continue
        operator = _REDIRECTION.match(word)
        if operator is not None and operator.group().endswith("<<<"):
            rest = word[operator.end() :]
            fed.append(rest or (words[at + 1] if at + 1 < len(words) else ""))
    return fed


def _script(invocation: Invocation) -> tuple[str, str]:
    """The text a command hands on to be run as a command of its own (or ""), and what
    feeds that script: the command's own stdin, unless the stdin is the script — a shell
    without -c runs it, and so does the login shell of ssh without a remote command."""
    name, args, stdin = invocation.name, invocation.args, invocation.stdin
    if name in _SHELLS:
        for at, word in enumerate(args[:-1]):
            if word.startswith("-") and not word.startswith("--") and "c" in word:
                return args[at + 1], stdin
        return stdin, ""
    if name == "eval":
        return " ".join(args), stdin
    if name == "ssh":
        command = ssh_command(args)
        return (command, stdin) if command else (stdin, "")
    if name in ("kubectl", "oc") and "--" in args:  # argv, not a script: quote it again
        return shlex.join(args[args.index("--") + 1 :]), stdin
    if name in _CONTAINER_RUNNERS and args and args[0] == "exec":
        container = skip_options(args, 1, "eguw", ("--env", "--user", "--workdir"))
        return shlex.join(args[container + 1 :]), stdin
    return "", ""


def _nested(script: str, found: list[Invocation], depth: int, budget: Budget, stdin: str) -> None:
    """Read a script a command runs, its commands fed `stdin`; every attempt costs the
    budget at least one segment and its length, so a text of thousands of substitutions
    stays linear. A script met again (with the same stdin) is read once; one the budget or
    MAX_DEPTH cannot pay for marks the call unread, and once it is, nothing more is read:
    the call fails closed whatever the rest holds."""
    budget.nested_segments -= 1
    budget.nested_text -= len(script)  # also when met before: finding it cost as much
    seen = f"{script}\0{stdin}" if stdin else script
    if budget.unread or seen in budget.seen:
        return
    if budget.nested_segments < 0 or budget.nested_text < 0 or depth > MAX_DEPTH:
        budget.unread = True
        return
    budget.seen.add(seen)
    segments, complete = read_segments(script)
    for number, segment in enumerate(segments):
        if number:  # the first segment was paid for above
            budget.nested_segments -= 1
            if budget.nested_segments < 0:
                budget.unread = True
                return
        _read(segment, found, depth, budget, stdin)
    if not complete:
        budget.unread = True
