r"""ConsensusPR rewards (docs/SPEC.md §5) as TRL reward functions.

For a completion $y$ of problem $q$ with gold answer $a$ and nodes $\mathrm{Node}(q)=[n_1..n_k]$:

* $\mathrm{acc}(y) \in \{0,1\}$ — math-verify on the final answer (text after the last ``</think>``
  or Sky-T1 ``<|end_of_thought|>``; with ``think_prefilled=True``, for chat templates that open
  ``<think>`` for the model, a completion without ``</think>`` is an unclosed trace: 0);
* $\mathrm{ncr}(y) = |\{i : n_i \text{ covered by } y\}| / k$ — node coverage, after the
  reward-hacking guard (:mod:`training_recipes.guards`); for $k = 0$ the NCR term falls back to
  $\mathrm{acc}(y)$.

$$
R_\text{outcome} = \mathrm{acc},\quad
R_\text{linear} = \alpha\,\mathrm{acc} + (1-\alpha)\,\mathrm{ncr},\quad
R_\text{max} = \max(\mathrm{acc}, \mathrm{ncr}),\quad
R_\text{cl}(e) = \begin{cases}\mathrm{ncr} & e < e_\text{switch}\\ \mathrm{acc} & e \ge e_\text{switch}\end{cases}
$$

with $e$ the trainer's (fractional) epoch, read from ``trainer_state.epoch`` (TRL's
``GRPOTrainer``), or from an explicit clock: ``epoch=``/``step=`` in the call, or
:meth:`ConsensusReward.set_clock`; with ``switch_step`` the switch is at a global step instead. A
``cl`` call without any clock raises (TRL's async GRPO and verl pass no epoch: ``cl`` would
otherwise stay on NCR for the whole run, silently).

DAPO's soft overlong punishment (Yu et al. 2025, Eq. 13; the same formula as TRL's
``get_soft_overlong_punishment``) is *part of this one reward* when ``overlong_max_length`` is
set: $R + R_\text{length}(|y|)$ with $R_\text{length} = 0$ for $|y| \le L_\max - L_\text{cache}$,
$(L_\max - L_\text{cache} - |y|)/L_\text{cache}$ up to $L_\max$, and $-1$ beyond.
Paper: "ConsensusBench: Benchmark of Consensus Nodes for LLM Reasoning via Outcome Reward
Densifying" (arXiv 2609.04648), ConsensusPR.

Scoring has one hard time budget per completion (``budget_s``, finite and > 0) that bounds all of
it -- guard, node matching, answer check, node-pasting rule; a completion that runs out of it gets
the reward ``None``, which TRL treats as unscorable (zero advantage) instead of a wrong 0.
TRL sums its reward functions and counts a row as unscorable only when *every* function returns
``None`` (TRL #5902), so the overlong penalty must not be a second reward function: beside a
``None`` it would become the row's whole reward, a timeout scored like a wrong answer. Here both
parts are one function and a timeout makes the whole reward ``None``.

Each reward logs ``<name>/acc`` and ``<name>/ncr`` (batch means, through TRL's ``log_metric``;
``cl`` also ``<name>/uses_acc``, 0 in the NCR phase and 1 after the switch) and
the per-completion ``acc``/``ncr`` columns (``log_extra``), so every run shows both curves, the
``outcome`` arm included (set ``track_ncr=False`` there to skip node matching). With
``log_first_error=True`` it also logs where the batch's wrong completions leave the consensus path
(:func:`consensus_metrics.locate.wrong_answer_summary`): ``<name>/left_path``, the share with a
located first wrong step, and ``<name>/left_path_position``, its mean relative position -- logged,
never rewarded (off by default: it reads every step of each wrong completion).
"""

from __future__ import annotations

import math
from typing import Any

from consensus_metrics.budget import check_budget
from training_recipes.guards import GuardConfig
from training_recipes.scoring import CompletionScore, completion_text, score_completions

