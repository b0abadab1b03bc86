"""Telemetry written the way other tools write seed 000's failure events.

The events here come from a small writer in this file, written from seed 000's format
(§B, §C, §A and §D), not from :mod:`failtax.telemetry.simulate`: its own skills, ids and
timestamps (with and without milliseconds, ``Z``, ``+00:00`` and ``+02:00``), signal
names spelled with underscores or in upper case, optional keys absent or ``""``, keys in
another order, resolutions seconds to hours later, classifications never resolved,
duplicate and broken lines, one file gzipped. The expected numbers are counted here
from what the writer wrote, then compared with what failtax computes from the files.

The writer also plants the defects the analysis and the tuner are for, on replay (§B)
and regen (§C) events: a misleading signal, a signal missing from the table, a rule
ordered too early, and a drift. Each planted data set has a clean counterpart on which
nothing may be found or changed.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from failtax.analysis import diagnose_rules, find_misleading_signals, measure_agreement, reclassify
from failtax.classify import classify
from failtax.telemetry import load

START = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)  # a Monday
WEEKS = 12


@dataclass(frozen=True)
class Family:
    """What a writer of one event family knows: the tool's table as it ships (routes in
    order, first match wins, and the fallback), the signals it emits per bucket, the
    suggestion per bucket, the actions people take, and which actions carry out or
    imply what."""

    name: str
    routes: tuple[tuple[str, str, frozenset[str]], ...]  # (route id, bucket, signals)
    fallback: str
    signals: dict[str, list[str]]
    suggestion: dict[str, str]
    carry_out: dict[str, set[str]]
    do: dict[str, list[str]]
    implies: dict[str, str]
    no_label: str  # an action that implies no bucket (besides "skip")

    def metadata(self, rng: random.Random) -> dict:
        if self.name == "replay":
            return {"failingStep": f"step {rng.randint(1, 9)}"}
        return {"stepsCompleted": rng.randint(0, 14)}


# The shipped replay table's routes in order (first match wins) and its fallback.
REPLAY = Family(
    name="replay",
    routes=(
        ("infra", "infra", frozenset({"electron-crash", "chromium-error", "timeout-on-trivial-wait",
                                      "internal-error-in-mcp-output"})),
        ("app-error-page", "product-defect", frozenset({"network-500-from-app", "unexpected-error-toast"})),
        ("stale-script", "stale-script", frozenset({"element-not-found", "selector-timeout", "label-path-mismatch",
                                                    "nav-target-404"})),
        ("product-defect", "product-defect", frozenset({"assertion-failed-on-passing-step",
                                                        "wrong-page-after-action"})),
    ),
    fallback="product-defect",
    signals={
        "infra": ["electron-crash", "chromium-error", "timeout-on-trivial-wait", "internal-error-in-mcp-output"],
        "stale-script": ["element-not-found", "selector-timeout", "label-path-mismatch", "nav-target-404"],
        "product-defect": ["assertion-failed-on-passing-step", "unexpected-error-toast", "wrong-page-after-action",
                           "network-500-from-app"],
    },
    suggestion={"infra": "report-bug", "stale-script": "regenerate", "product-defect": "share-defect"},
    carry_out={"report-bug": {"report-bug"}, "regenerate": {"regenerate"},
               "share-defect": {"share-defect", "share-email", "share-sms", "share-ticket"}},
    do={"infra": ["report-bug"], "stale-script": ["regenerate"], "product-defect": ["share-email", "share-ticket"]},
    implies={"report-bug": "infra", "regenerate": "stale-script", "share-defect": "product-defect",
             "share-email": "product-defect", "share-ticket": "product-defect"},
    no_label="retry",
)

# The shipped regen table's routes (seed 000 §C), as far as this writer's signals go.
REGEN = Family(
    name="regen",
    routes=(
        ("infra", "infra", frozenset({"electron-mcp-handler-crash", "internal-validation-error", "pipeline-stuck",
                                      "identical-failure-repeated"})),
        ("product-uxux", "product-uxux", frozenset({"server-5xx", "page-not-found", "element-provably-absent",
                                                    "product-broken"})),
        ("agent-course", "agent-course", frozenset({"loop-on-modal", "picked-wrong-element", "repeated-same-action",
                                                    "no-real-progress"})),
        ("transient", "transient", frozenset({"network-error", "llm-rate-limit", "single-tool-call-error",
                                              "partial-progress-then-died"})),
        ("goal-not-achievable", "agent-course", frozenset({"goal-not-achievable"})),
    ),
    fallback="agent-course",
    signals={
        "transient": ["network-error", "llm-rate-limit", "single-tool-call-error", "partial-progress-then-died"],
        "infra": ["electron-mcp-handler-crash", "internal-validation-error", "pipeline-stuck",
                  "identical-failure-repeated"],
        "agent-course": ["loop-on-modal", "picked-wrong-element", "repeated-same-action", "no-real-progress",
                         "goal_not_achievable"],
        "product-uxux": ["server-5xx", "page-not-found", "element-provably-absent", "product-broken"],
    },
    suggestion={"transient": "retry", "infra": "report-bug", "agent-course": "muggle-feedback",
                "product-uxux": "wait-and-share"},
    carry_out={"retry": {"retry"}, "report-bug": {"report-bug"}, "muggle-feedback": {"muggle-feedback"},
               "wait-and-share": {"wait-and-share", "share-defect", "share-email", "share-sms", "share-ticket"}},
    do={"transient": ["retry"], "infra": ["report-bug"], "agent-course": ["muggle-feedback"],
        "product-uxux": ["wait-and-share", "share-email", "share-ticket"]},
    implies={"retry": "transient", "report-bug": "infra", "muggle-feedback": "agent-course",
             "wait-and-share": "product-uxux", "share-email": "product-uxux", "share-ticket": "product-uxux"},
    no_label="edit-test-case",
)

# kept for the checks below that speak of the replay family only
SIGNALS, SUGGESTION, CARRY_OUT, IMPLIES = REPLAY.signals, REPLAY.suggestion, REPLAY.carry_out, REPLAY.implies


def _name(signal: str) -> str:
    """A signal's one name, however it was written (``goal_not_achievable``)."""
    return signal.replace("_", "-").lower()


