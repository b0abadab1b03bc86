"""The SQL that checks and normalises numbered lines, all formats at once, in DuckDB.

Each line is parsed once: ``json_transform`` pulls every key the four formats use as a
raw JSON fragment (``NULL`` when absent or ``null``). A fragment's first character is
its JSON type, so type checks need no second parse; strings without escapes are
unquoted with ``substr`` and lists of plain strings split on ``","``. Each key is decoded
once into a typed value that is ``NULL`` when the key is absent *or has the wrong
type*; "present but NULL" is then exactly "wrong type". The format is told by its
marker key, and the first problem found — missing field, wrong type, unknown event
type, bad timestamp — becomes the line's quarantine reason. Lines that do not parse
come out as ``invalid-json`` (told apart further in Python, for those few lines only).

:func:`build_insert_sql` inserts the good lines of a relation ``(file, line_no, h, eid, text)``
(``eid`` and ``h``: the line's id and hash, see :func:`line_ids`)
into ``events`` in one statement; :func:`build_problem_sql` lists the bad ones with
their reason and detail (run only when some lines did not make it in).

:func:`build_plain_insert_sql` is a cheaper statement for the common case, a block made
only of good failure events whose signals are compact lists of strings without escapes
(what failtax's own emitter writes, and most drifted spellings). It parses only the
eleven failure-event keys and has no filter: a line that is not such an event makes it
fail (DuckDB's ``error()``, a failing cast), and the caller then runs the statement
above, which inserts exactly the same rows for the lines it accepts. No filter matters
because DuckDB pushes a filter on parsed values below the parse and parses every line
again for each value the filter reads; no per-format ``CASE`` and no signal decoding
beyond a split make the rest of the saving (measured: about a fifth of the statement's
CPU time on 1,000,000 emitter lines). Its string keys
are read straight as VARCHAR rather than as fragments to check and unquote: the second
of :func:`line_gates` marks, from the raw bytes, the few lines where such a key could
hold anything but a string, and only those are checked from fragments (a third less
CPU again for the statement).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pyarrow as pa
import xxhash

from failtax.redact import TRIGGER_PATTERN, redact, redact_json_text
from failtax.telemetry.schema import (
    EVENTS_COLUMNS,
    EVENTS_TABLE,
    FIELDS,
    FORMATS,
    PLAIN_EVENT_COLUMNS,
    PLAIN_EVENTS_TABLE,
    TYPE_NAMES,
    Format,
    spelled_sql,
)

__all__ = ["UNESCAPED_QUOTE", "build_insert_sql", "build_plain_insert_sql", "build_problem_sql", "line_gates", "line_ids"]

#: A double quote that neither opens nor closes a JSON string: what shell writers
#: leave when they paste text with quotes into a JSON template.
UNESCAPED_QUOTE = re.compile(r'[^\s{\[,:\\"]\s*"\s*[^\s}\],:]')

# A compact JSON list of plain strings (no escapes): split it instead of parsing it.
_PLAIN_LIST = r'\[("[^"\\]*"(,"[^"\\]*")*)?\]'
# A compact JSON list of signal names that are already normal (lower case, digits and
# single inner hyphens): what normalise_signal_name returns unchanged.
_NORMAL_LIST = r'\[("[a-z0-9]+(-[a-z0-9]+)*"(,"[a-z0-9]+(-[a-z0-9]+)*")*)?\]'
# A compact JSON list of already-normal signal names has only these characters.
_NEEDS_NORMALISING = r'[^a-z0-9",\[\]-]|--|"-|-"'
_COL = {k: f"v_{k}" for k in FIELDS}  # decoded value of each key
_RAW = {k: f"r_{k}" for k in FIELDS}  # raw fragment text of each key
_JSON = {k: f"o_{k}" for k, kind in FIELDS.items() if kind == "obj"}  # object keys, still typed JSON


def _unquote(r: str) -> str:
    """The CASE branches giving the text of a JSON string fragment ``r``: cut the quotes off,
    and decode it only when it holds an escape."""
    return f"WHEN contains({r}, '\\') THEN json_extract_string({r}, '$') ELSE substr({r}, 2, length({r}) - 2)"


def _decode(key: str) -> str:
    """SQL for the typed value of ``key`` from its fragment; NULL if absent or wrong type."""
    r = _RAW[key]
    kind = FIELDS[key]
    if kind == "str":
        return f"CASE WHEN NOT starts_with({r}, '\"') THEN NULL {_unquote(r)} END"
    if kind == "strs":
        return (
            f"CASE WHEN {r} = '[]' THEN CAST([] AS VARCHAR[]) "
            f"WHEN regexp_full_match({r}, '{_PLAIN_LIST}') THEN string_split({r}[3:-3], '\",\"') "
            f"WHEN starts_with({r}, '[') AND json_structure({r}) IN ('[\"VARCHAR\"]', '[\"NULL\"]') "
            f"THEN list_filter(CAST(CAST({r} AS JSON) AS VARCHAR[]), lambda s: s IS NOT NULL) END"
        )
    if kind == "obj":
        return f"CASE WHEN starts_with({r}, '{{') THEN {_JSON[key]} END"  # already JSON: no re-validation
    if kind == "int":
        return f"CASE WHEN regexp_full_match({r}, '-?[0-9]{{1,10}}') THEN TRY_CAST({r} AS INTEGER) END"
    if kind == "bool":
        return f"CASE {r} WHEN 'true' THEN TRUE WHEN 'false' THEN FALSE END"
    raise ValueError(kind)


def _type_ok(key: str) -> str:
    """True when the fragment of ``key`` (known to be present) has the right JSON type."""
    r = _RAW[key]
    kind = FIELDS[key]
    if kind == "str":
        return f"starts_with({r}, '\"')"
    if kind == "strs":
        return (
            f"({r} = '[]' OR regexp_full_match({r}, '{_PLAIN_LIST}') OR "
            f"(starts_with({r}, '[') AND json_structure({r}) IN ('[\"VARCHAR\"]', '[\"NULL\"]')))"
        )
    if kind == "obj":
        return f"starts_with({r}, '{{')"
    if kind == "int":
        return f"(regexp_full_match({r}, '-?[0-9]{{1,10}}') AND TRY_CAST({r} AS INTEGER) IS NOT NULL)"
    if kind == "bool":
        return f"{r} IN ('true', 'false')"
    raise ValueError(kind)


def _ok(fmt: Format) -> str:
    """True for a good line of format ``fmt``, from the raw fragments alone (cheap)."""
    conds = [_present(k) for k in fmt.required]
    conds += [f"({_RAW[k]} IS NULL OR {_type_ok(k)})" for k in fmt.optional]
    conds += [_type_ok(k) for k in fmt.required]
    if fmt.kind_key:
        conds.append(f"{_RAW[fmt.kind_key]} IN {_json_sql_list(fmt.kinds)}")
    if fmt.time_key:
        conds.append(f"{_ts(fmt.time_key)} IS NOT NULL")
    return " AND ".join(conds)


def _normalised(col: str, raw: str) -> str:
    """Signal names spelled as failtax.evidence.normalise_signal_name spells them."""
    norm = f"list_transform({col}, lambda s: {spelled_sql('s')})"
    return f"CASE WHEN regexp_matches({raw}, '{_NEEDS_NORMALISING}') THEN {norm} ELSE {col} END"


def _ts(key: str) -> str:
    return _timestamp(_decode(key))


#: The years an event's time may name. A telemetry line from year 0 or 9999 is a clock or
#: a writer gone wrong, and it would stretch every weekly series over centuries.
PLAUSIBLE_YEARS = ("1970", "2099")


def _plausible_year(text: str) -> str:
    """SQL: the time string ``text`` names a year in :data:`PLAUSIBLE_YEARS` (it then
    starts with a digit too)."""
    return f"(left({text}, 4) BETWEEN '{PLAUSIBLE_YEARS[0]}' AND '{PLAUSIBLE_YEARS[1]}')"


def _timestamp(text: str) -> str:
    """The UTC TIMESTAMP a string ``text`` names, NULL when it names none.

    DuckDB's cast reads ISO-8601 with an offset (converted to UTC) or without one (taken
    as UTC, the zone seed 000 writes); it also reads the words ``infinity``, ``-infinity``
    and ``epoch``, which are no time an event happened, so a string must start with a
    year in :data:`PLAUSIBLE_YEARS`. RFC 3339 lets ``T`` and ``Z`` be written in lower
    case, which DuckDB does not read, and ISO-8601 lets a comma mark the fraction of a
    second, as GNU ``date -Ins``
    writes it (``2026-09-08T09:00:03,123456789+00:00``), which DuckDB does not read either:
    only a string the cast refuses is tried again in upper case, and then with the comma
    after the seconds read as a point.
    """
    digits = f"CASE WHEN {_plausible_year(text)} THEN {text} END"
    pointed = f"regexp_replace(upper({digits}), '{_COMMA_FRACTION}', '\\1.\\2')"
    return (f"TRY_CAST(coalesce(TRY_CAST({digits} AS TIMESTAMPTZ), TRY_CAST(upper({digits}) AS TIMESTAMPTZ), "
            f"TRY_CAST({pointed} AS TIMESTAMPTZ)) AS TIMESTAMP)")


#: The comma of an ISO-8601 time whose fraction of a second follows a comma (``…:03,1…``).
_COMMA_FRACTION = "^([0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}),([0-9])"


def _present(key: str) -> str:
    return f"{_RAW[key]} IS NOT NULL"


def _wrong(key: str) -> str:
    return f"({_RAW[key]} IS NOT NULL AND {_COL[key]} IS NULL)"


def _sql_list(values: tuple[str, ...]) -> str:
    return "(" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + ")"


def _json_sql_list(values: tuple[str, ...]) -> str:
    """``values`` as the SQL list of their JSON spellings (to compare raw fragments with)."""
    return _sql_list(tuple(json.dumps(v) for v in values))


def _json_kind(key: str) -> str:
    r = _RAW[key]
    kind = (
        f"CASE left({r}, 1) WHEN '\"' THEN 'a string' WHEN '{{' THEN 'an object' "
        f"WHEN '[' THEN CASE WHEN {r} = '[]' THEN 'an empty list' ELSE 'a list with non-string items' END "
        f"WHEN 't' THEN 'a boolean' WHEN 'f' THEN 'a boolean' ELSE 'a number' END"
    )
    if FIELDS[key] == "int":  # (the column is 32-bit: a longer integer is no other kind of number)
        kind = (f"CASE WHEN regexp_full_match({r}, '-?[0-9]+') "
                f"THEN 'an integer outside the 32-bit range: ' || left({r}, 40) ELSE {kind} END")
    return kind


def _article(word: str) -> str:
    """``word`` after "a" or "an"."""
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _checks(fmt: Format) -> tuple[str, str, str]:
    """(marker test, problem, detail) for one format."""
    keys = fmt.required + fmt.optional
    missing = [(k, f"NOT {_present(k)}") for k in fmt.required]
    wrong = [(k, _wrong(k)) for k in keys]
    conds = [
        (" OR ".join(f"({c})" for _, c in missing), "missing-field",
         "'missing required field(s): ' || concat_ws(', ', "
         + ", ".join(f"CASE WHEN {c} THEN '{k}' END" for k, c in missing) + ")"),
        (" OR ".join(wrong_c for _, wrong_c in wrong), "wrong-type",
         "concat_ws('; ', " + ", ".join(
             f"CASE WHEN {c} THEN '{k} must be {TYPE_NAMES[FIELDS[k]]}, got ' || {_json_kind(k)} END"
             for k, c in wrong) + ")"),
    ]
    if fmt.kind_key:
        kind = _COL[fmt.kind_key]
        conds.append((f"{kind} NOT IN {_sql_list(fmt.kinds)}", "unknown-event-type",
                      f"'unknown {fmt.kind_key} ' || to_json({kind})::VARCHAR || ' for {_article(fmt.source)} line'"))
    if fmt.time_key:
        t = _COL[fmt.time_key]
        conds.append((f"regexp_matches({t}, '^[0-9]{{4}}-') AND NOT {_plausible_year(t)}", "bad-timestamp",
                      f"'{fmt.time_key} ' || to_json({t})::VARCHAR || ' is outside the years "
                      f"{PLAUSIBLE_YEARS[0]}–{PLAUSIBLE_YEARS[1]} (a clock or a writer gone wrong)'"))
        conds.append((f"{_timestamp(t)} IS NULL", "bad-timestamp",
                      f"'{fmt.time_key} is not an ISO-8601 date-time: ' || to_json({t})::VARCHAR"))
    problem = "CASE " + " ".join(f"WHEN {c} THEN '{name}'" for c, name, _ in conds) + " END"
    detail = "CASE " + " ".join(f"WHEN {c} THEN {d}" for c, _, d in conds) + " END"
    marker = " OR ".join(_present(k) for k in fmt.marker)
    return marker, problem, detail



#: Text columns that may carry what a tool printed: masked as they are stored (JSON per value).
MASKED_COLUMNS = {"metadata": True, "message": False, "title": False, "detail": False, "stderr_tail": False}


def register_masking(con: Any) -> None:
    """Give a DuckDB connection the masking functions the INSERT uses (once per connection)."""
    import duckdb

    # failtax_redact takes one positional parameter: DuckDB would count redact's
    # keyword-only option as a column.
    for name, fn in (("failtax_redact", lambda text: redact(text)), ("failtax_redact_json", redact_json_text)):
        try:
            con.create_function(name, fn, ["VARCHAR"], "VARCHAR", side_effects=False)
        except duckdb.NotImplementedException as e:  # registered before on this connection
            if "already created" not in str(e):
                raise


def _masked(expr: str, *, is_json: bool, gate: str | None = None) -> str:
    """``expr`` with secrets masked as it is stored; RE2's trigger expression (in SQL) picks
    the few values that need the Python masker. A ``gate`` column (the first of :func:`line_gates`)
    spares the expression the lines that cannot match it."""
    trig = TRIGGER_PATTERN.replace("'", "''")
    text = f"CAST({expr} AS VARCHAR)" if is_json else expr
    masked = f"failtax_redact_json({text})::JSON" if is_json else f"failtax_redact({text})"
    test = f"regexp_matches({text}, '{trig}')"
    if gate is not None:
        test = f"{gate} AND {test}"
    return f"CASE WHEN {test} THEN {masked} ELSE {expr} END"


_GATE_DB: Any = None

# The failure-event keys whose values are strings (seed 000).
_PLAIN_STRINGS = tuple(k for k in FORMATS[0].required + FORMATS[0].optional if FIELDS[k] == "str")
#: Raw bytes after which a line is not known to hold only strings under those keys: such a
#: key followed by anything but a string (at any depth: a regex cannot tell depths apart),
#: or a ``\u`` escape that could spell one of the keys' letters (a key written with escapes).
ODD_PATTERNS = (
    ('"(?:' + "|".join(_PLAIN_STRINGS) + r')"\s*:\s*[^"\s]').encode(),
    rb"\\u00[4-7]",
)
_SECRET_PATTERNS = (TRIGGER_PATTERN.encode(), rb"\\", "\u212a".encode(), "\u017f".encode())


def line_gates(text: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Per line, from one hyperscan scan of the raw bytes: ``(maybe_secret, odd)``, BOOLEAN.

    ``maybe_secret`` — could a value of the line match the masking trigger? False only
    when the line's raw bytes do not match :data:`TRIGGER_PATTERN` and hold no backslash
    and no character that RE2's case-insensitive matching folds onto an ASCII letter
    (KELVIN SIGN, LONG S). Then no column can match either: a string value without
    escapes is the line's own bytes, and a JSON value written again by DuckDB differs
    from the line only between tokens (whitespace) and in how numbers are spelled; no
    trigger can straddle tokens (none holds a quote, comma, bracket or brace, and
    ``://``, the one with a colon, needs a slash, which only strings hold) or come from
    a number's characters.

    ``odd`` — might a failure-event string key (``ts``, ``eventType``, ``skillName`` …)
    hold something other than a string? False only when none of :data:`ODD_PATTERNS`
    ends in the line: then every such key present (spelled without escapes, as it must
    be to match no pattern's escape) is followed by a string, so reading its value as
    VARCHAR reads a string. True at any depth, so a nested key can make a line odd too.

    Without hyperscan, every line is True for both.

    >>> import pyarrow as pa
    >>> lines = ['{"a":"plain"}', '{"a":"token=1"}', '{"runId": 5}', '{"runId":"5"}']
    >>> [g.to_pylist() for g in line_gates(pa.array(lines, pa.large_string()))]
    [[False, True, False, False], [False, False, True, False]]
    """
    global _GATE_DB
    n = len(text)
    try:
        import hyperscan
    except ImportError:  # pragma: no cover - platforms without the wheel
        everything = _bools(np.ones(n, dtype=bool))
        return everything, everything
    if _GATE_DB is None:
        patterns = [*_SECRET_PATTERNS, *ODD_PATTERNS]
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        db.compile(expressions=patterns, ids=list(range(len(patterns))), elements=len(patterns),
                   flags=[0] * len(patterns))
        _GATE_DB = db
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + n + 1]
    start, end = int(offsets[0]), int(offsets[-1])
    data = memoryview(text.buffers()[2])[start:end]  # scanned in place, not copied
    ends: tuple[list[int], list[int]] = ([], [])
    secret = len(_SECRET_PATTERNS)
    _GATE_DB.scan(data, match_event_handler=lambda i, _from, to, _flags, _ctx: ends[i >= secret].append(to))
    gates = []
    for found in ends:
        flags = np.zeros(n, dtype=bool)
        if found:
            # a match ends inside the line that holds its last byte (no pattern spans a newline
            # within one line's JSON: a match that would is in a line that does not parse)
            rows = np.searchsorted(offsets, np.array(found, dtype=np.int64) - 1 + start, side="right") - 1
            flags[rows] = True
        gates.append(_bools(flags))
    return gates[0], gates[1]


