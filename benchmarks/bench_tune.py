"""Benchmark: fitting the table tuner on 1,000,000 decisions.

Builds a seeded synthetic ``decisions`` frame with planted defects (50,000 distinct
events from :func:`failtax.tune.synthetic.synthetic_decisions`, resampled with fresh ids,
times and run numbers in the text up to the requested size), then times
``TableTuner.fit``. Fitting aggregates decisions over distinct (signal set, action, week)
groups, so its cost grows with the number of distinct combinations, not with rows.

Run:  python benchmarks/bench_tune.py [--rows 1000000] [--taxonomy replay] [--text unique|repeated|none] [--cv 0]
Target: under 30 s on 2 cores for 1,000,000 rows.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
import polars as pl


def make_rows(rows: int, *, taxonomy: str, text: str, seed: int) -> pl.DataFrame:
    from failtax.tune.synthetic import synthetic_decisions

    base = synthetic_decisions(taxonomy, n_events=min(rows, 50_000), seed=seed, defects="all")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, base.height, rows)
    df = base[idx]
    df = df.with_columns(
        event_id=pl.int_range(0, rows, dtype=pl.Int64).cast(pl.Utf8),
        run_id=pl.format("run-{}", pl.int_range(0, rows, dtype=pl.Int64)),
    )
    if text == "unique":
        df = df.with_columns(text=pl.format("{} (attempt {})", pl.col("text"), pl.int_range(0, rows, dtype=pl.Int64)))
    elif text == "none":
        df = df.with_columns(text=pl.lit(None, dtype=pl.Utf8))
    return df


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--taxonomy", default="replay")
    ap.add_argument("--text", choices=("unique", "repeated", "none"), default="unique")
    ap.add_argument("--cv", type=int, default=3, help="cross-validation folds (0: off); 3 is the tuner's default")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    from failtax.tune import TableTuner

    t0 = time.perf_counter()
    df = make_rows(args.rows, taxonomy=args.taxonomy, text=args.text, seed=args.seed)
    t1 = time.perf_counter()
    tuner = TableTuner(args.taxonomy, cv=args.cv or None)
    tuner.fit(df)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"cores: {os.cpu_count()}  rows: {df.height:,}  taxonomy: {args.taxonomy}  text: {args.text}  cv: {args.cv}")
    print(f"generate: {t1 - t0:.1f} s (not timed)")
    print(f"fit: {t2 - t1:.2f} s  ({df.height / (t2 - t1):,.0f} decisions/s)  target < 30 s: {'ok' if t2 - t1 < 30 else 'MISSED'}")
    print("steps: " + ", ".join(f"{k} {v:.2f} s" for k, v in tuner.timings_.items()))
    print(f"candidate edits evaluated: {tuner.n_candidates_}  suspect labels dropped: {tuner.n_suspect_labels_}")
    print(f"changes: {len(tuner.changes_)}  watch: {len(tuner.watch_)}  peak RSS: {peak:,.0f} MB")
    for c in tuner.changes_:
        print("  ", c.summary)


if __name__ == "__main__":
    main()
