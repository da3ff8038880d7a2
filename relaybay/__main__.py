"""`python -m relaybay` is the same CLI as the `relaybay` console script."""

from relaybay.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
