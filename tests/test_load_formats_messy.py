"""The loader on messy files of the three other formats, and on files that mix formats.

Lifecycle lines (seed 001) as a bash writer leaves them, retry logs (seed 003) and
AgentFailure objects (seed 004) as other programs write them, written here by hand from
the seeds' text (not by failtax's simulator or fixture writer). Each test loads real
files into a real DuckDB and checks the ``events`` and ``quarantine`` tables: every good
line kept and normalised, every bad one quarantined with its file, line number and a
reason a person understands, and nothing added by loading again.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from failtax.telemetry import load


def _life(ts: str = "2026-09-08T09:00:00.000Z", event: str = "failure.classified", **extra: object) -> str:
    """A lifecycle line as a bash writer prints it: keys in the template's order, no spaces."""
    rec: dict[str, object] = {"timestamp": ts, "severity": "error", "event": event, "feature_id": "f1",
                              "session_id": "s1", "metadata": {"failure_type": "compile"}, "message": "build failed"}
    rec.update(extra)
    return json.dumps({k: v for k, v in rec.items() if v is not ...}, separators=(",", ":"), ensure_ascii=False)


def _events(tel, cols: str) -> dict[int, object]:
    """line -> the given column(s) of its event."""
    rows = tel.sql(f"SELECT line, {cols} FROM events ORDER BY line").fetchall()
    return {r[0]: (r[1] if len(r) == 2 else r[1:]) for r in rows}


def _quarantine(tel) -> dict[int, tuple[str, str]]:
    """line -> (reason, detail)."""
    return {r[0]: (r[1], r[2]) for r in tel.sql("SELECT line, reason, detail FROM quarantine ORDER BY line").fetchall()}


# --------------------------------------------------------------------------- lifecycle (seed 001)


def test_lifecycle_times_as_date_writes_them(tmp_path: Path) -> None:
    # GNU date: -Iseconds, -Ins (a comma before the fraction, as ISO-8601 allows),
    # --rfc-3339=ns (a space for the T), +%FT%T (no zone: UTC); PowerShell's -Format o.
    written = {
        "2026-09-08T11:00:00+02:00": dt.datetime(2026, 9, 8, 9, 0),
        "2026-09-08T11:00:00,123456789+02:00": dt.datetime(2026, 9, 8, 9, 0, 0, 123456),
        "2026-09-08T09:00:00,5Z": dt.datetime(2026, 9, 8, 9, 0, 0, 500000),
        "2026-09-08 09:00:00.123456789+00:00": dt.datetime(2026, 9, 8, 9, 0, 0, 123456),
        "2026-09-08T09:00:00": dt.datetime(2026, 9, 8, 9, 0),
        "2026-09-08T11:00:00.1234567+02:00": dt.datetime(2026, 9, 8, 9, 0, 0, 123456),
    }
    bad = ["Tue Sep  8 09:00:00 UTC 2026", "1788858000", "2026-09-08T09:00:00,Z", "2026-09-08,09:00:00"]
    f = tmp_path / "lifecycle.log"
    f.write_text("".join(_life(ts, message=f"m{i}") + "\n" for i, ts in enumerate([*written, *bad], 1)))
    for db in (None, tmp_path / "t.duckdb"):
        tel = load(f, db=db)
        assert _events(tel, "ts") == dict(enumerate(written.values(), 1))
        q = _quarantine(tel)
        assert q == {i: ("bad-timestamp", f"timestamp is not an ISO-8601 date-time: {json.dumps(ts)}")
                     for i, ts in enumerate(bad, len(written) + 1)}
        tel.close()


