"""Batch classification: millions of records, the same answers as :func:`failtax.classify`.

:func:`classify_batch` takes a polars or pandas DataFrame or an Arrow table whose
columns are evidence (``text``, ``exit_code``, ``signal``, ``result_frame``, ``frames``,
``fields``, ``signals``, ``id``; any may be missing or null) and returns a polars
DataFrame, one row per input row in the same order, with the bucket, every matched
signal, the deciding rule and the bucket's attributes. Row ``i`` carries exactly what
``failtax.classify(row_i)`` returns: a differential test holds the two together.

How it stays fast without giving up exactness:

1. **Normalise once, in bulk.** Most texts hold no ANSI code, NUL or carriage return
   and are under :data:`~failtax.evidence.MAX_TEXT_CHARS`: for them the matching text
   *is* the stored string, scanned where polars keeps it (zero copy). Only the others,
   and rows with a result frame's error text, are normalised in Python.
2. **One scan for every literal.** A table compiles (once, cached) into one
   multi-literal matcher (:mod:`failtax._scan`: hyperscan, else polars' Aho-Corasick)
   that reports, per record, which case-insensitive literals occur and where first.
   Regexes run on RE2, only on records holding one of their required literals.
3. **Resolve with numpy.** Extract rules become a records × rules boolean matrix
   (contains AND and_contains AND NOT unless AND regex AND the non-text conditions),
   signals a records × signals matrix (:func:`extract_signal_matrix`, the shared
   representation the analysis and the tuner reuse), routes an ordered matrix whose
   first true column decides. Templates, captures and the matched line are computed
   only for the rows whose deciding route needs them.
4. **Both cores.** Large inputs are split by rows across forked processes (Linux).

:func:`classify_jsonl` streams JSON Lines files through the same engine in chunks of
bytes, across worker processes, in input order, with bounded memory; a bad line gets
an ``{"error": "<file>:<line>: <reason>"}`` answer and the stream goes on.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import weakref
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import numpy as np

from failtax._scan import (
    FOLD_RISK,
    Hits,
    Segment,
    available_engines,
    make_engine,
    exact_literals,
    max_match_width,
    required_literals,
    split_alternatives,
    superset_pattern,
)
from failtax.classify import Classification, _field_holds, _matched_line, classify, render_template
from failtax.errors import InputError
from failtax.evidence import (
    MAX_TEXT_CHARS,
    _as_frame,
    _as_int,
    _as_signal,
    _as_signals,
    _as_text,
    _inband_text,
    ascii_lower,
    frame_error_text,
    is_error_result_frame,
    normalise_text,
    tail_lines,
)
from failtax.table import RuleTable, compile_regex, load_table

__all__ = [
    "classify_batch",
    "classify_jsonl",
    "classify_records",
    "extract_rule_matrix",
    "extract_signal_matrix",
    "parse_jsonl_line",
]

#: Rows below which classification stays in one process (forking costs more).
MIN_ROWS_PER_PROCESS = 50_000
#: Rows resolved at a time inside one process (bounds the dense matrices).
BLOCK_ROWS = 65_536
_BIG = np.iinfo(np.int32).max
_TEXT_KEYS = ("text", "stderr", "stderrTail", "stderr_tail")
_EXIT_KEYS = ("exit_code", "exitCode")
_FRAME_KEYS = ("result_frame", "resultFrame")
_DIRTY = ("\x00", "\x1b", "\r")


# =========================================================================== the compiled plan


class _Plan:
    """A rule table compiled for batch evaluation: literal groups, rule and route arrays."""

    def __init__(self, table: RuleTable, engine: str | None):
        ct = table.compiled()
        self.table, self.ct, self.taxonomy = table, ct, ct.taxonomy
        rules = table.extract
        n_rules = len(rules)
        self.n_rules = n_rules
        literal_ids: dict[str, int] = {}
        groups: list[tuple[int, ...]] = []

        def group(strings: Iterable[str]) -> int:
            ids = sorted({literal_ids.setdefault(s, len(literal_ids)) for s in strings})
            groups.append(tuple(ids))
            return len(groups) - 1

        self.g_contains = np.full(n_rules, -1, dtype=np.int64)
        self.g_and = np.full(n_rules, -1, dtype=np.int64)
        self.g_unless = np.full(n_rules, -1, dtype=np.int64)
        for r, rule in enumerate(rules):
            text_lits, also, unless = ct.literals[rule.id]
            if text_lits:
                self.g_contains[r] = group(text_lits)
            if also:
                self.g_and[r] = group(also)
            if unless:
                self.g_unless[r] = group(unless)
        self.g_fold = group(FOLD_RISK)
        # Regexes run on RE2 one top-level alternative at a time, and only on rows where
        # hyperscan saw the alternative's superset pattern (else: where one of its
        # required literals occurs; else: everywhere the rule's other conditions hold).
        engine_name = engine or available_engines()[0]
        self.units: list[tuple[Any, int | None]] = []  # (RE2 pattern, widest match in bytes)
        supersets: list[str | None] = []

        def add_units(pattern: str) -> list[int]:
            alts = split_alternatives(pattern)
            try:
                compiled = [compile_regex(a) for a in alts]
            except Exception:  # an alternative RE2 will not take alone: keep the whole
                alts, compiled = [pattern], [compile_regex(pattern)]
            out = []
            for alt, rx in zip(alts, compiled, strict=True):
                width = max_match_width(alt)
                out.append(len(self.units))
                self.units.append((rx, 4 * width if width is not None else None))
                exact = exact_literals(alt)
                if exact is not None:  # just a few strings: the literal scan answers it
                    exacts[len(self.units) - 1] = exact
                    supersets.append(None)
                    reqs.append(None)
                    continue
                supersets.append(superset_pattern(alt) if engine_name == "hyperscan" else None)
                reqs.append(required_literals(alt))
            return out

        reqs: list[tuple[str, ...] | None] = []
        exacts: dict[int, tuple[str, ...]] = {}
        self.rule_units = {r: add_units(rule.regex) for r, rule in enumerate(rules) if rule.regex is not None}
        self.locate = [(loc, rx, add_units(loc.regex)) for loc, rx in ct.locate]
        self.n_units = len(self.units)
        self.unit_group = [-1] * self.n_units
        self.unit_exact = np.zeros(self.n_units, dtype=bool)
        for u, strings in exacts.items():
            self.unit_group[u] = group(strings)
            self.unit_exact[u] = True
        n_base = len(literal_ids)
        self.engine = make_engine(tuple(literal_ids), supersets, engine)
        # alternatives the engine cannot run are prefiltered by their literals, if any
        for u in range(self.n_units):
            if not self.engine.regex_ok[u] and reqs[u]:
                self.unit_group[u] = group(reqs[u])
        if len(literal_ids) > n_base:
            self.engine = make_engine(tuple(literal_ids), supersets, engine)
        self.unit_hs = np.array([bool(ok) for ok in self.engine.regex_ok], dtype=bool)
        self.n_groups = len(groups)
        self.literals = tuple(literal_ids)
        # literal -> groups, as CSR
        pairs = sorted((lit, g) for g, ids in enumerate(groups) for lit in ids)
        lit_of = np.array([p[0] for p in pairs], dtype=np.int64)
        self.lg_data = np.array([p[1] for p in pairs], dtype=np.int64)
        self.lg_ptr = np.searchsorted(lit_of, np.arange(len(self.literals) + 1)).astype(np.int64)
        # groups whose first position matters: a rule's text literals (the matched line)
        # and a regex alternative's literals (where its search can start)
        self.pos_slot = np.full(self.n_groups, -1, dtype=np.int64)
        contains_groups = sorted({int(g) for g in self.g_contains if g >= 0} | {g for g in self.unit_group if g >= 0})
        for slot, g in enumerate(contains_groups):
            self.pos_slot[g] = slot
        self.n_slots = len(contains_groups)

        # signals
        self.signals = tuple(table.signals)
        self.sig_index = {s: j for j, s in enumerate(self.signals)}
        self.rule_sig = np.array([self.sig_index[r.signal] for r in rules], dtype=np.int64)
        self.sig_rules = [np.flatnonzero(self.rule_sig == j) for j in range(len(self.signals))]
        self.regex_rules = [r for r, rule in enumerate(rules) if rule.regex is not None]
        self.field_rules = [r for r, rule in enumerate(rules) if rule.field is not None]
        self.subtype_rules = [r for r, rule in enumerate(rules) if rule.frame_subtype]
        self.capture_rules = [(r, ct.capture[rule.id]) for r, rule in enumerate(rules) if rule.id in ct.capture]
        self.capture_mask = np.zeros(n_rules, dtype=bool)
        for r, _ in self.capture_rules:
            self.capture_mask[r] = True

        # routes: decision k < n_routes is route k; n_routes is the fallback
        routes = table.route
        self.n_routes = len(routes)
        idx = self.sig_index
        self.route_any = [np.array([idx[s] for s in rt.any], dtype=np.int64) for rt in routes]
        self.route_all = [np.array([idx[s] for s in rt.all], dtype=np.int64) for rt in routes]
        self.route_none = [np.array([idx[s] for s in rt.none], dtype=np.int64) for rt in routes]
        self.route_pos = [[idx[s] for s in rt.positive_signals] for rt in routes]
        # regex rule -> the routes whose matched line it can give
        self.regex_line_routes = {}
        for r in self.regex_rules:
            qs = [q for q, ps in enumerate(self.route_pos) if int(self.rule_sig[r]) in ps]
            if qs:
                self.regex_line_routes[r] = np.array(qs, dtype=np.int64)
        tax = self.taxonomy
        self.decisions: list[dict[str, Any]] = []
        for rt in [*routes, None]:
            bucket = tax.bucket(rt.bucket if rt is not None else table.fallback)
            title, detail, retryable = bucket.title, bucket.detail, bucket.retryable
            if rt is not None:
                title = rt.title if rt.title is not None else title
                detail = rt.detail if rt.detail is not None else detail
                retryable = rt.retryable if rt.retryable is not None else retryable
            self.decisions.append(
                {
                    "bucket": bucket.name,
                    "rule": rt.id if rt is not None else "fallback",
                    "title": title,
                    "detail": detail,
                    "retryable": retryable,
                    "bucket_obj": bucket,
                }
            )
        self.needs_facts = np.array(["{" in d["title"] or "{" in d["detail"] for d in self.decisions])


_PLANS: weakref.WeakKeyDictionary[Any, dict[str | None, _Plan]] = weakref.WeakKeyDictionary()


def _plan_for(table: RuleTable, engine: str | None) -> _Plan:
    ct = table.compiled()
    by_engine = _PLANS.setdefault(ct, {})
    if engine not in by_engine:
        by_engine[engine] = _Plan(table, engine)
    return by_engine[engine]


# =========================================================================== input columns


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
class _Columns:
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
    raw: _RawColumns  # the input columns, to rebuild a row's record
    vocab_extra: tuple[str, ...] = ()  # given signal names the table does not know
    texts: list[str] | None = None  # the texts as Python strings, when they were converted

    def matching_text(self, i: int) -> str:
        """Row ``i``'s normalised matching text (:meth:`Evidence.combined_text`)."""
        b = int(self.row_buf[i])
        if b < 0:
            return ""
        s = int(self.row_start[i])
        return bytes(memoryview(self.buffers[b])[s : s + int(self.row_len[i])]).decode("utf-8")


