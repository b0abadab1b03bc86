"""Shared fixtures: fresh directories and real files per test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def failtax_cmd() -> list[str]:
    """The CLI as a real subprocess (the installed entry point's module)."""
    return [sys.executable, "-c", "from failtax.cli import main; main()"]


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
