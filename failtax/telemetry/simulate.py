"""Seeded, realistic failure telemetry with a hidden truth: for tests, demos and the sample.

:func:`simulate` writes every format the loader reads, as the tools would:

- ``failure-events.jsonl`` (seed 000): replay, regen and pre-execution events from
  several skills and projects over ``weeks`` weeks. Signals co-occur; the AI classifies
  with the shipped default table (:func:`failtax.classify` on the event's signals); a
  simulated person then acts on the suggestion.
- ``lifecycle.jsonl`` (seed 001), some lines written by a shell writer that did not
  escape quotes; ``retry-log.jsonl`` (seed 003) with repeated failures (streaks);
  ``agent-failures.jsonl`` (seed 004 ``AgentFailure`` objects).
- ``mess/failure-events.host-b.jsonl``: what real sinks also hold — exact duplicates, an
  invalid UTF-8 line, a wrong type, an unknown event type and a truncated last line.
- ``truth.json``: the hidden truth. It is the default table with planted defects, picked
  with the seed from the table itself: a **misleading signal** (a route sends it to the
  wrong bucket), a **missing signal** (emitted by the tool, unknown to the table, the
  fallback is wrong for it), a **rule ordered too early** (when both signals are present
  the later route's bucket is right) and **drift** (from one week on, a signal's true
  bucket changes). ``clean=True`` plants none.

People follow a right suggestion, override a wrong one with an action that implies the
true bucket, slip now and then, skip some, take longer to override, and leave a few
events undecided (:class:`People`).

>>> import tempfile
>>> result = simulate(tempfile.mkdtemp(), events=200, weeks=4, seed=3, taxonomy="replay")
>>> sorted(d["kind"] for d in result.truth["defects"])
['drift', 'misleading-signal', 'missing-signal', 'rule-too-early']
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from failtax.classify import classify, extract_signals
from failtax.errors import InputError
from failtax.table import RouteRule, RuleTable, atomic_write_bytes, load_table
from failtax.taxonomy import load_taxonomy
from failtax.telemetry.emit import event_line, event_record, format_ts
from failtax.telemetry.schema import FAMILY_EVENT_TYPES, TAXONOMY_FAMILY

__all__ = ["DEFECT_KINDS", "Defect", "People", "SimulationResult", "simulate"]

DEFECT_KINDS = ("misleading-signal", "missing-signal", "rule-too-early", "drift")
TAXONOMY_CHOICES = ("replay", "regen", "all")

#: Signal names a newer tool might emit that a table may not know yet.
_NEW_SIGNALS = {
    "replay": ("hydration-mismatch", "cors-blocked", "service-worker-stale", "feature-flag-off", "csp-violation",
               "websocket-closed"),
    "regen": ("captcha-blocked", "session-expired", "consent-banner-loop", "sso-redirect-loop", "paywall-reached"),
}
_SKILLS = (("muggle-test", 0.5), ("muggle-test-feature-local", 0.25), ("muggle-browser-task", 0.15),
           ("muggle-test-regenerate-missing", 0.10))
_PROJECTS = (("acme-web", 0.3), ("billing", 0.2), ("checkout", 0.18), ("admin-console", 0.14),
             ("mobile-web", 0.1), ("docs-site", 0.08))
_STEPS = ("Click 'Sign in'", "Fill the email field", "Submit the signup form", "Open the billing page",
          "Add an item to the cart", "Press 'Checkout'", "Open the settings menu", "Upload an avatar",
          "Search for 'invoice'", "Toggle dark mode", "Confirm the payment", "Open the first order")
_FAMILY_SHARE = {"replay": 0.5, "regen": 0.3, "pre-execution": 0.2}


@dataclass(frozen=True)
class People:
    """How the simulated people decide (rates are probabilities, times in seconds)."""

    slip: float = 0.04
    skip: float = 0.07
    undecided: float = 0.03
    double_resolve: float = 0.003
    preexec_override: float = 0.06
    follow_median_s: float = 18.0
    override_median_s: float = 65.0
    skip_median_s: float = 8.0
    sigma: float = 0.75

    @classmethod
    def default(cls) -> People:
        return cls()


@dataclass(frozen=True)
class Defect:
    """One planted defect of the hidden truth (see the module docstring for the kinds)."""

    kind: str
    taxonomy: str
    signal: str
    true_bucket: str
    table_bucket: str | None = None
    rule: str | None = None
    shadows: str | None = None
    shadowed_signal: str | None = None
    from_week: int | None = None
    from_date: str | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The ``truth.json`` entry (keys that do not apply are left out)."""
        return {k: v for k, v in asdict(self).items() if v is not None and v != ""}


