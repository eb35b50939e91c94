"""A reviewer signs the nodes (node_builder.signoff): sheets out, verdicts in, only signed nodes
built; bad verdict files and answer lines are one line naming the file and line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from node_builder.consensus import ConsensusRule, select, signable
from node_builder.evidence import gather
from node_builder.schema import Problem, Trajectory
from node_builder.signoff import (SignoffError, Verdicts, load_signoffs, proposed_nodes, sheet_of, text_key,
                                   verdicts_from_lines)

REPO = Path(__file__).resolve().parents[1]
GSM8K = REPO / "tests" / "fixtures" / "node_builder" / "raw" / "gsm8k"


def _problem():
    texts = {"A": "x + 3 = 10, so x = 7 and 2x = 14, and 7^2 = 49 for good measure. \\boxed{14}", "B": "We get x = 7; then 2 \\cdot 7 = 14.",
             "C": "x = 10 - 3 = 7. The answer: 14."}
    return Problem("t/1", "t", "If $x + 3 = 10$, what is $2x$?", "14",
                   trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])


def test_only_candidates_signed_good_are_nodes():
    evidence = gather(_problem())
    assert [n.text for n in select(evidence, ConsensusRule()).nodes] == ["x = 7", "7"]  # the rules' choice
    chosen = select(evidence, ConsensusRule(), signed={"x = 7": "GOOD", "7": "FRAGMENT"})
    assert [n.text for n in chosen.nodes] == ["x = 7"] and chosen.stats["rejected"] == 1
    unread = select(evidence, ConsensusRule(), signed={"7": "GOOD"})  # x = 7 was never on a sheet
    assert [n.text for n in unread.nodes] == ["7"] and unread.stats["unsigned"] >= 1


def test_a_signed_candidate_still_needs_two_voices():
    evidence = gather(_problem())
    one_voice = [c.node.text for c in evidence.candidates if len({evidence.trajectories[t].voice for t in c.hits}) == 1]
    assert one_voice == ["7^2 = 49", "49"]
    signed = {text_key(text): "GOOD" for text in one_voice}
    assert select(evidence, ConsensusRule(), signed=signed).nodes == []


def test_the_sheet_lists_the_signable_candidates_with_their_voices():
    evidence = gather(_problem())
    block, texts = sheet_of(evidence, ConsensusRule())
    assert texts == [c.node.text for c, _, _ in signable(evidence, ConsensusRule())]
    assert "x = 7" in texts and "[3/3] x = 7" in block and "ANSWER: 14" in block and block.startswith("### t/1")


def test_answer_lines_become_verdicts_by_text():
    rows = verdicts_from_lines(["# a comment", "t/1: 2a, 1G", "t/2:"], {"t/1": ["x = 7", "7"], "t/2": []}, "r")
    assert [(r["text"], r["label"]) for r in rows] == [("7", "ANSWER"), ("x = 7", "GOOD")]
    for bad, message in [("t/9: 1G", "no sheet problem 't/9'"), ("t/1: 3G", "'3G' is no NUMBER+CODE"),
                         ("t/1: 1Q", "'1Q'"), ("t/1 1G", "no sheet problem")]:
        with pytest.raises(SignoffError, match="answer line 1: " + message.replace("+", r"\+")):
            verdicts_from_lines([bad], {"t/1": ["x = 7", "7"]}, "r")


@pytest.mark.parametrize("line, message", [
    ("{not json", "v.jsonl:2: not JSON"),
    ('{"id": "t/1", "text": "7"}', "v.jsonl:2: a verdict needs string fields id, text and label"),
    ('{"id": "t/1", "text": "7", "label": "NICE"}', "v.jsonl:2: label 'NICE' is none of GOOD"),
    ('{"id": "t/1", "text": "x  = 7", "label": "ROUTE"}', "v.jsonl:2: t/1 'x = 7' is already labelled GOOD"),
    ('{"id": "t/1", "text": "49", "label": "FRAGMENT", "second": "b"}',
     "v.jsonl:2: 'second' names the reviewer who signed a GOOD verdict too"),
])
def test_a_bad_verdict_file_names_its_line(tmp_path, line, message):
    path = tmp_path / "v.jsonl"
    path.write_text('{"id": "t/1", "text": "x = 7", "label": "GOOD"}\n' + line + "\n")
    with pytest.raises(SignoffError, match=message):
        load_signoffs(path)


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "node_builder", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})


def _built_record(tmp_path, name: str, sources: list, record_id: str) -> dict:
    """``record_id``'s record of a ``build`` of ``sources`` with the verdicts of ``v.jsonl``."""
    done = _cli("build", "--benchmark", "gsm8k", *sources, "--out", f"{name}.jsonl", "--workdir", name,
                "--signoff", "v.jsonl", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return next(json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()
                if json.loads(line)["id"] == record_id)


def test_the_round_trip_on_real_gsm8k_solutions(tmp_path):
    """Sheets of the real GSM8K fixture (reference + socratic solutions), a reviewer's answers that
    sign the first candidate of each problem, the merged verdict file, and a build that keeps
    exactly the signed candidates."""
    sources = ["--source", f"gsm8k:{GSM8K / 'test.jsonl'}", "--source", f"gsm8k-socratic:{GSM8K / 'test_socratic.jsonl'}"]
    sheet = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "sheets", "--parts", "2",
                 "--quiet", cwd=tmp_path)
    assert sheet.returncode == 0, sheet.stderr
    candidates = json.loads((tmp_path / "sheets" / "candidates.json").read_text())
    assert len(candidates) >= 4 and (tmp_path / "sheets" / "sheet2.md").exists()
    answers = tmp_path / "answers.txt"
    answers.write_text("".join(f"{pid}: 1G " + " ".join(f"{i}F" for i in range(2, len(texts) + 1)) + "\n"
                               for pid, texts in candidates.items()))
    imported = _cli("signoff-import", "--sheet-dir", "sheets", "--answers", str(answers), "--reviewer", "tester",
                    "--out", "verdicts.jsonl", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stderr)["good"] == len(candidates)
    revise = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "rev", "--revise", "verdicts.jsonl",
                  "--quiet", cwd=tmp_path)
    assert revise.returncode == 0, revise.stderr
    assert "<GOOD>" in (tmp_path / "rev" / "sheet1.md").read_text() and (tmp_path / "rev" / "revise.json").exists()
    propose = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "prop", "--propose",
                   "verdicts.jsonl", "--quiet", cwd=tmp_path)
    assert propose.returncode == 0, propose.stderr
    assert "SIGNED: " in (tmp_path / "prop" / "propose1.md").read_text()
    assert set(json.loads((tmp_path / "prop" / "proposals.json").read_text())) >= set(candidates)
    build = _cli("build", "--benchmark", "gsm8k", *sources, "--out", "out.jsonl", "--workdir", "w",
                 "--signoff", "verdicts.jsonl", "--quiet", cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    signed = [r for r in records if r["id"] in candidates]
    assert signed and all(r["provenance"]["signed"] for r in signed)
    for record in signed:
        assert {n["text"] for n in record["nodes"]} <= {candidates[record["id"]][0]}
    assert any(r["nodes"] for r in signed)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "text": "1", "label": "MAYBE"}\n')
    refused = _cli("build", "--benchmark", "gsm8k", *sources, "--out", "o2.jsonl", "--workdir", "w2",
                   "--signoff", str(bad), "--quiet", cwd=tmp_path)
    assert refused.returncode == 2 and "bad.jsonl:1: label 'MAYBE'" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "o2.jsonl").exists()


def test_a_proposed_key_result_is_a_node_where_two_voices_state_it():
    """The reviewer writes in what the miner missed; the matcher decides who states it."""
    from node_builder.signoff import Verdicts, proposed_nodes

    texts = {"A": "Half of 14 is 7, and 7 squared is 49. \\boxed{49}", "B": "We need 7^2 = 49.",
             "C": "So the side is 7 and the area 7 \\cdot 7 = 49."}
    problem = Problem("t/2", "t", "A square has perimeter 28. What is its area?", "49",
                      trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])
    verdicts = Verdicts({"s = 7": "GOOD", "\\frac{28}{4} = 7": "GOOD"}, ("s = 7", "\\frac{28}{4} = 7"))
    evidence = gather(problem, None, proposed_nodes(verdicts, problem))
    chosen = select(evidence, ConsensusRule(), signed=verdicts.labels)
    assert [n.text for n in chosen.nodes] == []  # no solution writes s = 7 or 28/4 = 7
    stated = Verdicts({"7": "GOOD"}, ("7",))
    chosen = select(gather(problem, None, proposed_nodes(stated, problem)), ConsensusRule(), signed=stated.labels)
    assert [(n.text, n.support) for n in chosen.nodes] == [("7", 1.0)]


def test_proposal_lines_name_their_errors():
    from node_builder.signoff import proposals_from_lines

    for line, message in [("{", "p:1: not JSON"), ('{"id": "t/9", "propose": []}', "p:1: no sheet problem 't/9'"),
                          ('{"id": "t/1", "propose": "x = 7"}', "p:1: 'propose' must be a list")]:
        with pytest.raises(SignoffError, match=message):
            proposals_from_lines([line], {"t/1"}, "r", "p")
    path = Path(__file__).parent / "fixtures" / "nothing"
    assert proposals_from_lines(['{"id": "t/1", "propose": ["$x=7$", "x = 7 ", ""]}'], {"t/1"}, "r", str(path))[0]["text"] == "x=7"


