r"""consensus_metrics: consensus-node matching and the Acc / NCR / TPN metrics of ConsensusBench.

Public API (see docs/SPEC.md §3-§4 and the README):

>>> from consensus_metrics import match_nodes, score_trajectory
>>> [m.covered for m in match_nodes("so $s = 2.5$ km/h", ["s = 5/2", "s = 25"])]
[True, False]
>>> score_trajectory("$x=4$ hence \\boxed{4}", ["x = 4"], "4")["ncr"]
1.0

Modules, one concern each: ``normalize`` (canonical tokens), ``numbers`` (exact rationals),
``relations`` (equation chains), ``segment_plan`` (the sentences worth reading), ``text_index``
and ``side_pairs`` (lookups in one sentence's tokens and chains), ``chaining`` (equalities across
sentences), ``matching`` (node coverage), ``symbolic`` (bounded sympy fallback), ``locate`` (the first wrong step of a
solution: ``steps``, ``step_facts``; its CLI ``locate_cli`` and file layouts ``step_files``), ``answer`` (math-verify Acc; where the answer is: ``ThinkFormat``, ``<think>`` and Sky-T1 markers), ``records`` (reading docs/SPEC.md §2 files), ``messages`` (chat messages whose trace a trainer or server
split off, as one trajectory text), ``tokens`` (TPN token positions), ``metrics`` (scores and
aggregates), ``batch`` (many trajectories, worker processes), ``budget`` and ``sandbox`` (hard
time limits on any thread), ``nodes`` (node schema validation), ``cli`` (``python -m
consensus_metrics score``), ``outputs`` and ``argtypes`` (every CLI's output-path checks, lock
and setting ranges). ``normalize``, ``relations``, ``anchors``, ``segment_plan``,
``text_index`` and ``matching`` run compiled (Cython) where the install could build them, see
``_native``.
"""

from . import _native

_native.load(__name__)  # before anything imports the compiled modules

from .answer import DEFAULT_THINK_FORMAT, ThinkFormat, ThinkSplit, split_think
from .batch import score_batch
from .budget import DEFAULT_BUDGET_S
from .locate import Location, locate_first_error, locate_in_score
from .matching import NodeMatch, match_nodes
from .metrics import aggregate_scores, mean_stderr, pass_at_k, score_trajectory
from .nodes import Node, coerce_nodes
from .normalize import canonical_key, tokenize
from .records import iter_jsonl, read_problem_file
from .relations import relation_chains
from .sandbox import warmup

__version__ = "0.1.0"

__all__ = [
    "match_nodes", "score_trajectory", "score_batch", "aggregate_scores", "pass_at_k", "mean_stderr",
    "NodeMatch", "Node", "coerce_nodes", "canonical_key", "tokenize", "relation_chains", "split_think",
    "ThinkFormat", "ThinkSplit", "DEFAULT_THINK_FORMAT",
    "warmup", "DEFAULT_BUDGET_S", "read_problem_file", "iter_jsonl",
    "locate_first_error", "locate_in_score", "Location",
]
