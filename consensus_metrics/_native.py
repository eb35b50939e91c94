"""Compiled builds of the matching hot path, used only while they match their sources.

The modules in :data:`COMPILED` are plain Python. When it can, ``setup.py`` also compiles them
with Cython (same source: Cython's pure-Python mode decorators and ``cython.declare`` in the
``.py`` itself say which classes become extension types and which offsets are C integers, and
are no-ops when it runs as Python -- there is no second declaration file to keep in sync; see
benchmarks/README.md for the gain) and records the SHA-256 of every source it
compiled in :data:`RECORD` next to the built modules. :func:`load` runs first thing on
``import consensus_metrics``: a compiled module is used only if its recorded hash is the hash
of the ``.py`` file beside it (and of a ``.pxd`` file there, should one ever be added).
Otherwise -- the source was edited after the build, ``CONSENSUS_PURE_PYTHON=1`` is set, or
nothing was compiled (no Cython or C compiler at install) -- the ``.py`` file is loaded in its
place, so what runs is always what the source says (``make compile`` rebuilds). A compiled
module whose ``.py`` file is not installed at all runs compiled.

Both builds give the same results (``tests/test_native.py``).

>>> sorted(set(native_modules()) - set(COMPILED))
[]
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings

#: The hot-path modules ``setup.py`` compiles, in import order (each imports only earlier ones).
COMPILED = ("lexer", "symbol_rules", "latex_commands", "token_rules", "normalize", "relations", "anchors",
            "segment_plan", "text_index", "matching")
#: File beside the compiled modules: ``{module: SHA-256 of the source it was compiled from}``.
RECORD = "_native.json"
#: Set to ``1`` to run the pure-Python sources even where compiled modules exist.
PURE_ENV = "CONSENSUS_PURE_PYTHON"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_native: list[str] = []


def source_hash(path: str) -> str:
    """SHA-256 (hex) of what a compiled module is built from: the bytes of its ``.py`` file at
    ``path``, then those of a ``.pxd`` file beside it where there is one (the package ships none:
    its declarations live in the ``.py``; Cython would read such a file, so it counts)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        digest.update(handle.read())
    declarations = os.path.splitext(path)[0] + ".pxd"
    if os.path.exists(declarations):
        with open(declarations, "rb") as handle:
            digest.update(b"\0" + handle.read())
    return digest.hexdigest()


def _compiled_file(name: str) -> str | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(_PACKAGE_DIR, name + suffix)
        if os.path.exists(path):
            return path
    return None


def _built_hashes() -> dict:
    try:
        with open(os.path.join(_PACKAGE_DIR, RECORD), encoding="utf-8") as handle:
            record = json.load(handle)
        return record if isinstance(record, dict) else {}
    except (OSError, ValueError):
        return {}


def load(package: str) -> None:
    """Put the pure-Python module in ``sys.modules`` for every compiled module that must not run
    (see the module docstring); the import system then finds it there. Call before any of
    :data:`COMPILED` is imported."""
    pure = os.environ.get(PURE_ENV) == "1"
    built = None
    for name in COMPILED:
        if _compiled_file(name) is None:
            continue  # nothing compiled: the ordinary import loads the .py file
        source = os.path.join(_PACKAGE_DIR, name + ".py")
        if not os.path.exists(source):  # an install that ships compiled modules alone
            _native.append(name)
            continue
        if not pure:
            built = _built_hashes() if built is None else built
            if built.get(name) == source_hash(source):
                _native.append(name)
                continue
            warnings.warn(f"{package}.{name}: the compiled module was built from another version of {source}; "
                          "running the source instead (`make compile` rebuilds it)", RuntimeWarning, stacklevel=3)
        spec = importlib.util.spec_from_file_location(f"{package}.{name}", source)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[spec.name]
            raise
        setattr(sys.modules[package], name, module)


def native_modules() -> list[str]:
    """The modules of :data:`COMPILED` that run compiled in this process."""
    return list(_native)
