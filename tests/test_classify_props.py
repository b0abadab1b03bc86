"""Property tests: classify is total and deterministic; tables serialise symmetrically."""

from __future__ import annotations

import copy
import json
import tomllib

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import failtax
from failtax.batch import classify_records
from failtax.table import ExtractRule, RouteRule, RuleTable, dump_table, load_table, table_from_mapping

TAXONOMIES = tuple(failtax.list_taxonomies())
PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------ evidence

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
# Text with control characters, ANSI escapes, carriage returns, NULs and lone surrogates.
nasty_text = st.text(
    alphabet=st.characters(codec=None, categories=None, exclude_categories=()), max_size=400
) | st.lists(
    st.sampled_from(["\x1b[31m", "\x1b]8;;http://x\x07", "\r", "\r\n", "\x00", "HTTP 429", "Killed", "é", "\ud800", "\n"]),
    max_size=30,
).map("".join)
frame_like = st.fixed_dictionaries(
    {},
    optional={
        "type": json_values,
        "is_error": json_values,
        "subtype": st.text(max_size=20) | json_values,
        "error": st.fixed_dictionaries({"message": json_values}) | json_values,
        "result": json_values,
        "errors": st.lists(json_values, max_size=3) | json_values,
    },
)
evidence_keys = {
    "text": nasty_text | json_values,
    "stderr": nasty_text | json_values,
    "stderrTail": json_values,
    "exit_code": st.integers() | st.floats() | json_values | st.text(max_size=12),
    "exitCode": json_values,
    "signal": st.sampled_from(["SIGKILL", "sigterm", "KILL", "15", "SIGNOPE"]) | json_values,
    "result_frame": frame_like | st.text(max_size=60) | json_values,
    "resultFrame": json_values,
    "frames": st.lists(frame_like | json_values, max_size=4) | json_values,
    "fields": st.dictionaries(st.text(max_size=10), json_values, max_size=5) | json_values,
    "signals": st.lists(st.text(max_size=20) | json_values, max_size=5) | json_values,
    "id": json_values,
}
evidence = st.fixed_dictionaries({}, optional=evidence_keys).flatmap(
    lambda d: st.dictionaries(st.text(max_size=8), json_values, max_size=3).map(lambda extra: {**extra, **d})
)


def check(c: failtax.Classification, taxonomy: str) -> None:
    tax = failtax.load_taxonomy(taxonomy)
    assert isinstance(c, failtax.Classification)
    assert c.bucket in tax.bucket_names
    assert c.taxonomy == taxonomy
    table = load_table(taxonomy)
    assert c.rule == "fallback" or c.rule in {r.id for r in table.route}
    assert all(isinstance(s, str) and s for s in c.signals)
    assert len(c.stderr_tail) <= 1600
    assert isinstance(c.explain(), str)
    json.dumps(c.to_dict())


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
@PROPS
@given(ev=evidence)
def test_classify_is_total_on_arbitrary_evidence(taxonomy, ev):
    check(failtax.classify(ev, taxonomy=taxonomy), taxonomy)


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
@PROPS
@given(ev=json_values)
def test_classify_is_total_when_the_evidence_is_not_a_mapping(taxonomy, ev):
    c = failtax.classify(ev, taxonomy=taxonomy)
    check(c, taxonomy)
    if not isinstance(ev, dict):
        assert c.warnings, "a non-object evidence is noted, not raised"


def _answer(c: failtax.Classification) -> str:
    return json.dumps(c.to_dict(), default=str, sort_keys=True)


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evs=st.lists(evidence | json_values, min_size=1, max_size=6))
@example(evs=[{"text": "Killed", "exit_code": 1e308, "signal": -1e30}, {"exitCode": 2**70, "signal": 9.0}, {"exit_code": 137.0}])
def test_the_batch_engine_is_total_and_answers_as_classify_on_arbitrary_evidence(taxonomy, evs):
    # The batch engine reads the same evidence into columns (64-bit integers, lists,
    # decoded text): whatever classify() accepts, it must accept and answer alike.
    got = classify_records(evs, taxonomy=taxonomy)
    assert [_answer(c) for c in got] == [_answer(failtax.classify(ev, taxonomy=taxonomy)) for ev in evs]


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
@settings(max_examples=4, deadline=None)
@given(chunk=nasty_text, repeat=st.integers(min_value=2_000, max_value=20_000), tail=nasty_text)
def test_classify_is_total_on_huge_texts(taxonomy, chunk, repeat, tail):
    text = (chunk or "x") * repeat + "\n" + tail
    check(failtax.classify({"text": text, "exit_code": 1}, taxonomy=taxonomy), taxonomy)


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
@PROPS
@given(ev=evidence)
def test_classify_is_deterministic_and_leaves_evidence_alone(taxonomy, ev):
    before = copy.deepcopy(ev)
    first = failtax.classify(ev, taxonomy=taxonomy)
    second = failtax.classify(copy.deepcopy(ev), taxonomy=taxonomy)
    assert first == second
    assert first.to_dict() == second.to_dict()
    assert repr(ev) == repr(before), "classify does not mutate its input"


