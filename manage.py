#!/usr/bin/env python
"""Django's manage.py for developers; the same CLI as `relaybay`."""

import sys

from relaybay.cli import main

if __name__ == "__main__":
    sys.exit(main())
