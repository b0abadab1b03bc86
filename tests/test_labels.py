"""Suspect labels: planted slips are found, nothing else; the rule is the documented one."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from failtax.analysis import find_suspect_labels, reclassify

BUCKETS = ("infra", "stale-script", "product-defect")


def _fixture() -> tuple[pl.DataFrame, set[str]]:
    """40 decisions per signal, each labelled with the signal's bucket, plus planted slips;
    one signal whose labels are honestly split in two."""
    spec = [
        (["selector-timeout"], "product-defect", 40, ["stale-script", "stale-script"]),
        (["element-not-found"], "stale-script", 40, ["infra"]),
        (["electron-crash"], "infra", 40, ["product-defect"]),
        (["chromium-error", "element-not-found"], "stale-script", 20, []),
    ]
    rows, slips = [], set()
    for signals, bucket, n, planted in spec:
        for i in range(n):
            rows.append((signals, bucket))
        for wrong in planted:
            slips.add(f"e{len(rows):03d}")
            rows.append((signals, wrong))
    for i in range(40):  # a genuinely mixed signal: half and half
        rows.append((["network-500-from-app"], "product-defect" if i % 2 else "infra"))
    df = pl.DataFrame({
        "event_id": [f"e{i:03d}" for i in range(len(rows))],
        "taxonomy": ["replay"] * len(rows),
        "signals": [r[0] for r in rows],
        "implied_bucket": [r[1] for r in rows],
        "ai_bucket": ["stale-script"] * len(rows),
        "user_action": ["regenerate"] * len(rows),
    })
    return df, slips


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_slips_and_only_them(seed):
    df, slips = _fixture()
    res = find_suspect_labels(df, taxonomy="replay", random_state=seed)
    assert set(res.event_ids) == slips
    assert res.n_labelled == df.height
    by_id = {r["event_id"]: r for r in res.flagged.iter_rows(named=True)}
    slip = by_id[sorted(slips)[0]]
    assert (slip["implied_bucket"], slip["suggested_bucket"]) == ("stale-script", "product-defect")
    assert slip["signals"] == ["selector-timeout"]
    assert "labelled 'stale-script'" in slip["reason"] and "'product-defect' is likely" in slip["reason"]


def test_thresholds_are_mean_self_confidence_and_the_rule_holds():
    df, _ = _fixture()
    res = find_suspect_labels(df, taxonomy="replay", random_state=4)
    p = res.probabilities
    assert p.height == df.height and p.columns == ["event_id", "implied_bucket", *BUCKETS]
    probs = p.select(BUCKETS).to_numpy()
    assert np.allclose(probs.sum(axis=1), 1.0)
    for b in BUCKETS:
        mine = p.filter(pl.col("implied_bucket") == b)[b]
        assert res.thresholds[b] == pytest.approx(float(mine.mean()), abs=1e-12)
    # recompute the flag from the published probabilities and thresholds
    t = np.array([res.thresholds[b] for b in BUCKETS])
    given = np.array([BUCKETS.index(b) for b in p["implied_bucket"]])
    p_given = probs[np.arange(len(given)), given]
    above = probs >= t[None, :]
    above[np.arange(len(given)), given] = False
    flag = (p_given < t[given]) & above.any(axis=1)
    assert set(p.filter(pl.Series(flag))["event_id"]) == set(res.event_ids)
    for r in res.flagged.iter_rows(named=True):
        assert r["p_given"] < r["threshold_given"] and r["p_suggested"] >= r["threshold_suggested"]


def test_deterministic_and_order_invariant():
    df, slips = _fixture()
    a = find_suspect_labels(df, taxonomy="replay", random_state=7)
    b = find_suspect_labels(df, taxonomy="replay", random_state=7)
    assert a.to_dict() == b.to_dict()
    c = find_suspect_labels(df.reverse(), taxonomy="replay", random_state=7)
    assert set(c.event_ids) == slips
    json.dumps(a.to_dict())


def test_clean_labels_flag_nothing_and_reuse_reclassification():
    df, slips = _fixture()
    clean = df.filter(~pl.col("event_id").is_in(list(slips)))
    rc = reclassify(clean, taxonomy="replay")
    assert find_suspect_labels(rc).flagged.height == 0


def test_single_class_and_unlabelled_rows():
    df = pl.DataFrame({"event_id": list("abcdefg"), "taxonomy": ["replay"] * 7,
                       "signals": [["x"], ["y"]] * 3 + [["x"]], "implied_bucket": ["infra"] * 6 + [None]})
    res = find_suspect_labels(df, taxonomy="replay", n_folds=2, random_state=0)
    assert res.n_labelled == 6 and res.flagged.height == 0
    assert res.thresholds["infra"] == 1.0  # the only class seen in training
    assert res.thresholds["stale-script"] != res.thresholds["stale-script"]  # no such label: NaN
