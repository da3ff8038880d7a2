"""What a secret looks like in text: references, and the one table of spots (§7 Access map).

relaybay never stores a secret, only where it lives. Three callers look for secrets with
this table, through environments/secrets.py: the write checks of environments, access
entries and proposals, the memory's secret scan of notes and documents, and the guard's
journal, which masks every spot here whatever the policy switches off. Each spot carries a
detector id of policy/catalog.py (SECRET_DETECTORS): the policy switches checks off by
those ids, and the policy reference lists them without importing this module.

A spot is a pattern whose group `secret` is the value — inside its quotes, so the journal
writes PGPASSWORD='***' — an optional context the text must also contain (mysql or mariadb
for -p<password>), and whether the value sits in a *place*. A place holding a reference
(--password $DB_PASSWORD), a placeholder (<password>), a command's output ($(pass show x))
or a switch word (StrictHostKeyChecking=no) holds no secret; a token shape (ghp_…) is a
secret wherever it stands.

The patterns run on untrusted text inside hooks, so each must stay linear: no nested
quantifiers, and every unbounded run starts at a literal or behind a look-behind that pins
it to the start of its run, so a 64 KB run of one character is walked once, not once per
position. Callers hand one search at most WINDOW characters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import regex

WINDOW = 64 * 1024  # characters one search sees


@dataclass(frozen=True)
class Spot:
    detector: str  # an id of policy.catalog.SECRET_DETECTOR_IDS
    pattern: regex.Pattern[str]  # group `secret` is the value the journal masks
    context: regex.Pattern[str] | None = None  # must also occur in the text
    place: bool = True  # a reference or placeholder here is no secret; False for token shapes
    accept: Callable[[regex.Match[str]], bool] | None = None  # a further test of the match


def _rx(pattern: str) -> regex.Pattern[str]:
    return regex.compile(pattern, regex.VERSION0)


# --- references: where a secret lives ----------------------------------------------------

_REFERENCE_MAX = 4096  # a longer value is no path or name
_NAME = r"[A-Za-z_][A-Za-z0-9_]*+"
_KEY_FILES = "pem|key|p12|pfx|p8|jks|keystore|ppk|crt|cer|der|asc|gpg|pgp|kdbx|pub|json|env|txt"
_REFERENCE = _rx(
    "|".join(
        (
            r"~[\w.\-]*+[/\\]\S*+",  # ~/.ssh/acme_live, ~deploy/keys/x
            r"\.\.?[/\\]\S*+",  # ./secrets/db.txt, ..\keys\x.pem
            r"/[\w.\-@~,/]*+",  # /etc/ssl/private/acme.pem (no + or =: base64 is no path)
            r"[A-Za-z]:[/\\]\S*+",  # C:\keys\x.pem
            r"\\\\[^\s\\]++\\\S*+",  # \\server\share\x.pem
            rf"[\w.\-]*\.(?i:{_KEY_FILES})",  # acme_live.pem, deploy.key
            r"id_(?:rsa|dsa|ecdsa|ed25519)(?:-cert)?(?:\.pub)?",
            rf"\${_NAME}(?:[/\\]\S*+)?",  # $DB_PASSWORD, $HOME/.pgpass
            rf"\$\{{{_NAME}\}}(?:[/\\]\S*+)?",  # ${DB_PASSWORD}
            rf"%{_NAME}%(?:[/\\]\S*+)?",  # %DB_PASSWORD%, %APPDATA%\keys\x.pem
            rf"(?i:env):{_NAME}",  # env:DB_PASSWORD
            r"(?i:vault|op)://\S++",  # vault://kv/acme, op://Private/acme/password
            r"(?i:keychain|ssm):\S++",  # keychain:acme-db, ssm:/prod/db/password
        )
    )
)
_UPPER_NAME = _rx(r"[A-Z][A-Z0-9_]*+")  # DB_PASSWORD: a name, when it has a _
_PATH_VAULTS = ("pass", "file", "sops")  # only with a path: text on both sides of a /
_SLASH_INSIDE = _rx(r"[^/]/[^/]")
_SPACE = _rx(r"\s")


def is_reference(value: str) -> bool:
    """Is the value, as a whole, where a secret lives rather than the secret (§7)? A path, an
    environment variable name or a vault path; one pair of quotes around it is allowed."""
    value = _unquoted(value.strip())
    if not value or len(value) > _REFERENCE_MAX or _SPACE.search(value):
        return False
    if _REFERENCE.fullmatch(value) or ("_" in value and _UPPER_NAME.fullmatch(value)):
        return True
    scheme, colon, path = value.partition(":")
    return bool(colon) and scheme.lower() in _PATH_VAULTS and bool(_SLASH_INSIDE.search(path))


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1].strip()
    return value


# <password>, {{ vault_pw }}, ${{ secrets.X }}, {password}, ***, $(pass show x), `cat x`
_PLACEHOLDER = _rx(r"<[^<>]*+>|\{\{.*|\$\{\{.*|\{[\w.\-]*+\}|\*++|\$\(.*|`.*")
_TRAILING = ".,;:)]"
_SWITCH_WORDS = {  # StrictHostKeyChecking=no, PasswordAuthentication=yes: settings, not secrets
    *("yes", "no", "true", "false", "on", "off", "none", "null", "nil", "ask", "accept-new"),
    *("auto", "default", "required", "optional", "enabled", "disabled", "0", "1"),
}


def points_elsewhere(value: str) -> bool:
    """A value in a place that holds no secret: a reference (also followed by punctuation,
    as in "(PGPASSWORD=$PGPASS)"), a placeholder, a command's output or a switch word."""
    value = value.strip()
    if _PLACEHOLDER.fullmatch(value) or value.lower() in _SWITCH_WORDS:
        return True
    if is_reference(value):
        return True
    return value[-1:] in _TRAILING and is_reference(value.rstrip(_TRAILING))


