"""The report's plots: one function per picture, each returning a matplotlib ``Figure``.

Every plot reads one of the analysis or tuner frames (the same frames the notebooks
show) and is meant to be read at a glance: labelled axes, the counts behind each rate
written on the plot, intervals drawn wherever a rate has one (Wilson 95%).

Figures are built with :class:`matplotlib.figure.Figure` directly, never through
``pyplot``: nothing here touches global state (no backend switch, no style change, no
figure registry), so the functions are safe in a notebook, a server and a test alike.
Render one with :func:`figure_png` (PNG bytes) or
:func:`failtax.report.html.figure_to_data_uri`; in a notebook, ``display(fig)`` or
:func:`show` draws it inline.

=============================  ==============================================  ==========================
function                       shows                                           reads
=============================  ==============================================  ==========================
:func:`plot_agreement_trend`   agreement per week with Wilson intervals         ``weekly_agreement`` frame
:func:`plot_confusion`         AI bucket × implied bucket, counts              ``LabelScores``
:func:`plot_signal_lift`       per-signal lift forest plot with intervals      ``MisleadingSignals``
:func:`plot_rule_bars`         rule coverage and accuracy                      ``RuleDiagnostics``
:func:`plot_recognition_trend` recognition rate per week                       ``RuleDiagnostics``
:func:`plot_backtest`          old vs new table on later weeks                 backtest frame
:func:`plot_bucket_moves`      events moving between buckets (alluvial)        moves frame
:func:`plot_latency`           decision latency by outcome                     ``summarize_latency`` frame
=============================  ==============================================  ==========================
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, PercentFormatter

__all__ = [
    "bucket_colours",
    "figure_png",
    "figure_uri",
    "plot_agreement_trend",
    "plot_backtest",
    "plot_bucket_moves",
    "plot_confusion",
    "plot_latency",
    "plot_recognition_trend",
    "plot_rule_bars",
    "plot_signal_lift",
    "render_uris",
    "show",
    "taxonomy_colours",
]

# A colour-blind-friendly palette (Okabe–Ito), then matplotlib's tab10 for more series.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
            "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
_GREY = "#9aa3b0"
_TEXT = "#1d2330"
_FONT = 9


def figure_png(fig: Figure, *, dpi: int = 110) -> bytes:
    """Render ``fig`` to PNG bytes (white background, tight bounding box).

    >>> fig = plot_latency(pl.DataFrame({"taxonomy": ["replay"], "outcome": ["agree"],
    ...     "n": [3], "median_s": [2.0], "p90_s": [5.0]}))
    >>> figure_png(fig)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", facecolor="white")
    return buf.getvalue()


def figure_uri(fig: Figure, *, dpi: int = 110) -> str:
    """``fig`` as a ``data:image/png;base64,…`` URI (what the HTML page embeds)."""
    import base64

    return "data:image/png;base64," + base64.b64encode(figure_png(fig, dpi=dpi)).decode("ascii")


_TO_RENDER: list[Figure] = []


def _render_one(i: int) -> str:
    return figure_uri(_TO_RENDER[i])


def _quiet_child() -> None:
    # The child inherited the parent's objects (polars frames among them); it must not
    # collect and finalise them, only draw the figures it was given.
    import gc

    gc.disable()


def render_uris(figs: Sequence[Figure], *, n_jobs: int | None = None) -> list[str]:
    """Render several figures to data URIs, in forked worker processes when that helps.

    Drawing text is most of the time a figure takes, and each figure is independent, so
    on Linux the figures (already built in this process) are rendered by ``n_jobs``
    forked workers (default: the CPUs available, at most 4). Elsewhere, or for one
    figure, they are rendered here. The result is identical either way.

    >>> fig = plot_latency(pl.DataFrame({"outcome": ["agree"], "n": [3], "median_s": [2.0], "p90_s": [5.0]}))
    >>> render_uris([fig], n_jobs=1)[0].startswith("data:image/png;base64,")
    True
    """
    import multiprocessing as mp
    import os

    figs = list(figs)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    jobs = min(n_jobs or min(cpus, 4), len(figs))
    if jobs <= 1 or "fork" not in mp.get_all_start_methods():
        return [figure_uri(f) for f in figs]
    global _TO_RENDER
    _TO_RENDER = figs
    try:
        # Only matplotlib runs in the children (the figures were built before the fork).
        with mp.get_context("fork").Pool(jobs, initializer=_quiet_child) as pool:
            return pool.map(_render_one, range(len(figs)), chunksize=1)
    finally:
        _TO_RENDER = []


