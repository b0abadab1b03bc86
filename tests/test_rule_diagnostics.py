"""Rule diagnostics on a hand-built fixture against a frozen small table: every number by hand."""

from __future__ import annotations

import datetime as dt
import json
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest

from failtax.analysis import diagnose_rules, reclassify, signal_routes
from failtax.classify import classify
from failtax.errors import InputError
from failtax.table import load_table, save_table

TABLE = Path(__file__).parent / "fixtures" / "analysis" / "replay_small.toml"
W1, W2 = dt.date(2026, 9, 7), dt.date(2026, 9, 14)


def _events() -> pl.DataFrame:
    rows = [
        (["chromium-error", "element-not-found"], None, "stale-script", W1),
        (["chromium-error", "element-not-found"], None, "stale-script", W1),
        (["chromium-error"], None, "infra", W1),
        (["element-not-found"], None, "stale-script", W1),
        (["element-not-found"], None, "product-defect", W2),
        (["hydration-mismatch"], None, "stale-script", W2),
        ([], "Electron crashed while replaying", "infra", W2),
        (["assertion-failed-on-passing-step"], None, None, W2),
    ]
    return pl.DataFrame({
        "event_id": [f"e{i + 1}" for i in range(len(rows))],
        "taxonomy": ["replay"] * len(rows),
        "signals": [r[0] for r in rows],
        "text": [r[1] for r in rows],
        "implied_bucket": [r[2] for r in rows],
        "week": [r[3] for r in rows],
    }, schema={"event_id": pl.String, "taxonomy": pl.String, "signals": pl.List(pl.String), "text": pl.String,
               "implied_bucket": pl.String, "week": pl.Date})


@pytest.fixture
def diag():
    return diagnose_rules(_events(), table=str(TABLE), min_count=2)


def _rule(d, kind, rule):
    return d.rules.filter((pl.col("kind") == kind) & (pl.col("rule") == rule)).row(0, named=True)


def test_route_rows_equal_hand_counts(diag):
    infra = _rule(diag, "route", "infra")
    # fires on e1 e2 e3 e7 (e7 through the text extractor); e1 e2 also match stale-script
    assert (infra["n_fires"], infra["n_overlap"], infra["n_conflict"]) == (4, 2, 2)
    assert (infra["coverage"], infra["overlap"], infra["conflict"]) == (0.5, 0.25, 0.25)
    assert (infra["n_decided"], infra["n_shadowed"]) == (4, 0)
    assert (infra["n_labelled"], infra["n_correct"], infra["accuracy"]) == (4, 2, 0.5)
    stale = _rule(diag, "route", "stale-script")
    assert (stale["n_fires"], stale["n_decided"], stale["n_shadowed"]) == (4, 2, 2)
    assert stale["accuracy"] == float(Fraction(3, 4))
    assert (stale["accuracy_decided"], stale["accuracy_shadowed"]) == (0.5, 1.0)
    pd_ = _rule(diag, "route", "product-defect")
    assert (pd_["n_fires"], pd_["coverage"], pd_["n_labelled"]) == (1, float(Fraction(1, 8)), 0)
    assert pd_["accuracy"] != pd_["accuracy"]  # NaN: nothing to score against
    assert pd_["low_count"] is True
    fb = _rule(diag, "fallback", "fallback")
    assert (fb["n_decided"], fb["n_labelled"], fb["n_correct"], fb["bucket"]) == (1, 1, 0, "product-defect")


def test_extract_rows_dead_and_unevaluable(diag):
    ec = _rule(diag, "extract", "electron-crash")
    assert (ec["n_fires"], ec["bucket"], ec["n_decided"], ec["n_correct"], ec["accuracy"]) == (1, "infra", 1, 1, 1.0)
    # named by the tool, never found in a text: dead as extractors
    assert set(diag.dead_rules) == {"extract:chromium-error", "extract:element-not-found", "extract:selector-timeout"}
    # an exit-code rule cannot be re-run on decisions: reported, never called dead
    assert diag.unevaluable == ("exit-26",)
    assert _rule(diag, "extract", "exit-26")["evaluable"] is False


def test_unknown_signals(diag):
    u = diag.unknown_signals.row(0, named=True)
    assert diag.unknown_signals.height == 1
    assert (u["signal"], u["n_events"], u["n_labelled"]) == ("hydration-mismatch", 1, 1)
    assert (u["routed_bucket_top"], u["top_implied_bucket"], u["top_implied_share"]) == ("product-defect", "stale-script", 1.0)
    assert u["table_accuracy"] == 0.0


def test_recognition_rate_and_trend(diag):
    assert (diag.recognition.successes, diag.recognition.n) == (7, 8)
    assert diag.recognition_by_week.select("week", "n_events", "n_recognised").rows() == [(W1, 4, 4), (W2, 4, 3)]
    t = diag.recognition_trend
    assert t["slope_per_week"] == pytest.approx(-0.25)
    assert (t["first_half_rate"], t["second_half_rate"], t["diff"]) == (1.0, 0.75, -0.25)
    assert t["diff_low"] < -0.25 < t["diff_high"]