def test_times_outside_the_plausible_years_are_quarantined_with_the_reason(tmp_path: Path) -> None:
    # a zeroed clock, a sentinel "never" date, a Unix epoch that went negative: DuckDB reads
    # them all, and one such event would stretch every weekly series over centuries
    odd = ["0000-01-01T00:00:00.000Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "1969-12-31T23:59:59Z"]
    edge = {"1970-01-01T00:00:00Z": dt.datetime(1970, 1, 1), "2099-12-31T23:59:59Z": dt.datetime(2099, 12, 31, 23, 59, 59)}
    f = tmp_path / "lifecycle.log"
    f.write_text("".join(_life(ts, message=f"m{i}") + "\n" for i, ts in enumerate([*edge, *odd], 1)))
    for db in (None, tmp_path / "t.duckdb"):
        tel = load(f, db=db)
        assert _events(tel, "ts") == dict(enumerate(edge.values(), 1))
        assert _quarantine(tel) == {
            i: ("bad-timestamp", f"timestamp {json.dumps(ts)} is outside the years 1970–2099 (a clock or a writer gone wrong)")
            for i, ts in enumerate(odd, len(edge) + 1)}
        tel.close()


def test_lifecycle_lines_from_a_bash_writer(tmp_path: Path) -> None:
    # printf '{"timestamp":"%s","severity":"%s","event":"%s",...,"message":"%s"}\r\n' with the
    # values pasted in as they are; the file opens with a UTF-8 byte order mark.
    head = '{"timestamp":"2026-09-08T09:00:0%d.000Z","severity":"%s","event":"%s"'
    lines = [
        (head % (1, "ERROR", "failure.classified")) + ',"feature_id":"f1","session_id":"s1",'
        '"metadata":{"failure_type":"compile","severity":"blocking","recipe":"recipes/compile.md"},'
        '"message":"error TS2304: Cannot find name \'UserProfile\'"}',                       # 1: good
        (head % (2, "Warn", "recovery.attempted")) + "}",                                    # 2: optional keys absent
        (head % (3, "info", "recovery.attempted")) + ',"message":"retrying "mcp-server" once"}',  # 3: quotes
        (head % (4, "error", "recovery.escalated")) + ',"message":"see C:\\Users\\ci\\build.log"}',  # 4: \U
        (head % (5, "error", "recovery.escalated")) + ',"message":"output in C:\\build\\"}',  # 5: \" ends it
        (head % (6, "error", "recovery.attempted")) + ',"message":"C:\\temp\\new"}',        # 6: \t, \n: good
        (head % (7, "error", "failure.classified")) + ',"message":"tsc:\tTS2304"}',          # 7: a raw tab
        (head % (8, "error", "failure.classified")) + ',"message":"\x1b[31merror\x1b[0m"}',  # 8: raw ANSI
        (head % (9, "error", "failure.classified")) + ',"metadata":"failure_type=compile"}',  # 9: a string
        (head % (1, "error", "recovery.degraded")) + ',"message":"trailing comma",}',       # 10: good
        (head % (2, "error", "recovery.attempted")) + ',"feature_id":,"message":"unset"}',   # 11: empty value
        (head % (3, "error", "recovery.succeeded")) + ',"message":"cut',                    # 12: cut, last
    ]
    f = tmp_path / "lifecycle.log"
    f.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode())
    db = tmp_path / "t.duckdb"
    tel = load(f, db=db)
    assert _events(tel, "event_type, severity, message") == {
        1: ("failure.classified", "error", "error TS2304: Cannot find name 'UserProfile'"),
        2: ("recovery.attempted", "warn", None),
        6: ("recovery.attempted", "error", "C:\temp\new"),  # valid escapes: read as JSON says
        10: ("recovery.degraded", "error", "trailing comma"),
    }
    assert tel.sql("SELECT failure_type, failure_severity, recipe FROM lifecycle WHERE line = 1").fetchall() == [
        ("compile", "blocking", "recipes/compile.md")]
    backslash = "JSON writes a backslash as \\\\"

    def col(line: int, at: str, shift: int = 0) -> int:  # the 1-based column of ``at`` in a line
        return lines[line - 1].index(at) + 1 + shift

    assert _quarantine(tel) == {
        3: ("unescaped-quote", "a double quote inside a string is not escaped (Expecting ',' delimiter at "
                               f"column {col(3, 'mcp-server')})"),
        4: ("invalid-json", f"a backslash inside a string is not escaped at column {col(4, 'Users', -1)} "
                            f"(\\U is no JSON escape; {backslash})"),
        5: ("invalid-json", f"Unterminated string starting at column {col(5, 'output', -1)} (a backslash at the "
                            f"end of a value escapes its closing quote; {backslash})"),
        7: ("invalid-json", f"a control character (U+0009) inside a string is not escaped at column "
                            f"{col(7, chr(9))} (JSON writes it \\t)"),
        8: ("invalid-json", f"a control character (U+001B) inside a string is not escaped at column "
                            f"{col(8, chr(27))} (JSON writes it \\u001b)"),
        9: ("wrong-type", "metadata must be an object, got a string"),
        11: ("invalid-json", f"Expecting value at column {col(11, ':,', 1)}"),
        12: ("truncated-last-line", "the file ends inside this line (no newline, Unterminated string starting at "
                                    f"column {col(12, 'cut', -1)})"),
    }
    raw = dict(tel.sql("SELECT line, raw FROM quarantine").fetchall())
    assert raw[3] == lines[2] and raw[12] == lines[11]  # as written, without the line end
    tel.close()
    again = load(f, db=db)
    assert again.summary.events_added == 0 and again.summary.quarantined == 0
    assert again.summary.files[0].status == "unchanged"
    again.close()


