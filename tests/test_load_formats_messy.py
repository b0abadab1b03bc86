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