def show(fig: Figure) -> Any:
    """An object a notebook draws inline: ``IPython.display.Image`` of the figure's PNG."""
    from IPython.display import Image

    return Image(data=figure_png(fig), format="png")


def bucket_colours(buckets: Sequence[str]) -> dict[str, str]:
    """A stable colour per bucket, in the given order.

    >>> bucket_colours(["infra", "stale-script"])["infra"]
    '#0072B2'
    """
    return {b: _PALETTE[i % len(_PALETTE)] for i, b in enumerate(buckets)}


def taxonomy_colours(names: Sequence[str]) -> dict[str, str]:
    """A stable colour per taxonomy (replay, regen, preexec first); ``all`` is near-black.

    >>> taxonomy_colours(["regen", "replay", "all"])["replay"]
    '#0072B2'
    """
    from failtax.report.summary import order_taxonomies

    order = order_taxonomies([n for n in names if n != "all"])
    out = {t: _PALETTE[i % len(_PALETTE)] for i, t in enumerate(order)}
    out["all"] = _TEXT
    return out


def _new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained", facecolor="white")
    return fig


def _empty(fig: Figure, title: str, message: str) -> Figure:
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_title(title, loc="left", fontsize=11)
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=11, color="#5b6577", transform=ax.transAxes,
            wrap=True)
    return fig


def _pct_axis(ax: Any, axis: str = "y") -> None:
    fmt = PercentFormatter(xmax=1.0, decimals=0)
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(fmt)


def _fmt_n(n: float) -> str:
    n = int(n)
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def _series_rows(df: pl.DataFrame, key: str | None) -> list[tuple[str, pl.DataFrame]]:
    from failtax.report.summary import order_taxonomies

    if key is None or key not in df.columns:
        return [("all", df)]
    names = set(df[key].drop_nulls().to_list())
    order = (["all"] if "all" in names else []) + order_taxonomies(names - {"all"})
    return [(name, df.filter(pl.col(key) == name)) for name in order]


def _trend(fig: Figure, weekly: pl.DataFrame, *, rate: str, n_col: str, title: str, ylabel: str,
           nlabel: str, series: str | None, floor: float | None = None) -> Figure:
    """Rates per week with Wilson bands (top) and the counts behind them (bottom)."""
    if weekly.height == 0 or weekly[rate].drop_nulls().drop_nans().len() == 0:
        return _empty(fig, title, "no weekly data in the window")
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    groups = _series_rows(weekly.sort("week"), series)
    tcol = taxonomy_colours([name for name, _g in groups])
    weeks = sorted(set(weekly["week"].drop_nulls().to_list()))
    widx = {w: i for i, w in enumerate(weeks)}
    width = 0.8 / max(len(groups), 1)
    for gi, (name, g) in enumerate(groups):
        colour = tcol[name]
        x = np.array([widx[w] for w in g["week"].to_list()], dtype=float)
        y = g[rate].to_numpy().astype(float)
        lo = g[f"{rate}_low" if f"{rate}_low" in g.columns else rate.replace("_rate", "_low")].to_numpy().astype(float)
        hi = g[f"{rate}_high" if f"{rate}_high" in g.columns else rate.replace("_rate", "_high")].to_numpy().astype(float)
        n = g[n_col].to_numpy().astype(float)
        ok = n > 0
        lw = 2.2 if name == "all" else 1.6
        top.fill_between(x[ok], lo[ok], hi[ok], color=colour, alpha=0.13 if name == "all" else 0.18, linewidth=0)
        total = int(n.sum())
        top.plot(x[ok], y[ok], marker="o", markersize=4, color=colour, linewidth=lw,
                 label=f"{name} (n={_fmt_n(total)})")
        bars = bottom.bar(x + (gi - (len(groups) - 1) / 2) * width, n, width=width, color=colour, alpha=0.75)
        if len(groups) <= 2:
            bottom.bar_label(bars, labels=[_fmt_n(v) if v else "" for v in n], fontsize=7, padding=1, color="#5b6577")
    if floor is not None:
        top.axhline(floor, color="#b3261e", linestyle="--", linewidth=1)
        top.annotate(f"threshold {floor:.0%}", xy=(0, floor), xytext=(2, 3), textcoords="offset points",
                     fontsize=8, color="#b3261e")
    top.set_title(title, loc="left", fontsize=11)
    top.set_ylabel(ylabel)
    _pct_axis(top)
    lo_all = np.nanmin(weekly[f"{rate}_low" if f"{rate}_low" in weekly.columns else rate.replace("_rate", "_low")]
                       .cast(pl.Float64).fill_nan(None).drop_nulls().to_numpy(), initial=1.0)
    top.set_ylim(max(0.0, min(lo_all, floor if floor is not None else 1.0) - 0.05), 1.0)
    top.grid(axis="y", alpha=0.3)
    top.legend(fontsize=8, loc="lower left", frameon=False, ncol=min(len(groups), 4))
    bottom.set_ylabel(nlabel, fontsize=8)
    bottom.set_xlabel("week (Monday)")
    bottom.grid(axis="y", alpha=0.3)
    bottom.set_xticks(range(len(weeks)))
    bottom.set_xticklabels([w.strftime("%m-%d") if hasattr(w, "strftime") else str(w) for w in weeks],
                           rotation=45, ha="right", fontsize=8)
    bottom.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: _fmt_n(v)))
    return fig


