"""DAPO-Math-17K in verl's parquet layout: problems and integer answers, no solutions.

One row per problem (``RAW/dapo_math_17k/dapo_math_17k.parquet``: node_builder/README.md, "Raw sources")::

    {"data_source": "DAPO-17k", "prompt": [{"role": "user", "content": PROBLEM}], "ability": "math",
     "reward_model": {"ground_truth": "34", "style": "rule"},
     "extra_info": {"index": 0, "split": "train", "answer": ""}}

Output: ``Problem(id="dapo/<extra_info.index>", answer=ground_truth, trajectories=[])`` in row
order; the trajectories come from sampling (``--backend``). The problem is the content of the
prompt's only user message; the DAPO instruction template around it ("Solve the following math
problem step by step. The last line of your response should be of the form Answer: ..."), which
the upstream file keeps in every prompt, is removed: the builder asks for ``\\boxed{}`` itself.

Bad input never stops the import; each item is one :class:`Skipped` naming ``file:row N``
(rows count from 0, as pyarrow and pandas do; ``extra_info.index`` equals the row here):

* a row without a user message, a ground truth, or an index; a ground truth that is not an
  integer (every DAPO answer is one);
* a row whose index an earlier row already uses (two problems never share an id);
* a row whose statement (whitespace aside) repeats an earlier row's: with the same answer it is
  a duplicate and is skipped; with another answer the gold is ambiguous and every row of that
  statement is skipped (the raw file: 17917 rows, 17188 distinct statements, 12 of them with two
  answers, e.g. "the greatest power of 2 that is a factor of ..." with ``64`` and ``6``; so
  17176 problems, 717 duplicates and 24 ambiguous rows);
* a file that is not parquet or lacks a column: one line for the file; a row group that cannot
  be decoded: one line for its rows (the other row groups are kept).

Reading needs ``pyarrow`` (the ``data`` or ``train`` extra).

Example:
    >>> import tempfile, os, pyarrow as pa, pyarrow.parquet as pq
    >>> p = os.path.join(tempfile.mkdtemp(), "d.parquet")
    >>> row = lambda i, q, gt: {"prompt": [{"role": "user", "content": q}],
    ...     "reward_model": {"ground_truth": gt, "style": "rule"}, "extra_info": {"index": i}}
    >>> pq.write_table(pa.Table.from_pylist([row(0, "1+1?", "2"), row(1, "1/2?", "0.5"),
    ...                                      row(2, "1+1?", "2")]), p)
    >>> result = load(p)
    >>> [(x.id, x.problem, x.answer) for x in result.problems]
    [('dapo/0', '1+1?', '2')]
    >>> [s.reason for s in result.skipped]
    ["ground truth '0.5' is not an integer", 'duplicate of row 0 (dapo/0): same statement and answer']
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from node_builder.importers.result import ImportResult
from node_builder.schema import BadInput, Problem, Skipped

#: The columns a row needs (``data_source``, ``ability`` are not used).
COLUMNS = ("prompt", "reward_model", "extra_info")
#: The instruction DAPO wraps around each problem (BytedTsinghua-SIA/DAPO-Math-17k).
TEMPLATE_PREFIX = ("Solve the following math problem step by step. The last line of your response should be "
                   "of the form Answer: $Answer (without quotes) where $Answer is the answer to the problem.")
TEMPLATE_SUFFIX = 'Remember to put your answer on its own line after "Answer:".'
_INTEGER = re.compile(r"[+-]?\d+")


def parquet_files(path: str | Path) -> list[Path]:
    """The parquet files of a source path: the file itself, or a folder's ``*.parquet`` by name."""
    path = Path(path)
    return sorted(path.glob("*.parquet")) if path.is_dir() else [path]


def strip_template(text: str) -> str:
    """The problem inside DAPO's instruction template (text without it is returned stripped).

    >>> strip_template(TEMPLATE_PREFIX + "\\n\\nFind $x$.\\n\\n" + TEMPLATE_SUFFIX)
    'Find $x$.'
    """
    text = text.strip()
    if text.startswith(TEMPLATE_PREFIX):
        text = text[len(TEMPLATE_PREFIX):]
    if text.endswith(TEMPLATE_SUFFIX):
        text = text[:-len(TEMPLATE_SUFFIX)]
    return text.strip()


def _field(row: dict, key: str, sub: str, where: str):
    outer = row.get(key)
    if not isinstance(outer, dict) or outer.get(sub) is None:
        raise BadInput(where, f"field {key}.{sub} missing")
    return outer[sub]


