"""The table tuner: estimator contract, hand-computed changes, no churn, planted defects."""

from __future__ import annotations

import functools

from datetime import date, datetime, timedelta

import numpy as np
import polars as pl
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from failtax.classify import classify
from failtax.errors import InputError
from failtax.table import RouteRule, load_table
from failtax.tune import RouteEdit, TableTuner, agreement_of, apply_changes, predict_buckets
from failtax.tune.synthetic import synthetic_decisions

START = datetime(2026, 9, 7)


@functools.lru_cache(maxsize=None)
def data(taxonomy: str, seed: int, defects: str, n: int = 3000) -> tuple[pl.DataFrame, dict]:
    """Seeded synthetic decisions (cached: several tests read the same sample)."""
    return synthetic_decisions(taxonomy, n_events=n, seed=seed, defects=defects, with_truth=True)


@functools.lru_cache(maxsize=None)
def fitted(taxonomy: str, seed: int, defects: str, n: int = 3000) -> TableTuner:
    return TableTuner(taxonomy, cv=None).fit(data(taxonomy, seed, defects, n)[0])


def frame(rows: list[tuple[list[str], str | None]], *, weeks: int = 4, start: datetime = START) -> pl.DataFrame:
    """Decisions from (signals, action) pairs, spread evenly over ``weeks`` weeks."""
    n = len(rows)
    ts = [start + timedelta(days=7 * weeks * i / max(1, n), hours=1) for i in range(n)]
    return pl.DataFrame(
        {
            "event_id": [f"e{i}" for i in range(n)],
            "taxonomy": ["replay"] * n,
            "ts": ts,
            "signals": [r[0] for r in rows],
            "user_action": [r[1] for r in rows],
            "text": [None] * n,
        },
        schema_overrides={"signals": pl.List(pl.Utf8), "text": pl.Utf8},
    )


def misleading_rows(k_wrong: int = 40, k_right: int = 60) -> list[tuple[list[str], str]]:
    # selector-timeout is routed to stale-script, but people share it as a product defect
    rows = [(["selector-timeout"], "share-email") for _ in range(k_wrong)]
    rows += [(["element-not-found"], "regenerate") for _ in range(k_right)]
    return rows


# --------------------------------------------------------------------------- estimator contract


def test_init_stores_arguments_unchanged_and_clone_round_trips():
    t = TableTuner("replay", min_support=7, alpha=0.01, min_gain=0.0, cv=None, random_state=3)
    params = t.get_params()
    assert params["taxonomy"] == "replay" and params["min_support"] == 7 and params["alpha"] == 0.01
    assert params["random_state"] == 3 and params["cv"] is None
    c = clone(t)
    assert c.get_params() == params and c is not t
    c.set_params(min_support=11)
    assert c.min_support == 11 and t.min_support == 7


def test_fit_returns_self_and_learned_state_ends_in_underscore():
    t = TableTuner("replay", cv=None, drop_suspect_labels=False)
    assert t.fit(frame(misleading_rows())) is t
    for name in ("table_", "changes_", "watch_", "predicted_agreement_", "base_table_", "n_events_"):
        assert hasattr(t, name)
    assert not any(k.endswith("_") for k in t.get_params())


def test_predict_before_fit_raises_not_fitted():
    with pytest.raises(NotFittedError):
        TableTuner("replay").predict(frame(misleading_rows()))


@pytest.mark.parametrize(
    "kwargs",
    [{"min_support": 0}, {"alpha": 1.5}, {"min_gain": -0.1}, {"cv": -1}],
)
def test_bad_parameters_are_refused_at_fit(kwargs):
    with pytest.raises(InputError):
        TableTuner("replay", **kwargs).fit(frame(misleading_rows()))


def test_missing_columns_are_named():
    with pytest.raises(InputError, match="user_action"):
        TableTuner("replay").fit(pl.DataFrame({"signals": [["a"]]}))


# --------------------------------------------------------------------------- hand-computed change


