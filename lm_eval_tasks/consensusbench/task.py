"""The lm-eval task class of the ConsensusBench tasks: the YAML tasks, plus two things a YAML
cannot say.

Every task YAML includes ``_consensusbench_base.yaml``, whose ``class: !function
task.ConsensusBenchTask`` builds the task with this class; everything else (data, prompt,
``process_results``, metrics) is the YAML's. The class adds:

* **run configuration** -- after the data is loaded, the task's ``metadata`` (written to the
  results JSON under ``configs.<task>.metadata``) records ``tpn_tokenizer`` (the tokenizer TPN
  counts in, ``""`` for regex pre-tokens), ``think_format`` (the resolved setting the docs are
  scored with) and, once scored, ``tpn_unit`` (what TPN really counted in: the tokenizer, or
  ``regex-pretokens`` when it could not be loaded offline). Not a metric: lm-eval's table,
  W&B and leaderboards take every metric row as a score.
* **diagnostics said once** -- ``process_results`` (``utils.process_results``) returns only the
  scores and leaves each problem's diagnostic counts in the per-sample log
  (``doc.consensusbench``); this class totals them and, when lm-eval aggregates the task, logs one
  warning line naming the non-zero ones (and the loud "responses look STRIPPED" warning when no
  generation of a thinking model holds a trace).

The module is loaded by lm-eval from its file (like ``utils.py``), so it takes the helpers from
the installed ``lm_eval_tasks`` package (pure functions and constants only).
"""

from __future__ import annotations

import logging
from typing import Any

from lm_eval.api.task import ConfigurableTask

from lm_eval_tasks.consensusbench.utils import COUNTS, LOG_KEY, diagnostics_line, stripped_check

log = logging.getLogger("lm_eval.consensusbench")
"""Under lm-eval's logger: the line is formatted and filtered (``LMEVAL_LOG_LEVEL``) like lm-eval's own."""

RUN_SETTINGS = ("tpn_tokenizer", "think_format")
"""Doc fields every doc of a task shares, copied into the task's metadata."""


class ConsensusBenchTask(ConfigurableTask):
    """A ConsensusBench task: the YAML configuration, plus run settings in the metadata and one
    warning line of diagnostic totals (see the module docstring)."""

    def __init__(self, config: dict | None = None, **kwargs: Any) -> None:
        config = {key: value for key, value in (config or {}).items() if key != "class"}
        self._totals: dict[str, int] = {}
        self._units: set[str] = set()
        self._reported = True
        super().__init__(config=config, **kwargs)

    def download(self, *args: Any, **kwargs: Any) -> None:
        super().download(*args, **kwargs)
        docs = self.dataset[self.config.test_split] if self.config.test_split else None
        if docs is not None and len(docs):
            first = docs[0]
            self._set_metadata({key: first[key] for key in RUN_SETTINGS if key in first})

    def process_results(self, doc: dict, results: Any) -> dict[str, Any]:
        out = super().process_results(doc, results)
        entry = doc.get(LOG_KEY) if isinstance(doc, dict) else None
        if isinstance(entry, dict):
            for key in ("generations", *COUNTS):
                self._totals[key] = self._totals.get(key, 0) + int(entry.get(key) or 0)
            self._units.update(str(t.get("tpn_unit")) for t in entry.get("trajectories") or []
                               if isinstance(t, dict) and t.get("tpn_unit"))
            self._reported = False
        return out

    def aggregation(self) -> dict:
        if not self._reported:  # lm-eval aggregates a task once all of its problems are scored
            self._reported = True
            self.report_diagnostics()
        return super().aggregation()

    def report_diagnostics(self) -> str | None:
        """Log the diagnostic totals of this task in one warning line (when one is not zero),
        record ``tpn_unit`` in the metadata; the line, or ``None``."""
        if self._units:
            self._set_metadata({"tpn_unit": ", ".join(sorted(self._units))})
        stripped_check(self._totals.get("trace_missing", 0), self._totals.get("generations", 0))
        line = diagnostics_line(self.config.task or "consensusbench", self._totals)
        if line:
            log.warning(line)
        return line

    def _set_metadata(self, values: dict[str, Any]) -> None:
        self.config.metadata = {**(self.config.metadata or {}), **values}
