"""``benchmarks/bench_rewards.py`` runs every reward mode it times by default, on a tiny real batch
(shipped records, the embedded model's tokenizer). The curriculum mode ``cl`` needs a training
clock, which TRL gives through ``trainer_state``; the script sets one as a trainer's hook would."""

import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _default_modes() -> set[str]:
    """The modes the script times by default (its ``DEFAULT_MODES``)."""
    spec = importlib.util.spec_from_file_location("bench_rewards", REPO / "benchmarks" / "bench_rewards.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return set(script.DEFAULT_MODES)


def test_bench_rewards_times_every_default_mode():
    done = subprocess.run([sys.executable, "benchmarks/bench_rewards.py", "--n", "4", "--tokens", "64", "--workers",
                           "0", "--repeats", "1", "--skip-profile", "--skip-long", "--skip-guard"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    modes = _default_modes()
    assert "cl" in modes
    timed = {line.split()[0] for line in done.stdout.splitlines() if line.split() and line.split()[0] in modes}
    assert timed == modes, done.stdout[-2000:]
