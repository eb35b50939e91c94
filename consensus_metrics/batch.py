"""Scoring many trajectories, optionally in worker processes.

``score_batch`` is :func:`~consensus_metrics.metrics.score_trajectory` over parallel lists. With
``workers >= 2`` it uses a process pool (each worker has its own sandbox process and tokenizer
copy); every trajectory keeps its own hard time budget.

>>> rows = score_batch(["x = 3, so \\\\boxed{3}", "no idea"], [["x=3"], ["x=3"]], ["3", "3"])
>>> [(r["acc"], r["ncr"]) for r in rows]
[(1, 1.0), (0, 0.0)]
"""

from __future__ import annotations

import multiprocessing as mp

from .answer import ThinkFormat, resolve_think_format
from .budget import DEFAULT_BUDGET_S, check_budget
from .metrics import score_trajectory
from .nodes import coerce_nodes
from .tokens import TokenCounter

_worker_state: dict = {}


def _init_worker(tokenizer, budget_s, symbolic, think_format=None):
    import signal

    from .heap import settle
    from .sandbox import warmup

    # Ctrl-C reaches every process of the terminal's group: the parent stops the pool and says
    # so in one line; a worker would print a traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    _worker_state["counter"] = TokenCounter(tokenizer)
    _worker_state["budget_s"] = budget_s
    _worker_state["symbolic"] = symbolic
    _worker_state["think_format"] = think_format
    warmup()
    settle()  # the imports live as long as the worker: no collection walks them again


class ScoringPool:
    """A persistent pool of scoring processes (each with its sandbox), for repeated batches.

    >>> with ScoringPool(workers=2) as pool:                    # doctest: +SKIP
    ...     rows = pool.score(texts, nodes_list, answers)
    """

    def __init__(self, workers: int = 2, tokenizer=None, budget_s: float | None = DEFAULT_BUDGET_S, symbolic: bool = True,
                 think_format: ThinkFormat | str | None = None):
        if isinstance(tokenizer, str):
            from .tokens import load_tokenizer

            tokenizer = load_tokenizer(tokenizer)
        think_format = resolve_think_format(think_format)  # a bad setting fails here, not in a worker
        self._pool = mp.get_context("spawn").Pool(workers, initializer=_init_worker,
                                                  initargs=(tokenizer, budget_s, symbolic, think_format))

    def imap(self, items, chunksize: int = 8):
        """Scores of ``(text, nodes, answer)`` items, in order, as they complete."""
        return self._pool.imap(_score_one, items, chunksize=max(1, chunksize))

    def score(self, texts, nodes_list, answers, chunksize: int = 8) -> list[dict]:
        return list(self.imap(zip(texts, nodes_list, answers), chunksize))

    def close(self):
        self._pool.terminate()
        self._pool.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _score_one(item):
    text, nodes, answer = item
    return score_trajectory(text, nodes, answer, budget_s=_worker_state["budget_s"],
                            symbolic=_worker_state["symbolic"], counter=_worker_state["counter"],
                            think_format=_worker_state.get("think_format"))


def iter_score_batch(items, total: int | None = None, tokenizer=None, workers=None,
                     budget_s: float | None = DEFAULT_BUDGET_S, symbolic: bool = True, progress: bool = False,
                     chunksize: int = 8, think_format: ThinkFormat | str | None = None):
    """Yield scores for an iterable of ``(text, nodes, answer)`` in order (streaming form)."""
    think_format = resolve_think_format(think_format)
    budget_s = check_budget(budget_s)  # in the caller, not in a worker
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="scoring", unit="traj")
    try:
        if not workers or workers <= 1:
            counter = TokenCounter(tokenizer)
            for text, nodes, answer in items:
                yield score_trajectory(text, nodes, answer, budget_s=budget_s, symbolic=symbolic, counter=counter,
                                       think_format=think_format)
                if bar:
                    bar.update(1)
            return
        with ScoringPool(workers, tokenizer, budget_s, symbolic, think_format) as pool:
            for row in pool.imap(items, chunksize):
                yield row
                if bar:
                    bar.update(1)
    finally:
        if bar:
            bar.close()


def score_batch(texts, nodes_list, answers, tokenizer=None, workers=None, budget_s: float | None = DEFAULT_BUDGET_S,
                symbolic: bool = True, progress: bool = False, chunksize: int = 8,
                think_format: ThinkFormat | str | None = None) -> list[dict]:
    """Score parallel lists of trajectories, node lists and gold answers; results in input order.

    ``workers``: ``None``/``0``/``1`` scores in this process; ``n >= 2`` uses n processes.
    ``think_format``: where the final answer is (see :class:`~consensus_metrics.answer.ThinkFormat`).
    Node lists are validated up front, so a malformed node fails fast, naming its position.
    """
    texts, nodes_list, answers = list(texts), list(nodes_list), list(answers)
    if not len(texts) == len(nodes_list) == len(answers):
        raise ValueError(f"texts, nodes_list and answers differ in length: {len(texts)}, {len(nodes_list)}, {len(answers)}")
    checked = []
    for i, nodes in enumerate(nodes_list):
        try:
            checked.append(coerce_nodes(nodes))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"nodes_list[{i}]: {exc}") from None
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str, got {type(text).__name__}")
    for i, answer in enumerate(answers):
        if not isinstance(answer, str):
            raise TypeError(f"answers[{i}] must be a str, got {type(answer).__name__}")
    return list(iter_score_batch(zip(texts, checked, answers), len(texts), tokenizer, workers, budget_s, symbolic,
                                 progress, chunksize, think_format))
