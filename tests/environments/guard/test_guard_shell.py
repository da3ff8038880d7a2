"""How the guard reads shell text (§7 Guard): segments, words, the commands they run and
the names of environments, as small tables."""

from __future__ import annotations

import pytest

from environments.guard import shell_words, split_segments
from environments.guard.commands import invocations
from environments.guard.identifiers import normal_host, normal_repo, remote_host

SEGMENTS = [
    ("ssh app uptime; rm -rf build", ["ssh app uptime", "rm -rf build"]),
    ("a && b || c | d & e", ["a", "b", "c", "d", "e"]),
    ('git commit -m "a; b | c" && x', ['git commit -m "a; b | c"', "x"]),
    ("find . -exec rm {} \\; -print; ls", ["find . -exec rm {} \\; -print", "ls"]),
    ("cmd 2>&1 | tee log", ["cmd 2>&1", "tee log"]),
    ("cmd &>/dev/null & next", ["cmd &>/dev/null", "next"]),
    ("psql <<SQL\ndelete from x;\nSQL\nls", ["psql <<SQL\ndelete from x;\nSQL", "ls"]),
    ('grep x <<< "$v"; rm y', ['grep x <<< "$v"', "rm y"]),
    ("echo 'unterminated; rm x", ["echo 'unterminated; rm x"]),
    ("a \\\nb; c", ["a \\\nb", "c"]),
    ("  ;; | \n ", []),
]


@pytest.mark.parametrize(("text", "segments"), SEGMENTS)
def test_segments_split_at_separators_outside_quotes(text: str, segments: list[str]) -> None:
    assert split_segments(text) == segments


def test_at_most_200_segments_the_last_keeping_the_rest() -> None:
    segments = split_segments("; ".join(f"c{n}" for n in range(250)))
    assert len(segments) == 200
    assert segments[-1].startswith("c199; c200; ")
    assert segments[-1].endswith("c249")


WORDS = [
    ('ssh -p 22 prod "sudo reboot"', ["ssh", "-p", "22", "prod", "sudo reboot"]),
    ('echo a\\ b \'c d\' "e \\"f\\" \\g"', ["echo", "a b", "c d", 'e "f" \\g']),
    ('x="unterminated', ["x=unterminated"]),
    ("a\\", ["a"]),
    ("'' \"\"", []),
    ("say \\\nhi", ["say", "hi"]),
    ("$'a b'", ["$a b"]),
]


@pytest.mark.parametrize(("segment", "words"), WORDS)
def test_shell_words_remove_quotes_and_apply_escapes(segment: str, words: list[str]) -> None:
    assert shell_words(segment) == words


COMMANDS = [
    ("sudo -u deploy kubectl delete pod x", ["kubectl"]),
    ("FOO=1 env -i B=2 timeout 10 ssh -p22 app 'sudo reboot; psql'", ["ssh", "reboot", "psql"]),
    ("x=$(kubectl delete pods)", ["delete", "kubectl"]),
    ('bash -lc "helm upgrade a b"', ["bash", "helm"]),
    ('kubectl exec -it pod -- psql -c "delete from x"', ["kubectl", "psql"]),
    ('docker exec -it -u root db mysql -e "drop table t"', ["docker", "mysql"]),
    ("echo kubectl delete", ["echo"]),
    ('git commit -m "ssh prod rm"', ["git"]),
    ("2>/dev/null > out /usr/bin/SSH app uptime", ["ssh", "uptime"]),
    ("(ssh app rm x)", ["ssh", "rm"]),
    ("xargs -n 1 -I{} kubectl.exe delete pod {}", ["kubectl"]),
    ("eval 'ssh app reboot'", ["eval", "ssh", "reboot"]),
]


@pytest.mark.parametrize(("segment", "names"), COMMANDS)
def test_the_commands_a_segment_runs(segment: str, names: list[str]) -> None:
    assert [call.name for call in invocations(segment)] == names


def test_redirections_are_no_arguments() -> None:
    (call,) = invocations("scp x app:/tmp 2>/dev/null > log <<< y")
    assert call.args == ("x", "app:/tmp")


NAMES = [
    (normal_host, "deploy@Prod.Example:22", "prod.example"),
    (normal_host, "[::1]", "::1"),
    (normal_host, "fe80::1", "fe80::1"),
    (normal_host, "https://acme-shop.example/x", "acme-shop.example"),
    (normal_host, "db.live.example.", "db.live.example"),
    (normal_repo, "git@github.com:Acme/shop-gitops.git", "github.com/acme/shop-gitops"),
    (normal_repo, "ssh://git@github.com:22/acme/shop", "github.com/acme/shop"),
    (normal_repo, "https://github.com/acme/shop/", "github.com/acme/shop"),
    (normal_repo, "github.com/acme/shop.git", "github.com/acme/shop"),
    (remote_host, "deploy@prod-alias:/srv/app", "prod-alias"),
    (remote_host, "host::module", "host"),
    (remote_host, "rsync://host/mod", "host"),
    (remote_host, "./a:b", ""),
    (remote_host, "C:\\x", ""),
    (remote_host, "/tmp/x:y", ""),
    (remote_host, "plain", ""),
]


@pytest.mark.parametrize(("normalise", "value", "expected"), NAMES)
def test_hosts_and_repos_are_normalised(normalise, value: str, expected: str) -> None:
    assert normalise(value) == expected
