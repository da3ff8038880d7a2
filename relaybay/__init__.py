"""relaybay: the console entry point and the standard-library hook client.

Kept free of imports: every hook event runs `python -I -m relaybay.hook_client`, which
imports this package first, and importlib.metadata alone costs about 40 ms of start-up.
"""

_version: str | None = None


def get_version() -> str:
    """The installed package's version: pyproject.toml is the only place it is written.

    Read once per process: importlib.metadata parses the package's metadata with the email
    parser (about 2 ms), and /healthz and every page's frame ask for it.
    """
    global _version
    if _version is None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            _version = version("relaybay")
        except PackageNotFoundError:  # running from a checkout that was never installed
            _version = "0+unknown"
    return _version
