"""``python -m boundcheck`` = the ``boundcheck`` command."""

import sys

from .cli import main

sys.exit(main())