__all__ = ["MODES", "ConsensusReward", "consensus_reward", "mix_reward", "soft_overlong_penalty"]

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
    if mode == "cl":  # a NaN clock or switch would compare false: acc from the first step, silently
        for name, value in (("epoch", epoch or 0.0), ("switch_epoch", switch_epoch)):
            if not math.isfinite(float(value)):
                raise ValueError(f"cl: {name} must be a finite number, got {value!r}")
    if mode == "outcome":
        return float(acc)
    if mode == "linear":
        return float(alpha * acc + (1.0 - alpha) * node_term)
    if mode == "max":
        return float(max(acc, node_term))
    if mode == "cl":
        return float(node_term if (epoch or 0.0) < switch_epoch else acc)
    raise ValueError(f"unknown reward mode {mode!r}; expected one of {MODES}")


def soft_overlong_penalty(length: int, max_length: int, buffer: int) -> float:
    """DAPO's soft overlong punishment (Eq. 13) of a completion of ``length`` tokens.

    >>> [soft_overlong_penalty(n, 20, 10) for n in (5, 10, 15, 20, 21)]
    [0.0, 0.0, -0.5, -1.0, -1.0]
    """
    expected = max_length - buffer
    if length <= expected:
        return 0.0
    if length <= max_length:
        return (expected - length) / buffer
    return -1.0


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
                 budget_s: float = 1.0, think_format=None, think_prefilled: bool = False,
                 overlong_max_length: int | None = None, overlong_buffer: int = 0,
                 switch_step: int | None = None, log_first_error: bool = False):
        from consensus_metrics.answer import resolve_think_format

        if mode not in MODES:
            raise ValueError(f"unknown reward mode {mode!r}; expected one of {MODES}")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        if overlong_max_length is not None and not 0 < overlong_buffer < overlong_max_length:
            raise ValueError(f"overlong_buffer must be in (0, overlong_max_length={overlong_max_length}), "
                             f"got {overlong_buffer}")
        if switch_step is not None and switch_step < 0:
            raise ValueError(f"switch_step must be >= 0, got {switch_step}")
        if not math.isfinite(float(switch_epoch)):
            raise ValueError(f"switch_epoch must be a finite number, got {switch_epoch!r}")
        self.think_format = resolve_think_format(think_format, bool(think_prefilled) or None)
        self.overlong_max_length = overlong_max_length
        self.overlong_buffer = int(overlong_buffer)
        self.switch_step = switch_step
        self._clock: dict[str, float] = {}
        self.mode = mode
        self.alpha = float(alpha)
        self.switch_epoch = float(switch_epoch)
        self.guard = guard if guard is not None else GuardConfig()
        self.track_ncr = bool(track_ncr) or mode != "outcome"
        self.workers = int(workers or 0)
        self.budget_s = check_budget(budget_s)
        if self.budget_s is None:
            raise ValueError("budget_s must be a finite number > 0, got None")
        self.log_first_error = bool(log_first_error)
        self.__name__ = f"consensus_{mode}"

    def __repr__(self) -> str:
        return (f"ConsensusReward(mode={self.mode!r}, alpha={self.alpha}, switch_epoch={self.switch_epoch}, "
                f"switch_step={self.switch_step}, guard={self.guard}, track_ncr={self.track_ncr}, "
                f"workers={self.workers}, think_format={self.think_format.spec()!r}, "
                f"overlong_max_length={self.overlong_max_length}, overlong_buffer={self.overlong_buffer}, "
                f"log_first_error={self.log_first_error})")

    def set_clock(self, epoch: float | None = None, step: int | None = None) -> None:
        """Set the training clock of ``cl`` by hand (for trainers that pass no ``trainer_state``:
        TRL's async GRPO, verl): call it from the trainer's epoch/step hook. A clock given in a
        call (``epoch=``/``step=``) or by ``trainer_state`` wins over it."""
        if epoch is not None:
            self._clock["epoch"] = float(epoch)
        if step is not None:
            self._clock["step"] = int(step)

    def curriculum_phase_value(self, trainer_state=None, epoch=None, step=None) -> float:
        """The clock ``cl`` compares with its switch, in units of the switch: the epoch (against
        ``switch_epoch``) or the global step (against ``switch_step``). Raises ``RuntimeError``
        when no clock is available."""
        use_step = self.switch_step is not None
        name = "step" if use_step else "epoch"
        state_attr = "global_step" if use_step else "epoch"
        value = step if use_step else epoch
        if value is None and trainer_state is not None:
            value = getattr(trainer_state, state_attr, None)
        if value is None:
            value = self._clock.get(name)
        if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value)):
            raise ValueError(f"{self.__name__}: the training {name} must be a finite number, got {value!r}")
        if value is None:
            raise RuntimeError(
                f"{self.__name__}: the curriculum reward needs the training {name} and this call got none "
                f"(no trainer_state.{state_attr}: TRL's async GRPO and verl pass no trainer_state). Pass "
                f"{name}=... to the call, call reward.set_clock({name}=...) from the trainer's hook"
                + ("" if use_step else ", or build the reward with switch_step=N and give the step")
                + "; without a clock cl would stay on NCR for the whole run.")
        return float(value)

    def score(self, completions: list, answer: list, nodes: list) -> list[CompletionScore]:
        """Per-completion ``acc``/``ncr`` (guarded) without mixing."""
        texts = [completion_text(c, self.think_format) for c in completions]
        return score_completions(texts, answer, nodes, guard=self.guard, need_nodes=self.track_ncr,
                                 workers=self.workers, budget_s=self.budget_s, think_format=self.think_format)

    def __call__(self, prompts=None, completions=None, answer=None, nodes=None, trainer_state=None,
                 log_metric=None, log_extra=None, completion_ids=None, epoch=None, step=None,
                 **kwargs) -> list[float | None]:
        completions = list(completions or [])
        n = len(completions)
        answers = _column(answer, n, "answer")
        nodes_col = _column(nodes, n, "nodes") if self.track_ncr else [None] * n
        clock = 0.0
        if self.mode == "cl":  # before scoring: a missing clock fails fast
            clock = self.curriculum_phase_value(trainer_state, epoch, step)
        penalties = [0.0] * n
        if self.overlong_max_length is not None:
            ids = _column(completion_ids, n, "completion_ids")
            penalties = [soft_overlong_penalty(len(i), self.overlong_max_length, self.overlong_buffer) for i in ids]
        scores = self.score(completions, answers, nodes_col)
        switch = float(self.switch_step) if self.switch_step is not None else self.switch_epoch
        # A completion whose scoring ran out of its budget is unscorable: None (TRL gives it zero advantage),
        # the overlong penalty included -- one reward, so TRL sees the whole row as unscorable.
        rewards = [None if s.timed_out else mix_reward(self.mode, s.acc, s.ncr, self.alpha, clock, switch) + p
                   for s, p in zip(scores, penalties)]
        if log_metric is not None and scores:
            log_metric(f"{self.__name__}/acc", sum(s.acc for s in scores) / n)
            defined = [s.ncr for s in scores if s.ncr is not None]
            if defined:
                log_metric(f"{self.__name__}/ncr", sum(defined) / len(defined))
            log_metric(f"{self.__name__}/guarded", sum(1 for s in scores if s.guard) / n)
            log_metric(f"{self.__name__}/timed_out", sum(1 for s in scores if s.timed_out) / n)
            if self.overlong_max_length is not None:
                log_metric(f"{self.__name__}/overlong_penalty", sum(penalties) / n)
            if self.mode == "cl":
                log_metric(f"{self.__name__}/uses_acc", float(clock >= switch))
        if log_extra is not None and scores:
            log_extra("acc", [s.acc for s in scores])
            log_extra("ncr", [s.ncr for s in scores])
        if self.log_first_error and log_metric is not None and scores:
            self._log_left_path(completions, scores, nodes, kwargs.get("problem"), log_metric, answers,
                                kwargs.get("computations"))
        return rewards

    def _log_left_path(self, completions, scores, nodes, problems, log_metric, answers=None,
                       computations=None) -> None:
        """Log where the wrong completions leave the consensus path (module doc); no reward.
        ``answers``: the gold answers (their values are on the path); ``computations``: a dataset
        column of the records' ``computations`` (docs/SPEC.md §2), when the dataset keeps one."""
        from consensus_metrics.locate import computations_or_none, wrong_answer_summary
        from training_recipes.data import normalise_nodes

        n = len(scores)
        nodes_col = list(nodes) if isinstance(nodes, (list, tuple)) and len(nodes) == n else [None] * n
        problems = list(problems) if isinstance(problems, (list, tuple)) and len(problems) == n else [None] * n
        answers = list(answers) if isinstance(answers, (list, tuple)) and len(answers) == n else [None] * n
        steps = list(computations) if isinstance(computations, (list, tuple)) and len(computations) == n else [None] * n
        wrong = [i for i, s in enumerate(scores) if not s.acc and not s.timed_out]
        if not wrong:
            return
        summary = wrong_answer_summary([completion_text(completions[i]) for i in wrong],
                                       [normalise_nodes(nodes_col[i], where=f"row {i}, column 'nodes'") for i in wrong],
                                       [p if isinstance(p, str) else None for p in (problems[i] for i in wrong)],
                                       budget_s=self.budget_s,
                                       golds=[a if isinstance(a, str) else None for a in (answers[i] for i in wrong)],
                                       computations_list=[computations_or_none(steps[i]) for i in wrong])
        log_metric(f"{self.__name__}/left_path", summary["left_path"])
        if summary["left_path_position"] is not None:
            log_metric(f"{self.__name__}/left_path_position", summary["left_path_position"])


