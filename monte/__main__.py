"""``python -m monte``: the same as the ``monte`` command."""

import sys

from monte.cli import main

sys.exit(main())
