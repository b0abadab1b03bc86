"""failtax on Spark: classify, measure agreement and tune where the telemetry already is.

Install with ``pip install failtax[spark]`` (PySpark; a Java 17+ runtime on the machine).
Nothing here imports PySpark until a function that needs a ``SparkSession`` runs, and the
record-batch functions the executors run need only pyarrow and polars.

- :func:`classify_spark` / :class:`ArrowClassifier`: batch classification on Arrow
  record batches (``mapInArrow`` / ``mapInPandas``); the table is parsed once per worker
  process; the columns are those of :func:`failtax.batch.classify_batch`.
- :func:`measure_agreement`, :func:`find_misleading_signals`: the analysis's agreement and
  per-signal statistics as Spark aggregations, the same figures as the local functions.
- :func:`tune_table` (:func:`count_signal_sets` + :func:`fit_counts`): the table tuner
  fed from counts per signal set, never from raw events.
- :func:`read_decisions`, :func:`read_events`: the Parquet ``failtax load --parquet`` writes.

>>> from failtax.spark import ArrowClassifier, measure_agreement, tune_table
"""

from failtax.spark.classify import ArrowClassifier, classify_arrow, classify_spark, output_schema, table_from_text
from failtax.spark.io import read_decisions, read_events, start_local_session
from failtax.spark.stats import find_misleading_signals, label_scores_from_counts, measure_agreement
from failtax.spark.tune import count_signal_sets, fit_counts, tune_table

__all__ = [
    "ArrowClassifier",
    "classify_arrow",
    "classify_spark",
    "count_signal_sets",
    "find_misleading_signals",
    "fit_counts",
    "label_scores_from_counts",
    "measure_agreement",
    "output_schema",
    "read_decisions",
    "read_events",
    "start_local_session",
    "table_from_text",
    "tune_table",
]
