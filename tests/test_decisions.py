"""The ``decisions`` view: pairing, columns and values against hand-computed answers.

The fixture ``fixtures/telemetry/decisions.jsonl`` is a hand-built day of events (see
``make_fixtures.py``); every expected value below was worked out by hand from it.
"""

from __future__ import annotations

import json
import random
from datetime import date, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest

from failtax.telemetry import load
from failtax.telemetry.views import DECISIONS_COLUMNS

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "telemetry" / "decisions.jsonl"
T = datetime.fromisoformat
MON = date(2026, 9, 7)

# (run_id, test_case_id, ts) -> the row's values, worked out by hand
EXPECTED = {
    ("r1", "t1", T("2026-09-07 10:00:00")): dict(
        family="replay", taxonomy="replay", ai_bucket="stale-script", ai_suggestion="regenerate",
        signals=["selector-timeout", "element-not-found"], user_action="regenerate", implied_bucket="stale-script",
        decided=True, opt_out=False, agree=True, latency_s=30.5, text="waiting for selector", project_id="p1",
        resolved_ts=T("2026-09-07 10:00:30.500")),
    ("r2", "t2", T("2026-09-07 10:05:00")): dict(
        ai_bucket="product-defect", ai_suggestion="share-defect", signals=["assertion-failed-on-passing-step"],
        user_action="share-email", implied_bucket="product-defect", decided=True, opt_out=False, agree=True,
        latency_s=60.0, text="Open billing"),
    ("r3", "t3", T("2026-09-07 10:10:00")): dict(
        ai_bucket="infra", ai_suggestion="report-bug", signals=["electron-crash"], user_action="regenerate",
        implied_bucket="stale-script", decided=True, opt_out=False, agree=False, latency_s=120.0, text=None),
    ("r4", "t4", T("2026-09-07 10:15:00")): dict(
        signals=[], user_action="skip", implied_bucket=None, decided=True, opt_out=True, agree=None, latency_s=5.0),
    ("r5", "t5", T("2026-09-07 10:20:00")): dict(
        project_id=None, signals=[], user_action=None, implied_bucket=None, decided=False, opt_out=False,
        agree=None, latency_s=None, resolved_ts=None),
    ("r6", "t6", T("2026-09-07 10:25:00")): dict(
        project_id="p2", user_action="retry", implied_bucket=None, decided=True, opt_out=False, agree=False,
        latency_s=40.0),
    ("r7", "t7", T("2026-09-07 10:30:00")): dict(user_action="regenerate", agree=True, latency_s=60.0),
    ("r8", "t8", T("2026-09-07 11:00:00")): dict(
        ai_bucket="infra", user_action="report-bug", implied_bucket="infra", agree=True, latency_s=180.0),
    ("r8", "t8", T("2026-09-07 11:01:00")): dict(
        ai_bucket="stale-script", user_action="regenerate", agree=True, latency_s=60.0),
    ("r9", "t9", T("2026-09-07 11:10:00")): dict(user_action="regenerate", agree=True, latency_s=10.0),
    ("r11", "t11", T("2026-09-07 12:00:00")): dict(
        family="regen", taxonomy="regen", ai_bucket="transient", ai_suggestion="retry", signals=["network-error"],
        user_action="retry", implied_bucket="transient", agree=True, latency_s=60.0, text="ECONNRESET while loading"),
    ("r12", "t12", T("2026-09-07 12:05:00")): dict(
        family="regen", taxonomy="regen", ai_bucket="agent-course", ai_suggestion="muggle-feedback",
        signals=["loop-on-modal"],
        user_action="share-ticket", implied_bucket="product-uxux", agree=False, latency_s=120.0,
        text="looped on the cookie modal"),
    (None, "t13", T("2026-09-07 13:00:00")): dict(
        family="pre-execution", taxonomy="preexec", ai_bucket="regen", ai_suggestion="regen",
        signals=["rule-2-ui-changed"], user_action=None, implied_bucket=None, decided=False, opt_out=False,
        agree=None, latency_s=None, text=None),
    (None, "t14", T("2026-09-07 13:05:00")): dict(
        family="pre-execution", taxonomy="preexec", ai_bucket="replay", ai_suggestion="replay",
        user_action="regen", implied_bucket="regen", decided=True, agree=False, latency_s=60.0),
    ("r15", "t15", T("2026-09-07 14:00:00")): dict(user_action="regenerate", agree=True, latency_s=0.0),
    ("r16", "t16", T("2026-09-13 23:59:59.999")): dict(
        week=MON, user_action="share-ticket", implied_bucket="product-defect", agree=True, latency_s=1.001,
        resolved_ts=T("2026-09-14 00:00:01")),
    ("r17", "t17", T("2026-09-08 10:00:00")): dict(
        week=MON, user_action="share-sms", agree=True, latency_s=45.0, resolved_ts=T("2026-09-08 10:00:45")),
}


