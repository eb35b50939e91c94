"""Resumable work directory: per-problem results appended atomically, reruns skip what is done.

Layout of ``WORKDIR``::

    config.json     the settings: other inputs are refused (clear error); other build settings
                    or code set the old records aside and rebuild them (see :class:`Workdir`)
    samples.jsonl   generated trajectories, one line per problem id (only with a backend)
    records.jsonl   one line per finished problem: {"id", "record": {...}} or {"id", "skipped": why}

Every line is written with one ``os.write`` on an ``O_APPEND`` descriptor and fsync'ed, so a
kill leaves at most one torn last line; :class:`JsonlLog` truncates such a tail on open (and
says so). A rerun reads the finished ids and continues; the output file is assembled from the
log in source order, so an interrupted-and-resumed build is byte-identical to an uninterrupted
one.

Example:
    >>> import tempfile
    >>> log = JsonlLog(os.path.join(tempfile.mkdtemp(), "r.jsonl"))
    >>> log.append({"id": "a", "x": 1}); log.append({"id": "b", "x": 2})
    >>> sorted(JsonlLog(log.path).load())
    ['a', 'b']
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from consensus_metrics.records import LineError, describe_line_error, jsonl_values, loads


class WorkdirMismatch(RuntimeError):
    """The work dir belongs to a build with other settings."""


class WorkdirCorrupt(RuntimeError):
    """A work-dir file that cannot be read (a line or config edited or damaged by hand)."""


class JsonlLog:
    """An append-only JSONL file keyed by ``"id"``; tolerant of a torn last line."""

    def __init__(self, path: str | Path, fsync: bool = True):
        self.path = str(path)
        self.fsync = fsync
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._repair_tail()

    def _repair_tail(self) -> None:
        if not os.path.exists(self.path):
            return
        with open(self.path, "rb") as handle:
            data = handle.read()
        good = len(data)
        if data and not data.endswith(b"\n"):
            good = data.rfind(b"\n") + 1
        else:
            # a complete-looking last line can still be garbage only if written by someone else
            last_start = data.rfind(b"\n", 0, max(len(data) - 1, 0)) + 1
            try:
                if data[last_start:].strip():
                    loads(data[last_start:].decode("utf-8", "replace"))
            except json.JSONDecodeError:
                good = last_start
        if good != len(data):
            print(f"workdir: {self.path}: dropping a torn last line ({len(data) - good} bytes) "
                  "from an interrupted run; that problem is redone", file=sys.stderr)
            with open(self.path, "r+b") as handle:
                handle.truncate(good)

    def load(self) -> dict[str, dict[str, Any]]:
        """All entries by id (a later line for the same id wins)."""
        entries: dict[str, dict[str, Any]] = {}
        if not os.path.exists(self.path):
            return entries
        for lineno, entry, err in jsonl_values(self.path, encoding_errors="strict"):
            if err is None and not (isinstance(entry, dict) and isinstance(entry.get("id"), str)):
                err = LineError("not a work-dir entry (an object with an 'id')", lineno, 1)
            if err is not None:
                raise WorkdirCorrupt(f"{self.path}:{lineno}: corrupt work-dir line ({describe_line_error(err)}); "
                                     "delete the work dir to start over") from None
            entries[entry["id"]] = entry
        return entries

    def append(self, entry: dict[str, Any]) -> None:
        data = (json.dumps(entry, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, data)
            while written < len(data):  # regular files write fully; loop for safety
                written += os.write(fd, data[written:])
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)


class Workdir:
    """Pinned settings plus the two logs (see module doc).

    ``inputs`` (benchmark, sources, backend, sampling) pin the whole dir: a rerun with other
    inputs is refused, since the generated samples would no longer belong to it. ``build``
    (refine settings, extractor, builder version and the code fingerprint) pins only the
    records: when it changes, ``records.jsonl`` is set aside as ``records.stale-<time>.jsonl``
    and the problems are rebuilt from the kept samples — a code change never silently mixes
    old and new records, and never costs a regeneration.
    """

    def __init__(self, root: str | Path, inputs: dict[str, Any], build: dict[str, Any] | None = None,
                 fsync: bool = True):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        config_path = self.root / "config.json"
        wanted = json.loads(json.dumps({"inputs": inputs, "build": build or {}}))
        records_path = self.root / "records.jsonl"
        if config_path.exists():
            try:
                found = loads(config_path.read_text(encoding="utf-8"))
            except ValueError:  # not JSON, not UTF-8
                found = None
            found_inputs = found.get("inputs", found) if isinstance(found, dict) else None
            if not isinstance(found_inputs, dict):
                raise WorkdirCorrupt(f"{config_path}: corrupt work-dir settings; delete the work dir to start over")
            if found_inputs != wanted["inputs"]:
                diff = sorted(k for k in set(found_inputs) | set(wanted["inputs"])
                              if found_inputs.get(k) != wanted["inputs"].get(k))
                raise WorkdirMismatch(
                    f"{self.root} was started with other settings (differs in: {', '.join(diff)}); "
                    "use a new --workdir or delete this one")
            if found.get("build") != wanted["build"] and records_path.exists():
                stale = self.root / f"records.stale-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
                os.replace(records_path, stale)
                print(f"workdir: build settings or code changed since {self.root} was used; "
                      f"old records moved to {stale.name}, rebuilding (samples are kept)", file=sys.stderr)
        tmp = config_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(wanted, indent=2, sort_keys=True), encoding="utf-8")
        os.replace(tmp, config_path)
        self.samples = JsonlLog(self.root / "samples.jsonl", fsync=fsync)
        self.records = JsonlLog(records_path, fsync=fsync)


def code_fingerprint(*packages: str) -> str:
    """sha256 (16 hex) of the Python sources of ``packages``: records depend on the code."""
    import hashlib
    import importlib.util

    digest = hashlib.sha256()
    for name in packages:
        spec = importlib.util.find_spec(name)
        root = Path(list(spec.submodule_search_locations)[0])
        for file in sorted(root.rglob("*.py")):
            digest.update(f"{name}/{file.relative_to(root).as_posix()}".encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def write_jsonl_atomic(path: str | Path, rows: list[dict[str, Any]]) -> None:
    """Write rows to ``path`` via a temp file and ``os.replace`` (readers never see half a file;
    a failure leaves ``path`` as it was and no temp file behind)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            for row in rows:
                stream.write(json.dumps(row, ensure_ascii=False) + "\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
