"""Suspect labels: a person's slip should not teach the tuner.

By default the tuner drops the decisions that
:func:`failtax.analysis.find_suspect_labels` flags (confident learning over the events ×
signals matrix), except a label that is the majority, within its own week, of its signal
set or of any one signal of the set: confident learning does not see time, and the first
weeks of a drift would otherwise be thrown away as slips (a drifted signal named with
varying companions is spread over many sets of one or two events a week). This
module's minimal filter is the fallback (and an option): within one signal set *and one week*, a label is suspect when
its bucket holds under ``max_share`` of that set's labels while another bucket holds at
least ``consensus`` of them, over at least ``min_count`` labels. Grouping by week keeps
the labels of a drift (a signal whose true bucket changed from some week on) from being
mistaken for slips.
"""

from __future__ import annotations

from typing import Any

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


def drop_suspect_labels(frame: pl.DataFrame, *, taxonomy: str, decisions: Any = None, table: Any = None,
                        random_state: int | None = 0, method: str = "auto") -> tuple[pl.DataFrame, int, str]:
    """``frame`` without suspect-labelled rows, how many were dropped and by which method.

    ``method``: ``"analysis"`` (confident learning from :mod:`failtax.analysis.labels`),
    ``"week"`` (this module's per set and week consensus) or ``"auto"`` (the analysis
    when it is available, else the week consensus).
    """
    flags = None
    used = "failtax.tune: per signal set and week consensus"
    if method in ("auto", "analysis"):
        flags = _analysis_flags(frame, taxonomy=taxonomy, table=table, random_state=random_state)
        if flags is not None:
            used = "failtax.analysis.find_suspect_labels (confident learning)"
        elif method == "analysis":
            raise ImportError("failtax.analysis.find_suspect_labels is not available")
    if flags is None:
        flags = flag_slips(frame)
    n = int(flags.sum() or 0)
    return frame.filter(~flags), n, used


def _analysis_flags(frame: pl.DataFrame, *, taxonomy: str, table: Any, random_state: int | None) -> pl.Series | None:
    try:
        from failtax.analysis.labels import find_suspect_labels
    except ImportError:  # pragma: no cover - the analysis ships with the package
        return None
    labelled = frame.filter(pl.col("implied_bucket").is_not_null())
    if labelled.height == 0:
        return pl.Series([False] * frame.height, dtype=pl.Boolean)
    # The model sees signal sets only: hand it the sets already found (named + text), not
    # the texts, so it classifies a few thousand distinct sets instead of every text again.
    view = labelled.select(
        "event_id", pl.lit(taxonomy).alias("taxonomy"),
        pl.col("sigkey").str.split("\x1f").list.eval(pl.element().filter(pl.element() != "")).alias("signals"),
        pl.lit(None, dtype=pl.Utf8).alias("text"), "implied_bucket", "ts",
    )
    result = find_suspect_labels(view, taxonomy=taxonomy, table=table, random_state=int(random_state or 0))
    bad = set(result.event_ids)
    if not bad:
        return pl.Series([False] * frame.height, dtype=pl.Boolean)
    flagged = frame["event_id"].is_in(list(bad)) & frame["implied_bucket"].is_not_null()
    # Confident learning sees signals, not time: the first weeks of a drift contradict the
    # consensus of all weeks and would be flagged as slips. A label that is the majority
    # of its signal set within its own week (over two or more labels) is a regime, not a
    # slip, and is kept.
    return flagged & ~_week_majority(frame)


def _week_majority(frame: pl.DataFrame) -> pl.Series:
    """Labels that are the majority (of two or more), within their week, of the labels of
    their signal set or of any one signal of it: a signal set can be rare while the signal
    that decides it is not (a drifted signal seen with varying companions splits into
    sets of one)."""
    lab = frame.select("sigkey", "week", "implied_bucket").with_row_index("_i").filter(
        pl.col("implied_bucket").is_not_null())
    signals = (lab.with_columns(pl.col("sigkey").str.split("\x1f").alias("key")).explode("key")
               .filter(pl.col("key") != "").with_columns(("signal\x1f" + pl.col("key")).alias("key")))
    keyed = pl.concat([lab.with_columns(("set\x1f" + pl.col("sigkey")).alias("key")), signals.select(lab.columns + ["key"])])
    cells = (
        keyed.group_by("key", "week", "implied_bucket").agg(k=pl.len())
        .with_columns(n=pl.col("k").sum().over("key", "week"))
        .filter((pl.col("n") >= 2) & (2 * pl.col("k") > pl.col("n")))
    )
    kept = keyed.join(cells, on=["key", "week", "implied_bucket"], how="semi", nulls_equal=True)["_i"]
    return pl.Series("_i", range(frame.height), dtype=pl.UInt32).is_in(kept.unique().implode())