# --- tests of a match beyond its pattern -----------------------------------------------------


def _has_digit(match: regex.Match[str]) -> bool:
    """sk-… keys are random; "sk-learn-compatible-estimators" is a name."""
    return any(c.isdigit() for c in match.group("secret"))


def _credential_shaped(match: regex.Match[str]) -> bool:
    """Outside an Authorization header, Bearer / Basic / token count before a random-looking
    value only: "a Bearer token", "Basic authentication", "the token expires" are prose."""
    value = match.group("secret")
    mixed_case = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return len(value) >= 8 and (
        any(c.isdigit() for c in value) or value.endswith("=") or mixed_case
    )


def _not_uid_gid(match: regex.Match[str]) -> bool:
    """docker run -u 1000:1000 is a user and a group, not a password."""
    return not (match.group("user").isdigit() and match.group("secret").isdigit())


def _prose_value(match: regex.Match[str]) -> bool:
    """name: value prose counts from 6 characters, and pass:acme/db is a vault path."""
    return len(match.group("secret")) >= 6 and not is_reference(match.group(0))


# --- the table ----------------------------------------------------------------------------------

# A value as a shell reads it: quoted whole (the group sits inside the quotes), else up to
# white space, a quote, a backtick or a shell operator; an unclosed quote falls back to the
# word after it.
_VALUE = (
    r"""(?:"(?P<secret>[^"\n]*+)"|'(?P<secret>[^'\n]*+)'"""
    r"""|(?P<secret>[^\s'"`&;|]++)|["'](?P<secret>[^\s'"`&;|]++))"""
)
_START = r"(?<![\w\-])"  # an option or a token starts here, not inside another word
_AUTHORIZATION = r"(?i:authorization)[\"']?\s*+:\s*+[\"']?"
_MYSQL = _rx(r"(?i:mysql|mariadb)")
_DOCKER_LOGIN = _rx(r"(?i:docker)\s++(?i:login)")
_REDIS_CLI = _rx(r"(?i:redis-cli)")

