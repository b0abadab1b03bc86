"""Rule tables: one taxonomy's extractor rules and bucket rules, as a TOML data file.

Evaluation spec (the table *is* the product; this is its contract):

1. **Extract.** Every ``[[extract]]`` rule is tried against the evidence. A rule matches
   when *all* the conditions it names hold; inside one list condition any item is
   enough. Text conditions look at the normalised, ASCII-lower-cased text (stderr, then
   the result frame's error text):

   - ``contains``: any of these literals appears (case-insensitive substring);
   - ``and_contains``: and any of these literals appears too;
   - ``unless``: none of these literals appears (a veto, never a match on its own);
     ``unless_sets`` names word lists of the table's ``[vetoes]`` that several rules
     share, read as if their words were appended to ``unless``;
   - ``regex``: a linear-time RE2 expression finds a match (case-insensitive unless
     the pattern says ``(?-i)``);
   - ``http_status``: an HTTP status appears after a context word (``http 429``,
     ``status: 429``, ``error 429``, ``[429]`` …), so ``2026-04-29`` never reads as 429;

   and the other evidence: ``exit_code`` (any of), ``has_signal`` (killed by any signal),
   ``posix_signal`` (any of these numbers), ``frame_subtype`` (the result frame's
   ``subtype`` contains any of these), ``frame_error`` (the frame reports an error), and
   a ``field`` predicate (``field``, ``op``, ``value``) over the structured fields.
   A matching rule adds its ``signal`` (rules may share one). Signals the tool already
   named are added too. ``capture`` (RE2 with named groups) records facts, e.g. a
   provider name, that bucket texts can quote as ``{provider}`` or ``{provider|capitalize}``.

   ``[[borrow]]`` rows take extract rules from another table, so tables that read the
   same tools share what each has learnt. ``from`` names it: a file beside this one
   (``replay`` is ``replay.toml``), else the shipped table of that name. A borrow takes
   every one of that table's own extract rules (never those it borrows itself) whose
   signal is in ``signals``, in its order, and adds them after this table's own rules,
   with ids ``<source>-<id>``. A borrowed signal may not be one of this table's own:
   ``rename`` gives it another name (``rename = { overloaded = "agent-run-overloaded" }``).
   A table written by :func:`save_table` holds the borrowed rules themselves, and every
   rule's ``unless`` words in full.
2. **Route.** ``[[route]]`` rules are tried in order; the first whose ``any`` (one of
   these signals present), ``all`` (every one present) and ``none`` (none present) all
   hold decides the bucket. A route may override the bucket's ``title``, ``detail`` and
   ``retryable``.
3. **Fallback.** When no route matches, the table's ``fallback`` bucket is the answer
   and the rule is ``"fallback"``.

Reading a file (:func:`read_table`) is separate from validating and compiling it
(:meth:`RuleTable.compiled`); loading runs no code.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import itertools
import os
import sys
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import re2
import tomli_w

from failtax._cache import derived_file, kept_file, kept_json
from failtax._scan import required_literals_kept
from failtax.errors import TableError, TaxonomyError, os_errors_named
from failtax.evidence import ascii_lower, normalise_signal_name
from failtax.taxonomy import Taxonomy, load_taxonomy

__all__ = [
    "ExtractRule",
    "FIELD_OPS",
    "LocateRule",
    "RouteRule",
    "RuleTable",
    "TableChange",
    "TableDiff",
    "diff_tables",
    "dump_table",
    "http_status_literals",
    "list_tables",
    "load_table",
    "read_table",
    "save_table",
]

#: Limits that keep a hand-edited or hostile table from costing unbounded time or memory.
MAX_TABLE_BYTES = 4 * 1024 * 1024
MAX_RULES = 20_000
MAX_PATTERN_CHARS = 2_000
MAX_LITERALS_PER_RULE = 2_000

FIELD_OPS = (
    "==", "!=", ">", ">=", "<", "<=", "in", "not_in", "contains", "matches",
    "truthy", "falsy", "present", "missing", "empty", "nonempty",
)
_UNARY_OPS = {"truthy", "falsy", "present", "missing", "empty", "nonempty"}

# Seed 004's mentions_http_status: the status code after a context word.
_HTTP_CONTEXTS = (
    "http {c}", "http/1.1 {c}", "http/2 {c}", "status {c}", "status: {c}",
    "status code {c}", "code {c}", "code: {c}", "error {c}", "error: {c}", "[{c}]", "({c})",
)


def http_status_literals(code: int | str) -> tuple[str, ...]:
    """The lower-case literals that count as a mention of HTTP status ``code``.

    >>> http_status_literals(429)[:2]
    ('http 429', 'http/1.1 429')
    """
    return tuple(p.format(c=code) for p in _HTTP_CONTEXTS)


def _re2_options() -> re2.Options:
    opts = re2.Options()
    opts.case_sensitive = False
    opts.log_errors = False
    opts.max_mem = 64 << 20
    return opts


@functools.lru_cache(maxsize=4096)
def compile_regex(pattern: str) -> Any:
    """Compile a table pattern on RE2 (linear time, no backreferences), case-insensitive."""
    return re2.compile(pattern, _re2_options())


# --------------------------------------------------------------------------- records

# Rules and tables are frozen and hashed over and over: the tuner keys dicts by routes and
# route tuples, and lint and simulation caches look up a table or its extract rules. A
# frozen dataclass would hash every field each time, so each keeps its hash once worked
# out. A string's hash differs between processes: a kept hash never travels in a pickle.


@functools.cache
def _compared_fields(cls: type) -> tuple[str, ...]:
    """The fields a dataclass's ``==`` compares (all but those marked ``compare=False``)."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.compare)


def _compared(obj: Any) -> tuple[Any, ...]:
    return tuple(getattr(obj, n) for n in _compared_fields(type(obj)))


