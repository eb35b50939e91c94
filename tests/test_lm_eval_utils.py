"""lm_eval_tasks/consensusbench/utils.py without a model: data loading, prompts, per-problem
scoring through the real consensus_metrics, pass@k wiring and the aggregation functions."""

import importlib.util
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from test_hostile_inputs import loop_text, math_text

from lm_eval_tasks import TASKS_DIR
from models.embedded_model import ensure_embedded_model

FIXTURE_DATA = Path(__file__).parent / "fixtures" / "lm_eval" / "data"


def _load_utils():
    """The module lm-eval itself loads (by path, as ``utils``)."""
    spec = importlib.util.spec_from_file_location("consensusbench_utils", Path(TASKS_DIR) / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


utils = _load_utils()


def _docs(name, **metadata):
    return list(utils.load_consensusbench(f"{name}.jsonl", data_dir=str(FIXTURE_DATA), **metadata)["test"])


# ----------------------------------------------------------------------------- data and prompt

def test_loads_fixture_problems_with_nodes_and_tokenizer_name():
    docs = _docs("gsm8k", pretrained="/models/m", dtype="bfloat16")
    assert [d["id"] for d in docs] == ["gsm8k/test/0", "gsm8k/test/1", "gsm8k/test/3"]
    assert docs[0]["answer"] == "18"
    assert docs[0]["nodes"][0]["id"] == "n1" and docs[0]["nodes"][0]["text"] == "16-3-4=9"
    assert all(d["tpn_tokenizer"] == "/models/m" for d in docs)


@pytest.mark.parametrize("metadata, expected", [
    ({"pretrained": "p", "model": "m"}, "p"),
    ({"tokenizer": "t", "pretrained": "p"}, "t"),
    ({"model": "m", "base_url": "http://x"}, "m"),
    ({"tpn_tokenizer": "o", "tokenizer": "t", "pretrained": "p"}, "o"),
    ({"dtype": "bfloat16"}, ""),
])
def test_tokenizer_name_comes_from_model_args(metadata, expected):
    assert utils.resolve_tokenizer_name(metadata) == expected


def test_data_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv(utils.DATA_DIR_ENV, raising=False)
    assert utils.resolve_data_dir() == utils.PACKAGE_DATA_DIR == Path(TASKS_DIR) / "data"
    monkeypatch.setenv(utils.DATA_DIR_ENV, str(tmp_path))
    assert utils.resolve_data_dir() == tmp_path
    assert utils.resolve_data_dir(str(FIXTURE_DATA)) == FIXTURE_DATA.resolve()


def test_aime25_ships_problems_without_nodes():
    docs = _docs("aime25")
    assert len(docs) == 2 and all(d["nodes"] == [] for d in docs)
    assert docs[0]["answer"] == "70"


@pytest.mark.parametrize("line, message", [
    ("{not json", ":2: not valid JSON"),
    ('["a list"]', ":2: expected a JSON object"),
    ('{"id": "x", "problem": "p", "answer": null, "nodes": []}', ":2: field 'answer' must be a non-empty string or a finite number"),
    ('{"id": "x", "problem": "p", "answer": "5"}', ":2: field 'nodes' must be a list"),
    ('{"id": "x", "problem": "p", "answer": "5", "nodes": [{"id": "a"}]}', ":2: node 0 (id 'a'): missing field 'text'"),
])
def test_bad_data_lines_are_reported_with_file_and_line(tmp_path, line, message):
    good = json.dumps({"id": "ok", "problem": "p", "answer": "1", "nodes": []})
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        utils.read_problems(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_missing_data_file_says_how_to_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="data_dir"):
        utils.load_consensusbench("math500.jsonl", data_dir=str(tmp_path))


def test_node_values_are_normalised_to_strings(tmp_path):
    row = {"id": "x", "problem": "p", "answer": "1", "nodes": [
        {"id": "n1", "text": "3/4", "kind": "value", "value": 0.75, "forms": []},
        {"id": "n2", "text": "x=1", "kind": "equation", "value": None}]}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    nodes = list(utils.load_consensusbench("t.jsonl", data_dir=str(tmp_path))["test"])[0]["nodes"]
    assert nodes[0]["value"] == "0.75" and nodes[1]["value"] is None and nodes[1]["forms"] == []


def test_prompt_is_problem_then_boxed_instruction():
    doc = _docs("math500")[0]
    text = utils.doc_to_text(doc)
    assert text.startswith(doc["problem"].strip())
    assert text.endswith("put your final answer within \\boxed{}.")


# ----------------------------------------------------------------------------- scoring

def test_covered_nodes_positions_and_acc_of_a_right_trajectory():
    doc = _docs("gsm8k")[0]  # Janet's ducks, nodes 16-3-4=9 and 9*2=18
    text = "She has 16 - 3 - 4 = 9 eggs left.\nShe earns 9 * 2 = 18 dollars.\nThe answer is \\boxed{18}."
    out = utils.score_generations(doc, [[text]])
    assert out["acc"] == 1.0 and out["ncr"] == 1.0
    trajectory = out["trajectories"][0]
    assert trajectory["covered"] == ["n1", "n2"]
    start, end, _ = trajectory["positions"]["n1"]
    assert "16 - 3 - 4 = 9" in text[start:end] or text[start:end] in "16 - 3 - 4 = 9"
    assert trajectory["positions"]["n1"][0] < trajectory["positions"]["n2"][0]
    assert out["tpn"] > 0 and out["tpn_undefined"] == 0 and out["ncr_undefined"] == 0
    assert out["tpn_unit"] == "regex-pretokens"  # the fixture docs name no tokenizer
    assert "pass@1" not in out  # one generation: acc only


def test_wrong_answer_with_partial_process():
    doc = _docs("gsm8k")[0]
    out = utils.score_generations(doc, [["16 - 3 - 4 = 9 eggs remain, so she makes \\boxed{20}."]])
    assert out["acc"] == 0.0 and out["ncr"] == 0.5
    assert out["trajectories"][0]["covered"] == ["n1"]


def test_unclosed_think_scores_acc_zero_and_is_counted():
    doc = _docs("gsm8k")[0]
    text = "<think>16 - 3 - 4 = 9 and 9 * 2 = 18 so \\boxed{18}"
    out = utils.score_generations(doc, [[text]])
    assert out["acc"] == 0.0 and out["think_unclosed"] == 1
    assert out["ncr"] == 1.0  # the trace still counts for NCR


def test_closed_think_reads_the_answer_after_it():
    doc = _docs("gsm8k")[0]
    out = utils.score_generations(doc, [["<think>maybe \\boxed{17}? 16-3-4=9</think>So \\boxed{18}."]])
    assert out["acc"] == 1.0 and out["ncr"] == 0.5


def test_problem_without_nodes_leaves_ncr_out_and_counts_it():
    doc = _docs("aime25")[0]
    out = utils.score_generations(doc, [["The sum is \\boxed{70}."]])
    assert out["acc"] == 1.0
    assert "ncr" not in out and "tpn" not in out
    assert out["ncr_undefined"] == 1 and out["tpn_undefined"] == 1


def test_default_take_first_filter_output_is_accepted():
    doc = _docs("gsm8k")[1]
    out = utils.score_generations(doc, ["It takes 2/2 = 1 bolt, so 2 + 1 = 3: \\boxed{3}"])
    assert out["acc"] == 1.0 and out["trajectories"][0]["covered"] == ["n1", "n2"]


def test_repeats_give_pass_at_k_and_means_over_generations():
    doc = _docs("gsm8k")[0]
    generations = [
        "16 - 3 - 4 = 9, 9 * 2 = 18, \\boxed{18}",  # right, 2 nodes
        "16 - 3 - 4 = 9 so \\boxed{9}",              # wrong, 1 node
        "no idea \\boxed{7}",                        # wrong, 0 nodes (TPN undefined)
        "\\boxed{5}",                                # wrong, 0 nodes (TPN undefined)
    ]
    out = utils.score_generations(doc, [generations])
    assert out["acc"] == out["pass@1"] == 0.25
    assert out["pass@2"] == pytest.approx(1 - math.comb(3, 2) / math.comb(4, 2))  # 0.5
    assert out["pass@4"] == 1.0
    assert "pass@8" not in out
    assert out["ncr"] == pytest.approx((1.0 + 0.5 + 0 + 0) / 4)
    assert out["tpn_undefined"] == 2 and out["ncr_undefined"] == 0
    tpns = [t["tpn"] for t in out["trajectories"] if t["tpn"] is not None]
    assert out["tpn"] == pytest.approx(sum(tpns) / 2)
    assert len(out["trajectories"]) == 4


@pytest.mark.parametrize("text, budget", [
    ("16 - 3 - 4 = 9, so \\boxed{18}", 1e-6),                      # the budget is spent before the count
    (" = ".join(["16-3-4", "9"] * 400) + " \\boxed{18}", None),  # an 8 KB repetition loop
])
def test_a_generation_out_of_time_never_stops_the_run(text, budget):
    """Issue 24, item 2: when the budget runs out before the token count, ``n_tokens`` is None;
    process_results added it up (TypeError), and lm_eval lost the whole run after generation."""
    doc = dict(_docs("gsm8k")[0])
    if budget is not None:
        doc["budget_s"] = budget
    out = utils.process_results(doc, [[text, "\\boxed{18}"]])  # the scores; the diagnostics: doc[LOG_KEY]
    trajectories = doc[utils.LOG_KEY]["trajectories"]
    assert out["acc"] in (0.0, 0.5, 1.0) and len(trajectories) == 2
    counted = [t["n_tokens"] for t in trajectories if t["n_tokens"] is not None]
    if counted:  # the mean over the generations whose length is known
        assert out["n_tokens"] == pytest.approx(sum(counted) / len(counted))
    else:  # unknown: left out of the mean, like an undefined NCR
        assert "n_tokens" not in out


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.one_of(st.text(max_size=200), math_text, loop_text), min_size=1, max_size=3),
       budget=st.sampled_from([1e-6, 0.01, 0.5]))