def test_the_computation_of_a_signed_value_comes_along_for_finalize_to_choose():
    """GSM8K test/0's reviewer signs the value 9 and calls 16 - 3 - 4 = 9 its duplicate; the build
    keeps both candidates for finalize, which keeps one node for the step."""
    from node_builder.pipeline import BuildConfig, build_records
    from node_builder.signoff import Verdicts

    texts = ["Janet sells 16 - 3 - 4 = 9 duck eggs a day. She makes 9 * 2 = $18 every day.",
             "She has 16 - 3 - 4 = 9 eggs left, so 9 * 2 = 18 dollars.", "16 - 7 = 9 eggs; 9 \\times 2 = 18."]
    problem = Problem("t/3", "t", "Janet's ducks lay 16 eggs per day. She eats three and bakes with four. She sells "
                      "the rest for $2 each. How much does she make?", "18",
                      trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in zip("ABC", texts)])
    evidence = gather(problem)
    texts_of = [c.node.text for c, _, _ in signable(evidence, ConsensusRule())]
    assert "9" in texts_of and "16 - 3 - 4 = 9" in texts_of
    labels = {"9": "GOOD", "16 - 3 - 4 = 9": "FRAGMENT"}
    chosen = select(evidence, ConsensusRule(), signed=labels)
    assert {n.text for n in chosen.nodes} == {"9", "16 - 3 - 4 = 9"}
    rejected = select(evidence, ConsensusRule(), signed={**labels, "16 - 3 - 4 = 9": "ROUTE"})
    assert [n.text for n in rejected.nodes] == ["9"]  # only a duplicate comes along, never a rejected route
    [record] = build_records([problem], BuildConfig(signoffs={"t/3": Verdicts(labels)}))
    assert len(record["nodes"]) == 1 and record["provenance"]["signed"] is True


def test_the_writings_of_a_signed_value_pool_their_voices():
    """MATH-500 geometry/483: the reviewer signed the exterior angle ``24`` GOOD and its writings
    ``E = 24`` and ``x = 180 / 7.5`` duplicates; one voice writes the first, two the second. ``24``
    alone is a number too common to stand (the record shipped no node); its writings are one step
    that all three voices state, named by the one that states the value. A writing the reviewer
    labelled otherwise (ROUTE) stays out, and the other no longer reaches two voices."""
    texts = {"A": "Let E be the exterior angle. Then 6.5E + E = 180, which simplifies to 7.5E = 180. So E = 24 "
                  "degrees. The number of sides is 360/24 = 15.",
             "B": "Let x be the exterior angle: x + 6.5x = 180, so 7.5x = 180 and x = 180 / 7.5. The exterior angle "
                  "is 24 degrees, so n = 360/24 = 15.",
             "C": "With x the exterior angle, x + 6.5x = 180 gives x = 180 / 7.5, that is 24 degrees; the polygon has "
                  "360/24 = 15 sides."}
    problem = Problem("t/5", "t", "In a regular polygon, the measure of an interior angle is 6.5 times the measure "
                      "of an exterior angle. How many sides does the polygon have?", "15",
                      trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])
    evidence = gather(problem)
    labels = {"24": "GOOD", "E = 24": "FRAGMENT", "x = 180 / 7.5": "FRAGMENT"}
    step = {n.text: n for n in select(evidence, ConsensusRule(), signed=labels).nodes}["E = 24"]
    assert step.support == 1.0 and "x = 180 / 7.5" in step.forms and "x = \\frac{180}{7.5}" in step.forms
    rejected = select(evidence, ConsensusRule(), signed={**labels, "x = 180 / 7.5": "ROUTE"})
    assert [n.text for n in rejected.nodes] == ["24"]  # E = 24: one voice
    unsigned = select(evidence, ConsensusRule(), signed={"24": "GOOD", "x = 180 / 7.5": "FRAGMENT"})
    assert [n.text for n in unsigned.nodes] == ["24"]  # no read writing states 24 itself: nothing names the step


def test_a_merged_computation_is_signed_by_the_writing_the_reviewer_read():
    """MATH-500 number_theory/45: the reviewer proposed and signed the typeset factorisation, the
    voices write it with ``\\times``, and the build merges both into one step whose text is the
    voices' writing. The signature carries over to that step; the step's own label outweighs it."""
    texts = ["First, $6432 = 2^5 \\times 3 \\times 67$, so the divisors are ...",
             "We factor: 6432 = 2^5 \\times 3 \\times 67.", "Since 6432 = 2^5 \\times 3 \\times 67, we get ..."]
    problem = Problem("t/4", "t", "Find the sum of the digits of the greatest prime factor of 6432.", "13",
                      trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in zip("ABC", texts)])
    signed = {"6432 = 2^5 \\cdot 3 \\cdot 67": "GOOD"}
    evidence = gather(problem, None, proposed_nodes(Verdicts(signed, tuple(signed)), problem))
    [step] = [c.node for c in evidence.candidates if "6432" in c.node.text]  # one step, not two
    assert step.text == "6432 = 2^5 \\times 3 \\times 67" and "6432 = 2^5 \\cdot 3 \\cdot 67" in step.forms
    # the step ships under the writing the reviewer signed (every shipped text carries its verdict)
    assert [n.text for n in select(evidence, ConsensusRule(), signed=signed).nodes] == ["6432 = 2^5 \\cdot 3 \\cdot 67"]
    assert sheet_of(evidence, ConsensusRule(), unread=Verdicts(signed))[1] == []  # read: no unread row
    assert f"{step.text}  <GOOD>" in sheet_of(evidence, ConsensusRule(), verdicts=Verdicts(signed))[0]  # as built
    assert select(evidence, ConsensusRule(), signed={**signed, step.text: "ROUTE"}).nodes == []


def test_a_proposal_that_repeats_a_candidate_is_one_node():
    problem = _problem()
    evidence = gather(problem, None, proposed_nodes(Verdicts({"x = 7": "GOOD"}, ("x = 7",)), problem))
    assert [c.node.text for c in evidence.candidates].count("x = 7") == 2  # mined and proposed
    assert [n.text for n in select(evidence, ConsensusRule(), signed={"x = 7": "GOOD"}).nodes] == ["x = 7"]
    assert sheet_of(evidence, ConsensusRule())[1].count("x = 7") == 1  # and one row of a sheet


def test_a_mined_writing_and_the_signed_proposal_it_ships_under_are_one_node():
    """MATH-500 geometry/456: the miner reads the voices' spaced writing, the reviewer proposed and
    signed the unspaced one; the mined candidate takes the proposal's signature and text, and the
    record ships one node (two would count the same step twice), with the forms of both."""
    texts = ["The volume is $\\frac{4}{3} \\pi r^3$ and the area $4 \\pi r^2$, so $\\frac{4}{3} \\pi r^3 = 4 \\pi r^2$.",
             "Setting them equal: \\frac{4}{3} \\pi r^3 = 4 \\pi r^2, so r = 3.",
             "We need $\\frac{4}{3}\\pi r^3 = 4\\pi r^2$, hence $r = 3$."]
    problem = Problem("t/9", "t", "What is the radius of a sphere whose volume and surface area are numerically equal?",
                      "3", trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in zip("ABC", texts)])
    signed = {"\\frac{4}{3}\\pi r^3 = 4\\pi r^2": "GOOD"}
    evidence = gather(problem, None, proposed_nodes(Verdicts(signed, tuple(signed)), problem))
    assert len([c for c in evidence.candidates if "pi r^3" in c.node.text]) == 2  # mined and proposed
    [node] = select(evidence, ConsensusRule(), signed=signed).nodes
    assert node.text == "\\frac{4}{3}\\pi r^3 = 4\\pi r^2" and "\\frac{4}{3} \\pi r^3 = 4 \\pi r^2" in node.forms


def test_a_revision_changes_only_the_labels_it_names(tmp_path):
    from node_builder.signoff import import_answers

    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "t/1", "text": "x = 7", "label": "GOOD", "reviewer": "a"},
        {"id": "t/1", "text": "49", "label": "FRAGMENT", "reviewer": "a"},
        {"id": "t/1", "text": "7^2 = 49", "label": "ROUTE", "reviewer": "a"},
        {"id": "t/1", "text": "s = 7", "label": "GOOD", "reviewer": "a", "proposed": True},
        {"id": "t/2", "text": "12", "label": "GOOD", "reviewer": "a"}]))
    sheets = tmp_path / "rev"
    sheets.mkdir()
    (sheets / "candidates.json").write_text(json.dumps({"t/1": ["x = 7", "49", "7^2 = 49"], "t/2": ["12"]}))
    (sheets / "revise.json").write_text("true")
    answers = tmp_path / "a.txt"
    answers.write_text("t/1: 3G\nt/2:\n")
    summary = import_answers(sheets, [answers], "b", out)
    assert summary["revised"] == 1 and summary["good"] == 1
    verdicts = load_signoffs(out)
    assert verdicts["t/1"].labels == {"x = 7": "GOOD", "49": "FRAGMENT", "7^2 = 49": "GOOD", "s = 7": "GOOD"}
    assert verdicts["t/1"].proposed == ("s = 7",) and verdicts["t/2"].labels == {"12": "GOOD"}


def test_a_proposal_sheet_shows_several_voices_with_the_terse_ones_last():
    from node_builder.signoff import SHOWN_MIN_CHARS, proposal_block

    worked = "First, x + 3 = 10 gives x = 7 after subtracting 3 from both sides of the equation. " * 4
    texts = {"A": worked + "So 2x = 14.", "B": worked + "Doubling, 2x = 2 \\cdot 7 = 14, the answer.", "C": worked,
             "T": "```output 14``` The answer is \\boxed{14}."}
    problem = Problem("t/1", "t", "If $x + 3 = 10$, what is $2x$?", "14",
                      trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])
    assert len(texts["T"]) < SHOWN_MIN_CHARS <= len(texts["C"])
    block = proposal_block(problem, Verdicts({"x = 7": "GOOD"}, ()), solutions=3)
    shown = [line.split(": ", 1)[1] for line in block.splitlines() if line.startswith("SOLUTION OF MODEL")]
    assert shown == [" ".join(texts[v].split()) for v in "CAB"]  # shortest first, the terse run left out
    assert "SIGNED: x = 7" in block
    four = proposal_block(problem, None, solutions=4).splitlines()
    assert four[-2] == "SOLUTION OF MODEL 4: " + texts["T"] and four[-1] == "SIGNED: (none)"  # where nothing longer is left
    assert "A MODEL'S SOLUTION: " in proposal_block(problem, None)  # one voice: the sheet of the first pass