_HEX_PAIRS = np.frombuffer(b"".join(b"%02x" % i for i in range(256)), dtype=np.uint16)


def line_ids(text: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Per line: its event id and its line hash, both from the line's XXH3-128.

    The id is the first 64 bits in hex (16 characters), the hash the other 64 as a
    UBIGINT; two lines are duplicates when both are equal. XXH3 is specified and
    stable across versions and platforms, so a database keeps recognising duplicates
    whatever DuckDB or failtax reads it next (DuckDB's own ``hash()`` may change with
    its version; MD5 in SQL cost a quarter of a load).

    >>> import pyarrow as pa
    >>> ids, hashes = line_ids(pa.array(['{"a":1}\\n', '{"a":1}\\n', '{"a":2}\\n'], pa.large_string()))
    >>> ids.to_pylist()[0] == ids.to_pylist()[1] != ids.to_pylist()[2], len(ids.to_pylist()[0])
    (True, 16)
    """
    n = len(text)
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + n + 1].tolist()
    data = memoryview(text.buffers()[2] or b"")
    digest = xxhash.xxh3_128_digest
    raw = np.frombuffer(b"".join([digest(data[a:b]) for a, b in zip(offsets, offsets[1:])]), dtype=np.uint8)
    raw = raw.reshape(n, 16)
    hexed = _HEX_PAIRS[raw[:, :8]]  # (n, 8) pairs of hex digits
    ids = pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(np.arange(0, 16 * n + 1, 16, dtype=np.int32)),
                                                 pa.py_buffer(np.ascontiguousarray(hexed))])
    hashes = np.ascontiguousarray(raw[:, 8:]).view(">u8").ravel().astype(np.uint64)
    return ids, pa.Array.from_buffers(pa.uint64(), n, [None, pa.py_buffer(hashes)])


def _bools(values: np.ndarray) -> pa.Array:
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(np.packbits(values, bitorder="little"))])


def _columns(formats: tuple[Format, ...] = FORMATS, gate: str | None = None) -> dict[str, str]:
    """The ``events`` columns as expressions over the raw fragments and ``source``.

    Keys no format of ``formats`` reads are not parsed: their columns are NULL.
    """
    keys = _keys(formats)
    v = {k: f"({_decode(k)})" if k in keys else "NULL" for k in FIELDS}
    sources = {f.source for f in formats}

    def by_source(exprs: dict[str, str]) -> str:
        """The expression for the line's source; NULL for sources not in ``formats``."""
        branches = " ".join(f"WHEN '{src}' THEN {e}" for src, e in exprs.items() if src in sources)
        return f"CASE source {branches} END" if branches else "NULL"

    def when(src: str, expr: str) -> str:
        return by_source({src: expr})

    def scope_key(*names: str) -> str:
        return "coalesce(" + ", ".join(f"{v['scope']}->>'{n}'" for n in names) + ")"

    retry_type = (
        f"CASE WHEN {v['failures']} IS NOT NULL AND {v['must_fix_keys']} IS NOT NULL "
        f"THEN 'test-failures+must-fix' WHEN {v['failures']} IS NOT NULL THEN 'test-failures' ELSE 'must-fix' END"
    )
    cols = {
        "event_id": "eid",  # (see line_ids)
        "source": "source",
        "event_type": by_source({"failure-event": v["eventType"], "lifecycle": v["event"], "retry-log": retry_type,
                                 "agent-failure": "'agent-failure'"}),
        # (an AgentFailure has no time of its own; a writer that logs one may add ts or timestamp)
        "ts": by_source({"failure-event": _ts("ts"), "lifecycle": _ts("timestamp"), "retry-log": _ts("ts"),
                         "agent-failure": f"coalesce({_ts('ts')}, {_ts('timestamp')})"}),
        "skill": when("failure-event", v["skillName"]),
        "ai_classification": by_source({"failure-event": v["aiClassification"],
                                        "lifecycle": f"{v['metadata']}->>'failure_type'", "agent-failure": v["code"]}),
        "ai_suggestion": by_source({"failure-event": v["aiSuggestion"], "lifecycle": f"{v['metadata']}->>'recipe'"}),
        "user_action": when("failure-event", v["userAction"]),
        "run_id": by_source({"failure-event": v["runId"], "retry-log": scope_key("run_id", "runId", "run")}),
        "test_case_id": when("failure-event", v["testCaseId"]),
        "project_id": when("failure-event", v["projectId"]),
        "signals": when("failure-event", _normalised(v["signals"], _RAW["signals"])),
        "metadata": by_source({"failure-event": v["metadata"], "lifecycle": v["metadata"]}),
        "severity": when("lifecycle", f"lower({v['severity']})"),  # shell writers spell it ERROR, Warn …
        "feature_id": when("lifecycle", v["feature_id"]),
        "session_id": when("lifecycle", v["session_id"]),
        "message": when("lifecycle", v["message"]),
        "failures": when("retry-log", v["failures"]),
        "must_fix_keys": when("retry-log", v["must_fix_keys"]),
        "task_id": when("retry-log", scope_key("task_id", "taskId", "task")),
        "scope": when("retry-log", v["scope"]),
        "title": when("agent-failure", v["title"]),
        "detail": when("agent-failure", v["detail"]),
        "exit_code": when("agent-failure", v["exitCode"]),
        "posix_signal": when("agent-failure", v["signal"]),
        "stderr_tail": when("agent-failure", v["stderrTail"]),
        "retryable": when("agent-failure", v["retryable"]),
        "file": "file",
        "line": "line_no",
        "line_hash": "h",
    }
    for name, is_json in MASKED_COLUMNS.items():
        if cols[name] != "NULL":
            cols[name] = _masked(cols[name], is_json=is_json, gate=gate)
    return cols


def _keys(formats: tuple[Format, ...]) -> tuple[str, ...]:
    """The keys the formats read, in ``FIELDS`` order."""
    wanted = {k for f in formats for k in f.required + f.optional + f.marker}
    return tuple(k for k in FIELDS if k in wanted)


def _source_case(formats: tuple[Format, ...]) -> str:
    """SQL naming a line's format from its raw fragments.

    The first format whose marker key and required keys are all there, with a kind
    (``eventType``, ``event``, ``code``) it knows; else the first whose marker key is there
    (its checks then say what is wrong). An object of one format that also carries another
    format's marker (an AgentFailure or a retry-log entry with an ``event`` key, an
    AgentFailure with ``failures`` or in an envelope with ``timestamp`` and an ``event`` of
    its own) is read as the format it is whole in, not quarantined for lacking the other's
    keys.
    """
    def marker(fmt: Format) -> str:
        return "(" + " OR ".join(_present(k) for k in fmt.marker) + ")"

    def is_whole(fmt: Format) -> str:
        conds = [marker(fmt), *(_present(k) for k in fmt.required)]
        if fmt.kind_key:
            conds.append(f"{_RAW[fmt.kind_key]} IN {_json_sql_list(fmt.kinds)}")
        return " AND ".join(conds)

    whole = [f"WHEN {is_whole(f)} THEN '{f.source}'" for f in formats]
    some = [f"WHEN {marker(f)} THEN '{f.source}'" for f in formats]
    return "CASE " + " ".join(whole + some) + " END"


def _sourced(relation: str, *, guarded: bool = True, formats: tuple[Format, ...] = FORMATS, gate: str | None = None) -> str:
    keys = _keys(formats)
    struct = json.dumps({k: "JSON" for k in keys})
    raws = ", ".join(
        [f'CAST(j."{k}" AS VARCHAR) AS {_RAW[k]}' for k in keys]
        + [f'j."{k}" AS {name}' for k, name in _JSON.items() if k in keys]
    )
    source = _source_case(formats)
    return f"""
WITH parsed AS (
  SELECT file, line_no, h, eid,{f" {gate}," if gate else ""}
         {"try(" if guarded else "("}json_transform(text, '{struct}')) AS j
  FROM {relation}
), fragments AS (
  SELECT file, line_no, h, eid,{f" {gate}," if gate else ""} j IS NULL AS bad_json, {raws}
  FROM parsed
), sourced AS (
  SELECT *, CASE WHEN bad_json THEN NULL ELSE {source} END AS source
  FROM fragments
)"""


def _checked(relation: str, *, guarded: bool = True) -> str:
    checks = {f.source: _checks(f) for f in FORMATS}
    decoded = ", ".join(f"{_decode(k)} AS {_COL[k]}" for k in FIELDS)
    problem = (
        "CASE WHEN bad_json THEN 'invalid-json' WHEN source IS NULL THEN 'unknown-format' "
        + " ".join(f"WHEN source = '{src}' THEN {p}" for src, (_, p, _) in checks.items()) + " END"
    )
    detail = (
        "CASE WHEN source IS NULL THEN NULL "
        + " ".join(f"WHEN source = '{src}' THEN {d}" for src, (_, _, d) in checks.items()) + " END"
    )
    return _sourced(relation, guarded=guarded) + f""", decoded AS (
  SELECT *, {decoded}
  FROM sourced
), checked AS (
  SELECT *, {problem} AS problem, {detail} AS detail
  FROM decoded
)"""


def build_insert_sql(
    relation: str,
    *,
    dedupe: bool,
    guarded: bool = True,
    skip: str = "_dups",
    gate: str | None = None,
) -> str:
    """INSERT the good lines of ``relation(file, line_no, h, eid, text)`` into ``events``
    (its table of every column, :data:`~failtax.telemetry.schema.EVENTS_TABLE`).

    Unguarded (``guarded=False``), a line that is not JSON makes the statement fail
    instead of being skipped: cheaper when every line parses (``try`` costs about 40%
    of the parse), for callers that can retry guarded. With ``dedupe``, the lines named
    in the relation ``skip(file, line_no)`` are left out: the caller lists there the
    lines it has found byte-identical to an earlier one. (A 64-bit hash alone cannot
    say that: DuckDB's ``hash`` of similar lines collides far more often than chance.)
    The filter tests only raw fragments (cheap); each value is decoded once, in the
    projection.

    ``gate`` names a BOOLEAN column of ``relation`` made by :func:`line_gates` (its first): the
    masking trigger then runs only on the lines where it is true.

    >>> sql = build_insert_sql("lines", dedupe=False, gate="maybe_secret")
    >>> "maybe_secret AND regexp_matches" in sql, "INSERT INTO _events " in sql
    (True, True)
    """
    columns = _columns(gate=gate)
    names = [c for c, _, _ in EVENTS_COLUMNS]
    select = ",\n       ".join(columns[n] for n in names)
    good = "CASE source " + " ".join(f"WHEN '{f.source}' THEN {_ok(f)}" for f in FORMATS) + " ELSE FALSE END"
    where = good
    if dedupe:
        where = (f"({where}) AND NOT EXISTS (SELECT 1 FROM {skip} d "
                 "WHERE d.file = sourced.file AND d.line_no = sourced.line_no)")
    return (
        f"INSERT INTO {EVENTS_TABLE} ({', '.join(names)})"
        + _sourced(relation, guarded=guarded, gate=gate)
        + f"\nSELECT {select}\nFROM sourced\nWHERE {where}"
    )


def build_problem_sql(relation: str, *, guarded: bool = True) -> str:
    """SELECT ``file, line_no, problem, detail, source, text`` of the bad lines of ``relation``.

    Unguarded, a line that is not JSON makes the statement fail, as in :func:`build_insert_sql`.
    """
    return _checked(relation, guarded=guarded) + f"""
SELECT c.file, c.line_no, c.problem, c.detail, c.source, r.text
FROM checked c JOIN {relation} r ON r.file = c.file AND r.line_no = c.line_no
WHERE c.problem IS NOT NULL
ORDER BY c.file, c.line_no
"""


def build_plain_insert_sql(relation: str, *, dedupe: bool, skip: str = "_dups", gate: str | None = None,
                           odd: str | None = None) -> str:
    """INSERT the lines of ``relation(file, line_no, h, eid, text)``, all plain failure events,
    into ``events`` (its table of the columns they fill, :data:`~failtax.telemetry.schema.PLAIN_EVENTS_TABLE`).

    A plain failure event is a good line of the ``failure-event`` format (required keys
    present, every key of the right type, a known ``eventType``, a valid ``ts``) whose
    ``signals``, if any, are a compact list of strings without escapes (their names are
    spelled one way here as there). For such lines the row is exactly what
    :func:`build_insert_sql` inserts; any other line makes the
    statement fail (``error()``, a failing cast or a line that is not JSON), so a caller
    that can run again (outside a transaction) falls back to :func:`build_insert_sql`.
    ``dedupe``, ``skip`` and ``gate`` as there.

    The string keys are read straight as VARCHAR, which would also read a number or an
    object as its text; ``odd`` names a BOOLEAN column of ``relation`` made by
    :func:`line_gates` (its second) that is true on every line where that could happen,
    and only those lines have their string keys' JSON types checked, from a second parse.
    Without ``odd``, every line is checked so.

    >>> sql = build_plain_insert_sql("lines", dedupe=False, gate="maybe_secret", odd="odd")
    >>> "error('not a plain failure event')" in sql, "WHERE" in sql.split("FROM checked")[-1]
    (True, False)
    """
    fmt = FORMATS[0]
    keys = fmt.required + fmt.optional
    assert fmt.source == "failure-event" and set(keys) == set(_keys((fmt,)))
    strings = _PLAIN_STRINGS
    typed = json.dumps({k: "VARCHAR" if FIELDS[k] == "str" else "JSON" for k in keys})
    fragments = json.dumps({k: "JSON" for k in strings})
    values = ", ".join(f'j."{k}" AS {_COL[k]}' for k in strings)
    raws = ", ".join(f'CAST(f."{k}" AS VARCHAR) AS {_RAW[k]}' for k in strings)
    others = [k for k in keys if FIELDS[k] != "str"]
    others_raw = ", ".join(f'CAST(j."{k}" AS VARCHAR) AS {_RAW[k]}' for k in others)
    odd_col = odd or "TRUE"

    checks = [f"{_COL['eventType']} IN {_sql_list(fmt.kinds)}"]  # (NULL when absent: the line fails)
    checks += [f"{_COL[k]} IS NOT NULL" for k in fmt.required if FIELDS[k] == "str" and k != "eventType"]
    # a line that might hold a non-string under a string key: each such key's fragment
    types = [_type_ok(k) if k in fmt.required else f"({_RAW[k]} IS NULL OR {_type_ok(k)})" for k in strings]
    checks.append(f"(NOT odd_ OR ({' AND '.join(types)}))")
    for k in others:  # signals: only a compact list of strings without escapes
        test = (f"(normal_signals OR regexp_full_match({_RAW[k]}, '{_PLAIN_LIST}'))" if FIELDS[k] == "strs"
                else _type_ok(k))
        checks.append(test if k in fmt.required else f"({_RAW[k]} IS NULL OR {test})")
    # Split on '","' and spelled one way, as the careful statement decodes and spells them
    # (names already normal, the emitter's, are kept as they are without a second look).
    split = (f"CASE WHEN {_RAW['signals']} = '[]' THEN CAST([] AS VARCHAR[]) "
             f"ELSE string_split({_RAW['signals']}[3:-3], '\",\"') END")
    signals = f"CASE WHEN normal_signals THEN {split} ELSE {_normalised(f'({split})', _RAW['signals'])} END"
    columns = {
        "event_id": "eid", "source": f"'{fmt.source}'", "event_type": "event_type", "ts": "ts",
        "skill": _COL["skillName"], "ai_classification": _COL["aiClassification"],
        "ai_suggestion": _COL["aiSuggestion"], "user_action": _COL["userAction"], "run_id": _COL["runId"],
        "test_case_id": _COL["testCaseId"], "project_id": _COL["projectId"], "signals": signals,
        "metadata": _masked(_JSON["metadata"], is_json=True, gate=gate), "file": "file", "line": "line_no",
        "line_hash": "h",
    }
    assert tuple(columns) == PLAIN_EVENT_COLUMNS
    select = ",\n       ".join(columns.values())
    where = ""
    if dedupe:
        where = f"\nWHERE NOT EXISTS (SELECT 1 FROM {skip} d WHERE d.file = checked.file AND d.line_no = checked.line_no)"
    carry = f" {gate}," if gate else ""
    return f"""INSERT INTO {PLAIN_EVENTS_TABLE} ({', '.join(columns)})
WITH parsed AS (
  SELECT file, line_no, h, eid,{carry} {odd_col} AS odd_,
         json_transform(text, '{typed}') AS j,
         CASE WHEN {odd_col} THEN json_transform(text, '{fragments}') END AS f
  FROM {relation}
), fragments AS (
  SELECT file, line_no, h, eid,{carry} odd_, {values}, {raws},
         {others_raw}, j."metadata" AS {_JSON["metadata"]},
         regexp_full_match(CAST(j."signals" AS VARCHAR), '{_NORMAL_LIST}') AS normal_signals
  FROM parsed
), checked AS (
  SELECT *,
         CASE WHEN {" AND ".join(checks)} THEN {_COL["eventType"]}
              ELSE error('not a plain failure event') END AS event_type,
         CAST(CAST(CASE WHEN {_plausible_year(_COL["ts"])} THEN {_COL["ts"]}
                        ELSE error('not a plain failure event') END AS TIMESTAMPTZ) AS TIMESTAMP) AS ts
  FROM fragments
)
SELECT {select}
FROM checked{where}"""
