"""Compressed telemetry and evidence: gzip, bzip2, xz and zstd files, told by their bytes.

Log rotation compresses with any of them, so `failtax load` and `failtax classify` read
all four as they read plain files: the same rows and answers, a stream cut short keeps
what was read before the cut and says where it stopped.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard

from failtax import load_table
from failtax._compressed import HEAD, ZstdFrames, compression_of, decompressed
from failtax.batch import classify_jsonl
from failtax.telemetry import load

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "telemetry"))
from make_fixtures import numbered_event  # noqa: E402

CMD = [sys.executable, "-c", "from failtax.cli import main; main()"]

COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zstd": zstandard.ZstdCompressor().compress,
}
SUFFIX = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}
CUT_SHORT = "Compressed file ended before the end-of-stream marker was reached"


def _lines(first: int, n: int) -> bytes:
    return "".join(json.dumps(numbered_event(i), separators=(",", ":")) + "\n"
                   for i in range(first, first + n)).encode()


def _read_all(reader, piece: int) -> bytes:
    out = []
    while chunk := reader.read1(piece):
        out.append(chunk)
    return b"".join(out)


# --------------------------------------------------------------------------- telling the format


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_each_format_is_told_by_its_first_bytes(kind: str) -> None:
    assert compression_of(COMPRESS[kind](b'{"a": 1}\n')[:HEAD]) == kind
    assert compression_of(COMPRESS[kind](b"")[:HEAD]) == kind  # an empty stream too


def test_text_is_not_taken_for_a_compressed_stream() -> None:
    for text in (b'{"ts": "2026-09-07"}', b"BZh9 looks like bzip2 but is prose", b"BZh91AY", b"", b"\x1f",
                 "\ufeff{}".encode(), "{}".encode("utf-16")):
        assert compression_of(text[:HEAD]) is None, text


# --------------------------------------------------------------------------- the zstd reader


def test_zstd_frames_read_across_frames_and_say_where_a_stream_is_cut_short() -> None:
    data = _lines(1, 3000)
    one = zstandard.ZstdCompressor().compress(data)
    for piece in (1, 1000, 1 << 20):
        assert _read_all(ZstdFrames(io.BytesIO(one)), piece) == data
    assert _read_all(ZstdFrames(io.BytesIO(one + one)), 4096) == data + data
    # a frame cut short, alone or after a whole one: what the whole frames gave, then EOFError
    for blob, whole in ((one[:-20], None), (one + one[: len(one) // 2], data)):
        reader = ZstdFrames(io.BytesIO(blob))
        got = []
        with pytest.raises(EOFError, match=CUT_SHORT):
            while chunk := reader.read1(65536):
                got.append(chunk)
        if whole is not None:
            assert b"".join(got)[: len(whole)] == whole
    # zstandard's own reader is quiet about the cut: the reason this reader exists
    assert zstandard.ZstdDecompressor().stream_reader(io.BytesIO(one[:-20])).read() != data


def test_peek_leaves_the_bytes_to_be_read_and_close_closes_the_file(tmp_path: Path) -> None:
    data = _lines(1, 50)
    for kind, compress in COMPRESS.items():
        f = tmp_path / f"x{SUFFIX[kind]}"
        f.write_bytes(compress(data))
        raw = open(f, "rb")
        reader = decompressed(raw, kind)
        assert reader.peek(2)[:2] == b'{"'
        assert _read_all(reader, 7) == data
        with reader:
            pass
        assert raw.closed, kind


# --------------------------------------------------------------------------- failtax load


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_a_compressed_file_loads_the_rows_of_its_plain_twin(tmp_path: Path, kind: str) -> None:
    data = _lines(1, 400) + b"{broken\n" + _lines(402, 99)
    plain = tmp_path / "plain" / "events.jsonl"
    plain.parent.mkdir()
    plain.write_bytes(data)
    # found in a directory under a rotated name, and named with no compression suffix at all
    folder = tmp_path / "rotated"
    folder.mkdir()
    (folder / f"events.jsonl.1{SUFFIX[kind]}").write_bytes(COMPRESS[kind](data))
    misnamed = tmp_path / "misnamed.jsonl"
    misnamed.write_bytes(COMPRESS[kind](data))
    q_events = "SELECT line, run_id, ts, signals FROM events ORDER BY line"
    q_bad = "SELECT line, reason, raw FROM quarantine ORDER BY line"
    want = load(plain)
    for source in (folder, misnamed):
        got = load(source)
        assert len(got.summary.files) == 1
        assert got.sql(q_events).fetchall() == want.sql(q_events).fetchall() != []
        assert got.sql(q_bad).fetchall() == want.sql(q_bad).fetchall() == [(401, "invalid-json", "{broken")]


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_a_compressed_file_cut_short_keeps_the_lines_before_the_cut(tmp_path: Path, kind: str) -> None:
    """Two streams one after the other (a rotated file compressed twice, or appended to),
    the second cut short: every line of the first is loaded, and one `unreadable` line
    names the format and why reading stopped."""
    first, second = COMPRESS[kind](_lines(1, 300)), COMPRESS[kind](_lines(301, 300))
    f = tmp_path / f"cut.jsonl{SUFFIX[kind]}"
    f.write_bytes(first + second[: len(second) - 12])
    tel = load(f)
    lines = [r[0] for r in tel.sql("SELECT line FROM events ORDER BY line").fetchall()]
    assert lines[:300] == list(range(1, 301)) and lines == list(range(1, len(lines) + 1))
    q = tel.sql("SELECT line, reason, detail FROM quarantine WHERE reason = 'unreadable'").fetchall()
    assert len(q) == 1 and q[0][0] > 300
    assert q[0][2] == f"{kind} stream unreadable: {CUT_SHORT}"


@pytest.mark.parametrize("kind", ["bzip2", "xz", "zstd"])
def test_a_damaged_compressed_file_is_quarantined_as_unreadable_not_as_garbage(tmp_path: Path, kind: str) -> None:
    blob = bytearray(COMPRESS[kind](_lines(1, 2000)))
    blob[len(blob) // 2] ^= 0xFF
    f = tmp_path / f"flipped.jsonl{SUFFIX[kind]}"
    f.write_bytes(bytes(blob))
    tel = load(f)
    reasons = dict(tel.sql("SELECT reason, count(*) FROM quarantine GROUP BY reason").fetchall())
    # what was decoded before the damage may load; what was not is one line saying why
    assert reasons.get("unreadable") == 1 and "invalid-utf8" not in reasons
    ((detail,),) = tel.sql("SELECT detail FROM quarantine WHERE reason = 'unreadable'").fetchall()
    assert detail.startswith(f"{kind} stream unreadable: ")


def test_a_second_load_of_an_unchanged_compressed_file_adds_nothing(tmp_path: Path) -> None:
    f, db = tmp_path / "events.jsonl.zst", tmp_path / "t.duckdb"
    f.write_bytes(COMPRESS["zstd"](_lines(1, 120)))
    load(f, db=db).close()
    again = load(f, db=db)
    assert again.summary.files[0].status == "unchanged" and again.summary.events_added == 0
    assert again.sql("SELECT count(*) FROM events").fetchall() == [(120,)]


# --------------------------------------------------------------------------- failtax classify


def _answers(paths: list[Path], jobs: int = 1) -> list[dict]:
    out = io.BytesIO()
    classify_jsonl([str(p) for p in paths], table=load_table("agent-run"), out=out, n_jobs=jobs, chunk_bytes=8000)
    return [json.loads(ln) for ln in out.getvalue().splitlines()]


def _evidence(n: int) -> bytes:
    texts = ["HTTP 429 Too Many Requests", "401 Unauthorized: invalid x-api-key", "Killed", "ECONNRESET"]
    return b"".join(json.dumps({"id": f"r{i}", "text": texts[i % 4], "exit_code": 1}).encode() + b"\n"
                    for i in range(n))


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_classify_answers_a_compressed_file_as_its_plain_twin(tmp_path: Path, kind: str) -> None:
    data = _evidence(1200)
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(data)
    packed = tmp_path / "packed.jsonl"  # no suffix to go by
    packed.write_bytes(COMPRESS[kind](data))
    want = _answers([plain])
    assert _answers([packed]) == want
    if kind == "zstd":  # read here, classified by worker processes
        assert _answers([packed], jobs=2) == want
    assert {a["bucket"] for a in want} == {"rate_limited", "auth", "killed", "network"}


@pytest.mark.parametrize("kind", ["bzip2", "xz", "zstd"])
def test_classify_a_compressed_file_cut_short_answers_up_to_the_cut_then_goes_on(tmp_path: Path, kind: str) -> None:
    first = _evidence(500)
    cut = tmp_path / f"cut.jsonl{SUFFIX[kind]}"
    cut.write_bytes(COMPRESS[kind](first) + COMPRESS[kind](_evidence(500))[:-10])
    after = tmp_path / "after.jsonl"
    after.write_bytes(b'{"text": "HTTP 401 Unauthorized"}\n')
    got = _answers([cut, after])
    errors = [(i, g["error"]) for i, g in enumerate(got) if "error" in g]
    assert len(errors) == 1
    at, said = errors[0]
    assert at >= 500 and [g["id"] for g in got[:at]] == [f"r{i % 500}" for i in range(at)]
    assert said == f"{cut}:{at + 1}: cannot read from this line on: {CUT_SHORT}"
    assert got[-1]["bucket"] == "auth" and len(got) == at + 2


def test_the_cli_reads_compressed_files_and_standard_input(tmp_path: Path) -> None:
    """Named or piped in, JSON Lines or one whole stderr capture (the library tests above
    cover every format; here each way in once, each with another format)."""
    data = _evidence(40)
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(data)
    want = subprocess.run([*CMD, "classify", "-t", "agent-run", str(plain)], capture_output=True)
    assert want.returncode == 0 and len(want.stdout.splitlines()) == 40
    named = tmp_path / "evidence.jsonl.zst"
    named.write_bytes(COMPRESS["zstd"](data))
    for args, stdin in (([str(named)], b""), ([], COMPRESS["xz"](data))):
        p = subprocess.run([*CMD, "classify", "-t", "agent-run", *args], input=stdin, capture_output=True)
        assert (p.stdout, p.stderr) == (want.stdout, b""), args
    capture = b"Retrying request...\nError: 429 Too Many Requests: rate limit exceeded\n" * 30
    stderr_file = tmp_path / "stderr.txt.bz2"
    stderr_file.write_bytes(COMPRESS["bzip2"](capture))
    for args, stdin in (([str(stderr_file)], b""), ([], COMPRESS["gzip"](capture))):
        p = subprocess.run([*CMD, "classify", "-t", "agent-run", "--text", *args], input=stdin, capture_output=True)
        assert p.returncode == 0 and json.loads(p.stdout)["bucket"] == "rate_limited", (args, p.stderr)


def test_telling_the_format_of_an_unreadable_file_costs_only_that_file(tmp_path: Path) -> None:
    """A file that opens but cannot be read (an I/O error, here /proc/self/mem through a
    link) is answered with one error line in its place, and the next file is classified."""
    eio = tmp_path / "eio.jsonl"
    eio.symlink_to("/proc/self/mem")
    after = tmp_path / "after.jsonl.zst"
    after.write_bytes(COMPRESS["zstd"](b'{"text": "HTTP 401 Unauthorized"}\n'))
    got = _answers([eio, after])
    assert got[0] == {"error": f"{eio}:1: cannot read from this line on: Input/output error"}
    assert got[1]["bucket"] == "auth" and len(got) == 2