# ------------------------------------------------------------------ tables

signal_names = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
rule_ids = st.from_regex(r"[a-z][a-z0-9]{0,8}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
toml_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=30)
literals = st.lists(toml_text.filter(bool), min_size=1, max_size=4).map(tuple)
safe_patterns = st.sampled_from([r"\bkilled\b", r"(?m)^error: .+$", r"http [45]\d\d", r"(?-i:FAIL)\s+\S+", "a|b|c"])
capture_patterns = st.sampled_from([r"for (?P<provider>\w+):", r"(?P<line>[^\n]*refused[^\n]*)"])
ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)
field_values = st.one_of(ints, toml_text, st.booleans(), st.floats(allow_nan=False, allow_infinity=False))


@st.composite
def extract_rules(draw, rid: str) -> ExtractRule:
    kw = {"id": rid, "signal": draw(signal_names)}
    kind = draw(st.sampled_from(["contains", "regex", "http", "exit", "signal", "subtype", "frame", "field"]))
    if kind == "contains":
        kw["contains"] = draw(literals)
    elif kind == "regex":
        kw["regex"] = draw(safe_patterns)
    elif kind == "http":
        kw["http_status"] = tuple(draw(st.lists(st.integers(100, 599), min_size=1, max_size=3)))
    elif kind == "exit":
        kw["exit_code"] = tuple(draw(st.lists(ints, min_size=1, max_size=3)))
    elif kind == "signal":
        kw["has_signal"] = draw(st.booleans())
        if draw(st.booleans()):
            kw["posix_signal"] = tuple(draw(st.lists(st.integers(1, 64), min_size=1, max_size=2)))
    elif kind == "subtype":
        kw["frame_subtype"] = draw(literals)
    elif kind == "frame":
        kw["frame_error"] = draw(st.booleans())
    else:
        kw["field"] = draw(st.from_regex(r"[a-zA-Z]{1,8}(\.[a-zA-Z]{1,8})?", fullmatch=True))
        kw["op"] = op = draw(st.sampled_from(["==", "!=", ">", "<=", "in", "contains", "truthy", "present"]))
        if op in ("in",):
            kw["value"] = tuple(draw(st.lists(toml_text, min_size=1, max_size=3)))
        elif op in (">", "<="):
            kw["value"] = draw(ints)
        elif op not in ("truthy", "present"):
            kw["value"] = draw(field_values)
    if draw(st.booleans()):
        kw["and_contains"] = draw(literals)
    if draw(st.booleans()):
        kw["unless"] = draw(literals)
    if draw(st.booleans()):
        kw["capture"] = draw(capture_patterns)
    if draw(st.booleans()):
        kw["note"] = draw(toml_text)
    return ExtractRule(**kw)


@st.composite
def rule_tables(draw) -> RuleTable:
    taxonomy = draw(st.sampled_from(TAXONOMIES))
    buckets = failtax.load_taxonomy(taxonomy).bucket_names
    ext_ids = draw(st.lists(rule_ids, min_size=1, max_size=6, unique=True))
    extract = tuple(draw(extract_rules(rid)) for rid in ext_ids)
    signals = sorted({r.signal for r in extract})
    routes = []
    for rid in draw(st.lists(rule_ids, min_size=1, max_size=5, unique=True)):
        kw = {"id": rid, "bucket": draw(st.sampled_from(buckets))}
        kw[draw(st.sampled_from(["any", "all"]))] = tuple(draw(st.lists(st.sampled_from(signals), min_size=1, max_size=2, unique=True)))
        if draw(st.booleans()):
            kw["none"] = tuple(draw(st.lists(signal_names, min_size=1, max_size=2, unique=True)))
        if draw(st.booleans()):
            kw["title"] = draw(toml_text)
        if draw(st.booleans()):
            kw["detail"] = draw(toml_text)
        if draw(st.booleans()):
            kw["retryable"] = draw(st.booleans())
        routes.append(RouteRule(**kw))
    table = RuleTable(
        name=draw(toml_text.filter(bool)),
        taxonomy=taxonomy,
        version=draw(st.from_regex(r"\d{1,2}\.\d{1,2}\.\d{1,2}", fullmatch=True)),
        fallback=draw(st.sampled_from(buckets)),
        extract=extract,
        route=tuple(routes),
        description=draw(toml_text),
        provenance=draw(st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), toml_text, max_size=3)),
    )
    table.compiled()
    return table


@PROPS
@given(table=rule_tables())
def test_load_of_dump_is_identity(table):
    text = dump_table(table)
    again = table_from_mapping(tomllib.loads(text))
    assert again == table
    assert dump_table(again) == text, "dumping is deterministic"


@PROPS
@given(table=rule_tables(), ev=evidence)
def test_generated_tables_classify_totally(table, ev):
    c = failtax.classify(ev, taxonomy=table.taxonomy, table=table)
    assert c.bucket in failtax.load_taxonomy(table.taxonomy).bucket_names
    assert c.rule == "fallback" or c.rule in {r.id for r in table.route}
    assert c.table_version == table.version