def test_proposals_add_to_the_earlier_ones(tmp_path):
    from node_builder.signoff import import_answers

    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "t/1", "text": "x = 7", "label": "GOOD", "reviewer": "a"},
        {"id": "t/1", "text": "49", "label": "FRAGMENT", "reviewer": "a"},
        {"id": "t/1", "text": "s = 7", "label": "GOOD", "reviewer": "a", "proposed": True}]))
    sheets = tmp_path / "prop"
    sheets.mkdir()
    (sheets / "proposals.json").write_text(json.dumps(["t/1", "t/2"]))
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "t/1", "propose": ["2x = 14", "49", "s = 7"]}\n{"id": "t/2", "propose": ["$y = 3$", "y = 3"]}\n')
    summary = import_answers(sheets, [answers], "b", out)
    assert summary == {"problems": 2, "proposed": 2, "conflicts": 1, "contested": 1, "file_verdicts": 5}
    verdicts = load_signoffs(out)
    assert verdicts["t/1"].proposed == ("s = 7", "2x = 14") and verdicts["t/1"].labels["49"] == "FRAGMENT"
    assert verdicts["t/2"].proposed == ("y = 3",)
    assert import_answers(sheets, [answers], "b", out)["proposed"] == 0  # importing twice changes nothing
    assert len(out.read_text().splitlines()) == 5
    # a proposal with the forms the solutions write it in; signed again with forms, it gains them
    answers.write_text('{"id": "t/2", "propose": [{"text": "y = 3", "forms": ["$3 = y$"]}, {"text": "y^2 = 9", '
                       '"forms": ["9 = y^2", "y^2 = 9"]}, {"text": "", "forms": ["3"]}]}\n')
    assert import_answers(sheets, [answers], "c", out)["proposed"] == 2
    verdicts = load_signoffs(out)
    assert verdicts["t/2"].proposed == ("y = 3", "y^2 = 9")
    assert verdicts["t/2"].forms == {"y = 3": ("3 = y",), "y^2 = 9": ("9 = y^2",)}
    assert import_answers(sheets, [answers], "c", out)["proposed"] == 0  # the same forms again add nothing
    with pytest.raises(SignoffError, match="a.jsonl:1: a proposal is a text or"):
        answers.write_text('{"id": "t/2", "propose": [{"text": "y = 3", "forms": "3 = y"}]}\n')
        import_answers(sheets, [answers], "c", out)


def test_proposals_a_second_reviewer_signed_carry_the_second_signature(tmp_path):
    """``second`` on a proposal import: the new proposal and an earlier GOOD proposal of the same
    text carry it (``Verdicts.second``); a text labelled a defect earlier stays out; a second
    reviewer with any other sheet is refused."""
    from node_builder.signoff import import_answers

    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "t/1", "text": "s = 7", "label": "GOOD", "reviewer": "a", "proposed": True},
        {"id": "t/1", "text": "49", "label": "FRAGMENT", "reviewer": "a"}]))
    sheets = tmp_path / "prop"
    sheets.mkdir()
    (sheets / "proposals.json").write_text(json.dumps(["t/1"]))
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "t/1", "propose": ["s = 7", "2x = 14", "49"]}\n')
    assert import_answers(sheets, [answers], "a+b", out, second="b")["conflicts"] == 1
    verdicts = load_signoffs(out)["t/1"]
    assert verdicts.second == {"s = 7", "2x = 14"} and verdicts.labels["49"] == "FRAGMENT"
    revision = tmp_path / "rev"
    revision.mkdir()
    (revision / "candidates.json").write_text(json.dumps({"t/1": ["s = 7"]}))
    with pytest.raises(SignoffError, match="goes with a proposal sheet"):
        import_answers(revision, [answers], "c", out, second="b")


def test_sheets_of_listed_problems_only(tmp_path):
    sources = ["--source", f"gsm8k:{GSM8K / 'test.jsonl'}"]
    (tmp_path / "v.jsonl").write_text("")
    ids = tmp_path / "ids.txt"
    ids.write_text("# the thin ones\ngsm8k/test/2\n\n")
    made = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "prop", "--propose", "v.jsonl",
                "--solutions", "2", "--only", str(ids), "--quiet", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert json.loads((tmp_path / "prop" / "proposals.json").read_text()) == ["gsm8k/test/2"]
    assert (tmp_path / "prop" / "propose1.md").read_text().startswith("### gsm8k/test/2\n")
    (tmp_path / "empty.txt").write_text("# nothing\n")
    made = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "labels", "--only", str(ids),
                "--quiet", cwd=tmp_path)  # label (and unread, revision) sheets are narrowed the same way
    assert made.returncode == 0, made.stderr
    assert list(json.loads((tmp_path / "labels" / "candidates.json").read_text())) == ["gsm8k/test/2"]
    for extra, message in [(["--solutions", "2"], "--solutions is for proposal sheets"),
                           (["--forms", "v.jsonl", "--only", str(ids)], "--only narrows label, unread"),
                           (["--propose", "v.jsonl", "--only", "missing.txt"], "--only missing.txt: "),
                           (["--propose", "v.jsonl", "--only", "empty.txt"], "--only empty.txt: no problem id")]:
        refused = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "p2", *extra, "--quiet",
                       cwd=tmp_path)
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr


def test_an_unread_sheet_lists_only_what_no_verdict_labels_and_merges_like_a_revision(tmp_path):
    from node_builder.signoff import import_answers

    evidence = gather(_problem())
    texts = [c.node.text for c, _, _ in signable(evidence, ConsensusRule())]
    read = Verdicts({text_key(texts[0]): "GOOD"}, ())
    block, unread = sheet_of(evidence, ConsensusRule(), unread=read)
    assert unread == texts[1:] and f"SIGNED: {texts[0]}" in block and f"1. [" in block
    assert sheet_of(evidence, ConsensusRule(), limit=1, unread=read)[1] == texts[1:2]  # the limit counts unread ones
    out = tmp_path / "v.jsonl"
    out.write_text(json.dumps({"id": "t/1", "text": texts[0], "label": "GOOD", "reviewer": "a"}) + "\n")
    sheets = tmp_path / "u"
    sheets.mkdir()
    (sheets / "candidates.json").write_text(json.dumps({"t/1": unread}))
    (sheets / "revise.json").write_text("true")
    answers = tmp_path / "a.txt"
    answers.write_text("t/1: " + " ".join(f"{i}F" for i in range(1, len(unread) + 1)) + "\n")
    import_answers(sheets, [answers], "b", out)
    labels = load_signoffs(out)["t/1"].labels
    assert labels[texts[0]] == "GOOD" and all(labels[t] == "FRAGMENT" for t in unread)  # the earlier verdict stays


def test_sheet_kinds_are_exclusive(tmp_path):
    (tmp_path / "v.jsonl").write_text("")
    refused = _cli("signoff-sheet", "--benchmark", "gsm8k", "--source", f"gsm8k:{GSM8K / 'test.jsonl'}", "--out-dir",
                   "s", "--unread", "v.jsonl", "--revise", "v.jsonl", "--quiet", cwd=tmp_path)
    assert refused.returncode == 2 and "--revise, --unread, --propose, --forms, --disputes and --appeal are different" \
        in refused.stderr
    refused = _cli("signoff-sheet", "--benchmark", "gsm8k", "--source", f"gsm8k:{GSM8K / 'test.jsonl'}", "--out-dir",
                   "s", "--shipped", "v.jsonl", "--quiet", cwd=tmp_path)
    assert refused.returncode == 2 and "--shipped DATA.jsonl narrows revision sheets" in refused.stderr
    (tmp_path / "bad.jsonl").write_text('{"id": 3}\n')
    for shipped, message in [("missing.jsonl", "--shipped missing.jsonl: no such file"),
                             ("bad.jsonl", "--shipped bad.jsonl:1: not a node record")]:
        refused = _cli("signoff-sheet", "--benchmark", "gsm8k", "--source", f"gsm8k:{GSM8K / 'test.jsonl'}",
                       "--out-dir", "s", "--revise", "v.jsonl", "--shipped", shipped, "--quiet", cwd=tmp_path)
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr


def _sum_problem():
    texts = {"A": "We add: $1 + 2 + \\dots + 10 = 55$, and $55 = 6 \\cdot 9 + 1$, so the remainder is 1.",
             "B": "The sum is $\\frac{10 \\cdot 11}{2} = 55$, which leaves a remainder of $\\boxed{1}$.",
             "C": "Here $S = \\frac{10 \\cdot 11}{2} = 55$ and 55 mod 9 is 1."}
    return Problem("t/3", "t", "What is the remainder when $1 + 2 + 3 + \\dots + 10$ is divided by 9?", "1",
                   trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])


SUM = "1 + 2 + \\dots + 10 = 55"


def test_written_in_forms_let_a_proposal_ship_where_the_voices_write_it_their_way():
    """One voice writes the sum as the reviewer did, two as n(n+1)/2: the forms sheet's answer
    joins their form to the proposal, and the proposal ships with all three voices."""
    from node_builder.llm_extractor import node_of_text

    problem, rule = _sum_problem(), ConsensusRule()
    bare = Verdicts({SUM: "GOOD"}, (SUM,))
    assert select(gather(problem, None, proposed_nodes(bare, problem)), rule, signed=bare.labels).nodes == []
    offered = ("\\frac{10 \\cdot 11}{2} &= 55",  # the same result (an aligned line's mark goes): kept
               "10 \\cdot 11 = 110",            # a step before it (another value)
               "55",                            # a bare number for an equation
               "55 = 6 \\cdot 9 + 1",           # a candidate the reviewer judged on its own
               "\\frac{10 \\cdot 11}{2} =")     # a fragment (a refine rule drops it)
    labels = {SUM: "GOOD", "55 = 6 \\cdot 9 + 1": "ROUTE",
              "\\frac{10 \\cdot 11}{2} = 55": "FRAGMENT"}  # the mined computation, judged a duplicate of the sum
    verdicts = Verdicts(labels, (SUM,), {SUM: offered})
    node, = proposed_nodes(verdicts, problem)
    assert set(node.forms) - set(node_of_text(SUM).forms) == set(node_of_text("\\frac{10 \\cdot 11}{2} = 55").forms)
    chosen = select(gather(problem, None, [node]), rule, signed=verdicts.labels)
    assert [(n.text, n.support) for n in chosen.nodes] == [(SUM, 1.0)]
    assert chosen.nodes[0].forms == node.forms  # the shipped node carries them: held-out solutions match them too


