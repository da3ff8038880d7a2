"""Properties of the guard over any text: splitting loses nothing and never raises, and no
tool call, however odd its input, makes decide() raise."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from environments.guard import decide, shell_words, split_segments
from environments.guard.shell import MAX_SEGMENTS, SPACE
from tests.environments.guard.stands import as_call, live

SEPARATORS = set("|;&\n")
QUOTING = set("'\"\\")

# Pieces of shell that the guard reads specially, to mix with arbitrary text.
SHELL = [
    "ssh", "prod-alias", "app", "-p", "22", "-p22", "-oX=Y", "sudo", "rm", "reboot", "kubectl",
    "--context", "--context=prod-ctx", "prod-ctx", "delete", "apply", "rollout", "restart",
    "helm", "upgrade", "--kube-context", "psql", "-h", "-hdb.live.example", "db.live.example",
    "-c", "drop table x", "update t set", "scp", "rsync", "app:/tmp", "prod:", "sftp", "git",
    "push", "git@github.com:acme/shop-gitops.git", "terraform", "https://acme-shop.example/x",
    "postgres://u@postgres/db", "bash -c", "eval", "$(", ")", "`", "<(", "<<EOF", "<<-'SQL'",
    "EOF", "SQL", "2>&1", "&>", ">", ">>", "<", "|", "||", "&", "&&", ";", "\n", "'", '"',
    "\\", "\\\n", "=", "FOO=1", "env", "timeout", "10", "xargs", "--", "exec", "docker",
    "sed", "-i", "systemctl", "tee", " ", "\t", "é", "İ", "\x00", "\u2028",
]  # fmt: skip
TEXT = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(SHELL), st.text(max_size=4)), max_size=60).map(
        lambda parts: "".join(parts)
    ),
    st.lists(st.sampled_from(SHELL), max_size=60).map(lambda parts: " ".join(parts)),
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | TEXT,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)
TOOLS = st.one_of(
    st.sampled_from(["Bash", "mcp__pg__query", "mcp__k8s__restart_deployment", "Read"]),
    st.sampled_from(["mcp__relaybay__task_get", "mcp__", "mcp____", "mcp__x"]),
    st.text(max_size=30),
)
STANDS = [
    live("block"),
    live(
        "warn",
        "ask",
        environment="stage",
        patterns=({"id": "p1", "command": "ssh", "change": "pub"},),
    ),
    live("log", "none", environment="demo", patterns=({"id": "p2", "change": "^x.*y$"},)),
]


def kept(text: str, dropped: set[str]) -> str:
    return "".join(c for c in text if c not in dropped and c not in SPACE)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_split_segments_keeps_every_character_but_separators_and_space(text: str) -> None:
    segments = split_segments(text)
    assert len(segments) <= MAX_SEGMENTS
    assert all(segment and segment == segment.strip() for segment in segments)
    assert kept("".join(segments), SEPARATORS) == kept(text, SEPARATORS)


@given(st.lists(st.sampled_from(["a", "b;", "'c;d'", "|", "&&"]), min_size=300, max_size=400))
def test_the_last_of_200_segments_keeps_the_rest(parts: list[str]) -> None:
    text = " ".join(parts)
    segments = split_segments(text)
    assert len(segments) <= MAX_SEGMENTS
    assert kept("".join(segments), SEPARATORS) == kept(text, SEPARATORS)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_shell_words_keeps_every_character_but_quotes_space_and_backslashes(text: str) -> None:
    for segment in [text, *split_segments(text)]:
        words = shell_words(segment)
        assert all(words)
        assert kept("".join(words), QUOTING) == kept(segment, QUOTING)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TOOLS, TEXT, JSON)
def test_decide_never_raises_on_any_tool_call(tool: str, command: str, extra: object) -> None:
    for tool_input in ({"command": command, "extra": extra}, {"input": extra}, {"q": command}):
        verdict = decide(as_call(tool, tool_input), STANDS)
        assert verdict.decision in ("allow", "log", "warn", "ask", "deny")
        assert len({t.environment for t in verdict.touches}) == len(verdict.touches)
        json.dumps([verdict.command, verdict.reason])  # plain text, ready for the hook answer
        assert len(verdict.journal_command()) <= 200