class _RawColumns:
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
    mod = type(data).__module__
    if mod.startswith("pyarrow"):
        import pyarrow as pa

        if isinstance(data, pa.RecordBatch):
            data = pa.Table.from_batches([data])
        if isinstance(data, pa.Table):
            return pl.from_arrow(data, rechunk=False)
    if mod.startswith("pandas"):
        import pandas as pd

        if isinstance(data, pd.DataFrame):
            cols = {}
            for name in data.columns:
                s = data[name]
                try:
                    cols[str(name)] = pl.from_pandas(s, nan_to_null=True)
                except Exception:  # mixed Python objects: keep them as they are
                    cols[str(name)] = pl.Series(str(name), [_pandas_null(v) for v in s.tolist()], dtype=pl.Object)
            return pl.DataFrame(cols)
    raise InputError(
        f"classify_batch takes a polars or pandas DataFrame or a pyarrow Table, got {type(data).__name__}"
    )


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


def _raw_from_frame(df: Any) -> _RawColumns:
    import polars as pl

    raw = _RawColumns(df.height)
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

    raw.values["text"] = pick(_TEXT_KEYS)
    raw.values["exit_code"] = pick(_EXIT_KEYS)
    raw.values["result_frame"] = pick(_FRAME_KEYS)
    for key in ("signal", "frames", "fields", "signals"):
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


