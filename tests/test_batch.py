"""Batch classification: input types, missing and null columns, order, processes, the CLI.

What ``classify_batch`` answers per row is pinned to ``failtax.classify`` by
``test_batch_differential.py``; here: every input shape gives the same frame, the
signal and rule matrices agree with classify, many processes answer like one, and
``failtax classify`` streams JSON Lines in chunks across processes, in order, with an
error line naming file:line for every bad line.
"""

from __future__ import annotations

import bisect
import gzip
import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import failtax
from failtax import _batch_input, _cache, _scan
from failtax.batch import (
    CHUNK_BYTES,
    classify_batch,
    classify_jsonl,
    classify_records,
    extract_rule_matrix,
    extract_signal_matrix,
    parse_jsonl_line,
)
from failtax.classify import extract_signals
from failtax.errors import InputError
from failtax.table import load_table
from real_messages import real_messages, spread  # tests/real_messages.py: the fixtures, parsed once

TEXTS = [
    "API Error: 429 Too Many Requests",
    "\x1b[31mError:\x1b[0m overloaded_error: Overloaded\r\n",
    "Killed",
    "Invalid API key · Please run /login",
    "prompt is too long: 213642 tokens > 200000 maximum",
    "agent uid-7 was deleted, so this pane cannot start",
    "no credentials for gemini: gone. Bind an account for this provider in Connectors → Accounts.",
    "2026-04-29 all good",
    "",
    "Error: connect ECONNREFUSED 127.0.0.1:443\n    at TCPConnectWrap.afterConnect",
]


