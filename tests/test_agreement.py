"""Agreement metrics: hand-computed values on a tiny fixture, scikit-learn parity,
invariances, every input kind, pre-execution overrides and the `failtax agreement` CLI."""

from __future__ import annotations

import json
import subprocess
import warnings
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.metrics import cohen_kappa_score as sk_kappa
from sklearn.metrics import confusion_matrix as sk_confusion
from sklearn.metrics import f1_score as sk_f1

import failtax
from failtax.analysis import (
    age_band,
    cohen_kappa_score,
    confusion_matrix,
    macro_f1_score,
    measure_agreement,
    score_labels,
    summarize_agreement,
    summarize_latency,
    summarize_preexec_overrides,
)
from failtax.analysis.stats import wilson_interval
from failtax.errors import InputError

FIX = Path(__file__).parent / "fixtures" / "analysis"
REPLAY = ("infra", "stale-script", "product-defect")

_SCHEMA = {
    "event_id": pl.String, "family": pl.String, "taxonomy": pl.String, "ts": pl.String,
    "resolved_ts": pl.String, "week": pl.String, "skill": pl.String, "project_id": pl.String,
    "run_id": pl.String, "test_case_id": pl.String, "ai_bucket": pl.String, "ai_suggestion": pl.String,
    "signals": pl.List(pl.String), "user_action": pl.String, "implied_bucket": pl.String,
    "decided": pl.Boolean, "opt_out": pl.Boolean, "agree": pl.Boolean, "latency_s": pl.Float64,
    "text": pl.String, "metadata": pl.String,
}


def load_fixture(name: str) -> pl.DataFrame:
    """A decisions fixture (JSON Lines with the contract's columns) as polars."""
    df = pl.read_ndjson(FIX / name, schema=_SCHEMA)
    return df.with_columns(
        pl.col("ts").str.to_datetime(time_unit="us"),
        pl.col("resolved_ts").str.to_datetime(time_unit="us"),
        pl.col("week").str.to_date(),
    )


@pytest.fixture
def tiny() -> pl.DataFrame:
    return load_fixture("tiny_replay.jsonl")


def _f(x: Fraction) -> float:
    return float(x)


# --------------------------------------------------------------------------- hand-computed


def test_overall_rates_equal_hand_counts(tiny):
    row = summarize_agreement(tiny, min_count=4).row(0, named=True)
    # rated (agree not NULL): e01 e02 e03 e04 e06 e07 e09 e10; agree: e01 e03 e06 e09
    assert (row["n_events"], row["n_decided"], row["n_rated"], row["n_agree"]) == (10, 9, 8, 4)
    assert row["agreement_rate"] == _f(Fraction(4, 8))
    # decided: all but e08; opt-outs: e05
    assert (row["n_opt_out"], row["opt_out_rate"]) == (1, _f(Fraction(1, 9)))
    assert row["n_labelled"] == 7
    lo, hi = wilson_interval(4, 8)
    assert (row["agreement_low"], row["agreement_high"]) == (lo, hi)
    assert row["low_count"] is False


def test_wilson_interval_by_formula():
    # p = 1/2, n = 8, z = 1.959963984540054
    z = 1.959963984540054
    p, n = 0.5, 8
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert wilson_interval(4, 8) == pytest.approx((centre - half, centre + half), abs=1e-15)


def test_slices_equal_hand_counts(tiny):
    skill = {r["skill"]: r for r in summarize_agreement(tiny, by="skill", min_count=4).iter_rows(named=True)}
    assert skill["a"]["agreement_rate"] == _f(Fraction(2, 4)) and skill["a"]["opt_out_rate"] == _f(Fraction(1, 5))
    assert skill["b"]["agreement_rate"] == _f(Fraction(2, 4)) and skill["b"]["opt_out_rate"] == 0.0
    bucket = {r["ai_bucket"]: r for r in summarize_agreement(tiny, by="bucket", min_count=4).iter_rows(named=True)}
    assert bucket["infra"]["agreement_rate"] == _f(Fraction(1, 3))
    assert bucket["infra"]["low_count"] is True  # 3 rated < 4: flagged, still there
    assert bucket["stale-script"]["agreement_rate"] == _f(Fraction(2, 3))
    assert bucket["stale-script"]["opt_out_rate"] == _f(Fraction(1, 4))
    assert bucket["product-defect"]["agreement_rate"] == _f(Fraction(1, 2))
    sig = {r["signal"]: r for r in summarize_agreement(tiny, by="signal", min_count=1).iter_rows(named=True)}
    assert sig["element-not-found"]["n_rated"] == 3 and sig["element-not-found"]["agreement_rate"] == _f(Fraction(2, 3))
    assert sig["selector-timeout"]["agreement_rate"] == 0.0 and sig["selector-timeout"]["opt_out_rate"] == 0.5
    assert sig["chromium-error"]["agreement_rate"] == 0.0
    assert sig[None]["n_events"] == 1  # e07 has no signal: counted under a NULL signal
    week = summarize_agreement(tiny, by="week", min_count=1)
    assert week["agreement_rate"].to_list() == [_f(Fraction(3, 5)), _f(Fraction(1, 3))]
    project = {r["project_id"]: r for r in summarize_agreement(tiny, by="project").iter_rows(named=True)}
    assert project[None]["n_events"] == 2  # absent project ids are a slice of their own


