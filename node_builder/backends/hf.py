"""HF transformers backend (CPU-friendly; used by the tests with the embedded SmolLM2).

Chat template applied by the tokenizer; prompts batched with left padding; ``n`` samples per
prompt via ``num_return_sequences``; greedy when ``temperature == 0`` (decoded once and
repeated ``n`` times: greedy samples are identical). Only the generated tokens
are decoded (``skip_special_tokens=True``).

Example (slow: loads a model):
    >>> b = HFBackend("/work/main/.cache/models/SmolLM2-135M-Instruct",
    ...               SamplingConfig(max_tokens=8, temperature=0))          # doctest: +SKIP
    >>> b.generate([solve_messages("2+2?")], n=1)                           # doctest: +SKIP
    [['...']]
"""

from __future__ import annotations

from node_builder.backends.base import Backend, Conversation, SamplingConfig


class HFBackend(Backend):
    name = "hf"

    def __init__(self, model: str, sampling: SamplingConfig | None = None, batch_size: int = 4,
                 dtype: str = "bfloat16", device: str = "cpu"):
        super().__init__(model, sampling)
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.lm = AutoModelForCausalLM.from_pretrained(model, dtype=getattr(torch, dtype)).to(device)
        self.lm.train(False)  # inference mode (torch.nn.Module.eval), dropout off
        self.device = device
        self.batch_size = batch_size

    def generate(self, conversations: list[Conversation], n: int = 1) -> list[list[str]]:
        torch = self._torch
        s = self.sampling
        out: list[list[str]] = []
        for start in range(0, len(conversations), self.batch_size):
            batch = conversations[start:start + self.batch_size]
            prompts = [self.tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True)
                       for c in batch]
            enc = self.tokenizer(prompts, return_tensors="pt", padding=True,
                                 add_special_tokens=False).to(self.device)
            sample = s.temperature > 0
            per_prompt = n if sample else 1  # greedy: one decode, the n samples are identical
            kwargs = {"do_sample": sample, "max_new_tokens": s.max_tokens,
                      "num_return_sequences": per_prompt, "pad_token_id": self.tokenizer.pad_token_id}
            if sample:
                kwargs.update(temperature=s.temperature, top_p=s.top_p)
            torch.manual_seed(s.seed + start)
            with torch.no_grad():
                generated = self.lm.generate(**enc, **kwargs)
            new_tokens = generated[:, enc["input_ids"].shape[1]:]
            texts = self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
            out.extend(texts[i * per_prompt:(i + 1) * per_prompt] * (n // per_prompt)
                       for i in range(len(batch)))
        return out

    def close(self) -> None:
        self.lm = None
