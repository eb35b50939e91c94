"""``python -m consensus_metrics locate`` on real files: ProcessBench's F1, the three layouts, bad rows."""

import json
import subprocess
import sys

import pytest

# GSM8K test problems with the shipped data's answers; nodes as the files held them (the ducks'
# second node as a rebuild with more voices gives it)
DUCKS = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")
ROBE = "A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?"
CARS = ("Of the 20 available cars for rent, 12 are automatic cars, 4 are manual cars, and the rest are "
        "semi-automatic. What percentage of the cars are semi-automatic?")
DATA = [
    {"id": "gsm8k/test/0", "benchmark": "gsm8k", "problem": DUCKS, "answer": "18",
     "nodes": [{"id": "n1", "text": "16-3-4=9", "kind": "equation"}, {"id": "n2", "text": "3+4=7", "kind": "equation"}]},
    {"id": "gsm8k/test/1", "benchmark": "gsm8k", "problem": ROBE, "answer": "3", "nodes": []},
    {"id": "gsm8k/test/x", "benchmark": "gsm8k", "problem": CARS, "answer": "20",
     "nodes": [{"id": "n1", "text": "12+4=16", "kind": "equation"}, {"id": "n2", "text": "20-16=4", "kind": "equation"}]},
]
# ProcessBench layout (a JSON array): steps as paragraphs, label -1 or the earliest wrong step
PROCESSBENCH = [
    {"id": "gsm8k-0", "problem": DUCKS, "label": -1, "final_answer_correct": True,
     "steps": ["Janet's ducks lay 16 eggs and she uses 3 + 4 = 7 of them.", "She sells 16 - 7 = 9 eggs.",
               "She makes 9 * 2 = 18 dollars: \\boxed{18}."]},
    {"id": "gsm8k-1", "problem": "  " + DUCKS.replace(" ", "  "), "label": 1, "final_answer_correct": False,
     "steps": ["She uses 3 + 4 = 7 eggs.", "She sells 16 - 7 = 8 eggs.", "She makes 8 * 2 = 16 dollars: \\boxed{16}."]},
    {"id": "gsm8k-2", "problem": ROBE, "label": 0, "final_answer_correct": False,
     "steps": ["White fiber: 2 * 2 = 4 bolts.", "In total 2 + 4 = 6 bolts. \\boxed{6}"]},
    {"id": "gsm8k-3", "problem": CARS, "label": 1,
     "steps": ["20 cars - 12 cars - 4 cars = 4 cars are semi-automatic.",
               "The proportion of semi-automatic cars is 4 cars / 20 cars * 100% = 25%", "The answer is 25"]},
    {"id": "bad-1", "problem": DUCKS, "label": -1, "steps": ["fine", 7]},
    {"id": "bad-2", "problem": DUCKS, "label": 5, "steps": ["a", "b"]},
    {"id": "bad-3", "problem": DUCKS, "label": -1, "steps": []},
    {"id": "bad-4", "problem": "What is 1 + 1?", "label": -1, "steps": ["2"]},
    ["not", "an", "object"],
]
# PRMBench layout (one line, prm_test_p2_1763 of the step_contradiction file, shortened)
PRMBENCH = {
    "question": "Three plus the reciprocal of a number equals 7 divided by that number.  What is the number?",
    "original_process": ["I can rewrite the equation as 3 + 1/x = 7/x.", "Multiplying by x gives me 3x + 1 = 7.",
                         "Subtracting 1 from both sides: 3x = 6.", "So x = 2.", "# Answer\\n\\n2"],
    "modified_process": ["I can rewrite the equation as 3 + 1/x = 7/x.", "Multiplying by x gives me 3x + 1 = 7.",
                         "Then I incorrectly subtract 1 from both sides: 3x = 8.", "So x = 8/3.", "# Answer\\n\\n8/3"],
    "error_steps": [3, 4], "classification": "step_contradiction", "idx": "prm_test_p2_1763"}
PRM_DATA = {"id": "math500/test/x", "benchmark": "math500", "problem": PRMBENCH["question"], "answer": "2",
            "nodes": [{"id": "n1", "text": "3 + \\frac{1}{x} = \\frac{7}{x}", "kind": "equation"},
                      {"id": "n2", "text": "3x = 6", "kind": "equation"}]}
# llm-reasoners AutoRace layout (line 1 of gsm8k_human_labels@6538cc0.jsonl, and a wrong copy)
AUTORACE = [
    {"question": DUCKS, "gt_answer": "18", "human_label": True,
     "gpt": "\nStep 1 - Janet eats 3 duck eggs for breakfast and bakes 4 into muffins so 3 + 4 = <<3+4=7>>7 duck "
            "eggs are used\nStep 2 - Each day Janet's ducks lay 16 eggs and she uses 7, 16 - 7 = <<16-7=9>>9 duck eggs "
            "are for sale\nStep 3 - She sells her eggs for $2 per egg and has 9 available for sale so 2 * 9 = "
            "$<<2*9=18>>18 per day\nStep 4 - The answer is 18"},
    {"question": DUCKS, "gt_answer": "18", "human_label": False,
     "gpt": "\nStep 1 - She uses 3 + 4 = 7 eggs\nStep 2 - She sells 16 - 7 = 8 eggs\nStep 3 - The answer is 16"},
]


def run(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "consensus_metrics", "locate", *args, "--quiet"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)