# --------------------------------------------------------------------------- AgentFailure objects (seed 004)


def _agent(**extra: object) -> dict:
    """An AgentFailure as serde writes it (camelCase, exitCode/signal/stderrTail left out when empty)."""
    rec: dict[str, object] = {"code": "killed", "title": "Agent process was killed",
                              "detail": "Terminated by a signal — most often the OS out-of-memory killer.",
                              "signal": 9, "retryable": False}
    rec.update(extra)
    return rec


def test_agent_failures_with_null_strings_numbers_and_extra_keys(tmp_path: Path) -> None:
    ansi = "\x1b[31merror\x1b[0m: JavaScript heap out of memory\n"
    huge = ansi * 40_000 + "\x00 core dumped\n"  # about 2 MB, ANSI colours and a NUL, escaped by serde
    lines = [
        _agent(),                                                       # 1
        _agent(exitCode=None, signal=None),                             # 2: null is absent
        _agent(code="unknown_non_zero", exitCode=2, signal=None, stderrTail=huge),  # 3
        _agent(exitCode="137"),                                         # 4: a string for an integer
        _agent(signal="SIGKILL"),                                       # 5
        _agent(signal=9.0),                                             # 6
        _agent(code="Killed"),                                          # 7: codes are snake_case names
        _agent(code="timeout"),                                         # 8
        # extra keys a logging writer adds, some of them another format's marker
        _agent(agentId="uid-x", pane=3, host={"name": "ci-7", "tags": ["a"]}),               # 9
        _agent(ts="2026-09-08T10:00:00.000Z", runId="run-9"),                                # 10
        _agent(timestamp="2026-09-08T12:00:01+02:00", event="agent.failed", session_id="s1"),  # 11
        _agent(event="agent.failed"),                                   # 12: a lifecycle marker, no timestamp
        _agent(failures=["tests/a.py::t"]),                             # 13: a retry-log marker, no ts
        _agent(eventType="agent-failure"),                              # 14: a failure-event marker
        {"ts": "2026-09-08T10:00:02.000Z", "event": "retry", "failures": ["tests/a.py::t"]},  # 15: retry log + event
        {"timestamp": "2026-09-08T10:00:03Z", "event": "recovery.attempted", "code": 2},      # 16: lifecycle + code
        _agent(title=None),                                             # 17: required, null
    ]
    f = tmp_path / "agent-failures.jsonl"
    f.write_text("".join(json.dumps(r, ensure_ascii=i % 2 == 0) + "\n" for i, r in enumerate(lines)))
    db = tmp_path / "t.duckdb"
    tel = load(f, db=db)
    got = _events(tel, "source, ts, ai_classification, exit_code, posix_signal, retryable")
    agent = ("agent-failure", None, "killed", None, 9, False)
    assert got == {
        1: agent, 2: ("agent-failure", None, "killed", None, None, False),
        3: ("agent-failure", None, "unknown_non_zero", 2, None, False),
        9: agent, 10: ("agent-failure", dt.datetime(2026, 9, 8, 10, 0), *agent[2:]),
        11: ("agent-failure", dt.datetime(2026, 9, 8, 10, 0, 1), *agent[2:]), 12: agent, 13: agent, 14: agent,
        15: ("retry-log", dt.datetime(2026, 9, 8, 10, 0, 2), None, None, None, None),
        16: ("lifecycle", dt.datetime(2026, 9, 8, 10, 0, 3), None, None, None, None),
    }
    assert tel.sql("SELECT stderr_tail = ? FROM agent_failures WHERE line = 3", [huge]).fetchall() == [(True,)]
    assert _quarantine(tel) == {
        4: ("wrong-type", "exitCode must be an integer, got a string"),
        5: ("wrong-type", "signal must be an integer, got a string"),
        6: ("wrong-type", "signal must be an integer, got a number"),
        7: ("unknown-event-type", 'unknown code "Killed" for an agent-failure line'),
        8: ("unknown-event-type", 'unknown code "timeout" for an agent-failure line'),
        17: ("missing-field", "missing required field(s): title"),
    }
    tel.close()
    again = load(f, db=db)
    assert again.summary.events_added == 0 and again.summary.files[0].status == "unchanged"
    again.close()