def _kept_hash(obj: Any, names: tuple[str, ...] | None = None) -> int:
    """``obj``'s hash over the fields ``names`` (default: those ``==`` compares), worked out once."""
    h = obj.__dict__.get("_hash")
    if h is None:
        fields = names or _compared_fields(type(obj))
        h = hash(tuple(getattr(obj, n) for n in fields))
        object.__setattr__(obj, "_hash", h)
    return h


def _state_without_hash(obj: Any) -> dict[str, Any]:
    return {k: v for k, v in obj.__dict__.items() if k != "_hash"}


@dataclass(frozen=True)
class ExtractRule:
    """One ``[[extract]]`` row: evidence conditions that name a signal."""

    id: str
    signal: str
    contains: tuple[str, ...] = ()
    and_contains: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    regex: str | None = None
    http_status: tuple[int, ...] = ()
    exit_code: tuple[int, ...] = ()
    has_signal: bool | None = None
    posix_signal: tuple[int, ...] = ()
    frame_subtype: tuple[str, ...] = ()
    frame_error: bool | None = None
    field: str | None = None
    op: str | None = None
    value: Any = None
    capture: str | None = None
    note: str = ""

    def __repr__(self) -> str:
        return _row_repr("extract", self)

    def __hash__(self) -> int:
        return _kept_hash(self)

    __getstate__ = _state_without_hash

    @property
    def text_literals(self) -> tuple[str, ...]:
        """Every literal whose presence the rule needs (``contains`` + HTTP contexts)."""
        out = list(self.contains)
        for code in self.http_status:
            out.extend(http_status_literals(code))
        return tuple(out)

    @property
    def uses_text(self) -> bool:
        return bool(self.contains or self.and_contains or self.regex or self.http_status)

    @property
    def text_only(self) -> bool:
        """True when the rule looks at nothing but the text (so telemetry can replay it)."""
        return self.uses_text and not (
            self.exit_code or self.has_signal is not None or self.posix_signal or self.frame_subtype
            or self.frame_error is not None or self.field is not None
        )


@dataclass(frozen=True)
class RouteRule:
    """One ``[[route]]`` row: signals that decide a bucket."""

    id: str
    bucket: str
    any: tuple[str, ...] = ()
    all: tuple[str, ...] = ()
    none: tuple[str, ...] = ()
    title: str | None = None
    detail: str | None = None
    retryable: bool | None = None
    note: str = ""

    def __repr__(self) -> str:
        return _row_repr("route", self)

    def __hash__(self) -> int:
        return _kept_hash(self)

    __getstate__ = _state_without_hash

    def matches(self, present: set[str] | frozenset[str]) -> bool:
        if self.any and not any(s in present for s in self.any):
            return False
        if self.all and not all(s in present for s in self.all):
            return False
        return not any(s in present for s in self.none)

    @property
    def positive_signals(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*self.any, *self.all]))


@dataclass(frozen=True)
class LocateRule:
    """One ``[[locate]]`` row: a regex with named groups ``file`` and ``line``."""

    id: str
    regex: str
    note: str = ""

    def __repr__(self) -> str:
        return _row_repr("locate", self)


def _row_repr(kind: str, rule: Any) -> str:
    parts = []
    for f in dataclasses.fields(rule):
        v = getattr(rule, f.name)
        if f.name != "id" and v == f.default:
            continue
        if isinstance(v, tuple):
            v = list(v)
        parts.append(f"{f.name}={v!r}")
    return f"[[{kind}]] " + ", ".join(parts)


#: The parts of equal tables :meth:`RuleTable.__eq__` lets them share (immutable tuples).
_SHARED_WHEN_EQUAL = ("extract", "route", "locate")


@dataclass(frozen=True)
class RuleTable:
    """A taxonomy's ordered extractor and bucket rules, version and provenance.

    Build one with :func:`load_table` (a shipped name or a path) or :func:`read_table`;
    compare two with :func:`diff_tables`; write one with :func:`save_table`.
    """

    name: str
    taxonomy: str
    version: str
    fallback: str
    extract: tuple[ExtractRule, ...] = ()
    route: tuple[RouteRule, ...] = ()
    locate: tuple[LocateRule, ...] = ()
    description: str = ""
    provenance: Mapping[str, Any] = field(default_factory=dict)
    path: str | None = field(default=None, compare=False)
    _compiled: Any = field(default=None, init=False, repr=False, compare=False)
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        return _kept_hash(self, ("name", "taxonomy", "version", "extract", "route"))

    def __eq__(self, other: object) -> bool:
        """Field by field, as a dataclass compares (``path`` aside), but two equal tables
        loaded apart compare their rules once. Comparing a shipped table's thousand-odd
        rules takes milliseconds, and caches keyed by a table (the simulator's, the
        tuner's) compare a key with an equal table loaded apart on every lookup: once found
        equal, ``other`` takes this table's rule tuples, the same values, so the next
        comparison finds them identical at once."""
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        if hash(self) != hash(other) or _compared(self) != _compared(other):
            return False
        for name in _SHARED_WHEN_EQUAL:
            object.__setattr__(other, name, getattr(self, name))
        return True

    __getstate__ = _state_without_hash

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _hash=None)

    def compiled(self) -> CompiledTable:
        """The table validated against its taxonomy and compiled for matching (cached)."""
        if self._compiled is None:
            object.__setattr__(self, "_compiled", CompiledTable(self))
        return self._compiled

    @property
    def taxonomy_obj(self) -> Taxonomy:
        return load_taxonomy(self.taxonomy)

    @property
    def signals(self) -> tuple[str, ...]:
        """Every signal the table's extractors can emit or its routes mention, in order."""
        out = [r.signal for r in self.extract]
        for r in self.route:
            out.extend([*r.any, *r.all, *r.none])
        return tuple(dict.fromkeys(out))

    def text_rules(self) -> tuple[ExtractRule, ...]:
        """The extract rules that look at nothing but the text (:attr:`ExtractRule.text_only`)."""
        return tuple(r for r in self.extract if r.text_only)

    def text_signals(self) -> frozenset[str]:
        """The signals the table's own text rules find in an event's text."""
        return frozenset(r.signal for r in self.text_rules())

    def route_by_id(self, rule_id: str) -> RouteRule:
        for r in self.route:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)

    def replace(self, **changes: Any) -> RuleTable:
        """A copy with some attributes changed (rules as tuples), validated.

        A copy with the same extract rules and taxonomy (the tuner's and the simulator's
        candidate route sets) shares this table's compiled patterns and literal index
        instead of compiling them again; only what else changed is checked."""
        new = dataclasses.replace(self, **changes)
        if (self._compiled is not None and new.extract is self.extract and new.taxonomy == self.taxonomy
                and new.path == self.path):
            object.__setattr__(new, "_compiled", CompiledTable(new, extract_of=self._compiled))
        new.compiled()
        return new


