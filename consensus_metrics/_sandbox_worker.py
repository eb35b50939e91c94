"""The sandbox worker process: answers requests on stdin (a JSON line each, long string arguments
as raw UTF-8 after it: :func:`consensus_metrics.sandbox.encode_request`) with JSON lines on stdout
(see :mod:`.sandbox`).

Runs only whitelisted operations on strings: ``ping``, ``verify`` (math-verify answer check),
``equivalent`` (symbolic equivalence of two small validated LaTeX spans). It is single-threaded,
so math-verify's own ``signal.alarm`` timeouts work here as an inner guard; the parent process
enforces the hard deadline by killing this process.
"""

from __future__ import annotations

import json
import math
import os
import sys


def _limit_memory():
    limit = int(os.environ.get("CONSENSUS_SANDBOX_MEMORY", "0") or 0)
    if limit > 0:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):
            pass


def main() -> None:
    _limit_memory()
    from consensus_metrics import answer, symbolic

    handlers = {
        "ping": lambda args, timeout: "pong",
        "verify": lambda args, timeout: answer.verify_in_process(args["gold"], args["pred"], max(1, math.ceil(timeout))),
        "equivalent": lambda args, timeout: symbolic.equivalent_in_process(args["a"], args["b"], args["mode"]),
    }
    # warm the parsers up before announcing readiness: first calls are slow, and start-up is
    # not charged to any request's budget
    try:
        answer.verify_in_process("\\frac{1}{2}", "so $x = \\boxed{0.5}$", 5)
        symbolic.equivalent_in_process("x^{2}+1", "1+x^{2}", "expr")
    except Exception:
        pass
    from consensus_metrics.heap import settle
    from consensus_metrics.sandbox import read_request

    settle()  # sympy and math-verify live as long as this process: no collection walks them again

    out = sys.stdout
    out.write(json.dumps({"id": "ready"}) + "\n")
    out.flush()
    stdin = sys.stdin.buffer
    while True:
        req = None
        try:
            req = read_request(stdin)  # a JSON line, then the raw UTF-8 of long string arguments
            if req is None:  # the parent closed the pipe
                break
            handler = handlers[req["op"]]
            reply = {"id": req["id"], "result": handler(req.get("args", {}), float(req.get("timeout", 1.0)))}
        except Exception as exc:  # reported to the caller, the worker keeps serving
            reply = {"id": req.get("id") if isinstance(req, dict) else None, "error": f"{type(exc).__name__}: {exc}"[:500]}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
