"""The report page in a real browser: headless Chromium renders its plots, not a blank page.

The page is the report with no arguments that the report tests share (``conftest.py``).
It is screenshotted twice: as written, and with every embedded plot swapped for a
white PNG of the same size (so the layout is identical). Where the two screenshots
differ is where the plots are drawn; there the real page must show colour and detail,
and the white twin nothing. Chromium is Debian's (``.ci/run`` installs it when missing).
"""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

# The report it renders is the one the report tests share: on their worker (--dist loadgroup).
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("report")]


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    if os.path.exists("/usr/bin/chromium"):
        return "/usr/bin/chromium"
    pytest.fail("headless Chromium is needed for this test and was not found: install it "
                "(`apt-get install chromium`, as .ci/run does) or put it on PATH")


def _screenshot(html: Path, png: Path, profile: Path) -> np.ndarray:
    args = [
        _chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--hide-scrollbars", f"--user-data-dir={profile}", f"--screenshot={png}", "--window-size=1280,4000",
        html.resolve().as_uri(),
    ]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert png.exists(), f"chromium wrote no screenshot (exit {r.returncode}): {r.stderr[-2000:]}"
    return np.asarray(Image.open(png).convert("RGB"), dtype=np.int16)


def _white_twin(html: str) -> str:
    """``html`` with every embedded PNG replaced by a white PNG of the same pixel size."""

    def blank(m: re.Match[str]) -> str:
        w, h = Image.open(io.BytesIO(base64.b64decode(m.group(1)))).size
        buf = io.BytesIO()
        Image.new("RGB", (w, h), "white").save(buf, format="PNG")
        return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")

    out, n = re.subn(r"data:image/png;base64,([A-Za-z0-9+/=]+)", blank, html)
    assert n == 7
    return out


def _runs(mask: np.ndarray, min_len: int) -> list[tuple[int, int]]:
    """Contiguous runs of True in a 1-D mask at least ``min_len`` long, as (start, stop)."""
    out, start = [], None
    for i, v in enumerate(np.append(mask, False)):
        if v and start is None:
            start = i
        elif not v and start is not None:
            if i - start >= min_len:
                out.append((start, i))
            start = None
    return out


def test_chromium_renders_the_plots(default_run, tmp_path: Path) -> None:
    r, out = default_run  # ``failtax report`` on simulated telemetry (conftest.py)
    assert r.returncode == 0, r.stderr
    page = out / "index.html"
    twin = tmp_path / "twin.html"  # the page is self-contained: it renders from anywhere
    twin.write_text(_white_twin(page.read_text(encoding="utf-8")), encoding="utf-8")

    real = _screenshot(page, tmp_path / "real.png", tmp_path / "profile-a")
    blank = _screenshot(twin, tmp_path / "blank.png", tmp_path / "profile-b")
    assert real.shape == blank.shape == (4000, 1280, 3)

    # Not a blank page: text, cards and plots put ink on a good part of it.
    ink = (real < 235).any(axis=2)
    assert ink.mean() > 0.05, f"only {ink.mean():.1%} of the screenshot is not white"

    # Where the two differ, the plots are drawn: several tall regions (the first plots
    # fit in the 4000-pixel window), each colourful and detailed, each white in the twin.
    differs = (np.abs(real - blank).sum(axis=2) > 30)
    regions = _runs(differs.any(axis=1), min_len=150)
    assert len(regions) >= 3, f"plots found in the screenshot at rows {regions}"
    coloured = 0
    for top, bottom in regions:
        band, twin_band = real[top:bottom], blank[top:bottom]
        cols = differs[top:bottom].any(axis=0)
        band, twin_band = band[:, cols], twin_band[:, cols]
        assert (band < 235).any(axis=2).mean() > 0.05, (top, bottom)
        colours = np.unique((band // 16).reshape(-1, 3), axis=0)
        assert len(colours) > 40, f"rows {top}-{bottom}: only {len(colours)} colours"
        saturated = (band.max(axis=2) - band.min(axis=2)) > 60
        coloured += saturated.mean() > 0.003  # a thin coloured line is enough
        assert (twin_band >= 235).all(axis=2).mean() > 0.97
    assert coloured >= len(regions) - 1, "the plots show no coloured marks (lines, bars, heatmap cells)"
