"""How a command names an environment: its identifiers and where the text names them (§7).

An environment is touched when the text names one of its identifiers — the base_url host,
an ssh alias or host, a kubectl context, a db host, a gitops repo — case-insensitively and
only when it has at least 3 characters. Two kinds of identifier are read differently:

- one with a dot, dash or slash (db.live.example, prod-alias, github.com/acme/shop-gitops)
  is specific enough to count anywhere as a whole token: not inside a longer name, so
  prod-alias2 and db.live.example.org do not name it;
- a single word (app, postgres) is far too common for that, so it counts only where a host
  is expected: the destination of ssh and sftp, [user@]host: among the arguments of scp,
  rsync and sftp, the value of --context, --kube-context, -h / -hHOST / --host (not for
  ssh, where -h is no host), or the host of a URL — not in a commit message, an echo, a file
  name or a package name. These places also catch the dotted kind where no token boundary
  is (mysql -hdb.live.example).

A gitops repo is normalised (git@host:org/repo.git → host/org/repo) and matched in all the
forms a remote is written in: host:org/repo, host/org/repo, with or without .git or a port.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from core.caches import kept
from environments.guard.commands import (
    COPY_OPTIONS,
    SSH_SHORT_VALUES,
    Invocation,
    positionals,
    skip_options,
)

MIN_LENGTH = 3  # §7: shorter identifiers are never matched
MAX_IDENTIFIERS = 50  # §7: per environment

# Where each kind of access entry keeps its identifiers: (kind, field) → capability, source.
ENTRY_FIELDS: dict[tuple[str, str], tuple[str, str]] = {
    ("ssh", "alias"): ("ssh", "ssh alias"),
    ("ssh", "host"): ("ssh", "ssh host"),
    ("kubectl", "context"): ("kubectl", "kubectl context"),
    ("db", "host"): ("db", "db host"),
    ("gitops", "repo"): ("deploy", "gitops repo"),
}

_SPECIFIC = frozenset("./-")  # an identifier holding one of these counts anywhere
# A run of name characters without its trailing dots (prod-alias. ends a sentence): a plain
# dotted identifier is named exactly when it is one of the text's runs.
_NAME_RUN = re.compile(r"\.*+[\w-]++(?:\.++[\w-]++)*+")
_URL = re.compile(r"[a-z][a-z0-9+.-]*+://(?:[^\s/?#@]*+@)?+(\[[^\]\s]*+\]|[^\s/:?#'\",)]++)")
_REMOTE = re.compile(r"(?:[^\s@/:]*+@)?+(\[[^\]\s]*+\]|[^\s/:@]++)::?(?!//)")  # host:path
_HOST_OPTIONS = frozenset({"--context", "--kube-context", "--host", "-h"})
_HOST_OPTION_STARTS = ("--context", "--kube-context", "--host", "-h")
_NO_HOSTS = frozenset({"echo", "printf"})  # what they print names nothing


@dataclass(frozen=True)
class Identifier:
    """One name of an environment, as the guard looks for it."""

    text: str  # lowercased; gitops repos normalised host/org/repo
    capability: str  # "ssh", "kubectl", "db", "deploy" (gitops), or "" (the base_url host)
    source: str  # "base_url", "ssh alias", "ssh host", "kubectl context", "db host", "gitops repo"


def identifiers_of(
    base_url: str, entries: Iterable[tuple[str, Mapping[str, Any]]]
) -> tuple[Identifier, ...]:
    """An environment's identifiers in order — the base_url host, then each access entry's
    fields — each once, those under MIN_LENGTH characters left out (never matched)."""
    found: dict[tuple[str, str], Identifier] = {}
    candidates = [(host_of(base_url), "", "base_url")] if base_url else []
    for kind, fields in entries:
        for name, value in fields.items():
            place = ENTRY_FIELDS.get((kind, name))
            if place is None or not isinstance(value, str) or not value.strip():
                continue
            candidates.append((_normal(kind, value), *place))
    for text, capability, source in candidates:
        if len(text) >= MIN_LENGTH and (text, capability) not in found:
            found[text, capability] = Identifier(text, capability, source)
    return tuple(found.values())


def _normal(kind: str, value: str) -> str:
    if kind == "gitops":
        return normal_repo(value)
    if kind == "kubectl":  # a context is a name, not a host: admin@prod stays whole
        return value.strip().lower()
    return normal_host(value)


def host_of(url: str) -> str:
    """The host of a URL, normalised; "" when it has none."""
    try:
        return normal_host(urlsplit(url.strip()).hostname or "")
    except ValueError:
        return ""


def normal_host(value: str) -> str:
    """deploy@Prod.Example:22 → prod.example; [::1] → ::1; a URL → its host."""
    text = value.strip().lower()
    if "://" in text:
        return host_of(text)
    text = text.rsplit("@", 1)[-1]
    if text.startswith("["):
        return text[1:].split("]", 1)[0]
    head, colon, port = text.rpartition(":")
    if colon and port.isdigit() and ":" not in head:
        text = head
    return text.rstrip(".")


def normal_repo(value: str) -> str:
    """git@github.com:Acme/shop.git, ssh://git@github.com:22/acme/shop, https://…/acme/shop
    → github.com/acme/shop."""
    text = value.strip().lower()
    if "://" in text:
        text = text.split("://", 1)[1]
    text = text.split("@", 1)[1] if "@" in text.split("/", 1)[0] else text
    host, colon, rest = text.partition(":")
    if colon and "/" not in host:
        port, slash, path = rest.partition("/")
        text = f"{host}/{path}" if port.isdigit() and slash else f"{host}/{rest.lstrip('/')}"
    return text.removesuffix("/").removesuffix(".git").rstrip("/")


# --- where a text names them ------------------------------------------------------------


def unquoted(low_text: str) -> str:
    """The text without quotes, backslashes and line continuations: every shell word, and so
    every host place, is a piece of it (ssh "prod"-alias names prod-alias)."""
    text = low_text.replace("\\\n", "")
    return text.replace("'", "").replace('"', "").replace("\\", "")


def mentions_any(plain_text: str, identifiers: Iterable[Identifier]) -> bool:
    """Does any identifier occur in the text at all (`plain_text` from unquoted())? Only
    those can be named anywhere, so a call that mentions none costs no parsing. Substring
    tests, stopping at the first found."""
    return any(_needle(i.text, i.source) in plain_text for i in identifiers)


class Names:
    """What one tool call's text names, read once and asked for every identifier."""

    def __init__(self, low_text: str, calls: Iterable[Invocation], lines: Iterable[str] = ()):
        self.low_text = low_text
        self.hosts = host_places(calls) | {line.strip() for line in lines}

    @functools.cached_property
    def runs(self) -> set[str]:
        return set(_NAME_RUN.findall(self.low_text))

    def name(self, identifier: Identifier) -> bool:
        text = identifier.text
        if text in self.hosts:
            return True
        shape = _shape(text)
        if shape == "run":  # a whole run of name characters, or it is not named
            return text in self.runs
        if shape == "token":
            needle, pattern = _token(text, identifier.source)
            return needle in self.low_text and pattern.search(self.low_text) is not None
        return False  # a single word: only where a host is expected