def test_shadowing_sign_test(diag):
    row = diag.shadowing.row(0, named=True)
    assert diag.shadowing.height == 1
    assert (row["rule"], row["shadowed_rule"], row["signal"]) == ("infra", "stale-script", "chromium-error")
    assert (row["n_events"], row["n_labelled"], row["n_winner_right"], row["n_shadowed_right"]) == (2, 2, 0, 2)
    assert row["p_value"] == float(Fraction(1, 4))  # P(2 of 2 | 1/2)
    assert row["flagged"] is False  # two events prove nothing
    many = pl.concat([_events()] + [_events().head(2)] * 10)
    big = diagnose_rules(many, table=str(TABLE)).shadowing.row(0, named=True)
    assert big["n_shadowed_right"] == 22 and big["p_value"] == float(Fraction(1, 2**22)) and big["flagged"] is True


def _labelled(data: list[tuple[list[str], str]]) -> pl.DataFrame:
    """Decisions of one week from (signals, implied bucket) pairs."""
    return pl.DataFrame({
        "event_id": [str(i) for i in range(len(data))], "taxonomy": ["replay"] * len(data),
        "signals": [s for s, _ in data], "implied_bucket": [b for _, b in data], "week": [W1] * len(data),
    }, schema={"event_id": pl.String, "taxonomy": pl.String, "signals": pl.List(pl.String),
               "implied_bucket": pl.String, "week": pl.Date})


def test_shadowing_tests_each_pair_of_signals():
    """chromium-error wins over stale-script: with selector-timeout people side with
    stale-script (12 of 12), with element-not-found they side with infra (10 of 12). The
    pooled row (12 v 12) hides it; the pair's own test finds it, Bonferroni over the
    pooled test and the two pairs (three tests)."""
    def rows(signals, bucket, k):
        return [(signals, bucket)] * k

    data = (rows(["chromium-error", "selector-timeout"], "stale-script", 12)
            + rows(["chromium-error", "element-not-found"], "infra", 10)
            + rows(["chromium-error", "element-not-found"], "stale-script", 2))
    df = _labelled(data)
    sh = diagnose_rules(df, table=str(TABLE)).shadowing
    assert sh.height == 1
    row = sh.row(0, named=True)
    assert (row["rule"], row["signal"], row["shadowed_rule"], row["shadowed_signal"]) == (
        "infra", "chromium-error", "stale-script", "selector-timeout")
    assert (row["n_events"], row["n_labelled"], row["n_winner_right"], row["n_shadowed_right"]) == (12, 12, 0, 12)
    assert row["p_value"] == pytest.approx(float(Fraction(1, 2**12)))
    assert row["flagged"] is True  # 3 / 4096 < 0.01
    # on its own pair only, the row names that pair and is one test
    alone = diagnose_rules(df.head(12), table=str(TABLE)).shadowing.row(0, named=True)
    assert (alone["shadowed_signal"], alone["n_shadowed_right"], alone["flagged"]) == ("selector-timeout", 12, True)


def test_pairs_met_too_rarely_to_prove_anything_do_not_dilute_the_one_that_can():
    """People side with stale-script on 9 of 9 events where chromium-error wins over
    selector-timeout (p = 1/512). Six other pairs of signals meet on two events each,
    split one and one: no outcome of two events reaches 0.01 over any number of tests, so
    they are not counted (Tarone), and the nine events are flagged, which plain
    Bonferroni over every row shown would not do."""
    def rows(signals, bucket, k):
        return [(signals, bucket)] * k

    data = rows(["chromium-error", "selector-timeout"], "stale-script", 9)
    for pair in (["electron-crash", "element-not-found"], ["electron-crash", "selector-timeout"],
                 ["chromium-error", "assertion-failed-on-passing-step"],
                 ["electron-crash", "assertion-failed-on-passing-step"],
                 ["element-not-found", "assertion-failed-on-passing-step"],
                 ["selector-timeout", "assertion-failed-on-passing-step"]):
        first, later = (classify({"signals": s}, taxonomy="replay", table=load_table(TABLE)).bucket
                        for s in (pair, pair[1:]))
        assert first != later
        data += rows(pair, first, 1) + rows(pair, later, 1)
    df = _labelled(data)
    sh = diagnose_rules(df, table=str(TABLE)).shadowing
    assert sh.height >= 6
    flagged = sh.filter(pl.col("flagged"))
    assert flagged.select("rule", "signal", "shadowed_rule", "shadowed_signal").rows() == [
        ("infra", "chromium-error", "stale-script", "selector-timeout")]
    row = flagged.row(0, named=True)
    assert (row["n_winner_right"], row["n_shadowed_right"]) == (0, 9)
    assert row["p_value"] == pytest.approx(1 / 512) and row["p_value"] * sh.height > 0.01
    # the same nine events with every sparse pair met on sixteen events instead: each can
    # now reach the corrected level, so each is counted and the nine are not enough
    dense = pl.concat([df.head(9)] + [df.slice(9)] * 8)
    sh = diagnose_rules(dense, table=str(TABLE)).shadowing
    assert sh.filter(pl.col("flagged")).height == 0