def _raw_from_records(records: Sequence[Any]) -> _RawColumns:
    raw = _RawColumns(len(records), records)
    text, exit_code, frame, signal, frames, fields, signals, ids = ([] for _ in range(8))
    for i, rec in enumerate(records):
        if not isinstance(rec, Mapping):
            raw.python_rows[i] = rec
            rec = {}
        text.append(_first(rec, _TEXT_KEYS))
        exit_code.append(_first(rec, _EXIT_KEYS))
        frame.append(_first(rec, _FRAME_KEYS))
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


def _first(record: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for k in keys:
        v = record.get(k)
        if v is not None:
            return v
    return None


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


def _prepare(raw: _RawColumns, plan: _Plan) -> _Columns:
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
        dirty = (
            text_series.str.contains_any(list(_DIRTY)).fill_null(False)
            | text_series.str.len_bytes().fill_null(0).gt(MAX_TEXT_CHARS)
        )
        clean = ~dirty.to_numpy()
    for d in (frame_text, inband, py_text, raw.python_rows):
        for i in d:
            clean[i] = False
    slow_rows = np.array([i for i in np.flatnonzero(~clean).tolist() if i not in raw.python_rows], dtype=np.int64)
    row_buf[np.flatnonzero(~clean)] = -1
    if len(slow_rows):
        _normalise_rows(slow_rows, text_series, frame_text, inband, py_text, buffers, row_buf, row_start, row_len)

    return _Columns(
        n=n, buffers=buffers, row_buf=row_buf, row_start=row_start, row_len=row_len,
        exit_code=exit_code, exit_known=exit_known, signal=sig, signal_known=sig_known,
        frame_error=frame_error, subtype=_Sparse.of(subtype), fields=_Sparse.of(fields),
        given=_Sparse.of(given), problems=problems, python_rows=raw.python_rows, raw=raw,
        vocab_extra=tuple(extra), texts=texts,
    )


#: evidence._ANSI in the syntax polars' regex engine reads the same way
_ANSI_RS = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]"


def _normalise_rows(rows: np.ndarray, text: Any, frame_text: dict[int, str], inband: dict[int, str], py_text: dict[int, str],
                    buffers: list[Any], row_buf: np.ndarray, row_start: np.ndarray, row_len: np.ndarray) -> None:
    """Build the matching text of rows that need normalising, and point the rows at it.

    :meth:`Evidence.combined_text`: each present part (text, the frame's error text,
    in-band errors) normalised, joined by newlines. polars does the bulk (NUL, ANSI and
    carriage returns); parts past the size cap, and text polars cannot hold, go
    through :func:`~failtax.evidence.normalise_text` itself.
    """
    import polars as pl

    rows_l = rows.tolist()
    python_side = {i for i in rows_l if i in py_text}
    cols = {"t": text.gather(rows)}
    for name, src in (("f", frame_text), ("b", inband)):
        vals = [src.get(i) for i in rows_l]
        try:
            cols[name] = pl.Series(name, vals, dtype=pl.String)
        except Exception:  # lone surrogates: those rows are normalised in Python
            python_side.update(i for i, v in zip(rows_l, vals, strict=True) if v is not None and not _utf8_ok(v))
            cols[name] = pl.Series(name, [v if v is None or _utf8_ok(v) else None for v in vals], dtype=pl.String)
    frame = pl.DataFrame(cols)

    def norm(c: str) -> Any:
        e = pl.col(c).str.replace_all("\x00", "", literal=True)
        e = e.str.replace_all(_ANSI_RS, "").str.replace_all("\r\n", "\n", literal=True)
        return e.str.replace_all("\r", "\n", literal=True)

    present = {c: pl.col(c).is_not_null() & (pl.col(c) != "") for c in "tfb"}
    out = frame.select(
        pl.concat_str([pl.when(present[c]).then(norm(c)) for c in "tfb"], separator="\n", ignore_nulls=True).alias("c"),
        pl.any_horizontal([present[c] & norm(c).str.len_chars().gt(MAX_TEXT_CHARS) for c in "tfb"]).alias("long"),
    )
    python_side.update(np.asarray(rows_l)[out["long"].to_numpy()].tolist())
    bufs, b, st, ln = _text_buffers(out["c"])
    base = len(buffers)
    buffers.extend(bufs)
    has = b >= 0
    row_buf[rows[has]] = b[has] + base
    row_start[rows[has]] = st[has]
    row_len[rows[has]] = ln[has]
    if python_side:
        t_vals = dict(zip(rows_l, cols["t"].to_list(), strict=True))
        py_rows = sorted(python_side)
        texts = []
        for i in py_rows:
            t = py_text.get(i, t_vals.get(i)) or ""
            parts = [normalise_text(t)] if t else []
            for part in (frame_text.get(i), inband.get(i)):
                if part:
                    parts.append(normalise_text(part))
            texts.append("\n".join(parts).encode("utf-8"))
        seg = Segment.from_texts(texts, np.asarray(py_rows, dtype=np.int64))
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
            valid = large.is_valid().to_numpy(zero_copy_only=False)
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


def _view_arrays(chunk: Any) -> tuple[np.ndarray, np.ndarray]:
    bufs = chunk.buffers()
    raw = np.frombuffer(bufs[1], dtype=np.uint8).reshape(-1, 16)[chunk.offset : chunk.offset + len(chunk)]
    ints = raw.view(np.int32)  # (m, 4): length, prefix, buffer index, offset
    return raw, ints


