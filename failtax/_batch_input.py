"""Evidence columns for batch classification (private; see :mod:`failtax.batch`).

Turns a polars, pandas or Arrow frame, or a list of evidence mappings, into
:class:`Columns`: where each row's matching text lives (zero-copy views into polars'
string buffers for text that needs no normalising; buffers built by polars, or by
:func:`~failtax.evidence.normalise_text` itself, for the rest), typed arrays of exit
codes and signals, and the few per-row facts (frames, fields, named signals, problems)
that the resolution reads. Values are checked with the very helpers
:meth:`Evidence.from_record <failtax.evidence.Evidence.from_record>` uses, so a row
means here what it means to :func:`failtax.classify`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from failtax._batch_plan import Plan
from failtax._scan import Segment
from failtax.errors import InputError
from failtax.evidence import (
    EXIT_CODE_KEYS,
    FRAME_KEYS,
    MAX_TEXT_CHARS,
    TEXT_KEYS,
    _as_frame,
    _as_int,
    _as_signal,
    _as_signals,
    _as_text,
    _first,
    _inband_text,
    frame_error_text,
    is_error_result_frame,
    normalise_text,
    unread_keys_problem,
)

__all__ = ["Columns", "RawColumns", "frame_columns", "raw_from_frame", "raw_from_records", "prepare"]

#: A character class of what normalise_text() changes: NUL, ESC, CR and the 8-bit
#: C1 escape introducers (one regex pass is far quicker than a multi-literal one).
_DIRTY = "[\x00\x1b\r\x90\x98\x9b\x9d\x9e\x9f]"


@dataclass(frozen=True)
class _Sparse:
    """Per-row values for a few rows: sorted row numbers and their values."""

    rows: np.ndarray
    values: list[Any]

    @classmethod
    def of(cls, d: Mapping[int, Any]) -> _Sparse:
        rows = np.array(sorted(d), dtype=np.int64)
        return cls(rows, [d[i] for i in rows.tolist()])

    def between(self, lo: int, hi: int) -> Iterator[tuple[int, Any]]:
        """(row, value) for rows in ``lo..hi``."""
        a, z = np.searchsorted(self.rows, [lo, hi])
        return zip(self.rows[a:z].tolist(), self.values[a:z], strict=True)


@dataclass
class _Pending:
    """Rows (sorted) whose text normalise_text changes, and the parts their text joins."""

    rows: np.ndarray
    done: np.ndarray
    text: Any
    frame_text: dict[int, str]
    inband: dict[int, str]
    py_text: dict[int, str]
    left: int = -1  # rows not normalised yet

    def __post_init__(self) -> None:
        self.left = int((~self.done).sum())


@dataclass
class Columns:
    """Evidence of ``n`` rows, ready for the scan and the resolution."""

    n: int
    buffers: list[Any]  # byte buffers holding the texts of fast rows
    row_buf: np.ndarray  # int64, index into buffers; -1: no text to scan from a buffer
    row_start: np.ndarray  # int64
    row_len: np.ndarray  # int64
    exit_code: np.ndarray
    exit_known: np.ndarray
    signal: np.ndarray
    signal_known: np.ndarray
    frame_error: np.ndarray
    subtype: _Sparse  # the frame's "subtype" (rows with a non-empty frame)
    fields: _Sparse  # non-empty fields
    given: _Sparse  # signals the tool named
    problems: dict[int, list[str]]
    python_rows: dict[int, Any]  # row -> record: classified one by one with classify()
    raw: RawColumns  # the input columns, to rebuild a row's record
    vocab_extra: tuple[str, ...] = ()  # given signal names the table does not know
    texts: list[str] | None = None  # the texts as Python strings, when they were converted
    pending: _Pending | None = None  # rows whose matching text is still to be normalised

    def normalise(self, lo: int, hi: int) -> None:
        """Build the matching text of the rows in ``lo..hi`` that need normalising (once).

        Deferred from :func:`prepare` so that each process of a split run normalises
        only its own rows.
        """
        p = self.pending
        if p is None or p.left == 0:
            return
        a, z = np.searchsorted(p.rows, [lo, hi])
        todo = np.flatnonzero(~p.done[a:z]) + a
        if len(todo):
            _normalise_rows(p.rows[todo], p.text, p.frame_text, p.inband, p.py_text,
                            self.buffers, self.row_buf, self.row_start, self.row_len)
            p.done[todo] = True
            p.left -= len(todo)

    def matching_text(self, i: int) -> str:
        """Row ``i``'s normalised matching text (:meth:`Evidence.combined_text`)."""
        self.normalise(i, i + 1)
        b = int(self.row_buf[i])
        if b < 0:
            return ""
        s = int(self.row_start[i])
        return bytes(memoryview(self.buffers[b])[s : s + int(self.row_len[i])]).decode("utf-8")


