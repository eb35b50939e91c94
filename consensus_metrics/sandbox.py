"""A killable helper process for the work that cannot be interrupted cooperatively.

math-verify and sympy can run for a long time on hostile input (``9^{9^{9^9}}``, huge
factorials) and their own timeouts use ``signal.alarm``, which only works on the main thread of
the main interpreter. So answer checks and symbolic equivalence run in a small persistent worker
process (:mod:`consensus_metrics._sandbox_worker`, one per thread of the caller) that is killed
and transparently restarted when a call overruns its deadline. The call itself returns on time
from any thread or worker process.

Starting a worker costs about half a second once (importing math-verify); that start-up is not
charged to a call's budget (bounded separately by ``STARTUP_TIMEOUT_S``). :func:`warmup` starts it
ahead of time.

>>> call("ping", {}, timeout=5.0)
'pong'
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

STARTUP_TIMEOUT_S = 60.0
#: Upper bound of the time limit the worker applies to one request (callers without a budget).
MAX_REQUEST_S = 600.0
#: Memory cap of a worker (address space), so a blow-up is an error, not a machine-wide OOM.
WORKER_MEMORY_BYTES = 4 * 1024**3


class SandboxTimeout(Exception):
    """The worker did not answer before the deadline (it has been killed)."""


class SandboxError(Exception):
    """The worker failed (crashed, or raised while handling the request)."""


#: String arguments at least this long travel as raw UTF-8 after the request line, not inside its
#: JSON: escaping a 20k-character completion for JSON and parsing it back cost more than 0.1 ms
#: on each side, a tenth of a node reward's own work.
BLOB_CHARS = 256


def encode_request(rid: int, op: str, args: dict, timeout: float) -> bytes:
    """One request: a JSON line ``{"id", "op", "args", "timeout"}``, and for each long string
    argument (:data:`BLOB_CHARS`) ``"blobs": [[name, bytes], ...]`` with the raw UTF-8 of those
    arguments after the line, in that order (lone surrogates kept); :func:`read_request` is the
    worker's side.

    >>> import io
    >>> data = encode_request(7, "verify", {"gold": "1", "pred": "x" * 300 + "é"}, 1.0)
    >>> request = read_request(io.BufferedReader(io.BytesIO(data)))
    >>> request["id"], request["args"]["gold"], len(request["args"]["pred"])
    (7, '1', 301)
    """
    blobs = {name: value.encode("utf-8", "surrogatepass") for name, value in args.items()
             if isinstance(value, str) and len(value) >= BLOB_CHARS}
    header = {"id": rid, "op": op, "args": {k: v for k, v in args.items() if k not in blobs}, "timeout": timeout}
    if blobs:
        header["blobs"] = [[name, len(blob)] for name, blob in blobs.items()]
    return json.dumps(header).encode() + b"\n" + b"".join(blobs.values())


def read_request(stream) -> dict | None:
    """The next request of :func:`encode_request` from a binary ``stream`` (None at its end)."""
    line = stream.readline()
    if not line:
        return None
    request = json.loads(line)
    for name, size in request.pop("blobs", ()):
        blob = stream.read(size)
        if len(blob) != size:
            return None
        request["args"][name] = blob.decode("utf-8", "surrogatepass")
    return request


class _Worker:
    def __init__(self):
        env = dict(os.environ)
        env.setdefault("PYTHONHASHSEED", "0")
        env["CONSENSUS_SANDBOX_MEMORY"] = str(WORKER_MEMORY_BYTES)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "consensus_metrics._sandbox_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
            bufsize=0,
        )
        self.owner = os.getpid()
        self.buffer = b""
        self.next_id = 0
        self._await("ready", time.monotonic() + STARTUP_TIMEOUT_S)

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None

    def kill(self):
        if self.owner != os.getpid():
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass
        try:
            self.proc.wait(timeout=5)
        except Exception:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except Exception:
                pass

    def _readline(self, deadline: float) -> bytes:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SandboxTimeout()
            ready, _, _ = select.select([fd], [], [], None if left == float("inf") else left)
            if not ready:
                raise SandboxTimeout()
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise SandboxError("sandbox worker exited")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def _await(self, want_id, deadline: float):
        while True:
            msg = json.loads(self._readline(deadline))
            if msg.get("id") == want_id:
                return msg

    def send(self, op: str, args: dict, timeout: float) -> int:
        self.next_id += 1
        rid = self.next_id
        timeout = min(timeout, MAX_REQUEST_S)  # no limit from the caller still means a finite one here
        data = encode_request(rid, op, args, timeout)
        try:
            view = memoryview(data)
            while view:  # a pipe may take a long request in parts
                view = view[self.proc.stdin.write(view):]
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, TypeError) as exc:
            raise SandboxError(f"sandbox worker unavailable: {exc}") from None
        return rid

    def receive(self, rid: int, deadline: float):
        msg = self._await(rid, deadline)
        if "error" in msg:
            raise SandboxError(msg["error"])
        return msg.get("result")

    def request(self, op: str, args: dict, timeout: float):
        rid = self.send(op, args, timeout)
        return self.receive(rid, time.monotonic() + timeout)


_local = threading.local()
_all_workers: list[_Worker] = []
_all_lock = threading.Lock()


def kills() -> int:
    """How many of this thread's workers were killed so far (a caller's budget ran out)."""
    return getattr(_local, "kills", 0)


def worker_pid() -> int | None:
    """The process id of this thread's live worker, or None (for measuring its CPU time)."""
    worker = getattr(_local, "worker", None)
    return worker.proc.pid if worker is not None and worker.alive() else None


