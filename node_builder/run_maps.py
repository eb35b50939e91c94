r"""The field maps of every staged evaluation run (``RAW/trajectories/``), and who each voice is.

Each map is read by the one run importer (:mod:`node_builder.importers.runs`); a source names
it as ``runs.<map>:PATH`` (``runs:PATH`` is :data:`SKYTHOUGHT`), PATH a run file or a folder
(the map's ``files`` globs pick the runs in it). :data:`RUN_MAPS` lists them by name;
``python -m node_builder.run_maps`` prints the tables of ``node_builder/README.md``
("Model runs": maps and voices).

**Voices: one per model.** Two prompts or two reading passes of one model are one voice
(Qwen2.5-32B-Instruct's prompts, GPT-4o-mini read once and twice); checkpoints of one model are
one voice (:func:`~node_builder.importers.runs.model_voice`); the same model in two repositories
is one voice (GPT-4 of PRM800K and of Faithful-CoT; gpt-3.5-turbo and text-davinci-003 of
Faithful-CoT and of Re-reading). Rho-Math's tool-integrated ("interpreter") model is a fine-tune
of the Rho-Math chain-of-thought model of the same base and size, so both are one voice per base
and size: ``rho-math-7b`` (Mistral-7B base) and ``rho-math-1b`` (TinyLlama-1.1B base). Models
trained separately from one base (ToRA-Code-34B and MathCoder-CL-34B, both CodeLlama-34B) are
separate voices. A voice is named as its publisher names the model, without organisation,
version suffix (``-v0.1``, ``-v1.0``), checkpoint or prompt.

Example:
    >>> RUN_MAPS["rho-cot"].voice_of("rho-math-7b-v0.1"), RUN_MAPS["rho-tool"].voice_of("rho-math-7b-interpreter-v0.1")
    ('rho-math-7b', 'rho-math-7b')
    >>> RUN_MAPS["faithful-cot"].voice_of("gpt4_COT"), RUN_MAPS["prm800k-gpt4"].voice_of("prm800k-gpt-4")
    ('gpt-4', 'gpt-4')
"""

from __future__ import annotations

import sys
from dataclasses import replace

from node_builder.importers.model_runs import SKYTHOUGHT
from node_builder.importers.runs import RunMap, Turns

SKY_T1_THOUGHT = ("<|begin_of_thought|>", "<|end_of_thought|>")

#: Rho-Math: one voice per base model and size (the interpreter model is a fine-tune of the CoT one).
RHO_COT_VOICES = (("rho-math-7b-v0.1", "rho-math-7b"), ("rho-math-1b-v0.1", "rho-math-1b"))
RHO_TOOL_VOICES = (("rho-math-7b-interpreter-v0.1", "rho-math-7b"), ("rho-math-1b-interpreter-v0.1", "rho-math-1b"))

RHO_COT = RunMap(
    name="rho-cot", files=("rho-math-*b-v0.1@*.jsonl",), problem="question", outputs=("code",), answer="gt",
    verdict="score", unescape=True, voices=RHO_COT_VOICES,
    doc="microsoft/rho chain-of-thought runs (Qwen2.5-Math harness rows): `question`, `code[0]`, `gt`; "
        "doubled backslashes undone (MATH-500 rows write `\\\\sqrt`; GSM8K rows hold none)")

RHO_TOOL = RunMap(
    name="rho-tool", files=("rho-math-*b-interpreter-v0.1@*.jsonl",), problem="question", outputs=("code",),
    answer="gt", verdict="score", drop_code=True, voices=RHO_TOOL_VOICES,
    doc="microsoft/rho tool-integrated runs: `code[0]` is prose, a ```python program and its ```output; "
        "the program is dropped, prose and printed output kept")

SKYTHOUGHT_TOOLS = RunMap(
    name="skythought-tools", layout="json", files=("*.json",), problem="problem",
    outputs=('responses["0.0"].content',), answer="answer", verdict='responses["0.0"].correctness',
    thought=SKY_T1_THOUGHT, voice="Qwen2.5-32B-Instruct",
    doc="NovaSky-AI/SkyThought `skythought/tools` results: a JSON dict of rows, `problem`, "
        "`responses[\"0.0\"].content` (Sky-T1 thought markers kept), `answer`; every prompt one voice")

PRMBENCH_QWQ = RunMap(
    name="prmbench-qwq", files=("QwQ@*.jsonl",), problem="original_question", outputs=("original_response",),
    answer="ground_truth", line_prefix=r"[ \t]*(?:Step \d+\.[ \t]*)?", answer_heading="# Answer", voice="QwQ",
    doc="PRMBench multi-solution QwQ rows: `original_question`, `original_response` (indented, "
        "`Step N.` labels removed; the answer after `# Answer`, PRM800K's way, boxed), `ground_truth`")

