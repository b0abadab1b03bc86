"""Batch classification: millions of records, the same answers as :func:`failtax.classify`.

:func:`classify_batch` takes a polars DataFrame or LazyFrame (only the evidence columns
are collected), a pandas DataFrame or an Arrow table whose columns are evidence
(``text``, ``exit_code``, ``signal``, ``result_frame``, ``frames``, ``fields``,
``signals``, ``id``; any may be missing or null) and returns a polars
DataFrame, one row per input row in the same order, with the bucket, every matched
signal, the deciding rule and the bucket's attributes. Row ``i`` carries exactly what
``failtax.classify(row_i)`` returns: a differential test holds the two together.

How it stays fast without giving up exactness:

1. **Match text where it is stored.** Most texts hold no ANSI code, NUL or carriage
   return and are under :data:`~failtax.evidence.MAX_TEXT_CHARS`: their matching text
   *is* the stored string, scanned in polars' own buffers (no copy). The others, and
   rows with a result frame's or in-band error text, go through
   :func:`~failtax.evidence.normalise_text` itself.
2. **One scan for every literal.** A table compiles once (cached on the compiled
   table) into one multi-pattern matcher (:mod:`failtax._scan`: hyperscan, else polars'
   Aho-Corasick) that reports, per row, which case-insensitive literals occur and
   where first. A regex alternative that is just a few strings joins the literals; any
   other runs on RE2, only on rows holding one of its required literals, searching from
   where a match can start.
3. **Resolve with numpy.** Extract rules become a rows × rules boolean matrix
   (contains AND and_contains AND NOT unless AND regex AND the non-text conditions),
   signals a rows × signals matrix (:func:`extract_signal_matrix`, the representation
   the analysis and the tuner share), routes an ordered matrix whose first true column
   decides. The matched line, captured facts, templates and masked secrets are
   computed only for the rows whose answer shows them.
4. **Both cores.** Large frames are split by rows across forked processes (Linux).

:func:`classify_jsonl` streams JSON Lines files through the same engine in chunks of
bytes, across worker processes, in input order, with bounded memory; a bad line gets
an ``{"error": "<file>:<line>: <reason>"}`` answer and the stream goes on.
"""

from __future__ import annotations

import codecs
import itertools
import json
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import orjson
import re2

from failtax._batch_input import Columns, frame_columns, prepare, raw_from_records
from failtax._batch_plan import Plan, plan_for, register_plan
from failtax._batch_resolve import Part, Want, run, singles
from failtax._compressed import READ_ERRORS, decompressing, read_block
from failtax.classify import Classification, classify
from failtax.errors import InputError
from failtax.evidence import Utf16AsUtf8, tail_lines, without_utf8_bom
from failtax.redact import _re2_span, find_secrets, redact
from failtax.table import RuleTable, load_table

__all__ = [
    "classify_batch",
    "classify_jsonl",
    "classify_records",
    "extract_rule_matrix",
    "extract_signal_matrix",
    "parse_jsonl_line",
]


# =========================================================================== public API


def _resolve_table(taxonomy: str | None, table: Any) -> RuleTable:
    if table is None and taxonomy is None:
        raise InputError("give a taxonomy name or a table")
    tbl = load_table(table if table is not None else taxonomy)
    if taxonomy is not None and tbl.taxonomy != taxonomy:
        raise InputError(f"table {tbl.name!r} is for taxonomy {tbl.taxonomy!r}, not {taxonomy!r}")
    return tbl


