"""``classify`` looks each literal up once per text and tries only the rules that can fire.

The answer must be what trying every rule with plain substring tests and every regex
gives: this file holds the two together, with the rule-by-rule evaluation written out
here as the oracle, over a fixed number of real messages spread over each file (a few
hundred of a taxonomy's own, fewer of the others'; tests/test_golden.py classifies every
one), mutated copies of them (upper case, the Kelvin sign and long s that RE2 folds onto
k and s, words cut in half) and tables made for the purpose.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import failtax
from failtax._scan import required_literals
from failtax.evidence import Evidence, ascii_lower, is_error_result_frame
from failtax.table import LiteralIndex, load_table, table_from_mapping
from failtax.classify import extract_signals
from real_messages import evidence, real_messages, spread  # tests/real_messages.py

TAXONOMIES = tuple(failtax.list_taxonomies())


def _every_rule(ev_record, table):
    """The signals of every rule tried in table order with substring tests (the oracle)."""
    from failtax.classify import _field_holds

    ct = table.compiled()
    ev = Evidence.from_record(ev_record)
    combined = ev.combined_text()
    hay = ascii_lower(combined)
    frame_error = is_error_result_frame(ev.result_frame)
    signals = []
    for rule in table.extract:
        lits, also, unless = ct.literals[rule.id]
        if rule.exit_code and ev.exit_code not in rule.exit_code:
            continue
        if rule.has_signal is not None and (ev.signal is not None) != rule.has_signal:
            continue
        if rule.posix_signal and ev.signal not in rule.posix_signal:
            continue
        if rule.frame_error is not None and frame_error != rule.frame_error:
            continue
        if rule.frame_subtype:
            st_ = ev.result_frame.get("subtype") if ev.result_frame else None
            if not isinstance(st_, str) or not any(s in st_ for s in rule.frame_subtype):
                continue
        if rule.field is not None and not _field_holds(rule, ct, ev.fields):
            continue
        if lits and not any(s in hay for s in lits):
            continue
        if also and not any(s in hay for s in also):
            continue
        if unless and any(s in hay for s in unless):
            continue
        if rule.regex is not None and ct.regex[rule.id].search(combined) is None:
            continue
        if rule.signal not in signals:
            signals.append(rule.signal)
    signals += [s for s in ev.signals if s not in signals]
    return tuple(signals)


def _mutations(text: str, rng: random.Random) -> list[str]:
    out = [text.upper(), text.replace("k", "\u212a").replace("s", "\u017f")]
    if len(text) > 4:
        i = rng.randrange(1, len(text) - 1)
        out.append(text[:i] + "\n" + text[i:])
        out.append(text[i:] + text[:i])
    return out


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_literal_index_finds_exactly_the_literals_a_text_holds(taxonomy):
    table = load_table(taxonomy)
    ct = table.compiled()
    index = ct.index
    every = {s for trio in ct.literals.values() for part in trio for s in part}
    every |= {s for r in table.extract if r.regex is not None for s in required_literals(r.regex) or ()}
    rng = random.Random(7)
    texts = [e.get("text") or "" for e in spread(real_messages(taxonomy), 250)]
    texts += [e.get("text") or "" for t in TAXONOMIES if t != taxonomy for e in spread(real_messages(t), 25)]
    texts += [m for t in texts[::9] for m in _mutations(t, rng)]
    texts += ["", "a", "ab", "abc", " " * 3]
    checked = 0
    for t in texts:
        hay = ascii_lower(t)
        want = {s for s in every if s in hay}
        assert index.present(hay) == want, t[:200]
        checked += bool(want)
    assert not every or checked > len(texts) // 3  # most real messages hold one of a text table's literals


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_classify_extracts_what_trying_every_rule_extracts(taxonomy):
    table = load_table(taxonomy)
    rng = random.Random(11)
    records = [evidence(e) for e in spread(real_messages(taxonomy), 120)]
    records += [{"text": e.get("text"), "exit_code": 1} for t in TAXONOMIES if t != taxonomy for e in spread(real_messages(t), 25)]
    mutated = [{**r, "text": m} for r in records[::5] if isinstance(r.get("text"), str) for m in _mutations(r["text"], rng)]
    folded = 0
    for rec in records + mutated:
        want = _every_rule(rec, table)
        assert extract_signals(rec, table)[0] == want, rec
        assert failtax.classify(rec, taxonomy=taxonomy).signals == want
        folded += "\u212a" in str(rec.get("text"))
    assert folded > 10 or taxonomy == "preexec"  # (its rules read fields, not text)


def test_a_regex_fires_on_a_folded_letter_its_literal_does_not_hold():
    """RE2 matches ``kill`` in ``\u212aill``: the literal gate must not skip the regex there."""
    table = table_from_mapping({
        "table": {"name": "t", "taxonomy": "agent-run", "version": "t", "fallback": "unknown_non_zero"},
        "extract": [{"id": "k", "signal": "killed-text", "regex": r"killed by signal \d+"}],
        "route": [{"id": "r", "any": ["killed-text"], "bucket": "killed"}],
    })
    assert table.compiled().index.sets["k"][3] == {"killed by signal "}  # the regex's gate
    assert failtax.classify({"text": "\u212ailled by signal 9"}, taxonomy="agent-run", table=table).bucket == "killed"
    assert failtax.classify({"text": "KILLED BY SIGNAL 9"}, taxonomy="agent-run", table=table).bucket == "killed"
    assert failtax.classify({"text": "killed by a signal 9"}, taxonomy="agent-run", table=table).bucket != "killed"


def test_a_one_byte_literal_that_sorts_first_is_found():
    """A regex in a cased script other than Latin (Cyrillic, Greek) keeps only its spaces
    as required literals, so its gate is " ", the first of a table's literals in sorted
    order: it must be looked up like any short literal, or the regex is never tried and
    classify and classify_batch disagree."""
    import polars as pl

    table = table_from_mapping({
        "table": {"name": "t", "taxonomy": "regen", "version": "t", "fallback": "agent-course"},
        "extract": [
            {"id": "ru", "signal": "tool-code-error", "regex": "не к тому элементу"},
            {"id": "el", "signal": "tool-code-error", "regex": "λάθος στοιχείο"},
            {"id": "bang", "signal": "bang", "contains": ["!"]},
            {"id": "zh", "signal": "tool-code-error", "regex": "操作空间中?没有"},
        ],
        "route": [{"id": "r", "any": ["tool-code-error"], "bucket": "infra"}],
    })
    index = table.compiled().index
    assert index.sets["ru"][3] == {" "} and index.sets["el"][3] == {" "}
    assert index.present(ascii_lower("a b!")) == {" ", "!"}
    texts = ["шаг обращается не к тому элементу формы", "ШАГ ОБРАЩАЕТСЯ НЕ К ТОМУ ЭЛЕМЕНТУ",
             "το βήμα δείχνει λάθος στοιχείο", "操作空间中没有这个动作", "nothing! here", "не тот элемент"]
    got = [failtax.classify({"text": t}, taxonomy="regen", table=table) for t in texts]
    assert [c.bucket for c in got] == ["infra", "infra", "infra", "infra", "agent-course", "agent-course"]
    assert got[4].signals == ("bang",)
    batch = failtax.classify_batch(pl.DataFrame({"text": texts}), taxonomy="regen", table=table)
    assert batch["bucket"].to_list() == [c.bucket for c in got]
    assert [tuple(s) for s in batch["signals"].to_list()] == [c.signals for c in got]
    for t in texts:
        assert extract_signals({"text": t}, table)[0] == _every_rule({"text": t}, table)


def test_rules_without_literals_are_always_tried_and_others_only_with_theirs():
    table = table_from_mapping({
        "table": {"name": "t", "taxonomy": "agent-run", "version": "t", "fallback": "unknown_non_zero"},
        "extract": [
            {"id": "code", "signal": "sig-kill", "exit_code": [137]},
            {"id": "lit", "signal": "rate", "contains": ["Too many requests", "rate limit"]},
            {"id": "rx", "signal": "auth", "regex": r"(?:invalid|expired) api key"},
            {"id": "bare", "signal": "digits", "regex": r"\d{5}"},
        ],
        "route": [{"id": "r", "any": ["rate"], "bucket": "rate_limited"}],
    })
    index = LiteralIndex(table.compiled())
    assert index.always == [0, 3]
    hay = ascii_lower("HTTP 429: rate limit; Invalid API key")
    present = index.present(hay)
    assert present == {"rate limit", "invalid api key"}
    assert index.candidates(present) == [0, 1, 2, 3]
    assert index.candidates(index.present("nothing here")) == [0, 3]


words = st.sampled_from(["rate", "limit", "429", "too many", "requests", "killed", "signal", "oom", "error", "\u212a", "x"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(words | st.text(max_size=6), max_size=20), taxonomy=st.sampled_from(TAXONOMIES))
def test_classify_agrees_with_every_rule_on_generated_text(parts, taxonomy):
    rec = {"text": " ".join(parts), "exit_code": 1}
    table = load_table(taxonomy)
    assert extract_signals(rec, table)[0] == _every_rule(rec, table)


def _ranked_one_by_one(literals):
    """Each literal's three rarest distinct three-byte sequences, rarest first, ties to
    the smaller code, rarity counted over the literals: written out literal by literal."""
    grams = {}
    for s in literals:
        b = s.encode("utf-8", "surrogatepass")
        grams[s] = {int.from_bytes(b[i:i + 3], "big") for i in range(len(b) - 2)}
    freq = {}
    for gs in grams.values():
        for g in gs:
            freq[g] = freq.get(g, 0) + 1
    return [sorted(grams[s], key=lambda g: (freq[g], g))[:3] for s in literals]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("ab c\u00e9\u65e5\ud800"), max_size=9), unique=True, max_size=30))
def test_the_index_ranks_every_literals_sequences_as_one_by_one(literals):
    from failtax.table import _ranked_grams

    literals = sorted(literals)
    encoded = [s.encode("utf-8", "surrogatepass") for s in literals]
    assert _ranked_grams(encoded) == _ranked_one_by_one(literals)


@pytest.mark.parametrize("taxonomy", ["agent-run", "devflow", "replay", "regen", "orchestration"])
def test_a_shipped_tables_literals_rank_as_one_by_one(taxonomy):
    from failtax.table import _ranked_grams

    index = LiteralIndex(load_table(taxonomy).compiled())
    literals = sorted(set().union(*(set().union(*parts) for parts in index.sets.values())) - {""})
    assert len(literals) > 1000
    assert _ranked_grams([s.encode("utf-8", "surrogatepass") for s in literals]) == _ranked_one_by_one(literals)