PRM800K_GPT4 = RunMap(
    name="prm800k-gpt4", files=("prm800k_test_*.jsonl",), problem="question", outputs=("original_process",),
    steps=True, list_strings=True, line_prefix=r"[ \t]*\d+\.[ \t]+", answer_heading="# Answer", dedupe=True,
    model="prm800k-gpt-4", voice="gpt-4",
    doc="PRMBench process rows: `question`, `original_process` (PRM800K's GPT-4 solution as a list of steps, "
        "joined; `N.` labels removed; the step after `# Answer` boxed); one solution appears in many files: "
        "repeats dropped")

MATHCODER_VOICES = (("MathCoder-L-7b-correct", "MathCoder-L-7B"), ("MathCoder-L-13b-correct", "MathCoder-L-13B"),
                    ("MathCoder-L-70b-correct", "MathCoder-L-70B"), ("MathCoder-CL-34b-correct", "MathCoder-CL-34B"))
MATHCODER_TURNS = Turns(role="role", content="content", prose=("text",), output=("execution",))

MATHCODER_MATH = RunMap(
    name="mathcoder-math", join="unique_id", problem="id", outputs=("debug_result",), turns=MATHCODER_TURNS,
    answer="ground_truth.answer", superset=True, voices=MATHCODER_VOICES,
    doc="mathllm/MathCoder MATH rows (correct rows of the whole MATH test): `id` = MATH unique_id, "
        "`debug_result` turns (text kept, code dropped, execution as ```output), `ground_truth.answer`; "
        "rows of problems outside MATH-500 counted as outside")

MATHCODER_GSM8K = replace(
    MATHCODER_MATH, name="mathcoder-gsm8k", join="statement", problem="debug_result[role=user].content",
    superset=False,
    doc="mathllm/MathCoder GSM8K rows (correct rows only): the statement is the `user` turn of `debug_result`; "
        "turns read as for MATH")

FAITHFUL_COT = RunMap(
    name="faithful-cot", files=("*_COT@*.jsonl",), join="line", problem="id", companion="test@3017843.jsonl",
    companion_problem="question", outputs=("completion",),
    voices=(("gpt4_COT", "gpt-4"), ("gpt-3.5-turbo_COT", "gpt-3.5-turbo"), ("text003_COT", "text-davinci-003"),
            ("text002_COT", "text-davinci-002"), ("code002_COT", "code-davinci-002"),
            ("code001_COT", "code-davinci-001")),
    doc="veronica320/Faithful-COT GSM8K predictions: `id` = line index into `test@3017843.jsonl` "
        "(its `question`), `completion`; their `answer` is not read (unreliable)")

REREADING_GPT4O_MINI = RunMap(
    name="rereading-gpt-4o-mini", files=("gsm_gpt-4o-mini-*.jsonl",), problem="input",
    outputs=("cot.generation[0]", "vanilla.generation[0]"), answer="target", verdict="cot.score", dedupe=True,
    model="gpt-4o-mini",
    doc="Tebmer/Rereading-LLM-Reasoning results: `input`, `cot.generation[0]` and `vanilla.generation[0]` "
        "(both reason step by step), `target`; read once and read twice: one voice")

REREADING_GPT35 = replace(
    REREADING_GPT4O_MINI, name="rereading-gpt-3.5-turbo",
    files=("gsm_topp1.0_temp0.0_majority1_20230828_1157@*.jsonl",
           "gsm_topp1.0_temp0.0_majority1_20230828_1200@*.jsonl"),
    model="gpt-3.5-turbo",
    doc="Re-reading results of 2023-08-28 (runs 1157, 1200: gpt-3.5-turbo): as for GPT-4o-mini; run 1200 "
        "repeats 30 problems (repeats dropped)")

REREADING_DAVINCI = replace(
    REREADING_GPT4O_MINI, name="rereading-text-davinci-003",
    files=("gsm_topp1.0_temp0.0_majority1_20230828_141934@*.jsonl",
           "gsm_topp1.0_temp0.0_majority1_20230828_142302@*.jsonl"),
    outputs=("cot.generation[0]",), model="text-davinci-003",
    doc="Re-reading results of 2023-08-28 (runs 141934, 142302: text-davinci-003): `cot.generation[0]` only "
        "(`vanilla` is answer-only)")

LLM_REASONERS_DBRX = RunMap(
    name="llm-reasoners", files=("dbrx@*.jsonl",), problem="question", outputs=("metadata_generation",),
    answer="gt_answer", model="dbrx",
    doc="maitrix-org/llm-reasoners AutoRace GSM8K chains: `question`, `metadata_generation`, `gt_answer`")

TORA = RunMap(
    name="tora", files=("tora-*@*.jsonl",), problem="question", outputs=("code",), answer="gt", drop_code=True,
    voices=(("tora-70b-v1.0", "tora-70b"), ("tora-code-34b-v1.0", "tora-code-34b")),
    doc="microsoft/ToRA outputs (Qwen2.5-Math harness rows): `code[0]` is prose, ```python programs and their "
        "```output; programs dropped")

