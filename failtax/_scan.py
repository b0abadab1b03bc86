"""Multi-literal scanning for batch classification (private; see :mod:`failtax.batch`).

Every text condition of a rule table reduces to "does one of these case-insensitive
literals occur in the normalised text, and where first". An engine answers that for
many records at once, over :class:`Segment` s: a byte buffer holding records' UTF-8
text at known offsets. Two engines give identical answers:

- :class:`HyperscanEngine` (the default where the ``hyperscan`` wheel exists): one
  database of every literal, ``HS_FLAG_CASELESS``, one scan per record (records never
  share a scan: see :meth:`HyperscanEngine.scan`).
- :class:`PolarsEngine` (pure fallback): polars' Aho-Corasick ``str.find_many`` /
  ``str.extract_many`` with ``ascii_case_insensitive`` and overlapping matches.

Both fold ASCII letters only, byte for byte, which is exactly ``lit in ascii_lower(text)``
for ASCII-lower-cased literals: UTF-8 substring search is code-point substring search,
and ASCII case folding never touches a multi-byte sequence.

Table regexes are RE2's to answer; this module only says where they cannot match, so
RE2 runs on few records: :func:`exact_literals` turns a pattern that is just a few
strings into literals, :func:`required_literals` gives literals one of which every match
contains, and :func:`max_match_width` bounds how far before a match's end its start can
be. Records holding a character RE2 folds onto an ASCII letter (:data:`FOLD_RISK`)
always run the regex.

:func:`superset_pattern` writes a hyperscan pattern that matches wherever an RE2 one can
(anchors dropped, case ignored, a possibly multi-byte character read as 1-4 bytes), and
:class:`HyperscanEngine` can scan such patterns beside the literals, but batch
classification does not use them: the hyperscan build the wheel bundles (5.4.12) missed
matches of such patterns on an AVX-512 machine (a pattern alone matched a record the
scan did not report it in), while its literal matching agreed with substring search on
every record tried (see :class:`failtax._batch_plan.Plan`).
"""

from __future__ import annotations

import functools
import json
import platform
import sys
from array import array
from collections.abc import Sequence, Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import numpy as np

from failtax._cache import kept as _kept
from failtax._cache import derived_file, kept_json
from failtax._cache import kept_file as _kept_file
from failtax.evidence import ascii_lower

__all__ = [
    "FOLD_RISK",
    "HyperscanEngine",
    "PolarsEngine",
    "Prefilter",
    "Segment",
    "available_engines",
    "exact_literals",
    "make_engine",
    "prefilters",
    "required_literal_sets",
    "required_literals",
    "required_literals_kept",
]

#: Characters that RE2's case-insensitive matching folds onto ASCII letters
#: (KELVIN SIGN ~ k, LATIN SMALL LETTER LONG S ~ s). A record holding one may match a
#: regex without containing its ASCII literals, so such records always run the regex.
FOLD_RISK = ("\u212a", "\u017f")


# --------------------------------------------------------------------------- regex prefilters


@functools.lru_cache(maxsize=4096)  # every prefilter of an alternative reads the same tree (read only)
def _parse(pattern: str) -> Any | None:
    """Python's parse tree of an RE2 pattern, read the widest way, or None where the two
    dialects differ.

    A flag group at the very start applies to the whole pattern in both dialects; what
    it turns off (``(?m-i)``, which Python refuses) is dropped. Other unscoped flag
    groups (``(?m)`` mid-pattern, which Python refuses too) are dropped as well. What
    they change (anchors, case, the dot) is then read the widest way: right for
    prefilters; :func:`exact_literals` refuses anchors, dots and case turned off anyway.
    """
    # POSIX classes ("[[:alpha:]]"), \Q…\E quoting and "{,n}" read differently in
    # Python and RE2. A class that merely opens with a colon ("[:=]") reads the same.
    if _POSIX_CLASS.search(pattern) or "\\Q" in pattern or "\\E" in pattern or "{," in pattern:
        return None
    lead = _FLAGS.match(pattern)
    on = lead.group(0)[2:-1].split("-")[0] if lead else ""
    body, dotall = _strip_flags(pattern[lead.end() if lead else 0 :])
    head = f"(?{on})" if on else ""
    try:
        return sre_parse.parse(head + ("(?s:" + body + ")" if dotall else body))
    except Exception:  # not Python syntax: no prefilter, the regex runs everywhere
        return None


def _strip_flags(pattern: str) -> tuple[str, bool]:
    """``pattern`` without unscoped flag groups, and whether one of them turned on ``s``."""
    out: list[str] = []
    dotall = False
    i = 0
    in_class = False
    class_start = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]" and i > class_start:
                in_class = False
        elif ch == "[":
            in_class = True
            class_start = i + 1 + (pattern[i + 1 : i + 2] == "^")
        elif ch == "(":
            m = _FLAGS.match(pattern, i)
            if m:
                dotall = dotall or "s" in m.group(0)[2:-1].split("-")[0]
                i = m.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out), dotall


