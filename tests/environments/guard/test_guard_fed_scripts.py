"""Scripts handed to a shell or to a host other than by `bash -c` (§7 Guard): ssh's
RemoteCommand option, and a here-document or here-string fed to a shell or to `ssh host`.
Each is read like `bash -c` with the same text; a here-document fed to any other command
stays data."""

from __future__ import annotations

import time

import pytest

from environments.guard.commands import MAX_DEPTH, invocations
from environments.guard.shell import here_documents
from tests.environments.guard.stands import bash, live

CHANGE = "ssh prod-alias rm -rf /srv/x"


def denied(command: str) -> tuple[str, str, str]:
    verdict = bash(command, live("block"))
    touch = next(t for t in verdict.touches if t.decision == verdict.decision)
    return verdict.decision, touch.rule, touch.identifier


@pytest.mark.parametrize(
    "command",
    [
        "ssh -o RemoteCommand='rm -rf /srv/x' prod-alias",
        "ssh -o 'RemoteCommand rm -rf /srv/x' prod-alias",
        "ssh -oRemoteCommand='rm -rf /srv/x' prod-alias",
        "ssh -o remotecommand='rm -rf /srv/x' prod-alias",
        "ssh -o 'REMOTECOMMAND = sudo reboot' prod-alias",
        "ssh -vo RemoteCommand='sudo systemctl restart app' -p 22 prod-alias",
        "ssh -o RemoteCommand='\"rm -rf /srv/x\"' prod-alias",
        "ssh -t -o RequestTTY=yes -o RemoteCommand=\"bash -c 'rm -rf /srv/x'\" prod-alias",
    ],
)
def test_ssh_remote_command_option_is_the_remote_command(command: str) -> None:
    assert denied(command) == ("deny", "ssh-remote-change", "prod-alias")


def test_a_remote_command_option_is_read_like_a_script() -> None:
    command = "ssh -o RemoteCommand='cd /srv && kubectl --context prod-ctx delete pod x' bastion"
    assert denied(command) == ("deny", "kubectl-change", "prod-ctx")


@pytest.mark.parametrize(
    "command",
    [
        "ssh -o StrictHostKeyChecking=no prod-alias uptime",
        "ssh -o RemoteCommand=none prod-alias",
        "ssh -o RemoteCommand='tail -n 50 /var/log/app.log' prod-alias",
        "ssh -o 'ProxyJump bastion' prod-alias 'df -h'",
    ],
)
def test_ssh_options_without_a_change_stay_reads(command: str) -> None:
    verdict = bash(command, live("block"))
    assert verdict.decision == "allow"
    assert [(t.identifier, t.rule) for t in verdict.touches] == [("prod-alias", "")]


# --- here-documents and here-strings ----------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        f"bash <<'EOF'\n{CHANGE}\nEOF",
        f'bash <<"EOF"\n{CHANGE}\nEOF',
        f"sh <<EOF\n{CHANGE}\nEOF",
        f"zsh <<-EOF\n\t{CHANGE}\n\tEOF",
        f"sudo bash -s <<'EOF'\ncd /srv\n{CHANGE}\nEOF",
        f"bash -x <<'EOF' && echo done\n{CHANGE}\nEOF",
        f"bash <<< '{CHANGE}'",
        f"bash <<<'{CHANGE}'",
        f'dash 0<<< "{CHANGE}"',
        f"bash <<'A' 3<<'B'\necho one\nA\n{CHANGE}\nB",
    ],
)
def test_a_here_document_fed_to_a_shell_is_its_script(command: str) -> None:
    assert denied(command) == ("deny", "ssh-remote-change", "prod-alias")
    assert denied(f"bash -c '{CHANGE}'") == denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "ssh prod-alias <<'EOF'\nrm -rf /srv/x\nEOF",
        "ssh prod-alias <<< 'sudo reboot'",
        "ssh -T prod-alias <<<'sudo reboot'",
        "ssh prod-alias bash -s <<'EOF'\ncd /srv\nsudo systemctl restart app\nEOF",
    ],
)
def test_a_here_document_fed_to_ssh_runs_on_the_host(command: str) -> None:
    assert denied(command) == ("deny", "ssh-remote-change", "prod-alias")