class CompiledPatterns(Mapping[str, Any]):
    """Rule id -> its pattern compiled on RE2, compiled on first use.

    The patterns were checked when the table was compiled (:func:`_check_patterns`); a
    run that reads few of them (one record, the batch engine, which compiles its own
    alternatives) no longer compiles a table's thousand patterns first."""

    def __init__(self, sources: dict[str, str]):
        self._sources = sources
        self._compiled: dict[str, Any] = {}

    def __getitem__(self, rule_id: str) -> Any:
        rx = self._compiled.get(rule_id)
        if rx is None:
            rx = self._compiled[rule_id] = compile_regex(self._sources[rule_id])
        return rx

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._sources

    def __iter__(self) -> Any:
        return iter(self._sources)

    def __len__(self) -> int:
        return len(self._sources)


def _check_patterns(rules: Sequence[ExtractRule], where: str | None, *, keep: bool = False) -> None:
    """Every pattern of ``rules`` (regex, capture, a ``matches`` value) is one RE2 compiles,
    or a TableError names the rule. Compiling a table's patterns is most of what loading
    it costs (a third of a second for a shipped table), so with ``keep`` (a shipped table)
    the finding that its patterns are good is kept in the cache folder, named by the
    patterns, this module and the RE2 build, and later processes skip the compiling; each
    pattern is then compiled when first used. A user's tables (a tuned one changes every
    run) are compiled whole each time, as their parsed documents are not kept either."""
    checks = [(pattern, rule.id) for rule in rules
              for pattern in (rule.regex, rule.capture, str(rule.value) if rule.op == "matches" else None)
              if pattern is not None]
    if not checks:
        return

    def compile_all() -> bool:
        for pattern, rule_id in checks:
            _compile(pattern, where, rule_id)
        return True

    key = [_re2_build(), sorted({pattern for pattern, _ in checks})]
    kept_json(derived_file("re2-checked", [__file__], key) if keep else None, compile_all,
              lambda v: True if v is True else None)


def _is_shipped(path: str | os.PathLike[str] | None) -> bool:
    """Whether ``path`` is a table file of the shipped tables' folder (only their derived
    answers are kept: a user's table, tuned anew each run, would pile up files)."""
    if path is None:
        return False
    try:
        return Path(path).resolve().parent == _shipped_folder()
    except (OSError, ValueError):
        return False


@functools.cache
def _re2_build() -> list[Any]:
    """What names the RE2 build patterns were checked on: its module file, size and time."""
    so = getattr(re2, "_re2", re2).__file__ or ""
    try:
        st = os.stat(so)
    except OSError:
        return [so]
    return [os.path.basename(so), st.st_size, st.st_mtime_ns]


class CompiledTable:
    """A validated table with its patterns compiled; what :func:`failtax.classify` runs."""

    def __init__(self, table: RuleTable, *, extract_of: CompiledTable | None = None):
        self.table = table
        where = table.path
        try:
            self.taxonomy = load_taxonomy(table.taxonomy)
        except TaxonomyError as exc:
            raise TableError(str(exc), path=where) from exc
        if not self.taxonomy.has_bucket(table.fallback):
            raise TableError(
                f"fallback bucket {table.fallback!r} is not in taxonomy {table.taxonomy!r} "
                f"(buckets: {', '.join(self.taxonomy.bucket_names)})",
                path=where,
            )
        if len(table.extract) + len(table.route) + len(table.locate) > MAX_RULES:
            raise TableError(f"more than {MAX_RULES} rules", path=where)
        # (With ``extract_of``, a compiled table of the very same extract rules: their
        # checks, compiled patterns, literals and literal index are its own.)
        for section in ("route", "locate") if extract_of is not None else ("extract", "route", "locate"):
            seen: set[str] = set()
            for rule in getattr(table, section):
                if not rule.id:
                    raise TableError(f"a [[{section}]] rule has an empty id", path=where)
                if rule.id in seen:
                    raise TableError(f"duplicate [[{section}]] rule id", path=where, rule=rule.id)
                seen.add(rule.id)
        if extract_of is not None:
            self.regex: Mapping[str, Any] = extract_of.regex
            self.capture: Mapping[str, Any] = extract_of.capture
        else:
            for rule in table.extract:
                _check_extract(rule, where)
            _check_patterns(table.extract, where, keep=_is_shipped(where))
            self.regex = CompiledPatterns({r.id: r.regex for r in table.extract if r.regex is not None})
            self.capture = CompiledPatterns({r.id: r.capture for r in table.extract if r.capture is not None})
        for route in table.route:
            if not self.taxonomy.has_bucket(route.bucket):
                raise TableError(
                    f"unknown bucket {route.bucket!r} (taxonomy {table.taxonomy!r} has: "
                    f"{', '.join(self.taxonomy.bucket_names)})",
                    path=where,
                    rule=route.id,
                )
            if not (route.any or route.all):
                raise TableError("a route needs signals in 'any' or 'all'", path=where, rule=route.id)
        self.locate = []
        for loc in table.locate:
            rx = _compile(loc.regex, where, loc.id)
            groups = set(rx.groupindex) if hasattr(rx, "groupindex") else set()
            if "file" not in groups:
                raise TableError("a locate regex needs a named group 'file'", path=where, rule=loc.id)
            self.locate.append((loc, rx))
        if extract_of is not None:
            self.literals = extract_of.literals
            if "index" in extract_of.__dict__:  # (built: shared, not built again)
                self.__dict__["index"] = extract_of.__dict__["index"]
            return
        # Lower-cased literals, ready for substring tests.
        # (A field predicate's `matches` value is compiled on demand through the cache.)
        self.literals = {
            r.id: (
                tuple(ascii_lower(s) for s in r.text_literals),
                tuple(ascii_lower(s) for s in r.and_contains),
                tuple(ascii_lower(s) for s in r.unless),
            )
            for r in table.extract
        }

    @functools.cached_property
    def index(self) -> LiteralIndex:
        """The literal index :func:`failtax.classify` uses; built on first use (the tuner
        compiles many candidate tables it never classifies a single record with)."""
        return LiteralIndex(self)

    def regex_value(self, rule: ExtractRule) -> Any:
        """The compiled pattern of a ``matches`` field predicate."""
        return compile_regex(str(rule.value))


