"""The ``make demo`` leaderboard: real MATH-500 runs of five models beside a live lm-eval run.

``reports/demo/math500/`` ships 100 MATH-500 problems (stratified by level) solved by five real
models in six runs (NovaSky-AI/SkyThought evaluation outputs, Apache-2.0; built from the staged
raw files by :mod:`reports.demo.subset`). :mod:`reports.demo.run` scores them through the lm-eval
tasks' own ``process_results`` (:mod:`reports.importing`), each against its own node file
(``reports/demo/nodes/<model>.jsonl`` when present -- nodes built without that model -- else the
shipped ``math500.jsonl``), and builds one report with them and the embedded model's real
``lm_eval`` run. See ``reports/demo/README.md``.
"""