def test_property_process_results_never_raises_on_model_text(texts, budget):
    """Whatever a model writes, and however little time scoring gets, the doc is scored: one
    exception here loses a whole lm_eval run after generation (issue 24, item 2)."""
    doc = dict(_docs("gsm8k")[0], budget_s=budget)
    out = utils.process_results(doc, [texts])
    assert len(doc[utils.LOG_KEY]["trajectories"]) == len(texts) and 0.0 <= out["acc"] <= 1.0
    assert out.get("n_tokens") is None or out["n_tokens"] >= 0


def test_only_a_usable_budget_is_accepted_in_the_metadata(tmp_path):
    for bad in ("-1", "nan", "0", "inf", "soon", True):
        with pytest.raises(ValueError, match="budget_s"):
            _docs("gsm8k", budget_s=bad)
    assert _docs("gsm8k", budget_s="2.5")[0]["budget_s"] == 2.5


def test_pass_at_k_includes_n_when_n_is_not_a_power_of_two():
    doc = _docs("aime25")[0]
    out = utils.score_generations(doc, [["\\boxed{70}", "\\boxed{1}", "\\boxed{2}"]])
    assert out["pass@2"] == pytest.approx(1 - math.comb(2, 2) / math.comb(3, 2))
    assert out["pass@3"] == 1.0


