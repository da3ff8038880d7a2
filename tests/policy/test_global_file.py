"""policy.json: read again on a change of modification time or size, the last valid version
kept while it is broken (logged once), and atomic writes (§7)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from policy import global_file, selectors

pytestmark = pytest.mark.django_db


def write(path: Path, body: object, *, mtime_ns: int | None = None) -> None:
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


def mode() -> str:
    return selectors.effective(selectors.Scope()).merged.get("guard.mode")


def test_without_a_file_the_policy_is_the_default_preset() -> None:
    state = global_file.state()
    assert not state.exists
    assert state.body == {}
    assert state.error is None
    effective = selectors.effective(selectors.Scope())
    assert effective.chain == ("preset:default",)
    assert mode() == "warn"


def test_a_changed_file_is_read_again_without_a_restart(policy_file: Path) -> None:
    write(policy_file, {"guard": {"mode": "off"}}, mtime_ns=1_000_000_000)
    assert mode() == "off"
    write(policy_file, {"guard": {"mode": "log"}}, mtime_ns=2_000_000_000)  # same size
    assert mode() == "log"


def test_a_change_of_size_alone_is_seen(policy_file: Path) -> None:
    write(policy_file, {"guard": {"mode": "block"}}, mtime_ns=1_000_000_000)
    assert mode() == "block"
    write(
        policy_file, {"guard": {"mode": "log"}, "description": "same time"}, mtime_ns=1_000_000_000
    )
    assert mode() == "log"


def test_an_unchanged_file_is_not_read_again(
    policy_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(policy_file, {"guard": {"mode": "block"}})
    assert mode() == "block"
    monkeypatch.setattr(Path, "read_text", lambda *a, **k: pytest.fail("read again"))
    assert mode() == "block"


def test_a_file_that_breaks_later_keeps_the_last_valid_version_and_is_logged_once(
    policy_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write(policy_file, {"guard": {"mode": "block"}}, mtime_ns=1_000_000_000)
    assert mode() == "block"
    write(policy_file, {"guard": {"mode": "loud"}}, mtime_ns=2_000_000_000)
    with caplog.at_level(logging.ERROR, logger="relaybay.policy"):
        assert mode() == "block"
        write(policy_file, {"guard": {"mode": "loud"}}, mtime_ns=3_000_000_000)
        assert mode() == "block"
    effective = selectors.effective(selectors.Scope())
    assert effective.global_error == (
        f"{policy_file}: guard.mode: 'loud' is not one of ['off', 'log', 'warn', 'block']"
    )
    assert [r.message for r in caplog.records].count(
        "policy file is broken (the last valid version stays in effect): " + effective.global_error
    ) == 1
    write(policy_file, {"guard": {"mode": "log"}}, mtime_ns=4_000_000_000)
    assert mode() == "log"
    assert selectors.effective(selectors.Scope()).global_error is None


def test_a_broken_file_at_start_is_an_error_with_the_path_and_the_problem(
    policy_file: Path,
) -> None:
    write(policy_file, '{"guard": {"mode": "loud"}')
    with pytest.raises(global_file.PolicyFileError) as refused:
        global_file.check_at_start()
    assert str(refused.value).startswith(f"{policy_file}: not valid JSON: line 1")


def test_a_write_replaces_the_file_whole_through_a_temporary_file(
    policy_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(policy_file, {"guard": {"mode": "block"}})
    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        replaced.append((Path(src).name, Path(dst).name))
        assert json.loads(policy_file.read_text()) == {
            "guard": {"mode": "block"}
        }  # untouched until the rename
        real_replace(src, dst)

    monkeypatch.setattr(global_file.os, "replace", spy)
    global_file.write({"preset": "strict"})
    assert len(replaced) == 1
    assert replaced[0][0].startswith(".policy-")
    assert replaced[0][1] == "policy.json"
    assert json.loads(policy_file.read_text()) == {"preset": "strict"}


def test_a_relative_policy_file_is_read_from_the_data_folder(
    settings, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.undo()  # the real policy_path, not the test's
    assert global_file.policy_path() == settings.RELAYBAY.home_path / "policy.json"


def test_the_legacy_config_keys_are_a_layer_only_when_set(
    tmp_path: Path,
    settings,
    policy_file: Path,  # type: ignore[no-untyped-def]
) -> None:
    from core.config import load_config

    home = tmp_path / "legacy-home"
    home.mkdir()
    (home / "config.toml").write_text('[permission_defaults]\nlive = "none"\ntest = "ask"\n')
    settings.RELAYBAY = load_config(
        environ={"RELAYBAY_HOME": str(home), "RELAYBAY_GUARD_MODE": "block"}, flags={}
    )
    write(policy_file, {"levels": {"test": {"default": "full"}}})
    effective = selectors.effective(selectors.Scope())
    assert effective.chain == ("preset:default", "config", "global")
    sources = effective.merged.sources
    assert (effective.merged.get("guard.mode"), sources["guard.mode"]) == ("block", "config")
    assert (effective.merged.get("levels.live.default"), sources["levels.live.default"]) == (
        "none",
        "config",
    )
    assert sources["levels.test.default"] == "global"  # the global file comes after config
    assert sources["levels.local.default"] == "preset:default"
    settings.RELAYBAY = load_config(environ={"RELAYBAY_HOME": str(tmp_path)}, flags={})
    assert selectors.effective(selectors.Scope()).chain == ("preset:default", "global")