# --------------------------------------------------------------------------- retry logs (seed 003)


def test_retry_logs_with_empty_lists_unicode_ids_and_every_kind_of_scope(tmp_path: Path) -> None:
    def entry(second: int, **keys: object) -> dict:
        return {"ts": f"2026-09-08T10:00:{second:02d}.000Z", **keys}

    scope = {"run_id": "go-1", "task_id": "task-1"}
    lines = [
        entry(0, failures=[], scope=scope),                                                   # 1: all passed
        entry(1, failures=["tests/test_日本.py::test_café[é-1]", "tests/a.py::t[1,2]"], scope=scope),  # 2
        entry(2, failures=["tests/test_日本.py::test_café[é-1]"], scope=scope),                # 3: again: streak 2
        entry(3, must_fix_keys=["src/auth.ts:middleware:缺少測試", 'src/a.ts:f:"quoted"'],
              scope={"runId": "go-2", "task": "t-2"}),                                        # 4: other spellings
        entry(4, must_fix_keys=[]),                                                           # 5: no scope
        entry(5, failures=["x"], scope=None),                                                 # 6: null scope
        entry(6, failures=["x", None], must_fix_keys=["k"], scope={}),                        # 7: both, a null id
        entry(7, failures=["tests/\\u00e9.py::t"]),                                           # 8 (see below)
        entry(8, failures=None, must_fix_keys=None, scope=scope),                             # 9: markers null
        entry(9, failures="tests/a.py::t"),                                                   # 10: a string
        entry(10, failures=[1, 2]),                                                           # 11: numbers
        entry(11, failures=["a"], scope="go-1"),                                              # 12: scope a string
        {"failures": ["a"], "scope": scope},                                                  # 13: no ts
        entry(2, failures=["tests/test_日本.py::test_café[é-1]"], scope=scope),                # 14: = line 3
    ]
    text = "".join(json.dumps(r, ensure_ascii=i % 3 == 0) + "\n" for i, r in enumerate(lines))
    text = text.replace("\\\\u00e9", "\\u00e9")  # line 8: the id written with an escape
    f = tmp_path / "retries.log"
    f.write_text(text, encoding="utf-8")
    db = tmp_path / "t.duckdb"
    tel = load(f, db=db)
    assert _events(tel, "event_type, failures, must_fix_keys, run_id, task_id") == {
        1: ("test-failures", [], None, "go-1", "task-1"),
        2: ("test-failures", ["tests/test_日本.py::test_café[é-1]", "tests/a.py::t[1,2]"], None, "go-1", "task-1"),
        3: ("test-failures", ["tests/test_日本.py::test_café[é-1]"], None, "go-1", "task-1"),
        4: ("must-fix", None, ["src/auth.ts:middleware:缺少測試", 'src/a.ts:f:"quoted"'], "go-2", "t-2"),
        5: ("must-fix", None, [], None, None),
        6: ("test-failures", ["x"], None, None, None),
        7: ("test-failures+must-fix", ["x"], ["k"], None, None),
        8: ("test-failures", ["tests/é.py::t"], None, None, None),
    }
    streaks = tel.sql("SELECT kind, key, streak, over_budget FROM retry_streaks WHERE scope_run_id = 'go-1'").fetchall()
    assert sorted(streaks) == [("test", "tests/a.py::t[1,2]", 0, False),
                               ("test", "tests/test_日本.py::test_café[é-1]", 2, True)]
    q = _quarantine(tel)
    assert q[9] == ("unknown-format", "not one of the four formats (needs eventType, event, failures/must_fix_keys "
                                      "or code); keys: ts, failures, must_fix_keys, scope (known: failures, "
                                      "must_fix_keys, scope, ts); failures and must_fix_keys are null, which counts "
                                      "as absent")
    assert {line: reason for line, (reason, _) in q.items()} == {
        9: "unknown-format", 10: "wrong-type", 11: "wrong-type", 12: "wrong-type", 13: "missing-field"}
    assert q[12] == ("wrong-type", "scope must be an object, got a string")
    assert tel.summary.duplicates == 1
    tel.close()
    again = load(f, db=db)
    assert again.summary.events_added == 0 and again.summary.duplicates == 0
    again.close()


