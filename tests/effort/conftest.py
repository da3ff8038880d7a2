"""Fixtures of the effort tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from effort.paths import Roots
from tests.effort.effort_support import roots_in


@pytest.fixture
def roots(tmp_path: Path) -> Roots:
    """The agents' transcript folders of this test (a Claude and a Codex home in tmp_path)."""
    return roots_in(tmp_path)
