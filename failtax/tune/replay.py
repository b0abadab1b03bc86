"""Replay history under two tables: which events move, and what happens to agreement.

The same evidence a decision recorded (its named signals and its text) is routed by an
old and a new table exactly as :func:`failtax.classify` would route it. A decision
*agrees* under a table when the person's action carries out the suggestion of the
bucket that table picks (``taxonomy.carries_out``); opt-outs and undecided events are
counted as events but not as decisions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.stats import Rate, format_gain, newcombe_diff_interval, rate
from failtax.errors import InputError
from failtax.table import RuleTable, load_table
from failtax.taxonomy import load_taxonomy
from failtax.tune._frame import prepare, with_signal_sets

__all__ = ["BucketAgreement", "MovedEvents", "ReplayResult", "WeekAgreement", "replay_decisions"]


@dataclass(frozen=True)
class MovedEvents:
    """Events that one table puts in ``old_bucket`` and the other in ``new_bucket``."""

    old_bucket: str
    new_bucket: str
    events: int
    decided: int
    wins: int
    losses: int
    examples: tuple[str, ...] = ()

    def __str__(self) -> str:
        ex = f"  e.g. {', '.join(self.examples)}" if self.examples else ""
        return (f"{self.old_bucket} -> {self.new_bucket}: {self.events} events ({self.decided} decided: "
                f"{self.wins} now agree, {self.losses} no longer agree){ex}")


@dataclass(frozen=True)
class BucketAgreement:
    """Agreement among the decisions each table routes to ``bucket``."""

    bucket: str
    before: Rate
    after: Rate

    @property
    def change(self) -> float:
        if self.before.n == 0 or self.after.n == 0:
            return math.nan
        return self.after.value - self.before.value


@dataclass(frozen=True)
class WeekAgreement:
    """Agreement of both tables on one week's decisions."""

    week: date | None
    before: Rate
    after: Rate


