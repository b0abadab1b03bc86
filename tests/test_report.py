"""``failtax report`` as a real subprocess on simulated telemetry: files, plots, numbers, exit codes.

One small simulated dataset (``failtax simulate``) is written once per run into a
folder laid out like a checkout (``data/``), and ``failtax report`` runs there with no
arguments, exactly as a person would (``shared_runs`` in ``conftest.py``). Other runs restrict themselves to one taxonomy to
stay quick.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

PLOTS = ("agreement-trend", "confusion", "signal-lift", "rule-bars", "recognition-trend", "backtest", "bucket-moves")
# The tests share one simulated checkout and report (below): on one worker (--dist
# loadgroup), the other one is not left waiting for it.
pytestmark = pytest.mark.xdist_group("report")

CMD = [sys.executable, "-c", "from failtax.cli import main; main()"]


def _run(args: list[str], cwd: Path, *, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([*CMD, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def _pngs(html: str) -> list[tuple[str, bytes]]:
    imgs = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"[^>]*data-plot="([^"]+)"', html)
    return [(name, base64.b64decode(data, validate=True)) for data, name in imgs]


def _key_text(html: str, key: str) -> str:
    m = re.search(rf'data-key="{re.escape(key)}">([^<]*)<', html)
    assert m, f"no element with data-key={key!r} on the page"
    import html as _h

    return _h.unescape(m.group(1))


def _table_text(html: str, key: str) -> str:
    m = re.search(rf'<table data-key="{re.escape(key)}">(.*?)</table>', html, re.S)
    assert m, f"no table with data-key={key!r} on the page"
    import html as _h

    return _h.unescape(re.sub(r"<[^>]+>", " ", m.group(1)))


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path → bytes)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _pct(v: float) -> str:
    return f"{v * 100:.1f}%"


def _rate(rec: dict) -> str:
    return f"{_pct(rec['rate'])} [{_pct(rec['low'])}, {_pct(rec['high'])}], n={rec['n']:,}"


def test_the_report_tests_run_as_one_group_on_one_worker(request: pytest.FixtureRequest) -> None:
    """Under ``--dist loadgroup`` pytest-xdist marks a grouped test by a name suffix; under
    a pytest it cannot rename tests in, the group (and the Spark tests' group) would be
    spread over every worker, each making the shared report and its own Spark session."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run with --dist loadgroup")
    assert request.node.nodeid.endswith("@report"), (
        f"{request.node.nodeid}: not grouped; pytest {pytest.__version__} is one pytest-xdist cannot group under")


def test_no_arguments_writes_one_self_contained_page_with_every_plot(default_run) -> None:
    r, out = default_run
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["index.html", "summary.json", "summary.md"]
    # Progress named every step on stderr, and no traceback anywhere.
    for i, step in enumerate(("load", "agreement", "rules", "signals", "tune", "moves", "plots", "write"), 1):
        assert f"step {i}/8 {step}" in r.stderr
    assert "Traceback" not in r.stderr
    html = (out / "index.html").read_text(encoding="utf-8")
    pngs = _pngs(html)
    assert html.count("data:image/png;base64,") == len(PLOTS)
    assert [name for name, _ in pngs] == [
        "agreement-trend", "confusion", "rule-bars", "recognition-trend", "signal-lift", "backtest", "bucket-moves"]
    for name, png in pngs:
        assert png[:8] == b"\x89PNG\r\n\x1a\n", name
        assert png[12:16] == b"IHDR", name
        width, height = struct.unpack(">II", png[16:24])
        assert width >= 500 and height >= 200, (name, width, height)
    # Self-contained: nothing is fetched when the page opens.
    assert "<script" not in html
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "<link" not in html


