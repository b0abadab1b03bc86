"""Reading failtax Parquet on Spark, and a local session for trying things out.

>>> from failtax.spark.io import decisions_path
>>> decisions_path("out")
'out/decisions'
"""

from __future__ import annotations

import os
import sys
from typing import Any

from failtax.errors import InputError

__all__ = [
    "QUICK_START_JAVA_OPTIONS",
    "decisions_path",
    "events_path",
    "read_decisions",
    "read_events",
    "start_local_session",
]


def decisions_path(root: str) -> str:
    """Where ``failtax load --parquet ROOT`` puts the decisions (works for ``s3://…`` roots too)."""
    return root.rstrip("/") + "/decisions"


def events_path(root: str) -> str:
    """Where ``failtax load --parquet ROOT`` puts the events."""
    return root.rstrip("/") + "/events"


def read_decisions(spark: Any, root: str) -> Any:
    """The ``decisions`` written by ``failtax load --parquet ROOT``, as a Spark DataFrame.

    Parameters
    ----------
    spark : a ``SparkSession``.
    root : the folder given to ``--parquet`` (local path or any URI Spark reads).

    Returns
    -------
    pyspark.sql.DataFrame with the decisions columns and the ``date`` partition column
    (filters on it read only the days they need).
    """
    return _read(spark, decisions_path(root))


def read_events(spark: Any, root: str) -> Any:
    """The ``events`` written by ``failtax load --parquet ROOT``, as a Spark DataFrame."""
    return _read(spark, events_path(root))


def _read(spark: Any, path: str) -> Any:
    if "://" not in path and not os.path.isdir(path):
        raise InputError(f"{path}: no such folder (write it with `failtax load PATHS --parquet DIR`)")
    return spark.read.option("basePath", path).parquet(path)


#: JVM options that halve a local session's start-up (C1 compiler only, serial GC): for
#: tests and short jobs, not for long ones.
QUICK_START_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def start_local_session(*, cores: int = 2, shuffle_partitions: int = 4, app_name: str = "failtax",
                        ui: bool = False, memory: str = "2g", java_options: str | None = None) -> Any:
    """A local-mode ``SparkSession`` set up the way failtax's tests and benchmark use it.

    UTC session time zone (decisions times are naive UTC), few shuffle partitions (the
    aggregates are small), no web UI, the Python workers kept between tasks so each
    loads a rule table once, and those workers running this interpreter (``PYSPARK_PYTHON``
    is set to it unless already set), so they import the same failtax.

    Parameters
    ----------
    cores : ``local[cores]``.
    shuffle_partitions : ``spark.sql.shuffle.partitions``.
    app_name : the application name.
    ui : start the Spark web UI.
    memory : driver memory (local mode runs the executors inside the driver).
    java_options : extra JVM options of the driver, e.g. :data:`QUICK_START_JAVA_OPTIONS`.
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(f"local[{int(cores)}]")
        .appName(app_name)
        .config("spark.ui.enabled", "true" if ui else "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(int(shuffle_partitions)))
        .config("spark.default.parallelism", str(int(cores)))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.python.worker.reuse", "true")
        .config("spark.driver.memory", memory)
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
    )
    if java_options:
        builder = builder.config("spark.driver.extraJavaOptions", java_options)
    return builder.getOrCreate()
