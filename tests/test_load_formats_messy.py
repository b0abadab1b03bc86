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
