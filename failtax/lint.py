"""Lint a rule table: rules that can never fire, never decide, or are not needed.

A table is a file people edit by hand and a tuner rewrites; it can be valid (it loads)
and still wrong. :func:`lint_table` reads a loaded :class:`~failtax.RuleTable` and returns
:class:`LintFinding` records, each with a severity, a check code, the rule, what is wrong
and what to do. It runs no evidence and does no IO. The checks (code, severity):

Routes (first match wins):

- ``unsatisfiable-route`` (error): its own conditions contradict (a signal in both
  ``all`` and ``none``, or every ``any`` signal also in ``none``).
- ``duplicate-route`` (error): the same ``any``/``all``/``none`` sets as an earlier route,
  which always decides first.
- ``shadowed-route`` (error): can never decide because whenever it would match, an earlier
  route — or several together — already matches. Computed exactly over the
  ``any``/``all``/``none`` sets (a search over the signals the routes name; signals a tool
  may name are unbounded, so nothing is assumed about which appear).
- ``unreachable-bucket`` (warning): a bucket of the taxonomy, other than the fallback,
  that no live route leads to.
- ``incomplete-analysis`` (warning): the shadowing search has a work budget (so a
  hostile table cannot make lint run for hours); routes it could not settle are named
  and treated as able to decide.

Signals:

- ``signal-spelling`` (error): a route names a signal no extract rule emits that differs
  from an emitted (or known) one only in case or separators (``element_notfound`` vs
  ``element-not-found``).
- ``unnormalised-signal`` (error in a route, warning in an extract rule): a name that is
  not lower-case with ``-`` between words; signals a tool names are normalised that way,
  so such a route signal is never present.
- ``route-signal-not-extracted`` (warning): a route needs signals no extract rule emits;
  it fires only when the tool itself names them (allowed, hence only a warning).
- ``dead-extract`` (warning): an extract rule whose signal no route uses (or only routes
  that can never decide), unless it is one of ``known_signals`` (kept for telemetry).

Extract rules:

- ``duplicate-extract`` (warning): the same conditions as an earlier rule.
- ``redundant-extract`` (warning): fires only when another rule with the same signal
  also fires (its conditions imply the other's), so it adds nothing. Often a sign the
  author meant "or" where the table says "and" (``contains`` + ``exit_code``).
- ``vetoed-extract`` (error): every ``contains`` literal contains an ``unless`` literal, so
  the veto always applies.
- ``contradictory-extract`` (error): ``has_signal = false`` with ``posix_signal`` numbers.
- ``unmatchable-literal`` (error when no literal of the list can match, warning
  otherwise; always a warning in ``unless``, where it means the veto never applies):
  literals are matched against normalised text in which ANSI escape codes and NUL bytes
  are removed and ``\\r`` became ``\\n``, so a literal holding ESC, NUL or ``\\r`` never
  matches.
- ``repeated-literal`` (warning): a literal written twice in one list (``contains``,
  ``and_contains`` or ``unless``), letter case aside: the second adds nothing.
- ``multiline-literal`` (warning): a literal holding ``\\n`` can match (line breaks are kept,
  ``\\r\\n`` is folded to ``\\n``) but only when both parts sit on adjacent lines exactly as
  written — terminal wrapping and progress redraws break that. Prefer ``contains`` with
  one part and ``and_contains`` with the other.
- ``non-ascii-case`` (warning): literals are matched against ASCII-lower-cased text, so
  a literal with a non-ASCII capital (``É``) matches only that very capital in the text.
- ``unmatchable-regex`` (error when the whole pattern can never match, warning when a
  part can't): an ESC (ANSI escape code), NUL or ``\\r`` in a pattern, which the
  normalised text never holds. Case is no finding for a regex: patterns run
  case-insensitively on the normalised text with its case kept, so a ``(?-i)`` part
  such as ``(?-i:FAIL)`` matches exactly the capitals it names.
- ``ascii-word-boundary`` (warning): ``\\b`` or ``\\B`` written right beside a non-ASCII
  letter (``\\bшаг\\b``). RE2's word characters are ASCII only, so between a space and
  ``ш`` there is no boundary and the pattern never matches the word it names.
- ``unfiltered-regex`` (warning): a top-level alternative of a regex that holds no
  literal text every match contains (only classes, ``\\w+``, ``\\d+``, ``.*``).
  :func:`failtax.classify_batch` runs a regex alternative only on the records where one
  of its literals occurs, so this one runs on every record of every batch.

Exceptions: :func:`lint_table` raises :class:`~failtax.TableError` when the table does
not validate at all (its message names the file, the rule and the reason).

>>> from failtax.table import load_table
>>> [f.code for f in lint_table(load_table("preexec"))]
['route-signal-not-extracted']
>>> lint_table(load_table("preexec"), known_signals=["rule-4-default-replay"])  # the tool names it
[]
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from failtax import _scan
from failtax._cache import derived_file, kept_json
from failtax.errors import TableError
from failtax.evidence import ascii_lower, normalise_signal_name, normalise_text
from failtax.table import ExtractRule, RouteRule, RuleTable, load_table

__all__ = ["CHECKS", "LintFinding", "check_table", "lint_table"]

ERROR, WARNING = "error", "warning"

#: Every check: code → what it finds (the module docstring has the details).
CHECKS: dict[str, str] = {
    "unsatisfiable-route": "a route whose own conditions contradict",
    "duplicate-route": "a route with the same conditions as an earlier one",
    "shadowed-route": "a route earlier routes always decide before",
    "unreachable-bucket": "a bucket no live route leads to",
    "incomplete-analysis": "routes whose shadowing the search budget could not settle",
    "signal-spelling": "a route signal that is a misspelling of an emitted one",
    "unnormalised-signal": "a signal name not in lower-case-with-hyphens form",
    "route-signal-not-extracted": "a route needing signals no extract rule emits",
    "dead-extract": "an extract rule whose signal no live route uses",
    "duplicate-extract": "an extract rule with the same conditions as an earlier one",
    "redundant-extract": "an extract rule implied by another with the same signal",
    "vetoed-extract": "an extract rule its own 'unless' always vetoes",
    "contradictory-extract": "an extract rule whose conditions contradict",
    "unmatchable-literal": "a literal holding ESC, NUL or \\r (removed by normalisation)",
    "repeated-literal": "a literal written twice in one list of a rule",
    "multiline-literal": "a literal holding a line break",
    "non-ascii-case": "a literal with a non-ASCII capital letter",
    "unmatchable-regex": "a regex (part) that needs ESC, NUL or \\r, which normalised text never holds",
    "ascii-word-boundary": "a regex with \\b beside a non-ASCII letter, where RE2 sees no word boundary",
    "unfiltered-regex": "a regex alternative with no literal every match holds: batch classification runs it on every record",
}

# Route checks the shadowing search may spend (about 1 µs each): a hostile table cannot
# make lint run for long, and a real one (tens to hundreds of routes) never comes near.
_SEARCH_BUDGET = 1_000_000  # for a whole table
_ROUTE_BUDGET = 200_000  # for one route


@dataclass(frozen=True)
class LintFinding:
    """One problem in a table.

    Attributes
    ----------
    severity : ``"error"`` (the rule cannot work as written) or ``"warning"``.
    code : the check, a key of :data:`CHECKS`.
    section : ``"extract"``, ``"route"``, ``"bucket"`` or ``"table"``.
    rule : the rule id (or bucket name for ``unreachable-bucket``), ``None`` for the table.
    message : what is wrong.
    fix : what to do about it.
    """

    severity: str
    code: str
    section: str
    rule: str | None
    message: str
    fix: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity, "code": self.code, "section": self.section,
            "rule": self.rule, "message": self.message, "fix": self.fix,
        }

    def __str__(self) -> str:
        if self.section == "bucket":
            where = f"bucket {self.rule!r}"
        else:
            where = f"[[{self.section}]] {self.rule!r}" if self.rule else f"[{self.section}]"
        return f"{self.severity}: {where}: {self.message} [{self.code}]\n    fix: {self.fix}"


def _f(severity: str, code: str, section: str, rule: str | None, message: str, fix: str) -> LintFinding:
    return LintFinding(severity, code, section, rule, message, fix)


# =========================================================================== routes


def _sat(req: set[str], forb: set[str], clauses: Sequence[frozenset[str]]) -> bool:
    return not (req & forb) and all(c - forb for c in clauses)


def _route_state(r: RouteRule) -> tuple[set[str], set[str], list[frozenset[str]]]:
    return set(r.all), set(r.none), [frozenset(r.any)] if r.any else []


def _falsified(e: RouteRule, req: set[str], forb: set[str]) -> bool:
    return bool(set(e.all) & forb) or bool(set(e.none) & req) or bool(e.any and set(e.any) <= forb)


def _options(e: RouteRule, req: set[str], forb: set[str], clauses: Sequence[frozenset[str]]) -> list[tuple[set[str], set[str]]]:
    """The consistent ways to make ``e`` fail from state (req, forb)."""
    opts: list[tuple[set[str], set[str]]] = []
    if e.any:
        opts.append((req, forb | set(e.any)))
    opts.extend((req, forb | {a}) for a in e.all if a not in req)
    opts.extend((req | {n}, forb) for n in e.none if n not in forb)
    return [(r, f) for r, f in opts if _sat(r, f, clauses)]


def _can_avoid(route: RouteRule, earlier: Sequence[RouteRule], *, budget: list[int] | None = None) -> bool | None:
    """Is there a signal set on which ``route`` matches and none of ``earlier`` does?

    Exact: a depth-first search over the ways to make each earlier route fail (leave
    out all of its ``any`` signals, leave out one of its ``all`` signals, or add one of
    its ``none`` signals), pruned by consistency and taking the most constrained route
    first; a state in which every earlier route fails gives the witness
    ``required ∪ {one allowed 'any' signal}``. ``None`` when the search ran out of
    ``budget`` (a one-item list of route checks left, shared across calls); callers then treat
    the route as able to decide: no finding without proof.
    """
    if budget is None:
        budget = [_SEARCH_BUDGET]
    req0, forb0, clauses = _route_state(route)
    if not _sat(req0, forb0, clauses):
        return False
    pending = [e for e in earlier if _overlaps(route, e)]  # the others fail whenever route matches
    # Fast path: the smallest sets on which the route matches.
    for c in route.any or (None,):
        s = req0 | ({c} if c is not None else set())
        if route.matches(s) and not any(e.matches(s) for e in pending):
            return True
    stack: list[tuple[set[str], set[str]]] = [(req0, forb0)]
    local = _ROUTE_BUDGET
    while stack:
        # the budget counts route checks, the unit of work of one search node
        budget[0] -= len(pending) + 1
        local -= len(pending) + 1
        if budget[0] < 0 or local < 0:
            return None
        req, forb = stack.pop()
        best: list[tuple[set[str], set[str]]] | None = None
        for e in pending:
            if _falsified(e, req, forb):
                continue
            opts = _options(e, req, forb, clauses)
            if best is None or len(opts) < len(best):
                best = opts
                if len(opts) <= 1:
                    break
        if best is None:
            return True
        stack.extend(reversed(best))
    return False


def _positive_mentions(routes: Sequence[RouteRule]) -> dict[str, list[int]]:
    """Signal → positions of the routes naming it in ``any`` or ``all`` (ascending)."""
    out: dict[str, list[int]] = {}
    for j, r in enumerate(routes):
        for x in r.positive_signals:
            out.setdefault(x, []).append(j)
    return out


def _relevant_earlier(
    route: RouteRule, routes: Sequence[RouteRule], mentions: dict[str, list[int]], before: int, dead: set[str]
) -> list[RouteRule]:
    """The earlier live routes that can matter to whether ``route`` ever decides.

    ``closure`` holds every signal a witness may need: the route's own, plus the
    ``none`` signals of relevant routes (added to make them fail). An earlier route
    with an ``all`` signal outside the closure, or whose ``any`` signals all lie
    outside it, fails on every witness drawn from the closure, so it is left out —
    which keeps a big table's lint near linear. Dead routes are left out too: whenever
    one matches, an earlier route already did.
    """
    closure = set(route.all) | set(route.any)
    queue = list(closure)
    found: dict[int, RouteRule] = {}
    while queue:
        x = queue.pop()
        for j in mentions.get(x, ()):
            if j >= before:
                break
            e = routes[j]
            if j in found or e.id in dead:
                continue
            if set(e.all) <= closure and (not e.any or not closure.isdisjoint(e.any)):
                found[j] = e
                for n in e.none:
                    if n not in closure:
                        closure.add(n)
                        queue.append(n)
    return [found[j] for j in sorted(found)]


def _overlaps(a: RouteRule, b: RouteRule) -> bool:
    req = set(a.all) | set(b.all)
    forb = set(a.none) | set(b.none)
    clauses = [frozenset(x.any) for x in (a, b) if x.any]
    return _sat(req, forb, clauses)


def _lint_routes(table: RuleTable) -> tuple[list[LintFinding], set[str]]:
    """Route findings and the ids of routes that can never decide."""
    out: list[LintFinding] = []
    dead: set[str] = set()
    live: list[RouteRule] = []
    seen: dict[tuple[frozenset[str], frozenset[str], frozenset[str]], RouteRule] = {}
    mentions = _positive_mentions(table.route)
    budget = [_SEARCH_BUDGET]
    undecided: list[str] = []
    for index, r in enumerate(table.route):
        key = (frozenset(r.any), frozenset(r.all), frozenset(r.none))
        req, forb, clauses = _route_state(r)
        if not _sat(req, forb, clauses):
            both = sorted(req & forb) or sorted(set(r.any) & forb)
            dead.add(r.id)
            out.append(_f(ERROR, "unsatisfiable-route", "route", r.id,
                          f"can never match: {', '.join(map(repr, both))} must be both present and absent",
                          "remove the signal from 'none' (or from 'all'/'any'), or delete the route"))
            continue
        if key in seen:
            first = seen[key]
            same = "same bucket" if first.bucket == r.bucket else f"bucket {first.bucket!r}, not {r.bucket!r}"
            dead.add(r.id)
            out.append(_f(ERROR, "duplicate-route", "route", r.id,
                          f"has the same conditions as route {first.id!r} ({same}), which always decides first",
                          f"delete it, or merge it into {first.id!r}"))
            continue
        seen[key] = r
        earlier = _relevant_earlier(r, table.route, mentions, index, dead)
        verdict = _can_avoid(r, earlier, budget=budget)
        if verdict is None:
            undecided.append(r.id)
        if verdict is False:
            covering = [e for e in earlier if _overlaps(r, e)]
            singles = [e for e in covering if _can_avoid(r, [e], budget=budget) is False]
            if singles:
                by = f"route {singles[0].id!r} (bucket {singles[0].bucket!r})"
            else:
                by = "routes " + ", ".join(repr(e.id) for e in covering) + " together"
            dead.add(r.id)
            out.append(_f(ERROR, "shadowed-route", "route", r.id,
                          f"never decides: whenever it matches, {by} matched earlier (first match wins)",
                          "move it above the route(s) that shadow it, narrow those with 'none', or delete it"))
            continue
        live.append(r)
    if undecided:
        shown = ", ".join(map(repr, undecided[:10])) + (f" and {len(undecided) - 10} more" if len(undecided) > 10 else "")
        out.append(_f(WARNING, "incomplete-analysis", "table", None,
                      f"whether route(s) {shown} can ever decide was not settled within the search "
                      f"budget; they are treated as able to decide",
                      "simplify the routes' 'none' chains, or split the table"))
    tax = table.taxonomy_obj
    reached = {r.bucket for r in live}
    for b in tax.bucket_names:
        if b != table.fallback and b not in reached:
            out.append(_f(WARNING, "unreachable-bucket", "bucket", b,
                          f"no route that can decide leads to this bucket of taxonomy {tax.name!r}",
                          "add a route to it (or fix its shadowed route); ignore if the bucket is deliberately unused"))
    return out, dead


# =========================================================================== signals


def _canon(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _lint_signals(table: RuleTable, dead_routes: set[str], known: set[str]) -> list[LintFinding]:
    out: list[LintFinding] = []
    emitted: dict[str, str] = {}
    for e in table.extract:
        emitted.setdefault(e.signal, e.id)
    available = set(emitted) | known
    by_canon: dict[str, str] = {}
    for s in [*emitted, *sorted(known)]:
        by_canon.setdefault(_canon(s), s)
    for e in table.extract:
        if normalise_signal_name(e.signal) != e.signal:
            out.append(_f(WARNING, "unnormalised-signal", "extract", e.id,
                          f"signal {e.signal!r} is not in normal form; signals a tool names are spelled "
                          f"{normalise_signal_name(e.signal)!r}, so they never meet this one",
                          f"rename it to {normalise_signal_name(e.signal)!r} here and in the routes"))
    flagged: set[tuple[str, str]] = set()
    for r in table.route:
        missing_pos: list[str] = []
        for part, names in (("any", r.any), ("all", r.all), ("none", r.none)):
            for s in names:
                if s in available:
                    continue
                variant = by_canon.get(_canon(s))
                if variant is not None and (r.id, s) not in flagged:
                    flagged.add((r.id, s))
                    out.append(_f(ERROR, "signal-spelling", "route", r.id,
                                  f"{part!r} names {s!r}, which no extract rule emits; it differs from "
                                  f"{variant!r} only in spelling",
                                  f"write {variant!r}"))
                elif normalise_signal_name(s) != s and (r.id, s) not in flagged:
                    flagged.add((r.id, s))
                    out.append(_f(ERROR, "unnormalised-signal", "route", r.id,
                                  f"{part!r} names {s!r}, which can never be present: signals are "
                                  f"normalised to {normalise_signal_name(s)!r}",
                                  f"write {normalise_signal_name(s)!r}"))
                elif part != "none":
                    missing_pos.append(s)
        if r.id in dead_routes:
            continue
        need_any = r.any and not any(s in available for s in r.any)
        need_all = [s for s in r.all if s not in available]
        if need_any or need_all:
            names = sorted(set(missing_pos) & (set(r.any) if need_any else set()) | set(need_all))
            if names:
                out.append(_f(WARNING, "route-signal-not-extracted", "route", r.id,
                              f"needs {', '.join(map(repr, names))}, which no extract rule emits: it "
                              f"fires only when the tool names them in 'signals'",
                              "add an extract rule for them, or pass them as known signals if tools name them"))
    used: dict[str, list[str]] = {}
    for r in table.route:
        for s in (*r.any, *r.all, *r.none):
            used.setdefault(s, []).append(r.id)
    reported: set[str] = set()
    for e in table.extract:
        if e.signal in known or e.signal in reported:
            continue
        routes = used.get(e.signal, [])
        if not routes:
            msg = f"signal {e.signal!r} is used by no route: it is recorded but never decides a bucket"
        elif all(rid in dead_routes for rid in routes):
            msg = (f"signal {e.signal!r} is used only by route(s) that never decide "
                   f"({', '.join(map(repr, routes))})")
        else:
            continue
        reported.add(e.signal)
        out.append(_f(WARNING, "dead-extract", "extract", e.id, msg,
                      "route the signal to a bucket, delete the rule, or list the signal as known "
                      "if it is kept for telemetry"))
    return out


# =========================================================================== extract rules


def _conditions(e: ExtractRule) -> tuple[Any, ...]:
    """Everything that decides when a rule fires (and what it captures), order-free."""

    def low(xs: Iterable[str]) -> frozenset[str]:
        return frozenset(ascii_lower(x) for x in xs)  # literals match ASCII-case-insensitively

    return (
        low(e.text_literals), low(e.and_contains), low(e.unless), e.regex,
        frozenset(e.exit_code), e.has_signal, frozenset(e.posix_signal),
        frozenset(e.frame_subtype), e.frame_error, e.field, e.op,
        tuple(e.value) if isinstance(e.value, list) else e.value, e.capture,
    )


def _lits_imply(a: Iterable[str], b: Iterable[str], *, fold: bool = True) -> bool:
    """Any literal of ``a`` present ⇒ some literal of ``b`` present (by substring)."""
    if fold:
        a, b = [ascii_lower(x) for x in a], [ascii_lower(x) for x in b]
    else:
        a, b = list(a), list(b)
    return bool(a) and all(any(y in x for y in b) for x in a)


def _implies(a: ExtractRule, b: ExtractRule) -> bool:
    """Whenever ``a`` fires, ``b`` fires too (a sound, not complete, test)."""
    a_text, b_text = a.text_literals, b.text_literals
    if b_text and not _lits_imply(a_text, b_text):
        return False
    if b.and_contains and not (_lits_imply(a.and_contains, b.and_contains) or _lits_imply(a_text, b.and_contains)):
        return False
    for u in b.unless:  # b's veto must also veto a
        if not any(ascii_lower(v) in ascii_lower(u) for v in a.unless):
            return False
    if b.regex is not None and a.regex != b.regex:
        return False
    if b.exit_code and not (a.exit_code and set(a.exit_code) <= set(b.exit_code)):
        return False
    if b.has_signal is not None and a.has_signal != b.has_signal and not (b.has_signal and a.posix_signal):
        return False
    if b.posix_signal and not (a.posix_signal and set(a.posix_signal) <= set(b.posix_signal)):
        return False
    if b.frame_subtype and not _lits_imply(a.frame_subtype, b.frame_subtype, fold=False):
        return False
    if b.frame_error is not None and a.frame_error != b.frame_error:
        return False
    if b.field is not None and (a.field, a.op, a.value) != (b.field, b.op, b.value):
        return False
    return True


def _literal_problem(lit: str) -> str | None:
    """Why ``lit`` can never appear in normalised text, or ``None`` when it can."""
    if normalise_text(lit) == lit:
        return None
    if "\x00" in lit:
        return "holds a NUL byte, which normalisation removes from the text"
    if "\r" in lit:
        return "holds \\r, which normalisation turns into \\n"
    if "\x1b" in lit:
        return "holds an ANSI escape code, which normalisation removes from the text"
    return "holds characters normalisation replaces (a lone surrogate)"


def _lint_extract(extract: tuple[ExtractRule, ...]) -> list[LintFinding]:
    out: list[LintFinding] = []
    unfiltered = _unfiltered_alternatives([e.regex for e in extract if e.regex is not None])
    seen: dict[tuple[Any, ...], ExtractRule] = {}
    for e in extract:
        key = _conditions(e)
        if key in seen:
            first = seen[key]
            if first.signal == e.signal:
                msg = f"has the same conditions and signal as {first.id!r}"
                fix = "delete it"
            else:
                msg = (f"has the same conditions as {first.id!r} but emits {e.signal!r} instead of "
                       f"{first.signal!r}: the two always fire together")
                fix = "emit one signal, or make the conditions differ"
            out.append(_f(WARNING, "duplicate-extract", "extract", e.id, msg, fix))
        else:
            seen[key] = e
    # Redundancy is checked within rules of one signal. A rule found redundant is no
    # witness for later ones, so of two rules implying each other one is kept.
    flagged = {f.rule for f in out}
    by_signal: dict[str, list[ExtractRule]] = {}
    for e in extract:
        by_signal.setdefault(e.signal, []).append(e)
    cond = {e.id: _conditions(e) for e in extract}
    for e in extract:
        if e.id in flagged:
            continue
        for other in by_signal[e.signal]:
            if other is e or other.id in flagged or cond[other.id] == cond[e.id]:
                continue
            if e.capture is not None and e.capture != other.capture:
                continue  # it still records facts the other does not
            if _implies(e, other):
                hint = ""
                if e.uses_text and (e.exit_code or e.posix_signal or e.field):
                    hint = " (if the non-text condition alone should emit the signal, drop the text condition)"
                out.append(_f(WARNING, "redundant-extract", "extract", e.id,
                              f"fires only when {other.id!r} also fires with the same signal "
                              f"{e.signal!r}: it adds nothing",
                              f"delete it{hint}"))
                flagged.add(e.id)
                break
    for e in extract:
        lits = [ascii_lower(x) for x in e.text_literals]
        vetoes = [ascii_lower(v) for v in e.unless]
        if lits and vetoes and all(any(v in x for v in vetoes) for x in lits):
            out.append(_f(ERROR, "vetoed-extract", "extract", e.id,
                          "every 'contains' literal contains an 'unless' literal, so the veto always applies",
                          "narrow 'unless' or delete the rule"))
        if e.has_signal is False and e.posix_signal:
            out.append(_f(ERROR, "contradictory-extract", "extract", e.id,
                          "'has_signal = false' with 'posix_signal' numbers can never both hold",
                          "drop one of the two"))
        for part, lits_ in (("contains", e.contains), ("and_contains", e.and_contains), ("unless", e.unless)):
            bad = [(x, p) for x in lits_ if (p := _literal_problem(x)) is not None]
            if bad:
                if part == "unless":
                    sev, what = WARNING, "so this veto never applies"
                elif len(bad) == len(lits_) and not (part == "contains" and e.http_status):
                    sev, what = ERROR, f"and no other {part!r} literal is left, so the rule never fires"
                else:
                    sev, what = WARNING, "so this literal never matches"
                for x, p in bad:
                    out.append(_f(sev, "unmatchable-literal", "extract", e.id,
                                  f"{part!r} literal {x!r} {p}, {what}",
                                  "remove the escape code / control character from the literal"))
            seen_lits: set[str] = set()
            for x in lits_:
                if ascii_lower(x) in seen_lits:
                    out.append(_f(WARNING, "repeated-literal", "extract", e.id,
                                  f"{part!r} lists {x!r} twice (letter case aside): the second adds nothing",
                                  "delete the repeat"))
                seen_lits.add(ascii_lower(x))
                if "\n" in x and _literal_problem(x) is None:
                    out.append(_f(WARNING, "multiline-literal", "extract", e.id,
                                  f"{part!r} literal {x!r} spans a line break: it matches only when both "
                                  f"parts sit on adjacent lines exactly as written",
                                  "split it: one part in 'contains', the other in 'and_contains'"))
                caps = sorted({c for c in x if c.isupper() and not c.isascii()})
                if caps:
                    out.append(_f(WARNING, "non-ascii-case", "extract", e.id,
                                  f"{part!r} literal {x!r} has non-ASCII capital(s) {''.join(caps)}: "
                                  f"only ASCII letters are matched case-insensitively",
                                  "write the literal as the text shows it, or add a lower-case variant"))
        if e.regex is not None:
            out.extend(_lint_regex(e, unfiltered[e.regex]))
    return out


# =========================================================================== regex scan


@dataclass
class _Node:
    kind: str  # "lit", "class", "group", "other"
    dead: bool = False
    why: str = ""
    min_rep: int = 1
    branches: list[list[_Node]] | None = None


_OCTAL = re.compile(r"[0-7]{1,3}")
_HEX = re.compile(r"x(\{[0-9A-Fa-f]+\}|[0-9A-Fa-f]{2})")


def _char_problem(ch: str) -> str | None:
    """Why a pattern character can never match normalised text, or ``None``.

    Case never makes a pattern character unmatchable: patterns search the normalised
    text with its case kept. Only characters normalisation removes or rewrites do.
    """
    if ch in "\x1b\x00\r":
        name = {"\x1b": "an ESC (ANSI escape code)", "\x00": "a NUL", "\r": "a \\r"}[ch]
        return f"it needs {name}, which normalised text never holds"
    return None


class _RegexScan:
    """A small RE2 syntax walker: enough to find literal characters and what is optional."""

    _FLAGS = re.compile(r"\?[imsU]*(?:-[imsU]*)?([:)])")
    _NAMED = re.compile(r"\?P?<[A-Za-z_][A-Za-z0-9_]*>")
    _REPEAT = re.compile(r"\{(\d+)(,\d*)?\}")
    _PROP = re.compile(r"[pP](\{[^}]*\}|[A-Za-z])")

    def __init__(self, pattern: str):
        self.p = pattern
        self.i = 0

    def parse(self) -> _Node:
        return self._group(top=True)

    def _group(self, *, top: bool = False) -> _Node:
        branches: list[list[_Node]] = [[]]
        while self.i < len(self.p):
            c = self.p[self.i]
            if c == ")":
                self.i += 1
                if top:
                    continue
                break
            if c == "|":
                self.i += 1
                branches.append([])
            elif c in "*+?{" and branches[-1]:
                self._quantifier(branches[-1][-1])
            elif c == "(":
                self.i += 1
                node = self._open()
                if node is not None:
                    branches[-1].append(node)
            elif c == "[":
                branches[-1].append(self._cls())
            elif c == "\\":
                branches[-1].extend(self._escape())
            else:
                self.i += 1
                branches[-1].append(_Node("other") if c in ".^$" else _lit(c))
        return _Node("group", branches=branches)

    def _open(self) -> _Node | None:
        m = self._FLAGS.match(self.p, self.i)
        if m is not None:
            self.i = m.end()
            return None if m.group(1) == ")" else self._group()  # (?i) sets flags only
        m = self._NAMED.match(self.p, self.i)
        if m is not None:
            self.i = m.end()
        return self._group()

    def _quantifier(self, node: _Node) -> None:
        c = self.p[self.i]
        if c == "{":
            m = self._REPEAT.match(self.p, self.i)
            if m is None:  # a literal brace
                self.i += 1
                return
            node.min_rep = min(node.min_rep, int(m.group(1)))
            self.i = m.end()
        else:
            if c in "*?":
                node.min_rep = 0
            self.i += 1
        if self.i < len(self.p) and self.p[self.i] in "?+":
            self.i += 1

    def _escape(self) -> list[_Node]:
        p = self.p
        self.i += 1
        if self.i >= len(p):
            return [_Node("other")]
        if p[self.i] == "Q":  # \Q...\E quotes literal text
            end = p.find("\\E", self.i + 1)
            text = p[self.i + 1 :] if end < 0 else p[self.i + 1 : end]
            self.i = len(p) if end < 0 else end + 2
            return [_lit(ch) for ch in text]
        ch = self._escaped_char()
        return [_Node("other") if ch is None else _lit(ch)]

    def _escaped_char(self) -> str | None:
        """The character an escape stands for, or None for a class/assertion escape."""
        p = self.p
        c = p[self.i]
        m = _HEX.match(p, self.i)
        if m is not None:
            self.i = m.end()
            try:
                return chr(int(m.group(1).strip("{}"), 16))
            except (ValueError, OverflowError):
                return None
        m = _OCTAL.match(p, self.i)
        if m is not None:
            self.i = m.end()
            return chr(int(m.group(0), 8))
        if c in "pP":
            m = self._PROP.match(p, self.i)
            self.i = m.end() if m else self.i + 1
            return None
        self.i += 1
        simple = {"r": "\r", "n": "\n", "t": "\t", "f": "\f", "v": "\v", "a": "\a"}
        if c in simple:
            return simple[c]
        if c.isalnum():  # \d \s \w \b \A \z \C …
            return None
        return c  # an escaped punctuation character

    def _cls(self) -> _Node:
        p = self.p
        self.i += 1
        negated = p.startswith("^", self.i)
        if negated:
            self.i += 1
        items_dead: list[bool] = []
        first = True
        while self.i < len(p):
            if p[self.i] == "]" and not first:
                self.i += 1
                break
            first = False
            if p.startswith("[:", self.i):
                end = p.find(":]", self.i)
                self.i = end + 2 if end > 0 else len(p)
                items_dead.append(False)
                continue
            lo = self._cls_char()
            if self.i + 1 < len(p) and p[self.i] == "-" and p[self.i + 1] != "]":
                self.i += 1
                hi = self._cls_char()
                # a range is dead only when every character in it is
                items_dead.append(lo is not None and hi is not None and ord(hi) - ord(lo) < 512
                                  and all(_char_problem(chr(x)) for x in range(ord(lo), ord(hi) + 1)))
                continue
            items_dead.append(lo is not None and _char_problem(lo) is not None)
        dead = not negated and bool(items_dead) and all(items_dead)
        return _Node("class", dead=dead, why="it needs a character class of characters normalised text never holds" if dead else "")

    def _cls_char(self) -> str | None:
        p = self.p
        c = p[self.i]
        if c == "\\" and self.i + 1 < len(p):
            self.i += 1
            return self._escaped_char()
        self.i += 1
        return c


def _lit(ch: str) -> _Node:
    why = _char_problem(ch)
    return _Node("lit", dead=why is not None, why=why or "")


def _walk(node: _Node) -> tuple[bool, list[str]]:
    """(whether the node can never match, reasons of dead parts inside it)."""
    if node.kind != "group":
        return node.dead, [node.why] if node.dead else []
    whys: list[str] = []
    branch_dead: list[bool] = []
    for br in node.branches or []:
        bd = False
        for item in br:
            d, w = _walk(item)
            whys.extend(w)
            if d and item.min_rep > 0:
                bd = True
        branch_dead.append(bd)
    return bool(branch_dead) and all(branch_dead), whys


def _short(pattern: str, limit: int = 80) -> str:
    return repr(pattern if len(pattern) <= limit else pattern[: limit - 1] + "…")


@functools.lru_cache(maxsize=4096)
def _regex_dead_parts(pattern: str) -> tuple[bool, str] | None:
    """(whether all of ``pattern`` is dead, why parts are) or None when no part is; kept
    per pattern, as a tuner lints the same extract rules with every candidate route set."""
    try:
        tree = _RegexScan(pattern).parse()
    except (IndexError, ValueError):  # an exotic pattern the walker does not follow
        return None
    dead, whys = _walk(tree)
    return (dead, "; ".join(dict.fromkeys(whys))) if whys else None


def _unfiltered_alternatives(patterns: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Per pattern, the top-level alternatives no literal prefilter can be derived for.

    Derived by :func:`failtax._scan.prefilters`, as batch classification derives its own,
    and kept in the cache folder between processes (deriving them for a table's regexes
    takes a second). Lint's file is its own: it asks for no supersets, and for the extract
    rules' alternatives only."""
    from failtax._scan import prefilters, split_alternatives

    split = {p: split_alternatives(p) for p in dict.fromkeys(patterns)}
    found = iter(prefilters([a for alts in split.values() for a in alts], superset=False))
    return {p: tuple(a for a, f in zip(alts, itertools.islice(found, len(alts)), strict=True)
                     if f.exact is None and f.required is None)
            for p, alts in split.items()}


