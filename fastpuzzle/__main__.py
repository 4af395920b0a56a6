"""``python -m fastpuzzle``: the command line (see :mod:`fastpuzzle.cli`)."""

import sys

from .cli import main

sys.exit(main())
