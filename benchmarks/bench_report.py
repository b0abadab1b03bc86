"""Benchmark: the whole tuning report on 1,000,000 simulated failure events, time per step.

Simulates the telemetry once with ``failtax simulate`` (replay, regen and pre-execution
families, planted defects, a messy file) into a cache folder and reuses it on later
runs, then runs :func:`failtax.report.build_report` on it exactly as ``failtax report
--telemetry DIR`` does: load into DuckDB, agreement, rule diagnostics and misleading
signals (batch re-classification), tuning, backtests, events moving buckets, plots and
the atomic write. Prints seconds per step, the share of the total, events per second,
and the total against the budget (2 minutes on 2 cores).

    python benchmarks/bench_report.py                      # 1,000,000 events
    python benchmarks/bench_report.py --events 100000      # quicker
    python benchmarks/bench_report.py --data /tmp/sim-1m   # where the telemetry is cached
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGET_S = 120.0


def _cache_dir(events: int, seed: int) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "failtax"
    return base / f"bench-report-{events}-seed{seed}"


def _simulate(folder: Path, *, events: int, seed: int) -> float:
    """Simulate into ``folder`` unless a simulation of the same size and seed is there."""
    truth = folder / "truth.json"
    if truth.exists():
        t = json.loads(truth.read_text())
        if t.get("events") == events and t.get("seed") == seed:
            return 0.0
    if folder.exists() and any(folder.iterdir()):
        raise SystemExit(f"{folder} holds other telemetry; give an empty or new folder with --data "
                         f"(or its own --events and --seed)")
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from failtax.cli import main; main()", "simulate", "--out", str(folder),
                    "--events", str(events), "--weeks", "12", "--seed", str(seed)], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000, help="classified failure events to simulate")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--data", type=Path, default=None, help="telemetry folder (simulated there when missing)")
    ap.add_argument("--out", type=Path, default=None, help="report folder (default: a temporary one)")
    args = ap.parse_args()

    data = args.data or _cache_dir(args.events, args.seed)
    sim_s = _simulate(data, events=args.events, seed=args.seed)
    size = sum(p.stat().st_size for p in data.rglob("*.jsonl"))
    print(f"telemetry: {data} ({size / 1e6:,.0f} MB of JSONL, {args.events:,} classified events)"
          + (f", simulated in {sim_s:.0f} s" if sim_s else ", cached"))
    print(f"cpus available: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}")

    from failtax.report import build_report

    scratch = None if args.out else tempfile.TemporaryDirectory(prefix="failtax-bench-report-")
    out = args.out or Path(scratch.name) / "report"
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    result = build_report(telemetry=[str(data)], out=out, progress=False)
    total = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    if scratch is not None:
        scratch.cleanup()  # keep the report with --out DIR
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    s = result.summary
    print(f"\nreport on {s['events']['classified']:,} classified events "
          f"({s['events']['decided']:,} replay/regen decisions)" + (f" → {result.index_html}" if args.out else ""))
    print(f"{'step':<10} {'seconds':>8} {'share':>6}")
    for step, sec in result.timings.items():
        print(f"{step:<10} {sec:8.2f} {sec / total:6.1%}")
    print(f"{'total':<10} {total:8.2f}   ({s['events']['classified'] / total:,.0f} events/s; "
          f"CPU {cpu:.1f} s here + {children.ru_utime:.1f} s in workers; peak RSS {peak_mb:,.0f} MB)")
    print(f"agreement {s['agreement']['rate']:.1%} (n={s['agreement']['n']:,}), recognition "
          f"{s['recognition']['rate']:.1%}, {s['changes']} proposed change(s), "
          f"{s['quarantine']['lines']} quarantined line(s)")
    ratio = total / BUDGET_S
    verdict = "within" if total <= BUDGET_S else "OVER"
    print(f"budget: {total:.1f} s / {BUDGET_S:.0f} s = {ratio:.2f} ({verdict} the 2-minute budget)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
