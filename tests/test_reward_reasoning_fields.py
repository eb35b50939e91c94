"""A thinking model's trace handed over apart from its answer (issue 25): TRL 1.16 decodes
conversational completions with ``parse_response`` when a response template is set, and its Qwen3
/ DeepSeek-R1 templates move ``<think>…</think>`` into ``reasoning_content`` (LFM2.5:
``thinking``). The reward must read the trace (NCR) and the answer after it (Acc).

Real pieces: the embedded SmolLM2 tokenizer given TRL's own chat templates and response templates
(``trl.add_response_schema``) and TRL's ``parse_response`` on token ids; the real GRPO step with a
response template set is in test_reward_trainer_steps.py. The verl adapter and ``reports import``
read the same fields where their inputs carry them.
"""

from __future__ import annotations

import json

import pytest

from consensus_metrics import ThinkFormat
from consensus_metrics.messages import conversation_text, message_text
from training_recipes.rewards import consensus_reward
from training_recipes.scoring import completion_text
from training_recipes.verl_adapter import compute_score

trl = pytest.importorskip("trl")
from trl.chat_template_utils import add_response_schema, parse_response  # noqa: E402

NODES = [{"id": "n1", "text": "3+4=7"}]
TRACE = "Add them: 3+4=7."
ANSWER = "The answer is \\boxed{7}."
PROBLEM = "What is 3 plus 4?"


@pytest.fixture(scope="module")
def base_tokenizer_dir():
    from models.embedded_model import ensure_embedded_model

    return ensure_embedded_model()


def template_tokenizer(model_dir: str, template: str):
    """The embedded tokenizer with one of TRL's chat templates and TRL's response template for it."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    tokenizer.chat_template = getattr(trl.chat_template_utils, f"{template}_chat_template")
    add_response_schema(tokenizer)
    return tokenizer


def parsed(tokenizer, completion: str) -> list[dict]:
    """What TRL's GRPOTrainer hands the reward for ``completion``: ``[parse_response(ids)]``."""
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": PROBLEM}], tokenize=False,
                                           add_generation_prompt=True)
    prefix = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    ids = tokenizer(completion + tokenizer.eos_token, add_special_tokens=False)["input_ids"]
    return [parse_response(tokenizer, ids, prefix=prefix)]


def test_qwen3_template_splits_off_the_trace_and_the_reward_reads_it(base_tokenizer_dir):
    tokenizer = template_tokenizer(base_tokenizer_dir, "qwen3")
    completion = parsed(tokenizer, f"<think>\n{TRACE}\n</think>\n\n{ANSWER}")
    assert completion[0]["reasoning_content"] == TRACE and completion[0]["content"] == ANSWER
    text = completion_text(completion)
    split = ThinkFormat().split(text)
    assert TRACE in split.trace and split.answer == ANSWER and not split.unclosed
    reward = consensus_reward("linear")
    scores = reward.score([completion], ["7"], [NODES])
    assert (scores[0].acc, scores[0].ncr) == (1.0, 1.0)  # the node is only in the trace
    # what the reward read before: content alone, the node never reached
    assert reward.score([[{"role": "assistant", "content": completion[0]["content"]}]], ["7"], [NODES])[0].ncr == 0.0


def test_qwen3_trace_cut_by_the_length_limit_is_unclosed(base_tokenizer_dir):
    tokenizer = template_tokenizer(base_tokenizer_dir, "qwen3")
    completion = parsed(tokenizer, "<think>\nAdd them: 3+4=7, so maybe \\boxed{7}? Let me double-check")
    assert completion[0]["content"] == ""  # parse_response turns the missing answer into ""
    text = completion_text(completion)
    assert ThinkFormat().split(text).unclosed
    score = consensus_reward("linear").score([completion], ["7"], [NODES])[0]
    assert (score.acc, score.ncr) == (0.0, 1.0)  # no answer (the boxed 7 is inside the trace), the node is


def test_deepseek_r1_template_prefilled_trace(base_tokenizer_dir):
    # the template opens <think> for the model: the completion starts inside the trace
    tokenizer = template_tokenizer(base_tokenizer_dir, "deepseek_r1_distill")
    completion = parsed(tokenizer, f"{TRACE}\n</think>\n\n{ANSWER}")
    assert completion[0]["reasoning_content"] == TRACE
    reward = consensus_reward("max", think_prefilled=True)
    assert [(s.acc, s.ncr) for s in reward.score([completion], ["7"], [NODES])] == [(1.0, 1.0)]
    # a cut trace: no </think>, so TRL leaves it all in content; prefilled reads it as unclosed
    cut = parsed(tokenizer, "Add them: 3+4=7, so \\boxed{7} maybe")
    assert "reasoning_content" not in cut[0]
    assert [(s.acc, s.ncr) for s in reward.score([cut], ["7"], [NODES])] == [(0.0, 1.0)]


def test_lfm_template_uses_the_thinking_field(base_tokenizer_dir):
    tokenizer = template_tokenizer(base_tokenizer_dir, "lfm2_2_5")
    completion = parsed(tokenizer, f"<think>\n{TRACE}\n</think>\n\n{ANSWER}")
    assert completion[0]["thinking"] == TRACE and "reasoning_content" not in completion[0]
    assert consensus_reward("linear")(completions=[completion], answer=["7"], nodes=[NODES]) == [1.0]