def test_label_scores_equal_hand_values(tiny):
    s = score_labels(tiny, taxonomy="replay")
    assert s.labels == REPLAY and s.n == 7
    assert s.accuracy == _f(Fraction(4, 7))
    # F1: infra 2*1/(1+3) = 1/2, stale 2*2/(3+3) = 2/3, product-defect 2*1/(3+1) = 1/2
    assert s.macro_f1 == pytest.approx(_f((Fraction(1, 2) + Fraction(2, 3) + Fraction(1, 2)) / 3), abs=1e-15)
    # po = 4/7, pe = (3*1 + 3*3 + 1*3)/49 = 15/49, kappa = (4/7 - 15/49)/(1 - 15/49) = 13/34
    assert s.kappa == pytest.approx(_f(Fraction(13, 34)), abs=1e-15)
    # rows: AI bucket, columns: implied bucket
    assert s.confusion == ((1, 1, 1), (0, 2, 1), (0, 0, 1))
    cf = s.confusion_frame()
    assert cf.columns == ["ai_bucket", *REPLAY]
    assert cf.row(0) == ("infra", 1, 1, 1)


def test_latency_equal_hand_values(tiny):
    rows = {r[0]: r[1:] for r in summarize_latency(tiny, by_taxonomy=False).rows()}
    # agree: 10 20 25 30 -> median 22.5, p90 at 2.7 -> 25 + 0.7*5
    assert rows["agree"] == (4, 22.5, pytest.approx(28.5))
    # override: 40 50 60 80 -> median 55, p90 -> 60 + 0.7*20
    assert rows["override"] == (4, 55.0, pytest.approx(74.0))
    assert rows["opt-out"] == (1, 5.0, 5.0)


def test_report_bundles_everything_and_serialises(tiny):
    r = measure_agreement(tiny, min_count=4)
    assert r.taxonomies == ("replay",)
    assert set(r.slices) == {"taxonomy", "family", "bucket", "skill", "project", "signal", "week"}
    d = json.loads(json.dumps(r.to_dict()))
    assert d["overall"]["agreement_rate"] == 0.5
    assert d["scores"][0]["confusion"]["matrix"] == [[1, 1, 1], [0, 2, 1], [0, 0, 1]]
    assert d["slices"]["week"][0]["week"] == "2026-09-07"


def test_since_filters_by_classified_time(tiny):
    row = summarize_agreement(tiny, since="2026-09-14").row(0, named=True)
    assert row["n_events"] == 4 and row["agreement_rate"] == _f(Fraction(1, 3))


# --------------------------------------------------------------------------- scikit-learn parity


@pytest.mark.parametrize("seed", range(30))
def test_metrics_match_sklearn_exactly(seed):
    rng = np.random.default_rng(seed)
    labels = ["a", "b", "c", "d"]
    n = int(rng.integers(2, 300))
    k = int(rng.integers(2, 5))
    y_true = rng.choice(labels[:k], n).tolist()
    y_pred = rng.choice(labels[:k], n).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns about labels absent from both
        expected_f1 = sk_f1(y_true, y_pred, average="macro", labels=labels)
    assert macro_f1_score(y_true, y_pred, labels=labels) == expected_f1
    assert cohen_kappa_score(y_true, y_pred, labels=labels) == sk_kappa(y_true, y_pred, labels=labels)
    assert cohen_kappa_score(y_true, y_pred) == sk_kappa(y_true, y_pred)
    assert (confusion_matrix(y_true, y_pred, labels=labels) == sk_confusion(y_true, y_pred, labels=labels)).all()


