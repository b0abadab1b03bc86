"""Loaded telemetry as partitioned Parquet: the interchange with Spark and object storage.

:func:`write_parquet` writes the ``events`` table and the ``decisions`` view of a loaded
:class:`~failtax.telemetry.Telemetry` as Hive-partitioned Parquet, one folder per day of
the event time::

    DIR/events/date=2026-09-07/data_0.parquet
    DIR/events/date=__HIVE_DEFAULT_PARTITION__/data_0.parquet   (events without a time)
    DIR/decisions/date=2026-09-07/data_0.parquet                (date of the classified event)
    DIR/<table>/_failtax.json                                    (rows, columns, when)

Each table is written into a hidden temporary folder beside it and swapped into place
with one rename (an atomic exchange on Linux), so a reader sees the old table or the new
one, never half of either; a crash leaves the previous table as it was. JSON columns
(``metadata``, ``scope``) are stored as text, which every Parquet reader understands.

:func:`open_parquet` reads such a folder back as a :class:`~failtax.telemetry.Telemetry`
(DuckDB views over the files): ``decisions`` equals the view of the database it was
written from, row for row, and every analysis function takes it as it takes a database.
Spark reads the same folders with ``spark.read.parquet("DIR/decisions")``.

>>> import tempfile, os
>>> from failtax.telemetry import load
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "e.jsonl")
>>> _ = open(p, "w").write('{"ts":"2026-09-07T08:00:00.000Z","eventType":"replay-failure-classified",'
...     '"skillName":"muggle-test","aiClassification":"stale-script","aiSuggestion":"regenerate",'
...     '"runId":"r1","testCaseId":"t1","signals":["selector_timeout"]}\\n')
>>> out = write_parquet(load(p), os.path.join(d, "pq"))
>>> [(w.table, w.rows, w.partitions) for w in out]
[('events', 1, 1), ('decisions', 1, 1)]
>>> open_parquet(os.path.join(d, "pq")).decisions.pl()["signals"].to_list()
[['selector-timeout']]
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from failtax.errors import TelemetryError
from failtax.telemetry.load import Telemetry
from failtax.telemetry.schema import EVENTS_COLUMNS, QUARANTINE_COLUMNS
from failtax.telemetry.views import DECISIONS_COLUMNS, create_views, refresh_taxonomy_tables

__all__ = ["PARQUET_TABLES", "ParquetTable", "open_parquet", "write_parquet"]

#: Table name → its declared columns (name, SQL type, meaning); partitioned by ``date(ts)``.
PARQUET_TABLES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "events": EVENTS_COLUMNS,
    "decisions": DECISIONS_COLUMNS,
}
MANIFEST = "_failtax.json"
FORMAT_VERSION = 1
PARTITION = "date"


@dataclass(frozen=True)
class ParquetTable:
    """One table written by :func:`write_parquet`: where, how many rows, how many day folders."""

    table: str
    path: Path
    rows: int
    partitions: int
    seconds: float

    @classmethod
    def from_manifest(cls, path: Path) -> ParquetTable:
        """Read the manifest of a written table folder."""
        doc = _read_manifest(path)
        return cls(table=doc["table"], path=path, rows=int(doc["rows"]), partitions=int(doc["partitions"]),
                   seconds=float(doc.get("seconds", 0.0)))

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table, "path": str(self.path), "rows": self.rows, "partitions": self.partitions,
                "seconds": round(self.seconds, 3)}

    def __str__(self) -> str:
        return f"{self.path}: {self.rows:,} rows in {self.partitions} date partition(s)"


# --------------------------------------------------------------------------- writing


def _quote(path: str | os.PathLike[str]) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _select(table: str) -> str:
    """The rows of ``table`` as stored: JSON as text, plus the partition column."""
    cols = []
    for name, sql_type, _ in PARQUET_TABLES[table]:
        cols.append(f'CAST("{name}" AS VARCHAR) AS "{name}"' if sql_type == "JSON" else f'"{name}"')
    return f"SELECT {', '.join(cols)}, CAST(ts AS DATE) AS {PARTITION} FROM {table}"


def write_parquet(
    telemetry: Telemetry,
    out_dir: str | os.PathLike[str],
    *,
    tables: Sequence[str] = ("events", "decisions"),
    compression: str = "zstd",
) -> tuple[ParquetTable, ...]:
    """Write loaded tables as date-partitioned Parquet, each replaced atomically.

    Parameters
    ----------
    telemetry : what :func:`~failtax.telemetry.load` or :func:`~failtax.telemetry.connect` returned.
    out_dir : the folder that receives ``<table>/date=YYYY-MM-DD/*.parquet`` (created).
    tables : which of :data:`PARQUET_TABLES` to write.
    compression : the Parquet codec (``zstd``, ``snappy``, ``gzip`` or ``uncompressed``).

    Returns
    -------
    tuple of ParquetTable, one per table written, in the order asked.

    Raises
    ------
    TelemetryError when a table name is unknown or the folder cannot be written (the
    previous contents then stay as they were).

    Tips: a whole table is rewritten each time (after an incremental load too), so a
    reader never sees a mix of two loads.
    """
    unknown = [t for t in tables if t not in PARQUET_TABLES]
    if unknown:
        raise TelemetryError(f"cannot write {', '.join(map(repr, unknown))} as Parquet (known: {', '.join(PARQUET_TABLES)})")
    root = Path(out_dir).expanduser()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TelemetryError(f"{root}: cannot create the Parquet folder: {exc.strerror}") from None
    return tuple(_write_table(telemetry.con, t, root, compression) for t in tables)


def _write_table(con: duckdb.DuckDBPyConnection, table: str, root: Path, compression: str) -> ParquetTable:
    started = time.perf_counter()
    target = root / table
    tmp = Path(tempfile.mkdtemp(prefix=f".{table}.", suffix=".writing", dir=root))
    try:
        query = _select(table)
        rows, parts = con.execute(f"SELECT count(*), count(DISTINCT {PARTITION}) + max(CASE WHEN {PARTITION} IS NULL "
                                  f"THEN 1 ELSE 0 END) FROM ({query})").fetchone()
        parts = int(parts or 0)
        if rows:
            con.execute(f"COPY ({query}) TO {_quote(tmp / 'data')} "
                        f"(FORMAT parquet, PARTITION_BY ({PARTITION}), COMPRESSION {compression})")
            for entry in (tmp / "data").iterdir():  # the date=... folders, one level up
                entry.rename(tmp / entry.name)
            (tmp / "data").rmdir()
        seconds = time.perf_counter() - started
        manifest = {
            "format": FORMAT_VERSION, "table": table, "rows": int(rows), "partitions": parts,
            "partition_by": PARTITION, "columns": [[n, t] for n, t, _ in PARQUET_TABLES[table]],
            "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": round(seconds, 3),
        }
        with open(tmp / MANIFEST, "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o755)
        _swap_into_place(tmp, target)
    except duckdb.Error as exc:
        raise TelemetryError(f"{target}: cannot write Parquet: {str(exc).splitlines()[0]}") from None
    except OSError as exc:
        raise TelemetryError(f"{target}: cannot write Parquet: {exc}") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return ParquetTable(table=table, path=target, rows=int(rows), partitions=parts, seconds=seconds)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False when unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    at_fdcwd, rename_exchange = -100, 2
    return fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def _swap_into_place(tmp: Path, target: Path) -> None:
    """Put the folder ``tmp`` at ``target``; the old ``target`` (if any) ends up at ``tmp``."""
    if not target.exists():
        try:
            os.rename(tmp, target)
            return
        except OSError:
            if not target.exists():
                raise
    if _exchange(tmp, target):
        return
    # Elsewhere: two renames (a reader may find the folder missing for a moment).
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    old.rmdir()
    os.rename(target, old)
    os.rename(tmp, target)
    os.rename(old, tmp)


# --------------------------------------------------------------------------- reading


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        with open(path / MANIFEST, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        raise TelemetryError(f"{path}: not a table written by `failtax load --parquet` (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:
        raise TelemetryError(f"{path / MANIFEST}: unreadable: {exc}") from None
    if doc.get("format") != FORMAT_VERSION or doc.get("table") not in PARQUET_TABLES:
        raise TelemetryError(f"{path / MANIFEST}: written by another failtax version (format {doc.get('format')!r})")
    return doc


def _view_sql(table: str, path: Path, rows: int) -> str:
    cols = PARQUET_TABLES[table]
    if rows == 0:
        typed = ", ".join(f'CAST(NULL AS {t}) AS "{n}"' for n, t, _ in cols)
        return f"SELECT {typed} WHERE false"
    fixes = [f'CAST("{n}" AS JSON) AS "{n}"' for n, t, _ in cols if t == "JSON"]
    replace = f" REPLACE ({', '.join(fixes)})" if fixes else ""
    names = ", ".join(f'"{n}"' for n, _, _ in cols)
    src = f"read_parquet({_quote(path / '*' / '*.parquet')}, hive_partitioning = true)"
    order = " ORDER BY ts, event_id" if table == "decisions" else ""
    return f"SELECT {names} FROM (SELECT *{replace} FROM {src}){order}"


def open_parquet(path: str | os.PathLike[str]) -> Telemetry:
    """Open a folder written by :func:`write_parquet` (``failtax load --parquet``) as telemetry.

    Parameters
    ----------
    path : the folder holding ``events/`` and/or ``decisions/``.

    Returns
    -------
    Telemetry
        An in-memory DuckDB connection whose ``events`` and ``decisions`` are views over
        the Parquet files (``decisions`` in the database view's order, ``ts`` then
        ``event_id``) and whose ``signals``, ``lifecycle``, ``retry_streaks`` … views are
        built on ``events`` as in a database. Without ``decisions/``, decisions are
        paired from the events; ``quarantine`` and ``files`` are empty.

    Raises
    ------
    TelemetryError when the folder holds neither table.

    >>> open_parquet("/no/such/folder")
    Traceback (most recent call last):
    ...
    failtax.errors.TelemetryError: /no/such/folder: no Parquet telemetry here (write it with `failtax load PATHS --parquet DIR`)
    """
    root = Path(path).expanduser()
    present = {t: root / t for t in PARQUET_TABLES if (root / t / MANIFEST).exists()}
    if not present:
        raise TelemetryError(f"{path}: no Parquet telemetry here (write it with `failtax load PATHS --parquet DIR`)")
    manifests = {t: _read_manifest(p) for t, p in present.items()}
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET TimeZone = 'UTC'")
        qcols = ", ".join(f'"{c}" {t}' for c, t, _ in QUARANTINE_COLUMNS)
        con.execute(f"CREATE TABLE quarantine ({qcols})")
        con.execute('CREATE TABLE _files (path VARCHAR, size BIGINT, mtime_ns BIGINT, head_hash VARCHAR, '
                    '"offset" BIGINT, lines BIGINT, gzip BOOLEAN, loaded_at TIMESTAMP, head_len INTEGER)')
        events_rows = manifests["events"]["rows"] if "events" in present else 0
        con.execute(f"CREATE VIEW events AS {_view_sql('events', present.get('events', root), events_rows)}")
        refresh_taxonomy_tables(con)
        create_views(con)
        if "decisions" in present:
            sql = _view_sql("decisions", present["decisions"], manifests["decisions"]["rows"])
            con.execute(f"CREATE OR REPLACE VIEW decisions AS {sql}")
    except duckdb.Error as exc:
        con.close()
        raise TelemetryError(f"{root}: cannot read the Parquet files: {str(exc).splitlines()[0]}") from None
    return Telemetry(con=con, db=None, summary=None)
