"""Loops and escalations: was the one-recovery budget kept, what escalated, what repeated.

Two sources (both loaded by :func:`failtax.telemetry.load`):

- **lifecycle** lines (seed 001): ``failure.classified``, ``recovery.attempted``,
  ``recovery.succeeded`` / ``recovery.degraded`` / ``recovery.escalated``, with
  ``session_id``, ``feature_id`` and ``failure_type``. The anti-loop rule gives each
  failure type ONE automatic recovery attempt per scope (here: session and feature), and
  none to a type the devflow taxonomy marks not auto-recoverable. The lifecycle is
  replayed in time order through :class:`failtax.budget.RecoveryBudget`, the same code
  the tools use, so every attempt the budget would have refused is counted as
  ``n_over_budget``.
- **retry logs** (seed 003): per scope (run, task) the failing test ids or the
  reviewer's must-fix keys of each round. Streaks of the same key in consecutive rounds
  come from :func:`failtax.budget.find_streaks`; a streak longer than the limit (2) means
  the flow went on past the point where it should have stopped.

The same streak logic finds repeated failures in the lifecycle: consecutive
``failure.classified`` events of one session with the same failure type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from failtax.analysis.agreement import frame_records
from failtax.analysis.frames import as_frame, with_rate_columns
from failtax.budget import RecoveryBudget, Round, find_streaks, normalise_scope
from failtax.errors import InputError

__all__ = [
    "LoopReport",
    "find_failure_streaks",
    "find_retry_streaks",
    "summarize_loops",
    "summarize_recoveries",
]

_LIFECYCLE_COLUMNS = ("ts", "event", "session_id", "feature_id", "failure_type")
_OUTCOMES = {"recovery.succeeded": "recovered", "recovery.degraded": "degraded", "recovery.escalated": "failed"}


def _require(df: pl.DataFrame, cols: tuple[str, ...], what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"{what}: missing column(s) {', '.join(repr(c) for c in missing)} "
                         f"(have: {', '.join(df.columns) or 'none'})")


def _lifecycle(lifecycle: Any) -> pl.DataFrame:
    df = as_frame(lifecycle, what="lifecycle")
    _require(df, _LIFECYCLE_COLUMNS, "lifecycle")
    for c in ("reason", "message", "file", "line"):
        if c not in df.columns:
            df = df.with_columns(pl.lit(None).alias(c))
    order = [c for c in ("ts", "file", "line") if df.schema[c] != pl.Null]
    return df.sort(order, nulls_last=True, maintain_order=True)


def _scope(session: str | None, feature: str | None) -> str | None:
    ids = {k: v for k, v in (("session", session), ("feature", feature)) if v}
    return normalise_scope(ids) if ids else None


_rate_cols = with_rate_columns


def summarize_recoveries(lifecycle: Any, *, taxonomy: str = "devflow", limit: int = 1) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per failure type: how often the one-recovery budget was spent, kept and overrun,
    and every escalation with its reason.

    Parameters
    ----------
    lifecycle : the ``lifecycle`` view (DuckDB, polars, pandas or Arrow) with ``ts``,
        ``event``, ``session_id``, ``feature_id``, ``failure_type`` (``reason`` and
        ``message`` used when present).
    taxonomy : the taxonomy whose ``auto_recoverable`` says which types get no
        automatic attempt at all.
    limit : automatic attempts per type and scope (seed 001 says one).

    Returns
    -------
    (recoveries, escalations)
        ``recoveries``: one row per failure type with ``n_classified``, ``n_scopes``
        (session × feature × type), ``n_scopes_attempted`` and ``budget_spent_rate``
        (with Wilson interval), ``n_attempts``, ``n_over_budget`` (attempts the budget
        refuses), ``n_recovered``, ``n_degraded``, ``n_escalated``, ``escalation_rate``
        (escalated scopes / scopes). ``escalations``: one row per ``recovery.escalated``
        with ``attempts_before``, ``auto_recoverable`` and ``reason``.

    >>> lc = pl.DataFrame({"ts": [1, 2, 3, 4, 5], "session_id": ["s"] * 5, "feature_id": ["f"] * 5,
    ...     "event": ["failure.classified", "recovery.attempted", "recovery.attempted",
    ...               "recovery.escalated", "failure.classified"],
    ...     "failure_type": ["compile"] * 5, "reason": [None, None, None, "still red", None]})
    >>> rec, esc = summarize_recoveries(lc)
    >>> rec.select("failure_type", "n_classified", "n_attempts", "n_over_budget", "n_escalated").row(0)
    ('compile', 2, 2, 1, 1)
    >>> esc.select("attempts_before", "reason").row(0)
    (2, 'still red')
    """
    df = _lifecycle(lifecycle)
    budget = RecoveryBudget.from_taxonomy(taxonomy, limit=limit)
    per: dict[str, dict[str, Any]] = {}
    scopes: dict[tuple[str, str | None], dict[str, int]] = {}
    esc_rows = []
    for r in df.iter_rows(named=True):
        ft = r["failure_type"]
        if not ft:
            continue
        ev = r["event"]
        sc = _scope(r["session_id"], r["feature_id"])
        st = scopes.setdefault((ft, sc), {"attempts": 0, "escalated": 0, "recovered": 0, "degraded": 0})
        p = per.setdefault(ft, {"n_classified": 0, "n_attempts": 0, "n_over_budget": 0})
        if ev == "failure.classified":
            p["n_classified"] += 1
        elif ev == "recovery.attempted":
            if not budget.may_attempt(ft, scope=sc):
                p["n_over_budget"] += 1
            budget = budget.record(ft, result="failed", scope=sc)
            p["n_attempts"] += 1
            st["attempts"] += 1
        elif ev in _OUTCOMES:
            key = {"recovery.succeeded": "recovered", "recovery.degraded": "degraded",
                   "recovery.escalated": "escalated"}[ev]
            st[key] += 1
            if ev == "recovery.escalated":
                esc_rows.append({
                    "ts": r["ts"], "session_id": r["session_id"], "feature_id": r["feature_id"],
                    "failure_type": ft, "attempts_before": st["attempts"],
                    "auto_recoverable": ft not in budget.never_automatic,
                    "reason": r["reason"] or r["message"],
                })
    rows = []
    for ft in sorted(per):
        mine = [v for (t, _), v in scopes.items() if t == ft]
        rows.append({
            "failure_type": ft,
            "auto_recoverable": ft not in budget.never_automatic,
            **per[ft],
            "n_scopes": len(mine),
            "n_scopes_attempted": sum(v["attempts"] > 0 for v in mine),
            "n_recovered": sum(v["recovered"] > 0 for v in mine),
            "n_degraded": sum(v["degraded"] > 0 for v in mine),
            "n_escalated": sum(v["escalated"] > 0 for v in mine),
        })
    schema = {"failure_type": pl.String, "auto_recoverable": pl.Boolean, "n_classified": pl.Int64,
              "n_attempts": pl.Int64, "n_over_budget": pl.Int64, "n_scopes": pl.Int64,
              "n_scopes_attempted": pl.Int64, "n_recovered": pl.Int64, "n_degraded": pl.Int64,
              "n_escalated": pl.Int64}
    rec = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    rec = _rate_cols(rec, "budget_spent_rate", "n_scopes_attempted", "n_scopes")
    rec = _rate_cols(rec, "escalation_rate", "n_escalated", "n_scopes")
    esc_schema = {"ts": df.schema["ts"], "session_id": pl.String, "feature_id": pl.String, "failure_type": pl.String,
                  "attempts_before": pl.Int64, "auto_recoverable": pl.Boolean, "reason": pl.String}
    esc = pl.DataFrame(esc_rows, schema=esc_schema) if esc_rows else pl.DataFrame(schema=esc_schema)
    return rec, esc


