"""Run-level verdicts of seed 000 §F: per-bucket map, priority table, PARTIAL, retry once."""

from __future__ import annotations

import itertools
import json
import subprocess

import pytest

from failtax import InputError, load_taxonomy
from failtax.verdict import (
    PRIORITY,
    VERDICTS,
    TestOutcome,
    decide_test_verdict,
    decide_verdict,
)

# Seed 000 §F, "Mapping per-script buckets to run verdicts".
SEED_MAP = [
    ("replay", "infra", "BLOCKED"),
    ("regen", "infra", "BLOCKED"),
    ("replay", "stale-script", "INCONCLUSIVE"),
    ("replay", "product-defect", "FAIL"),
    ("regen", "product-uxux", "FAIL"),
    ("regen", "agent-course", "INCONCLUSIVE"),
]


@pytest.mark.parametrize(("taxonomy", "bucket", "verdict"), SEED_MAP)
def test_each_bucket_maps_to_the_seed_verdict(taxonomy: str, bucket: str, verdict: str) -> None:
    tv = decide_test_verdict(TestOutcome.failed(bucket, taxonomy=taxonomy))
    assert tv.verdict == verdict
    assert not tv.retry_due
    # and the run of that single test carries the same verdict
    assert decide_verdict([TestOutcome.failed(bucket, taxonomy=taxonomy)]).verdict == verdict


def test_the_map_is_read_from_the_taxonomy_data() -> None:
    for taxonomy, bucket, _ in SEED_MAP:
        data = load_taxonomy(taxonomy).bucket(bucket).verdict
        assert decide_test_verdict(TestOutcome.failed(bucket, taxonomy=taxonomy)).verdict == data


def test_transient_not_yet_retried_is_due_a_retry_and_counts_inconclusive() -> None:
    run = decide_verdict([
        TestOutcome.passed(id="tc-1"),
        TestOutcome.failed("transient", taxonomy="regen", id="tc-2"),
    ])
    assert run.retry_due == ("tc-2",)
    assert not run.final
    assert run.counts["INCONCLUSIVE"] == 1
    assert run.verdict == "PARTIAL"
    assert any("retry due for tc-2" in r for r in run.reasons)


def test_transient_still_transient_after_its_retry_is_inconclusive_and_final() -> None:
    run = decide_verdict([TestOutcome.failed("transient", taxonomy="regen", retried=True, id="tc-2")])
    assert run.verdict == "INCONCLUSIVE"
    assert run.retry_due == ()
    assert run.final


def test_retried_flag_does_not_change_a_non_retryable_bucket() -> None:
    for retried in (False, True):
        run = decide_verdict([TestOutcome.failed("stale-script", taxonomy="replay", retried=retried)])
        assert run.verdict == "INCONCLUSIVE"
        assert run.retry_due == ()


def _outcome_for(verdict: str) -> TestOutcome:
    return {
        "PASS": TestOutcome.passed(),
        "SKIPPED": TestOutcome.skipped(),
        "FAIL": TestOutcome.failed("product-defect", taxonomy="replay"),
        "BLOCKED": TestOutcome.failed("infra", taxonomy="replay"),
        "INCONCLUSIVE": TestOutcome.failed("stale-script", taxonomy="replay"),
    }[verdict]


PER_TEST = ("PASS", "SKIPPED", "FAIL", "BLOCKED", "INCONCLUSIVE")


def _expected(mix: set[str]) -> str:
    # the module's documented rule, written independently: highest priority, with PARTIAL
    # standing in for PASS + INCONCLUSIVE
    cands = set(mix)
    if {"PASS", "INCONCLUSIVE"} <= mix:
        cands.add("PARTIAL")
    return min(cands, key=PRIORITY.index)


@pytest.mark.parametrize(
    "mix",
    [set(c) for n in range(1, 6) for c in itertools.combinations(PER_TEST, n)],
    ids=lambda m: "+".join(sorted(m)),
)
def test_priority_table_over_every_mix_of_per_test_verdicts(mix: set[str]) -> None:
    tests = [_outcome_for(v) for v in sorted(mix)]
    run = decide_verdict(tests)
    assert run.verdict == _expected(mix)
    # order of tests never matters
    assert decide_verdict(list(reversed(tests))).verdict == run.verdict


