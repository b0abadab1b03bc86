"""The emitter: seed 000's line format, whole lines under concurrency, never raising."""

from __future__ import annotations

import json
import logging
import multiprocessing as mp
import os
import re
import time
from pathlib import Path

import pytest

import failtax
from failtax.telemetry import ask_and_record, default_sink, emit, load

TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_line_format_ts_first_and_absent_options(tmp_path: Path) -> None:
    sink = tmp_path / "e.jsonl"
    assert emit(sink, event_type="replay-failure-classified", skill_name="muggle-test",
                ai_classification="stale-script", ai_suggestion="regenerate", run_id="r1", test_case_id="t1",
                project_id="p1", signals=["element-not-found", "selector-timeout"],
                metadata={"failingStep": "Click 'Sign in'", "errorExcerpt": "waiting for selector \"#go\" — é"})
    assert emit(sink, event_type="replay-failure-resolved", skill_name="muggle-test", user_action="regenerate",
                run_id="r1", test_case_id="t1")
    raw = sink.read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 2
    first, second = _lines(sink)
    assert list(first) == ["ts", "eventType", "skillName", "aiClassification", "aiSuggestion", "runId",
                           "testCaseId", "projectId", "signals", "metadata"]
    assert list(second) == ["ts", "eventType", "skillName", "userAction", "runId", "testCaseId"]
    assert TS.match(first["ts"]) and TS.match(second["ts"])
    assert "null" not in raw.decode()
    assert first["metadata"]["errorExcerpt"].endswith("— é")


def test_default_sink_is_under_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_sink() == tmp_path / ".muggle-ai" / "telemetry" / "failure-events.jsonl"
    assert emit(event_type="regen-failure-classified", skill_name="muggle-test", ai_classification="transient")
    assert _lines(default_sink())[0]["eventType"] == "regen-failure-classified"


def test_never_raises_and_logs_instead(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="failtax.telemetry")
    assert emit(tmp_path / "e.jsonl", event_type="replay-failure-shrugged", skill_name="s") is False
    assert emit(tmp_path / "e.jsonl", event_type="replay-failure-classified", skill_name="s",
                signals="selector-timeout") is False  # a string is not a list of signals
    assert emit(tmp_path, event_type="replay-failure-classified", skill_name="s") is False  # a directory
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert emit(blocker / "sub" / "e.jsonl", event_type="replay-failure-classified", skill_name="s") is False
    assert not (tmp_path / "e.jsonl").exists()
    assert len([r for r in caplog.records if "event not written" in r.getMessage()]) == 4


def test_a_crashed_writers_half_line_stays_alone(tmp_path: Path) -> None:
    sink = tmp_path / "e.jsonl"
    sink.write_bytes(b'{"ts":"2026-09-07T10:00:00.000Z","eventType":"replay-fail')
    assert emit(sink, event_type="replay-failure-classified", skill_name="muggle-test", ai_classification="infra")
    lines = sink.read_bytes().split(b"\n")
    assert lines[0].endswith(b"replay-fail") and json.loads(lines[1])["aiClassification"] == "infra"
    tel = load(sink)
    assert tel.sql("SELECT line, reason FROM quarantine").fetchall() == [(1, "invalid-json")]
    assert tel.sql("SELECT line FROM events").fetchall() == [(2,)]


def test_a_held_lock_delays_the_caller_only_briefly(tmp_path: Path) -> None:
    import fcntl

    sink = tmp_path / "e.jsonl"
    sink.write_text("")
    fd = os.open(sink, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        t = time.monotonic()
        assert emit(sink, event_type="replay-failure-classified", skill_name="s", lock_timeout=0.05)
        assert time.monotonic() - t < 1.0
    finally:
        os.close(fd)
    assert len(_lines(sink)) == 1


def _writer(path: str, worker: int, n: int) -> None:
    for i in range(n):
        ok = emit(path, event_type="replay-failure-classified", skill_name="muggle-test",
                  ai_classification="stale-script", run_id=f"w{worker}", test_case_id=f"{i}",
                  signals=["selector-timeout"], metadata={"errorExcerpt": f"worker {worker} event {i} " + "x" * (i % 300)})
        if not ok:
            raise SystemExit(1)


@pytest.mark.slow
def test_eight_processes_times_2000_emits_give_16000_whole_lines(tmp_path: Path) -> None:
    sink = tmp_path / "e.jsonl"
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(sink), w, 2000)) for w in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    raw = sink.read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1]
    assert len(lines) == 16_000
    seen = set()
    for line in lines:
        rec = json.loads(line)
        assert TS.match(rec["ts"]) and rec["metadata"]["errorExcerpt"].startswith(f"worker {rec['runId'][1:]} ")
        seen.add((rec["runId"], rec["testCaseId"]))
    assert len(seen) == 16_000
    tel = load(sink)
    assert tel.sql("SELECT count(*) FROM events").fetchall()[0][0] == 16_000
    assert tel.sql("SELECT count(*) FROM quarantine").fetchall()[0][0] == 0