def test_key_numbers_on_the_page_equal_summary_json(default_run) -> None:
    _r, out = default_run
    html = (out / "index.html").read_text(encoding="utf-8")
    s = json.loads((out / "summary.json").read_text())
    assert 0.3 < s["agreement"]["rate"] < 1.0 and s["agreement"]["n"] > 500
    assert _key_text(html, "agreement") == _rate(s["agreement"])
    assert _key_text(html, "recognition") == _rate(s["recognition"])
    assert _key_text(html, "opt_out") == _rate(s["opt_out"])
    assert _key_text(html, "events") == f"{s['events']['classified']:,}"
    assert s["events"]["classified"] == sum(s["events"]["by_taxonomy"].values())
    assert _key_text(html, "quarantined") == f"{s['quarantine']['lines']:,}"
    assert _key_text(html, "changes") == f"{s['changes']:,}"
    assert _key_text(html, "preexec.override") == _rate(s["preexec"]["override"])
    assert set(s["taxonomies"]) == {"replay", "regen"}
    for tax, t in s["taxonomies"].items():
        assert _key_text(html, f"{tax}.agreement") == _rate(t["agreement"])
        assert _key_text(html, f"{tax}.kappa") == f"{t['kappa']:.2f}"
        assert _key_text(html, f"{tax}.macro_f1") == f"{t['macro_f1']:.2f}"
        assert _key_text(html, f"{tax}.recognition") == _rate(t["recognition"])
        assert _key_text(html, f"{tax}.changes") == str(len(t["changes"]))
        if t["misleading_signals"]:
            text = _table_text(html, f"{tax}.misleading_signals")
            for sig in t["misleading_signals"]:
                assert sig["signal"] in text and _rate(sig["match"]) in text
        if t["changes"]:
            text = _table_text(html, f"{tax}.changes")
            for c in t["changes"]:
                assert c["summary"] in text
        if t["watch"]:
            text = _table_text(html, f"{tax}.watch")
            for c in t["watch"]:
                assert c["summary"] in text
    # The simulator planted defects: something must be found and proposed.
    assert s["changes"] >= 1
    assert any(t["misleading_signals"] for t in s["taxonomies"].values())
    # The simulator writes a messy file: its bad lines are quarantined by reason.
    assert s["quarantine"]["lines"] == sum(s["quarantine"]["by_reason"].values()) > 0
    text = _table_text(html, "quarantine")
    for reason, n in s["quarantine"]["by_reason"].items():
        assert re.search(rf"{re.escape(reason)}\s+{n}\b", text), (reason, n)
    md = (out / "summary.md").read_text()
    assert _rate(s["agreement"]) in md and "## Quarantined lines" in md


def test_summary_numbers_equal_the_library_on_the_same_files(default_run, checkout: Path) -> None:
    from failtax.analysis import measure_agreement
    from failtax.telemetry import load

    _r, out = default_run
    s = json.loads((out / "summary.json").read_text())
    with load(str(checkout / "data")) as tel:
        decisions = tel.decisions.pl()
        quarantine = dict(tel.sql("SELECT reason, count(*) FROM quarantine GROUP BY reason").fetchall())
    rep = measure_agreement(decisions, taxonomy=["replay", "regen"], slices=("taxonomy",))
    ov = rep.overall.row(0, named=True)
    assert (s["agreement"]["k"], s["agreement"]["n"]) == (ov["n_agree"], ov["n_rated"])
    for sc in rep.scores:
        assert s["taxonomies"][sc.taxonomy]["kappa"] == pytest.approx(sc.kappa, abs=1e-12)
        assert s["taxonomies"][sc.taxonomy]["macro_f1"] == pytest.approx(sc.macro_f1, abs=1e-12)
    assert s["quarantine"]["by_reason"] == quarantine
    # the simulator writes only its taxonomies' values, and a few resolutions whose
    # classified event it left out
    assert s["data_quality"]["unknown_values"] == []
    fam = {"replay": "replay", "regen": "regen"}
    with load(str(checkout / "data")) as tel:
        orphans = dict(tel.sql("SELECT family, count(*) FROM orphan_resolutions GROUP BY 1").fetchall())
    assert s["data_quality"]["orphan_resolutions"] == {fam[f]: n for f, n in orphans.items() if f in fam} != {}
    html = (out / "index.html").read_text(encoding="utf-8")
    for tax, n in s["data_quality"]["orphan_resolutions"].items():
        assert f"{tax} {n:,}" in _key_text(html, "orphan_resolutions")
    assert "defines" in _key_text(html, "unknown_values")
    pre = decisions.filter(decisions["taxonomy"] == "preexec")
    assert s["preexec"]["override"]["n"] == pre.height
    assert s["preexec"]["override"]["k"] == int((pre["decided"] & (pre["agree"] == False)).sum())  # noqa: E712


