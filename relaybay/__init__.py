"""relaybay: the console entry point and the standard-library hook client.

Kept free of imports: every hook event runs `python -I -m relaybay.hook_client`, which
imports this package first, and importlib.metadata alone costs about 40 ms of start-up.
"""


def get_version() -> str:
    """The installed package's version: pyproject.toml is the only place it is written."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("relaybay")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0+unknown"