def test_tpn_counts_in_the_evaluated_models_tokens():
    model_dir = str(ensure_embedded_model())
    doc = _docs("gsm8k", pretrained=model_dir)[0]
    text = "She has 16 - 3 - 4 = 9 eggs left. She earns 9 * 2 = 18 dollars. \\boxed{18}"
    out = utils.score_generations(doc, [[text]])
    tokenizer = utils.load_tokenizer(model_dir)
    assert out["tpn_unit"] == model_dir
    assert out["n_tokens"] == len(tokenizer(text, add_special_tokens=False)["input_ids"])
    # e of the last covered node, in model tokens, over the 2 covered nodes
    last_end = out["trajectories"][0]["positions"]["n2"][1]
    offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    e_last = next(i for i, (s, e) in enumerate(offsets, start=1) if s <= last_end - 1 < e)
    assert out["tpn"] == pytest.approx(e_last / 2)


def test_unloadable_tokenizer_falls_back_to_regex_pretokens(caplog):
    assert utils.load_tokenizer("/nonexistent/tokenizer/dir") is None
    assert "cannot load tokenizer" in caplog.text
    doc = dict(_docs("gsm8k")[0], tpn_tokenizer="/nonexistent/tokenizer/dir")
    assert utils.score_generations(doc, [["\\boxed{18}"]])["tpn_unit"] == "regex-pretokens"


def test_keep_all_responses_is_the_identity():
    responses = [["a", "b"], ["c", "d"]]
    assert utils.keep_all_responses(responses, [{}, {}]) is responses


# ----------------------------------------------------------------------------- aggregation

def test_process_results_returns_the_scores_and_logs_the_diagnostics_in_the_doc():
    """Every key process_results returns is a row of lm-eval's results table: only the scores;
    the diagnostics ride in the doc, which lm-eval writes to the per-sample log."""
    doc = dict(_docs("gsm8k")[0])
    generations = ["16 - 3 - 4 = 9, 9 * 2 = 18, \\boxed{18}", "<think>16 - 3 - 4 = 9", "\\boxed{5}"]
    full = utils.score_generations(dict(doc), [generations])
    out = utils.process_results(doc, [generations])
    assert out == {key: full[key] for key in ("acc", "pass@1", "pass@2", "pass@3", "ncr", "tpn", "n_tokens")}
    entry = doc[utils.LOG_KEY]
    assert entry == {"generations": 3, "ncr_undefined": 0, "tpn_undefined": 1, "think_unclosed": 1,
                     "timed_out": 0, "trace_missing": 0, "trajectories": full["trajectories"]}
    json.dumps(doc)  # lm-eval writes it as JSON


