"""Seeded synthetic decisions with planted table defects, for tests and benchmarks.

This is a small stand-in for ``failtax simulate`` that builds the ``decisions`` relation
directly (no JSONL, no loader) so the tuner can be exercised on millions of rows and on
many seeds quickly. The hidden truth is the given table with planted defects; which
signals carry the defects is drawn from the seed, so no test can depend on a name.

Defect kinds (as in the simulator's ``truth.json``): ``misleading-signal`` (a route sends
a signal to the wrong bucket), ``missing-signal`` (the tool emits a signal no route
knows; the fallback is wrong for it), ``rule-too-early`` (an earlier route wins for
events that also carry a later route's signal, but the later route's bucket is right),
``drift`` (from week ``from_week`` on, a signal's true bucket changes).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np
import polars as pl

from failtax.classify import extract_signals
from failtax.table import RouteRule, RuleTable, load_table
from failtax.taxonomy import load_taxonomy

__all__ = ["plant_defects", "synthetic_decisions"]

_ALL_KINDS = ("misleading-signal", "missing-signal", "rule-too-early", "drift")
_ALIASES = {"misleading": "misleading-signal", "missing": "missing-signal", "early": "rule-too-early", "drift": "drift"}
_NEW_SIGNAL_WORDS = ("hydration", "quota", "sandbox", "portal", "shadow", "canvas", "cookie", "worker", "locale", "tenant")
_NEW_SIGNAL_TAILS = ("mismatch", "exhausted", "denied", "detached", "expired", "corrupted", "stalled", "rejected")


def _kinds(defects: Any) -> list[str]:
    if defects is None or defects == "none" or defects == ():
        return []
    if defects == "all":
        return list(_ALL_KINDS)
    if isinstance(defects, str):
        defects = [d.strip() for d in defects.split(",") if d.strip()]
    out = []
    for d in defects:
        k = _ALIASES.get(d, d)
        if k not in _ALL_KINDS:
            raise ValueError(f"unknown defect kind {d!r}; use {', '.join(_ALL_KINDS)}")
        out.append(k)
    return out


def plant_defects(table: RuleTable, kinds: Sequence[str], *, rng: np.random.Generator, weeks: int) -> list[dict[str, Any]]:
    """Choose concrete defects (signals, buckets, weeks) for ``kinds`` on ``table``."""
    routes = [r for r in table.route if r.any and not r.all]
    buckets = load_taxonomy(table.taxonomy).bucket_names
    used: set[str] = set()
    out: list[dict[str, Any]] = []
    for kind in kinds:
        if kind in ("misleading-signal", "drift"):
            pool = [(r, s) for r in routes for s in r.any if s not in used and len(r.any) > 1]
            r, s = pool[rng.integers(len(pool))]
            others = [b for b in buckets if b != r.bucket]
            true = others[rng.integers(len(others))]
            used.add(s)
            d = {"kind": kind, "signal": s, "table_bucket": r.bucket, "true_bucket": true}
            if kind == "drift":
                d["from_week"] = int(rng.integers(max(2, weeks // 2), max(3, weeks - 2)))
            out.append(d)
        elif kind == "missing-signal":
            name = f"{_NEW_SIGNAL_WORDS[rng.integers(len(_NEW_SIGNAL_WORDS))]}-{_NEW_SIGNAL_TAILS[rng.integers(len(_NEW_SIGNAL_TAILS))]}"
            others = [b for b in buckets if b != table.fallback]
            out.append({"kind": kind, "signal": name, "true_bucket": others[rng.integers(len(others))]})
            used.add(name)
        else:
            pairs = [(i, j) for i in range(len(routes)) for j in range(i + 1, len(routes)) if routes[i].bucket != routes[j].bucket]
            i, j = pairs[rng.integers(len(pairs))]
            cand = [s for s in routes[i].any if s not in used]
            s = cand[rng.integers(len(cand))]
            used.add(s)
            out.append({"kind": kind, "rule": routes[i].id, "signal": s, "shadows": routes[j].id,
                        "true_bucket": routes[j].bucket})
    return out


def _truth_routes(table: RuleTable, defects: list[dict[str, Any]], week: int) -> tuple[RouteRule, ...]:
    routes = list(table.route)
    for d in defects:
        kind = d["kind"]
        if kind == "drift" and week < d["from_week"]:
            continue
        if kind in ("misleading-signal", "drift"):
            s = d["signal"]
            for i, r in enumerate(routes):
                if s in r.any:
                    routes[i] = dataclasses.replace(r, any=tuple(x for x in r.any if x != s))
                    routes.insert(i, RouteRule(id=f"truth-{s}", bucket=d["true_bucket"], any=(s,)))
                    break
        elif kind == "missing-signal":
            routes.append(RouteRule(id=f"truth-{d['signal']}", bucket=d["true_bucket"], any=(d["signal"],)))
        else:
            shadow = next(r for r in routes if r.id == d["shadows"])
            at = next(i for i, r in enumerate(routes) if r.id == d["rule"])
            routes.insert(at, RouteRule(id=f"truth-{d['signal']}-with", bucket=shadow.bucket,
                                        all=(d["signal"],), any=tuple(shadow.any)))
    return tuple(routes)


def _route(routes: Sequence[RouteRule], present: set[str], fallback: str) -> str:
    for r in routes:
        if r.matches(present):
            return r.bucket
    return fallback


def synthetic_decisions(
    taxonomy: str = "replay",
    *,
    n_events: int = 5000,
    weeks: int = 12,
    start: date = date(2026, 9, 7),
    defects: Any = "all",
    table: Any = None,
    slip: float = 0.04,
    skip: float = 0.07,
    undecided: float = 0.03,
    no_label: float = 0.04,
    second_signal: float = 0.3,
    text_only_missing: bool = False,
    seed: int = 0,
    with_truth: bool = False,
) -> Any:
    """A seeded ``decisions`` frame whose people follow a hidden truth with planted defects.

    Parameters
    ----------
    taxonomy : taxonomy whose shipped table (or ``table``) the AI uses.
    n_events : classified events; ``weeks`` weeks from ``start`` (a Monday).
    defects : ``"all"``, ``"none"``, or kinds (``misleading``, ``missing``, ``early``,
        ``drift`` or their full names) as a list or a comma-separated string.
    slip : share of decisions where the person picks an action implying a random other
        bucket; ``skip``: opt-outs; ``undecided``: never resolved; ``no_label``: actions
        that imply nothing (retry, feedback).
    second_signal : chance that an event carries a second signal of a random bucket.
    text_only_missing : the missing signal appears only in the text, never named.
    seed : the only source of randomness.
    with_truth : also return the truth record (``(frame, truth)``).

    Returns
    -------
    polars.DataFrame with the ``decisions`` columns (and ``true_bucket``), or a tuple with
    the truth dict when ``with_truth``.

    >>> df = synthetic_decisions("replay", n_events=200, defects="none", seed=3)
    >>> df.height, sorted(df["taxonomy"].unique().to_list())
    (200, ['replay'])
    """
    rng = np.random.default_rng(seed)
    tax = load_taxonomy(taxonomy)
    if not tax.actions:
        from failtax.errors import InputError

        raise InputError(f"taxonomy {taxonomy!r} maps no action to a bucket: its decisions carry no labels to tune from")
    tbl = load_table(table if table is not None else taxonomy)
    kinds = _kinds(defects)
    planted = plant_defects(tbl, kinds, rng=rng, weeks=weeks)
    by_bucket: dict[str, list[str]] = {}
    for r in tbl.route:
        for s in r.any:
            if s not in by_bucket.setdefault(r.bucket, []):
                by_bucket[r.bucket].append(s)
    for d in planted:
        if d["kind"] == "missing-signal":
            by_bucket.setdefault(d["true_bucket"], []).append(d["signal"])
    missing = {d["signal"] for d in planted if d["kind"] == "missing-signal"}
    gen_buckets = [b for b in tax.bucket_names if by_bucket.get(b)]
    truth_by_week = [_truth_routes(tbl, planted, w) for w in range(weeks)]
    phrases = _phrases(tbl)
    actions_for = {b.name: [a for a, ib in tax.actions.items() if ib == b.name] for b in tax.buckets}
    no_label_actions = [a for a in (*tax.buckets[0].options, *tax.buckets[-1].options)
                        if a not in tax.actions and a not in tax.opt_out] or ["retry"]
    opt_out = tax.opt_out[0] if tax.opt_out else None

    rows: dict[str, list[Any]] = {k: [] for k in (
        "event_id", "family", "taxonomy", "ts", "resolved_ts", "week", "skill", "project_id", "run_id",
        "test_case_id", "ai_bucket", "ai_suggestion", "signals", "user_action", "implied_bucket", "decided",
        "opt_out", "agree", "latency_s", "text", "true_bucket")}
    t0 = datetime(start.year, start.month, start.day)
    text_table = tbl.replace(extract=tbl.text_rules(), route=(), locate=())
    seen: dict[tuple, tuple[set[str], set[str]]] = {}
    for i in range(n_events):
        w = int(rng.integers(weeks))
        ts = t0 + timedelta(weeks=w, seconds=float(rng.uniform(0, 7 * 86400)))
        b0 = gen_buckets[rng.integers(len(gen_buckets))]
        sigs = [by_bucket[b0][rng.integers(len(by_bucket[b0]))]]
        if rng.random() < second_signal:
            b1 = gen_buckets[rng.integers(len(gen_buckets))]
            s1 = by_bucket[b1][rng.integers(len(by_bucket[b1]))]
            if s1 not in sigs:
                sigs.append(s1)
        named = [s for s in sigs if not (text_only_missing and s in missing)]
        key = (tuple(sigs), tuple(named))
        if key not in seen:
            # What the classifier sees: the named signals plus what the text rules find.
            found = set(extract_signals({"text": " | ".join(phrases.get(s, s.replace("-", " ")) for s in sigs),
                                         "signals": named}, text_table)[0])
            seen[key] = (found | set(sigs), found)
        present, visible = seen[key]
        true = _route(truth_by_week[w], present, tbl.fallback)
        ai = _route(tbl.route, visible, tbl.fallback)
        suggestion = tax.bucket(ai).suggestion
        text = " | ".join(
            f"step {rng.integers(1, 40)}: {phrases.get(s, s.replace('-', ' '))} (run {rng.integers(16**8):08x})"
            for s in sigs
        )
        u = rng.random()
        action: str | None
        if u < undecided:
            action = None
        elif u < undecided + skip and opt_out:
            action = opt_out
        elif u < undecided + skip + no_label:
            action = no_label_actions[rng.integers(len(no_label_actions))]
        elif u < undecided + skip + no_label + slip:
            others = [b for b in tax.bucket_names if b != true and actions_for[b]]
            b = others[rng.integers(len(others))]
            action = actions_for[b][rng.integers(len(actions_for[b]))]
        else:
            acts = actions_for[true]
            action = suggestion if (true == ai and suggestion in acts) else acts[rng.integers(len(acts))]
        decided = action is not None
        is_opt = action is not None and tax.is_opt_out(action)
        lat = float(rng.lognormal(4.0 if (action and tax.carries_out(suggestion, action)) else 5.0, 0.8)) if decided else None
        eid = hashlib.blake2b(f"{seed}:{i}".encode(), digest_size=8).hexdigest()
        rows["event_id"].append(eid)
        rows["family"].append(tax.event_family or tax.name)
        rows["taxonomy"].append(tax.name)
        rows["ts"].append(ts)
        rows["resolved_ts"].append(ts + timedelta(seconds=lat) if lat is not None else None)
        rows["week"].append((t0 + timedelta(weeks=w)).date())
        rows["skill"].append(f"skill-{rng.integers(3)}")
        rows["project_id"].append(f"proj-{rng.integers(5)}")
        rows["run_id"].append(f"run-{i}")
        rows["test_case_id"].append(f"tc-{rng.integers(200)}")
        rows["ai_bucket"].append(ai)
        rows["ai_suggestion"].append(suggestion)
        rows["signals"].append(named)
        rows["user_action"].append(action)
        rows["implied_bucket"].append(tax.implied_bucket(action) if decided and not is_opt else None)
        rows["decided"].append(decided)
        rows["opt_out"].append(is_opt)
        rows["agree"].append(None if (not decided or is_opt) else tax.carries_out(suggestion, action))
        rows["latency_s"].append(lat)
        rows["text"].append(text)
        rows["true_bucket"].append(true)
    frame = pl.DataFrame(rows, schema_overrides={"signals": pl.List(pl.Utf8), "ts": pl.Datetime("us"),
                                                  "resolved_ts": pl.Datetime("us"), "week": pl.Date})
    if not with_truth:
        return frame
    truth = {"seed": seed, "taxonomy": tax.name, "start": start.isoformat(), "weeks": weeks, "events": n_events,
             "table": tbl.name, "table_version": tbl.version, "defects": planted, "clean": not planted}
    return frame, truth


def _phrases(table: RuleTable) -> dict[str, str]:
    """A literal for each signal that the table's text rules read as that signal alone."""
    text_table = table.replace(extract=table.text_rules(), route=(), locate=())
    out: dict[str, str] = {}
    for r in text_table.extract:
        if r.signal in out:
            continue
        options: list[str] = []
        if r.contains and r.and_contains:
            options = [f"{c} {a}" for c in r.contains for a in r.and_contains]
        elif r.contains:
            options = list(r.contains)
        elif r.http_status:
            options = [f"HTTP {c} from server" for c in r.http_status]
        for text in options:
            if not any(u in text.lower() for u in r.unless) and extract_signals({"text": text}, text_table)[0] == (r.signal,):
                out[r.signal] = text
                break
    return out
