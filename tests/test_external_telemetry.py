"""Telemetry written the way other tools write seed 000's failure events.

The events here come from a small writer in this file, written from seed 000's format
(§B, §C, §A and §D), not from :mod:`failtax.telemetry.simulate`: its own skills, ids and
timestamps (with and without milliseconds, ``Z``, ``+00:00`` and ``+02:00``), signal
names spelled with underscores or in upper case, optional keys absent or ``""``, keys in
another order, resolutions seconds to hours later, classifications never resolved,
duplicate and broken lines, one file gzipped. The expected numbers are counted here
from what the writer wrote, then compared with what failtax computes from the files.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random
from pathlib import Path

from failtax.analysis import find_misleading_signals, measure_agreement
from failtax.telemetry import load

START = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)  # a Monday
WEEKS = 12

# The shipped replay table's routes in order (first match wins) and its fallback.
ROUTES = [
    ("infra", {"electron-crash", "chromium-error", "timeout-on-trivial-wait", "internal-error-in-mcp-output"}),
    ("product-defect", {"network-500-from-app", "unexpected-error-toast"}),
    ("stale-script", {"element-not-found", "selector-timeout", "label-path-mismatch", "nav-target-404"}),
    ("product-defect", {"assertion-failed-on-passing-step", "wrong-page-after-action"}),
]
SIGNALS = {
    "infra": ["electron-crash", "chromium-error", "timeout-on-trivial-wait", "internal-error-in-mcp-output"],
    "stale-script": ["element-not-found", "selector-timeout", "label-path-mismatch", "nav-target-404"],
    "product-defect": ["assertion-failed-on-passing-step", "unexpected-error-toast", "wrong-page-after-action",
                       "network-500-from-app"],
}
SUGGESTION = {"infra": "report-bug", "stale-script": "regenerate", "product-defect": "share-defect"}
CARRY_OUT = {"report-bug": {"report-bug"}, "regenerate": {"regenerate"},
             "share-defect": {"share-defect", "share-email", "share-sms", "share-ticket"}}
DO = {"infra": ["report-bug"], "stale-script": ["regenerate"], "product-defect": ["share-email", "share-ticket"]}
IMPLIES = {"report-bug": "infra", "regenerate": "stale-script", "share-defect": "product-defect",
           "share-email": "product-defect", "share-ticket": "product-defect"}


def _route(signals: list[str]) -> tuple[str, set[str]]:
    for bucket, names in ROUTES:
        if names & set(signals):
            return bucket, names & set(signals)
    return "product-defect", set()


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


def write_replay_telemetry(folder: Path, *, events: int, seed: int, misleading: str | None = None,
                           to_bucket: str = "infra", from_week: int = 0, companions: float = 0.25) -> list[dict]:
    """Write replay failure events to four files in ``folder``; return what was written.

    With ``misleading``, people send 75% of the events that signal decides to
    ``to_bucket`` (from week ``from_week`` on: a drift); otherwise they follow the table
    88% of the time. ``companions``: share of events naming a second signal.
    """
    rng = random.Random(seed)
    per_file: dict[str, list[tuple[dt.datetime, str]]] = {m: [] for m in ("ws-1", "ws-2", "ci", "laptop")}
    truth = []
    for i in range(events):
        t = START + dt.timedelta(seconds=rng.uniform(0, WEEKS * 7 * 86400 - 86400))
        signals = [rng.choice(SIGNALS[rng.choice(list(SIGNALS))])]
        if rng.random() < companions:
            signals.append(rng.choice(SIGNALS[rng.choice(list(SIGNALS))]))
        signals = list(dict.fromkeys(signals))
        bucket, deciding = _route(signals)
        true_bucket = bucket
        if misleading in deciding and (t - START).days // 7 >= from_week and rng.random() < 0.75:
            true_bucket = to_bucket
        elif rng.random() < 0.12:
            true_bucket = rng.choice([b for b in SUGGESTION if b != bucket])
        r = rng.random()
        action = "skip" if r < 0.1 else "retry" if r < 0.16 else rng.choice(DO[true_bucket])
        run, tc = f"{rng.getrandbits(48):012x}", f"case/{rng.randint(1, 500)}"
        ev = {"ts": _ts(rng, t), "eventType": "replay-failure-classified", "skillName": rng.choice(["ui-check", "nightly"]),
              "aiClassification": bucket, "aiSuggestion": SUGGESTION[bucket], "runId": run, "testCaseId": tc,
              "projectId": rng.choice(["shop", "admin", ""]), "signals": [_spell(rng, s) for s in signals],
              "metadata": {"failingStep": f"step {rng.randint(1, 9)}"}}
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
               "action": action if decided else None, "latency": None}
        if decided:
            lat = round(min(max(rng.lognormvariate(3.5, 1.6), 3.0), 6 * 3600.0))
            tr = t.replace(microsecond=0) + dt.timedelta(seconds=lat + 1)
            res = {"ts": tr.strftime("%Y-%m-%dT%H:%M:%SZ"), "eventType": "replay-failure-resolved",
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
        if e["decided"] and IMPLIES.get(e["action"]) == bucket and signal in _route(e["signals"])[1]
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
