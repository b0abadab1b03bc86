"""Rule diagnostics: how each extractor and route rule of a table behaves on real decisions.

In the manner of snorkel's ``LFAnalysis.lf_summary``, every rule is a labelling
function over the events' evidence (see :mod:`failtax.analysis.reclassify`):

- a **route** rule *fires* on an event when it matches the event's signals; its label
  is its bucket. It *decides* when it is the first that fires, and is *shadowed* when
  an earlier route fired first;
- an **extract** rule *fires* when it matches the event's text; its label is the bucket
  its signal routes to on its own (the first route that matches ``{signal}``, else the
  fallback). It *decides* when its signal is one the deciding route matched on;
- the **fallback** row counts events no route matched.

Per rule: ``coverage`` (share of events it fires on), ``overlap`` (share where it and
another rule of its kind fire), ``conflict`` (share where another rule of its kind
fires with a different label), ``accuracy`` against implied buckets with a Wilson 95%
interval and its count, split into where it decided and where it was shadowed.
Beside them: dead rules (never fire on the data), signals seen in telemetry that no rule
of the table knows, the recognition rate (share of events a route decides, i.e. not the
fallback) overall and per week with its trend, and *shadowing* pairs: where an earlier
route wins over a later one with another bucket, which of the two the people's actions
side with (a sign test), so a route placed too early shows up. One row per (earlier
route, its signal, later route); when the later route fires through several signals,
each (signal, later signal) pair is tested too, since people may side with the later
route only when one of its signals is present (``shadowed_signal`` names it; ``None``
means the evidence is pooled over all of them). Each row keeps its strongest evidence,
Bonferroni over every test made whose events could reach the corrected level (Tarone's
count: a pair met on three events can never be significant and is not counted).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.agreement import DEFAULT_MIN_COUNT, frame_records
from failtax.analysis.frames import as_decisions, filter_decisions, with_rate_columns
from failtax.analysis.reclassify import Reclassified, evaluable, reclassify, resolve_table
from failtax.analysis.stats import Rate, binomial_test_greater, newcombe_diff_interval, rate, tarone_count
from failtax.errors import InputError
from failtax.table import RuleTable, load_table

__all__ = [
    "RuleDiagnostics",
    "diagnose_rules",
    "ensure_reclassified",
    "signal_routes",
]

def signal_routes(table: RuleTable, signals: Sequence[str]) -> pl.DataFrame:
    """Where ``table`` routes an event carrying only one signal: ``(signal, rule, bucket)``.

    ``rule`` is the first route matching ``{signal}``, or ``"fallback"``.

    >>> from failtax.table import load_table
    >>> signal_routes(load_table("replay"), ["selector-timeout", "new-thing"]).rows()
    [('selector-timeout', 'stale-script', 'stale-script'), ('new-thing', 'fallback', 'product-defect')]
    """
    rows = []
    for s in signals:
        route = next((r for r in table.route if r.matches({s})), None)
        rows.append((s, route.id if route else "fallback", route.bucket if route else table.fallback))
    return pl.DataFrame(rows, schema={"signal": pl.String, "rule": pl.String, "bucket": pl.String}, orient="row")


def ensure_reclassified(
    decisions: Any,
    *,
    table: Any = None,
    taxonomy: str | None = None,
    since: _dt.date | str | None = None,
    columns: Sequence[str] = (),
    optional: Sequence[str] = (),
) -> Reclassified:
    """``decisions`` classified under ``table``; a :class:`Reclassified` is returned as is.

    ``columns`` are further decisions columns the caller needs; they are validated once
    here (an :class:`~failtax.InputError` names any that is missing). ``optional``
    columns are added as NULL when absent.

    >>> df = pl.DataFrame({"event_id": ["1"], "taxonomy": ["replay"], "signals": [["selector-timeout"]]})
    >>> rc = ensure_reclassified(df, taxonomy="replay")
    >>> ensure_reclassified(rc) is rc, rc.combos["bucket"].to_list()
    (True, ['stale-script'])
    """
    if isinstance(decisions, Reclassified):
        if table is not None and load_table(table) != decisions.table:
            raise InputError("the decisions were reclassified under another table than the one given")
        missing = [c for c in columns if c not in decisions.events.columns]
        if missing:
            raise InputError(f"decisions: missing column(s) {', '.join(repr(c) for c in missing)}")
        absent = [c for c in optional if c not in decisions.events.columns]
        if absent:
            decisions = Reclassified(decisions.table, as_decisions(decisions.events, columns=[], optional=absent),
                                     decisions.combos)
        return decisions
    tbl = resolve_table(table, taxonomy=taxonomy)
    cols = list(dict.fromkeys(["event_id", "taxonomy", "signals", *columns, *(["ts"] if since is not None else [])]))
    df = as_decisions(decisions, columns=cols, optional=["text", *optional])
    df = filter_decisions(df, taxonomy=tbl.taxonomy, since=since)
    return reclassify(df, table=tbl)


@dataclass(frozen=True)
class RuleDiagnostics:
    """What :func:`diagnose_rules` found about one table on one set of decisions.

    Frames: ``rules`` (one row per extract rule, route rule and the fallback),
    ``unknown_signals``, ``recognition_by_week``, ``shadowing``. ``dead_rules`` are
    ``"kind:id"`` names of rules that never fired (extract rules that cannot be re-run
    on decisions are listed in ``unevaluable`` instead).
    """

    taxonomy: str
    table_name: str
    table_version: str
    n_events: int
    n_labelled: int
    rules: pl.DataFrame
    dead_rules: tuple[str, ...]
    unevaluable: tuple[str, ...]
    unknown_signals: pl.DataFrame
    recognition: Rate
    recognition_by_week: pl.DataFrame
    recognition_trend: dict[str, float | None]
    shadowing: pl.DataFrame
    min_count: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "taxonomy": self.taxonomy,
            "table": {"name": self.table_name, "version": self.table_version},
            "n_events": self.n_events,
            "n_labelled": self.n_labelled,
            "min_count": self.min_count,
            "rules": frame_records(self.rules),
            "dead_rules": list(self.dead_rules),
            "unevaluable": list(self.unevaluable),
            "unknown_signals": frame_records(self.unknown_signals),
            "recognition": _rate_dict(self.recognition),
            "recognition_by_week": frame_records(self.recognition_by_week),
            "recognition_trend": {k: _clean(v) for k, v in self.recognition_trend.items()},
            "shadowing": frame_records(self.shadowing),
        }


def _clean(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else v


def _rate_dict(r: Rate) -> dict[str, Any]:
    return {"successes": r.successes, "n": r.n, "value": _clean(r.value), "low": _clean(r.low), "high": _clean(r.high)}


_add_rate = with_rate_columns


def _label_counts(rc: Reclassified) -> pl.DataFrame:
    """Per combo and implied bucket: the number of labelled events ``k``."""
    return (
        rc.events.filter(pl.col("implied_bucket").is_not_null())
        .group_by("combo", "implied_bucket")
        .agg(pl.len().cast(pl.Int64).alias("k"))
    )


def _rule_rows(
    pairs: pl.DataFrame, labels: pl.DataFrame, n_total: int, *, rule_col: str
) -> pl.DataFrame:
    """Aggregate (combo × rule) pairs into per-rule counts.

    ``pairs`` has ``combo, n, <rule_col>, label, decided (bool), multi (bool), conflict (bool)``.
    """
    base = pairs.group_by(rule_col).agg(
        pl.col("n").sum().alias("n_fires"),
        pl.col("n").filter(pl.col("multi")).sum().alias("n_overlap"),
        pl.col("n").filter(pl.col("conflict")).sum().alias("n_conflict"),
        pl.col("n").filter(pl.col("decided")).sum().alias("n_decided"),
        pl.col("n").filter(~pl.col("decided")).sum().alias("n_shadowed"),
    )
    lab = pairs.select("combo", rule_col, "label", "decided").join(labels, on="combo", how="inner")
    acc = lab.group_by(rule_col).agg(
        pl.col("k").sum().alias("n_labelled"),
        pl.col("k").filter(pl.col("implied_bucket") == pl.col("label")).sum().alias("n_correct"),
        pl.col("k").filter(pl.col("decided")).sum().alias("n_labelled_decided"),
        pl.col("k").filter(pl.col("decided") & (pl.col("implied_bucket") == pl.col("label"))).sum().alias("n_correct_decided"),
        pl.col("k").filter(~pl.col("decided")).sum().alias("n_labelled_shadowed"),
        pl.col("k").filter(~pl.col("decided") & (pl.col("implied_bucket") == pl.col("label"))).sum().alias("n_correct_shadowed"),
    )
    out = base.join(acc, on=rule_col, how="left").fill_null(0)
    return out


_RULE_SCHEMA = {
    "kind": pl.String, "position": pl.Int64, "rule": pl.String, "signals": pl.String,
    "bucket": pl.String, "evaluable": pl.Boolean,
}
_COUNT_COLS = [
    "n_fires", "n_overlap", "n_conflict", "n_decided", "n_shadowed", "n_labelled", "n_correct",
    "n_labelled_decided", "n_correct_decided", "n_labelled_shadowed", "n_correct_shadowed",
]


def _rules_frame(rc: Reclassified, labels: pl.DataFrame, n_total: int, min_count: int) -> pl.DataFrame:
    table = rc.table
    combos = rc.combos
    route_bucket = {r.id: r.bucket for r in table.route}
    solo = {row[0]: (row[1], row[2]) for row in signal_routes(table, [r.signal for r in table.extract]).iter_rows()}

    # ---- routes
    rb = pl.DataFrame({"route": list(route_bucket), "label": list(route_bucket.values())},
                      schema={"route": pl.String, "label": pl.String})
    rp = (
        combos.select("combo", "n", "rule", pl.col("routes").alias("route"), pl.col("routes").alias("_all"))
        .explode("route").drop_nulls("route")
        .join(rb, on="route", how="left")
    )
    # buckets of all matching routes of the combo
    bk = (
        combos.select("combo", pl.col("routes").alias("r")).explode("r").drop_nulls("r")
        .join(rb.rename({"route": "r"}), on="r", how="left")
        .group_by("combo").agg(pl.col("label").n_unique().alias("_nb"), pl.len().alias("_nr"))
    )
    rp = rp.join(bk, on="combo", how="left").with_columns(
        (pl.col("_nr") > 1).alias("multi"),
        (pl.col("_nb") > 1).alias("conflict"),
        (pl.col("rule") == pl.col("route")).alias("decided"),
    )
    routes = _rule_rows(rp, labels, n_total, rule_col="route")
    route_rows = pl.DataFrame(
        [("route", i + 1, r.id, ", ".join(r.positive_signals), r.bucket, True) for i, r in enumerate(table.route)],
        schema=_RULE_SCHEMA, orient="row",
    ).join(routes.rename({"route": "rule"}), on="rule", how="left")

    # ---- extract rules
    ext_label = {r.id: solo[r.signal][1] for r in table.extract}
    ext_signal = {r.id: r.signal for r in table.extract}
    eb = pl.DataFrame({"fired": list(ext_label), "label": list(ext_label.values()), "signal": list(ext_signal.values())},
                      schema={"fired": pl.String, "label": pl.String, "signal": pl.String})
    route_pos = pl.DataFrame(
        {"rule": [r.id for r in table.route], "_pos": [list(r.positive_signals) for r in table.route]},
        schema={"rule": pl.String, "_pos": pl.List(pl.String)},
    )
    ep = (
        combos.select("combo", "n", "rule", pl.col("fired"))
        .explode("fired").drop_nulls("fired")
        .join(eb, on="fired", how="left")
        .join(route_pos, on="rule", how="left")
    )
    ek = ep.group_by("combo").agg(pl.col("label").n_unique().alias("_nb"), pl.len().alias("_nr"))
    ep = ep.join(ek, on="combo", how="left").with_columns(
        (pl.col("_nr") > 1).alias("multi"),
        (pl.col("_nb") > 1).alias("conflict"),
        pl.col("_pos").fill_null([]).list.contains(pl.col("signal")).alias("decided"),
    )
    extracts = _rule_rows(ep, labels, n_total, rule_col="fired")
    ext_rows = pl.DataFrame(
        [("extract", i + 1, r.id, r.signal, ext_label[r.id], evaluable(r)) for i, r in enumerate(table.extract)],
        schema=_RULE_SCHEMA, orient="row",
    ).join(extracts.rename({"fired": "rule"}), on="rule", how="left")

    # ---- fallback
    fb = combos.filter(pl.col("rule") == "fallback")
    fb_lab = labels.join(fb.select("combo"), on="combo", how="inner")
    n_fb = int(fb["n"].sum()) if fb.height else 0
    n_fb_lab = int(fb_lab["k"].sum()) if fb_lab.height else 0
    n_fb_ok = int(fb_lab.filter(pl.col("implied_bucket") == table.fallback)["k"].sum()) if fb_lab.height else 0
    fb_row = pl.DataFrame(
        [{
            "kind": "fallback", "position": len(table.route) + 1, "rule": "fallback", "signals": None,
            "bucket": table.fallback, "evaluable": True, "n_fires": n_fb, "n_overlap": 0, "n_conflict": 0,
            "n_decided": n_fb, "n_shadowed": 0, "n_labelled": n_fb_lab, "n_correct": n_fb_ok,
            "n_labelled_decided": n_fb_lab, "n_correct_decided": n_fb_ok,
            "n_labelled_shadowed": 0, "n_correct_shadowed": 0,
        }],
        schema={**_RULE_SCHEMA, **{c: pl.Int64 for c in _COUNT_COLS}},
    )
    out = pl.concat(
        [ext_rows.with_columns([pl.col(c).cast(pl.Int64) for c in _COUNT_COLS]),
         route_rows.with_columns([pl.col(c).cast(pl.Int64) for c in _COUNT_COLS]),
         fb_row],
        how="vertical",
    ).with_columns([pl.col(c).fill_null(0) for c in _COUNT_COLS])
    denom = float(n_total) if n_total else math.nan
    out = out.with_columns(
        (pl.col("n_fires") / denom).alias("coverage"),
        (pl.col("n_overlap") / denom).alias("overlap"),
        (pl.col("n_conflict") / denom).alias("conflict"),
    )
    out = _add_rate(out, "accuracy", "n_correct", "n_labelled")
    out = _add_rate(out, "accuracy_decided", "n_correct_decided", "n_labelled_decided")
    out = _add_rate(out, "accuracy_shadowed", "n_correct_shadowed", "n_labelled_shadowed")
    return out.with_columns(
        ((pl.col("n_fires") == 0) & pl.col("evaluable") & (pl.col("kind") != "fallback")).alias("dead"),
        (pl.col("n_labelled") < min_count).alias("low_count"),
    )


def _unknown_signals(rc: Reclassified, labels: pl.DataFrame, min_count: int) -> pl.DataFrame:
    known = set(rc.table.signals)
    sig = rc.signal_matrix()
    unknown = sig.filter(~pl.col("signal").is_in(list(known)))
    schema = {"signal": pl.String, "n_events": pl.Int64, "n_labelled": pl.Int64, "routed_bucket_top": pl.String,
              "top_implied_bucket": pl.String, "n_top_implied": pl.Int64}
    if unknown.height == 0:
        out = pl.DataFrame(schema=schema)
        return _add_rate(out, "top_implied_share", "n_top_implied", "n_labelled").with_columns(
            pl.lit(None, dtype=pl.Int64).alias("n_agree_table"),
            pl.lit(None, dtype=pl.Float64).alias("table_accuracy"),
            pl.lit(None, dtype=pl.Boolean).alias("low_count"),
        )
    counts = unknown.join(rc.combos.select("combo", "n", "bucket"), on="combo").group_by("signal").agg(
        pl.col("n").sum().cast(pl.Int64).alias("n_events"),
        pl.col("bucket").sort_by("n", descending=True).first().alias("routed_bucket_top"),
    )
    lab = unknown.join(labels, on="combo").join(rc.combos.select("combo", "bucket"), on="combo")
    per_bucket = lab.group_by("signal", "implied_bucket").agg(pl.col("k").sum())
    top = (
        per_bucket.sort(["signal", "k", "implied_bucket"], descending=[False, True, False])
        .group_by("signal", maintain_order=True)
        .agg(pl.col("implied_bucket").first().alias("top_implied_bucket"),
             pl.col("k").first().alias("n_top_implied"), pl.col("k").sum().alias("n_labelled"))
    )
    agree = lab.group_by("signal").agg(
        pl.col("k").filter(pl.col("implied_bucket") == pl.col("bucket")).sum().alias("n_agree_table")
    )
    out = (
        counts.join(top, on="signal", how="left").join(agree, on="signal", how="left")
        .with_columns(pl.col("n_labelled").fill_null(0).cast(pl.Int64), pl.col("n_top_implied").fill_null(0).cast(pl.Int64),
                      pl.col("n_agree_table").fill_null(0).cast(pl.Int64))
        .sort(["n_events", "signal"], descending=[True, False])
    )
    out = _add_rate(out, "top_implied_share", "n_top_implied", "n_labelled")
    out = _add_rate(out, "table_accuracy", "n_agree_table", "n_labelled")
    return out.select(
        "signal", "n_events", "n_labelled", "routed_bucket_top", "top_implied_bucket", "n_top_implied",
        "top_implied_share", "top_implied_share_low", "top_implied_share_high",
        "n_agree_table", "table_accuracy", "table_accuracy_low", "table_accuracy_high",
    ).with_columns((pl.col("n_labelled") < min_count).alias("low_count"))


def _recognition(rc: Reclassified) -> tuple[Rate, pl.DataFrame, dict[str, float | None]]:
    ev = rc.events.join(rc.combos.select("combo", "rule"), on="combo", how="left")
    ev = ev.with_columns((pl.col("rule") != "fallback").alias("_rec"))
    overall = rate(int(ev["_rec"].sum()), ev.height)
    weekly = (
        ev.filter(pl.col("week").is_not_null())
        .group_by("week").agg(pl.len().cast(pl.Int64).alias("n_events"), pl.col("_rec").sum().cast(pl.Int64).alias("n_recognised"))
        .sort("week")
    )
    weekly = _add_rate(weekly, "recognition_rate", "n_recognised", "n_events")
    trend: dict[str, float | None] = {"slope_per_week": None, "first_half_rate": None, "second_half_rate": None,
                                      "diff": None, "diff_low": None, "diff_high": None}
    if weekly.height >= 2:
        x = np.arange(weekly.height, dtype=float)
        y = weekly["recognition_rate"].to_numpy()
        w = weekly["n_events"].to_numpy().astype(float)
        slope = float(np.polyfit(x, y, 1, w=np.sqrt(w))[0])
        half = weekly.height // 2
        k1, n1 = int(weekly["n_recognised"][:half].sum()), int(weekly["n_events"][:half].sum())
        k2, n2 = int(weekly["n_recognised"][half:].sum()), int(weekly["n_events"][half:].sum())
        lo, hi = newcombe_diff_interval(k2, n2, k1, n1)
        trend = {"slope_per_week": slope, "first_half_rate": k1 / n1 if n1 else None,
                 "second_half_rate": k2 / n2 if n2 else None,
                 "diff": (k2 / n2 - k1 / n1) if n1 and n2 else None, "diff_low": lo, "diff_high": hi}
    return overall, weekly, trend


def _shadowing(rc: Reclassified, labels: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """One row per (winning route, its signal, shadowed route); see :func:`diagnose_rules`."""
    table = rc.table
    bucket = {r.id: r.bucket for r in table.route}
    pos = {r.id: set(r.positive_signals) for r in table.route}
    rows = []
    for combo, n, routes, present in rc.combos.filter(pl.col("routes").list.len() > 1).select(
        "combo", "n", "routes", "present"
    ).iter_rows():
        winner = routes[0]
        wsig = [s for s in present if s in pos[winner]] or [None]
        for later in dict.fromkeys(routes[1:]):
            if bucket[later] == bucket[winner]:
                continue
            for s in wsig:
                lsig = [x for x in present if x in pos[later] and x != s] or [None]
                for x in lsig:
                    rows.append((combo, n, winner, later, s, x))
    schema = {"combo": pl.UInt32, "n": pl.Int64, "rule": pl.String, "shadowed_rule": pl.String, "signal": pl.String,
              "shadowed_signal": pl.String}
    pairs = pl.DataFrame(rows, schema=schema, orient="row")
    pairs = pairs.with_columns(
        pl.col("rule").replace_strict(bucket, return_dtype=pl.String).alias("bucket"),
        pl.col("shadowed_rule").replace_strict(bucket, return_dtype=pl.String).alias("shadowed_bucket"),
    ) if pairs.height else pairs.with_columns(pl.lit(None, dtype=pl.String).alias("bucket"),
                                               pl.lit(None, dtype=pl.String).alias("shadowed_bucket"))
    keys = ["rule", "shadowed_rule", "signal", "bucket", "shadowed_bucket"]

    def counts(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
        agg = frame.group_by(by).agg(pl.col("n").sum().alias("n_events"))
        lab = frame.join(labels, on="combo", how="inner").group_by(by).agg(
            pl.col("k").sum().alias("n_labelled"),
            pl.col("k").filter(pl.col("implied_bucket") == pl.col("bucket")).sum().alias("n_winner_right"),
            pl.col("k").filter(pl.col("implied_bucket") == pl.col("shadowed_bucket")).sum().alias("n_shadowed_right"),
        )
        return agg.join(lab, on=by, how="left", nulls_equal=True).with_columns(
            [pl.col(c).fill_null(0).cast(pl.Int64) for c in ("n_events", "n_labelled", "n_winner_right",
                                                              "n_shadowed_right")]
        )

    # The evidence over every event where the two routes meet, and, where the shadowed
    # route fires through several signals, the evidence of each (signal, shadowed signal)
    # pair: people may side with the later route only when one of its signals is there.
    pooled = counts(pairs.unique(["combo", *keys]).drop("shadowed_signal"), keys)
    kinds = pairs.group_by(keys).agg(pl.col("shadowed_signal").drop_nulls().unique().alias("_x"))
    pooled = pooled.join(kinds, on=keys, how="left", nulls_equal=True).with_columns(
        pl.when(pl.col("_x").list.len() == 1).then(pl.col("_x").list.first())
        .otherwise(pl.lit(None, dtype=pl.String)).alias("shadowed_signal"),
        (pl.col("_x").list.len() > 1).alias("_split"),
    )
    split = pooled.filter(pl.col("_split")).select(keys)
    per_pair = counts(pairs.join(split, on=keys, how="semi", nulls_equal=True)
                      .filter(pl.col("shadowed_signal").is_not_null()), [*keys, "shadowed_signal"])
    cols = [*keys, "shadowed_signal", "n_events", "n_labelled", "n_winner_right", "n_shadowed_right"]
    tests = pl.concat([pooled.select(cols).with_columns(pl.lit(0).alias("_pair")),
                       per_pair.select(cols).with_columns(pl.lit(1).alias("_pair"))], how="vertical")
    # Sign test: among events whose implied bucket is one of the two, does the later
    # route's bucket win more often than chance (one-sided, exact)? Bonferroni over every
    # test made (pooled and per pair) that could reach the corrected level on its events
    # (Tarone: a pair met on three events never can); each row keeps its strongest evidence.
    kb = tests["n_shadowed_right"].to_numpy()
    ka = tests["n_winner_right"].to_numpy()
    p = np.array([binomial_test_greater(int(b), int(a + b), 0.5) for a, b in zip(ka, kb, strict=True)], dtype=float)
    m = tarone_count(0.5 ** (ka + kb).astype(float), alpha)
    tests = tests.with_columns(pl.Series("p_value", p, dtype=pl.Float64))
    out = tests.sort(["p_value", "_pair"]).unique(keys, keep="first", maintain_order=True).drop("_pair")
    out = _add_rate(out, "winner_accuracy", "n_winner_right", "n_labelled")
    out = _add_rate(out, "shadowed_accuracy", "n_shadowed_right", "n_labelled")
    out = out.with_columns(
        ((pl.col("p_value") * m < alpha) & (pl.col("n_shadowed_right") > pl.col("n_winner_right"))).alias("flagged"),
    )
    return out.sort(["flagged", "n_shadowed_right", "rule", "shadowed_rule", "signal", "shadowed_signal"],
                    descending=[True, True, False, False, False, False], nulls_last=True)


def diagnose_rules(
    decisions: Any,
    *,
    taxonomy: str | None = None,
    table: Any = None,
    since: _dt.date | str | None = None,
    min_count: int = DEFAULT_MIN_COUNT,
    alpha: float = 0.01,
) -> RuleDiagnostics:
    """Per-rule coverage, overlap, conflict and accuracy, dead rules, unknown signals,
    recognition rate and its trend, and routes shadowed by an earlier one.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``), or a :class:`~failtax.analysis.reclassify.Reclassified` to reuse one
        classification.
    taxonomy : the taxonomy whose decisions to look at (``replay``, ``regen``, ``preexec``).
    table : the rule table to diagnose (a :class:`~failtax.RuleTable`, a path or a shipped
        name); default the taxonomy's shipped table.
    since : ignore decisions classified before this date.
    min_count : accuracies resting on fewer labelled events are flagged ``low_count``.
    alpha : family-wise level of the shadowing sign tests (Bonferroni over every test,
        each pooled row and each signal pair, that could reach the corrected level).

    Returns
    -------
    RuleDiagnostics

    Tips
    ----
    A route with high ``accuracy_shadowed`` and a *shadowing* row flagged against it
    is placed too late (or the shadowing route too early); a dead route or a route
    whose accuracy interval sits below the others is a candidate for the tuner.

    >>> df = pl.DataFrame({"event_id": ["1", "2", "3"], "taxonomy": ["replay"] * 3,
    ...     "signals": [["chromium-error", "selector-timeout"], ["selector-timeout"], ["new-signal"]],
    ...     "implied_bucket": ["stale-script", "stale-script", "infra"], "week": [None] * 3})
    >>> d = diagnose_rules(df, taxonomy="replay")
    >>> d.rules.filter(pl.col("rule") == "stale-script").select("n_fires", "n_decided", "n_shadowed").row(0)
    (2, 1, 1)
    >>> d.unknown_signals["signal"].to_list()
    ['new-signal']
    """
    rc = ensure_reclassified(decisions, table=table, taxonomy=taxonomy, since=since,
                             columns=["implied_bucket", "week"])
    labels = _label_counts(rc)
    n_total = rc.events.height
    rules = _rules_frame(rc, labels, n_total, min_count)
    dead = tuple(f"{k}:{r}" for k, r in rules.filter(pl.col("dead")).select("kind", "rule").iter_rows())
    overall, weekly, trend = _recognition(rc)
    return RuleDiagnostics(
        taxonomy=rc.table.taxonomy,
        table_name=rc.table.name,
        table_version=rc.table.version,
        n_events=n_total,
        n_labelled=int(labels["k"].sum()) if labels.height else 0,
        rules=rules,
        dead_rules=dead,
        unevaluable=rc.unevaluable,
        unknown_signals=_unknown_signals(rc, labels, min_count),
        recognition=overall,
        recognition_by_week=weekly,
        recognition_trend=trend,
        shadowing=_shadowing(rc, labels, alpha),
        min_count=min_count,
    )
