"""`python -m koplc` runs the CLI."""

import sys

from koplc.cli import main

sys.exit(main())
