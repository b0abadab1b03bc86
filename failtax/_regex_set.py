"""Many table regexes answered in one pass over a record (private; see :mod:`failtax.batch`).

RE2's ``Set`` compiles many patterns into one automaton and says which of them match a
text, reading it once. Its answers are RE2's own: the same options, the same engine
that :func:`failtax.table.compile_regex` patterns run on, and a ``Set`` never gives up
on a text (where a single regex's DFA would hand over to another engine when its state
cache keeps filling, a ``Set`` resets the cache and reads on). What can go wrong is
speed: the automaton's states are sets of the patterns' positions, and patterns that
can stay open over a long stretch of text (``A[^\\n]{0,40}B``, ``A\\w*B``, ``A.*B``)
multiply them. Over the shipped tables' real messages, a ``Set`` of all of a table's
regexes read a message in 0.25-3.5 ms on first sight (its state cache filling, and for
most tables thrashing), against 21-64 µs for one without such patterns. So only patterns
without a wide gap (:func:`wide_gap`) go in; the others run one by one where their
literals occur.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from failtax._cache import derived_file, kept_json
from failtax._scan import _parse

__all__ = ["RegexSet", "wide_gap"]

#: A repeated item matching more than this many distinct bytes is "broad".
_BROAD = 20
#: A broad item repeated at most this many times is still a short gap.
_SHORT = 3
_CATEGORY_SIZE = {"CATEGORY_DIGIT": 10, "CATEGORY_SPACE": 6}


def _breadth(op: Any, av: Any) -> int:
    """About how many distinct bytes one item of a parse tree can start with (max 256)."""
    name = str(op)
    if name == "LITERAL":
        return 2  # either case
    if name == "IN":
        n = 0
        for o, v in av:
            o = str(o)
            if o == "LITERAL":
                n += 2
            elif o == "RANGE":
                n += 2 * (v[1] - v[0] + 1)
            elif o == "CATEGORY":
                n += _CATEGORY_SIZE.get(str(v), 256)
        n = min(n, 256)
        return 256 - n if any(str(o) == "NEGATE" for o, _ in av) else n
    if name == "SUBPATTERN":
        return _seq_breadth(av[-1])
    if name == "BRANCH":
        return min(256, sum(_seq_breadth(s) for s in av[1]))
    return 256  # ANY, NOT_LITERAL, a repeat inside a repeat, anything unknown


def _seq_breadth(items: Any) -> int:
    return max((_breadth(o, a) for o, a in items), default=0)


def wide_gap(pattern: str) -> bool:
    """True when ``pattern`` may hold a wide gap: an item matching many different bytes
    (``.``, ``[^\\n]``, ``\\w``, ``\\S``, any negated class) repeated more than three
    times, or a pattern Python's parser cannot read (then nothing is known of it).

    >>> wide_gap(r"killed[^\\n]{0,40}signal"), wide_gap(r"exit(?:ed)?\\s+code\\s*=?\\s*\\d+")
    (True, False)
    """
    tree = _parse(pattern)
    if tree is None:
        return True

    def walk(items: Any) -> bool:
        for op, av in items:
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                _lo, hi, sub = av
                if (hi > _SHORT and _seq_breadth(sub) > _BROAD) or walk(sub):
                    return True
            elif name == "SUBPATTERN":
                if walk(av[-1]):
                    return True
            elif name == "BRANCH":
                if any(walk(s) for s in av[1]):
                    return True
            elif name in ("ASSERT", "ASSERT_NOT") and walk(av[1]):
                return True
        return False

    return walk(list(tree))


def _narrow(patterns: tuple[str, ...]) -> list[int]:
    """The indices of ``patterns`` without a wide gap, kept in the cache folder between
    processes: reading a table's ~900 regexes with Python's parser takes a quarter of a
    second, which every command and worker paid again. Named by the patterns, the Python
    version (its parser reads them) and the sources of the rules that decide."""
    from failtax import _scan

    def decode(got: Any) -> list[int] | None:
        ok = isinstance(got, list) and all(type(i) is int and 0 <= i < len(patterns) for i in got)
        return got if ok else None

    def make() -> list[int]:
        return [i for i, p in enumerate(patterns) if not wide_gap(p)]

    return kept_json(derived_file("narrow-regexes", [__file__, _scan.__file__], list(patterns)), make, decode)


class RegexSet:
    """An RE2 ``Set`` of the given patterns that have no wide gap.

    ``members[k]`` is the index (in ``patterns``) of the set's ``k``-th pattern, and
    :meth:`match` gives the set indices matching a text. ``compiled`` is False when RE2
    would not build the set within the options' ``max_mem`` (its compile runs the
    set's DFA once and fails when that has too little memory; then nothing is a member).
    ``options`` makes the ``re2.Options`` (a function: the set is not pickled but built
    again where it is unpickled).
    """

    def __init__(self, patterns: Sequence[str], options: Callable[[], Any]):
        import re2

        self.patterns = tuple(patterns)
        self._options = options
        chosen = _narrow(self.patterns)
        self._set: Any = None
        self.members = np.zeros(0, dtype=np.int64)
        if not chosen:
            return
        rs = re2._re2.Set(re2._re2.RE2.Anchor.UNANCHORED, options())
        kept = [i for i in chosen if rs.Add(self.patterns[i].encode("utf-8")) >= 0]
        if kept and rs.Compile():  # (matching with a set that did not compile crashes)
            self._set = rs
            self.members = np.array(kept, dtype=np.int64)

    @property
    def compiled(self) -> bool:
        return self._set is not None

    def match(self, data: Any) -> list[int]:
        """The set indices (see ``members``) of the patterns that match ``data`` (UTF-8
        bytes or a buffer of them)."""
        return self._set.Match(data)

    def __getstate__(self) -> dict[str, Any]:
        return {"patterns": self.patterns, "options": self._options}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["patterns"], state["options"])  # type: ignore[misc]