def _views_ok(chunk: Any) -> bool:
    """True when the long strings' bytes do not overlap (so each byte has one row)."""
    raw, ints = _view_arrays(chunk)
    valid = chunk.is_valid().to_numpy(zero_copy_only=False)
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
    valid = chunk.is_valid().to_numpy(zero_copy_only=False)
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


# =========================================================================== resolving a part


@dataclass
class _Part:
    """What one process computed for rows ``lo..hi`` (row numbers inside are local)."""

    lo: int
    hi: int
    decision: np.ndarray  # int64: route index; n_routes = the fallback
    sig_ptr: np.ndarray  # CSR of each row's signal ids (vocabulary: plan.signals + extra)
    sig_ids: np.ndarray
    lines: dict[int, str | None]  # matched lines (rows without one are absent)
    overrides: dict[int, tuple[str, str]]  # rendered (title, detail)
    located: dict[int, tuple[Any, Any]]  # (source_file, source_line)
    facts: dict[int, dict[str, str]] = field(default_factory=dict)
    failed: list[int] = field(default_factory=list)  # absolute rows to classify one by one
    signal_matrix: np.ndarray | None = None
    rule_matrix: np.ndarray | None = None


@dataclass(frozen=True)
class _Want:
    classifications: bool = False
    signal_matrix: bool = False
    rule_matrix: bool = False
    outputs: bool = True


class _Texts:
    """The matching text of each row of a part, where it sits in the shared buffers."""

    def __init__(self, buffers: list[Any], row_buf: np.ndarray, row_start: np.ndarray, row_len: np.ndarray):
        self.views = [memoryview(b) for b in buffers]
        self.buffers = buffers
        self.row_buf, self.row_start, self.row_len = row_buf, row_start, row_len
        self._buf, self._start, self._len = row_buf.tolist(), row_start.tolist(), row_len.tolist()
        self._cache: dict[int, bytes] = {}
        self._arrays: dict[int, np.ndarray] = {}

    def has_text(self, r: int) -> bool:
        return self._buf[r] >= 0

    def array(self, b: int) -> np.ndarray:
        """Buffer ``b`` as a numpy byte array (no copy)."""
        arr = self._arrays.get(b)
        if arr is None:
            arr = self._arrays[b] = np.frombuffer(self.buffers[b], dtype=np.uint8)
        return arr

    def data(self, r: int) -> bytes:
        """The row's text as UTF-8 (cached until :meth:`forget`)."""
        d = self._cache.get(r)
        if d is None:
            b = self._buf[r]
            if b < 0:
                d = b""
            else:
                s = self._start[r]
                d = bytes(self.views[b][s : s + self._len[r]])
            self._cache[r] = d
        return d

    def text(self, r: int) -> str:
        return self.data(r).decode("utf-8")

    def forget(self) -> None:
        self._cache.clear()


_ANCHOR = None


def _re2_start(rx: Any, data: bytes, pos: int) -> int:
    """Where the leftmost match of ``rx`` at or after byte ``pos`` of ``data`` starts, or -1."""
    global _ANCHOR
    raw = getattr(rx, "_regexp", None)
    if raw is not None:
        if _ANCHOR is None:
            import re2

            _ANCHOR = re2._re2.RE2.Anchor.UNANCHORED
        return int(raw.Match(_ANCHOR, data, pos, len(data))[0][0])
    m = rx.search(data, pos)  # pragma: no cover - other builds of the re2 module
    return -1 if m is None else m.start()


