"""The plain failure-event statement inserts exactly what the careful statement inserts.

The loader first tries a cheaper statement on each block (outside a transaction): it
accepts only good failure events whose signals are already normal, and fails on any
other line, after which the block goes through the statement for all formats. These
tests load real files into real DuckDB databases with the plain statement tried and
with it switched off, and require identical ``events`` and ``quarantine`` tables — for
emitter lines of every shape, and for lines that look like emitter lines but are not
good (a wrong type, a bad timestamp …), which must be quarantined with the same reason
and detail as before.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from failtax.telemetry import load
from failtax.telemetry.emit import event_line, event_record
from failtax.telemetry.schema import EVENTS_COLUMNS

loader = sys.modules["failtax.telemetry.load"]

_EVENTS = "SELECT * EXCLUDE (file), parse_filename(file) AS f FROM events ORDER BY f, line"
_QUARANTINE = "SELECT * EXCLUDE (file, loaded_at), parse_filename(file) AS f FROM quarantine ORDER BY f, line"


def _emitter_lines(n: int) -> list[bytes]:
    """``n`` lines as failtax's emitter writes them, of every event type and shape."""
    types = ["pre-execution-classification", "replay-failure-classified", "replay-failure-resolved",
             "regen-failure-classified", "regen-failure-resolved"]
    lines = []
    for i in range(n):
        et = types[i % len(types)]
        rec = event_record(
            event_type=et, skill_name="muggle-test" if i % 7 else 'quote " and \\ back\tslash',
            ai_classification=None if et.endswith("resolved") and i % 2 else ["infra", "stale-script", "café"][i % 3],
            ai_suggestion="regenerate" if i % 3 else None,
            user_action=("retry" if i % 4 else "skip") if et.endswith("resolved") or i % 5 == 0 else None,
            run_id=f"run-{i:05d}", test_case_id=f"tc-{i % 13}" if i % 6 else None, project_id="proj-\u00e9",
            signals=[["selector-timeout", "element-not-found"], [], ["x1"], None][i % 4],
            metadata=[None, {"failingStep": "Click 'Sign in'"}, {"errorExcerpt": "token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"},
                      # a nested key spelled like a string key, holding a number: the line is
                      # good and plain, though its raw bytes cannot tell it from a wrong type
                      {"n": 1.5, "nested": {"a": [1, "b", None], "runId": 7}, "t": True}][i % 4],
            ts=f"2026-09-07T08:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z",
        )
        lines.append(event_line(rec))
    return lines


def _tables(tmp_path: Path, name: str, files: dict[str, bytes], *, plain: bool, db: bool,
            chunk_bytes: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list, dict, int, int, int]:
    """Load ``files`` (written under a fresh directory) and read back both tables, the
    summary, how many blocks the plain and the careful statements inserted, and how many
    times the plain statement was tried."""
    root = tmp_path / name
    root.mkdir()
    for fname, data in files.items():
        (root / fname).write_bytes(data)
    monkeypatch.setattr(loader, "PLAIN_FIRST", plain)
    ran, tried = [], []
    scalar = loader._scalar

    def spy(con, sql, params=None):  # which statements were tried, and which succeeded
        tried.append(sql)
        value = scalar(con, sql, params)
        ran.append(sql)
        return value

    monkeypatch.setattr(loader, "_scalar", spy)
    target = str(root / "t.duckdb") if db else None
    with load(str(root), db=target, progress=False, chunk_bytes=chunk_bytes) as tel:
        events = tel.sql(_EVENTS).fetchall()
        quarantine = tel.sql(_QUARANTINE).fetchall()
        summary = tel.summary.to_dict()
    for key in ("seconds", "db", "files"):
        summary.pop(key)
    plain_ran = sum(sql in loader._PLAIN_INSERTS.values() for sql in ran)
    careful_ran = sum(sql in loader._INSERTS.values() for sql in ran)
    plain_tried = sum(sql in loader._PLAIN_INSERTS.values() for sql in tried)
    return events, quarantine, summary, plain_ran, careful_ran, plain_tried