SECRET_SPOTS: tuple[Spot, ...] = (
    # Token shapes: a secret wherever they stand (place=False).
    Spot(
        "private-key",
        _rx(
            r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?P<secret>[\s\S]*?)"
            r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
        place=False,
    ),
    Spot(
        "github-token",  # ghp_ is found even glued to other text: its _ ends any run before it
        _rx(
            r"(?P<secret>gh[pousr]_[A-Za-z0-9]{36,}+"
            r"|(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}+)"
        ),
        place=False,
    ),
    Spot(
        "gitlab-token",
        _rx(_START + r"(?P<secret>gl(?:pat|dt|rt|ptt|cbt|ft|oas|soat)-[A-Za-z0-9_.\-]{20,}+)"),
        place=False,
    ),
    Spot(
        "slack-token",
        _rx(
            _START + r"(?P<secret>xox[abeoprs]-[A-Za-z0-9\-]{10,}+"
            r"|xapp-[0-9]-[A-Za-z0-9\-]{10,}+)"
        ),
        place=False,
    ),
    Spot(
        "openai-key",
        _rx(_START + r"(?P<secret>sk-[A-Za-z0-9_\-]{20,}+)"),
        place=False,
        accept=_has_digit,
    ),
    Spot(
        "aws-access-key",
        _rx(r"(?<![A-Za-z0-9])(?P<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9])"),
        place=False,
    ),
    Spot(
        "jwt",
        _rx(
            _START + r"(?P<secret>eyJ[A-Za-z0-9_\-]{4,}+\.eyJ[A-Za-z0-9_\-]{4,}+"
            r"\.[A-Za-z0-9_\-]*+)"
        ),
        place=False,
    ),
    # Places: the value there is a secret unless it points elsewhere.
    Spot("url-credentials", _rx(r"://(?P<user>[^\s:@/'\"]*+):(?P<secret>[^\s@/'\"]++)@")),
    Spot(
        "password-option",
        _rx(
            _START + r"--(?i:password|passwd|pass|token|secret|api[-_]key)(?:=|\s++(?!-))" + _VALUE
        ),
    ),
    Spot(
        "user-option",
        _rx(
            _START + r"(?:-u\s*+|--user(?:=|\s++))"
            r"""(?:'(?P<user>[^\s:']*+):(?P<secret>[^'\n]++)'"""
            r"""|"(?P<user>[^\s:"]*+):(?P<secret>[^"\n]++)\""""
            r"""|(?P<user>[^\s:'"`&;|]*+):(?P<secret>[^\s'"`&;|]++))"""
        ),
        accept=_not_uid_gid,
    ),
    Spot(
        "auth-header",  # Authorization: Bearer / Basic / Token …; Digest up to the quote
        _rx(
            _AUTHORIZATION
            + r"(?:(?i:bearer|basic|token)\s++"
            + _VALUE
            + r"|(?i:digest)\s++(?P<secret>[^\n']++))"
        ),
    ),
    Spot(
        "auth-header",  # Authorization: <credential> without a scheme
        _rx(_AUTHORIZATION + r"(?!(?i:bearer|basic|token|digest)\b)" + _VALUE),
        accept=_credential_shaped,
    ),
    Spot(
        "auth-header",  # Bearer …, Basic …, token … (the journal's "token <value>") in any text
        _rx(_START + r"(?i:bearer|basic|token)\s++" + _VALUE),
        accept=_credential_shaped,
    ),
    Spot("auth-header", _rx(_START + r"(?i:digest)\s++(?P<secret>(?i:username)\s*+=[^\n']++)")),
    Spot("sshpass", _rx(_START + r"sshpass\s++(?:-v\s++)?-p\s*+" + _VALUE)),
    Spot("client-password", _rx(_START + r"-p" + _VALUE), context=_MYSQL),
    Spot("client-password", _rx(_START + r"-p\s++(?!-)" + _VALUE), context=_DOCKER_LOGIN),
    Spot("client-password", _rx(_START + r"-a\s++(?!-)" + _VALUE), context=_REDIS_CLI),
    Spot(
        "secret-assignment",  # the look-ahead finds the word within the name's first 64 characters
        _rx(
            r"(?<![\w.\-])(?=[\w.\-]{0,64}?(?i:pass|pwd|token|secret|key))"
            r"-{0,2}+[A-Za-z_][\w.\-]*+(?:[ \t]++=(?![=~>])[ \t]*+|:?=(?![=~>]))" + _VALUE
        ),
    ),
    Spot(
        "secret-prose",  # the name ends in the word: dbPassword, DB_PASSWORD, "api key"
        _rx(
            r"(?:(?<![a-z])|(?=[A-Z]))"
            r"(?i:pass(?:word|wd|phrase|code)?|pwd|token|secret(?:[ _\-]?key)?|api[ _\-]?key)"
            r"[\"']?[ \t]*+:[ \t]*+" + _VALUE
        ),
        accept=_prose_value,
    ),
)