def classify_batch(data: Any, *, taxonomy: str | None = None, table: Any = None, n_jobs: int | None = None, engine: str | None = None) -> Any:
    """Classify every row of a frame; the same answers as :func:`failtax.classify` per row.

    Parameters
    ----------
    data : a polars DataFrame or LazyFrame, a pandas DataFrame, or a pyarrow Table or
        RecordBatch, with any of the evidence columns ``text`` (also
        ``stderr``/``stderrTail``), ``exit_code``, ``signal``, ``result_frame`` (struct or JSON text), ``frames``, ``fields``
        (struct or JSON text), ``signals`` (list of strings) and ``id``. Missing columns
        and nulls (``None``, ``NaN``) mean "not given"; other columns are ignored (a
        LazyFrame collects only the evidence columns). Column names must be unique.
    taxonomy : the taxonomy name; its shipped table is used unless ``table`` is given.
    table : a :class:`~failtax.RuleTable`, a shipped table name or a TOML path.
    n_jobs : processes to use (``None``: every core once the frame is large enough;
        ``1``: this process only). Splitting needs ``fork`` (Linux).
    engine : the literal matcher, ``"hyperscan"`` or ``"polars"`` (``None``: the
        fastest available). Both give identical results.

    Returns
    -------
    polars.DataFrame
        One row per input row, in input order: ``id`` (when given), ``taxonomy``,
        ``bucket``, ``signals`` (list of strings), ``rule``, ``table_version``, ``title``,
        ``detail``, ``meaning``, ``suggestion``, ``suggestion_text``, ``options``,
        ``retryable``, ``severity``, ``auto_recoverable`` (as text), ``recipe``,
        ``verdict``, ``handling``, ``retry_limit``, ``exit_code``, ``signal``,
        ``matched_line``, ``source_file``, ``source_line`` and ``warnings``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"text": ["HTTP 429 Too Many Requests", "Killed"], "exit_code": [1, 137]})
    >>> classify_batch(df, taxonomy="agent-run")["bucket"].to_list()
    ['rate_limited', 'killed']

    Tips: pass the table once compiled (``load_table(path)``) when classifying many
    frames; the compiled matcher is cached on it.
    """
    tbl = _resolve_table(taxonomy, table)
    plan = plan_for(tbl, engine)
    cols = frame_columns(data, plan)
    parts = run(plan, cols, Want(), n_jobs)
    return _to_frame(plan, cols, parts, singles(cols, tbl))


def classify_records(records: Sequence[Any], *, taxonomy: str | None = None, table: Any = None, n_jobs: int | None = None, engine: str | None = None) -> list[Classification]:
    """Classify many evidence mappings with the batch engine: ``[classify(r) for r in records]``.

    The answers equal :func:`failtax.classify`'s, whole :class:`~failtax.Classification`
    objects included (facts, stderr tail, warnings); ``failtax classify`` writes their
    :meth:`~failtax.Classification.to_dict` for a JSON Lines file.

    >>> [c.bucket for c in classify_records([{"text": "overloaded_error"}, {"exit_code": 0}],
    ...                                      taxonomy="agent-run")]
    ['overloaded', 'no_output']
    """
    tbl = _resolve_table(taxonomy, table)
    plan = plan_for(tbl, engine)
    cols = prepare(raw_from_records(records), plan)
    parts = run(plan, cols, Want(classifications=True), n_jobs)
    return _to_classifications(plan, cols, parts, singles(cols, tbl))


def extract_signal_matrix(data: Any, *, taxonomy: str | None = None, table: Any = None, n_jobs: int | None = None, engine: str | None = None) -> tuple[np.ndarray, tuple[str, ...]]:
    """The records × signals boolean matrix: which signals each row carries.

    A signal is present when an extract rule of the table finds it or the row names it
    (``signals`` column), exactly as :func:`failtax.classify` lists them. Columns are the
    table's signals in table order, then names rows gave that the table does not know.
    Batch classification routes this matrix; the analysis and the tuner reuse it.

    >>> import polars as pl
    >>> m, names = extract_signal_matrix(pl.DataFrame({"text": ["HTTP 429", "ok"]}), taxonomy="agent-run")
    >>> bool(m[0, names.index("http-429")]), bool(m[1].any())
    (True, False)
    """
    tbl = _resolve_table(taxonomy, table)
    plan = plan_for(tbl, engine)
    cols = frame_columns(data, plan)
    parts = run(plan, cols, Want(signal_matrix=True, outputs=False), n_jobs)
    names = plan.signals + cols.vocab_extra
    mat = np.zeros((cols.n, len(names)), dtype=bool)
    for p in parts:
        mat[p.lo : p.hi] = p.signal_matrix
    for i, c in singles(cols, tbl).items():
        mat[i] = [s in c.signals for s in names]
    return mat, names