@kept("(an identifier, its source)")
@functools.lru_cache(maxsize=4096)
def _needle(text: str, source: str) -> str:
    """What every mention of an identifier contains: a gitops repo's org/repo (the host may
    be written host: or host/), anything else whole."""
    if source == "gitops repo" and "/" in text:
        return text.split("/", 1)[1]
    return text


@kept("an identifier")
@functools.lru_cache(maxsize=4096)
def _shape(text: str) -> str:
    """How an identifier is found: "word" (a single word: in host places only), "run" (name
    characters with a dot or dash: one of the text's runs) or "token" (anything else with a
    dot, dash or slash: a whole-token pattern)."""
    if _SPECIFIC.isdisjoint(text):
        return "word"
    return "run" if _NAME_RUN.fullmatch(text) else "token"


@kept("an identifier")
@functools.lru_cache(maxsize=4096)
def _token(text: str, source: str) -> tuple[str, re.Pattern[str]]:
    """For an identifier that holds more than name characters: a piece every mention
    contains (a cheap first test) and a whole-token pattern — a gitops repo in every remote
    form, anything else (an ARN, a path) as written. The pattern starts with its literal
    and looks behind it afterwards, which lets the engine jump from one candidate to the
    next instead of trying every position."""
    if source == "gitops repo" and "/" in text:
        host, path = text.split("/", 1)
        start = re.escape(host)
        rest = rf"(?::\d++)?[:/]/?{re.escape(path)}(?:\.git)?"
        needle = path
    else:
        start, rest, needle = re.escape(text), "", text
    return needle, re.compile(rf"{start}(?<![\w.-]{start}){rest}(?![\w-]|\.[\w-])")