@pytest.fixture
def files(tmp_path):
    with open(tmp_path / "nodes.jsonl", "w") as fh:
        for rec in DATA + [PRM_DATA]:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        fh.write("{broken\n")
    (tmp_path / "gsm8k.json").write_text(json.dumps(PROCESSBENCH, ensure_ascii=False))
    (tmp_path / "prm800k_test_p2_4o_step_contradiction.jsonl").write_text(json.dumps(PRMBENCH) + "\n")
    (tmp_path / "autorace.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in AUTORACE))
    return tmp_path


def test_processbench_layout_f1_and_bad_rows(files):
    proc = run(files, "--data", "nodes.jsonl", "--solutions", "gsm8k.json", "--out", "located.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    for reason in ("gsm8k.json:item 4: step 1 is not a string (got int); skipped",
                   "gsm8k.json:item 5: label 5 is outside the 2 steps (expected -1 .. 1); skipped",
                   "gsm8k.json:item 6: empty solution: no step with text; skipped",
                   "gsm8k.json:item 7: problem not in --data",
                   "gsm8k.json:item 8: expected a JSON object, got list; skipped",
                   "nodes.jsonl:5: not valid JSON"):
        assert reason in proc.stderr
    assert "bad rows: 4" in proc.stdout and "problems not in --data: 1" in proc.stdout
    assert "problems without nodes: 1" in proc.stdout  # the robe: located with the node-free signals
    rows = [json.loads(line) for line in (files / "located.jsonl").read_text().splitlines()]
    assert [(r["label"], r["predicted"]) for r in rows] == [(-1, None), (1, 1), (0, 0), (1, 1)]
    assert rows[1]["kind"] == "false_computation" and rows[3]["kind"] == "false_computation"
    assert rows[3]["final_answer_correct"] is False  # read from "The answer is 25", checked against 20
    line = next(line for line in proc.stdout.splitlines() if line.startswith("gsm8k"))
    assert line.split()[1:6] == ["3", "100.0", "1", "100.0", "100.0"]


def test_require_nodes_skips_problems_without_nodes(files):
    proc = run(files, "--data", "nodes.jsonl", "--solutions", "gsm8k.json", "--require-nodes")
    assert proc.returncode == 0, proc.stderr
    assert "gsm8k.json:item 2: the problem has no nodes (--require-nodes); skipped" in proc.stderr
    assert "problems without nodes, skipped: 1" in proc.stdout


def test_prmbench_and_autorace_layouts(files):
    proc = run(files, "--data", "nodes.jsonl", "--solutions", "prm800k_test_p2_4o_step_contradiction.jsonl",
               "autorace.jsonl")
    assert proc.returncode == 0, proc.stderr
    prm = next(line for line in proc.stdout.splitlines() if line.startswith("prm800k"))
    assert prm.split()[1:6] == ["1", "100.0", "1", "100.0", "100.0"]  # 3x = 8 contradicts node 3x = 6
    autorace = next(line for line in proc.stdout.splitlines() if line.startswith("autorace"))
    assert autorace.split()[3:5] == ["1", "100.0"] and autorace.split()[6:9] == ["1", "100.0", "100.0"]
    assert "ALL" in proc.stdout


def test_unusable_inputs_one_line_exit_2(files):
    (files / "empty.json").write_text("[]")
    (files / "junk.json").write_text("[{not json")
    cases = [(("--data", "nodes.jsonl", "--solutions", "missing.json"), "--solutions missing.json: no such file"),
             (("--data", "nodes.jsonl", "--solutions", "empty.json"), "--solutions: no usable row"),
             (("--data", "nodes.jsonl", "--solutions", "junk.json"), "not a JSON array nor JSONL"),
             (("--data", "gsm8k.json", "--solutions", "gsm8k.json"), "--data: no usable node record"),
             (("--data", "nodes.jsonl", "--solutions", "gsm8k.json", "--out", "gsm8k.json"), "is also the input"),
             (("--data", "nodes.jsonl", "--solutions", "gsm8k.json", "--budget", "0"), "must be")]
    for args, message in cases:
        proc = run(files, *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", ["independent_step_labels.jsonl", "held_out_step_labels.jsonl"])
def test_shipped_labelled_sets_read_whole(tmp_path, name):
    """benchmarks/data/independent_step_labels.jsonl and held_out_step_labels.jsonl (ProcessBench's
    layout; bench_locate.py's independent and held-out sets) are read by the command with the
    shipped node files: every row usable, every problem found, both subsets scored."""
    from pathlib import Path
    repo = Path(__file__).resolve().parent.parent
    data = repo / "lm_eval_tasks" / "consensusbench" / "data"
    labels = repo / "benchmarks" / "data" / name
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert {r["subset"] for r in rows} == {"gsm8k", "math500"}
    assert all(r["why"] and r["reviewer"] and r["source"] for r in rows)
    proc = run(tmp_path, "--data", str(data / "gsm8k.jsonl"), str(data / "math500.jsonl"), "--solutions", str(labels))
    assert proc.returncode == 0, proc.stderr
    assert f"located the first wrong step of {len(rows)} solutions" in proc.stdout
    assert "bad rows" not in proc.stdout and "not in --data" not in proc.stdout
    subsets = {line.split()[0]: line.split() for line in proc.stdout.splitlines()
               if line.split()[:1] in (["gsm8k"], ["math500"])}
    for name in ("gsm8k", "math500"):
        erroneous, error_free = int(subsets[name][1]), int(subsets[name][3])
        assert erroneous + error_free == sum(1 for r in rows if r["subset"] == name)
        assert erroneous == sum(1 for r in rows if r["subset"] == name and r["label"] >= 0)