class RawColumns:
    """Per evidence field: a typed polars Series, a Python list, or None (absent)."""

    def __init__(self, n: int, records: Sequence[Any] | None = None):
        self.n = n
        self.records = records
        self.values: dict[str, Any] = {}
        self.ids: Any = None
        self.python_rows: dict[int, Any] = {}

    def record(self, i: int) -> Any:
        """Row ``i`` as the evidence mapping :func:`failtax.classify` would be given."""
        if self.records is not None:
            return self.records[i]
        rec = {}
        for key, col in (*self.values.items(), ("id", self.ids)):
            if col is None:
                continue
            rec[key] = col[i] if isinstance(col, list) else col.gather([i]).to_list()[0]
        return rec


def _is_polars_frame(data: Any) -> bool:
    return type(data).__module__.startswith("polars") and type(data).__name__ == "DataFrame"


def _to_polars(data: Any) -> Any:
    """Any supported frame as a polars DataFrame (columns that polars cannot type become Object)."""
    import polars as pl

    if _is_polars_frame(data):
        return data
    if isinstance(data, pl.LazyFrame):
        # Only the columns classification reads are collected, so a scan_parquet or
        # scan_ndjson plan reads nothing else from disk.
        names = data.collect_schema().names()
        wanted = [n for n in names if n in EVIDENCE_COLUMNS] or names[:1]  # one column keeps the row count
        return data.select(wanted).collect()
    mod = type(data).__module__
    if mod.startswith("pyarrow"):
        import pyarrow as pa

        if isinstance(data, pa.RecordBatch):
            data = pa.Table.from_batches([data])
        if isinstance(data, pa.Table):
            _refuse_repeated(data.column_names)
            return pl.from_arrow(data, rechunk=False)
    if mod.startswith("pandas"):
        import pandas as pd

        if isinstance(data, pd.DataFrame):
            _refuse_repeated([str(name) for name in data.columns])
            cols = {}
            for name in data.columns:
                s = data[name]
                try:
                    cols[str(name)] = pl.from_pandas(s, nan_to_null=True)
                except Exception:  # mixed Python objects: keep them as they are
                    cols[str(name)] = pl.Series(str(name), [_pandas_null(v) for v in s.tolist()], dtype=pl.Object)
            return pl.DataFrame(cols)
    raise InputError(
        "classify_batch takes a polars DataFrame or LazyFrame, a pandas DataFrame or a pyarrow "
        f"Table, got {type(data).__name__}"
    )


#: The columns :func:`raw_from_frame` reads under their own name (beside the text, exit
#: code and frame spellings and ``id``).
_PLAIN_KEYS = ("signal", "frames", "fields", "signals")
#: Every column :func:`raw_from_frame` reads; a LazyFrame collects only these.
EVIDENCE_COLUMNS = frozenset((*TEXT_KEYS, *EXIT_CODE_KEYS, *FRAME_KEYS, *_PLAIN_KEYS, "id"))


