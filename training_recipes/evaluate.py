"""Evaluate training checkpoints with the ConsensusBench lm-eval tasks (acc, ncr, tpn).

Runs the real ``lm_eval`` CLI on each checkpoint and writes the usual lm-eval output folder
(``results_<ts>.json`` + ``samples_<task>_<ts>.jsonl``) to ``<run_dir>/lm_eval/<checkpoint>/``,
so ``reports/`` compares training runs the same way it compares any model:

    python -m training_recipes.evaluate --run_dir runs/dapo_linear --tasks consensusbench_gsm8k \\
        --limit 50 --max_gen_toks 1024

Every ``checkpoint-*`` folder of the run, and the final model in ``run_dir`` itself, is evaluated;
one that already has a ``results_*.json`` is skipped (a killed evaluation resumes). During training,
:class:`LmEvalOnSaveCallback` does the same for each checkpoint as it is saved (``eval_tasks`` in
the recipe). ``CONSENSUSBENCH_DATA_DIR`` still overrides the tasks' data folder.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
from pathlib import Path

from transformers import TrainerCallback

__all__ = ["LmEvalOnSaveCallback", "checkpoints_of", "evaluate_checkpoint", "lm_eval_command", "main"]

logger = logging.getLogger(__name__)

TASKS_DIR = Path(__file__).resolve().parent.parent / "lm_eval_tasks" / "consensusbench"


def lm_eval_command(checkpoint: str | Path, tasks: list[str], output_path: str | Path, limit: int | None = None,
                    max_gen_toks: int = 2048, batch_size: str = "1", extra_model_args: str = "",
                    apply_chat_template: bool = True) -> list[str]:
    """The ``lm_eval`` command line for one checkpoint (HF backend).

    >>> cmd = lm_eval_command("runs/x/checkpoint-2", ["consensusbench_gsm8k"], "runs/x/lm_eval/checkpoint-2", limit=5)
    >>> cmd[3:7]
    ['--model', 'hf', '--model_args', 'pretrained=runs/x/checkpoint-2']
    """
    model_args = f"pretrained={checkpoint}"
    if extra_model_args:
        model_args += "," + extra_model_args.strip(",")
    cmd = [sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args", model_args,
           "--tasks", ",".join(tasks), "--include_path", str(TASKS_DIR),
           "--output_path", str(output_path), "--log_samples", "--batch_size", str(batch_size),
           "--gen_kwargs", f"max_gen_toks={int(max_gen_toks)}"]
    if apply_chat_template:
        cmd.append("--apply_chat_template")
    if limit is not None:
        cmd += ["--limit", str(limit)]
    return cmd


def has_results(output_path: str | Path) -> bool:
    """True when an lm-eval ``results_*.json`` already exists under ``output_path``."""
    return any(Path(output_path).rglob("results_*.json")) if Path(output_path).is_dir() else False


def evaluate_checkpoint(checkpoint: str | Path, tasks: list[str], output_path: str | Path, *, limit=None,
                        max_gen_toks: int = 2048, extra_model_args: str = "", skip_done: bool = True,
                        timeout_s: float | None = None) -> Path:
    """Run lm-eval on one checkpoint; return the output folder. Raises on a failed run."""
    checkpoint, output_path = Path(checkpoint), Path(output_path)
    if not (checkpoint / "config.json").is_file():
        raise FileNotFoundError(f"{checkpoint} is not a saved model (no config.json)")
    if skip_done and has_results(output_path):
        logger.info("lm-eval results already in %s: skipped", output_path)
        return output_path
    output_path.mkdir(parents=True, exist_ok=True)
    cmd = lm_eval_command(checkpoint, tasks, output_path, limit, max_gen_toks, extra_model_args=extra_model_args)
    env = {**os.environ, "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1"),
           "HF_DATASETS_OFFLINE": os.environ.get("HF_DATASETS_OFFLINE", "1")}
    logger.info("evaluating %s: %s", checkpoint, " ".join(cmd))
    with open(output_path / "lm_eval.log", "w", encoding="utf-8") as log:
        proc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=timeout_s, check=False)
    if proc.returncode != 0 or not has_results(output_path):
        tail = (output_path / "lm_eval.log").read_text(encoding="utf-8", errors="replace")[-2000:]
        raise RuntimeError(f"lm-eval failed on {checkpoint} (exit {proc.returncode}); log tail:\n{tail}")
    return output_path


def checkpoints_of(run_dir: str | Path) -> list[Path]:
    """``checkpoint-*`` folders in step order, then ``run_dir`` itself when it holds a final model."""
    run_dir = Path(run_dir)
    found = sorted((p for p in run_dir.glob("checkpoint-*") if p.is_dir() and (p / "config.json").is_file()),
                   key=lambda p: int(p.name.split("-")[-1]) if p.name.split("-")[-1].isdigit() else -1)
    if (run_dir / "config.json").is_file():
        found.append(run_dir)
    return found


def output_folder(run_dir: Path, checkpoint: Path) -> Path:
    return run_dir / "lm_eval" / ("final" if checkpoint.resolve() == run_dir.resolve() else checkpoint.name)


class LmEvalOnSaveCallback(TrainerCallback):
    """After each checkpoint save, run the ConsensusBench lm-eval tasks on it (main process only).

    Results go to ``<output_dir>/lm_eval/checkpoint-<step>/``. Training waits for the evaluation.
    """

    def __init__(self, tasks: list[str], limit: int | None = None, max_gen_toks: int = 2048,
                 extra_model_args: str = ""):
        if not tasks:
            raise ValueError("LmEvalOnSaveCallback needs at least one lm-eval task")
        self.tasks, self.limit, self.max_gen_toks, self.extra_model_args = list(tasks), limit, max_gen_toks, extra_model_args
        self.evaluated: list[Path] = []

    def on_save(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return control
        run_dir = Path(args.output_dir)
        checkpoint = run_dir / f"checkpoint-{state.global_step}"
        if checkpoint.is_dir():
            out = evaluate_checkpoint(checkpoint, self.tasks, output_folder(run_dir, checkpoint), limit=self.limit,
                                      max_gen_toks=self.max_gen_toks, extra_model_args=self.extra_model_args)
            self.evaluated.append(out)
        return control


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training_recipes.evaluate", description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--run_dir", help="training output_dir: evaluate every checkpoint-* and the final model")
    where.add_argument("--checkpoint", help="one saved model folder")
    parser.add_argument("--tasks", default="consensusbench", help="comma-separated lm-eval tasks or groups")
    parser.add_argument("--output_path", help="with --checkpoint: where lm-eval writes (default <ckpt>/lm_eval)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--max_gen_toks", type=int, default=2048)
    parser.add_argument("--model_args", default="", help="extra lm-eval --model_args, e.g. dtype=bfloat16")
    parser.add_argument("--force", action="store_true", help="re-run checkpoints that already have results")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    tasks = [t for t in args.tasks.split(",") if t]
    if args.checkpoint:
        jobs = [(Path(args.checkpoint), Path(args.output_path or Path(args.checkpoint) / "lm_eval"))]
    else:
        run_dir = Path(args.run_dir)
        jobs = [(c, output_folder(run_dir, c)) for c in checkpoints_of(run_dir)]
        if not jobs:
            parser.error(f"no saved model in {run_dir} (no checkpoint-*/config.json nor config.json)")
    from tqdm import tqdm

    for checkpoint, out in tqdm(jobs, desc="checkpoints", unit="ckpt"):
        evaluate_checkpoint(checkpoint, tasks, out, limit=args.limit, max_gen_toks=args.max_gen_toks,
                            extra_model_args=args.model_args, skip_done=not args.force)
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