def test_with_one_solver_the_proposal_its_solutions_share_is_the_candidate():
    """One solver (three AoPS write-ups, one voice): only one writes the sum as the reviewer did,
    so the mined candidate of that text is one solution's; the proposal with the written-in
    form is all three's, and of the two (same text, same one voice) it is the one that ships
    (AIME 2024-I-8's setup results were lost this way)."""
    problem = _sum_problem()
    for trajectory in problem.trajectories:
        trajectory.source, trajectory.voice = "aops", "reference"
    labels = {SUM: "GOOD", "55 = 6 \\cdot 9 + 1": "ROUTE", "\\frac{10 \\cdot 11}{2} = 55": "FRAGMENT"}
    verdicts = Verdicts(labels, (SUM,), {SUM: ("\\frac{10 \\cdot 11}{2} = 55",)})
    evidence = gather(problem, None, proposed_nodes(verdicts, problem))
    assert [c.node.text for c in evidence.candidates].count(SUM) == 2  # mined (one solution) and proposed
    chosen = select(evidence, ConsensusRule(), signed=verdicts.labels)
    assert [(n.text, n.support) for n in chosen.nodes] == [(SUM, 1.0)] and chosen.single_voice
    alone = select(gather(problem), ConsensusRule(), signed=verdicts.labels)  # without the written-in form
    assert alone.nodes == [] and alone.stats["below_support"] == 1


def test_a_proposal_written_as_a_chain_is_stated_by_each_of_its_links():
    """MATH-500 number_theory/46: the reviewer wrote ``58_9 = 5 \\cdot 9 + 8 = 53`` (a chain); the
    voices write ``58_9 = 53`` or the computation ``(5 \\times 9^1) + (8 \\times 9^0) = 53``, never
    the chain. As a chain of computation its links are its forms (kind ``equation``), so those
    voices state it; a link the verdicts judge on their own keeps its word, and a chain of
    symbols (``AB = AC = 8``) or a list stays whole."""
    from node_builder.signoff import computation_chain

    chain = "58_9 = 5 \\cdot 9 + 8 = 53"
    texts = {"A": "Convert: $58_9 = (5 \\times 9^1) + (8 \\times 9^0) = 45 + 8 = 53$, and $18_9 = 17$.",
             "B": "So \\(58_9 = 53_{10}\\) and \\(18_9 = 17_{10}\\). Then $53 - 17 = 36$, which is $40_9$.",
             "C": "We have $5 \\cdot 9 + 8 = 53$ and $1 \\cdot 9 + 8 = 17$; the difference is $\\boxed{40_9}$."}
    problem = Problem("t/46", "t", "Compute $58_9 - 18_9.$ Express your answer in base $9.$", "40_9",
                      trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])
    verdicts = Verdicts({chain: "GOOD"}, (chain,))
    node, = proposed_nodes(verdicts, problem)
    assert node.kind == "equation" and {"58_9 = 53", "5 \\cdot 9 + 8 = 53"} <= set(node.forms)
    chosen = select(gather(problem, None, [node]), ConsensusRule(), signed=verdicts.labels)
    assert [(n.text, n.support) for n in chosen.nodes] == [(chain, 1.0)]
    judged = Verdicts({chain: "GOOD", "58_9 = 53": "ROUTE"}, (chain,))  # that link keeps its word
    assert "58_9 = 53" not in proposed_nodes(judged, problem)[0].forms
    assert not computation_chain("AB = AC = 8") and not computation_chain("441 = 21^2,\\ 361 = 19^2")
    assert proposed_nodes(Verdicts({"AB = AC = 8": "GOOD"}, ("AB = AC = 8",)), problem)[0].kind == "expression"


def test_written_in_forms_read_through_implications_and_never_as_one_number_evaluated():
    """MATH-500 geometry/802 and algebra/114 (forms copied from the voices): a form that runs on
    through ``=>`` is its statements in turn (before, its ``=`` split it into false equations such
    as ``altitude^2 + 3^2 = 4``), and ``8^2 = 64`` -- true in any text, met in 31 of 2,994
    solutions of other MATH-500 problems -- does not stand for ``a^2 = 8^2 = 64``."""
    from node_builder.signoff import evaluates_one_number

    problem = Problem("t/802", "t", "What is the area of a triangle with sides 5, 5 and 6?", "12",
                      trajectories=[Trajectory("The height is $h = \\sqrt{5^2 - 3^2} = 4$, so the area is 12.",
                                               "model:A", True, voice="A")])
    chain = "h = \\sqrt{5^2 - 3^2} = 4"
    written = ("altitude^2 + 3^2 = 5^2 => altitude^2 + 9 = 25 => altitude^2 = 16 => altitude = 4", "h = 4")
    node, = proposed_nodes(Verdicts({chain: "GOOD"}, (chain,), {chain: written}), problem)
    assert "altitude = 4" in node.forms and "h = 4" in node.forms
    assert not any(form.startswith(("altitude^2 + 3^2 = 4", "25 ")) or "=>" in form for form in node.forms)
    power = "a^2 = 8^2 = 64"
    node, = proposed_nodes(Verdicts({power: "GOOD"}, (power,), {power: ("8² = 64", "8^2 = 64")}), problem)
    assert "a^2 = 64" in node.forms and not any(evaluates_one_number(form) for form in node.forms)


@pytest.mark.parametrize("row, message", [
    ({"id": "t/1", "text": "7", "label": "GOOD", "forms": ["7"]}, "v.jsonl:2: 'forms' belong to a proposed key result"),
    ({"id": "t/1", "text": "7", "label": "GOOD", "proposed": True, "forms": "7"}, "v.jsonl:2: 'forms' belong"),
    ({"id": "t/1", "text": "7", "label": "GOOD", "proposed": True, "forms": [""]}, "1 to 400 characters"),
])
def test_forms_in_a_verdict_file_belong_to_a_proposal(tmp_path, row, message):
    path = tmp_path / "v.jsonl"
    path.write_text('{"id": "t/1", "text": "x = 7", "label": "GOOD"}\n' + json.dumps(row) + "\n")
    with pytest.raises(SignoffError, match=message):
        load_signoffs(path)


def test_the_forms_round_trip(tmp_path):
    """The sheet lists a proposal too few voices state, with each voice's closest line; the
    answers add forms to that proposal's verdict line (and name who wrote them)."""
    from node_builder.signoff import forms_block, forms_from_lines, import_answers

    problem = _sum_problem()
    verdicts = Verdicts({SUM: "GOOD"}, (SUM,))
    block = forms_block(gather(problem, None, proposed_nodes(verdicts, problem)), [SUM], [1])
    assert block.startswith("### t/3\nPROBLEM: ") and f"P1. {SUM}    [the matcher finds it in 1 of 3 voices]" in block
    assert "  B: The sum is $\\frac{10 \\cdot 11}{2} = 55$, which leaves a remainder of $\\boxed{1}$." in block
    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "t/3", "text": SUM, "label": "GOOD", "reviewer": "a", "proposed": True},
        {"id": "t/3", "text": "55", "label": "FRAGMENT", "reviewer": "a"}]))
    sheets = tmp_path / "f"
    sheets.mkdir()
    (sheets / "forms.json").write_text(json.dumps({"t/3": [SUM], "t/4": ["y = 2"]}))
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "t/3", "forms": {"P1": ["$\\\\frac{10 \\\\cdot 11}{2} = 55$", "' + SUM.replace("\\", "\\\\")
                       + '"]}}\n{"id": "t/4", "forms": {"P1": ["2y = 4"]}}\n')
    assert import_answers(sheets, [answers], "f1", out) == {"proposals": 1, "forms": 1, "missing": 1, "file_verdicts": 2}
    row = json.loads(out.read_text().splitlines()[0])
    assert row["forms"] == ["\\frac{10 \\cdot 11}{2} = 55"] and row["forms_reviewer"] == "f1"
    assert load_signoffs(out)["t/3"].forms == {SUM: ("\\frac{10 \\cdot 11}{2} = 55",)}
    assert import_answers(sheets, [answers], "f1", out)["forms"] == 0  # importing twice changes nothing
    # a later sheet's reviewer who adds nothing is not named; one who adds a form is named after f1
    assert import_answers(sheets, [answers], "f2", out)["forms"] == 0
    assert json.loads(out.read_text().splitlines()[0])["forms_reviewer"] == "f1"
    more = tmp_path / "b.jsonl"
    more.write_text(json.dumps({"id": "t/3", "forms": {"P1": ["55 = \\frac{10 \\cdot 11}{2}"]}}) + "\n")
    assert import_answers(sheets, [more], "f3", out)["forms"] == 1
    row = json.loads(out.read_text().splitlines()[0])
    assert row["forms_reviewer"] == "f1+f3" and row["forms"][0] == "\\frac{10 \\cdot 11}{2} = 55"
    for line, message in [('{"id": "t/3", "forms": {"P2": []}}', "f:1: 'P2' is none of t/3's P1..P1"),
                          ('{"id": "t/3", "forms": ["x"]}', "f:1: 'forms' must map P1"),
                          ('{"id": "t/3", "forms": {"P1": "x"}}', "f:1: P1 must be a list of texts"),
                          ('{"id": "t/5", "forms": {}}', "f:1: no sheet problem 't/5'")]:
        with pytest.raises(SignoffError, match=message):
            forms_from_lines([line], {"t/3": [SUM]}, "f")


def test_a_second_signature_reads_only_the_shipped_nodes_without_their_labels(tmp_path):
    """Revision sheets of what ships (``--shipped``): only the record's nodes, no label in view;
    an answer that restates a label changes nothing (a proposal stays one), another removes it."""
    from node_builder.signoff import import_answers

    evidence = gather(_problem())
    texts = [c.node.text for c, _, _ in signable(evidence, ConsensusRule())]
    block, shown = sheet_of(evidence, ConsensusRule(), only={text_key(texts[1])})
    assert shown == [texts[1]] and "<GOOD>" not in block and "UNREAD" not in block
    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "t/1", "text": "x = 7", "label": "GOOD", "reviewer": "a"},
        {"id": "t/1", "text": "s = 7", "label": "GOOD", "reviewer": "a", "proposed": True, "forms": ["7 = s"]}]))
    sheets = tmp_path / "second"
    sheets.mkdir()
    (sheets / "candidates.json").write_text(json.dumps({"t/1": ["x = 7", "s = 7"]}))
    (sheets / "revise.json").write_text("true")
    answers = tmp_path / "a.txt"
    answers.write_text("t/1: 1G 2G\n")
    assert import_answers(sheets, [answers], "b", out)["revised"] == 0
    assert load_signoffs(out)["t/1"] == Verdicts({"x = 7": "GOOD", "s = 7": "GOOD"}, ("s = 7",), {"s = 7": ("7 = s",)})
    answers.write_text("t/1: 2F\n")
    assert import_answers(sheets, [answers], "b", out)["revised"] == 1
    assert load_signoffs(out)["t/1"] == Verdicts({"x = 7": "GOOD", "s = 7": "FRAGMENT"}, ())


