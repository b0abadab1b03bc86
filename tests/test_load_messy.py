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