class LiteralIndex:
    """Which of a table's literals a lower-cased text holds, and which rules can fire.

    Every literal of every rule (``contains``, ``and_contains``, ``unless``, and the
    literals one of which each match of a rule's regex holds: its ``gate``) is looked up
    once per text instead of once per rule. Each literal is filed under the rarest (among
    the table's literals) of its three-byte sequences in UTF-8; numpy finds which filed
    sequences a text holds, a literal is searched for only where its two next-rarest
    sequences occur too, and the search itself is Python's substring test. A rule can
    fire only if one of its anchor literals (its ``contains``, else its regex's gate) is
    present; rules with neither are always tried.
    """

    def __init__(self, ct: CompiledTable):
        rules = ct.table.extract
        #: rule id -> (contains + HTTP contexts, and_contains, unless, regex gate), as sets
        self.sets: dict[str, tuple[frozenset[str], ...]] = {}
        self.always: list[int] = []
        self.by_literal: dict[str, list[int]] = {}
        gates = iter(required_literals_kept([r.regex for r in rules if r.regex is not None]))
        for i, rule in enumerate(rules):
            text_lits, also, unless = ct.literals[rule.id]
            gate = (next(gates) or ()) if rule.regex is not None else ()
            self.sets[rule.id] = (frozenset(text_lits), frozenset(also), frozenset(unless), frozenset(gate))
            anchors = text_lits or gate
            if not anchors:
                self.always.append(i)
            for a in set(anchors):
                self.by_literal.setdefault(a, []).append(i)
        lits: set[str] = set()
        for parts in self.sets.values():
            lits.update(*parts)
        lits.discard("")
        ordered = sorted(lits)
        by_key: dict[int, list[tuple[str, frozenset[int]]]] = {}
        self.short: list[str] = []
        for s, ranked in zip(ordered, _ranked_grams([_utf8(s) for s in ordered]), strict=True):
            if ranked:  # rarest sequence first; ties go to the smaller code
                by_key.setdefault(ranked[0], []).append((s, frozenset(ranked[1:3])))
            else:  # under three bytes: no sequence
                self.short.append(s)
        self.keys = np.array(sorted(by_key), dtype=np.uint32)
        self.buckets = [by_key[int(k)] for k in self.keys]

    def present(self, hay: str) -> frozenset[str]:
        """The literals ``hay`` (a lower-cased text) contains."""
        found = [s for s in self.short if s in hay]
        seen = _gram_codes(_utf8(hay))
        keys = self.keys
        if not len(seen) or not len(keys):
            return frozenset(found)
        at = np.searchsorted(keys, seen)
        at[at == len(keys)] = 0
        hit = set(at[keys[at] == seen].tolist())
        if hit:
            have = set(seen.tolist())
            buckets = self.buckets
            found += [s for k in hit for s, more in buckets[k] if more <= have and s in hay]
        return frozenset(found)

    def candidates(self, present: frozenset[str]) -> list[int]:
        """Positions (in table order) of the rules that can fire given ``present``."""
        rules = set(self.always)
        for s in present:
            rules.update(self.by_literal.get(s, ()))
        return sorted(rules)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # (evidence text can hold lone surrogates)


def _ranked_grams(encoded: list[bytes]) -> list[list[int]]:
    """For each literal (UTF-8), its three rarest distinct three-byte sequences, rarest
    first, rarity counted over the literals (each literal once per sequence it holds),
    ties going to the smaller code; empty for a literal under three bytes. One numpy pass
    over all literals: a table's ~20,000 of them took a third of a second one by one."""
    lens = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    counts = np.maximum(lens - 2, 0)  # sequences per literal
    if not counts.sum():
        return [[] for _ in encoded]
    codes = _gram_codes(b"".join(encoded))
    starts = np.cumsum(lens) - lens
    first = np.cumsum(counts) - counts  # where each literal's sequences start among all
    owner = np.repeat(np.arange(len(encoded), dtype=np.uint64), counts)
    at = np.repeat(starts - first, counts) + np.arange(int(counts.sum()))
    pairs = _distinct(np.sort((owner << np.uint64(32)) | codes[at].astype(np.uint64)))  # per literal
    own = pairs >> np.uint64(32)
    gram = pairs & np.uint64(0xFFFFFFFF)
    ordered = np.sort(gram)
    codes_seen = _distinct(ordered)
    freq = np.diff(np.searchsorted(ordered, codes_seen, side="right"), prepend=0)  # literals per code
    order = np.lexsort((gram, freq[np.searchsorted(codes_seen, gram)], own))  # literal, rarity, code
    own, gram = own[order], gram[order]
    rank = np.arange(len(own)) - np.searchsorted(own, own)  # position within its literal
    keep = rank < 3
    own, gram = own[keep], gram[keep].tolist()
    bounds = np.searchsorted(own, np.arange(len(encoded) + 1, dtype=np.uint64)).tolist()
    return [gram[a:b] for a, b in itertools.pairwise(bounds)]


