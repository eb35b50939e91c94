"""Repository-wide pytest hooks.

``--doctest-modules`` imports each module from its ``.py`` file. A module of
``consensus_metrics`` that runs compiled (``consensus_metrics._native``) is not its ``.py`` file,
so pytest would refuse it ("import file mismatch"); ``tests/test_native.py`` runs the doctests of
those modules instead, on the compiled build and on the sources.
"""

from pathlib import Path

from consensus_metrics._native import native_modules

_COMPILED_SOURCES = {Path(__file__).parent / "consensus_metrics" / f"{name}.py" for name in native_modules()}


def pytest_ignore_collect(collection_path, config):
    if collection_path in _COMPILED_SOURCES:
        return True
    return None
