"""`relaybay setup --agent codex` and `relaybay doctor` as a user runs them, with a temporary
CODEX_HOME (issue 30 item 4): plan, apply with the shown hash, idempotent, remove, refusals,
the MCP registration it prints, and --check against a real server — up to the hook command
setup wrote reaching /hooks/codex, which the check then sees."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
import uuid
from pathlib import Path

import pytest

from agents.codex.setup.plan import END, START
from tests.support.server import RelaybayServer, run_cli

pytestmark = pytest.mark.integration

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "codex-0.169.0"
HAND_WRITTEN = Path(__file__).resolve().parents[1] / "setup" / "corpus" / "codex_hand_written.toml"
FAKE_CODEX = """#!/bin/sh
case "$*" in
  --version) echo "codex-cli 0.169.0";;
  "mcp add --help") echo "Usage: codex mcp add [OPTIONS] <NAME>"
                    echo "  --bearer-token-env-var <ENV_VAR>";;
esac
"""


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    """A Codex folder holding a copy of the fixture's config.toml."""
    folder = tmp_path / "codex-home"
    folder.mkdir()
    shutil.copyfile(FIXTURES / "config" / "config.toml", folder / "config.toml")
    (folder / "config.toml").chmod(0o644)
    return folder


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """A PATH without `codex` (and without anything else)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def with_fake_codex(bin_dir: Path) -> Path:
    exe = bin_dir / "codex"
    exe.write_text(FAKE_CODEX)
    exe.chmod(0o755)
    return exe


def setup(*args: str, home: Path, path: Path, port: int = 9123, **env: str):
    done = run_cli(
        "setup", "--agent", "codex", "--port", str(port), *args,
        home=home, env={"PATH": str(path), **env},
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def plan_hash(out: str) -> str:
    return re.search(r"Plan hash: ([0-9a-f]{12})", out).group(1)


def without_block(data: bytes) -> bytes:
    start = data.index(START.encode())
    end = data.index(END.encode(), start) + len(END) + 1
    return data[: start - 1 if start else 0] + data[end:]


def backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("config.toml.relaybay-backup-*"))


def test_the_dry_run_shows_the_diff_the_hash_and_the_mcp_table_and_writes_nothing(
    tmp_path, codex_home, bin_dir
) -> None:
    config = codex_home / "config.toml"
    before = config.read_bytes()
    data = tmp_path / "data"
    code, out, err = setup("--codex-home", str(codex_home), home=data, path=bin_dir)
    assert code == 0, err
    assert "Codex: `codex` not found on PATH" in out
    assert f"Config file: {config}" in out
    assert "+[[hooks.SessionStart]]" in out
    assert "http://127.0.0.1:9123/hooks/codex" in out
    assert f'+[hooks.state."{config}:session_start:1:0"]' in out
    assert "Dry run: nothing written" in out
    # the fixture registers relaybay on another port: the table to put instead, no token
    assert f"[mcp_servers.relaybay] in {config} does not reach http://127.0.0.1:9123/mcp" in out
    assert '[mcp_servers.relaybay]\nurl = "http://127.0.0.1:9123/mcp"\n' in out
    assert 'bearer_token_env_var = "RELAYBAY_TOKEN"' in out
    assert f'export RELAYBAY_TOKEN="$(cat {data / "token"})"' in out
    assert config.read_bytes() == before
    assert list(codex_home.iterdir()) == [config]
    assert not (data / "token").exists()


def test_a_codex_with_mcp_add_gets_the_codex_mcp_add_line(tmp_path, bin_dir) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    shutil.copyfile(HAND_WRITTEN, home / "config.toml")
    exe = with_fake_codex(bin_dir)
    code, out, err = setup("--codex-home", str(home), home=tmp_path / "data", path=bin_dir)
    assert code == 0, err
    assert f"Codex: {exe} version 0.169.0" in out
    assert "MCP: relaybay is not registered for Codex. Register it:" in out
    assert (
        "codex mcp add relaybay --url http://127.0.0.1:9123/mcp "
        "--bearer-token-env-var RELAYBAY_TOKEN"
    ) in out
    assert "[mcp_servers.relaybay]\nurl" not in out


def test_apply_with_the_shown_hash_then_again_then_remove(tmp_path, codex_home, bin_dir) -> None:
    config = codex_home / "config.toml"
    before = config.read_bytes()
    data = tmp_path / "data"
    args = ("--codex-home", str(codex_home))
    _, out, _ = setup(*args, home=data, path=bin_dir)
    shown = plan_hash(out)

    code, out, err = setup(*args, "--apply", "--expect", "0" * 12, home=data, path=bin_dir)
    assert code == 2
    assert "changed since plan 000000000000 was shown" in err
    assert config.read_bytes() == before

    code, out, err = setup(*args, "--apply", "--expect", shown, home=data, path=bin_dir)
    assert code == 0, err
    [backup] = backups(codex_home)
    assert f"Backup: {backup}" in out
    assert f"Wrote {config}. Restart Codex sessions to load it." in out
    assert backup.read_bytes() == before
    after = config.read_bytes()
    assert without_block(after) == before
    assert (
        "/hooks/codex" in tomllib.loads(after.decode())["hooks"]["Stop"][1]["hooks"][0]["command"]
    )

    code, out, err = setup(*args, "--apply", home=data, path=bin_dir)
    assert code == 0, err
    assert "No change: config.toml already is as planned." in out
    assert "Nothing to write." in out
    assert config.read_bytes() == after
    assert len(backups(codex_home)) == 1

    code, out, err = setup(*args, "--remove", home=data, path=bin_dir)
    assert code == 0, err
    assert f"Removed relaybay's entries from {config}." in out
    assert config.read_bytes() == before


def test_codex_home_defaults_to_the_variable(tmp_path, codex_home, bin_dir) -> None:
    code, out, err = setup(
        "--apply", home=tmp_path / "data", path=bin_dir, CODEX_HOME=str(codex_home)
    )
    assert code == 0, err
    assert f"Config file: {codex_home / 'config.toml'}" in out
    assert START in (codex_home / "config.toml").read_text()


def test_an_unparsable_config_is_refused_and_nothing_is_written(tmp_path, bin_dir) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    config = home / "config.toml"
    config.write_text('model = "gpt-5.5\n[[hooks.Stop]]\n')
    code, _, err = setup("--codex-home", str(home), "--apply", home=tmp_path / "data", path=bin_dir)
    assert code == 2
    assert err.startswith("relaybay setup: config.toml is not valid TOML (")
    assert err.rstrip().endswith("fix it, then run setup again.")
    assert config.read_text() == 'model = "gpt-5.5\n[[hooks.Stop]]\n'
    assert list(home.iterdir()) == [config]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--wake",), "--agent codex takes no --wake (they are Claude Code's)."),
        (("--mode", "http"), "--agent codex takes no --mode"),
        (("--claude-home", "/tmp"), "--agent codex takes no --claude-home"),
    ],
)
def test_claude_codes_options_are_refused_with_agent_codex(tmp_path, bin_dir, args, message):
    code, _, err = setup(*args, home=tmp_path / "data", path=bin_dir, CODEX_HOME=str(tmp_path))
    assert code == 2
    assert message in err


def test_codex_home_without_agent_codex_is_refused(tmp_path, bin_dir) -> None:
    done = run_cli(
        "setup", "--codex-home", str(tmp_path), home=tmp_path / "data", env={"PATH": str(bin_dir)}
    )
    assert done.returncode == 2
    assert "--codex-home goes with --agent codex." in done.stderr


# --- --check and doctor against a running server ---------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    srv = RelaybayServer(home=tmp_path_factory.mktemp("codex-check") / "data").start()
    yield srv
    srv.stop()


def check(server: RelaybayServer, home: Path, bin_dir: Path, **env: str):
    code, out, err = setup(
        "--check", "--json", "--codex-home", str(home),
        home=server.home, path=bin_dir, port=server.port, **env,
    )  # fmt: skip
    assert out, err
    return code, {i["name"]: i for i in json.loads(out)}


def run_hook(command: str, body: dict) -> None:
    """Run a hook command as Codex does: through the shell, the input on stdin."""
    done = subprocess.run(
        command, shell=True, input=json.dumps(body), capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr


def test_check_proves_the_path_up_to_a_hook_event_seen(server, tmp_path, bin_dir) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    shutil.copyfile(HAND_WRITTEN, home / "config.toml")
    code, _, err = setup(
        "--codex-home", str(home), "--apply", home=server.home, path=bin_dir, port=server.port
    )
    assert code == 0, err
    env = {"RELAYBAY_TOKEN": server.token}

    code, items = check(server, home, bin_dir, **env)
    assert code == 1
    failed = {name: i for name, i in items.items() if not i["ok"]}
    assert set(failed) == {"Codex MCP registered", "Codex hook event seen"}
    assert failed["Codex MCP registered"]["fix"].startswith("add a table [mcp_servers.relaybay]")
    assert items["Codex hook endpoint"]["ok"], items["Codex hook endpoint"]
    assert items["Codex hooks trusted"]["ok"]
    # what `codex mcp add` would write, after relaybay's block
    with (home / "config.toml").open("a") as fh:
        fh.write(
            f'\n[mcp_servers.relaybay]\nurl = "{server.base_url}/mcp"\n'
            'bearer_token_env_var = "RELAYBAY_TOKEN"\n'
        )

    code, items = check(server, home, bin_dir, **env)
    assert code == 1
    assert [n for n, i in items.items() if not i["ok"]] == ["Codex hook event seen"]
    assert items["Codex hook event seen"]["fix"].startswith("start a Codex session")
    assert items["Codex MCP token"]["ok"]

    # The exact command setup wrote, with a real Codex SessionStart input.
    doc = tomllib.loads((home / "config.toml").read_text())
    command = doc["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    body = json.loads((FIXTURES / "hooks" / "SessionStart.startup.exec.json").read_text())
    run_hook(command, {**body, "session_id": str(uuid.uuid4())})

    code, items = check(server, home, bin_dir, **env)
    assert code == 0, [i for i in items.values() if not i["ok"]]
    assert list(items) == [
        "relaybay server",
        "MCP with the token",
        "Codex hook endpoint",
        "Codex hooks in config.toml",
        "Codex hooks trusted",
        "Codex hook command runs",
        "Codex approvals from the board",
        "Codex MCP registered",
        "Codex MCP token",
        "Codex hook event seen",
    ]
    assert "last from session " in items["Codex hook event seen"]["detail"]

    code, items = check(server, home, bin_dir)  # without RELAYBAY_TOKEN in the environment
    assert code == 1
    assert items["Codex MCP token"]["fix"] == (
        f'export RELAYBAY_TOKEN="$(cat {server.home / "token"})" '
        "(in the shell, or profile, Codex starts from)"
    )


def test_doctor_shows_codex_beside_claude_code(server, tmp_path, bin_dir) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    shutil.copyfile(FIXTURES / "config" / "config.toml", home / "config.toml")
    with_fake_codex(bin_dir)
    code, _, err = setup(
        "--codex-home", str(home), "--apply", home=server.home, path=bin_dir, port=server.port
    )
    assert code == 0, err
    done = run_cli(
        "doctor", "--port", str(server.port), "--claude-home", str(tmp_path / "profile"),
        "--codex-home", str(home), home=server.home, env={"PATH": str(bin_dir)},
    )  # fmt: skip
    lines = done.stdout.splitlines()
    names = [line.split(":", 1)[0] for line in lines]
    assert "[ok] Codex" in names
    assert names.index("[ok] Codex") == names.index("[ok] desktop app") + 1
    assert "[ok] Codex hook endpoint" in names
    assert "[ok] Codex hooks trusted" in names
    [mcp] = [line for line in lines if line.startswith("[FAIL] Codex MCP registered:")]
    assert "registered with http://127.0.0.1:18851/mcp" in mcp
    assert mcp.endswith(
        f"Fix: codex mcp remove relaybay, then codex mcp add relaybay --url "
        f"{server.base_url}/mcp --bearer-token-env-var RELAYBAY_TOKEN"
    )
    for line in lines:
        if line.startswith("[FAIL]"):
            assert ". Fix: " in line, line
