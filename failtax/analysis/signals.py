"""Misleading signals: where a signal is present, do people side with the table's routing?

For each signal of one taxonomy (present in the events' evidence, see
:mod:`failtax.analysis.reclassify`):

- how often the person overrides the AI when it is present (``override_rate``, from
  ``agree``), and to which implied bucket(s);
- the bucket the table routes an event carrying only that signal to (``routed_rule``,
  ``routed_bucket``), and among the labelled events where that route *decided* (the
  signal was deciding), the share whose implied bucket is the routed one
  (``match_rate``);
- the **test**: under the table, a share ``p0`` of all labelled events have the implied
  bucket the table routes them to. A signal is misleading when its ``match_rate`` is
  below ``p0``: one-sided exact binomial test of ``k`` matches in ``n`` deciding
  labelled events against ``p0`` (``p_value = P[X <= k]``, X ~ Binomial(n, p0)); flagged
  *significant* when ``p_value`` is below ``alpha`` divided by the number of signals
  tested (Bonferroni) and the effect's lower bound ``excess_low = p0 - upper Wilson bound
  of match_rate`` is positive. A significant signal that a route of the table sends to
  the wrong bucket is ``misleading``; one that no route knows (``unrouted``: the
  fallback decides) and whose fallback bucket is wrong is ``fallback_wrong`` — a
  missing rule rather than a misleading one;
- **lift** of each implied bucket given the signal, ``P(bucket | signal) / P(bucket)``,
  over labelled events where the signal is present, with the Wilson 95% interval of
  ``P(bucket | signal)`` divided by ``P(bucket)`` (the overall share is estimated from all
  labelled events and treated as known);
- **drift**: the week from which the signal's match rate fell the most: over every split
  into weeks before and from a week on, the one-sided Fisher exact test that the rate
  after is lower; the split with the smallest p-value is reported, ``drifted`` when it
  passes ``alpha`` after Bonferroni over the splits and signals tried and the fall does
  not vanish once the events shared with a more significant drifted signal are left
  out (then ``explained_by`` names that signal: a signal riding along with one whose
  meaning changed has not drifted itself);
- example events: overrides where the signal was deciding, newest first, text redacted.

Ranking, most misleading first: ``misleading`` signals, then ``fallback_wrong`` ones,
then the rest; within each by ``excess_low`` (descending), then ``p_value``, then name.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.agreement import frame_records
from failtax.analysis.rules import ensure_reclassified, signal_routes
from failtax.analysis.frames import with_rate_columns
from failtax.analysis.stats import binomial_test_less, fisher_exact_less, newcombe_diff_interval
from failtax.taxonomy import load_taxonomy

__all__ = ["MisleadingSignals", "find_misleading_signals", "redact_text"]

def redact_text(text: str | None, *, limit: int = 240) -> str | None:
    """Mask secrets in an example's text (with :func:`failtax.redact.redact`) and shorten it.

    >>> redact_text("login failed for alice@example.com")
    'login failed for [REDACTED:email]'
    """
    if text is None:
        return None
    try:
        from failtax.redact import redact
    except ImportError:  # pragma: no cover - the redactor ships with the package
        redact = None
    out = redact(text) if redact is not None else text
    return out if len(out) <= limit else out[: limit - 1] + "…"


_wilson_cols = with_rate_columns


#: Deciding labelled events a signal needs before it is tested (and drift: in all).
#: The binomial test, Bonferroni over the signals and the Wilson bound on the effect
#: already account for the count; this floor only keeps a handful of events from
#: rewriting a table. 30 hid plainly misleading signals in small windows (0 of 29
#: people following the table), 15 found them with no false alarm on clean data.
DEFAULT_MIN_SIGNAL_COUNT = 15


@dataclass(frozen=True)
class MisleadingSignals:
    """The per-signal findings of one taxonomy, ranked most misleading first.

    ``signals``: one row per signal (counts, rates with intervals, routing, test,
    ``rank``); ``lift``: one row per (signal, implied bucket); ``drift``: the best
    split per signal; ``examples``: override events per signal; ``baseline``: ``p0``.
    """

    taxonomy: str
    table_name: str
    table_version: str
    baseline: float
    n_labelled: int
    signals: pl.DataFrame
    lift: pl.DataFrame
    drift: pl.DataFrame
    examples: pl.DataFrame
    alpha: float
    min_count: int

    def to_records(self) -> list[dict[str, Any]]:
        """The ranked list: one JSON-ready dict per signal, with its lift, override
        targets, drift and examples nested."""
        lift = {}
        for rec in frame_records(self.lift):
            lift.setdefault(rec.pop("signal"), []).append(rec)
        drift = {rec.pop("signal"): rec for rec in frame_records(self.drift)}
        ex = {}
        for rec in frame_records(self.examples):
            ex.setdefault(rec.pop("signal"), []).append(rec)
        out = []
        for rec in frame_records(self.signals):
            s = rec["signal"]
            rec["taxonomy"] = self.taxonomy
            rec["baseline"] = _clean(self.baseline)
            rec["lift"] = lift.get(s, [])
            rec["drift"] = drift.get(s)
            rec["examples"] = ex.get(s, [])
            out.append(rec)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "taxonomy": self.taxonomy,
            "table": {"name": self.table_name, "version": self.table_version},
            "baseline": _clean(self.baseline),
            "n_labelled": self.n_labelled,
            "alpha": self.alpha,
            "min_count": self.min_count,
            "signals": self.to_records(),
        }


def _clean(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v



def rank_signals_from_counts(sig: pl.DataFrame, routes: pl.DataFrame, combos: pl.DataFrame, per: pl.DataFrame,
                             lab: pl.DataFrame, over_to: pl.DataFrame, *, min_count: int,
                             alpha: float, text_signals: frozenset[str] = frozenset()) -> tuple[pl.DataFrame, float, int]:
    """The ranked per-signal frame, its baseline ``p0`` and labelled count, from per-combo counts.

    Shared by the local analysis and the Spark path (which computes the same counts in
    the cluster), so both rank with one definition. Signals with the same figures are
    ranked with those the tool named before ``text_signals`` (the ones the table's own
    text rules find), then by name.
    """
    # Baseline: share of labelled events whose implied bucket is the table's bucket.
    lab_b = lab.join(combos.select("combo", "bucket"), on="combo")
    n_lab = int(lab_b["k"].sum()) if lab_b.height else 0
    p0 = float(lab_b.filter(pl.col("implied_bucket") == pl.col("bucket"))["k"].sum() / n_lab) if n_lab else math.nan

    s_counts = sig.join(per, on="combo").group_by("signal").agg(
        pl.col("n_events").sum(), pl.col("n_decided").sum(), pl.col("n_rated").sum(), pl.col("n_override").sum(),
        pl.col("n_events").filter(pl.col("deciding")).sum().alias("n_deciding"),
    )
    dec_lab = sig.filter(pl.col("deciding")).join(lab, on="combo")
    s_match = dec_lab.group_by("signal").agg(
        pl.col("k").sum().alias("n_labelled"),
        pl.col("k").filter(pl.col("implied_bucket") == pl.col("routed_bucket")).sum().alias("n_match"),
    )
    ot = sig.join(over_to, on="combo").group_by("signal", "implied_bucket").agg(pl.col("k").sum())
    ot_top = (
        ot.sort(["signal", "k", "implied_bucket"], descending=[False, True, False])
        .group_by("signal", maintain_order=True)
        .agg(pl.col("implied_bucket").first().alias("override_to"), pl.col("k").first().alias("n_override_to"),
             pl.struct(pl.col("implied_bucket").alias("bucket"), pl.col("k").alias("n")).alias("override_to_all"))
    )
    out = (
        routes.join(s_counts, on="signal", how="left")
        .join(s_match, on="signal", how="left")
        .join(ot_top, on="signal", how="left")
        .with_columns([pl.col(c).fill_null(0).cast(pl.Int64) for c in
                       ("n_events", "n_decided", "n_rated", "n_override", "n_deciding", "n_labelled", "n_match",
                        "n_override_to")])
    )
    out = _wilson_cols(out, "override_rate", "n_override", "n_rated")
    out = _wilson_cols(out, "match_rate", "n_match", "n_labelled")
    k = out["n_match"].to_numpy()
    n = out["n_labelled"].to_numpy()
    testable = (n >= min_count) & (n > 0) & np.isfinite(p0)
    pval = np.where(testable, binomial_test_less(k, n, p0 if np.isfinite(p0) else 0.5), 1.0)
    m = max(int(testable.sum()), 1)
    hi = out["match_rate_high"].to_numpy()
    excess = p0 - out["match_rate"].to_numpy()
    excess_low = p0 - hi
    significant = (pval * m < alpha) & (np.nan_to_num(excess_low, nan=-1.0) > 0) & testable
    unrouted = (out["routed_rule"] == "fallback").to_numpy()
    out = out.with_columns(
        pl.Series("excess", excess, dtype=pl.Float64),
        pl.Series("excess_low", excess_low, dtype=pl.Float64),
        pl.Series("p_value", pval, dtype=pl.Float64),
        pl.Series("misleading", significant & ~unrouted, dtype=pl.Boolean),
        pl.Series("unrouted", unrouted, dtype=pl.Boolean),
        pl.Series("fallback_wrong", significant & unrouted, dtype=pl.Boolean),
        pl.Series("low_count", n < min_count, dtype=pl.Boolean),
    )
    out = out.with_columns(pl.col("excess_low").fill_nan(None),
                           pl.col("signal").is_in(sorted(text_signals)).alias("_found"))
    out = out.sort(["misleading", "fallback_wrong", "excess_low", "p_value", "_found", "signal"],
                   descending=[True, True, True, False, False, False], nulls_last=True).with_row_index("rank", offset=1)
    out = out.select(
        "rank", "signal", "misleading", "fallback_wrong", "unrouted", "routed_rule", "routed_bucket",
        "n_events", "n_decided", "n_rated",
        "n_override", "override_rate", "override_rate_low", "override_rate_high", "override_to", "n_override_to",
        "n_deciding", "n_labelled", "n_match", "match_rate", "match_rate_low", "match_rate_high",
        "excess", "excess_low", "p_value", "low_count",
    ).with_columns(pl.col("rank").cast(pl.Int64))
    return out, p0, n_lab


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
    """Rank the signals whose presence makes people override the table's routing.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``), or a :class:`~failtax.analysis.reclassify.Reclassified`.
    taxonomy : the taxonomy to look at (``replay``, ``regen``, ``preexec``).
    table : the table whose routing is tested; default the taxonomy's shipped table.
    since : ignore decisions classified before this date.
    min_count : signals with fewer deciding labelled events are flagged ``low_count``
        (and never flagged misleading or drifting); see :data:`DEFAULT_MIN_SIGNAL_COUNT`.
    alpha : family-wise significance level (Bonferroni over signals, and over splits
        for drift).
    n_examples : override events kept per signal.
    min_weeks : a drift split needs at least this many weeks with data on each side.
    min_split_count : and at least this many deciding labelled events on each side
        (default ``max(5, min_count // 3)``); the signal needs ``min_count`` in all.

    Returns
    -------
    MisleadingSignals

    Tips
    ----
    A signal with a high ``override_rate`` but a ``match_rate`` near the baseline is
    not misleading: the overrides come from events where another route decided. Look at
    ``lift`` to see which bucket the signal really points to.

    >>> df = pl.DataFrame({"event_id": [str(i) for i in range(6)], "taxonomy": ["replay"] * 6,
    ...     "signals": [["selector-timeout"]] * 3 + [["element-not-found"]] * 3,
    ...     "ai_bucket": ["stale-script"] * 6,
    ...     "implied_bucket": ["product-defect"] * 3 + ["stale-script"] * 3,
    ...     "agree": [False] * 3 + [True] * 3, "decided": [True] * 6, "opt_out": [False] * 6})
    >>> m = find_misleading_signals(df, taxonomy="replay", min_count=1)
    >>> m.signals.select("signal", "match_rate", "override_rate").rows()[0]
    ('selector-timeout', 0.0, 1.0)
    """
    rc = ensure_reclassified(decisions, table=table, taxonomy=taxonomy, since=since,
                             columns=["implied_bucket", "agree", "decided", "opt_out"],
                             optional=["ts", "week", "ai_bucket", "user_action"])
    tbl = rc.table
    buckets = load_taxonomy(tbl.taxonomy).bucket_names
    ev = rc.events
    combos = rc.combos
    sig = rc.signal_matrix()
    signals = sorted(set(sig["signal"].to_list()))
    routes = signal_routes(tbl, signals).rename({"rule": "routed_rule", "bucket": "routed_bucket"})
    sig = (
        sig.join(routes, on="signal", how="left")
        .join(combos.select("combo", "rule", pl.col("bucket").alias("table_bucket")), on="combo", how="left")
        .with_columns((pl.col("rule") == pl.col("routed_rule")).alias("deciding"))
    )

    # ---- per combo counts
    per = ev.group_by("combo").agg(
        pl.len().cast(pl.Int64).alias("n_events"),
        pl.col("decided").fill_null(False).sum().cast(pl.Int64).alias("n_decided"),
        pl.col("agree").is_not_null().sum().cast(pl.Int64).alias("n_rated"),
        (pl.col("agree") == False).fill_null(False).sum().cast(pl.Int64).alias("n_override"),  # noqa: E712
    )
    lab = ev.filter(pl.col("implied_bucket").is_not_null()).group_by("combo", "implied_bucket").agg(
        pl.len().cast(pl.Int64).alias("k")
    )
    over_to = ev.filter((pl.col("agree") == False) & pl.col("implied_bucket").is_not_null()).group_by(  # noqa: E712
        "combo", "implied_bucket").agg(pl.len().cast(pl.Int64).alias("k"))

    out, p0, n_lab = rank_signals_from_counts(sig, routes, combos, per, lab, over_to,
                                              min_count=min_count, alpha=alpha, text_signals=tbl.text_signals())

    lift = _lift(sig, lab, buckets, signals)
    side = max(5, min_count // 3) if min_split_count is None else min_split_count
    drift = _drift(sig, ev, min_count=min_count, min_side=side, alpha=alpha, min_weeks=min_weeks)
    examples = _examples(sig, ev, n_examples)
    return MisleadingSignals(
        taxonomy=tbl.taxonomy, table_name=tbl.name, table_version=tbl.version, baseline=p0, n_labelled=n_lab,
        signals=out, lift=lift, drift=drift, examples=examples, alpha=alpha, min_count=min_count,
    )


def _lift(sig: pl.DataFrame, lab: pl.DataFrame, buckets: Sequence[str], signals: Sequence[str]) -> pl.DataFrame:
    total = lab.group_by("implied_bucket").agg(pl.col("k").sum().alias("kb"))
    n_all = int(total["kb"].sum()) if total.height else 0
    p_b = {b: 0.0 for b in buckets}
    for b, kb in total.iter_rows():
        p_b[b] = kb / n_all if n_all else math.nan
    s_lab = sig.join(lab, on="combo").group_by("signal", "implied_bucket").agg(pl.col("k").sum())
    s_n = s_lab.group_by("signal").agg(pl.col("k").sum().alias("n_signal"))
    grid = pl.DataFrame(
        [(s, b) for s in signals for b in buckets], schema={"signal": pl.String, "bucket": pl.String}, orient="row"
    )
    out = (
        grid.join(s_n, on="signal", how="left")
        .join(s_lab.rename({"implied_bucket": "bucket"}), on=["signal", "bucket"], how="left")
        .with_columns(pl.col("n_signal").fill_null(0).cast(pl.Int64), pl.col("k").fill_null(0).cast(pl.Int64))
    )
    out = _wilson_cols(out, "p_bucket_given_signal", "k", "n_signal")
    pb = np.array([p_b.get(b, math.nan) for b in out["bucket"].to_list()], dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        lift = out["p_bucket_given_signal"].to_numpy() / pb
        lo = out["p_bucket_given_signal_low"].to_numpy() / pb
        hi = out["p_bucket_given_signal_high"].to_numpy() / pb
    bad = ~(pb > 0)
    lift[bad] = lo[bad] = hi[bad] = np.nan
    return out.with_columns(
        pl.Series("p_bucket", pb, dtype=pl.Float64),
        pl.Series("lift", lift, dtype=pl.Float64),
        pl.Series("lift_low", lo, dtype=pl.Float64),
        pl.Series("lift_high", hi, dtype=pl.Float64),
    ).select("signal", "bucket", "n_signal", "k", "p_bucket_given_signal", "p_bucket_given_signal_low",
             "p_bucket_given_signal_high", "p_bucket", "lift", "lift_low", "lift_high")


DRIFT_SCHEMA = {"signal": pl.String, "from_week": pl.Date, "weeks_before": pl.Int64, "weeks_after": pl.Int64,
                "n_before": pl.Int64, "match_before": pl.Float64, "n_after": pl.Int64, "match_after": pl.Float64,
                "diff": pl.Float64, "diff_low": pl.Float64, "diff_high": pl.Float64,
                "p_value": pl.Float64, "drifted": pl.Boolean, "to_bucket": pl.String, "explained_by": pl.String}


def _drift(sig: pl.DataFrame, ev: pl.DataFrame, *, min_count: int, min_side: int, alpha: float,
           min_weeks: int) -> pl.DataFrame:
    if "week" not in ev.columns or ev["week"].dtype == pl.Null:
        return pl.DataFrame(schema=DRIFT_SCHEMA)
    weekly_lab = ev.filter(pl.col("implied_bucket").is_not_null() & pl.col("week").is_not_null()).group_by(
        "combo", "week", "implied_bucket").agg(pl.len().cast(pl.Int64).alias("k"))
    return drift_from_weekly(sig, weekly_lab, min_count=min_count, min_side=min_side, alpha=alpha,
                             min_weeks=min_weeks)


def _split_counts(weekly: pl.DataFrame) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """Weeks, labelled events and events whose action matches the routed bucket, per week."""
    w = weekly.group_by("week").agg(
        pl.col("k").sum().alias("n"),
        pl.col("k").filter(pl.col("implied_bucket") == pl.col("routed_bucket")).sum().alias("m"),
    ).sort("week")
    return w["week"].to_list(), w["n"].to_numpy().astype(float), w["m"].to_numpy().astype(float)


def drift_from_weekly(sig: pl.DataFrame, weekly_lab: pl.DataFrame, *, min_count: int, min_side: int,
                      alpha: float, min_weeks: int) -> pl.DataFrame:
    """The drift frame from (combo, week, implied bucket) counts ``k`` and the signal rows.

    For every deciding signal, the week split where the match rate fell the most
    significantly (one-sided Fisher test, Bonferroni over all splits tried). A signal
    that shares events with a more significant drifted signal stays drifted only if the
    fall holds on its events without that signal; otherwise ``explained_by`` names the
    signal that explains it (a signal riding along with a drifted one is not drift).
    Shared by the local analysis and the Spark path.
    """
    weekly = sig.filter(pl.col("deciding")).select("signal", "combo", "routed_bucket").join(
        weekly_lab, on="combo")
    n_tests = 0
    cands = []
    for (s,), g in weekly.group_by(["signal"], maintain_order=True):
        weeks, n, m = _split_counts(g)
        if len(weeks) < 2 * min_weeks or n.sum() < min_count:
            continue
        cn, cm = np.cumsum(n), np.cumsum(m)
        best = None
        for i in range(min_weeks, len(weeks) - min_weeks + 1):
            n1, m1 = int(cn[i - 1]), int(cm[i - 1])
            n2, m2 = int(cn[-1]) - n1, int(cm[-1]) - m1
            if n1 < min_side or n2 < min_side or m2 * n1 >= m1 * n2:
                continue  # too few on a side, or the match rate did not fall
            n_tests += 1
            p = fisher_exact_less(m1, n1, m2, n2)
            if best is None or p < best[0]:
                best = (p, i, n1, m1, n2, m2)
        if best is not None:
            cands.append((s, weeks, best))
    m_tests = max(n_tests, 1)

    def falls(n1: int, m1: int, n2: int, m2: int) -> bool:
        if n1 < min_side or n2 < min_side:
            return False
        return fisher_exact_less(m1, n1, m2, n2) * m_tests < alpha and newcombe_diff_interval(m2, n2, m1, n1)[1] < 0

    rows = []
    accepted: list[str] = []
    for s, weeks, (p, i, n1, m1, n2, m2) in sorted(cands, key=lambda c: (c[2][0], c[0])):
        lo, hi = newcombe_diff_interval(m2, n2, m1, n1)
        drifted = bool(p * m_tests < alpha and hi < 0)
        explained_by = None
        if drifted and accepted:
            shared = sig.filter(pl.col("signal").is_in(accepted)).select("combo", "signal")
            mine = sig.filter(pl.col("signal") == s)["combo"]
            by = shared.filter(pl.col("combo").is_in(mine.implode()))["signal"].unique(maintain_order=True).to_list()
            if by:
                rest = weekly.filter((pl.col("signal") == s) & ~pl.col("combo").is_in(shared["combo"].implode()))
                after = pl.col("week") >= weeks[i]
                matched = pl.col("implied_bucket") == pl.col("routed_bucket")
                nb, mb, na, ma = (int(v or 0) for v in rest.select(
                    nb=pl.col("k").filter(~after).sum(), mb=pl.col("k").filter(~after & matched).sum(),
                    na=pl.col("k").filter(after).sum(), ma=pl.col("k").filter(after & matched).sum(),
                ).row(0))
                if not falls(nb, mb, na, ma):
                    drifted = False
                    explained_by = ", ".join(sorted(by, key=accepted.index))
        if drifted:
            accepted.append(s)
        to = weekly.filter((pl.col("signal") == s) & (pl.col("week") >= weeks[i])
                           & (pl.col("implied_bucket") != pl.col("routed_bucket")))
        tb = None
        if to.height:
            tb = to.group_by("implied_bucket").agg(pl.col("k").sum()).sort(
                ["k", "implied_bucket"], descending=[True, False])["implied_bucket"][0]
        rows.append({
            "signal": s, "from_week": weeks[i], "weeks_before": i, "weeks_after": len(weeks) - i,
            "n_before": n1, "match_before": m1 / n1, "n_after": n2, "match_after": m2 / n2,
            "diff": m2 / n2 - m1 / n1, "diff_low": lo, "diff_high": hi, "p_value": p,
            "drifted": drifted, "to_bucket": tb, "explained_by": explained_by,
        })
    out = pl.DataFrame(rows, schema=DRIFT_SCHEMA) if rows else pl.DataFrame(schema=DRIFT_SCHEMA)
    return out.sort(["drifted", "p_value", "signal"], descending=[True, False, False])


def _iso(ts: pl.Series) -> pl.Series:
    """Times as ISO-8601 text (``2026-09-07T10:00:00.000``)."""
    if isinstance(ts.dtype, pl.Datetime):
        return ts.dt.to_string("%Y-%m-%dT%H:%M:%S%.3f")
    return ts.cast(pl.String)


def _examples(sig: pl.DataFrame, ev: pl.DataFrame, n_examples: int) -> pl.DataFrame:
    schema = {"signal": pl.String, "event_id": pl.String, "ts": pl.String, "ai_bucket": pl.String,
              "user_action": pl.String, "implied_bucket": pl.String, "text": pl.String}
    if n_examples <= 0:
        return pl.DataFrame(schema=schema)
    over = ev.filter(pl.col("agree") == False)  # noqa: E712
    cols = [c for c in ("event_id", "ts", "ai_bucket", "user_action", "implied_bucket", "text", "combo") if c in over.columns]
    over = over.select(cols)
    pairs = sig.filter(pl.col("deciding")).select("combo", "signal")
    ex = over.join(pairs, on="combo").sort(["signal", "ts", "event_id"], descending=[False, True, False], nulls_last=True)
    ex = ex.group_by("signal", maintain_order=True).head(n_examples)
    texts = [redact_text(t) for t in ex["text"].to_list()] if "text" in ex.columns else [None] * ex.height
    return pl.DataFrame(
        {
            "signal": ex["signal"],
            "event_id": ex["event_id"].cast(pl.String),
            "ts": _iso(ex["ts"]) if "ts" in ex.columns else pl.Series([None] * ex.height, dtype=pl.String),
            "ai_bucket": ex["ai_bucket"].cast(pl.String),
            "user_action": ex["user_action"].cast(pl.String),
            "implied_bucket": ex["implied_bucket"].cast(pl.String),
            "text": pl.Series(texts, dtype=pl.String),
        },
        schema=schema,
    )