@pytest.mark.parametrize(
    ("mix", "verdict"),
    [
        (["PASS", "PASS"], "PASS"),
        (["PASS", "FAIL", "INCONCLUSIVE"], "FAIL"),
        (["PASS", "INCONCLUSIVE"], "PARTIAL"),
        (["PASS", "INCONCLUSIVE", "BLOCKED"], "PARTIAL"),
        (["PASS", "BLOCKED"], "BLOCKED"),
        (["INCONCLUSIVE", "BLOCKED"], "BLOCKED"),
        (["INCONCLUSIVE", "INCONCLUSIVE"], "INCONCLUSIVE"),
        (["SKIPPED", "SKIPPED"], "SKIPPED"),
        (["PASS", "SKIPPED"], "SKIPPED"),
        (["SKIPPED", "INCONCLUSIVE"], "INCONCLUSIVE"),
    ],
)
def test_documented_cases(mix: list[str], verdict: str) -> None:
    assert decide_verdict([_outcome_for(v) for v in mix]).verdict == verdict


def test_empty_input_is_skipped_with_a_reason() -> None:
    run = decide_verdict([])
    assert run.verdict == "SKIPPED"
    assert run.reasons == ("no test cases were given",)
    assert run.counts == {v: 0 for v in VERDICTS}
    assert not run.regression_signal


@pytest.mark.parametrize("verdict", VERDICTS)
def test_regression_signal_only_for_pass_and_fail(verdict: str) -> None:
    mixes = {
        "PASS": ["PASS"], "FAIL": ["FAIL"], "PARTIAL": ["PASS", "INCONCLUSIVE"],
        "INCONCLUSIVE": ["INCONCLUSIVE"], "BLOCKED": ["BLOCKED"], "SKIPPED": ["SKIPPED"],
    }
    run = decide_verdict([_outcome_for(v) for v in mixes[verdict]])
    assert run.verdict == verdict
    assert run.regression_signal is (verdict in ("PASS", "FAIL"))


def test_counts_are_tests_per_verdict() -> None:
    run = decide_verdict([
        {"outcome": "pass"}, {"outcome": "pass"},
        {"outcome": "infra", "taxonomy": "regen"},
        {"outcome": "agent-course", "taxonomy": "regen"},
        {"outcome": "transient", "taxonomy": "regen", "retried": True},
        {"outcome": "skipped"},
    ])
    assert run.counts == {"PASS": 2, "FAIL": 0, "PARTIAL": 0, "INCONCLUSIVE": 2, "BLOCKED": 1, "SKIPPED": 1}
    assert run.verdict == "PARTIAL"
    assert len(run.tests) == 6
    d = run.to_dict()
    assert d["verdict"] == "PARTIAL" and d["total"] == 6 and d["counts"]["BLOCKED"] == 1
    json.dumps(d)  # JSON-ready


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"outcome": "stale-script"}, "needs a 'taxonomy'"),
        ({"outcome": "stale-script", "taxonomy": "regen"}, "not 'pass', 'skipped' or a bucket of taxonomy 'regen'"),
        ({"outcome": "rate_limited", "taxonomy": "agent-run"}, "carries no run verdict"),
        ({"outcome": "infra", "taxonomy": "nope"}, "unknown taxonomy 'nope'"),
        ({"outcome": "pass", "retried": "yes"}, "'retried' must be true or false"),
        ({"outcome": 3}, "'outcome' must be a non-empty string"),
        ({"outcome": "pass", "extra": 1}, "unknown key(s) 'extra'"),
        (["pass"], "expected a JSON object"),
    ],
)
def test_bad_records_are_refused_with_the_reason(record: object, message: str) -> None:
    with pytest.raises(InputError, match=None) as exc:
        TestOutcome.from_record(record, source="runs.jsonl:7")
    assert message in str(exc.value)
    assert str(exc.value).startswith("runs.jsonl:7: ")


def test_names_are_case_insensitive_and_testcaseid_is_an_id() -> None:
    o = TestOutcome.from_record({"outcome": "Product-Defect", "taxonomy": "Replay", "testCaseId": 42})
    assert (o.outcome, o.taxonomy, o.id) == ("product-defect", "replay", "42")


# --------------------------------------------------------------------------- CLI


def _run(cmd: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=60)


