"""Build hooks only (the metadata lives in setup.cfg).

1. The lm-eval task discovery hook. Two files go to the top of site-packages, in a wheel and in an editable install alike:

* ``consensusbench_lm_eval_hook.py`` — a copy of ``lm_eval_tasks/_startup_hook.py``;
* ``consensusbench_lm_eval.pth`` — one line, ``import consensusbench_lm_eval_hook``.

Both are real files in site-packages (an editable install would otherwise reach modules only
through setuptools' own finder, itself set up by another ``.pth`` file), so the hook does not
depend on the order Python reads ``.pth`` files in. They are listed in the install RECORD, so
``pip uninstall consensusbench`` removes them. See ``lm_eval_tasks/discovery.py``.

2. Compiled builds of the matching hot path (``consensus_metrics._native.COMPILED``): Cython
   compiles the unchanged Python sources when it and a C compiler are there, and records each
   compiled source's SHA-256 so that an edited source is never shadowed by a stale build. Any
   failure leaves the pure-Python package, which behaves the same. ``CONSENSUS_PURE_PYTHON=1``
   skips compiling.
"""

import importlib.util
import json
import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
HOOK_SOURCE = os.path.join("lm_eval_tasks", "_startup_hook.py")
HOOK_MODULE = "consensusbench_lm_eval_hook"
PTH_NAME = "consensusbench_lm_eval.pth"


class build_py_with_startup_hook(build_py):
    """``build_py`` that also writes the start-up hook files.

    A wheel build writes them into ``build_lib`` (installed as the root of site-packages).
    An editable build (PEP 660) ignores ``build_lib`` for anything but packages, so they go to
    the ``install_lib`` that setuptools' ``editable_wheel`` points at the unpacked wheel.
    """

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            target_dir = self.get_finalized_command("install").install_lib
        else:
            target_dir = self.build_lib
        os.makedirs(target_dir, exist_ok=True)
        self.copy_file(os.path.join(HERE, HOOK_SOURCE), os.path.join(target_dir, HOOK_MODULE + ".py"),
                       preserve_mode=False)
        with open(os.path.join(target_dir, PTH_NAME), "w", encoding="utf-8") as handle:
            handle.write(f"import {HOOK_MODULE}\n")


def _load_native_module():
    """``consensus_metrics/_native.py`` on its own (standard library only): the list of compiled
    modules, the record file and the hash it checks, without importing the package."""
    path = os.path.join(HERE, "consensus_metrics", "_native.py")
    spec = importlib.util.spec_from_file_location("_consensus_native", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NATIVE = _load_native_module()


def native_extensions() -> list:
    """The Cython extensions of the modules in ``NATIVE.COMPILED`` (none without Cython or when
    disabled)."""
    if os.environ.get(NATIVE.PURE_ENV) == "1":
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("consensusbench: Cython is not installed; consensus_metrics stays pure Python")
        return []
    modules = [Extension(f"consensus_metrics.{name}", [os.path.join("consensus_metrics", name + ".py")])
               for name in NATIVE.COMPILED]
    try:
        return cythonize(modules, build_dir=os.path.join("build", "cython"), quiet=True,
                         compiler_directives={"language_level": "3", "binding": True,
                                              "annotation_typing": False})  # Python semantics: str subclasses too
    except Exception as exc:  # a Cython version that cannot compile a module: stay pure Python
        print(f"consensusbench: Cython could not translate consensus_metrics ({exc}); it stays pure Python")
        return []


class build_ext_optional(build_ext):
    """``build_ext`` that carries on without a module it cannot compile, and writes
    ``_native.json`` (``{module: SHA-256 of its source}``) beside the modules it built."""

    def run(self):
        self.built = {}
        try:
            super().run()
        except Exception as exc:  # no C compiler, no Python headers
            print(f"consensusbench: compiling consensus_metrics failed ({exc}); it stays pure Python")
        if not self.built:
            return
        target_dir = os.path.dirname(self.get_ext_fullpath(next(iter(self.built))))
        with open(os.path.join(target_dir, NATIVE.RECORD), "w", encoding="utf-8") as handle:
            json.dump({name.rsplit(".", 1)[1]: digest for name, digest in self.built.items()}, handle, indent=1)

    def build_extension(self, ext):
        source = os.path.join(HERE, *ext.name.split(".")) + ".py"
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(f"consensusbench: compiling {ext.name} failed ({exc}); it stays pure Python")
            return
        self.built[ext.name] = NATIVE.source_hash(source)


setup(cmdclass={"build_py": build_py_with_startup_hook, "build_ext": build_ext_optional},
      ext_modules=native_extensions())
