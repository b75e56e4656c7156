"""End to end: a rendered page opens in headless Chromium from disk, with nothing fetched, and draws."""

import shutil
import subprocess

import pytest
from PIL import Image

from senso.reporting.run_page import write_run_report

WIDTH, HEIGHT = 1280, 2000


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")


def test_admire_page_renders_in_headless_chromium(admire_runs, run_copy, tmp_path):
    browser = chromium()
    page = write_run_report(run_copy(admire_runs["A0"]))
    shot = tmp_path / "shot.png"
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}",
           page.resolve().as_uri()]
    completed = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0 and shot.exists(), completed.stderr[-2000:]
    shutil.copy(shot, tmp_path.parent / "last_chromium_shot.png")  # to look at after a failure
    with Image.open(shot) as image:
        assert image.size == (WIDTH, HEIGHT)
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20)
        # a blank page has one or two colours; text, tables, the heat map and thumbnails give hundreds
        assert colours is not None and len(colours) > 200
        def near(target, tolerance=12):
            return sum(n for n, c in colours if all(abs(a - b) <= tolerance for a, b in zip(c, target)))
        # the red frame of the warnings box (#c0392b) is drawn, and the blue shades of the heat map and plots
        assert near((192, 57, 43)) > 2000
        assert sum(n for n, (r, g, b) in colours if b > r + 40 and b > g + 20) > 2000
