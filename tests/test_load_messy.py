"""The loader on the messy files real writers leave, one kind per test.

Each test writes real files, loads them into a real DuckDB and checks, through the
``events`` and ``quarantine`` tables and the summary, that every good line is kept with
the right values, every bad one is quarantined with its line number and a reason that
says what is wrong, and that nothing raises.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from failtax.errors import TelemetryError
from failtax.telemetry import files, load
from failtax.telemetry.files import read_chunks

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "telemetry"))
from make_fixtures import numbered_event as _event  # noqa: E402


def _line(i: int, **extra: object) -> str:
    return json.dumps(_event(i, **extra), separators=(",", ":"))


def _ts(i: int) -> dt.datetime:
    """The ``ts`` of ``_event(i)``, as stored (UTC, naive)."""
    return dt.datetime(2026, 9, 7, 10, i // 60 % 60, i % 60)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _events(tel, cols: str = "run_id") -> dict[int, object]:
    """line -> the given column(s) of its event."""
    rows = tel.sql(f"SELECT line, {cols} FROM events ORDER BY line").fetchall()
    return {r[0]: (r[1] if len(r) == 2 else r[1:]) for r in rows}


def _quarantine(tel) -> dict[int, tuple[str, str]]:
    """line -> (reason, detail)."""
    return {r[0]: (r[1], r[2]) for r in tel.sql("SELECT line, reason, detail FROM quarantine ORDER BY line").fetchall()}


# --------------------------------------------------------------------------- nesting, unicode, blank lines


def test_deep_nesting_never_stops_the_load(tmp_path: Path) -> None:
    deep_meta = _line(2)[:-1] + ',"metadata":' + '{"a":' * 2000 + '"token=abc123"' + "}" * 2000 + "}"
    near_limit = _line(3)[:-1] + ',"metadata":' + '{"a":' * 990 + '"password=hunter2"' + "}" * 990 + "}"
    f = tmp_path / "deep.jsonl"
    f.write_text("\n".join([
        _line(1),
        deep_meta,                                        # 2: good, secret 2,000 levels down
        near_limit,                                       # 3: good, secret just under Python's limit
        "[" * 100_000,                                    # 4: not JSON, deeper than Python parses
        '{"x":' * 3000 + "1" + "}" * 3000,                # 5: JSON DuckDB reads, no known format
        "[" * 3000 + "]" * 3000,                          # 6: a list, not an object
        _line(7),
        '{"a":' * 50_000,                                 # 8: the last line, cut off
    ]))
    tel = load(f)
    assert _events(tel) == {1: "r1", 2: "r2", 3: "r3", 7: "r7"}
    metadata = dict(tel.sql("SELECT line, metadata::VARCHAR FROM events WHERE metadata IS NOT NULL").fetchall())
    assert "abc123" not in metadata[2] and "[REDACTED:token]" in metadata[2]
    assert "hunter2" not in metadata[3] and "[REDACTED:password]" in metadata[3]
    assert tel.sql("SELECT bool_and(json_valid(metadata)) FROM events").fetchall() == [(True,)]
    q = _quarantine(tel)
    assert q[4] == ("invalid-json", "a list nested too deeply to read")
    assert q[5][0] == "unknown-format" and "nested too deeply" in q[5][1]
    assert q[6] == ("not-an-object", "expected a JSON object, got a list")
    assert q[8] == ("truncated-last-line", "the file ends inside this line (no newline; an object nested too deeply to read)")
    assert set(q) == {4, 5, 6, 8}


def test_unicode_escapes_surrogate_pairs_and_lone_surrogates(tmp_path: Path) -> None:
    f = tmp_path / "unicode.jsonl"
    lines = [
        _line(1).replace('"r1"', '"caf\\u00e9"'),                      # escape
        _line(2).replace('"r2"', '"\\ud83d\\ude00"'),                  # surrogate pair
        _line(3).replace('"r3"', '"😀 日本"'),                          # raw UTF-8
        _line(4).replace('"r4"', '"a\\ud800b"'),                       # lone high surrogate
        _line(5, metadata={"e": "X"}).replace('"X"', '"cut \\ud83d"'),  # a pair cut in two by a writer
        _line(6).replace('"r6"', '"\\udc00"'),                         # lone low surrogate
        _line(7).replace("replay-failure-classified", "replay\\u002dfailure-classified"),
        _line(8).replace('"r8"', '"a\\u0000b\\u2028c"'),
    ]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tel = load(f)
    assert _events(tel, "run_id, event_type") == {
        1: ("café", "replay-failure-classified"), 2: ("😀", "replay-failure-classified"),
        3: ("😀 日本", "replay-failure-classified"), 7: ("r7", "replay-failure-classified"),
        8: ("a\x00b\u2028c", "replay-failure-classified"),
    }
    q = _quarantine(tel)
    assert q == {
        4: ("invalid-json", "\\ud800 is half of a UTF-16 surrogate pair, not a character (a writer cut a pair in two)"),
        5: ("invalid-json", "\\ud83d is half of a UTF-16 surrogate pair, not a character (a writer cut a pair in two)"),
        6: ("invalid-json", "\\udc00 is half of a UTF-16 surrogate pair, not a character (a writer cut a pair in two)"),
    }
    raw = dict(tel.sql("SELECT line, raw FROM quarantine").fetchall())
    assert raw[4] == lines[3]  # the raw text keeps the escape as written


def test_only_json_whitespace_makes_a_blank_line(tmp_path: Path) -> None:
    f = tmp_path / "blank.jsonl"
    f.write_bytes(b"\n".join([
        _line(1).encode(),
        b"", b"   ", b"\t \r",             # 2-4: blank
        b"\x0c",                           # 5: form feed
        b"\x1f",                           # 6: ASCII unit separator
        "\u00a0".encode(),                 # 7: no-break space
        "\u3000 ".encode(),                # 8: ideographic space
        _line(9).encode() + b"   \t",      # 9: trailing spaces after a good object
        b"   " + _line(10).encode(),       # 10: leading spaces
    ]) + b"\n")
    tel = load(f)
    assert _events(tel) == {1: "r1", 9: "r9", 10: "r10"}
    assert {line: reason for line, (reason, _) in _quarantine(tel).items()} == {
        5: "invalid-json", 6: "invalid-json", 7: "invalid-json", 8: "invalid-json"}
    (report,) = tel.summary.files
    assert report.skipped_blank == 3 and report.quarantined == 4 and report.lines_read == 10


# --------------------------------------------------------------------------- timestamps


def test_timestamp_spellings_load_as_utc_or_are_quarantined(tmp_path: Path) -> None:
    good = {  # ts as written -> the UTC time it means
        "2026-09-07T10:00:00.000Z": "2026-09-07 10:00:00",
        "2026-09-07T10:00:00Z": "2026-09-07 10:00:00",                    # no milliseconds
        "2026-09-07T10:00:00.123456Z": "2026-09-07 10:00:00.123456",      # microseconds
        "2026-09-07T10:00:00+00:00": "2026-09-07 10:00:00",               # offset instead of Z
        "2026-09-07T12:30:00.000+02:30": "2026-09-07 10:00:00",           # another offset, converted
        "2026-09-07T05:00:00.000-0500": "2026-09-07 10:00:00",
        "2026-09-07T10:00:00.000z": "2026-09-07 10:00:00",                # lower-case z (RFC 3339)
        "2026-09-07t10:00:00.000z": "2026-09-07 10:00:00",                # lower-case t too
        "2026-09-07 10:00:00.000Z": "2026-09-07 10:00:00",                # a space for the T (RFC 3339)
        "2026-09-07T10:00:00.000": "2026-09-07 10:00:00",                 # no zone: UTC, as seed 000 writes
        "2026-09-07T10:00Z": "2026-09-07 10:00:00",                       # no seconds
        "2026-09-07": "2026-09-07 00:00:00",                              # a date alone: midnight UTC
    }
    bad = ["infinity", "-infinity", "epoch", "Infinity", "now", "  2026-09-07T10:00:00Z", "20260907T100000Z",
           "2026-02-30T10:00:00Z", "2026-09-07T10:00:60Z", "1788775200", "2026-09-07T10:00:00.000Z junk", ""]
    lines = [_line(i, ts=ts) for i, ts in enumerate([*good, *bad], 1)]
    lines += [_line(90, ts=1788775200), _line(91, ts=1788775200.5)]  # epoch numbers
    # Only plain failure events (the cheaper statement first), then the same lines among
    # other formats (the statement for all formats), in memory and into a database file.
    lifecycle = json.dumps({"timestamp": "2026-09-07T10:00:00.000z", "event": "recovery.attempted"})
    retry = json.dumps({"ts": "epoch", "failures": ["t"]})
    plain, mixed = tmp_path / "plain.jsonl", tmp_path / "mixed" / "mixed.jsonl"
    mixed.parent.mkdir()
    plain.write_text("\n".join(lines) + "\n")
    mixed.write_text("\n".join([*lines, lifecycle, retry]) + "\n")
    n = len(good)
    for path, db in ((plain, None), (mixed, None), (plain, tmp_path / "t.duckdb")):
        tel = load(path, db=db)
        ts = {line: str(v) for line, v in _events(tel, "ts").items()}
        expected = {i: utc for i, utc in enumerate(good.values(), 1)}
        if path == mixed:
            expected[len(lines) + 1] = "2026-09-07 10:00:00"
        assert ts == expected
        q = _quarantine(tel)
        for i, written in enumerate(bad, n + 1):
            assert q[i] == ("bad-timestamp", f"ts is not an ISO-8601 date-time: {json.dumps(written)}")
        assert q[len(bad) + n + 1] == q[len(bad) + n + 2] == ("wrong-type", "ts must be a string, got a number")
        if path == mixed:
            assert q[len(lines) + 2] == ("bad-timestamp", 'ts is not an ISO-8601 date-time: "epoch"')
        assert len(q) == len(bad) + 2 + (path == mixed)
        tel.close()


# --------------------------------------------------------------------------- NUL bytes, several objects on a line

_NUL_WHY = "which JSON text cannot hold (a writer that stops on a preallocated file, or a crash that zeroes a file's last block, leaves runs of them)"


def test_nul_bytes_from_a_crashed_writer_cost_only_themselves(tmp_path: Path) -> None:
    f = tmp_path / "crashed.jsonl"
    lines = [
        _line(1).encode(),
        b"\0" * 4096 + _line(2).encode(),                        # zeroed block, then the next writer's line
        _line(3).encode(),
        b"\0" * 100,                                             # a run of NULs on its own
        b'{"ts":"2026-09-07T10:0' + b"\0" * 500 + _line(5).encode(),  # cut mid-line, zeroed, then a new line
        _line(6).encode() + b"\0" * 10,                          # NULs after a whole line
        _line(7).replace('"r7"', '"a\\u0000b"').encode(),        # an escaped NUL is a character: good
        _line(8).replace('"r8"', '"a\0b"').encode(),             # a raw NUL inside a string
    ]
    f.write_bytes(b"\n".join(lines) + b"\n" + b"\0" * 4096)    # 9: the preallocated tail
    tel = load(f)
    assert _events(tel) == {1: "r1", 2: "r2", 3: "r3", 5: "r5", 6: "r6", 7: "a\x00b"}
    q = _quarantine(tel)
    assert q == {
        2: ("nul-bytes", f"4,096 NUL bytes, {_NUL_WHY}; the whole JSON object on the line is read on its own"),
        4: ("nul-bytes", f"100 NUL bytes, {_NUL_WHY}"),
        5: ("nul-bytes", f"500 NUL bytes, {_NUL_WHY}; the rest is not JSON: Unterminated string starting at "
                         "column 7; the whole JSON object on the line is read on its own"),
        6: ("nul-bytes", f"10 NUL bytes, {_NUL_WHY}; the whole JSON object on the line is read on its own"),
        8: ("nul-bytes", f"1 NUL byte, {_NUL_WHY}; the rest is not JSON: Unterminated string starting at column 170"),
        9: ("nul-bytes", f"4,096 NUL bytes, {_NUL_WHY}"),
    }
    raw = dict(tel.sql("SELECT line, raw FROM quarantine").fetchall())
    assert raw[2] == "\ufffd" + _line(2) and raw[4] == raw[9] == "\ufffd"  # each run shown as one U+FFFD
    # the line's records get the line's number and the same id as the record on a line of its own
    ids = dict(tel.sql("SELECT run_id, event_id FROM events").fetchall())
    clean = load(_write(tmp_path / "clean.jsonl", _line(2) + "\n"))
    assert clean.sql("SELECT event_id FROM events").fetchall() == [(ids["r2"],)]
    s = tel.summary
    assert s.quarantined_by_reason == {"nul-bytes": 6} and s.events_added == 6 and s.lines_read == 9


def test_a_writer_appending_after_a_preallocated_tail(tmp_path: Path) -> None:
    f, db = tmp_path / "log.jsonl", tmp_path / "t.duckdb"
    f.write_bytes((_line(1) + "\n" + _line(2) + "\n").encode() + b"\0" * 8192)  # crashed: zeroed tail
    first = load(f, db=db)
    assert _events(first) == {1: "r1", 2: "r2"}
    assert _quarantine(first) == {3: ("nul-bytes", f"8,192 NUL bytes, {_NUL_WHY}")}
    first.close()
    with open(f, "ab") as fh:  # the restarted writer appends (O_APPEND) after the zeros
        fh.write((_line(3) + "\n" + _line(4) + "\n").encode())
    second = load(f, db=db)
    assert _events(second) == {1: "r1", 2: "r2", 3: "r3", 4: "r4"}
    assert _quarantine(second) == {
        3: ("nul-bytes", f"8,192 NUL bytes, {_NUL_WHY}; the whole JSON object on the line is read on its own")}
    assert second.summary.events_added == 2
    second.close()
    third = load(f, db=db)
    assert third.summary.events_added == 0 and third.summary.files[0].status == "unchanged"


def test_several_objects_on_one_line_are_each_read(tmp_path: Path) -> None:
    f = tmp_path / "joined.jsonl"
    lines = [
        _line(1) + _line(2),                              # two writers, no newline between
        _line(3) + " \t" + _line(4) + _line(5),           # three, with blanks between
        _line(6) + '{"hello":"world"}',                   # objects that open with other keys: not split
        _line(7) + _line(7),                              # the same record twice
        "\x1e" + _line(8),                                # RFC 7464 record separator
        "\x1e" + _line(9) + "\x1e" + _line(10),
        _line(11) + '{"ts":',                             # a whole object and a cut one: not split
        _line(12) + "[1]",                                # an object and a list: not split
        _line(13) + ' junk',
        '{"timestamp":"2026-09-07T10:00:00Z","event":"recovery.attempted","message":"got "}{"message":"x"}"}',
        # (unescaped quotes from a shell writer, not two records)
        _line(1),                                         # a duplicate of a record found on line 1
    ]
    f.write_text("\n".join(lines) + "\n")
    tel = load(f)
    rows = tel.sql("SELECT line, run_id FROM events ORDER BY line, run_id").fetchall()
    # r1 is kept once: with line 11, as whole lines go in before the records found on others
    assert rows == [(1, "r2"), (2, "r3"), (2, "r4"), (2, "r5"), (4, "r7"), (5, "r8"),
                    (6, "r10"), (6, "r9"), (11, "r1")]
    q = tel.sql("SELECT line, reason, detail FROM quarantine ORDER BY line").fetchall()
    assert [(line, reason) for line, reason, _ in q] == [
        (3, "invalid-json"), (7, "invalid-json"), (8, "invalid-json"), (9, "invalid-json"), (10, "invalid-json")]
    assert all(detail.startswith("Extra data at column") for _, _, detail in q)
    assert tel.summary.duplicates == 2  # the second r7 on line 4, and line 11


def test_records_parted_by_carriage_returns_alone_are_each_read(tmp_path: Path) -> None:
    # A writer that ends records with CR only (old Mac line ends): JSON white space
    # between whole objects, so each object is a record of the one line the file is.
    f = tmp_path / "cr.jsonl"
    f.write_bytes(("\r".join(_line(i) for i in (1, 2, 3)) + "\r").encode())
    g = tmp_path / "cr-lf.jsonl"
    g.write_bytes(("\r".join(_line(i) for i in (4, 5)) + "\r\n" + _line(6) + "\n").encode())
    tel = load([f, g])
    rows = tel.sql("SELECT regexp_extract(file, '[^/]+$'), line, run_id FROM events ORDER BY 1, 2, 3").fetchall()
    assert rows == [("cr-lf.jsonl", 1, "r4"), ("cr-lf.jsonl", 1, "r5"), ("cr-lf.jsonl", 2, "r6"),
                    ("cr.jsonl", 1, "r1"), ("cr.jsonl", 1, "r2"), ("cr.jsonl", 1, "r3")]
    assert _quarantine(tel) == {}



# --------------------------------------------------------------------------- invalid UTF-8


def test_invalid_utf8_is_found_on_exactly_its_lines_wherever_they_fall(tmp_path: Path) -> None:
    """Lines with invalid UTF-8 on the first and last lines, on both sides of the 512-line
    pieces the check narrows down to, several in one piece, beside valid non-ASCII text:
    each is reported with its number, every other line is kept byte for byte."""
    import random

    rng = random.Random(5)
    broken = [b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"]
    n = 5_000
    bad_at = {1, 2, 511, 512, 513, 1024, 1030, 1031, 2047, 4000, n} | set(rng.sample(range(1, n + 1), 25))
    lines, first_bad = [], {}  # (line -> where its first bad byte is, counted from 1)
    for i in range(1, n + 1):
        text = f"line {i} café ✓ 日本".encode() if i % 3 else f"line {i}".encode()
        if i in bad_at:
            first_bad[i] = len(text) + 1
            text += rng.choice(broken) + b" tail"
        lines.append(text)
    f = tmp_path / "utf8.jsonl"
    f.write_bytes(b"\n".join(lines) + b"\n")
    kept, bad = {}, {}
    for chunk in read_chunks(f, chunk_bytes=16 << 10):  # (many chunks: some start mid-piece)
        kept.update(zip(chunk.table.column("line_no").to_pylist(), chunk.table.column("text").to_pylist()))
        bad.update((b.line, b) for b in chunk.bad)
    assert sorted(bad) == sorted(bad_at)
    assert all(b.reason == "invalid-utf8" and b.detail.startswith("invalid UTF-8 at byte ") for b in bad.values())
    assert {line: b.detail for line, b in bad.items()} == {
        line: f"invalid UTF-8 at byte {at}" for line, at in first_bad.items()}
    assert {i: t.rstrip("\n").encode() for i, t in kept.items()} == {
        i: text for i, text in enumerate(lines, 1) if i not in bad_at}


@settings(max_examples=40, deadline=None, derandomize=True)
@given(pieces=st.lists(st.one_of(
    st.text(st.characters(codec="utf-8", exclude_characters="\n\x00"), max_size=40).map(lambda t: t.encode()),
    st.binary(max_size=12).filter(lambda b: b"\n" not in b and b"\0" not in b),  # invalid UTF-8, maybe
    st.just(b"x" * 300),  # a line longer than a small read block
), min_size=1, max_size=60), final_newline=st.booleans(), crlf=st.booleans(),
    chunk_bytes=st.sampled_from([64, 97, 256, 1024]))
def test_reading_in_blocks_cuts_the_same_lines_as_reading_whole(
    tmp_path_factory, pieces: list[bytes], final_newline: bool, crlf: bool, chunk_bytes: int
) -> None:
    """Wherever the read blocks fall (mid-line, mid-character, lines longer than a block),
    the lines, their numbers, the bad lines, the resume offsets and the bytes before each
    resume point are those of one read of the whole file."""
    data = (b"\r\n" if crlf else b"\n").join(pieces) + (b"\n" if final_newline else b"")
    f = tmp_path_factory.mktemp("blocks") / "x.jsonl"
    f.write_bytes(data)

    def read(size: int) -> tuple[dict, dict, list]:
        lines, bad, ends = {}, {}, []
        for chunk in read_chunks(f, chunk_bytes=size):
            lines.update(zip(chunk.table.column("line_no").to_pylist(), chunk.table.column("text").to_pylist()))
            bad.update((b.line, (b.reason, b.detail, b.raw)) for b in chunk.bad)
            if chunk.unterminated is None:
                ends.append(chunk.end_offset)
                # (what the next load compares to tell a grown file from a rewritten one)
                assert 0 < len(chunk.tail) <= files.TAIL_BYTES
                assert chunk.tail == data[chunk.end_offset - len(chunk.tail):chunk.end_offset]
        return lines, bad, ends

    whole = read(1 << 20)
    blocks = read(chunk_bytes)
    assert blocks[:2] == whole[:2]
    assert blocks[2][-1:] == whole[2][-1:]  # the same resume point at the end
    assert blocks[2] == sorted(blocks[2])


# --------------------------------------------------------------------------- long lines


def test_long_lines_load_and_a_long_run_of_nul_bytes_is_not_kept(tmp_path: Path) -> None:
    blob = "é" * (6 << 20)  # a 12 MB value: the line spans read blocks
    f = tmp_path / "long.jsonl"
    with open(f, "wb") as fh:
        fh.write((_line(1) + "\n" + _line(2, metadata={"blob": blob}) + "\n").encode())
        fh.write(b"\0" * 100)
        fh.seek(fh.tell() + (200 << 20))  # a 200 MB hole: NUL bytes, then the restarted writer's line
        fh.write((_line(3) + "\n" + _line(4) + "\n").encode())
    texts, left_out = {}, []
    for chunk in read_chunks(f):
        texts.update(zip(chunk.table.column("line_no").to_pylist(), chunk.table.column("text").to_pylist()))
        left_out += chunk.nuls
    # the blocks of nothing but NUL bytes were counted, not kept (one byte stands for them)
    assert len(texts[3]) < (20 << 20) and [line for line, _ in left_out] == [3]
    assert texts[3].count("\0") + left_out[0][1] == (200 << 20) + 100
    tel = load(f)
    assert _events(tel) == {1: "r1", 2: "r2", 3: "r3", 4: "r4"}
    assert tel.sql("SELECT metadata->>'blob' = ? FROM events WHERE line = 2", [blob]).fetchall() == [(True,)]
    assert _quarantine(tel) == {3: ("nul-bytes", f"{(200 << 20) + 100:,} NUL bytes, {_NUL_WHY}; "
                                                 "the whole JSON object on the line is read on its own")}


def test_a_line_longer_than_the_limit_is_quarantined_without_being_read_whole(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(files, "MAX_LINE_BYTES", 1 << 20)
    f, db = tmp_path / "long.jsonl", tmp_path / "t.duckdb"
    f.write_bytes(b"\n".join([
        _line(1).encode(),
        b'{"x":"' + b"x" * (3 << 20) + b'"}',                        # 2: 3 MB
        _line(3).encode(),
        _line(4, metadata={"blob": "y" * (1 << 20)}).encode(),      # 4: a good event, but too long
        _line(5).encode(),
        (b"\0" * 4000 + b"z") * 600,                                # 6: mostly NUL bytes, never a whole block
        _line(7).encode(),
        b"w" * (2 << 20),                                           # 8: too long, and the file ends in it
    ]))
    first = load(f, db=db, chunk_bytes=256 << 10)
    assert _events(first) == {1: "r1", 3: "r3", 5: "r5", 7: "r7"}
    q = _quarantine(first)
    assert q[2] == ("line-too-long", f"{(3 << 20) + 8:,} bytes: longer than the 1,048,576 bytes a line may have, "
                                     "so it is not read")
    assert q[4][0] == "line-too-long"
    assert q[6] == ("nul-bytes", "2,400,000 NUL bytes (a writer that stops on a preallocated file, or a crash that "
                                 "zeroes a file's last block, leaves runs of them) in a line of 2,400,600 bytes: "
                                 "longer than the 1,048,576 bytes a line may have, so it is not read")
    assert q[8] == ("line-too-long", f"{2 << 20:,} bytes, the file ends inside it: longer than the 1,048,576 bytes "
                                     "a line may have, so it is not read")
    raw = dict(first.sql("SELECT line, raw FROM quarantine").fetchall())
    assert raw[2] == '{"x":"' + "x" * 1018 + " \u2026" and raw[8] == "w" * 1024 + " \u2026"  # the first KB
    first.close()
    with open(f, "ab") as fh:  # the writer finishes its line and writes another
        fh.write(b"\n" + _line(9).encode() + b"\n")
    second = load(f, db=db, chunk_bytes=256 << 10)
    assert _events(second) == {1: "r1", 3: "r3", 5: "r5", 7: "r7", 9: "r9"}
    assert _quarantine(second)[8] == ("line-too-long", f"{2 << 20:,} bytes: longer than the 1,048,576 bytes a line "
                                                       "may have, so it is not read")
    assert set(_quarantine(second)) == {2, 4, 6, 8} and second.summary.events_added == 1


# --------------------------------------------------------------------------- gzip


def _gz_lines(first: int, n: int) -> bytes:
    return "".join(_line(i) + "\n" for i in range(first, first + n)).encode()


def test_a_gzip_member_that_fails_its_check_loads_no_line(tmp_path: Path) -> None:
    good, second = gzip.compress(_gz_lines(1, 500)), bytearray(gzip.compress(_gz_lines(501, 3000)))
    second[len(second) // 2] ^= 0xFF  # one flipped byte: deflate decodes wrong bytes for a while
    f = tmp_path / "flipped.jsonl.gz"
    f.write_bytes(good + bytes(second))
    tel = load(f)
    # the first member passed its check: all its lines; none of the second member's
    assert _events(tel) == {i: f"r{i}" for i in range(1, 501)}
    reasons = dict(tel.sql("SELECT reason, count(*) FROM quarantine GROUP BY reason").fetchall())
    last = tel.sql("SELECT max(line) FROM quarantine WHERE reason = 'corrupt-gzip'").fetchall()[0][0]
    assert reasons == {"corrupt-gzip": last - 500, "unreadable": 1} and last > 500
    assert tel.sql("SELECT min(line) FROM quarantine WHERE reason = 'corrupt-gzip'").fetchall() == [(501,)]
    (unreadable,) = tel.sql("SELECT line, detail FROM quarantine WHERE reason = 'unreadable'").fetchall()
    assert unreadable == (last + 1, "gzip stream unreadable: Error -3 while decompressing data: incorrect data "
                                    f"check; lines 501 to {last:,} come from the gzip member that fails, so they "
                                    "are not loaded")
    raw = dict(tel.sql("SELECT line, raw FROM quarantine WHERE line IN (501, 502)").fetchall())
    assert raw == {501: _line(501), 502: _line(502)}  # the text as decoded, for a person to judge
    assert tel.summary.quarantined_by_reason == reasons and tel.summary.events_added == 500

    # a damaged CRC alone: every line decoded right, but nothing proves it
    one = bytearray(gzip.compress(_gz_lines(1, 50)))
    one[-6] ^= 0xFF
    f.write_bytes(bytes(one))
    tel = load(f)
    assert _events(tel) == {} and tel.summary.quarantined_by_reason == {"corrupt-gzip": 50, "unreadable": 1}


def test_a_gzip_file_cut_short_keeps_every_line_before_the_cut(tmp_path: Path) -> None:
    data = gzip.compress(_gz_lines(1, 2000))
    cases = {
        "half": data[: len(data) // 2],          # cut in the middle of the deflate stream
        "no-trailer": data[:-8],                 # every line there, the CRC and size missing
        "header-only": data[:5],                 # cut inside the header: nothing to read
        "padded": data + b"\0" * 512,            # NUL padding after the member (tape blocks)
        "garbage": data + b"garbage",            # something else after the member
        "members": gzip.compress(_gz_lines(1, 777)) + gzip.compress(_gz_lines(778, 1223)),  # concatenated
        "split-line": gzip.compress(_gz_lines(1, 2000)[:5001]) + gzip.compress(_gz_lines(1, 2000)[5001:]),
        "member-per-line": b"".join(gzip.compress(_gz_lines(i, 1)) for i in range(1, 2001)),  # `gzip >> log.gz`
    }
    got = {}
    for name, content in cases.items():
        f = tmp_path / f"{name}.jsonl.gz"
        f.write_bytes(content)
        tel = load(f)
        got[name] = (tel.sql("SELECT count(*), max(line) FROM events").fetchall()[0],
                     tel.sql("SELECT line, reason, detail FROM quarantine ORDER BY line").fetchall())
        assert tel.sql("SELECT bool_and(run_id = 'r' || line) FROM events").fetchall() != [(False,)]
    ended = "gzip stream unreadable: Compressed file ended before the end-of-stream marker was reached"
    (n, top), q = got["half"]
    assert n == top and 0 < n < 2000 and [r[1] for r in q] == ["truncated-last-line", "unreadable"]
    assert q[1] == (n + 2, "unreadable", ended)
    assert got["no-trailer"] == ((2000, 2000), [(2001, "unreadable", ended)])
    assert got["header-only"] == ((0, None), [(1, "unreadable", ended)])
    assert got["padded"] == ((2000, 2000), [])
    assert got["garbage"] == ((2000, 2000), [(2001, "unreadable", "gzip stream unreadable: Not a gzipped file (b'ga')")])
    assert got["members"] == got["split-line"] == got["member-per-line"] == ((2000, 2000), [])


# --------------------------------------------------------------------------- files that change between loads


def test_a_file_rewritten_with_the_same_first_lines_is_reloaded(tmp_path: Path) -> None:
    f, db = tmp_path / "app.jsonl", tmp_path / "t.duckdb"
    f.write_text("".join(_line(i) + "\n" for i in range(1, 41)))      # 40 lines, well over the first KB
    load(f, db=db).close()
    # Rewritten (not appended to): the same first 10 lines, then others, and longer than before.
    f.write_text("".join(_line(i) + "\n" for i in [*range(1, 11), *range(100, 150)]))
    tel = load(f, db=db)
    assert tel.summary.files[0].status == "replaced"
    assert _events(tel) == {n: f"r{i}" for n, i in enumerate([*range(1, 11), *range(100, 150)], 1)}
    assert _quarantine(tel) == {}
    tel.close()
    # appending is still growth: only the new lines are read
    with open(f, "a") as fh:
        fh.write(_line(200) + "\n")
    tel = load(f, db=db)
    assert tel.summary.files[0].status == "grown" and tel.summary.lines_read == 1 and _events(tel)[61] == "r200"
    tel.close()
    # copytruncate rotation: the file is emptied and written again, shorter
    f.write_text(_line(300) + "\n")
    tel = load(f, db=db)
    assert tel.summary.files[0].status == "replaced" and _events(tel) == {1: "r300"}
    tel.close()
    # a database from before the check was kept: its grown files are taken as grown, as then
    con = duckdb.connect(str(db))
    con.execute("ALTER TABLE _files DROP COLUMN tail_hash")
    con.execute("ALTER TABLE _files DROP COLUMN tail_len")
    con.close()
    with open(f, "a") as fh:
        fh.write(_line(301) + "\n")
    tel = load(f, db=db)
    assert tel.summary.files[0].status == "grown" and _events(tel) == {1: "r300", 2: "r301"}
    tel.close()


# --------------------------------------------------------------------------- directories and unreadable files


def test_a_directory_of_mixed_entries_loads_what_it_can_read(tmp_path: Path, monkeypatch) -> None:
    loader = sys.modules["failtax.telemetry.load"]
    d = tmp_path / "logs"
    (d / "sub" / "deeper").mkdir(parents=True)
    (d / ".git").mkdir()
    (d / "a.jsonl").write_text(_line(1) + "\n")
    (d / "sub" / "deeper" / "b.ndjson").write_text(_line(2) + "\n")
    (d / "notes.txt").write_text("not telemetry\n")                     # other suffix: not read
    (d / "data.json").write_text(_line(3) + "\n")                       # .json (not .json.gz): not read
    (d / ".hidden.jsonl").write_text(_line(4) + "\n")                   # hidden: not read
    (d / ".git" / "c.jsonl").write_text(_line(5) + "\n")                # in a hidden directory: not read
    (d / "broken.jsonl").symlink_to(d / "missing.jsonl")                # a broken symlink: not a file
    (d / "loop").symlink_to(d / "sub")                                  # a directory link: not followed twice
    os.mkfifo(d / "pipe.jsonl")                                         # a FIFO: never opened (it would block)
    (d / "dir.jsonl").mkdir()                                           # a directory with a telemetry name
    (d / "eio.jsonl").symlink_to("/proc/self/mem")                      # open works, read fails (EIO), even as root
    locked = d / "locked.jsonl"
    locked.write_text(_line(6) + "\n")
    locked.chmod(0)                                                     # unreadable, unless running as root
    gone = d / "gone.jsonl"
    gone.write_text(_line(7) + "\n")
    late = d / "late.jsonl"
    late.write_text(_line(8) + "\n")
    real_find, real_is_compressed = loader.find_files, loader.is_compressed

    def find_then_rotate(paths):  # removed after it was found, before it was planned
        found = real_find(paths)
        gone.unlink()
        return found

    def plan_then_rotate(path):  # removed after it was planned, before it was read
        out = real_is_compressed(path)
        if Path(path) == late.resolve():
            late.unlink()
        return out

    monkeypatch.setattr(loader, "find_files", find_then_rotate)
    monkeypatch.setattr(loader, "is_compressed", plan_then_rotate)
    db = tmp_path / "t.duckdb"
    # the same file given again, by a glob and by its directory, is read once
    tel = load([d, str(d / "*.jsonl"), d / "a.jsonl", d / "sub"], db=db)
    monkeypatch.undo()
    files = {Path(r.path).name: r.status for r in tel.summary.files}
    as_root = os.geteuid() == 0
    assert files == {"a.jsonl": "new", "b.ndjson": "new", "gone.jsonl": "unreadable", "late.jsonl": "new",
                     "locked.jsonl": "new" if as_root else "unreadable", "mem": "unreadable"}
    events = {Path(f).name: run for f, run in tel.sql("SELECT file, run_id FROM events").fetchall()}
    assert events == {"a.jsonl": "r1", "b.ndjson": "r2", **({"locked.jsonl": "r6"} if as_root else {})}
    q = {Path(f).name: (line, reason, detail) for f, line, reason, detail in
         tel.sql("SELECT file, line, reason, detail FROM quarantine").fetchall()}
    assert q["mem"] == (1, "unreadable", "cannot read the file: Input/output error")
    assert q["gone.jsonl"] == q["late.jsonl"] == (1, "unreadable", "cannot read the file: No such file or directory")
    assert len(q) == 3 + (not as_root)
    tel.close()
    # back in place: the next load reads them, and their unreadable rows go
    gone.write_text(_line(7) + "\n")
    late.write_text(_line(8) + "\n")
    locked.chmod(0o644)
    tel = load(d, db=db)
    events = {Path(f).name: run for f, run in tel.sql("SELECT file, run_id FROM events").fetchall()}
    assert events == {"a.jsonl": "r1", "b.ndjson": "r2", "gone.jsonl": "r7", "late.jsonl": "r8", "locked.jsonl": "r6"}
    q = {Path(f).name: reason for f, reason in tel.sql("SELECT file, reason FROM quarantine").fetchall()}
    assert q == {"mem": "unreadable"}  # still unreadable: one row, not one per load
    tel.close()


def test_log_rotation_in_a_directory_loses_no_line(tmp_path: Path) -> None:
    d, db = tmp_path / "logs", tmp_path / "t.duckdb"
    d.mkdir()
    live = d / "app.jsonl"

    def write(path: Path, runs: range) -> None:
        path.write_text("".join(_line(i) + "\n" for i in runs))

    def runs(tel) -> list[str]:
        return sorted(r for (r,) in tel.sql("SELECT run_id FROM events").fetchall())

    write(live, range(0, 30))
    load(d, db=db).close()
    os.rename(live, d / "app.jsonl.1")  # logrotate: rename, then the writer creates the file again
    write(live, range(30, 50))
    tel = load(d, db=db)
    assert runs(tel) == sorted(f"r{i}" for i in range(50))
    assert {Path(f.path).name: f.status for f in tel.summary.files} == {"app.jsonl": "replaced", "app.jsonl.1": "new"}
    tel.close()
    # the next rotation compresses the old one and dates the newer one
    with open(d / "app.jsonl.1", "rb") as src, gzip.open(d / "app.jsonl.2.gz", "wb") as dst:
        dst.write(src.read())
    os.remove(d / "app.jsonl.1")
    os.rename(live, d / "app.jsonl-20260907")
    write(live, range(50, 55))
    tel = load(d, db=db)
    assert runs(tel) == sorted(f"r{i}" for i in range(55))
    # the compressed copy of app.jsonl.1 (deleted since) is recognised line by line; the
    # dated file's lines take the place of the live file's rows, reloaded as it was replaced
    assert tel.summary.duplicates == 30 and tel.summary.events_added == 5
    tel.close()
    # other names in the directory are still not read
    (d / "app.jsonl.bak").write_text(_line(99) + "\n")
    (d / "catalog").write_text(_line(98) + "\n")
    tel = load(d, db=db)
    assert tel.summary.events_added == 0 and len(tel.summary.files) == 3
    tel.close()


def test_a_pipe_given_by_name_is_refused_clearly(tmp_path: Path) -> None:
    fifo = tmp_path / "events.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(TelemetryError, match="not a regular file"):
        load(fifo)


def test_a_copy_of_lines_whose_file_is_gone_is_still_a_duplicate(tmp_path: Path) -> None:
    a, b, db = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "t.duckdb"
    a.write_text("".join(_line(i) + "\n" for i in range(20)) + "\0\0" + _line(20) + _line(21) + "\n")
    load(a, db=db).close()
    b.write_bytes(a.read_bytes().replace(b"\0\0", b"") .replace(b"}{", b"}\n{") + (_line(22) + "\n").encode())
    a.unlink()  # compressed elsewhere and deleted, or moved away
    tel = load(b, db=db)
    assert tel.summary.duplicates == 22 and tel.summary.events_added == 1
    assert tel.sql("SELECT count(*), count(DISTINCT run_id) FROM events").fetchall() == [(23, 23)]
    tel.close()


def test_a_rotated_copy_read_before_the_live_file_keeps_its_lines(tmp_path: Path) -> None:
    d, db = tmp_path / "logs", tmp_path / "t.duckdb"
    d.mkdir()
    live = d / "app.jsonl"
    live.write_text("".join(_line(i) + "\n" for i in range(300)))
    load(d, db=db).close()
    # rotated to a name that sorts before the live file, which is created again
    os.rename(live, d / "app-2026-09-07.jsonl")
    live.write_text("".join(_line(i) + "\n" for i in range(300, 350)))
    tel = load(d, db=db, chunk_bytes=4096)  # small blocks: the copy goes in before the live file is read
    assert tel.sql("SELECT count(*), count(DISTINCT run_id) FROM events").fetchall() == [(350, 350)]
    assert {Path(f).name: n for f, n in tel.sql("SELECT file, count(*) FROM events GROUP BY file").fetchall()} == {
        "app-2026-09-07.jsonl": 300, "app.jsonl": 50}
    assert tel.summary.duplicates == 0
    tel.close()


# --------------------------------------------------------------------------- line ends, spacing, keys, types


def test_line_ends_spacing_and_key_order(tmp_path: Path) -> None:
    crlf = tmp_path / "windows.jsonl"
    reordered = json.dumps(dict(reversed(list(_event(4).items()))))
    crlf.write_bytes(
        (_line(1) + "\r\n"                     # CRLF
         + _line(2) + "\n"                     # LF in the same file
         + "\r\n" + "  \t \r\n"                # blank lines, CRLF
         + _line(3) + "   \t\r\n"              # trailing white space
         + reordered + "\n"                    # keys in another order, spaces after separators
         + _line(5)).encode()                  # no newline at the end: a whole line all the same
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    tel = load([crlf, empty])
    assert _events(tel, "run_id, signals, ts") == {
        1: ("r1", ["selector-timeout"], _ts(1)), 2: ("r2", ["selector-timeout"], _ts(2)),
        5: ("r3", ["selector-timeout"], _ts(3)), 6: ("r4", ["selector-timeout"], _ts(4)),
        7: ("r5", ["selector-timeout"], _ts(5))}
    assert _quarantine(tel) == {}
    reports = {Path(r.path).name: r for r in tel.summary.files}
    assert reports["windows.jsonl"].lines_read == 7 and reports["windows.jsonl"].skipped_blank == 2
    assert reports["empty.jsonl"].lines_read == 0 and reports["empty.jsonl"].status == "new"
    # A CRLF line and the same line with LF are different bytes: both are kept (the event
    # id is the MD5 of the line as written).
    lf = tmp_path / "unix.jsonl"
    lf.write_text(_line(1) + "\n")
    assert load([crlf, lf]).summary.duplicates == 0


def test_a_signal_named_twice_or_blank_counts_once_or_not_at_all(tmp_path: Path) -> None:
    path = _write(tmp_path / "signals.jsonl", "\n".join([
        _line(1, signals=["a", "a", "b"]),                               # one name twice
        _line(2, signals=["Element Not Found", "element_not_found", " ", "", "x"]),  # twice once normal; blanks
        _line(3, signals=[]),
    ]) + "\n")
    tel = load(path)
    assert _quarantine(tel) == {}
    by_run = dict(tel.sql("SELECT run_id, signals FROM decisions").fetchall())
    assert by_run == {"r1": ["a", "b"], "r2": ["element-not-found", "x"], "r3": []}
    rows = tel.sql("SELECT e.run_id, s.signal FROM signals s JOIN events e USING (event_id) ORDER BY 1, 2").fetchall()
    assert rows == [("r1", "a"), ("r1", "b"), ("r2", "element-not-found"), ("r2", "x")]


def test_values_of_the_wrong_type_are_quarantined_not_converted(tmp_path: Path) -> None:
    f = tmp_path / "types.jsonl"
    agent = {"code": "auth", "title": "t", "detail": "d", "retryable": False}
    lines = [
        _line(1, runId=12345),                                   # a number for a string
        _line(2, signals="selector-timeout"),                    # a string for a list
        _line(3, metadata='{"a":1}'),                            # a string for an object
        _line(4, signals=["a", 1]),                              # a list with a number
        _line(5, signals=None, metadata=None),                   # null counts as absent: good
        _line(6, signals=["x", None, "Y_z"]),                    # nulls dropped, names normalised: good
        _line(7, runId="12345"),                                 # a number as a string is a string: good
        json.dumps({**agent, "exitCode": "1"}),                  # 8: a string for an integer
        json.dumps({**agent, "exitCode": 1.0}),                  # 9: a float for an integer
        json.dumps({**agent, "exitCode": 2**40}),                # 10: out of INTEGER range
        json.dumps({**agent, "retryable": "false"}),             # 11: a string for a boolean
        json.dumps({**agent, "retryable": 0}),                   # 12: a number for a boolean
        json.dumps({**agent, "exitCode": -1}),                   # 13: good
        _line(14)[:-1] + ',"runId":"second"}',                   # 14: a key twice: the first value counts
        _line(15, eventType="Replay-Failure-Classified"),        # 15: event types are exact
    ]
    f.write_text("\n".join(lines) + "\n")
    tel = load(f)
    assert _events(tel, "run_id, signals, metadata, exit_code") == {
        5: ("r5", None, None, None), 6: ("r6", ["x", "y-z"], None, None), 7: ("12345", ["selector-timeout"], None, None),
        13: (None, None, None, -1), 14: ("r14", ["selector-timeout"], None, None)}
    assert _quarantine(tel) == {
        1: ("wrong-type", "runId must be a string, got a number"),
        2: ("wrong-type", "signals must be a list of strings, got a string"),
        3: ("wrong-type", "metadata must be an object, got a string"),
        4: ("wrong-type", "signals must be a list of strings, got a list with non-string items"),
        8: ("wrong-type", "exitCode must be an integer, got a string"),
        9: ("wrong-type", "exitCode must be an integer, got a number"),
        10: ("wrong-type", "exitCode must be an integer, got an integer outside the 32-bit range: 1099511627776"),
        11: ("wrong-type", "retryable must be true or false, got a string"),
        12: ("wrong-type", "retryable must be true or false, got a number"),
        15: ("unknown-event-type", 'unknown eventType "Replay-Failure-Classified" for a failure-event line'),
    }


def test_a_line_split_in_two_is_two_bad_lines(tmp_path: Path) -> None:
    f = tmp_path / "split.jsonl"
    whole = _line(2)
    shell = '{"timestamp":"2026-09-07T10:00:00Z","event":"recovery.attempted","message":"line one\nline two"}'
    f.write_text("\n".join([_line(1), whole[:60], whole[60:], shell, _line(3)]) + "\n")
    tel = load(f)
    assert _events(tel) == {1: "r1", 6: "r3"}
    assert _quarantine(tel) == {
        2: ("invalid-json", "Unterminated string starting at column 46"),
        3: ("invalid-json", "Expecting value at column 1"),
        4: ("invalid-json", "Unterminated string starting at column 76"),
        5: ("invalid-json", "Expecting value at column 1"),
    }


def test_a_read_stops_at_the_size_the_file_was_measured_at(tmp_path: Path) -> None:
    f = tmp_path / "live.jsonl"
    f.write_text("".join(_line(i) + "\n" for i in range(1, 6)))
    cut = len("".join(_line(i) + "\n" for i in range(1, 4))) + 10  # ten bytes into line 4
    chunks = list(read_chunks(f, size=cut))
    lines = [n for c in chunks for n in c.table.column("line_no").to_pylist()]
    assert lines == [1, 2, 3, 4]
    # line 4, as far as the measured size, is the unterminated last line, as if the file ended there
    assert chunks[-1].unterminated == 4 and chunks[-1].end_offset == cut - 10
    assert chunks[-1].table.column("text").to_pylist() == [_line(4)[:10] + "\n"]
    # read again from there, it is whole
    rest = list(read_chunks(f, offset=cut - 10, first_line=4))
    assert [n for c in rest for n in c.table.column("line_no").to_pylist()] == [4, 5]
    assert not any(c.unterminated for c in rest)


def test_a_file_that_grows_while_it_is_loaded(tmp_path: Path) -> None:
    f, db = tmp_path / "live.jsonl", tmp_path / "t.duckdb"
    f.write_text("".join(_line(i) + "\n" for i in range(20_000)))
    written = [20_000]
    stop = threading.Event()

    def writer() -> None:  # appends, each line in two writes: a reader can catch it half written
        with open(f, "a") as fh:
            i = 20_000
            # (at most 200,000 lines: a slow machine's load must not leave a test filling its disk)
            while i < 20_200 or (not stop.is_set() and i < 200_000):
                line = _line(i) + "\n"
                fh.write(line[:50])
                fh.flush()
                fh.write(line[50:])
                fh.flush()
                i += 1
                written[0] = i

    t = threading.Thread(target=writer)
    t.start()
    try:
        first = load(f, db=db, chunk_bytes=1 << 20)
    finally:
        stop.set()
        t.join()
    n_first = first.sql("SELECT count(*) FROM events").fetchall()[0][0]
    assert n_first >= 20_000
    # the load read up to the size it measured, not on after the writer (that is the next load's)
    size, offset = first.sql('SELECT size, "offset" FROM _files').fetchall()[0]
    assert offset <= size
    # a line caught half written can only be the last one read, quarantined until it is whole
    assert first.sql("SELECT count(*) FILTER (WHERE reason <> 'truncated-last-line'), count(*) FROM quarantine"
                     ).fetchall()[0][0] == 0
    first.close()
    second = load(f, db=db)
    assert second.summary.files[0].status == "grown"
    assert second.sql("SELECT count(*), count(DISTINCT run_id), max(line) FROM events").fetchall() == [
        (written[0], written[0], written[0])]
    assert _quarantine(second) == {}
    second.close()


# --------------------------------------------------------------------------- the command line


def test_cli_load_of_a_messy_directory(tmp_path: Path, failtax_cmd: list[str]) -> None:
    d = tmp_path / "logs"
    d.mkdir()
    (d / "crashed.jsonl").write_bytes((_line(1) + "\n").encode() + b"\0" * 300 + (_line(2) + "\n").encode())
    (d / "joined.jsonl").write_text(_line(3) + _line(4) + "\n" + _line(5, ts="infinity") + "\n")
    flipped = bytearray(gzip.compress(_gz_lines(10, 200)))
    flipped[-6] ^= 0xFF
    (d / "old.jsonl.1.gz").write_bytes(bytes(flipped))
    (d / "eio.jsonl").symlink_to("/proc/1/mem")  # unreadable for anyone (an I/O error, or no permission)
    db = tmp_path / "t.duckdb"
    p = subprocess.run([*failtax_cmd, "load", str(d), "--db", str(db), "--show-quarantine", "5",
                        "--fail-on-quarantine"], capture_output=True, text=True)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    out = p.stdout
    assert "files: 4 (3 new, 1 unreadable)" in out and "events added: 4 (failure-event 4)" in out
    assert "quarantined: 204 lines (corrupt-gzip 200, unreadable 2, bad-timestamp 1, nul-bytes 1)" in out
    assert f"{d / 'crashed.jsonl'}:2: nul-bytes: 300 NUL bytes, {_NUL_WHY}; the whole JSON object" in out
    assert f"{d / 'joined.jsonl'}:2: bad-timestamp: ts is not an ISO-8601 date-time: \"infinity\"" in out
    # again: nothing new, the unreadable file still one row; --json for programs
    p = subprocess.run([*failtax_cmd, "load", str(d), "--db", str(db), "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["events_added"] == 0 and summary["quarantined_by_reason"] == {"unreadable": 1}
    assert summary["totals"] == {"events": 4, "quarantine": 204, "decisions": 4}
    assert sorted(f["status"] for f in summary["files"]) == ["unchanged", "unchanged", "unchanged", "unreadable"]


def test_a_writer_that_never_writes_a_newline(tmp_path: Path) -> None:
    f, db = tmp_path / "one-line.jsonl", tmp_path / "t.duckdb"
    f.write_text("".join(_line(i) for i in range(5000)) + _line(7) + "\n")  # and one record twice
    for target in (None, db):
        tel = load(f, db=target)
        assert tel.sql("SELECT count(*), count(DISTINCT run_id), min(line), max(line) FROM events").fetchall() == [
            (5000, 5000, 1, 1)]
        assert tel.summary.duplicates == 1 and _quarantine(tel) == {}
        tel.close()
    with open(f, "a") as fh:  # it grows by a line of its own
        fh.write("".join(_line(i) for i in range(5000, 5010)) + "\n")
    tel = load(f, db=db)
    assert tel.sql("SELECT line, count(*) FROM events GROUP BY line ORDER BY line").fetchall() == [(1, 5000), (2, 10)]
    assert tel.summary.events_added == 10
    tel.close()


# --------------------------------------------------------------------------- bad lines spread through a block


def _scattered(n: int, every: int) -> tuple[list[str], dict[int, str], set[int]]:
    """``n`` lines of failure events, every ``every``-th one spoilt in turn (cut short, a wrong
    type, an unknown event type, a missing field, a repeat of a good line, a repeat of a cut
    line): the lines, line -> the reason each bad one must be quarantined with, and the
    lines that repeat an earlier one byte for byte."""
    lines, reasons, repeats = [], {}, set()
    for i in range(1, n + 1):
        good = _line(i)
        kind = (i // every) % 6 if i % every == 0 else None
        if kind == 1:
            lines.append(good[: len(good) // 2])
            reasons[i] = "invalid-json"
        elif kind == 2:
            lines.append(good.replace('"runId":"', '"runId":7,"x":"', 1))
            reasons[i] = "wrong-type"
        elif kind == 3:
            lines.append(good.replace('"eventType":"replay-failure-', '"eventType":"replay-failure-x', 1))
            reasons[i] = "unknown-event-type"
        elif kind == 4:
            lines.append(good.replace('"ts":', '"tz":', 1))
            reasons[i] = "missing-field"
        elif kind == 5:
            lines.append(lines[every - 1])  # the first cut line: quarantined again, not a duplicate
            reasons[i] = "invalid-json"
        elif kind == 0:
            lines.append(lines[0])
            repeats.add(i)
        else:
            lines.append(good)
    return lines, reasons, repeats


def test_bad_lines_scattered_through_a_block_cost_only_themselves_fresh_or_extending(tmp_path: Path) -> None:
    """One bad line in 37, over 5,000 lines (each DuckDB vector holds several): every good
    line is an event and every bad one is quarantined with its reason, the same whether
    the load builds a database in memory, builds a file, or extends a file inside a
    transaction (where no statement may fail and be run again), and in blocks of a few
    hundred lines (every block after the first looks for broken lines before it inserts)."""
    lines, reasons, repeats = _scattered(5000, 37)
    assert len(set(reasons.values())) == 4 and repeats and len(reasons) > 100
    path = _write(tmp_path / "scattered.jsonl", "\n".join(lines) + "\n")
    other = _write(tmp_path / "before.jsonl", _line(90_000) + "\n")
    db_new, db_old, db_small = tmp_path / "new.duckdb", tmp_path / "old.duckdb", tmp_path / "small.duckdb"
    load(str(other), db=db_old).close()
    want_events = set(range(1, 5001)) - set(reasons) - repeats
    got = []
    for tel in (load(str(path)), load(str(path), db=db_new), load(str(path), db=db_old),
                load(str(path), db=db_small, chunk_bytes=100_000)):
        with tel:
            events = tel.sql("SELECT line, run_id, ts FROM events WHERE file = ? ORDER BY line", [str(path)]).fetchall()
            assert [e[0] for e in events] == sorted(want_events)
            assert all(run == f"r{line}" and ts == _ts(line) for line, run, ts in events)
            quarantined = tel.sql("SELECT line, reason, raw FROM quarantine WHERE file = ? ORDER BY line",
                                  [str(path)]).fetchall()
            assert {q[0]: q[1] for q in quarantined} == reasons
            assert all(raw == lines[line - 1] for line, _, raw in quarantined)
            assert tel.summary.duplicates == len(repeats)
            got.append((events, quarantined))
    assert got[0] == got[1] == got[2] == got[3]