def extract_rule_matrix(data: Any, *, taxonomy: str | None = None, table: Any = None, n_jobs: int | None = None, engine: str | None = None) -> tuple[np.ndarray, tuple[str, ...]]:
    """The records × extract-rules boolean matrix: which ``[[extract]]`` rules fired per row.

    Columns are the table's extract rule ids in table order: a labelling-function
    matrix in weak-supervision terms (coverage, overlap, conflict per rule).

    >>> import polars as pl
    >>> m, ids = extract_rule_matrix(pl.DataFrame({"text": ["HTTP 429"], "exit_code": [1]}), taxonomy="agent-run")
    >>> [i for i, hit in zip(ids, m[0]) if hit]
    ['http-429']
    """
    from failtax.classify import extract_signals

    tbl = _resolve_table(taxonomy, table)
    plan = plan_for(tbl, engine)
    cols = frame_columns(data, plan)
    parts = run(plan, cols, Want(rule_matrix=True, outputs=False), n_jobs)
    ids = tuple(r.id for r in tbl.extract)
    mat = np.zeros((cols.n, len(ids)), dtype=bool)
    for p in parts:
        mat[p.lo : p.hi] = p.rule_matrix
    rows = set(cols.python_rows)
    for i in rows:
        _sig, fired = extract_signals(cols.raw.record(i), tbl)
        mat[i] = [rid in fired for rid in ids]
    return mat, ids


# =========================================================================== building results


def _list_column(name: str, ptr: np.ndarray, values: Any) -> Any:
    import polars as pl
    import pyarrow as pa

    arr = pa.LargeListArray.from_arrays(pa.array(ptr, type=pa.int64()), values)
    return pl.Series(name, arr)


def _sparse_lists(n: int, rows: Mapping[int, Sequence[str]]) -> tuple[np.ndarray, list[str]]:
    counts = np.zeros(n, dtype=np.int64)
    flat: list[str] = []
    for i in sorted(rows):
        counts[i] = len(rows[i])
        flat.extend(rows[i])
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr, flat


