"""Benchmark: loading failure events into DuckDB with failtax vs bare readers.

Generates N seeded failure events (seed 000 format, about 500 bytes each; 1,000,000
make about 500 MB) split over a few files, then times, in the same run:

- ``failtax.telemetry.load`` into a fresh database file (validation, quarantine,
  duplicate removal, views);
- a bare DuckDB ``read_json`` of the same files with the columns declared, into a
  fresh database file (no checks: broken lines would be silently nulled);
- ``pandas.read_json(lines=True)`` on all the lines, gathered into one file (it needs
  about 10x the file size in memory). ``--pandas-lines K`` times it on the first K lines
  and scales linearly to N instead — the output says so; pandas slows down more than
  linearly with size, so that figure flatters it.

Each reader runs in a fresh process. Peak memory of the failtax load is sampled (RSS,
every 10 ms) and taken from ``resource.getrusage``. Times are the best of ``--repeat``
runs; CPU time (all threads) is printed too, as it says more than wall time on a busy
machine.

    python benchmarks/bench_load.py                 # 1,000,000 events
    python benchmarks/bench_load.py --events 200000 # quicker
    python benchmarks/bench_load.py --breakdown     # and where the time goes
    python benchmarks/bench_load.py --pandas-lines 100000  # pandas on a subset, scaled
    python benchmarks/bench_load.py --messy 200     # one bad line in every 200

``--messy K`` breaks every K-th line, cycling through the kinds the loader quarantines
(cut short, invalid UTF-8, not an object, a wrong type, an unknown event type, a missing
field); the bare read then runs with ``ignore_errors=true`` (it nulls what it cannot
read, silently) and pandas reads only the lines that parse (it stops at the first bad one).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

SIGNALS = [
    "electron-crash", "chromium-error", "click-no-effect-on-clickable-element", "timeout-on-trivial-wait",
    "internal-error-in-mcp-output", "element-not-found", "selector-timeout", "label-path-mismatch",
    "nav-target-404", "aria-label-changed", "assertion-failed-on-passing-step", "unexpected-error-toast",
    "wrong-page-after-action", "network-500-from-app", "form-validation-rejected-valid-input",
]
BUCKETS = {"infra": "report-bug", "stale-script": "regenerate", "product-defect": "share-defect"}
ACTIONS = ["regenerate", "report-bug", "share-email", "share-ticket", "retry", "muggle-feedback", "skip"]
WORDS = ("locator click timeout exceeded waiting for selector element button submit form page "
         "navigation expected received assertion failed network error response status visible "
         "hidden enabled disabled checkout login signup dashboard settings profile").split()


def generate(out_dir: Path, events: int, *, files: int = 4, seed: int = 1) -> list[Path]:
    """Write ``events`` failure events (classified + resolved pairs) into ``files`` files."""
    rng = random.Random(seed)
    excerpts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(45, 70))) for _ in range(2000)]
    steps = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))).capitalize() for _ in range(500)]
    paths = [out_dir / f"failure-events-{i:02d}.jsonl" for i in range(files)]
    handles = [open(p, "w", encoding="utf-8") for p in paths]
    dumps = json.dumps
    try:
        for i in range(0, events, 2):
            fh = handles[(i // 2) % files]
            bucket = rng.choice(list(BUCKETS))
            t = 1788739200 + i * 7
            ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{i % 1000:03d}Z"
            ts2 = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t + rng.randint(5, 300))) + f".{(i * 7) % 1000:03d}Z"
            run, tc, proj = f"run-{i // 2:07d}", f"tc-{rng.randint(1, 4000):05d}", f"proj-{rng.randint(1, 40):02d}"
            sig = rng.sample(SIGNALS, rng.randint(1, 3))
            meta = {"failingStep": rng.choice(steps), "errorExcerpt": rng.choice(excerpts)}
            fh.write(
                f'{{"ts":"{ts}","eventType":"replay-failure-classified","skillName":"muggle-test",'
                f'"aiClassification":"{bucket}","aiSuggestion":"{BUCKETS[bucket]}","runId":"{run}",'
                f'"testCaseId":"{tc}","projectId":"{proj}","signals":{dumps(sig)},"metadata":{dumps(meta)}}}\n'
            )
            if i + 1 < events:
                fh.write(
                    f'{{"ts":"{ts2}","eventType":"replay-failure-resolved","skillName":"muggle-test",'
                    f'"aiClassification":"{bucket}","aiSuggestion":"{BUCKETS[bucket]}",'
                    f'"userAction":"{rng.choice(ACTIONS)}","runId":"{run}","testCaseId":"{tc}","projectId":"{proj}"}}\n'
                )
    finally:
        for h in handles:
            h.close()
    return paths


def _broken(line: bytes, kind: int) -> bytes:
    """One of the bad lines the loader must quarantine, made from a good one."""
    body = line.rstrip(b"\n")
    if kind == 0:
        return body[: len(body) // 2] + b"\n"  # cut short
    if kind == 1:
        return body[:40] + b"\xff\xfe" + body[40:] + b"\n"  # invalid UTF-8
    if kind == 2:
        return b"[" + body + b"]\n"  # not an object
    if kind == 3:
        return body.replace(b'"runId":"', b'"runId":7,"x":"', 1) + b"\n"  # a wrong type
    if kind == 4:
        return body.replace(b'"eventType":"replay-failure-', b'"eventType":"replay-failure-x', 1) + b"\n"
    return body.replace(b'"ts":', b'"tz":', 1) + b"\n"  # a required field missing


def make_messy(paths: list[Path], every: int) -> int:
    """Break every ``every``-th line of the files in place; the number of lines broken."""
    broken = 0
    for p in paths:
        lines = p.read_bytes().splitlines(keepends=True)
        for i in range(every - 1, len(lines), every):
            lines[i] = _broken(lines[i], broken % 6)
            broken += 1
        p.write_bytes(b"".join(lines))
    return broken


DECLARED = {
    "ts": "VARCHAR", "eventType": "VARCHAR", "skillName": "VARCHAR", "aiClassification": "VARCHAR",
    "aiSuggestion": "VARCHAR", "userAction": "VARCHAR", "runId": "VARCHAR", "testCaseId": "VARCHAR",
    "projectId": "VARCHAR", "signals": "VARCHAR[]", "metadata": "JSON",
}


def _bare_child(paths: list[str], db: str, q: mp.Queue, ignore_errors: bool = False) -> None:
    import duckdb

    cols = "{" + ", ".join(f"'{k}': '{v}'" for k, v in DECLARED.items()) + "}"
    files = "[" + ", ".join(f"'{p}'" for p in paths) + "]"
    con = duckdb.connect(db)  # connected (and imports done) before the clock starts, as for failtax
    t, c = time.perf_counter(), time.process_time()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_json({files}, format='newline_delimited', columns={cols}"
                f"{', ignore_errors=true' if ignore_errors else ''})")
    con.close()
    q.put((time.perf_counter() - t, time.process_time() - c))


def _breakdown_child(paths: list[str], q: mp.Queue) -> None:
    """CPU time of the parts of a load, each over the same lines, in the blocks the loader makes."""
    import duckdb

    import failtax.telemetry.load  # noqa: F401  (the module; the package exports a function of that name)
    from failtax.telemetry.files import read_chunks
    from failtax.telemetry.schema import FIELDS

    L = sys.modules["failtax.telemetry.load"]
    files = "[" + ", ".join(f"'{p}'" for p in paths) + "]"
    out = []

    c = time.process_time()
    gather = L._Blocks(chunk_bytes=L.BATCH_BYTES)
    blocks = []
    for p in paths:
        for chunk in read_chunks(p):
            block = gather.add(p, chunk)
            if block is not None:
                blocks.append(block)
    last = gather.finish()
    if last is not None:
        blocks.append(last)
    blocks = [b for b in blocks if b.table is not None]
    out.append(("reading thread: read, cut lines, blocks, line gates, ids", time.process_time() - c))
    c = time.process_time()
    for block in blocks:
        for text in block.table.column("text").chunks:  # (one chunk per row group, as in a load)
            L.line_ids(text)
    out.append(("  of which: line ids and hashes (XXH3-128 of each line)", time.process_time() - c))

    def cols(d: dict) -> str:
        return "{" + ", ".join(f"'{k}': '{v}'" for k, v in d.items()) + "}"

    def connect(db: str) -> duckdb.DuckDBPyConnection:
        for old in Path(db).parent.glob(Path(db).name + "*") if db != ":memory:" else ():
            old.unlink()
        con = duckdb.connect(db)
        L._prepare(con)
        return con

    def cpu(name: str, sql: str, *, db: str = ":memory:", per_block: bool = True) -> None:
        con = connect(db)
        c = time.process_time()
        for block in blocks if per_block else blocks[:1]:
            con.register("_chunk", block.table)
            con.register("_dups", L._line_table([]))
            con.execute(sql).fetchall()
            con.unregister("_chunk")
        if db != ":memory:":
            con.execute("CHECKPOINT")
        out.append((name, time.process_time() - c))
        con.close()

    work = Path(paths[0]).parent
    cpu("bare read_json, columns declared, in memory",
        f"CREATE TABLE a AS SELECT * FROM read_json({files}, format='newline_delimited', columns={cols(DECLARED)})",
        per_block=False)
    cpu("bare read_json, columns declared, into a file",
        f"CREATE TABLE a AS SELECT * FROM read_json({files}, format='newline_delimited', columns={cols(DECLARED)})",
        db=str(work / "breakdown.duckdb"), per_block=False)
    cpu("lines: could any be a duplicate (hash probe)", L._MAYBE_DUPLICATES_SQL)
    fe = json.dumps({k: "JSON" for k in FIELDS if k in DECLARED})
    cpu("lines: parse to 11 JSON fragments", f"SELECT count(json_transform(text, '{fe}')) FROM _chunk")
    cpu("lines: parse to 27 JSON fragments",
        f"SELECT count(json_transform(text, '{json.dumps({k: 'JSON' for k in FIELDS})}')) FROM _chunk")
    cpu("the statement for all formats, in memory", L._INSERTS[False, False])
    cpu("the statement for all formats, into a file", L._INSERTS[False, False], db=str(work / "breakdown.duckdb"))
    cpu("the plain failure-event statement, in memory", L._PLAIN_INSERTS[False])
    cpu("the plain failure-event statement, into a file", L._PLAIN_INSERTS[False], db=str(work / "breakdown.duckdb"))
    for old in work.glob("breakdown.duckdb*"):
        old.unlink()
    q.put(out)


def time_failtax(paths: list[Path], db: Path) -> tuple[float, float, dict]:
    from failtax.telemetry import load

    t, c = time.perf_counter(), time.process_time()
    tel = load([str(p) for p in paths], db=db, progress=False)
    took, cpu = time.perf_counter() - t, time.process_time() - c
    summary = tel.summary.to_dict()
    tel.close()
    return took, cpu, summary


def _failtax_child(paths: list[str], db: str, q: mp.Queue) -> None:
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        page = os.sysconf("SC_PAGE_SIZE")
        while not stop.is_set():
            try:
                with open("/proc/self/statm") as fh:
                    rss = int(fh.read().split()[1]) * page
                peak[0] = max(peak[0], rss)
            except OSError:
                pass
            time.sleep(0.01)

    import failtax.telemetry  # noqa: F401  imports before the clock starts, as for the bare reader
    import duckdb  # noqa: F401

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    took, cpu, summary = time_failtax([Path(p) for p in paths], Path(db))
    stop.set()
    th.join()
    ru = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    q.put((took, cpu, summary, max(peak[0], ru)))


def _an_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def time_pandas(paths: list[Path], limit_lines: int, *, skip_bad: bool = False) -> tuple[float, float, int]:
    import pandas as pd

    sub = paths[0].with_name("pandas-subset.jsonl")
    n = 0
    with open(sub, "w", encoding="utf-8") as out:
        for p in paths:
            with open(p, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if n >= limit_lines:
                        break
                    if skip_bad and not _an_object(line):
                        continue  # (--messy) pandas stops at the first line that does not parse
                    out.write(line)
                    n += 1
    t, c = time.perf_counter(), time.process_time()
    pd.read_json(sub, lines=True)
    took, cpu = time.perf_counter() - t, time.process_time() - c
    sub.unlink()
    return took, cpu, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--pandas-lines", type=int, default=0,
                    help="lines pandas reads, scaled to --events (default 0: all of them; needs ~10x the data in memory)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", help="work directory (default: a temporary one, removed afterwards)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--messy", type=int, default=0, metavar="K",
                    help="break every K-th line (the kinds the loader quarantines, in turn); default 0: none")
    ap.add_argument("--breakdown", action="store_true",
                    help="also print the CPU time of the parts of a load (same lines, same blocks)")
    args = ap.parse_args()
    if args.breakdown and args.messy:
        ap.error("--breakdown times the parts of a clean load (its statements fail on broken lines): "
                 "run it without --messy")

    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="failtax-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        paths = generate(work, args.events, files=args.files, seed=args.seed)
        size = sum(p.stat().st_size for p in paths)
        print(f"generated {args.events:,} events, {size / 1e6:.0f} MB in {len(paths)} files "
              f"({time.perf_counter() - t:.1f} s, seed {args.seed})")
        if args.messy:
            print(f"broke {make_messy(paths, args.messy):,} lines (one in {args.messy})")
        for p in paths:  # warm the page cache so every reader starts equal
            with open(p, "rb") as fh:
                while fh.read(1 << 24):
                    pass

        bare, ours, bare_cpu, ours_cpu, peak, summary = [], [], [], [], 0, {}
        ctx = mp.get_context("spawn")
        for _ in range(args.repeat):
            for name in ("bare.duckdb", "failtax.duckdb"):
                for old in work.glob(name + "*"):
                    old.unlink()
            # each reader in a fresh process, so neither inherits the other's caches or memory
            q: mp.Queue = ctx.Queue()
            proc = ctx.Process(target=_bare_child, args=([str(p) for p in paths], str(work / "bare.duckdb"), q,
                                                              bool(args.messy)))
            proc.start()
            took, cpu = q.get()
            proc.join()
            bare.append(took)
            bare_cpu.append(cpu)
            proc = ctx.Process(target=_failtax_child, args=([str(p) for p in paths], str(work / "failtax.duckdb"), q))
            proc.start()
            took, cpu, summary, rss = q.get()
            proc.join()
            ours.append(took)
            ours_cpu.append(cpu)
            peak = max(peak, rss)
        pd_time, pd_cpu, pd_lines = time_pandas(paths, min(args.pandas_lines or args.events, args.events),
                                                skip_bad=bool(args.messy))
        pd_scaled = pd_time * args.events / pd_lines
        pd_cpu_scaled = pd_cpu * args.events / pd_lines

        b, o = min(bare), min(ours)
        print(f"failtax load         {o:7.2f} s  (best of {args.repeat}: {', '.join(f'{x:.2f}' for x in ours)})"
              f"  -> {summary['events_added']:,} events, {summary['quarantined']} quarantined")
        print(f"bare DuckDB read_json{b:7.2f} s  (best of {args.repeat}: {', '.join(f'{x:.2f}' for x in bare)})")
        if pd_lines == args.events:
            print(f"pandas read_json     {pd_scaled:7.2f} s  (all {pd_lines:,} lines, one run)")
        else:
            print(f"pandas read_json     {pd_scaled:7.2f} s  (measured {pd_time:.2f} s on {pd_lines:,} lines, "
                  f"scaled x{args.events / pd_lines:g}: flatters pandas)")
        print(f"ratio failtax / bare DuckDB : {o / b:.2f}x wall, {min(ours_cpu) / min(bare_cpu):.2f}x CPU time "
              f"({min(ours_cpu):.2f} s vs {min(bare_cpu):.2f} s; target <= 1.5x)")
        print(f"speed-up vs pandas          : {pd_scaled / o:.1f}x wall, {pd_cpu_scaled / min(ours_cpu):.1f}x CPU time "
              f"({pd_cpu_scaled:.2f} s scaled; target >= 5x)")
        print(f"peak memory of failtax load : {peak / 2**20:.0f} MiB (target < 2048 MiB)")
        if args.breakdown:
            q = ctx.Queue()
            proc = ctx.Process(target=_breakdown_child, args=([str(p) for p in paths], q))
            proc.start()
            parts = q.get()
            proc.join()
            print("CPU time of the parts (one run, all threads):")
            for name, took in parts:
                print(f"  {name:58s} {took:6.2f} s")
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
