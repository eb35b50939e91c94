"""reports: index.html rendered by a real headless Chromium (Debian's `chromium` package).

The page must show something (the screenshot is not blank) and the browser's DOM must hold the
leaderboard table with one row per run, after the inline script ran. Skipped only when no
chromium binary is installed (CI installs it: `apt-get install -y chromium`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image as mpimg

from reports.build import ReportOptions, build_report

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "reports"
CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(name)), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium binary on PATH (Debian: apt-get install -y chromium)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser")
    names = ["greedy-192", "greedy-64", "sampled", "pass16", "think", "think-traces"]
    build_report([str(FIXTURES / name) for name in names], out,
                 ReportOptions(baseline="greedy-192"))
    return out / "index.html"


def test_screenshot_is_not_blank(page, tmp_path):
    shot = tmp_path / "shot.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,2000", page.as_uri())
    pixels = mpimg.imread(shot)[..., :3]
    assert pixels.shape[:2] == (2000, 1400)
    assert float(np.var(pixels)) > 0.01  # a blank or single-colour page has ~0 variance
    # many distinct colours: text, table rules and the embedded plots were painted
    colours = np.unique((pixels.reshape(-1, 3) * 255).astype(np.uint8), axis=0)
    assert len(colours) > 200


def test_dom_has_the_leaderboard_and_figures(page, tmp_path):
    dom = chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    table = re.search(r'<table class="board" id="leaderboard-table">(.*?)</table>', dom, re.S)
    assert table, dom[:2000]
    body = table.group(1).split("<tbody>", 1)[1]
    rows = re.findall(r"<tr>", body)
    assert len(rows) == 7  # greedy-192, greedy-64, sampled #1/#2, pass16, think, think-traces
    for label in ("greedy-192", "greedy-64", "sampled #1", "sampled #2", "pass16", "think",
                  "think-traces"):
        assert f">{label}</td>" in body
    assert len(re.findall(r'<img alt="[^"]*" src="data:image/png;base64,', dom)) >= 5
    assert 'id="mismatch-table"' in dom and 'id="comparison-table"' in dom
