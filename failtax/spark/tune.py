"""The table tuner fed from Spark: counts per signal set, never raw events on the driver.

:class:`~failtax.tune.TableTuner` already works on aggregates: it groups decisions by
(signal set, action, implied bucket, counts-in-agreement, week) and searches route edits
on those counts. Here the grouping runs in the cluster:

1. each executor turns its record batches of decisions into the tuner's prepared rows
   (:func:`failtax.tune._frame.prepare`: normalised signals, implied bucket, opt-out)
   and signal sets (:func:`failtax.tune._frame.with_signal_sets`: the signals named plus
   those the table's text rules find in ``text``), with the table parsed once per process;
2. Spark counts events per group (:func:`count_signal_sets`), with the first and last
   event time of each — a few thousand rows for millions of decisions;
3. :func:`fit_counts` fits a ``TableTuner`` on those counts: the suspect-label filter
   per signal set and week, the dense design, the search, the agreement estimates and
   cross-validation run exactly as :meth:`TableTuner.fit` runs them, so the tuned table,
   its changes and its provenance are the same as the local fit's.

Confident learning (``suspect_method="auto"``/``"analysis"``) assigns each decision a
cross-validation fold by its position in the frame; that cannot be reproduced from
counts, so it is refused here: use ``suspect_method="week"`` (the default of
:func:`tune_table`) or ``drop_suspect_labels=False``.

Example (needs a SparkSession)::

    from failtax.spark import read_decisions, tune_table
    tuner = tune_table(read_decisions(spark, "s3://bucket/failtax"), taxonomy="replay", cv=None)
    print(tuner.summary())
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from failtax.errors import InputError
from failtax.spark.classify import _digest, table_from_text
from failtax.table import RuleTable, dump_table
from failtax.taxonomy import load_taxonomy
from failtax.tune import TableTuner
from failtax.tune._design import GROUP_KEYS

__all__ = ["GROUP_KEYS", "SignalSetBatches", "count_signal_sets", "fit_counts", "tune_table"]

_INPUT = ("event_id", "taxonomy", "ts", "resolved_ts", "week", "signals", "user_action", "implied_bucket",
          "opt_out", "text")
_WEEK_METHOD = "failtax.tune: per signal set and week consensus"


@dataclass(frozen=True)
class SignalSetBatches:
    """The ``mapInArrow`` function of :func:`count_signal_sets`: prepared rows with their
    signal-set key, per record batch, under one table (cached per process)."""

    table_text: str
    digest: str
    taxonomy: str
    use_text: bool

    @classmethod
    def for_table(cls, table: RuleTable, *, use_text: bool) -> SignalSetBatches:
        """The function for ``table``."""
        text = dump_table(table)
        return cls(table_text=text, digest=_digest(text), taxonomy=table.taxonomy, use_text=use_text)

    @staticmethod
    def spark_schema() -> str:
        return ("sigkey string, user_action string, implied_bucket string, agree_row boolean, week date, "
                "ts timestamp_ntz")

    def __call__(self, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from failtax.tune._frame import prepare, with_signal_sets

        table = table_from_text(self.table_text, digest=self.digest)
        tax = load_taxonomy(self.taxonomy)
        for batch in batches:
            if batch.num_rows == 0:
                continue
            df = pl.from_arrow(pa.Table.from_batches([batch]))
            assert isinstance(df, pl.DataFrame)
            frame = with_signal_sets(prepare(df, taxonomy=tax), table, use_text=self.use_text)
            out = frame.select(*GROUP_KEYS, "ts")
            yield from out.to_arrow(compat_level=pl.CompatLevel.oldest()).to_batches()


def count_signal_sets(decisions: Any, *, taxonomy: str, table: Any = None, use_text: bool = True) -> pl.DataFrame:
    """The tuner's sufficient statistics, counted in the cluster.

    Parameters
    ----------
    decisions : a ``pyspark.sql.DataFrame`` with the ``decisions`` columns (at least
        ``signals`` and ``user_action``).
    taxonomy : the taxonomy whose decisions to count (other rows are dropped).
    table : the table whose text rules find signals in ``text`` (default: the shipped one).
    use_text : find signals in ``text`` too (as ``TableTuner(use_text=...)``).

    Returns
    -------
    polars.DataFrame
        One row per distinct ``sigkey`` (the sorted signal set, joined by ``\\x1f``),
        ``user_action``, ``implied_bucket``, ``agree_row``, ``week``, with ``n`` (events)
        and ``ts_min``/``ts_max`` (their first and last classification time).
    """
    from pyspark.sql import functions as F

    from failtax.analysis.reclassify import resolve_table

    tbl = resolve_table(table, taxonomy=taxonomy)
    missing = [c for c in ("signals", "user_action") if c not in decisions.columns]
    if missing:
        raise InputError(f"decisions: missing column(s) {', '.join(missing)}; the tuner needs the 'decisions' "
                         f"relation of the telemetry contract (have: {', '.join(decisions.columns)})")
    df = decisions
    if "taxonomy" in df.columns:
        df = df.filter(F.col("taxonomy") == tbl.taxonomy)
    fn = SignalSetBatches.for_table(tbl, use_text=use_text)
    cols = [F.col(c).cast("timestamp_ntz").alias(c) if c in ("ts", "resolved_ts") else F.col(c)
            for c in _INPUT if c in df.columns]
    rows = df.select(*cols).mapInArrow(fn, fn.spark_schema())
    counts = rows.groupBy(*GROUP_KEYS).agg(
        F.count(F.lit(1)).alias("n"), F.min("ts").alias("ts_min"), F.max("ts").alias("ts_max"))
    out = pl.from_arrow(counts.toArrow())
    assert isinstance(out, pl.DataFrame)
    return out.with_columns(pl.col("n").cast(pl.Int64)).sort(list(GROUP_KEYS), nulls_last=True)


def _flag_slips(counts: pl.DataFrame) -> pl.Series:
    """:func:`failtax.tune._labels.flag_slips` on group counts: True for groups of suspect labels."""
    from failtax.tune._labels import flag_slips

    params = inspect.signature(flag_slips).parameters
    min_count = params["min_count"].default
    max_share = params["max_share"].default
    consensus = params["consensus"].default
    lab = (
        counts.filter(pl.col("implied_bucket").is_not_null())
        .group_by("sigkey", "week", "implied_bucket")
        .agg(k=pl.col("n").sum())
        .with_columns(n_set=pl.col("k").sum().over("sigkey", "week"), top=pl.col("k").max().over("sigkey", "week"))
        .with_columns(
            suspect=(pl.col("n_set") >= min_count)
            & (pl.col("k") < max_share * pl.col("n_set"))
            & (pl.col("top") >= consensus * pl.col("n_set"))
        )
        .select("sigkey", "week", "implied_bucket", "suspect")
    )
    out = counts.with_row_index("_i").join(lab, on=["sigkey", "week", "implied_bucket"], how="left",
                                           nulls_equal=True).sort("_i")
    return out["suspect"].fill_null(False)


def _design(counts: pl.DataFrame, taxonomy: Any) -> Any:
    """The tuner's :class:`~failtax.tune._design.Design` from group counts (one row per group)."""
    from failtax.tune._design import build_design

    groups = counts.select(*GROUP_KEYS)
    design = build_design(groups, taxonomy=taxonomy)  # every group once: the layout, counts of one
    key_id = {k: i for i, k in enumerate(design.set_keys)}
    widx = {w: i for i, w in enumerate(design.weeks)}
    kinds = groups.select("user_action", "implied_bucket", "agree_row").unique().sort(
        ["user_action", "implied_bucket", "agree_row"], nulls_last=True)
    kid = {tuple(r): i for i, r in enumerate(kinds.iter_rows())}
    gs = np.fromiter((key_id[k] for k in groups["sigkey"].to_list()), dtype=np.int64, count=groups.height)
    gk = np.fromiter((kid[r] for r in groups.select("user_action", "implied_bucket", "agree_row").iter_rows()),
                     dtype=np.int64, count=groups.height)
    gw = np.fromiter((widx[w] for w in groups["week"].to_list()), dtype=np.int64, count=groups.height)
    if int(design.counts.sum()) != groups.height or not bool((design.counts[gs, gk, gw] == 1).all()):
        raise AssertionError("the tuner's design no longer lays groups out as failtax.spark.tune expects")
    weighted = np.zeros_like(design.counts)
    np.add.at(weighted, (gs, gk, gw), counts["n"].to_numpy().astype(np.int64))
    return design.with_counts(weighted)