def _pretty(rec: dict) -> str:
    """An object as serde_json::to_string_pretty writes it (two-space indent, ": ")."""
    return json.dumps(rec, indent=2, ensure_ascii=False)


def test_agent_failures_written_over_several_lines_are_read_whole(tmp_path: Path) -> None:
    def auth(where: str) -> dict:
        return _agent(code="auth", title="Authentication failed", detail=f"Credentials rejected ({where}).",
                      signal=None, exitCode=1, stderrTail="API Error: 401 {\"type\":\"authentication_error\"}\n[x]")

    def net(where: str) -> dict:
        return _agent(code="network", title="Network error", detail=where, signal=None, retryable=True)

    d = tmp_path / "dumps"
    d.mkdir()
    # a pretty-printed object after another, the file without a final newline
    (d / "one.json").write_text(_pretty(auth("one")) + "\n" + _pretty(net("one")))
    # a pretty-printed array of them (json.dumps(failures, indent=2))
    (d / "array.json").write_text(json.dumps([auth("array"), net("array")], indent=2) + "\n")
    # an array on one line, and an array streamed one element per line
    (d / "batches.jsonl").write_text(json.dumps([auth("b1"), net("b1")]) + "\n" + "[\n" + json.dumps(auth("b2"))
                                     + ",\n" + json.dumps(net("b2")) + "\n]\n")
    # JSON Lines with pretty-printed objects among them: a good one, one of the wrong type,
    # one broken inside, one the same as in one.json, one cut by the end of the file
    broken = _pretty(auth("m")).replace('"Credentials rejected', '"Credentials "rejected"')
    mixed = [json.dumps(net("m")), _pretty(auth("m")), _pretty(_agent(exitCode="1")), json.dumps(_agent()), broken,
             _pretty(net("one")), _pretty(net("m"))[:-10]]
    (d / "mixed.jsonl").write_text("\n".join(mixed))
    starts = {}  # piece of mixed.jsonl -> its first line
    line = 1
    for i, piece in enumerate(mixed):
        starts[i] = line
        line += piece.count("\n") + 1

    db = tmp_path / "t.duckdb"
    tel = load([d / "one.json", d / "array.json", d / "batches.jsonl", d / "mixed.jsonl"], db=db)
    by_file: dict[str, list] = {}
    for f, line, code in tel.sql("SELECT file, line, ai_classification FROM events ORDER BY file, line, 3").fetchall():
        by_file.setdefault(Path(f).name, []).append((line, code))
    n_auth = _pretty(auth("one")).count("\n") + 1
    assert by_file == {
        "one.json": [(1, "auth")],
        "array.json": [(2, "auth"), (2 + n_auth, "network")],
        "batches.jsonl": [(1, "auth"), (1, "network"), (3, "auth"), (4, "network")],
        # net("one") pretty-printed here too: the same bytes as in one.json, kept once (with
        # the file whose name sorts first, as for duplicate records found in one block)
        "mixed.jsonl": [(starts[0], "network"), (starts[1], "auth"), (starts[3], "killed"), (starts[5], "network")],
    }
    assert tel.summary.duplicates == 1
    # read whole, the object's values are exactly what was written
    assert tel.sql("SELECT title, detail, exit_code, stderr_tail FROM agent_failures WHERE parse_filename(file) = "
                   "'one.json' AND line = 1").fetchall() == [
        ("Authentication failed", "Credentials rejected (one).", 1, auth("one")["stderrTail"])]
    q = {(Path(f).name, line): (reason, detail) for f, line, reason, detail in
         tel.sql("SELECT file, line, reason, detail FROM quarantine").fetchall()}
    # a whole object of the wrong type is one bad record, at its first line, with its text
    assert q.pop(("mixed.jsonl", starts[2])) == ("wrong-type", "exitCode must be an integer, got a string")
    raw = tel.sql("SELECT raw FROM quarantine WHERE line = ?", [starts[2]]).fetchall()
    assert raw == [(_pretty(_agent(exitCode="1")),)]
    # the broken and the cut objects cannot be read whole: each of their lines is a bad line
    # that says which value it is part of and what is wrong with it
    broken_lines = range(starts[4], starts[4] + broken.count("\n") + 1)
    cut_lines = range(starts[6], starts[6] + mixed[6].count("\n") + 1)
    where = f"a JSON value written over lines {broken_lines[0]} to {broken_lines[-1]}"
    bad_at = f"line {starts[4] + 3}, column 27"
    assert {line: q.pop(("mixed.jsonl", line)) for line in broken_lines} == {
        line: ("unescaped-quote", f"{where}: a double quote inside a string is not escaped (Expecting ',' delimiter "
                                  f"at {bad_at})") for line in broken_lines}
    cut = f"part of a JSON value that opens at line {cut_lines[0]} and the file ends inside"
    assert {line: q.pop(("mixed.jsonl", line)) for line in cut_lines} == {
        **{line: ("invalid-json", cut) for line in cut_lines[:-1]},
        cut_lines[-1]: ("truncated-last-line", "the file ends inside this line (no newline), in a JSON value that "
                                               f"opens at line {cut_lines[0]}")}
    # the streamed array's brackets hold no record (its elements are read on their own)
    only = "no JSON value of its own (where an array or object written over several lines opens or closes)"
    assert q == {("batches.jsonl", 2): ("invalid-json", f"a line of only [: {only}"),
                 ("batches.jsonl", 5): ("invalid-json", f"a line of only ]: {only}")}
    tel.close()
    again = load([d / "one.json", d / "array.json", d / "batches.jsonl", d / "mixed.jsonl"], db=db)
    assert again.summary.events_added == 0 and again.summary.quarantined == 0
    assert {f.status for f in again.summary.files} == {"unchanged"}
    again.close()


