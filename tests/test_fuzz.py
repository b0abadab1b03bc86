"""Fuzzing: hostile evidence, hostile tables and random bytes never get past failtax's doors.

Property tests (hypothesis, derandomized so every run tries the same examples, with a
bounded number of examples so the file stays fast):

- ``classify`` is total on arbitrary evidence for every taxonomy: arbitrary bytes
  decoded with surrogateescape or replacement, wrong types everywhere, deeply nested
  result frames, huge integers, NaN — it answers with a bucket of the taxonomy and a
  result that serialises;
- the table parser (``table_from_mapping``, ``read_table``) raises nothing but
  ``TableError`` on arbitrary TOML-ish documents, mutated shipped tables and
  arbitrary bytes;
- redaction is idempotent, consistent with ``find_secrets``, and no corpus secret
  embedded in random text survives it;
- ``failtax classify -t agent-run`` answers every line of random binary input with
  exactly one line, in order.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from failtax.classify import Classification, classify
from failtax.errors import TableError
from failtax.redact import find_secrets, redact
from failtax.table import load_table, read_table, table_from_mapping, table_to_mapping
from failtax.taxonomy import list_taxonomies, load_taxonomy

FAILTAX = [sys.executable, "-c", "from failtax.cli import main; main()"]
TAXONOMIES = list_taxonomies()


def _load_corpus():
    name = "failtax_secret_corpus"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).parent / "fixtures" / "secrets" / "corpus.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


CASES = _load_corpus().generate()


def fuzz(n: int):
    """Deterministic, bounded hypothesis settings."""
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- strategies

FRAGMENTS = [
    "Error", "error:", "API Error: 429", "rate limited", "overloaded_error", "HTTP 401", "exit 137",
    "CONFLICT", "<<<<<<< HEAD", "element not found", "max_turns", "prompt is too long", "\x1b[31m",
    "\x1b]8;;x\x1b\\", "\r", "\r\n", "\x00", "\udcff", "\ufffd", "é", "日本", "\u2028", "{", "}", "[", "]", '"',
    "\\", "password=", "token: ", "Bearer ", "https://u:p@h", "-----BEGIN RSA PRIVATE KEY-----", "sk-", "AKIA",
    "eyJ", "@", "[REDACTED:email]", "=", ":", "'", "&", "?", "_", "-", ".", "x", " ", "\n", "\t",
]

raw_text = st.one_of(
    st.text(max_size=80),
    st.binary(max_size=80).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.binary(max_size=80).map(lambda b: b.decode("utf-8", "replace")),
    st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join),
)

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    raw_text,
)

json_values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(raw_text, children, max_size=4)),
    max_leaves=16,
)

frames = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"type": st.just("result")},
        optional={"subtype": st.one_of(raw_text, st.sampled_from(["error_max_turns", "error_during_execution", "success"])),
                  "is_error": json_values, "result": json_values, "errors": json_values,
                  "error": st.one_of(json_values, st.fixed_dictionaries({"message": json_values}))},
    ),
    json_values.map(lambda v: json.dumps(v, default=str)),  # a frame given as a JSON string
)

evidence = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "text": st.one_of(raw_text, json_values, st.lists(raw_text, max_size=5)),
            "stderr": raw_text,
            "exit_code": st.one_of(scalars, st.sampled_from([0, 1, 2, 126, 127, 137, 143, "137", "-1", 2**31, -(2**31) - 1])),
            "exitCode": scalars,
            "signal": st.one_of(scalars, st.sampled_from(["SIGKILL", "sigterm", "TERM", "SIGFOO", 9, 15])),
            "result_frame": frames,
            "frames": st.one_of(json_values, st.lists(frames, max_size=4)),
            "fields": st.one_of(json_values, st.dictionaries(
                st.sampled_from(["lastPassedAgeDays", "otherAgentsStalledSameWindow", "attempt", "a.b"]),
                json_values, max_size=4)),
            "signals": st.one_of(json_values, st.lists(raw_text, max_size=6)),
            "id": json_values,
        },
    ),
    json_values,  # not even a mapping
)


def _deep_dict(depth: int) -> dict:
    """A frame nested ``depth`` levels deep: error objects and error lists in turn."""
    d: dict = {"message": "overloaded_error"}
    for i in range(depth):
        d = {"error": d} if i % 2 else {"errors": [d], "subtype": "error_during_execution"}
    return d


DEEP_JSON = "[" * 50_000 + "]" * 50_000


# --------------------------------------------------------------------------- classify is total


@fuzz(200)
@given(ev=evidence, taxonomy=st.sampled_from(TAXONOMIES))
@example(ev={"result_frame": DEEP_JSON, "text": "Rate limited"}, taxonomy="agent-run")
@example(ev={"result_frame": _deep_dict(50), "frames": [_deep_dict(50)]}, taxonomy="agent-run")
@example(ev={"exit_code": float("nan"), "signal": float("inf"), "fields": {"lastPassedAgeDays": math.nan}}, taxonomy="preexec")
@example(ev={"exit_code": 10**400, "signal": -(10**400), "fields": {"lastPassedAgeDays": 10**400}}, taxonomy="preexec")
@example(ev={"text": b"\xff\xfe\x00rate limited".decode("utf-8", "surrogateescape"), "exit_code": 1}, taxonomy="agent-run")
@example(ev={"fields": {"otherAgentsStalledSameWindow": [[[]]]}, "signals": [None, {}, "  "]}, taxonomy="orchestration")
def test_classify_never_raises_and_answers_within_the_taxonomy(ev, taxonomy: str) -> None:
    c = classify(ev, taxonomy=taxonomy)
    assert isinstance(c, Classification)
    tax = load_taxonomy(taxonomy)
    assert c.bucket in tax.bucket_names
    assert c.rule == "fallback" or c.rule in {r.id for r in load_table(taxonomy).route}
    json.dumps(c.to_dict(), default=str)  # ASCII-escaped: lone surrogates included
    assert isinstance(c.explain(), str)


def test_deeply_nested_frames_and_fields_classify() -> None:
    deep = _deep_dict(5_000)
    c = classify({"result_frame": deep, "frames": [deep], "fields": {"a": deep}, "exit_code": 1})
    assert c.bucket == "unknown_non_zero"


def test_a_frame_nested_deeper_than_json_allows_is_a_warning() -> None:
    c = classify({"result_frame": DEEP_JSON, "text": "Rate limited", "exit_code": 1})
    assert c.bucket == "rate_limited"
    assert any("nested too deeply" in w for w in c.warnings)


# --------------------------------------------------------------------------- tables: only TableError


def _set_path(doc: dict, path: list, value) -> dict:
    doc = json.loads(json.dumps(doc, default=str))  # a deep copy the mutation can own
    cur = doc
    for key in path[:-1]:
        cur = cur[key]
    if value is _DELETE:
        cur.pop(path[-1], None) if isinstance(cur, dict) else cur.pop(path[-1])
    else:
        cur[path[-1]] = value
    return doc


_DELETE = object()
SHIPPED = {name: table_to_mapping(load_table(name)) for name in TAXONOMIES}


@st.composite
def mutated_tables(draw) -> dict:
    doc = SHIPPED[draw(st.sampled_from(TAXONOMIES))]
    for _ in range(draw(st.integers(1, 4))):
        section = draw(st.sampled_from(["table", "extract", "route", "locate", "bogus"]))
        if section == "bogus" or section not in doc:
            doc = _set_path(doc, [section], draw(json_values))
            continue
        if section == "table":
            key = draw(st.sampled_from(["name", "taxonomy", "version", "fallback", "provenance", "x"]))
            doc = _set_path(doc, ["table", key], draw(st.one_of(json_values, st.just(_DELETE))))
            continue
        rows = doc[section]
        if not isinstance(rows, list) or not rows:
            doc = _set_path(doc, [section], draw(json_values))
            continue
        i = draw(st.integers(0, len(rows) - 1))
        if not isinstance(rows[i], dict):
            continue
        key = draw(st.one_of(st.sampled_from(sorted(rows[i]) + ["regex", "capture", "op", "value", "field", "any"]), raw_text))
        value = draw(st.one_of(
            json_values, st.just(_DELETE),
            st.sampled_from(["(a+)+$", "(", r"(a)\1", "(?P<file>x)", "(?P<line>", "a{1001}", "", "x" * 3000, "\udcff"]),
            st.lists(st.sampled_from(["", "a", "\udcff", "x" * 3000]), max_size=3),
        ))
        doc = _set_path(doc, [section, i, key], value)
    return doc


toml_ish = st.dictionaries(
    st.one_of(st.sampled_from(["table", "extract", "route", "locate"]), raw_text),
    st.one_of(json_values, st.lists(st.dictionaries(raw_text, json_values, max_size=5), max_size=3)),
    max_size=5,
)


@fuzz(100)  # each example compiles a whole table
@given(doc=st.one_of(mutated_tables(), toml_ish, json_values))
def test_table_from_mapping_raises_only_table_error(doc) -> None:
    try:
        table = table_from_mapping(doc, path="fuzz.toml")
    except TableError as exc:
        assert str(exc)  # a message a person can act on
        return
    # A table that was accepted classifies anything without raising.
    c = classify({"text": "API Error: 429 rate limited", "exit_code": 1}, table=table, taxonomy=table.taxonomy)
    assert c.bucket in load_taxonomy(table.taxonomy).bucket_names


def _toml_bytes(doc) -> bytes:
    try:
        return tomli_w.dumps(doc).encode("utf-8", "surrogateescape")
    except Exception:  # not representable as TOML: use its JSON text instead
        return json.dumps(doc, default=str).encode("utf-8", "surrogatepass")


@fuzz(100)  # each example compiles a whole table
@given(data=st.one_of(
    st.binary(max_size=400),
    st.one_of(mutated_tables(), toml_ish).map(_toml_bytes),
    st.lists(st.sampled_from([b"[table]\n", b'taxonomy = "agent-run"\n', b'version = "1"\n', b'fallback = "auth"\n',
                              b"[[extract]]\n", b'id = "x"\n', b'signal = "s"\n', b'contains = ["a"]\n', b"[[route]]\n",
                              b'bucket = "auth"\n', b'any = ["s"]\n', b"\xff", b"\x00", b"=", b"[", b'"', b"\n"]),
             max_size=30).map(b"".join),
))
def test_read_table_raises_only_table_error(data: bytes, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("t") / "fuzz.toml"
    path.write_bytes(data)
    try:
        read_table(path)
    except TableError as exc:
        assert str(path) in str(exc)  # names the file


@pytest.mark.parametrize("nesting", ["array", "inline-table"])
def test_read_table_refuses_toml_nested_deeper_than_the_parser_follows(nesting: str, tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    deep = "[" * 50_000 + "]" * 50_000 if nesting == "array" else "{b=" * 5_000 + "1" + "}" * 5_000
    path.write_text(f"a = {deep}\n")
    with pytest.raises(TableError, match="deep.toml"):
        read_table(path)


# --------------------------------------------------------------------------- redaction properties

SECRET_BITS = [c.secret for c in CASES] + [c.text for c in CASES[::4]]
red_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS + SECRET_BITS), raw_text), max_size=14).map("".join)


@fuzz(300)
@given(x=red_text)
def test_redaction_is_idempotent_and_agrees_with_find_secrets(x: str) -> None:
    out = redact(x)
    assert redact(out) == out
    found = find_secrets(x)
    assert all(0 <= f.start < f.end <= len(x) for f in found)
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))
    assert redact(x, findings=found) == out


SEPARATORS = st.sampled_from([" ", "\n", "\t", ", ", "; ", " (", ") ", " | ", "\r\n", " -- "])


@fuzz(300)
@given(case=st.sampled_from(CASES), before=raw_text, after=raw_text, s1=SEPARATORS, s2=SEPARATORS)
def test_no_corpus_secret_embedded_in_random_text_survives(case, before: str, after: str, s1: str, s2: str) -> None:
    text = before + s1 + case.text + s2 + after
    assert case.secret not in redact(text)


@fuzz(200)
@given(x=red_text)
def test_the_fast_path_never_skips_a_possible_match(x: str) -> None:
    # Text without any trigger literal is returned at once; the full expression must
    # then have nothing to find either (a rule whose trigger is missing would never fire).
    from failtax.redact import _engine

    eng, data = _engine(), x.encode("utf-8", "surrogatepass")
    if eng.trigger.search(data) is None:
        # Only an existing placeholder may match, and a placeholder is never a finding.
        spans = [m.group() for m in eng.span.finditer(data)]
        assert all(s.startswith(b"[REDACTED:") for s in spans), spans


# --------------------------------------------------------------------------- the CLI answers every line

evidence_lines = st.one_of(
    st.binary(max_size=120).map(lambda b: b.replace(b"\n", b"")),
    evidence.map(lambda e: json.dumps(e, default=str).encode("utf-8", "surrogatepass")),
    json_values.map(lambda v: json.dumps(v, default=str).encode("utf-8", "surrogatepass")),
    st.sampled_from([b"", b"\r", b"{", b"{}", b"[]", b"null", b'{"text": "\xff"}', b'{"id": NaN}', b"\xef\xbb\xbf{}",
                     b'{"exit_code": 1' + b"9" * 5000 + b"}", b'{"text": "' + b"x" * 200_000 + b'"}']),
)


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _run_cli(data: bytes) -> list[dict]:
    p = subprocess.run([*FAILTAX, "classify", "-t", "agent-run"], input=data, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    assert b"Traceback" not in p.stderr
    out = p.stdout
    assert out.count(b"\n") == _count_lines(data) and (not out or out.endswith(b"\n"))
    rows = [json.loads(line) for line in out.split(b"\n")[:-1]]
    assert all(isinstance(r, dict) and ("error" in r or "bucket" in r) for r in rows)
    return rows


@fuzz(2)  # each example is one run of the CLI: few examples, many lines each
@given(lines=st.lists(evidence_lines, min_size=1, max_size=150), terminated=st.booleans())
def test_cli_answers_every_line_of_random_binary_input(lines: list[bytes], terminated: bool) -> None:
    tagged = [json.dumps({"id": f"probe-{i}", "text": "rate limited"}).encode() for i in range(3)]
    lines = [tagged[0], *lines[: len(lines) // 2], tagged[1], *lines[len(lines) // 2 :], tagged[2]]
    data = b"\n".join(lines) + (b"\n" if terminated else b"")
    rows = _run_cli(data)
    ids = [r.get("id") for r in rows]
    # Answers come in input order: the probes sit where their lines were.
    assert [i for i, v in enumerate(ids) if isinstance(v, str) and v.startswith("probe-")] == [
        i for i, line in enumerate(lines) if line in tagged
    ]


def test_cli_answers_a_line_nested_deeper_than_json_allows() -> None:
    lines = [b'{"id": 1, "text": "rate limited"}', DEEP_JSON.encode(),
             b'{"id": 3, "result_frame": ' + json.dumps(DEEP_JSON).encode() + b"}"]
    p = subprocess.run([*FAILTAX, "classify", "-t", "agent-run"], input=b"\n".join(lines) + b"\n",
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-500:]
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(rows) == 3
    assert rows[0]["bucket"] == "rate_limited" and "error" in rows[1] and rows[2]["id"] == 3
