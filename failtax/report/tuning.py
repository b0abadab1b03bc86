"""The report's backtest step: the tuner's leakage-free backtest at a few cut-offs.

For each taxonomy, :func:`run_backtests` calls :func:`failtax.tune.backtest.backtest`
(fit on events and decisions known before a cut-off, replay the shipped and the tuned
table on the weeks from it on) at up to ``n_cutoffs`` week boundaries, the last one
leaving about a quarter of the weeks to judge on (the tuner's
:func:`~failtax.tune.backtest.default_cutoff`). The last cut-off is the headline: the
proposed table is *recommended* only when the lower bound of its gain there is above
zero. :func:`backtest_rows` flattens the results into the rows
:func:`~failtax.report.plots.plot_backtest` reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import polars as pl

from failtax.errors import InputError

__all__ = ["backtest_cutoffs", "backtest_rows", "fit_tuners_and_backtests", "run_backtests"]


def backtest_cutoffs(decisions: pl.DataFrame, *, n_cutoffs: int = 3, min_train_weeks: int = 3) -> list[datetime]:
    """Week boundaries to cut at: the tuner's default cut-off and up to ``n_cutoffs - 1``
    earlier ones, two weeks apart, each leaving ``min_train_weeks`` weeks to fit on.

    >>> import datetime as dt
    >>> df = pl.DataFrame({"ts": [dt.datetime(2026, 9, 7) + dt.timedelta(days=d) for d in range(0, 84, 3)]})
    >>> [c.date().isoformat() for c in backtest_cutoffs(df)]
    ['2026-10-12', '2026-10-26', '2026-11-09']
    """
    from failtax.tune.backtest import default_cutoff

    if decisions.height == 0:
        return []
    last = default_cutoff(decisions)
    ts = decisions["ts"].drop_nulls()
    lo = ts.min()
    first_week = datetime(lo.year, lo.month, lo.day) - timedelta(days=lo.weekday())
    earliest = first_week + timedelta(weeks=min_train_weeks)
    out = [last - timedelta(weeks=2 * i) for i in range(max(n_cutoffs, 1))]
    return sorted(c for c in out if c >= earliest)


#: Below this many decisions, fits run in this process (a worker costs ~2 s to start).
PARALLEL_MIN_ROWS = 200_000


def _backtest_row(bt: Any, cut: datetime) -> dict[str, Any]:
    return {
        "cutoff": cut.date(), "n": bt.before.n,
        "old_rate": bt.before.value, "old_low": bt.before.low, "old_high": bt.before.high,
        "new_rate": bt.after.value, "new_low": bt.after.low, "new_high": bt.after.high,
        "gain": bt.gain, "gain_low": bt.gain_low, "gain_high": bt.gain_high,
        "n_changes": len(bt.changes), "moved": bt.moved, "recommended": bt.recommend, "reason": bt.reason,
    }


def _fit(job: tuple[str, str, datetime | None], frame: pl.DataFrame, random_state: int) -> Any:
    """One fit: ``("tune", tax, None)`` → a fitted TableTuner; ``("backtest", tax, cut)`` →
    a backtest row (None when there is nothing to judge)."""
    from failtax.tune import TableTuner
    from failtax.tune.backtest import backtest

    kind, tax, cut = job
    if kind == "tune":
        return TableTuner(tax, cv=None, random_state=random_state).fit(frame)
    try:
        bt = backtest(frame, cutoff=cut, taxonomy=tax, random_state=random_state)
    except InputError:
        return None  # nothing to fit on before this cut-off
    return _backtest_row(bt, cut) if bt.before.n else None


def _job_cost(job: tuple[str, str, datetime | None], frame: pl.DataFrame) -> int:
    """Rows a fit works on (a backtest fits on the rows before its cut-off)."""
    if job[0] == "tune" or job[2] is None:
        return frame.height
    return int((frame["ts"] < job[2]).sum())


def _run_in_workers(jobs: list[tuple[str, str, datetime | None]], frames: Mapping[str, pl.DataFrame],
                    *, workers: int, random_state: int) -> list[Any]:
    """Run ``jobs`` in ``workers`` fresh ``python -m failtax.report._fitworker`` processes.

    Fresh interpreters, not ``multiprocessing``: nothing of the caller's script is
    imported again, and polars' thread pool starts clean in each. Each worker reads the
    decisions from Arrow files written once, and takes the jobs, longest first by rows,
    one at a time as it becomes free (it claims a job by creating its claim file), so a
    taxonomy whose fits cost more per row does not leave the other worker idle; it hands
    each result back as a pickle.
    """
    import os
    import pickle
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory(prefix="failtax-report-fits-") as tmp:
        paths = {}
        for tax, frame in frames.items():
            paths[tax] = os.path.join(tmp, f"{tax}.arrow")
            frame.drop([c for c in ("metadata",) if c in frame.columns]).write_ipc(paths[tax])
        cost = [_job_cost(job, frames[job[1]]) for job in jobs]
        spec = os.path.join(tmp, "jobs.pkl")
        with open(spec, "wb") as fh:
            pickle.dump({"paths": paths, "jobs": jobs, "order": sorted(range(len(jobs)), key=lambda k: -cost[k]),
                         "random_state": random_state}, fh)
        procs = []
        for w in range(workers):
            err = open(os.path.join(tmp, f"stderr-{w}.txt"), "wb")
            procs.append((err, subprocess.Popen(
                [sys.executable, "-m", "failtax.report._fitworker", spec, tmp],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)))
        results: list[Any] = [None] * len(jobs)
        try:
            for err, proc in procs:
                code = proc.wait()
                err.close()
                if code != 0:
                    with open(err.name, encoding="utf-8", errors="replace") as fh:
                        tail = fh.read().strip().splitlines()[-1:] or [f"exit status {code}"]
                    raise RuntimeError(f"a fitting worker failed: {tail[0]}")
            for i in range(len(jobs)):
                with open(os.path.join(tmp, f"result-{i}.pkl"), "rb") as fh:
                    results[i] = pickle.load(fh)
        finally:
            for err, proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                err.close()
    return results


def run_worker(spec: str, out: str) -> None:
    """Worker side of :func:`_run_in_workers`: take the jobs in ``spec`` no other worker has
    taken, in its order, and pickle each result into the folder ``out``."""
    import os
    import pickle

    with open(spec, "rb") as fh:
        task = pickle.load(fh)
    frames: dict[str, pl.DataFrame] = {}
    for i in task["order"]:
        try:  # claim the job: only one worker creates its claim file
            os.close(os.open(os.path.join(out, f"claim-{i}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            continue
        job = task["jobs"][i]
        if job[1] not in frames:
            frames[job[1]] = pl.read_ipc(task["paths"][job[1]])
        result = _fit(job, frames[job[1]], task["random_state"])
        part = os.path.join(out, f"result-{i}.pkl.part")
        with open(part, "wb") as fh:
            pickle.dump(result, fh)
        os.replace(part, os.path.join(out, f"result-{i}.pkl"))


def fit_tuners_and_backtests(
    decisions: pl.DataFrame,
    *,
    taxonomies: Sequence[str],
    n_cutoffs: int = 3,
    random_state: int = 0,
    n_jobs: int | None = None,
    min_rows_parallel: int = PARALLEL_MIN_ROWS,
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Fit the tuner on every taxonomy and backtest it at a few cut-offs, in parallel when large.

    Every fit is independent, so with more than ``min_rows_parallel`` decisions they run
    in ``n_jobs`` worker processes (default: the CPUs available, at most 4), each a fresh
    interpreter (polars' thread pool does not survive a fork, and ``multiprocessing``'s
    spawn would import the caller's script again), reading its taxonomy's decisions from
    an Arrow file written once. The results are the same as fitting one after another here.

    Parameters
    ----------
    decisions : the decisions (polars) the report covers.
    taxonomies : taxonomies to tune and backtest.
    n_cutoffs : backtest cut-offs per taxonomy (see :func:`backtest_cutoffs`).
    random_state : passed to every fit.
    n_jobs : worker processes (``1``: fit here).
    min_rows_parallel : fit here below this many decisions.

    Returns
    -------
    (tuners, backtests)
        ``tuners``: taxonomy → fitted :class:`~failtax.tune.TableTuner`; ``backtests``:
        taxonomy → the headline (last) cut-off's numbers with ``reason`` and
        ``cutoffs`` (one row per cut-off), as :func:`run_backtests` returns.
    """
    import os

    frames = {tax: decisions.filter(pl.col("taxonomy") == tax) for tax in taxonomies}
    jobs: list[tuple[str, str, datetime | None]] = []
    for tax in taxonomies:
        jobs.append(("tune", tax, None))
    for tax in taxonomies:
        jobs += [("backtest", tax, cut) for cut in backtest_cutoffs(frames[tax], n_cutoffs=n_cutoffs)]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    workers = min(n_jobs or min(cpus, 4), len(jobs))
    if workers <= 1 or decisions.height < min_rows_parallel:
        results = [_fit(job, frames[job[1]], random_state) for job in jobs]
    else:
        results = _run_in_workers(jobs, frames, workers=workers, random_state=random_state)
    tuners: dict[str, Any] = {}
    rows: dict[str, list[dict[str, Any]]] = {tax: [] for tax in taxonomies}
    for (kind, tax, _cut), r in zip(jobs, results, strict=True):
        if kind == "tune":
            tuners[tax] = r
        elif r is not None:
            rows[tax].append(r)
    backtests = {}
    for tax, rs in rows.items():
        if rs:
            rs.sort(key=lambda r: r["cutoff"])
            backtests[tax] = {**{k: v for k, v in rs[-1].items()}, "cutoffs": rs}
    return tuners, backtests


