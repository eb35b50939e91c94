r"""ConsensusPR rewards (SPEC §5) as TRL reward functions.

For a completion $y$ of problem $q$ with gold answer $a$ and nodes $\mathrm{Node}(q)=[n_1..n_k]$:

* $\mathrm{acc}(y) \in \{0,1\}$ — math-verify on the final answer (text after the last ``</think>``);
* $\mathrm{ncr}(y) = |\{i : n_i \text{ covered by } y\}| / k$ — node coverage, after the
  reward-hacking guard (:mod:`training_recipes.guards`); for $k = 0$ the NCR term falls back to
  $\mathrm{acc}(y)$.

$$
R_\text{outcome} = \mathrm{acc},\quad
R_\text{linear} = \alpha\,\mathrm{acc} + (1-\alpha)\,\mathrm{ncr},\quad
R_\text{max} = \max(\mathrm{acc}, \mathrm{ncr}),\quad
R_\text{cl}(e) = \begin{cases}\mathrm{ncr} & e < e_\text{switch}\\ \mathrm{acc} & e \ge e_\text{switch}\end{cases}
$$

with $e$ the trainer's (fractional) epoch, read from ``trainer_state.epoch``.
Paper: "ConsensusBench: Benchmark of Consensus Nodes for LLM Reasoning via Outcome Reward
Densifying" (arXiv 2609.04648), ConsensusPR.

Scoring has one hard time budget per completion (``budget_s``, finite and > 0) that bounds all of
it -- guard, node matching, answer check, node-pasting rule; a completion that runs out of it gets
the reward ``None``, which TRL treats as unscorable (zero advantage) instead of a wrong 0.

Each reward logs ``<name>/acc`` and ``<name>/ncr`` (batch means, through TRL's ``log_metric``) and
the per-completion ``acc``/``ncr`` columns (``log_extra``), so every run shows both curves, the
``outcome`` arm included (set ``track_ncr=False`` there to skip node matching).
"""

from __future__ import annotations

import math
from typing import Any

from consensus_metrics.budget import check_budget
from training_recipes.guards import GuardConfig
from training_recipes.scoring import CompletionScore, completion_text, score_completions

__all__ = ["MODES", "ConsensusReward", "consensus_reward", "mix_reward"]

MODES = ("outcome", "linear", "max", "cl")


def mix_reward(mode: str, acc: float, ncr: float | None, alpha: float = 0.5, epoch: float | None = 0.0,
               switch_epoch: float = 1.0) -> float:
    """Combine ``acc`` and ``ncr`` by ``mode`` (formulas in the module docstring).

    ``ncr=None`` (a problem without nodes) falls back to ``acc``.

    >>> mix_reward("linear", 0.0, 0.5), mix_reward("max", 0.0, 0.5), mix_reward("max", 1.0, 0.5)
    (0.25, 0.5, 1.0)
    >>> mix_reward("cl", 1.0, 0.25, epoch=0.4), mix_reward("cl", 1.0, 0.25, epoch=1.0)
    (0.25, 1.0)
    """
    node_term = acc if ncr is None else ncr
    if mode == "outcome":
        return float(acc)
    if mode == "linear":
        return float(alpha * acc + (1.0 - alpha) * node_term)
    if mode == "max":
        return float(max(acc, node_term))
    if mode == "cl":
        return float(node_term if (epoch or 0.0) < switch_epoch else acc)
    raise ValueError(f"unknown reward mode {mode!r}; expected one of {MODES}")


def _column(values: Any, n: int, name: str) -> list:
    if values is None:
        raise ValueError(
            f"ConsensusPR reward needs the dataset column '{name}' (one entry per completion); "
            "load the data with training_recipes.data.load_training_split"
        )
    values = list(values)
    if len(values) != n:
        raise ValueError(f"ConsensusPR reward: column '{name}' has {len(values)} entries for {n} completions")
    return values


