"""Backtests: fit on the past, judge on the weeks after, never the other way round.

:func:`backtest` fits a :class:`~failtax.tune.TableTuner` only on events classified
before the cut-off, and only on decisions *recorded* before it (a person's action
resolved after the cut-off is treated as not yet known), then replays the base table
and the tuned table on the events from the cut-off on. The tuned table is recommended
for promotion only when the lower bound of its agreement gain on those later weeks
(Newcombe 95% interval) is above zero. :func:`rolling_backtest` repeats this for a
series of cut-offs and returns the trend as a frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import polars as pl

from failtax.analysis.stats import Rate, format_gain
from failtax.errors import InputError
from failtax.table import RuleTable
from failtax.analysis.frames import as_frame
from failtax.tune.changes import ProposedChange
from failtax.tune.replay import ReplayResult, WeekAgreement, replay_decisions
from failtax.tune.tuner import TableTuner, _resolve

__all__ = ["BacktestResult", "backtest", "default_cutoff", "rolling_backtest", "split_at"]


@dataclass(frozen=True)
class BacktestResult:
    """Old vs new table on the weeks after ``cutoff``, for a table fitted before it."""

    cutoff: datetime
    until: datetime | None
    n_train: int
    n_train_decided: int
    n_test: int
    changes: tuple[ProposedChange, ...]
    table: RuleTable
    before: Rate
    after: Rate
    gain: float
    gain_low: float
    gain_high: float
    p_value: float
    moved: int
    weekly: tuple[WeekAgreement, ...]
    recommend: bool
    reason: str

    @classmethod
    def from_replay(cls, *, cutoff: datetime, until: datetime | None, tuner: TableTuner, replay: ReplayResult,
                    n_train: int, n_train_decided: int) -> BacktestResult:
        """Judge a replay of the later weeks: recommend only when the gain's lower bound > 0."""
        if not tuner.changes_:
            ok, why = False, "the tuner proposed no change before the cut-off"
        elif replay.decisions == 0:
            ok, why = False, "no decisions after the cut-off to judge on"
        elif not (replay.gain_low > 0):
            ok, why = False, f"lower bound of the gain on later weeks is {replay.gain_low * 100:+.2f} pp (not above zero)"
        else:
            ok, why = True, f"gain on later weeks {replay.gain * 100:+.2f} pp, lower bound {replay.gain_low * 100:+.2f} pp > 0"
        return cls(
            cutoff=cutoff, until=until, n_train=n_train, n_train_decided=n_train_decided, n_test=replay.events,
            changes=tuner.changes_, table=tuner.table_, before=replay.before, after=replay.after,
            gain=replay.gain, gain_low=replay.gain_low, gain_high=replay.gain_high, p_value=replay.p_value,
            moved=replay.n_moved, weekly=replay.weekly, recommend=ok, reason=why,
        )

    def __str__(self) -> str:
        head = (f"backtest: fitted on {self.n_train} events before {self.cutoff:%Y-%m-%d} "
                f"({self.n_train_decided} decisions known then), {len(self.changes)} change(s); "
                f"judged on {self.n_test} later events")
        body = (f"  later weeks: {self.before} -> {self.after}, "
                f"gain {format_gain(self.gain, self.gain_low, self.gain_high)}, {self.moved} events moved")
        rec = f"  {'RECOMMEND promotion' if self.recommend else 'do not promote'}: {self.reason}"
        weeks = [f"    {w.week}: {w.before}  ->  {w.after}" for w in self.weekly]
        return "\n".join([head, body, rec, *(["  by week:", *weeks] if weeks else [])])

    def to_dict(self) -> dict[str, Any]:
        def r(x: Rate) -> dict[str, Any]:
            return {"value": _num(x.value), "low": _num(x.low), "high": _num(x.high), "successes": x.successes, "n": x.n}

        return {
            "cutoff": self.cutoff.isoformat(),
            "until": self.until.isoformat() if self.until else None,
            "n_train": self.n_train,
            "n_train_decided": self.n_train_decided,
            "n_test": self.n_test,
            "changes": [c.to_dict() for c in self.changes],
            "before": r(self.before),
            "after": r(self.after),
            "gain": _num(self.gain),
            "gain_low": _num(self.gain_low),
            "gain_high": _num(self.gain_high),
            "p_value": _num(self.p_value),
            "moved": self.moved,
            "recommend": self.recommend,
            "reason": self.reason,
            "weekly": [{"week": w.week.isoformat() if w.week else None, "before": r(w.before), "after": r(w.after)}
                       for w in self.weekly],
        }


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _as_datetime(x: Any, name: str) -> datetime:
    if isinstance(x, datetime):
        return x.replace(tzinfo=None)
    if isinstance(x, date):
        return datetime(x.year, x.month, x.day)
    if isinstance(x, str):
        try:
            return datetime.fromisoformat(x.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            raise InputError(f"{name}: not an ISO date or time: {x!r}") from None
    raise InputError(f"{name}: expected a date, datetime or ISO string, got {type(x).__name__}")


def split_at(decisions: Any, cutoff: Any, *, until: Any = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split decisions into what was known before ``cutoff`` and the events from it on.

    The training part holds events classified before the cut-off; a decision resolved
    at or after the cut-off is blanked there (no action, no label, undecided), because
    nobody knew it yet. The test part holds events classified from the cut-off on (and
    before ``until`` when given), with their decisions whenever they were made.

    >>> import polars as pl
    >>> from datetime import datetime
    >>> df = pl.DataFrame({"ts": [datetime(2026, 1, 1), datetime(2026, 1, 1), datetime(2026, 1, 9)],
    ...     "resolved_ts": [datetime(2026, 1, 2), datetime(2026, 1, 8), None],
    ...     "signals": [[], [], []], "user_action": ["retry", "skip", None]})
    >>> train, test = split_at(df, "2026-01-05")
    >>> train["user_action"].to_list(), test.height
    (['retry', None], 1)
    """
    df = as_frame(decisions, what="decisions")
    if "ts" not in df.columns:
        raise InputError("decisions: a backtest needs the 'ts' column (when each event was classified)")
    cut = _as_datetime(cutoff, "cutoff")
    ts = pl.col("ts").cast(pl.Datetime("us"))
    train = df.filter(ts < cut)
    if "resolved_ts" in train.columns:
        late = pl.col("resolved_ts").cast(pl.Datetime("us")) >= cut
        blank = {
            "user_action": pl.lit(None, dtype=pl.Utf8),
            "implied_bucket": pl.lit(None, dtype=pl.Utf8),
            "decided": pl.lit(False),
            "opt_out": pl.lit(False),
            "agree": pl.lit(None, dtype=pl.Boolean),
            "latency_s": pl.lit(None, dtype=pl.Float64),
            "resolved_ts": pl.lit(None, dtype=pl.Datetime("us")),
        }
        train = train.with_columns([
            pl.when(late.fill_null(False)).then(v.cast(train.schema[k])).otherwise(pl.col(k)).alias(k)
            for k, v in blank.items() if k in train.columns and train.schema[k] != pl.Null
        ])
    test = df.filter(ts >= cut)
    if until is not None:
        test = test.filter(ts < _as_datetime(until, "until"))
    return train, test


def default_cutoff(decisions: Any, *, test_fraction: float = 0.25) -> datetime:
    """A cut-off that leaves about the last ``test_fraction`` of the weeks for judging.

    The cut-off falls on a week boundary (Monday 00:00) so whole weeks are judged.
    """
    df = as_frame(decisions, what="decisions")
    if "ts" not in df.columns or df.height == 0:
        raise InputError("decisions: need a non-empty 'ts' column to choose a cut-off")
    ts = df["ts"].cast(pl.Datetime("us")).drop_nulls()
    lo, hi = ts.min(), ts.max()
    first_week = datetime(lo.year, lo.month, lo.day) - timedelta(days=lo.weekday())
    n_weeks = (hi - first_week).days // 7 + 1
    keep = max(1, round(n_weeks * test_fraction))
    return first_week + timedelta(weeks=max(1, n_weeks - keep))


def backtest(decisions: Any, *, cutoff: Any, taxonomy: Any, base_table: Any = None, until: Any = None,
             use_text: bool = True, **tuner_params: Any) -> BacktestResult:
    """Fit on events and decisions before ``cutoff``; score old vs new table after it.

    Parameters
    ----------
    decisions : the ``decisions`` relation (polars, pandas, Arrow or DuckDB, or a loaded
        ``Telemetry``).
    cutoff : date, datetime or ISO string.
    taxonomy, base_table : as for :class:`TableTuner`.
    until : optional end of the judged period (exclusive).
    use_text : route on the signals found in ``text`` too.
    **tuner_params : other :class:`TableTuner` parameters (``min_support``, ``alpha`` …);
        cross-validation is off unless ``cv`` is given.

    Returns
    -------
    BacktestResult, whose ``recommend`` is True only when the lower bound of the gain
    on the later weeks is above zero.

    >>> from failtax.tune.synthetic import synthetic_decisions
    >>> df = synthetic_decisions("replay", n_events=3000, seed=2, defects="misleading")
    >>> bt = backtest(df, cutoff="2026-11-02", taxonomy="replay")
    >>> bt.recommend, bt.gain > 0
    (True, True)
    """
    tax, base = _resolve(taxonomy, base_table)
    cut = _as_datetime(cutoff, "cutoff")
    train, test = split_at(decisions, cut, until=until)
    params = {"cv": None, **tuner_params}
    tuner = TableTuner(tax.name, base_table=base, use_text=use_text, **params).fit(train)
    rep = replay_decisions(base, tuner.table_, test, use_text=use_text)
    return BacktestResult.from_replay(
        cutoff=cut, until=_as_datetime(until, "until") if until is not None else None, tuner=tuner, replay=rep,
        n_train=tuner.n_events_, n_train_decided=tuner.n_decided_,
    )


def rolling_backtest(decisions: Any, *, taxonomy: Any, cutoffs: Any = None, base_table: Any = None,
                     horizon_weeks: int | None = None, min_train_weeks: int = 3, use_text: bool = True,
                     **tuner_params: Any) -> pl.DataFrame:
    """Backtests at a series of cut-offs: the trend of the tuned table's gain.

    Parameters
    ----------
    cutoffs : dates to cut at; default every week boundary after ``min_train_weeks``
        weeks of data, up to the last week.
    horizon_weeks : judge only this many weeks after each cut-off (default: all).

    Returns
    -------
    polars.DataFrame with one row per cut-off: ``cutoff``, ``n_train``, ``n_test``,
    ``changes``, ``before``, ``after``, ``gain``, ``gain_low``, ``gain_high``,
    ``moved``, ``recommend``.
    """
    df = as_frame(decisions, what="decisions")
    if cutoffs is None:
        if "ts" not in df.columns or df["ts"].drop_nulls().len() == 0:
            raise InputError("decisions: need a non-empty 'ts' column to choose cut-offs")
        ts = df["ts"].cast(pl.Datetime("us")).drop_nulls()
        lo, hi = ts.min(), ts.max()
        first = datetime(lo.year, lo.month, lo.day) - timedelta(days=lo.weekday())  # Monday of the first week
        cutoffs = []
        c = first + timedelta(weeks=min_train_weeks - 1)
        while c <= hi:
            cutoffs.append(c)
            c += timedelta(weeks=1)
    rows = []
    for c in cutoffs:
        cut = _as_datetime(c, "cutoff")
        until = cut + timedelta(weeks=horizon_weeks) if horizon_weeks else None
        bt = backtest(df, cutoff=cut, taxonomy=taxonomy, base_table=base_table, until=until, use_text=use_text,
                      **tuner_params)
        rows.append({
            "cutoff": cut, "n_train": bt.n_train, "n_test": bt.n_test, "changes": len(bt.changes),
            "before": _num(bt.before.value), "after": _num(bt.after.value), "gain": _num(bt.gain),
            "gain_low": _num(bt.gain_low), "gain_high": _num(bt.gain_high), "moved": bt.moved,
            "recommend": bt.recommend,
        })
    schema = {"cutoff": pl.Datetime("us"), "n_train": pl.Int64, "n_test": pl.Int64, "changes": pl.Int64,
              "before": pl.Float64, "after": pl.Float64, "gain": pl.Float64, "gain_low": pl.Float64,
              "gain_high": pl.Float64, "moved": pl.Int64, "recommend": pl.Boolean}
    return pl.DataFrame(rows, schema=schema)
