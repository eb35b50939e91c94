"""ConsensusBench, the lm-evaluation-harness plugin: tasks (Acc, NCR, TPN) and one model.

* ``lm_eval_tasks/consensusbench/`` — the task folder (YAMLs, ``utils.py``, evaluation data).
* ``lm_eval_tasks.discovery`` — makes the plain ``lm_eval`` CLI see that folder (no
  ``--include_path``), through a ``.pth`` start-up hook and an entry point, and registers the
  model below.
* ``lm_eval_tasks.reasoning_api`` — the lm-eval model ``consensusbench-chat-completions``
  (``local-chat-completions`` that puts a reasoning server's split-off trace back for the tasks).

The models the project runs (the embedded SmolLM2, a local vLLM server) live in ``models/``.

This file stays import-free: the ``.pth`` hook imports the package at every Python start-up.
"""

import os

TASKS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "consensusbench")
"""Folder holding the ConsensusBench task YAMLs (what ``--include_path`` would point at)."""

__all__ = ["TASKS_DIR"]