def test_diagnostics_line_names_the_non_zero_totals_once():
    line = utils.diagnostics_line("consensusbench_aime25", {"generations": 16, "ncr_undefined": 16,
                                                            "tpn_undefined": 16, "think_unclosed": 2,
                                                            "timed_out": 0, "trace_missing": 0})
    assert line.startswith("ConsensusBench consensusbench_aime25: of 16 generations, 16 NCR undefined")
    assert "2 think_unclosed" in line and "timed_out" not in line and "\n" not in line
    assert utils.diagnostics_line("t", {"generations": 3, **{key: 0 for key in utils.COUNTS}}) is None
    assert utils.total([0, 2, 1]) == 3


@pytest.mark.parametrize("benchmark, problems", [("math500", 500), ("gsm8k", 1319), ("aime24", 30),
                                                 ("aime25", 30)])
def test_shipped_data_loads(monkeypatch, benchmark, problems):
    """The files the package ships (built by node_builder) load through the task's own hook."""
    monkeypatch.delenv(utils.DATA_DIR_ENV, raising=False)
    docs = utils.load_consensusbench(f"{benchmark}.jsonl", pretrained="m")["test"]
    assert len(docs) == problems
    assert len({doc["id"] for doc in docs}) == problems
    assert all(doc["id"].startswith(f"{benchmark}/") for doc in docs)


# ----------------------------------------------------------------------------- the task class

@pytest.fixture()
def built_task(monkeypatch):
    """``consensusbench_gsm8k`` as lm-eval builds it from the YAMLs (its TaskManager, this folder
    only), on the fixture data."""
    from lm_eval.tasks import TaskManager

    monkeypatch.setenv(utils.DATA_DIR_ENV, str(FIXTURE_DATA))
    manager = TaskManager(include_path=TASKS_DIR, include_defaults=False,
                          metadata={"pretrained": str(ensure_embedded_model())})
    (task,) = manager.load(["consensusbench_gsm8k"])["tasks"].values()
    return task


def test_task_records_the_tpn_tokenizer_as_run_configuration(built_task):
    assert type(built_task).__name__ == "ConsensusBenchTask" and built_task.VERSION == 1.2
    metadata = built_task.dump_config()["metadata"]
    assert metadata["tpn_tokenizer"] == str(ensure_embedded_model())
    assert metadata["think_format"] == "think,sky-t1"
    assert "class" not in built_task.dump_config()
    assert set(built_task.aggregation()) == {"acc", "ncr", "tpn", "n_tokens", "pass@1", "pass@2", "pass@4",
                                             "pass@8", "pass@16"}


def test_task_says_its_diagnostic_totals_once_in_one_line(built_task):
    import logging

    docs = list(built_task.test_docs())
    outs = [built_task.process_results(docs[0], [["<think>16 - 3 - 4 = 9"]]),
            built_task.process_results(docs[1], [["\\boxed{3}"]])]
    assert all(set(out) <= {"acc", "ncr", "tpn", "n_tokens"} for out in outs)
    assert docs[0]["consensusbench"]["think_unclosed"] == 1

    class Lines(logging.Handler):  # lm-eval's logger does not propagate to pytest's handler
        def __init__(self):
            super().__init__(logging.WARNING)
            self.lines = []

        def emit(self, record):
            self.lines.append(record.getMessage())

    handler = Lines()
    logger = logging.getLogger("lm_eval.consensusbench")
    logger.addHandler(handler)
    try:
        for _ in range(3):  # lm-eval asks for the aggregation once per metric
            built_task.aggregation()
    finally:
        logger.removeHandler(handler)
    lines = [line for line in handler.lines if "ConsensusBench consensusbench_gsm8k" in line]
    assert lines == ["ConsensusBench consensusbench_gsm8k: of 2 generations, 1 TPN undefined (no node reached), "
                     "1 think_unclosed (trace never closed: acc 0); per generation in the samples log "
                     "(--log_samples: doc.consensusbench)"]
    assert built_task.dump_config()["metadata"]["tpn_unit"] == str(ensure_embedded_model())