def _pails_problem():
    """GSM8K test/200 in the voices' own writing: ``5 x 5 = 25`` (a first sheet's reviewer called
    it ROUTE; a later reviewer proposed and signed ``5 \\times 5 = 25``)."""
    texts = {"dbrx": "In the morning he gets 5 x 5 = 25 liters. In the afternoon 6 x 5 = 30 liters. 25 + 30 = 55.",
             "gpt-4": "Morning: 5 x 5 = 25 liters, afternoon: 6 x 5 = 30 liters, so 55 liters a day.",
             "gpt-3.5-turbo": "He gets 5 x 5 = 25 liters and 6 x 5 = 30 liters, 55 in total."}
    return Problem("t/200", "t", "Baldur gets 5 pails of water every morning and 6 pails every afternoon. If each pail "
                   "contains 5 liters of water, how many liters of water does he get every day?", "55",
                   trajectories=[Trajectory(t, f"model:{v}", True, voice=v) for v, t in texts.items()])


def test_a_proposal_of_a_text_labelled_a_defect_contests_it_before_a_third_reviewer(tmp_path):
    """A first reviewer labelled ``5 x 5 = 25`` ROUTE; a later reviewer proposes that very text as
    a key result. The proposal is left out (one label per text) but the verdict is marked
    ``contested`` by its proposer, so the dispute sheet lists it; the third reviewer's GOOD
    settles it with the proposer as second signature, and the node ships. A settled label is
    not contested, and the build reads a contested defect as the defect until then."""
    from node_builder.signoff import disputed, import_answers

    problem = _pails_problem()
    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "t/200", "text": "5 x 5 = 25", "label": "ROUTE", "reviewer": "a"},
        {"id": "t/200", "text": "6 x 5 = 30", "label": "ROUTE", "reviewer": "a", "settled": True}]))
    proposals = tmp_path / "p"
    proposals.mkdir()
    (proposals / "proposals.json").write_text(json.dumps(["t/200"]))
    (tmp_path / "p.jsonl").write_text('{"id": "t/200", "propose": ["5 x 5 = 25", "6 x 5 = 30"]}\n')
    summary = import_answers(proposals, [tmp_path / "p.jsonl"], "b", out)
    assert summary == {"problems": 0, "proposed": 0, "conflicts": 2, "contested": 1, "file_verdicts": 2}
    verdicts = load_signoffs(out)["t/200"]
    assert verdicts.contested == {"5 x 5 = 25"} and verdicts.labels["5 x 5 = 25"] == "ROUTE"
    evidence = gather(problem, None, proposed_nodes(verdicts, problem))
    assert select(evidence, ConsensusRule(), signed=verdicts.labels).nodes == []
    found = disputed(evidence, ConsensusRule(), verdicts.labels, settled=verdicts.settled,
                     contested=verdicts.contested)
    assert [(c.node.text, w) for c, _, _, w in found] == [("5 x 5 = 25", ("5 x 5 = 25",))]
    assert disputed(evidence, ConsensusRule(), verdicts.labels, settled=verdicts.settled) == []

    sheets = tmp_path / "d"
    sheets.mkdir()
    (sheets / "disputes.json").write_text(json.dumps({"t/200": [["5 x 5 = 25"]]}))
    (tmp_path / "a.txt").write_text("t/200: 1G\n")
    assert import_answers(sheets, [tmp_path / "a.txt"], "c", out)["good"] == 1
    settled = load_signoffs(out)["t/200"]
    assert settled.labels["5 x 5 = 25"] == "GOOD" and settled.second == {"5 x 5 = 25"}
    assert settled.contested == frozenset() and "5 x 5 = 25" in settled.settled
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {"id": "t/200", "text": "5 x 5 = 25", "label": "GOOD", "reviewer": "c", "settled": True,
            "second": "b"} in rows
    assert [n.text for n in select(evidence, ConsensusRule(), signed=settled.labels).nodes] == ["5 x 5 = 25"]
    out.write_text('{"id": "t/200", "text": "5 x 5 = 25", "label": "GOOD", "reviewer": "a", "contested": "b"}\n')
    with pytest.raises(SignoffError, match="v.jsonl:1: 'contested' names the reviewer who proposed a text labelled"):
        load_signoffs(out)


def test_a_third_reviewer_settles_a_disputed_candidate_for_all_its_writings(tmp_path):
    """Two reviewers disagree on one result written two ways: the build reads the defect (the
    candidate's own writing's ROUTE) and ships nothing. The dispute sheet shows it without labels;
    the third reviewer's GOOD labels every writing (the proposal keeps its line), and the node
    ships; a defect instead removes the proposal. A FRAGMENT (a duplicate) beside a GOOD is no
    dispute, on whichever writing: the build reads the GOOD; one verdict alone is none."""
    from node_builder.signoff import dispute_block, disputed, import_answers

    problem = _pails_problem()
    rows = [{"id": "t/200", "text": "5 x 5 = 25", "label": "ROUTE", "reviewer": "a"},
            {"id": "t/200", "text": "6 x 5 = 30", "label": "ROUTE", "reviewer": "a"},
            {"id": "t/200", "text": "5 \\times 5 = 25", "label": "GOOD", "reviewer": "b", "proposed": True,
             "forms": ["5 \\cdot 5 = 25"]}]
    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    verdicts = load_signoffs(out)["t/200"]
    evidence = gather(problem, None, proposed_nodes(verdicts, problem))
    assert "25" not in " ".join(n.text for n in select(evidence, ConsensusRule(), signed=verdicts.labels).nodes)
    found = disputed(evidence, ConsensusRule(), verdicts.labels)
    assert [(c.node.text, k, n, w) for c, k, n, w in found] == [("5 x 5 = 25", 3, 3, ("5 x 5 = 25", "5 \\times 5 = 25"))]
    block = dispute_block(evidence, found, verdicts.labels)
    assert "1. [3/3] 5 x 5 = 25  (also written: 5 \\times 5 = 25)    | ..." in block
    assert "ROUTE" not in block and "GOOD" not in block and "SIGNED: (none)" in block
    assert disputed(evidence, ConsensusRule(), {"5 x 5 = 25": "FRAGMENT", "5 \\times 5 = 25": "GOOD"}) == []
    assert disputed(evidence, ConsensusRule(), {"5 x 5 = 25": "GOOD", "5 \\times 5 = 25": "FRAGMENT"}) == []
    assert disputed(evidence, ConsensusRule(), {"5 x 5 = 25": "ROUTE"}) == []
    assert disputed(evidence, ConsensusRule(), verdicts.labels, settled=frozenset({"5 x 5 = 25"})) == []  # decided

    sheets = tmp_path / "d"
    sheets.mkdir()
    (sheets / "disputes.json").write_text(json.dumps({"t/200": [list(found[0][3])]}))
    answers = tmp_path / "a.txt"
    answers.write_text("t/200: 1G\n")
    assert import_answers(sheets, [answers], "c", out) == {"problems": 1, "relabelled": 1, "good": 1, "panel_heard": 0,
                                                                "file_verdicts": 3}
    settled = load_signoffs(out)["t/200"]
    assert settled.labels["5 x 5 = 25"] == "GOOD" and settled.forms == {"5 \\times 5 = 25": ("5 \\cdot 5 = 25",)}
    assert settled.labels["6 x 5 = 30"] == "ROUTE"  # not on the sheet: untouched
    shipped = select(evidence, ConsensusRule(), signed=settled.labels).nodes
    assert [n.text for n in shipped] == ["5 x 5 = 25"]

    answers.write_text("t/200: 1R\n")
    assert import_answers(sheets, [answers], "c", out)["relabelled"] == 2
    overruled = load_signoffs(out)["t/200"]
    assert overruled.proposed == () and set(overruled.labels.values()) == {"ROUTE"}
    several = []  # several readers of one sheet: their majority, one verdict per writing
    for i, answer in enumerate(("1G", "1G", "1R")):
        several.append(tmp_path / f"r{i}.txt")
        several[-1].write_text(f"t/200: {answer}\n")
    assert import_answers(sheets, several, "c", out)["good"] >= 1
    assert load_signoffs(out)["t/200"].labels["5 x 5 = 25"] == "GOOD"
    with pytest.raises(SignoffError, match="'2G' is no NUMBER"):
        answers.write_text("t/200: 2G\n")
        import_answers(sheets, [answers], "c", out)


