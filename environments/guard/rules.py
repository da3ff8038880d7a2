"""The guard's mutating heuristics: one table, under the ids of policy/catalog.py (§7).

A rule says what a change looks like, so that a read-only environment can tell
`kubectl get pods` from `kubectl apply`. Rules see text only — never which environment the
text names; decide() pairs the two by capability — and a rule applies when its change
follows its command in the same command segment: `ssh app uptime; rm -rf build` is no
remote change, the rm runs here. The table RULES below is the one list of built-in rules;
the policy switches one off by its id (guard.disable) and adds its own after them
(guard.patterns), which run only through policy.safe_regex, the one home of the time limit
for regular expressions written by the owner or an agent.

The catalog (policy/catalog.py) owns each rule's id, capability and title, because the
policy validates and documents ids without importing the guard; this module owns how each
rule reads a command. Where a command's own grammar is known (kubectl's verb, git's
subcommand) the rule reads that; where it is not (an unknown kubectl plugin, an unknown
option swallowing the verb) it falls back to the looser "any later word", so a surprise
makes the guard more careful, not blind.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from core.caches import kept
from environments.guard.commands import (
    COPY_OPTIONS,
    Invocation,
    positionals,
    skip_options,
    ssh_command,
    word_set,
)
from environments.guard.identifiers import remote_host
from policy import safe_regex
from policy.catalog import CAPABILITIES, GUARD_RULES

_CATALOG = {rule.id: rule for rule in GUARD_RULES}


# --- what each built-in rule looks for ----------------------------------------------------

_KUBECTL_CHANGES = word_set(
    "apply create delete edit patch replace scale set label annotate drain cordon uncordon "
    "taint exec cp"
)
_ROLLOUT_CHANGES = word_set("restart undo pause resume")
_KUBECTL_READS = word_set(
    "get describe logs top explain auth api-resources api-versions version cluster-info "
    "config diff wait events port-forward proxy completion help plugin kustomize options"
)
_KUBECTL_VALUES = (
    "nsflocLv",
    word_set(
        "--context --cluster --user --namespace --kubeconfig --server --token --as --as-group "
        "--as-uid --certificate-authority --client-certificate --client-key --request-timeout "
        "--tls-server-name --cache-dir --profile --profile-output --selector --output "
        "--filename --container --username --password"
    ),
)
_HELM_CHANGES = word_set("upgrade install uninstall delete del un rollback")
_HELM_READS = word_set(
    "list ls status history hist get template show inspect search repo version lint package "
    "pull fetch dependency dep env help verify completion create plugin registry diff push"
)
_HELM_VALUES = (
    "n",
    word_set(
        "--kube-context --namespace --kubeconfig --registry-config --repository-cache "
        "--repository-config --kube-apiserver --kube-as-user --kube-as-group --kube-token "
        "--kube-ca-file --kube-tls-server-name --burst-limit --qps --values --set --version"
    ),
)
_GIT_VALUES = ("Cc", word_set("--git-dir --work-tree --namespace --super-prefix --config-env"))
_TERRAFORM_CHANGES = word_set("apply destroy import")

# What a remote command over ssh changes: these commands anywhere in it, and the service,
# container and in-place edit forms below.
_REMOTE_CHANGES = word_set(
    "rm rmdir unlink shred mv cp dd tee truncate kill killall pkill reboot shutdown halt "
    "poweroff chmod chown chgrp sudo crontab docker-compose "
    # package managers
    "apt apt-get aptitude dpkg yum dnf microdnf rpm apk pacman zypper snap flatpak emerge "
    "nix-env pip pip3 pipx npm yarn pnpm gem brew port conda mamba cargo composer"
)
_SYSTEMCTL_CHANGES = word_set(
    "start stop restart reload enable disable kill mask unmask try-restart reload-or-restart"
)
_SERVICE_CHANGES = word_set("start stop restart reload")
_DOCKER_CHANGES = word_set("rm stop restart run kill exec compose pull")
_WAITING = {  # commands whose change is a later word, under the name of their change table
    "systemctl": "systemctl",
    "service": "service",
    "docker": "docker",
    "podman": "docker",
    "sed": "sed",
}
_REMOTE_SEPARATOR = re.compile(r"[|;&\n]")  # quotes are the remote shell's: ignored here
_REMOTE_TOKEN = re.compile(r"""[^\s|;&()<>`'"$]++""")
_SED_IN_PLACE = re.compile(r"-[A-Za-z]*i|--in-place")  # -i, -Ei, -i.bak
_FILE_WRITE = re.compile(r"(?<![<>&])\d?>>?+[ \t]*+(?!&|/dev/null\b)[^\s|;&<>]")

DB_CLIENTS = word_set(
    "psql pgcli mysql mariadb mycli mysqlsh sqlite3 litecli sqlcmd mongosh mongo redis-cli "
    "valkey-cli keydb-cli clickhouse-client clickhouse cqlsh usql duckdb sqlplus cockroach"
)
_SQL_CHANGE = re.compile(
    r"""\b(?:
        insert\s++into
      | update\b[^;]{0,200}?\bset
      | delete\s++from
      | drop | alter | truncate | grant | revoke | flushall | flushdb
      | create\s++(?:or\s++replace\s++)?(?:(?:temp|temporary|unique|unlogged)\s++)?
        (?:table|database|index|user|role)
    )\b
    # mongosh: db.users.deleteMany(…), db.orders.insertOne(…), db.x.drop()
    | \.(?:(?:insert|update|delete|replace)(?:one|many)|bulkwrite|findoneand(?:update|delete
        |replace)|remove|dropdatabase|dropindex(?:es)?|createindex|createcollection
        |renamecollection)\s*+\(""",
    re.IGNORECASE | re.VERBOSE,
)

# An MCP tool whose name has one of these words changes something (restart_deployment,
# createPullRequest, kubectl_apply).
_MCP_CHANGE_WORDS = word_set(
    "create update delete apply deploy exec execute run restart scale push insert drop remove "
    "destroy write put patch post set kill stop start rollback upgrade install uninstall "
    "merge publish trigger cancel edit modify rename move upload reboot terminate truncate "
    "alter grant revoke replace reset purge flush migrate release promote cordon drain"
)
_TOOL_WORD = re.compile(r"[A-Z]?[a-z]++|[A-Z]++(?![a-z])|\d++")


def _verb_changes(words: list[str], changes: frozenset[str], reads: frozenset[str]) -> bool:
    """The first operand is the verb; an unknown one (a plugin, or an option the table does
    not know swallowed the verb) falls back to any later word."""
    if not words:
        return False
    verb = words[0].lower()
    if verb in changes:
        return True
    if verb in reads:
        return False
    return any(word.lower() in changes for word in words[1:])


def _kubectl_change(call: Invocation) -> bool:
    words = positionals(call.args, *_KUBECTL_VALUES)
    if words and words[0].lower() == "rollout":
        return len(words) > 1 and words[1].lower() in _ROLLOUT_CHANGES
    return _verb_changes(words, _KUBECTL_CHANGES, _KUBECTL_READS)


def _helm_change(call: Invocation) -> bool:
    return _verb_changes(positionals(call.args, *_HELM_VALUES), _HELM_CHANGES, _HELM_READS)


def _ssh_remote_change(call: Invocation) -> bool:
    """What ssh sends the host: its command (words joined, -o RemoteCommand=…) and what a
    here-document or here-string feeds it, which the host's shell or command reads."""
    script = f"{ssh_command(call.args)}\n{call.stdin}" if call.stdin else ssh_command(call.args)
    return any(_remote_segment_changes(part) for part in _REMOTE_SEPARATOR.split(script))


def _remote_segment_changes(segment: str) -> bool:
    """A remote segment changes something: one of the commands, or their change forms,
    anywhere in it (the words as /bin/rm or rm alike). One pass: a command that changes
    only with a later word (systemctl … restart) waits in `pending` for it."""
    pending: set[str] = set()
    for token in _REMOTE_TOKEN.findall(segment):
        word = token.rsplit("/", 1)[-1].lower()
        if (
            word in _REMOTE_CHANGES
            or ("systemctl" in pending and word in _SYSTEMCTL_CHANGES)
            or ("service" in pending and word in _SERVICE_CHANGES)
            or ("docker" in pending and word in _DOCKER_CHANGES)
            or ("sed" in pending and _SED_IN_PLACE.match(word) is not None)
        ):
            return True
        if word in _WAITING:
            pending.add(_WAITING[word])
    return _FILE_WRITE.search(segment) is not None  # echo x > /etc/app.conf writes a file


def _copies_to_host(call: Invocation) -> bool:
    """scp / rsync whose last operand is remote; copying from a host is a read."""
    operands = positionals(call.args, *COPY_OPTIONS[call.name])
    return len(operands) >= 2 and bool(remote_host(operands[-1]))


def _any_sftp(call: Invocation) -> bool:
    return True


def _sql_after_client(call: Invocation) -> bool:
    """SQL in the client's arguments or in what feeds it (psql <<SQL … SQL)."""
    return _has_sql_change(" ".join(call.args)) or bool(call.stdin and _has_sql_change(call.stdin))


@kept("a command's arguments or its stdin")
@functools.lru_cache(maxsize=64)
def _has_sql_change(text: str) -> bool:
    """Cached: every command of a nested script shares its stdin, so one text may come
    back for each of them."""
    return _SQL_CHANGE.search(text) is not None


def _sql_in_mcp_input(tool_name: str, segments: Sequence[str]) -> bool:
    """In an MCP tool's input SQL needs no client: the tool is the client."""
    return any(_SQL_CHANGE.search(segment) is not None for segment in segments)


def _git_push(call: Invocation) -> bool:
    """git's subcommand is push (git -C repo push), not a word of a message or git stash push."""
    at = skip_options(call.args, 0, *_GIT_VALUES)
    return at < len(call.args) and call.args[at].lower() == "push"


def _terraform_change(call: Invocation) -> bool:
    words = [word.lower() for word in positionals(call.args, "", ())]
    if not words:
        return False
    if words[0] in _TERRAFORM_CHANGES:
        return True
    runs_all = call.name == "terragrunt" or words[0] == "run-all"  # terragrunt run-all apply
    return runs_all and not _TERRAFORM_CHANGES.isdisjoint(words[1:])


def _tool_name_changes(tool_name: str, segments: Sequence[str]) -> bool:
    """The MCP tool's own name has a word that changes something."""
    return any(word.lower() in _MCP_CHANGE_WORDS for word in _TOOL_WORD.findall(tool_name))


# --- the table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One built-in rule: its catalog entry and how it reads a command."""

    id: str
    capability: str  # from the catalog: "" = counts for any identifier
    title: str  # the reason says "this looks like a <title>"
    commands: frozenset[str]  # the invocations it reads (base names)
    changes: Callable[[Invocation], bool] | None  # does this invocation make the change?
    in_mcp: Callable[[str, Sequence[str]], bool] | None = None  # an MCP call: name, segments


def _rule(
    rule_id: str,
    commands: Iterable[str],
    changes: Callable[[Invocation], bool] | None,
    in_mcp: Callable[[str, Sequence[str]], bool] | None = None,
) -> Rule:
    entry = _CATALOG[rule_id]
    return Rule(rule_id, entry.capability, entry.title, frozenset(commands), changes, in_mcp)


RULES: tuple[Rule, ...] = (
    _rule("kubectl-change", {"kubectl", "oc"}, _kubectl_change),
    _rule("helm-change", {"helm"}, _helm_change),
    _rule("ssh-remote-change", {"ssh"}, _ssh_remote_change),
    _rule("scp-to-host", {"scp", "rsync"}, _copies_to_host),
    _rule("sftp-session", {"sftp"}, _any_sftp),
    _rule("sql-change", DB_CLIENTS, _sql_after_client, in_mcp=_sql_in_mcp_input),
    _rule("git-push", {"git"}, _git_push),
    _rule("terraform-change", {"terraform", "tofu", "terragrunt"}, _terraform_change),
    _rule("mcp-tool-name", (), None, in_mcp=_tool_name_changes),
)


def builtin_matches(
    calls: Sequence[Invocation], segments: Sequence[str], mcp_tool: str | None
) -> tuple[Rule, ...]:
    """The built-in rules the call matches, in table order (guard.disable is the caller's).
    mcp_tool: the tool's name for an MCP call, None for a shell command."""
    by_name: dict[str, list[Invocation]] = {}
    for call in calls:
        by_name.setdefault(call.name, []).append(call)
    found = []
    for rule in RULES:
        named = rule.commands.intersection(by_name)
        if (
            rule.changes is not None
            and any(rule.changes(call) for name in named for call in by_name[name])
        ) or (mcp_tool is not None and rule.in_mcp is not None and rule.in_mcp(mcp_tool, segments)):
            found.append(rule)
    return tuple(found)


# --- the policy's own rules (guard.patterns) ----------------------------------------------


class CustomRule(NamedTuple):
    """One of guard.patterns, read leniently: a malformed entry is skipped (validation
    refuses it before it is stored; a hand-edited layer may still hold one). A tuple: every
    call reads every environment's patterns again."""

    id: str
    capability: str  # "" = any
    title: str  # its description, or its id
    command: str  # "" = the change pattern alone
    change: str


def custom_rules(patterns: Iterable[Mapping[str, object]]) -> tuple[CustomRule, ...]:
    rules = []
    for pattern in patterns:
        if not isinstance(pattern, dict | Mapping):
            continue
        ident, change = pattern.get("id"), pattern.get("change")
        if not isinstance(ident, str) or not isinstance(change, str) or not change:
            continue
        command = pattern.get("command")
        capability = pattern.get("capability")
        description = pattern.get("description")
        rules.append(
            CustomRule(
                id=ident,
                capability=capability if capability in CAPABILITIES else "",
                title=description.strip()
                if isinstance(description, str) and description.strip()
                else ident,
                command=command if isinstance(command, str) else "",
                change=change,
            )
        )
    return tuple(rules)


# A pattern without these reads a segment the way it reads the whole text (a segment is a
# piece of it between separators, which \b treats like white space), so one search of the
# whole text can rule it out for every segment at once.
_CONTEXT = re.compile(r"(?<!\[)\^|\$|\\[AZzGK]|\(\?<?[=!]")


class PatternSearch:
    """Runs the custom rules over one call's segments, each distinct pattern once."""

    def __init__(self, text: str, segments: Sequence[str]) -> None:
        self.text = text
        self.segments = segments
        self.done: dict[tuple[str, str], bool] = {}
        self.in_text: dict[str, tuple[bool, bool]] = {}  # one pattern over the whole text

    def matches(self, rule: CustomRule) -> bool:
        key = (rule.command, rule.change)
        if key not in self.done:
            self.done[key] = self._run(rule)
        return self.done[key]

    def _run(self, rule: CustomRule) -> bool:
        parts = (rule.command, rule.change) if rule.command else (rule.change,)
        if all(_CONTEXT.search(part) is None for part in parts):
            for part in parts:
                if part not in self.in_text:
                    self.in_text[part] = _search(part, self.text, rule.id)
                found, slow = self.in_text[part]
                if slow:
                    return True
                if not found:
                    return False
        if not rule.command:
            return any(_search(rule.change, s, rule.id)[0] for s in self.segments)
        # The change must follow the command inside one segment: one pattern says both. If
        # the two do not combine (a verbose-mode comment eats the rest), both must occur.
        follows = rf"(?:{rule.command})[\s\S]*(?:{rule.change})"
        if safe_regex.compiled(follows) is None:
            return any(
                _search(rule.command, s, rule.id)[0] and _search(rule.change, s, rule.id)[0]
                for s in self.segments
            )
        return any(_search(follows, s, rule.id)[0] for s in self.segments)


def _search(pattern: str, text: str, pattern_id: str) -> tuple[bool, bool]:
    """(matched, slow): fail closed, and a search that used up the time limit counts as
    matched at once, so a slow pattern costs one time limit, not one per segment."""
    outcome = safe_regex.search_outcome(pattern, text, pattern_id=pattern_id, on_timeout=True)
    return outcome.found, outcome.timed_out
