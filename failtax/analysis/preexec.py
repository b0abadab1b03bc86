"""Pre-execution decisions: how often people override the replay/regen choice.

Seed 000 §A picks a mode per impacted test case before execution (rules 1–4, first
match wins) and emits a ``pre-execution-classification`` event; a person who disagrees
emits a follow-up with ``userAction`` set. Without one the person accepted the mode
silently. So here the **override rate** is ``n_override / n_events`` over *all*
pre-execution decisions, where an override is a decided row whose action does not carry
out the AI's mode (``agree`` is False).

Slices: by the rule that fired (the ``rule-N-…`` signal the tool named, e.g.
``rule-1-no-script``; ``(none)`` when the event names none), by the age of the last
pass (``metadata.lastPassedAgeDays`` in bands 0–7, 8–14, 15–30, 31–60, >60 days and
``unknown``), and by the AI's mode. Each with its count and a Wilson 95% interval.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.agreement import DEFAULT_MIN_COUNT, frame_records
from failtax.analysis.frames import as_decisions, filter_decisions
from failtax.analysis.stats import wilson_interval

__all__ = ["AGE_BANDS", "PreexecOverrides", "age_band", "summarize_preexec_overrides"]

#: (label, upper bound in days, inclusive); ages above the last bound go to ">60".
AGE_BANDS: tuple[tuple[str, float], ...] = (("0-7", 7), ("8-14", 14), ("15-30", 30), ("31-60", 60))
_BAND_ORDER = [b for b, _ in AGE_BANDS] + [">60", "unknown"]


def age_band(days: float | None) -> str:
    """The band of an age of the last pass, in days.

    Bands are closed on the right: 7 is ``0-7``, 7.5 and 14 are ``8-14``, 30 is
    ``15-30``, 60 is ``31-60``, anything above 60 is ``>60``; None, NaN or a negative
    age is ``unknown``.

    >>> [age_band(x) for x in (0, 7, 7.5, 30, 31, 60, 61, None, -1)]
    ['0-7', '0-7', '8-14', '15-30', '31-60', '31-60', '>60', 'unknown', 'unknown']
    """
    if days is None or days != days or days < 0:
        return "unknown"
    for label, upper in AGE_BANDS:
        if days <= upper:
            return label
    return ">60"


def _band_expr(col: pl.Expr) -> pl.Expr:
    e = pl.when(col.is_null() | col.is_nan() | (col < 0)).then(pl.lit("unknown"))
    for label, upper in AGE_BANDS:
        e = e.when(col <= upper).then(pl.lit(label))
    return e.otherwise(pl.lit(">60"))


@dataclass(frozen=True)
class PreexecOverrides:
    """Override rates of pre-execution decisions: ``by_rule``, ``by_age_band``, ``by_mode``."""

    n_events: int
    by_rule: pl.DataFrame
    by_age_band: pl.DataFrame
    by_mode: pl.DataFrame
    min_count: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_events": self.n_events,
            "min_count": self.min_count,
            "by_rule": frame_records(self.by_rule),
            "by_age_band": frame_records(self.by_age_band),
            "by_mode": frame_records(self.by_mode),
        }


def _rates(df: pl.DataFrame, keys: Sequence[str], min_count: int) -> pl.DataFrame:
    out = df.group_by(list(keys)).agg(
        pl.len().cast(pl.Int64).alias("n_events"),
        pl.col("_override").sum().cast(pl.Int64).alias("n_override"),
        pl.col("decided").fill_null(False).sum().cast(pl.Int64).alias("n_decided"),
    )
    k = out["n_override"].to_numpy().astype(float)
    n = out["n_events"].to_numpy().astype(float)
    lo, hi = wilson_interval(k, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)
    return out.with_columns(
        pl.Series("override_rate", val, dtype=pl.Float64),
        pl.Series("override_low", np.atleast_1d(lo), dtype=pl.Float64),
        pl.Series("override_high", np.atleast_1d(hi), dtype=pl.Float64),
        (pl.col("n_events") < min_count).alias("low_count"),
    )


def summarize_preexec_overrides(
    decisions: Any,
    *,
    since: _dt.date | str | None = None,
    min_count: int = DEFAULT_MIN_COUNT,
) -> PreexecOverrides:
    """Override rates of replay/regen decisions by rule fired, by age of the last pass and by mode.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``); only rows of the ``preexec`` taxonomy are used.
    since : ignore decisions classified before this date.
    min_count : slices with fewer events are flagged ``low_count``.

    Returns
    -------
    PreexecOverrides
        ``by_rule`` keyed by ``rule, ai_bucket``; ``by_age_band`` by ``age_band,
        ai_bucket``; ``by_mode`` by ``ai_bucket``; each with ``n_events``, ``n_decided``,
        ``n_override``, ``override_rate``, ``override_low``, ``override_high``,
        ``low_count``.

    >>> df = pl.DataFrame({"taxonomy": ["preexec"] * 3, "ai_bucket": ["replay"] * 3,
    ...     "signals": [["rule-4-default-replay"]] * 3, "decided": [True, False, False],
    ...     "agree": [False, None, None],
    ...     "metadata": ['{"lastPassedAgeDays": 45}', '{"lastPassedAgeDays": 3}', None]})
    >>> r = summarize_preexec_overrides(df, min_count=1)
    >>> r.by_rule.select("rule", "n_events", "n_override").rows()
    [('rule-4-default-replay', 3, 1)]
    >>> r.by_age_band.select("age_band", "n_override").rows()
    [('0-7', 0), ('31-60', 1), ('unknown', 0)]
    """
    need = ["taxonomy", "ai_bucket", "signals", "decided", "agree", "metadata"] + (["ts"] if since is not None else [])
    df = filter_decisions(as_decisions(decisions, columns=need), taxonomy="preexec", since=since)
    df = df.with_columns(
        pl.col("signals").list.eval(pl.element().filter(pl.element().str.starts_with("rule-"))).list.first()
        .fill_null("(none)").alias("rule"),
        pl.col("metadata").str.json_path_match("$.lastPassedAgeDays").cast(pl.Float64, strict=False).alias("_age"),
        (pl.col("decided").fill_null(False) & (pl.col("agree") == False).fill_null(False)).alias("_override"),  # noqa: E712
    ).with_columns(_band_expr(pl.col("_age")).alias("age_band"))
    by_rule = _rates(df, ["rule", "ai_bucket"], min_count).sort(["rule", "ai_bucket"], nulls_last=True)
    by_age = _rates(df, ["age_band", "ai_bucket"], min_count)
    by_age = by_age.with_columns(
        pl.col("age_band").replace_strict({b: i for i, b in enumerate(_BAND_ORDER)}, return_dtype=pl.Int64).alias("_o")
    ).sort(["_o", "ai_bucket"], nulls_last=True).drop("_o")
    by_mode = _rates(df, ["ai_bucket"], min_count).sort("ai_bucket", nulls_last=True)
    return PreexecOverrides(n_events=df.height, by_rule=by_rule, by_age_band=by_age, by_mode=by_mode,
                            min_count=min_count)