def test_tarone_count_holds_the_family_wise_error_and_gains_power_over_bonferroni():
    """Forty sign tests on three events each and five on forty: no three events reach
    0.01 / K for any K, so only the five are counted. Under the null hypothesis the
    chance of any rejection stays within 0.01; with one test truly off (people side
    with the later route 80% of the time) it is rejected more often than Bonferroni over
    all forty-five would."""
    import numpy as np
    from scipy.special import bdtrc

    from failtax.analysis.stats import tarone_count

    n = np.array([3] * 40 + [40] * 5)
    assert tarone_count(0.5 ** n, 0.01) == 5
    assert tarone_count(0.5 ** np.array([40] * 9), 0.01) == 9  # all can: Bonferroni
    assert tarone_count(np.ones(3), 0.01) == 1
    rng = np.random.default_rng(0)
    reps = 4000

    def rejections(prob: np.ndarray, m: int) -> float:
        wins = rng.binomial(n, prob, size=(reps, len(n)))
        pv = np.where(wins > 0, bdtrc(wins - 1, n, 0.5), 1.0)
        return float(np.mean((pv <= 0.01 / m).any(axis=1)))

    null = np.full(len(n), 0.5)
    assert rejections(null, tarone_count(0.5 ** n, 0.01)) <= 0.01 + 3 * np.sqrt(0.01 * 0.99 / reps)
    off = null.copy()
    off[-1] = 0.8
    assert rejections(off, tarone_count(0.5 ** n, 0.01)) > rejections(off, len(n)) + 0.05


def test_route_order_changes_the_diagnosis():
    tbl = load_table(str(TABLE))
    swapped = tbl.replace(route=(tbl.route[1], tbl.route[0], tbl.route[2]))
    d = diagnose_rules(_events(), table=swapped)
    stale = _rule(d, "route", "stale-script")
    assert (stale["n_decided"], stale["n_shadowed"]) == (4, 0)
    row = d.shadowing.row(0, named=True)
    assert (row["rule"], row["shadowed_rule"], row["signal"]) == ("stale-script", "infra", "element-not-found")
    assert (row["n_winner_right"], row["n_shadowed_right"]) == (2, 0)


def test_table_by_path_object_or_saved_copy_agree(tmp_path):
    tbl = load_table(str(TABLE))
    copy = tmp_path / "copy.toml"
    save_table(tbl, copy)
    a = diagnose_rules(_events(), table=str(TABLE)).to_dict()
    b = diagnose_rules(_events(), table=tbl).to_dict()
    c = diagnose_rules(_events(), table=str(copy)).to_dict()
    assert a == b == c
    assert json.loads(json.dumps(a))["recognition"]["n"] == 8


def test_reclassification_matches_classify_event_by_event():
    df = _events()
    rc = reclassify(df, table=str(TABLE))
    got = rc.event_frame("present", "rule", "bucket").select("present", "rule", "bucket").rows()
    tbl = load_table(str(TABLE))
    for (present, rule, bucket), sigs, text in zip(got, df["signals"].to_list(), df["text"].to_list(), strict=True):
        c = classify({"signals": sigs, "text": text}, taxonomy="replay", table=tbl)
        assert (list(c.signals), c.rule, c.bucket) == (present, rule, bucket)


def test_row_order_invariance():
    df = _events()
    a = diagnose_rules(df, table=str(TABLE)).to_dict()
    b = diagnose_rules(df.reverse(), table=str(TABLE)).to_dict()
    assert a == b


def test_signal_routes_and_errors():
    tbl = load_table(str(TABLE))
    assert signal_routes(tbl, ["chromium-error", "nope"]).rows() == [
        ("chromium-error", "infra", "infra"), ("nope", "fallback", "product-defect")]
    with pytest.raises(InputError, match="missing column"):
        diagnose_rules(_events().drop("implied_bucket"), table=tbl)
    with pytest.raises(InputError, match="for taxonomy 'replay', not 'regen'"):
        diagnose_rules(_events(), table=tbl, taxonomy="regen")


def test_shipped_table_is_the_default():
    d = diagnose_rules(_events(), taxonomy="replay")
    assert d.table_name == "replay" and d.n_events == 8
    assert "hydration-mismatch" in d.unknown_signals["signal"].to_list()


def test_pandas_arrow_and_duckdb_inputs_agree(tmp_path):
    import duckdb

    df = _events()
    expected = diagnose_rules(df, table=str(TABLE)).to_dict()
    assert diagnose_rules(df.to_pandas(), table=str(TABLE)).to_dict() == expected
    assert diagnose_rules(df.to_arrow(), table=str(TABLE)).to_dict() == expected
    con = duckdb.connect(str(tmp_path / "d.duckdb"))
    con.register("t", df.to_arrow())
    con.execute("CREATE TABLE decisions AS SELECT * FROM t")
    assert diagnose_rules(con.table("decisions"), table=str(TABLE)).to_dict() == expected
    con.close()
