"""``benchmarks/bench_rewards.py`` runs every reward mode it times by default, on a tiny real batch
(shipped records, the embedded model's tokenizer). The curriculum mode ``cl`` needs a training
clock, which TRL gives through ``trainer_state``; the script sets one as a trainer's hook would."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MODES = {"outcome/mv-only", "outcome", "linear", "max", "cl"}


def test_bench_rewards_times_every_default_mode():
    done = subprocess.run([sys.executable, "benchmarks/bench_rewards.py", "--n", "4", "--tokens", "64", "--workers",
                           "0", "--repeats", "1", "--skip-profile", "--skip-long", "--skip-guard"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    timed = {line.split()[0] for line in done.stdout.splitlines() if line.split() and line.split()[0] in DEFAULT_MODES}
    assert timed == DEFAULT_MODES, done.stdout[-2000:]
