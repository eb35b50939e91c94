"""Start-up hook of the consensusbench distribution: lm-eval sees the ConsensusBench tasks.

``setup.py`` installs this file as ``consensusbench_lm_eval_hook.py`` at the top of
site-packages, next to ``consensusbench_lm_eval.pth`` whose one line imports it; both live in
site-packages itself, so the hook works whatever order Python reads ``.pth`` files in and for
wheel and editable installs alike; ``pip uninstall consensusbench`` removes both.

At start-up it only inserts a finder into ``sys.meta_path``. The finder reacts to one module,
``lm_eval.tasks.manager``: it then steps aside and hands over to
``lm_eval_tasks.discovery.patched_spec``, which patches ``TaskManager`` to add our task folder.
If ``lm_eval_tasks`` cannot be imported, lm-eval is left untouched.
"""

import os
import sys

_TARGET = "lm_eval.tasks.manager"


class ConsensusBenchTaskFinder:
    """``sys.meta_path`` finder that waits for ``lm_eval.tasks.manager``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _TARGET:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        try:
            from lm_eval_tasks.discovery import patched_spec
        except ImportError:
            return None
        return patched_spec(fullname)


if os.environ.get("CONSENSUSBENCH_LM_EVAL_HOOK", "1").strip().lower() not in {"0", "false", "no", "off"}:
    if not any(type(f).__name__ == "ConsensusBenchTaskFinder" for f in sys.meta_path):
        sys.meta_path.insert(0, ConsensusBenchTaskFinder())