def host_places(calls: Iterable[Invocation]) -> set[str]:
    """Every value the calls write where a host is expected (lowercased, normalised)."""
    hosts: set[str] = set()
    for call in calls:
        name, args = call.name, call.args
        if name in _NO_HOSTS:
            continue
        if name in ("ssh", "sftp"):
            hosts.update(_destination(call))
        if name in COPY_OPTIONS:
            hosts.update(_remotes(call))
        joined = " ".join(args)  # one cheap look before a word-by-word one
        if name != "ssh" and ("-h" in joined or "-context" in joined):
            hosts.update(_option_hosts(args))
        if "://" in joined:
            for word in args:
                hosts.update(_url_hosts(word))
        for word in call.prefix:
            hosts.update(_url_hosts(word))
    return hosts


def _destination(call: Invocation) -> Iterator[str]:
    """ssh [options] [user@]host …, sftp [user@]host[:path], ssh://user@host:port."""
    short = SSH_SHORT_VALUES if call.name == "ssh" else COPY_OPTIONS["sftp"][0]
    at = skip_options(call.args, 0, short, ())
    if at < len(call.args):
        target = call.args[at].lower()
        if "://" in target:
            yield host_of(target)
        else:
            yield normal_host(target.split(":", 1)[0] if call.name == "sftp" else target)


def _remotes(call: Invocation) -> Iterator[str]:
    """The host of every [user@]host:path (and scp://, rsync://) operand."""
    for operand in positionals(call.args, *COPY_OPTIONS[call.name]):
        host = remote_host(operand)
        if host:
            yield host


def remote_host(operand: str) -> str:
    """The host of a remote copy operand ([user@]host:path, host::module, scp://host/x), or
    "" for a local path (./a:b, C:\\x and /tmp/x:y are local)."""
    if "://" in operand:
        return host_of(operand)
    match = _REMOTE.match(operand)
    if match is None or len(match.group(1)) < 2:
        return ""
    return normal_host(match.group(1))


def _option_hosts(args: tuple[str, ...]) -> Iterator[str]:
    """The values of --context, --kube-context, -h, --host (X, =X, and -hHOST attached)."""
    for at, word in enumerate(args):
        value = _host_option_value(args, at) if word.startswith(_HOST_OPTION_STARTS) else ""
        if value:
            yield value.lower()  # a context as written (admin@prod)
            yield normal_host(value)


def _host_option_value(args: tuple[str, ...], at: int) -> str:
    name, equals, value = args[at].partition("=")
    if name in _HOST_OPTIONS:
        if equals:
            return value
        return args[at + 1] if at + 1 < len(args) else ""
    if name.startswith("-h") and len(name) > 2 and name[2] != "-":  # -hdb.live.example
        return args[at][2:]
    return ""


def _url_hosts(word: str) -> Iterator[str]:
    """A URL's host where a URL is a whole word or an option's value (--url=…, X=…); a URL
    inside a sentence (a commit message) is no place a host is expected."""
    if "://" not in word:
        return
    low = word.lower()
    for match in _URL.finditer(low):
        start = match.start()
        if start == 0 or low[start - 1] == "=":
            yield normal_host(match.group(1).strip("[]"))