def is_warm() -> bool:
    """Whether this thread has a live worker (so a call costs no start-up)."""
    worker = getattr(_local, "worker", None)
    return worker is not None and worker.alive()


def _discard(worker: _Worker):
    worker.kill()
    _local.kills = kills() + 1
    if getattr(_local, "worker", None) is worker:
        _local.worker = None


def _worker() -> _Worker:
    worker = getattr(_local, "worker", None)
    if worker is None or not worker.alive():
        worker = _Worker()
        _local.worker = worker
        with _all_lock:
            _all_workers.append(worker)
    return worker


def call(op: str, args: dict, timeout: float):
    """Run ``op`` in this thread's worker; raise :class:`SandboxTimeout` after ``timeout`` seconds.

    On a timeout or crash the worker is killed; the next call starts a fresh one.
    """
    worker = _worker()
    try:
        return worker.request(op, args, max(0.0, timeout))
    except (SandboxTimeout, SandboxError, ValueError):
        _discard(worker)
        raise


class Pending:
    """A request running in the worker while the caller does other work (see :func:`submit`)."""

    def __init__(self, worker: _Worker, rid: int, deadline: float):
        self.worker, self.rid, self.deadline = worker, rid, deadline

    def result(self):
        """Wait until the request's deadline at most; same errors as :func:`call`."""
        try:
            return self.worker.receive(self.rid, self.deadline)
        except (SandboxTimeout, SandboxError, ValueError):
            _discard(self.worker)
            raise


def submit(op: str, args: dict, timeout: float) -> Pending:
    """Start ``op`` in this thread's worker and return at once; collect with ``.result()``.

    Only one request may be pending per thread at a time.
    """
    worker = _worker()
    try:
        rid = worker.send(op, args, max(0.0, timeout))
    except SandboxError:
        _discard(worker)
        raise
    return Pending(worker, rid, time.monotonic() + max(0.0, timeout))


def warmup() -> None:
    """Start this thread's worker now (it is otherwise started by the first call that needs it)."""
    _worker()


@atexit.register
def _shutdown():
    with _all_lock:
        for worker in _all_workers:
            worker.kill()
        _all_workers.clear()