def _ascii_boundaries(pattern: str) -> list[str]:
    """The non-ASCII letters of ``pattern`` written right beside ``\\b`` or ``\\B``.

    RE2's word characters are ASCII only (``\\w`` is ``[0-9A-Za-z_]``), so a boundary
    between a space and ``ш`` or ``é`` is no boundary: ``\\bшаг\\b`` never matches
    ``шаг`` between spaces.

    >>> _ascii_boundaries(r"\\bшаг\\b|\\bstep\\b|\\\\bé")
    ['ш', 'г']
    """
    tokens: list[tuple[bool, str]] = []  # (an escape, its character)
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            tokens.append((True, pattern[i + 1]))
            i += 2
        else:
            tokens.append((False, pattern[i]))
            i += 1
    found: list[str] = []
    for (esc_a, a), (esc_b, b) in itertools.pairwise(tokens):
        if esc_a and a in "bB" and not esc_b and not b.isascii() and b.isalpha():
            found.append(b)
        elif esc_b and b in "bB" and not esc_a and not a.isascii() and a.isalpha():
            found.append(a)
    return found


def _lint_regex(e: ExtractRule, unfiltered: Sequence[str]) -> list[LintFinding]:
    assert e.regex is not None
    beside = _ascii_boundaries(e.regex)
    boundary = [_f(WARNING, "ascii-word-boundary", "extract", e.id,
                   f"regex {_short(e.regex)} puts \\b beside {', '.join(repr(c) for c in dict.fromkeys(beside))}: "
                   "RE2's word characters are ASCII only, so there is no word boundary between such a "
                   "letter and a space and that part never matches as meant",
                   "drop the \\b next to non-ASCII letters (and use [^\\s] or a class of that script "
                   "instead of \\w for their words)")] if beside else []
    out = boundary + [
        _f(WARNING, "unfiltered-regex", "extract", e.id,
           f"regex alternative {_short(alt)} holds no literal text every match contains, so batch "
           "classification runs it on every record",
           "anchor it on a word or code every match includes (e.g. 'quota' in '\\bquota\\s*exceeded'), "
           "or say it with 'contains'")
        for alt in unfiltered
    ]
    found = _regex_dead_parts(e.regex)
    if found is None:
        return out
    dead, why = found
    fix = "remove the escape code, NUL or \\r from the pattern (write \\n for a line break)"
    if dead:
        return [_f(ERROR, "unmatchable-regex", "extract", e.id, f"regex {_short(e.regex)} can never match: {why}", fix),
                *boundary]
    return [_f(WARNING, "unmatchable-regex", "extract", e.id,
               f"part of regex {_short(e.regex)} can never match: {why}", fix), *out]