def test_misleading_signal_is_rerouted_with_hand_computed_evidence():
    t = TableTuner("replay", cv=None, drop_suspect_labels=False).fit(frame(misleading_rows(40, 60)))
    assert len(t.changes_) == 1
    c = t.changes_[0]
    assert c.kind == "reroute-signal" and c.signals == ("selector-timeout",) and c.to_bucket == "product-defect"
    # 40 moved decisions, all now carried out by the person's action, none lost
    assert (c.support, c.moved, c.wins, c.losses, c.n) == (40, 40, 40, 0, 100)
    assert c.gain == pytest.approx(40 / 100)
    assert c.p_value == pytest.approx(0.5**40)
    assert 0 < c.gain_low < c.gain <= c.gain_high
    assert c.moves == (("stale-script", "product-defect", 40),)
    pa = t.predicted_agreement_
    assert (pa.before.successes, pa.after.successes, pa.before.n) == (60, 100, 100)
    assert classify({"signals": ["selector-timeout"]}, taxonomy="replay", table=t.table_).bucket == "product-defect"
    assert classify({"signals": ["element-not-found"]}, taxonomy="replay", table=t.table_).bucket == "stale-script"
    assert t.table_.version == "1.1.0"


def test_change_below_min_support_is_refused_and_watched():
    t = TableTuner("replay", cv=None, drop_suspect_labels=False, min_support=10).fit(frame(misleading_rows(6, 60)))
    assert t.changes_ == ()
    assert t.table_.route == load_table("replay").route and t.table_.version == "1.0.0"
    assert any(w.signals == ("selector-timeout",) and "insufficient support" in w.reason for w in t.watch_)


def test_signal_spelling_is_normalised():
    rows = [(["Selector_Timeout"], "share-sms") for _ in range(30)] + [(["element not found"], "regenerate")] * 30
    t = TableTuner("replay", cv=None, drop_suspect_labels=False).fit(frame(rows))
    assert [c.signals for c in t.changes_] == [("selector-timeout",)]


def test_unknown_signal_is_routed_and_known_signals_keep_their_bucket():
    rows = [(["brand-new-signal"], "report-bug") for _ in range(30)]  # fallback is product-defect
    rows += [(["electron-crash"], "report-bug")] * 20 + [(["element-not-found"], "regenerate")] * 20
    t = TableTuner("replay", cv=None, drop_suspect_labels=False).fit(frame(rows))
    assert [c.kind for c in t.changes_] == ["route-new-signal"]
    assert classify({"signals": ["brand-new-signal"]}, taxonomy="replay", table=t.table_).bucket == "infra"
    assert classify({"signals": ["element-not-found"]}, taxonomy="replay", table=t.table_).bucket == "stale-script"


def test_pair_that_a_route_takes_too_early_gets_its_own_route():
    # electron-crash (infra route, first) with selector-timeout: people regenerate the script
    rows = [(["electron-crash", "selector-timeout"], "regenerate") for _ in range(30)]
    rows += [(["electron-crash"], "report-bug")] * 40 + [(["selector-timeout"], "regenerate")] * 40
    t = TableTuner("replay", cv=None, drop_suspect_labels=False).fit(frame(rows))
    assert len(t.changes_) == 1 and t.changes_[0].kind == "add-combination-route"
    tbl = t.table_
    assert classify({"signals": ["electron-crash", "selector-timeout"]}, taxonomy="replay", table=tbl).bucket == "stale-script"
    assert classify({"signals": ["electron-crash"]}, taxonomy="replay", table=tbl).bucket == "infra"


def test_a_companion_signal_the_data_does_not_need_is_left_out_of_the_route():
    # a new signal seen only beside element-not-found (routed to stale-script); people
    # report those as infra. A route for the pair and a route for the new signal alone
    # move the same events: the data does not need the companion, so the route names
    # the new signal alone, and element-not-found keeps its bucket.
    rows = [(["element-not-found", "renderer-gone"], "report-bug") for _ in range(40)]
    rows += [(["element-not-found"], "regenerate")] * 40 + [(["electron-crash"], "report-bug")] * 20
    t = TableTuner("replay", cv=None, drop_suspect_labels=False).fit(frame(rows))
    assert [(c.kind, c.signals, c.to_bucket) for c in t.changes_] == [("route-new-signal", ("renderer-gone",), "infra")]
    assert classify({"signals": ["renderer-gone"]}, taxonomy="replay", table=t.table_).bucket == "infra"
    assert classify({"signals": ["element-not-found"]}, taxonomy="replay", table=t.table_).bucket == "stale-script"