def parse_row(row: dict, where: str) -> tuple[str, str, str]:
    """``(id, problem, answer)`` of one row, or :class:`BadInput` naming the field."""
    prompt = row.get("prompt")
    users = [m for m in prompt if isinstance(m, dict) and m.get("role") == "user"] if isinstance(prompt, list) else []
    if len(users) != 1 or not isinstance(users[0].get("content"), str):
        raise BadInput(where, f"field prompt: expected one user message with a string content, got {prompt!r:.120}")
    problem = strip_template(users[0]["content"])
    if not problem:
        raise BadInput(where, "field prompt: the user message is empty")
    truth = _field(row, "reward_model", "ground_truth", where)
    text = str(truth).strip() if isinstance(truth, (str, int)) and not isinstance(truth, bool) else None
    if text is None or not _INTEGER.fullmatch(text):
        raise BadInput(where, f"ground truth {truth!r} is not an integer")
    index = _field(row, "extra_info", "index", where)
    if isinstance(index, bool) or not isinstance(index, (int, str)) or not str(index).strip():
        raise BadInput(where, f"field extra_info.index is not an integer or a name: {index!r}")
    return f"dapo/{str(index).strip()}", problem, str(int(text))


def _read_rows(file: Path, skipped: list[Skipped]):
    """``(row number, row dict)`` of a parquet file; a file-level failure is one ``Skipped``."""
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # an environment problem, not bad input: say what to install
        raise ImportError("the dapo importer reads parquet with pyarrow: pip install pyarrow "
                          "(or the project's 'data' extra)") from exc
    import pyarrow as pa

    try:
        reader = pq.ParquetFile(file)
    except (pa.ArrowException, OSError) as exc:
        skipped.append(Skipped(str(file), f"not a readable parquet file ({type(exc).__name__}: {exc})"))
        return
    missing = [c for c in COLUMNS if c not in reader.schema_arrow.names]
    if missing:
        skipped.append(Skipped(str(file), f"not verl's layout: no column {', '.join(missing)} "
                                          f"(columns: {', '.join(reader.schema_arrow.names)})"))
        return
    row_no = 0
    for group in range(reader.num_row_groups):
        size = reader.metadata.row_group(group).num_rows
        try:
            rows = reader.read_row_group(group, columns=list(COLUMNS)).to_pylist()
        except (pa.ArrowException, OSError) as exc:
            last = f"-{row_no + size - 1}" if size > 1 else ""
            skipped.append(Skipped(f"{file}:row {row_no}", f"row{'s' if last else ''} {row_no}{last} unreadable "
                                                           f"(row group {group}: "
                                                           f"{type(exc).__name__}: {exc}); the other rows are kept"))
            row_no += size
            continue
        for row in rows:
            yield row_no, row
            row_no += 1


def _relative(other: str, where: str) -> str:
    """``row N`` when ``other`` is in the file of ``where``, else the whole ``file:row N``."""
    file, row = other.rsplit(":", 1)
    return row if where.rsplit(":", 1)[0] == file else other


def load(path: str | Path, benchmark: str = "dapo") -> ImportResult:
    """Problems of every parquet file under ``path`` (see the module doc); skips in row order."""
    result = ImportResult()
    files = parquet_files(path)
    if not files:
        result.skipped.append(Skipped(str(path), "folder holds no *.parquet file"))
    kept: list[tuple[str, str, str, str]] = []  # (where, id, problem, answer) before the duplicate check
    skipped: list[tuple[tuple[int, int], Skipped]] = []  # ((file, row), item): reported in row order
    by_id: dict[str, str] = {}
    for n, file in enumerate(files):
        file_skips: list[Skipped] = []
        for row_no, row in _read_rows(file, file_skips):
            where = f"{file}:row {row_no}"
            try:
                pid, problem, answer = parse_row(row, where)
                if pid in by_id:
                    raise BadInput(where, f"index already used by {by_id[pid]} ({pid})")
            except BadInput as exc:
                file_skips.append(Skipped(exc.where, exc.reason))
                continue
            by_id[pid] = where
            kept.append((where, pid, problem, answer))
        skipped += [((n, _row_of(s.where)), s) for s in file_skips]
    by_statement: dict[str, list[int]] = defaultdict(list)
    for i, (_where, _pid, problem, _answer) in enumerate(kept):
        by_statement[" ".join(problem.split())].append(i)
    file_number = {str(file): n for n, file in enumerate(files)}
    for where, pid, problem, answer in kept:
        rows = by_statement[" ".join(problem.split())]
        first_where, first_pid, _, _ = kept[rows[0]]
        answers = sorted({kept[i][3] for i in rows}, key=lambda a: (len(a), a))
        key = (file_number[where.rsplit(":", 1)[0]], _row_of(where))
        if len(answers) > 1:
            others = [_relative(kept[i][0], where) for i in rows if kept[i][0] != where]
            skipped.append((key, Skipped(where, f"ambiguous gold: the same statement at {', '.join(others)} "
                                                f"has another answer ({' vs '.join(answers)})", pid)))
        elif first_where != where:
            skipped.append((key, Skipped(where, f"duplicate of {_relative(first_where, where)} ({first_pid}): "
                                                "same statement and answer", pid)))
        else:
            result.problems.append(Problem(id=pid, benchmark=benchmark, problem=problem, answer=answer,
                                           origin=where))
    result.skipped += [item for _key, item in sorted(skipped, key=lambda pair: pair[0])]
    return result


def _row_of(where: str) -> int:
    """The row number of ``file:row N`` (-1 for a whole file)."""
    head, sep, row = where.rpartition(":row ")
    return int(row) if sep and row.isdigit() else -1