RUN_MAPS: dict[str, RunMap] = {m.name: m for m in (
    SKYTHOUGHT, RHO_COT, RHO_TOOL, SKYTHOUGHT_TOOLS, PRMBENCH_QWQ, PRM800K_GPT4, MATHCODER_MATH, MATHCODER_GSM8K,
    FAITHFUL_COT, REREADING_GPT4O_MINI, REREADING_GPT35, REREADING_DAVINCI, LLM_REASONERS_DBRX, TORA)}
"""Map name -> map; the source kind ``runs.<name>`` reads through it."""

STAGED_RUNS: dict[str, list[tuple[str, str]]] = {
    "math500": [("skythought", "trajectories/skythought/math500"),
                ("rho-cot", "trajectories/rho/math500"),
                ("rho-tool", "trajectories/rho/math500"),
                ("skythought-tools", "trajectories/skythought_tools/math500"),
                ("prmbench-qwq", "trajectories/prmbench/math500"),
                ("prm800k-gpt4", "trajectories/prmbench/process"),
                ("mathcoder-math", "trajectories/mathcoder/math")],
    "gsm8k": [("rho-cot", "trajectories/rho/gsm8k"),
              ("rho-tool", "trajectories/rho/gsm8k"),
              ("faithful-cot", "trajectories/faithful_cot/gsm8k"),
              ("rereading-gpt-4o-mini", "trajectories/rereading/gsm8k"),
              ("rereading-gpt-3.5-turbo", "trajectories/rereading/gsm8k"),
              ("rereading-text-davinci-003", "trajectories/rereading/gsm8k"),
              ("llm-reasoners", "trajectories/llm_reasoners/gsm8k"),
              ("tora", "trajectories/tora/gsm8k"),
              ("mathcoder-gsm8k", "trajectories/mathcoder/gsm8k")],
    "aime24": [("skythought", "trajectories/skythought/aime24"),
               ("skythought-tools", "trajectories/skythought_tools/aime24")],
}
"""Benchmark -> its staged runs under ``RAW``: ``(map, folder)`` in build order (the shipped
builds read them all: :data:`node_builder.shipped.SHIPPED`). Not read: the process labels of
``trajectories/llm_reasoners/process/`` (the step locator's development data, human verdicts
on chains) and PRMBench's ``modified_process`` (errors inserted on purpose)."""


def source_spec(map_name: str, folder: str, raw: str = "{raw}") -> str:
    """The ``KIND:PATH`` spec of a staged run folder.

    >>> source_spec("rho-cot", "trajectories/rho/math500", "/raw")
    'runs.rho-cot:/raw/trajectories/rho/math500'
    >>> source_spec("skythought", "trajectories/skythought/aime24")
    'runs:{raw}/trajectories/skythought/aime24'
    """
    kind = "runs" if map_name == SKYTHOUGHT.name else f"runs.{map_name}"
    return f"{kind}:{raw}/{folder}"


def map_voices(run_map: RunMap) -> list[tuple[str, str]]:
    """``(model, voice)`` pairs a map declares; a map that takes both from the file name says so.

    >>> map_voices(RUN_MAPS["tora"])
    [('tora-70b-v1.0', 'tora-70b'), ('tora-code-34b-v1.0', 'tora-code-34b')]
    >>> map_voices(RUN_MAPS["skythought-tools"])
    [('(every file)', 'Qwen2.5-32B-Instruct')]
    """
    if run_map.model:
        return [(run_map.model, run_map.voice_of(run_map.model))]
    if run_map.voices:
        return list(run_map.voices)
    if run_map.voice:
        return [("(every file)", run_map.voice)]
    return [("(file name up to `@`)", "the model, checkpoints folded")]


def maps_table() -> str:
    """The README's table of staged runs: benchmark, folder, map, what is read, voices."""
    lines = ["| benchmark | source under `RAW/` (files) | kind | what is read | voices |",
             "|---|---|---|---|---|"]
    for benchmark, runs in STAGED_RUNS.items():
        for map_name, folder in runs:
            run_map = RUN_MAPS[map_name]
            globs = ", ".join(f"`{g}`" for g in run_map.files)
            voices = ", ".join(dict.fromkeys(voice for _model, voice in map_voices(run_map)))
            kind = source_spec(map_name, "", "").split(":")[0]
            lines.append(f"| {benchmark} | `{folder}/` ({globs}) | `{kind}` | {run_map.doc} | {voices} |")
    return "\n".join(lines)


def voices_table() -> str:
    """The README's voice table: each model name a map meets -> its voice."""
    rows: dict[tuple[str, str], set[str]] = {}
    for run_map in RUN_MAPS.values():
        for model, voice in map_voices(run_map):
            rows.setdefault((voice, model), set()).add(run_map.name)
    lines = ["| voice | model as the source names it | maps |", "|---|---|---|"]
    for (voice, model), names in sorted(rows.items(), key=lambda kv: (kv[0][0].lower(), kv[0][1])):
        lines.append(f"| {voice} | {model} | {', '.join(sorted(names))} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(maps_table() + "\n\n" + voices_table() + "\n")