def test_label_scores_match_sklearn_on_fixture(tiny):
    lab = tiny.filter(pl.col("implied_bucket").is_not_null())
    s = score_labels(tiny, taxonomy="replay")
    yt, yp = lab["implied_bucket"].to_list(), lab["ai_bucket"].to_list()
    assert s.macro_f1 == sk_f1(yt, yp, average="macro", labels=list(REPLAY))
    assert s.kappa == sk_kappa(yt, yp, labels=list(REPLAY))
    assert np.array_equal(np.array(s.confusion), sk_confusion(yt, yp, labels=list(REPLAY)).T)


def test_absent_bucket_is_a_zero_row_and_scores_zero():
    df = pl.DataFrame({"taxonomy": ["replay"] * 4, "ai_bucket": ["infra", "infra", "stale-script", "stale-script"],
                       "implied_bucket": ["infra", "infra", "stale-script", "stale-script"]})
    s = score_labels(df, taxonomy="replay")
    assert s.confusion[2] == (0, 0, 0)
    assert s.macro_f1 == _f(Fraction(2, 3))  # as scikit-learn: the absent label scores 0
    assert s.kappa == 1.0


# --------------------------------------------------------------------------- invariances


def test_row_order_does_not_change_anything(tiny):
    shuffled = tiny.sample(fraction=1.0, shuffle=True, seed=3)
    a, b = measure_agreement(tiny), measure_agreement(shuffled)
    assert a.to_dict() == b.to_dict()


def test_perfect_agreement_scores_one():
    buckets = list(REPLAY) * 5
    actions = {"infra": "report-bug", "stale-script": "regenerate", "product-defect": "share-email"}
    df = pl.DataFrame({
        "taxonomy": ["replay"] * 15, "family": ["replay"] * 15, "ai_bucket": buckets,
        "implied_bucket": buckets, "user_action": [actions[b] for b in buckets],
        "decided": [True] * 15, "opt_out": [False] * 15, "agree": [True] * 15, "latency_s": [1.0] * 15,
    })
    r = measure_agreement(df, slices=["bucket"])
    assert r.overall["agreement_rate"][0] == 1.0
    assert (r.scores[0].macro_f1, r.scores[0].kappa, r.scores[0].accuracy) == (1.0, 1.0, 1.0)


def test_kappa_is_symmetric_and_invariant_to_label_names():
    rng = np.random.default_rng(5)
    a = rng.choice(["x", "y", "z"], 200).tolist()
    b = rng.choice(["x", "y", "z"], 200).tolist()
    ren = {"x": "q", "y": "r", "z": "s"}
    assert cohen_kappa_score(a, b) == pytest.approx(cohen_kappa_score(b, a), abs=1e-15)
    assert cohen_kappa_score(a, b) == pytest.approx(cohen_kappa_score([ren[v] for v in a], [ren[v] for v in b]), abs=1e-15)


# --------------------------------------------------------------------------- inputs


def test_every_input_kind_gives_the_same_answer(tiny, tmp_path):
    expected = measure_agreement(tiny).to_dict()
    assert measure_agreement(tiny.lazy()).to_dict() == expected
    assert measure_agreement(tiny.to_arrow()).to_dict() == expected
    pdf = tiny.to_pandas()
    assert isinstance(pdf, pd.DataFrame)
    assert measure_agreement(pdf).to_dict() == expected
    con = duckdb.connect(str(tmp_path / "d.duckdb"))
    con.register("t", tiny.to_arrow())
    con.execute("CREATE TABLE decisions AS SELECT * EXCLUDE (metadata), metadata::JSON AS metadata FROM t")
    assert measure_agreement(con.table("decisions")).to_dict() == expected
    con.close()


def test_missing_column_is_named(tiny):
    with pytest.raises(InputError, match=r"missing column\(s\) 'agree'"):
        summarize_agreement(tiny.drop("agree"))
    with pytest.raises(InputError, match="unknown slice 'colour'"):
        summarize_agreement(tiny, by="colour")
    with pytest.raises(InputError, match="'decided' should be boolean, found string"):
        summarize_agreement(tiny.with_columns(pl.col("decided").cast(pl.String)))
    with pytest.raises(InputError, match="expected a DuckDB relation"):
        summarize_agreement([{"agree": True}])


# --------------------------------------------------------------------------- pre-execution


