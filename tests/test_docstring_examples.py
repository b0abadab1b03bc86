"""The docstring examples of every module hold. (The analysis modules, the Parquet writer
and the Spark modules run theirs in their own test files.)"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import failtax

RUN_ELSEWHERE = ("failtax.analysis.", "failtax.spark", "failtax.telemetry.parquet")
#: Modules known to hold examples: finding none in them is a failure, not a pass.
WITH_EXAMPLES = {"failtax.lint", "failtax.classify", "failtax.table", "failtax.telemetry.validate",
                 "failtax._scan", "failtax.report.tuning"}
MODULES = sorted(m.name for m in pkgutil.walk_packages(failtax.__path__, "failtax.")
                 if not m.name.startswith(RUN_ELSEWHERE))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0 or name not in WITH_EXAMPLES, f"no examples found in {name}"


def test_the_modules_with_examples_are_found() -> None:
    """The list is not empty by accident: the modules known to hold examples are in it."""
    assert WITH_EXAMPLES <= set(MODULES)