def _route(signals: list[str], family: Family = REPLAY) -> tuple[str, str, set[str]]:
    """The deciding route (``fallback`` when none), its bucket and the signals it matched."""
    names = {_name(s) for s in signals}
    for rid, bucket, known in family.routes:
        if known & names:
            return rid, bucket, known & names
    return "fallback", family.fallback, set()


def _ts(rng: random.Random, t: dt.datetime) -> str:
    ms = f"{t.microsecond // 1000:03d}"
    return rng.choice([
        t.strftime("%Y-%m-%dT%H:%M:%S.") + ms + "Z",
        t.strftime("%Y-%m-%dT%H:%M:%SZ"),
        t.strftime("%Y-%m-%dT%H:%M:%S.") + ms + "+00:00",
        t.strftime("%Y-%m-%dT%H:%M:%S+00:00"),
        (t + dt.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S.") + ms + "+02:00",
    ])


def _spell(rng: random.Random, name: str) -> str:
    return rng.choice([name, name, name, name.replace("-", "_"), name.upper(), name.replace("-", "_").upper()])


def write_telemetry(folder: Path, family: Family = REPLAY, *, events: int, seed: int, misleading: str | None = None,
                    to_bucket: str = "infra", from_week: int = 0, companions: float = 0.25,
                    missing: tuple[str, str] | None = None, too_early: tuple[str, str] | None = None,
                    pair: tuple[str, str, float] | None = None, share: float = 0.75) -> list[dict]:
    """Write failure events of ``family`` to four files in ``folder``; return what was written.

    People follow the table 88% of the time and send the rest to another bucket, except
    for a planted defect, where they send a ``share`` of the events it concerns to
    another bucket (and the rest as usual):

    - ``misleading``: events that signal decided go to ``to_bucket`` (from week
      ``from_week`` on: a drift);
    - ``missing=(signal, bucket)``: the tool also emits ``signal`` (as often as each
      signal of ``bucket``), which the table does not know; events it is on and that no
      route decides (they fall to the fallback) go to ``bucket``;
    - ``too_early=(a, b)``: events decided by ``a``'s route that also carry ``b``, whose
      route comes later, go to ``b``'s bucket.

    ``companions``: share of events naming a second signal at random; ``pair=(a, b, q)``:
    an event whose first signal is ``a`` also names ``b`` with probability ``q``.
    """
    rng = random.Random(seed)
    pools = {b: list(names) for b, names in family.signals.items()}
    if missing:
        pools[missing[1]].append(missing[0])
    per_file: dict[str, list[tuple[dt.datetime, str]]] = {m: [] for m in ("ws-1", "ws-2", "ci", "laptop")}
    truth = []
    for i in range(events):
        t = START + dt.timedelta(seconds=rng.uniform(0, WEEKS * 7 * 86400 - 86400))
        signals = [rng.choice(pools[rng.choice(list(pools))])]
        if pair and signals[0] == pair[0] and rng.random() < pair[2]:
            signals.append(pair[1])
        if rng.random() < companions:
            signals.append(rng.choice(pools[rng.choice(list(pools))]))
        signals = list(dict.fromkeys(signals))
        rid, bucket, deciding = _route(signals, family)
        names = {_name(s) for s in signals}
        planted = None
        if misleading in deciding and (t - START).days // 7 >= from_week:
            planted = to_bucket
        elif missing and rid == "fallback" and missing[0] in names:
            planted = missing[1]
        elif too_early and too_early[0] in deciding and too_early[1] in names:
            planted = _route([too_early[1]], family)[1]
        true_bucket = bucket
        if planted and rng.random() < share:
            true_bucket = planted
        elif rng.random() < 0.12:
            true_bucket = rng.choice([b for b in family.suggestion if b != bucket])
        r = rng.random()
        action = "skip" if r < 0.1 else family.no_label if r < 0.16 else rng.choice(family.do[true_bucket])
        run, tc = f"{rng.getrandbits(48):012x}", f"case/{rng.randint(1, 500)}"
        ev = {"ts": _ts(rng, t), "eventType": f"{family.name}-failure-classified",
              "skillName": rng.choice(["ui-check", "nightly"]),
              "aiClassification": bucket, "aiSuggestion": family.suggestion[bucket], "runId": run, "testCaseId": tc,
              "projectId": rng.choice(["shop", "admin", ""]), "signals": [_spell(rng, s) for s in signals],
              "metadata": family.metadata(rng)}
        if rng.random() < 0.05:
            del ev["aiSuggestion"]  # the bucket's default suggestion is meant
        if rng.random() < 0.2:
            keys = list(ev)
            rng.shuffle(keys)
            ev = {k: ev[k] for k in keys}
        decided = rng.random() > 0.08
        machine = rng.choice(list(per_file))
        per_file[machine].append((t, json.dumps(ev, separators=rng.choice([(",", ":"), (", ", ": ")]))))
        rec = {"ts": ev["ts"], "bucket": bucket, "signals": signals, "decided": decided,
               "action": action if decided else None, "latency": None, "planted": planted}
        if decided:
            lat = round(min(max(rng.lognormvariate(3.5, 1.6), 3.0), 6 * 3600.0))
            tr = t.replace(microsecond=0) + dt.timedelta(seconds=lat + 1)
            res = {"ts": tr.strftime("%Y-%m-%dT%H:%M:%SZ"), "eventType": f"{family.name}-failure-resolved",
                   "skillName": ev["skillName"], "aiClassification": "", "aiSuggestion": "",
                   "userAction": action, "runId": run, "testCaseId": tc}
            per_file[machine].append((tr, json.dumps(res)))
            rec["latency"] = (tr - _parse(ev["ts"])).total_seconds()
        truth.append(rec)
    for n, (machine, rows) in enumerate(per_file.items()):
        lines = []
        for _, line in sorted(rows):
            lines.append(line)
            r = rng.random()
            if r < 0.01:
                lines.append(line)  # an exact duplicate
            elif r < 0.015:
                lines.append(line[: len(line) // 2])  # a torn copy
        body = ("\n".join(lines) + "\n").encode()
        if n == 0:
            (folder / f"{machine}.jsonl.gz").write_bytes(gzip.compress(body))
        else:
            (folder / f"{machine}.jsonl").write_bytes(body)
    return truth


def write_replay_telemetry(folder: Path, **kwargs) -> list[dict]:
    """Replay failure events (see :func:`write_telemetry`)."""
    return write_telemetry(folder, REPLAY, **kwargs)


def _parse(ts: str) -> dt.datetime:
    return dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _expected(truth: list[dict]) -> dict[str, int]:
    decided = [e for e in truth if e["decided"]]
    rated = [e for e in decided if e["action"] != "skip"]
    return {
        "n_events": len(truth),
        "n_decided": len(decided),
        "n_rated": len(rated),
        "n_agree": sum(e["action"] in CARRY_OUT[SUGGESTION[e["bucket"]]] for e in rated),
        "n_opt_out": len(decided) - len(rated),
        "n_labelled": sum(e["action"] in IMPLIES for e in decided),
    }


def test_agreement_counts_match_what_the_writer_wrote(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    truth = write_replay_telemetry(folder, events=1200, seed=7)
    tel = load([str(folder)], db=str(tmp_path / "t.duckdb"))
    report = measure_agreement(tel.decisions, taxonomy="replay").to_dict()
    assert {k: report["overall"][k] for k in _expected(truth)} == _expected(truth)
    # per signal, counted from the names as written (any spelling is one signal)
    by_signal = {s["signal"]: s for s in report["slices"]["signal"]}
    for name in ("selector-timeout", "electron-crash", "network-500-from-app"):
        want = _expected([e for e in truth if name in e["signals"]])
        assert {k: by_signal[name][k] for k in want} == want, name
    lat = tel.sql("SELECT latency_s FROM decisions WHERE decided").fetchall()
    assert sorted(x for (x,) in lat) == sorted(e["latency"] for e in truth if e["decided"])


def test_planted_misleading_signal_found_and_clean_data_quiet(tmp_path: Path) -> None:
    for name, misleading in (("planted", "selector-timeout"), ("clean", None)):
        folder = tmp_path / name
        folder.mkdir()
        write_replay_telemetry(folder, events=2500, seed=11, misleading=misleading)
        tel = load([str(folder)], db=str(tmp_path / f"{name}.duckdb"))
        found = find_misleading_signals(tel.decisions, taxonomy="replay").signals
        flagged = found.filter(found["misleading"] | found["fallback_wrong"])
        if misleading:
            assert flagged["signal"].to_list() == ["selector-timeout"]
            assert flagged["override_to"].to_list() == ["infra"]
        else:
            assert flagged.height == 0, flagged


def _preexec(ts: str, **extra: str) -> str:
    ev = {"ts": ts, "eventType": "pre-execution-classification", "skillName": "muggle-test",
          "aiClassification": "regen", "aiSuggestion": "regen", "testCaseId": "login", "projectId": "shop",
          "signals": ["rule-2-ui-changed"], "metadata": {"lastPassedAgeDays": 3, "changedFilesMatched": []}}
    ev.update(extra)
    return json.dumps(ev)


def test_preexec_classification_written_with_empty_user_action(tmp_path: Path) -> None:
    """A writer that fills every key of the template writes ``"userAction": ""`` on the
    classification: it is still the classification, and the override that follows is
    its decision, not an orphan."""
    path = tmp_path / "preexec.jsonl"
    path.write_text("\n".join([
        _preexec("2026-06-02T09:00:00.000Z", userAction=""),
        _preexec("2026-06-02T09:00:40Z", userAction="replay"),
        _preexec("2026-06-03T09:00:00+00:00", userAction="", testCaseId="checkout"),
    ]) + "\n")
    tel = load([str(path)], db=str(tmp_path / "p.duckdb"))
    rows = tel.sql("SELECT test_case_id, decided, user_action, agree, latency_s FROM decisions "
                   "ORDER BY ts").fetchall()
    assert rows == [("login", True, "replay", False, 40.0), ("checkout", False, None, None, None)]
    assert tel.sql("SELECT count(*) FROM orphan_resolutions").fetchall() == [(0,)]
    assert tel.summary.totals["decisions"] == 2


def _drift_labels(truth: list[dict], signal: str, bucket: str, from_week: int) -> int:
    """Labelled decisions of ``bucket`` where ``signal`` decided, from ``from_week`` on."""
    return sum(
        1 for e in truth
        if e["decided"] and IMPLIES.get(e["action"]) == bucket and signal in _route(e["signals"])[2]
        and (_parse(e["ts"]) - START).days // 7 >= from_week
    )


def test_tuner_keeps_the_labels_of_a_drift_seen_with_varying_companions(tmp_path: Path) -> None:
    """From week 8 people send nav-target-404 to product-defect. The signal comes alone
    or with one of a dozen companions, so its signal sets in a week are mostly one or two
    events: the drift's labels must not be dropped as slips for being alone in their set.
    On the same telemetry without the drift the tuner proposes nothing."""
    from failtax.tune import TableTuner

    for name, drifted in (("drift", "nav-target-404"), ("clean", None)):
        folder = tmp_path / name
        folder.mkdir()
        truth = write_replay_telemetry(folder, events=3000, seed=3, misleading=drifted, to_bucket="product-defect",
                                       from_week=8, companions=0.6)
        tuner = TableTuner("replay").fit(load([str(folder)]).decisions.pl())
        if drifted is None:
            assert tuner.changes_ == ()
            continue
        [change] = tuner.changes_
        assert (change.signals, change.to_bucket) == (("nav-target-404",), "product-defect")
        assert change.since is not None and (change.since - START.date()).days // 7 in (7, 8, 9)
        # every product-defect label of the drift weeks is a win: none was dropped as a slip
        assert change.wins >= _drift_labels(truth, "nav-target-404", "product-defect", 8) - 2


# --------------------------------------------------------------------------- planted defects
#
# Each planted data set has a clean counterpart from the same writer, size and seed:
# the same signals emitted as often (the missing signal, the pair of the early rule),
# but people treat them as the shipped table does. The sizes are where the planted
# evidence is visible: with a quarter of the concerned events decided as the table says,
# a too-early pair at 2,000-3,000 events sometimes draws 30 of 51 or 48 of 78 labels for
# the later route, which the tuner's family-wise test rightly does not accept.

MISSING_REPLAY = ("stale-element-reference", "stale-script")  # Selenium's StaleElementReferenceException
MISSING_REGEN = ("browser-context-closed", "infra")
EARLY_REPLAY = ("timeout-on-trivial-wait", "selector-timeout")  # a wait that timed out on a moved selector
EARLY_REGEN = ("page-not-found", "picked-wrong-element")  # the agent followed the wrong link to a 404

# (case, family, writer arguments, defect kind, signal(s), bucket people choose)
DEFECTS = {
    "replay-missing": (REPLAY, {"missing": MISSING_REPLAY}, "missing", MISSING_REPLAY[0], "stale-script"),
    "replay-early": (REPLAY, {"too_early": EARLY_REPLAY, "pair": (*EARLY_REPLAY, 0.4)}, "early", EARLY_REPLAY,
                     "stale-script"),
    "regen-misleading": (REGEN, {"misleading": "element-provably-absent", "to_bucket": "agent-course"}, "misleading",
                         "element-provably-absent", "agent-course"),
    "regen-missing": (REGEN, {"missing": MISSING_REGEN}, "missing", MISSING_REGEN[0], "infra"),
    "regen-early": (REGEN, {"too_early": EARLY_REGEN, "pair": (*EARLY_REGEN, 0.4)}, "early", EARLY_REGEN,
                    "agent-course"),
}
#: Each defect at a small and a large size, with its own seed.
CASES = [
    ("replay-missing", 2000, 1), ("replay-missing", 5000, 3),
    ("replay-early", 3000, 1), ("replay-early", 5000, 5),
    ("regen-misleading", 2000, 1), ("regen-misleading", 5000, 4),
    ("regen-missing", 3000, 1), ("regen-missing", 5000, 2),
    ("regen-early", 3000, 3), ("regen-early", 5000, 1),
]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Decisions (polars) and the writer's record of one case, planted or clean; cached."""
    cache: dict[tuple, tuple] = {}

    def get(case: str, events: int, seed: int, planted: bool):
        key = (case, events, seed, planted)
        if key not in cache:
            family, kwargs, *_ = DEFECTS[case]
            folder = tmp_path_factory.mktemp(f"{case}-{events}-{seed}-{'planted' if planted else 'clean'}")
            truth = write_telemetry(folder, family, events=events, seed=seed, **kwargs,
                                    **({} if planted else {"share": 0.0}))
            with load([str(folder)]) as tel:
                cache[key] = (tel.decisions.pl(), truth)
        return cache[key]

    return get


def _emitted(family: Family) -> list[str]:
    return [_name(s) for names in family.signals.values() for s in names]


def test_the_writer_routes_as_the_shipped_tables() -> None:
    """The writer's own copy of each table routes every signal it emits, alone or in
    pairs, as the shipped table does, and the missing signals are unknown to it."""
    from failtax.table import load_table

    for family, missing in ((REPLAY, MISSING_REPLAY[0]), (REGEN, MISSING_REGEN[0])):
        names = _emitted(family)
        for a in names:
            for b in names:
                got = classify({"signals": list(dict.fromkeys([a, b]))}, taxonomy=family.name).bucket
                assert got == _route([a, b], family)[1], (family.name, a, b)
        assert missing not in load_table(family.name).signals
        assert classify({"signals": [missing]}, taxonomy=family.name).bucket == family.fallback


def _planted_labels(truth: list[dict], family: Family) -> tuple[int, int]:
    """Labelled decisions the defect concerns, and those sent to its bucket."""
    lab = [e for e in truth if e["planted"] and e["decided"] and e["action"] in family.implies]
    return len(lab), sum(family.implies[e["action"]] == e["planted"] for e in lab)


@pytest.mark.parametrize(("case", "events", "seed"), CASES, ids=[f"{c}-{n}-seed{s}" for c, n, s in CASES])
def test_analysis_names_the_planted_defect(written, case, events, seed):
    family, _, kind, signal, bucket = DEFECTS[case]
    decisions, truth = written(case, events, seed, True)
    rc = reclassify(decisions, taxonomy=family.name)
    found = find_misleading_signals(rc)
    diag = diagnose_rules(rc)
    s = found.signals
    flagged = s.filter(pl.col("misleading") | pl.col("fallback_wrong"))
    first = signal[0] if kind == "early" else signal
    where = f"{case} {events} seed {seed}: planted labels {_planted_labels(truth, family)}\n{flagged}"
    assert flagged.select("signal", "override_to").rows() == [(first, bucket)], where
    row = flagged.row(0, named=True)
    assert (row["misleading"], row["fallback_wrong"]) == ((False, True) if kind == "missing" else (True, False)), where
    assert found.drift.filter(pl.col("drifted")).height == 0, found.drift
    shadow = diag.shadowing.filter(pl.col("flagged"))
    if kind == "missing":
        unknown = diag.unknown_signals.filter(pl.col("signal") == signal)
        assert unknown["top_implied_bucket"].to_list() == [bucket], diag.unknown_signals
        assert shadow.height == 0, shadow
    elif kind == "early":
        a, b = signal
        want = (_route([a], family)[0], a, _route([b], family)[0], b)
        assert shadow.select("rule", "signal", "shadowed_rule", "shadowed_signal").rows() == [want], shadow
    else:  # the misleading signal, where the route it should be in comes later, may show there too
        assert set(shadow["signal"]) <= {signal}, shadow


@pytest.mark.parametrize("seed", [10, 11, 15])
def test_a_rule_too_early_is_named_on_2000_events_too(written, seed):
    """At 2,000 events the planted pair meets on 27 to 60 labelled events, beside dozens
    of pairs of routes that the random companions bring together on a handful each. Those
    could never reach the corrected level and are not counted (Tarone); counted, they held
    these three seeds' shadowing under it. (The tuner, whose candidates all rest on
    enough events, still waits for more data here.)"""
    test_analysis_names_the_planted_defect(written, "regen-early", 2000, seed)


@pytest.mark.parametrize(("case", "events", "seed"), CASES, ids=[f"{c}-{n}-seed{s}" for c, n, s in CASES])
def test_tuner_makes_the_one_change_the_planted_defect_needs(written, case, events, seed):
    from failtax.tune import TableTuner

    family, _, kind, signal, bucket = DEFECTS[case]
    decisions, truth = written(case, events, seed, True)
    tuner = TableTuner(family.name, cv=None).fit(decisions)
    n_lab, n_to = _planted_labels(truth, family)
    where = f"{case} {events} seed {seed}: {n_to} of {n_lab} planted labels to {bucket}; {tuner.changes_}"
    assert len(tuner.changes_) == 1, where
    [change] = tuner.changes_
    want_kind = {"missing": "route-new-signal", "misleading": "reroute-signal", "early": "add-combination-route"}
    assert (change.kind, change.to_bucket, change.since) == (want_kind[kind], bucket, None), where
    signals = list(signal) if kind == "early" else [signal]
    assert set(signals) <= set(change.signals), where
    assert 0.8 * n_to <= change.wins <= n_to, where  # the planted labels, less a few dropped as slips
    table = tuner.table_
    assert classify({"signals": signals}, taxonomy=family.name, table=table).bucket == bucket
    # every other signal the tool emits keeps its bucket, alone and with the early rule's signal
    for s in _emitted(family):
        if s not in signals:
            assert classify({"signals": [s]}, taxonomy=family.name, table=table).bucket == _route([s], family)[1], s
            if kind == "early":
                both = [signals[0], s]
                assert classify({"signals": both}, taxonomy=family.name, table=table).bucket == _route(both, family)[1]


@pytest.mark.parametrize(("case", "events", "seed"), CASES, ids=[f"{c}-{n}-seed{s}" for c, n, s in CASES])
def test_clean_counterpart_finds_nothing_and_changes_nothing(written, case, events, seed):
    from failtax.tune import TableTuner

    family = DEFECTS[case][0]
    decisions, _ = written(case, events, seed, False)
    rc = reclassify(decisions, taxonomy=family.name)
    found = find_misleading_signals(rc)
    flagged = found.signals.filter(pl.col("misleading") | pl.col("fallback_wrong"))
    assert flagged.height == 0, flagged
    assert found.drift.filter(pl.col("drifted")).height == 0, found.drift
    assert diagnose_rules(rc).shadowing.filter(pl.col("flagged")).height == 0
    tuner = TableTuner(family.name, cv=None).fit(decisions)
    assert tuner.changes_ == (), tuner.changes_
    assert tuner.table_.route == tuner.base_table_.route


def _report(folder: Path, out: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from failtax.cli import main; main()", "report", "--telemetry", str(folder),
           "--out", str(out), "--taxonomy", "replay", "--no-progress"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, "NO_COLOR": "1"})


def test_report_names_the_planted_defects_and_nothing_on_clean_data(tmp_path: Path) -> None:
    """``failtax report`` on replay telemetry with a missing signal and a rule ordered too
    early (4,000 events): the summary names both signals and the bucket people chose,
    proposes the two changes, and writes a table that classifies as they say; on the
    clean counterpart it proposes nothing and names no signal."""
    from failtax.table import load_table

    kwargs = {"missing": MISSING_REPLAY, "too_early": EARLY_REPLAY, "pair": (*EARLY_REPLAY, 0.4)}
    for name, share in (("planted", 0.75), ("clean", 0.0)):
        logs = tmp_path / name / "logs"
        logs.mkdir(parents=True)
        write_telemetry(logs, REPLAY, events=4000, seed=21, share=share, **kwargs)
        out = tmp_path / name / "report"
        r = _report(logs, out)
        assert r.returncode == 0, r.stderr
        summary = json.loads((out / "summary.json").read_text())
        replay = summary["taxonomies"]["replay"]
        named = {(m["signal"], m["kind"], m["override_to"]) for m in replay["misleading_signals"] if m["kind"]}
        changes = {(c["kind"], tuple(c["signals"]), c["to_bucket"]) for c in replay["changes"]}
        html = (out / "index.html").read_text()
        if name == "clean":
            assert named == set() and changes == set(), (named, changes)
            assert not (out / "tables" / "replay.toml").exists()
            continue
        assert named == {(MISSING_REPLAY[0], "missing rule", "stale-script"),
                         (EARLY_REPLAY[0], "misleading", "stale-script")}, named
        assert changes == {("route-new-signal", (MISSING_REPLAY[0],), "stale-script"),
                           ("add-combination-route", EARLY_REPLAY, "stale-script")}, changes
        assert [u["signal"] for u in replay["unknown_signals"]] == [MISSING_REPLAY[0]]
        assert "route signal &#x27;stale-element-reference&#x27; to stale-script" in html
        assert "timeout-on-trivial-wait-and-selector-timeout" in html
        md = (out / "summary.md").read_text()
        assert f"| {MISSING_REPLAY[0]} | product-defect | stale-script |" in md
        assert f"| {EARLY_REPLAY[0]} | infra | stale-script |" in md
        table = load_table(str(out / "tables" / "replay.toml"))
        assert classify({"signals": [MISSING_REPLAY[0]]}, taxonomy="replay", table=table).bucket == "stale-script"
        assert classify({"signals": list(EARLY_REPLAY)}, taxonomy="replay", table=table).bucket == "stale-script"
        assert classify({"signals": [EARLY_REPLAY[0]]}, taxonomy="replay", table=table).bucket == "infra"