@dataclass(frozen=True)
class SimulationResult:
    """What :func:`simulate` wrote: the folder, its files, the truth and line counts."""

    out: Path
    files: tuple[Path, ...]
    truth: Mapping[str, Any]
    counts: Mapping[str, int] = field(default_factory=dict)


# --------------------------------------------------------------------------- truth


def _first_route(table: RuleTable, signal: str) -> int | None:
    return next(iter(_matching_routes(table, {signal}, 1)), None)


def _matching_routes(table: RuleTable, signals: set[str], first: int | None = None) -> list[int]:
    """Indexes of the routes that match an event with ``signals``, in table order (the
    first decides); only the ``first`` few when given."""
    return list(itertools.islice((i for i, r in enumerate(table.route) if r.matches(signals)), first))


def _single_routed(table: RuleTable) -> list[tuple[str, int]]:
    """(signal, index of the route that decides it alone), in table order."""
    out = []
    for s in dict.fromkeys(s for r in table.route for s in r.any):
        i = _first_route(table, s)
        if i is not None:
            out.append((s, i))
    return out


def _with_route(table: RuleTable, index: int, route: RouteRule) -> RuleTable:
    routes = list(table.route)
    routes.insert(index, route)
    return table.replace(route=tuple(routes))


@dataclass(frozen=True)
class _Truth:
    taxonomy: str
    table: RuleTable
    early: RuleTable
    late: RuleTable
    drift_week: int | None
    defects: tuple[Defect, ...]
    new_signal: str | None
    pair: tuple[str, str] | None


def _plant(taxonomy: str, rng: random.Random, *, weeks: int, start: date, clean: bool) -> _Truth:
    table = load_table(taxonomy)
    if clean:
        return _Truth(taxonomy, table, table, table, None, (), None, None)
    tax = load_taxonomy(taxonomy)
    routed = _single_routed(table)
    used: set[str] = set()
    defects: list[Defect] = []
    early = table

    def other_bucket(b: str, *, avoid: Sequence[str] = ()) -> str:
        choices = [x for x in tax.bucket_names if x != b and x not in avoid]
        return rng.choice(choices)

    # misleading signal: a route sends it to the wrong bucket
    s, i = rng.choice(routed)
    used.add(s)
    a = table.route[i].bucket
    b = other_bucket(a)
    early = _with_route(early, _first_route(early, s) or 0, RouteRule(id=f"truth-{s}", bucket=b, any=(s,)))
    defects.append(Defect("misleading-signal", taxonomy, s, true_bucket=b, table_bucket=a, rule=table.route[i].id,
                          note=f"route {table.route[i].id!r} sends {s} to {a}; it belongs to {b}"))

    # missing signal: emitted, unknown to the table; the fallback is wrong for it
    known = set(table.signals)
    pool = [x for x in _NEW_SIGNALS.get(taxonomy, ()) if x not in known] or [f"new-signal-{rng.randrange(1000)}"]
    new = rng.choice(pool)
    used.add(new)
    x = other_bucket(table.fallback)
    early = _with_route(early, len(early.route), RouteRule(id=f"truth-{new}", bucket=x, any=(new,)))
    defects.append(Defect("missing-signal", taxonomy, new, true_bucket=x, table_bucket=table.fallback,
                          note=f"no rule knows {new}; the fallback {table.fallback} is wrong for it"))

    # rule too early: an earlier route wins over a later one when both signals appear
    # (and the later one is next in line: a route that stands down for the other signal,
    # or a third route between them, would make the truth a different defect or none)
    pairs = [
        (s1, i1, s2, i2)
        for s1, i1 in routed for s2, i2 in routed
        if i1 < i2 and table.route[i1].bucket != table.route[i2].bucket and s1 not in used and s2 not in used
        and _matching_routes(table, {s1, s2}, 2) == [i1, i2]
    ]
    pair = None
    if pairs:
        s1, i1, s2, i2 = rng.choice(pairs)
        used.update((s1, s2))
        r1, r2 = table.route[i1], table.route[i2]
        pos = _first_route(early, s1) or 0
        early = _with_route(early, pos, RouteRule(id=f"truth-{s1}-with-{s2}", bucket=r2.bucket, all=(s1, s2)))
        defects.append(Defect("rule-too-early", taxonomy, s1, true_bucket=r2.bucket, table_bucket=r1.bucket,
                              rule=r1.id, shadows=r2.id, shadowed_signal=s2,
                              note=f"with both {s1} and {s2}, route {r2.id!r} ({r2.bucket}) should win over {r1.id!r}"))
        pair = (s1, s2)

    # drift: from one week on, a signal's true bucket changes
    late = early
    drift_week = None
    left = [(s, i) for s, i in routed if s not in used]
    if left and weeks >= 2:
        s, i = rng.choice(left)
        a = table.route[i].bucket
        b = other_bucket(a)
        drift_week = max(2, min(weeks, int(round(weeks * rng.uniform(0.55, 0.75))) + 1))
        late = _with_route(early, _first_route(early, s) or 0, RouteRule(id=f"truth-drift-{s}", bucket=b, any=(s,)))
        from_date = (start + timedelta(weeks=drift_week - 1)).isoformat()
        defects.append(Defect("drift", taxonomy, s, true_bucket=b, table_bucket=a, rule=table.route[i].id,
                              from_week=drift_week, from_date=from_date,
                              note=f"from week {drift_week} ({from_date}) on, {s} means {b}, not {a}"))
    return _Truth(taxonomy, table, early, late, drift_week, tuple(defects), new, pair)


