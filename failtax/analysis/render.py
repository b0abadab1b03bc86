"""Plain-text tables of analysis results, for terminals and logs (no colour, aligned).

The command line prints these; notebooks and the HTML report use the frames directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import polars as pl

from failtax.analysis.agreement import AgreementReport, LabelScores
from failtax.analysis.rules import RuleDiagnostics

__all__ = ["format_agreement", "format_rule_diagnostics", "format_signals", "format_table"]


def _pct(v: Any) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1%}"


def _num(v: Any, spec: str = ".3f") -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def _rate(row: dict[str, Any], prefix: str) -> str:
    v = row.get(f"{prefix}_rate", row.get(prefix))
    lo, hi = row.get(f"{prefix}_low"), row.get(f"{prefix}_high")
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{v:.1%} [{_pct(lo)}, {_pct(hi)}]"


def format_table(rows: Sequence[Sequence[Any]], headers: Sequence[str], *, indent: str = "  ") -> str:
    """Align ``rows`` under ``headers``: text columns left, numbers right.

    >>> print(format_table([("a", 1), ("bb", 22)], ["name", "n"]))
      name   n
      a      1
      bb    22
    """
    cells = [[("" if v is None else str(v)) for v in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    numeric = [
        all(_looks_numeric(r[i]) for r in cells if r[i]) and any(r[i] for r in cells) for i in range(len(headers))
    ]

    def line(vals: Sequence[str]) -> str:
        out = [v.rjust(widths[i]) if numeric[i] else v.ljust(widths[i]) for i, v in enumerate(vals)]
        return (indent + "  ".join(out)).rstrip()

    return "\n".join([line(list(headers)), *(line(r) for r in cells)])


def _looks_numeric(s: str) -> bool:
    t = s.replace("%", "").replace(",", "").replace("e-", "").replace("e+", "").strip()
    if t.startswith("-"):
        t = t[1:]
    return t.replace(".", "", 1).isdigit()


def _slice_rows(df: pl.DataFrame, keys: Sequence[str]) -> list[list[Any]]:
    rows = []
    for r in df.iter_rows(named=True):
        key = [("(none)" if r[k] is None else str(r[k])) for k in keys]
        rows.append([*key, r["n_events"], r["n_rated"], _rate(r, "agreement"), r["n_decided"],
                     _rate(r, "opt_out"), "low n" if r["low_count"] else ""])
    return rows


def _confusion(s: LabelScores) -> str:
    rows = [[lab, *row] for lab, row in zip(s.labels, s.confusion, strict=True)]
    return format_table(rows, ["AI \\ implied", *s.labels], indent="    ")


def format_agreement(report: AgreementReport, *, rules: Sequence[RuleDiagnostics] = ()) -> str:
    """The agreement report as aligned text (overall, label scores, confusion, slices, latency).

    Parameters
    ----------
    report : what :func:`~failtax.analysis.measure_agreement` returned.
    rules : rule diagnostics to print after it (from :func:`~failtax.analysis.diagnose_rules`).

    Returns
    -------
    str, ending in a newline.

    >>> from failtax.analysis import measure_agreement
    >>> df = pl.DataFrame({"taxonomy": ["replay"] * 2, "family": ["replay"] * 2,
    ...     "ai_bucket": ["infra"] * 2, "implied_bucket": ["infra", "stale-script"],
    ...     "decided": [True] * 2, "opt_out": [False] * 2, "agree": [True, False], "latency_s": [3.0, 9.0]})
    >>> print(format_agreement(measure_agreement(df, slices=[])).splitlines()[2])
      agreement 50.0% [9.5%, 90.5%] (n=2)
    """
    out = []
    if report.overall.height == 0 or report.overall["n_events"][0] == 0:
        return "No decisions to analyse.\n"
    o = report.overall.row(0, named=True)
    out.append(f"Agreement of AI suggestions with people's actions (min count {report.min_count})")
    out.append(f"  events {o['n_events']}, decided {o['n_decided']}, rated {o['n_rated']}, labelled {o['n_labelled']}")
    out.append(f"  agreement {_rate(o, 'agreement')} (n={o['n_rated']})")
    out.append(f"  opt-out   {_rate(o, 'opt_out')} (n={o['n_decided']})")
    if report.scores:
        out.append("\nLabel scores (AI bucket vs implied bucket)")
        out.append(format_table(
            [[s.taxonomy, s.n, _pct(s.accuracy), _num(s.macro_f1), _num(s.kappa)] for s in report.scores],
            ["taxonomy", "n", "accuracy", "macro-F1", "kappa"],
        ))
        for s in report.scores:
            out.append(f"\n  Confusion, {s.taxonomy} (rows: AI bucket, columns: implied bucket)")
            out.append(_confusion(s))
    titles = {"taxonomy": "taxonomy", "family": "event family", "bucket": "AI bucket", "skill": "skill",
              "project": "project", "signal": "signal", "week": "week"}
    from failtax.analysis.agreement import SLICES

    for name, df in report.slices.items():
        keys = list(SLICES[name])
        out.append(f"\nBy {titles.get(name, name)}")
        out.append(format_table(_slice_rows(df, keys), [*keys, "events", "rated", "agreement [95% CI]",
                                                         "decided", "opt-out [95% CI]", ""]))
    if report.latency.height:
        out.append("\nDecision latency (seconds)")
        out.append(format_table(
            [[r["taxonomy"], r["outcome"], r["n"], _num(r["median_s"], ".1f"), _num(r["p90_s"], ".1f")]
             for r in report.latency.iter_rows(named=True)],
            ["taxonomy", "outcome", "n", "median", "p90"],
        ))
    for d in rules:
        out.append("")
        out.append(format_rule_diagnostics(d))
    return "\n".join(out) + "\n"


def format_rule_diagnostics(d: RuleDiagnostics) -> str:
    """Rule diagnostics of one table as aligned text: per-rule table, recognition rate
    and trend, unknown signals, routes that win too early.

    >>> from failtax.analysis import diagnose_rules
    >>> df = pl.DataFrame({"event_id": ["1"], "taxonomy": ["replay"], "signals": [["selector-timeout"]],
    ...                    "implied_bucket": ["stale-script"], "week": [None]})
    >>> format_rule_diagnostics(diagnose_rules(df, taxonomy="replay")).splitlines()[0].endswith(
    ...     "on 1 replay events (1 labelled)")
    True
    """
    out = [f"Rule diagnostics: table {d.table_name} {d.table_version} on {d.n_events} {d.taxonomy} events "
           f"({d.n_labelled} labelled)"]
    rows = []
    for r in d.rules.iter_rows(named=True):
        flags = ", ".join(x for x, on in (("dead", r["dead"]), ("not re-run", not r["evaluable"]),
                                          ("low n", r["low_count"] and r["n_fires"] > 0)) if on)
        rows.append([r["kind"], r["rule"], r["bucket"], r["n_fires"], _pct(r["coverage"]), _pct(r["overlap"]),
                     _pct(r["conflict"]), r["n_decided"], r["n_shadowed"], _rate(r, "accuracy"), r["n_labelled"], flags])
    out.append(format_table(rows, ["kind", "rule", "bucket", "fires", "coverage", "overlap", "conflict", "decided",
                                   "shadowed", "accuracy [95% CI]", "labelled", ""]))
    rec = d.recognition
    out.append(f"\n  recognition (a route decided): {rec}")
    slope = d.recognition_trend.get("slope_per_week")
    if slope is not None:
        out.append(f"  trend: {slope:+.2%} per week; second half minus first half "
                   f"{_pct(d.recognition_trend['diff'])} [{_pct(d.recognition_trend['diff_low'])}, "
                   f"{_pct(d.recognition_trend['diff_high'])}]")
    if d.unknown_signals.height:
        out.append("\n  Signals no rule of the table knows")
        out.append(format_table(
            [[r["signal"], r["n_events"], r["routed_bucket_top"], r["top_implied_bucket"] or "",
              _rate(r, "top_implied_share"), r["n_labelled"]] for r in d.unknown_signals.iter_rows(named=True)],
            ["signal", "events", "table says", "people say", "share [95% CI]", "labelled"], indent="    ",
        ))
    sh = d.shadowing.filter(pl.col("flagged"))
    if sh.height:
        out.append("\n  Routes that win too early (people side with the shadowed route)")
        out.append(format_table(
            [[r["rule"], r["signal"] or "", r["shadowed_rule"], r["shadowed_signal"] or "any", r["n_labelled"],
              r["n_winner_right"], r["n_shadowed_right"], _num(r["p_value"], ".2g")] for r in sh.iter_rows(named=True)],
            ["route", "via signal", "shadows", "with", "labelled", "route right", "shadowed right", "p"], indent="    ",
        ))
    return "\n".join(out)


def format_signals(records: Sequence[dict[str, Any]], *, limit: int | None = None) -> str:
    """Ranked signal records (``MisleadingSignals.to_records()``, possibly several
    taxonomies merged) as aligned text, the first ``limit`` of them.

    >>> print(format_signals([]), end="")
    No signals in these decisions.
    """
    if not records:
        return "No signals in these decisions.\n"
    rows = []
    for r in records[: limit or len(records)]:
        verdict = "MISLEADING" if r["misleading"] else ("no route, fallback wrong" if r["fallback_wrong"] else "")
        drift = r.get("drift")
        if drift and drift.get("drifted"):
            verdict = (verdict + "; " if verdict else "") + f"drift from {drift['from_week']}"
        rows.append([
            r["rank"], r["taxonomy"], r["signal"], r["routed_bucket"], _rate(r, "override_rate"),
            r.get("override_to") or "", _pct(r["match_rate"]), _pct(r.get("baseline")), r["n_labelled"],
            _num(r["p_value"], ".2g"), verdict,
        ])
    head = ["rank", "taxonomy", "signal", "table routes to", "override rate [95% CI]", "people pick",
            "match", "baseline", "n", "p", "verdict"]
    return format_table(rows, head) + "\n"