def _distinct(ordered: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array (np.unique hashes, slower on these)."""
    if not len(ordered):
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def _gram_codes(data: bytes) -> np.ndarray:
    """The three-byte sequences of ``data`` in order, each as one integer."""
    if len(data) < 3:
        return np.zeros(0, dtype=np.uint32)
    b = np.frombuffer(data, dtype=np.uint8).astype(np.uint32)
    return (b[:-2] << 16) | (b[1:-1] << 8) | b[2:]


def _compile(pattern: str, where: str | None, rule_id: str) -> Any:
    if len(pattern) > MAX_PATTERN_CHARS:
        raise TableError(f"pattern longer than {MAX_PATTERN_CHARS} characters", path=where, rule=rule_id)
    try:
        return compile_regex(pattern)
    except Exception as exc:  # re2 raises its own error type
        msg = exc.args[0] if exc.args else exc
        if isinstance(msg, bytes):
            msg = msg.decode("utf-8", "replace")
        raise TableError(
            f"bad pattern {pattern!r}: {msg} (patterns run on RE2: no backreferences or lookaround)",
            path=where,
            rule=rule_id,
        ) from None


def _check_extract(rule: ExtractRule, where: str | None) -> None:
    positive = (
        rule.contains or rule.regex or rule.http_status or rule.exit_code
        or rule.has_signal is not None or rule.posix_signal or rule.frame_subtype
        or rule.frame_error is not None or rule.field
    )
    if not positive:
        raise TableError("an extract rule needs at least one condition besides 'unless'", path=where, rule=rule.id)
    if not rule.signal:
        raise TableError("an extract rule needs a 'signal'", path=where, rule=rule.id)
    for lits in (rule.contains, rule.and_contains, rule.unless, rule.frame_subtype):
        if len(lits) > MAX_LITERALS_PER_RULE:
            raise TableError(f"more than {MAX_LITERALS_PER_RULE} literals", path=where, rule=rule.id)
        for s in lits:
            if not s:
                raise TableError("an empty literal matches everything", path=where, rule=rule.id)
            if len(s) > MAX_PATTERN_CHARS:
                raise TableError(f"literal longer than {MAX_PATTERN_CHARS} characters", path=where, rule=rule.id)
    if rule.field is not None:
        if rule.op not in FIELD_OPS:
            raise TableError(f"unknown op {rule.op!r}; use one of {', '.join(FIELD_OPS)}", path=where, rule=rule.id)
        if rule.op not in _UNARY_OPS and rule.value is None:
            raise TableError(f"op {rule.op!r} needs a 'value'", path=where, rule=rule.id)
    elif rule.op is not None or rule.value is not None:
        raise TableError("'op' and 'value' need a 'field'", path=where, rule=rule.id)


# --------------------------------------------------------------------------- reading

_EXTRACT_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,), "signal": (str,), "contains": (list,), "and_contains": (list,),
    "unless": (list,), "regex": (str,), "http_status": (list,), "exit_code": (list,),
    "has_signal": (bool,), "posix_signal": (list,), "frame_subtype": (list,),
    "frame_error": (bool,), "field": (str,), "op": (str,), "value": (str, int, float, bool, list),
    "capture": (str,), "note": (str,), "unless_sets": (list,),
}
_ITEM_TYPES = {
    "contains": str, "and_contains": str, "unless": str, "unless_sets": str, "frame_subtype": str,
    "http_status": int, "exit_code": int, "posix_signal": int,
    "any": str, "all": str, "none": str, "signals": str,
}
_ROUTE_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,), "bucket": (str,), "any": (list,), "all": (list,), "none": (list,),
    "title": (str,), "detail": (str,), "retryable": (bool,), "note": (str,),
}
_LOCATE_TYPES: dict[str, tuple[type, ...]] = {"id": (str,), "regex": (str,), "note": (str,)}
_HEADER_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,), "taxonomy": (str,), "version": (str,), "fallback": (str,),
    "description": (str,), "provenance": (dict,),
}


def _typed(row: Any, types: Mapping[str, tuple[type, ...]], *, path: str | None, kind: str, index: int,
           required: tuple[str, ...] = ("id",)) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise TableError(f"[[{kind}]] #{index + 1} is not a table", path=path)
    rid = row.get("id")
    label = rid if isinstance(rid, str) and rid else f"[[{kind}]] #{index + 1}"
    for key, value in row.items():
        if key not in types:
            raise TableError(
                f"unknown key {key!r} in [[{kind}]]; allowed: {', '.join(types)}", path=path, rule=label
            )
        want = types[key]
        if not isinstance(value, want) or (isinstance(value, bool) and bool not in want):
            names = " or ".join(t.__name__ for t in want)
            raise TableError(f"{key!r} must be {names}, got {type(value).__name__}", path=path, rule=label)
        item = _ITEM_TYPES.get(key)
        if item is not None:
            for v in value:
                if not isinstance(v, item) or isinstance(v, bool):
                    raise TableError(
                        f"{key!r} must list {item.__name__} values, got {v!r}", path=path, rule=label
                    )
    for req in required:
        if req not in row:
            raise TableError(f"[[{kind}]] #{index + 1} has no {req!r}", path=path)
    return dict(row)


def _vetoes(raw: Any, path: str | None) -> dict[str, tuple[str, ...]]:
    """The ``[vetoes]`` table: named word lists that rules' ``unless_sets`` share."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise TableError("'vetoes' must be a table of named word lists ([vetoes])", path=path)
    out = {}
    for name, words in raw.items():
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w for w in words):
            raise TableError(f"[vetoes] {name!r} must be a non-empty list of words", path=path)
        out[name] = tuple(words)
    return out