def test_a_value_over_lines_is_read_whole_whatever_the_blocks(tmp_path: Path, monkeypatch) -> None:
    import gzip
    import sys

    loader = sys.modules["failtax.telemetry.load"]
    records = [_agent(code=code, detail=f"run {i}", exitCode=i) for i, code in enumerate(
        ["auth", "network", "overloaded", "rate_limited", "max_turns", "no_output"] * 5)]
    f = tmp_path / "failures.json"
    f.write_text(json.dumps(records, indent=2) + "\n" + _pretty(records[0]).replace("auth", "Auth") + "\n"
                 + _pretty(records[1])[:-30] + "\n")
    g = tmp_path / "failures.json.gz"
    g.write_bytes(gzip.compress(f.read_bytes().replace(b'"run ', b'"gz run ')))  # (not duplicates)
    n_lines = f.read_text().count("\n")
    k = _pretty(records[0]).count("\n") + 1  # lines per object
    first = {i: 2 + i * k for i in range(len(records))}

    def loaded(**kw):
        tel = load([f, g], **kw)
        got = (sorted(tel.sql("SELECT parse_filename(file), line, exit_code FROM events").fetchall()),
               sorted(tel.sql("SELECT parse_filename(file), line, reason, detail FROM quarantine").fetchall()),
               tel.summary.lines_read, tel.summary.duplicates)
        tel.close()
        return got

    whole = loaded()
    events, bad, lines_read, duplicates = whole
    assert events == sorted((name, first[i], i) for name in ("failures.json", "failures.json.gz") for i in range(len(records)))
    assert lines_read == 2 * n_lines and duplicates == 0
    after_array = first[len(records) - 1] + k + 1
    assert {(line, reason) for name, line, reason, _ in bad if name == "failures.json"} == {
        (after_array, "unknown-event-type"),  # the object with code "Auth": one bad record
        *((line, "invalid-json") for line in range(after_array + k, n_lines + 1)),  # the cut one: each line
    }
    # small blocks cut the values anywhere: the same rows
    monkeypatch.setattr(loader, "ROW_GROUP_ROWS", 7)
    for chunk_bytes in (1000, 4096):
        assert loaded(chunk_bytes=chunk_bytes) == whole
        assert loaded(chunk_bytes=chunk_bytes, db=tmp_path / f"{chunk_bytes}.duckdb") == whole


