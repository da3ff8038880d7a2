"""The real `relaybay` command: each settings source, exit 2 on bad values, --version, --help."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

from core.config import SETTINGS
from tests.support.server import clean_env, free_port, run_cli

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
CONSOLE_SCRIPT = Path(sys.executable).parent / "relaybay"
BAD_CONFIG_TIMEOUT = 20  # a refused start never gets near the server: it must end at once


def pyproject_version() -> str:
    with (REPO / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)["project"]["version"]


def write_toml(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


def mcp_url_of(stdout: str) -> str:
    found = re.search(r"relaybay (http://\S+)/mcp ", stdout)
    assert found, stdout
    return found.group(1)


# --- --version and --help -----------------------------------------------------------------


def test_python_dash_m_relaybay_prints_the_pyproject_version():
    result = run_cli("--version", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"relaybay {pyproject_version()}"
    assert version("relaybay") == pyproject_version()


def test_the_console_script_prints_the_same_version():
    assert CONSOLE_SCRIPT.exists(), "the relaybay console script is not installed in this venv"
    result = subprocess.run(
        [str(CONSOLE_SCRIPT), "--version"],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"relaybay {pyproject_version()}"


@pytest.mark.parametrize(
    "args",
    [("serve", "--version"), ("--port", "9000", "--version")],
    ids=["after-a-command", "after-a-flag"],
)
def test_version_anywhere_on_the_line_is_relaybays_not_djangos(tmp_path, args):
    result = run_cli(*args, home=tmp_path / "home", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"relaybay {pyproject_version()}"


def test_serve_help_lists_every_setting_flag_with_its_help(tmp_path):
    result = run_cli("serve", "--help", home=tmp_path / "home", timeout=30)
    assert result.returncode == 0, result.stderr
    squashed = re.sub(r"\s+", "", result.stdout)
    for setting in SETTINGS:
        if not setting.flag_name:
            assert f"--{setting.name.replace('_', '-')} " not in result.stdout
            continue
        assert re.search(rf"^\s+{re.escape(setting.flag_name)}\b", result.stdout, re.M), (
            setting.flag_name
        )
        assert re.sub(r"\s+", "", setting.help) in squashed, setting.name


# --- each source overrides the one before, through the real command -------------------------


def test_config_toml_then_environment_then_flag_decide_the_port(tmp_path):
    home = tmp_path / "home"
    write_toml(home, "port = 1111\n")

    from_file = run_cli("token", home=home, timeout=30)
    assert from_file.returncode == 0, from_file.stderr
    assert mcp_url_of(from_file.stdout) == "http://127.0.0.1:1111"

    from_env = run_cli("token", home=home, env={"RELAYBAY_PORT": "2222"}, timeout=30)
    assert mcp_url_of(from_env.stdout) == "http://127.0.0.1:2222"

    from_flag = run_cli(
        "token", "--port", "3333", home=home, env={"RELAYBAY_PORT": "2222"}, timeout=30
    )
    assert mcp_url_of(from_flag.stdout) == "http://127.0.0.1:3333"


def test_setting_flags_may_stand_before_the_command(tmp_path):
    result = run_cli("--port=4444", "--host", "localhost", "token", home=tmp_path / "h", timeout=30)
    assert result.returncode == 0, result.stderr
    assert mcp_url_of(result.stdout) == "http://localhost:4444"


def test_the_home_flag_beats_relaybay_home(tmp_path):
    env_home, flag_home = tmp_path / "env-home", tmp_path / "flag-home"
    result = run_cli("token", "--home", str(flag_home), home=env_home, timeout=30)
    assert result.returncode == 0, result.stderr
    assert (flag_home / "token").exists()
    assert not (env_home / "token").exists()


# --- a bad value stops the start: exit 2, one line naming the key, no traceback ---------------

BAD_CONFIG = [
    pytest.param({"toml": 'port = "8765"'}, (), "port", id="toml-wrong-type"),
    pytest.param({"toml": "require_tracker_log = 1"}, (), "require_tracker_log", id="toml-bool"),
    pytest.param({"toml": 'owner_names = "me"'}, (), "owner_names", id="toml-list"),
    pytest.param({"toml": "colour = 1"}, (), "colour", id="toml-unknown-key"),
    pytest.param({"toml": "port = \nhost = 'x'"}, (), "port", id="toml-malformed"),
    pytest.param({"toml": 'rules_mode = "lenient"'}, (), "rules_mode", id="toml-rules-mode"),
    pytest.param({"toml": '[stage_labels]\nship = "Ship"'}, (), "stage_labels", id="toml-stage"),
    pytest.param({"toml": '[rules]\nbogus = "x"'}, (), "rules", id="toml-rules-layer"),
    pytest.param({"env": {"RELAYBAY_PORT": "abc"}}, (), "port", id="env-port-abc"),
    pytest.param({"env": {"RELAYBAY_RULES_MODE": "lenient"}}, (), "rules_mode", id="env-choice"),
    pytest.param(
        {"env": {"RELAYBAY_REQUIRE_TRACKER_LOG": "maybe"}}, (), "require_tracker_log", id="env-bool"
    ),
    pytest.param({}, ("--port", "0"), "port", id="flag-port-0"),
    pytest.param({}, ("--port", "70000"), "port", id="flag-port-70000"),
    pytest.param({}, ("--port", "abc"), "port", id="flag-port-abc"),
    pytest.param({}, ("--rules-mode", "lenient"), "rules_mode", id="flag-choice"),
    pytest.param({}, ("--port",), "--port", id="flag-without-value"),
]


@pytest.mark.parametrize(("source", "args", "key"), BAD_CONFIG)
def test_a_bad_setting_stops_serve_with_exit_2_and_one_line_naming_the_key(
    tmp_path, source, args, key
):
    home = tmp_path / "home"
    if "toml" in source:
        write_toml(home, source["toml"] + "\n")
    port_args = () if "--port" in args else ("--port", str(free_port()))
    started = time.monotonic()
    result = run_cli(
        "serve", *port_args, *args, home=home, env=source.get("env"), timeout=BAD_CONFIG_TIMEOUT
    )
    elapsed = time.monotonic() - started

    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("relaybay: ")
    assert (f"'{key}'" if not key.startswith("--") else key) in lines[0]
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stdout == ""
    assert not (home / "relaybay.sqlite").exists(), "nothing may start on a bad setting"
    assert elapsed < BAD_CONFIG_TIMEOUT


def test_a_bad_setting_also_stops_the_token_command(tmp_path):
    home = tmp_path / "home"
    write_toml(home, "port = 0\n")
    result = run_cli("token", home=home, timeout=BAD_CONFIG_TIMEOUT)
    assert result.returncode == 2
    assert "'port'" in result.stderr
    assert not (home / "token").exists()