def _refuse_repeated(names: Sequence[str]) -> None:
    """A frame naming one column twice has no one value per row for it: say which."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(f"classify_batch: the column {name!r} appears more than once; names must be unique")
        seen.add(name)


def _pandas_null(v: Any) -> Any:
    if v is None:
        return None
    try:
        import pandas as pd

        if v is pd.NA or v is pd.NaT:
            return None
    except ImportError:  # pragma: no cover
        pass
    if isinstance(v, float) and v != v:
        return None
    return v


def raw_from_frame(df: Any) -> RawColumns:
    import polars as pl

    raw = RawColumns(df.height)
    names = set(df.columns)

    def pick(keys: Sequence[str]) -> Any:
        present = [k for k in keys if k in names]
        if not present:
            return None
        if len(present) == 1:
            return df[present[0]]
        cols = [df[k] for k in present]
        if all(c.dtype == pl.String for c in cols):
            return pl.select(pl.coalesce(cols)).to_series()
        lists = [c.to_list() for c in cols]
        return [next((v for v in vals if v is not None), None) for vals in zip(*lists, strict=True)]

    raw.values["text"] = pick(TEXT_KEYS)
    raw.values["exit_code"] = pick(EXIT_CODE_KEYS)
    raw.values["result_frame"] = pick(FRAME_KEYS)
    for key in _PLAIN_KEYS:
        raw.values[key] = df[key] if key in names else None
    # JSON text in a string column of objects/lists is decoded, as result_frame's is.
    for key, kind in (("fields", Mapping), ("frames", list)):
        col = raw.values[key]
        if col is not None and not isinstance(col, list) and col.dtype == pl.String:
            raw.values[key] = [_decode_json(v, kind) for v in col.to_list()]
    if "id" in names:
        raw.ids = df["id"]
    return raw


def _decode_json(v: Any, kind: type) -> Any:
    if not isinstance(v, str):
        return v
    try:
        out = json.loads(v)
    except ValueError:
        return v
    return out if isinstance(out, kind) else v


def raw_from_records(records: Sequence[Any]) -> RawColumns:
    raw = RawColumns(len(records), records)
    text, exit_code, frame, signal, frames, fields, signals, ids = ([] for _ in range(8))
    for i, rec in enumerate(records):
        if not isinstance(rec, Mapping):
            raw.python_rows[i] = rec
            rec = {}
        elif unread_keys_problem(rec) is not None:  # classify() words the warning
            raw.python_rows[i] = rec
        text.append(_first(rec, TEXT_KEYS))
        exit_code.append(_first(rec, EXIT_CODE_KEYS))
        frame.append(_first(rec, FRAME_KEYS))
        signal.append(rec.get("signal"))
        frames.append(rec.get("frames"))
        fields.append(rec.get("fields"))
        signals.append(rec.get("signals"))
        ids.append(rec.get("id"))
    raw.values.update(
        text=text, exit_code=exit_code, result_frame=frame, signal=signal,
        frames=frames, fields=fields, signals=signals,
    )
    raw.ids = ids
    return raw


def _values(col: Any) -> list[Any]:
    return col if isinstance(col, list) else col.to_list()


def _int_column(col: Any, n: int, name: str, problems: dict[int, list[str]], *, signal: bool) -> tuple[np.ndarray, np.ndarray]:
    import polars as pl

    vals = np.zeros(n, dtype=np.int64)
    known = np.zeros(n, dtype=bool)
    if col is None:
        return vals, known
    if not isinstance(col, list) and col.dtype.is_integer():
        ok = col.is_not_null().to_numpy()
        v = col.fill_null(0).cast(pl.Int64, strict=False).fill_null(0).to_numpy()
        inrange = (v >= -(2**31)) & (v < 2**31)
        if col.dtype in (pl.UInt64,):  # values beyond int64 never fit
            inrange &= col.fill_null(0).le(2**31 - 1).to_numpy()
        good = ok & inrange
        vals[good] = v[good]
        known[good] = True
        bad = np.flatnonzero(ok & ~inrange)
        if len(bad):
            pyvals = col.gather(bad).to_list()
            for i, x in zip(bad.tolist(), pyvals, strict=True):
                _set_int(i, x, name, problems, vals, known, signal)
        return vals, known
    for i, x in enumerate(_values(col)):
        if x is not None:
            _set_int(i, x, name, problems, vals, known, signal)
    return vals, known


def _set_int(i: int, x: Any, name: str, problems: dict[int, list[str]], vals: np.ndarray, known: np.ndarray, signal: bool) -> None:
    probs: list[str] = []
    v = _as_signal(x, probs) if signal else _as_int(x, name, probs)
    if probs:
        problems.setdefault(i, []).extend(probs)
    if v is not None:
        vals[i] = v
        known[i] = True


def prepare(raw: RawColumns, plan: Plan) -> Columns:
    """Turn raw columns into scan-ready buffers, typed arrays and per-row exceptions."""
    import polars as pl

    n = raw.n
    problem_parts: dict[str, dict[int, list[str]]] = {k: {} for k in ("text", "exit", "signal", "frame", "frames", "fields", "signals")}

    # ---- text
    text_col = raw.values.get("text")
    texts: list[str] | None = None
    py_text: dict[int, str] = {}
    if text_col is None:
        text_series = pl.Series("text", [None] * n, dtype=pl.String) if n else pl.Series("text", [], dtype=pl.String)
    elif isinstance(text_col, list) or text_col.dtype != pl.String:
        texts = []
        probs = problem_parts["text"]
        for i, v in enumerate(_values(text_col)):
            p: list[str] = []
            t = _as_text(v, "text", p)
            if p:
                probs[i] = p
            texts.append(t)
        try:
            text_series = pl.Series("text", texts, dtype=pl.String)
        except Exception:  # text polars cannot hold (lone surrogates): normalised in Python
            for i, t in enumerate(texts):
                if not _utf8_ok(t):
                    py_text[i] = t
            text_series = pl.Series("text", [("" if i in py_text else t) for i, t in enumerate(texts)], dtype=pl.String)
    else:
        text_series = text_col

    # ---- exit code, signal
    exit_code, exit_known = _int_column(raw.values.get("exit_code"), n, "exit_code", problem_parts["exit"], signal=False)
    sig, sig_known = _int_column(raw.values.get("signal"), n, "signal", problem_parts["signal"], signal=True)

    # ---- result frame
    frame_error = np.zeros(n, dtype=bool)
    subtype: dict[int, Any] = {}
    frame_text: dict[int, str] = {}
    fcol = raw.values.get("result_frame")
    if fcol is not None and (isinstance(fcol, list) or fcol.dtype != pl.Null):
        rows = _nonnull_rows(fcol)
        vals = _gather(fcol, rows)
        probs = problem_parts["frame"]
        for i, v in zip(rows, vals, strict=True):
            p = []
            fr = _as_frame(v, p)
            if p:
                probs[i] = p
            if fr is None:
                continue
            if is_error_result_frame(fr):
                frame_error[i] = True
            if fr:
                subtype[i] = fr.get("subtype")
            ft = frame_error_text(fr)
            if ft:
                frame_text[i] = ft

    # ---- in-band frames
    inband: dict[int, str] = {}
    fcol = raw.values.get("frames")
    if fcol is not None and (isinstance(fcol, list) or fcol.dtype != pl.Null):
        rows = _nonnull_rows(fcol)
        probs = problem_parts["frames"]
        for i, v in zip(rows, _gather(fcol, rows), strict=True):
            if isinstance(v, list | tuple):
                if v:
                    t = _inband_text(tuple(v))
                    if t:
                        inband[i] = t
            else:
                probs[i] = ["frames: expected a list"]

    # ---- fields
    fields: dict[int, dict[str, Any]] = {}
    fcol = raw.values.get("fields")
    if fcol is not None and (isinstance(fcol, list) or fcol.dtype != pl.Null):
        rows = _nonnull_rows(fcol)
        probs = problem_parts["fields"]
        for i, v in zip(rows, _gather(fcol, rows), strict=True):
            if isinstance(v, Mapping):
                if v:
                    fields[i] = dict(v)
            else:
                probs[i] = ["fields: expected an object"]

    # ---- given signals
    given: dict[int, tuple[str, ...]] = {}
    extra: dict[str, None] = {}
    scol = raw.values.get("signals")
    if scol is not None and (isinstance(scol, list) or scol.dtype != pl.Null):
        rows = _nonnull_rows(scol)
        probs = problem_parts["signals"]
        cache: dict[Any, tuple[tuple[str, ...], list[str]]] = {}
        for i, v in zip(rows, _gather(scol, rows), strict=True):
            key = _hashable(v)
            hit = cache.get(key) if key is not None else None
            if hit is None:
                p: list[str] = []
                hit = (_as_signals(v, p), p)
                if key is not None:
                    cache[key] = hit
            names, p = hit
            if p:
                probs[i] = list(p)
            if names:
                given[i] = names
                for s in names:
                    if s not in plan.sig_index:
                        extra.setdefault(s, None)

    problems: dict[int, list[str]] = {}
    for part in problem_parts.values():
        for i, p in part.items():
            problems.setdefault(i, []).extend(p)

    # ---- which rows are matched on their stored text as is
    buffers, row_buf, row_start, row_len = _text_buffers(text_series)
    clean = np.ones(n, dtype=bool)
    if n:
        # what normalise_text() changes: NULs, ESC and 8-bit C1 escape introducers,
        # carriage returns, and text past the size cap (lone surrogates cannot be here)
        dirty = (
            text_series.str.contains(_DIRTY).fill_null(False)
            | text_series.str.len_bytes().fill_null(0).gt(MAX_TEXT_CHARS)
        )
        clean = ~dirty.to_numpy()
    for d in (frame_text, inband, py_text, raw.python_rows):
        for i in d:
            clean[i] = False
    slow_rows = np.array([i for i in np.flatnonzero(~clean).tolist() if i not in raw.python_rows], dtype=np.int64)
    row_buf[np.flatnonzero(~clean)] = -1
    pending = None
    if len(slow_rows):
        pending = _Pending(slow_rows, np.zeros(len(slow_rows), dtype=bool), text_series, frame_text, inband, py_text)

    return Columns(
        n=n, buffers=buffers, row_buf=row_buf, row_start=row_start, row_len=row_len,
        exit_code=exit_code, exit_known=exit_known, signal=sig, signal_known=sig_known,
        frame_error=frame_error, subtype=_Sparse.of(subtype), fields=_Sparse.of(fields),
        given=_Sparse.of(given), problems=problems, python_rows=raw.python_rows, raw=raw,
        vocab_extra=tuple(extra), texts=texts, pending=pending,
    )


def _normalise_rows(rows: np.ndarray, text: Any, frame_text: dict[int, str], inband: dict[int, str], py_text: dict[int, str],
                    buffers: list[Any], row_buf: np.ndarray, row_start: np.ndarray, row_len: np.ndarray) -> None:
    """Build the matching text of rows that need normalising, and point the rows at it.

    :meth:`Evidence.combined_text`: each present part (text, the frame's error text,
    in-band errors) through :func:`~failtax.evidence.normalise_text`, joined by
    newlines. Only these rows pay for Python; the others are matched as stored.
    """
    rows_l = rows.tolist()
    stored = text.gather(rows).to_list()
    encoded = []
    for i, t in zip(rows_l, stored, strict=True):
        t = py_text.get(i, t) or ""
        parts = [normalise_text(t)] if t else []
        for part in (frame_text.get(i), inband.get(i)):
            if part:
                parts.append(normalise_text(part))
        encoded.append("\n".join(parts).encode("utf-8"))
    seg = Segment.from_texts(encoded, rows)
    buffers.append(seg.buffer)
    row_buf[seg.rows] = np.where(seg.lengths > 0, len(buffers) - 1, -1)
    row_start[seg.rows] = seg.starts
    row_len[seg.rows] = seg.lengths


def _utf8_ok(t: str) -> bool:
    try:
        t.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _hashable(v: Any) -> Any:
    if isinstance(v, list | tuple) and all(isinstance(x, str) for x in v):
        return tuple(v)
    if isinstance(v, str):
        return ("\x00str", v)
    return None


def _nonnull_rows(col: Any) -> list[int]:
    if isinstance(col, list):
        return [i for i, v in enumerate(col) if v is not None]
    return np.flatnonzero(col.is_not_null().to_numpy()).tolist()


def _gather(col: Any, rows: list[int]) -> list[Any]:
    if isinstance(col, list):
        return [col[i] for i in rows]
    return col.gather(rows).to_list() if rows else []


def _text_buffers(text: Any) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray]:
    """Where each row's UTF-8 text lives: (buffers, buffer index, start, length) per row.

    polars keeps strings as Arrow string views: texts longer than 12 bytes sit in data
    buffers (zero copy); shorter ones are inlined in the view and copied into one small
    buffer. If views overlap (rows sharing bytes), the column is copied contiguously.
    """
    import pyarrow as pa
    import polars as pl

    n = len(text)
    row_buf = np.full(n, -1, dtype=np.int64)
    row_start = np.zeros(n, dtype=np.int64)
    row_len = np.zeros(n, dtype=np.int64)
    buffers: list[Any] = []
    if n == 0:
        return buffers, row_buf, row_start, row_len
    arrow = text.to_arrow(compat_level=pl.CompatLevel.newest())
    chunks = arrow.chunks if isinstance(arrow, pa.ChunkedArray) else [arrow]
    base = 0
    for chunk in chunks:
        m = len(chunk)
        if m == 0:
            continue
        if pa.types.is_string_view(chunk.type) and _views_ok(chunk):
            _from_views(chunk, base, buffers, row_buf, row_start, row_len)
        else:
            large = chunk.cast(pa.large_string())
            bufs = large.buffers()
            offsets = np.frombuffer(bufs[1], dtype=np.int64)[large.offset : large.offset + m + 1]
            valid = _valid(large)
            lens = np.diff(offsets)
            sel = valid & (lens > 0)
            if bufs[2] is not None:
                buffers.append(bufs[2])
                rows = base + np.flatnonzero(sel)
                row_buf[rows] = len(buffers) - 1
                row_start[rows] = offsets[:-1][sel]
                row_len[rows] = lens[sel]
        base += m
    return buffers, row_buf, row_start, row_len


def _valid(chunk: Any) -> np.ndarray:
    """Which rows of an Arrow array are not null, read from its validity bitmap (pyarrow's
    own conversion of a boolean array imports pandas, half a second of a new process)."""
    n = len(chunk)
    bitmap = chunk.buffers()[0]
    if bitmap is None:
        return np.ones(n, dtype=bool)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[chunk.offset : chunk.offset + n].astype(bool)


def _view_arrays(chunk: Any) -> tuple[np.ndarray, np.ndarray]:
    bufs = chunk.buffers()
    raw = np.frombuffer(bufs[1], dtype=np.uint8).reshape(-1, 16)[chunk.offset : chunk.offset + len(chunk)]
    ints = raw.view(np.int32)  # (m, 4): length, prefix, buffer index, offset
    return raw, ints


def _views_ok(chunk: Any) -> bool:
    """True when the long strings' bytes do not overlap (so each byte has one row)."""
    raw, ints = _view_arrays(chunk)
    valid = _valid(chunk)
    lens = ints[:, 0].astype(np.int64)
    long = valid & (lens > 12)
    if not long.any():
        return True
    b = ints[long, 2].astype(np.int64)
    o = ints[long, 3].astype(np.int64)
    ln = lens[long]
    order = np.lexsort((o, b))
    b, o, ln = b[order], o[order], ln[order]
    same = b[1:] == b[:-1]
    return bool(np.all(~same | (o[1:] >= o[:-1] + ln[:-1])))