def _streak_frame(streaks: list[Any], limit: int, ts_dtype: Any = pl.String) -> pl.DataFrame:
    schema = {"kind": pl.String, "key": pl.String, "scope": pl.String, "length": pl.Int64,
              "first_ts": pl.String, "last_ts": pl.String, "past_stop": pl.Boolean}
    rows = [{"kind": s.kind, "key": s.key, "scope": s.scope, "length": s.length,
             "first_ts": None if s.first_ts is None else str(s.first_ts),
             "last_ts": None if s.last_ts is None else str(s.last_ts), "past_stop": s.length > limit}
            for s in streaks]
    out = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    return out.sort(["length", "scope", "kind", "key"], descending=[True, False, False, False], nulls_last=True)


def find_failure_streaks(lifecycle: Any, *, min_length: int = 2, limit: int = 2) -> pl.DataFrame:
    """Runs of the same failure type in consecutive ``failure.classified`` events of a session.

    Uses :func:`failtax.budget.find_streaks` (each classified failure is a round whose
    key is its type, scoped by session). ``past_stop`` marks runs longer than ``limit``.

    >>> lc = pl.DataFrame({"ts": [1, 2, 3], "session_id": ["s"] * 3, "feature_id": [None] * 3,
    ...     "event": ["failure.classified"] * 3, "failure_type": ["test", "test", "compile"]})
    >>> find_failure_streaks(lc).select("key", "length").rows()
    [('test', 2)]
    """
    df = _lifecycle(lifecycle).filter((pl.col("event") == "failure.classified") & pl.col("failure_type").is_not_null())
    rounds = [Round(scope=r["session_id"], failures=(r["failure_type"],), ts=None if r["ts"] is None else str(r["ts"]))
              for r in df.iter_rows(named=True)]
    out = _streak_frame(find_streaks(rounds, min_length=min_length), limit)
    return out.with_columns(pl.lit("failure-type").alias("kind"))