def _extract_rules(rows: Sequence[Any], path: str | None,
                   vetoes: Mapping[str, tuple[str, ...]] | None = None) -> list[ExtractRule]:
    vetoes = vetoes or {}
    used: set[str] = set()
    out = []
    for i, row in enumerate(rows):
        d = _typed(row, _EXTRACT_TYPES, path=path, kind="extract", index=i)
        if "signal" not in d:
            raise TableError("an extract rule needs a 'signal'", path=path, rule=d["id"])
        for name in d.pop("unless_sets", ()):
            if name not in vetoes:
                raise TableError(f"'unless_sets' names {name!r}, which [vetoes] does not define",
                                 path=path, rule=d["id"])
            used.add(name)
            d["unless"] = [*d.get("unless", ()), *vetoes[name]]
        d["signal"] = normalise_signal_name(d["signal"])
        for k in ("contains", "and_contains", "unless", "http_status", "exit_code", "posix_signal", "frame_subtype"):
            if k in d:
                d[k] = tuple(d[k])
        if isinstance(d.get("value"), list):
            d["value"] = tuple(d["value"])
        out.append(ExtractRule(**d))
    unused = sorted(set(vetoes) - used)
    if unused:
        raise TableError(f"[vetoes] {', '.join(map(repr, unused))} named by no rule's 'unless_sets'", path=path)
    return out


_BORROW_TYPES: dict[str, tuple[type, ...]] = {"from": (str,), "signals": (list,), "rename": (dict,), "note": (str,)}


def _borrowed(rows: Any, own: Sequence[ExtractRule], path: str | None) -> list[ExtractRule]:
    """The extract rules ``[[borrow]]`` rows take from other tables, renamed, in order.

    A borrow takes every one of the source's *own* extract rules (never what the source
    borrowed itself) whose signal it names, in the source's order, with the id
    ``<source>-<id>`` and the signal as ``rename`` says.
    """
    if not isinstance(rows, list):
        raise TableError("'borrow' must be an array of tables ([[borrow]])", path=path)
    own_signals = {r.signal for r in own}
    taken: dict[str, str] = {}  # borrowed signal (as named here) -> its source
    out: list[ExtractRule] = []
    for i, row in enumerate(rows):
        d = _typed(row, _BORROW_TYPES, path=path, kind="borrow", index=i, required=("from", "signals"))
        label = f"[[borrow]] #{i + 1} (from {d['from']!r})"
        wanted = [normalise_signal_name(s) for s in d["signals"]]
        if not wanted:
            raise TableError(f"{label} names no signals", path=path)
        rename = {}
        for old, new in d.get("rename", {}).items():
            if not isinstance(new, str) or normalise_signal_name(old) not in wanted:
                raise TableError(f"{label}: rename {old!r} must name one of its signals and give a new name",
                                 path=path)
            rename[normalise_signal_name(old)] = normalise_signal_name(new)
        source, rules = _source_rules(d["from"], path, label)
        for s in wanted:
            here = rename.get(s, s)
            if here in own_signals:
                raise TableError(f"{label}: signal {s!r} is also one of this table's own; rename it "
                                 f"(rename = {{ {s} = \"{source}-{s}\" }})", path=path)
            if here in taken:
                raise TableError(f"{label}: signal {here!r} is already borrowed from {taken[here]!r}", path=path)
            taken[here] = source
        found = set()
        for r in rules:
            if r.signal in wanted:
                found.add(r.signal)
                out.append(dataclasses.replace(r, id=f"{source}-{r.id}", signal=rename.get(r.signal, r.signal)))
        missing = [s for s in wanted if s not in found]
        if missing:
            raise TableError(f"{label}: no extract rule of {source!r} names {', '.join(map(repr, missing))}",
                             path=path)
    return out


def _source_rules(ref: str, path: str | None, label: str) -> tuple[str, list[ExtractRule]]:
    """The name and own extract rules of the table a borrow names: a file beside ``path``
    (``replay`` is ``replay.toml``), else the shipped table of that name."""
    name = ref.removesuffix(".toml")
    here = Path(path).parent / (ref if ref.endswith(".toml") else f"{ref}.toml") if path else None
    if here is not None and here.is_file():
        if path is not None and here.resolve() == Path(path).resolve():
            raise TableError(f"{label}: a table cannot borrow from itself", path=path)
        doc = _read_doc(here)
        where = str(here)
    elif name in list_tables() and not ref.endswith(".toml"):
        with resources.as_file(_shipped_root() / f"{name}.toml") as p:
            doc = _read_doc(p)
            where = str(p)
    else:
        raise TableError(f"{label}: no table {ref!r} beside this one and none shipped by that name", path=path)
    header = doc.get("table") if isinstance(doc, dict) else None
    rows = doc.get("extract", []) if isinstance(doc, dict) else None
    if not isinstance(header, dict) or not isinstance(rows, list):
        raise TableError(f"{label}: {where} is not a rule table", path=path)
    source = header.get("name", header.get("taxonomy", name))
    if not isinstance(source, str) or not source:
        source = name
    return source, _extract_rules(rows, where, _vetoes(doc.get("vetoes"), where))