def run_backtests(decisions: pl.DataFrame, *, taxonomies: Sequence[str], n_cutoffs: int = 3,
                  random_state: int = 0) -> dict[str, dict[str, Any]]:
    """Backtest the tuner per taxonomy at a few cut-offs (in this process).

    Parameters
    ----------
    decisions : the decisions (polars) the report covers.
    taxonomies : the taxonomies to backtest.
    n_cutoffs : cut-offs per taxonomy (see :func:`backtest_cutoffs`).
    random_state : passed to the tuner.

    Returns
    -------
    dict
        taxonomy → ``{"cutoff", "n", "old_rate", "old_low", "old_high", "new_rate",
        "new_low", "new_high", "gain", "gain_low", "gain_high", "n_changes", "moved",
        "recommended", "reason", "cutoffs": [rows …]}``: the headline (last) cut-off's
        numbers and one row per cut-off. A taxonomy with too few weeks is left out.
    """
    out: dict[str, dict[str, Any]] = {}
    for tax in taxonomies:
        sub = decisions.filter(pl.col("taxonomy") == tax)
        rows = [r for cut in backtest_cutoffs(sub, n_cutoffs=n_cutoffs)
                if (r := _fit(("backtest", tax, cut), sub, random_state)) is not None]
        if rows:
            out[tax] = {**rows[-1], "cutoffs": rows}
    return out


def backtest_rows(backtests: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (taxonomy, cut-off) for :func:`~failtax.report.summary.backtest_frame`."""
    rows: list[dict[str, Any]] = []
    for tax, bt in backtests.items():
        for r in bt.get("cutoffs", []):
            rows.append({"taxonomy": tax, **r})
    return rows
