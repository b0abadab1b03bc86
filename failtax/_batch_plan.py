"""A rule table compiled for batch classification (private; see :mod:`failtax.batch`).

:class:`Plan` holds what the batch engine needs from a table, computed once and cached
on the compiled table: the literal groups of every text condition (a rule's
``contains``, ``and_contains``, ``unless``; the literal sets and prefilters of its regex
alternatives), the engine that scans them, the RE2 set that answers the regex
alternatives without a wide gap (:mod:`failtax._regex_set`), and the signal and route
arrays routing runs on.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np

from failtax._scan import (
    FOLD_RISK,
    make_engine,
    prefilters,
    split_alternatives,
)
from failtax._regex_set import RegexSet
from failtax.table import RuleTable, _re2_options, compile_regex

__all__ = ["Plan", "plan_for", "register_plan"]

_NAMES_TEXT = re.compile(r"\{text\b|\?text\}")


class Plan:
    """A rule table compiled for batch evaluation: literal groups, rule and route arrays."""

    def __init__(self, table: RuleTable, engine: str | None):
        ct = table.compiled()
        self.table, self.ct, self.taxonomy = table, ct, ct.taxonomy
        rules = table.extract
        n_rules = len(rules)
        self.n_rules = n_rules
        literal_ids: dict[str, int] = {}
        groups: list[tuple[int, ...]] = []

        def group(strings: Iterable[str]) -> int:
            ids = sorted({literal_ids.setdefault(s, len(literal_ids)) for s in strings})
            groups.append(tuple(ids))
            return len(groups) - 1

        self.g_contains = np.full(n_rules, -1, dtype=np.int64)
        self.g_and = np.full(n_rules, -1, dtype=np.int64)
        self.g_unless = np.full(n_rules, -1, dtype=np.int64)
        for r, rule in enumerate(rules):
            text_lits, also, unless = ct.literals[rule.id]
            if text_lits:
                self.g_contains[r] = group(text_lits)
            if also:
                self.g_and[r] = group(also)
            if unless:
                self.g_unless[r] = group(unless)
        self.g_fold = group(FOLD_RISK)
        # Regexes run on RE2 one top-level alternative at a time.
        self.units: list[tuple[Any, int | None]] = []  # (RE2 pattern, widest match in bytes)
        supersets: list[str | None] = []
        reqs: list[tuple[str, ...] | None] = []
        parts_of: list[tuple[tuple[str, ...], ...]] = []
        exacts: dict[int, tuple[str, ...]] = {}

        def split(pattern: str) -> tuple[list[str], list[Any]]:
            alts = split_alternatives(pattern)
            try:
                return alts, [compile_regex(a) for a in alts]
            except Exception:  # an alternative RE2 will not take alone: keep the whole
                return [pattern], [compile_regex(pattern)]

        rule_parts = {r: split(rule.regex) for r, rule in enumerate(rules) if rule.regex is not None}
        locate_parts = [(loc, rx, split(loc.regex)) for loc, rx in ct.locate]
        every_alt = [a for alts, _ in rule_parts.values() for a in alts]
        every_alt += [a for _, _, (alts, _) in locate_parts for a in alts]
        # Only literals are scanned. Hyperscan (5.4.12, as the wheel bundles it) can miss
        # matches of regex patterns on this kind of machine (AVX-512): a superset that
        # matches a record alone was not reported in it (tests/test_batch.py keeps one),
        # and a missed superset is a rule lost. Its literal matching was checked against
        # substring search on every real message and 20,000 generated records, every
        # table: no hit missed.
        known = dict(zip(every_alt, prefilters(every_alt, superset=False), strict=True))

        def add_units(parts: tuple[list[str], list[Any]]) -> list[int]:
            out = []
            for alt, rx in zip(*parts, strict=True):
                pf = known[alt]
                out.append(len(self.units))
                self.units.append((rx, 4 * pf.width if pf.width is not None else None))
                if pf.exact is not None:  # just a few strings: the literal scan answers it
                    exacts[len(self.units) - 1] = pf.exact
                supersets.append(pf.superset)
                reqs.append(pf.required)
                parts_of.append(pf.parts)
            return out

        self.rule_units = {r: add_units(parts) for r, parts in rule_parts.items()}
        self.locate = [(loc, rx, add_units(parts)) for loc, rx, parts in locate_parts]
        # Shown texts are masked by failtax.redact, which looks at every shown row itself
        # (its expression is a regex too: no scan shortcut).
        self.n_units = len(self.units)
        self.unit_group = [-1] * self.n_units
        self.unit_exact = np.zeros(self.n_units, dtype=bool)
        for u, strings in exacts.items():
            self.unit_group[u] = group(strings)
            self.unit_exact[u] = True
        # The other alternatives without a wide gap are answered all at once, one RE2 set
        # pass per record (their literals need no scan); the rest run one by one, each
        # where one of its literals occurs (if it has any).
        in_set = [u for u in range(self.n_units) if not self.unit_exact[u]]
        self.regex_set = RegexSet([self.units[u][0].pattern for u in in_set], _re2_options)
        #: the alternative each set member is; set index k is column k of a block's answers
        self.set_units = np.array(in_set, dtype=np.int64)[self.regex_set.members]
        #: per alternative, its set index (-1: not in the set)
        self.set_col = np.full(self.n_units, -1, dtype=np.int64)
        self.set_col[self.set_units] = np.arange(len(self.set_units))
        for u in range(self.n_units):
            if reqs[u] and not self.unit_exact[u] and self.set_col[u] < 0:
                self.unit_group[u] = group(reqs[u])
        # Each part of such an alternative's sequence requires a literal of its own, and a
        # literal holding one that is scanned anyway cannot occur without it: where each
        # literal of a part holds a scanned one, the rows where the part can match come
        # free, and the alternative is searched only where all its parts can.
        scanned = frozenset(literal_ids)
        #: per alternative, the groups standing for its other parts (scanned literals only)
        self.unit_also: list[tuple[int, ...]] = [()] * self.n_units
        for u in range(self.n_units):
            if self.unit_group[u] >= 0 and not self.unit_exact[u]:
                also = []
                for part in dict.fromkeys(parts_of[u]):
                    if part == reqs[u]:
                        continue
                    held = []
                    for s in part:
                        h = _longest_held(s, scanned)
                        if h is None:
                            break
                        held.append(h)
                    else:
                        also.append(group(held))
                self.unit_also[u] = tuple(also)
        self.engine = make_engine(tuple(literal_ids), supersets, engine)
        self.unit_hs = np.array([bool(ok) for ok in self.engine.regex_ok], dtype=bool)
        self.n_groups = len(groups)
        self.literals = tuple(literal_ids)
        # literal -> groups, as CSR
        pairs = sorted((lit, g) for g, ids in enumerate(groups) for lit in ids)
        lit_of = np.array([p[0] for p in pairs], dtype=np.int64)
        self.lg_data = np.array([p[1] for p in pairs], dtype=np.int64)
        self.lg_ptr = np.searchsorted(lit_of, np.arange(len(self.literals) + 1)).astype(np.int64)
        # groups whose first position matters: a rule's text literals (the matched line)
        # and a regex alternative's literals (where its search can start)
        self.pos_slot = np.full(self.n_groups, -1, dtype=np.int64)
        contains_groups = sorted({int(g) for g in self.g_contains if g >= 0} | {g for g in self.unit_group if g >= 0})
        for slot, g in enumerate(contains_groups):
            self.pos_slot[g] = slot
        self.n_slots = len(contains_groups)

        # signals
        self.signals = tuple(table.signals)
        self.sig_index = {s: j for j, s in enumerate(self.signals)}
        self.rule_sig = np.array([self.sig_index[r.signal] for r in rules], dtype=np.int64)
        self.sig_rules = [np.flatnonzero(self.rule_sig == j) for j in range(len(self.signals))]
        self.regex_rules = [r for r, rule in enumerate(rules) if rule.regex is not None]
        self.field_rules = [r for r, rule in enumerate(rules) if rule.field is not None]
        self.subtype_rules = [r for r, rule in enumerate(rules) if rule.frame_subtype]
        self.capture_rules = [(r, ct.capture[rule.id]) for r, rule in enumerate(rules) if rule.id in ct.capture]
        self.capture_mask = np.zeros(n_rules, dtype=bool)
        for r, _ in self.capture_rules:
            self.capture_mask[r] = True

        # routes: decision k < n_routes is route k; n_routes is the fallback
        routes = table.route
        self.n_routes = len(routes)
        idx = self.sig_index
        self.route_any = [np.array([idx[s] for s in rt.any], dtype=np.int64) for rt in routes]
        self.route_all = [np.array([idx[s] for s in rt.all], dtype=np.int64) for rt in routes]
        self.route_none = [np.array([idx[s] for s in rt.none], dtype=np.int64) for rt in routes]
        self.route_pos = [[idx[s] for s in rt.positive_signals] for rt in routes]
        # regex rule -> the routes whose matched line it can give
        self.regex_line_routes = {}
        for r in self.regex_rules:
            qs = [q for q, ps in enumerate(self.route_pos) if int(self.rule_sig[r]) in ps]
            if qs:
                self.regex_line_routes[r] = np.array(qs, dtype=np.int64)
        tax = self.taxonomy
        self.decisions: list[dict[str, Any]] = []
        for rt in [*routes, None]:
            bucket = tax.bucket(rt.bucket if rt is not None else table.fallback)
            title, detail, retryable = bucket.title, bucket.detail, bucket.retryable
            if rt is not None:
                title = rt.title if rt.title is not None else title
                detail = rt.detail if rt.detail is not None else detail
                retryable = rt.retryable if rt.retryable is not None else retryable
            self.decisions.append(
                {
                    "bucket": bucket.name,
                    "rule": rt.id if rt is not None else "fallback",
                    "title": title,
                    "detail": detail,
                    "retryable": retryable,
                    "bucket_obj": bucket,
                }
            )
        self.needs_facts = np.array(["{" in d["title"] or "{" in d["detail"] for d in self.decisions])
        # the whole shown text is a fact too; build it only where a template names it
        self.needs_text = np.array([bool(_NAMES_TEXT.search(d["title"] + d["detail"])) for d in self.decisions])


    @property
    def unit_in_set(self) -> np.ndarray:
        """Per regex alternative: True when the plan's RE2 set answers it."""
        return self.set_col >= 0


def _longest_held(s: str, scanned: frozenset[str]) -> str | None:
    """The longest of the ``scanned`` literals that ``s`` holds, or None."""
    for n in range(len(s), 0, -1):
        for i in range(len(s) - n + 1):
            if s[i : i + n] in scanned:
                return s[i : i + n]
    return None


_PLANS: weakref.WeakKeyDictionary[Any, dict[str | None, Plan]] = weakref.WeakKeyDictionary()


def plan_for(table: RuleTable, engine: str | None) -> Plan:
    ct = table.compiled()
    by_engine = _PLANS.setdefault(ct, {})
    if engine not in by_engine:
        by_engine[engine] = Plan(table, engine)
    return by_engine[engine]


def register_plan(table: RuleTable, engine: str | None, plan: Plan) -> None:
    """Use ``plan`` (built for an equal table elsewhere, e.g. unpickled) for ``table``."""
    _PLANS.setdefault(table.compiled(), {})[engine] = plan