def test_the_signal_the_tool_named_is_routed_not_a_word_the_table_found_in_the_text():
    # every session-expired event's text names a session, which the regen table's text
    # rules read as the context signal broad-tool; on these events the two cannot be told
    # apart, and the route goes to the signal the tool named
    rows = [(["session-expired"], "report-bug") for _ in range(40)]
    rows += [(["loop-on-modal"], "muggle-feedback")] * 30 + [(["single-tool-call-error"], "retry")] * 30
    df = frame(rows).with_columns(
        taxonomy=pl.lit("regen"),
        text=pl.when(pl.col("signals").list.contains("session-expired")).then(pl.lit("Goal: upload an avatar. session expired")),
    )
    assert classify({"text": "Goal: upload an avatar. session expired"}, taxonomy="regen").signals == ("broad-tool",)
    t = TableTuner("regen", cv=None, drop_suspect_labels=False).fit(df)
    assert [(c.kind, c.signals, c.to_bucket) for c in t.changes_] == [("route-new-signal", ("session-expired",), "infra")]
    assert classify({"signals": ["session-expired"]}, taxonomy="regen", table=t.table_).bucket == "infra"


# --------------------------------------------------------------------------- no churn, planted defects


@pytest.mark.parametrize(("taxonomy", "seed"), [("replay", 11), ("replay", 12), ("regen", 11), ("regen", 13)])
def test_clean_data_with_person_noise_proposes_nothing(taxonomy, seed):
    df = synthetic_decisions(taxonomy, n_events=2000, seed=seed, defects="none", slip=0.05)
    t = TableTuner(taxonomy, cv=None).fit(df)
    assert t.changes_ == ()
    assert t.table_.route == t.base_table_.route


@pytest.mark.parametrize(("taxonomy", "seed"), [("replay", 1), ("replay", 2), ("regen", 1), ("regen", 3)])
def test_every_planted_defect_is_fixed(taxonomy, seed):
    # 6,000 events: the simulation spreads events over every signal the table routes, so
    # a defect planted on one of them gets fewer as the table grows; at 4,000 a drift on
    # regen's intermittent-flake had 15 supporting events after it began, which the tuner
    # rightly only watches (not significant after Bonferroni), not a defect it can fix
    df, truth = data(taxonomy, seed, "all", 6000)
    t = fitted(taxonomy, seed, "all", 6000)
    last = df.filter(pl.col("week") == df["week"].max())
    truth_last = last["true_bucket"].to_numpy()
    wrong_before = int(np.sum(predict_buckets(taxonomy, last) != truth_last))
    wrong_after = int(np.sum(t.predict(last) != truth_last))
    # the planted defects cost the shipped table at least ten decisions in the last week
    # (their share, 4-11% here, shrinks as the table gains signals beside them); the tuned
    # one is right and makes at most a tenth of the shipped table's mistakes
    assert wrong_before >= 10 and wrong_after <= 0.1 * wrong_before, (wrong_before, wrong_after, last.height)
    assert wrong_after / last.height < 0.02
    for d in truth["defects"]:
        if d["kind"] == "rule-too-early":
            continue  # a pair: checked through the accuracy above
        got = classify({"signals": [d["signal"]]}, taxonomy=taxonomy, table=t.table_).bucket
        assert got == d["true_bucket"], d


def test_drift_is_judged_on_the_weeks_since_it_began():
    df, truth = synthetic_decisions("replay", n_events=5000, seed=4, defects="drift", with_truth=True)
    (d,) = truth["defects"]
    t = TableTuner("replay", cv=None).fit(df)
    (c,) = t.changes_
    assert c.signals == (d["signal"],) and c.to_bucket == d["true_bucket"]
    assert c.since == date(2026, 9, 7) + timedelta(weeks=d["from_week"])
    assert t.predicted_agreement_recent_.gain > 0


# --------------------------------------------------------------------------- predict / score


def test_predict_and_score_replay_the_tuned_table_like_classify():
    df = data("replay", 1, "all", 4000)[0]
    t = fitted("replay", 1, "all", 4000)
    pred = t.predict(df)
    sample = df.head(200)
    expect = [classify({"text": x, "signals": s}, taxonomy="replay", table=t.table_).bucket
              for x, s in sample.select("text", "signals").iter_rows()]
    assert pred[:200].tolist() == expect
    assert t.score(df) == pytest.approx(agreement_of(t.table_, df).value)
    assert t.score(df) > agreement_of("replay", df).value


