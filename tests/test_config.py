"""The settings table and its loader (§10): sources in order, and one clear error per bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import BY_NAME, SETTINGS, ConfigError, load_config


def write_toml(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


def load(home: Path, env: dict[str, str] | None = None, flags: dict[str, str] | None = None):
    return load_config(environ={"RELAYBAY_HOME": str(home), **(env or {})}, flags=flags or {})


# key, config.toml line, environment text, flag text, and the value each one yields
LAYERS = [
    pytest.param("port", "port = 1111", "2222", "3333", (1111, 2222, 3333), id="int"),
    pytest.param(
        "heartbeat_seconds", "heartbeat_seconds = 2.5", "3", "0.5", (2.5, 3.0, 0.5), id="float"
    ),
    pytest.param(
        "require_tracker_log",
        "require_tracker_log = true",
        "false",
        "yes",
        (True, False, True),
        id="bool",
    ),
    pytest.param(
        "allowed_hosts",
        'allowed_hosts = ["file.test"]',
        "env-a.test, env-b.test",
        "flag.test",
        (["file.test"], ["env-a.test", "env-b.test"], ["flag.test"]),
        id="list",
    ),
    pytest.param(
        "rules_mode",
        'rules_mode = "strict"',
        "warn",
        "strict",
        ("strict", "warn", "strict"),
        id="choice",
    ),
    pytest.param(
        "guard_mode",
        'guard_mode = "log"',
        "warn",
        "block",
        ("log", "warn", "block"),
        id="unset-choice",
    ),
    pytest.param(
        "host",
        'host = "localhost"',
        "::1",
        "127.0.0.2",
        ("localhost", "::1", "127.0.0.2"),
        id="str",
    ),
]


@pytest.mark.parametrize(("key", "toml", "env_text", "flag_text", "expected"), LAYERS)
def test_each_source_overrides_the_one_before(tmp_path, key, toml, env_text, flag_text, expected):
    home = tmp_path / "home"
    setting = BY_NAME[key]
    env = {setting.env_name: env_text}
    flags = {key: flag_text}
    from_file, from_env, from_flag = expected

    assert load(home)[key] == setting.default
    assert load(home).sources[key] == "default"

    write_toml(home, toml + "\n")
    cfg = load(home)
    assert (cfg[key], cfg.sources[key]) == (from_file, "config.toml")

    cfg = load(home, env=env)
    assert (cfg[key], cfg.sources[key]) == (from_env, setting.env_name)

    cfg = load(home, env=env, flags=flags)
    assert (cfg[key], cfg.sources[key]) == (from_flag, setting.flag_name)


def test_sources_override_each_key_on_its_own(tmp_path):
    home = tmp_path / "home"
    write_toml(home, 'port = 1111\nrules_mode = "strict"\nowner_names = ["boss"]\n')
    cfg = load(home, env={"RELAYBAY_RULES_MODE": "warn"}, flags={"done_window_days": "30"})
    assert cfg.port == 1111
    assert cfg.rules_mode == "warn"
    assert cfg.owner_names == ["boss"]
    assert cfg.done_window_days == 30
    assert cfg.attachments_max_mb == BY_NAME["attachments_max_mb"].default
    assert cfg.sources["attachments_max_mb"] == "default"


def test_tables_come_from_config_toml_only(tmp_path):
    home = tmp_path / "home"
    write_toml(
        home,
        '[stage_labels]\ndev = "Build"\n\n[permission_defaults]\nlive = "read"\n\n'
        '[rules]\nguidance = "Keep it short."\n',
    )
    cfg = load(home, env={"RELAYBAY_STAGE_LABELS": "ignored", "RELAYBAY_RULES": "ignored"})
    assert cfg.stage_labels == {"dev": "Build"}
    assert cfg.permission_defaults == {"live": "read"}
    assert cfg.rules == {"guidance": "Keep it short."}
    assert cfg.sources["stage_labels"] == "config.toml"
    assert BY_NAME["stage_labels"].env_name is None
    assert BY_NAME["stage_labels"].flag_name is None


def test_the_home_flag_wins_over_relaybay_home_and_picks_the_config_file(tmp_path):
    env_home, flag_home = tmp_path / "env-home", tmp_path / "flag-home"
    write_toml(env_home, "port = 1111\n")
    write_toml(flag_home, "port = 2222\n")
    cfg = load(env_home, flags={"home": str(flag_home)})
    assert cfg.home_path == flag_home.resolve()
    assert cfg.sources["home"] == "--home"
    assert cfg.port == 2222
    assert load(env_home).home_path == env_home.resolve()


def test_home_is_not_a_config_toml_key(tmp_path):
    home = tmp_path / "home"
    write_toml(home, f'home = "{tmp_path / "elsewhere"}"\n')
    with pytest.raises(ConfigError) as info:
        load(home)
    assert info.value.key == "home"


def test_every_setting_has_help_and_a_default_of_its_type():
    for setting in SETTINGS:
        assert setting.help.strip(), setting.name
        if setting.name == "home" or setting.default is None:
            continue
        kind = {"int": int, "float": float, "bool": bool, "list": list, "table": dict}.get(
            setting.type, str
        )
        assert isinstance(setting.default, kind), setting.name


BAD_FILES = [
    pytest.param('port = "8765"', "port", "must be an integer", id="wrong-type-int"),
    pytest.param('require_tracker_log = "yes"', "require_tracker_log", "true or false", id="bool"),
    pytest.param('allowed_hosts = "a.test"', "allowed_hosts", "list of strings", id="list"),
    pytest.param("stage_labels = 3", "stage_labels", "must be a table", id="table"),
    pytest.param("portt = 8765", "portt", "unknown key", id="unknown-key"),
    pytest.param("port = 0", "port", "from 1 to 65535", id="port-0"),
    pytest.param("port = 70000", "port", "from 1 to 65535", id="port-70000"),
    pytest.param('rules_mode = "lenient"', "rules_mode", "warn, strict", id="rules-mode"),
    pytest.param(
        '[stage_labels]\nship = "Ship"', "stage_labels", "unknown stage 'ship'", id="stage"
    ),
    pytest.param('[stage_labels]\ndev = ""', "stage_labels", "non-empty", id="empty-label"),
    pytest.param('[permission_defaults]\nlive = "root"', "permission_defaults", "level", id="perm"),
    pytest.param("[rules]\nbogus = 1", "rules", "bogus", id="rules-layer"),
    pytest.param('host = "x"\nport = ', "port", "malformed TOML", id="malformed"),
    pytest.param("[stage_labels\n", "stage_labels", "malformed TOML", id="malformed-table"),
]


@pytest.mark.parametrize(("toml", "key", "problem"), BAD_FILES)
def test_an_invalid_config_toml_value_names_the_key(tmp_path, toml, key, problem):
    home = tmp_path / "home"
    write_toml(home, toml + "\n")
    with pytest.raises(ConfigError) as info:
        load(home)
    message = str(info.value)
    assert info.value.key == key
    assert f"'{key}'" in message
    assert problem in message
    assert "\n" not in message


def test_malformed_toml_without_a_key_names_the_file(tmp_path):
    home = tmp_path / "home"
    write_toml(home, "= 1\n")
    with pytest.raises(ConfigError) as info:
        load(home)
    assert info.value.key == "config.toml"
    assert "line 1" in str(info.value)


BAD_TEXT = [
    pytest.param("port", "abc", "must be an integer", id="port-abc"),
    pytest.param("port", "0", "from 1 to 65535", id="port-0"),
    pytest.param("port", "70000", "from 1 to 65535", id="port-70000"),
    pytest.param("port", "80.5", "must be an integer", id="port-float"),
    pytest.param("heartbeat_seconds", "soon", "must be a number", id="float"),
    pytest.param("require_tracker_log", "maybe", "true or false", id="bool"),
    pytest.param("rules_mode", "lenient", "warn, strict", id="choice"),
    pytest.param("done_window_days", "-1", "from 0 to 3650", id="below-minimum"),
]


@pytest.mark.parametrize(("key", "text", "problem"), BAD_TEXT)
def test_an_invalid_environment_variable_names_the_key_and_the_variable(
    tmp_path, key, text, problem
):
    setting = BY_NAME[key]
    with pytest.raises(ConfigError) as info:
        load(tmp_path / "home", env={setting.env_name: text})
    assert info.value.key == key
    assert setting.env_name in str(info.value)
    assert problem in str(info.value)


@pytest.mark.parametrize(("key", "text", "problem"), BAD_TEXT)
def test_an_invalid_flag_names_the_key_and_the_flag(tmp_path, key, text, problem):
    setting = BY_NAME[key]
    with pytest.raises(ConfigError) as info:
        load(tmp_path / "home", flags={key: text})
    assert info.value.key == key
    assert setting.flag_name in str(info.value)
    assert problem in str(info.value)


def test_a_bad_environment_value_stops_the_start_even_when_a_flag_sets_the_key(tmp_path):
    # Each source is validated as it is read, so a bad lower layer still stops the start:
    # the message names the source to fix rather than hiding it behind a later one.
    with pytest.raises(ConfigError) as info:
        load(tmp_path / "home", env={"RELAYBAY_PORT": "abc"}, flags={"port": "9000"})
    assert "RELAYBAY_PORT" in str(info.value)


@pytest.mark.parametrize(
    ("host", "warned"),
    [
        ("127.0.0.1", False),
        ("127.0.0.2", False),
        ("localhost", False),
        ("::1", False),
        ("0.0.0.0", True),
        ("192.168.1.20", True),
        ("relay.example", True),
    ],
)
def test_serve_warns_when_binding_anything_but_loopback(tmp_path, host, warned) -> None:
    from relaybay_site.management.commands.serve import bind_warning

    cfg = load_config(environ={"RELAYBAY_HOME": str(tmp_path)}, flags={"host": host})
    message = bind_warning(cfg)
    assert (message is not None) is warned
    if warned:
        assert host in message
        assert "allowed_hosts" in message