# A tuner lints its base table's extract rules again with every candidate route set: the
# findings are kept per set of extract rules (each rule keeps its hash, so a lookup does
# not hash every field of every rule again), in this process and in the cache folder
# (reading a shipped table's ~1,000 extract rules against each other takes about half a
# second, which every report, tune and lint command paid again).
@functools.lru_cache(maxsize=8)
def _extract_findings(extract: tuple[ExtractRule, ...]) -> tuple[LintFinding, ...]:
    def decode(rows: Any) -> tuple[LintFinding, ...] | None:
        if isinstance(rows, list) and all(
            isinstance(r, list) and len(r) == 6 and all(isinstance(v, str) or v is None for v in r) for r in rows
        ):
            return tuple(LintFinding(*r) for r in rows)
        return None

    return kept_json(_extract_findings_path(extract), lambda: tuple(_lint_extract(extract)), decode,
                     lambda out: [[f.severity, f.code, f.section, f.rule, f.message, f.fix] for f in out])


def _extract_findings_path(extract: tuple[ExtractRule, ...]) -> Path | None:
    """Named by the rules (every field), and by the Python version and the source of
    every module the findings are derived with."""
    import failtax.evidence
    import failtax.table

    sources = [__file__, failtax.table.__file__, _scan.__file__, failtax.evidence.__file__]
    return derived_file("lint-extract", sources, [repr(dataclasses.astuple(r)) for r in extract])