def test_fitted_agreement_matches_a_plain_replay_without_label_filtering():
    df = synthetic_decisions("regen", n_events=2000, seed=5)
    t = TableTuner("regen", cv=None, drop_suspect_labels=False).fit(df)
    assert t.predicted_agreement_.after.successes == agreement_of(t.table_, df).successes
    assert t.predicted_agreement_.before.successes == agreement_of("regen", df).successes


def test_cross_validated_estimate_is_held_out():
    df = synthetic_decisions("replay", n_events=2000, seed=6, defects="misleading")
    t = TableTuner("replay", cv=3).fit(df)
    cv = t.predicted_agreement_cv_
    assert cv.window == "cross-validated" and cv.before.n == t.predicted_agreement_.before.n
    assert cv.gain > 0 and cv.gain <= t.predicted_agreement_.gain + 0.02


def test_inputs_of_every_frame_kind_give_the_same_table():
    df = data("replay", 8, "misleading", 1500)[0]
    a = TableTuner("replay", cv=None).fit(df).table_
    b = TableTuner("replay", cv=None).fit(df.to_pandas()).table_
    c = TableTuner("replay", cv=None).fit(df.to_arrow()).table_
    assert a.route == b.route == c.route


# --------------------------------------------------------------------------- route edits


def test_route_edits_follow_their_spec():
    routes = load_table("replay").route
    ids = [r.id for r in routes]
    r = RouteEdit.remove_signal(ids[0], routes[0].any[0]).apply(routes)
    assert routes[0].any[0] not in r[0].any
    lone = (RouteRule(id="x", bucket="infra", any=("a",)), *routes)
    assert [x.id for x in RouteEdit.remove_signal("x", "a").apply(lone)] == ids  # emptied route goes
    new = RouteRule(id="new", bucket="infra", any=("zz",))
    assert [x.id for x in RouteEdit.insert(new, before=ids[1]).apply(routes)][:3] == [ids[0], "new", ids[1]]
    assert [x.id for x in RouteEdit.insert(new, before=None).apply(routes)][-1] == "new"
    moved = RouteEdit.move(ids[0], before=None).apply(routes)
    assert [x.id for x in moved] == [*ids[1:], ids[0]]
    with pytest.raises(KeyError):
        RouteEdit.remove("no-such-route").apply(routes)


def test_changes_replay_onto_the_base_table():
    t = fitted("replay", 2, "all", 4000)
    assert apply_changes(t.base_table_, t.changes_).route == t.table_.route


def _searcher(taxonomy: str, seed: int, n: int):
    """A search on the design of ``n`` synthetic decisions with every planted defect."""
    from failtax.taxonomy import load_taxonomy
    from failtax.tune._design import build_design
    from failtax.tune._frame import prepare, with_signal_sets
    from failtax.tune._search import Searcher

    df = data(taxonomy, seed, "all", n)[0]
    tax = load_taxonomy(taxonomy)
    table = load_table(taxonomy)
    d = build_design(with_signal_sets(prepare(df, taxonomy=tax), table, use_text=True), taxonomy=tax)
    return Searcher(d, fallback=table.fallback, min_support=5, alpha=0.05, min_gain=0.0), d, table


def test_fast_evaluation_matches_a_full_replay():
    s, d, table = _searcher("replay", 2, 4000)
    cur, rule = s.replay(table.route)
    checked = 0
    for cand in s.candidates(table.route, cur, rule)[::7]:
        e = s.evaluate(cand, table.route, cur)
        if e is None:
            continue
        new_b, _ = s.replay(e.routes)
        k_old, n = s.agreement(cur)
        k_new, _ = s.agreement(new_b)
        if e.since is None:
            assert e.wins - e.losses == k_new - k_old, cand.summary
            assert e.n == n
        checked += 1
    assert checked > 20


def test_a_candidate_replayed_on_the_sets_it_touches_matches_a_plain_replay():
    """The search replays each candidate edit on the signal sets it touches, with route
    masks it keeps per route: every candidate's buckets and deciding routes equal
    :func:`~failtax.tune._design.replay_routes` from scratch on those sets."""
    from failtax.tune._design import replay_routes
    from failtax.tune.changes import apply_edits

    s, d, table = _searcher("replay", 2, 4000)
    base = tuple(table.route)
    cur, rule = s.replay(base)
    made = kept_only = 0
    for cand in s.candidates(base, cur, rule):
        try:
            routes = apply_edits(base, cand.edits)
        except (KeyError, ValueError):
            continue
        ids = d.sets_with(cand.touched)
        got = s.replay(routes, ids)
        want = replay_routes(d.sets[ids], routes, s.fallback, d.col, s.bidx)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True)), cand.summary
        new = [r for r in routes if all(r is not b for b in base)]
        made += bool(new)
        kept_only += not new
    assert made > 20 and kept_only > 5  # both kinds of edit: new routes, and routes moved or removed


