"""score_batch: same results sequentially and with worker processes, in input order."""

import json
import os

from consensus_metrics import score_batch

RAW = os.path.join(os.path.dirname(__file__), "fixtures", "metrics", "qwen_math_sample.jsonl")


def load():
    rows = [json.loads(line) for line in open(RAW)]
    texts, nodes, answers = [], [], []
    for r in rows:
        for t in r["responses"]:
            texts.append(t)
            nodes.append(r["nodes"])
            answers.append(r["answer"])
    return texts, nodes, answers


def test_workers_give_identical_results():
    texts, nodes, answers = load()
    one = score_batch(texts, nodes, answers, workers=1, budget_s=None)
    two = score_batch(texts, nodes, answers, workers=2, budget_s=None)
    assert one == two
    assert len(one) == len(texts) and sum(r["acc"] for r in one) > 0
