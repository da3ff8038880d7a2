"""Fake tokens in their vendors' real shapes, for tests that must prove a token is refused or
masked (docs/policy.md "Secret detectors").

The detectors check length, alphabet, infixes and GitHub's checksum, so a hand-written
"ghp_abc…" or AWS's documented AKIAIOSFODNN7EXAMPLE is no token to them. Each builder is
deterministic (a seed picks the characters), so a test names the same fake every run; none
is a live credential.
"""

from __future__ import annotations

import base64
import json
import random
import string

from environments.secret_spots import github_checksum

_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
_URLSAFE = _BASE62 + "_-"
_BASE32 = string.ascii_uppercase + "234567"


def _run(alphabet: str, length: int, seed: object) -> str:
    """`length` characters of `alphabet`, both letter cases guaranteed where it has them."""
    rng = random.Random(f"{seed}:{alphabet}:{length}")
    while True:
        text = "".join(rng.choice(alphabet) for _ in range(length))
        cased = not any(c.islower() for c in alphabet) or (
            any(c.isupper() for c in text) and any(c.islower() for c in text)
        )
        if cased and any(c.isdigit() for c in text):
            return text


def github(prefix: str = "ghp", seed: object = 0) -> str:
    """ghp_ / gho_ / ghu_ / ghs_ / ghr_ + 30 base62 + their CRC32 checksum in base62."""
    body = _run(_BASE62, 30, seed)
    return f"{prefix}_{body}{github_checksum(body)}"


def github_fine_grained(seed: object = 0) -> str:
    return f"github_pat_{_run(_BASE62, 22, seed)}_{_run(_BASE62, 59, seed)}"


def gitlab(prefix: str = "glpat", seed: object = 0) -> str:
    return f"{prefix}-{_run(_BASE62, 20, seed)}"


def slack_bot(seed: object = 0) -> str:
    digits = string.digits
    return f"xoxb-{_run(digits, 12, seed)}-{_run(digits, 13, seed)}-{_run(_BASE62, 24, seed)}"


def openai(project: bool = True, seed: object = 0) -> str:
    """sk-proj-… (74 + T3BlbkFJ + 74) or the legacy sk-… (20 + T3BlbkFJ + 20)."""
    if project:
        return f"sk-proj-{_run(_URLSAFE, 74, seed)}T3BlbkFJ{_run(_URLSAFE, 74, f'{seed}b')}"
    return f"sk-{_run(_BASE62, 20, seed)}T3BlbkFJ{_run(_BASE62, 20, f'{seed}b')}"


def anthropic(seed: object = 0) -> str:
    return f"sk-ant-api03-{_run(_URLSAFE, 93, seed)}AA"


def aws_key_id(prefix: str = "AKIA", seed: object = 0) -> str:
    """AKIA / ASIA + 16 of base32's alphabet, with a digit."""
    return prefix + _run(_BASE32, 16, seed)


def aws_secret(seed: object = 0) -> str:
    return _run(_BASE62 + "/+", 40, seed)


def google(seed: object = 0) -> str:
    return "AIza" + _run(_URLSAFE, 35, seed)


def stripe(prefix: str = "sk", seed: object = 0) -> str:
    return f"{prefix}_live_{_run(_BASE62, 24, seed)}"


def jwt(claims: dict[str, object] | None = None, seed: object = 0, signature: int = 43) -> str:
    """header.payload.signature: a JOSE header naming its alg, the claims, and `signature`
    characters (43: an HS256 signature's length)."""

    def part(value: dict[str, object]) -> str:
        raw = json.dumps(value, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    header = part({"alg": "HS256"})
    return f"{header}.{part(claims or {'sub': 'acme'})}.{_run(_URLSAFE, signature, seed)}"


def pem_body(seed: object = 0, lines: int = 3) -> str:
    """The base64 lines of a private key block (64 characters each)."""
    return "\n".join(_run(_BASE62 + "+/", 64, f"{seed}:{n}") for n in range(lines))


def private_key(kind: str = "RSA ", seed: object = 0) -> str:
    """A whole PEM block: BEGIN, a body, END ("RSA ", "OPENSSH ", "EC ", "" …)."""
    label = f"{kind}PRIVATE KEY"
    return f"-----BEGIN {label}-----\n{pem_body(seed)}\n-----END {label}-----"
