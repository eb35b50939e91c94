"""Entry point: ``python -m consensus_metrics score ...`` (see :mod:`consensus_metrics.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
