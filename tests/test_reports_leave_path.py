"""The report section "where models leave the path", on real lm-eval runs of the embedded model.

The fixtures (tests/fixtures/reports/, see make_fixtures.sh there) were logged before the task
wrote ``first_error``: the report locates the first wrong step of their wrong answers itself, from
the logged text, nodes and matches; a samples line that carries ``first_error`` is used as it is.
"""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from reports.build import build_report
from reports.leave_path import first_error_of, leave_table

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "reports"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "out"
    build_report([str(FIXTURES / "greedy-192"), str(FIXTURES / "sampled")], out)
    return out


def test_section_table_and_csv(built):
    table = pd.read_csv(built / "leave_path.csv")
    gens = pd.read_csv(built / "generations.csv")
    for run, row in table.set_index("run").iterrows():
        wrong = gens[(gens["run"] == run) & (gens["acc"] == 0)]
        assert row["wrong"] == len(wrong)
        assert row["located"] == wrong["first_error_step"].notna().sum() > 0
        assert row["false_computation"] + row["contradicts_node"] + row["leaves_path"] == row["located"]
    page = (built / "index.html").read_text()
    section = page[page.index('<section id="leave">'):]
    section = section[:section.index("</section>")]
    assert "Where models leave the path" in section and "Median position" in section
    assert section.count('<mark title="first wrong step">') >= 2  # examples with the step highlighted
    assert (built / "figures" / "leave_path.png").is_file()


def test_logged_first_error_is_used_and_right_answers_are_left_out():
    logged = {"step": 2, "kind": "contradicts_node", "position": 1.0, "node": "n1"}
    assert first_error_of({"acc": 0, "first_error": logged}, "anything", [], None) is logged
    assert first_error_of({"acc": 1, "positions": {}}, "2 + 2 = 5", [], None) is None
    located = first_error_of({"acc": 0, "positions": {}}, "Four boxes hold 3 pens each.\n\nSo 4 * 3 = 13 pens.", [],
                             "A box holds 3 pens. How many pens do four boxes hold?")
    assert located["step"] == 1 and located["kind"] == "false_computation"


def test_contradicted_nodes_and_a_run_without_wrong_answers(tmp_path):
    # a real run folder whose samples lines carry a logged first_error that contradicts a node
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "greedy-192", run)
    samples = next(run.rglob("samples_consensusbench_math500_*.jsonl"))
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    for record in lines:
        nodes = record["doc"].get("nodes") or []
        for score in record["trajectories"]:
            if score["acc"] == 0 and nodes:
                score["first_error"] = {"step": 0, "kind": "contradicts_node", "node": nodes[0]["id"], "position": 0.0,
                                        "n_steps": 1, "span": [0, 5], "reason": "step 1 gives x = 1; node says x = 2"}
    samples.write_text("".join(json.dumps(record) + "\n" for record in lines))
    out = tmp_path / "out"
    build_report([str(run)], out)
    page = (out / "index.html").read_text()
    assert "Most contradicted nodes" in page
    assert leave_table(pd.DataFrame({"run": [], "acc": [], "first_error": []})).empty
