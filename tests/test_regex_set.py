"""The RE2 set that answers a table's regexes in one pass per record (``failtax._regex_set``).

Batch classification takes a set member's answer for the regex's: these tests hold the
set to RE2's own search, pattern by pattern, over 1,500 of each table's real messages and text
built to keep many patterns half-matched at once, and check what happens when RE2
cannot build the set.
"""

from __future__ import annotations

import dataclasses
import pickle
import random
from typing import Any

import pytest

import failtax
from failtax import _batch_plan
from failtax._batch_plan import Plan, register_plan
from failtax._regex_set import RegexSet, wide_gap
from failtax.batch import classify_records
from failtax.evidence import normalise_text
from failtax.table import _re2_options, compile_regex, load_table
from real_messages import evidence, real_messages, spread

TAXONOMIES = failtax.list_taxonomies()
#: The taxonomies whose tables have regexes (preexec's rules are literals and fields).
WITH_REGEXES = [t for t in TAXONOMIES if t != "preexec"]


@pytest.mark.parametrize(
    ("pattern", "gapped"),
    [
        (r"killed[^\n]{0,40}signal", True),
        (r"a.*b", True),
        (r"\bfail\w*\b", True),
        (r"(?m)^(?:FAILED|ERROR) \S+\.py::", True),
        (r"(?:\w+\s+){0,2}quota\b", True),  # a broad item inside a short repeat
        (r"[^:]+: error", True),
        (r"x(?:[a-z]|\d)+y", True),  # a branch of broad items
        (r"\bstatus(?:[ _]?code)?\s*[:=]\s*503\b", False),
        (r"exit(?:ed)?\s+code\s*=?\s*\d+", False),
        (r"error\[e\d{4}\]", False),  # digits are a narrow class
        (r"\bx.{0,3}y\b", False),  # a short gap
        (r"(?m)^\s*call log:", False),
        (r"[[:alpha:]]+", True),  # Python reads POSIX classes otherwise: unknown
    ],
)
def test_wide_gaps_are_told_from_narrow_repeats(pattern: str, gapped: bool) -> None:
    assert wide_gap(pattern) is gapped


def _salad(texts: list[bytes], n: int, seed: int) -> list[bytes]:
    """Records of words drawn from real messages, shuffled: many patterns begun at once."""
    rng = random.Random(seed)
    words = [w for t in texts for w in t.split()[:60]] or [b"error"]
    return [b" ".join(rng.choice(words) for _ in range(rng.randrange(5, 600))) for _ in range(n)]


@pytest.mark.parametrize("taxonomy", WITH_REGEXES)
def test_the_set_answers_what_each_of_its_patterns_answers(taxonomy: str) -> None:
    plan = _batch_plan.plan_for(load_table(taxonomy), None)
    rs = plan.regex_set
    assert rs.compiled
    assert len(rs.members) >= 100, len(rs.members)
    regexes = [compile_regex(rs.patterns[i]) for i in rs.members]
    entries = spread(real_messages(taxonomy), 800)
    texts = [normalise_text(e["text"]).encode() for e in entries if isinstance(e.get("text"), str)]
    texts += _salad(texts, 150, seed=len(taxonomy))
    texts += [b"", "K\u212aelvin \u017ftatus: 503 \u00e9t\u00e9 ERROR[E0308]".encode()]
    hits = 0
    for data in texts:
        got = sorted(rs.match(data))
        want = [k for k, rx in enumerate(regexes) if rx.search(data) is not None]
        assert got == want, (taxonomy, data[:200], [rs.patterns[rs.members[k]] for k in set(got) ^ set(want)])
        hits += len(want)
    assert hits >= 200, hits  # the texts do exercise the patterns


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_the_set_holds_every_exact_free_pattern_without_a_wide_gap(taxonomy: str) -> None:
    plan = _batch_plan.plan_for(load_table(taxonomy), None)
    assert plan.regex_set.compiled is bool(len(plan.set_units))
    assert plan.regex_set.compiled is (taxonomy in WITH_REGEXES)
    for u in range(plan.n_units):
        pattern = plan.units[u][0].pattern
        expected = not plan.unit_exact[u] and not wide_gap(pattern)
        assert bool(plan.unit_in_set[u]) is expected, pattern
        if plan.unit_in_set[u]:
            assert plan.unit_group[u] < 0, pattern  # its literals are not scanned for it


def _tiny() -> Any:
    opts = _re2_options()
    opts.max_mem = 1 << 16
    return opts


def test_a_set_re2_cannot_fit_is_left_out_and_batch_stays_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    table = load_table("agent-run")
    patterns = [r"\bstatus\s*[:=]\s*503\b", r"error\[e\d{4}\]"]
    assert RegexSet(patterns, _re2_options).compiled
    assert not RegexSet([*patterns] * 400, _tiny).compiled
    copy = dataclasses.replace(table)
    monkeypatch.setattr(_batch_plan, "_re2_options", _tiny)
    plan = Plan(copy, None)
    assert not plan.regex_set.compiled
    assert not plan.unit_in_set.any()
    register_plan(copy, None, plan)
    records = [evidence(e) for e in real_messages("agent-run")]
    assert classify_records(records, table=copy) == [failtax.classify(r, table=copy) for r in records]


def test_a_set_travels_by_pickle_and_is_built_again() -> None:
    rs = _batch_plan.plan_for(load_table("devflow"), None).regex_set
    back = pickle.loads(pickle.dumps(rs))
    assert back.compiled
    assert back.members.tolist() == rs.members.tolist()
    text = b"error[E0308]: mismatched types\nnpm ERR! code ERESOLVE"
    assert sorted(back.match(text)) == sorted(rs.match(text))


def test_batch_searches_a_set_member_only_where_the_set_says_it_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The set's answer is used: an alternative it answers is searched on its own only
    to find where its match starts (for a rule that can name the shown line), and only
    in rows it matches; the gapped alternatives are still searched one by one."""
    from failtax import _batch_resolve

    plan = _batch_plan.plan_for(load_table("agent-run"), None)
    searched: dict[str, list[int]] = {}
    search = _batch_resolve._re2_start

    def counting(rx: Any, data: bytes, pos: int) -> int:
        at = search(rx, data, pos)
        searched.setdefault(rx.pattern, []).append(at)
        return at

    monkeypatch.setattr(_batch_resolve, "_re2_start", counting)
    records = [evidence(e) for e in real_messages("agent-run")]
    assert classify_records(records, taxonomy="agent-run") == [failtax.classify(r, taxonomy="agent-run") for r in records]
    members = {plan.units[u][0].pattern for u in plan.set_units}
    for_starts = {plan.units[u][0].pattern for r in plan.regex_line_routes for u in plan.rule_units[r]}
    gapped = {plan.units[u][0].pattern for u in range(plan.n_units) if not plan.unit_exact[u] and not plan.unit_in_set[u]}
    assert not [p for p in searched if p in members - for_starts - gapped]
    assert all(at >= 0 for p in members - gapped for at in searched.get(p, []))
    assert sum(len(searched.get(p, [])) for p in members - gapped) >= 100
    assert sum(len(searched.get(p, [])) for p in gapped) >= 100
