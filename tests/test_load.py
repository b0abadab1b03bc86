"""The telemetry loader, on real files and a real DuckDB database.

Covers: every kind of bad line quarantined with its line number and reason while no good
line is lost; declared column types; gzip, directories and globs; idempotent and
incremental loads (a grown file adds only its new lines); atomicity when a load is
killed; concurrent loads of one database; the CLI.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from failtax.errors import TelemetryError
from failtax.telemetry import connect, load
from failtax.telemetry.schema import EVENTS_COLUMNS, QUARANTINE_REASONS
from failtax.telemetry.views import DECISIONS_COLUMNS, VIEW_DOCS

loader = sys.modules["failtax.telemetry.load"]  # (the package exports a function of that name)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "telemetry"
sys.path.insert(0, str(FIXTURES))
from make_fixtures import BROKEN, CLASSIFIED  # noqa: E402
from make_fixtures import numbered_event as _event  # noqa: E402

GOOD_LINES = {i for i, (_, what) in enumerate(BROKEN, 1) if what == "event"}
BAD_LINES = {i: what for i, (_, what) in enumerate(BROKEN, 1) if what not in ("event", "duplicate", "blank")}


def _line(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":")) + "\n"


def _counts(tel) -> tuple[int, int]:
    return (tel.sql("SELECT count(*) FROM events").fetchall()[0][0],
            tel.sql("SELECT count(*) FROM quarantine").fetchall()[0][0])


# --------------------------------------------------------------------------- the broken corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    d = tmp_path / "corpus"
    d.mkdir()
    shutil.copy(FIXTURES / "broken.jsonl", d / "broken.jsonl")
    shutil.copy(FIXTURES / "lifecycle-shell.log", d / "lifecycle-shell.log")
    return d


def test_broken_corpus_keeps_every_good_line_and_quarantines_every_bad_one(corpus: Path) -> None:
    tel = load(corpus / "broken.jsonl")
    events = {r[0] for r in tel.sql("SELECT line FROM events").fetchall()}
    quarantined = dict(tel.sql("SELECT line, reason FROM quarantine").fetchall())
    assert events == GOOD_LINES
    assert quarantined == BAD_LINES
    assert set(QUARANTINE_REASONS) >= set(quarantined.values())
    # each kind of bad line the loader must recognise is in the corpus
    assert {"truncated-last-line", "invalid-utf8", "not-an-object", "wrong-type", "unknown-event-type",
            "missing-field", "unescaped-quote", "invalid-json"} <= set(quarantined.values())
    s = tel.summary
    assert s.duplicates == 1 and s.lines_read == len(BROKEN)
    assert s.quarantined_by_reason["wrong-type"] == 3
    assert s.events_by_source == {"failure-event": 4, "lifecycle": 1, "retry-log": 1, "agent-failure": 1}


def test_quarantine_keeps_file_line_detail_and_raw_text(corpus: Path) -> None:
    tel = load(corpus / "broken.jsonl")
    rows = {r[1]: r for r in tel.sql("SELECT file, line, reason, detail, source, raw FROM quarantine").fetchall()}
    assert all(r[0] == str((corpus / "broken.jsonl").resolve()) for r in rows.values())
    assert rows[16][5] == BROKEN[15][0].decode()  # the shell writer's line, as written
    assert rows[4][5].startswith('{"ts":"2026-09-07T10:03:00.000Z"') and "\ufffd" in rows[4][5]
    bad_byte = BROKEN[3][0].index(bytes([0xE9])) + 1
    assert rows[4][3] == f"invalid UTF-8 at byte {bad_byte}"
    assert rows[8][3] == "skillName must be a string, got a number" and rows[8][4] == "failure-event"
    assert rows[12][3] == "missing required field(s): skillName"
    assert rows[13][3] == "missing required field(s): retryable"
    assert rows[22][3] == "exitCode must be an integer, got a string"
    assert rows[10][3] == 'unknown eventType "replay-failure-exploded" for a failure-event line'
    assert rows[6][3] == "expected a JSON object, got a list" and rows[7][3] == "expected a JSON object, got a number"
    assert rows[24][5] == BROKEN[23][0].decode()


def test_good_lines_are_normalised_and_typed(corpus: Path) -> None:
    tel = load(corpus / "broken.jsonl")
    df = tel.events.pl()
    by_line = {r["line"]: r for r in df.iter_rows(named=True)}
    assert by_line[19]["signals"] == ["unexpected-error-toast"]  # spelling drift, CRLF line end
    assert by_line[23]["signals"] == ["goal-not-achievable"]  # leading spaces, escapes in metadata
    assert json.loads(by_line[23]["metadata"])["summary"] == "looped on the \u201ccookie\u201d modal \\ twice"
    assert by_line[2]["ai_classification"] == "compile" and by_line[2]["event_type"] == "failure.classified"
    assert by_line[5]["failures"] == ["tests/test_a.py::test_x[1]"] and by_line[5]["run_id"] == "go-1"
    assert by_line[5]["task_id"] == "task-1"
    assert by_line[15]["exit_code"] == 1 and by_line[15]["retryable"] is True and by_line[15]["ts"] is None
    assert str(by_line[1]["ts"]) == "2026-09-07 10:00:00"
    first = tel.sql("SELECT event_id FROM events WHERE line = 1").fetchall()[0][0]
    assert len(first) == 16 and int(first, 16) >= 0


def test_declared_column_types(tmp_path: Path, corpus: Path) -> None:
    tel = load(corpus, db=tmp_path / "t.duckdb")
    assert [(c, t) for c, t, *_ in tel.sql("DESCRIBE events").fetchall()] == [(c, t) for c, t, _ in EVENTS_COLUMNS]
    got = [(c, t) for c, t, *_ in tel.sql("DESCRIBE decisions").fetchall()]
    assert got == [(c, t) for c, t, _ in DECISIONS_COLUMNS]
    for name in VIEW_DOCS:
        tel.sql(f"SELECT * FROM {name} LIMIT 1").fetchall()
    assert tel.events.df().shape[0] == tel.events.pl().height == len(GOOD_LINES) + 2  # + the shell log's good lines


def test_shell_writer_lines_are_quarantined_not_dropped(corpus: Path) -> None:
    tel = load(corpus / "lifecycle-shell.log")
    assert tel.sql("SELECT line, reason FROM quarantine ORDER BY line").fetchall() == [
        (2, "unescaped-quote"), (4, "unescaped-quote")]
    assert tel.sql("SELECT line, event FROM lifecycle ORDER BY line").fetchall() == [
        (1, "failure.classified"), (3, "recovery.degraded")]


# --------------------------------------------------------------------------- inputs


def test_gzip_directories_and_globs_give_the_same_rows(tmp_path: Path, corpus: Path) -> None:
    plain = load(corpus)
    gz = tmp_path / "gz" / "nested"
    gz.mkdir(parents=True)
    for f in corpus.iterdir():
        with open(f, "rb") as src, gzip.open(gz / (f.name + ".gz"), "wb") as dst:
            dst.write(src.read())
    (tmp_path / "gz" / "notes.txt").write_text("not telemetry\n")
    (tmp_path / "gz" / ".hidden.jsonl").write_text("{broken\n")
    zipped = load(tmp_path / "gz")
    assert len(zipped.summary.files) == 2  # only telemetry names, hidden files skipped
    q = "SELECT source, event_type, ts, signals, metadata FROM events ORDER BY ts, source, line"
    assert plain.sql(q).fetchall() == zipped.sql(q).fetchall()
    q = "SELECT line, reason, raw FROM quarantine ORDER BY file, line"
    assert sorted(plain.sql(q).fetchall()) == sorted(zipped.sql(q).fetchall())
    globbed = load([str(tmp_path / "gz" / "**" / "*.gz")])
    assert _counts(globbed) == _counts(zipped)


def test_files_a_directory_holds_but_are_not_read_are_named(tmp_path: Path, corpus: Path,
                                                            failtax_cmd: list[str]) -> None:
    (corpus / "events.json").write_text(_line({**CLASSIFIED, "runId": "run-kept-in-a-json-file"}))
    (corpus / "sub").mkdir()
    (corpus / "sub" / "notes.txt").write_text("not telemetry\n")
    (corpus / ".cache").mkdir()
    (corpus / ".cache" / "state.bin").write_bytes(b"\x00")
    db = corpus / "t.duckdb"  # the database kept among the logs is not news
    first = load(corpus, db=db)
    first.close()
    tel = load(corpus, db=db)
    expect = [str((corpus / "events.json").resolve()), str((corpus / "sub" / "notes.txt").resolve())]
    assert list(tel.summary.left_out) == expect
    assert (f"left out, in the directories given: 2 files ({expect[0]}, {expect[1]}), not named as telemetry"
            in str(tel.summary))
    assert tel.summary.to_dict()["left_out"] == expect
    assert len(tel.summary.files) == 2  # the corpus' two telemetry files
    tel.close()
    # named, the file is read; nothing is left out of an explicit list
    r = subprocess.run([*failtax_cmd, "load", str(corpus / "events.json"), "--db", str(db), "--json"],
                       capture_output=True, text=True)
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["events_added"] == 1 and doc["left_out"] == []
    r = subprocess.run([*failtax_cmd, "load", str(corpus), "--db", str(tmp_path / "u.duckdb")],
                       capture_output=True, text=True)
    assert "left out, in the directories given: 2 files (" in r.stdout and "events.json" in r.stdout


def test_inputs_that_match_nothing_raise_clearly(tmp_path: Path) -> None:
    with pytest.raises(TelemetryError, match="no such file or directory"):
        load(tmp_path / "missing.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TelemetryError, match="matched no telemetry files"):
        load(tmp_path / "empty")
    with pytest.raises(TelemetryError, match="matched no telemetry files"):
        load(str(tmp_path / "*.nothing"))


def test_a_corrupt_gzip_keeps_what_was_readable(tmp_path: Path) -> None:
    data = gzip.compress("".join(_line(_event(i)) for i in range(2000)).encode())
    f = tmp_path / "cut.jsonl.gz"
    f.write_bytes(data[: len(data) // 2])
    tel = load(f)
    n_events, _ = _counts(tel)
    assert 0 < n_events < 2000
    rows = tel.sql("SELECT line, reason FROM quarantine ORDER BY line").fetchall()
    assert rows[-1][1] == "unreadable"
    # every line before the cut is an event, and nothing after it is invented
    assert tel.sql("SELECT max(line) FROM events").fetchall()[0][0] <= rows[-1][0] - 1


def test_exact_duplicates_across_files_are_kept_once(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(_line(_event(1)) + _line(_event(2)) + _line(_event(1)))
    b.write_text(_line(_event(2)) + _line(_event(3)))
    tel = load(tmp_path)
    assert tel.sql("SELECT file, line FROM events ORDER BY file, line").fetchall() == [
        (str(a.resolve()), 1), (str(a.resolve()), 2), (str(b.resolve()), 2)]
    assert tel.summary.duplicates == 2
    # the same event with other content is not a duplicate
    c = tmp_path / "c.jsonl"
    c.write_text(_line(_event(1, userAction="x", eventType="replay-failure-resolved")))
    assert _counts(load(tmp_path))[0] == 4


# --------------------------------------------------------------------------- incremental database


def test_reloading_is_idempotent(tmp_path: Path, corpus: Path) -> None:
    db = tmp_path / "t.duckdb"
    first = load(corpus, db=db)
    counts = _counts(first)
    ids = first.sql("SELECT event_id FROM events ORDER BY event_id").fetchall()
    first.close()
    again = load(corpus, db=db)
    assert _counts(again) == counts
    assert again.sql("SELECT event_id FROM events ORDER BY event_id").fetchall() == ids
    assert {f.status for f in again.summary.files} == {"unchanged"}
    assert again.summary.events_added == 0 and again.summary.lines_read == 0
    again.close()
    tel = connect(db)
    assert _counts(tel) == counts
    with pytest.raises(duckdb.Error):
        tel.sql("DELETE FROM events")  # read-only by default
    tel.close()


def test_a_grown_file_adds_only_its_new_lines(tmp_path: Path) -> None:
    f = tmp_path / "sink.jsonl"
    db = tmp_path / "t.duckdb"
    complete = _line(_event(3))
    f.write_text(_line(_event(1)) + _line(_event(2)) + complete[:40])  # a writer is mid-line
    tel = load(f, db=db)
    assert _counts(tel) == (2, 1)
    assert tel.sql("SELECT line, reason FROM quarantine").fetchall() == [(3, "truncated-last-line")]
    tel.close()
    with open(f, "a") as fh:
        fh.write(complete[40:] + _line(_event(4)))
    tel = load(f, db=db)
    assert tel.summary.files[0].status == "grown"
    assert tel.summary.lines_read == 2 and tel.summary.events_added == 2
    assert tel.sql("SELECT line FROM events ORDER BY line").fetchall() == [(1,), (2,), (3,), (4,)]
    assert _counts(tel) == (4, 0)  # the finished line is an event now, no longer quarantined
    tel.close()
    with open(f, "a") as fh:
        fh.write(_line(_event(5)) + "{oops\n")
    tel = load(f, db=db)
    assert tel.summary.lines_read == 2
    assert _counts(tel) == (5, 1)
    assert tel.sql("SELECT line, reason FROM quarantine").fetchall() == [(6, "invalid-json")]


def test_a_grown_gzip_file_adds_only_its_new_lines(tmp_path: Path) -> None:
    f = tmp_path / "sink.jsonl.gz"
    db = tmp_path / "t.duckdb"
    with gzip.open(f, "wt") as fh:
        fh.write("".join(_line(_event(i)) for i in range(3)))
    load(f, db=db).close()
    with gzip.open(f, "at") as fh:  # a second gzip member appended
        fh.write(_line(_event(3)))
    tel = load(f, db=db)
    assert tel.summary.lines_read == 1
    assert tel.sql("SELECT line FROM events ORDER BY line").fetchall() == [(1,), (2,), (3,), (4,)]


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_a_byte_order_mark_opening_a_file_is_not_part_of_its_first_line(tmp_path: Path, gz: bool) -> None:
    # Windows editors and PowerShell's Out-File put a UTF-8 BOM before the first line.
    f = tmp_path / ("sink.jsonl.gz" if gz else "sink.jsonl")
    db = tmp_path / "t.duckdb"
    body = b"\xef\xbb\xbf" + _line(_event(1)).encode() + _line(_event(2)).replace("\n", "\r\n").encode()
    f.write_bytes(gzip.compress(body) if gz else body)
    tel = load(f, db=db)
    assert _counts(tel) == (2, 0)
    assert tel.sql("SELECT line, run_id FROM events ORDER BY line").fetchall() == [(1, "r1"), (2, "r2")]
    tel.close()
    with (gzip.open(f, "ab") if gz else open(f, "ab")) as fh:  # grows: only the new line
        fh.write(_line(_event(3)).encode() + b"\xef\xbb\xbf" + _line(_event(4)).encode())
    tel = load(f, db=db)
    assert tel.summary.lines_read == 2
    # a mark opening a line inside the file (files joined with cat) opens that line too
    assert tel.sql("SELECT line, run_id FROM events ORDER BY line").fetchall() == [
        (1, "r1"), (2, "r2"), (3, "r3"), (4, "r4")]
    assert tel.sql("SELECT count(*) FROM quarantine").fetchall() == [(0,)]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-16-le gzip"])
def test_a_utf16_file_with_its_byte_order_mark_is_read_as_text(tmp_path: Path, encoding: str) -> None:
    # PowerShell 5's `>` writes UTF-16 LE with a byte order mark and Windows line ends.
    codec, gz = encoding.split()[0], encoding.endswith("gzip")
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    f = tmp_path / ("sink.jsonl.gz" if gz else "sink.jsonl")
    db = tmp_path / "t.duckdb"
    lines = [_line(_event(i, metadata={"note": f"ünï 日本 {i}"})).replace("\n", "\r\n") for i in (1, 2)]
    body = bom + "".join(lines).encode(codec)
    f.write_bytes(gzip.compress(body) if gz else body)
    tel = load(f, db=db)
    assert _counts(tel) == (2, 0)
    got = tel.sql("SELECT line, run_id, metadata->>'note' FROM events ORDER BY line").fetchall()
    assert got == [(1, "r1", "ünï 日本 1"), (2, "r2", "ünï 日本 2")]
    tel.close()
    # grows: the offsets count UTF-8 bytes, and only the new lines are read
    grown = "".join(_line(_event(i, metadata={"note": "日本"})) for i in (3, 4)).encode(codec)
    with (gzip.open(f, "ab") if gz else open(f, "ab")) as fh:
        fh.write(grown)
    tel = load(f, db=db)
    assert tel.summary.lines_read == 2
    assert tel.sql("SELECT line, run_id FROM events ORDER BY line").fetchall() == [(1, "r1"), (2, "r2"), (3, "r3"), (4, "r4")]


def test_a_bad_code_unit_in_a_utf16_file_costs_only_its_line(tmp_path: Path) -> None:
    f = tmp_path / "sink.jsonl"
    good, bad = _line(_event(1)), _line(_event(2, skillName="xQy")).replace("Q", "\ud800")
    # a lone surrogate in line 2, and the file ends in the middle of a code unit
    body = (codecs.BOM_UTF16_LE + good.encode("utf-16-le") + bad.encode("utf-16-le", "surrogatepass")
            + _line(_event(3)).encode("utf-16-le") + b"{")
    f.write_bytes(body)
    tel = load(f)
    assert tel.sql("SELECT line FROM events ORDER BY line").fetchall() == [(1,), (3,)]
    assert tel.sql("SELECT line, reason FROM quarantine ORDER BY line").fetchall() == [
        (2, "invalid-utf8"), (4, "invalid-utf8")]


def test_a_replaced_file_is_reloaded(tmp_path: Path) -> None:
    f = tmp_path / "sink.jsonl"
    db = tmp_path / "t.duckdb"
    f.write_text(_line(_event(1)) + _line(_event(2)) + "{bad\n")
    load(f, db=db).close()
    f.write_text(_line(_event(7)))  # rotated: new content, smaller
    tel = load(f, db=db)
    assert tel.summary.files[0].status == "replaced"
    assert tel.sql("SELECT run_id FROM events").fetchall() == [("r7",)]
    assert _counts(tel) == (1, 0)


def _database_of_schema(tmp_path: Path, version: str) -> tuple[Path, Path]:
    """(database, file): one event loaded, the database then marked as of ``version``."""
    db = tmp_path / "t.duckdb"
    f = tmp_path / "a.jsonl"
    f.write_text(_line(_event(1)))
    load(f, db=db).close()
    con = duckdb.connect(str(db))
    con.execute("UPDATE _meta SET value = ? WHERE key = 'schema_version'", [version])
    con.close()
    return db, f


def test_a_database_from_another_schema_is_refused(tmp_path: Path) -> None:
    db, f = _database_of_schema(tmp_path, "0")
    with pytest.raises(TelemetryError, match="telemetry schema '0'"):
        connect(db)
    with pytest.raises(TelemetryError, match="delete the file and load again"):
        load(f, db=db)


def test_a_file_that_is_no_database_is_named_and_left_as_it_was(tmp_path: Path, failtax_cmd: list[str]) -> None:
    """A telemetry file given where the database belongs is refused as "not a DuckDB
    database file" (DuckDB itself would read it as something else), for reading and for
    loading, and is not touched; the CLI says so with exit 2."""
    logs = tmp_path / "events.jsonl"
    logs.write_text(_line(_event(1)) + _line(_event(2)))
    before = logs.read_bytes()
    with pytest.raises(TelemetryError, match=r"events\.jsonl: not a DuckDB database file; telemetry files"):
        connect(logs)
    with pytest.raises(TelemetryError, match="not a DuckDB database file"):
        load(logs, db=logs)
    r = subprocess.run([*failtax_cmd, "agreement", "--db", str(logs)], capture_output=True, text=True)
    assert r.returncode == 2 and "not a DuckDB database file" in r.stderr and "Traceback" not in r.stderr
    assert logs.read_bytes() == before


def test_an_empty_file_becomes_a_new_database(tmp_path: Path) -> None:
    """``mktemp`` or ``touch`` made the database's file: loading into it builds the
    database there; only reading it is refused (there is nothing to read)."""
    db = tmp_path / "made-by-mktemp.duckdb"
    db.touch()
    with pytest.raises(TelemetryError, match="made-by-mktemp.duckdb: an empty file"):
        connect(db)
    f = tmp_path / "events.jsonl"
    f.write_text(_line(_event(1)) + _line(_event(2)))
    load(f, db=db).close()
    with connect(db) as tel:
        assert _counts(tel) == (2, 0)


def test_a_schema_1_database_is_read_but_not_extended(tmp_path: Path) -> None:
    """Schema 1 made its ids with MD5: its tables read as they are, but new lines could
    not be matched against its events, so loading into it is refused."""
    db, f = _database_of_schema(tmp_path, "1")
    with connect(db) as tel:
        assert _counts(tel) == (1, 0)
    f.write_text(_line(_event(1)) + _line(_event(2)))
    with pytest.raises(TelemetryError, match="can be read but not added to"):
        load(f, db=db)
    with pytest.raises(TelemetryError, match="can be read but not added to"):
        connect(db, read_only=False)
    with connect(db) as tel:
        assert _counts(tel) == (1, 0)


def test_plain_failure_events_are_stored_narrow_and_the_view_joins_both_tables(tmp_path: Path) -> None:
    """A new database's emitter lines go to the narrow table (the point of the two), other
    formats to the full one, and ``events`` shows them all with the same columns."""
    db = tmp_path / "t.duckdb"
    f = tmp_path / "a.jsonl"
    f.write_text("".join(_line(_event(i)) for i in range(1, 4)))
    life = tmp_path / "life.log"
    life.write_text(_line({"timestamp": "2026-09-08T09:00:00.000Z", "severity": "error", "event": "failure.classified",
                           "feature_id": "f9", "session_id": "s9", "metadata": {"failure_type": "compile"},
                           "message": "tsc failed"}))
    load(f, db=db).close()
    with load(life, db=db) as tel:
        per_table = {t: tel.sql(f"SELECT source, count(*) FROM {t} GROUP BY source").fetchall()
                     for t in ("_plain_events", "_events")}
        assert per_table == {"_plain_events": [("failure-event", 3)], "_events": [("lifecycle", 1)]}
        rows = tel.sql("SELECT source, run_id, severity FROM events ORDER BY source, run_id").fetchall()
        assert rows == [("failure-event", "r1", None), ("failure-event", "r2", None), ("failure-event", "r3", None),
                        ("lifecycle", None, "error")]
        assert [c[0] for c in tel.sql("DESCRIBE events").fetchall()] == [c for c, _, _ in EVENTS_COLUMNS]


def test_a_schema_2_database_is_read_and_extended_in_place(tmp_path: Path) -> None:
    """Schema 2 kept every event in one table, ``events``: it reads as it is, and a load
    into it makes that table the first of the view's two, keeping its rows and
    recognising duplicates of them."""
    db, f = _database_of_schema(tmp_path, "2")
    f.write_text(_line(_event(1)) + _line(_event(2)))
    con = duckdb.connect(str(db))  # back to schema 2's layout: one table
    con.execute("CREATE TABLE old AS SELECT * FROM events")
    con.execute("DROP VIEW events")
    con.execute("DROP TABLE _events")
    con.execute("DROP TABLE _plain_events")
    con.execute("ALTER TABLE old RENAME TO events")
    con.close()
    with connect(db) as tel:
        assert tel.sql("SELECT run_id FROM events").fetchall() == [("r1",)]
    copy = tmp_path / "copy.jsonl"
    copy.write_text(_line(_event(1)) + _line(_event(3)))  # its first line: a duplicate of the old row
    with load([f, copy], db=db) as tel:
        assert tel.summary.duplicates == 1
        assert sorted(tel.sql("SELECT run_id, file, line FROM events").fetchall()) == [
            ("r1", str(f), 1), ("r2", str(f), 2), ("r3", str(copy), 2)]
        kinds = dict(tel.sql("SELECT table_name, table_type FROM information_schema.tables").fetchall())
        assert kinds["events"] == "VIEW" and kinds["_events"] == kinds["_plain_events"] == "BASE TABLE"
        assert tel.sql("SELECT value FROM _meta WHERE key = 'schema_version'").fetchall() == [("3",)]
        assert [c[0] for c in tel.sql("DESCRIBE events").fetchall()] == [c for c, _, _ in EVENTS_COLUMNS]


# --------------------------------------------------------------------------- crashes and concurrency


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 60 MB of events: long enough to load that a kill lands mid-load."""
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    template = _line(_event(0, metadata={"errorExcerpt": "x" * 400}, runId="big-{i}")).replace("{i}", "%d")
    with open(path, "w") as fh:
        fh.writelines(template % i for i in range(120_000))
    return path


