"""``python -m bench [--quick] [--only FAMILY[,FAMILY]] [--json PATH]``: every benchmark family, one table."""

import sys

from bench.suite import main

sys.exit(main())
