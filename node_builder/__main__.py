"""``python -m node_builder`` -> :func:`node_builder.cli.main`."""

import sys

from node_builder.cli import main

sys.exit(main())
