"""The token detectors against the two corpora kept in the repository (issue 38, item 4):
tests/fixtures/secrets/benign.txt, what an agent writes every day, must pass every token
check; tests/fixtures/secrets/tokens.txt, real-shaped fakes, must be refused by each — the
detectors' scan, the database's last line and the write door."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import no_secrets
from core.errors import SecretRefused
from environments import secret_door, secrets
from environments.secret_spots import github_checksum
from policy.catalog import TOKEN_DETECTOR_IDS
from tests.support import tokens
from tests.tasks.factories import make_project

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "secrets"


def corpus(name: str) -> list[tuple[str, str]]:
    """(text, the detector named after "  # ", or "") of every line that is no comment."""
    lines = []
    for raw in (CORPUS / name).read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        text, _, detector = raw.partition("  # ") if name == "tokens.txt" else (raw, "", "")
        lines.append((text.replace("⏎", "\n"), detector.strip()))
    return lines


BENIGN = [text for text, _ in corpus("benign.txt")]
TOKENS = corpus("tokens.txt")


def short(text: str) -> str:
    return text[:60].replace("\n", "⏎")


def test_the_corpora_are_as_big_as_the_issue_asks_and_cover_every_token_detector() -> None:
    assert len(BENIGN) >= 72
    assert {detector for _, detector in TOKENS} == set(TOKEN_DETECTOR_IDS)


@pytest.mark.parametrize("text", BENIGN, ids=short)
def test_a_benign_line_is_no_token_to_any_check(text: str, db: None) -> None:
    assert secrets.find(text, field="text", tokens_only=True) == []
    assert not no_secrets.holds_token(text)
    make_project("acme")
    secret_door.refuse("acme", texts={"body": text})


@pytest.mark.parametrize(("text", "detector"), TOKENS, ids=lambda v: short(str(v)))
def test_a_token_line_is_refused_by_every_check(text: str, detector: str, db: None) -> None:
    assert secret_door._may_hold_token(text), "the door's quick look must see it"
    found = secrets.find(text, field="text", tokens_only=True)
    assert detector in [f.detector for f in found]
    assert no_secrets.holds_token(text)
    make_project("acme")
    with pytest.raises(SecretRefused) as refused:
        secret_door.refuse("acme", texts={"body": text})
    assert f"({detector})" in str(refused.value)


@pytest.mark.parametrize("text", BENIGN, ids=short)
def test_the_journal_keeps_a_benign_line_whole_where_no_value_detector_reads_a_place(
    text: str,
) -> None:
    """The value detectors read places (KEY=value, name: value) too; a benign line that
    holds no place is kept as written by the journal's mask."""
    if secrets.scan_text(text):
        return  # e.g. "OPENAI_API_KEY=sk-..." is an assignment: its value is masked
    assert secrets.mask(text) == " ".join(text.split())[: secrets.JOURNAL_LIMIT]


def test_github_checksum_agrees_with_published_valid_tokens() -> None:
    """Tokens published as valid by open secret scanners' own tests (CRC32 over the 30
    random characters, base62 digits-upper-lower, 6 characters padded with 0)."""
    for token in (
        "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",
        "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",
        "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",
    ):
        assert github_checksum(token[4:34]) == token[34:]
    bad = "ghp_M7H4jxUDDWHP4kZ6A4dxlQYsQIWJuq11T4V3"
    assert secrets.find(bad, field="text", tokens_only=True) == []
    assert [f.detector for f in secrets.find(tokens.github(), field="t", tokens_only=True)] == [
        "github-token"
    ]


def test_an_aws_key_id_after_a_dot_needs_a_digit_and_a_documented_example_never_counts() -> None:
    key = tokens.aws_key_id()
    assert any(c.isdigit() for c in key[4:])
    for text in (key, f"creds.{key}", f"({key})", f'"{key}"'):
        assert [f.detector for f in secrets.find(text, field="t", tokens_only=True)] == [
            "aws-access-key"
        ]
    for text in ("Region.ASIAPACIFICSOUTHEAST", "AKIAIOSFODNN7EXAMPLE", "AKIA2345ABCDEXAMPLE"):
        assert secrets.find(text, field="t", tokens_only=True) == []


def test_a_private_key_header_without_a_body_is_prose_and_a_body_without_its_end_is_a_key() -> None:
    header = "-----BEGIN OPENSSH PRIVATE KEY-----"
    prose = f"{header} starts the file; everything after this sentence is ordinary text " * 3
    assert secrets.find(prose, field="t", tokens_only=True) == []
    cut = f"{header}\n{tokens.pem_body(lines=2)}"  # pasted, cut before its END line
    found = secrets.find(cut, field="t", tokens_only=True)
    assert [f.detector for f in found] == ["private-key"]
    assert cut[found[0].start : found[0].end] == tokens.pem_body(lines=2)