class ConsensusReward:
    """Picklable TRL reward function; build it with :func:`consensus_reward`."""

    def __init__(self, mode: str = "linear", alpha: float = 0.5, switch_epoch: float = 1.0,
                 guard: GuardConfig | None = None, track_ncr: bool = True, workers: int = 0,
                 budget_s: float = 1.0):
        if mode not in MODES:
            raise ValueError(f"unknown reward mode {mode!r}; expected one of {MODES}")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        self.mode = mode
        self.alpha = float(alpha)
        self.switch_epoch = float(switch_epoch)
        self.guard = guard if guard is not None else GuardConfig()
        self.track_ncr = bool(track_ncr) or mode != "outcome"
        self.workers = int(workers or 0)
        self.budget_s = check_budget(budget_s)
        if self.budget_s is None:
            raise ValueError("budget_s must be a finite number > 0, got None")
        self.__name__ = f"consensus_{mode}"

    def __repr__(self) -> str:
        return (f"ConsensusReward(mode={self.mode!r}, alpha={self.alpha}, switch_epoch={self.switch_epoch}, "
                f"guard={self.guard}, track_ncr={self.track_ncr}, workers={self.workers})")

    def score(self, completions: list, answer: list, nodes: list) -> list[CompletionScore]:
        """Per-completion ``acc``/``ncr`` (guarded) without mixing."""
        texts = [completion_text(c) for c in completions]
        return score_completions(texts, answer, nodes, guard=self.guard, need_nodes=self.track_ncr,
                                 workers=self.workers, budget_s=self.budget_s)

    def __call__(self, prompts=None, completions=None, answer=None, nodes=None, trainer_state=None,
                 log_metric=None, log_extra=None, **kwargs) -> list[float | None]:
        completions = list(completions or [])
        n = len(completions)
        answers = _column(answer, n, "answer")
        nodes_col = _column(nodes, n, "nodes") if self.track_ncr else [None] * n
        scores = self.score(completions, answers, nodes_col)
        epoch = getattr(trainer_state, "epoch", None) if trainer_state is not None else None
        epoch = float(epoch) if epoch is not None and not math.isnan(float(epoch)) else 0.0
        # A completion whose scoring ran out of its budget is unscorable: None (TRL gives it zero advantage).
        rewards = [None if s.timed_out else mix_reward(self.mode, s.acc, s.ncr, self.alpha, epoch, self.switch_epoch)
                   for s in scores]
        if log_metric is not None and scores:
            log_metric(f"{self.__name__}/acc", sum(s.acc for s in scores) / n)
            defined = [s.ncr for s in scores if s.ncr is not None]
            if defined:
                log_metric(f"{self.__name__}/ncr", sum(defined) / len(defined))
            log_metric(f"{self.__name__}/guarded", sum(1 for s in scores if s.guard) / n)
            log_metric(f"{self.__name__}/timed_out", sum(1 for s in scores if s.timed_out) / n)
        if log_extra is not None and scores:
            log_extra("acc", [s.acc for s in scores])
            log_extra("ncr", [s.ncr for s in scores])
        return rewards


def consensus_reward(mode: str = "linear", alpha: float = 0.5, switch_epoch: float = 1.0,
                     guard: GuardConfig | bool | None = True, track_ncr: bool = True, workers: int = 0,
                     budget_s: float = 1.0) -> ConsensusReward:
    r"""Build a ConsensusPR reward function for TRL's ``GRPOTrainer``.

    The reward is called as ``fn(prompts, completions, answer, nodes, trainer_state, **kwargs)``
    where ``answer`` and ``nodes`` are dataset columns (one entry per completion) and completions
    are strings or conversational message lists. Formulas: see the module docstring.

    Args:
        mode (`str`): ``"outcome"``, ``"linear"``, ``"max"`` or ``"cl"``.
        alpha (`float`, defaults to `0.5`): weight of ``acc`` in ``linear``.
        switch_epoch (`float`, defaults to `1.0`): ``cl`` uses ``ncr`` while
            ``trainer_state.epoch < switch_epoch``, ``acc`` from then on.
        guard (`GuardConfig | bool`): reward-hacking guard thresholds; ``True`` = defaults,
            ``False`` = off (not recommended).
        track_ncr (`bool`, defaults to `True`): for ``outcome``, still match nodes to log ``ncr``;
            ``False`` makes ``outcome`` a math-verify-only reward.
        workers (`int`): >1 scores in a persistent pool of that many worker processes.
        budget_s (`float`): time budget per completion for in-process scoring.

    Returns:
        `ConsensusReward`: picklable callable with ``__name__ == f"consensus_{mode}"``.

    Example:
    ```python
    >>> from training_recipes.rewards import consensus_reward
    >>> reward = consensus_reward("linear", alpha=0.5)
    >>> completions = [[{"role": "assistant", "content": "48/2 = 24 in May, 48+24 = 72. \\boxed{72}"}],
    ...                [{"role": "assistant", "content": "48/2 = 24 in May, so \\boxed{70}"}]]
    >>> nodes = [{"id": "n1", "text": "48/2=24"}, {"id": "n2", "text": "48+24=72"}]
    >>> reward(completions=completions, answer=["72", "72"], nodes=[nodes, nodes])
    [1.0, 0.25]

    ```
    """
    if guard is True or guard is None:
        guard = GuardConfig()
    elif guard is False:
        guard = GuardConfig(enabled=False)
    return ConsensusReward(mode=mode, alpha=alpha, switch_epoch=switch_epoch, guard=guard, track_ncr=track_ncr,
                           workers=workers, budget_s=budget_s)