@pytest.mark.parametrize("db", [False, True])
@pytest.mark.parametrize("chunk_bytes", [2048, 1 << 20])
def test_emitter_lines_load_the_same_through_the_plain_statement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db: bool, chunk_bytes: int
) -> None:
    lines = _emitter_lines(300)
    files = {
        "a.jsonl": b"".join(lines[:200]) + lines[5] + lines[5],  # duplicates within the file
        "b.jsonl": b"".join(lines[150:]),  # and across files
    }
    plain = _tables(tmp_path, "plain", files, plain=True, db=db, chunk_bytes=chunk_bytes, monkeypatch=monkeypatch)
    careful = _tables(tmp_path, "careful", files, plain=False, db=db, chunk_bytes=chunk_bytes, monkeypatch=monkeypatch)
    assert plain[0] == careful[0]
    assert plain[1] == careful[1] == []
    assert plain[2] == careful[2]
    assert plain[2]["events_added"] == 300 and plain[2]["duplicates"] == 52
    assert plain[3] >= 1 and careful[3] == 0  # the plain statement did the work
    assert plain[4] == 0  # all of it
    # the secret in the metadata is masked either way
    assert not any("ghp_a1B2" in str(row) for row in plain[0])


GOOD = ('{"ts":"2026-09-07T08:00:00.000Z","eventType":"replay-failure-classified","skillName":"s",'
        '"aiClassification":"infra","runId":"r","signals":["selector-timeout"],"metadata":{"k":"v"}}')

# A good line changed in one place: (change, expected quarantine reason or None when the
# line is good but not plain, so the careful statement must insert it).
LOOKALIKES = [
    (('"runId":"r"', '"runId":5'), "wrong-type"),
    (('"runId":"r"', '"runId":{"a":1}'), "wrong-type"),
    (('"skillName":"s"', '"skillName":null'), "missing-field"),
    (('"skillName":"s",', ''), "missing-field"),
    (('"skillName":"s"', '"skillName":true'), "wrong-type"),
    (('"aiClassification":"infra",', ''), None),  # optional: a classification naming no bucket is kept
    (('"aiClassification":"infra"', '"aiClassification":["infra"]'), "wrong-type"),
    (('"signals":["selector-timeout"]', '"signals":"selector-timeout"'), "wrong-type"),
    (('"signals":["selector-timeout"]', '"signals":[1,2]'), "wrong-type"),
    (('"metadata":{"k":"v"}', '"metadata":"k=v"'), "wrong-type"),
    (('"metadata":{"k":"v"}', '"metadata":[1]'), "wrong-type"),
    (('2026-09-07T08:00:00.000Z', 'yesterday'), "bad-timestamp"),
    (('2026-09-07T08:00:00.000Z', '2026-13-07T08:00:00Z'), "bad-timestamp"),
    (('2026-09-07T08:00:00.000Z', '0000-01-01T00:00:00.000Z'), "bad-timestamp"),  # a year no event has
    (('2026-09-07T08:00:00.000Z', '9999-12-31T23:59:59.999Z'), "bad-timestamp"),
    (('"ts":"2026-09-07T08:00:00.000Z"', '"ts":1788739200'), "wrong-type"),
    (('"replay-failure-classified"', '"replay-failure-retried"'), "unknown-event-type"),
    (('"eventType":"replay-failure-classified"', '"eventType":7'), "wrong-type"),
    (('"replay-failure-classified"', '"replay-failure-resolved"'), None),  # optional: a resolution with no action
    (('{"k":"v"}}', '{"k":"v"'), "invalid-json"),
    (('"runId":"r"', '"runId":"r","ts":5'), None),  # a repeated key: the first one counts
    (('"signals":["selector-timeout"]', '"signals":["Selector Timeout","a--b"]'), None),  # normalised
    (('"signals":["selector-timeout"]', '"signals":[]'), None),
    (('"signals":["selector-timeout"]', '"signals":null'), None),
    (('"runId":"r"', '"runId":"r\\u0040\\"x"'), None),  # escapes in a string
    (('"skillName":"s"', '"skillName" : "s"'), None),
    (('"metadata":{"k":"v"}', '"metadata":{"auth":"Bearer abc.def"}'), None),  # masked
    (('"eventType"', '"event\\u0054ype"'), None),
    (('"runId":"r"', '"run\\u0049d":5'), "wrong-type"),  # a key spelled with an escape
    (('"runId":"r"', '"runId" :\t5'), "wrong-type"),
    (('"metadata":{"k":"v"}', '"metadata":{"runId":5,"ts":{"a":1},"skillName":null}'), None),  # nested
]


