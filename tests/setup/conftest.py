"""A fake `claude` executable for detection: prints the version it is given."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def fake_claude(tmp_path: Path):
    def make(version_line: str) -> Path:
        folder = tmp_path / "fake-bin"
        folder.mkdir(exist_ok=True)
        exe = folder / "claude"
        exe.write_text(f"#!/bin/sh\necho '{version_line}'\n")
        exe.chmod(0o755)
        return folder

    return make