def test_a_value_over_lines_that_a_writer_is_still_on_is_read_whole_once_it_grows(tmp_path: Path) -> None:
    import gzip

    first, second, third = (_pretty(_agent(detail=d)) for d in ("first", "second", "third"))
    head = json.dumps(_agent(detail="compact")) + "\r\n" + first + "\n"
    cut_at_line = second.index("\n", 40) + 1  # the writer stopped after a whole line of the object
    for gz in (False, True):
        for cut in (60, cut_at_line):
            f = tmp_path / f"{'gz' if gz else 'plain'}-{cut}" / ("failures.jsonl.gz" if gz else "failures.jsonl")
            f.parent.mkdir()
            db = f.parent / "t.duckdb"

            def write(text: str, mode: str) -> None:
                with open(f, mode) as fh:
                    fh.write(gzip.compress(text.encode()) if gz else text.encode())

            write(head + second[:cut], "wb")
            tel = load(f, db=db)
            assert _events(tel, "detail") == {1: "compact", 2: "first"}
            opens = 2 + first.count("\n") + 1
            q = _quarantine(tel)
            assert set(q) == set(range(opens, opens + second[:cut].rstrip("\n").count("\n") + 1))
            assert q[opens] == ("invalid-json", f"part of a JSON value that opens at line {opens} and the file ends "
                                                "inside")
            tel.close()
            again = load(f, db=db)
            assert again.summary.files[0].status == "unchanged" and again.summary.events_added == 0
            again.close()
            write(second[cut:] + "\n" + third + "\n", "ab")  # the writer goes on
            grown = load(f, db=db)
            assert grown.summary.files[0].status == "grown"
            assert _events(grown, "detail") == {1: "compact", 2: "first", opens: "second",
                                                opens + second.count("\n") + 1: "third"}
            assert _quarantine(grown) == {} and grown.summary.events_added == 2
            grown.close()


# --------------------------------------------------------------------------- files that mix formats


