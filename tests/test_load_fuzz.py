"""Fuzzing the loader: arbitrary bytes never raise and never lose a line.

Every line read is accounted for: stored as an event, quarantined with a reason, skipped
as blank, or dropped as a byte-identical duplicate of an earlier line.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from failtax.telemetry import load

GOOD = [
    json.dumps({"ts": "2026-11-02T10:00:00.000Z", "eventType": "replay-failure-classified",
                "skillName": "s", "aiClassification": "infra", "aiSuggestion": "report-bug",
                "runId": "r", "testCaseId": "t", "signals": ["electron-crash"]}),
    json.dumps({"ts": "2026-11-02T10:01:00.000Z", "eventType": "replay-failure-resolved",
                "skillName": "s", "userAction": "skip", "runId": "r", "testCaseId": "t"}),
    json.dumps({"timestamp": "2026-11-02T10:00:00Z", "severity": "error", "event": "failure.classified",
                "feature_id": "f", "session_id": "s", "metadata": {"failure_type": "compile"}, "message": "m"}),
    json.dumps({"ts": "2026-11-02T10:00:00Z", "failures": ["tests/a.py::t"]}),
    json.dumps({"code": "auth", "title": "t", "detail": "d", "exitCode": 1, "retryable": False}),
]

line = st.one_of(
    st.sampled_from(GOOD),
    st.sampled_from(GOOD).map(lambda s: s[: len(s) // 2]),  # truncated
    st.binary(max_size=80).map(lambda b: b.replace(b"\n", b" ").decode("latin-1")),
    st.text(max_size=60).map(lambda s: s.replace("\n", " ").replace("\r", " ")),
    st.builds(lambda k, v: json.dumps({k: v}), st.text(max_size=10), st.one_of(st.none(), st.integers(), st.text(max_size=10))),
)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(line, min_size=1, max_size=40), raw_tail=st.binary(max_size=20))
def test_the_loader_accounts_for_every_line_of_arbitrary_input(lines: list[str], raw_tail: bytes, tmp_path: Path) -> None:
    f = tmp_path / "fuzz.jsonl"
    data = "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n" + raw_tail.replace(b"\n", b" ")
    f.write_bytes(data)
    tel = load(f, progress=False)
    s = tel.summary
    events = tel.sql("SELECT count(*) FROM events").fetchall()[0][0]
    quarantined = tel.sql("SELECT count(*) FROM quarantine").fetchall()[0][0]
    blank = sum(r.skipped_blank for r in s.files)
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    assert s.lines_read == n_lines
    assert events + quarantined + blank + s.duplicates == n_lines
    # Every quarantined line names its line number and a reason.
    for line_no, reason in tel.sql("SELECT line, reason FROM quarantine").fetchall():
        assert 1 <= line_no <= n_lines and reason
    tel.con.close()
