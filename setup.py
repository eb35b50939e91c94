"""Build hook only (the metadata lives in setup.cfg): install the lm-eval task discovery hook.

Two files go to the top of site-packages, in a wheel and in an editable install alike:

* ``consensusbench_lm_eval_hook.py`` — a copy of ``lm_eval_tasks/_startup_hook.py``;
* ``consensusbench_lm_eval.pth`` — one line, ``import consensusbench_lm_eval_hook``.

Both are real files in site-packages (an editable install would otherwise reach modules only
through setuptools' own finder, itself set up by another ``.pth`` file), so the hook does not
depend on the order Python reads ``.pth`` files in. They are listed in the install RECORD, so
``pip uninstall consensusbench`` removes them. See ``lm_eval_tasks/discovery.py``.
"""

import os

from setuptools import setup
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


setup(cmdclass={"build_py": build_py_with_startup_hook})
