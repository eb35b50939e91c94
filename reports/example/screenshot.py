"""Render the top of a report page to the README's example PNG (headless Chromium + Pillow).

    make demo
    python reports/example/screenshot.py runs/demo/report/index.html reports/example/report.png

Chromium (Debian package ``chromium``, ``make chromium``) draws the page at ``--width`` x
``--height`` pixels; Pillow reduces it to a 256-colour PNG (a few hundred kB instead of MBs).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def screenshot(page: Path, out: Path, width: int = 1400, height: int = 1210) -> Path:
    """Write ``out`` (a quantised PNG of the top of ``page``)."""
    from PIL import Image

    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                   None)
    if browser is None:
        raise SystemExit("no chromium on PATH (make chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "shot.png"
        subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp}/profile", f"--screenshot={raw}",
                        f"--window-size={width},{height}", page.resolve().as_uri()],
                       check=True, capture_output=True, timeout=180)
        image = Image.open(raw).convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE)
        out.parent.mkdir(parents=True, exist_ok=True)
        image.save(out, optimize=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path, help="the report's index.html")
    parser.add_argument("out", type=Path, help="PNG to write")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1210)
    args = parser.parse_args(argv)
    print(screenshot(args.page, args.out, args.width, args.height))
    return 0


if __name__ == "__main__":
    sys.exit(main())