def test_the_dispute_round_trip_on_real_gsm8k_solutions(tmp_path):
    """GSM8K test/3 as the shipped verdicts had it: the solutions' ``3*3=9`` labelled ROUTE on a
    first sheet, ``3 \\times 3 = 9`` proposed and signed GOOD later. The build reads the defect;
    ``--disputes`` lists the step for a third reviewer, whose GOOD makes it a node."""
    sources = ["--source", f"gsm8k:{GSM8K / 'test.jsonl'}", "--source", f"gsm8k-socratic:{GSM8K / 'test_socratic.jsonl'}"]
    (tmp_path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "gsm8k/test/3", "text": "3*3=9", "label": "ROUTE", "reviewer": "a"},
        {"id": "gsm8k/test/3", "text": "9", "label": "FRAGMENT", "reviewer": "a"},
        {"id": "gsm8k/test/3", "text": "3 \\times 3 = 9", "label": "GOOD", "reviewer": "b", "proposed": True}]))

    def build(name):
        return _built_record(tmp_path, name, sources, "gsm8k/test/3")

    assert build("before")["nodes"] == []
    sheet = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "d", "--disputes", "v.jsonl",
                 "--quiet", cwd=tmp_path)
    assert sheet.returncode == 0, sheet.stderr
    listed = json.loads((tmp_path / "d" / "disputes.json").read_text())
    assert listed == {"gsm8k/test/3": [["3*3=9", "3 \\times 3 = 9"]]}
    shown = (tmp_path / "d" / "disputes1.md").read_text()
    assert "1. [" in shown and "ROUTE" not in shown
    (tmp_path / "a.txt").write_text("gsm8k/test/3: 1G\n")
    imported = _cli("signoff-import", "--sheet-dir", "d", "--answers", "a.txt", "--reviewer", "c", "--out", "v.jsonl",
                    cwd=tmp_path)
    assert imported.returncode == 0 and json.loads(imported.stderr)["good"] == 1, imported.stderr
    assert [n["text"] for n in build("after")["nodes"]] == ["3*3=9"]


def test_an_audit_that_outvotes_the_signature_sends_the_node_to_a_third_reviewer():
    """An independent audit of the shipped node that labels it a defect more often than GOOD ties
    the signature (one GOOD against at least one defect): the node is disputed. An audit split
    one to one leaves two GOOD against one; a writing a third reviewer labelled is settled."""
    from node_builder.signoff import disputed

    problem = _pails_problem()
    signed = {"5 x 5 = 25": "GOOD", "6 x 5 = 30": "GOOD"}
    evidence = gather(problem)
    found = disputed(evidence, ConsensusRule(), signed, {"5 x 5 = 25": ["ROUTE"]})
    assert [(c.node.text, w) for c, _, _, w in found] == [("5 x 5 = 25", ("5 x 5 = 25",))]
    assert disputed(evidence, ConsensusRule(), signed, {"5 x 5 = 25": ["ROUTE", "GOOD"]}) == []
    assert [c.node.text for c, *_ in disputed(evidence, ConsensusRule(), signed,
                                               {"5 x 5 = 25": ["ROUTE", "ANSWER", "GOOD"]})] == ["5 x 5 = 25"]
    assert disputed(evidence, ConsensusRule(), signed, {"5 x 5 = 25": ["ROUTE"]}, frozenset({"5 x 5 = 25"})) == []
    assert disputed(evidence, ConsensusRule(), {"5 x 5 = 25": "ROUTE"}, {"5 x 5 = 25": ["ROUTE"]}) == []