def test_files_joined_with_cat_each_with_a_byte_order_mark(tmp_path: Path) -> None:
    bom = "\ufeff"
    a = bom + _life(message="a1") + "\r\n" + _life(event="recovery.attempted", message="a2") + "\r\n"
    b = bom + json.dumps(_agent()) + "\r\n" + bom + "\r\n"  # (a BOM alone, then nothing: a blank line)
    c = bom + '{"hello":"world"}\n' + bom + _life(message="c1") + _life(message="c2") + "\n"
    for name, text in (("a.log", a), ("b.log", b), ("c.log", c)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    joined = tmp_path / "all" / "joined.log"
    joined.parent.mkdir()
    joined.write_text(a + b + c, encoding="utf-8")
    db = tmp_path / "t.duckdb"
    tel = load(joined.parent, db=db)
    assert sorted(tel.sql("SELECT line, source, message FROM events").fetchall(), key=str) == [
        (1, "lifecycle", "a1"), (2, "lifecycle", "a2"), (3, "agent-failure", None),
        (6, "lifecycle", "c1"), (6, "lifecycle", "c2")]  # (two records on line 6, after its mark)
    assert _quarantine(tel) == {5: ("unknown-format", "not one of the four formats (needs eventType, event, "
                                                      "failures/must_fix_keys or code); keys: hello")}
    assert tel.summary.files[0].skipped_blank == 1
    tel.close()
    # the lines of the files it was joined from are the same lines: duplicates
    parts = load([tmp_path / "a.log", tmp_path / "b.log", tmp_path / "c.log"], db=db)
    assert parts.summary.events_added == 0 and parts.summary.duplicates == 5
    parts.close()


def test_cli_loads_a_directory_mixing_all_four_formats_gzip_and_other_files(tmp_path: Path, failtax_cmd) -> None:
    import gzip
    import subprocess

    d = tmp_path / "telemetry"
    (d / "ci" / "2026-09-08").mkdir(parents=True)
    failure = {"ts": "2026-09-08T10:00:00.000Z", "eventType": "replay-failure-classified", "skillName": "muggle-test",
               "aiClassification": "stale-script", "aiSuggestion": "regenerate", "runId": "r1", "testCaseId": "t1",
               "signals": ["Selector_Timeout"]}
    retry = {"ts": "2026-09-08T10:00:01.000Z", "failures": ["tests/test_ü.py::t"], "scope": {"run_id": "go-1"}}
    lines = {  # file -> its lines; one line of each format in one file too
        "events.jsonl": [json.dumps(failure), json.dumps({**failure, "eventType": "replay-failure-exploded"})],
        "lifecycle.log": [_life(severity="ERROR"), _life(message="said QnoQ").replace("Q", '"')],  # unescaped
        "ci/2026-09-08/retry.ndjson": [json.dumps(retry), json.dumps({**retry, "failures": "x"})],
        "agent.jsonl": [json.dumps(_agent()), json.dumps(_agent(exitCode="1"))],
        "mixed.jsonl": [json.dumps({**failure, "runId": "r2"}), _life(message="m"),
                        json.dumps({**retry, "ts": "2026-09-08T10:00:02Z"}), json.dumps(_agent(code="auth"))],
    }
    for name, ls in lines.items():
        (d / name).write_text("\n".join(ls) + "\n")
        with gzip.open(d / f"{name}.1.gz", "wt") as fh:  # rotated copies: the same lines
            fh.write("\n".join(ls) + "\n")
    (d / "README.md").write_text("# telemetry\n")              # not telemetry names: not read
    (d / "summary.csv").write_text("a,b\n1,2\n")
    (d / "screenshot.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    (d / "failures.json").write_text(_pretty(_agent()) + "\n")
    (d / "build.log").write_text("[INFO] compiling\n[ERROR] tsc exited with 2\n")  # a .log that is not JSON
    db = tmp_path / "t.duckdb"
    p = subprocess.run([*failtax_cmd, "load", str(d), "--db", str(db), "--show-quarantine", "20"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    out = p.stdout
    assert "files: 11 (11 new)" in out
    assert "events added: 8 (failure-event 2 · lifecycle 2 · retry-log 2 · agent-failure 2)" in out
    assert "duplicates skipped: 8" in out  # every good line of the rotated copies
    # 4 bad lines, each in the file and in its rotated copy (a bad line is not a duplicate), and build.log's 2
    assert "quarantined: 10 lines (wrong-type 4, invalid-json 2, unescaped-quote 2, unknown-event-type 2)" in out
    for name, line, reason in [("events.jsonl", 2, "unknown-event-type"), ("lifecycle.log", 2, "unescaped-quote"),
                               ("ci/2026-09-08/retry.ndjson", 2, "wrong-type"), ("agent.jsonl", 2, "wrong-type"),
                               ("build.log", 1, "invalid-json")]:
        assert f"{d / name}:{line}: {reason}: " in out
    p = subprocess.run([*failtax_cmd, "load", str(d), "--db", str(db), "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    again = json.loads(p.stdout)
    assert again["events_added"] == 0 and again["quarantined"] == 0
    assert {f["status"] for f in again["files"]} == {"unchanged"}
    with load(d, db=db) as tel:  # (read through the library as well)
        assert tel.sql("SELECT list_sort(list_distinct(list(severity))) FROM lifecycle").fetchall() == [(["error"],)]
        assert tel.sql("SELECT signals FROM events WHERE run_id = 'r1'").fetchall() == [(["selector-timeout"],)]
