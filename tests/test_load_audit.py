"""The loader on more of what real writers leave: a record cut off mid-line with the
restarted writer's next record on the same line, and integers too long for their column.

Real files on disk, a real DuckDB database, the CLI as a subprocess where it is the point.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb

from failtax.telemetry import load

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "telemetry"))
from make_fixtures import numbered_event as _event  # noqa: E402


def _line(i: int, **extra: object) -> str:
    return json.dumps(_event(i, **extra), separators=(",", ":"))


def _lifecycle(session: str) -> str:
    return json.dumps({"timestamp": "2026-09-07T11:00:00.000Z", "severity": "error", "event": "failure.classified",
                       "feature_id": "f1", "session_id": session, "metadata": {"failure_type": "compile"},
                       "message": "compile failed"}, separators=(",", ":"))


_CUT = ("a record cut off at column {}, where another begins (a writer stopped mid-line and the next records were "
        "appended to the line); the {} after it {} read on {} own")


def test_records_appended_after_a_cut_off_one_on_the_same_line_are_kept(tmp_path: Path, failtax_cmd: list[str]) -> None:
    d, db = tmp_path / "logs", tmp_path / "t.duckdb"
    d.mkdir()
    f = d / "app.jsonl"
    cut = _line(2)[:57]                                  # killed inside "eventType"'s value
    shell = ('{"timestamp":"2026-09-07T11:00:01.000Z","severity":"error","event":"failure.classified",'
             '"feature_id":"f2","session_id":"s2","metadata":{"failure_type":"test"},'
             '"message":"got "' + _lifecycle("s9") + '""}')  # a quote left unescaped, around a whole record
    f.write_text("\n".join([
        _line(1),
        cut + _line(3),                                  # 2: the restarted writer's record follows the cut
        _line(4, metadata={"step": "x"})[:-30] + _line(5) + " " + _line(6),  # 3: cut in metadata; two records
        _lifecycle("s1")[:70] + _lifecycle("s3"),        # 4: a lifecycle line cut, then the next
        cut + '{"eventType":"replay-failure-classified"}',  # 5: after the cut, no record of the same writer
        shell,                                           # 6: not a cut: an unescaped quote
        _line(7),
    ]) + "\n")
    p = subprocess.run([*failtax_cmd, "load", str(d), "--db", str(db), "--json"], capture_output=True, text=True)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    con = duckdb.connect(str(db), read_only=True)
    events = con.sql("SELECT line, coalesce(run_id, session_id) FROM events ORDER BY line, event_id").fetchall()
    assert sorted(events) == sorted([(1, "r1"), (2, "r3"), (3, "r5"), (3, "r6"), (4, "s3"), (7, "r7")])
    q = {line: (reason, detail) for line, reason, detail in con.sql(
        "SELECT line, reason, detail FROM quarantine ORDER BY line").fetchall()}
    assert q[2] == ("invalid-json", _CUT.format(58, "whole JSON object", "is", "its"))
    assert q[3][0] == "invalid-json" and q[3][1].startswith("a record cut off at column ")
    assert q[3][1].endswith("the 2 whole JSON objects after it are read on their own")
    assert q[4] == ("invalid-json", _CUT.format(71, "whole JSON object", "is", "its"))
    assert q[5][0] == "invalid-json" and "cut off" not in q[5][1]
    assert q[6][0] == "unescaped-quote"
    assert set(q) == {2, 3, 4, 5, 6}
    con.close()
    # again: nothing new
    p = subprocess.run([*failtax_cmd, "load", str(d), "--db", str(db), "--json"], capture_output=True, text=True)
    assert p.returncode == 0 and json.loads(p.stdout)["totals"] == {"events": 6, "quarantine": 5, "decisions": 5}


def test_a_cut_off_last_line_continued_by_a_restarted_writer_keeps_its_record(tmp_path: Path) -> None:
    f, db = tmp_path / "app.jsonl", tmp_path / "t.duckdb"
    f.write_text(_line(1) + "\n" + _line(2)[:40])        # the writer was killed mid-line
    tel = load(f, db=db)
    assert tel.sql("SELECT line, reason FROM quarantine").fetchall() == [(2, "truncated-last-line")]
    tel.close()
    with open(f, "a") as out:                            # restarted, it appends its next records
        out.write(_line(3) + "\n" + _line(4) + "\n")
    tel = load(f, db=db)
    assert tel.summary.files[0].status == "grown"
    assert tel.sql("SELECT line, run_id FROM events ORDER BY line").fetchall() == [(1, "r1"), (2, "r3"), (3, "r4")]
    assert tel.sql("SELECT line, reason FROM quarantine").fetchall() == [(2, "invalid-json")]
    tel.close()


def test_an_integer_too_long_for_its_column_is_named_so(tmp_path: Path) -> None:
    def failure(**extra: object) -> str:
        return json.dumps({"code": "killed", "title": "t", "detail": "d", "retryable": False, **extra})

    f = tmp_path / "agent.jsonl"
    f.write_text("\n".join([
        failure(exitCode=3221225477),                    # Windows' 0xC0000005, read as unsigned
        failure(exitCode=-2147483649),
        failure(signal=10**30),
        failure(exitCode=2147483647, signal=-2147483648),  # the limits themselves fit
        failure(exitCode=1.5),
    ]) + "\n")
    tel = load(f)
    assert tel.sql("SELECT line, exit_code, posix_signal FROM events").fetchall() == [(4, 2147483647, -2147483648)]
    assert tel.sql("SELECT line, reason, detail FROM quarantine ORDER BY line").fetchall() == [
        (1, "wrong-type", "exitCode must be an integer, got an integer outside the 32-bit range: 3221225477"),
        (2, "wrong-type", "exitCode must be an integer, got an integer outside the 32-bit range: -2147483649"),
        (3, "wrong-type", "signal must be an integer, got an integer outside the 32-bit range: " + "1" + "0" * 30),
        (5, "wrong-type", "exitCode must be an integer, got a number"),
    ]
    tel.close()


def test_a_file_rewritten_shorter_says_how_many_old_rows_went(tmp_path: Path, failtax_cmd: list[str]) -> None:
    d, db = tmp_path / "logs", tmp_path / "t.duckdb"
    d.mkdir()
    f = d / "app.jsonl"
    f.write_text("".join(_line(i) + "\n" for i in range(5)))
    load(d, db=db).close()
    f.write_text("".join(_line(i) + "\n" for i in range(10, 13)))  # rewritten: other, fewer lines
    tel = load(d, db=db)
    s = tel.summary
    assert (s.files[0].status, s.events_added, s.events_removed) == ("replaced", -2, 5)
    assert sorted(r for (r,) in tel.sql("SELECT run_id FROM events").fetchall()) == ["r10", "r11", "r12"]
    assert "events added: -2 (failure-event -2) = 3 rows written - 5 old rows of rewritten files taken out" in str(s)
    tel.close()
    f.write_text("".join(_line(i) + "\n" for i in range(20, 24)))
    out = subprocess.run([*failtax_cmd, "load", str(d), "--db", str(db), "--json"], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert (doc["events_added"], doc["events_removed"], doc["totals"]["events"]) == (1, 3, 4)
