"""Load failure telemetry into DuckDB without losing a good row or hiding a bad one.

:func:`load` reads files, globs, directories and compressed files (gzip, bzip2, xz,
zstd); tells the four line formats apart per line; keeps every good line as a row of
``events`` (declared column types, all formats in one schema with a ``source`` column);
puts every bad line into ``quarantine`` with its file, line number, reason and raw
text; drops exact duplicate lines (found by a 64-bit hash, confirmed by the text or the
line's whole 128-bit XXH3); and builds the views (``signals``, ``decisions``,
``lifecycle``, ``retry_streaks``, ``agent_failures`` …, see :mod:`failtax.telemetry.views`).

Records that are not one per line are read too: several objects on one line, objects
beside NUL bytes or record separators, an array of objects on one line, an object and a
comma (an array streamed one element per line), and a JSON value written over several
lines (a pretty-printed object, or a pretty-printed array of them), each object with the
number of the line it begins on. The lines of a value over lines that is not objects or
does not parse are quarantined each with what is wrong with the value; when the file ends
inside one (a writer still on it), the next load reads the file again from its first line.

With a database file, loading is incremental and idempotent: each file is remembered
by path, size, modification time, a hash of its first KB and the byte offset after its
last complete line. Loading again adds nothing; a file that grew adds only its new
lines; a file that was replaced is reloaded. A load is one transaction (a new database
is built in a temporary file and renamed into place), so a crash leaves the previous
state; concurrent loads of one database wait for each other (up to ``lock_timeout``)
and then fail with a clear message.

How the lines get in fast: a reading thread cuts each file into numbered lines with
numpy (no Python loop per line), gathers them into blocks of whole DuckDB row groups
(Arrow strings, one record batch per row group, so DuckDB writes each straight to the
file as a finished row group), marks, with one hyperscan pass over the block, the
lines that could hold a secret and those where a string key could hold something else,
and hashes each line (its id and duplicate hash). Meanwhile the main thread has DuckDB
check and normalise the previous block with one SQL statement (:mod:`failtax.telemetry.validate`).
Only the few bad lines come back to Python, to be described and stored. Outside a
transaction a block is first offered to a cheaper statement that takes only plain
failure events (what the emitter writes) and fails on any other line; the block then
goes through the statement for all formats, which would have inserted the same rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from failtax.errors import TelemetryError, os_errors_named
from failtax.redact import redact
from failtax.telemetry.files import (
    DEFAULT_CHUNK_BYTES as READ_BYTES,
    NUL_RUNS_CAUSE,
    Chunk,
    FileIdentity,
    count_files,
    find_files,
    is_compressed,
    numpy_array,
    prefetch,
    read_chunks,
    show_nul_runs,
    string_array,
    tail_digest,
    tail_matches,
)
from failtax.telemetry.schema import (
    EVENTS_COLUMNS,
    EVENTS_TABLE,
    FIELDS,
    FORMATS,
    PLAIN_EVENT_COLUMNS,
    PLAIN_EVENTS_TABLE,
    QUARANTINE_COLUMNS,
    SOURCES,
    events_view_sql,
)
from failtax.telemetry.validate import (
    UNESCAPED_QUOTE,
    build_insert_sql,
    build_plain_insert_sql,
    build_problem_sql,
    register_masking,
    line_gates,
    line_ids,
)
from failtax.telemetry.views import IS_CLASSIFICATION, create_views, refresh_taxonomy_tables, views_fingerprint

try:
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX
    fcntl = None  # type: ignore[assignment]

__all__ = ["FileReport", "LoadSummary", "Telemetry", "connect", "load"]

#: "3": ``events`` is a view over two tables (see failtax.telemetry.schema.EVENTS_TABLE);
#: "2": event ids and line hashes are XXH3-128 halves (MD5 and DuckDB's hash() in "1").
SCHEMA_VERSION = "3"
#: Schemas whose tables this failtax reads as its own (only the ids were made differently).
READABLE_SCHEMAS = frozenset({"1", "2", "3"})
#: Schemas a load may add to: a "2" database's ``events`` table becomes the view's first table.
EXTENDABLE_SCHEMAS = frozenset({"2", "3"})
#: Bytes of lines gathered per statement: two row groups of typical failure events,
#: one per DuckDB thread on a small machine; planning is negligible at this size.
BATCH_BYTES = 160 << 20
#: Lines per DuckDB row group (its default): blocks are handed over in whole row groups.
ROW_GROUP_ROWS = 122_880

#: How the quarantine row of a file that could not be opened or read begins.
UNOPENED = "cannot read the file"

_COLS = "file, line_no, h, eid, text, maybe_secret, odd"
_CHUNK = f"(SELECT {_COLS} FROM _chunk)"
#: (guarded, dedupe) -> the statement that checks and inserts a block.
_INSERTS = {
    (g, d): build_insert_sql(_CHUNK, dedupe=d, guarded=g, gate="maybe_secret") for g in (False, True) for d in (False, True)
}
#: dedupe -> the cheaper statement for a block of plain failure events only (fails otherwise).
_PLAIN_INSERTS = {d: build_plain_insert_sql(_CHUNK, dedupe=d, gate="maybe_secret", odd="odd") for d in (False, True)}
#: Try the plain failure-event statement first (outside a transaction).
PLAIN_FIRST = True
#: The most blocks in a row that go the careful way, without trying the plain statement,
#: after it kept failing (see _Batch._plain_due).
PLAIN_WAIT_MAX = 15
# The lines of the block the statement did not insert: only those are checked again to say
# what is wrong with them. (An event with the line's file, number and hash is the line, or
# one byte-identical to it loaded before: either way not a bad line. ``INSERT … RETURNING``
# would say the same but makes the insert take twice as long.)
_LEFT_OUT = ("NOT EXISTS (SELECT 1 FROM events e "
             "WHERE e.line_hash = _chunk.h AND e.line = _chunk.line_no AND e.file = _chunk.file)")
#: guarded -> the statement that says what is wrong with the block's lines left out.
_PROBLEMS = {g: build_problem_sql(f"(SELECT {_COLS} FROM _chunk WHERE {_LEFT_OUT})", guarded=g) for g in (False, True)}
#: The same for a block of lines that are not JSON (a few: each is looked at).
_BROKEN_PROBLEMS = build_problem_sql(_CHUNK)
# Cheap (hashes only): could any line of the block be a duplicate? The block's hashes are
# the join's build side, so the cost does not grow with the size of ``events``.
_MAYBE_DUPLICATES_SQL = (
    "SELECT (SELECT count(*) - count(DISTINCT (h, eid)) FROM _chunk) "
    "+ (SELECT count(*) FROM events WHERE line_hash IN (SELECT h FROM _chunk))"
)


# Exact duplicates: the 64-bit line hash is only a prefilter. Lines with equal hashes are
# compared within the block by their text, and against earlier events by the other 64
# bits of the line's XXH3-128, which each event keeps as its id (the earlier line's file
# may be gone: log rotation compresses and deletes files).
_DUPS_IN_BLOCK_SQL = (
    "SELECT CAST(file AS VARCHAR) AS file, line_no FROM (SELECT file, line_no, row_number() OVER "
    "(PARTITION BY h, text ORDER BY file, line_no) AS rn FROM _chunk) WHERE rn > 1"
)
_DUPS_OF_EVENTS_SQL = (
    "SELECT DISTINCT CAST(c.file AS VARCHAR) AS file, c.line_no FROM _chunk c "
    "JOIN events e ON e.line_hash = c.h AND e.event_id = c.eid"
)


def _raw_for_storage(text: str) -> str:
    """The one place raw line text passes on its way into the database: secrets masked."""
    return redact(text)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class FileReport:
    """What one load did with one file.

    ``status``: ``new``, ``grown`` (only new lines read), ``replaced`` (content
    changed; reloaded), ``unchanged`` (skipped), or ``unreadable`` (could not be opened
    or read: quarantined as such at line 1, tried again by the next load).
    """

    path: str
    status: str
    lines_read: int = 0
    quarantined: int = 0
    skipped_blank: int = 0


@dataclass(frozen=True)
class LoadSummary:
    """The result of one :func:`load`: per-file reports and totals."""

    files: tuple[FileReport, ...]
    events_by_source: Mapping[str, int]
    quarantined_by_reason: Mapping[str, int]
    duplicates: int
    seconds: float
    db: str | None
    totals: Mapping[str, int] = field(default_factory=dict)
    #: rows taken out because their file was replaced (rewritten, rotated) or had its
    #: unfinished last line completed; their lines, where still there, are read again
    events_removed: int = 0
    #: files of the directories given that were not read: their names are not telemetry
    #: names (``events.json``, ``notes.txt``); naming one loads it
    left_out: tuple[str, ...] = ()

    @property
    def events_added(self) -> int:
        """How many more events the database holds than before (negative if fewer)."""
        return sum(self.events_by_source.values())

    @property
    def quarantined(self) -> int:
        return sum(self.quarantined_by_reason.values())

    @property
    def lines_read(self) -> int:
        return sum(f.lines_read for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (for ``failtax load --json``)."""
        return {
            "db": self.db,
            "seconds": round(self.seconds, 3),
            "files": [f.__dict__ for f in self.files],
            "lines_read": self.lines_read,
            "events_added": self.events_added,
            "events_removed": self.events_removed,
            "events_by_source": dict(self.events_by_source),
            "duplicates": self.duplicates,
            "quarantined": self.quarantined,
            "quarantined_by_reason": dict(self.quarantined_by_reason),
            "totals": dict(self.totals),
            "left_out": list(self.left_out),
        }

    def __str__(self) -> str:
        status = Counter(f.status for f in self.files)
        parts = [f"{status[s]} {s}" for s in ("new", "grown", "replaced", "unchanged", "unreadable") if status[s]]
        lines = [
            f"files: {len(self.files)} ({', '.join(parts) or 'none'}); "
            f"{self.lines_read:,} lines read in {self.seconds:.2f} s"
        ]
        by_src = " · ".join(f"{s} {self.events_by_source.get(s, 0):,}" for s in SOURCES if self.events_by_source.get(s))
        added = f"events added: {self.events_added:,}" + (f" ({by_src})" if by_src else "")
        if self.events_removed:
            added += (f" = {self.events_added + self.events_removed:,} rows written - "
                      f"{self.events_removed:,} old rows of rewritten files taken out")
        lines.append(added)
        lines.append(f"duplicates skipped: {self.duplicates:,}")
        if self.quarantined:
            reasons = ", ".join(f"{r} {n:,}" for r, n in sorted(self.quarantined_by_reason.items(), key=lambda x: (-x[1], x[0])))
            lines.append(f"quarantined: {self.quarantined:,} lines ({reasons})")
        else:
            lines.append("quarantined: 0 lines")
        if self.left_out:
            lines.append(f"left out, in the directories given: {count_files(self.left_out)}, not named as "
                         "telemetry; name a file to load it")
        if self.totals:
            lines.append("database now: " + " · ".join(f"{k} {v:,}" for k, v in self.totals.items())
                         + (f"  [{self.db}]" if self.db else "  [in memory]"))
        return "\n".join(lines)


