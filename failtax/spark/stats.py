"""Agreement and per-signal statistics on Spark, with the local analysis's exact definitions.

The cluster computes *sufficient statistics* — counts per slice, per (implied bucket, AI
bucket) pair, per evidence combination and week — and the driver turns those few
thousand rows into the same frames :mod:`failtax.analysis` returns, with the same
intervals and tests from :mod:`failtax.analysis.stats`. No raw event reaches the driver
(apart from the handful of example events per signal).

- :func:`measure_agreement` ≡ :func:`failtax.analysis.measure_agreement`: one
  grouping-sets aggregation for the overall row, the slices and the label pairs, one for
  signals (an event counts once under each of its signals); latency medians and 90th
  percentiles from the exact order statistics (found in the cluster by a running count
  over the distinct latencies), interpolated as polars does.
- :func:`find_misleading_signals` ≡ :func:`failtax.analysis.find_misleading_signals`:
  each executor reclassifies its events' evidence under the table
  (:func:`failtax.analysis.reclassify`, per record batch); the cluster counts events per
  (signal set, deciding route, implied bucket, agree, decided, week); the driver ranks
  signals, computes lift and drift; the cluster picks the example overrides.

Counts are ``Int64`` (where the local frames use polars' ``UInt32`` row counts), so a
slice may hold more than four billion events; every value is otherwise identical.

Example (needs a SparkSession)::

    from failtax.spark import measure_agreement, read_decisions
    report = measure_agreement(read_decisions(spark, "s3://bucket/failtax"), since="2026-09-01")
    print(report.overall)
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from failtax.analysis.agreement import DEFAULT_MIN_COUNT, RATE_SUFFIXES, SLICES, AgreementReport, LabelScores
from failtax.analysis.frames import DECISION_COLUMNS, with_rate_columns
from failtax.analysis.rules import signal_routes
from failtax.analysis.signals import (
    DEFAULT_MIN_SIGNAL_COUNT,
    MisleadingSignals,
    _examples,
    _lift,
    drift_from_weekly,
    rank_signals_from_counts,
)
from failtax.errors import InputError
from failtax.spark.classify import table_from_text
from failtax.table import RuleTable, dump_table
from failtax.taxonomy import load_taxonomy

__all__ = [
    "confusion_from_counts",
    "filter_decisions",
    "find_misleading_signals",
    "label_scores_from_counts",
    "linear_quantile",
    "measure_agreement",
]

SEP = "\x1f"


# =========================================================================== shared


def _check_columns(df: Any, need: Iterable[str], what: str = "decisions") -> None:
    missing = [c for c in dict.fromkeys(need) if c not in df.columns]
    if missing:
        raise InputError(f"{what}: missing column(s) {', '.join(repr(c) for c in missing)} "
                         f"(have: {', '.join(df.columns) or 'none'})")


def _since_start(since: _dt.date | _dt.datetime | str | None) -> _dt.datetime | None:
    """``since`` as the first instant kept, as :func:`failtax.analysis.filter_decisions` reads it."""
    if since is None:
        return None
    if isinstance(since, str):
        try:
            since = _dt.date.fromisoformat(since[:10])
        except ValueError:
            raise InputError(f"since: not an ISO date: {since!r}") from None
    return since if isinstance(since, _dt.datetime) else _dt.datetime.combine(since, _dt.time())


def filter_decisions(df: Any, *, taxonomy: str | Sequence[str] | None = None,
                     since: _dt.date | _dt.datetime | str | None = None) -> Any:
    """Keep the decisions of some taxonomies and/or from a date on (a Spark DataFrame).

    The same rows as :func:`failtax.analysis.filter_decisions`; with a ``date``
    partition column (Parquet written by ``failtax load --parquet``) whole days before
    ``since`` are not even read.
    """
    from pyspark.sql import functions as F

    if taxonomy is not None:
        names = [taxonomy] if isinstance(taxonomy, str) else list(taxonomy)
        df = df.filter(F.col("taxonomy").isin(names))
    start = _since_start(since)
    if start is not None:
        if "date" in df.columns:
            df = df.filter(F.col("date") >= F.lit(start.date()))
        ts_type = df.schema["ts"].dataType
        df = df.filter(F.col("ts") >= F.lit(start.isoformat(sep=" ")).cast(ts_type))
    return df


def _to_polars(df: Any) -> pl.DataFrame:
    """A small Spark result as polars (through Arrow)."""
    out = pl.from_arrow(df.toArrow())
    assert isinstance(out, pl.DataFrame)
    return out


def _int64_counts(df: pl.DataFrame, template: pl.DataFrame) -> pl.DataFrame:
    """``df`` with ``template``'s columns and types, row counts widened to Int64."""
    types = {c: (pl.Int64 if t in (pl.UInt32, pl.UInt64, pl.Int32) and c.startswith("n") else t)
             for c, t in template.schema.items()}
    return df.select([pl.col(c).cast(t) for c, t in types.items()])


