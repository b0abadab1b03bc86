"""Spark local-mode throughput of Arrow classification beside the local batch path.

Generates the same realistic agent-CLI records as ``bench_classify.py`` (seeded; ~1.5 KB
stderr tails, exit codes, signals, result frames), writes them once as Parquet files,
and classifies the same records:

- locally: pyarrow reads the Parquet, ``failtax.batch.classify_batch`` classifies the
  Arrow table (every core, and one process);
- on Spark in local mode (``local[cores]``): ``spark.read.parquet`` → ``classify_spark``
  (``mapInArrow``; the table parsed once per Python worker) → the ``noop`` sink, which
  runs everything and keeps nothing. A first, untimed run over a slice starts the
  Python workers, as a long-running cluster would have them.

It prints records/s and MB/s of text for each, their ratio, Spark's session start-up
time apart, and checks that both paths give the same bucket for every record (a
per-bucket count and a hash of the (id, bucket, rule) rows).

Run::

    python benchmarks/bench_spark.py                       # 500,000 records, local[2]
    python benchmarks/bench_spark.py --records 100000 --cores 2 --batch-rows 20000
    python benchmarks/bench_spark.py --pandas              # mapInPandas as well
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_classify import build_frame  # noqa: E402  (the same generated records)


def _rate(n: int, seconds: float, nbytes: float) -> str:
    return f"{n / seconds:12,.0f} {nbytes / seconds / 1e6:8.1f}"


def write_parquet(df, folder: Path, files: int) -> None:  # noqa: ANN001
    """The records as ``files`` Parquet files (Spark reads one split per file or more)."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True)
    table = df.to_arrow()
    step = -(-table.num_rows // files)
    for i in range(files):
        pq.write_table(table.slice(i * step, step), folder / f"part-{i:03d}.parquet", compression="zstd")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=500_000, help="records to classify (default 500,000)")
    ap.add_argument("--cores", type=int, default=os.cpu_count() or 2, help="local[N] and the local path's processes")
    ap.add_argument("--taxonomy", default="agent-run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--files", type=int, default=8, help="Parquet files the records are split into")
    ap.add_argument("--batch-rows", type=int, default=10_000,
                    help="spark.sql.execution.arrow.maxRecordsPerBatch (rows per Arrow batch)")
    ap.add_argument("--pandas", action="store_true", help="also time mapInPandas")
    args = ap.parse_args(argv)

    import polars as pl
    import pyarrow.parquet as pq

    from failtax.batch import classify_batch
    from failtax.spark import classify_spark, start_local_session
    from failtax.table import load_table

    table = load_table(args.taxonomy)
    tmp = Path(tempfile.mkdtemp(prefix="failtax-bench-spark-"))
    try:
        print(f"generating {args.records:,} records (seed {args.seed}) …", flush=True)
        df, _sample, nbytes = build_frame(args.records, args.seed)
        write_parquet(df, tmp / "evidence", args.files)
        del df
        print(f"  {nbytes / 1e6:,.0f} MB of text in {args.files} Parquet files", flush=True)

        # ---- local batch path on the same records (Arrow table read from the same files)
        data = pq.read_table(tmp / "evidence")
        classify_batch(data.slice(0, 1000), table=table, n_jobs=1)  # compile the table once
        local = {}
        for jobs in (args.cores, 1):
            t = time.perf_counter()
            out = classify_batch(data, table=table, n_jobs=jobs)
            local[jobs] = time.perf_counter() - t
        want = out.select("id", "bucket", "rule")
        del data, out

        # ---- Spark local mode
        t = time.perf_counter()
        spark = start_local_session(cores=args.cores, shuffle_partitions=args.cores, app_name="failtax-bench")
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(args.batch_rows))
        spark.sparkContext.setLogLevel("ERROR")
        t_start = time.perf_counter() - t
        evidence = spark.read.parquet(str(tmp / "evidence"))
        warm = classify_spark(evidence.limit(20_000), table=table)
        warm.write.format("noop").mode("overwrite").save()  # start the Python workers
        runs = {"mapInArrow": False, **({"mapInPandas": True} if args.pandas else {})}
        timings = {}
        for name, use_pandas in runs.items():
            t = time.perf_counter()
            classify_spark(evidence, table=table, pandas=use_pandas).write.format("noop").mode("overwrite").save()
            timings[name] = time.perf_counter() - t
        got = pl.from_arrow(classify_spark(evidence, table=table).select("id", "bucket", "rule").toArrow())
        spark.stop()

        same = got.height == want.height and got.sort("id").equals(want.sort("id"))
        print()
        print(f"{args.records:,} records, {args.taxonomy} table, {args.cores} cores "
              f"(Spark start-up: {t_start:.1f} s, not counted)")
        print(f"{'':42s} {'records/s':>12s} {'MB/s':>8s} {'vs local':>9s}")
        best = local[args.cores]
        print(f"{'local classify_batch, ' + str(args.cores) + ' processes':42s} {_rate(args.records, best, nbytes)} {1:8.2f}×")
        print(f"{'local classify_batch, 1 process':42s} {_rate(args.records, local[1], nbytes)} {best / local[1]:8.2f}×")
        for name, seconds in timings.items():
            label = f"Spark local[{args.cores}] {name} (batches of {args.batch_rows:,})"
            print(f"{label:42s} {_rate(args.records, seconds, nbytes)} {best / seconds:8.2f}×")
        counts = got["bucket"].value_counts().sort("bucket").rows()
        print(f"same (id, bucket, rule) for every record on both paths: {'yes' if same else 'NO'}; buckets: {counts}")
        if not same:
            sys.exit(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
