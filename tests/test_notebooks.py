"""The notebooks: paired and in sync, parameterised, executed headless, recording the right numbers.

Each notebook runs under papermill (the ``python3`` kernel of this environment) on a
small simulated dataset, from a scratch working directory, and its last cell's JSON is
compared with what the library computes on the same files.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime
import sys
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
NAMES = ("agreement", "misleading_signals", "tune_and_export")
SECRET = "sk-ant-api03-Zq8vL2mN4pR6tX1yB3dF5hJ7kW9cE0gA2sD4fG6hJ8kL0zX"
EMAIL = "jane.doe@example.com"


def _code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("name", NAMES)
def test_pair_is_in_sync_and_parameterised(name: str) -> None:
    py, ipynb = NOTEBOOKS / f"{name}.py", NOTEBOOKS / f"{name}.ipynb"
    import jupytext  # (here, not at collection: it imports nbformat and jsonschema, ~5 s)

    a, b = jupytext.read(py), jupytext.read(ipynb)
    strip = lambda nb: [(c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", ()))) for c in nb.cells]  # noqa: E731
    assert strip(a) == strip(b), f"{py.name} and {ipynb.name} differ: run `jupytext --sync notebooks/{name}.py`"
    assert b.metadata["kernelspec"]["name"] == "python3"
    assert "ipynb" in b.metadata["jupytext"].get("formats", "ipynb,py:percent") or (NOTEBOOKS / "jupytext.toml").exists()
    first = _code_cells(b)[0]
    assert first.metadata.get("tags") == ["parameters"]
    for param in ("telemetry", "taxonomy", "since", "until", "output_dir"):
        assert f"{param} = " in first.source
    last = _code_cells(b)[-1].source
    assert "write_json(" in last and "output_dir" in last
    for cell in b.cells:  # committed without outputs, and no working-directory tricks
        assert not cell.get("outputs")
        assert "os.chdir" not in cell.source and "%cd" not in cell.source
    assert "failtax" in _code_cells(b)[1].source


@pytest.fixture(scope="module")
def telemetry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Simulated telemetry, plus three overrides of the planted misleading signal whose
    evidence holds a secret and an e-mail address (the newest events, so they are the
    examples shown)."""
    from failtax.taxonomy import load_taxonomy

    root = tmp_path_factory.mktemp("nb")
    data = root / "data"
    r = subprocess.run([sys.executable, "-c", "from failtax.cli import main; main()", "simulate", "--out", str(data),
                        "--events", "1500", "--weeks", "8", "--seed", "11"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    truth = json.loads((data / "truth.json").read_text())
    d = next(x for x in truth["defects"] if x["kind"] == "misleading-signal" and x["taxonomy"] == "replay")
    tax = load_taxonomy("replay")
    action = next(a for a, b in tax.actions.items() if b == d["true_bucket"])
    suggestion = next(b.suggestion for b in tax.buckets if b.name == d["table_bucket"])
    lines = []
    for i in range(3):
        key = {"runId": f"run-secret-{i}", "testCaseId": f"tc-secret-{i}", "skillName": "muggle-test"}
        lines.append({"ts": f"2026-11-01T22:0{i}:00.000Z", "eventType": "replay-failure-classified", **key,
                      "aiClassification": d["table_bucket"], "aiSuggestion": suggestion, "signals": [d["signal"]],
                      "metadata": {"errorExcerpt": f"step failed; Authorization: Bearer {SECRET} (owner {EMAIL})"}})
        lines.append({"ts": f"2026-11-01T22:0{i}:30.000Z", "eventType": "replay-failure-resolved", **key,
                      "aiClassification": d["table_bucket"], "aiSuggestion": suggestion, "userAction": action})
    # a tool that renamed an action: kept, listed as a value the taxonomy does not define
    key = {"runId": "run-renamed", "testCaseId": "tc-renamed", "skillName": "muggle-test"}
    lines.append({"ts": "2026-11-01T22:05:00.000Z", "eventType": "replay-failure-classified", **key,
                  "aiClassification": d["table_bucket"], "aiSuggestion": suggestion, "signals": []})
    lines.append({"ts": "2026-11-01T22:05:30.000Z", "eventType": "replay-failure-resolved", **key,
                  "userAction": "file-a-jira"})
    (data / "injected.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return data


def _execute(name: str, tmp_path: Path, **params) -> dict:
    import papermill as pm

    out = tmp_path / "out"
    pm.execute_notebook(
        str(NOTEBOOKS / f"{name}.ipynb"), str(tmp_path / f"{name}.out.ipynb"),
        parameters={**params, "output_dir": str(out)}, kernel_name="python3", cwd=str(tmp_path),
        progress_bar=False, log_output=False, request_save_on_cell_execute=False,
    )
    return json.loads((out / f"{name}.json").read_text())


def _decisions(telemetry: Path):
    from failtax.telemetry import load

    with load(str(telemetry)) as tel:
        return tel.decisions.pl()


def test_agreement_notebook_records_the_library_numbers(telemetry: Path, tmp_path: Path) -> None:
    from failtax.analysis import measure_agreement, score_labels, summarize_latency

    got = _execute("agreement", tmp_path, telemetry=str(telemetry), since="2026-09-14")
    decisions = _decisions(telemetry)
    rep = measure_agreement(decisions, taxonomy=["replay", "regen"], since="2026-09-14", slices=("taxonomy",))
    ov = rep.overall.row(0, named=True)
    assert (got["agreement"]["k"], got["agreement"]["n"]) == (ov["n_agree"], ov["n_rated"])
    assert got["agreement"]["rate"] == pytest.approx(ov["agreement_rate"])
    assert got["events"]["events"] == ov["n_events"]
    window = decisions.filter(decisions["ts"] >= datetime(2026, 9, 14))
    assert ov["n_events"] == window.filter(window["taxonomy"] != "preexec").height < decisions.height
    pre = window.filter(window["taxonomy"] == "preexec")
    assert got["preexec"]["override"]["n"] == pre.height > 0
    assert got["preexec"]["override"]["k"] == int((pre["decided"] & (pre["agree"] == False)).sum())  # noqa: E712
    for tax in ("replay", "regen"):
        s = score_labels(decisions, taxonomy=tax, since="2026-09-14")
        assert got["taxonomies"][tax]["kappa"] == pytest.approx(s.kappa, abs=1e-12)
        assert got["taxonomies"][tax]["macro_f1"] == pytest.approx(s.macro_f1, abs=1e-12)
        assert got["taxonomies"][tax]["n_labelled"] == s.n
    lat = summarize_latency(decisions, taxonomy=["replay", "regen"], since="2026-09-14")
    assert got["latency"] == json.loads(json.dumps(lat.to_dicts()))
    assert got["parameters"]["since"] == "2026-09-14"
    assert [(u["taxonomy"], u["field"], u["value"], u["events"]) for u in got["unknown_values"]] == [
        ("replay", "user_action", "file-a-jira", 1)]


def test_misleading_signals_notebook_finds_the_planted_signal_and_redacts_examples(telemetry: Path,
                                                                                   tmp_path: Path) -> None:
    from failtax.analysis import find_misleading_signals, reclassify

    got = _execute("misleading_signals", tmp_path, telemetry=str(telemetry), taxonomy="replay", top=5, n_examples=3)
    truth = json.loads((telemetry / "truth.json").read_text())
    planted = next(x["signal"] for x in truth["defects"] if x["kind"] == "misleading-signal" and x["taxonomy"] == "replay")
    assert list(got["taxonomies"]) == ["replay"]
    recorded = got["taxonomies"]["replay"]["misleading_signals"]
    # The analysis' own re-classification path gives the same ranked list.
    m = find_misleading_signals(reclassify(_decisions(telemetry), taxonomy="replay"), n_examples=3)
    flagged = m.signals.filter(m.signals["misleading"] | m.signals["fallback_wrong"]).head(5)
    assert [r["signal"] for r in recorded] == flagged["signal"].to_list()
    assert [r["match"]["k"] for r in recorded] == flagged["n_match"].to_list()
    assert got["taxonomies"]["replay"]["baseline_match"] == pytest.approx(m.baseline)
    assert planted in [r["signal"] for r in recorded]
    examples = next(r for r in recorded if r["signal"] == planted)["examples"]
    assert examples and all("[REDACTED:" in e["text"] for e in examples)
    blob = json.dumps(got)
    assert SECRET not in blob and EMAIL not in blob
    executed = (tmp_path / "misleading_signals.out.ipynb").read_text()
    assert SECRET not in executed and EMAIL not in executed  # nor in the notebook's shown outputs


def test_tune_and_export_notebook_exports_the_table_the_tuner_learned(telemetry: Path, tmp_path: Path) -> None:
    import failtax
    from failtax.tune import TableTuner

    got = _execute("tune_and_export", tmp_path, telemetry=str(telemetry), taxonomy="replay")
    decisions = _decisions(telemetry)
    tuner = TableTuner("replay", cv=None, random_state=0).fit(decisions.filter(decisions["taxonomy"] == "replay"))
    assert [c["summary"] for c in got["changes"]] == [c.summary for c in tuner.changes_]
    assert got["changes"], "the planted defects should produce at least one change"
    exported = failtax.load_table(got["export"]["path"])
    assert exported.route == tuner.table_.route and exported.version == got["table"]["proposed_version"]
    assert got["export"]["classify_matches_diff"] is True
    assert got["moves"]["moved"] > 0
    # The tuner's exporter replays the same events: the batch engine's count of moved
    # events in the notebook agrees with it.
    assert got["export"]["moved"] == got["moves"]["moved"]
    assert got["backtest"] is not None and got["backtest"]["n"] > 0
    assert Path(got["export"]["path"]).parent == tmp_path / "out"
    assert not any(p.name.endswith(".json") for p in tmp_path.iterdir() if p.is_file())  # outputs only in output_dir
    assert os.path.basename(got["export"]["path"]) == "replay-tuned.toml"
