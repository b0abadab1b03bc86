"""The report's numbers: the frames its plots read, ``summary.json`` and ``summary.md``.

Everything the HTML page, the Markdown summary and the notebooks show is computed here
or in :mod:`failtax.analysis` / :mod:`failtax.tune`, never twice:

- :func:`weekly_agreement` and :func:`weekly_recognition` stack the weekly frames of
  every taxonomy (and ``all``) for the trend plots;
- :func:`backtest_frame` turns backtest results into the rows the backtest plot reads;
- :func:`rate_record` and :func:`format_rate` are the one way a rate is written down
  (``83.0% [82.1%, 83.9%], n=12,345``);
- :func:`key_numbers` lists the headline numbers (key, label, text) that the HTML page
  shows with a ``data-key`` attribute and ``summary.md`` lists, from the summary dict;
- :func:`render_markdown` writes ``summary.md``; :func:`write_json` writes any JSON
  atomically (the notebooks' last cell uses it too).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from failtax.analysis.agreement import summarize_agreement
from failtax.analysis.frames import as_decisions
from failtax.table import atomic_write_text
from failtax.telemetry.files import count_files

__all__ = [
    "KeyNumber",
    "agreement_numbers",
    "backtest_frame",
    "build_summary",
    "format_count",
    "format_pct",
    "format_rate",
    "jsonable",
    "key_numbers",
    "moves_numbers",
    "preexec_numbers",
    "rate_record",
    "render_markdown",
    "rules_numbers",
    "summarize_signals",
    "tuning_numbers",
    "weekly_agreement",
    "weekly_recognition",
    "write_json",
]

#: Taxonomies in the order the report shows them (others follow, sorted).
TAXONOMY_ORDER = ("replay", "regen", "preexec")


def order_taxonomies(names: Iterable[str]) -> list[str]:
    """``names`` in report order: replay, regen, preexec, then the rest sorted.

    >>> order_taxonomies(["preexec", "x", "replay"])
    ['replay', 'preexec', 'x']
    """
    names = set(names)
    return [t for t in TAXONOMY_ORDER if t in names] + sorted(names - set(TAXONOMY_ORDER))


# --------------------------------------------------------------------------- values


def _num(v: Any) -> float | None:
    if v is None:
        return None
    v = float(v)
    return None if math.isnan(v) else v


def rate_record(successes: int, n: int, low: float | None, high: float | None) -> dict[str, Any]:
    """A rate as the report stores it: ``{"rate", "low", "high", "k", "n"}`` (None when n = 0).

    >>> rate_record(3, 4, 0.3, 0.95)["rate"]
    0.75
    """
    n = int(n)
    return {
        "rate": (successes / n) if n else None,
        "low": _num(low) if n else None,
        "high": _num(high) if n else None,
        "k": int(successes),
        "n": n,
    }


def rate_from(r: Any) -> dict[str, Any]:
    """A :class:`~failtax.analysis.stats.Rate` as a :func:`rate_record`."""
    return rate_record(r.successes, r.n, r.low, r.high)


def format_pct(v: float | None) -> str:
    """A share as a percentage with one decimal (``n/a`` for None).

    >>> format_pct(0.8312), format_pct(None)
    ('83.1%', 'n/a')
    """
    return "n/a" if v is None else f"{v * 100:.1f}%"


def format_count(n: int | None) -> str:
    """An integer with thousands separators.

    >>> format_count(12345)
    '12,345'
    """
    return "n/a" if n is None else f"{int(n):,}"


def format_weeks(n: int | None) -> str:
    """A number of weeks, singular when it is one.

    >>> format_weeks(1), format_weeks(12)
    ('1 week', '12 weeks')
    """
    n = int(n or 0)
    return f"{n:,} week" if n == 1 else f"{n:,} weeks"


def format_rate(rec: Mapping[str, Any]) -> str:
    """The one way the report writes a rate: value, 95% interval, count.

    >>> format_rate({"rate": 0.83, "low": 0.821, "high": 0.839, "n": 12345})
    '83.0% [82.1%, 83.9%], n=12,345'
    >>> format_rate({"rate": None, "low": None, "high": None, "n": 0})
    'n/a (n=0)'
    """
    if not rec or rec.get("rate") is None:
        return f"n/a (n={format_count(rec.get('n', 0) if rec else 0)})"
    return f"{format_pct(rec['rate'])} [{format_pct(rec['low'])}, {format_pct(rec['high'])}], n={format_count(rec['n'])}"


def format_score(v: float | None) -> str:
    """Kappa, macro-F1: two decimals (``n/a`` when undefined).

    >>> format_score(0.71234), format_score(None)
    ('0.71', 'n/a')
    """
    return "n/a" if v is None else f"{v:.2f}"


def jsonable(obj: Any) -> Any:
    """``obj`` with dates as ISO strings, NaN as None, tuples as lists (for ``json.dumps``).

    >>> jsonable({"d": _dt.date(2026, 9, 7), "x": float("nan"), "t": (1, 2)})
    {'d': '2026-09-07', 'x': None, 't': [1, 2]}
    """
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [jsonable(v) for v in obj]
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if isinstance(obj, _dt.datetime | _dt.date):
        return obj.isoformat()
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return jsonable(obj.item())
    return obj


def write_json(data: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``data`` as indented JSON, atomically (temp file in the same folder + rename).

    Creates the folder when missing. Returns the path written.

    >>> import tempfile, json
    >>> p = write_json({"a": 1}, Path(tempfile.mkdtemp()) / "x" / "n.json")
    >>> json.loads(p.read_text())
    {'a': 1}
    """
    target = Path(path)
    text = json.dumps(jsonable(data), indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    atomic_write_text(target, text)
    return target


# --------------------------------------------------------------------------- frames


def weekly_agreement(decisions: Any, *, taxonomies: Sequence[str] | None = None,
                     since: _dt.date | str | None = None) -> pl.DataFrame:
    """Agreement per week for ``all`` decisions and for each taxonomy, stacked.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``).
    taxonomies : which taxonomies get their own series (default: every one present).
    since : ignore decisions before this date.

    Returns
    -------
    polars.DataFrame
        ``series`` (``all`` or a taxonomy; the taxonomy alone when there is one), then :func:`~failtax.analysis.summarize_agreement`'s
        week columns (``week``, ``n_rated``, ``agreement_rate``, ``agreement_low``,
        ``agreement_high`` …), sorted by series and week.

    >>> df = pl.DataFrame({"taxonomy": ["replay", "regen"], "decided": [True, True],
    ...     "opt_out": [False, False], "agree": [True, False], "implied_bucket": [None, None],
    ...     "week": [_dt.date(2026, 9, 7)] * 2})
    >>> weekly_agreement(df).select("series", "n_rated", "agreement_rate").rows()
    [('all', 2, 0.5), ('regen', 1, 0.0), ('replay', 1, 1.0)]
    >>> weekly_agreement(df, taxonomies=["regen"])["series"].to_list()
    ['regen']
    """
    df = as_decisions(decisions, columns=["taxonomy", "week", "decided", "opt_out", "agree", "implied_bucket"],
                      optional=["ts"])
    present = sorted(set(df["taxonomy"].drop_nulls().to_list()))
    if taxonomies is not None:
        present = [t for t in present if t in set(taxonomies)]
        df = df.filter(pl.col("taxonomy").is_in(present))
    # One taxonomy: its own name (and colour) rather than "all".
    overall = present[0] if len(present) == 1 else "all"
    parts = [summarize_agreement(df, by="week", since=since).with_columns(pl.lit(overall).alias("series"))]
    if len(present) > 1:
        for t in present:
            parts.append(summarize_agreement(df, by="week", taxonomy=t, since=since)
                         .with_columns(pl.lit(t).alias("series")))
    out = pl.concat([p.with_columns(pl.col(c).cast(pl.Int64) for c in ("n_events",)) for p in parts], how="vertical")
    out = out.filter(pl.col("week").is_not_null())
    return out.select("series", *[c for c in out.columns if c != "series"]).sort("series", "week")


def weekly_recognition(diagnostics: Sequence[Any]) -> pl.DataFrame:
    """The ``recognition_by_week`` frames of several taxonomies, stacked, plus ``all``.

    Parameters
    ----------
    diagnostics : :class:`~failtax.analysis.RuleDiagnostics`, one per taxonomy.

    Returns
    -------
    polars.DataFrame
        ``series``, ``week``, ``n_events``, ``n_recognised``, ``recognition_rate``,
        ``recognition_rate_low``, ``recognition_rate_high``.
    """
    from failtax.analysis.stats import wilson_interval

    cols = ["week", "n_events", "n_recognised"]
    parts = [d.recognition_by_week.select(cols).with_columns(pl.lit(d.taxonomy).alias("series"))
             for d in diagnostics if d.recognition_by_week.height]
    schema = {"series": pl.String, "week": pl.Date, "n_events": pl.Int64, "n_recognised": pl.Int64,
              "recognition_rate": pl.Float64, "recognition_rate_low": pl.Float64, "recognition_rate_high": pl.Float64}
    if not parts:
        return pl.DataFrame(schema=schema)
    stacked = pl.concat(parts, how="vertical")
    if len(parts) > 1:
        total = stacked.group_by("week").agg(pl.col("n_events").sum(), pl.col("n_recognised").sum()).with_columns(
            pl.lit("all").alias("series"))
        stacked = pl.concat([total.select(stacked.columns), stacked], how="vertical")
    k = stacked["n_recognised"].cast(pl.Float64).to_numpy()
    n = stacked["n_events"].cast(pl.Float64).to_numpy()
    lo, hi = wilson_interval(k, n)
    return stacked.with_columns(
        (pl.col("n_recognised") / pl.col("n_events")).alias("recognition_rate"),
        pl.Series("recognition_rate_low", lo, dtype=pl.Float64),
        pl.Series("recognition_rate_high", hi, dtype=pl.Float64),
    ).select(list(schema)).sort("series", "week")


_BACKTEST_SCHEMA = {
    "taxonomy": pl.String, "cutoff": pl.Date, "n": pl.Int64, "old_rate": pl.Float64, "old_low": pl.Float64,
    "old_high": pl.Float64, "new_rate": pl.Float64, "new_low": pl.Float64, "new_high": pl.Float64,
    "gain": pl.Float64, "gain_low": pl.Float64, "gain_high": pl.Float64, "n_changes": pl.Int64,
}


def backtest_frame(rows: Iterable[Mapping[str, Any]]) -> pl.DataFrame:
    """Rows of backtest results as the frame :func:`~failtax.report.plots.plot_backtest` reads.

    Each row: ``taxonomy``, ``cutoff`` (date), ``n``, ``old_rate``, ``old_low``,
    ``old_high``, ``new_rate``, ``new_low``, ``new_high``, ``gain``, ``gain_low``,
    ``gain_high``, ``n_changes`` (missing keys are null).

    >>> backtest_frame([{"taxonomy": "replay", "cutoff": _dt.date(2026, 10, 5), "n": 10}]).height
    1
    """
    recs = [{k: r.get(k) for k in _BACKTEST_SCHEMA} for r in rows]
    return pl.DataFrame(recs, schema=_BACKTEST_SCHEMA) if recs else pl.DataFrame(schema=_BACKTEST_SCHEMA)


# --------------------------------------------------------------------------- key numbers


@dataclass(frozen=True)
class KeyNumber:
    """One headline number: a stable ``key``, a ``label``, the ``text`` shown and a ``note``."""

    key: str
    label: str
    text: str
    note: str = ""
    tone: str | None = None

    @classmethod
    def of(cls, key: str, label: str, text: str, note: str = "", tone: str | None = None) -> KeyNumber:
        """Build one (named constructor)."""
        return cls(key=key, label=label, text=text, note=note, tone=tone)


def key_numbers(summary: Mapping[str, Any]) -> list[KeyNumber]:
    """The headline numbers of a report summary, in the order the page shows them.

    Keys: ``agreement``, ``opt_out``, ``recognition``, ``events``, ``quarantined``,
    ``changes``, ``preexec.override`` (when present), then per taxonomy ``<tax>.agreement``, ``<tax>.kappa``,
    ``<tax>.macro_f1``, ``<tax>.recognition``, ``<tax>.changes``.

    >>> s = {"agreement": {"rate": 0.5, "low": 0.4, "high": 0.6, "n": 100}, "taxonomies": {}}
    >>> [k.text for k in key_numbers(s)][:1]
    ['50.0% [40.0%, 60.0%], n=100']
    """
    checks = summary.get("checks", {})
    failed = set(checks.get("failed_keys", ()))
    out = [
        KeyNumber.of("agreement", "agreement", format_rate(summary.get("agreement", {})),
                     "decisions where the action carried out the suggestion",
                     "bad" if "agreement" in failed else None),
    ]
    if "opt_out" in summary:
        out.append(KeyNumber.of("opt_out", "opt-out (skip)", format_rate(summary["opt_out"]), "decided events skipped"))
    if "recognition" in summary:
        out.append(KeyNumber.of("recognition", "recognition rate", format_rate(summary["recognition"]),
                                "events a rule decides (not the fallback)",
                                "bad" if "recognition" in failed else None))
    ev = summary.get("events", {})
    if ev:
        out.append(KeyNumber.of("events", "classified events", format_count(ev.get("classified", ev.get("events"))),
                                f"{format_count(ev.get('decided'))} decided, {format_count(ev.get('labelled'))} labelled"
                                + (" (pre-execution apart)" if summary.get("preexec") else "")))
    q = summary.get("quarantine")
    if q is not None:
        out.append(KeyNumber.of("quarantined", "quarantined lines", format_count(q.get("lines", 0)),
                                f"of {format_count(q.get('lines_total'))} lines read" if q.get("lines_total") else "bad lines kept aside",
                                "bad" if q.get("lines") else None))
    if "changes" in summary:
        out.append(KeyNumber.of("changes", "proposed changes", format_count(summary["changes"]),
                                f"{format_count(summary.get('watch', 0))} on the watch list"))
    pre = summary.get("preexec")
    if pre:
        out.append(KeyNumber.of("preexec.override", "pre-execution overrides", format_rate(pre["override"]),
                                "replay/regen choices a person overrode"))
    for tax, t in summary.get("taxonomies", {}).items():
        out.append(KeyNumber.of(f"{tax}.agreement", f"{tax}: agreement", format_rate(t.get("agreement", {}))))
        out.append(KeyNumber.of(f"{tax}.kappa", f"{tax}: Cohen's kappa", format_score(t.get("kappa")),
                                f"n={format_count(t.get('n_labelled'))} labelled"))
        out.append(KeyNumber.of(f"{tax}.macro_f1", f"{tax}: macro-F1", format_score(t.get("macro_f1")),
                                f"n={format_count(t.get('n_labelled'))} labelled"))
        if "recognition" in t:
            out.append(KeyNumber.of(f"{tax}.recognition", f"{tax}: recognition", format_rate(t["recognition"])))
        if "changes" in t:
            out.append(KeyNumber.of(f"{tax}.changes", f"{tax}: proposed changes", format_count(len(t["changes"])),
                                    f"{format_count(len(t.get('watch', [])))} on the watch list"))
    return out


# --------------------------------------------------------------------------- markdown


def _md_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    def cell(v: Any) -> str:
        return ("" if v is None else str(v)).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def render_markdown(summary: Mapping[str, Any]) -> str:
    """``summary.md``: the key numbers, checks, misleading signals, proposed changes,
    watch list and quarantined lines, as plain Markdown (for a CI log or a chat message).
    """
    win = summary.get("window", {})
    lines = ["# failtax tuning report", ""]
    lines.append(f"Window: {win.get('from') or 'n/a'} to {win.get('to') or 'n/a'} "
                 f"({format_weeks(win.get('weeks'))}) · generated {summary.get('generated_at', '')}")
    lines.append("")
    checks = summary.get("checks", {})
    if checks.get("failed"):
        lines += ["**Checks failed:** " + "; ".join(checks["failed"]), ""]
    elif checks.get("thresholds"):
        lines += ["Checks passed: " + "; ".join(checks.get("passed", [])), ""]
    lines.append(_md_table(["number", "value", "note"], [(k.label, k.text, k.note) for k in key_numbers(summary)]))
    for tax, t in summary.get("taxonomies", {}).items():
        lines += ["", f"## {tax}", ""]
        sig = t.get("misleading_signals", [])
        if sig:
            lines += ["Top misleading signals:", ""]
            lines.append(_md_table(
                ["signal", "routed to", "people chose", "match", "excess (low)", "kind"],
                [(s["signal"], s["routed_bucket"], s.get("override_to") or "", format_rate(s["match"]),
                  format_pct(s.get("excess_low")), s["kind"]) for s in sig]))
        else:
            lines.append("No misleading signal.")
        ch = t.get("changes", [])
        lines += ["", f"Proposed changes ({len(ch)}):" if ch else "Proposed changes: none.", ""]
        if ch:
            lines.append(_md_table(["change", "support", "gain (95%)"],
                                   [(c["summary"], c["support"], _gain(c)) for c in ch]))
        w = t.get("watch", [])
        if w:
            lines += ["", f"Watch list ({len(w)}):", ""]
            lines.append(_md_table(["change", "support", "why not yet"], [(c["summary"], c["support"], c["reason"]) for c in w]))
        bt = t.get("backtest")
        if bt and bt.get("n"):
            lines += ["", f"Backtest (later weeks, n={format_count(bt['n'])}): old {format_pct(bt.get('old_rate'))} → "
                      f"new {format_pct(bt.get('new_rate'))}, gain {_pp(bt.get('gain'))} "
                      f"[{_pp(bt.get('gain_low'))}, {_pp(bt.get('gain_high'))}]"
                      + (" — recommended" if bt.get("recommended") else " — not recommended")]
    pre = summary.get("preexec")
    if pre:
        lines += ["", "## Pre-execution overrides", "",
                  f"Overall: {format_rate(pre['override'])} of the replay/regen choices were overridden.", ""]
        lines.append(_md_table(["rule", "AI mode", "overridden"],
                               [(r["rule"], r["ai_bucket"], format_rate(r["override"])) for r in pre["by_rule"]]))
    q = summary.get("quarantine", {})
    lines += ["", "## Quarantined lines", ""]
    if q.get("by_reason"):
        lines.append(_md_table(["reason", "lines"], sorted(q["by_reason"].items(), key=lambda kv: (-kv[1], kv[0]))))
    else:
        lines.append("None.")
    dq = summary.get("data_quality", {})
    unknown = dq.get("unknown_values") or []
    if unknown:
        lines += ["", "## Values their taxonomy does not define", "",
                  "Kept, but an action no taxonomy knows never carries out a suggestion.", ""]
        lines.append(_md_table(["taxonomy", "field", "value", "events"],
                               [(u["taxonomy"], u["field"], u["value"], u["events"]) for u in unknown[:30]]))
    orphans = dq.get("orphan_resolutions") or {}
    if orphans:
        lines += ["", "Resolved events with no classified event before them: "
                  + ", ".join(f"{k} {format_count(v)}" for k, v in orphans.items()) + "."]
    if dq.get("left_out_files"):
        lines += ["", f"Not read (not named as telemetry): {count_files(dq['left_out_files'])}."]
    lines.append("")
    return "\n".join(lines)


def _pp(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 100:+.1f} pp"


def _gain(c: Mapping[str, Any]) -> str:
    return f"{_pp(c.get('gain'))} [{_pp(c.get('gain_low'))}, {_pp(c.get('gain_high'))}]"


# --------------------------------------------------------------------------- summary.json


def _signal_record(rec: Mapping[str, Any], examples: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    kind = "misleading" if rec["misleading"] else ("missing rule" if rec["fallback_wrong"] else "")
    return {
        "rank": rec["rank"],
        "signal": rec["signal"],
        "kind": kind,
        "routed_rule": rec["routed_rule"],
        "routed_bucket": rec["routed_bucket"],
        "override_to": rec["override_to"],
        "n_events": rec["n_events"],
        "match": rate_record(rec["n_match"], rec["n_labelled"], rec["match_rate_low"], rec["match_rate_high"]),
        "override": rate_record(rec["n_override"], rec["n_rated"], rec["override_rate_low"], rec["override_rate_high"]),
        "excess": _num(rec["excess"]),
        "excess_low": _num(rec["excess_low"]),
        "p_value": _num(rec["p_value"]),
        "examples": [dict(e) for e in examples],
    }


def summarize_signals(found: Any, *, top: int = 10, n_examples: int = 2) -> list[dict[str, Any]]:
    """The misleading signals (and signals a missing rule sends to a wrong fallback) of one
    :class:`~failtax.analysis.MisleadingSignals`, most misleading first, with redacted examples.
    """
    flagged = found.signals.filter(pl.col("misleading") | pl.col("fallback_wrong")).head(top)
    out = []
    for rec in flagged.iter_rows(named=True):
        ex = found.examples.filter(pl.col("signal") == rec["signal"]).head(n_examples)
        out.append(_signal_record(rec, [jsonable(e) for e in ex.drop("signal").iter_rows(named=True)]))
    return out


def _overall(row: Mapping[str, Any], prefix: str, k: str, n: str) -> dict[str, Any]:
    return rate_record(row[k], row[n], row[f"{prefix}_low"], row[f"{prefix}_high"])


def agreement_numbers(agreement: Any) -> dict[str, Any]:
    """The agreement numbers that matter, from an :class:`~failtax.analysis.AgreementReport`.

    Returns ``{"agreement", "opt_out", "events", "taxonomies": {tax: {"events",
    "agreement", "kappa", "macro_f1", "accuracy", "n_labelled"}}}`` with rates as
    :func:`rate_record` dicts. The report's ``summary.json`` and the agreement notebook
    both record these.
    """
    ov = agreement.overall.row(0, named=True)
    sl = agreement.slices.get("taxonomy")
    if sl is None:
        sl = summarize_agreement(pl.DataFrame(schema={"taxonomy": pl.String, "decided": pl.Boolean,
                                                      "opt_out": pl.Boolean, "agree": pl.Boolean,
                                                      "implied_bucket": pl.String}), by="taxonomy")
    by_tax = {r["taxonomy"]: r for r in sl.iter_rows(named=True)}
    scores = {s.taxonomy: s for s in agreement.scores}
    taxes = {}
    for tax in order_taxonomies(set(by_tax) | set(scores)):
        row, sc = by_tax.get(tax), scores.get(tax)
        taxes[tax] = {
            "events": int(row["n_events"]) if row else 0,
            "agreement": _overall(row, "agreement", "n_agree", "n_rated") if row else rate_record(0, 0, None, None),
            "kappa": _num(sc.kappa) if sc else None,
            "macro_f1": _num(sc.macro_f1) if sc else None,
            "accuracy": _num(sc.accuracy) if sc else None,
            "n_labelled": sc.n if sc else 0,
        }
    return {
        "agreement": _overall(ov, "agreement", "n_agree", "n_rated"),
        "opt_out": _overall(ov, "opt_out", "n_opt_out", "n_decided"),
        "events": {"events": int(ov["n_events"]), "decided": int(ov["n_decided"]), "rated": int(ov["n_rated"]),
                   "labelled": int(ov["n_labelled"]), "opt_out": int(ov["n_opt_out"])},
        "taxonomies": taxes,
    }


def rules_numbers(diagnostics: Any, *, top: int = 10) -> dict[str, Any]:
    """Recognition rate and trend, unknown signals and dead rules of one
    :class:`~failtax.analysis.RuleDiagnostics`."""
    return {
        "recognition": rate_from(diagnostics.recognition),
        "recognition_trend": jsonable(diagnostics.recognition_trend),
        "unknown_signals": [
            {"signal": r["signal"], "n_events": r["n_events"], "top_implied_bucket": r["top_implied_bucket"]}
            for r in diagnostics.unknown_signals.head(top).iter_rows(named=True)
        ],
        "dead_rules": list(diagnostics.dead_rules),
    }


def tuning_numbers(tuner: Any) -> dict[str, Any]:
    """What a fitted :class:`~failtax.tune.TableTuner` proposes: table versions, accepted
    changes, watch list, predicted agreement and the rule-by-rule diff."""
    from failtax.table import diff_tables

    return {
        "table": {"name": tuner.base_table_.name, "version": tuner.base_table_.version,
                  "proposed_version": tuner.table_.version},
        "changes": [jsonable(c.to_dict()) for c in tuner.changes_],
        "watch": [jsonable(c.to_dict()) for c in tuner.watch_],
        "predicted_agreement": jsonable(tuner.predicted_agreement_.to_dict()),
        "diff": str(diff_tables(tuner.base_table_, tuner.table_)) if tuner.changes_ else "",
    }


def preexec_numbers(overrides: Any) -> dict[str, Any]:
    """Override rates of the pre-execution replay/regen choice, from
    :class:`~failtax.analysis.PreexecOverrides`: overall, by rule, by age of the last pass."""
    from failtax.analysis.stats import wilson_interval

    k = int(overrides.by_mode["n_override"].sum()) if overrides.by_mode.height else 0
    n = int(overrides.n_events)
    lo, hi = wilson_interval(k, n) if n else (None, None)

    def rows(df: pl.DataFrame, keys: Sequence[str]) -> list[dict[str, Any]]:
        return [{**{key: r[key] for key in keys},
                 "override": rate_record(r["n_override"], r["n_events"], r["override_low"], r["override_high"]),
                 "low_count": r["low_count"]} for r in df.iter_rows(named=True)]

    return {
        "events": n,
        "override": rate_record(k, n, lo, hi),
        "by_rule": rows(overrides.by_rule, ["rule", "ai_bucket"]),
        "by_age_band": rows(overrides.by_age_band, ["age_band", "ai_bucket"]),
        "by_mode": rows(overrides.by_mode, ["ai_bucket"]),
    }


def moves_numbers(moves: pl.DataFrame, *, taxonomy: str) -> dict[str, Any]:
    """Events of ``taxonomy`` that change bucket in a :func:`~failtax.report.reclass.bucket_moves` frame."""
    mv = moves.filter(pl.col("taxonomy") == taxonomy)
    moved = mv.filter(pl.col("old_bucket") != pl.col("new_bucket")).sort("n", descending=True)
    return {
        "events": int(mv["n"].sum()) if mv.height else 0,
        "moved": int(moved["n"].sum()) if moved.height else 0,
        "flows": [{"from": r["old_bucket"], "to": r["new_bucket"], "events": int(r["n"])}
                  for r in moved.iter_rows(named=True)],
    }


def build_summary(
    *,
    decisions: pl.DataFrame,
    agreement: Any,
    diagnostics: Mapping[str, Any],
    signals: Mapping[str, Any],
    tuners: Mapping[str, Any],
    backtests: Mapping[str, Any] | None = None,
    moves: pl.DataFrame | None = None,
    preexec: Any = None,
    quarantine_by_reason: Mapping[str, int] | None = None,
    lines_read: int | None = None,
    orphans: Mapping[str, int] | None = None,
    left_out: Sequence[str] = (),
    inputs: Mapping[str, Any] | None = None,
    fail_under: float | None = None,
    min_recognition: float | None = None,
    timings: Mapping[str, float] | None = None,
    generated_at: _dt.datetime | None = None,
) -> dict[str, Any]:
    """The report's numbers as one JSON-ready dict (what ``summary.json`` holds).

    Parameters
    ----------
    decisions : the decisions the report covered (polars).
    agreement : :class:`~failtax.analysis.AgreementReport` (with the ``taxonomy`` slice).
    diagnostics, signals : taxonomy → :class:`~failtax.analysis.RuleDiagnostics` /
        :class:`~failtax.analysis.MisleadingSignals`.
    tuners : taxonomy → fitted :class:`~failtax.tune.TableTuner`.
    backtests : taxonomy → backtest summary dict (see :mod:`failtax.report.tuning`).
    moves : :func:`~failtax.report.reclass.bucket_moves` frames, stacked.
    preexec : :class:`~failtax.analysis.PreexecOverrides` when pre-execution events are present.
    quarantine_by_reason, lines_read : what the load quarantined and read.
    orphans : taxonomy → resolved events with no classified event before them.
    left_out : files of the folders given that the load did not read (not named as telemetry).
    inputs : what the report was run on (echoed).
    fail_under, min_recognition : the checks; failures are listed under ``checks``.
    timings : seconds per step.

    Returns
    -------
    dict
        ``generated_at``, ``failtax_version``, ``inputs``, ``window``, ``events``
        (``classified``: every event in the window; ``events``, ``decided``, ``rated``,
        ``labelled``, ``opt_out``: the replay/regen events agreement is measured on),
        ``quarantine``, ``data_quality`` (``unknown_values``: AI buckets, suggestions
        and actions their taxonomy does not define, with counts; ``orphan_resolutions``
        per taxonomy; ``left_out_files``), ``agreement``, ``opt_out``, ``recognition``, ``changes``,
        ``watch``, ``preexec`` (override rates, or None), ``taxonomies`` (per taxonomy: ``agreement``, ``kappa``,
        ``macro_f1``, ``accuracy``, ``n_labelled``, ``recognition``,
        ``misleading_signals``, ``unknown_signals``, ``dead_rules``, ``table``,
        ``changes``, ``watch``, ``predicted_agreement``, ``backtest``, ``moves``,
        ``diff``), ``checks`` and ``timings``.
    """
    from failtax import __version__
    from failtax.analysis.quality import find_unknown_values
    from failtax.analysis.stats import rate as _rate

    backtests = backtests or {}
    ts = decisions["ts"].drop_nulls() if "ts" in decisions.columns else pl.Series([], dtype=pl.Datetime)
    weeks = decisions["week"].drop_nulls().n_unique() if "week" in decisions.columns else 0
    agr = agreement_numbers(agreement)
    rec_k = sum(d.recognition.successes for d in diagnostics.values())
    rec_n = sum(d.recognition.n for d in diagnostics.values())
    rec_all = rate_from(_rate(rec_k, rec_n))
    taxes: dict[str, Any] = {}
    for tax in order_taxonomies(set(diagnostics) | set(agr["taxonomies"])):
        t: dict[str, Any] = dict(agr["taxonomies"].get(tax) or {
            "events": 0, "agreement": rate_record(0, 0, None, None), "kappa": None, "macro_f1": None,
            "accuracy": None, "n_labelled": 0})
        if tax in diagnostics:
            t.update(rules_numbers(diagnostics[tax]))
        if tax in signals:
            t["baseline_match"] = _num(signals[tax].baseline)
            t["misleading_signals"] = summarize_signals(signals[tax])
        if tax in tuners:
            t.update(tuning_numbers(tuners[tax]))
        if tax in backtests:
            t["backtest"] = jsonable(backtests[tax])
        if moves is not None and moves.height:
            t["moves"] = moves_numbers(moves, taxonomy=tax)
        taxes[tax] = t

    agreement_rec = agr["agreement"]
    failed, failed_keys, passed = [], [], []
    if fail_under is not None:
        v = agreement_rec["rate"]
        msg = f"agreement {format_pct(v)} {'<' if v is None or v < fail_under else '>='} --fail-under {format_pct(fail_under)}"
        if v is None or v < fail_under:
            failed.append(msg)
            failed_keys.append("agreement")
        else:
            passed.append(msg)
    if min_recognition is not None:
        v = rec_all["rate"]
        msg = (f"recognition {format_pct(v)} {'<' if v is None or v < min_recognition else '>='} "
               f"--min-recognition {format_pct(min_recognition)}")
        if v is None or v < min_recognition:
            failed.append(msg)
            failed_keys.append("recognition")
        else:
            passed.append(msg)
    q = dict(quarantine_by_reason or {})
    n_changes = sum(len(t.get("changes", [])) for t in taxes.values())
    n_watch = sum(len(t.get("watch", [])) for t in taxes.values())
    return jsonable({
        "generated_at": (generated_at or _dt.datetime.now(_dt.UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "failtax_version": __version__,
        "inputs": dict(inputs or {}),
        "window": {"from": ts.min().date().isoformat() if ts.len() else None,
                   "to": ts.max().date().isoformat() if ts.len() else None, "weeks": int(weeks)},
        "events": {**agr["events"], "classified": int(decisions.height),
                   "by_taxonomy": {**{k: v["events"] for k, v in taxes.items()},
                                   **({"preexec": int(preexec.n_events)} if preexec is not None and preexec.n_events else {})}},
        "quarantine": {"lines": sum(q.values()), "by_reason": q, "lines_total": lines_read},
        "data_quality": {"unknown_values": find_unknown_values(decisions).to_dicts(),
                         "orphan_resolutions": {k: int(v) for k, v in (orphans or {}).items() if v},
                         "left_out_files": list(left_out)},
        "agreement": agreement_rec,
        "opt_out": agr["opt_out"],
        "recognition": rec_all,
        "changes": n_changes,
        "watch": n_watch,
        "taxonomies": taxes,
        "preexec": preexec_numbers(preexec) if preexec is not None and preexec.n_events else None,
        "checks": {"fail_under": fail_under, "min_recognition": min_recognition,
                   "thresholds": fail_under is not None or min_recognition is not None,
                   "failed": failed, "failed_keys": failed_keys, "passed": passed, "ok": not failed},
        "timings": {k: round(v, 3) for k, v in (timings or {}).items()},
    })
