"""The docstring examples of every module hold. (The analysis modules, the Parquet writer
and the Spark modules run theirs in their own test files.)"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import failtax

RUN_ELSEWHERE = ("failtax.analysis.", "failtax.spark", "failtax.telemetry.parquet")
MODULES = sorted(m.name for m in pkgutil.walk_packages(failtax.__path__, "failtax.")
                 if not m.name.startswith(RUN_ELSEWHERE))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_modules_with_examples_are_found() -> None:
    """The list is not empty by accident: the modules known to hold examples are in it."""
    assert {"failtax.lint", "failtax.classify", "failtax.table", "failtax.telemetry.validate"} <= set(MODULES)