def table_from_mapping(doc: Mapping[str, Any], *, path: str | None = None) -> RuleTable:
    """Build a :class:`RuleTable` from a parsed TOML document, checking every type.

    Raises :class:`TableError` naming the file, the rule and the reason.
    """
    if not isinstance(doc, Mapping):
        raise TableError("a table document must be a TOML table", path=path)
    unknown = set(doc) - {"table", "vetoes", "extract", "borrow", "route", "locate"}
    if unknown:
        raise TableError(f"unknown top-level keys {sorted(unknown)}; expected [table], [vetoes], [[extract]], "
                         "[[borrow]], [[route]], [[locate]]", path=path)
    header = doc.get("table")
    if not isinstance(header, dict):
        raise TableError("missing the [table] header (name, taxonomy, version, fallback)", path=path)
    for key, value in header.items():
        if key not in _HEADER_TYPES:
            raise TableError(f"unknown key {key!r} in [table]", path=path)
        if not isinstance(value, _HEADER_TYPES[key]):
            raise TableError(f"[table] {key!r} must be {_HEADER_TYPES[key][0].__name__}", path=path)
    for key in ("taxonomy", "version", "fallback"):
        if key not in header:
            raise TableError(f"[table] needs {key!r}", path=path)
    for key in ("extract", "route", "locate"):
        if key in doc and not isinstance(doc[key], list):
            raise TableError(f"{key!r} must be an array of tables ([[{key}]])", path=path)

    extract = _extract_rules(doc.get("extract", []), path, _vetoes(doc.get("vetoes"), path))
    if "borrow" in doc:
        extract += _borrowed(doc["borrow"], extract, path)
    route = []
    for i, row in enumerate(doc.get("route", [])):
        d = _typed(row, _ROUTE_TYPES, path=path, kind="route", index=i)
        if "bucket" not in d:
            raise TableError("a route needs a 'bucket'", path=path, rule=d["id"])
        for k in ("any", "all", "none"):
            if k in d:
                d[k] = tuple(normalise_signal_name(s) for s in d[k])
        route.append(RouteRule(**d))
    locate = []
    for i, row in enumerate(doc.get("locate", [])):
        d = _typed(row, _LOCATE_TYPES, path=path, kind="locate", index=i)
        if "regex" not in d:
            raise TableError("a locate rule needs a 'regex'", path=path, rule=d["id"])
        locate.append(LocateRule(**d))
    table = RuleTable(
        name=header.get("name", header["taxonomy"]),
        taxonomy=header["taxonomy"],
        version=header["version"],
        fallback=header["fallback"],
        extract=tuple(extract),
        route=tuple(route),
        locate=tuple(locate),
        description=header.get("description", ""),
        provenance=_freeze(header.get("provenance", {})),
        path=path,
    )
    table.compiled()
    return table


def _freeze(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()}


def read_table(path: str | os.PathLike[str]) -> RuleTable:
    """Read, validate and compile a table file. Raises :class:`TableError` on any fault."""
    return table_from_mapping(_read_doc(Path(path)), path=str(Path(path)))


def _read_doc(p: Path) -> Any:
    """A table file's TOML document, size and encoding checked.

    A shipped table's document (a file in the package's tables folder, however it is
    named or reached) is kept in the cache folder as JSON, which reads back some twenty
    times faster than the TOML parses: every command, report and worker process reads a
    shipped table and the tables it borrows from. Named by the file's bytes and the Python
    version whose ``tomllib`` parsed them; a document JSON cannot hold (a TOML date) is
    not kept. A user's own tables are never kept: a tuned one changes every run.
    """
    where = str(p)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise TableError(f"cannot read the table: {exc.strerror or exc}", path=where) from None
    if size > MAX_TABLE_BYTES:
        raise TableError(f"table file is larger than {MAX_TABLE_BYTES // (1024 * 1024)} MB", path=where)
    try:
        raw = p.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TableError(f"not UTF-8 text (byte {exc.start})", path=where) from None
    except OSError as exc:
        raise TableError(f"cannot read the table: {exc.strerror or exc}", path=where) from None

    def parse() -> Any:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise TableError(f"not valid TOML: {exc}", path=where) from None
        except RecursionError:
            raise TableError("not a table: TOML nested too deeply", path=where) from None

    if not _is_shipped(p):
        return parse()
    return kept_json(kept_file("toml", [sys.version_info[:3], hashlib.sha256(raw).hexdigest()], ".json"),
                     parse, lambda doc: doc if isinstance(doc, dict) else None)


def list_tables() -> list[str]:
    """Names of the default tables shipped with failtax (one per taxonomy)."""
    return list(_shipped_names())


def _shipped_root() -> Any:
    """The shipped tables' folder as a package resource (it may not be on disk)."""
    return resources.files("failtax") / "data" / "tables"


@functools.cache  # (the package's data folder does not change while it runs)
def _shipped_names() -> tuple[str, ...]:
    return tuple(sorted(p.name[:-5] for p in _shipped_root().iterdir() if p.name.endswith(".toml")))


@functools.cache
def _shipped_folder() -> Path | None:
    """The shipped tables' folder on disk (None when the package is not on disk)."""
    try:
        with resources.as_file(_shipped_root()) as p:
            return Path(p).resolve()
    except OSError:
        return None


@functools.lru_cache(maxsize=64)
def _load_default(name: str) -> RuleTable:
    with resources.as_file(_shipped_root() / f"{name}.toml") as p:
        return read_table(p)


def load_table(name_or_path: str | os.PathLike[str] | RuleTable) -> RuleTable:
    """Load a rule table by taxonomy name (the shipped default) or by file path.

    >>> load_table("agent-run").fallback
    'unknown_non_zero'
    """
    if isinstance(name_or_path, RuleTable):
        name_or_path.compiled()
        return name_or_path
    s = os.fspath(name_or_path)
    if s in _shipped_names() and not Path(s).exists():
        return _load_default(s)
    if Path(s).exists() or s.endswith(".toml") or os.sep in s:
        return read_table(s)
    raise TableError(f"no shipped table called {s!r} and no such file; shipped: {', '.join(list_tables())}")


# --------------------------------------------------------------------------- writing

_HEADER_COMMENT = """\
# failtax rule table. Data, not code: loading it runs nothing.
# Extract rules name signals from evidence; route rules are tried in order and the
# first match decides the bucket; with no match the fallback bucket is the answer.
# Spec: the module docstring of failtax/table.py. Check edits with `failtax table lint`.
"""