# --------------------------------------------------------------------------- helpers


def _weighted(rng: random.Random, items: Sequence[tuple[Any, float]]) -> Any:
    total = sum(w for _, w in items)
    x = rng.random() * total
    for item, w in items:
        x -= w
        if x <= 0:
            return item
    return items[-1][0]


def _lognormal(rng: random.Random, median: float, sigma: float, cap: float = 3600.0) -> float:
    return min(cap, median * math.exp(rng.gauss(0.0, sigma)))


@lru_cache(maxsize=1 << 16)  # a run draws tens of thousands of signal sets
def _classify_signals(taxonomy: str, table: RuleTable, signals: tuple[str, ...]) -> tuple[str, str | None, tuple[str, ...]]:
    c = classify({"signals": list(signals)}, taxonomy=taxonomy, table=table)
    return c.bucket, c.suggestion, c.signals


@lru_cache(maxsize=1 << 13)  # every signal of every table a run simulates
def _phrase(table: RuleTable, signal: str) -> str | None:
    """A literal from the table that, alone, makes the table extract exactly ``signal``."""
    for rule in table.extract:
        if rule.signal != signal or not rule.contains:
            continue
        for lit in rule.contains:
            text = lit + (" " + rule.and_contains[0] if rule.and_contains else "")
            if extract_signals({"text": text}, table)[0] == (signal,):
                return text
    plain = signal.replace("-", " ")
    return plain if not extract_signals({"text": plain}, table)[0] else None


def _spell(rng: random.Random, signal: str) -> str:
    """Real tools spell signals inconsistently; the loader normalises them."""
    r = rng.random()
    if signal == "goal-not-achievable" and r < 0.5:
        return "goal_not_achievable"
    if r < 0.04:
        return signal.replace("-", "_")
    if r < 0.05:
        return signal.replace("-", " ").title()
    return signal


class _Clock:
    """Event times over the weeks: weekdays, working hours, a little growth."""

    def __init__(self, rng: random.Random, start: date, weeks: int):
        self.rng, self.start, self.weeks = rng, start, weeks
        self.week_weights = [(w, 1.0 + 0.04 * w) for w in range(weeks)]

    def draw(self) -> tuple[int, datetime]:
        w = _weighted(self.rng, self.week_weights)
        day = self.rng.choices(range(7), weights=(20, 21, 21, 20, 16, 1, 1))[0]
        seconds = int(self.rng.uniform(7.5, 19.5) * 3600)
        ms = self.rng.randrange(1000)
        when = datetime(self.start.year, self.start.month, self.start.day, tzinfo=timezone.utc)
        when += timedelta(days=7 * w + day, seconds=seconds, milliseconds=ms)
        return w + 1, when


# --------------------------------------------------------------------------- failure events


class _Person:
    def __init__(self, rng: random.Random, people: People):
        self.rng, self.p = rng, people

    def act(self, taxonomy: str, ai_bucket: str, true_bucket: str) -> tuple[str, str] | None:
        """(action, how) or None when the event stays undecided."""
        rng, p = self.rng, self.p
        if rng.random() < p.undecided:
            return None
        if rng.random() < p.skip:
            return "skip", "skip"
        tax = load_taxonomy(taxonomy)
        if rng.random() < p.slip:
            options = sorted({*tax.actions, "retry", "muggle-feedback"} - {"skip"})
            return rng.choice(options), "slip"
        if ai_bucket == true_bucket:
            return _following(rng, tax, tax.bucket(ai_bucket).suggestion), "follow"
        implying = [a for a, b in tax.actions.items() if b == true_bucket]
        suggestion = tax.bucket(true_bucket).suggestion
        preferred = [a for a in implying if a != "share-defect"]
        if suggestion in implying and rng.random() < 0.5:
            return _following(rng, tax, suggestion), "override"
        return rng.choice(preferred or implying), "override"

    def latency(self, how: str) -> float:
        p = self.p
        median = {"follow": p.follow_median_s, "override": p.override_median_s, "skip": p.skip_median_s}.get(how, 40.0)
        return max(0.4, _lognormal(self.rng, median, p.sigma))


