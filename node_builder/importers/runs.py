r"""The one importer of evaluation runs: a run file read through a declared field map, :class:`RunMap`.

An evaluation run is one model's outputs on a benchmark, one row per problem (or per solution).
Repositories store them differently; a :class:`RunMap` says how to read one layout, and every
staged source has its map (:mod:`node_builder.run_maps`). A map declares:

* **layout** — ``jsonl`` (one JSON object a line) or ``json`` (one JSON dict or list of rows);
  ``files``: the globs that pick a folder's run files (a companion file beside them is not a run);
* **join** — how a row names its problem: ``statement`` (the text at ``problem``, joined to the
  benchmark's problem of the same statement, whitespace aside), ``unique_id`` (a MATH
  ``unique_id`` such as ``test/algebra/1.json`` at ``problem``, joined by id) or ``line`` (the
  integer at ``problem`` is a 0-based line index into the ``companion`` file beside the run,
  whose ``companion_problem`` field holds the statement);
* **outputs** — field paths of the output text. A value is a string (one solution), a list of
  strings (several solutions; ``steps=True``: one solution's steps, joined by newlines), a list
  of turns (``turns``: :class:`Turns`), or, with ``list_strings=True``, a string that encodes a
  list (read with ``json.loads``, else ``ast.literal_eval``: only for such dump fields, never
  for model text). A row may carry several output fields (a prompt and a re-reading);
* **answer** (optional) — the row's gold answer, checked against the benchmark's;
  **verdict** (optional) — the source's own grader, only counted (our ``acc`` decides);
* **text cleanup** — ``thought`` (the source's trace markers, rewritten to ``<think>``),
  ``unescape`` (doubled backslashes), ``drop_code`` (fenced programs; printed outputs stay),
  ``line_prefix`` (step labels), ``answer_heading`` (the line after which a solution states its
  answer, boxed), ``dedupe`` (one output per problem and text);
  :mod:`node_builder.importers.run_text`;
* **who** — ``model`` (default: the file name up to ``@``), ``voice`` (fixed) or ``voices``
  (model -> voice), else :func:`model_voice` (checkpoints of one model are one voice);
* ``superset`` — the run covers more than the benchmark (MathCoder: the whole MATH test): rows
  of other problems are counted as ``outside``, not reported.

Field paths: ``code``, ``cot.generation[0]``, ``responses["0.0"].content`` (a key with a dot),
``debug_result[role=user].content`` (the first list item whose ``role`` is ``user``).

Every output becomes a :class:`~node_builder.schema.Trajectory` (``source = "model:<model>"``,
its voice, ``origin = "file:line"``); correctness is left to the metric's ``acc``
(:mod:`node_builder.filter`). A row that is malformed, lacks its fields or holds no output is
skipped with ``file:line`` and counted (:attr:`ImportResult.files`); the join itself, with the
gold check, is :func:`node_builder.importers.load_sources`'s. :func:`check_fields` refuses a map
that names a field the file does not have, before any work.

Example:
    >>> parse_path('responses["0.0"].content'), parse_path("debug_result[role=user].content")
    (('responses', '0.0', 'content'), ('debug_result', ('role', 'user'), 'content'))
    >>> resolve({"cot": {"generation": ["x = 1"]}}, parse_path("cot.generation[0]"))
    'x = 1'
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from node_builder.importers.jsonl_lines import read_jsonl
from node_builder.importers.result import FileCount, ImportResult
from node_builder.importers.run_text import (box_final_answer, drop_code, rewrite_thought, strip_line_prefix,
                                             turns_text, unescape_doubled_latex)
from node_builder.schema import BadInput, Problem, Skipped, Trajectory

JOINS = ("statement", "unique_id", "line")
LAYOUTS = ("jsonl", "json")
#: Rows :func:`check_fields` looks at: a declared field must be in at least one of them.
CHECK_ROWS = 20

_CHECKPOINT = re.compile(r"(?:-ckpts)?(?:-checkpoint-\d+)?$")
_RUN_SUFFIX = re.compile(r"\.jsonl?$")
_SEGMENT = re.compile(r'(?P<dot>\.)?(?P<name>[A-Za-z_][\w-]*)|\[(?P<index>\d+)\]|\["(?P<key>[^"]*)"\]'
                      r"|\[(?P<sel>[A-Za-z_]\w*)=(?P<val>[^\]]*)\]")


def run_model(path: str | Path) -> str:
    """The model a run file belongs to: its name up to ``@`` (``Qwen2.5-Math-7B@f7bcf0b.jsonl``).

    >>> run_model("runs/Qwen2.5-Math-7B@f7bcf0b.jsonl"), run_model("t/Qwen2.5-32B-Instruct-sys_one_short@7d33531.json")
    ('Qwen2.5-Math-7B', 'Qwen2.5-32B-Instruct-sys_one_short')
    """
    return _RUN_SUFFIX.sub("", Path(path).name).split("@", 1)[0]


def model_voice(model: str) -> str:
    """One voice per model: training checkpoints of a model are not independent solvers
    (a trailing ``-checkpoint-N`` / ``-ckpts-checkpoint-N`` / ``-ckpts`` is dropped)."""
    return _CHECKPOINT.sub("", model) or model


class FieldMissing(LookupError):
    """A field path that does not resolve in a row."""


class NoOutput(BadInput):
    """A row that names its problem but holds no output text (the model wrote nothing, or only
    code): skipped and counted, but no sign that the file is of another benchmark or layout."""


@lru_cache(maxsize=256)
def parse_path(text: str) -> tuple:
    """A field path as a tuple: names and ``["keys"]`` -> str, ``[N]`` -> int, ``[k=v]`` -> (k, v)."""
    parts: list = []
    pos = 0
    while pos < len(text):
        match = _SEGMENT.match(text, pos)
        if not match or (match.group("name") and parts and not match.group("dot")) \
                or (match.group("dot") and not parts):
            raise ValueError(f"bad field path {text!r} at column {pos + 1}")
        if match.group("name"):
            parts.append(match.group("name"))
        elif match.group("index") is not None:
            parts.append(int(match.group("index")))
        elif match.group("key") is not None:
            parts.append(match.group("key"))
        else:
            parts.append((match.group("sel"), match.group("val")))
        pos = match.end()
    if not parts:
        raise ValueError("empty field path")
    return tuple(parts)


def resolve(obj: Any, path: tuple) -> Any:
    """The value at ``path`` in ``obj``; :class:`FieldMissing` when a step is absent."""
    for part in path:
        if isinstance(part, tuple):
            key, wanted = part
            found = [item for item in obj if isinstance(item, dict) and str(item.get(key)) == wanted] \
                if isinstance(obj, list) else []
            if not found:
                raise FieldMissing(part)
            obj = found[0]
        elif isinstance(part, int):
            if not isinstance(obj, list) or part >= len(obj):
                raise FieldMissing(part)
            obj = obj[part]
        else:
            if not isinstance(obj, dict) or part not in obj:
                raise FieldMissing(part)
            obj = obj[part]
    return obj


@dataclass(frozen=True)
class Turns:
    """How a list of turns is read: which key holds the role and which the text; prose roles are
    kept, output roles become ```output blocks, every other role (system, user, code) is dropped."""

    role: str = "role"
    content: str = "content"
    prose: tuple[str, ...] = ("text",)
    output: tuple[str, ...] = ("execution",)


@dataclass(frozen=True)
class RunMap:
    """How to read one layout of evaluation runs (see the module doc for every field)."""

    name: str
    problem: str = "question"
    outputs: tuple[str, ...] = ("code",)
    answer: str = ""
    verdict: str = ""
    join: str = "statement"
    layout: str = "jsonl"
    files: tuple[str, ...] = ("*.jsonl",)
    companion: str = ""
    companion_problem: str = "question"
    steps: bool = False
    turns: Turns | None = None
    list_strings: bool = False
    thought: tuple[str, ...] = ()
    unescape: bool = False
    drop_code: bool = False
    line_prefix: str = ""
    answer_heading: str = ""
    dedupe: bool = False
    superset: bool = False
    model: str = ""
    voice: str = ""
    voices: tuple[tuple[str, str], ...] = ()
    doc: str = ""

    @property
    def tool_integrated(self) -> bool:
        """Its outputs interleave programs with prose (programs dropped, or read as turns)."""
        return self.drop_code or self.turns is not None

    def __post_init__(self):
        if self.join not in JOINS:
            raise ValueError(f"run map {self.name}: join must be one of {JOINS}, got {self.join!r}")
        if self.layout not in LAYOUTS:
            raise ValueError(f"run map {self.name}: layout must be one of {LAYOUTS}, got {self.layout!r}")
        if (self.join == "line") != bool(self.companion):
            raise ValueError(f"run map {self.name}: join 'line' and a companion file go together")
        if not self.outputs:
            raise ValueError(f"run map {self.name}: no output field")
        if self.thought and len(self.thought) != 2:
            raise ValueError(f"run map {self.name}: thought is an (open, close) pair")
        for text in self.declared().values():
            parse_path(text)
        if self.line_prefix:
            re.compile(self.line_prefix)

    def declared(self) -> dict[str, str]:
        """``{role: field path}`` of every field this map reads from a run row."""
        fields = {"problem": self.problem}
        fields.update({f"output {i + 1}" if len(self.outputs) > 1 else "output": p for i, p in enumerate(self.outputs)})
        if self.answer:
            fields["answer"] = self.answer
        if self.verdict:
            fields["verdict"] = self.verdict
        return fields

    def model_of(self, file: Path) -> str:
        """The model that wrote ``file``: the map's ``model``, else the file name up to ``@``."""
        return self.model or run_model(file)

    def voice_of(self, model: str) -> str:
        """Who solved it, for consensus: ``voices[model]``, the map's ``voice``, else
        :func:`model_voice` (checkpoints folded)."""
        return dict(self.voices).get(model) or self.voice or model_voice(model)

    def clean(self, text: str) -> str:
        """The declared cleanup, in order: thought markers, doubled backslashes, code, line
        prefixes, the answer after its heading."""
        if self.thought:
            text = rewrite_thought(text, self.thought)
        if self.unescape:
            text = unescape_doubled_latex(text)
        if self.drop_code:
            text = drop_code(text)
        if self.line_prefix:
            text = strip_line_prefix(text, self.line_prefix)
        if self.answer_heading:
            text = box_final_answer(text, self.answer_heading)
        return text


# ---------------------------------------------------------------------------------- reading rows
def run_files(path: str | Path, patterns: tuple[str, ...] = ("*.jsonl",)) -> list[Path]:
    """The run files of a source path: the file itself, or a folder's files matching any of
    ``patterns`` (globs), in name order."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    return sorted({p for pattern in patterns for p in path.glob(pattern) if p.is_file()})


def _json_rows(file: Path) -> Iterator[tuple[str, Any]]:
    """``(file:line, row)`` for each value of a JSON dict (or item of a list); the line is where
    the row's key (or item) starts. A file that is not one JSON dict or list is one bad row."""
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        yield f"{file}:1", BadInput(f"{file}:1", f"bytes that are not UTF-8 (byte {err.start})")
        return
    decoder = json.JSONDecoder()

    def where(pos: int) -> str:
        return f"{file}:{text.count(chr(10), 0, pos) + 1}"

    def skip(pos: int) -> int:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        return pos

    pos = skip(0)
    if pos >= len(text) or text[pos] not in "[{":
        yield where(pos), BadInput(where(pos), "expected a JSON dict or list of rows")
        return
    is_dict, pos = text[pos] == "{", skip(pos + 1)
    closing = "}" if is_dict else "]"
    try:
        while pos < len(text) and text[pos] != closing:
            start = pos
            if is_dict:
                _key, pos = decoder.raw_decode(text, pos)
                pos = skip(pos)
                if text[pos:pos + 1] != ":":
                    raise json.JSONDecodeError("expected ':'", text, pos)
                pos = skip(pos + 1)
            value, pos = decoder.raw_decode(text, pos)
            yield where(start), value
            pos = skip(pos)
            if text[pos:pos + 1] == ",":
                pos = skip(pos + 1)
    except json.JSONDecodeError as err:
        yield where(err.pos), BadInput(where(err.pos), f"malformed JSON ({err.msg}); the rest of the file is not read")
    except RecursionError:
        yield where(start), BadInput(where(start), "JSON nested too deeply; the rest of the file is not read")


def read_rows(file: Path, layout: str) -> Iterator[tuple[str, Any]]:
    """``(file:line, row or BadInput)`` of a run file in either layout."""
    yield from (read_jsonl(file) if layout == "jsonl" else _json_rows(file))


def _companion_statements(run_map: RunMap, file: Path, cache: dict) -> dict[int, str]:
    """Line index -> statement of the companion file beside ``file`` (read once per folder)."""
    companion = file.parent / run_map.companion
    if companion not in cache:
        path = parse_path(run_map.companion_problem)
        statements: dict[int, str] = {}
        if companion.is_file():
            for where, obj in read_jsonl(companion):
                try:
                    value = resolve(obj, path) if isinstance(obj, dict) else None
                except FieldMissing:
                    value = None
                if isinstance(value, str) and value.strip():
                    statements[int(where.rsplit(":", 1)[1]) - 1] = value.strip()
        cache[companion] = statements
    return cache[companion]


# ---------------------------------------------------------------------------------- one row
def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (int, float)):
        return str(value)
    return value.strip() if isinstance(value, str) else None


def _as_list(value: str, where: str, name: str) -> Any:
    text = value.strip()
    if not text.startswith("["):
        return value
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text)  # a Python-literal dump of a list of strings, never model text
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise BadInput(where, f"field {name!r} looks like a list but is not JSON or a Python literal") from None


def _texts(value: Any, run_map: RunMap, where: str, name: str) -> list[str]:
    """The output texts of one field value (see the module doc for the forms a value takes)."""
    if isinstance(value, str) and run_map.list_strings:
        value = _as_list(value, where, name)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and run_map.turns and all(isinstance(v, dict) for v in value) and value:
        t = run_map.turns
        return [turns_text(value, t.role, t.content, t.prose, t.output)]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ["\n".join(v.strip() for v in value)] if run_map.steps and value else list(value)
    raise BadInput(where, f"field {name!r} is not a string or a list of strings")


def _statement_and_id(row: dict, run_map: RunMap, benchmark: str, where: str,
                      companion: dict[int, str] | None) -> tuple[str, str]:
    """``(statement, problem id)`` a row names (one of them empty: the other joins)."""
    try:
        value = resolve(row, parse_path(run_map.problem))
    except FieldMissing:
        raise BadInput(where, f"field {run_map.problem!r} missing") from None
    if run_map.join == "statement":
        if not isinstance(value, str) or not value.strip():
            raise BadInput(where, f"field {run_map.problem!r} missing or not a string")
        return value.strip(), ""
    if run_map.join == "unique_id":
        if not isinstance(value, str) or not value.strip():
            raise BadInput(where, f"field {run_map.problem!r} (unique_id) missing or not a string")
        return "", f"{benchmark}/{value.strip().removesuffix('.json')}"
    index = _scalar(value)
    if index is None or not index.isdigit():
        raise BadInput(where, f"field {run_map.problem!r} is not a line index: {value!r}")
    statement = (companion or {}).get(int(index))
    if statement is None:
        raise BadInput(where, f"line index {index} has no statement in {run_map.companion}")
    return statement, ""


def _dedupe_key(text: str) -> str:
    return re.sub(r"[\s$\\]", "", text)


def load(path: str | Path, benchmark: str, run_map: RunMap) -> ImportResult:
    """Problems (joined later by :func:`~node_builder.importers.load_sources`) carrying the runs'
    outputs as trajectories; skipped rows and per-file counts in the result."""
    result = ImportResult(join_only=True, outside_ok=run_map.superset)
    files = run_files(path, run_map.files)
    if not files:
        result.skipped.append(Skipped(str(path), f"folder holds no {' or '.join(run_map.files)} run file"))
    companions: dict = {}
    seen: set[tuple[str, str]] = set()
    answer_path = parse_path(run_map.answer) if run_map.answer else None
    verdict_path = parse_path(run_map.verdict) if run_map.verdict else None
    output_paths = [(name, parse_path(name)) for name in run_map.outputs]
    for file in files:
        model = run_map.model_of(file)
        voice = run_map.voice_of(model)
        count = result.files.setdefault(str(file), FileCount())
        companion = _companion_statements(run_map, file, companions) if run_map.companion else None
        for where, row in read_rows(file, run_map.layout):
            count.rows += 1
            try:
                if isinstance(row, BadInput):
                    raise row
                if not isinstance(row, dict):
                    raise BadInput(where, f"expected a JSON object, got {type(row).__name__}")
                statement, pid = _statement_and_id(row, run_map, benchmark, where, companion)
                answer = ""
                if answer_path is not None:
                    try:
                        answer = _scalar(resolve(row, answer_path)) or ""
                    except FieldMissing:
                        pass
                    if not answer:
                        raise BadInput(where, f"field {run_map.answer!r} missing or not a string")
                texts, present = [], []
                for name, parsed in output_paths:
                    try:
                        value = resolve(row, parsed)
                    except FieldMissing:
                        continue
                    if value is None:
                        continue
                    present.append(name)
                    texts.extend(_texts(value, run_map, where, name))
                if not present:
                    raise BadInput(where, f"field {' / '.join(repr(n) for n in run_map.outputs)} missing")
                texts = [run_map.clean(t) for t in texts if t.strip()]
                texts = [t for t in texts if t.strip()]
                if not texts:
                    raise NoOutput(where, f"field {' / '.join(repr(n) for n in present)} holds no output")
                for text in texts:
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:
                        raise BadInput(where, "output holds a lone surrogate (not text)") from None
            except BadInput as exc:
                count.skipped += 1
                count.empty += isinstance(exc, NoOutput)
                result.skipped.append(Skipped(exc.where, exc.reason))
                continue
            if verdict_path is not None:
                try:
                    verdict = resolve(row, verdict_path)
                except FieldMissing:
                    verdict = None
                if isinstance(verdict, list):
                    verdict = verdict[0] if verdict else None
                count.verdict_true += bool(verdict is True or verdict == 1 or verdict == "correct")
            if run_map.dedupe:
                problem_key = pid or " ".join(statement.split())
                unique = []
                for text in texts:
                    key = (problem_key, _dedupe_key(text))
                    if key in seen:
                        count.duplicates += 1
                        continue
                    seen.add(key)
                    unique.append(text)
                if not unique:
                    continue
                texts = unique
            count.outputs += len(texts)
            problem = Problem(id=pid, benchmark=benchmark, problem=statement, answer=answer, origin=where)
            problem.trajectories = [Trajectory(text=t, source=f"model:{model}", voice=voice, origin=where,
                                               tool=run_map.tool_integrated)
                                    for t in texts]
            result.problems.append(problem)
    return result


# ---------------------------------------------------------------------------------- checks
def check_fields(path: str | Path, run_map: RunMap) -> str | None:
    """Why ``run_map`` cannot read the run files at ``path``, or None: every field it declares
    (and the companion file with its field) must be in at least one of the first
    :data:`CHECK_ROWS` rows of each file. Rows that are not JSON objects are passed over (the
    import reports them)."""
    declared = run_map.declared()
    for file in run_files(path, run_map.files):
        if not file.is_file():
            continue
        rows = []
        for _where, row in read_rows(file, run_map.layout):
            if isinstance(row, dict):
                rows.append(row)
                if len(rows) >= CHECK_ROWS:
                    break
        if not rows:
            continue
        for role, text in declared.items():
            parsed = parse_path(text)
            if not any(_resolves(row, parsed) for row in rows):
                return (f"{file}: map {run_map.name!r} reads field {text!r} ({role}), which none of its first "
                        f"{len(rows)} rows has")
        if run_map.companion:
            companion = file.parent / run_map.companion
            if not companion.is_file():
                return f"{file}: map {run_map.name!r} needs the companion file {companion}, which does not exist"
            parsed = parse_path(run_map.companion_problem)
            first = [row for _i, (_w, row) in zip(range(CHECK_ROWS), read_jsonl(companion)) if isinstance(row, dict)]
            if first and not any(_resolves(row, parsed) for row in first):
                return (f"{companion}: map {run_map.name!r} reads field {run_map.companion_problem!r} (statement), "
                        f"which none of its first {len(first)} rows has")
    return None


def _resolves(row: dict, path: tuple) -> bool:
    try:
        resolve(row, path)
    except FieldMissing:
        return False
    return True