def plot_agreement_trend(weekly: pl.DataFrame, *, fail_under: float | None = None) -> Figure:
    """Agreement rate per week with its Wilson 95% band, and the rated decisions per week.

    Parameters
    ----------
    weekly : one row per (``series``, ``week``): ``series`` (``all`` or a taxonomy; optional),
        ``week``, ``agreement_rate``, ``agreement_low``, ``agreement_high``, ``n_rated``
        — what :func:`failtax.report.summary.weekly_agreement` returns.
    fail_under : draw the scheduler's threshold as a dashed line.

    Returns
    -------
    matplotlib.figure.Figure

    >>> import datetime as dt
    >>> w = pl.DataFrame({"week": [dt.date(2026, 9, 7), dt.date(2026, 9, 14)],
    ...     "agreement_rate": [0.8, 0.9], "agreement_low": [0.7, 0.8],
    ...     "agreement_high": [0.9, 0.95], "n_rated": [40, 50]})
    >>> len(plot_agreement_trend(w).axes)
    2
    """
    fig = _new_figure(10, 5.2)
    return _trend(fig, weekly, rate="agreement_rate", n_col="n_rated",
                  title="Agreement of the AI's suggestion with the person's action, per week",
                  ylabel="agreement (95% interval)", nlabel="decisions rated", series="series", floor=fail_under)


