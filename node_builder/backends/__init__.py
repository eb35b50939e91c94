"""Generation backends behind one interface (:class:`~node_builder.backends.base.Backend`).

``make_backend("hf" | "openai" | "vllm", model, sampling, **options)`` builds one; heavy
dependencies (torch/transformers, vllm) are imported only by the backend that needs them.

Example:
    >>> sorted(BACKENDS)
    ['hf', 'openai', 'vllm']
"""

from __future__ import annotations

from node_builder.backends.base import Backend, SamplingConfig, solve_messages

BACKENDS = ("hf", "openai", "vllm")


def make_backend(kind: str, model: str, sampling: SamplingConfig | None = None, **options) -> Backend:
    if kind == "hf":
        from node_builder.backends.hf import HFBackend
        return HFBackend(model, sampling, **options)
    if kind == "openai":
        from node_builder.backends.openai_compat import OpenAIBackend
        return OpenAIBackend(model, sampling, **options)
    if kind == "vllm":
        from node_builder.backends.vllm_offline import VLLMBackend
        return VLLMBackend(model, sampling, **options)
    raise ValueError(f"unknown backend {kind!r}; choose one of {BACKENDS}")


__all__ = ["BACKENDS", "Backend", "SamplingConfig", "make_backend", "solve_messages"]