def test_the_audit_dispute_round_trip_on_real_gsm8k_solutions(tmp_path):
    """GSM8K test/3 with ``3*3=9`` signed GOOD and shipped; an audit file labels the shipped node
    ROUTE (and a node that no longer ships GOOD, which counts for nothing). ``--disputes --audit
    --shipped`` lists it; the third reviewer's ROUTE removes it from the build and settles it: the
    next dispute sheet lists nothing. ``--audit`` alone, or an audit row without a label, is one
    line naming the problem."""
    sources = ["--source", f"gsm8k:{GSM8K / 'test.jsonl'}", "--source", f"gsm8k-socratic:{GSM8K / 'test_socratic.jsonl'}"]
    (tmp_path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "gsm8k/test/3", "text": "3*3=9", "label": "GOOD", "reviewer": "a"},
        {"id": "gsm8k/test/3", "text": "9", "label": "FRAGMENT", "reviewer": "a"}]))
    (tmp_path / "audit.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"benchmark": "gsm8k", "record": "gsm8k/test/3", "node": "3*3=9", "label": "ROUTE", "sample": "seed 1"},
        {"benchmark": "gsm8k", "record": "gsm8k/test/3", "node": "3*3 = 9", "label": "GOOD", "sample": "seed 0"}]))

    def build(name):
        return _built_record(tmp_path, name, sources, "gsm8k/test/3")

    def sheet(out_dir):
        done = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", out_dir, "--disputes", "v.jsonl",
                    "--audit", "audit.jsonl", "--shipped", "before.jsonl", "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return json.loads((tmp_path / out_dir / "disputes.json").read_text())

    assert [n["text"] for n in build("before")["nodes"]] == ["3*3=9"]
    assert sheet("d") == {"gsm8k/test/3": [["3*3=9"]]}
    assert "ROUTE" not in (tmp_path / "d" / "disputes1.md").read_text()
    (tmp_path / "a.txt").write_text("gsm8k/test/3: 1R\n")
    imported = _cli("signoff-import", "--sheet-dir", "d", "--answers", "a.txt", "--reviewer", "c", "--out", "v.jsonl",
                    cwd=tmp_path)
    assert imported.returncode == 0 and json.loads(imported.stderr)["relabelled"] == 1, imported.stderr
    assert load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/3"].settled == {"3*3=9"}
    assert build("after")["nodes"] == []
    assert sheet("d2") == {}

    alone = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "d3", "--disputes", "v.jsonl",
                 "--audit", "audit.jsonl", cwd=tmp_path)
    assert alone.returncode == 2 and "give --shipped DATA.jsonl and --disputes VERDICTS.jsonl" in alone.stderr
    (tmp_path / "audit.jsonl").write_text('{"record": "gsm8k/test/3", "node": "3*3=9"}\n')
    bad = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "d4", "--disputes", "v.jsonl",
               "--audit", "audit.jsonl", "--shipped", "before.jsonl", cwd=tmp_path)
    assert bad.returncode == 2 and "audit.jsonl:1: an audit verdict needs string fields record, node and label" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_a_third_reviewer_confirming_a_good_keeps_its_second_signature(tmp_path):
    """GSM8K test/3's ``3*3=9`` carries two GOOD signatures (``second: b``) and the audits label
    it ROUTE twice: ``--disputes --audit --shipped`` lists it, and the third reviewer's GOOD settles
    it without losing the second signature (the node still has two readers' GOOD)."""
    sources = ["--source", f"gsm8k:{GSM8K / 'test.jsonl'}", "--source", f"gsm8k-socratic:{GSM8K / 'test_socratic.jsonl'}"]
    (tmp_path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "gsm8k/test/3", "text": "3*3=9", "label": "GOOD", "reviewer": "a", "second": "b"},
        {"id": "gsm8k/test/3", "text": "9", "label": "FRAGMENT", "reviewer": "a"}]))
    (tmp_path / "audit.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"benchmark": "gsm8k", "record": "gsm8k/test/3", "node": "3*3=9", "label": "ROUTE", "sample": f"seed {seed}"}
        for seed in (1, 2)]))
    _built_record(tmp_path, "before", sources, "gsm8k/test/3")
    done = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "d", "--disputes", "v.jsonl",
                "--audit", "audit.jsonl", "--shipped", "before.jsonl", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "d" / "disputes.json").read_text()) == {"gsm8k/test/3": [["3*3=9"]]}
    (tmp_path / "a.txt").write_text("gsm8k/test/3: 1G\n")
    imported = _cli("signoff-import", "--sheet-dir", "d", "--answers", "a.txt", "--reviewer", "c", "--out", "v.jsonl",
                    cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    rows = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert {"id": "gsm8k/test/3", "text": "3*3=9", "label": "GOOD", "reviewer": "c", "settled": True,
            "second": "b"} in rows
    verdicts = load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/3"]
    assert verdicts.settled == {"3*3=9"} and verdicts.second == {"3*3=9"}


GSM8K_SOURCES = ["--source", f"gsm8k:{GSM8K / 'test.jsonl'}", "--source", f"gsm8k-socratic:{GSM8K / 'test_socratic.jsonl'}"]


def _write_rows(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _audit_dispute_sheet(tmp_path, out_dir: str, audits: list[str]) -> dict:
    """The ``disputes.json`` of a dispute sheet of ``v.jsonl`` when audits with ``audits`` as
    labels read GSM8K test/3's shipped ``3*3=9`` (in ``before.jsonl``)."""
    _write_rows(tmp_path / "audit.jsonl", [{"benchmark": "gsm8k", "record": "gsm8k/test/3", "node": "3*3=9",
                                            "label": label, "sample": f"seed {i}"} for i, label in enumerate(audits)])
    done = _cli("signoff-sheet", "--benchmark", "gsm8k", *GSM8K_SOURCES, "--out-dir", out_dir, "--disputes", "v.jsonl",
                "--audit", "audit.jsonl", "--shipped", "before.jsonl", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads((tmp_path / out_dir / "disputes.json").read_text())


def test_a_settled_good_the_audits_overturn_is_heard_once_more(tmp_path):
    """GSM8K test/3's ``3*3=9`` was settled GOOD by a third reviewer. Four audits labelling the
    shipped node ROUTE leave it settled, and so do five of which two sign it; five of which four
    call it a defect send it to one more reader without its label. That reader's ROUTE removes it and marks it ``reopened``; no later sheet
    lists it again, however many audits follow. A reopened GOOD stays GOOD and is not heard again
    either."""
    sources = GSM8K_SOURCES

    def write(name, rows):
        _write_rows(tmp_path / name, rows)

    def sheet(out_dir, audits):
        return _audit_dispute_sheet(tmp_path, out_dir, audits)

    def hear(out_dir, answer):
        (tmp_path / "a.txt").write_text(f"gsm8k/test/3: 1{answer}\n")
        done = _cli("signoff-import", "--sheet-dir", out_dir, "--answers", "a.txt", "--reviewer", "d",
                    "--out", "v.jsonl", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/3"]

    settled = [{"id": "gsm8k/test/3", "text": "3*3=9", "label": "GOOD", "reviewer": "c", "settled": True},
               {"id": "gsm8k/test/3", "text": "9", "label": "FRAGMENT", "reviewer": "a"}]
    write("v.jsonl", settled)
    _built_record(tmp_path, "before", sources, "gsm8k/test/3")
    assert sheet("d1", ["ROUTE"] * 4) == {}
    assert sheet("d2", ["ROUTE"] * 3 + ["GOOD"] * 2) == {}
    assert sheet("d3", ["ROUTE"] * 4 + ["GOOD"]) == {"gsm8k/test/3": [["3*3=9"]]}
    assert "ROUTE" not in (tmp_path / "d3" / "disputes1.md").read_text()
    verdicts = hear("d3", "R")
    assert verdicts.labels["3*3=9"] == "ROUTE" and verdicts.reopened == {"3*3=9"} and verdicts.settled == {"3*3=9"}
    assert _built_record(tmp_path, "after", sources, "gsm8k/test/3")["nodes"] == []
    assert sheet("d4", ["ROUTE"] * 9) == {}

    write("v.jsonl", settled)
    sheet("d5", ["RESTATE"] * 5)
    verdicts = hear("d5", "G")
    assert verdicts.labels["3*3=9"] == "GOOD" and verdicts.reopened == {"3*3=9"}
    assert sheet("d6", ["RESTATE"] * 8) == {}


def test_a_settled_proposal_heard_again_over_the_audits_is_marked_reopened(tmp_path):
    r"""A written-in result (a proposal) signed GOOD keeps its own line when a dispute sheet's
    reader answers GOOD; heard again over the audits, it is marked ``reopened`` as a relabelled row
    is, so the audits' next overturning goes to a panel, not to one more single reader (AIME
    2025-I-11's proposal ``-\frac{8}{34}``, settled, was so heard a second time unmarked)."""
    proposal = {"id": "gsm8k/test/3", "text": "3*3=9", "label": "GOOD", "reviewer": "c", "proposed": True,
                "settled": True}
    _write_rows(tmp_path / "v.jsonl", [proposal, {"id": "gsm8k/test/3", "text": "9", "label": "FRAGMENT",
                                                  "reviewer": "a"}])
    _built_record(tmp_path, "before", GSM8K_SOURCES, "gsm8k/test/3")
    assert _audit_dispute_sheet(tmp_path, "d1", ["ROUTE"] * 5) == {"gsm8k/test/3": [["3*3=9"]]}
    (tmp_path / "a.txt").write_text("gsm8k/test/3: 1G\n")
    done = _cli("signoff-import", "--sheet-dir", "d1", "--answers", "a.txt", "--reviewer", "d", "--out", "v.jsonl",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert {**proposal, "reopened": True} in rows
    assert load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/3"].reopened == {"3*3=9"}
    assert _audit_dispute_sheet(tmp_path, "d2", ["ROUTE"] * 9) == {}
    assert _audit_dispute_sheet(tmp_path, "d3", ["ROUTE"] * 10) == {"gsm8k/test/3": [["3*3=9"]]}  # to a panel


def test_a_reopened_good_the_audits_go_on_overturning_goes_to_a_panel_of_three(tmp_path):
    """GSM8K test/3's ``3*3=9`` was settled GOOD, reopened by the audits and kept GOOD by one more
    reader. Eight audits more leave it; ten, four in five a defect, list it for a panel of three
    fresh readers. One answer file is refused (naming the candidate); three decide by majority,
    marked ``panel``, and no later sheet lists it, however many audits follow."""
    sources = GSM8K_SOURCES

    def write(name, rows):
        _write_rows(tmp_path / name, rows)

    def sheet(out_dir, audits):
        return _audit_dispute_sheet(tmp_path, out_dir, audits)

    def hear(out_dir, *answers):
        names = []
        for i, answer in enumerate(answers):
            (tmp_path / f"a{i}.txt").write_text(f"gsm8k/test/3: 1{answer}\n")
            names.append(f"a{i}.txt")
        return _cli("signoff-import", "--sheet-dir", out_dir, "--answers", *names, "--reviewer", "panel",
                    "--out", "v.jsonl", cwd=tmp_path)

    reopened = [{"id": "gsm8k/test/3", "text": "3*3=9", "label": "GOOD", "reviewer": "d", "settled": True,
                 "reopened": True},
                {"id": "gsm8k/test/3", "text": "9", "label": "FRAGMENT", "reviewer": "a"}]
    write("v.jsonl", reopened)
    _built_record(tmp_path, "before", sources, "gsm8k/test/3")
    assert sheet("d1", ["RESTATE"] * 8) == {}
    assert sheet("d2", ["RESTATE"] * 8 + ["GOOD"] * 3) == {}  # 73% a defect
    assert sheet("d3", ["RESTATE"] * 10) == {"gsm8k/test/3": [["3*3=9"]]}
    one = hear("d3", "G")
    assert one.returncode != 0 and "gsm8k/test/3 '3*3=9' was reopened once already" in one.stderr
    assert load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/3"].panel == frozenset()  # nothing written
    done = hear("d3", "G", "S", "R")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stderr.strip().splitlines()[-1])["panel_heard"] == 1
    rows = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert {"id": "gsm8k/test/3", "text": "3*3=9", "label": "RESTATE", "reviewer": "panel", "settled": True,
            "reopened": True, "panel": True} in rows
    assert _built_record(tmp_path, "after", sources, "gsm8k/test/3")["nodes"] == []
    assert sheet("d4", ["RESTATE"] * 20) == {}

    write("v.jsonl", reopened)  # most of the panel signs it: GOOD, final
    sheet("d5", ["RESTATE"] * 12)
    assert hear("d5", "R", "G", "G").returncode == 0
    verdicts = load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/3"]
    assert verdicts.labels["3*3=9"] == "GOOD" and verdicts.panel == {"3*3=9"}
    assert sheet("d6", ["RESTATE"] * 30) == {}


def test_an_appeal_heard_by_two_reviewers_overturns_a_route_label_only_when_both_sign(tmp_path):
    """Three voices write ``5 x 5 = 25``; a first reviewer called it ROUTE, so the record is
    empty. Only a ROUTE the rule agrees on is appealed (not a shape defect, not one settled).
    Both fresh reviewers' GOOD overturn it, with two signatures, and the node ships; a split
    leaves the ROUTE, and either way the candidate is settled."""
    from node_builder.signoff import appeal_rows, appealed, dispute_block

    problem = _pails_problem()
    rows = [{"id": "t/200", "text": "5 x 5 = 25", "label": "ROUTE", "reviewer": "a"},
            {"id": "t/200", "text": "6 x 5 = 30", "label": "FRAGMENT", "reviewer": "a"}]
    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    verdicts = load_signoffs(out)["t/200"]
    evidence = gather(problem, None, proposed_nodes(verdicts, problem))
    assert select(evidence, ConsensusRule(), signed=verdicts.labels).nodes == []
    found = appealed(evidence, ConsensusRule(), verdicts.labels)
    assert [(c.node.text, k, n, w) for c, k, n, w in found] == [("5 x 5 = 25", 3, 3, ("5 x 5 = 25",))]
    block = dispute_block(evidence, found, verdicts.labels, title="APPEALED")
    assert "APPEALED (voices stating it / voices):" in block and "ROUTE" not in block
    assert appealed(evidence, ConsensusRule(min_share=1.01), verdicts.labels) == []  # the rule does not agree

    listed = {"t/200": [list(found[0][3])]}
    new, heard = appeal_rows(["t/200: 1G"], ["t/200: 1G"], listed, "r1", "r2")
    assert new == [{"id": "t/200", "text": "5 x 5 = 25", "label": "GOOD", "reviewer": "r1", "second": "r2",
                    "settled": True}]
    assert heard == {("t/200", "5 x 5 = 25")}
    assert appeal_rows(["t/200: 1G"], ["t/200: 1R"], listed, "r1", "r2") == ([], heard)  # a split: the label stands
    assert appeal_rows(["t/200: 1G"], [], listed, "r1", "r2") == ([], set())  # one answer is no hearing
    with pytest.raises(SignoffError, match="'2G' is no NUMBER"):
        appeal_rows(["t/200: 2G"], ["t/200: 1G"], listed, "r1", "r2")


def test_an_appeal_on_other_grounds_hears_relations_not_bare_values(tmp_path):
    """Asked to (``grounds``), an appeal hears a relation labelled another defect: the voices'
    ``6 x 5 = 30``, which a first reviewer called a fragment. A bare value with that label (``30``)
    is the rubric's reading of an unnamed number and is not heard; neither is a label outside the
    grounds, nor anything by default but ROUTE."""
    from node_builder.signoff import appealed

    problem = _pails_problem()
    rows = [{"id": "t/200", "text": "5 x 5 = 25", "label": "ROUTE", "reviewer": "a"},
            {"id": "t/200", "text": "6 x 5 = 30", "label": "FRAGMENT", "reviewer": "a"},
            {"id": "t/200", "text": "30", "label": "FRAGMENT", "reviewer": "a"}]
    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    verdicts = load_signoffs(out)["t/200"]
    evidence = gather(problem, None, proposed_nodes(verdicts, problem))
    assert "30" in {c.node.text for c in evidence.candidates}  # the bare value is a candidate the voices state

    def heard(*grounds):
        kwargs = {"grounds": grounds} if grounds else {}
        return sorted(c.node.text for c, *_ in appealed(evidence, ConsensusRule(), verdicts.labels, **kwargs))

    assert heard() == ["5 x 5 = 25"]
    assert heard("ROUTE", "FRAGMENT") == ["5 x 5 = 25", "6 x 5 = 30"]
    assert heard("FRAGMENT") == ["6 x 5 = 30"]
    assert heard("RESTATE") == []


def test_the_appeal_round_trip_on_real_gsm8k_solutions(tmp_path):
    """GSM8K test/3 with the voices' ``3*3=9`` (4 of 7) and ``180`` (3 of 7) labelled ROUTE: the
    record ships no node. ``--appeal --shipped`` lists the step the rule agrees on, without its label; two answer files with
    ``--second-reviewer`` are one hearing. A split leaves it out and settles it (no later appeal
    sheet lists it); where both sign it, the build ships it with two signatures."""
    from node_builder.shipped import shipped_sources

    sources = [arg for spec in shipped_sources("gsm8k", GSM8K.parent) for arg in ("--source", spec)]  # 7 voices
    first = [{"id": "gsm8k/test/3", "text": "3*3=9", "label": "ROUTE", "reviewer": "a"},
             {"id": "gsm8k/test/3", "text": "180", "label": "ROUTE", "reviewer": "a"},
             {"id": "gsm8k/test/3", "text": "9", "label": "FRAGMENT", "reviewer": "a"}]

    def start():
        (tmp_path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in first))
        assert _built_record(tmp_path, "before", sources, "gsm8k/test/3")["nodes"] == []

    def sheet(out_dir):
        done = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", out_dir, "--appeal", "v.jsonl",
                    "--shipped", "before.jsonl", "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return json.loads((tmp_path / out_dir / "appeal.json").read_text())

    def hear(sheet_dir, one, two):
        (tmp_path / "a1.txt").write_text(f"gsm8k/test/3: {one}\n")
        (tmp_path / "a2.txt").write_text(f"gsm8k/test/3: {two}\n")
        return _cli("signoff-import", "--sheet-dir", sheet_dir, "--answers", "a1.txt", "a2.txt", "--reviewer", "r1",
                    "--second-reviewer", "r2", "--out", "v.jsonl", cwd=tmp_path)

    start()
    assert sheet("d") == {"gsm8k/test/3": [["3*3=9"]]}
    assert "ROUTE" not in (tmp_path / "d" / "appeal1.md").read_text()
    alone = _cli("signoff-import", "--sheet-dir", "d", "--answers", "a1.txt", "--reviewer", "r1", "--out", "v.jsonl",
                 cwd=tmp_path)
    assert alone.returncode == 2 and "an appeal is heard by two reviewers" in alone.stderr
    split = hear("d", "1G", "1A")
    assert split.returncode == 0 and json.loads(split.stderr)["overturned"] == 0, split.stderr
    assert load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/3"].labels["3*3=9"] == "ROUTE"
    assert sheet("d2") == {}  # settled: heard once

    start()
    both = hear("d", "1G", "1G")
    assert both.returncode == 0 and json.loads(both.stderr)["overturned"] == 1, both.stderr
    signed = load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/3"]
    assert signed.labels["3*3=9"] == "GOOD" and signed.second == {"3*3=9"}
    assert [n["text"] for n in _built_record(tmp_path, "after", sources, "gsm8k/test/3")["nodes"]] == ["3*3=9"]
    refused = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "d3", "--appeal", "v.jsonl",
                   "--quiet", cwd=tmp_path)
    assert refused.returncode == 2 and "--appeal VERDICTS.jsonl reads the records that ship no node" in refused.stderr
    for grounds, message in (("GOOD", "--grounds: GOOD is no defect label"), (",", "--grounds: nothing is no defect"),
                             ("ROUTE,SLOPPY", "--grounds: SLOPPY is no defect label")):
        bad = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "d4", "--appeal", "v.jsonl",
                   "--shipped", "before.jsonl", "--grounds", grounds, "--quiet", cwd=tmp_path)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    stray = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", "d4", "--unread", "v.jsonl",
                 "--grounds", "FRAGMENT", "--quiet", cwd=tmp_path)
    assert stray.returncode == 2 and "--grounds and --every-record shape an appeal" in stray.stderr