def plot_recognition_trend(by_week: pl.DataFrame, *, min_recognition: float | None = None) -> Figure:
    """Recognition rate per week (share of events a rule decides, not the fallback).

    Parameters
    ----------
    by_week : rows ``series`` (taxonomy or ``all``), ``week``, ``recognition_rate``,
        ``recognition_rate_low``, ``recognition_rate_high``, ``n_events`` (the
        ``recognition_by_week`` frames of :class:`~failtax.analysis.RuleDiagnostics`,
        stacked with a ``series`` column by :func:`failtax.report.summary.weekly_recognition`).
    min_recognition : draw the threshold as a dashed line.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = _new_figure(10, 5.2)
    return _trend(fig, by_week, rate="recognition_rate", n_col="n_events",
                  title="Recognition rate per week: events a rule of the table decides (not the fallback)",
                  ylabel="recognised (95% interval)", nlabel="events", series="series", floor=min_recognition)


def plot_confusion(scores: Sequence[Any]) -> Figure:
    """AI bucket × implied bucket heatmaps with the count in every cell, one per taxonomy.

    Colour is the share of the AI bucket's row (so a small bucket's errors still show);
    the number is the count. The diagonal is where the person's action confirmed the AI.

    Parameters
    ----------
    scores : :class:`~failtax.analysis.LabelScores` (``labels``, ``confusion`` with rows =
        AI bucket and columns = implied bucket, ``n``, ``kappa``, ``macro_f1``, ``taxonomy``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    scores = [s for s in scores if s.n > 0]
    if not scores:
        return _empty(_new_figure(8, 3), "AI bucket × implied bucket", "no labelled decisions in the window")
    widths = [max(2.6, 0.95 * len(s.labels) + 1.4) for s in scores]
    fig = _new_figure(min(max(sum(widths) + 1.0, 6.0), 16.0), 4.0)
    axes = fig.subplots(1, len(scores), width_ratios=widths, squeeze=False)[0]
    for ax, s in zip(axes, scores, strict=True):
        cm = np.asarray(s.confusion, dtype=float)
        rows = cm.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(rows > 0, cm / np.where(rows > 0, rows, 1), 0.0)
        ax.imshow(share, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        for i in range(cm.shape[0]):
            for j in range(cm.shape[1]):
                v = int(cm[i, j])
                ax.text(j, i, f"{v:,}", ha="center", va="center", fontsize=_FONT,
                        color="white" if share[i, j] > 0.55 else _TEXT, fontweight="bold" if i == j else None)
        ax.set_xticks(range(len(s.labels)))
        ax.set_xticklabels(s.labels, rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(s.labels)))
        ax.set_yticklabels([f"{lab} ({_fmt_n(r)})" for lab, r in zip(s.labels, rows[:, 0], strict=True)], fontsize=8)
        ax.set_xlabel("implied by the person's action")
        ax.set_ylabel("AI bucket (events)")
        kappa = "–" if s.kappa is None or (isinstance(s.kappa, float) and math.isnan(s.kappa)) else f"{s.kappa:.2f}"
        f1 = "–" if s.macro_f1 is None or (isinstance(s.macro_f1, float) and math.isnan(s.macro_f1)) else f"{s.macro_f1:.2f}"
        ax.set_title(f"{s.taxonomy}: n={s.n:,}, kappa {kappa}, macro-F1 {f1}", loc="left", fontsize=10)
    fig.suptitle("AI bucket × implied bucket (colour: share of the AI bucket's row; number: count)",
                 fontsize=11, x=0.01, ha="left")
    return fig


def plot_signal_lift(findings: Sequence[Any], *, top: int = 8) -> Figure:
    """Forest plot of per-signal lift with intervals, most misleading signals first.

    For each of the ``top`` ranked signals of every taxonomy, two rows: the lift of the
    bucket the table routes the signal to, and of the bucket people moved it to most
    (``override_to``). Lift = P(bucket | signal) / P(bucket) over labelled events; 1
    means the signal says nothing about the bucket. A routed bucket whose interval sits
    left of 1 is a signal that misleads.

    Parameters
    ----------
    findings : :class:`~failtax.analysis.MisleadingSignals` (one per taxonomy).
    top : signals per taxonomy.

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows: list[dict[str, Any]] = []
    for m in findings:
        lift = m.lift
        ranked = m.signals.filter(pl.col("n_labelled") > 0).head(top) if m.signals.height else m.signals
        for rec in ranked.iter_rows(named=True):
            s = rec["signal"]
            want = [(rec["routed_bucket"], "routed")]
            if rec.get("override_to") and rec["override_to"] != rec["routed_bucket"]:
                want.append((rec["override_to"], "people chose"))
            for b, role in want:
                sub = lift.filter((pl.col("signal") == s) & (pl.col("bucket") == b))
                if sub.height == 0:
                    continue
                r = sub.row(0, named=True)
                if r["lift"] is None or not math.isfinite(r["lift"]):
                    continue
                rows.append({"taxonomy": m.taxonomy, "signal": s, "bucket": b, "role": role,
                             "lift": r["lift"], "lo": r["lift_low"], "hi": r["lift_high"], "k": r["k"],
                             "n": r["n_signal"], "misleading": bool(rec["misleading"] or rec["fallback_wrong"])})
    if not rows:
        return _empty(_new_figure(8, 3), "Per-signal lift", "no labelled events carry a signal in the window")
    fig = _new_figure(10, max(3.0, 0.32 * len(rows) + 1.4))
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    role_colour = {"routed": "#0072B2", "people chose": "#E69F00"}
    floor = 0.02  # a lift of 0 (the bucket never chosen) is drawn at the left edge
    for yi, r in zip(y, rows, strict=True):
        c = role_colour[r["role"]]
        lo = r["lo"] if r["lo"] is not None and math.isfinite(r["lo"]) else r["lift"]
        hi = r["hi"] if r["hi"] is not None and math.isfinite(r["hi"]) else r["lift"]
        ax.plot([max(lo, floor), max(hi, floor)], [yi, yi], color=c, linewidth=2)
        ax.plot(max(r["lift"], floor), yi, marker="o" if r["role"] == "routed" else "s", color=c, markersize=6,
                markeredgecolor="white")
        ax.annotate(f"{r['lift']:.2f}×", (max(hi, floor), yi), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=7, color="#5b6577")
    labels = []
    for r in rows:
        flag = "  ◀ misleading" if r["misleading"] and r["role"] == "routed" else ""
        labels.append(f"{r['taxonomy']}: {r['signal']} → {r['bucket']} ({r['k']:,} of {r['n']:,}){flag}")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    for lab, r in zip(ax.get_yticklabels(), rows, strict=True):
        if r["misleading"] and r["role"] == "routed":
            lab.set_color("#b3261e")
    ax.axvline(1.0, color=_GREY, linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlim(left=floor * 0.8)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}×"))
    ax.set_xlabel("lift = P(bucket | signal) / P(bucket), 95% interval (log scale; 1× = no information)")
    ax.set_title("Per-signal lift, most misleading signals first", loc="left", fontsize=11)
    ax.grid(axis="x", alpha=0.3, which="both")
    handles = [ax.plot([], [], color=role_colour["routed"], marker="o", linestyle="-", label="bucket the table routes to")[0],
               ax.plot([], [], color=role_colour["people chose"], marker="s", linestyle="-",
                       label="bucket people chose most when overriding")[0]]
    ax.legend(handles=handles, fontsize=8, frameon=False, loc="lower right")
    return fig


def plot_rule_bars(diagnostics: Sequence[Any], *, max_rules: int = 14) -> Figure:
    """Per route rule (and the fallback): coverage and accuracy against implied buckets.

    Left: share of events the rule decides (and, lighter, where it fired but an earlier
    route won). Right: accuracy where it decided, with its Wilson interval and the
    labelled count; accuracies resting on few labels are drawn hollow.

    Parameters
    ----------
    diagnostics : :class:`~failtax.analysis.RuleDiagnostics` (one per taxonomy).
    max_rules : routes per taxonomy (the most used).

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows: list[dict[str, Any]] = []
    for d in diagnostics:
        if d.n_events == 0:
            continue
        r = d.rules.filter(pl.col("kind").is_in(["route", "fallback"]))
        r = r.sort("n_fires", descending=True).head(max_rules).sort("position")
        for rec in r.iter_rows(named=True):
            rows.append({**rec, "taxonomy": d.taxonomy, "n_total": d.n_events})
    if not rows:
        return _empty(_new_figure(8, 3), "Rule coverage and accuracy", "no events in the window")
    fig = _new_figure(11, max(3.0, 0.3 * len(rows) + 1.5))
    left, right = fig.subplots(1, 2, sharey=True, width_ratios=[1, 1.2])
    y = np.arange(len(rows))[::-1]
    tcol = taxonomy_colours(list(dict.fromkeys(r["taxonomy"] for r in rows)))
    dec = np.array([r["n_decided"] / r["n_total"] for r in rows])
    sh = np.array([r["n_shadowed"] / r["n_total"] for r in rows])
    cols = [tcol[r["taxonomy"]] for r in rows]
    left.barh(y, dec, color=cols, alpha=0.85, label="decided")
    left.barh(y, sh, left=dec, color=cols, alpha=0.3, label="fired, shadowed by an earlier route")
    for yi, r, d0, s0 in zip(y, rows, dec, sh, strict=True):
        left.text(d0 + s0, yi, f" {_fmt_n(r['n_decided'])}" + (f" (+{_fmt_n(r['n_shadowed'])})" if r["n_shadowed"] else ""),
                  va="center", fontsize=7, color="#5b6577")
    left.set_xlabel("coverage: share of the taxonomy's events")
    _pct_axis(left, "x")
    left.set_xlim(0, min(1.0, max(float((dec + sh).max()) * 1.35, 0.05)))
    left.set_yticks(y)
    left.set_yticklabels([f"{r['taxonomy']}: {r['rule']} → {r['bucket']}" for r in rows], fontsize=8)
    left.legend(fontsize=7, frameon=False, loc="lower right")
    left.set_title("Coverage", loc="left", fontsize=10)
    left.grid(axis="x", alpha=0.3)
    for yi, r, c in zip(y, rows, cols, strict=True):
        acc, lo, hi, n = r["accuracy_decided"], r["accuracy_decided_low"], r["accuracy_decided_high"], r["n_labelled_decided"]
        if acc is None or not math.isfinite(acc) or not n:
            right.text(0.02, yi, "no labelled events", va="center", fontsize=7, color="#5b6577")
            continue
        right.plot([lo, hi], [yi, yi], color=c, linewidth=2)
        few = bool(r.get("low_count"))
        right.plot(acc, yi, marker="o", markersize=6, color=c, markerfacecolor="white" if few else c)
        label = f"{acc:.0%} of {_fmt_n(n)}"
        if hi < 0.78:
            right.text(hi + 0.015, yi, label, va="center", ha="left", fontsize=7, color="#5b6577")
        else:
            right.text(lo - 0.015, yi, label, va="center", ha="right", fontsize=7, color="#5b6577")
    right.set_xlim(0, 1.08)
    _pct_axis(right, "x")
    right.set_xlabel("accuracy where the rule decided: action implied its bucket (95% interval)")
    right.set_title("Accuracy (hollow: few labelled events)", loc="left", fontsize=10)
    right.grid(axis="x", alpha=0.3)
    fig.suptitle("Route rules: how often each decides, and how often people confirm its bucket",
                 fontsize=11, x=0.01, ha="left")
    return fig


def plot_backtest(backtest: pl.DataFrame) -> Figure:
    """Old vs proposed table agreement on weeks the tuner did not see, per cut-off.

    Parameters
    ----------
    backtest : one row per (``taxonomy``, ``cutoff``): ``cutoff`` (date: fitted on
        events before it, scored on the weeks after), ``n`` (decisions scored),
        ``old_rate``, ``old_low``, ``old_high``, ``new_rate``, ``new_low``,
        ``new_high``, ``gain``, ``gain_low``, ``gain_high`` (see
        :func:`failtax.report.summary.backtest_frame`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if backtest.height == 0:
        return _empty(_new_figure(8, 3), "Backtest: old vs proposed table",
                      "not enough weeks of decided events to backtest")
    taxes = list(dict.fromkeys(backtest["taxonomy"].to_list()))
    fig = _new_figure(min(4.2 * len(taxes) + 1.5, 16), 4.6)
    axes = fig.subplots(1, len(taxes), squeeze=False, sharey=True)[0]
    all_lo = np.concatenate([backtest["old_low"].to_numpy().astype(float), backtest["new_low"].to_numpy().astype(float)])
    all_lo = all_lo[np.isfinite(all_lo)]
    floor = max(0.0, (all_lo.min() if all_lo.size else 0.0) - 0.05)
    for ax, tax in zip(axes, taxes, strict=True):
        g = backtest.filter(pl.col("taxonomy") == tax).sort("cutoff")
        x = np.arange(g.height, dtype=float)
        for off, pre, colour, marker, label in ((-0.12, "old", "#6b7280", "o", "current table"),
                                                (0.12, "new", "#0072B2", "s", "proposed table")):
            val = g[f"{pre}_rate"].to_numpy().astype(float)
            lo = g[f"{pre}_low"].to_numpy().astype(float)
            hi = g[f"{pre}_high"].to_numpy().astype(float)
            ax.errorbar(x + off, val, yerr=[np.clip(val - lo, 0, None), np.clip(hi - val, 0, None)], fmt=marker,
                        color=colour, ecolor=colour, elinewidth=1.6, capsize=3, markersize=6, label=label)
            for xi, v in zip(x + off, val, strict=True):
                if math.isfinite(v):
                    ax.annotate(f"{v:.1%}", (xi, v), xytext=(-5 if pre == "old" else 5, 0), textcoords="offset points",
                                ha="right" if pre == "old" else "left", va="center", fontsize=7, color=colour)
        ax.set_xticks(x)
        ax.set_xticklabels(
            [f"from {c:%m-%d}\nn={_fmt_n(n)}\n{(gn or 0) * 100:+.1f} pp" + (" ✓" if (gl or -1) > 0 else "")
             if hasattr(c, "strftime") else str(c)
             for c, n, gn, gl in zip(g["cutoff"].to_list(), g["n"].to_list(), g["gain"].to_list(),
                                     g["gain_low"].to_list(), strict=True)],
            fontsize=7,
        )
        ax.set_xlim(-0.6, g.height - 0.4)
        ax.set_ylim(floor, 1.0)
        _pct_axis(ax)
        ax.set_title(tax, loc="left", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, frameon=False, loc="lower right")
    axes[0].set_ylabel("agreement on the weeks after the cut-off (95%)")
    fig.supxlabel("cut-off: fitted on the weeks before, scored on the weeks after; gain in percentage points "
                  "(✓ = lower bound above zero)", fontsize=8)
    fig.suptitle("Backtest: the current table vs the table tuned on earlier weeks, scored on later weeks",
                 fontsize=11, x=0.01, ha="left")
    return fig


def _band(ax: Any, y0: tuple[float, float], y1: tuple[float, float], colour: str, alpha: float) -> None:
    x = np.linspace(0.0, 1.0, 60)
    s = 3 * x**2 - 2 * x**3  # smoothstep
    lo = y0[0] + (y1[0] - y0[0]) * s
    hi = y0[1] + (y1[1] - y0[1]) * s
    ax.fill_between(x * 0.7 + 0.15, lo, hi, color=colour, alpha=alpha, linewidth=0)


def plot_bucket_moves(moves: pl.DataFrame, *, buckets: Mapping[str, Sequence[str]] | None = None) -> Figure:
    """Events moving between buckets under the proposed table (an alluvial/Sankey chart).

    Left column: each event's bucket under the current table; right: under the proposed
    one. Grey bands are events that stay; coloured bands are events that move (coloured
    by their new bucket), each labelled with its count. Moved bands are drawn at least
    a few pixels thick so a small move stays visible; the label gives the true count.

    Parameters
    ----------
    moves : rows ``taxonomy``, ``old_bucket``, ``new_bucket``, ``n`` (events).
    buckets : taxonomy → bucket order (default: the order of appearance).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if moves.height == 0 or int(moves["n"].sum()) == 0:
        return _empty(_new_figure(8, 3), "Events moving between buckets", "no events in the window")
    taxes = list(dict.fromkeys(moves["taxonomy"].to_list()))
    fig = _new_figure(min(4.6 * len(taxes) + 1.0, 16), 5.0)
    axes = fig.subplots(1, len(taxes), squeeze=False)[0]
    for ax, tax in zip(axes, taxes, strict=True):
        g = moves.filter(pl.col("taxonomy") == tax)
        order = list((buckets or {}).get(tax) or [])
        for b in g["old_bucket"].to_list() + g["new_bucket"].to_list():
            if b not in order:
                order.append(b)
        colours = bucket_colours(order)
        total = float(g["n"].sum())
        gap = 0.03
        scale = (1.0 - gap * (len(order) - 1)) / total
        min_h = 0.006

        def heights(col: str, g: pl.DataFrame = g) -> dict[str, float]:
            agg = dict(g.group_by(col).agg(pl.col("n").sum()).iter_rows())
            return {b: agg.get(b, 0) for b in order}

        left_n, right_n = heights("old_bucket"), heights("new_bucket")
        flows = sorted(g.iter_rows(named=True), key=lambda r: (order.index(r["old_bucket"]), order.index(r["new_bucket"])))
        thick = {(r["old_bucket"], r["new_bucket"]): max(r["n"] * scale, min_h if r["n"] else 0.0) for r in flows}

        def stack(key: int) -> dict[str, float]:
            tops, y = {}, 1.0
            for b in order:
                tops[b] = y
                y -= sum(t for k, t in thick.items() if k[key] == b) + gap
            return tops

        ltop, rtop = stack(0), stack(1)
        lcur, rcur = dict(ltop), dict(rtop)
        right_sorted = sorted(flows, key=lambda r: (order.index(r["new_bucket"]), order.index(r["old_bucket"])))
        rpos = {}
        for r in right_sorted:
            k = (r["old_bucket"], r["new_bucket"])
            rpos[k] = (rcur[r["new_bucket"]] - thick[k], rcur[r["new_bucket"]])
            rcur[r["new_bucket"]] -= thick[k]
        n_moved = 0
        for r in flows:
            k = (r["old_bucket"], r["new_bucket"])
            lpos = (lcur[r["old_bucket"]] - thick[k], lcur[r["old_bucket"]])
            lcur[r["old_bucket"]] -= thick[k]
            moved = r["old_bucket"] != r["new_bucket"]
            _band(ax, lpos, rpos[k], colours[r["new_bucket"]] if moved else _GREY, 0.85 if moved else 0.3)
            if moved and r["n"]:
                n_moved += r["n"]
                ym = (lpos[0] + lpos[1] + rpos[k][0] + rpos[k][1]) / 4
                ax.text(0.5, ym, f"{r['n']:,}", ha="center", va="center", fontsize=8, fontweight="bold",
                        color=_TEXT, bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": colours[r["new_bucket"]],
                                            "lw": 0.8})
        for side, tops, ns, x0, ha in (("old", ltop, left_n, 0.0, "right"), ("new", rtop, right_n, 1.0, "left")):
            for b in order:
                h = sum(t for kk, t in thick.items() if kk[0 if side == "old" else 1] == b)
                if h <= 0:
                    continue
                xs = 0.12 if side == "old" else 0.85
                ax.add_patch(_rect(xs, tops[b] - h, 0.03, h, colours[b]))
                ax.text(x0 + (0.1 if side == "old" else -0.1), tops[b] - h / 2, f"{b}\n{int(ns[b]):,}", ha=ha,
                        va="center", fontsize=8)
        ax.set_xlim(-0.25, 1.25)
        ax.set_ylim(min(min(lcur.values()), min(rcur.values())) - 0.02, 1.02)
        ax.set_xticks([0.135, 0.865])
        ax.set_xticklabels(["current table", "proposed table"], fontsize=9)
        ax.set_yticks([])
        for sp in ax.spines.values():
            sp.set_visible(False)
        ax.set_title(f"{tax}: {n_moved:,} of {int(total):,} events move ({n_moved / total:.1%})", loc="left", fontsize=10)
    fig.suptitle("Events moving between buckets under the proposed table (grey: unchanged; numbers: events moved)",
                 fontsize=11, x=0.01, ha="left")
    return fig