@dataclass(frozen=True)
class Telemetry:
    """Loaded telemetry: a DuckDB connection and the relations over it.

    Every property returns a :class:`duckdb.DuckDBPyRelation` (``.pl()`` for polars,
    ``.df()`` for pandas, ``.arrow()`` for an Arrow reader). Build one with :func:`load` or
    :func:`connect`; close it with :meth:`close` or a ``with`` block.
    """

    con: duckdb.DuckDBPyConnection
    db: str | None = None
    summary: LoadSummary | None = None

    @classmethod
    def open(cls, db: str | os.PathLike[str], *, read_only: bool = True) -> Telemetry:
        """Open a database built by :func:`load` (read-only by default)."""
        return connect(db, read_only=read_only)

    def table(self, name: str) -> duckdb.DuckDBPyRelation:
        """Any table or view by name (``events``, ``decisions`` …)."""
        return self.con.table(name)

    def sql(self, query: str, params: Any = None) -> duckdb.DuckDBPyRelation:
        """Run SQL against the loaded tables and views."""
        return self.con.sql(query, params=params) if params is not None else self.con.sql(query)

    @property
    def events(self) -> duckdb.DuckDBPyRelation:
        return self.con.table("events")

    @property
    def quarantine(self) -> duckdb.DuckDBPyRelation:
        return self.con.table("quarantine")

    @property
    def signals(self) -> duckdb.DuckDBPyRelation:
        return self.con.table("signals")

    @property
    def decisions(self) -> duckdb.DuckDBPyRelation:
        return self.con.table("decisions")

    @property
    def lifecycle(self) -> duckdb.DuckDBPyRelation:
        return self.con.table("lifecycle")

    @property
    def retry_streaks(self) -> duckdb.DuckDBPyRelation:
        return self.con.table("retry_streaks")

    @property
    def agent_failures(self) -> duckdb.DuckDBPyRelation:
        return self.con.table("agent_failures")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Telemetry:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --------------------------------------------------------------------------- public API


def load(
    paths_or_globs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    db: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    lock_timeout: float = 60.0,
    chunk_bytes: int = BATCH_BYTES,
) -> Telemetry:
    """Load telemetry files into DuckDB and return the tables and views.

    Parameters
    ----------
    paths_or_globs : files, glob patterns (``**`` allowed), or directories (searched
        for ``*.jsonl``, ``*.ndjson``, ``*.log``, their ``.gz``/``.bz2``/``.xz``/``.zst`` and rotated forms such as
        ``*.jsonl.1`` or ``*.jsonl-20260907.gz``); one or a list.
    db : a database file to create or extend incrementally; ``None`` loads into memory.
    progress : show a progress bar on stderr; default: only when stderr is a terminal.
    lock_timeout : seconds to wait for another load of the same database to finish.
    chunk_bytes : how many bytes of lines are gathered for one SQL statement; a full
        block is cut after a whole number of row groups (122,880 lines), the rest goes
        with the next one. Memory use grows with it (about 1.2 GB at the default for
        1,000,000 failure events); files are read in pieces of at most 8 MB.

    Returns
    -------
    Telemetry
        The open connection with ``events``, ``quarantine``, ``signals``, ``decisions``,
        ``lifecycle``, ``retry_streaks``, ``agent_failures`` …; ``.summary`` says what
        this load did.

    Raises
    ------
    TelemetryError
        when an input matches no file, a file cannot be opened, the database is busy
        beyond ``lock_timeout``, or it was built by an incompatible version. Bad lines
        never raise: they are quarantined.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "e.jsonl")
    >>> _ = open(p, "w").write('{"ts":"2026-09-07T08:00:00.000Z","eventType":"replay-failure-classified",'
    ...     '"skillName":"muggle-test","aiClassification":"stale-script","aiSuggestion":"regenerate",'
    ...     '"runId":"r1","testCaseId":"t1","signals":["selector_timeout"]}\\n{"ts": broken\\n')
    >>> tel = load(p)
    >>> tel.decisions.pl()["signals"].to_list()
    [['selector-timeout']]
    >>> tel.quarantine.pl()[["line", "reason"]].rows()
    [(2, 'invalid-json')]
    """
    started = time.perf_counter()
    files, passed_over = find_files(paths_or_globs)
    left_out = tuple(str(p) for p in passed_over)
    if not files:
        raise TelemetryError("no telemetry given: pass at least one file, glob or directory")
    if progress is None:
        progress = sys.stderr.isatty()
    if db is None:
        con = duckdb.connect(":memory:")
        _prepare(con)
        summary = _ingest(con, files, progress=progress, chunk_bytes=chunk_bytes, started=started, db=None,
                          autocommit=True)
        return Telemetry(con=con, db=None, summary=replace(summary, left_out=left_out))

    target = Path(db).expanduser().resolve()
    with os_errors_named(db):  # the database asked for, not its folder
        target.parent.mkdir(parents=True, exist_ok=True)
    # databases, their write-ahead logs and lock files may sit among the logs: not worth a word
    left_out = tuple(p for p in left_out if not p.endswith((".duckdb", ".wal", ".lock")) and not (
        Path(p).parent == target.parent and Path(p).name.startswith(target.name)))
    with _LoadLock(target, timeout=lock_timeout):
        # An empty file (made by mktemp or touch for the database to go in) is a new database.
        if not target.exists() or target.stat().st_size == 0:
            fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".building", dir=target.parent)
            os.close(fd)
            os.unlink(tmp_name)  # DuckDB must create the file itself
            tmp = Path(tmp_name)
            try:
                con = duckdb.connect(str(tmp))
                try:
                    _prepare(con)
                    # no transaction needed: the file becomes the database only when complete
                    summary = _ingest(con, files, progress=progress, chunk_bytes=chunk_bytes, started=started,
                                      db=str(target), autocommit=True)
                    con.execute("CHECKPOINT")
                finally:
                    con.close()
                os.replace(tmp, target)
            finally:
                for leftover in (tmp, Path(str(tmp) + ".wal")):
                    if leftover.exists():
                        leftover.unlink()
            con = _connect_file(target, read_only=False, timeout=lock_timeout)
            _session(con)
            return Telemetry(con=con, db=str(target), summary=replace(summary, left_out=left_out))
        con = _connect_file(target, read_only=False, timeout=lock_timeout)
        try:
            _session(con)
            _check_compatible(con, target, extending=True)
            con.execute("BEGIN TRANSACTION")
            try:
                _prepare(con)
                summary = _ingest(con, files, progress=progress, chunk_bytes=chunk_bytes, started=started, db=str(target))
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        except BaseException:
            con.close()
            raise
        return Telemetry(con=con, db=str(target), summary=replace(summary, left_out=left_out))


def connect(db: str | os.PathLike[str], *, read_only: bool = True, timeout: float = 10.0) -> Telemetry:
    """Open a database that :func:`load` built, without loading anything.

    >>> connect("/no/such/file.duckdb")
    Traceback (most recent call last):
    ...
    failtax.errors.TelemetryError: /no/such/file.duckdb: no such telemetry database (build one with `failtax load PATHS --db FILE`)
    """
    target = Path(db).expanduser()
    if not target.exists():
        raise TelemetryError(f"{db}: no such telemetry database (build one with `failtax load PATHS --db FILE`)")
    con = _connect_file(target.resolve(), read_only=read_only, timeout=timeout)
    _session(con)
    _check_compatible(con, target, extending=not read_only)
    return Telemetry(con=con, db=str(target.resolve()), summary=None)


# --------------------------------------------------------------------------- database


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple]:
    return con.execute(sql).fetchall()


