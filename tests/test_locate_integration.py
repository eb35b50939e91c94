"""The first wrong step everywhere NCR is: ``score`` rows, the lm-eval per-sample log, the TRL
reward's logs and the verl adapter's extra info (logged, never rewarded)."""

import json
import subprocess
import sys

from consensus_metrics import locate_in_score, score_trajectory

# GSM8K test/0 (Janet's ducks, gold 18) with its shipped node, and AutoRace-style answers
NODES = [{"id": "n1", "text": "16-3-4=9", "kind": "equation", "forms": ["9 = 16-3-4"]}]
PROBLEM = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for "
           "her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh "
           "duck egg. How much in dollars does she make every day at the farmers' market?")
RIGHT = "She sells 16 - 3 - 4 = 9 eggs.\n\nShe makes 9 * 2 = 18 dollars. The answer is \\boxed{18}."
WRONG = "She sells 16 - 3 - 4 = 9 eggs.\n\nShe makes 9 * 2 = 20 dollars. The answer is \\boxed{20}."


def test_locate_in_score_reuses_the_scored_matches():
    score = score_trajectory(WRONG, NODES, "18", count_tokens=False)
    loc = locate_in_score(WRONG, NODES, score, PROBLEM)
    assert (loc.step, loc.kind) == (1, "false_computation") and loc.trace == [["n1"], ["n1"]]
    assert WRONG[loc.span[0]:loc.span[1]].startswith("She makes 9 * 2 = 20")
    right = locate_in_score(RIGHT, NODES, score_trajectory(RIGHT, NODES, "18", count_tokens=False), PROBLEM)
    assert right.step is None and "the final answer is right" in right.reason