def _following(rng: random.Random, tax: Any, suggestion: str | None) -> str:
    if suggestion is None:
        return "skip"
    acts = [a for a in tax.suggestion_actions.get(suggestion, (suggestion,)) if a != suggestion] or [suggestion]
    if suggestion in ("share-defect", "wait-and-share"):
        weights = {"share-email": 0.45, "share-ticket": 0.35, "share-sms": 0.15, "wait-and-share": 0.6}
        opts = [(a, weights.get(a, 0.05)) for a in dict.fromkeys([suggestion, *acts]) if a != "share-defect"]
        return _weighted(rng, opts)
    return suggestion


class _FailureGen:
    """Replay / regen failure events with their resolutions."""

    def __init__(self, truth: _Truth, rng: random.Random, people: People):
        self.truth, self.rng, self.person = truth, rng, _Person(rng, people)
        t = truth.table
        vocab = [s for s, _ in _single_routed(t)]
        if truth.new_signal:
            vocab.append(truth.new_signal)
        order = list(vocab)
        rng.shuffle(order)
        weights = {s: 1.0 / (k + 2) ** 0.6 for k, s in enumerate(order)}
        total = sum(weights.values())
        for d in truth.defects:  # every defect must be seen often enough to be found
            for s in (d.signal, d.shadowed_signal):
                if s and weights.get(s, 0) / total < 0.06:
                    weights[s] = 0.06 * total
        self.vocab = [(s, weights[s]) for s in vocab]
        self.family = TAXONOMY_FAMILY[truth.taxonomy]

    def signals(self) -> tuple[str, ...]:
        rng = self.rng
        if self.truth.pair and rng.random() < 0.07:
            return self.truth.pair
        if rng.random() < 0.03:
            return ()
        first = _weighted(rng, self.vocab)
        out = [first]
        alone = first == self.truth.new_signal
        if rng.random() < (0.08 if alone else 0.28):
            second = _weighted(rng, self.vocab)
            if second not in out:
                out.append(second)
            if rng.random() < 0.15:
                third = _weighted(rng, self.vocab)
                if third not in out:
                    out.append(third)
        return tuple(out)

    def events(self, clock: _Clock, n: int, ids: _Ids) -> tuple[list[tuple[datetime, bytes]], dict[str, int]]:
        rng, truth = self.rng, self.truth
        classified_type, resolved_type = FAMILY_EVENT_TYPES[self.family]
        lines: list[tuple[datetime, bytes]] = []
        stats = {"classified": 0, "resolved": 0, "undecided": 0}
        for _ in range(n):
            week, when = clock.draw()
            sigs = self.signals()
            ai_bucket, suggestion, ai_signals = _classify_signals(truth.taxonomy, truth.table, sigs)
            truth_table = truth.late if truth.drift_week is not None and week >= truth.drift_week else truth.early
            true_bucket = _classify_signals(truth.taxonomy, truth_table, sigs)[0]
            skill = _weighted(rng, _SKILLS)
            project, test_case, run = ids.draw(when)
            written = [_spell(rng, s) for s in ai_signals]
            meta = self.metadata(ai_signals)
            rec = event_record(
                event_type=classified_type, skill_name=skill, ai_classification=ai_bucket,
                ai_suggestion=suggestion or "", run_id=run, test_case_id=test_case, project_id=project,
                signals=written, metadata=meta, ts=format_ts(when),
            )
            lines.append((when, event_line(rec)))
            stats["classified"] += 1
            decision = self.person.act(truth.taxonomy, ai_bucket, true_bucket)
            if decision is None:
                stats["undecided"] += 1
                continue
            action, how = decision
            resolved_at = when + timedelta(seconds=self.person.latency(how))
            res = event_record(
                event_type=resolved_type, skill_name=skill, ai_classification=ai_bucket,
                ai_suggestion=suggestion or "", user_action=action, run_id=run, test_case_id=test_case,
                project_id=project, ts=format_ts(resolved_at),
            )
            lines.append((resolved_at, event_line(res)))
            stats["resolved"] += 1
            if rng.random() < self.person.p.double_resolve:  # a second click, a second event
                again = dict(res, ts=format_ts(resolved_at + timedelta(seconds=rng.uniform(0.5, 3))))
                lines.append((resolved_at + timedelta(seconds=3), event_line(again)))
        return lines, stats

    def metadata(self, signals: Sequence[str]) -> dict[str, Any]:
        rng, table = self.rng, self.truth.table
        phrases = [p for p in (_phrase(table, s) for s in signals) if p]
        step = rng.choice(_STEPS)
        if self.family == "replay":
            excerpt = "; ".join(phrases) if phrases else "Status: failed"
            return {"failingStep": step, "errorExcerpt": f"{step} failed: {excerpt}"}
        summary = "; ".join(phrases) if phrases else "generation stopped"
        return {"summary": f"Goal: {step.lower()}. {summary}", "stepsCompleted": rng.randint(0, 14)}


