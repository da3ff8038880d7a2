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

The token shapes follow the vendors' published shapes, not a prefix alone (gitleaks' rule
ids beside each); tests/fixtures/secrets/benign.txt holds what none of them may find and
tokens.txt what each must, both read by tests/environments/test_secret_corpus.py.
"""

from __future__ import annotations

import base64
import json
import math
import zlib
from collections import Counter
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


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def github_checksum(random_part: str) -> str:
    """The last 6 characters of a GitHub token (ghp_, gho_, ghu_, ghs_, ghr_): the CRC32 of
    the 30 random characters before them in base62 (digits, A-Z, a-z), padded with 0s, as
    GitHub describes its token format (github.blog, 2021-04-05)."""
    value, digits = zlib.crc32(random_part.encode("ascii")), ""
    while value:
        value, digit = divmod(value, 62)
        digits = _BASE62[digit] + digits
    return digits.rjust(6, "0")


def _github_checksum(match: regex.Match[str]) -> bool:
    """ghp_ + 36 characters is a token only when its checksum holds: a placeholder, a name
    or a random 36 (one in 56 billion passes) is none."""
    body = match.group("secret")[4:]
    return github_checksum(body[:30]) == body[30:]


def _mixed_case(match: regex.Match[str]) -> bool:
    """A random base62 run of 20 or more has both cases (a miss for one in 26,000 of 20
    characters, far fewer for longer ones); a kebab-case name has one."""
    value = match.group("secret")
    return any(c.isupper() for c in value) and any(c.islower() for c in value)


_EXAMPLE_KEYS = frozenset(  # published documentation keys, refused by no scanner
    {
        "AKIAIOSFODNN7EXAMPLE",  # AWS's example access key id
        "AIzaSyabcdefghijklmnopqrstuvwxyz1234567",  # the Firebase SDK's example key
    }
)


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character: gitleaks' test of a random-looking value."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _aws_key_id(match: regex.Match[str]) -> bool:
    """Not AWS's documented example (…EXAMPLE) nor a placeholder (AKIAXXXX…: entropy under
    gitleaks' 3 bits, which 0.02% of random ids are), and after a dot only with a digit:
    Region.ASIAPACIFICSOUTHEAST is a member's name; a key of 16 letters after a dot is
    missed (16 of 32 base32 characters all letters: 3.6% of keys, only after a dot)."""
    value = match.group("secret")
    if value.endswith("EXAMPLE") or value in _EXAMPLE_KEYS or _entropy(value) < 3:
        return False
    after_dot = match.start("secret") > 0 and match.string[match.start("secret") - 1] == "."
    return not after_dot or any(c.isdigit() for c in value)


def _aws_secret(match: regex.Match[str]) -> bool:
    """Not the documented example (…EXAMPLEKEY), and random: both cases and a digit, / or +."""
    value = match.group("secret")
    return (
        not value.endswith("EXAMPLEKEY")
        and _mixed_case(match)
        and any(c.isdigit() or c in "/+" for c in value)
    )


def _google_key(match: regex.Match[str]) -> bool:
    """Not the Firebase SDK's example key, and random: gitleaks' entropy of 4 bits or more
    (no random key of 39 characters falls under it in 200,000 tries; AIzaaaa… does)."""
    value = match.group("secret")
    return value not in _EXAMPLE_KEYS and _entropy(value) >= 4


def _jose(match: regex.Match[str]) -> bool:
    """A JWT's first two parts decode to JSON objects, the first naming its "alg" (RFC 7515):
    eyJ1.eyJ2.x in a version string is no token."""
    header, payload, _ = match.group("secret").split(".", 2)
    decoded = [_json_object(part) for part in (header, payload)]
    return decoded[0] is not None and "alg" in decoded[0] and decoded[1] is not None


def _json_object(part: str) -> dict[str, object] | None:
    if len(part) > 8192:  # a header or payload this long is decoded only in part: accept
        return {"alg": None}
    try:
        value = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


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
    # Token shapes: a secret wherever they stand (place=False). Each follows the rule a
    # well-kept scanner publishes (gitleaks' rule id in the comment): the prefix, the
    # length and alphabet, and the vendor's checksum or fixed infix where there is one.
    Spot(  # private-key: a header, then a base64 body line of 40+ (a PEM line is 64)
        "private-key",
        _rx(
            r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?P<secret>"
            r"(?:\s[A-Za-z][A-Za-z\-]{0,30}:[^\r\n]{0,200}){0,4}"  # Proc-Type:, Version:
            r"(?:\\[nr]|\s){0,8}[A-Za-z0-9+/=]{40}[A-Za-z0-9+/=\\\s]*+)"
            r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?"
        ),
        place=False,
    ),
    Spot(  # github-pat, -oauth, -app-token, -refresh-token: 36 base62, CRC32 in the last 6;
        # found glued to any text, and inside a look-ahead so a candidate whose checksum
        # fails never hides one that starts inside it (ghp_…ghp_<token>)
        "github-token",
        _rx(r"(?=(?P<secret>gh[pousr]_[A-Za-z0-9]{36}))"),
        place=False,
        accept=_github_checksum,
    ),
    Spot(  # github-fine-grained-pat: 22 and 59 base62 around a _
        "github-token",
        _rx(
            r"(?<![A-Za-z0-9_])(?P<secret>github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})"
            r"(?![A-Za-z0-9_])"
        ),
        place=False,
    ),
    Spot(  # gitlab-pat, -deploy-token, -runner-authentication-token, -feed-token, -scim-token
        "gitlab-token",
        _rx(
            _START + r"(?P<secret>gl(?:pat|dt|rt|ft|soat|ffct)-[0-9A-Za-z_\-]{20}"
            r"|glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_\-]{20}|gloas-[0-9A-Za-z_\-]{64})"
            r"(?![0-9A-Za-z_\-])"
        ),
        place=False,
        accept=_mixed_case,
    ),
    Spot(  # gitlab-pat-routable, gitlab-runner-authentication-token-routable; gitlab-ptt
        "gitlab-token",
        _rx(
            _START + r"(?P<secret>gl(?:pat|rt)-[0-9A-Za-z_\-]{27,300}\.[0-9a-z]{9}"
            r"|glptt-[0-9a-f]{40})(?![0-9A-Za-z_\-])"
        ),
        place=False,
    ),
    Spot(  # slack-bot-token, -legacy-bot-token, -user-token, -legacy-token, -app-token
        "slack-token",
        _rx(
            _START + r"(?P<secret>xoxb-[0-9]{8,14}-(?:[0-9]{8,14}-)?[A-Za-z0-9]{18,34}"
            r"|xox[pe]-[0-9]{8,14}-[0-9]{8,14}-[0-9]{8,14}-[A-Za-z0-9]{28,34}"
            r"|xox[os]-[0-9]{1,14}-[0-9]{1,14}-[0-9]{1,14}-[A-Fa-f0-9]{10,}+"
            r"|xox[ar]-[0-9]-[0-9]{8,14}-[0-9A-Za-z\-]{20,}+"
            r"|xapp-[0-9]-[A-Z0-9]{8,14}-[0-9]{10,14}-[A-Fa-f0-9]{32,}+)(?![A-Za-z0-9])"
        ),
        place=False,
    ),
    Spot(  # openai-api-key: "T3BlbkFJ" (base64 of "OpenAI") between two random runs
        "openai-key",
        _rx(
            r"(?<![A-Za-z0-9_\-])(?P<secret>sk-(?:proj-|svcacct-|admin-)?"
            r"[A-Za-z0-9_\-]{20,80}T3BlbkFJ[A-Za-z0-9_\-]{20,80})(?![A-Za-z0-9_\-])"
        ),
        place=False,
    ),
    Spot(  # anthropic-api-key, -admin-api-key: 93 characters and AA; oauth tokens 40+
        "anthropic-key",
        _rx(
            _START + r"(?P<secret>sk-ant-(?:api03|admin01)-[A-Za-z0-9_\-]{93}AA"
            r"|sk-ant-(?:oat|ort)01-[A-Za-z0-9_\-]{40,}+)(?![A-Za-z0-9_\-])"
        ),
        place=False,
        accept=_mixed_case,
    ),
    Spot(  # aws-access-token: AKIA / ASIA and 16 of base32's [A-Z2-7]
        "aws-access-key",
        _rx(r"(?<![A-Za-z0-9_])(?P<secret>(?:AKIA|ASIA)[A-Z2-7]{16})(?![A-Za-z0-9_])"),
        place=False,
        accept=_aws_key_id,
    ),
    Spot(  # aws-secret-access-key: 40 base64 characters, under the name AWS gives them
        "aws-secret-key",
        _rx(
            r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?[ \t]*+[:=][ \t]*+"
            r"[\"']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        place=False,
        accept=_aws_secret,
    ),
    Spot(  # gcp-api-key: AIza and 35 of [A-Za-z0-9_-]
        "google-api-key",
        _rx(r"(?<![A-Za-z0-9_\-])(?P<secret>AIza[A-Za-z0-9_\-]{35})(?![A-Za-z0-9_\-])"),
        place=False,
        accept=_google_key,
    ),
    Spot(  # stripe-access-token, live secret and restricted keys only: 24+ base62
        "stripe-key",
        _rx(r"(?<![A-Za-z0-9_])(?P<secret>[sr]k_live_[A-Za-z0-9]{24,}+)(?![A-Za-z0-9_])"),
        place=False,
        accept=_mixed_case,
    ),
    Spot(  # jwt: a JOSE header with "alg" and a JSON payload, both base64url
        "jwt",
        _rx(
            _START + r"(?P<secret>eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{4,}+"
            r"\.[A-Za-z0-9_\-]*+)"
        ),
        place=False,
        accept=_jose,
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