def test_an_appeal_of_every_record_hears_what_a_record_with_nodes_left_out(tmp_path):
    """GSM8K test/0 (5 voices) ships ``16 - 3 - 4 = 9``; a reader called ``3 + 4 = 7`` (3 of 5
    voices) ROUTE. The default appeal reads only records without nodes and lists nothing;
    ``--every-record`` lists that step, without its label."""
    from node_builder.shipped import shipped_sources

    sources = [arg for spec in shipped_sources("gsm8k", GSM8K.parent) for arg in ("--source", spec)]
    (tmp_path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "gsm8k/test/0", "text": "16 - 3 - 4 = 9", "label": "GOOD", "reviewer": "a"},
        {"id": "gsm8k/test/0", "text": "3 + 4 = 7", "label": "ROUTE", "reviewer": "a"}]))
    assert [n["text"] for n in _built_record(tmp_path, "before", sources, "gsm8k/test/0")["nodes"]] == ["16 - 3 - 4 = 9"]

    def sheet(out_dir, *extra):
        done = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", out_dir, "--appeal", "v.jsonl",
                    "--shipped", "before.jsonl", *extra, "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return json.loads((tmp_path / out_dir / "appeal.json").read_text())

    assert "gsm8k/test/0" not in sheet("empty_only")
    assert sheet("every", "--every-record")["gsm8k/test/0"] == [["3 + 4 = 7"]]
    text = (tmp_path / "every" / "appeal1.md").read_text()
    assert "SIGNED: 16 - 3 - 4 = 9" in text and "ROUTE" not in text


def test_a_second_signature_goes_to_the_shipped_nodes_no_audit_confirmed(tmp_path):
    """GSM8K test/2 ships two signed computations; an audit signed one GOOD. ``--revise --shipped
    --audit`` shows only the other, without its label; the second reviewer's GOOD is kept as
    ``second`` and takes the node off the next such sheet; a ROUTE (on a sheet of both, without
    ``--audit``) replaces the signature and the build drops it, while the confirmed node stays."""
    sources = ["--source", f"gsm8k:{GSM8K / 'test.jsonl'}", "--source", f"gsm8k-socratic:{GSM8K / 'test_socratic.jsonl'}"]
    (tmp_path / "v.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "gsm8k/test/2", "text": "80000+50000=130000", "label": "GOOD", "reviewer": "a"},
        {"id": "gsm8k/test/2", "text": "80000*1.5=120000", "label": "GOOD", "reviewer": "a"}]))
    (tmp_path / "audit.jsonl").write_text(json.dumps(
        {"benchmark": "gsm8k", "record": "gsm8k/test/2", "node": "80000+50000=130000", "label": "GOOD"}) + "\n")

    def sheet(out_dir, *audit):
        done = _cli("signoff-sheet", "--benchmark", "gsm8k", *sources, "--out-dir", out_dir, "--revise", "v.jsonl",
                    "--shipped", "before.jsonl", *audit, "--quiet", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return json.loads((tmp_path / out_dir / "candidates.json").read_text())

    assert [n["text"] for n in _built_record(tmp_path, "before", sources, "gsm8k/test/2")["nodes"]] == [
        "80000+50000=130000", "80000*1.5=120000"]
    assert sheet("all")["gsm8k/test/2"] == ["80000+50000=130000", "80000*1.5=120000"]
    assert sheet("s", "--audit", "audit.jsonl") == {"gsm8k/test/2": ["80000*1.5=120000"]}
    assert "<GOOD>" not in (tmp_path / "s" / "sheet1.md").read_text()

    def answer(sheet_dir, line):
        (tmp_path / "a.txt").write_text(line)
        done = _cli("signoff-import", "--sheet-dir", sheet_dir, "--answers", "a.txt", "--reviewer", "b", "--out",
                    "v.jsonl", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stderr)

    # GOOD: the second signature is kept, and the node is on no later second-signature sheet
    assert answer("s", "gsm8k/test/2: 1G\n")["second_signatures"] == 1
    assert load_signoffs(tmp_path / "v.jsonl")["gsm8k/test/2"].second == {"80000*1.5=120000"}
    assert sheet("s2", "--audit", "audit.jsonl") == {}
    # another label replaces the signature: the build drops the node
    assert answer("all", "gsm8k/test/2: 2R\n")["revised"] == 1
    assert [n["text"] for n in _built_record(tmp_path, "after", sources, "gsm8k/test/2")["nodes"]] == [
        "80000+50000=130000"]


def test_a_duplicate_writing_never_hides_the_signed_step():
    """The miner may name a step by a writing the reviewer called a duplicate (FRAGMENT: GPT-4's
    ``4C2 = 6`` beside the signed ``\\binom{4}{2} = 6``, one step once the matcher reads both):
    the step is GOOD and ships under the signed writing; a real defect among the writings wins."""
    from node_builder.evidence import Candidate
    from node_builder.schema import Node
    from node_builder.signoff import signed_label, signed_writing

    step = Candidate(Node("", "4C2 = 6", "equation", ("4C2 = 6", "\\binom{4}{2} = 6")), None)
    labels = {"4C2 = 6": "FRAGMENT", "\\binom{4}{2} = 6": "GOOD"}
    assert signed_label(step, labels) == "GOOD" and signed_writing(step, labels) == "\\binom{4}{2} = 6"
    assert signed_label(step, {**labels, "4C2 = 6": "ROUTE"}) == "ROUTE"
    assert signed_label(step, {"4C2 = 6": "FRAGMENT"}) == "FRAGMENT"
    assert signed_writing(step, {"4C2 = 6": "FRAGMENT"}) == "4C2 = 6"


def test_a_second_signature_sheet_shows_a_node_shipped_under_another_writing(tmp_path):
    """A step that ships under its signed proposal's text (``5 \\times 5 = 25``) while the voices
    write it otherwise (``5 x 5 = 25``, the candidate's own text) goes on the second-signature
    sheet under the shipped text, so that the answer reaches the shipped verdict."""
    problem = _pails_problem()
    out = tmp_path / "v.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "t/200", "text": "5 x 5 = 25", "label": "FRAGMENT", "reviewer": "a"},
        {"id": "t/200", "text": "5 \\times 5 = 25", "label": "GOOD", "reviewer": "b", "proposed": True}]))
    verdicts = load_signoffs(out)["t/200"]
    evidence = gather(problem, None, proposed_nodes(verdicts, problem))
    shipped = [n.text for n in select(evidence, ConsensusRule(), signed=verdicts.labels).nodes]
    assert "5 \\times 5 = 25" in shipped
    block, shown = sheet_of(evidence, ConsensusRule(), only={text_key("5 \\times 5 = 25")})
    assert shown == ["5 \\times 5 = 25"] and "[3/3] 5 \\times 5 = 25" in block
