"""Loads the Hypothesis profile (``ci`` by default, ``fuzz`` for ``make fuzz``) before any test."""

import hypothesis_profiles  # noqa: F401  (registers and loads the profile)