def caseless_safe(ch: str) -> bool:
    """True when RE2's case-insensitive matching folds ``ch`` onto no other character.

    A character Unicode gives no other case (lower, upper, title and case-folded forms
    all itself) folds onto nothing; tests/test_batch_differential.py checks this against
    RE2 over every code point.
    """
    if ch.isascii():
        return not ch.isalpha()
    return ch.lower() == ch and ch.upper() == ch and ch.casefold() == ch and ch.title() == ch


@functools.lru_cache(maxsize=4096)  # (pure; a table's plan is built again for each of its copies)
def required_literals(pattern: str) -> tuple[str, ...] | None:
    """Literals (ASCII-lower-cased) one of which every match of ``pattern`` contains.

    ``None`` when no such set can be derived (then every record must run the regex).
    The pattern is read with Python's regex parser; where Python and RE2 read a
    construct differently, or Python cannot read it, the answer is ``None``; only
    characters RE2 cannot case-fold onto others count as literal (ASCII letters aside,
    see :data:`FOLD_RISK`), so the answer is never narrower than what RE2 can match.

    >>> required_literals(r"killed by signal|signal: (?:killed|terminated)")
    ('killed by signal', 'signal: killed', 'signal: terminated')
    >>> required_literals(r"\\d+") is None
    True
    """
    top = _top_level(pattern)
    if top is None:
        return None
    exact, parts = top
    req = exact if exact is not None and "" not in exact else _most_specific(parts)
    if not req:
        return None
    return _minimal(req)


def required_literal_sets(pattern: str) -> tuple[tuple[str, ...], ...]:
    """Every literal set that :func:`required_literals` could name for ``pattern``: one
    per part of its top-level sequence that requires some literal, as each match holds
    a literal of each. ``()`` where none can be derived.

    >>> required_literal_sets(r"\\brate limit\\b.*\\b(?:mid-task|mid-run)\\b")
    (('rate limit',), ('mid-run', 'mid-task'))
    """
    top = _top_level(pattern)
    return () if top is None else tuple(_minimal(c) for c in top[1])


@functools.lru_cache(maxsize=4096)  # both answers above read the same walk of the tree
def _top_level(pattern: str) -> tuple[frozenset[str] | None, tuple[frozenset[str], ...]] | None:
    """:func:`_lits_parts` of ``pattern``'s top-level sequence, or None if unreadable;
    frozen, as every caller shares the cached answer."""
    tree = _parse(pattern)
    if tree is None:
        return None
    exact, parts = _lits_parts(list(tree))
    return (None if exact is None else frozenset(exact)), tuple(map(frozenset, parts))


def _minimal(req: AbstractSet[str]) -> tuple[str, ...]:
    lits = sorted(set(req), key=lambda s: (len(s), s))
    kept: list[str] = []
    for s in lits:  # a literal holding another of the set adds nothing to presence
        if not any(k in s for k in kept):
            kept.append(s)
    return tuple(sorted(kept))


_MAX_EXACT = 64


def _lits(items: list[Any]) -> tuple[set[str] | None, set[str] | None]:
    """(the exact strings a sequence matches, if few; a requirement set, if any)."""
    exact, candidates = _lits_parts(items)
    return exact, _most_specific(candidates)


def _most_specific(candidates: Sequence[AbstractSet[str]]) -> AbstractSet[str] | None:
    """The most specific part: the longest shortest literal, in bytes (a CJK character is
    three, and as rare as that), then the fewest literals."""
    return max(candidates, key=lambda c: (min(len(x.encode()) for x in c), -len(c))) if candidates else None


def _lits_parts(items: list[Any]) -> tuple[set[str] | None, list[set[str]]]:
    """(the exact strings a sequence matches, if few; the requirement set of each of its
    parts that has one)."""
    candidates: list[set[str]] = []
    cur: set[str] | None = {""}
    whole_exact = True
    for op, av in items:
        ex, rq = _node(op, av)
        if ex is not None and cur is not None and len(cur) * len(ex) <= _MAX_EXACT:
            cur = {a + b for a in cur for b in ex}
            continue
        whole_exact = False
        if cur is not None and "" not in cur:
            candidates.append(cur)
        cur = ex if ex is not None else {""}
        if rq:
            candidates.append(rq)
    if cur is not None and "" not in cur:
        candidates.append(cur)
    return (cur if whole_exact else None), candidates