def test_fail_under_exits_1_above_the_agreement_and_0_below(default_run, checkout: Path, tmp_path: Path) -> None:
    _r, out = default_run
    replay = json.loads((out / "summary.json").read_text())["taxonomies"]["replay"]["agreement"]
    # rounded to the digits given on the command line, so the message shows this very number
    above = round(min(replay["rate"] + 0.005, 1.0), 4)
    r = _run(["report", "--taxonomy", "replay", "--fail-under", f"{above:.4f}", "--out", str(tmp_path / "a"),
              "--no-progress"], checkout)
    assert r.returncode == 1, r.stderr
    assert f"--fail-under {_pct(above)}" in r.stderr and "check failed" in r.stderr
    s = json.loads((tmp_path / "a" / "summary.json").read_text())  # the report is written all the same
    assert (s["agreement"]["k"], s["agreement"]["n"]) == (replay["k"], replay["n"])  # one taxonomy: its own rate
    assert s["checks"]["failed_keys"] == ["agreement"]
    assert "Check failed" in (tmp_path / "a" / "index.html").read_text()
    assert r.stderr.count("step ") == 0  # --no-progress

    # Below the agreement it passes; this time from a database built by `failtax load`, on
    # the last three weeks (the library's numbers for them).
    from failtax.analysis import measure_agreement
    from failtax.telemetry import connect

    db = tmp_path / "telemetry.duckdb"
    r = _run(["load", "data", "--db", str(db)], checkout)
    assert r.returncode == 0, r.stderr
    with connect(db) as tel:
        ov = measure_agreement(tel.decisions.pl(), taxonomy=["replay"], since="2026-10-12").overall.row(0, named=True)
    assert 0 < ov["n_rated"] < replay["n"]
    below = round(max(ov["n_agree"] / ov["n_rated"] - 0.005, 0.0), 4)
    r = _run(["report", "--db", str(db), "--taxonomy", "replay", "--since", "2026-10-12", "--fail-under",
              f"{below:.4f}", "--min-recognition", "0.5", "--out", str(tmp_path / "b"), "--no-progress"], checkout)
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert s["checks"]["ok"] and len(s["checks"]["passed"]) == 2
    assert (s["agreement"]["k"], s["agreement"]["n"]) == (ov["n_agree"], ov["n_rated"])
    assert s["inputs"]["db"] == str(db.resolve()) and s["inputs"]["telemetry"] == []


def test_a_glob_matching_nothing_exits_2_with_a_message(checkout: Path, tmp_path: Path) -> None:
    r = _run(["report", "--telemetry", str(tmp_path / "nowhere" / "*.jsonl"), "--out", str(tmp_path / "r")], checkout)
    assert r.returncode == 2
    assert "report step 'load'" in r.stderr and "matched no telemetry files" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "r").exists()


def test_a_failing_run_leaves_the_previous_report_intact(default_run, checkout: Path, tmp_path: Path) -> None:
    _r, out = default_run
    before = _tree(out)
    bad_db = tmp_path / "not-a-database.duckdb"
    bad_db.write_text("this is not a DuckDB file\n")
    r = _run(["report", "--db", str(bad_db), "--out", str(out), "--no-progress"], checkout)
    assert r.returncode == 2, r.stderr
    assert "report step 'load'" in r.stderr and "Traceback" not in r.stderr
    assert _tree(out) == before


