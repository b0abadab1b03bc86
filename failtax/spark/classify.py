"""Batch classification on Arrow record batches: the function Spark runs on each executor.

:class:`ArrowClassifier` is a small picklable callable. Given an iterator of Arrow
record batches of evidence (the columns :func:`failtax.batch.classify_batch` reads:
``text``, ``exit_code``, ``signal``, ``result_frame``, ``frames``, ``fields``,
``signals``, ``id``) it yields one classified record batch per input batch, row for
row, with exactly the columns of the local batch path. That is the contract of
``DataFrame.mapInArrow``, so Spark uses it unchanged; :meth:`ArrowClassifier.pandas`
does the same for ``mapInPandas``.

The classifier carries its rule table as TOML text (a few KB), never as a Python
object. On the worker, :func:`table_from_text` parses and compiles it once per process
and keeps it in a module-level cache keyed by the text's SHA-256, so every task a
(reused) Python worker runs afterwards finds the compiled matcher ready.

>>> import pyarrow as pa
>>> clf = ArrowClassifier.for_table("agent-run", input_schema=pa.schema([("text", pa.string())]))
>>> batch = pa.record_batch({"text": ["HTTP 429 Too Many Requests", "Killed"]})
>>> [b.column("bucket").to_pylist() for b in clf([batch])]
[['rate_limited', 'killed']]
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from failtax.errors import InputError
from failtax.evidence import EVIDENCE_KEYS
from failtax.table import RuleTable, dump_table, load_table, table_from_mapping

__all__ = [
    "EVIDENCE_COLUMNS",
    "ArrowClassifier",
    "classify_arrow",
    "classify_spark",
    "output_schema",
    "table_cache_info",
    "table_from_text",
]

#: Input columns the batch classifier reads (aliases included); others are ignored.
EVIDENCE_COLUMNS = ("id", *EVIDENCE_KEYS)

_CACHE_SIZE = 16
_TABLES: dict[str, RuleTable] = {}
_PARSES: dict[str, int] = {}
_LOCK = threading.Lock()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def table_from_text(text: str, *, digest: str | None = None) -> RuleTable:
    """The rule table of a TOML text, parsed and compiled once per process.

    Parameters
    ----------
    text : the table as :func:`failtax.table.dump_table` writes it.
    digest : its SHA-256 (hex), when the caller already has it.

    Returns
    -------
    RuleTable, compiled; the same object for the same text until the cache (16 tables)
    is full.

    >>> t = table_from_text(dump_table(load_table("replay")))
    >>> t is table_from_text(dump_table(load_table("replay"))), t.name
    (True, 'replay')
    """
    import tomllib

    key = digest or _digest(text)
    with _LOCK:
        tbl = _TABLES.get(key)
        if tbl is not None:
            return tbl
    try:
        tbl = table_from_mapping(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"rule table text (sha256 {key[:12]}): not TOML: {exc}") from None
    tbl.compiled()
    with _LOCK:
        if len(_TABLES) >= _CACHE_SIZE:
            _TABLES.clear()
        _TABLES.setdefault(key, tbl)
        _PARSES[key] = _PARSES.get(key, 0) + 1
        return _TABLES[key]


def table_cache_info() -> dict[str, Any]:
    """This process's table cache: its pid, and how often each table text was parsed.

    >>> info = table_cache_info(); sorted(info)
    ['parses', 'pid', 'tables']
    """
    with _LOCK:
        return {"pid": os.getpid(), "tables": len(_TABLES), "parses": dict(_PARSES)}


def _resolve(taxonomy: str | None, table: Any) -> RuleTable:
    if table is None and taxonomy is None:
        raise InputError("give a taxonomy name or a table")
    tbl = load_table(table if table is not None else taxonomy)
    if taxonomy is not None and tbl.taxonomy != taxonomy:
        raise InputError(f"table {tbl.name!r} is for taxonomy {tbl.taxonomy!r}, not {taxonomy!r}")
    return tbl


def _classify_table(batch: pa.Table | pa.RecordBatch, table: RuleTable, keep: Sequence[str],
                    schema: pa.Schema) -> pa.Table:
    """One batch through the local batch path, as an Arrow table of ``schema``."""
    from polars import CompatLevel

    from failtax.batch import classify_batch

    if isinstance(batch, pa.RecordBatch):
        batch = pa.Table.from_batches([batch])
    names = set(batch.column_names)
    evidence = batch.select([c for c in batch.column_names if c in EVIDENCE_COLUMNS])
    if evidence.num_columns == 0:  # no evidence at all: every row is "not given"
        evidence = pa.table({"text": pa.nulls(batch.num_rows, pa.string())})
    out = classify_batch(evidence, table=table, n_jobs=1).to_arrow(compat_level=CompatLevel.oldest())
    for i, name in enumerate(keep):
        if name not in names:
            raise InputError(f"column {name!r} to keep is not in the input (have: {', '.join(batch.column_names)})")
        out = out.add_column(i, name, batch.column(name))
    return out.cast(schema) if out.schema != schema else out


def output_schema(table: Any, input_schema: pa.Schema, *, keep: Sequence[str] = (),
                  large_types: bool = False) -> pa.Schema:
    """The Arrow schema of classified batches for inputs of ``input_schema``.

    The columns are those of :func:`failtax.batch.classify_batch` (``id`` only when the
    input has one), preceded by the ``keep`` columns. Strings and lists use 32-bit
    offsets (Spark's Arrow types) unless ``large_types``.

    >>> s = output_schema("replay", pa.schema([("id", pa.string()), ("text", pa.string())]))
    >>> s.names[:4], str(s.field("signals").type)
    (['id', 'taxonomy', 'bucket', 'signals'], 'list<item: string>')
    """
    tbl = load_table(table)
    from polars import CompatLevel

    from failtax.batch import classify_batch

    empty = pa.Table.from_batches([], schema=input_schema)
    evidence = empty.select([c for c in empty.column_names if c in EVIDENCE_COLUMNS])
    if evidence.num_columns == 0:
        evidence = pa.table({"text": pa.nulls(0, pa.string())})
    local = classify_batch(evidence, table=tbl, n_jobs=1).to_arrow(compat_level=CompatLevel.oldest()).schema
    fields = [input_schema.field(k) for k in keep] + list(local)
    return pa.schema([pa.field(f.name, f.type if large_types else _small(f.type), nullable=True) for f in fields])


def _small(t: pa.DataType) -> pa.DataType:
    """32-bit offsets instead of 64-bit ones, recursively (what Spark sends and expects)."""
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return pa.binary()
    if pa.types.is_large_list(t) or pa.types.is_list_view(t) or pa.types.is_list(t):
        return pa.list_(_small(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _small(f.type), nullable=f.nullable) for f in t])
    return t


@dataclass(frozen=True)
class ArrowClassifier:
    """Classify Arrow record batches with one rule table; picklable, for Spark workers.

    Build it with :meth:`for_table`. Calling it on an iterator of record batches yields
    one classified batch per input batch (same rows, same order) whose columns are the
    ``keep`` columns then exactly the local batch path's (:func:`failtax.batch.classify_batch`).

    Attributes: ``table_text`` (the table as TOML), ``digest`` (its SHA-256), ``keep``,
    ``schema`` (the output Arrow schema).
    """

    table_text: str
    digest: str
    keep: tuple[str, ...]
    schema: pa.Schema

    @classmethod
    def for_table(cls, table: Any, *, input_schema: pa.Schema, keep: Sequence[str] = (),
                  large_types: bool = False) -> ArrowClassifier:
        """A classifier for ``table`` (a RuleTable, shipped name or path) and inputs of ``input_schema``.

        Parameters
        ----------
        table : the rule table.
        input_schema : the Arrow schema of the batches it will be given.
        keep : input columns copied to the output, first (e.g. an event id to join on).
        large_types : 64-bit string/list offsets in the output (Spark wants 32-bit).

        >>> clf = ArrowClassifier.for_table("replay", input_schema=pa.schema([("text", pa.string())]))
        >>> clf.schema.names[:3]
        ['taxonomy', 'bucket', 'signals']
        """
        tbl = load_table(table)
        missing = [k for k in keep if k not in input_schema.names]
        if missing:
            raise InputError(f"column(s) to keep not in the input: {', '.join(missing)} "
                             f"(have: {', '.join(input_schema.names)})")
        text = dump_table(tbl)
        schema = output_schema(tbl, input_schema, keep=keep, large_types=large_types)
        return cls(table_text=text, digest=_digest(text), keep=tuple(keep), schema=schema)

    @property
    def table(self) -> RuleTable:
        """The rule table, from this process's cache."""
        return table_from_text(self.table_text, digest=self.digest)

    def __call__(self, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        """Classify each batch; the ``mapInArrow`` function."""
        table = self.table
        for batch in batches:
            if batch.num_rows == 0:
                continue
            yield from _classify_table(batch, table, self.keep, self.schema).to_batches()

    def pandas(self, frames: Iterable[Any]) -> Iterator[Any]:
        """Classify each pandas DataFrame; the ``mapInPandas`` function."""
        table = self.table
        for frame in frames:
            if len(frame) == 0:
                continue
            batch = pa.Table.from_pandas(frame, preserve_index=False)
            yield _classify_table(batch, table, self.keep, self.schema).to_pandas()

    def spark_schema(self) -> Any:
        """The output schema as a Spark ``StructType`` (for ``mapInArrow``/``mapInPandas``)."""
        from pyspark.sql.pandas.types import from_arrow_schema

        return from_arrow_schema(self.schema)


def classify_arrow(data: pa.Table | pa.RecordBatch, *, taxonomy: str | None = None, table: Any = None,
                   keep: Sequence[str] = ()) -> pa.Table:
    """Classify an Arrow table the way a Spark executor does (one batch at a time).

    The answer equals ``classify_batch(data)`` converted to Arrow; useful to check an
    input locally before running it on a cluster.

    >>> t = classify_arrow(pa.table({"text": ["Electron crashed"]}), taxonomy="replay")
    >>> t.column("bucket").to_pylist()
    ['infra']
    """
    tbl = _resolve(taxonomy, table)
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    clf = ArrowClassifier.for_table(tbl, input_schema=data.schema, keep=keep)
    return pa.Table.from_batches(list(clf(data.to_batches())), schema=clf.schema)


def classify_spark(df: Any, *, taxonomy: str | None = None, table: Any = None, keep: Sequence[str] = (),
                   pandas: bool = False) -> Any:
    """Classify every row of a Spark DataFrame of evidence; the local batch path's columns.

    Parameters
    ----------
    df : a ``pyspark.sql.DataFrame`` with evidence columns (``text``, ``exit_code``,
        ``signal``, ``result_frame`` and ``fields`` as JSON text or structs, ``frames``,
        ``signals`` as ``array<string>``, ``id``); other columns are not shipped to Python.
    taxonomy : the taxonomy; its shipped table unless ``table`` is given.
    table : a RuleTable, shipped table name or TOML path.
    keep : columns of ``df`` copied to the output first (e.g. ``event_id``).
    pandas : run through ``mapInPandas`` instead of ``mapInArrow`` (same answers, slower).

    Returns
    -------
    pyspark.sql.DataFrame with the ``keep`` columns, then ``id`` (when given),
    ``taxonomy``, ``bucket``, ``signals``, ``rule`` … ``warnings``, one row per input row.

    Example (needs a SparkSession)::

        from failtax.spark import classify_spark
        out = classify_spark(spark.read.parquet("evidence/"), taxonomy="agent-run", keep=["run_id"])
        out.groupBy("bucket").count().show()
    """
    from pyspark.sql.pandas.types import to_arrow_schema

    tbl = _resolve(taxonomy, table)
    cols = list(dict.fromkeys([*keep, *(c for c in df.columns if c in EVIDENCE_COLUMNS)]))
    if not cols:
        raise InputError(f"no evidence column in the DataFrame (have: {', '.join(df.columns)}; "
                         f"known: {', '.join(EVIDENCE_COLUMNS)})")
    sub = df.select(*cols)
    clf = ArrowClassifier.for_table(tbl, input_schema=to_arrow_schema(sub.schema), keep=keep)
    if pandas:
        return sub.mapInPandas(clf.pandas, clf.spark_schema())
    return sub.mapInArrow(clf, clf.spark_schema())