def _to_frame(plan: Plan, cols: Columns, parts: list[Part], singles: dict[int, Classification]) -> Any:
    import polars as pl
    import pyarrow as pa

    n = cols.n
    decision = np.concatenate([p.decision for p in parts])
    route_index = {d["rule"]: k for k, d in enumerate(plan.decisions)}
    for i, c in singles.items():
        decision[i] = route_index[c.rule]
    names = list(plan.signals + cols.vocab_extra)
    # signal lists: the parts' CSR, with the rows classified one by one spliced in
    counts = np.concatenate([np.diff(p.sig_ptr) for p in parts])
    ids = np.concatenate([p.sig_ids for p in parts])
    if singles:
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        keep = np.ones(len(ids), dtype=bool)
        extra_rows: dict[int, list[int]] = {}
        for i, c in singles.items():
            keep[starts[i] : starts[i + 1]] = False
            for s in c.signals:
                if s not in names:
                    names.append(s)
            extra_rows[i] = [names.index(s) for s in c.signals]
            counts[i] = len(c.signals)
        row_of = np.repeat(np.arange(n), np.diff(starts))[keep]
        ids = ids[keep]
        add_rows = np.concatenate([np.full(len(v), i) for i, v in extra_rows.items()] or [np.zeros(0, dtype=np.int64)])
        add_ids = np.concatenate([np.asarray(v, dtype=np.int64) for v in extra_rows.values()] or [np.zeros(0, dtype=np.int64)])
        order = np.argsort(np.concatenate([row_of, add_rows]), kind="stable")
        ids = np.concatenate([ids.astype(np.int64), add_ids])[order]
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    dict_values = pa.array(names or [""], type=pa.large_string())
    sig_values = pa.DictionaryArray.from_arrays(pa.array(ids, type=pa.int32()), dict_values).cast(pa.large_string())
    out: dict[str, Any] = {}
    if cols.raw.ids is not None:
        ids_col = cols.raw.ids
        out["id"] = ids_col if not isinstance(ids_col, list) else pl.Series("id", ids_col, dtype=pl.Object)
    dec_index = pl.Series(decision)

    def per_decision(values: list[Any], dtype: Any) -> Any:
        return pl.Series(values, dtype=dtype).gather(dec_index)

    buckets = [d["bucket_obj"] for d in plan.decisions]
    const = np.zeros(n, dtype=np.int64)
    out["taxonomy"] = pl.Series([plan.taxonomy.name], dtype=pl.String).gather(const)
    out["bucket"] = per_decision([d["bucket"] for d in plan.decisions], pl.String)
    out["signals"] = _list_column("signals", ptr, sig_values)
    out["rule"] = per_decision([d["rule"] for d in plan.decisions], pl.String)
    out["table_version"] = pl.Series([plan.table.version], dtype=pl.String).gather(const)
    title = per_decision([d["title"] for d in plan.decisions], pl.String)
    detail = per_decision([d["detail"] for d in plan.decisions], pl.String)
    over = {r + p.lo: td for p in parts for r, td in p.overrides.items()}
    over.update({i: (c.title, c.detail) for i, c in singles.items()})
    if over:
        rows = np.fromiter(over, dtype=np.int64, count=len(over))
        title = title.scatter(rows, pl.Series([over[i][0] for i in rows.tolist()], dtype=pl.String))
        detail = detail.scatter(rows, pl.Series([over[i][1] for i in rows.tolist()], dtype=pl.String))
    out["title"] = title
    out["detail"] = detail
    out["meaning"] = per_decision([b.meaning for b in buckets], pl.String)
    out["suggestion"] = per_decision([b.suggestion for b in buckets], pl.String)
    out["suggestion_text"] = per_decision([b.suggestion_text for b in buckets], pl.String)
    out["options"] = per_decision([list(b.options) for b in buckets], pl.List(pl.String))
    out["retryable"] = per_decision([d["retryable"] for d in plan.decisions], pl.Boolean)
    out["severity"] = per_decision([b.severity for b in buckets], pl.String)
    out["auto_recoverable"] = per_decision([_as_str(b.auto_recoverable) for b in buckets], pl.String)
    out["recipe"] = per_decision([b.recipe for b in buckets], pl.String)
    out["verdict"] = per_decision([b.verdict for b in buckets], pl.String)
    out["handling"] = per_decision([b.handling for b in buckets], pl.String)
    out["retry_limit"] = per_decision([b.retry_limit for b in buckets], pl.Int64)
    out["exit_code"] = _masked(cols.exit_code, cols.exit_known)
    out["signal"] = _masked(cols.signal, cols.signal_known)
    out["matched_line"] = _matched_lines(n, parts, singles)
    loc = {r + p.lo: fl for p in parts for r, fl in p.located.items()}
    loc.update({i: (c.source_file, c.source_line) for i, c in singles.items() if c.source_file or c.source_line})
    out["source_file"] = _sparse_strings(n, {i: v[0] for i, v in loc.items()})
    sl = pl.Series([None], dtype=pl.Int64).gather(const)
    if loc:
        rows = np.fromiter(loc, dtype=np.int64, count=len(loc))
        sl = sl.scatter(rows, pl.Series([loc[i][1] for i in rows.tolist()], dtype=pl.Int64))
    out["source_line"] = sl
    probs = {i: [redact(w) for w in p] for i, p in cols.problems.items()}
    probs.update({i: list(c.warnings) for i, c in singles.items()})
    wptr, wflat = _sparse_lists(n, probs)
    out["warnings"] = _list_column("warnings", wptr, pa.array(wflat, type=pa.large_string()))
    return pl.DataFrame([v.alias(k) for k, v in out.items()])