class _Ids:
    """Projects, test cases and run ids."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.cases = {p: [f"tc-{p}-{k:03d}" for k in range(rng.randint(25, 70))] for p, _ in _PROJECTS}
        self.serial = 0

    def draw(self, when: datetime) -> tuple[str, str, str]:
        project = _weighted(self.rng, _PROJECTS)
        cases = self.cases[project]
        # a few flaky cases fail far more often than the rest
        k = min(int(self.rng.paretovariate(1.3)) - 1, len(cases) - 1)
        self.serial += 1
        return project, cases[k], f"run-{when:%Y%m%d}-{self.serial:05d}"

    def case(self) -> tuple[str, str]:
        project = _weighted(self.rng, _PROJECTS)
        return project, self.rng.choice(self.cases[project])


def _preexec_events(rng: random.Random, clock: _Clock, n: int, ids: _Ids, people: People) -> tuple[list[tuple[datetime, bytes]], dict[str, int]]:
    table = load_table("preexec")
    event_type = FAMILY_EVENT_TYPES["pre-execution"][0]
    lines: list[tuple[datetime, bytes]] = []
    overrides = 0
    for _ in range(n):
        _, when = clock.draw()
        project, case = ids.case()
        fields: dict[str, Any] = {
            "hasReplayableScript": rng.random() > 0.1,
            "changedFilesMatched": (
                [rng.choice(("app/auth/signup/page.tsx", "src/components/Cart.vue", "web/settings.html",
                             "src/pages/billing.tsx", "styles/layout.css"))]
                if rng.random() < 0.25 else []
            ),
            "lastPassedAgeDays": int(_lognormal(rng, 9.0, 1.0, cap=400)),
        }
        c = classify({"fields": fields}, taxonomy="preexec", table=table)
        signals = list(c.signals) or ["rule-4-default-replay"]
        meta = {"lastPassedAgeDays": fields["lastPassedAgeDays"], "changedFilesMatched": fields["changedFilesMatched"]}
        rec = event_record(event_type=event_type, skill_name="muggle-test", ai_classification=c.bucket,
                           ai_suggestion="", test_case_id=case, project_id=project, signals=signals,
                           metadata=meta, ts=format_ts(when))
        lines.append((when, event_line(rec)))
        if rng.random() < people.preexec_override:
            other = "replay" if c.bucket == "regen" else "regen"
            at = when + timedelta(seconds=_lognormal(rng, people.override_median_s, people.sigma))
            rec = event_record(event_type=event_type, skill_name="muggle-test", ai_classification=c.bucket,
                               ai_suggestion="", user_action=other, test_case_id=case, project_id=project,
                               ts=format_ts(at))
            lines.append((at, event_line(rec)))
            overrides += 1
    return lines, {"classified": n, "overrides": overrides}


# --------------------------------------------------------------------------- other formats

_DEVFLOW_LINES = {
    "compile": ("error TS2304: Cannot find name 'UserProfile'", "SyntaxError: Unexpected token '}'",
                "ModuleNotFoundError: No module named 'requests_oauth'", "Build failed with 3 errors"),
    "test": ("AssertionError: expected 3 but got 2", "Tests: 2 failed, 41 passed, 43 total",
             "FAIL src/cart.test.ts > totals > applies discount"),
    "branch_divergence": ("CONFLICT (content): Merge conflict in src/app.ts",
                          "Your branch is behind origin/main by 4 commits, needs rebase"),
    "trust_gate": ("secret detected: AWS access key in config/settings.py", "CONFIDENCE.md gate FAIL"),
    "mcp_startup": ("MCP server failed: handshake timeout after 30s", "connection refused (MCP localhost:8765)"),
    "plugin_startup": ("plugin not found: eslint-plugin-acme", "invalid plugin.json: missing \"name\""),
    "infra": ("deployment failed: container exited with code 137", "health check failed for service api"),
    "prompt_delivery": ("context too long: token limit exceeded", "agent failed to respond within 300s"),
}
_SOURCE_FILES = ("src/auth/middleware.ts", "src/cart/totals.ts", "app/models/user.py", "web/settings.html",
                 "services/api/main.go", "config/settings.py")


def _lifecycle_lines(rng: random.Random, clock: _Clock, n_failures: int) -> list[tuple[datetime, bytes]]:
    tax = load_taxonomy("devflow")
    types = [(t, w) for t, w in (("compile", 0.3), ("test", 0.28), ("branch_divergence", 0.1), ("trust_gate", 0.05),
                                 ("mcp_startup", 0.08), ("plugin_startup", 0.05), ("infra", 0.08),
                                 ("prompt_delivery", 0.06)) if tax.has_bucket(t)]
    out: list[tuple[datetime, bytes]] = []

    def line(when: datetime, severity: str, event: str, feature: str, session: str, meta: dict, message: str) -> None:
        if rng.random() < 0.03:
            # A shell writer: printf into a JSON template, quotes in the message left as they are.
            raw = (f'{{"timestamp":"{format_ts(when)}","severity":"{severity}","event":"{event}",'
                   f'"feature_id":"{feature}","session_id":"{session}","metadata":{json.dumps(meta)},'
                   f'"message":"{message}"}}\n')
            out.append((when, raw.encode("utf-8")))
            return
        rec = {"timestamp": format_ts(when), "severity": severity, "event": event, "feature_id": feature,
               "session_id": session, "metadata": meta, "message": message}
        out.append((when, (json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")))

    for _ in range(n_failures):
        _, when = clock.draw()
        ftype = _weighted(rng, types)
        b = tax.bucket(ftype)
        feature, session = f"feat-{rng.randint(1, 40):03d}", f"sess-{rng.randrange(16**6):06x}"
        matched = rng.choice(_DEVFLOW_LINES[ftype])
        meta = {"failure_type": ftype, "severity": b.severity, "signal": matched,
                "source_file": rng.choice(_SOURCE_FILES), "auto_recoverable": b.auto_recoverable}
        line(when, "error", "failure.classified", feature, session, meta, f'{ftype} failure: "{matched}"')
        if b.auto_recoverable is False:
            when += timedelta(seconds=rng.uniform(1, 5))
            line(when, "warn", "recovery.escalated", feature, session,
                 {"failure_type": ftype, "reason": "requires human review"}, f"{ftype}: escalated to the user")
            continue
        attempts = 2 if rng.random() < 0.04 else 1  # the anti-loop rule broken now and then
        for _ in range(attempts):
            when += timedelta(seconds=rng.uniform(2, 40))
            line(when, "info", "recovery.attempted", feature, session,
                 {"failure_type": ftype, "recipe": b.recipe}, f"{ftype}: trying {b.recipe}")
        when += timedelta(seconds=rng.uniform(10, 300))
        r = rng.random()
        ok = 0.7 if b.auto_recoverable is True else 0.45
        if r < ok:
            line(when, "info", "recovery.succeeded", feature, session,
                 {"failure_type": ftype, "action_taken": b.recipe}, f"{ftype}: recovered")
        elif r < ok + 0.15 and b.severity == "degraded":
            line(when, "warn", "recovery.degraded", feature, session,
                 {"failure_type": ftype, "lost_capability": "mcp tools" if ftype == "mcp_startup" else "optional plugin"},
                 f"{ftype}: continuing with reduced capability")
        else:
            line(when, "warn", "recovery.escalated", feature, session,
                 {"failure_type": ftype, "reason": "recovery did not fix it"}, f"{ftype}: escalated after one attempt")
    return out


_TEST_IDS = ("tests/test_api.py::TestAuth::test_login", "tests/test_api.py::TestAuth::test_logout",
             "tests/test_cart.py::test_totals[discount]", "tests/test_cart.py::test_totals[tax]",
             "tests/e2e/test_checkout.py::test_pay[chromium]", "tests/test_models.py::test_user_roundtrip",
             "web/src/cart.test.ts > totals > rounds", "tests/test_cli.py::test_help")
_MUST_FIX = ("src/auth.py:login:missing-null-check", "src/cart.py:totals:float-money",
             "src/api.py:handler:unvalidated-input", "tests/test_cart.py:fixture:shared-state",
             "docs/README.md:usage:stale-example", "src/db.py:migrate:no-transaction")


def _retry_lines(rng: random.Random, clock: _Clock, n_tasks: int) -> list[tuple[datetime, bytes]]:
    out: list[tuple[datetime, bytes]] = []
    for k in range(n_tasks):
        _, when = clock.draw()
        scope = {"run_id": f"go-{when:%m%d}-{k:04d}", "task_id": f"task-{rng.randint(1, 9)}"}
        with_scope = rng.random() > 0.1
        key, pool = ("failures", _TEST_IDS) if rng.random() < 0.6 else ("must_fix_keys", _MUST_FIX)
        current = rng.sample(pool, rng.randint(1, 3))
        for _round in range(rng.randint(1, 4)):
            rec: dict[str, Any] = {"ts": format_ts(when), key: list(current)}
            if with_scope:
                rec["scope"] = scope
            out.append((when, (json.dumps(rec, separators=(",", ":")) + "\n").encode()))
            when += timedelta(minutes=rng.uniform(3, 25))
            # most items get fixed; some stay (a streak), a new one appears now and then
            current = [x for x in current if rng.random() < 0.45]
            if rng.random() < 0.2:
                extra = rng.choice(pool)
                if extra not in current:
                    current.append(extra)
            if not current:
                break
    return out


def _agent_failure_lines(rng: random.Random, n: int) -> list[bytes]:
    table = load_table("agent-run")
    texts: list[tuple[str, int | None, int | None]] = []
    for rule in table.extract:
        if rule.contains and not rule.and_contains and not rule.unless:
            texts.append((f"Error: {rule.contains[0]}", 1, None))
        elif rule.http_status:
            texts.append((f"API Error: HTTP {rule.http_status[0]} from the API", 1, None))
    texts += [("", 137, None), ("", None, 9), ("Segmentation fault", 139, None), ("", 1, None)]
    out = []
    for _ in range(n):
        text, code, sig = rng.choice(texts)
        plain = classify({"text": text, "exit_code": code, "signal": sig}, taxonomy="agent-run", table=table)
        # Real tails differ run to run (session ids, timings): identical objects would be duplicates.
        traced = f"{text}\nsession {rng.randrange(16**8):08x} ran {rng.randint(3, 900)}s".lstrip()
        c = classify({"text": traced, "exit_code": code, "signal": sig}, taxonomy="agent-run", table=table)
        if c.bucket != plain.bucket:
            c = plain
        out.append((json.dumps(c.to_agent_failure(), ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    return out


# --------------------------------------------------------------------------- main


def simulate(
    out: str | os.PathLike[str],
    *,
    events: int = 5000,
    weeks: int = 12,
    seed: int = 7,
    taxonomy: str = "all",
    clean: bool = False,
    start: str | date = "2026-09-07",
    people: People | None = None,
) -> SimulationResult:
    """Write seeded, realistic telemetry of every format and its hidden truth into ``out``.

    Parameters
    ----------
    out : the folder to write (created; files of the same names are replaced).
    events : classified failure events (each may have a resolution line).
    weeks : how many weeks, starting on ``start`` (a Monday).
    seed : the seed of every random choice; the same seed writes the same bytes.
    taxonomy : ``replay`` or ``regen`` (that family only, with its defects), or
        ``all`` (replay, regen and pre-execution events; defects in replay and regen).
    clean : plant no defect: AI and truth differ only by the people's noise.
    people : how people decide (:class:`People`); default rates per the contract.

    Returns
    -------
    SimulationResult
        The folder, the files written, the truth (as in ``truth.json``) and counts.

    Examples
    --------
    >>> import tempfile
    >>> r = simulate(tempfile.mkdtemp(), events=100, weeks=2, seed=1, taxonomy="regen", clean=True)
    >>> r.truth["defects"], r.truth["clean"]
    ([], True)
    """
    if taxonomy not in TAXONOMY_CHOICES:
        raise InputError(f"taxonomy must be one of {', '.join(TAXONOMY_CHOICES)}, got {taxonomy!r}")
    if events < 1 or weeks < 1:
        raise InputError("events and weeks must be at least 1")
    start_day = start if isinstance(start, date) else date.fromisoformat(str(start))
    if start_day.weekday() != 0:
        raise InputError(f"start must be a Monday (weeks run Monday to Sunday), got {start_day} ({start_day:%A})")
    people = people or People.default()
    rng = random.Random(seed)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    clock = _Clock(random.Random(rng.random()), start_day, weeks)
    ids = _Ids(random.Random(rng.random()))

    families = ["replay", "regen"] if taxonomy == "all" else [taxonomy]
    truths = {t: _plant(t, random.Random(rng.random()), weeks=weeks, start=start_day, clean=clean) for t in families}
    shares = {f: _FAMILY_SHARE[TAXONOMY_FAMILY[f]] for f in families}
    if taxonomy == "all":
        shares["pre-execution"] = _FAMILY_SHARE["pre-execution"]
    total_share = sum(shares.values())
    counts_by_family = {k: int(round(events * v / total_share)) for k, v in shares.items()}
    counts_by_family[next(iter(counts_by_family))] += events - sum(counts_by_family.values())

    lines: list[tuple[datetime, bytes]] = []
    counts: dict[str, int] = {}
    for t in families:
        gen = _FailureGen(truths[t], random.Random(rng.random()), people)
        got, stats = gen.events(clock, counts_by_family[t], ids)
        lines += got
        counts.update({f"{t}_{k}": v for k, v in stats.items()})
    if "pre-execution" in counts_by_family:
        got, stats = _preexec_events(random.Random(rng.random()), clock, counts_by_family["pre-execution"], ids, people)
        lines += got
        counts.update({f"preexec_{k}": v for k, v in stats.items()})
    failure_lines = _in_writing_order(random.Random(rng.random()), lines)

    aux = random.Random(rng.random())
    lifecycle = [b for _, b in sorted(_lifecycle_lines(aux, clock, max(5, events // 25)), key=lambda x: x[0])]
    retry = [b for _, b in sorted(_retry_lines(aux, clock, max(3, events // 60)), key=lambda x: x[0])]
    agent = _agent_failure_lines(aux, max(5, events // 40))
    mess = _mess_lines(aux, failure_lines)

    files = {
        "failure-events.jsonl": failure_lines,
        "lifecycle.jsonl": lifecycle,
        "retry-log.jsonl": retry,
        "agent-failures.jsonl": agent,
        "mess/failure-events.host-b.jsonl": mess,
    }
    written = []
    for name, content in files.items():
        path = out_dir / name
        atomic_write_bytes(path, b"".join(content))  # (makes the folder, e.g. mess/)
        written.append(path)
        counts[f"lines:{name}"] = len(content)

    truth = _truth_json(seed=seed, taxonomy=taxonomy, start=start_day, weeks=weeks, events=events,
                        truths=truths, clean=clean, people=people, files=list(files))
    truth_path = out_dir / "truth.json"
    atomic_write_bytes(truth_path, (json.dumps(truth, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    written.append(truth_path)
    return SimulationResult(out=out_dir, files=tuple(written), truth=truth, counts=counts)


def _in_writing_order(rng: random.Random, lines: list[tuple[datetime, bytes]]) -> list[bytes]:
    """Time order, except that concurrent writers swap a few neighbouring lines."""
    ordered = [b for _, b in sorted(lines, key=lambda x: x[0])]
    for i in range(len(ordered) - 1):
        if rng.random() < 0.005:
            ordered[i], ordered[i + 1] = ordered[i + 1], ordered[i]
    return ordered


def _mess_lines(rng: random.Random, failure_lines: list[bytes]) -> list[bytes]:
    """A second host's sink: duplicates of real lines and the faults real files have."""
    picks = sorted(rng.sample(range(len(failure_lines)), min(12, len(failure_lines))))
    out = [failure_lines[i] for i in picks]  # exact duplicates (the same events synced twice)
    ts = "2026-09-09T10:15:42.118Z"
    out.insert(3, (f'{{"ts":"{ts}","eventType":"replay-failure-classified","skillName":"muggle-test",'
                   '"aiClassification":"product-defect","aiSuggestion":"share-defect","runId":"run-latin1",'
                   '"testCaseId":"tc-billing-007","projectId":"billing","signals":["assertion-failed-on-passing-step"],'
                   '"metadata":{"errorExcerpt":"Expected \'Caf').encode() + b"\xe9 cr\xe8me\' in the menu\"}}\n")
    out.insert(6, (f'{{"ts":"{ts}","eventType":"replay-failure-classified","skillName":"muggle-test",'
                   '"aiClassification":"stale-script","aiSuggestion":"regenerate","runId":"run-typo",'
                   '"testCaseId":"tc-acme-web-003","signals":"selector-timeout"}\n').encode())
    out.insert(9, (f'{{"ts":"{ts}","eventType":"replay-failure-retried","skillName":"muggle-test",'
                   '"runId":"run-typo","testCaseId":"tc-acme-web-003"}\n').encode())
    last = failure_lines[picks[-1] if picks else 0]
    out.append(last[: max(10, len(last) // 2)])  # the writer crashed mid-line
    return out


def _truth_json(*, seed: int, taxonomy: str, start: date, weeks: int, events: int, truths: Mapping[str, _Truth],
                clean: bool, people: People, files: list[str]) -> dict[str, Any]:
    defects = [d.to_dict() for t in truths.values() for d in t.defects]
    doc: dict[str, Any] = {"seed": seed, "taxonomy": taxonomy, "start": start.isoformat(), "weeks": weeks,
                           "events": events}
    if len(truths) == 1:
        (t,) = truths.values()
        doc["table"] = t.table.name
        doc["table_version"] = t.table.version
    doc["tables"] = {name: {"table": t.table.name, "table_version": t.table.version} for name, t in truths.items()}
    doc["defects"] = defects
    doc["clean"] = clean
    doc["people"] = asdict(people)
    doc["files"] = files
    return doc