@pytest.fixture(scope="module")
def decisions() -> dict:
    tel = load(FIXTURE)
    df = tel.decisions.pl()
    orphans = tel.sql("SELECT run_id, ts, user_action FROM orphan_resolutions ORDER BY ts").fetchall()
    first_id = tel.sql("SELECT event_id FROM events WHERE line = 1").fetchall()[0][0]
    types = [(c, t) for c, t, *_ in tel.sql("DESCRIBE decisions").fetchall()]
    tel.close()
    return {"df": df, "orphans": orphans, "first_id": first_id, "types": types}


def test_columns_and_types_are_the_contract(decisions: dict) -> None:
    assert decisions["types"] == [(c, t) for c, t, _ in DECISIONS_COLUMNS]


def test_one_row_per_classified_event(decisions: dict) -> None:
    df = decisions["df"]
    keys = {(r["run_id"], r["test_case_id"], r["ts"]) for r in df.iter_rows(named=True)}
    assert df.height == len(EXPECTED) == 17  # the exact duplicate line counts once
    assert keys == set(EXPECTED)


@pytest.mark.parametrize("key", list(EXPECTED), ids=lambda k: f"{k[0]}-{k[1]}-{k[2]:%H%M%S}")
def test_row_values_match_the_hand_computed_ones(decisions: dict, key: tuple) -> None:
    rows = [r for r in decisions["df"].iter_rows(named=True) if (r["run_id"], r["test_case_id"], r["ts"]) == key]
    assert len(rows) == 1
    row = rows[0]
    defaults = dict(family="replay", taxonomy="replay", skill="muggle-test", week=MON, decided=True, opt_out=False)
    for col, want in {**defaults, **EXPECTED[key]}.items():
        got = row[col]
        if col == "latency_s" and want is not None:
            assert got == pytest.approx(want, abs=1e-9), col
        else:
            assert got == want, col
    if row["decided"]:
        assert row["resolved_ts"] == row["ts"] + timedelta(seconds=row["latency_s"])
    assert json.loads(row["metadata"]) if row["metadata"] is not None else True


def test_rates_from_the_rows(decisions: dict) -> None:
    df = decisions["df"]
    agree = [a for a in df["agree"].to_list() if a is not None]
    assert Fraction(sum(agree), len(agree)) == Fraction(10, 14)
    decided = df.filter(df["decided"])
    assert Fraction(int(decided["opt_out"].sum()), decided.height) == Fraction(1, 15)
    labels = df.filter(df["implied_bucket"].is_not_null())
    assert labels.height == 13  # all decided rows but the skip and the retry


def test_orphans_and_duplicates_pair_with_nothing(decisions: dict) -> None:
    assert decisions["orphans"] == [
        ("r9", T("2026-09-07 11:10:12"), "regenerate"),  # the second click
        ("r10", T("2026-09-07 11:20:00"), "report-bug"),  # no classification before it
    ]


def test_event_id_is_the_classified_line_hash(decisions: dict) -> None:
    df = decisions["df"]
    first = df.filter((df["run_id"] == "r1"))["event_id"].to_list()
    assert first == [decisions["first_id"]]
    assert df["event_id"].n_unique() == df.height


def _reference_pairs(events: list[dict]) -> dict[tuple, object]:
    """Each resolution takes the latest classification at or before it that is not taken."""
    out: dict[tuple, object] = {}
    by_key: dict[tuple, list[dict]] = {}
    for e in events:
        by_key.setdefault((e["runId"], e["testCaseId"]), []).append(e)
    for key, evs in by_key.items():
        evs.sort(key=lambda e: (e["ts"], e["eventType"].endswith("resolved")))
        open_: list[dict] = []
        for e in evs:
            if e["eventType"].endswith("classified"):
                open_.append(e)
                out[(*key, e["ts"])] = None
            elif open_:
                c = open_.pop()
                out[(*key, c["ts"])] = e["ts"]
    return out