def test_a_here_document_fed_to_ssh_is_read_line_by_line() -> None:
    command = "ssh app <<'EOF'\ncd /srv\nkubectl --context prod-ctx delete pod x\nEOF"
    assert denied(command) == ("deny", "kubectl-change", "prod-ctx")
    (ssh, *_) = invocations(command)
    assert (ssh.name, ssh.args, ssh.stdin) == (
        "ssh",
        ("app",),
        "cd /srv\nkubectl --context prod-ctx delete pod x\n",
    )


@pytest.mark.parametrize(
    "command",
    [
        f"cat <<EOF > notes.txt\n{CHANGE}\nEOF",
        f"cat <<'EOF' | tee runbook.md\n{CHANGE}\nEOF",
        f"python3 <<'EOF'\nprint('{CHANGE}')\nEOF",
        f"grep -c rm <<< '{CHANGE}'",
        f"git commit -F - <<'EOF'\nDocument {CHANGE}\nEOF",
    ],
)
def test_a_here_document_fed_to_anything_else_stays_data(command: str) -> None:
    verdict = bash(command, live("block"))
    assert verdict.decision == "allow"
    assert [(t.identifier, t.rule) for t in verdict.touches] == [("prod-alias", "")]


def test_a_database_client_still_reads_its_here_document() -> None:
    change = "psql -h db.live.example <<'SQL'\nbegin;\ndelete from orders;\nSQL"
    assert denied(change) == ("deny", "sql-change", "db.live.example")
    read = bash("psql -h db.live.example <<'SQL'\nselect 1;\nSQL", live("block"))
    assert (read.decision, read.touches[0].rule) == ("allow", "")


def test_a_substitution_in_any_here_document_still_runs() -> None:
    assert denied(f"cat <<EOF\n$({CHANGE})\nEOF") == ("deny", "ssh-remote-change", "prod-alias")


def test_here_documents_splits_a_segment_into_its_command_and_bodies() -> None:
    assert here_documents("cat <<A 3<<'B' > out\none\nA\ntwo\nthree\nB") == (
        "cat <<A 3<<'B' > out",
        ["one\n", "two\nthree\n"],
    )
    assert here_documents("bash <<EOF\nno end") == ("bash <<EOF", ["no end"])
    assert here_documents("echo 'a<<b'") == ("echo 'a<<b'", [])
    assert here_documents("cat <<EOF") == ("cat <<EOF", [])


# --- nesting and hostile input stay within the budgets --------------------------------------


def heredocs(levels: int) -> str:
    command = CHANGE
    for level in range(levels):
        command = f"bash <<'E{level}'\n{command}\nE{level}"
    return command


def test_here_documents_nested_in_each_other_are_read_to_any_depth() -> None:
    assert denied(heredocs(5)) == ("deny", "ssh-remote-change", "prod-alias")


def test_here_documents_nested_deeper_than_the_guard_reads_ask_the_owner() -> None:
    verdict = bash(heredocs(MAX_DEPTH + 5), live("block"))
    assert verdict.decision == "ask"
    assert "than the guard reads" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "bash <<< x " * 1500 + CHANGE,
        "ssh -o RemoteCommand=x " * 1000 + "prod-alias",
        "bash <<E\n" * 1500 + CHANGE,
        "bash <<E\n" + "x <<F\n" * 1500,
        ("bash <<'E'\n" + "bash <<< 'ssh prod-alias uptime'\n" * 300 + "E"),
    ],
    ids=["here-strings", "options", "operators", "bodies", "many-scripts"],
)
def test_hostile_feeds_stay_fast_and_never_pass_unread(command: str) -> None:
    began = time.thread_time()
    verdict = bash(command, live("block"))
    assert time.thread_time() - began < 0.5
    assert verdict.decision in ("deny", "ask", "allow")
    if "prod-alias" in verdict.command:
        assert verdict.touches
