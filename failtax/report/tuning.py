"""The report's backtest step: the tuner's leakage-free backtest at a few cut-offs.

For each taxonomy, :func:`run_backtests` calls :func:`failtax.tune.backtest.backtest`
(fit on events and decisions known before a cut-off, replay the shipped and the tuned
table on the weeks from it on) at up to ``n_cutoffs`` week boundaries, the last one
leaving about a quarter of the weeks to judge on (the tuner's
:func:`~failtax.tune.backtest.default_cutoff`). The last cut-off is the headline: the
proposed table is *recommended* only when the lower bound of its gain there is above
zero. :func:`backtest_rows` flattens the results into the rows
:func:`~failtax.report.plots.plot_backtest` reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import polars as pl

from failtax.errors import InputError

__all__ = ["backtest_cutoffs", "backtest_rows", "run_backtests"]


def backtest_cutoffs(decisions: pl.DataFrame, *, n_cutoffs: int = 3, min_train_weeks: int = 3) -> list[datetime]:
    """Week boundaries to cut at: the tuner's default cut-off and up to ``n_cutoffs - 1``
    earlier ones, two weeks apart, each leaving ``min_train_weeks`` weeks to fit on.

    >>> import datetime as dt
    >>> df = pl.DataFrame({"ts": [dt.datetime(2026, 9, 7) + dt.timedelta(days=d) for d in range(0, 84, 3)]})
    >>> [c.date().isoformat() for c in backtest_cutoffs(df)]
    ['2026-10-12', '2026-10-26', '2026-11-09']
    """
    from failtax.tune.backtest import default_cutoff

    if decisions.height == 0:
        return []
    last = default_cutoff(decisions)
    ts = decisions["ts"].drop_nulls()
    lo = ts.min()
    first_week = datetime(lo.year, lo.month, lo.day) - timedelta(days=lo.weekday())
    earliest = first_week + timedelta(weeks=min_train_weeks)
    out = [last - timedelta(weeks=2 * i) for i in range(max(n_cutoffs, 1))]
    return sorted(c for c in out if c >= earliest)


def run_backtests(decisions: pl.DataFrame, *, taxonomies: Sequence[str], n_cutoffs: int = 3,
                  random_state: int = 0) -> dict[str, dict[str, Any]]:
    """Backtest the tuner per taxonomy at a few cut-offs.

    Parameters
    ----------
    decisions : the decisions (polars) the report covers.
    taxonomies : the taxonomies to backtest.
    n_cutoffs : cut-offs per taxonomy (see :func:`backtest_cutoffs`).
    random_state : passed to the tuner.

    Returns
    -------
    dict
        taxonomy → ``{"cutoff", "n", "old_rate", "old_low", "old_high", "new_rate",
        "new_low", "new_high", "gain", "gain_low", "gain_high", "n_changes", "moved",
        "recommended", "reason", "cutoffs": [rows …]}``: the headline (last) cut-off's
        numbers and one row per cut-off. A taxonomy with too few weeks is left out.
    """
    from failtax.tune.backtest import backtest

    out: dict[str, dict[str, Any]] = {}
    for tax in taxonomies:
        sub = decisions.filter(pl.col("taxonomy") == tax)
        rows = []
        last = None
        for cut in backtest_cutoffs(sub, n_cutoffs=n_cutoffs):
            try:
                bt = backtest(sub, cutoff=cut, taxonomy=tax, random_state=random_state)
            except InputError:
                continue  # nothing to fit on before this cut-off
            if bt.before.n == 0:
                continue
            last = bt
            rows.append({
                "cutoff": cut.date(), "n": bt.before.n,
                "old_rate": bt.before.value, "old_low": bt.before.low, "old_high": bt.before.high,
                "new_rate": bt.after.value, "new_low": bt.after.low, "new_high": bt.after.high,
                "gain": bt.gain, "gain_low": bt.gain_low, "gain_high": bt.gain_high,
                "n_changes": len(bt.changes), "moved": bt.moved, "recommended": bt.recommend,
            })
        if rows and last is not None:
            out[tax] = {**rows[-1], "reason": last.reason, "cutoffs": rows}
    return out


def backtest_rows(backtests: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (taxonomy, cut-off) for :func:`~failtax.report.summary.backtest_frame`."""
    rows: list[dict[str, Any]] = []
    for tax, bt in backtests.items():
        for r in bt.get("cutoffs", []):
            rows.append({"taxonomy": tax, **r})
    return rows