def test_cli_verdict_reads_jsonl_and_prints_one_object(failtax_cmd: list[str]) -> None:
    lines = [
        {"outcome": "pass", "id": "a"},
        {"outcome": "stale-script", "taxonomy": "replay", "id": "b"},
        {"outcome": "transient", "taxonomy": "regen", "retried": False, "testCaseId": "c"},
    ]
    stdin = "".join(json.dumps(x) + "\n" for x in lines).encode()
    p = _run([*failtax_cmd, "verdict"], stdin)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["verdict"] == "PARTIAL"
    assert out["counts"]["PASS"] == 1 and out["counts"]["INCONCLUSIVE"] == 2
    assert out["retry_due"] == ["c"]
    assert out["errors"] == []
    assert p.stdout.count(b"\n") == 1


def test_cli_verdict_reports_bad_lines_answers_the_good_ones_and_exits_2(failtax_cmd: list[str], tmp_path) -> None:
    f = tmp_path / "run.jsonl"
    f.write_bytes(
        b'{"outcome": "product-defect", "taxonomy": "replay", "id": "x"}\n'
        b"not json\n"
        b'{"outcome": "bogus", "taxonomy": "replay"}\n'
        b"\xff\xfe\n"
        b"\n"
        b'{"outcome": "pass"}\n'
    )
    p = _run([*failtax_cmd, "verdict", str(f)], b"")
    assert p.returncode == 2
    out = json.loads(p.stdout)
    assert out["verdict"] == "FAIL"
    assert out["total"] == 2
    errs = out["errors"]
    assert [e.split(": ")[0] for e in errs] == [f"{f}:2", f"{f}:3", f"{f}:4"]
    assert "not valid JSON" in errs[0]
    assert "not 'pass', 'skipped' or a bucket" in errs[1]
    assert "invalid UTF-8" in errs[2]
    assert b"Traceback" not in p.stderr
    assert b"3 bad line(s)" in p.stderr


def test_cli_verdict_on_empty_input_is_skipped(failtax_cmd: list[str]) -> None:
    p = _run([*failtax_cmd, "verdict"], b"")
    assert p.returncode == 0
    out = json.loads(p.stdout)
    assert out["verdict"] == "SKIPPED"
    assert out["reasons"] == ["no test cases were given"]


# --------------------------------------------------------------------------- fuzzing

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
RECORDS = st.fixed_dictionaries(
    {},
    optional={
        "outcome": st.sampled_from(["pass", "skipped", "PASS", "infra", "stale-script", "product-defect",
                                    "transient", "agent-course", "product-uxux", "bogus", ""]) | JSON,
        "taxonomy": st.sampled_from(["replay", "regen", "agent-run", "nope"]) | JSON,
        "retried": st.booleans() | JSON,
        "id": st.text(max_size=8) | JSON,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(RECORDS | JSON, max_size=8))
def test_verdict_is_total_over_arbitrary_records(records: list[object]) -> None:
    good = []
    for r in records:
        try:
            good.append(TestOutcome.from_record(r))
        except InputError:
            continue  # the only exception bad input may raise
    run = decide_verdict(good)
    assert run.verdict in VERDICTS
    assert sum(run.counts.values()) == len(good)
    assert len(run.tests) == len(good)
    assert run.counts["PARTIAL"] == 0


def test_cli_verdict_on_random_bytes_answers_for_every_line(failtax_cmd: list[str]) -> None:
    import random

    rng = random.Random(1234)
    lines = []
    for i in range(300):
        kind = rng.random()
        if kind < 0.3:
            lines.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).replace(b"\n", b""))
        elif kind < 0.6:
            lines.append(json.dumps({"outcome": rng.choice(["pass", "infra", "transient", "nope"]),
                                     "taxonomy": rng.choice(["regen", "replay"]), "id": str(i)}).encode())
        else:
            lines.append(json.dumps({"outcome": "pass", "id": str(i)}).encode())
    blob = b"\n".join(lines) + b"\n"
    p = subprocess.run([*failtax_cmd, "verdict"], input=blob, capture_output=True, timeout=60)
    assert p.returncode in (0, 2)
    assert b"Traceback" not in p.stderr
    out = json.loads(p.stdout)
    non_blank = sum(1 for ln in blob.split(b"\n")[:-1] if ln.strip())
    assert out["total"] + len(out["errors"]) == non_blank
    assert (p.returncode == 2) == bool(out["errors"])
