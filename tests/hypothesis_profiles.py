"""Hypothesis profiles and the example counts of the property tests.

``ci`` (the default) is derandomized: the property tests try the same examples on every run, so
a red CI run is reproducible and a green one stays green. ``fuzz`` explores new random examples
at length; run it with ``make fuzz`` and turn what it finds into regression cases.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=100, print_blob=True)
settings.register_profile("fuzz", derandomize=False, max_examples=10_000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def examples(ci_count: int) -> int:
    """``ci_count`` under the CI profile (100 examples), 100x that under ``make fuzz``."""
    return ci_count * settings().max_examples // 100
