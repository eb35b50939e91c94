"""The one interface every generation backend implements, and the solve prompt.

``Backend.generate(conversations, n)`` takes chat conversations (lists of ``{"role", "content"}``)
and returns, for each, ``n`` sampled completion texts (order kept). Sampling settings live in
:class:`SamplingConfig`. Backends never interpret the text.

Example:
    >>> solve_messages("What is 2+2?")[-1]["content"].startswith("What is 2+2?")
    True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

SOLVE_INSTRUCTION = "Please reason step by step, and put your final answer within \\boxed{}."

Conversation = list[dict[str, str]]


@dataclass
class SamplingConfig:
    """Defaults follow docs/SPEC.md §6 (16 samples) and common math-RL sampling (T=0.6, top-p 0.95)."""

    max_tokens: int = 4096
    temperature: float = 0.6
    top_p: float = 0.95
    seed: int = 0


def solve_messages(problem: str) -> Conversation:
    return [{"role": "user", "content": f"{problem}\n{SOLVE_INSTRUCTION}"}]


class Backend(ABC):
    """A text generator: ``generate(conversations, n) -> [[text] * n] * len(conversations)``."""

    name: str = "backend"

    def __init__(self, model: str, sampling: SamplingConfig | None = None):
        self.model = model
        self.sampling = sampling or SamplingConfig()

    @abstractmethod
    def generate(self, conversations: list[Conversation], n: int = 1) -> list[list[str]]:
        """Return ``n`` completions per conversation."""

    def describe(self) -> str:
        """Provenance label, e.g. ``"hf:/models/SmolLM2-135M-Instruct"``."""
        return f"{self.name}:{self.model}"

    def close(self) -> None:
        """Release resources (models, sessions)."""