@dataclass(frozen=True)
class ReplayResult:
    """History replayed under ``old`` and ``new`` (see :func:`replay_decisions`).

    ``gain`` is the change in agreement rate over all decisions, ``gain_low`` and
    ``gain_high`` its Newcombe 95% interval (computed on the moved decisions and scaled
    to all of them), ``p_value`` the one-sided sign test of moved decisions that now
    agree (``wins``) against those that no longer do (``losses``).
    """

    old: RuleTable
    new: RuleTable
    events: int
    decisions: int
    before: Rate
    after: Rate
    gain: float
    gain_low: float
    gain_high: float
    p_value: float
    wins: int
    losses: int
    moved: tuple[MovedEvents, ...]
    per_bucket: tuple[BucketAgreement, ...]
    weekly: tuple[WeekAgreement, ...]
    moved_events: pl.DataFrame = field(compare=False, repr=False, default=None)  # type: ignore[assignment]

    @property
    def n_moved(self) -> int:
        return sum(m.events for m in self.moved)

    def predicted_buckets(self) -> dict[str, str]:
        """``event_id -> new bucket`` for every moved event."""
        if self.moved_events is None:
            return {}
        return dict(zip(self.moved_events["event_id"].to_list(), self.moved_events["new_bucket"].to_list(), strict=True))

    def __str__(self) -> str:
        lines = [
            f"replayed {self.events} events ({self.decisions} decisions) under "
            f"{self.old.name} {self.old.version} and {self.new.name} {self.new.version}",
            f"agreement: {self.before} -> {self.after}, gain {format_gain(self.gain, self.gain_low, self.gain_high)}, "
            f"{self.wins} won / {self.losses} lost, p={self.p_value:.2g}",
        ]
        if self.moved:
            lines.append(f"events that move ({self.n_moved}):")
            lines += [f"  {m}" for m in self.moved]
        else:
            lines.append("no event changes bucket")
        lines.append("agreement by bucket (decisions each table routes there):")
        for b in self.per_bucket:
            ch = "" if math.isnan(b.change) else f" ({b.change * 100:+.1f} pp)"
            lines.append(f"  {b.bucket:<16} {b.before}  ->  {b.after}{ch}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        def r(x: Rate) -> dict[str, Any]:
            return {"value": _num(x.value), "low": _num(x.low), "high": _num(x.high), "successes": x.successes, "n": x.n}

        return {
            "old": {"name": self.old.name, "version": self.old.version},
            "new": {"name": self.new.name, "version": self.new.version},
            "events": self.events,
            "decisions": self.decisions,
            "before": r(self.before),
            "after": r(self.after),
            "gain": _num(self.gain),
            "gain_low": _num(self.gain_low),
            "gain_high": _num(self.gain_high),
            "p_value": _num(self.p_value),
            "wins": self.wins,
            "losses": self.losses,
            "moved": [
                {"from": m.old_bucket, "to": m.new_bucket, "events": m.events, "decided": m.decided,
                 "wins": m.wins, "losses": m.losses, "examples": list(m.examples)}
                for m in self.moved
            ],
            "per_bucket": [
                {"bucket": b.bucket, "before": r(b.before), "after": r(b.after), "change": _num(b.change)}
                for b in self.per_bucket
            ],
            "weekly": [
                {"week": w.week.isoformat() if w.week else None, "before": r(w.before), "after": r(w.after)}
                for w in self.weekly
            ],
        }


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _buckets(table: RuleTable, frame: pl.DataFrame, *, use_text: bool) -> pl.Series:
    from failtax.tune.tuner import _table_buckets

    return _table_buckets(table, with_signal_sets(frame, table, use_text=use_text))


def replay_decisions(old: Any, new: Any, decisions: Any, *, use_text: bool = True, examples: int = 5) -> ReplayResult:
    """Route every decision under ``old`` and ``new`` and compare agreement.

    Parameters
    ----------
    old, new : RuleTables, paths or shipped names of the same taxonomy.
    decisions : the ``decisions`` relation (polars, pandas, Arrow or DuckDB, or a loaded
        ``Telemetry``); rows of other taxonomies are ignored.
    use_text : also route on the signals the tables' text rules find in ``text``.
    examples : event ids kept per moved (old, new) bucket pair.

    Returns
    -------
    ReplayResult

    >>> import polars as pl
    >>> df = pl.DataFrame({"event_id": ["e1"], "signals": [["selector-timeout"]],
    ...                    "user_action": ["share-email"]})
    >>> from failtax.table import load_table
    >>> old = load_table("replay")
    >>> new = old.replace(route=tuple(r for r in old.route if r.id != "stale-script"))
    >>> r = replay_decisions(old, new, df)
    >>> (r.before.value, r.after.value, r.moved[0].new_bucket)
    (0.0, 1.0, 'product-defect')
    """
    t_old, t_new = load_table(old), load_table(new)
    if t_old.taxonomy != t_new.taxonomy:
        raise InputError(f"tables are for different taxonomies: {t_old.taxonomy!r} and {t_new.taxonomy!r}")
    tax = load_taxonomy(t_old.taxonomy)
    frame = prepare(decisions, taxonomy=tax)
    ob = _buckets(t_old, frame, use_text=use_text)
    nb = _buckets(t_new, frame, use_text=use_text)
    sugg = {b.name: b.suggestion for b in tax.buckets}
    rows = frame.select("event_id", "week", "user_action", "agree_row").with_columns(old_bucket=ob, new_bucket=nb)
    # agreement per distinct (action, bucket) pair, then joined back
    pairs = pl.concat([
        rows.select("user_action", pl.col("old_bucket").alias("bucket")),
        rows.select("user_action", pl.col("new_bucket").alias("bucket")),
    ]).unique()
    lut = pairs.with_columns(
        agrees=pl.Series([tax.carries_out(sugg.get(b), a) for a, b in pairs.iter_rows()], dtype=pl.Boolean)
    )
    rows = (
        rows.join(lut.rename({"bucket": "old_bucket", "agrees": "agree_old"}), on=["user_action", "old_bucket"],
                  how="left", nulls_equal=True, maintain_order="left")
        .join(lut.rename({"bucket": "new_bucket", "agrees": "agree_new"}), on=["user_action", "new_bucket"],
              how="left", nulls_equal=True, maintain_order="left")
        .with_columns(
            agree_old=pl.col("agree_old").fill_null(False) & pl.col("agree_row"),
            agree_new=pl.col("agree_new").fill_null(False) & pl.col("agree_row"),
            is_moved=pl.col("old_bucket") != pl.col("new_bucket"),
        )
    )
    dec = rows.filter(pl.col("agree_row"))
    n = dec.height
    k_old = int(dec["agree_old"].sum())
    k_new = int(dec["agree_new"].sum())
    mdec = dec.filter(pl.col("is_moved"))
    nm = mdec.height
    mk_old, mk_new = int(mdec["agree_old"].sum()), int(mdec["agree_new"].sum())
    wins = int((mdec["agree_new"] & ~mdec["agree_old"]).sum())
    losses = int((mdec["agree_old"] & ~mdec["agree_new"]).sum())
    if nm and n:
        lo, hi = newcombe_diff_interval(mk_new, nm, mk_old, nm)
        lo, hi = lo * nm / n, hi * nm / n
    else:
        lo = hi = 0.0 if n else math.nan
    from failtax.tune._search import sign_test_greater

    moved_rows = rows.filter(pl.col("is_moved"))
    moved = []
    if moved_rows.height:
        agg = (
            moved_rows.group_by("old_bucket", "new_bucket")
            .agg(
                events=pl.len(),
                decided=pl.col("agree_row").sum(),
                wins=(pl.col("agree_new") & ~pl.col("agree_old")).sum(),
                losses=(pl.col("agree_old") & ~pl.col("agree_new")).sum(),
                examples=pl.col("event_id").head(examples),
            )
            .sort(["events", "old_bucket", "new_bucket"], descending=[True, False, False])
        )
        moved = [
            MovedEvents(o, nw, int(e), int(d), int(w), int(lz), tuple(ex))
            for o, nw, e, d, w, lz, ex in agg.iter_rows()
        ]
    per_bucket = []
    for b in tax.bucket_names:
        bo = dec.filter(pl.col("old_bucket") == b)
        bn = dec.filter(pl.col("new_bucket") == b)
        per_bucket.append(BucketAgreement(b, rate(int(bo["agree_old"].sum()), bo.height),
                                          rate(int(bn["agree_new"].sum()), bn.height)))
    weekly = []
    if dec.height:
        wk = dec.group_by("week").agg(n=pl.len(), ko=pl.col("agree_old").sum(), kn=pl.col("agree_new").sum()).sort("week", nulls_last=True)
        weekly = [WeekAgreement(w, rate(int(ko), int(nn)), rate(int(kn), int(nn))) for w, nn, ko, kn in wk.iter_rows()]
    return ReplayResult(
        old=t_old, new=t_new, events=frame.height, decisions=n,
        before=rate(k_old, n), after=rate(k_new, n), gain=(k_new - k_old) / n if n else math.nan,
        gain_low=lo, gain_high=hi, p_value=sign_test_greater(wins, losses), wins=wins, losses=losses,
        moved=tuple(moved), per_bucket=tuple(per_bucket), weekly=tuple(weekly),
        moved_events=moved_rows.select("event_id", "old_bucket", "new_bucket"),
    )


def row_buckets(table: Any, decisions: Any, *, use_text: bool = True) -> np.ndarray:
    """The bucket ``table`` gives every decision row (of its taxonomy), in order."""
    tbl = load_table(table)
    tax = load_taxonomy(tbl.taxonomy)
    return _buckets(tbl, prepare(decisions, taxonomy=tax), use_text=use_text).to_numpy()