@pytest.mark.parametrize(("change", "reason"), LOOKALIKES, ids=[c[1] for c, _ in LOOKALIKES])
def test_a_line_that_looks_plain_but_is_not_loads_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: tuple[str, str], reason: str | None
) -> None:
    """One load per lookalike, met by the plain statement after plain blocks, and again
    after plain lines (the statement is tried again after a failure)."""
    old, new = change
    assert old in GOOD
    odd = GOOD.replace(old, new, 1)
    lines = [json.dumps({**json.loads(GOOD), "runId": f"r{i}"}, separators=(",", ":")) for i in range(14)]
    # plain blocks before the odd line (small blocks), then the odd line twice
    files = {"e.jsonl": ("\n".join(lines[:12] + [odd] + lines[12:] + [odd]) + "\n").encode()}
    plain = _tables(tmp_path, "plain", files, plain=True, db=False, chunk_bytes=1024, monkeypatch=monkeypatch)
    careful = _tables(tmp_path, "careful", files, plain=False, db=False, chunk_bytes=1024, monkeypatch=monkeypatch)
    assert plain[0] == careful[0]
    assert plain[1] == careful[1]
    assert plain[2] == careful[2]
    assert plain[3] >= 1  # the blocks before the odd line went the plain way
    if reason is None:
        assert plain[2]["events_added"] == 15 and plain[2]["quarantined"] == 0
    else:
        assert plain[2]["events_added"] == 14
        assert [(row[0], row[1]) for row in plain[1]] == [(13, reason), (16, reason)]


def _plain_lines(n: int) -> list[str]:
    return [json.dumps({**json.loads(GOOD), "runId": f"r{i}"}, separators=(",", ":")) for i in range(n)]