def test_the_trace_goes_between_the_reward_formats_markers(base_tokenizer_dir):
    tokenizer = template_tokenizer(base_tokenizer_dir, "qwen3")
    completion = parsed(tokenizer, f"<think>\n{TRACE}\n</think>\n\n{ANSWER}")
    sky = consensus_reward("linear", think_format="sky-t1")
    assert completion_text(completion, sky.think_format) == \
        f"<|begin_of_thought|>{TRACE}<|end_of_thought|>{ANSWER}"
    assert sky(completions=[completion], answer=["7"], nodes=[NODES]) == [1.0]
    # no markers at all: the trace first, the whole text is the answer region
    assert completion_text(completion, "none") == f"{TRACE}\n\n{ANSWER}"


def test_server_fields_blocks_and_tool_turns():
    assert message_text({"reasoning": TRACE, "content": ANSWER}) == f"<think>{TRACE}</think>{ANSWER}"
    assert message_text({"reasoning_content": TRACE, "content": None}) == f"<think>{TRACE}"
    blocks = {"role": "assistant", "content": [{"type": "thinking", "thinking": TRACE},
                                               {"type": "text", "text": ANSWER}]}
    assert message_text(blocks) == f"<think>{TRACE}</think>{ANSWER}"
    # a trace before a tool call closed; the final answer comes in the last turn
    turns = [{"role": "assistant", "reasoning_content": TRACE, "content": "",
              "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": {}}}]},
             {"role": "tool", "content": "7"},
             {"role": "assistant", "reasoning_content": "the tool says 7", "content": ANSWER}]
    text = conversation_text(turns)
    assert text == f"<think>{TRACE}</think>\n<think>the tool says 7</think>{ANSWER}"
    assert ThinkFormat().split(text).answer == ANSWER
    assert consensus_reward("linear")(completions=[turns], answer=["7"], nodes=[NODES]) == [1.0]


def test_verl_adapter_reads_a_trace_kept_apart():
    apart = compute_score("x", ANSWER, "7", {"nodes": NODES, "reasoning_content": TRACE}, mode="linear")
    assert (apart["acc"], apart["ncr"], apart["score"]) == (1.0, 1.0, 1.0)
    message = compute_score("x", {"role": "assistant", "reasoning": TRACE, "content": ANSWER}, "7",
                            {"nodes": NODES}, mode="linear")
    assert message["score"] == 1.0
    assert compute_score("x", ANSWER, "7", {"nodes": NODES}, mode="linear")["ncr"] == 0.0


def test_reports_import_reads_chat_messages_and_trace_fields(tmp_path):
    from reports.importing import import_run

    data = tmp_path / "problems.jsonl"
    data.write_text(json.dumps({"id": "p1", "benchmark": "demo", "problem": PROBLEM, "answer": "7",
                                "nodes": [{"id": "n1", "text": "3+4=7", "kind": "equation"}]}) + "\n"
                    + json.dumps({"id": "p2", "benchmark": "demo", "problem": "What is 3+5?", "answer": "8",
                                  "nodes": [{"id": "n1", "text": "3+5=8", "kind": "equation"}]}) + "\n")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"id": "p1", "completions": [
        {"role": "assistant", "reasoning_content": TRACE, "content": ANSWER},
        [{"role": "user", "content": PROBLEM}, {"role": "assistant", "thinking": "3+4=7 so", "content": ""}]]})
        + "\n" + json.dumps({"id": "p2", "completions": ["\\boxed{8}", "\\boxed{9}"],
                             "reasoning": ["3+5=8", None]}) + "\n")
    results, written = import_run(runs, data, "thinker", tmp_path / "out", progress=False)
    assert written
    samples = [json.loads(line) for line in next(results.parent.glob("samples_*.jsonl")).read_text().splitlines()]
    assert samples[0]["resps"] == [[f"<think>{TRACE}</think>{ANSWER}", "<think>3+4=7 so"]]
    assert samples[1]["resps"] == [["<think>3+5=8</think>\\boxed{8}", "\\boxed{9}"]]
    assert samples[0]["acc"] == 0.5 and samples[0]["ncr"] == 1.0  # the cut trace: no answer, its node
    assert samples[1]["ncr"] == 0.5


def test_reports_import_refuses_a_trace_list_of_the_wrong_length(tmp_path):
    from reports.importing import import_run
    from reports.loading import ReportInputError

    data = tmp_path / "problems.jsonl"
    data.write_text(json.dumps({"id": "p1", "benchmark": "demo", "problem": PROBLEM, "answer": "7", "nodes": []})
                    + "\n")
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"id": "p1", "completions": ["a", "b"], "reasoning_content": ["x"]}) + "\n")
    with pytest.raises(ReportInputError, match=r"runs.jsonl:1: 'reasoning_content' of 'p1' must be a list"):
        import_run(runs, data, "m", tmp_path / "out", progress=False)
