"""A failtax job for ``spark-submit``: agreement, misleading signals, a tuned table, classification.

Reads the Parquet that ``failtax load PATHS --parquet ROOT`` wrote (local path or any
URI Spark reads, e.g. ``s3a://bucket/failtax``) and, for one taxonomy:

1. prints the agreement overall and per week (counts, rates, Wilson intervals) and
   writes the whole report as JSON;
2. prints the signals that mislead people most;
3. tunes the rule table from counts per signal set and writes it as TOML
   (``failtax classify --table`` loads it);
4. with ``--evidence``, classifies a Parquet dataset of evidence (``text``,
   ``exit_code``, ``signal``, ``signals`` …) with the tuned table and writes the result.

Run (a local session, or any cluster where failtax is installed on the executors)::

    spark-submit --master 'local[2]' examples/spark_job.py --parquet lake/ --taxonomy replay --out out/
"""

from __future__ import annotations

import argparse
import json
import os

from pyspark.sql import SparkSession

from failtax.spark import classify_spark, find_misleading_signals, measure_agreement, read_decisions, tune_table
from failtax.tune import export_table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parquet", required=True, help="the ROOT given to `failtax load --parquet ROOT`")
    ap.add_argument("--taxonomy", default="replay", choices=["replay", "regen", "preexec"])
    ap.add_argument("--since", help="ignore decisions classified before this ISO date")
    ap.add_argument("--out", default="failtax-out", help="local folder for the report and the tuned table")
    ap.add_argument("--evidence", help="a Parquet dataset of evidence to classify with the tuned table")
    ap.add_argument("--classified", help="where to write the classified evidence (Parquet)")
    args = ap.parse_args()

    spark = (SparkSession.builder.appName(f"failtax-{args.taxonomy}")
             .config("spark.sql.session.timeZone", "UTC")  # decisions times are naive UTC
             .getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    os.makedirs(args.out, exist_ok=True)
    decisions = read_decisions(spark, args.parquet).cache()

    report = measure_agreement(decisions, taxonomy=args.taxonomy, since=args.since)
    print(report.overall.select("n_events", "n_rated", "agreement_rate", "agreement_low", "agreement_high"))
    print(report.slices["week"].select("week", "n_rated", "agreement_rate", "low_count"))
    with open(os.path.join(args.out, f"agreement-{args.taxonomy}.json"), "w", encoding="utf-8") as fh:
        json.dump(report.to_dict(), fh, indent=1)

    signals = find_misleading_signals(decisions, taxonomy=args.taxonomy, since=args.since)
    print(signals.signals.select("rank", "signal", "misleading", "routed_bucket", "override_to", "match_rate",
                                 "p_value").head(10))

    tuner = tune_table(decisions, taxonomy=args.taxonomy, cv=None)
    print(tuner.summary())
    exported = export_table(tuner, os.path.join(args.out, f"{args.taxonomy}.toml"))
    print(f"wrote {exported.path} ({exported.table.version})")

    if args.evidence:
        evidence = spark.read.parquet(args.evidence)
        keep = [c for c in ("event_id", "run_id") if c in evidence.columns]
        classified = classify_spark(evidence, table=exported.table, keep=keep)
        target = args.classified or os.path.join(args.out, "classified")
        classified.write.mode("overwrite").parquet(target)
        classified.groupBy("bucket").count().orderBy("bucket").show()
    spark.stop()


if __name__ == "__main__":
    main()
