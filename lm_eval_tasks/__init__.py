"""ConsensusBench tasks for lm-evaluation-harness (Acc, NCR, TPN) and their helpers.

* ``lm_eval_tasks/consensusbench/`` — the task folder (YAMLs, ``utils.py``, shipped data).
* ``lm_eval_tasks.discovery`` — makes the plain ``lm_eval`` CLI see that folder (no
  ``--include_path``), through a ``.pth`` start-up hook and an entry point.
* ``lm_eval_tasks.embedded_model`` — the default CPU model (SmolLM2-135M-Instruct) as an HF folder.
* ``lm_eval_tasks.vllm_server`` — start/stop a local vLLM OpenAI-compatible server.

This file stays import-free: the ``.pth`` hook imports the package at every Python start-up.
"""

import os

TASKS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "consensusbench")
"""Folder holding the ConsensusBench task YAMLs (what ``--include_path`` would point at)."""

__all__ = ["TASKS_DIR"]
