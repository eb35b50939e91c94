"""The ConsensusBench lm-eval task folder: YAML configs, ``utils.py`` hooks, ``data/*.jsonl``.

A package only so that the ``lm_eval.tasks`` entry point can name it; lm-eval itself reads the
YAML files in this folder and loads ``utils.py`` by path.
"""
