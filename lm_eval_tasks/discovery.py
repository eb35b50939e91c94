"""Make the plain ``lm_eval`` CLI and ``TaskManager()`` see the ConsensusBench tasks.

lm-eval 0.4.13 finds tasks only in its own folder and in ``--include_path``; it has no plugin
hook. Installing this project therefore also puts two files at the top of site-packages (see
``setup.py``): ``consensusbench_lm_eval.pth`` and the module it imports at every Python
start-up, ``consensusbench_lm_eval_hook.py`` (a copy of ``lm_eval_tasks/_startup_hook.py``).
That module only inserts a small finder into ``sys.meta_path``: no lm-eval import, no file
access, not even an import of this package. When — and only when — a program imports
``lm_eval.tasks.manager``, the finder imports this module, lets the normal import run and then
wraps ``TaskManager.__init__`` so that our task folder is scanned like a built-in one::

    TaskManager(include_path=P)  ->  TaskManager(include_path=[TASK_FOLDER, P])

User paths come after ours, so a user's own ``consensusbench_*`` YAMLs still override ours
(lm-eval lets later paths win). At the same moment the package's lm-eval model
``consensusbench-chat-completions`` (:mod:`lm_eval_tasks.reasoning_api`) is registered by import
path, so ``--model consensusbench-chat-completions`` works too. ``include_defaults=False`` is respected (no tasks added).
``CONSENSUSBENCH_LM_EVAL_HOOK=0`` in the environment turns the hook off.

The project also declares the entry point ``lm_eval.tasks: consensusbench =
lm_eval_tasks.consensusbench`` (the package whose folder holds the YAMLs), for an lm-eval
version that discovers task plugins natively (lm-eval PR #4015). Such an lm-eval indexes our
folder on its own, so the hook then steps aside: before the first ``TaskManager`` of a program
adds our folder, :func:`lm_eval_finds_our_tasks` asks lm-eval's own ``TaskManager`` (no
defaults, no include path: no folder scanned but the plugins') whether it already knows our
tasks; if so, ``include_path`` is passed through unchanged and the folder is scanned once.

Example::

    >>> from lm_eval.tasks import TaskManager          # doctest: +SKIP
    >>> "consensusbench_gsm8k" in TaskManager().all_tasks  # doctest: +SKIP
    True
"""

from __future__ import annotations

import functools
import os

from lm_eval_tasks import TASKS_DIR as TASK_FOLDER

_PATCHED_FLAG = "_consensusbench_include_path"
PROBE_TASK = "consensusbench"
"""A name our folder defines (the group): lm-eval knows it without us only through the entry point."""


def _with_our_folder(include_path):
    """``include_path`` with :data:`TASK_FOLDER` put first (unless already there)."""
    if include_path is None:
        paths = []
    elif isinstance(include_path, (list, tuple)):
        paths = list(include_path)
    else:
        paths = [include_path]
    ours = os.path.realpath(TASK_FOLDER)
    if any(os.path.realpath(os.fspath(path)) == ours for path in paths):
        return include_path
    return [TASK_FOLDER, *paths]


def lm_eval_finds_our_tasks(task_manager_cls, init) -> bool:
    """Does this lm-eval index our tasks without our help, i.e. through the ``lm_eval.tasks``
    entry point? ``init`` (the unpatched ``__init__``) builds a throwaway manager with
    ``include_defaults=False`` and no ``include_path``: lm-eval 0.4.13 then scans nothing
    (microseconds) and knows no task; an lm-eval that discovers entry points knows
    :data:`PROBE_TASK` when this project's entry point is installed. Any error means no.

    >>> class Plain:                      # an lm-eval without entry points: scans only its paths
    ...     def __init__(self, include_path=None, include_defaults=True):
    ...         self.all_tasks = []
    >>> lm_eval_finds_our_tasks(Plain, Plain.__init__)
    False
    """
    probe = object.__new__(task_manager_cls)
    try:
        init(probe, include_defaults=False)
        return PROBE_TASK in (getattr(probe, "all_tasks", None) or ())
    except Exception:
        return False


def patch_task_manager(task_manager_cls) -> None:
    """Wrap ``task_manager_cls.__init__`` to add our task folder; calling it twice is harmless.

    The first construction asks :func:`lm_eval_finds_our_tasks` once (cached for the class): if
    lm-eval discovers our entry point itself, every ``include_path`` is passed through unchanged.
    """
    original = task_manager_cls.__init__
    if getattr(original, _PATCHED_FLAG, False):
        return
    import inspect

    signature = inspect.signature(original)
    native: list[bool] = []  # [lm-eval finds our tasks itself], decided on first use

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:  # let lm-eval report the bad call itself
            return original(self, *args, **kwargs)
        arguments = bound.arguments
        if arguments.get("include_defaults", True) and "include_path" in signature.parameters:
            if not native:
                native.append(lm_eval_finds_our_tasks(task_manager_cls, original))
            if not native[0]:
                arguments["include_path"] = _with_our_folder(arguments.get("include_path"))
        return original(*bound.args, **bound.kwargs)

    setattr(__init__, _PATCHED_FLAG, True)
    task_manager_cls.__init__ = __init__


MODELS = {name: "lm_eval_tasks.reasoning_api:ReasoningChatCompletion"
          for name in ("consensusbench-chat-completions", "reasoning-chat-completions")}
"""lm-eval models of this package, registered by import path (loaded only when used)."""


def register_models() -> None:
    """Register :data:`MODELS` in lm-eval's model registry (lazily, by import path), after
    lm-eval's own: ``get_model`` imports its built-in models only into an empty registry."""
    try:
        import lm_eval.models  # noqa: F401  (registers the built-in placeholders)
        from lm_eval.api.registry import model_registry
    except Exception:  # another lm-eval layout: the tasks still work, the model is not offered
        return
    for name, target in MODELS.items():
        if name not in model_registry:
            model_registry.register(name, target=target)


class _PatchingLoader:
    """Runs the real loader of ``lm_eval.tasks.manager``, then patches its ``TaskManager`` and
    registers this package's models."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        task_manager_cls = getattr(module, "TaskManager", None)
        if task_manager_cls is not None:
            patch_task_manager(task_manager_cls)
        register_models()

    def __getattr__(self, name):  # get_source, get_filename, ... for tracebacks and tools
        return getattr(self._loader, name)


def patched_spec(fullname: str):
    """The import spec of ``fullname`` (``lm_eval.tasks.manager``) with a loader that patches
    ``TaskManager`` right after the module runs; ``None`` if no other finder knows it.

    Must be called with our finders already out of ``sys.meta_path`` (no recursion)."""
    from importlib.util import find_spec

    spec = find_spec(fullname)
    if spec is not None and spec.loader is not None:
        spec.loader = _PatchingLoader(spec.loader)
    return spec
