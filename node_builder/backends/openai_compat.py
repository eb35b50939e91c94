"""Any OpenAI-compatible chat server (``vllm serve``, SGLang, TGI, hosted APIs).

``POST {base_url}/chat/completions`` with ``n`` choices per request; requests run concurrently
(``max_concurrency``) so the server can batch them; connection errors and 429/5xx are retried
with backoff (urllib3 ``Retry``). A server that returns fewer than ``n`` choices is asked again
for the rest. Greedy decoding (``temperature == 0``) asks for one choice and repeats it (vLLM
refuses ``n > 1`` with greedy sampling). An HTTP error names the status and the server's message.

Example (needs a server):
    >>> b = OpenAIBackend("SmolLM2", base_url="http://127.0.0.1:8000/v1")   # doctest: +SKIP
    >>> b.generate([solve_messages("2+2?")], n=2)                          # doctest: +SKIP
    [['...', '...']]
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from node_builder.backends.base import Backend, Conversation, SamplingConfig


class BackendError(RuntimeError):
    """The server answered with an error or an unusable body."""


class OpenAIBackend(Backend):
    name = "openai"

    def __init__(self, model: str, sampling: SamplingConfig | None = None,
                 base_url: str = "http://127.0.0.1:8000/v1", api_key: str | None = None,
                 max_concurrency: int = 8, timeout_s: float = 600.0, retries: int = 3):
        super().__init__(model, sampling)
        self.base_url = base_url.rstrip("/")
        self.max_concurrency = max_concurrency
        self.timeout_s = timeout_s
        self.session = requests.Session()
        retry = Retry(total=retries, backoff_factor=1.0, status_forcelist=(429, 500, 502, 503, 504),
                      allowed_methods=frozenset({"POST"}))
        self.session.mount("http://", HTTPAdapter(max_retries=retry, pool_maxsize=max_concurrency))
        self.session.mount("https://", HTTPAdapter(max_retries=retry, pool_maxsize=max_concurrency))
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if key:
            self.session.headers["Authorization"] = f"Bearer {key}"

    def _request(self, conversation: Conversation, n: int) -> list[str]:
        s = self.sampling
        body = {"model": self.model, "messages": conversation, "n": n, "max_tokens": s.max_tokens,
                "temperature": s.temperature, "top_p": s.top_p, "seed": s.seed}
        url = f"{self.base_url}/chat/completions"
        try:
            response = self.session.post(url, json=body, timeout=self.timeout_s)
        except requests.RequestException as exc:
            raise BackendError(f"{url}: {exc}") from exc
        if response.status_code != 200:
            raise BackendError(f"{url}: HTTP {response.status_code}: {response.text[:500]}")
        try:
            choices = sorted(response.json()["choices"], key=lambda c: c.get("index", 0))
            return [c["message"]["content"] or "" for c in choices]
        except (ValueError, KeyError, TypeError) as exc:
            raise BackendError(f"{url}: unexpected response body: {response.text[:300]}") from exc

    def _complete_n(self, conversation: Conversation, n: int) -> list[str]:
        if self.sampling.temperature == 0:  # greedy: servers (vLLM) refuse n > 1; samples agree
            return self._request(conversation, 1)[:1] * n
        texts: list[str] = []
        while len(texts) < n:
            got = self._request(conversation, n - len(texts))
            if not got:
                raise BackendError(f"{self.base_url}: server returned no choices")
            texts.extend(got)
        return texts[:n]

    def generate(self, conversations: list[Conversation], n: int = 1) -> list[list[str]]:
        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            return list(pool.map(lambda c: self._complete_n(c, n), conversations))

    def describe(self) -> str:
        return f"openai:{self.model}@{self.base_url}"

    def close(self) -> None:
        self.session.close()
