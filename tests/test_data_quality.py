"""Values their taxonomy does not define, resolutions with no classification before
them, and files of a folder that were not read: counted by the analysis and the loader,
shown by the report (a real ``failtax report`` run on telemetry written here)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import polars as pl
import pytest

from failtax.analysis import find_unknown_values
from failtax.analysis.quality import taxonomy_vocabulary


def test_unknown_buckets_suggestions_and_actions_are_counted_per_taxonomy() -> None:
    df = pl.DataFrame({
        "taxonomy": ["replay", "replay", "replay", "regen", "regen", "replay", "no-such-taxonomy"],
        "ai_bucket": ["infra", "flaky", "flaky", "transient", "stale-script", None, "whatever"],
        "ai_suggestion": ["report-bug", "teleport", None, "retry", None, "regenerate", "whatever"],
        "user_action": ["share-ticket", None, "dance", "regenerate", "skip", "skip", "whatever"],
    })
    got = find_unknown_values(df)
    assert got.columns == ["taxonomy", "field", "value", "events", "expected"]
    # replay's stale-script is not a regen bucket, and regenerate is replay's action, not regen's
    assert got.select("taxonomy", "field", "value", "events").rows() == [
        ("replay", "ai_bucket", "flaky", 2),
        ("regen", "ai_bucket", "stale-script", 1),
        ("regen", "user_action", "regenerate", 1),
        ("replay", "ai_bucket", "(absent)", 1),  # a classification that names no bucket
        ("replay", "ai_suggestion", "teleport", 1),
        ("replay", "user_action", "dance", 1),
    ]
    assert set(got["expected"]) == {"a bucket of the taxonomy", "an action of the taxonomy"}


def test_a_clean_frame_and_a_frame_without_the_columns_give_an_empty_frame() -> None:
    clean = pl.DataFrame({"taxonomy": ["replay", "regen"], "ai_bucket": ["product-defect", "agent-course"],
                          "user_action": ["retry", None]})
    assert find_unknown_values(clean).height == 0
    assert find_unknown_values(pl.DataFrame({"taxonomy": ["replay"]})).height == 0
    assert find_unknown_values(clean.to_pandas()).height == 0  # any frame the analysis takes


@pytest.mark.parametrize("taxonomy", ["replay", "regen", "agent-run", "devflow", "orchestration", "preexec"])
def test_every_action_a_taxonomy_names_is_in_its_vocabulary(taxonomy: str) -> None:
    from failtax.taxonomy import load_taxonomy

    t = load_taxonomy(taxonomy)
    v = taxonomy_vocabulary(taxonomy)
    assert set(t.actions) | set(t.opt_out) <= v["actions"]
    for b in t.buckets:
        assert set(b.options) <= v["actions"] and (b.suggestion is None or b.suggestion in v["actions"])
        assert b.name in v["buckets"]


def _event(i: int, **kw) -> dict:
    ts = f"2026-10-{1 + i % 27:02d}T09:{i % 60:02d}:00.000Z"
    return {"ts": ts, "eventType": "replay-failure-classified", "skillName": "replayer", "runId": f"r{i}",
            "testCaseId": f"t{i}", "aiClassification": "stale-script", "aiSuggestion": "regenerate",
            "signals": ["selector-timeout"], **kw}


def _resolved(i: int, action: str, **kw) -> dict:
    ts = f"2026-10-{1 + i % 27:02d}T10:{i % 60:02d}:00.000Z"
    return {"ts": ts, "eventType": "replay-failure-resolved", "skillName": "replayer", "runId": f"r{i}",
            "testCaseId": f"t{i}", "userAction": action, **kw}


def test_the_report_lists_unknown_values_and_orphan_resolutions(tmp_path: Path, failtax_cmd: list[str]) -> None:
    lines = []
    for i in range(60):
        renamed = i % 4 == 0  # the tool renamed an action: "regen-script" for "regenerate"
        invented = i % 10 == 1  # and its AI sometimes answers with a bucket replay does not have
        ev = _event(i, **({"aiClassification": "flaky"} if invented else {}))
        lines += [ev, _resolved(i, "regen-script" if renamed else "regenerate")]
    lines += [_resolved(1000 + i, "retry") for i in range(3)]  # asked before the classification was written
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "tool.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (logs / "events.json").write_text(json.dumps(_event(5000)) + "\n")  # not a telemetry name: not read
    out = tmp_path / "report"
    r = subprocess.run([*failtax_cmd, "report", "--telemetry", str(logs), "--out", str(out), "--taxonomy", "replay",
                        "--no-progress"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    dq = s["data_quality"]
    assert [(u["field"], u["value"], u["events"]) for u in dq["unknown_values"]] == [
        ("user_action", "regen-script", 15), ("ai_bucket", "flaky", 6)]
    assert dq["orphan_resolutions"] == {"replay": 3}
    assert dq["left_out_files"] == [str((logs / "events.json").resolve())]
    assert s["events"]["classified"] == 60
    html = (out / "index.html").read_text(encoding="utf-8")
    table = re.search(r'<table data-key="unknown_values">(.*?)</table>', html, re.S)
    assert table, "no unknown-values table on the page"
    cells = re.sub(r"<[^>]+>", " ", table.group(1)).split()
    assert cells[cells.index("regen-script") + 1] == "15" and cells[cells.index("flaky") + 1] == "6"
    assert re.search(r'data-key="orphan_resolutions">[^<]*replay 3\.', html)
    assert re.search(r'data-key="left_out_files">[^<]*1 file \([^<]*events\.json\)', html)
    md = (out / "summary.md").read_text()
    assert "| replay | user_action | regen-script | 15 |" in md
    assert "Resolved events with no classified event before them: replay 3." in md
    assert "Not read (not named as telemetry): 1 file (" in md
