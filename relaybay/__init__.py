"""relaybay: the console entry point and the standard-library hook client."""

from importlib.metadata import PackageNotFoundError, version


def get_version() -> str:
    """The installed package's version: pyproject.toml is the only place it is written."""
    try:
        return version("relaybay")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0+unknown"