def _rect(x: float, y: float, w: float, h: float, colour: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), w, h, facecolor=colour, edgecolor="white", linewidth=0.5)


def plot_latency(latency: pl.DataFrame) -> Figure:
    """Decision latency: median and 90th percentile per outcome (agree, override, opt-out).

    Parameters
    ----------
    latency : :func:`~failtax.analysis.summarize_latency` frame (``[taxonomy,] outcome,
        n, median_s, p90_s``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if latency.height == 0:
        return _empty(_new_figure(8, 3), "Decision latency", "no decided events with a latency")
    if "taxonomy" not in latency.columns:
        latency = latency.with_columns(pl.lit("all").alias("taxonomy"))
    rows = latency.sort("taxonomy", "outcome").iter_rows(named=True)
    rows = list(rows)
    fig = _new_figure(9, max(2.6, 0.34 * len(rows) + 1.3))
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    colour = {"agree": "#009E73", "override": "#D55E00", "opt-out": _GREY}
    for yi, r in zip(y, rows, strict=True):
        c = colour.get(r["outcome"], _PALETTE[0])
        ax.barh(yi, r["p90_s"] / 60, color=c, alpha=0.3)
        ax.barh(yi, r["median_s"] / 60, color=c, alpha=0.9)
        ax.text(r["p90_s"] / 60, yi, f" median {r['median_s'] / 60:.1f} min, p90 {r['p90_s'] / 60:.1f} min, n={r['n']:,}",
                va="center", fontsize=7, color="#5b6577")
    ax.set_yticks(y)
    ax.set_yticklabels([f"{r['taxonomy']}: {r['outcome']}" for r in rows], fontsize=8)
    ax.set_xlabel("minutes from suggestion to decision (dark: median, light: 90th percentile)")
    ax.set_xlim(0, max(r["p90_s"] for r in rows) / 60 * 1.6 or 1)
    ax.set_title("Decision latency by outcome", loc="left", fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    return fig