def find_retry_streaks(retry_log: Any, *, min_length: int = 2, limit: int = 2) -> pl.DataFrame:
    """Seed 003's loop guard on retry logs: the same test id / must-fix key in consecutive rounds.

    Parameters
    ----------
    retry_log : retry-log rows (the ``events`` of source ``retry-log``) with ``ts`` and
        ``failures`` and/or ``must_fix_keys`` (lists), and the scope as ``scope`` (JSON
        text or object) or ``run_id`` / ``task_id``.
    min_length : shortest streak reported.
    limit : the streak length that must stop the flow (2); longer ones are ``past_stop``.

    Returns
    -------
    polars.DataFrame with ``kind`` (``test`` / ``must-fix``), ``key``, ``scope``,
    ``length``, ``first_ts``, ``last_ts``, ``past_stop``; longest first.

    >>> log = pl.DataFrame({"ts": ["t1", "t2", "t3"], "failures": [["a"], ["a"], ["a"]],
    ...                     "must_fix_keys": [None, None, None], "scope": ['{"run": "r1"}'] * 3})
    >>> find_retry_streaks(log).select("key", "scope", "length", "past_stop").row(0)
    ('a', 'run=r1', 3, True)
    """
    df = as_frame(retry_log, what="retry log")
    _require(df, ("ts",), "retry log")
    if "failures" not in df.columns and "must_fix_keys" not in df.columns:
        raise InputError("retry log: needs a 'failures' or 'must_fix_keys' column")
    order = [c for c in ("ts", "file", "line") if c in df.columns]
    df = df.sort(order, nulls_last=True, maintain_order=True)
    rounds = []
    for i, r in enumerate(df.iter_rows(named=True)):
        rec: dict[str, Any] = {"ts": None if r["ts"] is None else str(r["ts"])}
        scope = r.get("scope")
        if isinstance(scope, str):
            try:
                scope = json.loads(scope)
            except ValueError:
                pass
        if scope is None and (r.get("run_id") or r.get("task_id")):
            scope = {k: v for k, v in (("run", r.get("run_id")), ("task", r.get("task_id"))) if v}
        if scope is not None:
            rec["scope"] = scope if isinstance(scope, Mapping | str) else str(scope)
        for key in ("failures", "must_fix_keys"):
            if r.get(key) is not None:
                rec[key] = list(r[key])
        if "failures" not in rec and "must_fix_keys" not in rec:
            continue
        rounds.append(Round.from_record(rec, where=f"retry log row {i + 1}"))
    return _streak_frame(find_streaks(rounds, min_length=min_length), limit)


@dataclass(frozen=True)
class LoopReport:
    """Recovery budget use, escalations and streaks (see the module docstring)."""

    recoveries: pl.DataFrame
    escalations: pl.DataFrame
    failure_streaks: pl.DataFrame
    retry_streaks: pl.DataFrame

    def to_dict(self) -> dict[str, Any]:
        return {
            "recoveries": frame_records(self.recoveries),
            "escalations": frame_records(self.escalations),
            "failure_streaks": frame_records(self.failure_streaks),
            "retry_streaks": frame_records(self.retry_streaks),
        }


def summarize_loops(
    telemetry: Any = None,
    *,
    lifecycle: Any = None,
    retry_log: Any = None,
    taxonomy: str = "devflow",
) -> LoopReport:
    """Recoveries, escalations and streaks from loaded telemetry or from given frames.

    Parameters
    ----------
    telemetry : a :class:`failtax.telemetry.Telemetry` (its ``lifecycle`` view and its
        retry-log ``events`` are used); or give the frames:
    lifecycle : the ``lifecycle`` rows.
    retry_log : the retry-log rows.
    taxonomy : whose ``auto_recoverable`` flags decide which types get no attempt.

    Returns
    -------
    LoopReport

    >>> summarize_loops(lifecycle=pl.DataFrame(schema={"ts": pl.Datetime, "event": pl.String,
    ...     "session_id": pl.String, "feature_id": pl.String, "failure_type": pl.String})).recoveries.height
    0
    """
    if telemetry is not None:
        lifecycle = telemetry.lifecycle if lifecycle is None else lifecycle
        if retry_log is None:
            retry_log = telemetry.sql(
                "SELECT ts, run_id, task_id, scope::VARCHAR AS scope, failures, must_fix_keys, file, line "
                "FROM events WHERE source = 'retry-log'"
            )
    empty_lc = pl.DataFrame(schema={c: (pl.Datetime("us") if c == "ts" else pl.String) for c in _LIFECYCLE_COLUMNS})
    lc = empty_lc if lifecycle is None else lifecycle
    rec, esc = summarize_recoveries(lc, taxonomy=taxonomy)
    fstreaks = find_failure_streaks(lc)
    if retry_log is None:
        rstreaks = _streak_frame([], 2)
    else:
        rstreaks = find_retry_streaks(retry_log)
    return LoopReport(recoveries=rec, escalations=esc, failure_streaks=fstreaks, retry_streaks=rstreaks)
