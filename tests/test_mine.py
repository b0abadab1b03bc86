"""Candidate signals from text: masking, proposals that separate buckets, and nothing on clean data."""

from __future__ import annotations

from datetime import datetime, timedelta

import polars as pl
import pytest

from failtax.classify import classify
from failtax.table import compile_regex, load_table
from failtax.tune import apply_signal_proposals, mask_text, mine_candidate_signals
from failtax.tune.synthetic import synthetic_decisions


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("Timeout 30000ms exceeded after 12.5 s", "timeout 30000ms exceeded after <num> s"),
        ("request 9f8e7d6c5b4a failed", "request <hex> failed"),
        ("run 123e4567-e89b-12d3-a456-426614174000 died", "run <uuid> died"),
        ("at /home/ci/app/src/main.ts:42:7", "at <path>:<num>:<num>"),
        ("GET https://example.com/a?b=1 -> 502", "get <url> -> <num>"),
        ("started 2026-11-02T10:00:00.123Z, again 10:05:00", "started <ts>, again <ts>"),
        ('expected "Sign in" but got \'Log in\'', "expected <str> but got <str>"),
    ],
)
def test_mask_text_replaces_what_varies(text, masked):
    assert mask_text(text) == masked


def test_mask_text_hides_secrets_first():
    out = mask_text("auth failed for token ghp_0123456789abcdefghijABCDEFGHIJ012345 at step 3")
    assert "ghp_" not in out and "<secret>" in out and out.endswith("step <num>")


@pytest.mark.parametrize(("taxonomy", "seed"), [("replay", 5), ("regen", 2)])
def test_a_phrase_only_the_text_carries_is_proposed(taxonomy, seed):
    df, truth = synthetic_decisions(taxonomy, n_events=3000, seed=seed, defects="missing",
                                    text_only_missing=True, with_truth=True)
    (d,) = truth["defects"]
    phrase = d["signal"].replace("-", " ")
    props = mine_candidate_signals(df, taxonomy=taxonomy)
    assert props, "the unknown phrase should be proposed"
    p = props[0]
    assert p.kind == "contains" and p.pattern == phrase and p.bucket == d["true_bucket"]
    assert p.support >= 10 and p.precision >= 0.8 and p.precision_low > 0.5 and p.wins > 10 * max(1, p.losses)
    assert p.position == "last" and p.examples
    # nothing is applied on its own
    assert load_table(taxonomy).signals == load_table(taxonomy).signals
    tbl = apply_signal_proposals(taxonomy, [p])
    assert classify({"text": f"step 4: {phrase} (run 1a2b3c4d)"}, taxonomy=taxonomy, table=tbl).bucket == d["true_bucket"]
    assert classify({"text": f"step 4: {phrase} (run 1a2b3c4d)"}, taxonomy=taxonomy).bucket != d["true_bucket"]


@pytest.mark.parametrize(("taxonomy", "seed"), [("replay", 6), ("regen", 7)])
def test_clean_text_proposes_nothing(taxonomy, seed):
    df = synthetic_decisions(taxonomy, n_events=3000, seed=seed, defects="none")
    assert mine_candidate_signals(df, taxonomy=taxonomy) == ()


def test_a_template_with_varying_parts_becomes_a_safe_regex():
    # "worker <n> exited with status <n>" varies in its numbers between the words
    start = datetime(2026, 9, 7)
    rows = []
    for i in range(60):
        rows.append({"signals": [], "user_action": "report-bug",
                     "text": f"worker {i % 7 + 1} exited: status {130 + i % 9} during login"})
    for i in range(60):
        rows.append({"signals": ["element-not-found"], "user_action": "regenerate",
                     "text": f"step {i}: element not found"})
    df = pl.DataFrame(rows).with_columns(
        ts=pl.Series([start + timedelta(hours=i) for i in range(len(rows))]),
        taxonomy=pl.lit("replay"),
    )
    props = mine_candidate_signals(df, taxonomy="replay", min_support=10)
    assert props
    p = props[0]
    assert p.bucket == "infra" and p.support == 60 and p.hits == 60 and p.wins == 60 and p.losses == 0
    if p.kind == "regex":
        rx = compile_regex(p.pattern)
        assert rx.search("worker 3 exited: status 137 during login")
        assert not rx.search("step 3: element not found")
    tbl = apply_signal_proposals("replay", [p])
    assert classify({"text": "worker 9 exited: status 1 during login"}, taxonomy="replay", table=tbl).bucket == "infra"
    assert classify({"text": "step 1: element not found"}, taxonomy="replay", table=tbl).bucket == "stale-script"


def test_mining_refuses_a_table_of_another_taxonomy():
    from failtax.errors import InputError

    with pytest.raises(InputError, match="taxonomy"):
        mine_candidate_signals(pl.DataFrame({"signals": [[]], "user_action": [None]}), taxonomy="replay", table="regen")