def test_signal_names_spelled_other_ways_go_the_plain_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Drifted spellings (seed 000: goal_not_achievable for goal-not-achievable) are
    spelled one way by the plain statement as by the careful one, so telemetry with a few
    of them in every block stays on the plain way."""
    spellings = [["Selector_Timeout"], ["goal_not_achievable", "Element Not Found"], ["-a-", "b--c", "x__y"],
                 ["a,b"], [""], ["Élan Vital"], ["selector-timeout"], []]
    lines = [json.dumps({**json.loads(GOOD), "runId": f"r{i}", "signals": spellings[i % len(spellings)]},
                        separators=(",", ":"), ensure_ascii=False) for i in range(64)]
    files = {"e.jsonl": ("\n".join(lines) + "\n").encode()}
    plain = _tables(tmp_path, "plain", files, plain=True, db=True, chunk_bytes=1024, monkeypatch=monkeypatch)
    careful = _tables(tmp_path, "careful", files, plain=False, db=True, chunk_bytes=1024, monkeypatch=monkeypatch)
    assert plain[:3] == careful[:3]
    assert plain[2]["events_added"] == 64 and plain[1] == []
    assert plain[3] >= 8 and plain[4] == 0  # every block the plain way
    names = [c for c, _, _ in EVENTS_COLUMNS if c != "file"]  # (the order of _EVENTS' columns)
    got = {row[names.index("run_id")]: row[names.index("signals")] for row in plain[0]}
    assert got["r0"] == ["selector-timeout"]
    assert got["r1"] == ["goal-not-achievable", "element-not-found"]
    assert got["r2"] == ["a", "b-c", "x-y"]
    assert got["r7"] == []


@pytest.mark.parametrize("bad", ["cut short", "wrong type"])
def test_one_bad_line_costs_its_block_not_the_rest_of_the_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    """After a block the plain statement fails on, the next blocks go the plain way again;
    a block with a line that is not JSON has its other lines go the plain way too."""
    lines = _plain_lines(120)
    odd = lines[3][:40] if bad == "cut short" else lines[3].replace('"skillName":"s"', '"skillName":5')
    files = {"e.jsonl": ("\n".join(lines[:3] + [odd] + lines[3:]) + "\n").encode()}
    plain = _tables(tmp_path, "plain", files, plain=True, db=True, chunk_bytes=1024, monkeypatch=monkeypatch)
    careful = _tables(tmp_path, "careful", files, plain=False, db=True, chunk_bytes=1024, monkeypatch=monkeypatch)
    assert plain[:3] == careful[:3]
    assert plain[2]["events_added"] == 120 and plain[2]["quarantined"] == 1
    # (the careful way inserts the bad block's lines that are not JSON on their own)
    blocks = careful[4] - (1 if bad == "cut short" else 0)
    assert blocks >= 12
    assert plain[4] == 1  # only the bad line's block (or its bad part) went the careful way
    assert plain[3] == blocks - (1 if bad == "wrong type" else 0)


def test_telemetry_messy_throughout_pays_for_few_failed_plain_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When every block has a bad line, the plain statement is tried less and less often
    (blocks 1, 2, 4, 8, 16, 32 …), and the tables are what the careful way makes."""
    lines = _plain_lines(400)
    for i in range(0, 400, 4):
        lines[i] = lines[i].replace('"runId":"r', '"runId":5,"x":"r')
    files = {"e.jsonl": ("\n".join(lines) + "\n").encode()}
    plain = _tables(tmp_path, "plain", files, plain=True, db=False, chunk_bytes=1024, monkeypatch=monkeypatch)
    careful = _tables(tmp_path, "careful", files, plain=False, db=False, chunk_bytes=1024, monkeypatch=monkeypatch)
    assert plain[:3] == careful[:3]
    assert plain[2]["quarantined"] == 100
    blocks = careful[4]
    assert blocks >= 30
    assert plain[3] == 0 and plain[4] == blocks
    assert 3 <= plain[5] <= 1 + blocks.bit_length()


def test_the_plain_statement_refuses_what_it_cannot_insert_exactly(tmp_path: Path) -> None:
    """Run on its own, the statement fails on a line that is not a plain failure event."""
    import duckdb
    import pyarrow as pa

    from failtax.telemetry.validate import line_gates

    con = duckdb.connect(str(tmp_path / "x.duckdb"))
    loader._prepare(con)
    sql = loader._PLAIN_INSERTS[False]
    for text, ok in [(GOOD, True), (GOOD.replace('"runId":"r"', '"runId":5'), False),
                     (GOOD.replace('["selector-timeout"]', '["Selector"]'), True),  # spelled one way
                     (GOOD.replace('["selector-timeout"]', '["a\\"b"]'), False),  # an escape
                     (GOOD.replace('["selector-timeout"]', '["a",1]'), False),
                     ('{"timestamp":"2026-09-07T08:00:00Z","event":"recovery.attempted"}', False)]:
        odd = line_gates(pa.array([text], pa.large_string()))[1][0].as_py()
        con.execute("CREATE OR REPLACE TABLE _chunk AS SELECT 'f' AS file, 1::BIGINT AS line_no, "
                    "? AS text, true AS maybe_secret, ? AS odd, '0123456789abcdef' AS eid, 1::UBIGINT AS h",
                    [text + "\n", odd])
        if ok:
            assert con.execute(sql).fetchall() == [(1,)]
        else:
            with pytest.raises(duckdb.Error):
                con.execute(sql)
    con.close()
