"""Batch classification gives exactly what ``failtax.classify`` gives, record by record.

For every shipped taxonomy and both literal engines (hyperscan, and the polars
fallback), over: every real message in ``tests/fixtures/real_messages/*.yaml``; a seeded
generator that mixes the table's own phrases with ANSI codes, carriage returns, NULs,
case changes, characters RE2 folds onto ASCII letters, huge texts, odd types, result
frames, in-band frames, fields and named signals; and hypothesis-built records.
``classify_records`` must return equal :class:`~failtax.Classification` objects
(every field), and ``classify_batch`` over a frame the same bucket, signals, rule,
texts and attributes as ``classify`` on each row of that frame.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import failtax
from failtax._scan import exact_literals, required_literals, split_alternatives
from failtax.batch import classify_batch, classify_records
from failtax.evidence import MAX_TEXT_CHARS
from failtax.table import load_table
from real_messages import REAL, read_yaml, real_messages  # tests/real_messages.py: the fixtures, parsed once

TAXONOMIES = failtax.list_taxonomies()
ENGINES = ("hyperscan", "polars")
EVIDENCE_KEYS = ("text", "exit_code", "signal", "result_frame", "frames", "fields", "signals", "id")


def _fixture_records(taxonomy: str) -> list[dict[str, Any]]:
    entries = real_messages(taxonomy)
    return [{k: e[k] for k in EVIDENCE_KEYS if k in e} | {"id": e.get("id")} for e in entries]


def _all_fixture_texts() -> list[str]:
    texts = []
    for path in sorted(REAL.glob("*.yaml")):
        for e in read_yaml(path) or []:
            if isinstance(e.get("text"), str):
                texts.append(e["text"])
    return texts


@functools.lru_cache(maxsize=None)  # (worked out when a test first draws, not at collection: ~3 s)
def _phrases(taxonomy: str) -> list[str]:
    """Strings the table reacts to: its literals, and strings its regexes match."""
    table = load_table(taxonomy)
    out: set[str] = set()
    for rule in table.extract:
        out.update(rule.contains)
        out.update(rule.and_contains)
        out.update(rule.unless)
        for code in rule.http_status:
            out.update((f"HTTP {code}", f"status: {code}", f"[{code}]", f"error {code}"))
        if rule.regex:
            for alt in split_alternatives(rule.regex):
                out.update((exact_literals(alt) or ())[:6])
                out.update(required_literals(alt) or ())
    for loc in table.locate:
        out.update(required_literals(loc.regex) or ())
    return sorted(out)


def _field_values(taxonomy: str) -> dict[str, list[Any]]:
    table = load_table(taxonomy)
    values: dict[str, list[Any]] = {}
    for rule in table.extract:
        if rule.field:
            v = rule.value
            pool: list[Any] = [None, 0, 1, 3, -1, 2.5, True, False, "", "x", [], {}, "UU a.txt\nM b"]
            if isinstance(v, tuple):
                pool += list(v)
            elif v is not None:
                pool += [v]
            values.setdefault(rule.field.split(".")[0], []).extend(pool)
    return values


def _secret_lines() -> list[str]:
    """Texts holding fake secrets, and lines about secrets that hold none (shown texts
    are masked, so the batch path must mask the same spans)."""
    import importlib.util

    path = Path(__file__).resolve().parent / "fixtures" / "secrets" / "corpus.py"
    if not path.exists():
        return []
    name = "failtax_secret_corpus"  # the name tests/test_redact.py imports it under
    mod = sys.modules.get(name)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    cases, negatives = mod.generate(), mod.negatives()
    return [c.text for c in cases] + list(negatives)


SECRETS = _secret_lines()
NOISE = [
    "2026-04-29T10:00:00.123Z INFO tool call Read src/a.ts",
    "    at Object.<anonymous> (/home/u/p/node_modules/x/cli.js:12:34)",
    "warning: something odd happened in step 3",
    "Error: boom",
    "ok", "", "   ", "Killed", "FAIL src/a.test.ts", "  ● suite › case",
    "npm ERR! code ELIFECYCLE", "café ünïcode — ✓ • ∙ · → 😀",
]
ANSI = ["\x1b[31m", "\x1b[0m", "\x1b]0;title\x07", "\x1b[2K", "\x1bM", "\x1b[?25l", "\x1b(B", "\x1b", "\x9b1m", "\x9dlink\x9c", "\x1bOA"]


def _mutate(rng: random.Random, s: str) -> str:
    r = rng.random()
    if r < 0.2:
        s = s.upper()
    elif r < 0.3:
        s = s.title()
    elif r < 0.35:
        s = s.replace("k", "\u212a").replace("s", "\u017f")  # RE2 folds these onto k, s
    if rng.random() < 0.1 and len(s) > 2:
        i = rng.randrange(1, len(s))
        s = s[:i] + rng.choice(["\x00", "\x1b[1m", "\r", "\r\n"]) + s[i:]
    return s


def _text(rng: random.Random, phrases: list[str], fixtures: list[str]) -> Any:
    r = rng.random()
    if r < 0.03:
        return None
    if r < 0.05:
        return rng.choice([123, ["line one", "HTTP 429"], b"bytes \xff rate limited", {"a": 1}, ["x", 1], 4.5])
    lines = []
    for _ in range(rng.randint(0, 6)):
        pick = rng.random()
        if pick < 0.06 and SECRETS:
            lines.append(rng.choice(SECRETS))
        elif pick < 0.45:
            lines.append(_mutate(rng, rng.choice(phrases)))
        elif pick < 0.6 and fixtures:
            lines.append(rng.choice(fixtures))
        else:
            lines.append(rng.choice(NOISE))
        if rng.random() < 0.08:
            lines[-1] = rng.choice(ANSI) + lines[-1] + rng.choice(ANSI)
    sep = rng.choice(["\n", "\n", "\n", "\r\n", "\r", " "])
    text = sep.join(lines)
    if rng.random() < 0.02:  # past the size cap: the tail is kept, with the last error line
        filler = "\n".join(rng.choice(NOISE[:3]) for _ in range(MAX_TEXT_CHARS // 40))
        text = rng.choice(phrases) + "\nfatal: early error\n" + filler + "\n" + text
    return text


def _frame(rng: random.Random, phrases: list[str]) -> Any:
    r = rng.random()
    if r < 0.7:
        return None
    if r < 0.75:
        return rng.choice(['{"is_error": true, "result": "HTTP 429"}', "not json", "[1, 2]", 7])
    frame: dict[str, Any] = {"type": "result"}
    if rng.random() < 0.5:
        frame["subtype"] = rng.choice(["error_max_turns", "error_during_execution", "success", "max_turns_reached", 3])
    if rng.random() < 0.5:
        frame["is_error"] = rng.choice([True, False, "true", None])
    kind = rng.random()
    if kind < 0.25:
        frame["error"] = {"message": _mutate(rng, rng.choice(phrases))}
    elif kind < 0.45:
        frame["error"] = _mutate(rng, rng.choice(phrases))
    elif kind < 0.65:
        frame["result"] = rng.choice(["", _mutate(rng, rng.choice(phrases))])
    elif kind < 0.8:
        frame["errors"] = ["", rng.choice(phrases), 3]
    return frame


def generate(taxonomy: str, n: int, seed: int) -> list[dict[str, Any]]:
    """Seeded evidence records that exercise every path of the engine."""
    rng = random.Random(seed)
    phrases = _phrases(taxonomy) or ["error"]
    fixtures = [t for t in _all_fixture_texts() if len(t) < 3000]
    fields = _field_values(taxonomy)
    signals = list(load_table(taxonomy).signals)
    out = []
    for i in range(n):
        rec: dict[str, Any] = {"id": rng.choice([i, f"r{i}", None])}
        if rng.random() < 0.95:
            rec[rng.choice(["text", "text", "text", "stderr", "stderrTail"])] = _text(rng, phrases, fixtures)
        if rng.random() < 0.8:
            rec[rng.choice(["exit_code", "exit_code", "exitCode"])] = rng.choice(
                [0, 1, 1, 2, 137, 143, 126, 127, 26, None, "1", " 2 ", 1.0, 2.5, True, 2**40, "x", 1e308, -1e30, 2.0**31, 2**70]
            )
        if rng.random() < 0.15:
            rec["signal"] = rng.choice([9, 15, 2, "SIGKILL", "term", "sigint", None, -3, "9", 9.0, 1e300])
        fr = _frame(rng, phrases)
        if fr is not None:
            rec[rng.choice(["result_frame", "resultFrame"])] = fr
        if rng.random() < 0.05:
            rec["frames"] = rng.choice([
                [{"type": "assistant", "error": _mutate(rng, rng.choice(phrases)),
                  "message": {"content": [{"type": "text", "text": rng.choice(phrases)}]}}],
                "not a list", [], [3, {"error": ""}],
            ])
        if fields and rng.random() < 0.4:
            rec["fields"] = {k: rng.choice(v) for k, v in fields.items() if rng.random() < 0.6}
        elif rng.random() < 0.02:
            rec["fields"] = rng.choice(["nope", [1], None])
        if rng.random() < 0.2:
            names = rng.sample(signals, k=min(len(signals), rng.randint(0, 3)))
            names = [rng.choice([s, s.upper().replace("-", "_"), f" {s} "]) for s in names]
            extra = rng.choice([[], ["tool-named-thing"], [3], [""], "a single-string"])
            rec["signals"] = names + extra if isinstance(extra, list) else extra
        out.append(rec)
    return out


def _first_difference(got: Any, want: Any) -> str:
    for f in dataclasses.fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if a != b:
            return f"{f.name}: batch {a!r:.300} != classify {b!r:.300}"
    return "equal"


def _assert_same(records: list[Any], taxonomy: str, engines: Sequence[str], **kw: Any) -> None:
    """Batch classification with each engine answers every record as ``classify`` does."""
    table = load_table(taxonomy)
    wants = [failtax.classify(rec, taxonomy=taxonomy, table=table) for rec in records]
    for eng in engines:
        got = classify_records(records, table=table, engine=eng, **kw)
        assert len(got) == len(records)
        for i, (rec, want) in enumerate(zip(records, wants)):
            if got[i] != want:
                pytest.fail(f"{taxonomy}/{eng} record {i} {rec!r:.400}\n{_first_difference(got[i], want)}")


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_every_real_message_classifies_the_same(taxonomy: str) -> None:
    records = _fixture_records(taxonomy)
    # also every sixteenth real message of every taxonomy, as plain text, through this table
    records += [{"text": t, "exit_code": 1} for t in _all_fixture_texts()[::16]]
    _assert_same(records, taxonomy, ENGINES)  # each record classified one by one once, for every engine


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_generated_evidence_classifies_the_same(taxonomy: str, engine: str) -> None:
    records = generate(taxonomy, 180, seed=TAXONOMIES.index(taxonomy))
    records += [7, None, "text", ["list"]]  # not mappings: answered like classify answers them
    _assert_same(records, taxonomy, (engine,))


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_secrets_on_the_matched_line_are_masked_as_classify_masks_them(taxonomy: str) -> None:
    # The batch engine masks a shown line by scanning that line alone, unless a
    # private-key block may run through it: secrets beside the table's own phrases on
    # one line, private-key blocks before and after, a line of nested near misses before.
    rng = random.Random(TAXONOMIES.index(taxonomy))
    phrases = _phrases(taxonomy) or ["Killed", "HTTP 429"]
    secrets = [t for t in SECRETS if "\n" not in t] or ["token=Ab9Ab9Ab9Ab9"]
    blocks = [t for t in SECRETS if "PRIVATE KEY" in t] or ["-----BEGIN PRIVATE KEY-----\nQUFB\n-----END PRIVATE KEY-----"]
    records = []
    for _ in range(240):
        phrase, secret = _mutate(rng, rng.choice(phrases)), rng.choice(secrets)
        line = rng.choice([f"{phrase} {secret}", f"{secret} {phrase}", f"{phrase}: {secret} {rng.choice(NOISE)}"])
        before = rng.choice(["", "", "sk-" * 3000 + "\n", "x-sk-ant-api03-abcdefghijklmnopqrstuvwx_token=hi\n",
                             rng.choice(blocks) + "\n", "-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADAN\n"])
        after = rng.choice(["", "", "\n" + rng.choice(blocks), "\n-----END RSA PRIVATE KEY-----", "\nKilled"])
        records.append({"text": before + line + after, "exit_code": rng.choice([1, 1, None, 137])})
    _assert_same(records, taxonomy, ENGINES[:1])
    if taxonomy == "agent-run":  # the records do put secrets on shown lines
        shown = [c.matched_line for c in classify_records(records, taxonomy=taxonomy) if c.matched_line]
        assert sum("[REDACTED:" in m for m in shown) >= 20, len(shown)


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_a_frame_classifies_like_its_rows(taxonomy: str) -> None:
    """A polars frame with typed columns; JSON text in result_frame and fields."""
    rng = random.Random(99)
    recs = generate(taxonomy, 150, seed=7)
    rows = []
    for r in recs:
        text = r.get("text", r.get("stderr", r.get("stderrTail")))
        ec = r.get("exit_code", r.get("exitCode"))
        fr = r.get("result_frame", r.get("resultFrame"))
        sig = r.get("signal")
        rows.append({
            "id": str(r.get("id")),
            "text": text if isinstance(text, str) else None,
            "exit_code": ec if isinstance(ec, int) and not isinstance(ec, bool) and abs(ec) < 2**63 else None,
            "signal": sig if isinstance(sig, int) and not isinstance(sig, bool) and abs(sig) < 2**63 else None,
            "result_frame": json.dumps(fr) if isinstance(fr, dict) and rng.random() < 0.5 else None,
            "fields": json.dumps(r["fields"]) if isinstance(r.get("fields"), dict) else None,
            "signals": [s for s in r["signals"] if isinstance(s, str)] if isinstance(r.get("signals"), list) else None,
        })
    schema = {"id": pl.String, "text": pl.String, "exit_code": pl.Int64, "signal": pl.Int64,
              "result_frame": pl.String, "fields": pl.String, "signals": pl.List(pl.String)}
    df = pl.DataFrame(rows, schema=schema)
    out = classify_batch(df, taxonomy=taxonomy, n_jobs=1)
    assert out.height == df.height
    assert out["id"].to_list() == df["id"].to_list()
    for i, row in enumerate(df.iter_rows(named=True)):
        if row["fields"] is not None:
            row["fields"] = json.loads(row["fields"])
        want = failtax.classify(row, taxonomy=taxonomy)
        got = out.row(i, named=True)
        for key in ("bucket", "rule", "title", "detail", "suggestion", "retryable", "severity",
                    "matched_line", "exit_code", "signal", "source_file", "source_line", "table_version"):
            assert got[key] == getattr(want, key), f"row {i} {key}: {got[key]!r} != {getattr(want, key)!r}"
        assert got["signals"] == list(want.signals), f"row {i}"
        assert got["warnings"] == list(want.warnings), f"row {i}"
        assert got["options"] == list(want.options)
        ar = want.auto_recoverable
        assert got["auto_recoverable"] == (None if ar is None else ("true" if ar is True else "false" if ar is False else str(ar)))


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_a_pandas_frame_of_odd_python_values_classifies_like_its_rows(taxonomy: str) -> None:
    pd = pytest.importorskip("pandas")
    recs = generate(taxonomy, 100, seed=11)
    cols = ("id", "text", "exit_code", "signal", "result_frame", "fields", "signals")
    frame = pd.DataFrame({c: pd.Series([r.get(c) for r in recs], dtype=object) for c in cols})
    out = classify_batch(frame, taxonomy=taxonomy, n_jobs=1)
    for i, r in enumerate(recs):
        row = {c: r.get(c) for c in cols}
        want = failtax.classify(row, taxonomy=taxonomy)
        got = out.row(i, named=True)
        assert (got["bucket"], got["rule"], got["signals"], got["title"], got["detail"], got["matched_line"]) == (
            want.bucket, want.rule, list(want.signals), want.title, want.detail, want.matched_line
        ), f"row {i}: {row!r:.300}"
        assert got["warnings"] == list(want.warnings), f"row {i}"


# --------------------------------------------------------------------------- hypothesis



@st.composite
def _records(draw: Any, taxonomy: str) -> list[dict[str, Any]]:
    phrases = _phrases(taxonomy) or ["error"]
    piece = st.one_of(
        st.sampled_from(phrases),
        st.sampled_from(phrases).map(str.upper),
        st.sampled_from(NOISE + SECRETS[:40]),
        st.sampled_from(ANSI + ["\r", "\r\n", "\n", "\x00", "\u212a", "\u017f", " ", ":", "(", ")", "[", "]"]),
        st.text(max_size=12),
    )
    out = []
    for _ in range(draw(st.integers(1, 6))):
        rec: dict[str, Any] = {"text": "".join(draw(st.lists(piece, max_size=10)))}
        if draw(st.booleans()):
            rec["exit_code"] = draw(st.one_of(st.none(), st.integers(-5, 300), st.sampled_from(["1", "137", "x", 1.0, True])))
        if draw(st.integers(0, 4)) == 0:
            rec["signal"] = draw(st.sampled_from([9, 15, "SIGKILL", "hup", None]))
        if draw(st.integers(0, 4)) == 0:
            rec["result_frame"] = {"is_error": draw(st.booleans()), "result": draw(st.sampled_from(phrases))}
        if draw(st.integers(0, 5)) == 0:
            rec["signals"] = draw(st.lists(st.sampled_from([*load_table(taxonomy).signals, "other thing", ""]), max_size=3))
        out.append(rec)
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_hypothesis_records_classify_the_same(taxonomy: str, engine: str) -> None:
    """Each example's records in one call; the polars engine's examples all in one call
    at the end (it builds its automaton of a table's ~20,000 literals on every call,
    half a second, so ten calls of a few records cost it five seconds a taxonomy)."""
    together: list[dict[str, Any]] = []

    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
    @given(_records(taxonomy))
    def check(records: list[dict[str, Any]]) -> None:
        if engine == "polars":
            together.extend(records)
        else:
            _assert_same(records, taxonomy, (engine,))

    check()
    if engine == "polars":
        assert together
        _assert_same(together, taxonomy, (engine,))


def test_the_differential_covers_both_engines_and_every_taxonomy() -> None:
    from failtax._scan import available_engines

    assert set(ENGINES) <= set(available_engines())
    assert {"agent-run", "replay", "regen", "preexec"} <= set(TAXONOMIES)


def test_characters_taken_as_caseless_have_no_other_case_in_re2() -> None:
    """Literal prefilters may use a non-ASCII character only if RE2 folds it onto nothing.

    Every such character (per :func:`failtax._scan.caseless_safe`) in one class, matched
    case-insensitively by RE2 against every other character: no match may be found.
    """
    import re2

    from failtax._scan import FOLD_RISK, caseless_safe

    safe, other = [], []
    for cp in (*range(0x80, 0xD800), *range(0xE000, 0x110000)):
        (safe if caseless_safe(chr(cp)) else other).append(cp)
    ranges, a = [], safe[0]
    for prev, cur in zip(safe, [*safe[1:], None], strict=True):
        if cur != prev + 1:
            ranges.append(f"\\x{{{a:x}}}-\\x{{{prev:x}}}")
            a = cur
    opts = re2.Options()
    opts.case_sensitive = False
    opts.max_mem = 1 << 28
    rx = re2.compile("[" + "".join(ranges) + "]", opts)
    rest = "".join(map(chr, other)) + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    assert rx.search(rest) is None
    assert not any(caseless_safe(c) for c in FOLD_RISK)