def consensus_reward(mode: str = "linear", alpha: float = 0.5, switch_epoch: float = 1.0,
                     guard: GuardConfig | bool | None = True, track_ncr: bool = True, workers: int = 0,
                     budget_s: float = 1.0, think_format=None, think_prefilled: bool = False,
                     overlong_max_length: int | None = None, overlong_buffer: int = 0,
                     switch_step: int | None = None, log_first_error: bool = False) -> ConsensusReward:
    r"""Build a ConsensusPR reward function for TRL's ``GRPOTrainer``.

    The reward is called as ``fn(prompts, completions, answer, nodes, trainer_state, **kwargs)``
    where ``answer`` and ``nodes`` are dataset columns (one entry per completion) and completions
    are strings or conversational message lists. Formulas: see the module docstring.

    Args:
        mode (`str`): ``"outcome"``, ``"linear"``, ``"max"`` or ``"cl"``.
        alpha (`float`, defaults to `0.5`): weight of ``acc`` in ``linear``.
        switch_epoch (`float`, defaults to `1.0`): ``cl`` uses ``ncr`` while
            ``trainer_state.epoch < switch_epoch``, ``acc`` from then on.
        switch_step (`int`, optional): ``cl`` switches at this global step instead (clock:
            ``trainer_state.global_step``, a ``step=`` argument or :meth:`ConsensusReward.set_clock`).
        guard (`GuardConfig | bool`): reward-hacking guard thresholds; ``True`` = defaults,
            ``False`` = off (not recommended).
        track_ncr (`bool`, defaults to `True`): for ``outcome``, still match nodes to log ``ncr``;
            ``False`` makes ``outcome`` a math-verify-only reward.
        workers (`int`): >1 scores in a persistent pool of that many worker processes.
        budget_s (`float`): time budget per completion for in-process scoring.
        think_format (`str | ThinkFormat`, optional): trace/answer markers (default ``<think>`` and
            Sky-T1, see ``consensus_metrics.ThinkFormat``).
        think_prefilled (`bool`, defaults to `False`): the chat template opens ``<think>`` for the
            model (DeepSeek-R1 distills, QwQ, Qwen3 Thinking); a completion without ``</think>``
            is then an unclosed trace, acc 0. ``training_recipes.train`` detects it from the
            model's chat template (``think_prefilled: auto``).
        overlong_max_length, overlong_buffer (`int`, optional): add DAPO's soft overlong
            punishment for ``L_max = overlong_max_length``, ``L_cache = overlong_buffer`` to this
            reward (needs TRL's ``completion_ids``). One function, so a timeout stays ``None``.
        log_first_error (`bool`, defaults to `False`): also log ``<name>/left_path`` and
            ``<name>/left_path_position`` for the wrong completions (module doc); never rewarded.

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
                           workers=workers, budget_s=budget_s, think_format=think_format,
                           think_prefilled=think_prefilled, overlong_max_length=overlong_max_length,
                           overlong_buffer=overlong_buffer, switch_step=switch_step,
                           log_first_error=log_first_error)