def confusion_from_counts(counts: pl.DataFrame, labels: Sequence[str]) -> np.ndarray:
    """The confusion matrix from pair counts ``(t, p, n)``: ``C[i, j]`` = events with
    ``t == labels[i]`` and ``p == labels[j]`` (values outside ``labels`` dropped).

    >>> confusion_from_counts(pl.DataFrame({"t": ["a"], "p": ["b"], "n": [2]}), ["a", "b"]).tolist()
    [[0, 2], [0, 0]]
    """
    idx = {lab: i for i, lab in enumerate(labels)}
    out = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for t, p, n in counts.iter_rows():
        if t in idx and p in idx:
            out[idx[t], idx[p]] += n
    return out


def _empty_decisions() -> pl.DataFrame:
    types = {"string": pl.String, "boolean": pl.Boolean, "date": pl.Date, "datetime": pl.Datetime("us"),
             "number": pl.Float64, "list[string]": pl.List(pl.String)}
    return pl.DataFrame(schema={c: types[t] for c, t in DECISION_COLUMNS.items()})


# =========================================================================== agreement


def _agg_exprs() -> list[Any]:
    """The counts of :func:`failtax.analysis.summarize_agreement`, as Spark aggregates."""
    from pyspark.sql import functions as F

    decided = F.coalesce(F.col("decided"), F.lit(False))
    return [
        F.count(F.lit(1)).alias("n_events"),
        F.sum(decided.cast("long")).alias("n_decided"),
        F.count("agree").alias("n_rated"),
        F.sum(F.coalesce(F.col("agree"), F.lit(False)).cast("long")).alias("n_agree"),
        F.sum((F.coalesce(F.col("opt_out"), F.lit(False)) & decided).cast("long")).alias("n_opt_out"),
        F.count("implied_bucket").alias("n_labelled"),
    ]


_COUNT_COLS = ("n_events", "n_decided", "n_rated", "n_agree", "n_opt_out", "n_labelled")


def _slice_frame(counts: pl.DataFrame, keys: Sequence[str], min_count: int, template: pl.DataFrame) -> pl.DataFrame:
    """Counts per slice → the local slice table: rates, intervals, ``low_count``, sorted."""
    out = counts.select([*keys, *_COUNT_COLS]).with_columns([pl.col(c).fill_null(0).cast(pl.Int64) for c in _COUNT_COLS])
    if keys:
        out = out.sort(list(keys), nulls_last=True)
    out = with_rate_columns(out, "agreement", "n_agree", "n_rated", suffixes=RATE_SUFFIXES)
    out = with_rate_columns(out, "opt_out", "n_opt_out", "n_decided", suffixes=RATE_SUFFIXES)
    out = out.with_columns((pl.col("n_rated") < min_count).alias("low_count"))
    return _int64_counts(out, template)


