"""Misleading signals: hand-computed rates, test, lift, drift, ranking, examples and the CLI."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from fractions import Fraction
from math import comb
from pathlib import Path

import polars as pl
import pytest

from failtax.analysis import find_misleading_signals

TABLE = str(Path(__file__).parent / "fixtures" / "analysis" / "replay_small.toml")
START = dt.datetime(2026, 9, 7, 9, 0)
SUGGESTION = {"infra": "report-bug", "stale-script": "regenerate", "product-defect": "share-defect"}
ACTION = {"infra": "report-bug", "stale-script": "regenerate", "product-defect": "share-email"}
SECRET = "Authorization: Bearer abcdefghijklmnop0123456789"


def _decisions(groups, *, weeks=None) -> pl.DataFrame:
    """Rows from ``(signals, ai_bucket, [(implied, count), ...])`` groups; people act on ``implied``."""
    rows = []
    for signals, ai, outcomes in groups:
        for implied, count in outcomes:
            for _ in range(count):
                i = len(rows)
                week = (weeks(signals, implied, i) if weeks else 0)
                ts = START + dt.timedelta(weeks=week, minutes=i)
                rows.append({
                    "event_id": f"e{i:04d}", "family": "replay", "taxonomy": "replay", "ts": ts,
                    "week": (START + dt.timedelta(weeks=week)).date(), "signals": signals,
                    "ai_bucket": ai, "ai_suggestion": SUGGESTION[ai], "user_action": ACTION[implied],
                    "implied_bucket": implied, "decided": True, "opt_out": False, "agree": implied == ai,
                    "latency_s": 10.0, "run_id": f"r{i}", "test_case_id": f"t{i}",
                    "text": f"waiting for selector '#save' ({SECRET})" if signals == ["selector-timeout"] else None,
                })
    return pl.DataFrame(rows, infer_schema_length=None)


GROUPS = [
    (["selector-timeout"], "stale-script", [("product-defect", 18), ("stale-script", 2)]),
    (["element-not-found"], "stale-script", [("stale-script", 18), ("product-defect", 2)]),
    (["electron-crash"], "infra", [("infra", 20)]),
    (["hydration-mismatch"], "product-defect", [("stale-script", 20)]),
]


@pytest.fixture
def found():
    return find_misleading_signals(_decisions(GROUPS), table=TABLE, min_count=5)


def _binom_cdf(k: int, n: int, p: Fraction) -> Fraction:
    return sum((comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1)), Fraction(0))


def _row(found, signal):
    return found.signals.filter(pl.col("signal") == signal).row(0, named=True)


def test_baseline_rates_and_exact_binomial(found):
    # matches of the table's bucket: 2 + 18 + 20 + 0 of 80 labelled
    p0 = Fraction(40, 80)
    assert found.baseline == float(p0) and found.n_labelled == 80
    s = _row(found, "selector-timeout")
    assert (s["routed_rule"], s["routed_bucket"]) == ("stale-script", "stale-script")
    assert (s["n_rated"], s["n_override"], s["override_rate"]) == (20, 18, float(Fraction(9, 10)))
    assert (s["override_to"], s["n_override_to"]) == ("product-defect", 18)
    assert (s["n_labelled"], s["n_match"], s["match_rate"]) == (20, 2, float(Fraction(1, 10)))
    assert s["excess"] == pytest.approx(float(p0 - Fraction(1, 10)), abs=1e-15)
    # P[X <= 2], X ~ Binomial(20, 1/2) = (1 + 20 + 190) / 2^20
    assert _binom_cdf(2, 20, p0) == Fraction(211, 2**20)
    assert s["p_value"] == pytest.approx(211 / 2**20, rel=1e-12)
    assert s["excess_low"] == pytest.approx(float(p0) - s["match_rate_high"], abs=1e-15)
    h = _row(found, "hydration-mismatch")
    assert (h["routed_rule"], h["unrouted"], h["n_match"]) == ("fallback", True, 0)
    assert h["p_value"] == pytest.approx(float((1 - p0) ** 20), rel=1e-12)


def test_ranking_misleading_first_then_missing_route(found):
    ranked = found.signals.select("rank", "signal", "misleading", "fallback_wrong").rows()
    assert ranked[0] == (1, "selector-timeout", True, False)
    assert ranked[1] == (2, "hydration-mismatch", False, True)
    assert {r[1] for r in ranked[2:]} == {"element-not-found", "electron-crash"}
    assert not any(r[2] or r[3] for r in ranked[2:])


def test_lift_with_interval(found):
    lift = {(r["signal"], r["bucket"]): r for r in found.lift.iter_rows(named=True)}
    sel = lift[("selector-timeout", "product-defect")]
    # P(pd | selector) = 18/20, P(pd) = 20/80
    assert sel["lift"] == pytest.approx(float(Fraction(18, 20) / Fraction(20, 80)), abs=1e-12)
    assert sel["lift_low"] < sel["lift"] < sel["lift_high"]
    assert lift[("electron-crash", "infra")]["lift"] == pytest.approx(4.0)
    assert lift[("electron-crash", "stale-script")]["lift"] == 0.0
    assert found.lift.height == 4 * 3  # every signal x every bucket, absent ones as zeros


def test_examples_are_overrides_newest_first_and_redacted(found):
    ex = found.examples.filter(pl.col("signal") == "selector-timeout")
    assert ex.height == 3
    assert ex["ts"].to_list() == sorted(ex["ts"].to_list(), reverse=True)
    assert set(ex["implied_bucket"]) == {"product-defect"}
    assert all("abcdefghijklmnop0123456789" not in t and "[REDACTED:" in t for t in ex["text"])


def test_records_nest_lift_drift_examples(found):
    recs = found.to_records()
    assert [r["rank"] for r in recs] == [1, 2, 3, 4]
    assert recs[0]["signal"] == "selector-timeout" and recs[0]["taxonomy"] == "replay"
    assert len(recs[0]["lift"]) == 3 and len(recs[0]["examples"]) == 3
    json.dumps(recs)


def test_drift_found_at_the_week_it_starts():
    def weeks(signals, implied, i):
        if signals == ["element-not-found"]:
            return 0 if implied == "stale-script" else 4
        return i % 8

    groups = [
        (["element-not-found"], "stale-script", [("stale-script", 80), ("product-defect", 80)]),
        (["electron-crash"], "infra", [("infra", 160)]),
    ]
    df = _decisions(groups, weeks=weeks)
    # spread the stale-script ones over weeks 0-3 and the product-defect ones over 4-7
    df = df.with_columns(
        pl.when(pl.col("signals").list.first() == "element-not-found")
        .then(pl.col("week") + pl.duration(weeks=pl.int_range(pl.len()) % 4))
        .otherwise(pl.col("week")).alias("week")
    )
    m = find_misleading_signals(df, table=TABLE, min_count=10)
    drift = {r["signal"]: r for r in m.drift.iter_rows(named=True)}
    d = drift["element-not-found"]
    assert d["drifted"] is True
    assert d["from_week"] == (START + dt.timedelta(weeks=4)).date()
    assert (d["match_before"], d["match_after"], d["to_bucket"]) == (1.0, 0.0, "product-defect")
    assert (d["n_before"], d["n_after"]) == (80, 80)
    assert drift.get("electron-crash") is None or drift["electron-crash"]["drifted"] is False


def _pair_drift(solo_drifts: bool) -> dict:
    """element-not-found and selector-timeout seen together turn to product-defect from week 4;
    selector-timeout alone stays stale-script, or (``solo_drifts``) each alone turns as well."""
    def weeks(signals, implied, i):
        if len(signals) == 2 or solo_drifts:
            return (i % 4) + (4 if implied == "product-defect" else 0)
        return i % 8

    solo = [("stale-script", 100), ("product-defect", 100)] if solo_drifts else [("stale-script", 200)]
    groups = [
        (["element-not-found", "selector-timeout"], "stale-script", [("stale-script", 60), ("product-defect", 60)]),
        (["selector-timeout"], "stale-script", solo),
        (["electron-crash"], "infra", [("infra", 160)]),
    ] + ([(["element-not-found"], "stale-script", [("stale-script", 40), ("product-defect", 40)])] if solo_drifts else [])
    m = find_misleading_signals(_decisions(groups, weeks=weeks), table=TABLE, min_count=10)
    return {r["signal"]: r for r in m.drift.iter_rows(named=True)}


def test_a_signal_riding_along_with_a_drifted_one_has_not_drifted():
    drift = _pair_drift(solo_drifts=False)
    moved, rider = drift["element-not-found"], drift["selector-timeout"]
    assert (moved["drifted"], moved["explained_by"]) == (True, None)
    assert moved["from_week"] == (START + dt.timedelta(weeks=4)).date()
    # on its own the rider's match rate fell too (the shared events) ...
    assert rider["match_after"] < rider["match_before"] and rider["p_value"] < 1e-6
    # ... but without the events it shares with element-not-found nothing changed
    assert (rider["drifted"], rider["explained_by"]) == (False, "element-not-found")


def test_a_signal_that_drifted_on_its_own_events_too_stays_drifted():
    drift = _pair_drift(solo_drifts=True)
    for signal in ("selector-timeout", "element-not-found"):
        assert (drift[signal]["drifted"], drift[signal]["explained_by"]) == (True, None), signal


def test_row_order_does_not_change_the_ranking():
    df = _decisions(GROUPS)
    a = find_misleading_signals(df, table=TABLE, min_count=5).to_records()
    b = find_misleading_signals(df.sample(fraction=1.0, shuffle=True, seed=11), table=TABLE, min_count=5).to_records()
    assert a == b


def test_signals_under_min_count_are_never_flagged():
    m = find_misleading_signals(_decisions(GROUPS), table=TABLE, min_count=50)
    assert not m.signals["misleading"].any() and m.signals["low_count"].all()


def test_twenty_events_that_all_overrule_the_table_are_enough_by_default():
    # 18 of 20 people send selector-timeout elsewhere: a small window, but no doubt
    m = find_misleading_signals(_decisions(GROUPS), table=TABLE)
    row = m.signals.filter(pl.col("signal") == "selector-timeout").row(0, named=True)
    assert (row["n_labelled"], row["misleading"], row["low_count"]) == (20, True, False)
    # the stable signals beside it stay unflagged
    assert m.signals.filter(pl.col("misleading"))["signal"].to_list() == ["selector-timeout"]


def test_perfect_routing_flags_nothing():
    groups = [(["selector-timeout"], "stale-script", [("stale-script", 30)]),
              (["electron-crash"], "infra", [("infra", 30)])]
    m = find_misleading_signals(_decisions(groups), table=TABLE, min_count=5)
    assert m.baseline == 1.0
    assert not m.signals["misleading"].any() and set(m.signals["match_rate"]) == {1.0}


# --------------------------------------------------------------------------- CLI


def _write_events(df: pl.DataFrame, path: Path) -> None:
    """Telemetry lines (seed 000 §B) from which the loader rebuilds ``df``'s decisions."""
    lines = []
    for r in df.iter_rows(named=True):
        ts = r["ts"]
        c = {"ts": ts.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "eventType": "replay-failure-classified",
             "skillName": "muggle-test", "aiClassification": r["ai_bucket"], "aiSuggestion": r["ai_suggestion"],
             "runId": r["run_id"], "testCaseId": r["test_case_id"], "signals": r["signals"],
             "metadata": {"errorExcerpt": r["text"]} if r["text"] else {}}
        res = {"ts": (ts + dt.timedelta(seconds=10)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
               "eventType": "replay-failure-resolved", "skillName": "muggle-test", "userAction": r["user_action"],
               "runId": r["run_id"], "testCaseId": r["test_case_id"]}
        lines += [json.dumps(c), json.dumps(res)]
    path.write_text("\n".join(lines) + "\n")


def test_cli_signals_json_is_ranked_list(tmp_path, failtax_cmd):
    events = tmp_path / "events.jsonl"
    _write_events(_decisions(GROUPS), events)
    out = subprocess.run(
        [*failtax_cmd, "signals", "--telemetry", str(events), "--taxonomy", "replay", "--table", TABLE,
         "--min-count", "5", "--json"], capture_output=True, text=True, check=True)
    recs = json.loads(out.stdout)
    assert isinstance(recs, list) and [r["rank"] for r in recs] == list(range(1, len(recs) + 1))
    assert recs[0]["signal"] == "selector-timeout" and recs[0]["misleading"] is True
    assert recs[0]["p_value"] == pytest.approx(211 / 2**20, rel=1e-9)
    assert all("0123456789" not in (e["text"] or "") for r in recs for e in r["examples"])
    txt = subprocess.run([*failtax_cmd, "signals", "--telemetry", str(events), "--min-count", "5"],
                         capture_output=True, text=True, check=True)
    first = next(ln for ln in txt.stdout.splitlines() if ln.split()[:1] == ["1"])
    assert "selector-timeout" in first and "MISLEADING" in first


def test_cli_signals_tests_from_15_decisions_and_agreement_flags_under_30(tmp_path, failtax_cmd):
    events = tmp_path / "events.jsonl"
    _write_events(_decisions(GROUPS), events)  # 20 decisions per signal

    def run(cmd: str, *extra: str):
        argv = [*failtax_cmd, cmd, "--telemetry", str(events), "--taxonomy", "replay", "--json", *extra]
        return json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)

    recs = {r["signal"]: r for r in run("signals", "--table", TABLE)}
    assert recs["selector-timeout"]["misleading"] is True and recs["selector-timeout"]["low_count"] is False
    recs = {r["signal"]: r for r in run("signals", "--table", TABLE, "--min-count", "30")}
    assert recs["selector-timeout"]["misleading"] is False and recs["selector-timeout"]["low_count"] is True
    assert run("agreement")["min_count"] == 30