def _records(n: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rec: dict[str, Any] = {"id": i, "text": rng.choice(TEXTS) * rng.randint(1, 3)}
        if rng.random() < 0.8:
            rec["exit_code"] = rng.choice([0, 1, 2, 137, 127])
        if rng.random() < 0.1:
            rec["signal"] = 9
        if rng.random() < 0.2:
            rec["result_frame"] = {"type": "result", "subtype": rng.choice(["error_max_turns", "success"]),
                                   "is_error": True, "result": rng.choice(TEXTS)}
        if rng.random() < 0.1:
            rec["signals"] = rng.choice([["rate-limited"], ["custom-thing", "overloaded"]])
        out.append(rec)
    return out


def _frame(records: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(records, infer_schema_length=None)


def _comparable(df: pl.DataFrame) -> pl.DataFrame:
    return df.drop("id") if "id" in df.columns else df


# --------------------------------------------------------------------------- input shapes


def test_polars_pandas_and_arrow_inputs_give_the_same_frame() -> None:
    recs = _records(300)
    df = _frame(recs)
    want = classify_batch(df, taxonomy="agent-run", n_jobs=1)
    table = df.to_arrow()
    for data in (df.to_pandas(), table, table.to_batches()[0] if len(table.to_batches()) == 1 else table):
        got = classify_batch(data, taxonomy="agent-run", n_jobs=1)
        assert _comparable(got).equals(_comparable(want))
    assert want["id"].to_list() == list(range(300))
    assert want.columns[:5] == ["id", "taxonomy", "bucket", "signals", "rule"]


def test_a_record_batch_is_accepted() -> None:
    batch = pa.RecordBatch.from_pydict({"text": ["HTTP 429", "Killed"], "exit_code": [1, 137]})
    out = classify_batch(batch, taxonomy="agent-run")
    assert out["bucket"].to_list() == ["rate_limited", "killed"]


def test_rows_keep_their_order_and_each_is_what_classify_says() -> None:
    recs = _records(500, seed=3)
    random.Random(1).shuffle(recs)
    df = _frame(recs)
    out = classify_batch(df, taxonomy="agent-run", n_jobs=1)
    assert out["id"].to_list() == [r["id"] for r in recs]
    for i, row in enumerate(df.iter_rows(named=True)):
        c = failtax.classify(row, taxonomy="agent-run")
        assert (out["bucket"][i], out["rule"][i], out["signals"][i].to_list()) == (c.bucket, c.rule, list(c.signals))


def test_missing_columns_mean_not_given() -> None:
    only_text = classify_batch(pl.DataFrame({"text": ["HTTP 429 Too Many Requests", "nothing"]}), taxonomy="agent-run")
    assert only_text["bucket"].to_list() == ["rate_limited", "unknown_non_zero"]
    assert "id" not in only_text.columns
    only_exit = classify_batch(pl.DataFrame({"exit_code": [0, 137, None]}), taxonomy="agent-run")
    assert only_exit["bucket"].to_list() == ["no_output", "killed", "unknown_non_zero"]
    assert only_exit["exit_code"].to_list() == [0, 137, None]
    no_columns = classify_batch(pl.DataFrame({"other": [1, 2]}), taxonomy="agent-run")
    assert no_columns["rule"].to_list() == ["fallback", "fallback"]


def test_nulls_and_all_null_columns() -> None:
    df = pl.DataFrame(
        {"text": [None, "Killed", None], "exit_code": [None, None, 0], "signal": [None, None, None],
         "result_frame": [None, None, None], "signals": [None, None, None], "fields": [None, None, None]}
    )
    out = classify_batch(df, taxonomy="agent-run")
    want = [failtax.classify(r, taxonomy="agent-run") for r in df.iter_rows(named=True)]
    assert out["bucket"].to_list() == [c.bucket for c in want] == ["unknown_non_zero", "killed", "no_output"]
    assert out["warnings"].to_list() == [[], [], []]


def test_an_empty_frame_gives_an_empty_result() -> None:
    out = classify_batch(pl.DataFrame({"text": pl.Series([], dtype=pl.String)}), taxonomy="agent-run")
    assert out.height == 0
    assert "bucket" in out.columns


def test_json_text_frames_and_fields_read_like_objects() -> None:
    frame = {"type": "result", "subtype": "error_max_turns", "is_error": True}
    as_json = pl.DataFrame({"text": ["x", "y"], "result_frame": [json.dumps(frame), None],
                            "fields": [json.dumps({"lastPassedAgeDays": 41, "hasReplayableScript": True}), "{not json"]})
    as_dicts = pl.DataFrame({"text": ["x", "y"], "result_frame": [frame, None]})
    a = classify_batch(as_json, taxonomy="agent-run")
    b = classify_batch(as_dicts, taxonomy="agent-run")
    assert a["bucket"].to_list() == b["bucket"].to_list() == ["max_turns", "unknown_non_zero"]
    pre = classify_batch(as_json, taxonomy="preexec")
    want = failtax.classify({"text": "x", "fields": {"lastPassedAgeDays": 41, "hasReplayableScript": True}}, taxonomy="preexec")
    assert pre["bucket"][0] == want.bucket
    # a fields string that is not a JSON object is noted, as classify notes it
    assert pre["warnings"][1].to_list() == ["fields: expected an object"]


def test_stderr_and_camel_case_aliases() -> None:
    df = pl.DataFrame({"stderr": ["HTTP 429", None], "stderrTail": ["Killed", "Killed"], "exitCode": [1, 137]})
    out = classify_batch(df, taxonomy="agent-run")
    want = [failtax.classify(r, taxonomy="agent-run") for r in df.iter_rows(named=True)]
    assert out["bucket"].to_list() == [c.bucket for c in want] == ["rate_limited", "killed"]


def test_odd_values_are_noted_not_raised() -> None:
    frame = pd.DataFrame({"text": pd.Series(["HTTP 429", 17, ["Killed", "now"]], dtype=object),
                          "exit_code": pd.Series(["1", True, 2**40], dtype=object),
                          "signal": pd.Series(["SIGKILL", None, "nope"], dtype=object)})
    out = classify_batch(frame, taxonomy="agent-run")
    rows = [{k: frame[k][i] for k in frame.columns} for i in range(3)]
    want = [failtax.classify(r, taxonomy="agent-run") for r in rows]
    assert out["bucket"].to_list() == [c.bucket for c in want]
    assert out["warnings"].to_list() == [list(c.warnings) for c in want]
    assert out["warnings"][1].to_list() == ["text: expected a string, got int", "exit_code: expected an integer, got a boolean"]


def test_numpy_and_decimal_numbers_are_the_numbers_they_hold() -> None:
    # A pandas row's values are numpy scalars (dict(df.iloc[i]), df.to_dict("records")
    # with object columns): exit code 137 is 137 whichever type holds it.
    from decimal import Decimal

    frame = pd.DataFrame({"text": ["Killed"] * 7 + ["x"] * 2,
                          "exit_code": pd.Series([np.int64(137), np.int32(137), np.uint8(137), np.float64(137.0),
                                                  np.float32(137.0), Decimal("137"), 137, np.True_,
                                                  Decimal("1.5")], dtype=object)})
    rows = [dict(frame.iloc[i]) for i in range(len(frame))]
    want = [failtax.classify(r, taxonomy="agent-run") for r in rows]
    assert [c.bucket for c in want[:7]] == ["killed"] * 7
    assert all(not c.warnings for c in want[:7])
    assert [c.warnings for c in want[7:]] == [("exit_code: expected an integer, got a boolean",),
                                              ("exit_code: expected an integer, got 1.5",)]
    out = classify_batch(frame, taxonomy="agent-run")
    assert out["bucket"].to_list() == [c.bucket for c in want]
    assert out["exit_code"].to_list() == [137] * 7 + [None] * 2
    assert out["warnings"].to_list() == [list(c.warnings) for c in want]
    # a NaN handed to classify() is no number (in a frame, NaN is a null: not given)
    assert failtax.classify({"exit_code": np.float64("nan")}).warnings == ("exit_code: expected an integer, got nan",)


def test_a_record_with_no_evidence_key_is_noted_as_classify_notes_it() -> None:
    records = [{"message": "HTTP 429"}, {"text": "HTTP 429", "message": "x"}, {"id": 7}, {"text": None, "error": "Killed"}]
    got = classify_records(records, taxonomy="agent-run")
    want = [failtax.classify(r, taxonomy="agent-run") for r in records]
    assert got == want
    assert [bool(c.warnings) for c in got] == [True, False, False, True]
    assert "keys given: error" in got[3].warnings[0]


def test_a_lazy_frame_collects_only_the_evidence_columns(tmp_path: Path) -> None:
    """A LazyFrame (here a Parquet scan) answers as its collected frame does; a column
    classification never reads is not collected, and a frame of none keeps its rows."""
    recs = _records(200)
    df = _frame(recs).with_columns(pl.lit("x" * 50).alias("payload"))
    want = classify_batch(df, taxonomy="agent-run", n_jobs=1)
    df.write_parquet(tmp_path / "f.parquet")
    lazy = pl.scan_parquet(tmp_path / "f.parquet")
    assert _comparable(classify_batch(lazy, taxonomy="agent-run", n_jobs=1)).equals(_comparable(want))
    collected = _batch_input._to_polars(lazy)
    assert "payload" not in collected.columns and "text" in collected.columns
    none = classify_batch(pl.LazyFrame({"other": [1, 2, 3]}), taxonomy="agent-run")
    assert none["bucket"].to_list() == [failtax.classify({}, taxonomy="agent-run").bucket] * 3


def test_a_column_named_twice_is_refused_clearly() -> None:
    pdf = pd.DataFrame([["HTTP 429 Too Many Requests", "Killed"]], columns=["text", "text"])
    with pytest.raises(InputError, match="'text' appears more than once"):
        classify_batch(pdf, taxonomy="agent-run")
    table = pa.Table.from_arrays([pa.array(["a"]), pa.array([1]), pa.array([2])], names=["text", "exit_code", "exit_code"])
    with pytest.raises(InputError, match="'exit_code' appears more than once"):
        classify_batch(table, taxonomy="agent-run")


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(InputError, match="a polars DataFrame or LazyFrame, a pandas DataFrame"):
        classify_batch([{"text": "x"}], taxonomy="agent-run")
    with pytest.raises(InputError, match="taxonomy 'agent-run', not 'replay'"):
        classify_batch(pl.DataFrame({"text": ["x"]}), taxonomy="replay", table=load_table("agent-run"))
    with pytest.raises(ValueError, match="unknown engine"):
        classify_batch(pl.DataFrame({"text": ["x"]}), taxonomy="regen", engine="grep")


# --------------------------------------------------------------------------- processes


def test_many_processes_answer_like_one() -> None:
    df = _frame(_records(4000, seed=5))
    one = classify_batch(df, taxonomy="agent-run", n_jobs=1)
    two = classify_batch(df, taxonomy="agent-run", n_jobs=2)
    three = classify_batch(df, taxonomy="agent-run", n_jobs=3)
    assert one.equals(two) and one.equals(three)
    recs = _records(600, seed=6)
    assert classify_records(recs, taxonomy="agent-run", n_jobs=2) == classify_records(recs, taxonomy="agent-run", n_jobs=1)


# --------------------------------------------------------------------------- matrices


def test_signal_matrix_is_what_classify_lists() -> None:
    recs = _records(200, seed=8)
    df = _frame(recs)
    mat, names = extract_signal_matrix(df, taxonomy="agent-run")
    assert mat.dtype == np.bool_ and mat.shape == (200, len(names))
    assert names[: len(load_table("agent-run").signals)] == load_table("agent-run").signals
    assert "custom-thing" in names  # a signal only the tool named
    for i, row in enumerate(df.iter_rows(named=True)):
        got = {names[j] for j in np.flatnonzero(mat[i])}
        assert got == set(failtax.classify(row, taxonomy="agent-run").signals)


def test_rule_matrix_is_what_fired() -> None:
    df = _frame(_records(200, seed=9))
    table = load_table("agent-run")
    mat, ids = extract_rule_matrix(df, table=table)
    assert ids == tuple(r.id for r in table.extract)
    for i, row in enumerate(df.iter_rows(named=True)):
        _sig, fired = extract_signals(row, table)
        assert [ids[j] for j in np.flatnonzero(mat[i])] == list(fired)


# --------------------------------------------------------------------------- JSON Lines


BAD_LINES = [
    b"not json at all",
    b"",
    b"   ",
    b"[1, 2, 3]",
    b'"a string"',
    b'{"text": "caf\xe9"}',  # Latin-1, not UTF-8
    b'{"text": "unterminated',
]


def _jsonl(records: list[dict[str, Any]], bad_every: int = 7) -> tuple[bytes, list[int]]:
    lines, bad = [], []
    rng = random.Random(4)
    for i, rec in enumerate(records):
        if i % bad_every == 3:
            lines.append(rng.choice(BAD_LINES))
            bad.append(i + 1)
        else:
            lines.append(json.dumps(rec, ensure_ascii=rng.random() < 0.5).encode())
    data = b"\n".join(lines)
    data = data.replace(b"\n", b"\r\n", 5)  # some Windows line ends
    return data, bad  # no final newline


def _expected(data: bytes, where: str) -> list[dict[str, Any]]:
    out = []
    for n, raw in enumerate(data.split(b"\n"), 1):
        rec, err = parse_jsonl_line(raw, f"{where}:{n}")
        out.append(err if err is not None else json.loads(json.dumps(failtax.classify(rec, taxonomy="agent-run").to_dict(), default=str)))
    return out


def test_jsonl_in_chunks_answers_every_line_like_classify(tmp_path: Path) -> None:
    recs = _records(250, seed=10)
    data, bad = _jsonl(recs)
    path = tmp_path / "events.jsonl"
    path.write_bytes(data)
    out = tmp_path / "out.jsonl"
    with out.open("wb") as fh:
        errors = classify_jsonl([str(path)], table=load_table("agent-run"), out=fh, n_jobs=1, chunk_bytes=3000)
    got = [json.loads(line) for line in out.read_bytes().splitlines()]
    assert len(got) == data.count(b"\n") + 1
    assert errors == len(bad)
    assert got == _expected(data, str(path))
    assert [i for i, g in enumerate(got, 1) if "error" in g] == bad
    assert got[bad[0] - 1]["error"].startswith(f"{path}:{bad[0]}: ")


def test_jsonl_survives_a_fault_of_the_batch_path_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # A fault inside the batch engine must not cost a chunk's lines: they are classified
    # one by one, the answers stay classify()'s, and a record classify() itself cannot
    # answer gets an error line naming its file and line.
    batch_mod = sys.modules["failtax.batch"]

    recs = _records(120, seed=12)
    data, bad = _jsonl(recs)
    path = tmp_path / "events.jsonl"
    path.write_bytes(data)
    want = _expected(data, str(path))
    poisoned = next(n for n, w in enumerate(want, 1) if n > len(want) // 2 and "error" not in w)
    poison = json.loads(data.split(b"\n")[poisoned - 1])

    def broken_batch(*_a: Any, **_k: Any) -> Any:
        raise RuntimeError("engine fault")

    real_classify = batch_mod.classify

    def classify_but_one(evidence: Any, **kw: Any) -> Any:
        if evidence == poison:
            raise ValueError("cannot answer this one")
        return real_classify(evidence, **kw)

    monkeypatch.setattr(batch_mod, "classify_records", broken_batch)
    monkeypatch.setattr(batch_mod, "classify", classify_but_one)
    out = tmp_path / "out.jsonl"
    with out.open("wb") as fh:
        errors = classify_jsonl([str(path)], table=load_table("agent-run"), out=fh, n_jobs=1, chunk_bytes=4000)
    got = [json.loads(line) for line in out.read_bytes().splitlines()]
    assert len(got) == len(want)
    assert errors == len(bad) + 1
    assert got[poisoned - 1] == {"error": f"{path}:{poisoned}: internal error: ValueError: cannot answer this one"}
    assert [g for n, g in enumerate(got, 1) if n != poisoned] == [w for n, w in enumerate(want, 1) if n != poisoned]
    err = capsys.readouterr().err
    assert f"failtax: {path}:1-" in err and "batch classification failed (RuntimeError: engine fault)" in err


def test_jsonl_across_processes_writes_the_same_bytes(tmp_path: Path) -> None:
    data, _bad = _jsonl(_records(600, seed=11))
    path = tmp_path / "events.jsonl.gz"
    path.write_bytes(gzip.compress(data))
    table = load_table("agent-run")
    outs = []
    for jobs in (1, 2):
        out = tmp_path / f"out{jobs}.jsonl"
        with out.open("wb") as fh:
            classify_jsonl([str(path), str(path)], table=table, out=fh, n_jobs=jobs, chunk_bytes=8000)
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    lines = outs[0].splitlines()
    assert len(lines) == 2 * (data.count(b"\n") + 1)
    # line numbers restart with the second file
    first_bad = next(i for i, ln in enumerate(lines) if b'"error"' in ln)
    second = json.loads(lines[first_bad + len(lines) // 2])
    assert second["error"].startswith(f"{path}:{first_bad + 1}: ")


def _answers(path: Path, data: bytes, table: Any) -> list[dict[str, Any]]:
    """What classify_jsonl writes for ``data`` read as ``path``: one answer per line."""
    out = _Recording()
    plain = path.with_suffix(".plain.jsonl")
    plain.write_bytes(data)
    classify_jsonl([str(plain)], table=table, out=out, n_jobs=1, chunk_bytes=8000)
    return [json.loads(ln.replace(str(plain).encode(), str(path).encode())) for ln in bytes(out.data).splitlines()]


def test_jsonl_a_gzip_cut_short_keeps_every_line_before_it_and_goes_on(tmp_path: Path) -> None:
    """A truncated .gz: every whole line decompressed before the cut is answered, one error
    line names the first line not read, and the next file is classified; the same bytes
    in this process and across workers (answers still queued when the read fails)."""
    import zlib

    table = load_table("agent-run")
    data, _bad = _jsonl(_records(600, seed=13))
    packed = gzip.compress(data + b"\n")
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) * 3 // 5])
    readable = zlib.decompressobj(31).decompress(cut.read_bytes())
    whole = readable[: readable.rfind(b"\n") + 1]
    assert 0 < whole.count(b"\n") < data.count(b"\n")  # the cut falls inside the stream
    after = tmp_path / "after.jsonl"
    after.write_bytes(b'{"text": "HTTP 401 Unauthorized"}\n')
    want = _answers(cut, whole, table)
    n = len(want)
    outs = []
    for jobs in (1, 2):
        out = _Recording()
        errors = classify_jsonl([str(cut), str(after)], table=table, out=out, n_jobs=jobs, chunk_bytes=8000)
        got = [json.loads(ln) for ln in bytes(out.data).splitlines()]
        assert got[:n] == want
        assert got[n] == {"error": f"{cut}:{n + 1}: cannot read from this line on: "
                                   "Compressed file ended before the end-of-stream marker was reached"}
        assert got[n + 1]["bucket"] == "auth" and len(got) == n + 2
        assert errors == sum("error" in g for g in got)
        outs.append(bytes(out.data))
    assert outs[0] == outs[1]


def test_jsonl_a_gzip_failing_its_checksum_answers_its_lines_then_says_so(tmp_path: Path) -> None:
    table = load_table("agent-run")
    data = b"".join(b'{"id": "r%d", "text": "HTTP 429 Too Many Requests"}\n' % i for i in range(300))
    packed = bytearray(gzip.compress(data))
    packed[-8] ^= 0xFF  # the CRC-32 of the trailer
    bad = tmp_path / "crc.jsonl.gz"
    bad.write_bytes(bytes(packed))
    not_gzip = tmp_path / "plain.jsonl.gz"  # named .gz, but plain text: read as what it holds
    not_gzip.write_bytes(b'{"text": "HTTP 401 Unauthorized"}\n')
    out = _Recording()
    errors = classify_jsonl([str(bad), str(not_gzip)], table=table, out=out, n_jobs=1)
    got = [json.loads(ln) for ln in bytes(out.data).splitlines()]
    assert [g["bucket"] for g in got[:300]] == ["rate_limited"] * 300
    assert got[300]["error"].startswith(f"{bad}:301: cannot read from this line on: CRC check failed")
    assert got[301]["bucket"] == "auth"
    assert len(got) == 302 and errors == 1


def test_jsonl_written_in_utf16_is_read_like_utf8(tmp_path: Path) -> None:
    """A file with a UTF-16 byte order mark (a PowerShell ``>`` redirect), plain or
    gzipped, little or big endian, gets the answers its UTF-8 twin gets, line for line;
    a lone surrogate in it is an invalid-UTF-8 line like any other."""
    table = load_table("agent-run")
    data, _bad = _jsonl(_records(200, seed=14))
    # (less the lines of invalid UTF-8, which UTF-16 cannot hold)
    text = "\n".join(ln for ln in data.decode("utf-8", "surrogateescape").split("\n")
                     if not any("\udc80" <= c <= "\udcff" for c in ln))
    twin = tmp_path / "utf8.jsonl"
    twin.write_bytes(text.encode("utf-8"))
    want = _answers(twin, text.encode("utf-8"), table)
    for codec, packer in (("utf-16", bytes), ("utf-16-be", bytes), ("utf-16-le", gzip.compress)):
        raw = text.encode(codec)
        if codec != "utf-16":  # the explicit-endian codecs write no mark: put it there
            raw = ("\ufeff" + text).encode(codec)
        path = tmp_path / (f"{codec}.jsonl" + (".gz" if packer is gzip.compress else ""))
        path.write_bytes(packer(raw))
        out = _Recording()
        classify_jsonl([str(path)], table=table, out=out, n_jobs=1, chunk_bytes=5000)
        got = [json.loads(ln.replace(str(path).encode(), str(twin).encode())) for ln in bytes(out.data).splitlines()]
        assert got == want, codec
    lone = tmp_path / "lone.jsonl"
    lone.write_bytes("\ufeff{\"text\": \"ok\"}\n".encode("utf-16-le") + b"\x00\xd8" + "x\n{}\n".encode("utf-16-le"))
    out = _Recording()
    classify_jsonl([str(lone)], table=table, out=out, n_jobs=1)
    got = [json.loads(ln) for ln in bytes(out.data).splitlines()]
    assert "bucket" in got[0] and got[1]["error"].startswith(f"{lone}:2: invalid UTF-8") and "bucket" in got[2]


class _Recording:
    """A binary stream that remembers how much was written when each progress call came."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.calls: list[tuple[int, int]] = []

    def write(self, b: bytes) -> int:
        self.data += b
        return len(b)

    def flush(self) -> None:
        pass

    def progress(self, n: int) -> None:
        self.calls.append((n, len(self.data)))


def test_jsonl_progress_counts_every_input_byte_once_its_answers_are_written(tmp_path: Path) -> None:
    """One call per chunk, in input order, each after that chunk's answers went out, and
    together the input's size: in this process and across workers."""
    data, _bad = _jsonl(_records(600, seed=12))
    path = tmp_path / "events.jsonl"
    path.write_bytes(data)
    table = load_table("agent-run")
    for jobs in (1, 2):
        out = _Recording()
        classify_jsonl([str(path)], table=table, out=out, n_jobs=jobs, chunk_bytes=8000, progress=out.progress)
        sizes = [n for n, _ in out.calls]
        assert sum(sizes) == len(data) and len(sizes) >= len(data) // 8000
        written = [w for _, w in out.calls]
        assert written == sorted(written) and written[0] > 0 and written[-1] == len(out.data)
        assert len(set(written)) == len(written)  # each chunk's answers before its call


def test_parse_jsonl_line_names_the_line_and_the_reason() -> None:
    want = {
        b"not json at all": "f:1: not valid JSON (Expecting value at column 1)",
        b"": "f:1: empty line",
        b"   ": "f:1: empty line",
        b"[1, 2, 3]": "f:1: expected a JSON object, got list",
        b'"a string"': "f:1: expected a JSON object, got str",
        b'{"text": "caf\xe9"}': "f:1: invalid UTF-8 at byte 13",
        b"null": "f:1: expected a JSON object, got NoneType",
    }
    for raw, error in want.items():
        assert parse_jsonl_line(raw, "f:1") == (None, {"error": error})
    assert parse_jsonl_line(b'{"text": "unterminated', "f:1")[1]["error"].startswith("f:1: not valid JSON (")
    assert parse_jsonl_line(b'{"text": "x"}\r\n', "f:1") == ({"text": "x"}, None)
    assert parse_jsonl_line(b"{} ", "f:1") == ({}, None)


def test_failtax_classify_streams_a_large_file_across_processes(tmp_path: Path, failtax_cmd: list[str]) -> None:
    """A file of several chunks, through the real command (worker processes)."""
    rng = random.Random(12)
    pad = "    at Object.<anonymous> (/home/u/proj/node_modules/x/cli.js:12:34)\n" * 20
    recs = [{"id": i, "text": pad + rng.choice(TEXTS), "exit_code": rng.choice([1, 0, 137])} for i in range(9_000)]
    lines = [json.dumps(r).encode() for r in recs]
    lines[5] = b"{broken"
    lines[7_000] = b""
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert path.stat().st_size > 3 * CHUNK_BYTES
    proc = subprocess.run([*failtax_cmd, "classify", "--taxonomy", "agent-run", str(path)], capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode()
    out = proc.stdout.splitlines()
    assert len(out) == len(lines)
    assert json.loads(out[5]) == {"error": f"{path}:6: not valid JSON (Expecting property name enclosed in double quotes at column 2)"}
    assert json.loads(out[7_000]) == {"error": f"{path}:7001: empty line"}
    ids = [json.loads(o).get("id") for o in out]
    assert ids == [None if i in (5, 7_000) else i for i in range(len(lines))]
    for i in (0, 1, 4_321, 8_999):
        assert json.loads(out[i]) == json.loads(json.dumps(failtax.classify(recs[i], taxonomy="agent-run").to_dict()))


# The regex supersets of twelve development-flow rules (batch 59), in this order, with
# which hyperscan 5.4.12, scanning the two records below as one buffer, reported the
# first pattern in the Dart line and then missed it in the Scala record; batch
# classification lost the Scala record's compile rule.
_HS_MISS_SUPERSETS = [
    '(?:\\x2d\\x2d(?:[\\x09\\x20]){1,}\\x5be(?:[0-9]){3,4}\\x5d\\x20[^\\x0a]{0,}error\\x3a\\x20[^\\x0a]{0,}\\x3a(?:[0-9]){1,}\\x3a(?:[0-9]){1,}|(?:[\\x09\\x20]){0,}error\\x20\\xe2\\x80\\xa2\\x20[^\\x0a]{0,}\\x3a(?:[0-9]){1,}\\x3a(?:[0-9]){1,})',
    '(?:(?:found|detected)\\x20(?:(?:a(?:n)?\\x20|[\\x31-\\x39](?:[0-9]){0,}\\x20))?(?:un)?verified\\x20(?:secret(?:s)?|result(?:s)?)|\\x22(?:un)?verified\\x5fsecrets\\x22\\x3a(?:[\\t\\n\\f\\r\\x20]){0,}[\\x31-\\x39])',
    '(?:[\\x09\\x20]){0,}secret\\x3a(?:[\\x09\\x20]){1,}[^\\x09\\x0a\\x0c\\x0d\\x20]{1,4}[^\\x0a]{0,}\\x0a(?:[\\x09\\x20]){0,}ruleid\\x3a(?:[\\x09\\x20]){1,}(?:[\\x2d\\x2e0-9A-Za-z_]){1,}',
    '(?:critical|high|medium|low|unknown)\\x3a\\x20[^\\x0a]{1,}\\x0a(?:\\xe2\\x95\\x90){10,}',
    '(?:prowler|trivy|grype|gitleaks|trufflehog|checkov|tfsec|kics|semgrep|bandit)[^\\x0a]{0,}(?:\\x2e\\x20reason\\x3a\\x20exit\\x20status|exited\\x20with\\x20(?:code|status))\\x20[\\x31-\\x39](?:[0-9]){0,}',
    'confidence(?:\\x2emd)?[^\\x0a]{0,}gate[^\\x0a]{0,}fail',
    '(?:[\\x09\\x20\\x3e]){0,}\\x7c(?:[\\x09\\x20]){0,}(?:critical|high)(?:[\\x09\\x20]){0,}\\x7c(?:[\\x09\\x20]){0,}[\\x31-\\x39](?:[0-9]){0,}(?:[\\x09\\x20]){0,}\\x7c',
    '(?:[\\x09\\x20]){0,}vulnerability\\x20\\x23[\\x31-\\x39](?:[0-9]){0,}\\x3a\\x20[^\\x09\\x0a\\x0c\\x0d\\x20]{1,}',
    '(?:(?:found\\x20(?:a|an|one|[\\x31-\\x39](?:[0-9]){0,})\\x20(?:(?:[0-9A-Za-z_]){1,}\\x20)?(?:vulnerabilit|vulnerable|cve\\x2d(?:[0-9]){4,4}\\x2d(?:[0-9]){4,})|found\\x20cve\\x2d(?:[0-9]){4,4}\\x2d(?:[0-9]){4,}[^\\x0a]{0,}vulnerab|[\\x31-\\x39](?:[0-9]){0,}\\x20(?:potentially\\x20)?vulnerable\\x20(?:file(?:s)?|package(?:s)?|dependencies|path(?:s)?|component(?:s)?)|vulnerabilit(?:y|ies)\\x20(?:at\\x20or\\x20above|above|exceeding)\\x20(?:the\\x20)?[^\\x0a]{0,}(?:severity|threshold)|osv\\x2edev\\x2fvulnerability\\x2f|github\\x2ecom\\x2fadvisories\\x2fghsa\\x2d|found\\x20(?:(?:[\\x31-\\x39](?:[0-9]){0,}|a|an|one|some|new)\\x20)?(?:critical|high|moderate|medium|low|severe)(?:[\\x2d\\x2f0-9A-Za-z_]){0,}\\x20(?:severity\\x20)?vulnerabilit|vulnerabilit(?:y|ies)(?:[\\x20\\x22\\x27\\x3a\\x60]){1,}(?:cve\\x2d(?:[0-9]){4,4}\\x2d(?:[0-9]){4,}|ghsa(?:\\x2d(?:[\\x30-\\x39\\x61-\\x7a]){4,4}){3,3}|pysec\\x2d(?:[0-9]){4,4}\\x2d(?:[0-9]){1,})|(?:fail(?:(?:ed|ure))?|error|found|detected|vulnerable)[\\x3a\\t\\n\\f\\r\\x20][^\\x0a]{0,}(?:cve\\x2d(?:[0-9]){4,4}\\x2d(?:[0-9]){4,}|ghsa(?:\\x2d(?:[\\x30-\\x39\\x61-\\x7a]){4,4}){3,3}|pysec\\x2d(?:[0-9]){4,4}\\x2d(?:[0-9]){1,})\\x20in\\x20(?:[\\x2d\\x2e\\x2f\\x400-9A-Za-z_]){1,}\\x20(?:v)?[0-9]|id[^\\x0a]{0,}fix\\x20version(?:s)?[\\x00-\\xff]{0,}(?:cve\\x2d(?:[0-9]){4,4}\\x2d(?:[0-9]){4,}|ghsa(?:\\x2d(?:[\\x30-\\x39\\x61-\\x7a]){4,4}){3,3}|pysec\\x2d(?:[0-9]){4,4}\\x2d(?:[0-9]){1,})))',
    '(?:failed\\x20security\\x20audit\\x20due\\x20to\\x20(?:[\\x2d0-9A-Za-z_]){1,}[^\\x0a]{0,}vulnerabilit|audited\\x20dependencies\\x3a(?:\\x20)?(?:[0-9]){1,}\\x2c(?:\\x20)?vulnerable\\x3a(?:\\x20)?[\\x31-\\x39](?:[0-9]){0,})',
    '(?:skipping\\x20analyzing\\x20\\x22[^\\x0a\\x22]{1,}\\x22\\x3a\\x20module\\x20is\\x20installed\\x2c\\x20but\\x20missing\\x20library\\x20stubs\\x20or\\x20py\\x2etyped\\x20marker|library\\x20stubs\\x20not\\x20installed\\x20for\\x20\\x22[^\\x0a\\x22]{1,}\\x22|cannot\\x20find\\x20implementation\\x20or\\x20library\\x20stub\\x20for\\x20module\\x20named)',
    '\\x2e(?:java|kt|scala)\\x3a(?:(?:[0-9]){1,}|\\x5b(?:[0-9]){1,}\\x2c(?:[0-9]){1,}\\x5d|\\x20\\x28(?:[0-9]){1,}\\x2c(?:\\x20)?(?:[0-9]){1,}\\x29)',
]
_HS_MISS_TEXTS = [
    "> flutter analyze\nAnalyzing provider...\n\n  error • Target of URI doesn't exist: 'package:example/main.dart' • packages/provider/example/test/widget_test.dart:11:8 •\n         uri_does_not_exist\n\n1 issue found. (ran in 4.5s)",
    '[error] -- [E007] Type Mismatch Error: /private/tmp/scala3-fiddling/src/main/scala/Main.scala:27:49\n[error] 27 |    val x: Format.ToFormat[\'a\' *: EmptyTuple] =  ""\n[error]    |                                                 ^^\n[error]    |                   Found:    ("" : String)\n[error]    |                   Required: Format.ToFormat[(\'a\' : Char) *: EmptyTuple]\n[error] one error found',
]


@pytest.mark.parametrize("taxonomy", ["agent-run", "devflow", "replay", "regen", "orchestration"])
def test_batch_plans_scan_no_regex_pattern_with_hyperscan(taxonomy: str) -> None:
    """The bundled hyperscan missed regex matches (the orchestration golden case
    ``prefect-paused-never-resumed-task-running`` among them): a plan hands it literals only."""
    pytest.importorskip("hyperscan")
    from failtax._batch_plan import plan_for

    plan = plan_for(load_table(taxonomy), "hyperscan")
    assert plan.n_units > 0 and not any(plan.engine.regex_ok) and not plan.unit_hs.any()
    assert len(plan.engine.literals) == len(plan.literals) > 0


def test_hyperscan_reports_each_records_first_match_whatever_the_records_before_it_matched() -> None:
    pytest.importorskip("hyperscan")
    engine = _scan.HyperscanEngine([], _HS_MISS_SUPERSETS)
    assert all(engine.regex_ok)
    texts = [t.encode() for t in _HS_MISS_TEXTS]
    hits = engine.scan(_scan.Segment.from_texts(texts, np.array([7, 8])))
    assert sorted(set(hits.rows[hits.lits == 0].tolist())) == [7, 8]
    # and each record's hits are those it has when scanned alone
    for row, text in zip((7, 8), texts, strict=True):
        alone = engine.scan(_scan.Segment.from_texts([text], np.array([row])))
        mine = hits.rows == row
        assert sorted(zip(hits.lits[mine].tolist(), hits.starts[mine].tolist(), strict=True)) == sorted(
            zip(alone.lits.tolist(), alone.starts.tolist(), strict=True))


def test_character_offsets_become_the_byte_offsets_a_hit_carries() -> None:
    """polars 2.2 and later give ``str.find_many``'s offsets in characters, those before in
    bytes; the polars engine turns characters into bytes, whichever this polars is."""
    texts = ["plain ascii error".encode(), "é… ✓ error 💥 error".encode(), "ÄÖÜ".encode()]
    chars = [("plain ascii error", "error"), ("é… ✓ error 💥 error", "error"), ("é… ✓ error 💥 error", "💥"),
             ("ÄÖÜ", "Ü")]
    k = np.array([0, 1, 1, 2])
    pos = np.array([t.find(w) for t, w in chars])
    want = [texts[j].find(w.encode()) for j, (_, w) in zip(k.tolist(), chars, strict=True)]
    assert _scan._char_to_byte_offsets(texts, k, pos).tolist() == want == [12, 10, 16, 4]
    # and the engine's hits carry bytes with the polars installed here
    engine = _scan.make_engine(["error", "é"], engine="polars")
    hits = engine.scan(_scan.Segment.from_texts(texts, np.arange(3)))
    got = {(r, lit): at for r, lit, at in zip(hits.rows.tolist(), hits.lits.tolist(), hits.starts.tolist(), strict=True)}
    assert got == {(0, 0): 12, (1, 0): 10, (1, 1): 0}


@pytest.mark.parametrize("taxonomy", ["agent-run", "devflow", "replay", "regen", "orchestration"])
def test_every_engine_finds_each_literal_where_substring_search_first_finds_it(taxonomy: str) -> None:
    """A plan's literals, scanned over 800 of the taxonomy's real messages (and some of them
    glued twice, so each literal occurs again later): one hit for exactly each literal the
    ASCII-lower-cased text holds, at ``str.find``'s byte."""
    from failtax._batch_plan import plan_for
    from failtax.evidence import ascii_lower, normalise_text

    entries = spread(real_messages(taxonomy), 800)
    texts = [normalise_text(e["text"]).encode() for e in entries if isinstance(e.get("text"), str)]
    texts += [t + b"\n" + t for t in texts[::7]]
    lowered = [ascii_lower(t.decode()).encode() for t in texts]
    want: dict[tuple[str, ...], dict[tuple[int, int], int]] = {}  # (the engines' plans share their literals)
    for engine in _scan.available_engines():
        plan = plan_for(load_table(taxonomy), engine)
        hits = plan.engine.scan(_scan.Segment.from_texts(texts, np.arange(len(texts))))
        got: dict[tuple[int, int], int] = {}
        for r, lit, at in zip(hits.rows.tolist(), hits.lits.tolist(), hits.starts.tolist(), strict=True):
            got[r, lit] = min(at, got.get((r, lit), at))
        literals = tuple(plan.literals)
        if literals not in want:
            want[literals] = _first_occurrences(lowered, literals)
        assert got == want[literals], engine
        # each literal once a record, at its first occurrence (every later one of a
        # space, say, multiplies the work of resolving the hits for nothing)
        pairs = [(r, lit) for r, lit in zip(hits.rows.tolist(), hits.lits.tolist(), strict=True) if lit < len(literals)]
        assert len(pairs) == len(set(pairs)), engine
        # the same records in three segments of their own buffers, read in one call
        # (polars' automaton is built once for all of them): the same hits, row by row
        cuts = [0, len(texts) // 3, len(texts) // 2, len(texts)]
        rows = np.arange(len(texts))[::-1]  # the row numbers need not follow the buffers
        split = plan.engine.scan_all([_scan.Segment.from_texts(texts[a:b], rows[a:b])
                                      for a, b in zip(cuts, cuts[1:], strict=False)])
        again: dict[tuple[int, int], int] = {}
        for r, lit, at in zip(split.rows.tolist(), split.lits.tolist(), split.starts.tolist(), strict=True):
            i = len(texts) - 1 - r
            again[i, lit] = min(at, again.get((i, lit), at))
        assert again == got, engine
        assert len(got) > 1000


def _first_occurrences(texts: list[bytes], literals: Sequence[str]) -> dict[tuple[int, int], int]:
    """{(text, literal): byte of its first occurrence} by plain ``bytes.find``."""
    joined = b"\x00".join(texts)  # no literal holds a NUL
    starts = np.cumsum([0] + [len(t) + 1 for t in texts]).tolist()
    out: dict[tuple[int, int], int] = {}
    for k, lit in enumerate(literals):
        b = lit.encode()
        at = joined.find(b) if b else -1
        while at >= 0:
            r = bisect.bisect_right(starts, at) - 1
            out[r, k] = at - starts[r]
            at = joined.find(b, starts[r + 1])
    return out


def test_failtax_classify_reads_what_the_standard_json_reader_reads(failtax_cmd: list[str], tmp_path: Path) -> None:
    """Lines are read with orjson where it agrees with json: an integer past 64 bits
    (orjson would make it a float), NaN and lone surrogate escapes (orjson refuses them)
    are read as json reads them, and a BOM mid-file is named as json names it."""
    big = 123456789012345678901234567890
    path = tmp_path / "odd.jsonl"
    path.write_bytes(
        b'{"id": 1, "text": "HTTP 429 Too Many Requests", "exit_code": 1}\n'
        + f'{{"id": {big}, "text": "Killed", "exit_code": 137}}\n'.encode()
        + b'{"id": "nan", "text": "Prompt is too long", "exit_code": NaN}\n'
        + b'{"id": "lone", "text": "rate limited \\ud800 here"}\n'
        + b'\xef\xbb\xbf{"id": "bom", "text": "x"}\n'
        + b'{"id": 2, "text": "spawn claude ENOENT", "exit_code": 1}\n'
    )
    proc = subprocess.run([*failtax_cmd, "classify", "--taxonomy", "agent-run", str(path)], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r.get("id") for r in rows[:4]] == [1, big, "nan", "lone"]
    assert isinstance(rows[1]["id"], int)  # written back exactly, not as 1.2345678901234568e+29
    assert [r.get("bucket") for r in rows] == ["rate_limited", "killed", "context_exceeded", "rate_limited", None, "spawn_failure"]
    assert rows[4]["error"].startswith(f"{path}:5: not valid JSON (Unexpected UTF-8 BOM")
    # every answer is what classify() gives for the record json reads from the line
    for line, row in zip(path.read_bytes().splitlines(), rows, strict=True):
        if "error" not in row:
            want = failtax.classify(json.loads(line), taxonomy="agent-run").to_dict()
            assert row == json.loads(json.dumps(want, default=str))


def test_failtax_classify_reads_stdin_with_bad_lines(failtax_cmd: list[str]) -> None:
    stdin = b'{"text": "HTTP 429", "exit_code": 1, "id": "a"}\n\xff\xfe\n[1]\n{"text": "Killed"}'
    proc = subprocess.run([*failtax_cmd, "classify", "--taxonomy", "agent-run"], input=stdin, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    got = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [g.get("bucket") or g["error"] for g in got] == [
        "rate_limited",
        "<stdin>:2: invalid UTF-8 at byte 0",
        "<stdin>:3: expected a JSON object, got list",
        "killed",
    ]
    assert got[0]["id"] == "a"


@pytest.mark.parametrize("engine", _scan.available_engines())
def test_shown_lines_are_masked_in_batch_as_classify_masks_them(engine: str) -> None:
    secret = "sk-ant-api03-" + "Ab9" * 20
    texts = ["HTTP 429 Too Many Requests", f"HTTP 429 Too Many Requests (Authorization: Bearer {secret})", "Prompt is too long"]
    out = classify_batch(pl.DataFrame({"text": texts}), taxonomy="agent-run", engine=engine, n_jobs=1)
    lines = out["matched_line"].to_list()
    assert lines == [failtax.classify({"text": t}, taxonomy="agent-run").matched_line for t in texts]
    assert secret not in lines[1] and "[REDACTED" in lines[1] and "HTTP 429" in lines[1]


def test_tables_that_differ_only_in_routes_share_one_compiled_matcher() -> None:
    """The tuner and the report classify under many candidate tables with the same
    extract rules: their pattern database is compiled once, and each still answers by
    its own routes."""
    from failtax._batch_plan import plan_for

    base = load_table("replay")
    moved = base.replace(route=tuple(r for r in base.route if r.bucket != base.route[0].bucket))
    assert moved.route != base.route  # (8 of the 27 texts below change bucket)
    a, b = plan_for(base, None), plan_for(moved, None)
    assert a is not b and a.engine is b.engine
    texts = pl.DataFrame({"text": [f"{r.contains[0] if r.contains else 'x'} happened" for r in base.extract]})
    for table in (base, moved):
        got = classify_batch(texts, taxonomy="replay", table=table)["bucket"].to_list()
        want = [failtax.classify({"text": t}, taxonomy="replay", table=table).bucket for t in texts["text"]]
        assert got == want
    other = load_table("regen")
    assert plan_for(other, None).engine is not a.engine


def _forbid_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("compiled again instead of read from the cache")

    monkeypatch.setattr(_scan.HyperscanEngine, "_compile", refuse)


def _fresh(taxonomy: str) -> Any:
    """A new copy of a shipped table: nothing compiled for it in this process yet."""
    return load_table(taxonomy).replace()


def test_a_compiled_database_is_kept_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's pattern database is compiled once per cache folder: a new process (here:
    the in-process engine cache emptied) reads it back instead of compiling, and answers
    the same; a damaged file is compiled again and replaced whole; an empty
    ``FAILTAX_CACHE_DIR`` keeps nothing."""
    from failtax import _scan

    # (the replay table compiles in a fraction of a second; the development-flow one takes seconds)
    texts = pl.DataFrame({"text": ["TimeoutError: waiting for selector \"#login\" failed", "Electron crashed",
                                   "nothing here"]})
    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path / "cache"))
    _scan._engine.cache_clear()
    want = classify_batch(texts, taxonomy="replay", table=_fresh("replay"))
    kept = list((tmp_path / "cache" / "hyperscan").glob("*.hsdb"))
    assert len(kept) == 1 and kept[0].stat().st_size > 10_000
    assert not list((tmp_path / "cache" / "hyperscan").glob("*.tmp"))

    with monkeypatch.context() as m:  # read back: compiling would fail
        _forbid_compiling(m)
        _scan._engine.cache_clear()
        assert classify_batch(texts, taxonomy="replay", table=_fresh("replay")).equals(want)

    kept[0].write_bytes(kept[0].read_bytes()[: 5000])  # cut short: compiled again, replaced whole
    _scan._engine.cache_clear()
    assert classify_batch(texts, taxonomy="replay", table=_fresh("replay")).equals(want)
    assert kept[0].stat().st_size > 10_000
    assert want["bucket"].to_list()[:2] == [failtax.classify({"text": t}, taxonomy="replay").bucket
                                            for t in texts["text"][:2]]

    # empty: nothing kept anywhere (not in the default folder, not beside the working directory)
    for d in ("home", "cwd"):
        (tmp_path / d).mkdir()
    monkeypatch.setenv("FAILTAX_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "cwd")
    _scan._engine.cache_clear()
    assert _cache.cache_dir() is None
    assert classify_batch(texts, taxonomy="replay", table=_fresh("replay")).equals(want)
    assert list((tmp_path / "home").iterdir()) == list((tmp_path / "cwd").iterdir()) == []
    assert len(list((tmp_path / "cache" / "hyperscan").glob("*"))) == 1
    # unset: the default folder under XDG_CACHE_HOME
    monkeypatch.delenv("FAILTAX_CACHE_DIR")
    assert _cache.cache_dir() == tmp_path / "home" / "failtax"
    _scan._engine.cache_clear()


_COMPILE_ONCE = """
import os, sys, time
from failtax import _batch_input, _cache, _scan

compile_ = _scan.HyperscanEngine._compile
derive = _scan.Prefilter.of

def slow_compile(self, *args, **kwargs):
    with open(sys.argv[1], "a") as log:
        log.write("compiled\\n")
    time.sleep(1.5)  # a compile long enough for the other process to want the same database
    return compile_(self, *args, **kwargs)

def slow_derive(alt, superset):
    with open(sys.argv[1], "a") as log:
        log.write(f"derived by {os.getpid()}\\n")
    time.sleep(0.2)  # (the same for the regex alternatives' prefilters, derived first)
    return derive(alt, superset)

_scan.HyperscanEngine._compile = slow_compile
_scan.Prefilter.of = staticmethod(slow_derive)
import polars as pl
from failtax.batch import classify_batch
from failtax.table import read_table
texts = pl.DataFrame({"text": ["Electron crashed", "TimeoutError: waiting for selector failed", "nothing"]})
print(classify_batch(texts, table=read_table(sys.argv[2]), engine="hyperscan")["bucket"].to_list())
"""


def test_processes_wanting_the_same_database_at_once_compile_it_once(tmp_path: Path) -> None:
    """Test workers, ``classify -j`` workers and Spark's Python workers start together on
    a fresh cache folder: one derives the regex prefilters and compiles the table's
    database, the others wait for those files and read them."""
    pytest.importorskip("hyperscan")
    import dataclasses

    from failtax.table import save_table

    # A small table (its text rules only, a dozen): compiled in milliseconds, slowed above.
    replay = load_table("replay")
    table = tmp_path / "small.toml"
    save_table(dataclasses.replace(replay, extract=tuple(r for r in replay.extract if r.uses_text)[:12]), table)
    log = tmp_path / "compiles.log"
    env = {**os.environ, "FAILTAX_CACHE_DIR": str(tmp_path / "cache")}
    procs = [subprocess.Popen([sys.executable, "-c", _COMPILE_ONCE, str(log), str(table)], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err for _, err in outs]
    assert len({out for out, _ in outs}) == 1  # the same answers
    lines = log.read_text().splitlines()
    assert lines.count("compiled") == 1
    derived = [line for line in lines if line.startswith("derived by ")]
    assert len(derived) >= 6 and len(set(derived)) == 1, derived  # one process, each alternative once
    assert len(list((tmp_path / "cache" / "hyperscan").glob("*.hsdb"))) == 1
    assert len(list((tmp_path / "cache" / "prefilters").glob("*.json"))) == 1


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string(), pa.string_view()])
def test_null_rows_are_read_from_the_validity_bitmap_at_any_offset(kind: pa.DataType) -> None:
    from failtax._batch_input import _valid

    values = ["HTTP 429 from the gateway", None, "short", None, "x" * 40, "", None] * 3
    arrays = [pa.array(values, type=kind), pa.array([v for v in values if v is not None], type=kind)]
    for arr in arrays:
        for off in range(len(arr)):
            for n in (0, 1, 5, len(arr) - off):
                part = arr.slice(off, n)
                assert _valid(part).tolist() == [v is not None for v in arr.to_pylist()[off:off + n]], (kind, off, n)


def test_classifying_a_file_in_a_new_process_does_not_import_pandas(tmp_path: Path) -> None:
    """Half a second of every ``failtax classify``: the batch path reads texts through
    Arrow and polars only."""
    f = tmp_path / "one.jsonl"
    f.write_text('{"id": "a", "text": "HTTP 429 Too Many Requests"}\n{"id": "b", "text": null}\n')
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('pandas imported:', 'pandas' in sys.modules, file=sys.stderr))\n"
            "from failtax.cli import main\nmain()\n")
    r = subprocess.run([sys.executable, "-c", code, "classify", "--taxonomy", "replay", str(f)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "pandas imported: False" in r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["id"] for x in rows] == ["a", "b"]
    assert [x["bucket"] for x in rows] == [failtax.classify({"text": "HTTP 429 Too Many Requests"}, taxonomy="replay").bucket,
                                           failtax.classify({"text": None}, taxonomy="replay").bucket]


def test_the_prefilters_of_a_table_are_kept_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the regex parser derives for every alternative of a table is kept in the cache
    folder: read back whole and equal (tuples, ``None`` s, non-ASCII literals), never
    derived again while the file is good, derived again when it is damaged, and named
    anew when the rules that derive it (this module's source) change."""
    table = load_table("devflow")
    alts = [a for rule in table.extract if rule.regex is not None for a in _scan.split_alternatives(rule.regex)]
    alts += ["Fehler: Zugriff verweigert|(?i)ошибка \\d+", "日{3,5}!", "(?m)^killed\\b|sig(?:kill|term)"]
    fresh = [_scan.Prefilter.of(a, True) for a in alts]
    assert any(p.exact for p in fresh) and any(p.superset for p in fresh) and any(p.required for p in fresh)
    assert any(p.width is None for p in fresh) and any(p.width is not None for p in fresh)
    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path / "cache"))
    assert _scan.prefilters(alts, superset=True) == fresh
    kept = list((tmp_path / "cache" / "prefilters").iterdir())
    assert len(kept) == 1 and kept[0].suffix == ".json"

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("derived again instead of read from the cache")

    with monkeypatch.context() as m:
        m.setattr(_scan.Prefilter, "of", refuse)
        assert _scan.prefilters(alts, superset=True) == fresh
        with pytest.raises(AssertionError, match="derived again"):  # another question: another file
            _scan.prefilters(alts, superset=False)
    assert _scan.prefilters(alts, superset=False) == [_scan.Prefilter.of(a, False) for a in alts]
    assert len(list((tmp_path / "cache" / "prefilters").iterdir())) == 2

    kept[0].write_bytes(kept[0].read_bytes()[:100])  # cut short: derived again, replaced whole
    assert _scan.prefilters(alts, superset=True) == fresh
    assert len(json.loads(kept[0].read_bytes())) == len(alts)

    before = _scan._prefilter_path(alts, True)
    from failtax import _cache

    monkeypatch.setattr(_cache, "source_digest", lambda path: "another version of the rules")
    assert _scan._prefilter_path(alts, True) not in (None, before)
    monkeypatch.setenv("FAILTAX_CACHE_DIR", "")  # empty: nothing kept
    assert _scan._prefilter_path(alts, True) is None


@pytest.mark.skipif("hyperscan" not in _scan.available_engines(), reason="no hyperscan wheel on this platform")
def test_a_superset_finds_every_match_of_its_pattern_at_any_gap() -> None:
    """A regex runs on RE2 only where its superset matched in the scan, so the superset
    must match wherever the regex does: across gaps of one character class up to the
    bound, with characters of one to four bytes in the gap, and next to other records."""
    from failtax.table import compile_regex

    patterns = [r"fail[^\n]{0,40}even though", r"(?:hung|stuck).{0,100}sub-?agents?", r"x\s{2,7}y", r"日{3,5}!", r"a.{1,6}b"]
    rng = random.Random(11)
    pieces = ["fail", "even though", "hung", "stuck", "subagent", "sub-agents", "x", "y", "!", "é", "日", "日日日", "😀",
              " ", "  ", "\t", "\n", "a", "bc"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 60))) for _ in range(3000)]
    texts += ["fail" + "é" * 40 + "even though", "fail" + "😀" * 40 + "even though", "x" + " " * 7 + "y",
              "hung" + "日" * 100 + "subagent", "a" + "😀" * 6 + "b"]
    engine = _scan.make_engine([], [_scan.superset_pattern(p) for p in patterns], engine="hyperscan")
    assert all(engine.regex_ok)
    hits = engine.scan(_scan.Segment.from_texts([t.lower().encode() for t in texts], np.arange(len(texts))))
    found = set(zip(hits.rows.tolist(), hits.lits.tolist(), strict=True))
    for u, p in enumerate(patterns):
        rx = compile_regex(p)
        want = {i for i, t in enumerate(texts) if rx.search(t.lower()) is not None}
        assert len(want) >= 15, (p, len(want))
        assert want <= {i for i, lit in found if lit == u}, p


@pytest.mark.parametrize("taxonomy", ["agent-run", "devflow", "replay", "regen", "orchestration"])
def test_every_shipped_regex_runs_only_where_the_scan_says_it_can_match(taxonomy: str) -> None:
    """A regex alternative outside the plan's RE2 set with neither a superset in the
    scan nor a required literal runs on RE2 over every record: three such alternatives
    of one table once took three quarters of its confirmations, all of them misses."""
    from failtax._batch_plan import plan_for

    for engine in _scan.available_engines():
        plan = plan_for(load_table(taxonomy), engine)
        everywhere = [plan.units[u][0].pattern for u in range(plan.n_units)
                      if not plan.unit_in_set[u] and not plan.unit_hs[u] and plan.unit_group[u] < 0]
        assert everywhere == [], (engine, everywhere)


@pytest.mark.parametrize(
    "pattern",
    [
        r"\bstatus(?:[ _]?code)?\s*[:=]\s*503\b",  # a class opening with a colon
        r"(?m-i)(?:^|[\s\[(])FAIL(?:$|[\s\]):])",  # a leading group turning i off
        r"(?m-i)^[ \t]*\S*:\d+ (?:DL|SC)\d{4}\b",
        r"reason[:=]\s*(?:turn|step)",
    ],
)
def test_colon_classes_and_flags_turned_off_still_give_prefilters(pattern: str) -> None:
    """Both prefilters exist for these and hold every match: its required literals
    occur in every matching text, and its superset matches there."""
    from failtax.table import compile_regex

    rx = compile_regex(pattern)
    texts = ["status: 503", "STATUS_CODE=503 x", "status 503", "x FAIL y", "(FAIL)", "fail", "a:12 DL3008 b",
             "src/a.sh:3 SC2086 warn", "a:1 dl3008", "reason:turn", "Reason= step", "reason: walk", "503"]
    want = {i for i, t in enumerate(texts) if rx.search(t) is not None}
    assert want, pattern
    required = _scan.required_literals(pattern)
    assert required, pattern
    assert all(any(lit in texts[i].lower() for lit in required) for i in want), (pattern, required)
    if "hyperscan" not in _scan.available_engines():
        return
    superset = _scan.superset_pattern(pattern)
    assert superset is not None, pattern
    engine = _scan.make_engine([], [superset], engine="hyperscan")
    assert list(engine.regex_ok) == [True]
    hits = engine.scan(_scan.Segment.from_texts([t.lower().encode() for t in texts], np.arange(len(texts))))
    assert want <= set(hits.rows.tolist()), pattern


def test_each_part_of_a_gapped_regex_names_its_literals_and_the_rarest_in_bytes_is_required() -> None:
    """Every match holds a literal of each part; the part required is the one whose
    shortest literal is longest in UTF-8 (完成后 is nine bytes, agent five)."""
    from failtax.table import compile_regex

    pattern = r"(?:agent|智能体)\s*(?:运行|执行)?(?:完成|结束)后[^\n]{0,40}(?:为空|没有(?:任何)?输出)"
    parts = _scan.required_literal_sets(pattern)
    assert parts == (("agent", "智能体"), ("完成后", "结束后"), ("为空", "没有任何输出", "没有输出"))
    assert _scan.required_literals(pattern) == ("完成后", "结束后")
    rx = compile_regex(pattern)
    for text in ("Agent 运行完成后 返回为空", "智能体结束后：没有任何输出", "agent完成后没有输出"):
        assert rx.search(text) is not None
        assert all(any(lit in text.lower() for lit in part) for part in parts), text


def test_the_cached_walk_of_a_pattern_hands_every_caller_the_same_frozen_answer() -> None:
    """Both answers read one cached walk; a caller that could change its sets would change
    the next caller's answer, so the walk hands out frozen sets only."""
    pattern = r"\brate limit\b.*\b(?:mid-task|mid-run)\b"
    first = _scan._top_level(pattern)
    assert first is not None and _scan._top_level(pattern) is first
    exact, parts = first
    assert isinstance(parts, tuple) and parts
    assert all(isinstance(p, frozenset) for p in parts)
    assert exact is None or isinstance(exact, frozenset)
    whole = _scan._top_level(r"killed by signal|signal: (?:killed|terminated)")
    assert whole is not None and isinstance(whole[0], frozenset)
    assert whole[0] == {"killed by signal", "signal: killed", "signal: terminated"}
    assert _scan.required_literal_sets(pattern) == (("rate limit",), ("mid-run", "mid-task"))


TWO_PART_TABLE = """
[table]
name = "t"
taxonomy = "agent-run"
version = "0.1.0"
fallback = "unknown_non_zero"

[[extract]]
id = "worker-word"
signal = "network"
contains = ["worker"]

[[extract]]
id = "worker-quota"
signal = "usage-limit"
regex = '''\\bworker\\w*\\b[^\\n]{0,40}\\bquota exhausted\\b'''

[[route]]
id = "usage"
bucket = "usage_limit"
any = ["usage-limit"]

[[route]]
id = "net"
bucket = "network"
any = ["network"]
"""


def test_a_gapped_alternative_is_searched_only_where_each_of_its_parts_can_match(tmp_path, monkeypatch) -> None:
    """"worker" is scanned for another rule, so the gapped alternative's other part comes
    free: RE2 runs only in rows holding both "quota exhausted" and "worker"."""
    from failtax import _batch_resolve
    from failtax._batch_plan import plan_for
    from failtax.table import read_table

    path = tmp_path / "t.toml"
    path.write_text(TWO_PART_TABLE, encoding="utf-8")
    table = read_table(path)
    plan = plan_for(table, None)
    (u,) = plan.rule_units[1]
    assert plan.set_col[u] < 0  # gapped: searched one by one
    held = [[lit for i, lit in enumerate(plan.literals) if g in plan.lg_data[plan.lg_ptr[i]:plan.lg_ptr[i + 1]]]
            for g in plan.unit_also[u]]
    assert held == [["worker"]]
    texts = ["daily quota exhausted, try tomorrow"] * 30 + ["the workers stopped: quota exhausted"] * 3
    texts += ["worker pool idle"] * 30
    searched = []
    real = _batch_resolve._re2_start

    def counting(rx, data, pos):
        searched.append(bytes(data))
        return real(rx, data, pos)

    monkeypatch.setattr(_batch_resolve, "_re2_start", counting)
    got = classify_batch(pl.DataFrame({"text": texts}), table=table, n_jobs=1)["bucket"].to_list()
    assert got == [failtax.classify({"text": t}, taxonomy="agent-run", table=table).bucket for t in texts]
    assert got[30:33] == ["usage_limit"] * 3 and got[0] == "unknown_non_zero"
    assert len(searched) == 3 and all(b"worker" in d for d in searched)


def test_posix_classes_are_still_left_to_re2() -> None:
    """RE2 reads "[[:digit:]]" as a POSIX class and Python does not: no prefilter is derived."""
    assert _scan.required_literals(r"code[[:space:]]+429") is None
    assert _scan.superset_pattern(r"code[[:space:]]+429") is None