# =========================================================================== entry points


def lint_table(table: RuleTable | str, *, known_signals: Iterable[str] = ()) -> list[LintFinding]:
    """Check a rule table for rules that can never fire, never decide, or add nothing.

    Parameters
    ----------
    table : a :class:`~failtax.RuleTable`, a shipped table name or a path.
    known_signals : signals kept on purpose without a route (recorded for telemetry) or
        named by tools; they silence ``dead-extract`` and ``route-signal-not-extracted``.

    Returns
    -------
    list[LintFinding]
        errors first, then warnings; within each, in table order. Empty when clean.

    Raises
    ------
    TableError
        when the table does not validate (unknown bucket, bad pattern …).

    >>> import dataclasses
    >>> from failtax.table import RouteRule, load_table
    >>> t = load_table("preexec")
    >>> late = RouteRule(id="late", bucket="replay", all=("rule-1-no-script", "rule-3-stale-30d"))
    >>> tool_named = ["rule-4-default-replay"]
    >>> [(f.severity, f.code, f.rule)
    ...  for f in lint_table(dataclasses.replace(t, route=t.route + (late,)), known_signals=tool_named)]
    [('error', 'shadowed-route', 'late')]
    """
    t = load_table(table)
    t.compiled()  # validates; raises TableError naming file, rule, reason
    known = {normalise_signal_name(s) for s in known_signals}
    route_findings, dead_routes = _lint_routes(t)
    findings = [*route_findings, *_lint_signals(t, dead_routes, known), *_extract_findings(t.extract)]
    order = {"extract": 0, "route": 1, "bucket": 2, "table": 3}
    pos = {("extract", r.id): i for i, r in enumerate(t.extract)}
    pos.update({("route", r.id): i for i, r in enumerate(t.route)})
    findings.sort(key=lambda f: (f.severity != ERROR, order[f.section], pos.get((f.section, f.rule or ""), 0)))
    return findings


def check_table(table: RuleTable | str, *, known_signals: Iterable[str] = (), strict: bool = False) -> list[LintFinding]:
    """Refuse a table with lint errors (or, with ``strict``, any finding); else return the warnings.

    The guard to call before exporting or saving a table someone will load.

    Raises
    ------
    TableError
        listing every error (file, rule, reason and what to do).

    >>> from failtax.table import load_table
    >>> check_table(load_table("replay"))
    []
    """
    t = load_table(table)
    findings = lint_table(t, known_signals=known_signals)
    bad = [f for f in findings if f.severity == ERROR or strict]
    if bad:
        lines = "; ".join(f"{f.section} {f.rule!r}: {f.message} (fix: {f.fix}) [{f.code}]" for f in bad)
        raise TableError(f"{len(bad)} lint finding(s) refuse this table: {lines}", path=t.path)
    return findings