def test_score_command_writes_the_first_error_per_row(tmp_path):
    (tmp_path / "data.jsonl").write_text(json.dumps({"id": "g0", "benchmark": "gsm8k", "problem": PROBLEM,
                                                     "answer": "18", "nodes": NODES}, ensure_ascii=False) + "\n")
    (tmp_path / "samples.jsonl").write_text(json.dumps({"id": "g0", "completions": [RIGHT, WRONG]}) + "\n")
    proc = subprocess.run([sys.executable, "-m", "consensus_metrics", "score", "--data", "data.jsonl",
                           "--samples", "samples.jsonl", "--out", "scores.jsonl", "--quiet"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text().splitlines()]
    assert [r["first_error"]["step"] for r in rows] == [None, 1]
    assert rows[1]["first_error"]["kind"] == "false_computation" and rows[1]["first_error"]["position"] == 1.0
    assert rows[1]["first_error"]["reached"] == {"n1": 0}


def test_lm_eval_log_carries_it_and_the_table_does_not():
    from lm_eval_tasks.consensusbench.utils import LOG_KEY, process_results

    doc = {"problem": PROBLEM, "answer": "18", "tpn_tokenizer": "", "nodes": NODES}
    out = process_results(doc, [[RIGHT, WRONG]])  # the scores; the diagnostics go into doc[LOG_KEY]
    assert [t["first_error"]["step"] for t in doc[LOG_KEY]["trajectories"]] == [None, 1]
    assert not any("first_error" in key or "left_path" in key for key in out)


def test_trl_reward_logs_where_wrong_completions_leave_the_path():
    from training_recipes.rewards import consensus_reward

    logged = {}
    completions = [[{"role": "assistant", "content": RIGHT}], [{"role": "assistant", "content": WRONG}]]
    kwargs = dict(completions=completions, answer=["18", "18"], nodes=[NODES, NODES], problem=[PROBLEM, PROBLEM])
    plain = consensus_reward("linear")(**kwargs)
    rewards = consensus_reward("linear", log_first_error=True)(**kwargs, log_metric=logged.__setitem__)
    assert rewards == plain  # logged, never rewarded
    assert logged["consensus_linear/left_path"] == 1.0 and logged["consensus_linear/left_path_position"] == 1.0
    quiet = {}
    consensus_reward("linear")(**kwargs, log_metric=quiet.__setitem__)
    assert not any("left_path" in key for key in quiet)  # off by default


def test_verl_adapter_reports_it_as_extra_info():
    from training_recipes.verl_adapter import compute_score

    plain = compute_score("consensusbench/gsm8k", WRONG, "18", {"nodes": NODES})
    out = compute_score("consensusbench/gsm8k", WRONG, "18", {"nodes": NODES, "problem": PROBLEM}, locate=True)
    assert out["score"] == plain["score"] and "left_path" not in plain
    assert out["left_path"] == 1.0 and out["left_path_position"] == 1.0
    right = compute_score("consensusbench/gsm8k", RIGHT, "18", {"nodes": NODES}, locate="true")
    assert right["left_path"] == 0.0 and right["left_path_position"] == -1.0


# AutoRace line 17 (gold 230) as one model answer: the gold value 230 is on the path, so the
# locator names the halving (step 2), not the sum (step 1) -- when the gold answer reaches it
TRAINS_PROBLEM = ("Two trains leave San Rafael at the same time. They begin traveling westward, both traveling for 80 "
                  "miles. The next day, they travel northwards, covering 150 miles. What's the distance covered by "
                  "each train in the two days?")
TRAINS = ("The two trains traveled 80+150=230 miles.\n\nSo, each train traveled 230/2=115 miles in the two days.\n\n"
          "The answer is \\boxed{115}.")
TRAINS_NODES = [{"id": "n1", "text": "460"}]


def test_the_gold_answer_reaches_the_locator_everywhere():
    from lm_eval_tasks.consensusbench.utils import LOG_KEY, process_results
    from reports.leave_path import first_error_of
    from training_recipes.rewards import consensus_reward
    from training_recipes.verl_adapter import compute_score

    doc = {"problem": TRAINS_PROBLEM, "answer": "230", "tpn_tokenizer": "", "nodes": TRAINS_NODES}
    process_results(doc, [[TRAINS]])
    assert doc[LOG_KEY]["trajectories"][0]["first_error"]["step"] == 1
    score = score_trajectory(TRAINS, TRAINS_NODES, "230", count_tokens=False)
    assert first_error_of(score, TRAINS, TRAINS_NODES, TRAINS_PROBLEM, "230")["step"] == 1
    assert first_error_of(score, TRAINS, TRAINS_NODES, TRAINS_PROBLEM)["step"] == 0  # without it: the sum
    logged = {}
    consensus_reward("linear", log_first_error=True)(
        completions=[[{"role": "assistant", "content": TRAINS}]], answer=["230"], nodes=[TRAINS_NODES],
        problem=[TRAINS_PROBLEM], log_metric=logged.__setitem__)
    assert logged["consensus_linear/left_path_position"] == 0.5  # step 2 of 3
    out = compute_score("consensusbench/gsm8k", TRAINS, "230", {"nodes": TRAINS_NODES, "problem": TRAINS_PROBLEM},
                        locate=True)
    assert out["left_path_position"] == 0.5


def test_score_command_passes_the_gold_answer(tmp_path):
    (tmp_path / "data.jsonl").write_text(json.dumps({"id": "g17", "benchmark": "gsm8k", "problem": TRAINS_PROBLEM,
                                                     "answer": "230", "nodes": TRAINS_NODES}) + "\n")
    (tmp_path / "samples.jsonl").write_text(json.dumps({"id": "g17", "completions": [TRAINS]}) + "\n")
    proc = subprocess.run([sys.executable, "-m", "consensus_metrics", "score", "--data", "data.jsonl",
                           "--samples", "samples.jsonl", "--out", "scores.jsonl", "--quiet"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "scores.jsonl").read_text())["first_error"]["step"] == 1


# independent_step_labels.jsonl, gsm8k/test/1312 (gold 180) with its shipped nodes and computations:
# step 1's 12 meals is right, step 3 is the error; every consumer hands the record's computations on
TOM_PROBLEM = ("Tom's restaurant gets 6 reservations a night.  They normally order 2 meals that cost $5 each and a "
               "$5 bottle of wine.  How much do they make a week if they are open 2 days a week?")
TOM = ("Tom's restaurant gets 6 reservations a night, so they serve 6 * 2 = 12 meals a night.\n\n"
       "Each meal costs $5 for 2 meals and $5 for a bottle of wine, so each reservation brings in $15.\n\n"
       "If they are open 2 days a week, they make 12 reservations * $15 per reservation * 2 days = $360 a week. "
       "The answer is \\boxed{360}.")
TOM_NODES = ["2*5 = 10", "10+5 = 15", "6*15=90"]
TOM_COMPUTATIONS = ["10+5 = 15", "2*5 = 10", "6*15=90", "6 * 2 = 12"]


def test_every_consumer_reads_the_records_computations(tmp_path):
    from lm_eval_tasks.consensusbench.utils import LOG_KEY, process_results
    from training_recipes.rewards import consensus_reward
    from training_recipes.verl_adapter import compute_score

    record = {"id": "g1312", "benchmark": "gsm8k", "problem": TOM_PROBLEM, "answer": "180", "nodes": TOM_NODES}
    (tmp_path / "plain.jsonl").write_text(json.dumps(record) + "\n")
    (tmp_path / "data.jsonl").write_text(json.dumps(dict(record, computations=TOM_COMPUTATIONS)) + "\n")
    (tmp_path / "samples.jsonl").write_text(json.dumps({"id": "g1312", "completions": [TOM]}) + "\n")
    steps = []
    for data in ("plain.jsonl", "data.jsonl"):
        proc = subprocess.run([sys.executable, "-m", "consensus_metrics", "score", "--data", data, "--samples",
                               "samples.jsonl", "--out", f"scores-{data}", "--quiet"],
                              capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert proc.returncode == 0, proc.stderr
        steps.append(json.loads((tmp_path / f"scores-{data}").read_text())["first_error"]["step"])
    assert steps == [0, 2]  # without them the right 12 is taken for the error
    doc = {"problem": TOM_PROBLEM, "answer": "180", "tpn_tokenizer": "", "nodes": TOM_NODES,
           "computations": TOM_COMPUTATIONS}
    process_results(doc, [[TOM]])
    assert doc[LOG_KEY]["trajectories"][0]["first_error"]["step"] == 2
    logged = {}
    consensus_reward("linear", log_first_error=True)(
        completions=[[{"role": "assistant", "content": TOM}]], answer=["180"], nodes=[TOM_NODES],
        problem=[TOM_PROBLEM], computations=[TOM_COMPUTATIONS], log_metric=logged.__setitem__)
    assert logged["consensus_linear/left_path_position"] == 1.0  # step 3 of 3
    out = compute_score("consensusbench/gsm8k", TOM, "180",
                        {"nodes": TOM_NODES, "problem": TOM_PROBLEM, "computations": TOM_COMPUTATIONS}, locate=True)
    assert out["left_path_position"] == 1.0
    bare = compute_score("consensusbench/gsm8k", TOM, "180", {"nodes": TOM_NODES, "problem": TOM_PROBLEM}, locate=True)
    assert bare["left_path_position"] == 0.0
