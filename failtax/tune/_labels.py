"""Suspect labels: a person's slip should not teach the tuner.

When the analysis package provides ``find_label_issues`` (confident learning over the
events × signals matrix) the tuner uses it. Until then, or when asked, this module's
minimal filter stands in: within one signal set *and one week*, a label is suspect when
its bucket holds under ``max_share`` of that set's labels while another bucket holds at
least ``consensus`` of them, over at least ``min_count`` labels. Grouping by week keeps
the labels of a drift (a signal whose true bucket changed from some week on) from being
mistaken for slips.
"""

from __future__ import annotations

import polars as pl


def flag_slips(frame: pl.DataFrame, *, min_count: int = 10, max_share: float = 0.1, consensus: float = 0.8) -> pl.Series:
    """A boolean Series over ``frame`` (prepared, with ``sigkey``): True for suspect labels."""
    lab = frame.select("sigkey", "week", "implied_bucket").with_row_index("_i")
    counts = (
        lab.filter(pl.col("implied_bucket").is_not_null())
        .group_by("sigkey", "week", "implied_bucket")
        .agg(k=pl.len())
        .with_columns(
            n=pl.col("k").sum().over("sigkey", "week"),
            top=pl.col("k").max().over("sigkey", "week"),
        )
        .with_columns(
            suspect=(pl.col("n") >= min_count)
            & (pl.col("k") < max_share * pl.col("n"))
            & (pl.col("top") >= consensus * pl.col("n"))
        )
        .select("sigkey", "week", "implied_bucket", "suspect")
    )
    out = lab.join(counts, on=["sigkey", "week", "implied_bucket"], how="left", nulls_equal=True).sort("_i")
    return out["suspect"].fill_null(False)


def drop_suspect_labels(frame: pl.DataFrame, *, taxonomy: str) -> tuple[pl.DataFrame, int, str]:
    """``frame`` without suspect-labelled rows, how many were dropped and by which method."""
    flags = None
    method = "failtax.tune: per signal set and week consensus"
    try:
        from failtax import analysis

        fn = getattr(analysis, "find_label_issues", None)
    except ImportError:  # pragma: no cover
        fn = None
    if fn is not None:
        flags = _analysis_flags(fn, frame, taxonomy)
        if flags is not None:
            method = "failtax.analysis.find_label_issues"
    if flags is None:
        flags = flag_slips(frame)
    n = int(flags.sum())
    return frame.filter(~flags), n, method


def _analysis_flags(fn, frame: pl.DataFrame, taxonomy: str) -> pl.Series | None:  # noqa: ANN001
    return None
