"""Export with provenance and diff; classify behaves as the diff says; replay under two tables."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import polars as pl
import pytest

from failtax.errors import TableError
from failtax.table import RouteRule, dump_table, load_table, read_table
from failtax.tune import TableTuner, export_table, replay_history
from failtax.tune.synthetic import synthetic_decisions

CLI = [sys.executable, "-c", "from failtax.cli import main; main()"]


@functools.lru_cache(maxsize=None)
def data(taxonomy: str = "replay", seed: int = 1) -> pl.DataFrame:
    return synthetic_decisions(taxonomy, n_events=3000, seed=seed, defects="all")


@functools.lru_cache(maxsize=None)
def fitted(taxonomy: str = "replay", seed: int = 1) -> TableTuner:
    return TableTuner(taxonomy, cv=None).fit(data(taxonomy, seed))


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> Path:
    """Real telemetry files written by the simulator, and a database loaded from them."""
    from failtax.telemetry import load
    from failtax.telemetry.simulate import simulate

    out = tmp_path_factory.mktemp("sim")
    simulate(out, events=2000, weeks=8, seed=4, taxonomy="replay")
    load(str(out / "failure-events.jsonl"), db=out / "t.duckdb", progress=False).close()
    return out


def test_export_writes_a_bumped_table_with_provenance(tmp_path):
    t = fitted()
    res = export_table(t, tmp_path / "replay.toml", decisions=data(), created="2026-12-01")
    assert res.path == tmp_path / "replay.toml" and res.table.version == "1.1.0"
    doc = tomllib.loads(res.path.read_text())
    prov = doc["table"]["provenance"]
    assert prov["base_version"] == "1.0.0" and prov["created"] == "2026-12-01"
    assert prov["data_from"].startswith("2026-09-07") and prov["data_to"].startswith("2026-11-29")
    assert prov["events"] == 3000 and prov["labelled"] == t.n_labelled_
    assert any(p.startswith("min_support=") for p in prov["parameters"])
    assert prov["agreement_before"].startswith(f"{t.predicted_agreement_.before.value:.4f}")
    assert len(prov["changes"]) == len(t.changes_) and all("support" in c for c in prov["changes"])
    assert prov["events_moved"] == res.replay.n_moved > 0
    # the written file reads back as the same table; the diff is the tuner's changes
    assert read_table(res.path) == res.table and dump_table(read_table(res.path)) == res.path.read_text()
    assert len(res.diff) >= len(t.changes_)
    assert {c.section for c in res.diff.changes} == {"route"}


def test_export_of_an_unchanged_table_keeps_its_version(tmp_path):
    df = synthetic_decisions("replay", n_events=1500, seed=3, defects="none")
    t = TableTuner("replay", cv=None).fit(df)
    res = export_table(t, tmp_path / "same.toml", decisions=df)
    assert res.table.version == "1.0.0" and len(res.diff) == 0 and res.replay.n_moved == 0


def test_export_refuses_a_table_with_lint_errors_and_keeps_the_old_file(tmp_path):
    base = load_table("replay")
    first = base.route[0]
    dup = RouteRule(id="copy", bucket=first.bucket, any=first.any)  # duplicate: can never decide
    bad = base.replace(route=(*base.route, dup))
    target = tmp_path / "t.toml"
    target.write_text("previous content\n")
    with pytest.raises(TableError, match="lint"):
        export_table(bad, target)
    assert target.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.toml"]  # no temporary file left


def test_classify_with_the_exported_table_moves_exactly_the_predicted_events(tmp_path):
    df = data()
    res = export_table(fitted(), tmp_path / "tuned.toml", decisions=df)
    predicted = res.replay.predicted_buckets()
    assert len(predicted) == res.replay.n_moved > 100
    moved = df.filter(pl.col("event_id").is_in(list(predicted)))
    lines = "".join(json.dumps({"id": e, "text": t, "signals": s}) + "\n"
                    for e, t, s in moved.select("event_id", "text", "signals").iter_rows())
    out = subprocess.run([*CLI, "classify", "--taxonomy", "replay", "--table", str(res.path)],
                         input=lines, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = {r["id"]: r["bucket"] for r in map(json.loads, out.stdout.splitlines())}
    assert got == predicted
    # and the shipped table still gives the old buckets
    from failtax.classify import classify

    before = {e: classify({"text": t, "signals": s}, taxonomy="replay").bucket
              for e, t, s in moved.select("event_id", "text", "signals").iter_rows()}
    old_of = dict(zip(res.replay.moved_events["event_id"], res.replay.moved_events["old_bucket"], strict=True))
    assert before == old_of


@pytest.fixture(scope="module")
def tuned(simulated) -> tuple[Path, pl.DataFrame]:
    """A table tuned on the simulated telemetry and exported, with the decisions."""
    from failtax.telemetry import load

    dec = load(str(simulated / "failure-events.jsonl"), progress=False).decisions.pl()
    return export_table(TableTuner("replay", cv=None).fit(dec), simulated / "tuned.toml").path, dec


def test_replay_history_reads_telemetry_files_and_databases(simulated, tuned):
    path, dec = tuned
    a = replay_history("replay", path, telemetry=str(simulated / "failure-events.jsonl"))
    b = replay_history("replay", path, db=simulated / "t.duckdb")
    assert a.to_dict() == b.to_dict()
    assert a.n_moved > 0 and a.gain > 0 and a.gain_low > 0
    assert sum(m.events for m in a.moved) == a.n_moved
    assert {p.bucket for p in a.per_bucket} == {"infra", "stale-script", "product-defect"}
    assert a.events == dec.filter(pl.col("taxonomy") == "replay").height


def test_cli_table_diff_replays_history(simulated, tuned):
    path, _ = tuned
    out = subprocess.run([*CLI, "table", "diff", "replay", str(path), "--db", str(simulated / "t.duckdb"), "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["changes"] and payload["replay"]["moved"]
    assert payload["replay"]["after"]["value"] > payload["replay"]["before"]["value"]
    text = str(replay_history("replay", path, telemetry=str(simulated / "failure-events.jsonl")))
    assert "events that move" in text and "agreement by bucket" in text


def test_cli_tune_prints_changes_backtest_diff_and_exports(simulated, tmp_path):
    target = tmp_path / "tuned.toml"
    out = subprocess.run([*CLI, "tune", "--taxonomy", "replay", "--db", str(simulated / "t.duckdb"),
                          "--export", str(target), "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["changes"] and payload["backtest"]["cutoff"] and payload["diff"]
    assert payload["export"]["version"] == "1.1.0" and target.exists()
    assert load_table(target).route != load_table("replay").route
    bad = subprocess.run([*CLI, "tune", "--taxonomy", "replay"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--telemetry" in bad.stderr


def test_a_hand_made_table_is_exported_with_provenance_from_the_decisions(tmp_path):
    df = data()
    base = load_table("replay")
    edited = base.replace(route=base.route[1:])  # a person removed the first route
    res = export_table(edited, tmp_path / "edited.toml", decisions=df, created="2026-12-02")
    prov = dict(res.table.provenance)
    assert res.table.version == "1.1.0" and prov["source"] == "failtax export"
    assert prov["events"] == 3000 and prov["decided"] == res.replay.decisions
    assert prov["agreement_before"].startswith(f"{res.replay.before.value:.4f}")
    assert [c.kind for c in res.diff.changes] == ["removed"]
    assert res.replay.n_moved == prov["events_moved"] > 0