def test_a_run_killed_midway_leaves_the_previous_report_intact(default_run, checkout: Path) -> None:
    _r, out = default_run
    before = _tree(out)
    # The pre-execution decisions of the last two weeks only: quick, and still every step.
    proc = subprocess.Popen([*CMD, "report", "--taxonomy", "preexec", "--since", "2026-10-19", "--out", str(out)],
                            cwd=checkout,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    seen = []
    try:
        deadline = time.monotonic() + 180
        for line in proc.stderr:
            seen.append(line)
            if "step 7/8 plots" in line:  # everything computed, nothing written yet
                proc.send_signal(signal.SIGKILL)
                break
            assert time.monotonic() < deadline, "the report never reached its plots step"
    finally:
        proc.kill()
        proc.wait()
    assert any("step 7/8 plots" in s for s in seen), "".join(seen)
    assert proc.returncode == -signal.SIGKILL
    assert _tree(out) == before
    assert not list(out.parent.glob(".report.*"))  # no half-written folder left beside it either


def test_a_step_that_fails_is_named_with_exit_3(checkout: Path, tmp_path: Path) -> None:
    # A fault inside a step (here the write, so every step runs first: the quickest report
    # that has them all), injected into a real run of the command.
    fault = ("import failtax.report.build as b\n"
             "def broken(*a, **k): raise RuntimeError('disk controller on fire')\n"
             "b._write_atomically = broken\n"
             "from failtax.cli import main; main()")
    r = subprocess.run([sys.executable, "-c", fault, "report", "--taxonomy", "preexec", "--since", "2026-10-19",
                        "--out", str(tmp_path / "report")], cwd=checkout, capture_output=True, text=True, timeout=240,
                       env={**os.environ, "NO_COLOR": "1"})
    assert r.returncode == 3, r.stderr
    assert all(f"step {i}/8" in r.stderr for i in range(1, 9)), r.stderr
    assert "failtax: report step 'write' failed: RuntimeError: disk controller on fire" in r.stderr
    assert "Traceback" not in r.stderr


def test_an_output_folder_that_cannot_be_made_is_bad_input_said_before_the_steps(checkout: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    r = _run(["report", "--taxonomy", "preexec", "--out", str(blocker / "report")], checkout)
    assert r.returncode == 2, r.stderr
    assert f"failtax: error: report step 'write': {blocker / 'report'}: {blocker} is a file, not a folder" in r.stderr
    assert "step 1/8" not in r.stderr and "Traceback" not in r.stderr
    assert blocker.read_text() == "not a folder\n"


def test_report_help_documents_options_and_exit_codes() -> None:
    r = subprocess.run([*CMD, "report", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    for opt in ("--telemetry", "--db", "--taxonomy", "--since", "--out", "--fail-under", "--min-recognition",
                "--no-progress", "Exit codes"):
        assert opt in r.stdout


def test_parallel_fits_equal_fits_in_this_process(checkout: Path) -> None:
    from failtax.report import load_decisions
    from failtax.report.tuning import fit_tuners_and_backtests

    decisions = load_decisions(telemetry=str(checkout / "data"), taxonomy="replay").decisions
    serial = fit_tuners_and_backtests(decisions, taxonomies=["replay"], n_cutoffs=1, n_jobs=1)
    workers = fit_tuners_and_backtests(decisions, taxonomies=["replay"], n_cutoffs=1, n_jobs=2, min_rows_parallel=0)
    assert workers[0]["replay"].table_ == serial[0]["replay"].table_
    assert [str(c) for c in workers[0]["replay"].watch_] == [str(c) for c in serial[0]["replay"].watch_]
    assert workers[1] == serial[1]
    assert len(serial[1]["replay"]["cutoffs"]) == 1 and serial[0]["replay"].changes_


def test_the_proposed_table_fixes_the_planted_misleading_signal(default_run, checkout: Path) -> None:
    _r, out = default_run
    s = json.loads((out / "summary.json").read_text())
    truth = json.loads((checkout / "data" / "truth.json").read_text())
    planted = next(d for d in truth["defects"] if d["kind"] == "misleading-signal" and d["taxonomy"] == "replay")
    table = out / "tables" / "replay.toml"
    assert table.exists() and s["taxonomies"]["replay"]["changes"]
    assert f'version = "{s["taxonomies"]["replay"]["table"]["proposed_version"]}"' in table.read_text()
    line = json.dumps({"id": "x", "signals": [planted["signal"]]}) + "\n"
    for tbl, want in ((["--table", str(table)], planted["true_bucket"]), ([], planted["table_bucket"])):
        r = subprocess.run([*CMD, "classify", "--taxonomy", "replay", *tbl], input=line, capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["bucket"] == want


def test_a_failing_fit_worker_is_reported_with_its_reason(checkout: Path) -> None:
    from failtax.report import load_decisions
    from failtax.report.tuning import fit_tuners_and_backtests

    decisions = load_decisions(telemetry=str(checkout / "data"), taxonomy="replay").decisions.drop("user_action")
    with pytest.raises(RuntimeError, match="a fitting worker failed: .*user_action"):
        fit_tuners_and_backtests(decisions, taxonomies=["replay"], n_cutoffs=1, n_jobs=2, min_rows_parallel=0)


def test_a_window_of_one_week_with_no_decision_is_reported_as_such(tmp_path: Path) -> None:
    """One classified event, never decided: the window is "1 week", agreement is n/a with
    n=0, and --fail-under fails the check naming n/a rather than a made-up rate."""
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps({
        "ts": "2026-01-01T00:00:00.000Z", "eventType": "replay-failure-classified", "skillName": "muggle-test",
        "aiClassification": "infra", "aiSuggestion": "report-bug", "runId": "r1", "testCaseId": "t1",
        "signals": ["electron-crash"]}) + "\n")
    out = tmp_path / "report"
    r = _run(["report", "--telemetry", str(events), "--out", str(out), "--fail-under", "0.5"], tmp_path)
    assert r.returncode == 1, r.stderr
    assert "agreement n/a < --fail-under 50.0%" in r.stderr
    md = (out / "summary.md").read_text()
    assert "2026-01-01 to 2026-01-01 (1 week)" in md and "| agreement | n/a (n=0) |" in md
    assert "(1 week) · source:" in (out / "index.html").read_text()