def test_cli_signals_refuses_a_table_of_another_taxonomy(tmp_path, failtax_cmd):
    events = tmp_path / "events.jsonl"
    _write_events(_decisions(GROUPS[:1]), events)
    wrong = subprocess.run([*failtax_cmd, "signals", "--telemetry", str(events), "-t", "replay", "--table", "regen"],
                           capture_output=True, text=True)
    assert wrong.returncode == 2 and "for taxonomy 'regen', not 'replay'" in wrong.stderr


@pytest.mark.parametrize("seed", range(3))
def test_fisher_exact_matches_scipy(seed):
    import numpy as np
    from scipy.stats import fisher_exact

    from failtax.analysis.stats import fisher_exact_less

    rng = np.random.default_rng(seed)
    for _ in range(50):
        n1, n2 = (int(x) for x in rng.integers(1, 80, 2))
        k1, k2 = int(rng.integers(0, n1 + 1)), int(rng.integers(0, n2 + 1))
        expected = fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="greater").pvalue
        assert fisher_exact_less(k1, n1, k2, n2) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_a_signal_the_tool_named_ranks_before_a_word_the_table_found_beside_it():
    # every session-expired event's text names a session, which the regen table's text
    # rules read as the context signal broad-tool: the two have the same figures, and
    # the signal the tool named comes first (by name alone broad-tool would)
    rows = []
    for i in range(60):
        expired = i < 30
        implied = "infra" if expired else "agent-course"
        rows.append({
            "event_id": f"e{i:03d}", "family": "regen", "taxonomy": "regen", "ts": START + dt.timedelta(minutes=i),
            "week": START.date(), "signals": ["session-expired"] if expired else ["loop-on-modal"],
            "ai_bucket": "agent-course", "ai_suggestion": "muggle-feedback",
            "user_action": "report-bug" if expired else "muggle-feedback", "implied_bucket": implied,
            "decided": True, "opt_out": False, "agree": not expired, "latency_s": 10.0,
            "text": "Goal: upload an avatar. session expired" if expired else None,
        })
    found = find_misleading_signals(pl.DataFrame(rows, infer_schema_length=None), taxonomy="regen", min_count=5)
    top = found.signals.filter(pl.col("signal").is_in(["session-expired", "broad-tool"]))
    assert top.select("n_labelled", "n_match", "fallback_wrong").n_unique() == 1  # the same figures
    assert top["signal"].to_list() == ["session-expired", "broad-tool"]
    assert top["rank"].to_list() == [1, 2]
