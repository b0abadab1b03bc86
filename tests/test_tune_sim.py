"""The tuner on `failtax simulate` telemetry: every planted defect fixed, nothing else, no churn."""

from __future__ import annotations

import functools
import json
from datetime import date, datetime, timedelta
from pathlib import Path

import polars as pl
import pytest

from failtax.classify import classify
from failtax.tune import TableTuner, backtest, export_table


@functools.lru_cache(maxsize=None)
def simulated(tmp: str, taxonomy: str, seed: int, clean: bool) -> tuple[pl.DataFrame, dict]:
    """Telemetry written by the simulator and loaded by the loader: decisions and truth.json."""
    from failtax.telemetry import load
    from failtax.telemetry.simulate import simulate

    out = Path(tmp) / f"{taxonomy}-{seed}-{clean}"
    simulate(out, events=3000, weeks=12, seed=seed, taxonomy=taxonomy, clean=clean)
    truth = json.loads((out / "truth.json").read_text())
    tel = load(str(out / "failure-events.jsonl"), progress=False)
    try:
        dec = tel.decisions.pl().filter(pl.col("taxonomy") == taxonomy)
    finally:
        tel.close()
    defects = truth.get("defects", [])
    if isinstance(defects, dict):  # one entry per taxonomy when several were simulated
        defects = defects.get(taxonomy, [])
    return dec, {**truth, "defects": [d for d in defects if d.get("taxonomy", taxonomy) == taxonomy]}


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("simulated"))


def bucket(table, taxonomy: str, signals: list[str]) -> str:
    return classify({"signals": signals}, taxonomy=taxonomy, table=table).bucket


@pytest.mark.parametrize(("taxonomy", "seed"), [("replay", 3), ("regen", 5)])
def test_exported_table_fixes_every_planted_defect_and_nothing_else(tmp, tmp_path, taxonomy, seed):
    dec, truth = simulated(tmp, taxonomy, seed, False)
    kinds = sorted(d["kind"] for d in truth["defects"])
    assert kinds == ["drift", "misleading-signal", "missing-signal", "rule-too-early"]
    tuner = TableTuner(taxonomy, cv=None).fit(dec)
    table = export_table(tuner, tmp_path / "tuned.toml", decisions=dec).table
    base = tuner.base_table_
    for d in truth["defects"]:
        signals = [d["signal"], *([d["shadowed_signal"]] if d.get("shadowed_signal") else [])]
        assert bucket(table, taxonomy, signals) == d["true_bucket"], d  # drift: its latest bucket
        assert bucket(base, taxonomy, signals) != d["true_bucket"], d
    # nothing else of consequence: every other signal the tool emits keeps its bucket
    involved = {s for d in truth["defects"] for s in (d["signal"], d.get("shadowed_signal")) if s}
    emitted = {s for ss in dec["signals"].to_list() for s in ss} - involved
    assert emitted
    assert {s: bucket(table, taxonomy, [s]) for s in emitted} == {s: bucket(base, taxonomy, [s]) for s in emitted}
    assert len(tuner.changes_) == 4


@pytest.mark.parametrize(("taxonomy", "seed"), [("replay", 8), ("regen", 9)])
def test_clean_simulated_telemetry_proposes_nothing(tmp, taxonomy, seed):
    dec, truth = simulated(tmp, taxonomy, seed, True)
    assert truth["defects"] == []
    tuner = TableTuner(taxonomy, cv=None).fit(dec)
    assert tuner.changes_ == ()
    assert tuner.table_.route == tuner.base_table_.route


def test_backtest_shows_the_gain_on_later_weeks_including_the_drift(tmp):
    dec, truth = simulated(tmp, "replay", 3, False)
    drift = next(d for d in truth["defects"] if d["kind"] == "drift")
    onset = datetime.combine(date.fromisoformat(drift["from_date"]), datetime.min.time())
    # two weeks of the new meaning are enough evidence at this size (3,000 events)
    bt = backtest(dec, cutoff=onset + timedelta(weeks=2), taxonomy="replay")
    assert bt.recommend and bt.gain_low > 0
    assert any(c.signals == (drift["signal"],) and c.to_bucket == drift["true_bucket"] for c in bt.changes)
    assert all(w.after.value > w.before.value for w in bt.weekly)