def _preexec_rows():
    # (rule signal, ai mode, age days, overridden)
    spec = [
        ("rule-1-no-script", "regen", None, False),
        ("rule-1-no-script", "regen", None, True),
        ("rule-2-ui-changed", "regen", 3, False),
        ("rule-3-stale-30d", "regen", 45, True),
        ("rule-3-stale-30d", "regen", 90, False),
        ("rule-4-default-replay", "replay", 7, False),
        ("rule-4-default-replay", "replay", 8, True),
        ("rule-4-default-replay", "replay", 14, True),
        ("rule-4-default-replay", "replay", 30, False),
        ("rule-4-default-replay", "replay", 29.5, True),
    ]
    other = {"regen": "replay", "replay": "regen"}
    return pl.DataFrame({
        "taxonomy": ["preexec"] * len(spec),
        "signals": [[s[0]] for s in spec],
        "ai_bucket": [s[1] for s in spec],
        "metadata": [json.dumps({"lastPassedAgeDays": s[2]}) for s in spec],
        "decided": [s[3] for s in spec],
        "user_action": [other[s[1]] if s[3] else None for s in spec],
        "agree": [False if s[3] else None for s in spec],
    })


def test_preexec_override_rates_by_rule_and_age():
    r = summarize_preexec_overrides(_preexec_rows(), min_count=1)
    by_rule = {row[0]: row[2:5] for row in r.by_rule.select("rule", "ai_bucket", "n_events", "n_override", "override_rate").rows()}
    assert by_rule["rule-1-no-script"] == (2, 1, 0.5)
    assert by_rule["rule-4-default-replay"] == (5, 3, _f(Fraction(3, 5)))
    bands = {row[0]: row[1:] for row in r.by_age_band.filter(pl.col("ai_bucket") == "replay").select(
        "age_band", "n_events", "n_override").rows()}
    assert bands == {"0-7": (1, 0), "8-14": (2, 2), "15-30": (2, 1)}
    assert r.by_age_band.select("age_band", "ai_bucket").rows() == [
        ("0-7", "regen"), ("0-7", "replay"), ("8-14", "replay"), ("15-30", "replay"), ("31-60", "regen"),
        (">60", "regen"), ("unknown", "regen")]
    modes = dict(r.by_mode.select("ai_bucket", "override_rate").rows())
    assert modes == {"regen": _f(Fraction(2, 5)), "replay": _f(Fraction(3, 5))}
    assert r.n_events == 10


def test_age_band_edges():
    assert [age_band(x) for x in (0, 7, 7.01, 14, 15, 30, 30.5, 60, 60.5)] == [
        "0-7", "0-7", "8-14", "8-14", "15-30", "15-30", "31-60", "31-60", ">60"]
    assert age_band(float("nan")) == "unknown"


# --------------------------------------------------------------------------- CLI


EVENTS = FIX / "tiny_replay_events.jsonl"  # the telemetry the tiny fixture's decisions come from


def test_loader_gives_the_fixture_decisions(tiny):
    from failtax.telemetry import load

    with load(str(EVENTS)) as tel:
        loaded = tel.decisions.pl()
    cols = ["ts", "week", "ai_bucket", "ai_suggestion", "signals", "user_action", "implied_bucket", "decided",
            "opt_out", "agree", "latency_s", "text"]
    assert loaded.sort("ts").select(cols).equals(tiny.sort("ts").select(cols))
    assert measure_agreement(loaded).to_dict()["scores"] == measure_agreement(tiny).to_dict()["scores"]


def test_a_loaded_telemetry_is_taken_as_its_decisions(tmp_path):
    """What ``load`` returns can be handed on as it is: every analysis and tuning entry
    point reads its ``decisions`` relation and answers as with ``tel.decisions``; an input
    the database holds no single relation for is named with what to pass instead."""
    from failtax.analysis.loops import find_retry_streaks
    from failtax.telemetry import load

    with load(str(EVENTS), db=tmp_path / "t.duckdb") as tel:
        rel = tel.decisions
        assert measure_agreement(tel).to_dict() == measure_agreement(rel).to_dict()
        assert (failtax.find_misleading_signals(tel, taxonomy="replay").to_dict()
                == failtax.find_misleading_signals(rel, taxonomy="replay").to_dict())
        assert failtax.diagnose_rules(tel, taxonomy="replay").to_dict() == failtax.diagnose_rules(
            rel, taxonomy="replay").to_dict()
        tuned = failtax.TableTuner(taxonomy="replay", cv=None).fit(tel)
        assert tuned.n_events_ > 0
        assert tuned.changes_ == failtax.TableTuner(taxonomy="replay", cv=None).fit(rel).changes_
        with pytest.raises(InputError, match="retry log: got a whole Telemetry database; pass one of its relations"):
            find_retry_streaks(tel)


def _db(tmp_path: Path) -> Path:
    from failtax.telemetry import load

    path = tmp_path / "telemetry.duckdb"
    load(str(EVENTS), db=path).close()
    return path