def linear_quantile(lower: float, upper: float, n: int, q: float) -> float:
    """The ``q`` quantile of ``n`` sorted values whose order statistics around ``q·(n−1)``
    are ``lower`` and ``upper``, interpolated exactly as polars' ``quantile(q, "linear")``
    (and ``median``) computes it.

    >>> linear_quantile(2.0, 4.0, 4, 0.5)   # values 1, 2, 4, 8
    3.0
    """
    idx = (n - 1) * q
    if lower == upper:
        return float(lower)
    return float((idx - math.floor(idx)) * (upper - lower) + lower)


def _latency(df: Any, *, by_taxonomy: bool, template: pl.DataFrame) -> pl.DataFrame:
    """:func:`failtax.analysis.summarize_latency` from per-group sizes and exact order statistics.

    One aggregation: per group, the distinct latencies with their counts, a running count
    over them, and only the latencies at the ranks ``floor``/``ceil`` of ``q·(n−1)`` for
    ``q`` = 0.5 and 0.9 reach the driver (at most four per group).
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = ["taxonomy", "outcome"] if by_taxonomy else ["outcome"]
    rows = (
        df.filter(F.coalesce(F.col("decided"), F.lit(False)) & F.col("latency_s").isNotNull())
        .withColumn("outcome", F.when(F.coalesce(F.col("opt_out"), F.lit(False)), F.lit("opt-out"))
                    .when(F.col("agree"), F.lit("agree"))
                    .when(~F.col("agree"), F.lit("override")))
        .filter(F.col("outcome").isNotNull())
        .select(*keys, "latency_s")
    )
    hist = rows.groupBy(*keys, "latency_s").agg(F.count(F.lit(1)).alias("k"))
    upto = Window.partitionBy(*keys).orderBy("latency_s").rowsBetween(Window.unboundedPreceding, Window.currentRow)
    whole = Window.partitionBy(*keys)
    cum = (hist.withColumn("_end", F.sum("k").over(upto)).withColumn("_n", F.sum("k").over(whole))
           .withColumn("_start", F.col("_end") - F.col("k")))
    ranks = [F.floor((F.col("_n") - 1) * q) for q in (0.5, 0.9)] + [F.ceil((F.col("_n") - 1) * q) for q in (0.5, 0.9)]
    hit = None
    for r in ranks:
        cond = (r >= F.col("_start")) & (r < F.col("_end"))
        hit = cond if hit is None else hit | cond
    picked = _to_polars(cum.filter(hit).select(*keys, "latency_s", "_start", "_end", "_n"))
    if picked.height == 0:
        return template.clear()
    out = []
    for key, g in picked.sort([*keys, "latency_s"]).group_by(keys, maintain_order=True):
        n = int(g["_n"][0])
        spans = list(zip(g["_start"].to_list(), g["_end"].to_list(), g["latency_s"].to_list(), strict=True))

        def at(rank: int) -> float:
            return next(v for a, z, v in spans if a <= rank < z)

        vals = {}
        for q in (0.5, 0.9):
            idx = (n - 1) * q
            vals[q] = linear_quantile(at(math.floor(idx)), at(math.ceil(idx)), n, q)
        out.append({**dict(zip(keys, key, strict=True)), "n": n, "median_s": vals[0.5], "p90_s": vals[0.9]})
    frame = pl.DataFrame(out, schema={**{k: pl.String for k in keys}, "n": pl.Int64, "median_s": pl.Float64,
                                      "p90_s": pl.Float64})
    return frame.sort(keys).select([pl.col(c).cast(t) for c, t in template.schema.items()])


def label_scores_from_counts(counts: pl.DataFrame, *, taxonomy: str, labels: Sequence[str]) -> LabelScores:
    """:class:`~failtax.analysis.LabelScores` from pair counts instead of label sequences.

    Parameters
    ----------
    counts : a frame ``(t, p, n)``: implied bucket, AI bucket and how many events.
    taxonomy : the taxonomy name.
    labels : its full bucket list.

    Returns
    -------
    LabelScores equal to ``LabelScores.from_pairs`` on the expanded sequences (the same
    floating-point operations in the same order).

    >>> c = pl.DataFrame({"t": ["infra", "stale-script"], "p": ["infra", "infra"], "n": [3, 1]})
    >>> s = label_scores_from_counts(c, taxonomy="replay", labels=["infra", "stale-script", "product-defect"])
    >>> s.n, s.accuracy, s.confusion[0]
    (4, 0.75, (3, 1, 0))
    """
    labels = tuple(str(x) for x in labels)
    counts = counts.select(pl.col("t").cast(pl.String), pl.col("p").cast(pl.String), pl.col("n").cast(pl.Int64))
    n = int(counts["n"].sum()) if counts.height else 0
    cm = confusion_from_counts(counts.select(pl.col("p").alias("t"), pl.col("t").alias("p"), "n"), labels)
    if not n:
        return LabelScores(taxonomy=taxonomy, labels=labels, n=0, accuracy=math.nan, macro_f1=math.nan,
                           kappa=math.nan, confusion=tuple(tuple(int(x) for x in row) for row in cm))
    # macro-F1 (failtax.analysis.agreement.macro_f1_score)
    tp = dict.fromkeys(labels, 0)
    n_true = dict.fromkeys(labels, 0)
    n_pred = dict.fromkeys(labels, 0)
    for t, p, k in counts.iter_rows():
        if t in n_true:
            n_true[t] += k
        if p in n_pred:
            n_pred[p] += k
        if t == p and t in tp:
            tp[t] += k
    scores = []
    for lab in labels:
        denom = n_true[lab] + n_pred[lab]
        scores.append(2 * tp[lab] / denom if denom else 0.0)
    macro_f1 = float(np.mean(scores))
    # Cohen's kappa (failtax.analysis.agreement.cohen_kappa_score, scikit-learn's operations)
    c = confusion_from_counts(counts, labels).astype(np.float64)
    sum0, sum1 = c.sum(axis=0), c.sum(axis=1)
    total = sum0.sum()
    kappa = math.nan
    if total != 0:
        expected = np.outer(sum0, sum1) / total
        w = np.ones((len(labels), len(labels)), dtype=np.float64)
        np.fill_diagonal(w, 0)
        denom = np.sum(w * expected)
        kappa = math.nan if denom == 0 else float(1 - np.sum(w * c) / denom)
    return LabelScores(taxonomy=taxonomy, labels=labels, n=n, accuracy=float(np.trace(cm) / n), macro_f1=macro_f1,
                       kappa=kappa, confusion=tuple(tuple(int(x) for x in row) for row in cm))


def measure_agreement(
    decisions: Any,
    *,
    taxonomy: str | Sequence[str] | None = None,
    since: _dt.date | str | None = None,
    min_count: int = DEFAULT_MIN_COUNT,
    slices: Sequence[str] = tuple(SLICES),
) -> AgreementReport:
    """:func:`failtax.analysis.measure_agreement` on a Spark DataFrame of decisions.

    Parameters
    ----------
    decisions : a ``pyspark.sql.DataFrame`` with the ``decisions`` columns (e.g.
        :func:`failtax.spark.read_decisions` of a ``failtax load --parquet`` folder).
    taxonomy, since, min_count, slices : as in the local function.

    Returns
    -------
    AgreementReport with the same rows, counts, rates and intervals as the local
    function on the same decisions (counts as Int64).

    Tips: cache ``decisions`` first when it is read from slow storage; this runs three
    aggregations over it (slices and label pairs, signals, latency).
    """
    from pyspark.sql import functions as F

    for s in slices:
        if s not in SLICES:
            raise InputError(f"unknown slice {s!r}; use one of {', '.join(SLICES)}")
    need = ["taxonomy", "decided", "opt_out", "agree", "implied_bucket", "ai_bucket", "latency_s"]
    for s in slices:
        need += ["signals" if k == "signal" else k for k in SLICES[s]]
    if since is not None:
        need.append("ts")
    _check_columns(decisions, need)
    df = filter_decisions(decisions, taxonomy=taxonomy, since=since)
    empty = _empty_decisions()
    from failtax.analysis.agreement import summarize_agreement, summarize_latency

    # ---- overall and the plain slices: one grouping-sets aggregation
    plain = [s for s in slices if s != "signal"]
    pair_keys = ("taxonomy", "implied_bucket", "ai_bucket")  # label pairs: n_labelled of this set
    sets: list[tuple[str, ...]] = [(), ("taxonomy",), pair_keys, *(SLICES[s] for s in plain)]
    sets = list(dict.fromkeys(sets))
    cols = list(dict.fromkeys(k for ks in sets for k in ks))
    grouped = df.groupingSets([[F.col(c) for c in ks] for ks in sets], *[F.col(c) for c in cols])
    counts = _to_polars(grouped.agg(*_agg_exprs(), F.grouping_id().alias("_gid")))

    def gid(keys: Sequence[str]) -> int:
        return sum(1 << (len(cols) - 1 - i) for i, c in enumerate(cols) if c not in keys)

    def part(keys: Sequence[str]) -> pl.DataFrame:
        return counts.filter(pl.col("_gid") == gid(keys))

    overall_counts = part(())
    if overall_counts.height == 0:  # no decision at all: one row of zeros, as polars gives
        overall_counts = pl.DataFrame({c: [0] for c in _COUNT_COLS})
    overall = _slice_frame(overall_counts, (), min_count, summarize_agreement(empty, min_count=min_count))
    present = tuple(sorted(x for x in part(("taxonomy",))["taxonomy"].to_list() if x is not None))
    out_slices: dict[str, pl.DataFrame] = {}
    for s in slices:
        template = summarize_agreement(empty, by=s, min_count=min_count)
        if s == "signal":
            sig = df.withColumn("signal", F.explode_outer(F.when(F.size("signals") > 0, F.col("signals"))))
            sc = _to_polars(sig.groupBy("taxonomy", "signal").agg(*_agg_exprs()))
            out_slices[s] = _slice_frame(sc, SLICES[s], min_count, template)
        else:
            out_slices[s] = _slice_frame(part(SLICES[s]), SLICES[s], min_count, template)

    # ---- label scores from pair counts
    pairs = part(pair_keys).filter(pl.col("implied_bucket").is_not_null()).select(
        "taxonomy", pl.col("implied_bucket").alias("t"), pl.col("ai_bucket").alias("p"), pl.col("n_labelled").alias("n"))
    scores = tuple(
        label_scores_from_counts(pairs.filter(pl.col("taxonomy") == tax), taxonomy=tax,
                                 labels=load_taxonomy(tax).bucket_names)
        for tax in present
    )
    latency = _latency(df, by_taxonomy=True, template=summarize_latency(empty))
    return AgreementReport(overall=overall, slices=out_slices, scores=scores, latency=latency,
                           min_count=min_count, taxonomies=present)


# =========================================================================== misleading signals


_EVENT_COLS = ("event_id", "ts", "week", "ai_bucket", "user_action", "implied_bucket", "agree", "decided")


@dataclass(frozen=True)
class ReclassifyBatches:
    """The ``mapInArrow`` function of :func:`find_misleading_signals`: per record batch of
    decisions, :func:`failtax.analysis.reclassify` under one table (cached per process),
    and per event its signal-set key, deciding route and bucket."""

    table_text: str
    digest: str

    @classmethod
    def for_table(cls, table: RuleTable) -> ReclassifyBatches:
        """The function for ``table``."""
        from failtax.spark.classify import _digest

        text = dump_table(table)
        return cls(table_text=text, digest=_digest(text))

    @staticmethod
    def spark_schema() -> str:
        return ("event_id string, ts timestamp_ntz, week date, ai_bucket string, user_action string, "
                "implied_bucket string, agree boolean, decided boolean, pkey string, rule string, bucket string")

    def __call__(self, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from failtax.analysis.reclassify import reclassify

        table = table_from_text(self.table_text, digest=self.digest)
        for batch in batches:
            if batch.num_rows == 0:
                continue
            df = pl.from_arrow(pa.Table.from_batches([batch]))
            assert isinstance(df, pl.DataFrame)
            rc = reclassify(df, table=table)
            combos = rc.combos.select(
                "combo", pl.col("present").list.sort().list.join(SEP).alias("pkey"), "rule", "bucket")
            ev = rc.events.select(*_EVENT_COLS, "combo").join(combos, on="combo", how="left", maintain_order="left")
            yield from ev.drop("combo").to_arrow(compat_level=pl.CompatLevel.oldest()).to_batches()


def find_misleading_signals(
    decisions: Any,
    *,
    taxonomy: str | None = None,
    table: Any = None,
    since: _dt.date | str | None = None,
    min_count: int = DEFAULT_MIN_SIGNAL_COUNT,
    alpha: float = 0.01,
    n_examples: int = 3,
    min_weeks: int = 2,
    min_split_count: int | None = None,
) -> MisleadingSignals:
    """:func:`failtax.analysis.find_misleading_signals` on a Spark DataFrame of decisions.

    Parameters
    ----------
    decisions : a ``pyspark.sql.DataFrame`` with the ``decisions`` columns.
    taxonomy, table, since, min_count, alpha, n_examples, min_weeks, min_split_count :
        as in the local function.

    Returns
    -------
    MisleadingSignals with the same ``signals``, ``lift``, ``drift`` and ``examples``
    frames as the local function on the same decisions.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from failtax.analysis.reclassify import resolve_table

    tbl = resolve_table(table, taxonomy=taxonomy)
    _check_columns(decisions, ["event_id", "taxonomy", "signals", "implied_bucket", "agree", "decided", "opt_out"]
                   + (["ts"] if since is not None else []))
    df = filter_decisions(decisions, taxonomy=tbl.taxonomy, since=since)
    for c, t in (("text", "string"), ("ts", "timestamp_ntz"), ("week", "date"), ("ai_bucket", "string"),
                 ("user_action", "string")):
        if c not in df.columns:
            df = df.withColumn(c, F.lit(None).cast(t))
    buckets = load_taxonomy(tbl.taxonomy).bucket_names
    fn = ReclassifyBatches.for_table(tbl)
    cols = [F.col(c).cast("timestamp_ntz").alias(c) if c == "ts" else F.col(c) for c in _EVENT_COLS]
    ev = df.select(*cols, "taxonomy", "signals", "text").mapInArrow(fn, fn.spark_schema()).cache()
    try:
        groups = _to_polars(
            ev.groupBy("pkey", "rule", "bucket", "implied_bucket", "agree", "decided", "week")
            .agg(F.count(F.lit(1)).alias("n"))
        )
        combos = (
            groups.select("pkey", "rule", "bucket").unique().sort("pkey")
            .with_row_index("combo")
            .with_columns(pl.col("pkey").str.split(SEP).list.filter(pl.element() != "").alias("present"))
        )
        if combos["pkey"].n_unique() != combos.height:  # routing depends on the signal set alone
            raise AssertionError("one signal set was routed two ways")
        g = groups.join(combos.select("pkey", "combo"), on="pkey")
        sig = combos.select("combo", pl.col("present").alias("signal")).explode("signal").drop_nulls("signal")
        signals = sorted(set(sig["signal"].to_list()))
        routes = signal_routes(tbl, signals).rename({"rule": "routed_rule", "bucket": "routed_bucket"})
        sig = (
            sig.join(routes, on="signal", how="left")
            .join(combos.select("combo", "rule", pl.col("bucket").alias("table_bucket")), on="combo", how="left")
            .with_columns((pl.col("rule") == pl.col("routed_rule")).alias("deciding"))
        )
        per = g.group_by("combo").agg(
            pl.col("n").sum().cast(pl.Int64).alias("n_events"),
            pl.col("n").filter(pl.col("decided").fill_null(False)).sum().cast(pl.Int64).alias("n_decided"),
            pl.col("n").filter(pl.col("agree").is_not_null()).sum().cast(pl.Int64).alias("n_rated"),
            pl.col("n").filter((pl.col("agree") == False).fill_null(False)).sum().cast(pl.Int64)  # noqa: E712
            .alias("n_override"),
        )
        lab = g.filter(pl.col("implied_bucket").is_not_null()).group_by("combo", "implied_bucket").agg(
            pl.col("n").sum().cast(pl.Int64).alias("k"))
        over_to = g.filter((pl.col("agree") == False) & pl.col("implied_bucket").is_not_null()).group_by(  # noqa: E712
            "combo", "implied_bucket").agg(pl.col("n").sum().cast(pl.Int64).alias("k"))
        weekly_lab = g.filter(pl.col("implied_bucket").is_not_null() & pl.col("week").is_not_null()).group_by(
            "combo", "week", "implied_bucket").agg(pl.col("n").sum().cast(pl.Int64).alias("k"))

        out, p0, n_lab = rank_signals_from_counts(sig, routes, combos, per, lab, over_to, min_count=min_count, alpha=alpha,
                                                  text_signals=tbl.text_signals())
        lift = _lift(sig, lab, buckets, signals)
        side = max(5, min_count // 3) if min_split_count is None else min_split_count
        drift = drift_from_weekly(sig, weekly_lab, min_count=min_count, min_side=side, alpha=alpha,
                                  min_weeks=min_weeks)

        # ---- examples: the newest overrides per deciding signal, picked in the cluster
        ex_ev = pl.DataFrame(schema={"event_id": pl.String, "ts": pl.Datetime("us"), "ai_bucket": pl.String,
                                     "user_action": pl.String, "implied_bucket": pl.String, "text": pl.String,
                                     "combo": pl.UInt32, "agree": pl.Boolean})
        deciding = sig.filter(pl.col("deciding")).select("signal", "routed_rule").unique()
        if n_examples > 0 and deciding.height:
            spark = decisions.sparkSession
            dec = spark.createDataFrame(deciding.rows(), schema="signal string, routed_rule string")
            over = (ev.filter(F.col("agree") == F.lit(False))
                    .withColumn("signal", F.explode(F.split("pkey", SEP))))
            w = Window.partitionBy("signal").orderBy(F.col("ts").desc_nulls_last(), F.col("event_id").asc_nulls_last())
            picks = (over.join(F.broadcast(dec), on=[over["signal"] == dec["signal"], over["rule"] == dec["routed_rule"]])
                     .select(over["signal"], "event_id", "ts")
                     .withColumn("_r", F.row_number().over(w)).filter(F.col("_r") <= n_examples)
                     .select("event_id").distinct())
            chosen = (ev.join(F.broadcast(picks), "event_id")
                      .join(df.select("event_id", "text").join(F.broadcast(picks), "event_id"), "event_id"))
            got = _to_polars(chosen.select("event_id", "ts", "ai_bucket", "user_action", "implied_bucket", "text",
                                           "pkey"))
            got = got.join(combos.select("pkey", "combo"), on="pkey").drop("pkey").with_columns(agree=pl.lit(False))
            ex_ev = pl.concat([ex_ev, got.select(ex_ev.columns)], how="vertical_relaxed")
        examples = _examples(sig, ex_ev, n_examples)
    finally:
        ev.unpersist()
    return MisleadingSignals(
        taxonomy=tbl.taxonomy, table_name=tbl.name, table_version=tbl.version, baseline=p0, n_labelled=n_lab,
        signals=out, lift=lift, drift=drift, examples=examples, alpha=alpha, min_count=min_count,
    )