def _load_proc(paths: list[Path], db: Path, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-c", "from failtax.cli import main; main()", "load", *map(str, paths), "--db", str(db), *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _kill_on(proc: subprocess.Popen, started_writing) -> bool:
    """SIGKILL ``proc`` as soon as ``started_writing()`` is true; False if it finished first."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if started_writing():
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.002)
    proc.communicate()
    return False


@pytest.mark.slow
def test_a_killed_load_leaves_the_database_as_it_was(tmp_path: Path, big_file: Path) -> None:
    small, other = tmp_path / "small.jsonl", tmp_path / "other.jsonl"
    small.write_text(_line(_event(1)) + "{bad\n")
    other.write_text(_line(_event(2)))
    db = tmp_path / "t.duckdb"

    # a new database is built beside the target and renamed: a killed build leaves none
    proc = _load_proc([big_file], db)
    assert _kill_on(proc, lambda: any(tmp_path.glob(".t.duckdb.*.building*"))), "finished before the kill"
    assert not db.exists()

    load(small, db=db).close()
    size, wal = db.stat().st_size, db.with_name(db.name + ".wal")
    proc = _load_proc([big_file], db)
    assert _kill_on(proc, lambda: wal.exists() or db.stat().st_size != size), "finished before the kill"
    tel = connect(db)
    assert _counts(tel) == (1, 1)  # the interrupted load left no trace
    tel.close()
    tel = load(other, db=db)  # and the database still takes loads
    assert _counts(tel) == (2, 1)


def test_concurrent_loads_wait_or_fail_clearly(tmp_path: Path) -> None:
    import fcntl

    f = tmp_path / "a.jsonl"
    f.write_text(_line(_event(1)))
    db = tmp_path / "t.duckdb"
    lock = os.open(str(db) + ".lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        proc = _load_proc([f], db, "--lock-timeout", "0.5")
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 2
        assert "another `failtax load` is writing this database" in err and "waited 0.5 s" in err
        assert not db.exists()
        threading.Timer(0.5, lambda: fcntl.flock(lock, fcntl.LOCK_UN)).start()
        t = time.monotonic()
        tel = load(f, db=db, lock_timeout=30)  # waits for the lock, then loads
        assert time.monotonic() - t >= 0.4
        assert _counts(tel) == (1, 0)
        tel.close()
    finally:
        os.close(lock)


def test_two_processes_loading_one_database_both_succeed(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(_line(_event(i)) for i in range(0, 1500)))
    b.write_text("".join(_line(_event(i)) for i in range(1000, 2500)))
    db = tmp_path / "t.duckdb"
    procs = [_load_proc([a], db), _load_proc([b], db)]
    for p in procs:
        p.communicate(timeout=120)
        assert p.returncode == 0
    tel = connect(db)
    assert _counts(tel) == (2500, 0)  # the 500 shared lines once


# --------------------------------------------------------------------------- CLI


def test_cli_load_summary_json_and_quarantine_listing(tmp_path: Path, corpus: Path, failtax_cmd: list[str]) -> None:
    db = tmp_path / "t.duckdb"
    r = subprocess.run([*failtax_cmd, "load", str(corpus), "--db", str(db), "--show-quarantine", "2",
                        "--fail-on-quarantine"], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr  # loaded, but lines were quarantined
    assert "events added: 9 (failure-event 4 · lifecycle 3 · retry-log 1 · agent-failure 1)" in r.stdout
    assert "duplicates skipped: 1" in r.stdout
    assert "quarantined: 17 lines (unescaped-quote 3, wrong-type 3," in r.stdout
    assert f"{(corpus / 'broken.jsonl').resolve()}:3: invalid-json:" in r.stdout
    assert r.stderr == ""  # no progress bar when stderr is not a terminal
    r = subprocess.run([*failtax_cmd, "load", str(corpus), "--db", str(db), "--json", "--fail-on-quarantine"],
                       capture_output=True, text=True)
    assert r.returncode == 0  # this load quarantined nothing new
    doc = json.loads(r.stdout)
    assert doc["events_added"] == 0 and doc["totals"]["events"] == 9 and doc["totals"]["quarantine"] == 17
    r = subprocess.run([*failtax_cmd, "load", str(tmp_path / "nope.jsonl")], capture_output=True, text=True)
    assert r.returncode == 2 and "nope.jsonl: no such file or directory" in r.stderr


def test_cli_load_help_explains_every_table(failtax_cmd: list[str]) -> None:
    r = subprocess.run([*failtax_cmd, "load", "--help"], capture_output=True, text=True)
    assert r.returncode == 0
    for name in VIEW_DOCS:
        assert f"\n    {name} " in r.stdout, name
    for opt in ("--db", "--json", "--show-quarantine", "--fail-on-quarantine", "--lock-timeout", "--no-progress"):
        assert opt in r.stdout


def test_results_convert_to_polars_pandas_and_arrow(corpus: Path) -> None:
    tel = load(corpus)
    assert tel.decisions.pl().height == tel.decisions.df().shape[0] == tel.decisions.arrow().read_all().num_rows == 3
    assert CLASSIFIED["runId"] in tel.decisions.pl()["run_id"].to_list()


# --------------------------------------------------------------------------- ids and hash collisions


def _emitter_lines(seed: int, *, events: int = 300, workers: int = 8) -> list[str]:
    """Lines as eight emitting processes write them: same millisecond, same length, a few bytes apart.

    (DuckDB's 64-bit string hash gives many such pairs the same value: equal byte changes
    at positions a multiple of 8 apart cancel out.)
    """
    import datetime as dt
    import random

    rng = random.Random(seed)
    base = dt.datetime(2026, 11, 30, 16, 46, 17, 567000)
    out = []
    for i in range(events):
        t = base + dt.timedelta(milliseconds=i * 0.2 + rng.random())
        ts = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
        for w in rng.sample(range(workers), workers):
            out.append(_line({
                "ts": ts, "eventType": "replay-failure-classified", "skillName": "muggle-test",
                "aiClassification": "stale-script", "runId": f"w{w}", "testCaseId": f"{i}",
                "signals": ["selector-timeout"],
                "metadata": {"errorExcerpt": f"worker {w} event {i} " + "x" * (i % 300)},
            }))
    return out


def _assert_accounted(tel) -> None:
    s = tel.summary
    blank = sum(f.skipped_blank for f in s.files)
    assert s.events_added + s.quarantined + s.duplicates + blank == s.lines_read


def test_event_id_and_line_hash_are_the_halves_of_the_lines_xxh3_128(tmp_path: Path) -> None:
    """Computed here from the bytes on disk with the xxhash package itself: the first 64
    bits in hex are the id, the other 64 the line hash; the line end is part of the line."""
    import xxhash

    plain = [_line(_event(i)) for i in range(3)]
    crlf = _line(_event(3)).replace("\n", "\r\n")
    unicode = json.dumps({**_event(4), "metadata": {"note": "caf\u00e9 \u2028 \U0001f600"}}, ensure_ascii=False) + "\n"
    (tmp_path / "a.jsonl").write_bytes("".join([*plain, crlf]).encode())
    (tmp_path / "b.jsonl.gz").write_bytes(gzip.compress(unicode.encode()))
    tel = load(tmp_path)
    got = {(Path(f).name, line): (eid, h) for f, line, eid, h in
           tel.sql("SELECT file, line, event_id, line_hash FROM events").fetchall()}
    want = {}
    for name, lines in (("a.jsonl", [*plain, crlf]), ("b.jsonl.gz", [unicode])):
        for i, text in enumerate(lines, 1):
            digest = xxhash.xxh3_128_hexdigest(text.encode())
            want[(name, i)] = (digest[:16], int(digest[16:], 16))
    assert got == want


def _weak_line_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Line hashes of 3 bits (ids untouched): most distinct lines share one."""
    import pyarrow as pa

    real = loader.line_ids

    def weak(text):
        ids, hashes = real(text)
        return ids, pa.array([h & 7 for h in hashes.to_pylist()], pa.uint64())

    monkeypatch.setattr(loader, "line_ids", weak)


def test_distinct_lines_with_equal_line_hashes_are_all_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _weak_line_hashes(monkeypatch)
    lines = _emitter_lines(3)
    f = tmp_path / "e.jsonl"
    f.write_text("".join(lines) + lines[5])  # plus one true, byte-identical duplicate
    tel = load(f)
    assert tel.sql("SELECT count(DISTINCT line_hash) FROM events").fetchall()[0][0] <= 8
    assert _counts(tel) == (len(lines), 0)
    assert tel.summary.duplicates == 1
    assert tel.sql("SELECT count(DISTINCT (run_id, test_case_id)) FROM events").fetchall()[0][0] == len(lines)
    assert tel.sql("SELECT max(line) FROM events").fetchall()[0][0] == len(lines)  # the copy is the one left out
    assert tel.sql("SELECT count(DISTINCT event_id) FROM events").fetchall()[0][0] == len(lines)
    _assert_accounted(tel)


def test_equal_line_hash_against_an_earlier_load_is_compared_by_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _weak_line_hashes(monkeypatch)
    lines = _emitter_lines(4)
    first, later = lines[: len(lines) // 2], lines[len(lines) // 2 :]
    f, db = tmp_path / "e.jsonl", tmp_path / "t.duckdb"
    f.write_text("".join(first))
    with load(f, db=db) as tel:
        assert _counts(tel) == (len(first), 0)
    # the file grows by lines whose line hashes equal earlier events' but whose bytes
    # differ, and by one byte-identical copy of an earlier line
    with f.open("a") as fh:
        fh.write("".join(later) + first[0])
    with load(f, db=db) as tel:
        assert tel.summary.duplicates == 1
        assert tel.summary.events_added == len(later)
        _assert_accounted(tel)
        assert _counts(tel) == (len(lines), 0)
