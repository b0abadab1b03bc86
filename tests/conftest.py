"""Shared fixtures: fresh directories and real files per test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


#: The CLI as a real subprocess (the installed entry point's module).
CLI = (sys.executable, "-c", "from failtax.cli import main; main()")


@pytest.fixture
def failtax_cmd() -> list[str]:
    """The CLI as a real subprocess (the installed entry point's module)."""
    return list(CLI)


@pytest.fixture(scope="session")
def shared_tmp(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all test workers of this run share (pytest-xdist), else this run's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if hasattr(request.config, "workerinput") else base


@pytest.fixture(scope="session")
def _pattern_cache(shared_tmp: Path) -> Path:
    """One folder of compiled pattern databases for the whole run, shared by the test
    workers and the CLI subprocesses (not the user's own cache)."""
    return shared_tmp / "pattern-cache"


@pytest.fixture(autouse=True)
def _test_environment(monkeypatch: pytest.MonkeyPatch, _pattern_cache: Path) -> None:
    """Every test: the run's pattern cache, no colour codes, a fixed hash seed."""
    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(_pattern_cache))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("PYTHONHASHSEED", os.environ.get("PYTHONHASHSEED", "0"))


@pytest.fixture(scope="session")
def shared_runs(shared_tmp: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """Simulated telemetry in a folder laid out like a checkout (``data/``) and one
    ``failtax report`` with no arguments run there, made once per run even when several
    workers ask for it (another waits for it and reuses it). Tests read it, never write
    into it."""
    import fcntl

    root = shared_tmp / "report-checkout"
    root.mkdir(exist_ok=True)
    with open(root.parent / "report-checkout.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "run.json"
        if not done.exists():
            env = {**os.environ, "NO_COLOR": "1"}

            def run(*args: str) -> subprocess.CompletedProcess[str]:
                return subprocess.run([*CLI, *args], cwd=root, capture_output=True, text=True, timeout=240, env=env)

            r = run("simulate", "--out", "data", "--events", "1500", "--weeks", "8", "--seed", "11")
            assert r.returncode == 0, r.stderr
            r = run("report")  # no arguments: finds ./data, writes ./report
            done.write_text(json.dumps({"returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr}))
    saved = json.loads(done.read_text())
    return root, subprocess.CompletedProcess(["failtax", "report"], saved["returncode"], saved["stdout"],
                                             saved["stderr"])


@pytest.fixture(scope="session")
def checkout(shared_runs) -> Path:
    """A folder with ``data/`` holding simulated telemetry (all families, planted defects)."""
    return shared_runs[0]


@pytest.fixture(scope="session")
def default_run(shared_runs) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``failtax report`` with no arguments, run from the checkout: (the run, its folder)."""
    return shared_runs[1], shared_runs[0] / "report"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The grouped tests first (``--dist loadgroup``): each group runs whole on one worker,
    so a group handed out late (Spark, the report) keeps that worker busy after the other
    has run out of tests; handed out first, the ungrouped tests fill in around it. The
    order is the same on every worker (xdist requires it), and within a group it is kept."""
    def group(item: pytest.Item) -> int:
        mark = item.get_closest_marker("xdist_group")
        if mark is None:
            return 2
        return 0 if (mark.args[0] if mark.args else mark.kwargs.get("name")) == "spark" else 1
    items.sort(key=group)  # a stable sort: collection order within each rank