def test_pairing_matches_a_reference_on_random_sequences(tmp_path: Path) -> None:
    rng = random.Random(20260907)
    events = []
    base = datetime(2026, 9, 7, 8, 0, 0)
    for k in range(300):
        n = rng.randint(1, 9)
        times = sorted(rng.sample(range(0, 3600), n))
        for t in times:
            kind = rng.choice(("classified", "classified", "resolved"))
            rec = {"ts": (base + timedelta(seconds=t)).isoformat(timespec="milliseconds") + "Z",
                   "eventType": f"replay-failure-{kind}", "skillName": "muggle-test", "runId": f"run-{k}",
                   "testCaseId": f"tc-{k % 7}"}
            rec["aiClassification" if kind == "classified" else "userAction"] = (
                "stale-script" if kind == "classified" else rng.choice(("regenerate", "skip", "report-bug")))
            events.append(rec)
    # a resolution at the very instant of a classification still pairs with it
    events.append({"ts": "2026-09-07T08:00:00.000Z", "eventType": "replay-failure-resolved", "skillName": "s",
                   "runId": "tie", "testCaseId": "t", "userAction": "regenerate"})
    events.append({"ts": "2026-09-07T08:00:00.000Z", "eventType": "replay-failure-classified", "skillName": "s",
                   "runId": "tie", "testCaseId": "t", "aiClassification": "infra"})
    lines = [json.dumps(e) for e in events]
    rng.shuffle(lines)  # file order says nothing; time does
    f = tmp_path / "random.jsonl"
    f.write_text("\n".join(lines) + "\n")
    tel = load(f)
    got = {
        (run, tc, ts.isoformat(timespec="milliseconds") + "Z"):
            (None if rts is None else rts.isoformat(timespec="milliseconds") + "Z")
        for run, tc, ts, rts in tel.sql("SELECT run_id, test_case_id, ts, resolved_ts FROM decisions").fetchall()
    }
    want = _reference_pairs(events)
    assert got == want
    assert got[("tie", "t", "2026-09-07T08:00:00.000Z")] == "2026-09-07T08:00:00.000Z"
    n_res = sum(e["eventType"].endswith("resolved") for e in events)
    n_paired = sum(v is not None for v in want.values())
    assert tel.sql("SELECT count(*) FROM orphan_resolutions").fetchall()[0][0] == n_res - n_paired


def test_action_spelling_drift_is_read_as_the_action(tmp_path: Path) -> None:
    """``Share_Email`` is ``share-email``, as signal names are normalised; a blank action abstains."""
    def pair(run: str, suggestion: str | None, action: str) -> list[dict]:
        c = {"ts": f"2026-09-07T10:{run[-1]}0:00.000Z", "eventType": "replay-failure-classified", "skillName": "s",
             "runId": run, "testCaseId": "t", "aiClassification": "product-defect"}
        if suggestion is not None:
            c["aiSuggestion"] = suggestion
        r = {"ts": f"2026-09-07T10:{run[-1]}1:00.000Z", "eventType": "replay-failure-resolved", "skillName": "s",
             "runId": run, "testCaseId": "t", "userAction": action}
        return [c, r]
    events = [*pair("r1", None, "Share_Email"), *pair("r2", "Share Defect", "share-sms"),
              *pair("r3", None, " REGENERATE "), *pair("r4", None, ""), *pair("r5", None, "Skip")]
    f = tmp_path / "drift.jsonl"
    f.write_text("".join(json.dumps(e) + "\n" for e in events))
    rows = load(f).sql("SELECT run_id, ai_suggestion, user_action, implied_bucket, decided, opt_out, agree "
                       "FROM decisions ORDER BY run_id").fetchall()
    assert rows == [
        ("r1", "share-defect", "share-email", "product-defect", True, False, True),
        ("r2", "share-defect", "share-sms", "product-defect", True, False, True),
        ("r3", "share-defect", "regenerate", "stale-script", True, False, False),
        ("r4", "share-defect", None, None, True, False, None),
        ("r5", "share-defect", "skip", None, True, True, None),
    ]


def test_optional_bucket_and_action_keep_the_event_and_abstain(tmp_path: Path) -> None:
    """``aiClassification`` and ``userAction`` are optional keys: a classification that names
    no bucket, a resolution that names no action, and a pre-execution override that carries
    only its ``userAction`` are good events. Their agreement cannot be judged, so it is NULL."""
    def ev(minute: int, event_type: str, run: str, **keys: str) -> dict:
        return {"ts": f"2026-09-07T10:{minute:02d}:00.000Z", "eventType": event_type, "skillName": "s",
                "runId": run, "testCaseId": "t", **keys}
    events = [
        ev(0, "replay-failure-classified", "r1"), ev(1, "replay-failure-resolved", "r1", userAction="regenerate"),
        ev(2, "replay-failure-classified", "r2", aiClassification="infra"), ev(3, "replay-failure-resolved", "r2"),
        ev(4, "pre-execution-classification", "r3", aiClassification="replay"),
        ev(5, "pre-execution-classification", "r3", userAction="regen"),
    ]
    f = tmp_path / "optional.jsonl"
    f.write_text("".join(json.dumps(e) + "\n" for e in events))
    tel = load(f)
    assert tel.sql("SELECT count(*) FROM quarantine").fetchall() == [(0,)]
    assert tel.sql("SELECT count(*) FROM events").fetchall() == [(len(events),)]
    rows = tel.sql("SELECT run_id, ai_bucket, ai_suggestion, user_action, implied_bucket, decided, agree "
                   "FROM decisions ORDER BY run_id").fetchall()
    assert rows == [
        ("r1", None, None, "regenerate", "stale-script", True, None),
        ("r2", "infra", "report-bug", None, None, True, None),
        ("r3", "replay", "replay", "regen", "regen", True, False),
    ]
