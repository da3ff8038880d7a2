"""A fake `claude` executable for detection: prints the version it is given."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.server import write_fake_claude


@pytest.fixture
def fake_claude(tmp_path: Path):
    def make(version_line: str) -> Path:
        return write_fake_claude(tmp_path / "fake-bin", version_line).parent

    return make