def _row_dict(rule: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(rule):
        v = getattr(rule, f.name)
        if f.name.startswith("_") or (f.name != "id" and v == f.default):
            continue
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def table_to_mapping(table: RuleTable) -> dict[str, Any]:
    """The TOML document of ``table``, keys in a fixed order."""
    header: dict[str, Any] = {
        "name": table.name,
        "taxonomy": table.taxonomy,
        "version": table.version,
        "fallback": table.fallback,
    }
    if table.description:
        header["description"] = table.description
    if table.provenance:
        header["provenance"] = {
            k: (list(v) if isinstance(v, tuple) else v) for k, v in table.provenance.items()
        }
    doc: dict[str, Any] = {"table": header}
    if table.extract:
        doc["extract"] = [_row_dict(r) for r in table.extract]
    if table.route:
        doc["route"] = [_row_dict(r) for r in table.route]
    if table.locate:
        doc["locate"] = [_row_dict(r) for r in table.locate]
    return doc


def dump_table(table: RuleTable) -> str:
    """Serialise a table to TOML text; ``read(dump(t)) == t``. Deterministic."""
    return _HEADER_COMMENT + "\n" + tomli_w.dumps(table_to_mapping(table), multiline_strings=False)


def save_table(table: RuleTable, path: str | os.PathLike[str]) -> Path:
    """Write a table atomically: a crash mid-write leaves the previous file intact."""
    table.compiled()
    text = dump_table(table)
    return atomic_write_text(path, text)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8, ``\n`` line ends) to ``path`` atomically (:func:`atomic_write_bytes`)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename:
    readers see the old file or the new one, whole, even when several write at once."""
    target = Path(path)
    with os_errors_named(target):  # the file asked for, not the temporary one
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target


# --------------------------------------------------------------------------- diffing


@dataclass(frozen=True)
class TableChange:
    """One rule-level difference between two tables."""

    kind: str  # "added", "removed", "changed", "moved", "header"
    section: str  # "extract", "route", "locate", "table"
    rule: str
    before: Any = None
    after: Any = None
    fields: tuple[str, ...] = ()

    def __str__(self) -> str:
        sign = {"added": "+", "removed": "-", "changed": "~", "moved": ">", "header": "*"}[self.kind]
        if self.kind == "added":
            return f"{sign} {self.after!r}"  # a rule's repr already names its section
        if self.kind == "removed":
            return f"{sign} {self.before!r}"
        if self.kind == "moved":
            return f"{sign} [[{self.section}]] {self.rule}: position {self.before} -> {self.after}"
        if self.kind == "header":
            return f"{sign} [table] {self.rule}: {self.before!r} -> {self.after!r}"
        parts = []
        for f in self.fields:
            parts.append(f"{f}: {getattr(self.before, f)!r} -> {getattr(self.after, f)!r}")
        return f"{sign} [[{self.section}]] {self.rule}: " + "; ".join(parts)


@dataclass(frozen=True)
class TableDiff:
    """The rule-by-rule differences from ``old`` to ``new``."""

    old: RuleTable
    new: RuleTable
    changes: tuple[TableChange, ...]

    def __bool__(self) -> bool:
        return bool(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __str__(self) -> str:
        head = f"--- {self.old.name} {self.old.version}\n+++ {self.new.name} {self.new.version}"
        if not self.changes:
            return head + "\n(no rule changes)"
        return head + "\n" + "\n".join(str(c) for c in self.changes)

    def to_records(self) -> list[dict[str, Any]]:
        out = []
        for c in self.changes:
            rec: dict[str, Any] = {"kind": c.kind, "section": c.section, "rule": c.rule}
            if c.kind == "changed":
                rec["fields"] = {
                    f: [_jsonable(getattr(c.before, f)), _jsonable(getattr(c.after, f))] for f in c.fields
                }
            elif c.kind in ("moved", "header"):
                rec["before"], rec["after"] = _jsonable(c.before), _jsonable(c.after)
            else:
                rec["rule_row"] = _row_dict(c.after if c.kind == "added" else c.before)
            rec["text"] = str(c)
            out.append(rec)
        return out


def _jsonable(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def diff_tables(old: RuleTable, new: RuleTable) -> TableDiff:
    """Compare two tables rule by rule: added, removed, changed and moved rules.

    A rule is identified by its ``id``. "moved" means its position relative to the
    rules both tables share changed (which matters for routes: first match wins).
    """
    changes: list[TableChange] = []
    for key in ("taxonomy", "fallback"):
        a, b = getattr(old, key), getattr(new, key)
        if a != b:
            changes.append(TableChange("header", "table", key, a, b))
    for section in ("extract", "route", "locate"):
        a_rules: Sequence[Any] = getattr(old, section)
        b_rules: Sequence[Any] = getattr(new, section)
        a_by = {r.id: r for r in a_rules}
        b_by = {r.id: r for r in b_rules}
        for r in a_rules:
            if r.id not in b_by:
                changes.append(TableChange("removed", section, r.id, before=r))
        for r in b_rules:
            if r.id not in a_by:
                changes.append(TableChange("added", section, r.id, after=r))
            elif a_by[r.id] != r:
                before = a_by[r.id]
                fields = tuple(
                    f.name for f in dataclasses.fields(r) if getattr(before, f.name) != getattr(r, f.name)
                )
                changes.append(TableChange("changed", section, r.id, before, r, fields))
        shared_a = [r.id for r in a_rules if r.id in b_by]
        shared_b = [r.id for r in b_rules if r.id in a_by]
        if shared_a != shared_b:
            sm = difflib.SequenceMatcher(a=shared_a, b=shared_b, autojunk=False)
            stay = {x for blk in sm.get_matching_blocks() for x in shared_a[blk.a : blk.a + blk.size]}
            for rid in shared_b:
                if rid not in stay:
                    changes.append(
                        TableChange(
                            "moved", section, rid,
                            before=[r.id for r in a_rules].index(rid) + 1,
                            after=[r.id for r in b_rules].index(rid) + 1,
                        )
                    )
    return TableDiff(old, new, tuple(changes))