def test_cli_agreement_json_and_table(tmp_path, failtax_cmd):
    db = _db(tmp_path)
    out = subprocess.run([*failtax_cmd, "agreement", "--db", str(db), "--json", "--min-count", "4", "--rules"],
                         capture_output=True, text=True, check=True)
    d = json.loads(out.stdout)
    assert d["overall"]["agreement_rate"] == 0.5
    assert d["scores"][0]["kappa"] == pytest.approx(13 / 34)
    assert d["min_count"] == 4
    bucket = {r["ai_bucket"]: r for r in d["slices"]["bucket"]}
    assert bucket["infra"]["low_count"] is True
    assert d["rules"][0]["taxonomy"] == "replay" and d["rules"][0]["n_events"] == 10
    txt = subprocess.run([*failtax_cmd, "agreement", "--telemetry", str(EVENTS), "--since", "2026-09-14"],
                         capture_output=True, text=True, check=True)
    assert "events 4, decided 3, rated 3" in txt.stdout
    assert "agreement 33.3% [" in txt.stdout and "kappa" in txt.stdout and "low n" in txt.stdout
    # one aligned row per AI bucket: taxonomy, bucket, events, rated, rate …
    rows = [ln.split() for ln in txt.stdout.splitlines() if ln.split()[:2] == ["replay", "infra"]]
    assert rows and rows[0][2:4] == ["1", "1"], txt.stdout


def test_cli_agreement_errors(tmp_path, failtax_cmd):
    bad = subprocess.run([*failtax_cmd, "agreement", "--db", str(tmp_path / "nope.duckdb")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "nope.duckdb" in bad.stderr
    none = subprocess.run([*failtax_cmd, "agreement"], capture_output=True, text=True)
    assert none.returncode == 2 and "--telemetry" in none.stderr
    date = subprocess.run([*failtax_cmd, "agreement", "--telemetry", str(EVENTS), "--since", "last week"],
                          capture_output=True, text=True)
    assert date.returncode == 2 and "ISO date" in date.stderr


# --------------------------------------------------------------------------- loops and escalations


def test_recovery_budget_escalations_and_streaks_from_loaded_telemetry():
    from failtax.analysis import summarize_loops
    from failtax.telemetry import load

    with load([str(FIX / "lifecycle.jsonl"), str(FIX / "retry.jsonl")]) as tel:
        r = summarize_loops(tel)
    rec = {row["failure_type"]: row for row in r.recoveries.iter_rows(named=True)}
    # compile: recovered once, failed again, a second attempt the budget refuses, escalated
    c = rec["compile"]
    assert (c["n_classified"], c["n_attempts"], c["n_over_budget"], c["n_scopes"]) == (2, 2, 1, 1)
    assert (c["n_recovered"], c["n_escalated"], c["budget_spent_rate"]) == (1, 1, 1.0)
    # test: two scopes, one spent its attempt (degraded), one never tried
    t = rec["test"]
    assert (t["n_classified"], t["n_scopes"], t["n_scopes_attempted"], t["budget_spent_rate"]) == (4, 2, 1, 0.5)
    assert (t["n_degraded"], t["n_escalated"], t["n_over_budget"]) == (1, 0, 0)
    # infra is never automatic (seed 001): its one attempt is over budget
    assert (rec["infra"]["auto_recoverable"], rec["infra"]["n_over_budget"]) == (False, 1)
    assert (rec["trust_gate"]["n_attempts"], rec["trust_gate"]["n_escalated"]) == (0, 1)
    esc = r.escalations.select("failure_type", "attempts_before", "auto_recoverable").rows()
    assert esc == [("compile", 2, True), ("trust_gate", 0, False), ("infra", 1, False)]
    assert r.escalations["reason"][1] == "secret detected: needs human review"
    assert r.failure_streaks.select("key", "scope", "length", "past_stop").rows() == [
        ("test", "s3", 3, True), ("compile", "s1", 2, False)]
    # retry logs: the same test red three rounds in a row went past the stop at two;
    # a must-fix that came back after another one is no streak
    assert r.retry_streaks.select("kind", "key", "scope", "length", "past_stop").rows() == [
        ("test", "tests/a.py::test_x", "run=r1", 3, True)]
    json.dumps(r.to_dict())


# --------------------------------------------------------------------------- docs


@pytest.mark.parametrize("module", ["agreement", "frames", "labels", "loops", "preexec", "quality", "reclassify",
                                    "render", "rules", "signals", "stats"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module(f"failtax.analysis.{module}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