class _Block:
    """The hits of one block of rows, and the questions the resolution asks of them."""

    def __init__(self, plan: _Plan, texts: _Texts, a: int, k: int, rows: np.ndarray, lits: np.ndarray, starts: np.ndarray):
        self.plan, self.texts, self.a, self.k = plan, texts, a, k
        n_lit = len(plan.literals)
        is_unit = lits >= n_lit
        # regex supersets: first end per (alternative, row)
        ur, uu, ue = rows[is_unit], lits[is_unit] - n_lit, starts[is_unit]
        order = np.lexsort((ue, ur, uu))
        ur, uu, ue = ur[order], uu[order], ue[order]
        first = np.ones(len(uu), dtype=bool)
        first[1:] = (uu[1:] != uu[:-1]) | (ur[1:] != ur[:-1])
        ur, uu, ue = ur[first], uu[first], ue[first]
        bounds = np.searchsorted(uu, np.arange(plan.n_units + 1))
        self.unit_rows = [ur[bounds[u] : bounds[u + 1]] for u in range(plan.n_units)]
        self.unit_ends = [dict(zip(self.unit_rows[u].tolist(), ue[bounds[u] : bounds[u + 1]].tolist(), strict=True)) for u in range(plan.n_units)]
        # literal hits -> group hits, and first positions of the groups that need them
        br, bl, bs = rows[~is_unit], lits[~is_unit], starts[~is_unit]
        cnt = plan.lg_ptr[bl + 1] - plan.lg_ptr[bl]
        rep_rows = np.repeat(br, cnt)
        offs = np.arange(len(rep_rows)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        rep_groups = plan.lg_data[np.repeat(plan.lg_ptr[bl], cnt) + offs]
        self.G = np.zeros((k, plan.n_groups), dtype=bool)
        self.G[rep_rows, rep_groups] = True
        self.P = np.full((k, max(plan.n_slots, 1)), _BIG, dtype=np.int32)
        slot = plan.pos_slot[rep_groups]
        sel = slot >= 0
        np.minimum.at(self.P, (rep_rows[sel], slot[sel]), np.repeat(bs, cnt)[sel].astype(np.int32))
        self.fold = self.G[:, plan.g_fold]

    def candidates(self, u: int) -> np.ndarray:
        """Rows where regex alternative ``u`` may match (a superset of where it does)."""
        plan = self.plan
        if plan.unit_hs[u]:
            m = np.zeros(self.k, dtype=bool)
            m[self.unit_rows[u]] = True
            return m | self.fold
        g = plan.unit_group[u]
        if g >= 0:
            return self.G[:, g] | self.fold
        return np.ones(self.k, dtype=bool)

    def unit_start(self, u: int, i: int, lowered: bool) -> int:
        """Where alternative ``u`` first matches in row ``i``'s text (byte), or -1.

        ``lowered``: in the ASCII-lower-cased text (where classify() takes a regex's
        position for the matched line), else the text as it is (where rules fire).
        """
        plan = self.plan
        if not self.fold[i]:
            if plan.unit_exact[u]:
                # a set of strings: it matches where the first of them occurs
                at = int(self.P[i, plan.pos_slot[plan.unit_group[u]]])
                return at if at < _BIG else -1
        rx, width = plan.units[u]
        pos = 0
        if width is not None and not self.fold[i]:
            # No match can end before the superset's first match, or start more than
            # its width before the first of its required literals.
            if plan.unit_hs[u]:
                pos = max(0, self.unit_ends[u][i] - width)
            elif plan.unit_group[u] >= 0:
                pos = max(0, int(self.P[i, plan.pos_slot[plan.unit_group[u]]]) - width)
        data = self.data(i)
        return _re2_start(rx, data.lower() if lowered else data, pos)

    def data(self, i: int) -> bytes:
        return self.texts.data(i + self.a)


def _lines_at(texts: _Texts, rows: list[int], pos: list[int]) -> list[str]:
    """classify()'s ``_line_at`` for many rows: the stripped line around each byte position."""
    out = []
    views, buf, start, length = texts.views, texts._buf, texts._start, texts._len
    for r, p in zip(rows, pos, strict=True):
        s = start[r]
        data = bytes(views[buf[r]][s : s + length[r]])
        a = data.rfind(b"\n", 0, p) + 1
        z = data.find(b"\n", p)
        out.append(data[a : z if z >= 0 else len(data)].decode("utf-8").strip())
    return out


def _run_part(plan: _Plan, cols: _Columns, lo: int, hi: int, want: _Want) -> _Part:
    m = hi - lo
    failed: list[int] = []
    buffers = cols.buffers
    row_buf = cols.row_buf[lo:hi].copy()
    row_start = cols.row_start[lo:hi]
    row_len = cols.row_len[lo:hi]
    for i in cols.python_rows:
        if lo <= i < hi:
            row_buf[i - lo] = -1
    texts = _Texts(buffers, row_buf, row_start, row_len)
    hit_parts = []
    for b in np.unique(row_buf[row_buf >= 0]).tolist():
        rows = np.flatnonzero(row_buf == b)
        rows = rows[np.argsort(row_start[rows], kind="stable")]
        hit_parts.append(plan.engine.scan(Segment(buffers[b], row_start[rows], row_len[rows], rows)))
    hits = Hits.concat(hit_parts)
    h_rows, h_lits, h_starts = hits.rows, hits.lits, hits.starts
    if len(h_rows) > 1 and not bool(np.all(h_rows[1:] >= h_rows[:-1])):
        order = np.argsort(h_rows, kind="stable")
        h_rows, h_lits, h_starts = h_rows[order], h_lits[order], h_starts[order]

    n_tsig = len(plan.signals)
    n_sig = n_tsig + len(cols.vocab_extra)
    extra_index = {s: n_tsig + k for k, s in enumerate(cols.vocab_extra)}
    skip = {i - lo for i in cols.python_rows if lo <= i < hi} | {i - lo for i in failed}
    decision = np.empty(m, dtype=np.int64)
    sig_rows: list[np.ndarray] = []
    sig_vals: list[np.ndarray] = []
    lines: dict[int, str | None] = {}
    line_rows: list[np.ndarray] = []
    line_pos: list[np.ndarray] = []
    overrides: dict[int, tuple[str, str]] = {}
    located: dict[int, tuple[Any, Any]] = {}
    facts_out: dict[int, dict[str, str]] = {}
    smat = np.zeros((m, n_sig), dtype=bool) if want.signal_matrix else None
    rmat = np.zeros((m, plan.n_rules), dtype=bool) if want.rule_matrix else None
    slot_of_rule = np.where(plan.g_contains >= 0, plan.pos_slot[np.maximum(plan.g_contains, 0)], -1)

    for a in range(0, m, BLOCK_ROWS):
        z = min(m, a + BLOCK_ROWS)
        k = z - a
        ha, hz = np.searchsorted(h_rows, [a, z])
        blk = _Block(plan, texts, a, k, h_rows[ha:hz] - a, h_lits[ha:hz], h_starts[ha:hz])
        E = _eval_rules(plan, cols, blk, lo + a, lo + z)
        # signals: present, and ordered by the first rule that found them
        K = np.full((k, n_sig), _BIG, dtype=np.int32)
        for j, rs in enumerate(plan.sig_rules):
            if len(rs) == 0:
                continue
            sub = E[:, rs]
            anyf = sub.any(axis=1)
            K[anyf, j] = rs[np.argmax(sub[anyf], axis=1)]
        extracted = K[:, :n_tsig] < _BIG
        for i, names in cols.given.between(lo + a, lo + z):
            r = i - lo - a
            for q, s in enumerate(names):
                j = plan.sig_index.get(s)
                if j is None:
                    j = extra_index[s]
                if K[r, j] >= _BIG:
                    K[r, j] = plan.n_rules + q
        S = K < _BIG
        if smat is not None:
            smat[a:z] = S
        if rmat is not None:
            rmat[a:z] = E
        # routes: the first that holds decides
        R = np.zeros((k, plan.n_routes + 1), dtype=bool)
        for q in range(plan.n_routes):
            ok = np.ones(k, dtype=bool)
            if len(plan.route_any[q]):
                ok &= S[:, plan.route_any[q]].any(axis=1)
            if len(plan.route_all[q]):
                ok &= S[:, plan.route_all[q]].all(axis=1)
            if len(plan.route_none[q]):
                ok &= ~S[:, plan.route_none[q]].any(axis=1)
            R[:, q] = ok
        R[:, plan.n_routes] = True
        D = np.argmax(R, axis=1)
        decision[a:z] = D
        pr, pc = np.nonzero(S)
        o = np.lexsort((K[pr, pc], pr))
        sig_rows.append(pr[o] + a)
        sig_vals.append(pc[o])
        if not want.outputs:
            texts.forget()
            continue

        # matched line: the first positive signal of the route (in order) with a position
        regex_start = _regex_line_starts(plan, E, D, blk)
        Q = np.full((k, n_tsig), _BIG, dtype=np.int32)
        for j, rs in enumerate(plan.sig_rules):
            for r in rs.tolist():
                if slot_of_rule[r] >= 0:
                    np.minimum(Q[:, j], np.where(E[:, r], blk.P[:, slot_of_rule[r]], _BIG), out=Q[:, j])
                if r in regex_start:
                    np.minimum(Q[:, j], regex_start[r], out=Q[:, j])
        routed = D < plan.n_routes
        for q in np.unique(D[routed]).tolist():
            ps = plan.route_pos[q]
            if not ps:
                continue
            rows_q = np.flatnonzero(D == q)
            qq = Q[np.ix_(rows_q, ps)]
            cand = extracted[np.ix_(rows_q, ps)] & (qq < _BIG)
            has = cand.any(axis=1)
            pos = qq[np.arange(len(rows_q)), np.argmax(cand, axis=1)]
            line_rows.append(rows_q[has] + a)
            line_pos.append(pos[has])
        if line_rows:
            lr = np.concatenate(line_rows).tolist()
            lp = np.concatenate(line_pos).tolist()
            if skip:
                keep = [k for k, r in enumerate(lr) if r not in skip]
                lr, lp = [lr[k] for k in keep], [lp[k] for k in keep]
            for r, at, line in zip(lr, lp, _lines_at(texts, lr, lp), strict=True):
                if not line:  # a match on a blank line: classify()'s own loop decides
                    line = _exact_line(plan, E[r - a], S[r - a], plan.route_pos[int(D[r - a])], texts.text(r))
                if line is not None:
                    lines[r] = line
            line_rows.clear()
            line_pos.clear()
        # templates and captures, only where needed
        need = plan.needs_facts[D]
        if want.classifications and plan.capture_rules:
            need = need | E[:, plan.capture_mask].any(axis=1)
        for rr in np.flatnonzero(need).tolist():
            r = rr + a
            if r in skip:
                continue
            data = texts.data(r)
            facts = _facts(plan, E[rr], data)
            if plan.needs_facts[D[rr]]:
                d = plan.decisions[int(D[rr])]
                f = dict(facts)
                f.setdefault("text", texts.text(r).strip())
                overrides[r] = (render_template(d["title"], f), render_template(d["detail"], f))
            if want.classifications and facts:
                facts_out[r] = facts
        # source locations (tables with [[locate]] rules)
        if plan.locate:
            cand_l = np.zeros(k, dtype=bool)
            for _loc, _rx, units in plan.locate:
                for u in units:
                    cand_l |= blk.candidates(u)
            for rr in np.flatnonzero(cand_l).tolist():
                r = rr + a
                if r in skip or not texts.has_text(r):
                    continue
                found = _locate(plan, texts.data(r))
                if found is not None:
                    located[r] = found
        texts.forget()

    rows_all = np.concatenate(sig_rows) if sig_rows else np.zeros(0, dtype=np.int64)
    vals_all = np.concatenate(sig_vals) if sig_vals else np.zeros(0, dtype=np.int64)
    return _Part(
        lo=lo, hi=hi, decision=decision,
        sig_ptr=np.searchsorted(rows_all, np.arange(m + 1)).astype(np.int64),
        sig_ids=vals_all.astype(np.int32), lines=lines, overrides=overrides, located=located,
        facts=facts_out, failed=failed,
        signal_matrix=smat, rule_matrix=rmat,
    )


def _regex_line_starts(plan: _Plan, E: np.ndarray, D: np.ndarray, blk: _Block) -> dict[int, np.ndarray]:
    """For fired regex rules that can name the matched line: their leftmost match start.

    classify() takes that position from the ASCII-lower-cased text, so it is searched
    here too (it can differ from where the rule fired, on the original text).
    """
    out: dict[int, np.ndarray] = {}
    for r, routes in plan.regex_line_routes.items():
        rows = np.flatnonzero(E[:, r] & np.isin(D, routes))
        if not len(rows):
            continue
        start = np.full(len(E), _BIG, dtype=np.int32)
        for u in plan.rule_units[r]:
            for i in rows[blk.candidates(u)[rows]].tolist():
                at = blk.unit_start(u, i, True)
                if 0 <= at < start[i]:
                    start[i] = at
        out[r] = start
    return out


def _eval_rules(plan: _Plan, cols: _Columns, blk: _Block, lo: int, hi: int) -> np.ndarray:
    """The records × extract-rules matrix of rows ``lo..hi``."""
    k = hi - lo
    G = blk.G
    E = np.ones((k, plan.n_rules), dtype=bool)
    exit_v, exit_k = cols.exit_code[lo:hi], cols.exit_known[lo:hi]
    sig_v, sig_k = cols.signal[lo:hi], cols.signal_known[lo:hi]
    for r, rule in enumerate(plan.table.extract):
        col = E[:, r]
        if rule.exit_code:
            col &= exit_k & np.isin(exit_v, rule.exit_code)
        if rule.has_signal is not None:
            col &= sig_k == rule.has_signal
        if rule.posix_signal:
            col &= sig_k & np.isin(sig_v, rule.posix_signal)
        if rule.frame_error is not None:
            col &= cols.frame_error[lo:hi] == rule.frame_error
        if rule.frame_subtype:
            ok = np.zeros(k, dtype=bool)
            for i, st in cols.subtype.between(lo, hi):
                ok[i - lo] = isinstance(st, str) and any(s in st for s in rule.frame_subtype)
            col &= ok
        if rule.field is not None:
            ok = np.full(k, _field_holds(rule, plan.ct, {}), dtype=bool)
            for i, f in cols.fields.between(lo, hi):
                ok[i - lo] = _field_holds(rule, plan.ct, f)
            col &= ok
        for g, want in ((plan.g_contains[r], True), (plan.g_and[r], True), (plan.g_unless[r], False)):
            if g >= 0:
                col &= G[:, g] if want else ~G[:, g]
        if rule.regex is not None:
            # classify() searches the original text (so a table's (?-i) groups work)
            base = col.copy()
            col[:] = False
            for u in plan.rule_units[r]:
                for i in np.flatnonzero(base & ~col & blk.candidates(u)).tolist():
                    col[i] = blk.unit_start(u, i, False) >= 0
    return E


def _facts(plan: _Plan, fired: np.ndarray, data: bytes) -> dict[str, str]:
    """classify()'s captured facts: the fired capture rules' named groups, first wins."""
    facts: dict[str, str] = {}
    for r, rx in plan.capture_rules:
        if not fired[r]:
            continue
        mt = rx.search(data)  # bytes: the same RE2 match, without re-encoding the text
        if mt is not None:
            for key, v in mt.groupdict().items():
                if v and key not in facts:
                    facts[key] = v.decode("utf-8").strip()
    return facts


def _locate(plan: _Plan, data: bytes) -> tuple[Any, Any] | None:
    """classify()'s source location: the first [[locate]] regex that matches, its groups."""
    for _loc, rx, _units in plan.locate:
        mt = rx.search(data)
        if mt is not None:
            gd = mt.groupdict()
            file = gd.get("file")
            line = gd.get("line")
            line_s = line.decode("utf-8") if line is not None else None
            return (
                file.decode("utf-8") if file is not None else None,
                int(line_s) if line_s and line_s.isdigit() else None,
            )
    return None


def _exact_line(plan: _Plan, fired: np.ndarray, present: np.ndarray, ps: list[int], text: str) -> str | None:
    """classify()'s matched-line loop for one row, run as it is."""
    hay = _ascii_lower(text)
    rules = plan.table.extract
    line = None
    for j in ps:
        if not present[j]:
            continue
        rule_ids = [rules[r].id for r in plan.sig_rules[j].tolist() if fired[r]]
        if not rule_ids:
            continue
        line = _matched_line(rule_ids, plan.ct, text, hay)
        if line:
            break
    return line


def _ascii_lower(text: str) -> str:
    """:func:`failtax.evidence.ascii_lower`, through bytes (much faster on non-ASCII text)."""
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def _line_at_bytes(data: bytes, pos: int) -> str:
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    return data[start : end if end >= 0 else len(data)].decode("utf-8").strip()


# =========================================================================== running parts


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def _jobs(n_jobs: int | None, n: int, plan: _Plan) -> int:
    if n <= 1 or plan.engine.name != "hyperscan" or not _can_fork():
        return 1  # the polars engine is threaded already and must not run in a fork
    if n_jobs is None:
        return max(1, min(os.cpu_count() or 1, n // MIN_ROWS_PER_PROCESS))
    return max(1, min(int(n_jobs), n))


def _run(plan: _Plan, cols: _Columns, want: _Want, n_jobs: int | None) -> list[_Part]:
    """Resolve all rows, split across forked processes when that pays."""
    n = cols.n
    jobs = _jobs(n_jobs, n, plan)
    bounds = np.linspace(0, n, jobs + 1).astype(int).tolist()
    if jobs == 1:
        return [_run_part(plan, cols, 0, n, want)]
    children = []
    for p in range(1, jobs):
        lo, hi = bounds[p], bounds[p + 1]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child computes, sends and leaves without the parent's exit hooks
            code = 1
            try:
                os.close(r)
                part = _run_part(plan, cols, lo, hi, want)
                with os.fdopen(w, "wb") as fh:
                    pickle.dump(part, fh, protocol=pickle.HIGHEST_PROTOCOL)
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        children.append((pid, r, lo, hi))
    parts = [_run_part(plan, cols, bounds[0], bounds[1], want)]
    for pid, r, lo, hi in children:
        with os.fdopen(r, "rb") as fh:
            data = fh.read()
        _, status = os.waitpid(pid, 0)
        if status == 0 and data:
            parts.append(pickle.loads(data))
        else:  # a child that died: its rows are done again here
            parts.append(_run_part(plan, cols, lo, hi, want))
    return parts


def _singles(cols: _Columns, parts: list[_Part], table: RuleTable) -> dict[int, Classification]:
    """Rows the engine handed back (text it cannot encode): classified one by one."""
    rows = set(cols.python_rows)
    for p in parts:
        rows.update(p.failed)
    return {i: classify(cols.raw.record(i), taxonomy=table.taxonomy, table=table) for i in sorted(rows)}


# =========================================================================== public API


def _resolve_table(taxonomy: str | None, table: Any) -> RuleTable:
    if table is None and taxonomy is None:
        raise InputError("give a taxonomy name or a table")
    tbl = load_table(table if table is not None else taxonomy)
    if taxonomy is not None and tbl.taxonomy != taxonomy:
        raise InputError(f"table {tbl.name!r} is for taxonomy {tbl.taxonomy!r}, not {taxonomy!r}")
    return tbl


def _frame_columns(data: Any, plan: _Plan) -> _Columns:
    return _prepare(_raw_from_frame(_to_polars(data)), plan)


def classify_batch(data: Any, *, taxonomy: str | None = None, table: Any = None, n_jobs: int | None = None, engine: str | None = None) -> Any:
    """Classify every row of a frame; the same answers as :func:`failtax.classify` per row.

    Parameters
    ----------
    data : a polars or pandas DataFrame, or a pyarrow Table or RecordBatch, with any of
        the evidence columns ``text`` (also ``stderr``/``stderrTail``), ``exit_code``,
        ``signal``, ``result_frame`` (struct or JSON text), ``frames``, ``fields``
        (struct or JSON text), ``signals`` (list of strings) and ``id``. Missing columns
        and nulls (``None``, ``NaN``) mean "not given"; other columns are ignored.
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
    plan = _plan_for(tbl, engine)
    cols = _frame_columns(data, plan)
    parts = _run(plan, cols, _Want(), n_jobs)
    return _to_frame(plan, cols, parts, _singles(cols, parts, tbl))


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
    plan = _plan_for(tbl, engine)
    cols = _prepare(_raw_from_records(records), plan)
    parts = _run(plan, cols, _Want(classifications=True), n_jobs)
    return _to_classifications(plan, cols, parts, _singles(cols, parts, tbl))


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
    plan = _plan_for(tbl, engine)
    cols = _frame_columns(data, plan)
    parts = _run(plan, cols, _Want(signal_matrix=True, outputs=False), n_jobs)
    names = plan.signals + cols.vocab_extra
    mat = np.zeros((cols.n, len(names)), dtype=bool)
    for p in parts:
        mat[p.lo : p.hi] = p.signal_matrix
    for i, c in _singles(cols, parts, tbl).items():
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
    plan = _plan_for(tbl, engine)
    cols = _frame_columns(data, plan)
    parts = _run(plan, cols, _Want(rule_matrix=True, outputs=False), n_jobs)
    ids = tuple(r.id for r in tbl.extract)
    mat = np.zeros((cols.n, len(ids)), dtype=bool)
    for p in parts:
        mat[p.lo : p.hi] = p.rule_matrix
    rows = set(cols.python_rows) | {i for p in parts for i in p.failed}
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


def _to_frame(plan: _Plan, cols: _Columns, parts: list[_Part], singles: dict[int, Classification]) -> Any:
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
    probs = {i: list(p) for i, p in cols.problems.items()}
    probs.update({i: list(c.warnings) for i, c in singles.items()})
    wptr, wflat = _sparse_lists(n, probs)
    out["warnings"] = _list_column("warnings", wptr, pa.array(wflat, type=pa.large_string()))
    return pl.DataFrame([v.alias(k) for k, v in out.items()])


def _matched_lines(n: int, parts: list[_Part], singles: dict[int, Classification]) -> Any:
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


def _to_classifications(plan: _Plan, cols: _Columns, parts: list[_Part], singles: dict[int, Classification]) -> list[Classification]:
    names = plan.signals + cols.vocab_extra
    tax = plan.taxonomy.name
    version = plan.table.version
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
                    stderr_tail=tail_lines(combined, 24, 1600), matched_line=bulk.get(r),
                    source_file=sf, source_line=sl, facts=p.facts.get(r, {}), id=ids[i],
                    warnings=tuple(cols.problems.get(i, ())),
                )
            )
    return out


# =========================================================================== JSON Lines


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
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, {"error": f"{where}: invalid UTF-8 at byte {exc.start}"}
    try:
        rec = json.loads(text)
    except ValueError as exc:
        return None, {"error": f"{where}: not valid JSON ({exc.msg} at column {exc.colno})"}
    if not isinstance(rec, dict):
        return None, {"error": f"{where}: expected a JSON object, got {type(rec).__name__}"}
    return rec, None


#: Bytes of JSON Lines handed to a worker at a time.
CHUNK_BYTES = 8 * 1024 * 1024


def _dump_line(obj: dict[str, Any]) -> bytes:
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
    results = classify_records(recs, table=table, n_jobs=1, engine=engine) if recs else []
    out = bytearray()
    for s in slots:
        out += _dump_line(results[s].to_dict() if isinstance(s, int) else s)
    return bytes(out), errors


def _iter_chunks(paths: Sequence[str], chunk_bytes: int) -> Iterator[tuple[str, int, bytes]]:
    for path in paths:
        if path == "-":
            fh: BinaryIO = sys.stdin.buffer
            name = "<stdin>"
            close = False
        else:
            fh = _open_binary(path)
            name = path
            close = True
        try:
            line_no = 1
            rest = b""
            while True:
                block = fh.read(chunk_bytes)
                if not block:
                    break
                block = rest + block
                cut = block.rfind(b"\n")
                if cut < 0:
                    rest = block
                    continue
                data, rest = block[: cut + 1], block[cut + 1 :]
                yield name, line_no, data
                line_no += data.count(b"\n")
            if rest:
                yield name, line_no, rest
        finally:
            if close:
                fh.close()


def _open_binary(path: str) -> BinaryIO:
    import gzip

    try:
        if path.endswith(".gz"):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None


_WORKER_TABLE: RuleTable | None = None


def _worker_init(table: RuleTable, engine: str | None) -> None:
    global _WORKER_TABLE, _WORKER_ENGINE
    _WORKER_TABLE = table
    _WORKER_ENGINE = engine
    _plan_for(table, engine)


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


class _TextWriter:
    def __init__(self, out: Any):
        self._out = out

    def write(self, data: bytes) -> None:
        self._out.write(data.decode("utf-8", "surrogateescape"))


def classify_jsonl(paths: Sequence[str], *, table: RuleTable, out: Any, n_jobs: int | None = None, chunk_bytes: int = CHUNK_BYTES, engine: str | None = None) -> int:
    """Classify JSON Lines files (``"-"`` = stdin) into ``out``, one JSON line per input line.

    ``out`` is a binary stream, or a text stream (its ``buffer`` is written to).

    Input is read in chunks of about ``chunk_bytes`` bytes, classified by ``n_jobs``
    worker processes (``None``: every core; ``1``: in this process) and written in input
    order, so memory stays bounded by a few chunks however large the files are. A bad
    line (invalid UTF-8 or JSON, not an object, empty) is answered with
    ``{"error": "<file>:<line>: <reason>"}`` and the stream goes on.

    Returns the number of error lines written.
    """
    out = _binary(out)
    jobs = (os.cpu_count() or 1) if n_jobs is None else max(1, int(n_jobs))
    chunks = _iter_chunks(paths, chunk_bytes)
    errors = 0
    if jobs == 1:
        for chunk in chunks:
            data, e = classify_chunk(chunk, table=table, engine=engine)
            out.write(data)
            errors += e
        return errors
    # Small inputs are not worth starting workers for.
    head: list[tuple[str, int, bytes]] = []
    for chunk in chunks:
        head.append(chunk)
        if len(head) >= 2:
            break
    if len(head) < 2:
        for chunk in head:
            data, e = classify_chunk(chunk, table=table, engine=engine)
            out.write(data)
            errors += e
        return errors
    import itertools
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with ctx.Pool(jobs, initializer=_worker_init, initargs=(table, engine)) as pool:
        pending: deque[Any] = deque()
        for chunk in itertools.chain(head, chunks):
            pending.append(pool.apply_async(_worker_chunk, (chunk,)))
            while len(pending) >= 2 * jobs:
                data, e = pending.popleft().get()
                out.write(data)
                errors += e
        while pending:
            data, e = pending.popleft().get()
            out.write(data)
            errors += e
    return errors
