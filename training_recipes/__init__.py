"""training_recipes: ConsensusPR rewards (docs/SPEC.md §5) for TRL's GRPO/DAPO and verl, one training script
configured by YAML per experiment arm, DAPO dynamic sampling, and lm-eval evaluation of checkpoints.

>>> from training_recipes import consensus_reward
>>> consensus_reward("max").__name__
'consensus_max'

Modules: ``rewards`` (the reward functions), ``scoring`` (acc/ncr through consensus_metrics),
``guards`` (reward-hacking guard), ``data`` (training split), ``dynamic_sampling`` (trainer
extension), ``train`` (the script), ``evaluate`` (lm-eval on checkpoints), ``verl_adapter``.
See training_recipes/README.md.
"""

from training_recipes.guards import GuardConfig
from training_recipes.rewards import MODES, ConsensusReward, consensus_reward, mix_reward
__all__ = ["MODES", "ConsensusReward", "GuardConfig", "compute_score", "consensus_reward", "mix_reward"]


def __getattr__(name):
    if name == "compute_score":  # lazy: ``python -m training_recipes.verl_adapter`` must not find it imported
        from training_recipes.verl_adapter import compute_score

        return compute_score
    raise AttributeError(f"module 'training_recipes' has no attribute {name!r}")