def _matched_lines(n: int, parts: list[Part], singles: dict[int, Classification]) -> Any:
    lines = {r + p.lo: s for p in parts for r, s in p.lines.items()}
    lines.update({i: c.matched_line for i, c in singles.items()})
    return _sparse_strings(n, lines)


def _masked(values: np.ndarray, known: np.ndarray) -> Any:
    import polars as pl

    return pl.select(pl.when(pl.Series(known)).then(pl.Series(values))).to_series()


def _sparse_strings(n: int, values: Mapping[int, str | None]) -> Any:
    import polars as pl

    col = pl.Series([None], dtype=pl.String).gather(np.zeros(n, dtype=np.int64))
    if values:
        rows = np.fromiter(values, dtype=np.int64, count=len(values))
        col = col.scatter(rows, pl.Series([values[i] for i in rows.tolist()], dtype=pl.String))
    return col


def _as_str(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _to_classifications(plan: Plan, cols: Columns, parts: list[Part], singles: dict[int, Classification]) -> list[Classification]:
    names = plan.signals + cols.vocab_extra
    tax = plan.taxonomy.name
    version = plan.table.version
    cols.normalise(0, cols.n)  # rows another process normalised for its part
    raw = cols.raw
    ids = raw.ids if isinstance(raw.ids, list) else (raw.ids.to_list() if raw.ids is not None else [None] * cols.n)
    out: list[Classification] = []
    for p in parts:
        bulk = p.lines
        for r in range(p.hi - p.lo):
            i = r + p.lo
            if i in singles:
                out.append(singles[i])
                continue
            d = plan.decisions[int(p.decision[r])]
            bucket = d["bucket_obj"]
            title, detail = p.overrides.get(r, (d["title"], d["detail"]))
            combined = cols.matching_text(i)
            findings = find_secrets(combined)
            shown = redact(combined, findings=findings) if findings else combined
            sf, sl = p.located.get(r, (None, None))
            out.append(
                Classification(
                    taxonomy=tax, bucket=d["bucket"],
                    signals=tuple(names[j] for j in p.sig_ids[p.sig_ptr[r] : p.sig_ptr[r + 1]].tolist()),
                    rule=d["rule"], table_version=version, title=title, detail=detail,
                    meaning=bucket.meaning, suggestion=bucket.suggestion,
                    suggestion_text=bucket.suggestion_text, options=bucket.options,
                    retryable=d["retryable"], severity=bucket.severity,
                    auto_recoverable=bucket.auto_recoverable, recipe=bucket.recipe,
                    verdict=bucket.verdict, handling=bucket.handling, retry_limit=bucket.retry_limit,
                    exit_code=int(cols.exit_code[i]) if cols.exit_known[i] else None,
                    signal=int(cols.signal[i]) if cols.signal_known[i] else None,
                    stderr_tail=tail_lines(shown, 24, 1600), matched_line=bulk.get(r),
                    source_file=sf, source_line=sl, facts=p.facts.get(r, {}), id=ids[i],
                    warnings=tuple(redact(w) for w in cols.problems.get(i, ())),
                )
            )
    return out


# =========================================================================== JSON Lines


#: A run of 19 digits: an integer orjson may read past 64 bits as a float. RE2, not
#: Python's engine, which tries each position in turn: 2.5 µs against 14 µs for a
#: 1.5 KB line, a sixth of a `failtax classify` worker's time per line.
_LONG_NUMBER = re2.compile(rb"[0-9]{19}")


def parse_jsonl_line(raw: bytes, where: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Decode one JSON Lines record: ``(record, None)`` or ``(None, {"error": ...})``.

    >>> parse_jsonl_line(b'{"text": "x"}\\n', "f.jsonl:1")
    ({'text': 'x'}, None)
    >>> parse_jsonl_line(b"[1]", "f.jsonl:2")[1]
    {'error': 'f.jsonl:2: expected a JSON object, got list'}
    """
    line = raw.rstrip(b"\r\n")
    if not line.strip():
        return None, {"error": f"{where}: empty line"}
    if _re2_span(_LONG_NUMBER, line)[0] < 0:  # orjson reads an integer past 64 bits as a float
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError:
            pass  # the standard library decides (it takes NaN and lone surrogates) and says why not
        else:
            if isinstance(rec, dict):
                return rec, None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, {"error": f"{where}: invalid UTF-8 at byte {exc.start}"}
    try:
        rec = json.loads(text)
    except ValueError as exc:
        return None, {"error": f"{where}: not valid JSON ({exc.msg} at column {exc.colno})"}
    except RecursionError:
        return None, {"error": f"{where}: JSON nested too deeply to read"}
    if not isinstance(rec, dict):
        return None, {"error": f"{where}: expected a JSON object, got {type(rec).__name__}"}
    return rec, None


#: Bytes of JSON Lines handed to a worker at a time.
CHUNK_BYTES = 4 * 1024 * 1024


def _dump_line(obj: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(obj, default=str, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_SERIALIZE_NUMPY)
    except TypeError:  # lone surrogates, integers past 64 bits: the standard library writes them
        pass
    s = json.dumps(obj, ensure_ascii=False, default=str)
    try:
        return s.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # lone surrogates from \ud8xx escapes: keep them escaped
        return json.dumps(obj, ensure_ascii=True, default=str).encode("ascii") + b"\n"


def classify_chunk(chunk: tuple[str, int, bytes], *, table: RuleTable, engine: str | None = None) -> tuple[bytes, int]:
    """Classify one chunk of JSON Lines ``(file, number of its first line, bytes)``.

    Returns the output lines (one per input line, in order) and how many were errors.
    """
    where, first, data = chunk
    pieces = data.split(b"\n")
    if data.endswith(b"\n"):
        pieces.pop()
    recs: list[dict[str, Any]] = []
    slots: list[Any] = []
    errors = 0
    for k, raw in enumerate(pieces):
        rec, err = parse_jsonl_line(raw, f"{where}:{first + k}")
        if err is not None:
            slots.append(err)
            errors += 1
        else:
            slots.append(len(recs))
            recs.append(rec)
    try:
        results: list[Any] = classify_records(recs, table=table, n_jobs=1, engine=engine) if recs else []
    except Exception as exc:  # a fault of the batch path costs no line: each is classified alone
        results = _one_by_one(recs, table, f"{where}:{first}-{first + len(pieces) - 1}", exc)
    out = bytearray()
    for k, s in enumerate(slots):
        if isinstance(s, int):
            got = results[s]
            if isinstance(got, Exception):
                got = {"error": f"{where}:{first + k}: internal error: {type(got).__name__}: {got}"}
                errors += 1
            else:
                got = got.to_dict()
            out += _dump_line(got)
        else:
            out += _dump_line(s)
    return bytes(out), errors


def _one_by_one(recs: list[dict[str, Any]], table: RuleTable, lines: str, exc: Exception) -> list[Any]:
    """Each record classified by :func:`failtax.classify` (an exception where that fails
    too), after the batch path failed on lines ``lines``; says so on stderr."""
    print(f"failtax: {lines}: batch classification failed ({type(exc).__name__}: {exc}); "
          "classifying these lines one by one", file=sys.stderr, flush=True)
    out: list[Any] = []
    for rec in recs:
        try:
            out.append(classify(rec, table=table))
        except Exception as one:
            out.append(one)
    return out


@dataclass(frozen=True)
class ReadFailure:
    """Where an input stopped reading part way (a truncated or corrupt gzip stream, an
    I/O error): every line before ``line`` was read, none from it on. The readers below
    yield one in the file's place and go on with the next file; ``str()`` is the
    ``error`` text, ``<file>:<line>: <reason>``."""

    where: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: cannot read from this line on: {self.reason}"


def iter_lines(paths: Sequence[str]) -> Iterator[tuple[str, int, bytes] | ReadFailure]:
    """``(file, line number, raw line)`` of JSON Lines files (``-`` or none: stdin; gzip,
    bzip2, xz and zstd read decompressed), and a :class:`ReadFailure` where a file could
    not be read to its end.
    Raises :class:`InputError` naming a file that cannot be opened."""
    for chunk in _iter_chunks(tuple(paths) or ("-",), 1 << 22):
        if isinstance(chunk, ReadFailure):
            yield chunk
            continue
        name, first, data = chunk
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for i, raw in enumerate(lines):
            yield name, first + i, raw


def _iter_chunks(paths: Sequence[str], chunk_bytes: int) -> Iterator[tuple[str, int, bytes] | ReadFailure]:
    """``(file, number of the first line, whole lines)`` of about ``chunk_bytes`` each; a
    file that fails part way ends with a :class:`ReadFailure` after the lines read before."""
    for path in paths:
        if path == "-":
            fh: BinaryIO = open_stdin()
            name = "<stdin>"
            close = False
        else:
            fh = open_input(path)
            name = path
            close = True
        opened, fh = fh, _as_utf8(fh)
        try:
            line_no = 1
            rest = b""
            at_start = True  # a UTF-8 byte order mark opening the file is not part of line 1
            while True:
                block, failed = read_block(fh, chunk_bytes)
                if not block and failed is None:
                    break
                block = rest + block
                if at_start and (head := without_utf8_bom(block)) is not None:
                    at_start, block = False, head
                cut = block.rfind(b"\n") + 1
                rest = block[cut:]
                if cut:
                    data = block[:cut]
                    yield name, line_no, data
                    line_no += data.count(b"\n")
                if failed is not None:  # nothing after was read: an unfinished line goes with it
                    yield ReadFailure(name, line_no, failed)
                    rest = b""
                    break
            if rest:
                yield name, line_no, rest
        finally:
            if close:
                opened.close()


def _as_utf8(fh: BinaryIO) -> BinaryIO:
    """``fh``, read as UTF-8 when it opens with a UTF-16 byte order mark (what a PowerShell
    ``>`` redirect writes); the loader reads such files the same way."""
    peek = getattr(fh, "peek", None)
    try:
        head = peek(2)[:2] if peek is not None else b""
    except READ_ERRORS:  # a broken compressed stream: the first read says so
        return fh
    return Utf16AsUtf8(fh) if head in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else fh  # type: ignore[return-value]


def open_input(path: str) -> BinaryIO:
    """``path`` opened for reading, decompressed when it is gzip, bzip2, xz or zstd (told
    by its first bytes, whatever its name); :class:`InputError` when it cannot be opened."""
    try:
        raw = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None
    return decompressing(raw)


def open_stdin() -> BinaryIO:
    """Standard input, decompressed when what is piped in is compressed (closing what
    this returns closes standard input)."""
    return decompressing(sys.stdin.buffer)


_WORKER_TABLE: RuleTable | None = None


def _worker_init(table: RuleTable, engine: str | None, plan: Plan | None) -> None:
    global _WORKER_TABLE, _WORKER_ENGINE
    _WORKER_TABLE = table
    _WORKER_ENGINE = engine
    if plan is not None:  # compiled in the parent: a spawned worker need not compile again
        register_plan(table, engine, plan)
    plan_for(table, engine)


_WORKER_ENGINE: str | None = None


def _worker_chunk(chunk: tuple[str, int, bytes]) -> tuple[bytes, int]:
    assert _WORKER_TABLE is not None
    return classify_chunk(chunk, table=_WORKER_TABLE, engine=_WORKER_ENGINE)


def _binary(out: Any) -> Any:
    """A writer of UTF-8 bytes onto ``out`` (a binary stream, or a text one)."""
    if hasattr(out, "buffer"):
        return out.buffer
    try:
        out.write(b"")
    except TypeError:
        return _TextWriter(out)
    return out


class _Answered:
    """An answer known without a worker, queued like a worker's (``get()``)."""

    def __init__(self, value: tuple[bytes, int]):
        self._value = value

    def get(self) -> tuple[bytes, int]:
        return self._value


class _TextWriter:
    def __init__(self, out: Any):
        self._out = out

    def write(self, data: bytes) -> None:
        self._out.write(data.decode("utf-8", "surrogateescape"))


def classify_jsonl(paths: Sequence[str], *, table: RuleTable, out: Any, n_jobs: int | None = None, chunk_bytes: int = CHUNK_BYTES, engine: str | None = None, progress: Callable[[int], Any] | None = None) -> int:
    """Classify JSON Lines files (``"-"`` = stdin) into ``out``, one JSON line per input line.

    ``out`` is a binary stream, or a text stream (its ``buffer`` is written to).

    Input is read in chunks of about ``chunk_bytes`` bytes, classified by ``n_jobs``
    worker processes (``None``: every core; ``1``: in this process) and written in input
    order, so memory stays bounded by a few chunks however large the files are. A bad
    line (invalid UTF-8 or JSON, not an object, empty) is answered with
    ``{"error": "<file>:<line>: <reason>"}`` and the stream goes on; so does a file that
    cannot be read to its end (a truncated or corrupt ``.gz``): its lines up to there are
    answered, then one error line names the first line not read. Should the batch
    engine fail on a chunk, its lines are classified one by one with
    :func:`failtax.classify` (said once on stderr), and only a line that fails there too
    is answered with an ``internal error`` line. ``progress``, when given, is called with
    the number of input bytes of each chunk once its answers are written (a progress
    bar's ``update``).

    Returns the number of error lines written.
    """
    out = _binary(out)
    advance = progress or (lambda n: None)
    jobs = (os.cpu_count() or 1) if n_jobs is None else max(1, int(n_jobs))
    chunks = _iter_chunks(paths, chunk_bytes)

    def here(chunks: Iterable[tuple[str, int, bytes] | ReadFailure]) -> int:
        errors = 0
        for chunk in chunks:
            if isinstance(chunk, ReadFailure):
                out.write(_dump_line({"error": str(chunk)}))
                errors += 1
                continue
            data, e = classify_chunk(chunk, table=table, engine=engine)
            out.write(data)
            advance(len(chunk[2]))
            errors += e
        return errors

    if jobs == 1:
        return here(chunks)
    head = list(itertools.islice(chunks, 2))
    if len(head) < 2:  # small inputs are not worth starting workers for
        return here(head)
    import multiprocessing as mp

    # Forked workers start with the table compiled here; a process that already runs
    # polars' threads must not fork, so its workers are spawned and compile their own.
    plan = plan_for(table, engine)
    if sys.platform.startswith("linux") and "polars" not in sys.modules:
        ctx, shipped = mp.get_context("fork"), None
    else:
        ctx, shipped = mp.get_context("spawn"), plan
    refused: OSError | None = None  # the output refused a write (a full disk, a closed pipe)
    with ctx.Pool(jobs, initializer=_worker_init, initargs=(table, engine, shipped)) as pool:
        errors = 0
        pending: deque[tuple[int, Any]] = deque()

        def write_oldest() -> int:
            nonlocal refused
            size, answer = pending.popleft()
            data, e = answer.get()
            if refused is None:
                try:
                    out.write(data)
                except OSError as exc:
                    refused = exc
                advance(size)
            return e

        for chunk in itertools.chain(head, chunks):
            if refused is not None:
                break
            if isinstance(chunk, ReadFailure):  # answered here, in its place in the output
                pending.append((0, _Answered((_dump_line({"error": str(chunk)}), 1))))
            else:
                pending.append((len(chunk[2]), pool.apply_async(_worker_chunk, (chunk,))))
            while len(pending) >= 2 * jobs:
                errors += write_oldest()
        # The chunks under way are finished (at most two per worker) before the pool is
        # closed, also when the output refused a write: terminating workers in the middle
        # of a task can leave the pool waiting forever on a lock one of them held.
        while pending:
            errors += write_oldest()
    if refused is not None:
        raise refused
    return errors