def test_classified_is_on_disk_before_the_person_is_asked(tmp_path: Path) -> None:
    sink = tmp_path / "e.jsonl"
    c = failtax.classify({"signals": ["selector-timeout"], "text": "waiting for selector"}, taxonomy="replay")
    seen_when_asked: list[list[dict]] = []

    def ask(classification: object) -> str:
        seen_when_asked.append(_lines(sink))
        return "share-email"

    assert ask_and_record(c, ask, skill_name="muggle-test", path=sink, run_id="r1", test_case_id="t1",
                          project_id="p1", metadata={"failingStep": "Click"}) == "share-email"
    (before,) = seen_when_asked
    assert [e["eventType"] for e in before] == ["replay-failure-classified"]
    assert before[0]["aiClassification"] == "stale-script" and before[0]["aiSuggestion"] == "regenerate"
    assert before[0]["signals"] == ["selector-timeout"]
    after = _lines(sink)
    assert [e["eventType"] for e in after] == ["replay-failure-classified", "replay-failure-resolved"]
    assert after[1]["userAction"] == "share-email" and "signals" not in after[1]
    assert after[1]["ts"] >= after[0]["ts"]
    row = load(sink).decisions.pl().row(0, named=True)
    assert (row["user_action"], row["agree"], row["implied_bucket"]) == ("share-email", False, "product-defect")


def test_pre_execution_records_only_an_override(tmp_path: Path) -> None:
    sink = tmp_path / "e.jsonl"
    c = failtax.classify({"fields": {"hasReplayableScript": True, "changedFilesMatched": [], "lastPassedAgeDays": 2}},
                         taxonomy="preexec")
    assert c.bucket == "replay"
    assert ask_and_record(c, lambda _: "replay", skill_name="muggle-test", path=sink, test_case_id="t1") == "replay"
    assert [e.get("userAction") for e in _lines(sink)] == [None]
    assert ask_and_record(c, lambda _: "regen", skill_name="muggle-test", path=sink, test_case_id="t2") == "regen"
    assert [(e["testCaseId"], e.get("userAction")) for e in _lines(sink)] == [("t1", None), ("t2", None), ("t2", "regen")]
    assert all(e["eventType"] == "pre-execution-classification" for e in _lines(sink))


def test_no_answer_means_no_resolved_event_and_ask_errors_propagate(tmp_path: Path) -> None:
    sink = tmp_path / "e.jsonl"
    c = {"taxonomy": "regen", "bucket": "transient", "suggestion": "retry", "signals": ["network-error"]}
    assert ask_and_record(c, lambda _: None, skill_name="s", path=sink, run_id="r") is None

    def broken(_: object) -> str:
        raise RuntimeError("dialog closed")

    with pytest.raises(RuntimeError, match="dialog closed"):
        ask_and_record(c, broken, skill_name="s", path=sink, run_id="r2")
    assert [e["eventType"] for e in _lines(sink)] == ["regen-failure-classified"] * 2
    with pytest.raises(ValueError, match="no failure-event family"):
        ask_and_record({"taxonomy": "agent-run", "bucket": "overloaded"}, broken, skill_name="s", path=sink)


def test_nan_and_infinity_are_written_as_null_so_every_line_is_json(tmp_path: Path) -> None:
    f = tmp_path / "events.jsonl"
    meta = {"score": float("nan"), "limits": [float("inf"), -float("inf"), 2.5], "nested": {"x": float("nan")}}
    assert emit(f, event_type="replay-failure-classified", skill_name="s", metadata=meta, signals=["a"])

    def refuse(token: str) -> None:
        raise ValueError(f"not JSON: {token}")

    rec = json.loads(f.read_text(), parse_constant=refuse)
    assert rec["metadata"] == {"score": None, "limits": [None, None, 2.5], "nested": {"x": None}}
    assert rec["signals"] == ["a"]
