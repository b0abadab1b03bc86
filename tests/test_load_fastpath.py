"""The loader's speed-ups change no result: a messy corpus loads to the same tables.

A seeded corpus on disk mixes all four formats, every kind of bad line, duplicates (in
a file, across files, across loads), secrets (some visible only once JSON escapes are
decoded), unicode, signals that need normalising, a gzip file and files that grow
between two loads. Its ``events`` and ``quarantine`` tables (every column, in order)
and the load summaries must equal the digests frozen below (the ids aside), computed by the loader
before it read in a thread, cut blocks at row groups or gated the masking (commit
771332c), for small and large blocks, in memory and into a database file.

The secret gate is checked on its own against DuckDB's trigger expression, and the
reading thread's error handling against real failures.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from failtax.telemetry import load

# the module, not the function that failtax.telemetry exports under the same name
loader = sys.modules["failtax.telemetry.load"]

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "telemetry"
sys.path.insert(0, str(FIXTURES))
from make_fixtures import BROKEN, SHELL  # noqa: E402

SECRETS = [
    "token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 leaked",
    "key AKIAIOSFODNN7EXAMPLE in env",
    "login with password=hunter2 failed",
    "GET https://bob:s3cr3t@example.com/x",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc",
    "mail a@b.c",  # a trigger with nothing to mask
    "auth ok",
]
# Secrets that only show once JSON escapes are decoded, or only to RE2's case folding
# (KELVIN SIGN for k): the raw line does not hold the trigger's bytes.
HIDDEN_SECRETS = [
    b'{"ts":"2026-09-08T09:00:00Z","eventType":"replay-failure-classified","skillName":"s","aiClassification":"infra",'
    b'"metadata":{"e":"ghp\\u005fa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}}',
    b'{"ts":"2026-09-08T09:00:01Z","eventType":"replay-failure-classified","skillName":"s","aiClassification":"infra",'
    b'"metadata":{"e":"my to\xe2\x84\xaaen=abc123 and pa\xc5\xbfsword=x"}}',
    b'{"code":"auth","title":"pass\\u0077ord=hunter2","detail":"d","retryable":true}',
    b'{"timestamp":"2026-09-08T09:00:00Z","event":"recovery.attempted","message":"mail bob\\u0040example.com"}',
    b'{"ts":"2026-09-08T09:00:02Z","eventType":"replay-failure-resolved","skillName":"s","userAction":"skip",'
    b'"metadata":{"k\\u0065y":"AKIA\\u0049OSFODNN7EXAMPLE"}}',
]
SIGNALS = ["selector-timeout", "Element Not Found", "goal_not_achievable", "  Mixed__Case  ", "a--b", "-lead",
           "trail-", "électron-crash", "x y\tz"]
TEXTS = ["Click 'Sign in'", "waiting for selector", "café crème", "looped on the \u201ccookie\u201d modal \\ twice",
         'said "hi"', "emoji \U0001f600 here", "tab\there", "slash / and \u0040 at", "日本語のエラー"]


def _j(obj: object, *, ascii_: bool = False, compact: bool = True) -> bytes:
    seps = (",", ":") if compact else (", ", ": ")
    return json.dumps(obj, ensure_ascii=ascii_, separators=seps).encode("utf-8")


def _failure(rng: random.Random, i: int) -> dict:
    kind = rng.choice(["replay-failure-classified", "replay-failure-resolved", "regen-failure-classified",
                       "regen-failure-resolved", "pre-execution-classification"])
    rec: dict = {"ts": f"2026-09-{7 + i % 20:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}.{i % 1000:03d}Z",
                 "eventType": kind, "skillName": rng.choice(["muggle-test", "muggle-regen", "s"])}
    if kind.endswith("classified") or kind.startswith("pre-"):
        rec["aiClassification"] = rng.choice(["infra", "stale-script", "product-defect"])
        rec["aiSuggestion"] = rng.choice(["regenerate", "report-bug", "share-defect"])
    if kind.endswith("resolved") or (kind.startswith("pre-") and rng.random() < 0.3):
        rec["userAction"] = rng.choice(["regenerate", "skip", "retry"])
    for key in ("runId", "testCaseId", "projectId"):
        if rng.random() < 0.8:
            rec[key] = f"{key[:3]}-{rng.randint(1, 300)}"
    if not kind.endswith("resolved") and rng.random() < 0.8:
        rec["signals"] = rng.sample(SIGNALS if rng.random() < 0.2 else SIGNALS[:1] + ["electron-crash", "nav-404"],
                                    rng.randint(0, 3))
    if rng.random() < 0.7:
        meta: dict = {"failingStep": rng.choice(TEXTS), "n": rng.randint(-5, 10**12), "f": rng.random() < 0.5}
        if rng.random() < 0.05:
            meta["errorExcerpt"] = rng.choice(SECRETS)
        if rng.random() < 0.05:
            meta["nested"] = {"list": [1, 2.5, None, "x"], "empty": {}}
        rec["metadata"] = meta
    return rec


def _bad_failure(rng: random.Random, i: int) -> dict:
    rec = _failure(rng, i)
    key = rng.choice(["ts", "eventType", "skillName", "aiClassification", "userAction", "runId", "signals",
                      "metadata", "projectId"])
    rec[key] = rng.choice([5, 1.5, True, None, [], ["a", 1], {"a": 1}, "not-a-time", "unknown-type", [None, "b"]])
    if rng.random() < 0.2:
        del rec["skillName"]
    return rec


def _other(rng: random.Random, i: int) -> bytes:
    """A line of another format, good or bad, or a broken line."""
    choice = rng.randrange(12)
    ts = f"2026-09-08T09:{i % 60:02d}:00.000Z"
    if choice == 0:
        return _j({"timestamp": ts, "severity": "error", "event": "failure.classified", "feature_id": "f",
                   "session_id": f"s{i}", "metadata": {"failure_type": "compile", "recipe": "r.md"},
                   "message": rng.choice(SECRETS + TEXTS)}, ascii_=rng.random() < 0.5)
    if choice == 1:
        return _j({"ts": ts, "failures": ["tests/a.py::t", "tests/b.py::u"], "must_fix_keys": ["k"],
                   "scope": {"runId": f"go-{i}", "task": "t1"}})
    if choice == 2:
        return _j({"ts": ts, "must_fix_keys": rng.choice([[], ["k1"], ["k", None]])})
    if choice == 3:
        return _j({"code": rng.choice(["auth", "network", "killed", "bogus"]), "title": rng.choice(SECRETS),
                   "detail": rng.choice(TEXTS), "exitCode": rng.choice([1, -9, 2**31, "1", 1.0]),
                   "signal": rng.choice([9, None]), "stderrTail": rng.choice(SECRETS + TEXTS),
                   "retryable": rng.choice([True, False, "yes"])})
    if choice == 4:
        return rng.choice(BROKEN)[0]
    if choice == 5:
        return rng.choice(SHELL)
    if choice == 6:
        return rng.choice([b"[1,2]", b"null", b'"str"', b"{}", b"   ", b"{nope", b"NaN", b'{"a":NaN}'])
    if choice == 7:  # duplicate keys, nulls, keys of two formats
        return rng.choice([b'{"ts":"2026-09-08T09:00:00Z","eventType":"replay-failure-resolved","skillName":"s",'
                           b'"userAction":"skip","userAction":"retry"}',
                           b'{"ts":"2026-09-08T09:00:00Z","eventType":null,"event":"recovery.attempted",'
                           b'"timestamp":"2026-09-08T09:00:00Z"}',
                           b'{"ts":"2026-09-08T09:00:00+02:00","eventType":"replay-failure-resolved","skillName":"s",'
                           b'"userAction":"skip","code":"auth","failures":["x"]}'])
    if choice == 8:
        return b'{"ts":"2026-09-08","eventType":"replay-failure-resolved","skillName":"s","userAction":"skip"}'
    if choice == 9:
        return "\ufeff".encode() + _j(_failure(rng, i))
    if choice == 10:
        return _j(_failure(rng, i), compact=False) + b"  \r"
    return b'{"ts":"2026-09-08T09:00:00Z","eventType":"replay-failure-resolved","skillName":"s","userAction":"sk\xffip"}'


def _write_corpus(d: Path, *, seed: int = 7) -> dict[str, list[bytes]]:
    """The corpus files, and the lines each grown file gets before the second load."""
    rng = random.Random(seed)
    d.mkdir()
    (d / "mixed.jsonl").write_bytes(b"\n".join([b for b, _ in BROKEN[:-1]] + SHELL + HIDDEN_SECRETS
                                               + [_other(rng, i) for i in range(400)])
                                    + b"\n" + BROKEN[-1][0])
    fast = []
    for i in range(3000):
        r = rng.random()
        if r < 0.01:
            fast.append(_j(_bad_failure(rng, i)))
        elif r < 0.015 and i > 1500:  # the second half has other formats among failure events
            fast.append(_other(rng, i))
        elif r < 0.035 and i > 2000:  # good lines of other formats that name an eventType
            fast.append(rng.choice([
                _j({"ts": "2026-09-08T09:00:00Z", "failures": ["t"], "scope": {"eventType": f"x{i}", "run": "r"}}),
                _j({"eventType": None, "timestamp": "2026-09-08T09:00:00Z", "event": "recovery.attempted",
                    "message": f"retry {i}"}),
                _j({"code": "auth", "title": "no eventType", "detail": '"eventType" missing', "retryable": False,
                    "eventType": None}),
            ]))
        elif r < 0.04:
            fast.append(rng.choice(HIDDEN_SECRETS[:2] + HIDDEN_SECRETS[4:]) if i < 2000 else rng.choice(HIDDEN_SECRETS))
        elif r < 0.05 and fast:
            fast.append(rng.choice(fast))  # a duplicate within the file
        else:
            fast.append(_j(_failure(rng, i), ascii_=r > 0.9))
    (d / "events-a.jsonl").write_bytes(b"\n".join(fast) + b"\n")
    with gzip.open(d / "events-b.jsonl.gz", "wb") as fh:  # duplicates of the first file, and new lines
        fh.write(b"\n".join(fast[:50] + [_j(_failure(rng, 5000 + i)) for i in range(300)]) + b"\n")
    grow = [_j(_failure(rng, 6000 + i)) for i in range(200)]
    half = grow[150]
    (d / "grow.jsonl").write_bytes(b"\n".join(grow[:150]) + b"\n" + half[:30])
    return {
        "grow.jsonl": [half[30:] + b"\n" + b"\n".join(grow[151:] + [fast[3], _other(rng, 1)]) + b"\n"],
        "events-a.jsonl": [b"\n".join(_j(_failure(rng, 7000 + i)) for i in range(100)) + b"\n" + fast[10] + b"\n"],
    }


_EVENTS = "SELECT * EXCLUDE (file, event_id, line_hash), parse_filename(file) AS f FROM events ORDER BY f, line"
_QUARANTINE = "SELECT * EXCLUDE (file, loaded_at), parse_filename(file) AS f FROM quarantine ORDER BY f, line"


def _summary(s) -> dict:
    out = s.to_dict()
    # (the last two came after the frozen digests: tests/test_load_audit.py, tests/test_load.py)
    for k in ("db", "seconds", "events_removed", "left_out"):
        out.pop(k)
    out["files"] = [dict(f, path=Path(f["path"]).name) for f in out["files"]]
    return out


def _rows(tel, sql: str) -> list[str]:
    return [json.dumps(r, default=str, ensure_ascii=False) for r in tel.sql(sql).fetchall()]


def _digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _load_corpus(tmp_path: Path, *, chunk_bytes: int, db: bool) -> dict[str, list[str]]:
    d = tmp_path / "corpus"
    growth = _write_corpus(d)
    target = tmp_path / "t.duckdb" if db else None
    out: dict[str, list[str]] = {}
    tel = load(d, db=target, chunk_bytes=chunk_bytes, progress=False)
    out["summary1"] = [json.dumps(_summary(tel.summary), sort_keys=True)]
    if target is None:
        out["events"] = _rows(tel, _EVENTS)
        out["quarantine"] = _rows(tel, _QUARANTINE)
        tel.close()
        return out
    tel.close()
    for name, parts in growth.items():
        with open(d / name, "ab") as fh:
            fh.write(b"".join(parts))
    tel = load(d, db=target, chunk_bytes=chunk_bytes, progress=False)
    out["summary2"] = [json.dumps(_summary(tel.summary), sort_keys=True)]
    out["events"] = _rows(tel, _EVENTS)
    out["quarantine"] = _rows(tel, _QUARANTINE)
    tel.close()
    return out


# Computed by the loader at commit 771332c (tests/test_load_fastpath.py run against it), not typed by hand.
# The event digests leave out event_id and line_hash (ids became XXH3-128 halves after
# 17c97df): they are those of 17c97df, whose full digests were still 771332c's, with
# the two columns left out. What the ids are is tested in tests/test_load.py.
# Since 771332c, two changes of wording in quarantine details: "Unterminated string
# starting at at column N" reads "… starting at column N", and "… for a agent-failure
# line" reads "… for an agent-failure line"; and one of behaviour: the corpus's 37 lines
# that open with a UTF-8 byte order mark inside the file are read as failure events (as
# a mark opening a file is skipped), where they were quarantined as invalid-json. Then
# an exitCode beyond 32 bits reads "got an integer outside the 32-bit range: N" where it
# read "got a number". Every other row is as it was.
FROZEN = {
    "65536-True": {"summary1": "85331f2e36525ef8d30a5941",
                 "summary2": "da3bcc5f1b2ca7b176b868ea",
                 "events": "390108c1c3d03de157734233",
                 "quarantine": "3a713e9dfacd0aaa2315b55c"},
    "67108864-True": {"summary1": "85331f2e36525ef8d30a5941",
                    "summary2": "da3bcc5f1b2ca7b176b868ea",
                    "events": "390108c1c3d03de157734233",
                    "quarantine": "3a713e9dfacd0aaa2315b55c"},
    "16384-False": {"summary1": "85331f2e36525ef8d30a5941",
                  "events": "2502ea12d27d00befc029515",
                  "quarantine": "7988f34f6a56dbcb577de882"},
}


@pytest.mark.parametrize(
    ("chunk_bytes", "db", "row_group"),
    [(64 << 10, True, None), (64 << 20, True, None), (16 << 10, False, None),
     # small row groups, so that blocks are cut after whole row groups and the rest
     # (sometimes the end of one file and the start of the next) waits for the next block
     (64 << 10, True, 100), (16 << 10, False, 37)],
)
def test_the_corpus_loads_to_the_frozen_tables(
    tmp_path: Path, chunk_bytes: int, db: bool, row_group: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if row_group is not None:
        monkeypatch.setattr(loader, "ROW_GROUP_ROWS", row_group)
    got = {k: _digest(v) for k, v in _load_corpus(tmp_path, chunk_bytes=chunk_bytes, db=db).items()}
    assert got == FROZEN[f"{chunk_bytes}-{db}"]


_PIECES = ["to", "k", "en", "TOKEN", "pass", "word=", "@", "://", "ghp_", "AKIA", "sk-", "ke", "y=", "\u212a", "\u017f",
           "é", "\u2028", "\\", '"', "\t", " ", "x", "1", "AC", "0123456789abcdef0123456789abcdef", "basic"]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(values=st.lists(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join), min_size=1, max_size=60),
       ascii_=st.booleans(), escaped=st.sets(st.sampled_from("_@ekKs/=-")))
def test_the_secret_gate_never_hides_a_value_the_trigger_matches(values: list[str], ascii_: bool, escaped: set[str]) -> None:
    """Wherever DuckDB's trigger expression matches a decoded string value, or an object
    as DuckDB writes it again, the line's gate is true (the gate may say more). Lines
    spell some characters as JSON escapes (``\\u0040`` for ``@``), as some writers do."""
    import duckdb
    import pyarrow as pa

    from failtax.redact import TRIGGER_PATTERN
    from failtax.telemetry.validate import line_gates

    lines = []
    for v in values:
        line = json.dumps({"message": v, "metadata": {"k" + v[:3]: v, "n": [1.5e3, v]}}, ensure_ascii=ascii_)
        for ch in escaped:  # (no true/false/null and no exponent here: every such character is in a string)
            line = line.replace(ch, f"\\u{ord(ch):04x}")
        lines.append(line)
    table = pa.table({"text": pa.array(lines, pa.large_string())})
    table = table.append_column("gate", line_gates(table.column("text").combine_chunks())[0])
    con = duckdb.connect()
    con.register("t", table)
    trig = TRIGGER_PATTERN.replace("'", "''")
    hidden = con.execute(
        "SELECT text FROM (SELECT text, gate, json_transform(text, '{\"message\": \"VARCHAR\", \"metadata\": \"JSON\"}') AS j "
        f"FROM t) WHERE NOT gate AND (regexp_matches(j.message, '{trig}') "
        f"OR regexp_matches(CAST(j.metadata AS VARCHAR), '{trig}'))"
    ).fetchall()
    assert hidden == []
    plain = line_gates(pa.array(['{"message":"click timeout"}', '{"message":"x"}'], pa.large_string()))[0]
    assert plain.to_pylist() == [False, False]


_STRING_KEYS = ("ts", "eventType", "skillName", "aiClassification", "aiSuggestion", "userAction", "runId",
                "testCaseId", "projectId")
_TEXT = st.text(st.sampled_from('ab "\\/\u00e9\u20ac:{}[],I'), max_size=6)
_LEAF = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False) | _TEXT
# Mostly strings, as telemetry holds; sometimes anything, sometimes the keys again inside.
_VALUE = _TEXT | _TEXT | _TEXT | _LEAF | st.lists(_LEAF, max_size=2) | st.dictionaries(
    st.sampled_from(_STRING_KEYS + ("k",)), _LEAF, max_size=2)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(objects=st.lists(st.dictionaries(st.sampled_from(_STRING_KEYS + ("signals", "metadata")), _VALUE,
                                        min_size=1, max_size=6), min_size=1, max_size=30),
       spacing=st.sampled_from([(",", ":"), (", ", ": "), (",", " :\t")]), ascii_=st.booleans(),
       escaped=st.sets(st.sampled_from("runIdtsk")))
def test_the_odd_gate_marks_every_line_whose_string_keys_could_hold_something_else(
    objects: list[dict], spacing: tuple[str, str], ascii_: bool, escaped: set[str]
) -> None:
    """Where DuckDB finds, under a failure-event string key, a value that is not a string
    (top level, keys spelled with or without escapes), the line's ``odd`` gate is true; and
    on every line it leaves false, reading those keys as VARCHAR gives what decoding their
    JSON fragments gives, as the plain statement relies on."""
    import duckdb
    import pyarrow as pa

    from failtax.telemetry.validate import line_gates

    lines = []
    for obj in [{"runId": 5}, {"skillName": True, "ts": "x"}, {"ts": None}, {"eventType": [1]}, *objects]:
        line = json.dumps(obj, separators=spacing, ensure_ascii=ascii_)
        for ch in escaped:  # some keys' letters written as escapes (a key's or a value's)
            line = line.replace(f'"{ch}', f'"\\u{ord(ch):04x}', 1)
        lines.append(line)
    odd = line_gates(pa.array(lines, pa.large_string()))[1]
    con = duckdb.connect()
    con.register("t", pa.table({"text": pa.array(lines, pa.large_string()), "odd": odd}))
    typed = json.dumps({k: "VARCHAR" for k in _STRING_KEYS})
    fragments = json.dumps({k: "JSON" for k in _STRING_KEYS})
    not_string = " OR ".join(f'NOT starts_with(CAST(f."{k}" AS VARCHAR), \'"\')' for k in _STRING_KEYS)
    differs = " OR ".join(f'v."{k}" IS DISTINCT FROM json_extract_string(f."{k}", \'$\')' for k in _STRING_KEYS)
    missed = con.execute(
        f"SELECT text FROM (SELECT text, odd, json_transform(text, '{typed}') AS v, "
        f"json_transform(text, '{fragments}') AS f FROM t) WHERE NOT odd AND (({not_string}) OR ({differs}))"
    ).fetchall()
    assert missed == []


def test_prefetch_raises_the_readers_error_and_stops_its_thread_when_left_early() -> None:
    import threading

    from failtax.telemetry.files import prefetch

    def failing():
        yield 1
        raise OSError("disk gone")

    got = []
    with pytest.raises(OSError, match="disk gone"):
        for item in prefetch(failing(), depth=1):
            got.append(item)
    assert got == [1]

    before = {t.ident for t in threading.enumerate() if t.name == "failtax-read"}
    reading = prefetch(iter(range(10**9)), depth=2)  # far more than will be taken
    assert next(reading) == 0
    reading.close()
    assert {t.ident for t in threading.enumerate() if t.name == "failtax-read"} == before
