"""The loader on the messy files real writers leave, one kind per test.

Each test writes real files, loads them into a real DuckDB and checks, through the
``events`` and ``quarantine`` tables and the summary, that every good line is kept with
the right values, every bad one is quarantined with its line number and a reason that
says what is wrong, and that nothing raises.
"""

from __future__ import annotations

import json
from pathlib import Path

from failtax.telemetry import load


def _event(i: int, **extra: object) -> dict:
    rec = {"ts": f"2026-09-07T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z", "eventType": "replay-failure-classified",
           "skillName": "muggle-test", "aiClassification": "stale-script", "aiSuggestion": "regenerate",
           "runId": f"r{i}", "testCaseId": f"t{i}", "signals": ["selector-timeout"]}
    rec.update(extra)
    return rec


def _line(i: int, **extra: object) -> str:
    return json.dumps(_event(i, **extra), separators=(",", ":"))


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