def _same_evaluation(got, want) -> bool:
    import dataclasses
    import math

    for f in dataclasses.fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if f.name == "transitions":
            same = all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(a, b, strict=True))
        elif isinstance(b, np.ndarray):
            same = np.array_equal(a, b) and a.dtype == b.dtype
        elif isinstance(b, float) and math.isnan(b):
            same = isinstance(a, float) and math.isnan(a)
        else:
            same = a == b and type(a) is type(b)
        if not same:
            return False
    return True


@pytest.mark.parametrize("taxonomy, seed, n", [("replay", 2, 3000), ("regen", 5, 2000)])
def test_candidates_replayed_together_measure_as_each_alone(taxonomy, seed, n):
    """A round's candidates are replayed as one array and measured once per effect: every
    figure of every candidate, in three rounds of a search (after accepted changes and a
    drift that forgets early weeks), equals the candidate evaluated alone, and two
    candidates get the same key exactly when their edited routes are equal."""
    s, d, table = _searcher(taxonomy, seed, n)
    routes = tuple(table.route)
    rounds = moved = 0
    for _ in range(3):
        cur, rule = s.replay(routes)
        cands = s.candidates(routes, cur, rule)
        together = s.evaluate_all(cands, routes, cur)
        n_together = s.n_evaluated
        alone = [s.evaluate(c, routes, cur) for c in cands]
        assert s.n_evaluated - n_together == sum(e is not None for e in alone)  # counted alike
        routes_of: dict = {}
        key_of: dict = {}
        for c, (got, key), want in zip(cands, together, alone, strict=True):
            assert (got is None) == (want is None), c.summary
            if want is None:
                continue
            moved += 1
            assert _same_evaluation(got, want), c.summary
            assert routes_of.setdefault(key, want.routes) == want.routes, c.summary
            assert key_of.setdefault(want.routes, key) == key, c.summary
        rounds += 1
        best = max((e for e, _ in together if e is not None and e.gain > 0), key=lambda e: e.gain, default=None)
        if best is None:
            break
        routes = best.routes
        if rounds == 1:
            s.forget_before(best.cand.signals, max(1, d.n_weeks // 2))  # forgotten weeks: new counts
    assert rounds >= 2 and moved > 100


def test_a_candidate_that_removes_the_only_route_is_measured_like_alone():
    """Replayed together, a route list left empty decides every set by the fallback."""
    from failtax.tune._search import Candidate

    s, d, table = _searcher("replay", 2, 1500)
    only = table.route[0]
    cur, _ = s.replay((only,))
    remove = Candidate("remove-route", f"remove route {only.id!r}", (RouteEdit.remove(only.id),),
                       only.positive_signals, None, only.positive_signals)
    [(got, key)] = s.evaluate_all([remove], (only,), cur)
    want = s.evaluate(remove, (only,), cur)
    assert want is not None and want.routes == () and key == ()
    assert _same_evaluation(got, want)
    assert set(got.transitions[1].tolist()) == {s.fallback}


def test_text_signals_found_once_and_remembered_equal_those_found_anew(monkeypatch):
    """A fit and its backtests read overlapping windows of the same texts: the signals of
    each distinct text are found once and remembered (up to ``MEMO_TEXTS`` texts). Per
    row, remembered answers equal the batch extractor's over all texts and the per-text
    loop's, for the whole column, a window of it, and with nulls; a window already seen
    runs no extractor; past the bound the memory starts again."""
    from failtax.tune import _frame

    texts = data("regen", 3, "all", 1500)[0]["text"]
    texts = pl.concat([texts, pl.Series([None, "", texts[0]], dtype=pl.Utf8)])
    table = load_table("regen")

    def rows(series: pl.Series) -> list[list[str]]:
        idx, patterns = _frame.text_signal_patterns(series, table)
        assert patterns[0] == ()
        return [sorted(patterns[i]) for i in idx]

    _frame._memo.clear()
    with monkeypatch.context() as m:
        m.setattr(_frame, "MEMO_TEXTS", 0)  # every text found anew, by the batch extractor
        batch = rows(texts)
        m.setattr(_frame, "_text_signals_batch", lambda *a: None)  # by the per-text loop
        loop = rows(texts[:300])
    assert not _frame._memo
    assert batch[:300] == loop and sum(map(bool, batch)) > 100
    assert rows(texts) == batch  # found, remembered
    with monkeypatch.context() as m:
        def refuse(*args):
            raise AssertionError("found again")
        m.setattr(_frame, "_text_signals_batch", refuse)
        m.setattr(_frame, "_text_signals_loop", refuse)
        assert rows(texts[500:1200]) == batch[500:1200]  # a window: all remembered
        assert rows(texts.reverse()) == batch[::-1]
    with monkeypatch.context() as m:
        m.setattr(_frame, "MEMO_TEXTS", 1000)
        assert rows(texts[:900]) == batch[:900]
        [memo] = [v for k, v in _frame._memo.items() if k[0] == "regen"]
        assert len(memo) <= 1000  # started again past the bound


# --------------------------------------------------------------------------- suspect labels


def test_slips_are_dropped_but_the_first_weeks_of_a_drift_are_kept():
    from failtax.taxonomy import load_taxonomy
    from failtax.tune._frame import prepare, with_signal_sets
    from failtax.tune._labels import drop_suspect_labels

    rows = []
    for w in range(6):  # selector-timeout means a stale script; one slip a week
        rows += [(["selector-timeout"], "regenerate")] * 19 + [(["selector-timeout"], "report-bug")]
    for w in range(6):  # electron-crash meant infra, and from week 5 a stale script
        rows += [(["electron-crash"], "report-bug" if w < 4 else "regenerate")] * 20
    df = frame(rows, weeks=1)
    # spread the rows of each block of 20 over its own week
    ts = [START + timedelta(weeks=i // 20 % 6, hours=i % 20) for i in range(len(rows))]
    df = df.with_columns(ts=pl.Series(ts))
    tax = load_taxonomy("replay")
    prepared = with_signal_sets(prepare(df, taxonomy=tax), load_table("replay"), use_text=False)
    kept, n, method = drop_suspect_labels(prepared, taxonomy="replay")
    assert "confident learning" in method
    dropped = set(prepared["event_id"]) - set(kept["event_id"])
    slips = {f"e{i}" for i, r in enumerate(rows) if r[0] == ["selector-timeout"] and r[1] == "report-bug"}
    drift = {f"e{i}" for i, r in enumerate(rows) if r[0] == ["electron-crash"] and r[1] == "regenerate"}
    assert n == len(dropped) and dropped <= slips and len(dropped) >= 4
    assert not (dropped & drift)
    t = TableTuner("replay", cv=None).fit(df)
    assert t.n_suspect_labels_ == n
    assert [c.signals for c in t.changes_] == [("electron-crash",)]


def test_pre_execution_events_without_an_override_count_as_accepted():
    n = 200
    df = pl.DataFrame({
        "event_id": [f"p{i}" for i in range(n)],
        "taxonomy": ["preexec"] * n,
        "ts": [START + timedelta(hours=i) for i in range(n)],
        "signals": [["rule-2-ui-changed"]] * n,
        "ai_bucket": ["regen"] * n,
        "ai_suggestion": ["regen"] * n,
        # six overrides; everyone else took the suggested mode without a follow-up event
        "user_action": ["replay" if i % 33 == 0 else None for i in range(n)],
    })
    t = TableTuner("preexec", cv=None, drop_suspect_labels=False).fit(df)
    assert t.changes_ == ()
    assert t.n_decided_ == n and t.predicted_agreement_.before.successes == n - 7
    assert agreement_of("preexec", df).value == pytest.approx((n - 7) / n)


def test_no_decisions_no_change_and_no_crash():
    empty = pl.DataFrame({"signals": pl.Series([], dtype=pl.List(pl.Utf8)), "user_action": pl.Series([], dtype=pl.Utf8)})
    undecided = pl.DataFrame({"signals": [["selector-timeout"]] * 5, "user_action": [None] * 5})
    for df in (empty, undecided):
        t = TableTuner("replay").fit(df)
        assert t.changes_ == () and t.table_.route == load_table("replay").route
        assert t.predicted_agreement_.before.n == 0 and "changes: none" in t.summary()