def _scalar(con: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> Any:
    """The single value of a query (read to the end, so the connection is free again)."""
    rows = con.execute(sql, params).fetchall() if params is not None else con.execute(sql).fetchall()
    return rows[0][0]


def _delete_events(con: duckdb.DuckDBPyConnection, where: str, params: list) -> int:
    """Delete the events ``where`` says (a WHERE clause) from both tables: how many."""
    return sum(con.execute(f"DELETE FROM {table} {where}", params).fetchone()[0]
               for table in (EVENTS_TABLE, PLAIN_EVENTS_TABLE))


def _create_table(con: duckdb.DuckDBPyConnection, name: str, columns: tuple[tuple[str, str, str], ...]) -> None:
    cols = ",\n  ".join(f'"{c}" {t}' for c, t, _ in columns)
    con.execute(f"CREATE TABLE IF NOT EXISTS {name} (\n  {cols}\n)")


def _session(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("SET TimeZone = 'UTC'")


def _prepare(con: duckdb.DuckDBPyConnection) -> None:
    _session(con)
    register_masking(con)
    kind = con.execute("SELECT table_type FROM information_schema.tables WHERE table_schema = current_schema() "
                       "AND table_name = 'events'").fetchall()
    if kind and kind[0][0] == "BASE TABLE":  # schema "2": its rows, all formats, in one table
        con.execute(f"ALTER TABLE events RENAME TO {EVENTS_TABLE}")
    _create_table(con, EVENTS_TABLE, EVENTS_COLUMNS)
    _create_table(con, PLAIN_EVENTS_TABLE, tuple(c for c in EVENTS_COLUMNS if c[0] in PLAIN_EVENT_COLUMNS))
    con.execute(events_view_sql())
    _create_table(con, "quarantine", QUARANTINE_COLUMNS)
    con.execute(
        'CREATE TABLE IF NOT EXISTS _files (path VARCHAR, size BIGINT, mtime_ns BIGINT, head_hash VARCHAR, '
        '"offset" BIGINT, lines BIGINT, gzip BOOLEAN, loaded_at TIMESTAMP, head_len INTEGER)'
    )
    # SHA-256 and length of the bytes before "offset" (plain files), added after the table was;
    # a database from before has NULL there and its grown files are not checked.
    con.execute("ALTER TABLE _files ADD COLUMN IF NOT EXISTS tail_hash VARCHAR")
    con.execute("ALTER TABLE _files ADD COLUMN IF NOT EXISTS tail_len INTEGER")
    con.execute("CREATE TABLE IF NOT EXISTS _meta (key VARCHAR, value VARCHAR)")
    if _scalar(con, "SELECT count(*) FROM _meta") == 0:
        con.execute("INSERT INTO _meta VALUES ('schema_version', ?), ('duckdb_version', ?)",
                    [SCHEMA_VERSION, duckdb.__version__])
    else:
        con.execute("UPDATE _meta SET value = ? WHERE key = 'schema_version'", [SCHEMA_VERSION])
    refresh_taxonomy_tables(con)
    fingerprint = views_fingerprint()
    if _scalar(con, "SELECT count(*) FROM _meta WHERE key = 'views' AND value = ?", [fingerprint]) == 0:
        create_views(con)
        con.execute("DELETE FROM _meta WHERE key = 'views'")
        con.execute("INSERT INTO _meta VALUES ('views', ?)", [fingerprint])


def _check_compatible(con: duckdb.DuckDBPyConnection, where: Path, *, extending: bool) -> None:
    try:
        meta = dict(con.execute("SELECT key, value FROM _meta").fetchall())
    except duckdb.Error:
        raise TelemetryError(f"{where}: not a failtax telemetry database") from None
    version = meta.get("schema_version")
    if version in (EXTENDABLE_SCHEMAS if extending else READABLE_SCHEMAS):
        return
    if version in READABLE_SCHEMAS:
        raise TelemetryError(
            f"{where}: built with telemetry schema {version!r}, whose event ids differ from this failtax's "
            f"(schema {SCHEMA_VERSION!r}), so duplicates of its lines could not be recognised: it can be read "
            "but not added to; load the files into a new database"
        )
    raise TelemetryError(
        f"{where}: built with telemetry schema {version!r}, this failtax uses {SCHEMA_VERSION!r}; "
        "delete the file and load again"
    )


#: Where every DuckDB database file says what it is (after an 8-byte checksum).
_DUCKDB_MAGIC = (8, b"DUCK")


def _refuse_foreign_file(path: Path) -> None:
    """A file that exists but is no DuckDB database (a telemetry file given as the
    database, an empty file) is named as such, before DuckDB reads it as something else."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(12)
    except OSError:
        return  # absent or unreadable: connecting says so
    at, magic = _DUCKDB_MAGIC
    if head[at:at + len(magic)] != magic:
        what = "an empty file" if not head else "not a DuckDB database file"
        raise TelemetryError(f"{path}: {what}; telemetry files (JSON Lines, compressed or not) are read with "
                             "`failtax load FILES --db DB` or --telemetry FILES")


def _connect_file(path: Path, *, read_only: bool, timeout: float) -> duckdb.DuckDBPyConnection:
    _refuse_foreign_file(path)
    deadline = time.monotonic() + timeout
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                raise TelemetryError(f"{path}: cannot open the database: {str(exc).splitlines()[0]}") from None
            time.sleep(0.2)
        except duckdb.Error as exc:
            raise TelemetryError(f"{path}: cannot open the database: {str(exc).splitlines()[0]}") from None


class _LoadLock:
    """An advisory lock file beside the database: one load at a time."""

    def __init__(self, target: Path, *, timeout: float):
        self.path = target.with_name(target.name + ".lock")
        self.timeout = timeout
        self.fd: int | None = None

    def __enter__(self) -> _LoadLock:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is None:  # pragma: no cover - non-POSIX: DuckDB's own file lock still guards
            return self
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.ftruncate(self.fd, 0)
                os.write(self.fd, f"{os.getpid()}\n".encode())
                return self
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_pid(self.path)
                    os.close(self.fd)
                    self.fd = None
                    raise TelemetryError(
                        f"{self.path.with_suffix('')}: another `failtax load` is writing this database"
                        f"{f' (pid {holder})' if holder else ''}; waited {self.timeout:g} s — try again later"
                    ) from None
                time.sleep(0.1)

    def __exit__(self, *exc: Any) -> None:
        if self.fd is not None:
            if fcntl is not None:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def _read_pid(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


# --------------------------------------------------------------------------- ingest


def _ingest(
    con: duckdb.DuckDBPyConnection,
    files: list[Path],
    *,
    progress: bool,
    chunk_bytes: int,
    started: float,
    db: str | None,
    autocommit: bool = False,
) -> LoadSummary:
    before = dict(con.execute("SELECT source, count(*) FROM events GROUP BY source").fetchall())
    known = {
        row[0]: row for row in con.execute(
            'SELECT path, size, mtime_ns, head_hash, "offset", lines, gzip, head_len, tail_hash, tail_len FROM _files'
        ).fetchall()
    }
    plans = []
    total_bytes = 0
    unreadable: list[tuple[str, int, str, str, str | None, str]] = []
    for f in files:
        try:
            ident = FileIdentity.of(f)
            packed = is_compressed(f)
        except OSError as exc:
            # Not readable now (permissions, an I/O error, removed since it was found): it
            # costs only itself, and is tried again by the next load.
            unreadable.append((str(f), 1, "unreadable", f"{UNOPENED}: {exc.strerror or exc}", None, ""))
            continue
        before_row = known.get(str(f))
        if before_row is not None and before_row[7] < ident.head_len:
            # The file was shorter than the head last time: compare the bytes it had.
            try:
                same = FileIdentity.of(f, head_len=before_row[7]).head_hash == before_row[3]
            except OSError:
                same = False
            if same:
                before_row = (*before_row[:3], ident.head_hash, *before_row[4:])
        status, offset, lines = _plan(before_row, ident)
        if status == "grown" and before_row is not None and before_row[8] is not None:
            try:
                same = tail_matches(f, offset, before_row[9], before_row[8])
            except OSError:
                same = False
            if not same:  # rewritten with the same first lines and more: not grown
                status, offset, lines = "replaced", 0, 0
        plans.append((f, ident, packed, status, offset, lines, before_row))
        if status != "unchanged":
            total_bytes += ident.size - (0 if packed else offset)

    bar = _progress_bar(total_bytes, enabled=progress)
    batch = _Batch(con, autocommit=autocommit)
    reports: dict[str, dict[str, Any]] = {}
    # A file that could not be read last time is quarantined as such once, until it can be.
    con.register("_load_files", _line_table([(str(f), 0) for f in files]))
    try:
        con.execute("DELETE FROM quarantine WHERE reason = 'unreadable' AND starts_with(detail, ?) "
                    "AND file IN (SELECT file FROM _load_files)", [UNOPENED])
    finally:
        con.unregister("_load_files")
    for row in unreadable:
        reports[row[0]] = {"status": "unreadable", "lines_read": 0}
    if unreadable:
        batch._quarantine(unreadable)
    # The rows of replaced files go before any line is read: a copy of their lines in
    # another file (log rotation renames the file its writer then creates again) must not
    # be taken for a duplicate of rows about to be deleted, whatever order files come in.
    removed = 0
    for f, _, _, status, _, lines, _ in plans:
        if status == "replaced":
            removed += _delete_events(con, "WHERE file = ?", [str(f)])
            con.execute("DELETE FROM quarantine WHERE file = ?", [str(f)])
        elif status == "grown":
            # Rows for a line that was unterminated last time are read again in full.
            removed += _delete_events(con, "WHERE file = ? AND line > ?", [str(f), lines])
            con.execute("DELETE FROM quarantine WHERE file = ? AND line > ?", [str(f), lines])
    with contextlib.ExitStack() as stack:
        if bar is not None:
            stack.callback(bar.close)  # (closed after the reading thread has stopped)
        for plan in plans:
            reports[str(plan[0])] = {"status": plan[3], "lines_read": 0}
        todo = [p for p in plans if p[3] != "unchanged"]

        def steps() -> Iterable[tuple[str, int, Any]]:
            # ("start", file), ("chunk", file, chunk) per chunk read, ("block", file, block)
            # when a block is complete, ("end", file), in this order: made by the reading thread.
            blocks = _Blocks(chunk_bytes=chunk_bytes)
            for i, (f, ident, _, _, offset, lines, _) in enumerate(todo):
                yield "start", i, None
                # (up to the size measured above: what is appended meanwhile waits for the next load)
                for chunk in read_chunks(str(f), offset=offset, first_line=lines + 1, size=ident.size,
                                         chunk_bytes=min(chunk_bytes, READ_BYTES),
                                         on_bytes=bar.update if bar is not None else None):
                    if chunk.damaged_from is not None:
                        # Lines of a gzip member that failed its check are taken out again:
                        # first every line read so far goes in, so they are all in the tables.
                        block = blocks.finish()
                        if block is not None:
                            yield "block", i, block
                    yield "chunk", i, chunk
                    block = blocks.add(str(f), chunk)
                    if block is not None:
                        yield "block", i, block
                yield "end", i, None
            block = blocks.finish()
            if block is not None:
                yield "block", -1, block

        resume_offset = resume_lines = 0
        opened: dict[str, bool] = {}
        resume_tail: tuple[str, int] | None = None  # (SHA-256, length) of the bytes before resume_offset
        # Files are read, cut into lines and gathered into blocks by a thread while
        # DuckDB checks and inserts the previous block (it releases the GIL meanwhile).
        reading = prefetch(iter(steps()), depth=4 + 2 * max(1, chunk_bytes // READ_BYTES))
        stack.callback(reading.close)  # on any error: stop the reading thread before going on
        for step, i, item in reading:
            if step == "block":
                batch.insert(item)
                continue
            f, ident, packed, status, offset, lines, known = todo[i]
            path = str(f)
            if step == "chunk" and not item.opened:  # gone or unreadable since it was planned
                opened[path] = False
            if step == "start":
                resume_offset, resume_lines = offset, lines
                resume_tail = (known[8], known[9]) if status == "grown" and known[8] is not None else None
            elif step == "chunk":
                if item.damaged_from is not None:
                    batch.retract(path, item.damaged_from, item.first_line - 1)
                if not _is_failure_marker(item):
                    reports[path]["lines_read"] += item.last_line - item.first_line + 1
                if item.unterminated is None and not _is_failure_marker(item):
                    # Resume point for the next load: after the last complete line. An
                    # unterminated last line is read again (in full) once the file grows.
                    if item.end_offset != resume_offset:
                        resume_tail = (hashlib.sha256(item.tail).hexdigest(), len(item.tail)) if item.tail else None
                    resume_offset, resume_lines = item.end_offset, item.last_line
            elif opened.get(path, True):  # (a file not opened is tried again next time)
                con.execute("DELETE FROM _files WHERE path = ?", [path])
                con.execute(
                    'INSERT INTO _files (path, size, mtime_ns, head_hash, "offset", lines, gzip, loaded_at, head_len, '
                    "tail_hash, tail_len) VALUES (?, ?, ?, ?, ?, ?, ?, now()::TIMESTAMP, ?, ?, ?)",
                    [path, ident.size, ident.mtime_ns, ident.head_hash, resume_offset, resume_lines, packed, ident.head_len,
                     *(resume_tail or (None, None))],
                )
        batch.finish()
        for path, rows in batch.reopen.items():
            _resume_at_value(con, path, rows)
    after = dict(con.execute("SELECT source, count(*) FROM events GROUP BY source").fetchall())
    by_source = {s: after.get(s, 0) - before.get(s, 0) for s in SOURCES if after.get(s, 0) != before.get(s, 0)}
    totals = {
        "events": sum(after.values()),
        "quarantine": _scalar(con, "SELECT count(*) FROM quarantine"),
        # = rows of the decisions view (one per classified event), without pairing them all
        "decisions": _scalar(
            con,
            f"SELECT count(*) FROM events WHERE source = 'failure-event' AND {IS_CLASSIFICATION}",
        ),
    }
    files_out = tuple(
        FileReport(path=p, status=r["status"], lines_read=r["lines_read"],
                   quarantined=batch.quarantined_by_file.get(p, 0), skipped_blank=batch.blank_by_file.get(p, 0))
        for p, r in sorted(reports.items())
    )
    return LoadSummary(
        files=files_out, events_by_source=by_source, quarantined_by_reason=dict(batch.reasons),
        duplicates=batch.duplicates, seconds=time.perf_counter() - started, db=db, totals=totals,
        events_removed=removed,
    )


def _resume_at_value(con: duckdb.DuckDBPyConnection, path: str, rows: list[_BadLine]) -> None:
    """Make the next load of ``path`` start at the first of ``rows``, the lines of a JSON
    value written over lines that the file ends inside (a writer still on it): when the
    file has grown, the value is read again whole, and its lines' quarantine rows go.

    The resume point moves back by the bytes of those lines (as read: a gzip or UTF-16
    file counts decoded bytes, as its offset does); nothing moves when a line's NUL bytes
    were left out of its text (its bytes are not all known).
    """
    row = con.execute('SELECT "offset", lines, tail_hash FROM _files WHERE path = ?', [path]).fetchone()
    first = rows[0].line
    if row is None or any(r.nuls_left_out for r in rows):
        return
    offset, lines, tail_hash = row
    if not first <= lines + 1:
        return
    back = sum(len(r.text.encode("utf-8", "surrogatepass")) for r in rows if r.line <= lines)
    new_offset = 0 if first == 1 else offset - back
    if new_offset < 0:
        return
    tail: tuple[str | None, int | None] = (None, None)
    if tail_hash is not None and new_offset:  # a plain file: the bytes before the new resume point
        try:
            tail = tail_digest(path, new_offset)
        except OSError:
            return
    con.execute('UPDATE _files SET "offset" = ?, lines = ?, tail_hash = ?, tail_len = ? WHERE path = ?',
                [new_offset, first - 1, *tail, path])


def _plan(known: tuple | None, ident: FileIdentity) -> tuple[str, int, int]:
    """(status, byte offset to start at, lines already read) for one file."""
    if known is None:
        return "new", 0, 0
    _, size, mtime_ns, head_hash, offset, lines, *_ = known
    if head_hash != ident.head_hash or ident.size < size:
        return "replaced", 0, 0
    if ident.size == size:
        if ident.mtime_ns == mtime_ns:
            return "unchanged", offset, lines
        return "replaced", 0, 0  # rewritten in place with the same size
    return "grown", offset, lines


def _progress_bar(total: int, *, enabled: bool) -> Any:
    if not enabled or total <= 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc="loading", file=sys.stderr, leave=False)


def _is_failure_marker(chunk: Chunk) -> bool:
    return chunk.table.num_rows == 0 and any(b.reason == "unreadable" for b in chunk.bad)


@dataclass(frozen=True)
class _Block:
    """Lines to check and insert in one go, and what reading them found."""

    table: pa.Table | None  # (line_no, text, file) in record batches of one row group
    paths: tuple[str, ...]
    bad: tuple[tuple[str, int, str, str, str | None, str], ...]  # lines that never reach SQL
    unterminated: frozenset[tuple[str, int]]  # (file, line) of a last line without newline
    nuls: Mapping[tuple[str, int], int] = field(default_factory=dict)  # NUL bytes left out of a line's text
    line_of: Mapping[int, int] = field(default_factory=dict)  # stand-in line number -> the line's number
    spans: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # file -> its first and last line here


class _Blocks:
    """Gathers the chunks of one or more files into blocks (runs in the reading thread).

    Small files are gathered until ``chunk_bytes``, so a directory of many small files
    costs a few statements, not a few per file. A full block is cut after a whole
    number of DuckDB row groups (the rest waits for the next block) and handed over
    in record batches of one row group each: DuckDB then writes each batch's rows
    straight to the database file as a finished row group, instead of merging and
    compressing partial ones again at the checkpoint.
    """

    def __init__(self, *, chunk_bytes: int):
        self.chunk_bytes = chunk_bytes
        self.pending: list[tuple[str, pa.Table]] = []  # (file, lines) not yet in a block
        self.pending_rows = 0
        self.pending_bytes = 0
        self.bad: list[tuple[str, int, str, str, str | None, str]] = []
        self.unterminated: set[tuple[str, int]] = set()
        self.nuls: dict[tuple[str, int], int] = {}

    def add(self, path: str, chunk: Chunk) -> _Block | None:
        """Take a chunk; return a block when one is full."""
        self.bad.extend((path, b.line, b.reason, b.detail, None, b.raw) for b in chunk.bad)
        if chunk.unterminated is not None:
            self.unterminated.add((path, chunk.unterminated))
        for line, n in chunk.nuls:
            self.nuls[(path, line)] = n
        if chunk.table.num_rows:
            self.pending.append((path, chunk.table))
            self.pending_rows += chunk.table.num_rows
        self.pending_bytes += chunk.nbytes
        return self._take(whole_row_groups=True) if self.pending_bytes >= self.chunk_bytes else None

    def finish(self) -> _Block | None:
        """The last block, if anything is left."""
        return self._take(whole_row_groups=False) if self.pending or self.bad else None

    def _take(self, *, whole_row_groups: bool) -> _Block:
        """A block of the pending lines. With ``whole_row_groups``, only whole row groups
        are taken when there is at least one; the rest stays pending."""
        pending, n, nbytes = self.pending, self.pending_rows, self.pending_bytes
        self.pending, self.pending_rows, self.pending_bytes = [], 0, 0
        bad, self.bad = self.bad, []
        keep = n // ROW_GROUP_ROWS * ROW_GROUP_ROWS if whole_row_groups else n
        if keep == 0:
            keep = n
        taken: list[tuple[str, pa.Table]] = []
        got = 0
        for path, t in pending:
            if got + t.num_rows <= keep:
                taken.append((path, t))
            elif got < keep:
                taken.append((path, t.slice(0, keep - got)))
                self.pending.append((path, t.slice(keep - got)))
            else:
                self.pending.append((path, t))
            got += t.num_rows
        self.pending_rows = n - keep
        self.pending_bytes = nbytes * (n - keep) // n if n else 0
        names = tuple(dict.fromkeys(path for path, _ in taken))
        if not taken:
            return _Block(table=None, paths=(), bad=tuple(bad), unterminated=frozenset())
        index = {p: i for i, p in enumerate(names)}
        codes = np.concatenate([np.full(t.num_rows, index[p], dtype=np.int32) for p, t in taken])
        # The system allocator: it hands a freed block's pages to the next block, where
        # mimalloc (pyarrow's default) maps fresh ones every time (5x slower here).
        pool = pa.system_memory_pool()
        text = pa.concat_arrays([c for _, t in taken for c in t.column("text").chunks], memory_pool=pool)
        line_no = pa.concat_arrays([c for _, t in taken for c in t.column("line_no").chunks], memory_pool=pool)
        table = _lines_table(line_no, text, codes, names)
        spans: dict[str, tuple[int, int]] = {}
        for path, t in taken:
            first, last = t.column("line_no")[0].as_py(), t.column("line_no")[-1].as_py()
            spans[path] = (spans.get(path, (first, last))[0], last)
        return _Block(
            table=pa.Table.from_batches(table.to_batches(max_chunksize=ROW_GROUP_ROWS)),
            paths=names,
            bad=tuple(bad),
            unterminated=frozenset(u for u in self.unterminated if u[0] in index),
            nuls={k: n for k, n in self.nuls.items() if k[0] in index},
            spans=spans,
        )


class _Batch:
    """Checks and inserts blocks of lines, quarantines the bad ones, keeps the counts."""

    def __init__(self, con: duckdb.DuckDBPyConnection, *, autocommit: bool):
        self.con = con
        self.autocommit = autocommit
        # Only a statement outside a transaction may fail and be run again the careful way.
        self.plain = autocommit and PLAIN_FIRST  # try the plain statement (see _plain_due)
        self.plain_misses = 0  # blocks in a row it failed on
        self.plain_wait = 0  # blocks to go before it is tried again
        self.split_first = False  # a line that is not JSON was met: split blocks before inserting
        self.duplicates = 0
        self.reasons: Counter[str] = Counter()
        self.quarantined_by_file: Counter[str] = Counter()
        self.blank_by_file: Counter[str] = Counter()
        self.carried: _OpenValue | None = None  # a value over lines, open at the end of the last block
        self.reopen: dict[str, list[_BadLine]] = {}  # file -> the lines of a value it ends inside
        self.records: list[tuple[str, int, str]] = []  # records found in lines, to insert together

    def insert(self, block: _Block) -> None:
        bad_rows = list(block.bad)
        table = block.table
        if table is not None:
            n = table.num_rows
            con = self.con
            con.register("_chunk", table)
            try:
                # One statement parses, checks and inserts the good lines. Only a block with
                # possible duplicates pays for finding them (by content, see _DUPS_IN_BLOCK_SQL),
                # and only a block where some lines did not make it in is parsed again to say why.
                dups = self._exact_duplicates() if _scalar(con, _MAYBE_DUPLICATES_SQL) else set()
                con.register("_dups", _line_table(sorted(dups)))
                added, flagged = self._insert(table, n_dups=len(dups))
            finally:
                con.unregister("_chunk")
                con.unregister("_dups")
            # A repeated bad line is quarantined like the first one, not counted as a duplicate.
            duplicates = len(dups - {(f[0], f[1]) for f in flagged})
            if added + len(flagged) + duplicates != n:
                raise TelemetryError(
                    f"{', '.join(block.paths)}: internal error: of {n:,} lines, {added:,} were "
                    f"inserted, {len(flagged):,} found bad and {duplicates:,} byte-identical duplicates; "
                    f"{n - added - len(flagged) - duplicates:,} unaccounted for (nothing was saved)"
                )
            self.duplicates += duplicates
            rows = [_BadLine(path, line, problem, detail, source, text, (path, line) in block.unterminated,
                             block.nuls.get((path, line), 0))
                    for path, line, problem, detail, source, text in
                    ((f[0], block.line_of.get(f[1], f[1]), *f[2:]) for f in flagged)]
            records: list[tuple[str, int, str]] = []  # (file, line, text) of records found in lines
            if not block.line_of:  # (records are whole objects: they hold no value written over lines)
                rows = self._values_over_lines(rows, block, records)
            for row in rows:
                self._bad_line(row, bad_rows, records)
            if block.line_of:  # a block of records: they take their line's number
                self._renumber(block.line_of)
            self._hold(records)
        if bad_rows:
            self._quarantine(bad_rows)

    def _bad_line(self, row: _BadLine, bad_rows: list, records: list[tuple[str, int, str]]) -> None:
        """Describe a line the statement did not insert: its records (several on a line,
        beside NUL bytes, in an array, before a trailing comma) go to ``records``, what is
        wrong with it to ``bad_rows``; a blank line is only counted."""
        path, line_no, problem, detail, source, text, unterminated, left_out, in_value = row
        if problem == "invalid-json" and text.startswith(_BOM) and in_value is None:
            # A byte order mark opening a line inside a file (files joined with cat, each with
            # one): the rest of the line is read as the line, as it is at the start of a file.
            records.append((path, line_no, text[len(_BOM):].removesuffix("\n")))
            return
        split = None
        if problem == "invalid-json":
            split = _split_records(text, unterminated=unterminated, nuls_left_out=left_out)
        if split is None and problem in ("invalid-json", "unknown-format"):
            split = _list_records(text)
        if split is None and problem == "invalid-json" and in_value is None:
            split = _records_after_fragment(text)
        if split is not None:
            pieces, damage = split
            records.extend((path, line_no, r) for r in pieces)
            if damage is not None:
                bad_rows.append((path, line_no, *damage))
            return
        refined = _refine(problem, detail, text, unterminated=unterminated)
        if refined is None:  # a blank line: neither an event nor a bad line
            self.blank_by_file[path] += 1
            return
        if in_value is not None:  # a line of a value written over lines that cannot be read whole
            reason, why, first, whole = in_value
            if whole or refined[0] in ("invalid-json", "truncated-last-line"):  # (else its own problem says more)
                if unterminated:
                    reason, why = "truncated-last-line", (f"the file ends inside this line (no newline), in a JSON "
                                                          f"value that opens at line {first:,}")
                refined, source = (reason, why), None
        bad_rows.append((path, line_no, refined[0], refined[1], source, text.rstrip("\r\n")))

    def _values_over_lines(self, rows: list[_BadLine], block: _Block,
                           records: list[tuple[str, int, str]]) -> list[_BadLine]:
        """Find JSON values written over several lines (pretty-printed objects, arrays of
        them) among a block's bad lines; their objects go to ``records`` with the number of
        the line each begins on. Returns the other lines, to be described one by one (the
        lines of a value that cannot be read whole say so in ``value_problem``).

        A value still open at the block's last line of its file waits for the next block
        (:meth:`finish` describes it line by line if none goes on with it).
        """
        carried, self.carried = self.carried, None
        if carried is not None:
            span = block.spans.get(carried.path)
            if span is None or span[0] != carried.last + 1:
                self._flush(carried)  # its file ended with the last block
                carried = None
        by_path: dict[str, list[_BadLine]] = {}
        for row in rows:
            by_path.setdefault(row.path, []).append(row)
        if carried is not None:
            by_path.setdefault(carried.path, [])
        left: list[_BadLine] = []
        for path, file_rows in by_path.items():
            value = carried if carried is not None and carried.path == path else None
            for row in file_rows:
                if value is not None and (row.line != value.last + 1
                                          or row.problem not in ("invalid-json", "unknown-format")
                                          or not value.add(row)):
                    left += self._unclosed(value)
                    value = None
                if value is None:
                    value = _OpenValue.start(row)
                    if value is None:
                        left.append(row)
                        continue
                if value.depth == 0:
                    found = value.records()
                    if isinstance(found, list):
                        records += found
                    else:
                        left += value.described(found)
                    value = None
            if value is not None:
                span = block.spans.get(path)
                if span is None or span[1] != value.last:
                    left += self._unclosed(value)  # a line that is no part of it follows
                elif path != block.paths[-1]:
                    left += self._unclosed(value, at_end=True)  # its file ends here: another follows
                else:
                    assert self.carried is None
                    self.carried = value  # it may go on in the next block
        return sorted(left, key=lambda r: (r.path, r.line))

    def _unclosed(self, value: _OpenValue, *, at_end: bool = False) -> list[_BadLine]:
        """The lines of a value that never closes (see :meth:`_OpenValue.unclosed`). One
        that its file ends inside is noted in ``reopen``: the next load reads its file
        again from the value's first line, so that the rest a writer appends completes it."""
        if len(value.rows) > 1 and (at_end or value.rows[-1].unterminated):
            self.reopen[value.path] = value.rows
        return value.unclosed(at_end=at_end)

    def _flush(self, value: _OpenValue) -> None:
        """Describe the lines of a value open where its file ended, one by one."""
        bad_rows: list = []
        records: list[tuple[str, int, str]] = []
        for row in self._unclosed(value, at_end=True):
            self._bad_line(row, bad_rows, records)
        self._hold(records)
        if bad_rows:
            self._quarantine(bad_rows)

    def _hold(self, records: list[tuple[str, int, str]]) -> None:
        """Keep records found in lines until a row group of them is gathered (or the
        load ends). A few rows inserted between two blocks cost more than their size:
        DuckDB keeps them in memory at the table's end, and every block written to the
        file after them is written again at the checkpoint (1-2 s per million lines)."""
        self.records += records
        if len(self.records) >= ROW_GROUP_ROWS:
            self._insert_records()

    def _insert_records(self) -> None:
        while self.records:  # (records can hold records)
            records, self.records = self.records, []
            self.insert(_records_block(records))

    def finish(self) -> None:
        """After the last block (or before lines are taken out again): describe the lines
        of a value left open at its end, insert the records held."""
        carried, self.carried = self.carried, None
        if carried is not None:
            self._flush(carried)
        self._insert_records()

    def _renumber(self, line_of: Mapping[int, int]) -> None:
        """Give the events inserted under stand-in line numbers their line's number."""
        stand = sorted(line_of)
        self.con.register("_renumber", pa.Table.from_arrays(
            [numpy_array(np.array(stand, dtype=np.int64), pa.int64()),
             numpy_array(np.array([line_of[k] for k in stand], dtype=np.int64), pa.int64())], names=["stand", "line"]))
        try:
            for table in (EVENTS_TABLE, PLAIN_EVENTS_TABLE):
                self.con.execute(f"UPDATE {table} SET line = m.line FROM _renumber m WHERE {table}.line = m.stand")
        finally:
            self.con.unregister("_renumber")

    def retract(self, path: str, first: int, last: int) -> None:
        """Move lines ``first`` to ``last`` of ``path`` (from a gzip member that failed its
        check, so their bytes may be wrong) from ``events`` and ``quarantine`` to quarantine
        as ``corrupt-gzip``, with their text read again."""
        self.finish()  # (lines of a value left open before them are described first)
        con = self.con
        where = "WHERE file = ? AND line BETWEEN ? AND ?"
        for reason, n in con.execute(f"SELECT reason, count(*) FROM quarantine {where} GROUP BY reason",
                                     [path, first, last]).fetchall():
            self.reasons[reason] -= n
            self.quarantined_by_file[path] -= n
        self.reasons = +self.reasons  # (drops reasons counted down to zero)
        _delete_events(con, where, [path, first, last])
        con.execute(f"DELETE FROM quarantine {where}", [path, first, last])
        detail = "decoded from a gzip member that fails its integrity check: its bytes may be wrong"
        rows: list[tuple[str, int, str, str, str | None, str]] = []
        try:
            for chunk in read_chunks(path):
                for line_no, text in zip(chunk.table.column("line_no").to_pylist(),
                                         chunk.table.column("text").to_pylist(), strict=True):
                    if first <= line_no <= last and text.strip(JSON_WHITESPACE):
                        rows.append((path, line_no, "corrupt-gzip", detail, None, text.rstrip("\r\n")))
                rows += [(path, b.line, "corrupt-gzip", detail, None, b.raw) for b in chunk.bad
                         if first <= b.line <= last]
                if chunk.last_line >= last:
                    break
        except (OSError, TelemetryError):
            pass  # gone since: the lines are out of events, and the unreadable row says why
        if rows:
            self._quarantine(sorted(rows, key=lambda r: r[1]))

    def _insert(self, table: pa.Table, *, n_dups: int) -> tuple[int, list[tuple]]:
        """Check and insert the block ``table``, registered as ``_chunk``, ``n_dups`` of its
        lines listed in ``_dups``: the number of rows inserted, and ``file, line_no, problem,
        detail, source, text`` of the lines left out for a problem, in file and line order."""
        n, dedupe = table.num_rows, n_dups > 0
        if self.autocommit:
            # Optimistic: most blocks parse whole, most of them plain failure events
            # (what the emitter writes). A failed statement changes nothing outside a
            # transaction; then the block goes the careful way. The plain statement is
            # tried again on later blocks (less and less often while it keeps failing: see
            # _plain_due), so one bad line costs its block, not the rest of the load. A load
            # that has met a line that is not JSON looks for such lines first in every
            # later block (0.15 us a line) and tries the plain statement on the others.
            added = self._plain(dedupe) if not self.split_first else None
            if added is None and not self.split_first:
                try:
                    added = _scalar(self.con, _INSERTS[False, dedupe])
                except duckdb.Error:
                    self.split_first = True
            if added is not None:
                return added, self._problems() if added < n - n_dups else []
        # Some line is not JSON (or a transaction forbids a statement that may fail). DuckDB's
        # ``try`` turns an error into NULL by evaluating the whole vector (2,048 rows) again
        # row by row: a block where one line in a few hundred is broken, parsed under ``try``
        # whole, took 4-5x as long as one without. So the lines that parse and the others go
        # separately, each part registered as ``_chunk`` in turn (the caller unregisters it),
        # and only the broken lines pay for ``try``.
        con = self.con
        # (in the block's order: DuckDB keeps the order of what it scans unless told not to)
        ok = con.sql("SELECT json_valid(text) IS TRUE FROM _chunk").to_arrow_table().column(0).combine_chunks()
        assert len(ok) == n
        parts = [(table, False)]  # (part, broken): its lines are not JSON
        if not pc.all(ok).as_py():
            parts = [(table.filter(ok), False), (table.filter(pc.invert(ok)), True)]
        added, flagged = 0, []
        for part, broken in parts:
            if part.num_rows == 0:
                continue
            con.register("_chunk", part)
            if not broken and (got := self._plain(dedupe)) is not None:
                added += got  # (all of the part but its duplicates)
                continue
            part_dups = _scalar(con, "SELECT count(*) FROM _dups JOIN _chunk USING (file, line_no)") if dedupe else 0
            got = (_scalar(con, _INSERTS[True, dedupe]) if broken else
                   self._either(_INSERTS[False, dedupe], _INSERTS[True, dedupe], fetch=_scalar))
            if got < part.num_rows - part_dups:
                flagged += _rows(con, _BROKEN_PROBLEMS) if broken else self._problems()
            added += got
        return added, sorted(flagged, key=lambda f: (f[0], f[1]))

    def _plain(self, dedupe: bool) -> int | None:
        """Insert the registered lines with the plain statement, when it is due: the number
        inserted, or None when it was not tried or failed (inserting nothing)."""
        if not self._plain_due():
            return None
        try:
            added = _scalar(self.con, _PLAIN_INSERTS[dedupe])
        except duckdb.Error as exc:
            self.plain_misses += 1
            self.plain_wait = min(2 ** (self.plain_misses - 1) - 1, PLAIN_WAIT_MAX)
            if "Malformed JSON" in str(exc):  # so would the careful statement be: split first
                self.split_first = True
            return None
        self.plain_misses = 0
        return added

    def _plain_due(self) -> bool:
        """Whether to try the plain statement on this block. After it fails on ``k`` blocks
        in a row, the next ``2^(k-1) - 1`` blocks (at most :data:`PLAIN_WAIT_MAX`) go the
        careful way straight away: telemetry that is messy throughout or of another format
        pays for few failed attempts, and a file of plain lines after a few bad ones gets
        the plain statement back within a block or two."""
        if not self.plain:
            return False
        if self.plain_wait:
            self.plain_wait -= 1
            return False
        return True

    def _problems(self) -> list[tuple]:
        """``file, line_no, problem, detail, source, text`` of the registered block's lines
        the statement left out that have a problem, in file and line order."""
        return self._either(_PROBLEMS[False], _PROBLEMS[True], fetch=_rows)

    def _either(self, unguarded: str, guarded: str, *, fetch: Callable[[duckdb.DuckDBPyConnection, str], Any]) -> Any:
        """The unguarded statement's result where it may fail and does not, else the guarded one's."""
        if self.autocommit:
            try:
                return fetch(self.con, unguarded)
            except duckdb.Error:
                pass
        return fetch(self.con, guarded)

    def _exact_duplicates(self) -> set[tuple[str, int]]:
        """(file, line) of each line of ``_chunk`` byte-identical to an earlier line or event.

        Within the block lines are compared by text. An event loaded before keeps the
        line's XXH3-128, in two halves (``line_hash`` and, in hex, ``event_id``): a line
        equal in all 128 bits is its duplicate. (Reading the earlier line again from its file, as
        was done before, fails once rotation has compressed or deleted that file, and each
        rotation then loaded its lines a second time.)
        """
        con = self.con
        dups = {(f, int(i)) for f, i in con.execute(_DUPS_IN_BLOCK_SQL).fetchall()}
        dups |= {(f, int(i)) for f, i in con.execute(_DUPS_OF_EVENTS_SQL).fetchall()}
        return dups

    def _quarantine(self, rows: list[tuple[str, int, str, str, str | None, str]]) -> None:
        for r in rows:
            self.reasons[r[2]] += 1
            self.quarantined_by_file[r[0]] += 1
        table = pa.Table.from_arrays(  # (pa.table() and pa.array() would import pandas)
            [
                string_array([r[0] for r in rows]),
                numpy_array(np.array([r[1] for r in rows], dtype=np.int64), pa.int64()),
                string_array([r[2] for r in rows]),
                string_array([r[3] for r in rows]),
                string_array([r[4] for r in rows]),
                string_array([_raw_for_storage(r[5]) for r in rows]),
            ],
            names=["file", "line", "reason", "detail", "source", "raw"],
        )
        self.con.register("_bad", table)
        try:
            self.con.execute(
                "INSERT INTO quarantine SELECT file, line, reason, detail, source, raw, now()::TIMESTAMP "
                "FROM _bad ORDER BY file, line"
            )
        finally:
            self.con.unregister("_bad")


#: Records split from lines go in under stand-in line numbers, unique in their block and
#: below any real one (duplicates and problems are told apart by file and line number),
#: then take their line's number.
STAND_IN = -(1 << 62)


def _records_block(rows: list[tuple[str, int, str]]) -> _Block:
    """A block of ``(file, line, record text)``: records split from lines."""
    names = tuple(dict.fromkeys(r[0] for r in rows))
    index = {p: i for i, p in enumerate(names)}
    stand = np.arange(STAND_IN, STAND_IN + len(rows), dtype=np.int64)
    table = _lines_table(numpy_array(stand, pa.int64()), string_array([r[2] + "\n" for r in rows]),
                         np.array([index[r[0]] for r in rows], dtype=np.int32), names)
    return _Block(table=table, paths=names, bad=(), unterminated=frozenset(),
                  line_of={int(k): r[1] for k, r in zip(stand, rows, strict=True)})


def _lines_table(line_no: pa.Array, text: pa.Array, codes: np.ndarray, names: tuple[str, ...]) -> pa.Table:
    """The table a block's statement reads: each line with its number, text, file (the
    index ``codes`` into ``names``), its two gates (see ``line_gates``), id and hash (see
    ``line_ids``)."""
    eid, h = line_ids(text)
    maybe_secret, odd = line_gates(text)
    return pa.Table.from_arrays(
        [line_no, text, pa.DictionaryArray.from_arrays(numpy_array(codes, pa.int32()), string_array(list(names))),
         maybe_secret, odd, eid, h],
        names=["line_no", "text", "file", "maybe_secret", "odd", "eid", "h"],
    )


def _line_table(keys: list[tuple[str, int]]) -> pa.Table:
    """``(file, line_no)`` pairs as an Arrow table."""
    return pa.Table.from_arrays(
        [string_array([k[0] for k in keys]), numpy_array(np.array([k[1] for k in keys], dtype=np.int64), pa.int64())],
        names=["file", "line_no"],
    )


def _zeros(n: int) -> pa.Array:
    return numpy_array(np.zeros(n, dtype=np.int32), pa.int32())


class _BadLine(NamedTuple):
    """A line the block's statement did not insert, with what reading it found."""

    path: str
    line: int
    problem: str
    detail: str | None
    source: str | None
    text: str
    unterminated: bool
    nuls_left_out: int
    #: (reason, detail, first line, whole) when the line is part of a value written over
    #: lines that cannot be read whole: the value's problem (with ``whole``, instead of the
    #: line's own; else only where the line's own is that it is not JSON).
    in_value: tuple[str, str, int, bool] | None = None


#: A JSON string (perhaps cut by the end of the line) or a bracket: what moves the depth.
_DEPTH_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
#: A value written over lines is read whole up to this many bytes (as a line is).
MAX_VALUE_BYTES = 64 << 20


class _OpenValue:
    """Consecutive bad lines of one file that may be one JSON value written over several
    lines (``json.dumps(obj, indent=2)``, ``serde_json::to_string_pretty``, ``jq .``): it
    opens on a line that starts with ``{`` or ``[`` and leaves brackets open, and ends on
    the line that closes them (``depth`` 0)."""

    def __init__(self, row: _BadLine):
        self.path = row.path
        self.rows = [row]
        self.last = row.line
        self.depth = 0
        self.size = 0
        self._step(row.text)

    @classmethod
    def start(cls, row: _BadLine) -> _OpenValue | None:
        """The value ``row`` opens, or None (a line that closes what it opens is no value
        over lines; see :func:`_list_records` for an array of objects on one line)."""
        if row.problem not in ("invalid-json", "unknown-format"):
            return None
        head = row.text.lstrip(JSON_WHITESPACE)[:1]
        if head not in ("{", "["):
            return None
        value = cls(row)
        return value if value.depth > 0 else None

    def _step(self, text: str) -> bool:
        depth = self.depth
        for m in _DEPTH_TOKENS.finditer(text):
            c = m.group()
            if c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth < 0:
                    return False
        self.depth = depth
        self.size += len(text)
        return self.size <= MAX_VALUE_BYTES

    def add(self, row: _BadLine) -> bool:
        """Take the next line; False when it cannot belong to the value."""
        if self.depth <= 0 or not self._step(row.text):
            return False
        self.rows.append(row)
        self.last = row.line
        return True

    def records(self) -> list[tuple[str, int, str]] | tuple[str, str]:
        """The objects of the closed value as records ``(file, line, text)``; or, when the
        lines are not one or more objects or arrays of objects one after the other, what
        is wrong with them as (reason, detail)."""
        text = "".join(r.text for r in self.rows)
        first = self.rows[0].line
        try:
            spans = _object_spans(text)
        except (ValueError, RecursionError):
            return self._problem(text)
        out = []
        line, at = first, 0
        for a, b in spans:  # (lines counted from the previous object on: linear in the text)
            line += text.count("\n", at, a)
            at = a
            out.append((self.path, line, text[a:b]))
        return out

    def _where(self) -> str:
        return f"a JSON value written over lines {self.rows[0].line:,} to {self.last:,}"

    def _problem(self, text: str) -> tuple[str, str]:
        """(reason, detail) for a closed value that is not objects."""
        try:
            value = json.loads(text)
        except RecursionError:
            return "invalid-json", f"{self._where()}, nested too deeply to read"
        except ValueError as exc:
            msg, _ = _json_error(exc, text)
            lineno, colno = getattr(exc, "lineno", None), getattr(exc, "colno", None)
            where = ""
            if isinstance(lineno, int) and isinstance(colno, int):
                where = f" at line {self.rows[0].line + lineno - 1:,}, column {colno}"
            bad_line = text.split("\n")[lineno - 1] if isinstance(lineno, int) else ""
            if msg.startswith("Expecting") and UNESCAPED_QUOTE.search(bad_line):
                return "unescaped-quote", f"{self._where()}: a double quote inside a string is not escaped ({msg}{where})"
            return "invalid-json", f"{self._where()}, which is not JSON: {msg}{where}"
        return "not-an-object", f"{self._where()}: expected JSON objects, got {_kind(value)}"

    def described(self, problem: tuple[str, str], *, whole: bool = True) -> list[_BadLine]:
        """The value's lines, each to be quarantined with the value's ``problem`` (unless it
        holds records of its own: see ``_Batch._bad_line``)."""
        return [r._replace(in_value=(*problem, self.rows[0].line, whole)) for r in self.rows]

    def unclosed(self, *, at_end: bool = False) -> list[_BadLine]:
        """The lines of a value that never closes, to be described on their own; when the
        file ends inside it (``at_end``, or its last line has no newline) and it spans
        lines, the lines that are not JSON say they are part of it. (A line followed by
        bad lines may open a bracket without being a value over lines: a writer cut it.)"""
        if len(self.rows) == 1 or not (at_end or self.rows[-1].unterminated):
            return self.rows
        return self.described(("invalid-json", f"part of a JSON value that opens at line {self.rows[0].line:,} and "
                                               "the file ends inside"), whole=False)


def _object_spans(text: str) -> list[tuple[int, int]]:
    """Where the objects are in ``text``: one or more objects or arrays of objects, apart
    by JSON white space or a comma (a writer that streams an array), perhaps with a comma
    after the last. Raises ``ValueError`` for anything else."""
    spans: list[tuple[int, int]] = []
    pos = _JSON_SPACES.match(text).end()  # type: ignore[union-attr]
    while pos < len(text):
        if text[pos] == "[":
            pos = _JSON_SPACES.match(text, pos + 1).end()  # type: ignore[union-attr]
            items = 0
            while not (text.startswith("]", pos) and items == 0):
                value, end = _DECODER.raw_decode(text, pos)
                if not isinstance(value, dict):
                    raise ValueError("not an object")
                spans.append((pos, end))
                items += 1
                pos = _JSON_SPACES.match(text, end).end()  # type: ignore[union-attr]
                if text.startswith(",", pos):
                    pos = _JSON_SPACES.match(text, pos + 1).end()  # type: ignore[union-attr]
                elif text.startswith("]", pos):
                    break
                else:
                    raise ValueError("expected , or ]")
            if not text.startswith("]", pos):
                raise ValueError("expected ]")
            if items == 0:
                raise ValueError("an empty list")
            end = pos + 1
        else:
            value, end = _DECODER.raw_decode(text, pos)
            if not isinstance(value, dict):
                raise ValueError("not an object")
            spans.append((pos, end))
        pos = _JSON_SPACES.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos = _JSON_SPACES.match(text, pos + 1).end()  # type: ignore[union-attr]
    return spans


def _list_records(text: str) -> tuple[list[str], None] | None:
    r"""The objects of a line that is an array of objects, or one object and a comma (a
    writer that streams an array, one element per line); ``None`` for any other line.

    >>> _list_records('[{"a":1}, {"a":2}]'), _list_records('{"a":1},')
    ((['{"a":1}', '{"a":2}'], None), (['{"a":1}'], None))
    >>> _list_records('[1]') is None, _list_records('[]') is None, _list_records('{"a":1}') is None
    (True, True, True)
    """
    body = text.strip(JSON_WHITESPACE)
    if not (body.startswith("[") or (body.startswith("{") and body.endswith(","))):
        return None
    try:
        spans = _object_spans(body)
    except (ValueError, RecursionError):
        return None
    return [body[a:b] for a, b in spans], None


_NUL_OR_RS = re.compile("[\x00\x1e]+")
_DECODER = json.JSONDecoder()
_JSON_SPACES = re.compile("[ \t\r\n]*")  # RFC 8259's white space
_OBJECT_AFTER_OBJECT = re.compile(r"\}" + _JSON_SPACES.pattern + r"\{")


def _split_records(
    text: str, *, unterminated: bool = False, nuls_left_out: int = 0
) -> tuple[list[str], tuple[str, str, None, str] | None] | None:
    r"""The records of a line that holds more than one, or NUL bytes; ``None`` for any other line.

    Runs of NUL bytes (what a writer that stopped on a preallocated file, or a crash that
    zeroed a file's last block, leaves: a later writer appends after them) and record
    separators (0x1e, RFC 7464 JSON text sequences) part a line into pieces; a piece that
    is one or more whole JSON objects one after the other that open with the same key (two
    writers with no newline between them) gives those objects as records. A piece that is
    anything else is damage.
    Returns the records' texts and, for NUL bytes or damage, the quarantine row (reason,
    detail, source, raw) that describes the rest of the line (NUL runs shown as one U+FFFD);
    ``nuls_left_out`` NUL bytes of the line that the reader did not keep count too. Lines
    that are none of these are left to :func:`_refine`.

    >>> records, (reason, detail, _, _) = _split_records('\x00\x00{"a":1}')
    >>> records, reason, detail.split(",")[0]
    (['{"a":1}'], 'nul-bytes', '2 NUL bytes')
    >>> _split_records('{"a":1} {"a":2}')
    (['{"a":1}', '{"a":2}'], None)
    >>> _split_records('{"a":1} {"b":2}') is None, _split_records('{"a":1} junk') is None
    (True, True)
    """
    body = text.rstrip("\r\n")
    separated = _NUL_OR_RS.search(body) is not None
    if not separated and not _OBJECT_AFTER_OBJECT.search(body):
        return None
    records: list[str] = []
    damage: tuple[str, str] | None = None  # (reason, detail) of the first piece that is not whole objects
    several = False
    starts = [0] + [m.end() for m in _NUL_OR_RS.finditer(body)] if separated else [0]
    for start, piece in zip(starts, _NUL_OR_RS.split(body) if separated else [body], strict=True):
        found: list[str] = []
        first_keys: set[str | None] = set()
        pos = _JSON_SPACES.match(piece).end()  # type: ignore[union-attr]
        try:
            while pos < len(piece):
                value, end = _DECODER.raw_decode(piece, pos)
                if not isinstance(value, dict):
                    raise _NotAnObject(value)
                found.append(piece[pos:end])
                first_keys.add(next(iter(value), None))
                pos = _JSON_SPACES.match(piece, end).end()  # type: ignore[union-attr]
            if len(first_keys) > 1:
                # Records of one writer open with the same key; '{"message":"said "}{"x":1}'
                # is a line with unescaped quotes, not two records.
                raise ValueError("objects that open with different keys")
        except (ValueError, RecursionError, _NotAnObject) as exc:
            if damage is None:
                last = start + len(piece) == len(body)
                damage = _piece_problem(exc, start, pos, unterminated=unterminated and last)
            continue
        several = several or len(found) > 1
        records.extend(found)
    if not separated and not several:
        return None
    nuls = body.count("\x00") + nuls_left_out  # (the reader keeps one byte of a long run)
    if not nuls and damage is None:
        return records, None
    if nuls:
        reason = "nul-bytes"
        detail = f"{nuls:,} NUL byte{'s' if nuls != 1 else ''}, which JSON text cannot hold ({NUL_RUNS_CAUSE})"
        if damage is not None:
            detail += f"; the rest is not JSON: {damage[1]}"
    else:
        assert damage is not None
        reason, detail = damage
    if records:
        n = len(records)
        detail += "; " + _read_alone(n, "on the line")
    return records, (reason, detail, None, show_nul_runs(body))


def _read_alone(n: int, where: str) -> str:
    """How a quarantine detail says that ``n`` whole objects of a bad line were loaded."""
    return (f"{'the' if n == 1 else f'the {n}'} whole JSON object{'s' if n > 1 else ''} {where} "
            + ("is read on its own" if n == 1 else "are read on their own"))


_FIRST_KEY = re.compile(r'[ \t\r\n]*\{[ \t\r\n]*("(?:[^"\\]|\\.)*")[ \t\r\n]*:')


def _records_after_fragment(text: str) -> tuple[list[str], tuple[str, str, None, str]] | None:
    r"""The whole objects that end a line after the cut-off start of a record (a writer
    stopped mid-line; restarted, it appended its next records to that line): they open
    with the same key as the cut-off record, and run to the end of the line. ``None`` for
    any other line (a quote left unescaped in a string is not a cut).

    >>> records, (reason, detail, _, _) = _records_after_fragment('{"a":"x{"a":1}')
    >>> records, reason, detail.split(" (")[0]
    (['{"a":1}'], 'invalid-json', 'a record cut off at column 8, where another begins')
    >>> [_records_after_fragment(t) is None for t in ('{"a":"say {"a":1}"}', '{"a":1 {"b":1}', '{"\\x":1 {"\\x":1}')]
    [True, True, True]
    """
    body = text.rstrip(JSON_WHITESPACE)
    first = _FIRST_KEY.match(body)
    if first is None:
        return None
    try:
        key = json.loads(first.group(1))
    except ValueError:  # (a bad escape in the key: nothing to compare records with)
        return None
    opening = re.compile(r"\{" + _JSON_SPACES.pattern + re.escape(first.group(1)) + _JSON_SPACES.pattern + ":")
    for tried, start in enumerate(opening.finditer(body, first.end())):
        if tried == 16:  # (a line that names its first key that often is no cut-off record)
            break
        found, pos = [], start.start()
        try:
            while pos < len(body):
                value, end = _DECODER.raw_decode(body, pos)
                if not isinstance(value, dict) or next(iter(value), None) != key:
                    raise ValueError("not a record of the same writer")
                found.append(body[pos:end])
                pos = _JSON_SPACES.match(body, end).end()  # type: ignore[union-attr]
        except (ValueError, RecursionError):
            continue
        n = len(found)
        detail = (f"a record cut off at column {start.start() + 1}, where another begins (a writer stopped "
                  f"mid-line and the next records were appended to the line); {_read_alone(n, 'after it')}")
        return found, ("invalid-json", detail, None, text.rstrip("\r\n"))
    return None


class _NotAnObject(Exception):
    """A whole JSON value that is not an object, where a record should be."""

    def __init__(self, value: object):
        super().__init__()
        self.value = value


def _piece_problem(exc: BaseException, start: int, pos: int, *, unterminated: bool) -> tuple[str, str]:
    """(reason, detail) for a piece of a line that is not whole JSON objects: the piece
    starts at ``start`` in the line, and the object that failed at ``pos`` in the piece."""
    column = start + (exc.pos if isinstance(exc, json.JSONDecodeError) else pos) + 1
    if isinstance(exc, _NotAnObject):
        return "not-an-object", f"expected a JSON object at column {column}, got {_kind(exc.value)}"
    if isinstance(exc, RecursionError):
        return "invalid-json", f"nested too deeply to read, from column {column}"
    msg = getattr(exc, "msg", str(exc)).removesuffix(" at")  # "Unterminated string starting at"
    if unterminated:
        return "truncated-last-line", f"the file ends inside this line (no newline, {msg} at column {column})"
    return "invalid-json", f"{msg} at column {column}"


#: What JSON calls whitespace; Python's ``str.strip()`` also removes form feeds, the
#: ASCII separators (0x1c-0x1f) and Unicode spaces, which make a line neither blank nor JSON.
JSON_WHITESPACE = " \t\r\n"
_JSON_KINDS = {"[": "a list", '"': "a string", "t": "a boolean", "f": "a boolean", "n": "null"}


def _kind(value: object) -> str:
    """What a parsed JSON value that is not an object is, in words."""
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def _refine(problem: str, detail: str | None, text: str, *, unterminated: bool) -> tuple[str, str] | None:
    """Name exactly what is wrong with a line SQL could not parse; ``None`` for a blank line."""
    if problem not in ("invalid-json", "unknown-format"):
        return problem, detail or ""
    stripped = text.strip(JSON_WHITESPACE)
    if not stripped:
        return None
    try:
        value = json.loads(stripped)
    except RecursionError:
        # Python's parser stops at about 1,000 levels; DuckDB reads deeper. Tell what the
        # line is from its first character rather than fail the load.
        kind = _JSON_KINDS.get(stripped[0], "an object" if stripped[0] == "{" else "a number")
        if problem == "unknown-format":  # DuckDB parsed it: only the kind or the keys are wrong
            if kind != "an object":
                return "not-an-object", f"expected a JSON object, got {kind}"
            return "unknown-format", (
                "not one of the four formats (needs eventType, event, failures/must_fix_keys or code); "
                "keys: not listed (nested too deeply)")
        if unterminated:
            return "truncated-last-line", (f"the file ends inside this line (no newline; {kind} nested too "
                                           "deeply to read)")
        return "invalid-json", f"{kind} nested too deeply to read"
    except ValueError as exc:
        msg, where = _json_error(exc, stripped, lead=len(text) - len(text.lstrip(JSON_WHITESPACE)))
        if unterminated:
            return "truncated-last-line", f"the file ends inside this line (no newline, {msg}{where})"
        if stripped.startswith("{") and stripped.endswith("}") and UNESCAPED_QUOTE.search(stripped):
            return "unescaped-quote", f"a double quote inside a string is not escaped ({msg}{where})"
        if _BRACKETS_ONLY.fullmatch(stripped):
            return "invalid-json", (f"a line of only {stripped}: no JSON value of its own (where an array or object "
                                    "written over several lines opens or closes)")
        return "invalid-json", _json_error_detail(exc, stripped, msg, where)
    if isinstance(value, dict) and problem == "invalid-json":
        surrogate = _lone_surrogate(value)
        if surrogate is not None:
            return "invalid-json", (f"\\u{surrogate:04x} is half of a UTF-16 surrogate pair, not a character "
                                    "(a writer cut a pair in two)")
        return "invalid-json", "not standard JSON (NaN, Infinity or nesting too deep)"
    if not isinstance(value, dict):
        kind = _kind(value)
        return "not-an-object", f"expected a JSON object, got {kind}"
    known = sorted(k for k in value if k in FIELDS)
    keys = ", ".join(list(value)[:8]) or "none"
    nulls = [k for k in _MARKERS if k in value and value[k] is None]
    return "unknown-format", (
        "not one of the four formats (needs eventType, event, failures/must_fix_keys or code); "
        f"keys: {keys}" + (f" (known: {', '.join(known)})" if known else "")
        + (f"; {' and '.join(nulls)} {'is' if len(nulls) == 1 else 'are'} null, which counts as absent" if nulls else "")
    )


#: The keys that tell the formats apart.
_MARKERS = tuple(k for f in FORMATS for k in f.marker)


_BOM = "\ufeff"
_BRACKETS_ONLY = re.compile(r"[\[\]{},]+")


def _json_error(exc: ValueError, text: str, *, lead: int = 0) -> tuple[str, str]:
    """(message, " at column N") of a JSON error in ``text``, a line with ``lead`` characters
    of white space cut off its start (the column counts them)."""
    msg = getattr(exc, "msg", str(exc)).removesuffix(" at")  # "Unterminated string starting at"
    pos = getattr(exc, "pos", None)
    return msg, (f" at column {pos + lead + 1}" if isinstance(pos, int) else "")


#: How JSON writes a control character inside a string.
_JSON_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


def _json_error_detail(exc: ValueError, text: str, msg: str, where: str) -> str:
    """What a person needs to see about a JSON error: for the ones shell writers make (a raw
    control character such as a tab or an ANSI escape, a backslash that starts no escape),
    which character and how JSON writes it."""
    pos = getattr(exc, "pos", None)
    char = text[pos] if isinstance(pos, int) and 0 <= pos < len(text) else ""
    if msg == "Invalid control character" and char:
        written = _JSON_ESCAPES.get(char, f"\\u{ord(char):04x}")
        return (f"a control character (U+{ord(char):04X}) inside a string is not escaped{where} "
                f"(JSON writes it {written})")
    if msg == "Invalid \\escape" and char == "\\":
        shown = text[pos : pos + 2]
        return (f"a backslash inside a string is not escaped{where} ({shown} is no JSON escape; "
                "JSON writes a backslash as \\\\)")
    if msg == "Unterminated string starting" and re.search(r'(?<!\\)(\\\\)*\\"\s*[}\]]$', text):
        return (f"{msg}{where} (a backslash at the end of a value escapes its closing quote; "
                "JSON writes a backslash as \\\\)")
    return f"{msg}{where}"


def _lone_surrogate(value: Any) -> int | None:
    """The code of the first lone UTF-16 surrogate in a parsed value (a ``\\ud800`` escape
    with no partner: valid JSON syntax, but no character, so DuckDB refuses the line)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        return ord(exc.object[exc.start])
    except (RecursionError, ValueError):
        return None
    return None
