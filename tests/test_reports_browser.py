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
    names = ["greedy-192", "greedy-64", "sampled", "pass16", "think", "think-traces", "scores-only"]
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
    labels = ("greedy-192", "greedy-64", "sampled #1", "sampled #2", "pass16", "think",
              "think-traces", "scores-only")
    assert len(rows) == len(labels)
    for label in labels:
        assert f">{label}</td>" in body
    assert len(re.findall(r'<img alt="[^"]*" src="data:image/png;base64,', dom)) >= 5
    assert 'id="mismatch-table"' in dom and 'id="comparison-table"' in dom


# --- the demo page (make demo): real models side by side with an lm_eval run of the embedded model -

@pytest.fixture(scope="module")
def demo_page(tmp_path_factory):
    from models.embedded_model import ensure_embedded_model
    from reports.demo import run as demo

    out = tmp_path_factory.mktemp("demo")
    demo.prepare(out, tokenizer=str(ensure_embedded_model()))
    # the embedded row: a real lm_eval run of SmolLM2 (the fixture; make demo runs lm_eval itself)
    shutil.copytree(FIXTURES / "greedy-192", out / "embedded")
    return demo.report(out)


def board_rows(dom: str) -> dict[str, dict[str, float]]:
    """``{run label: {column label: sort value}}`` of the leaderboard in the browser's DOM (for a
    label that several benchmark groups share, the first group's)."""
    table = re.search(r'<table class="board" id="leaderboard-table">(.*?)</table>', dom, re.S).group(1)
    head, body = table.split("<tbody>", 1)
    labels = re.findall(r'<th class="sortable[^"]*"[^>]*>([^<]*)</th>', head)
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = re.findall(r'<td class="[^"]*" data-sort="([^"]*)">', row)
        row_cells: dict[str, str] = {}
        for label, cell in zip(labels, cells):
            row_cells.setdefault(label, cell)  # the first group is math500 (benchmark order)
        rows[cells[0]] = row_cells
    return rows


@pytest.mark.slow
def test_demo_page_shows_real_models_beside_the_embedded_one(demo_page, tmp_path):
    dom = chromium(tmp_path, "--dump-dom", demo_page.as_uri()).stdout
    rows = board_rows(dom)
    real = {label: row for label, row in rows.items() if not label.startswith("SmolLM2")}
    assert len(real) == 6 and any(label.startswith("SmolLM2") for label in rows)
    scored = [label for label, row in real.items() if float(row["Acc"]) > 0 and float(row["NCR"]) > 0]
    assert len({label.split(" #")[0] for label in scored}) >= 3, rows
    # every real model against the nodes built without it (reports/demo/nodes/<model>.jsonl)
    assert all(f"nodes/{label.split(' #')[0]}.jsonl" in row["Nodes scored against"] for label, row in real.items())
    assert all("no votes of" in row["Nodes scored against"] for row in real.values())
    assert 'id="about"' in dom and "Apache-2.0" in dom
    assert len(re.findall(r'<img alt="[^"]*" src="data:image/png;base64,', dom)) >= 7  # a plot per metric, ...
    levels = re.search(r'<table id="levels-table">(.*?)</table>', dom, re.S).group(1)
    assert all(f"Level {level}" in levels for level in range(1, 6))
    for category in ("c-right-covered", "c-right-missing", "c-near-miss", "c-wrong-uncovered"):
        assert re.search(rf'<span class="pill {category}">[^<]*</span> Sky-T1', dom), category  # a real example
    shot = tmp_path / "demo.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,2000", demo_page.as_uri())
    pixels = mpimg.imread(shot)[..., :3]
    assert float(np.var(pixels)) > 0.01
