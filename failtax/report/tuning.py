"""The report's backtest step: the tuner's rolling backtest, summarised for the page.

:func:`run_backtests` calls :func:`failtax.tune.rolling_backtest` per taxonomy;
:func:`backtest_rows` flattens the results into the rows
:func:`~failtax.report.plots.plot_backtest` reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

__all__ = ["backtest_rows", "run_backtests"]


def run_backtests(decisions: pl.DataFrame, *, taxonomies: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Rolling backtests per taxonomy (empty until the tuner's backtest is available)."""
    return {}


def backtest_rows(backtests: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (taxonomy, cut-off) for the backtest plot."""
    rows: list[dict[str, Any]] = []
    for tax, bt in backtests.items():
        for r in bt.get("cutoffs", []):
            rows.append({"taxonomy": tax, **r})
    return rows