def _node(op: Any, av: Any) -> tuple[set[str] | None, set[str] | None]:
    name = str(op)
    if name == "LITERAL":
        ch = chr(av)
        if av and (ch.isascii() or caseless_safe(ch)):
            return {ch.lower() if "A" <= ch <= "Z" else ch}, None
        return None, None
    if name == "AT":
        return {""}, None
    if name == "SUBPATTERN":
        return _lits(list(av[-1]))
    if name == "ATOMIC_GROUP":
        return _lits(list(av))
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        lo, hi, body = av
        ex, rq = _lits(list(body))
        if ex is not None and lo == hi and lo <= 4 and len(ex) ** max(lo, 1) <= _MAX_EXACT:
            out = {""}
            for _ in range(lo):
                out = {a + b for a in out for b in ex}
            return out, None
        if ex is not None and lo == 0 and hi == 1:
            return ex | {""}, None
        if lo >= 1:
            if ex is not None and "" not in ex:
                return None, ex
            return None, rq
        return None, None
    if name == "BRANCH":
        exacts: set[str] | None = set()
        reqs: set[str] | None = set()
        for branch in av[1]:
            ex, rq = _lits(list(branch))
            if exacts is not None and ex is not None:
                exacts |= ex
            else:
                exacts = None
            r = ex if ex is not None and "" not in ex else rq
            if reqs is not None and r:
                reqs |= r
            else:
                reqs = None
        if exacts is not None and len(exacts) <= _MAX_EXACT:
            return exacts, None
        return None, reqs or None
    if name == "IN" and len(av) <= 8 and all(str(o) == "LITERAL" for o, _ in av):
        chars = {chr(v) for _, v in av}
        if all(v and (c.isascii() or caseless_safe(c)) for c, v in zip(chars, chars, strict=True)):
            return {c.lower() if "A" <= c <= "Z" else c for c in chars}, None
    return None, None


@functools.lru_cache(maxsize=4096)  # (pure; a table's plan is built again for each of its copies)
def exact_literals(pattern: str) -> tuple[str, ...] | None:
    """The few strings ``pattern`` matches, ASCII-lower-cased, when it is just those.

    A case-insensitive pattern built of literals, alternations, optional parts, small
    counted repeats and classes of single characters matches exactly where one of
    these strings occurs; its leftmost match starts at the first occurrence of any.
    Anchors, word boundaries, ``(?-i)`` and open classes give ``None``.

    >>> exact_literals("quota[ _]?(?:exceeded|reached)")
    ('quota exceeded', 'quota reached', 'quota_exceeded', 'quota_reached', 'quotaexceeded', 'quotareached')
    >>> exact_literals(r"\\bquota") is None
    True
    """
    if "-" in "".join(m.group(0) for m in _ANY_FLAGS.finditer(pattern)):
        return None  # something turns case-insensitivity off
    tree = _parse(pattern)
    if tree is None:
        return None
    try:
        out = _exact_seq(list(tree))
    except _NotExact:
        return None
    if not out or "" in out:
        return None
    return tuple(sorted(out))


class _NotExact(Exception):
    pass


def _exact_seq(items: list[Any]) -> set[str]:
    cur = {""}
    for op, av in items:
        ex = _exact_node(op, av)
        cur = {a + b for a in cur for b in ex}
        if len(cur) > _MAX_EXACT:
            raise _NotExact
    return cur


def _exact_node(op: Any, av: Any) -> set[str]:
    name = str(op)
    if name == "LITERAL":
        ch = chr(av)
        if av and (ch.isascii() or caseless_safe(ch)):
            return {ch.lower() if "A" <= ch <= "Z" else ch}
        raise _NotExact
    if name == "SUBPATTERN":
        return _exact_seq(list(av[-1]))
    if name == "BRANCH":
        out: set[str] = set()
        for branch in av[1]:
            out |= _exact_seq(list(branch))
        return out
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        lo, hi, body = av
        if hi > 8:
            raise _NotExact
        ex = _exact_seq(list(body))
        out = set()
        cur = {""}
        for n in range(hi + 1):
            if n >= lo:
                out |= cur
            cur = {a + b for a in cur for b in ex}
            if len(cur) > _MAX_EXACT:
                raise _NotExact
        return out
    if name == "IN" and av and all(str(o) == "LITERAL" for o, _ in av):
        return set().union(*(_exact_node("LITERAL", v) for _, v in av))
    raise _NotExact


_ANY_FLAGS = __import__("re").compile(r"\(\?[a-zA-Z-]*[-:)]")


@functools.lru_cache(maxsize=4096)  # (pure; a table's plan is built again for each of its copies)
def max_match_width(pattern: str) -> int | None:
    """The most characters one match of ``pattern`` can span, or None (unbounded/unknown)."""
    tree = _parse(pattern)
    if tree is None:
        return None
    try:
        _lo, hi = tree.getwidth()
    except Exception:
        return None
    return None if hi >= sre_parse.MAXREPEAT or hi >= 1 << 20 else int(hi)