def _check_countable(tuner: TableTuner) -> None:
    method = getattr(tuner, "suspect_method", "week")
    if tuner.drop_suspect_labels and method != "week":
        raise InputError(
            f"suspect_method={method!r} (confident learning) assigns folds by row position and cannot be fitted "
            "from counts; use suspect_method='week' or drop_suspect_labels=False")


def fit_counts(tuner: TableTuner, counts: pl.DataFrame) -> TableTuner:
    """Fit ``tuner`` on group counts (:func:`count_signal_sets`) exactly as ``fit`` on the events.

    Parameters
    ----------
    tuner : an unfitted :class:`~failtax.tune.TableTuner` (its parameters are used).
    counts : one row per group of :data:`GROUP_KEYS` with ``n``, ``ts_min``, ``ts_max``.

    Returns
    -------
    The same tuner, fitted: ``table_``, ``changes_``, ``watch_``, the agreement
    estimates and counts are those ``tuner.fit(decisions)`` gives on the decisions
    the counts were taken from.

    Raises
    ------
    InputError when the tuner asks for confident learning (see the module docstring)
    or ``counts`` lacks a column.

    >>> import datetime as dt
    >>> c = pl.DataFrame({"sigkey": ["selector-timeout"] * 2, "user_action": ["regenerate", "share-email"],
    ...     "implied_bucket": ["stale-script", "product-defect"], "agree_row": [True, True],
    ...     "week": [dt.date(2026, 9, 7)] * 2, "n": [40, 2],
    ...     "ts_min": [dt.datetime(2026, 9, 7)] * 2, "ts_max": [dt.datetime(2026, 9, 8)] * 2})
    >>> t = fit_counts(TableTuner("replay", cv=None, drop_suspect_labels=False), c)
    >>> t.n_events_, t.n_labelled_, [ch.kind for ch in t.changes_]
    (42, 42, [])
    """
    from failtax.tune.tuner import _estimate, _lint_ok, _resolve, bump_minor

    missing = [c for c in (*GROUP_KEYS, "n", "ts_min", "ts_max") if c not in counts.columns]
    if missing:
        raise InputError(f"counts: missing column(s) {', '.join(missing)} (see failtax.spark.count_signal_sets)")
    _check_countable(tuner)
    tuner._check_params()
    tax, base = _resolve(tuner.taxonomy, tuner.base_table)
    counts = counts.filter(pl.col("n") > 0)
    n_suspect, used = 0, ""
    if tuner.drop_suspect_labels:
        flags = _flag_slips(counts)
        n_suspect = int(counts.filter(flags)["n"].sum())
        counts = counts.filter(~flags)
        used = _WEEK_METHOD
    design = _design(counts, tax)
    searcher = tuner._searcher(design, base)
    routes, accepted, watch = searcher.run(base.route, max_changes=int(tuner.max_changes), valid=_lint_ok(base))
    tuner.base_table_ = base
    tuner.taxonomy_ = tax
    tuner.changes_ = tuple(accepted)
    tuner.watch_ = tuple(watch)
    tuner.n_candidates_ = searcher.n_evaluated
    tuner.n_events_ = int(counts["n"].sum() + n_suspect)
    tuner.n_decided_ = int(counts.filter(pl.col("agree_row"))["n"].sum())
    tuner.n_labelled_ = int(counts.filter(pl.col("implied_bucket").is_not_null())["n"].sum())
    tuner.n_suspect_labels_ = n_suspect
    tuner.suspect_method_ = used
    lo, hi = counts["ts_min"].drop_nulls(), counts["ts_max"].drop_nulls()
    tuner.window_ = (lo.min(), hi.max()) if lo.len() else (None, None)

    old_b, _ = searcher.replay(base.route)
    new_b, _ = searcher.replay(routes)
    tuner.predicted_agreement_ = _estimate(design, old_b, new_b, "fitted", slice(None))
    weeks = design.n_weeks
    start = max(0, weeks - int(tuner.recent_weeks)) if tuner.recent_weeks else 0
    tuner.predicted_agreement_recent_ = _estimate(design, old_b, new_b, "recent", slice(start, None))
    tuner.predicted_agreement_cv_ = tuner._cross_validate(design, base) if tuner.cv and tuner.cv >= 2 else None
    version = bump_minor(base.version) if accepted else base.version
    tuner.table_ = base.replace(route=routes, version=version, provenance=tuner._provenance(base), path=None)
    return tuner


def tune_table(decisions: Any, *, taxonomy: str, **params: Any) -> TableTuner:
    """Fit a :class:`~failtax.tune.TableTuner` on a Spark DataFrame of decisions.

    Parameters
    ----------
    decisions : a ``pyspark.sql.DataFrame`` with the ``decisions`` columns.
    taxonomy : the taxonomy whose table to tune.
    **params : ``TableTuner`` parameters (``base_table``, ``min_support``, ``alpha``,
        ``cv`` …); ``suspect_method`` defaults to ``"week"`` here.

    Returns
    -------
    TableTuner, fitted; export it with :func:`failtax.tune.export_table` as usual.
    """
    if "suspect_method" in inspect.signature(TableTuner).parameters:
        params.setdefault("suspect_method", "week")
    tuner = TableTuner(taxonomy, **params)
    _check_countable(tuner)
    tuner._check_params()
    counts = count_signal_sets(decisions, taxonomy=load_taxonomy(taxonomy).name, table=tuner.base_table,
                               use_text=tuner.use_text)
    return fit_counts(tuner, counts)