def _from_views(chunk: Any, base: int, buffers: list[Any], row_buf: np.ndarray, row_start: np.ndarray, row_len: np.ndarray) -> None:
    bufs = chunk.buffers()
    raw, ints = _view_arrays(chunk)
    valid = _valid(chunk)
    lens = ints[:, 0].astype(np.int64)
    first = len(buffers)
    buffers.extend(bufs[2:])
    long = np.flatnonzero(valid & (lens > 12))
    rows = base + long
    row_buf[rows] = first + ints[long, 2]
    row_start[rows] = ints[long, 3]
    row_len[rows] = lens[long]
    short = np.flatnonzero(valid & (lens > 0) & (lens <= 12))
    if len(short):
        sl = lens[short]
        inline = raw[short, 4:16]
        keep = np.arange(12)[None, :] < sl[:, None]
        data = inline[keep].tobytes()
        starts = np.zeros(len(short), dtype=np.int64)
        np.cumsum(sl[:-1], out=starts[1:])
        buffers.append(data)
        rows = base + short
        row_buf[rows] = len(buffers) - 1
        row_start[rows] = starts
        row_len[rows] = sl


def frame_columns(data: Any, plan: Plan) -> Columns:
    """:class:`Columns` of a polars, pandas or Arrow frame."""
    return prepare(raw_from_frame(_to_polars(data)), plan)