def split_alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of an RE2 pattern, each a pattern of its own.

    A leading flag group such as ``(?m)`` is kept on every alternative; a pattern with
    other unscoped flag groups is not split. A match of the pattern exists exactly when
    a match of one alternative does, and the leftmost match starts where the leftmost
    of theirs does.

    >>> split_alternatives("(?m)^a|b(c|d)|[|]")
    ['(?m)^a', '(?m)b(c|d)', '(?m)[|]']
    """
    prefix = ""
    body = pattern
    m = _FLAGS.match(pattern)
    if m:
        prefix, body = m.group(0), pattern[m.end() :]
    parts: list[str] = []
    depth = 0
    in_class = False
    class_start = 0
    start = 0
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            if ch == "]" and i > class_start:
                in_class = False
        elif ch == "[":
            in_class = True
            class_start = i + 1
            if body[i + 1 : i + 2] == "^":
                class_start += 1
        elif ch == "(":
            if _FLAGS.match(body, i) and not body.startswith("(?:", i):
                return [pattern]  # a flag change mid-pattern: keep it whole
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    parts.append(body[start:])
    if len(parts) == 1 or any(not p for p in parts):
        return [pattern]
    return [prefix + p for p in parts]


_FLAGS = __import__("re").compile(r"\(\?[imsU-]+\)")
_POSIX_CLASS = __import__("re").compile(r"\[:\^?[A-Za-z]+:\]")
_CODEPOINT = __import__("re").compile(r"^(\[[^\]]*\])\{1,4\}$")


# The superset pattern hyperscan runs (byte mode, caseless): every text RE2 matches
# with the table pattern (on the ASCII-lower-cased text) it matches too. Anchors and
# word boundaries are dropped, case is ignored throughout, \s is RE2's, a character
# that may be several bytes is 1-4 bytes, and a negated class never excludes letters
# or characters it cannot see byte by byte.
_SPACE = "\t\n\f\r "
_CATS = {"CATEGORY_DIGIT": "0-9", "CATEGORY_SPACE": "\\t\\n\\f\\r\\x20", "CATEGORY_WORD": "0-9A-Za-z_"}
_ANY = "[\\x00-\\xff]{1,4}"


class _NoSuperset(Exception):
    pass


@functools.lru_cache(maxsize=4096)  # (pure; a table's plan is built again for each of its copies)
def superset_pattern(pattern: str) -> str | None:
    """A hyperscan (byte mode, caseless) pattern matching wherever ``pattern`` can.

    ``None`` when it cannot be built (then literals prefilter, or the regex runs on
    every record). A pattern that can match the empty string gets ``None`` too.

    >>> superset_pattern(r"(?m)^killed\\b|sig(?:kill|term)")
    '(?:killed|sig(?:kill|term))'
    """
    tree = _parse(pattern)
    if tree is None:
        return None
    try:
        if tree.getwidth()[0] == 0:
            return None
        return _emit_seq(list(tree), bool(tree.state.flags & _DOTALL))
    except _NoSuperset:
        return None


_DOTALL = 16  # re.DOTALL

#: A run of one character class longer than this many bytes is left unbounded in a
#: superset: hyperscan builds bounded repeats as counters, and a table's gaps such as
#: ``[^\n]{0,160}`` (640 bytes) made most of its compile time. A superset may match more
#: than its pattern (RE2 confirms every hit).
_LONG_RUN = 32


def _hex(b: int) -> str:
    return "\\x%02x" % b


def _lit(ch: str) -> str:
    if ch.isascii():
        return ch if ch.isalnum() else _hex(ord(ch))
    if not caseless_safe(ch):
        raise _NoSuperset
    return "".join(_hex(b) for b in ch.encode("utf-8"))


def _emit_seq(items: list[Any], dotall: bool) -> str:
    return "".join(_emit(op, av, dotall) for op, av in items)


def _emit(op: Any, av: Any, dotall: bool) -> str:
    name = str(op)
    if name == "LITERAL":
        return _lit(chr(av))
    if name == "NOT_LITERAL":
        return _negated({av})
    if name == "ANY":
        return _ANY if dotall else _negated({10})
    if name == "AT":
        return ""
    if name == "IN":
        return _class(av)
    if name == "BRANCH":
        return "(?:" + "|".join(_emit_seq(list(b), dotall) for b in av[1]) + ")"
    if name == "SUBPATTERN":
        _group, add, delete, body = av
        inner = _emit_seq(list(body), (dotall or bool(add & _DOTALL)) and not delete & _DOTALL)
        return "(?:" + inner + ")" if inner else ""
    if name == "ATOMIC_GROUP":
        inner = _emit_seq(list(av), dotall)
        return "(?:" + inner + ")" if inner else ""
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        lo, hi, body = av
        inner = _emit_seq(list(body), dotall)
        if not inner:
            return ""
        top = "" if hi >= sre_parse.MAXREPEAT else str(hi)
        run = _CODEPOINT.match(inner)
        if run:  # one character of 1-4 bytes, repeated: a run of lo..4*hi bytes (a long one unbounded)
            return run.group(1) + "{%d,%s}" % (lo, "" if not top or 4 * hi > _LONG_RUN else 4 * hi)
        if lo == 0 and top == "1":
            return f"(?:{inner})?"
        return f"(?:{inner}){{{lo},{top}}}"
    raise _NoSuperset


_NOT_CATS = {"CATEGORY_NOT_DIGIT": "0123456789", "CATEGORY_NOT_SPACE": "\t\n\f\r ", "CATEGORY_NOT_WORD": "0123456789_"}
_CAT_CHARS = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_SPACE": "\t\n\f\r ",
    "CATEGORY_WORD": "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_",
}


def _class(items: list[Any]) -> str:
    negate = bool(items) and str(items[0][0]) == "NEGATE"
    members = items[1:] if negate else items
    singles: set[int] = set()
    ranges: set[tuple[int, int]] = set()
    cats: list[str] = []
    for op, av in members:
        kind = str(op)
        if kind == "LITERAL":
            singles.add(av)
        elif kind == "RANGE":
            ranges.add(av)
        elif kind == "CATEGORY":
            cats.append(str(av))
        else:
            raise _NoSuperset
    if negate:
        if any(c not in _CATS for c in cats):
            return _ANY  # a negated negated category: allow anything
        excluded = set(singles)
        for lo, hi in ranges:
            if hi < 128:
                excluded.update(range(lo, hi + 1))
        for c in cats:
            excluded.update(map(ord, _CAT_CHARS[c]))
        return _negated(excluded)
    if cats and all(c in _NOT_CATS for c in cats) and len(cats) == 1 and not singles and not ranges:
        return _negated(set(map(ord, _NOT_CATS[cats[0]])))  # \S, \D, \W
    if any(c not in _CATS for c in cats):
        return _ANY  # a negated category among others: allow anything
    parts = []
    multi = []
    for v in sorted(singles):
        if v < 128:
            parts.append(_hex(v))
        else:
            multi.append(_lit(chr(v)))
    for lo, hi in sorted(ranges):
        if hi < 128:
            parts.append(_hex(lo) + "-" + _hex(hi))
        else:
            raise _NoSuperset  # a range past ASCII may fold case; no byte class for it
    parts.extend(_CATS[c] for c in cats)
    alts = (["[" + "".join(parts) + "]"] if parts else []) + multi
    if not alts:
        raise _NoSuperset
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def _negated(excluded: set[int]) -> str:
    # Letters are never excluded (case is ignored on both sides), non-ASCII never (a
    # byte class cannot exclude a multi-byte character); what may be multi-byte is 1-4.
    keep = sorted(v for v in excluded if v < 128 and not chr(v).isalpha())
    if not keep:
        return _ANY
    return "[^" + "".join(_hex(v) for v in keep) + "]{1,4}"


@dataclass(frozen=True)
class Prefilter:
    """What the batch engine knows of one regex alternative before running it.

    ``width``: :func:`max_match_width`; ``exact``: :func:`exact_literals` (when set, the
    literal scan answers the alternative and the other two are ``None``); ``superset``:
    :func:`superset_pattern` (asked for only where hyperscan runs); ``required``:
    :func:`required_literals`.
    """

    width: int | None
    exact: tuple[str, ...] | None
    superset: str | None
    required: tuple[str, ...] | None
    parts: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def of(cls, alt: str, superset: bool) -> Prefilter:
        exact = exact_literals(alt)
        if exact is not None:
            return cls(max_match_width(alt), exact, None, None)
        return cls(max_match_width(alt), None, superset_pattern(alt) if superset else None, required_literals(alt),
                   required_literal_sets(alt))


def prefilters(alts: Sequence[str], superset: bool) -> list[Prefilter]:
    """:meth:`Prefilter.of` every alternative, kept in the cache folder between processes.

    Reading a table's ~800 alternatives with Python's regex parser takes most of a
    second, which every ``failtax classify`` and every report paid again. The kept
    answers are named by the alternatives, the Python version (its parser reads them)
    and this module's own source (its rules derive them), so a changed rule is never
    answered from an old file; a file that cannot be read or written only costs the
    derivation.
    """
    def decode(rows: Any) -> list[Prefilter] | None:
        if isinstance(rows, list) and len(rows) == len(alts):
            return [Prefilter(w, _tuple(e), s, _tuple(r), tuple(tuple(x) for x in ps)) for w, e, s, r, ps in rows]
        return None

    return kept_json(_prefilter_path(alts, superset), lambda: [Prefilter.of(a, superset) for a in alts], decode,
                     lambda out: [[p.width, p.exact, p.superset, p.required, p.parts] for p in out])


def required_literals_kept(patterns: Sequence[str]) -> list[tuple[str, ...] | None]:
    """:func:`required_literals` of every pattern, kept in the cache folder between
    processes as :func:`prefilters` are: a table's ~500 regexes take about half a second
    to read, which every process building :func:`failtax.classify`'s literal index paid
    again (a report, a simulation and the tuner build several tables' indexes)."""
    def decode(rows: Any) -> list[tuple[str, ...] | None] | None:
        if isinstance(rows, list) and len(rows) == len(patterns) and all(
            r is None or (isinstance(r, list) and all(isinstance(s, str) for s in r)) for r in rows
        ):
            return [_tuple(r) for r in rows]
        return None

    return kept_json(derived_file("required-literals", [__file__], list(patterns)),
                     lambda: [required_literals(p) for p in patterns], decode,
                     lambda out: [list(r) if r is not None else None for r in out])


def _tuple(v: Any) -> tuple[str, ...] | None:
    return tuple(v) if v is not None else None


def _prefilter_path(alts: Sequence[str], superset: bool) -> Path | None:
    return derived_file("prefilters", [__file__], [superset, list(alts)])


# --------------------------------------------------------------------------- segments


@dataclass(frozen=True)
class Segment:
    """Records' UTF-8 texts inside one byte buffer.

    ``starts``/``lengths`` are byte offsets into ``buffer``, sorted by start and not
    overlapping; ``rows`` are the records' row numbers.
    """

    buffer: Any  # a buffer-protocol object (bytes, memoryview, pyarrow.Buffer)
    starts: np.ndarray
    lengths: np.ndarray
    rows: np.ndarray

    @classmethod
    def from_texts(cls, texts: Sequence[bytes], rows: np.ndarray) -> Segment:
        """A segment of separately held byte strings, joined into one buffer."""
        lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        starts = np.zeros(len(texts), dtype=np.int64)
        if len(texts) > 1:
            np.cumsum(lengths[:-1], out=starts[1:])
        return cls(b"".join(texts), starts, lengths, np.asarray(rows, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.rows)


@dataclass(frozen=True)
class Hits:
    """Literal occurrences: parallel arrays of row, literal id and start byte in the row."""

    rows: np.ndarray
    lits: np.ndarray
    starts: np.ndarray

    @classmethod
    def empty(cls) -> Hits:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z.astype(np.int32), z)

    @classmethod
    def concat(cls, parts: Sequence[Hits]) -> Hits:
        parts = [p for p in parts if len(p.rows)]
        if not parts:
            return cls.empty()
        return cls(
            np.concatenate([p.rows for p in parts]),
            np.concatenate([p.lits for p in parts]),
            np.concatenate([p.starts for p in parts]),
        )


# --------------------------------------------------------------------------- engines


class HyperscanEngine:
    """Every literal and regex superset in one hyperscan database, scanned per buffer.

    Pattern ``i < len(literals)`` is literal ``i`` (its first hit in a record only,
    carrying its start byte there); pattern ``len(literals) + u`` is regex superset
    ``u`` (its hits carry the end byte, as a regex match's start is unknown).
    """

    name = "hyperscan"

    def __init__(self, literals: Sequence[str], regexes: Sequence[str | None] = ()):
        import hyperscan

        self.literals = tuple(literals)
        self.n_literals = len(self.literals)
        encoded = [s.encode("utf-8") for s in self.literals]
        self._sizes = np.array([len(b) for b in encoded] + [1] * len(regexes), dtype=np.int64)
        exprs: list[bytes] = []
        ids: list[int] = []
        for i, b in enumerate(encoded):
            if b and b"\x00" not in b:  # NUL never survives normalisation
                exprs.append(_escape_bytes(b))
                ids.append(i)
        #: per regex: True when hyperscan reports its superset, else the caller prefilters
        self.regex_ok = [rx is not None for rx in regexes]

        def compile_() -> tuple[list[bool], Any]:
            self._compile(hyperscan, exprs, ids, regexes)
            return self.regex_ok, self._db

        self.regex_ok, self._db = _kept(_cache_path(exprs, ids, self.n_literals, regexes),
                                        lambda path: _load_compiled(path, len(regexes)), compile_,
                                        lambda path, got: _save_compiled(path, *got))

    def _compile(self, hyperscan: Any, exprs: list[bytes], ids: list[int], regexes: Sequence[str | None]) -> None:
        caseless = hyperscan.HS_FLAG_CASELESS
        # A literal's first occurrence is all a record needs of it (that it occurs, and
        # where first): each is reported once per scan, at its earliest end.
        once = caseless | hyperscan.HS_FLAG_SINGLEMATCH
        lit_exprs, lit_ids = exprs, ids
        for attempt in range(2):
            exprs, ids, flags = list(lit_exprs), list(lit_ids), [once] * len(lit_exprs)
            for u, rx in enumerate(regexes):
                if rx is None or not self.regex_ok[u]:
                    continue
                fl = caseless if attempt == 0 else _compile_superset(rx)
                if fl is None:
                    self.regex_ok[u] = False
                    continue
                exprs.append(rx.encode("ascii"))
                ids.append(self.n_literals + u)
                flags.append(fl)
            self._db = None
            if not exprs:
                break
            try:
                db = hyperscan.Database()
                db.compile(expressions=exprs, ids=ids, flags=flags)
            except Exception:  # one superset hyperscan refuses: find it, compile the rest
                if attempt == 0:
                    continue
                raise
            self._db = db
            break

    def __getstate__(self) -> dict[str, Any]:
        import hyperscan

        state = dict(self.__dict__)
        state["_db"] = hyperscan.dumpb(self._db) if self._db is not None else None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        raw = state.pop("_db")
        self.__dict__.update(state)
        self._db = None
        if raw is not None:  # a compiled database travels as bytes: no compiling again
            self._db = _database_from(raw)

    def scan_all(self, segments: Sequence[Segment]) -> Hits:
        """The segments' hits, one after another."""
        return Hits.concat([self.scan(s) for s in segments])

    def scan(self, segment: Segment) -> Hits:
        if self._db is None or not len(segment):
            return Hits.empty()
        # One scan per record: hyperscan (5.4.12, as the wheel bundles it) can miss a
        # pattern's match in a record when the same pattern matched earlier in the same
        # scan, so records never share one (and the scan is no slower for it).
        view = memoryview(segment.buffer)
        ids = array("i")
        ends = array("q")
        add_id, add_end = ids.append, ends.append

        def on_match(i: int, _from: int, to: int, _flags: int, _context: Any) -> None:
            add_id(i)
            add_end(to)

        scan = self._db.scan
        # hits per record, as the running count after each record's scan
        counts = array("q")
        add_count = counts.append
        for a, n in zip(segment.starts.tolist(), segment.lengths.tolist(), strict=True):
            scan(view[a : a + n], on_match)
            add_count(len(ids))
        if not ids:
            return Hits.empty()
        lit = np.frombuffer(ids, dtype=np.int32)
        end = np.frombuffer(ends, dtype=np.int64)
        rel = np.where(lit >= self.n_literals, end, end - self._sizes[lit])  # regexes: the end
        per_record = np.diff(np.frombuffer(counts, dtype=np.int64), prepend=0)
        return Hits(np.repeat(segment.rows, per_record), lit, rel)


# A table's database takes up to several seconds to compile (the development-flow table's
# bounded repeats: ~6 s) and every process that classifies with it would pay that again:
# compiled databases are kept in the user's cache folder, named by what they were
# compiled from, and read back in milliseconds. A cache that cannot be read or written
# only costs the compile.
_CACHE_FORMAT = 2  # 2: literals compiled with HS_FLAG_SINGLEMATCH


def _cache_path(literal_exprs: Sequence[bytes], ids: Sequence[int], n_literals: int,
                regexes: Sequence[str | None]) -> Path | None:
    """The file a database of these patterns is kept in; None when nothing is kept."""
    import hyperscan

    version = getattr(hyperscan, "__version__", "?")
    return _kept_file("hyperscan", [_CACHE_FORMAT, version, platform.machine(), sys.platform, n_literals,
                                    [e.decode("ascii") for e in literal_exprs], list(ids), list(regexes)], ".hsdb")


def _load_compiled(path: Path, n_regexes: int) -> tuple[list[bool], Any] | None:
    """(regex_ok, database) compiled before from the same patterns, or None."""
    try:
        head, _, raw = path.read_bytes().partition(b"\n")
        regex_ok = json.loads(head)["regex_ok"]
        if len(regex_ok) != n_regexes:
            return None
        return [bool(x) for x in regex_ok], _database_from(raw) if raw else None
    except Exception:  # noqa: BLE001 - absent, unreadable or damaged: compile again
        return None


def _save_compiled(path: Path, regex_ok: list[bool], db: Any) -> None:
    import hyperscan

    from failtax.table import atomic_write_bytes

    data = json.dumps({"regex_ok": regex_ok}).encode("ascii") + b"\n" + (hyperscan.dumpb(db) if db is not None else b"")
    try:
        atomic_write_bytes(path, data)  # whole or not at all, whoever writes it at the same time
    except OSError:
        pass  # a read-only home, a full disk: the compile is only not kept


def _database_from(raw: bytes) -> Any:
    """A database from :func:`hyperscan.dumpb`'s bytes, ready to scan."""
    import hyperscan

    db = hyperscan.loadb(raw, hyperscan.HS_MODE_BLOCK)
    db.scratch = hyperscan.Scratch(db)
    return db


def _escape_bytes(b: bytes) -> bytes:
    return "".join(chr(c) if chr(c).isalnum() and c < 128 else "\\x%02x" % c for c in b).encode("ascii")


@functools.lru_cache(maxsize=1024)
def _compile_superset(pattern: str) -> int | None:
    """The hyperscan flags a superset pattern compiles with alone, or None."""
    import hyperscan

    for fl in (hyperscan.HS_FLAG_CASELESS, hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_PREFILTER):
        try:
            hyperscan.Database().compile(expressions=[pattern.encode("ascii")], ids=[0], flags=[fl])
        except Exception:  # too large or unsupported: try the approximate mode, then give up
            continue
        return fl
    return None


class PolarsEngine:
    """polars' Aho-Corasick over the segment's texts (no hyperscan needed; literals only)."""

    name = "polars"

    def __init__(self, literals: Sequence[str], regexes: Sequence[str | None] = ()):
        self.literals = tuple(literals)
        self.n_literals = len(self.literals)
        self.regex_ok = [False] * len(regexes)
        self._patterns = [s for s in self.literals if "\x00" not in s]
        self._ids = {s: i for i, s in enumerate(self.literals)}

    def scan(self, segment: Segment) -> Hits:
        return self.scan_all([segment])

    def scan_all(self, segments: Sequence[Segment]) -> Hits:
        """Every segment in one pass: polars builds its automaton anew on every call
        (0.15 s for 20,000 literals), so the segments are read as one column."""
        import polars as pl
        import pyarrow as pa

        segments = [s for s in segments if len(s)]
        if not self._patterns or not segments:
            return Hits.empty()
        texts = []
        for segment in segments:
            view = memoryview(segment.buffer)
            texts += [bytes(view[int(s) : int(s) + int(n)]) for s, n in zip(segment.starts, segment.lengths, strict=True)]
        rows = np.concatenate([s.rows for s in segments])
        col = pl.Series("t", pa.array(texts, type=pa.large_binary()).cast(pa.large_string()))
        pos = col.str.find_many(self._patterns, ascii_case_insensitive=True, overlapping=True)
        got = col.str.extract_many(self._patterns, ascii_case_insensitive=True, overlapping=True)
        frame = pl.DataFrame({"k": np.arange(len(col)), "pos": pos, "got": got}).explode(["pos", "got"]).drop_nulls()
        if frame.height == 0:
            return Hits.empty()
        lut = {m: self._ids[ascii_lower(m)] for m in frame["got"].unique().to_list()}
        # Each literal's first occurrence in a record only, as hyperscan reports them:
        # overlapping matching finds every one (a space: ~40 a record), and the hits
        # after the first only multiply the work of resolving them.
        first = (frame.with_columns(pl.col("got").replace_strict(lut, return_dtype=pl.Int32))
                 .group_by("k", "got").agg(pl.col("pos").min()).sort("k", "pos", "got"))
        k = first["k"].to_numpy()
        pos = first["pos"].to_numpy().astype(np.int64)
        if _polars_finds_chars():
            pos = _char_to_byte_offsets(texts, k, pos)
        return Hits(rows[k], first["got"].to_numpy(), pos)


@functools.cache
def _polars_finds_chars() -> bool:
    """True when this polars' ``str.find_many`` gives character offsets (2.2 and later)
    rather than byte offsets (before 2.2); a hit's start must be a byte."""
    import polars as pl

    return pl.Series(["\u00e9a"]).str.find_many(["a"]).to_list()[0] == [1]


def _char_to_byte_offsets(texts: Sequence[bytes], k: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """``pos[i]``, a character offset into ``texts[k[i]]`` (UTF-8), as a byte offset.
    ASCII texts (nearly all) keep theirs; each other text maps its offsets through the
    byte index of each of its characters, computed once."""
    out = pos.copy()
    ascii_text = np.fromiter((t.isascii() for t in texts), dtype=bool, count=len(texts))  # once a text, not a hit
    wide = np.flatnonzero(~ascii_text[k])
    starts: dict[int, np.ndarray] = {}
    for i in wide.tolist():
        j = int(k[i])
        if j not in starts:
            b = np.frombuffer(texts[j], dtype=np.uint8)
            starts[j] = np.flatnonzero((b & 0xC0) != 0x80)  # the first byte of each character
        out[i] = starts[j][pos[i]]
    return out


@functools.cache
def available_engines() -> tuple[str, ...]:
    """The engines that work on this platform, fastest first."""
    out = []
    try:
        import hyperscan  # noqa: F401

        out.append("hyperscan")
    except ImportError:  # no wheel for this platform
        pass
    out.append("polars")
    return tuple(out)


def make_engine(literals: Sequence[str], regexes: Sequence[str | None] = (), engine: str | None = None) -> HyperscanEngine | PolarsEngine:
    """Build ``engine`` (``"hyperscan"``, ``"polars"`` or ``None`` = the fastest available).

    ``regexes`` are superset patterns (:func:`superset_pattern`); an engine reports
    those it can run (``engine.regex_ok``) and leaves the others to literal prefilters.
    """
    name = engine or available_engines()[0]
    if name not in available_engines():
        raise ValueError(f"unknown engine {engine!r}; available: {', '.join(available_engines())}")
    return _engine(tuple(literals), tuple(regexes), name)


@functools.lru_cache(maxsize=16)
def _engine(literals: tuple[str, ...], regexes: tuple[str | None, ...], name: str) -> HyperscanEngine | PolarsEngine:
    """One engine per set of patterns: tables that differ only in their routes (the
    tuner's candidates, a replay under two tables) share the extract rules, and a
    hyperscan database takes ~0.5 s to compile. Engines are not changed after they are
    built, so sharing one is safe."""
    return HyperscanEngine(literals, regexes) if name == "hyperscan" else PolarsEngine(literals, regexes)
