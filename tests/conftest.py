"""Test-wide set-up: a throwaway data folder before Django reads its settings."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

# pytest-django imports the settings right after this file: point them at a private data
# folder so no test ever reads or writes the developer's real one.
os.environ["RELAYBAY_HOME"] = tempfile.mkdtemp(prefix="relaybay-test-home-")
atexit.register(shutil.rmtree, os.environ["RELAYBAY_HOME"], ignore_errors=True)
for _name in list(os.environ):
    if _name.startswith("RELAYBAY_") and _name not in ("RELAYBAY_HOME", "RELAYBAY_REQUIRE_BROWSER"):
        del os.environ[_name]

pytest_plugins = ["tests.support.fixtures"]


def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    """Browser tests last: fast feedback first, and Playwright's event loop cannot get in
    the way of the asyncio.run calls of the other tests."""
    items.sort(key=lambda item: "tests/browser/" in str(item.path).replace("\\", "/"))
