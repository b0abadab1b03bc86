"""Finding telemetry files and cutting them into numbered lines, fast and exactly.

A file is read in large blocks; newlines are found with numpy and the lines become an
Arrow string array over the block's own bytes (no copy, no Python loop per line), with
their 1-based line numbers. Lines that are not valid UTF-8 are found with the
standard decoder (which stops only at a bad byte) and handed back separately, so the
database only ever sees valid text. Gzip files are decompressed as a stream, member by
member, each member's CRC checked (a member that fails it is reported with the lines it
gave, which the loader then takes out of the tables); bzip2, xz and zstd files (told by
their first bytes, as gzip ones are) are decompressed as a stream too, a damaged or
cut-short one read up to where it fails; a file that opens with a UTF-16 byte order mark
(PowerShell 5's ``>`` writes those) is transcoded to UTF-8 as it is read, and its offsets
count the UTF-8 bytes, as a compressed file's count the decompressed ones.
"""

from __future__ import annotations

import codecs
import dataclasses
import glob
import gzip
import hashlib
import os
import queue
import re
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from failtax._compressed import READ_ERRORS, compression, decompressed, read_block
from failtax.errors import TelemetryError
from failtax.evidence import Utf16AsUtf8 as _Utf16AsUtf8
from failtax.evidence import without_utf8_bom

__all__ = ["NUL_RUNS_CAUSE", "BadLine", "Chunk", "FileIdentity", "count_files", "discover_files", "file_identity",
           "find_files", "is_compressed", "prefetch", "read_chunks", "show_nul_runs", "tail_matches"]

#: Suffixes picked up when a directory is given (explicit files are read whatever their name).
TELEMETRY_SUFFIXES = tuple(base + packed for base in (".jsonl", ".ndjson", ".log", ".json")
                           for packed in ("", ".gz", ".bz2", ".xz", ".zst") if (base, packed) != (".json", ""))
#: The same, with the numbers and dates log rotation puts after them (app.jsonl.1,
#: app.jsonl.2.gz, app.jsonl-20260907.zst): a file renamed by rotation keeps being found,
#: so its lines are not lost when the live file, replaced, is reloaded.
_TELEMETRY_NAME = re.compile(r"\.(?:jsonl|ndjson|log)(?:[.-][0-9][0-9-]*)?(?:\.(?:gz|bz2|xz|zst))?$"
                             r"|\.json\.(?:gz|bz2|xz|zst)$")
HEAD_BYTES = 1024
#: Bytes before the resume point compared again when a file has grown (see tail_matches).
TAIL_BYTES = 1024
#: A line longer than this (NUL bytes aside) is not read whole: it is quarantined.
MAX_LINE_BYTES = 64 << 20
#: Why a line holds runs of NUL bytes, for the quarantine's detail.
NUL_RUNS_CAUSE = ("a writer that stops on a preallocated file, or a crash that zeroes a file's last block, "
                  "leaves runs of them")
_NUL_RUN = re.compile("\x00+")


def show_nul_runs(text: str) -> str:
    """``text`` with each run of NUL bytes shown as one U+FFFD (the quarantine's ``raw``)."""
    return _NUL_RUN.sub("\ufffd", text)


# Blocks of a few MB: the allocator reuses them (bigger ones cost fresh pages every time).
DEFAULT_CHUNK_BYTES = 8 << 20
_BATCH_ROWS = 32_768


@dataclass(frozen=True)
class FileIdentity:
    """What tells a file apart between loads: size, modification time, hash of its head."""

    size: int
    mtime_ns: int
    head_hash: str
    head_len: int = HEAD_BYTES

    @classmethod
    def of(cls, path: str | os.PathLike[str], *, head_len: int = HEAD_BYTES) -> FileIdentity:
        """Measure ``path``: hash its first ``head_len`` bytes (fewer if it is shorter).

        A file shorter than 1 KB that grew is recognised by hashing as many bytes as it
        had before. Raises ``OSError`` when it cannot be read.
        """
        st = os.stat(path)
        with open(path, "rb") as fh:
            head = fh.read(head_len)
        return cls(size=st.st_size, mtime_ns=st.st_mtime_ns, head_hash=hashlib.sha256(head).hexdigest(),
                   head_len=len(head))


def tail_matches(path: str | os.PathLike[str], offset: int, length: int, digest: str) -> bool:
    """Are the ``length`` bytes of ``path`` before ``offset`` the ones whose SHA-256 is ``digest``?

    A file that looks grown (same first KB, larger) may instead have been rewritten with
    the same first lines and more; reading on from the old offset would then start inside
    some line and keep the rows of lines that are gone. Raises ``OSError`` when the file
    cannot be read.
    """
    return tail_digest(path, offset, length)[0] == digest


def tail_digest(path: str | os.PathLike[str], offset: int, length: int = TAIL_BYTES) -> tuple[str, int]:
    """(SHA-256, byte count) of the up to ``length`` bytes of ``path`` before ``offset``, as
    a load remembers them to check that a grown file still holds what it read. Raises
    ``OSError`` when the file cannot be read."""
    start = max(0, offset - length)
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read(offset - start)
    return hashlib.sha256(data).hexdigest(), len(data)


def file_identity(path: str | os.PathLike[str]) -> FileIdentity:
    """Size, mtime and head hash of ``path`` (see :class:`FileIdentity`)."""
    return FileIdentity.of(path)


@dataclass(frozen=True)
class BadLine:
    """A line that never reaches SQL: invalid UTF-8, or the point where reading failed."""

    line: int
    reason: str
    detail: str
    raw: str


@dataclass(frozen=True)
class Chunk:
    """A block of complete lines: ``table`` has ``line_no`` (BIGINT) and ``text``.

    ``text`` keeps each line's ``\\n``. ``end_offset`` is the byte offset (in the
    decompressed stream) just after the last complete line; ``last_line`` the number
    of that line. ``unterminated`` is the number of a final line that had no newline
    (it is in ``table`` with a ``\\n`` added), if any. ``nuls`` names lines longer than a
    read block whose blocks of nothing but NUL bytes were left out of their text (one NUL
    byte stands for each such run), with how many bytes were left out.
    """

    table: pa.Table
    bad: tuple[BadLine, ...]
    first_line: int
    last_line: int
    end_offset: int
    unterminated: int | None = None
    nbytes: int = 0
    nuls: tuple[tuple[int, int], ...] = ()  # (line, NUL bytes of it left out of its text)
    damaged_from: int | None = None  # lines from this one to first_line - 1 came from a gzip member that failed
    tail: bytes | None = None  # a plain file's bytes just before end_offset (see tail_matches)
    opened: bool = True  # False: the file could not be opened (the one bad line says why)


def discover_files(paths_or_globs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str]) -> list[Path]:
    """Expand files, globs and directories into a sorted list of distinct files.

    Directories are searched recursively for ``*.jsonl``, ``*.ndjson``, ``*.log``, their
    ``.gz``, ``.bz2``, ``.xz`` and ``.zst`` forms and the names log rotation gives them
    (``*.jsonl.1``, ``*.log.2.gz``, ``*.jsonl-20260907``); hidden files are skipped. A file named explicitly is taken
    whatever its name. An input that matches nothing raises :class:`TelemetryError`.
    :func:`find_files` also says which files of the directories were left out.

    >>> discover_files([])
    []
    """
    return find_files(paths_or_globs)[0]


def find_files(
    paths_or_globs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
) -> tuple[list[Path], list[Path]]:
    """:func:`discover_files`, and the files of the directories searched that were left
    out because their names are not telemetry names (``events.json``, ``notes.txt``;
    hidden files aside), so that a load can say so instead of passing over them silently.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("a.jsonl", "b.json", ".hidden.jsonl"): _ = (d / name).write_text("{}\\n")
    >>> files, left_out = find_files(d)
    >>> [p.name for p in files], [p.name for p in left_out]
    (['a.jsonl'], ['b.json'])
    """
    if isinstance(paths_or_globs, str | os.PathLike):
        paths_or_globs = [paths_or_globs]
    found: dict[str, Path] = {}
    passed: dict[str, Path] = {}

    def walk(root: Path) -> list[Path]:
        hits = []
        for q in sorted(root.rglob("*")):
            if not q.is_file() or _is_hidden(q, root=root):
                continue
            if _is_telemetry_name(q, root=root):
                hits.append(q)
            else:
                passed.setdefault(str(q.resolve()), q.resolve())
        return hits

    for item in paths_or_globs:
        s = os.fspath(item)
        p = Path(s).expanduser()
        if p.is_dir():
            hits = walk(p)
        elif p.is_file():
            hits = [p]
        elif p.exists() and not glob.has_magic(s):
            raise TelemetryError(f"{s}: not a regular file (a pipe or device cannot be loaded: a load reads a "
                                 "file again to resume it); copy it to a file first")
        elif glob.has_magic(s):
            hits = []
            for g in sorted(glob.glob(os.path.expanduser(s), recursive=True)):
                q = Path(g)
                if q.is_file():
                    hits.append(q)
                elif q.is_dir():
                    hits.extend(walk(q))
        else:
            raise TelemetryError(f"{s}: no such file or directory")
        if not hits:
            raise TelemetryError(f"{s}: matched no telemetry files (*.jsonl, *.ndjson, *.log, those and *.json "
                                 "compressed as .gz, .bz2, .xz or .zst, and rotated ones such as *.jsonl.1 or "
                                 "*.jsonl-20260907.gz)")
        for q in hits:
            found.setdefault(str(q.resolve()), q.resolve())
    left_out = [passed[k] for k in sorted(passed) if k not in found]
    return [found[k] for k in sorted(found)], left_out


def count_files(paths: Sequence[str], *, shown: int = 5) -> str:
    """``N file(s) (a, b, … and M more)``: the files a load left out, for a summary line.

    >>> count_files(["logs/events.json"])
    '1 file (logs/events.json)'
    >>> count_files([f"f{i}" for i in range(7)], shown=2)
    '7 files (f0, f1 and 5 more)'
    """
    more = f" and {len(paths) - shown:,} more" if len(paths) > shown else ""
    return f"{len(paths):,} file{'s' * (len(paths) != 1)} ({', '.join(paths[:shown])}{more})"


def _is_hidden(p: Path, *, root: Path) -> bool:
    return any(part.startswith(".") for part in p.relative_to(root).parts)


def _is_telemetry_name(p: Path, *, root: Path) -> bool:
    return not _is_hidden(p, root=root) and _TELEMETRY_NAME.search(p.name.lower()) is not None


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """True for a gzip, bzip2, xz or zstd file (by its magic bytes, whatever its name):
    its offsets count decompressed bytes."""
    return compression(path) is not None


def read_chunks(
    path: str | os.PathLike[str],
    *,
    offset: int = 0,
    first_line: int = 1,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    on_bytes: Callable[[int], None] | None = None,
    size: int | None = None,
) -> Iterator[Chunk]:
    """Yield ``path``'s lines from byte ``offset`` on, numbered from ``first_line``.

    ``offset`` counts bytes of the decompressed stream for compressed files. ``on_bytes`` is
    called with the number of file bytes consumed since its last call (for progress).
    ``size``, when given, is the file's size as it was measured: bytes written after it
    are not read (a writer that keeps appending would otherwise never let the read end),
    and a line they complete is read whole by the next load.
    """
    try:
        kind = compression(path)
        raw = open(path, "rb")
        if size is not None:
            raw = _Upto(raw, size)
    except OSError as exc:  # gone or unreadable since it was found
        yield Chunk(table=_empty_table(), first_line=first_line, last_line=first_line - 1, end_offset=offset,
                    bad=(BadLine(line=first_line, reason="unreadable",
                                 detail=f"cannot read the file: {exc.strerror or exc}", raw=""),), opened=False)
        return
    try:
        members = _GzipMembers(raw) if kind == "gzip" else None
        stream = members if members is not None else decompressed(raw, kind) if kind is not None else raw
        unreadable = f"{kind} stream unreadable" if kind is not None else "file unreadable"
        utf16 = _opens_with_utf16_bom(stream, packed=kind is not None)
        if utf16:
            stream = _Utf16AsUtf8(stream)
        skip = kind is not None or utf16  # offsets count bytes of a decoded stream: read up to them
        pos_seen = 0

        def report() -> None:
            nonlocal pos_seen
            if on_bytes is not None:
                pos = raw.tell()
                if pos > pos_seen:
                    on_bytes(pos - pos_seen)
                    pos_seen = pos

        failure: str | None = None
        if offset:
            if skip:
                left = offset
                try:
                    while left:
                        got = stream.read(min(left, chunk_bytes))
                        if not got:
                            break
                        left -= len(got)
                except READ_ERRORS as exc:
                    failure = f"{unreadable}: {exc}"
            else:
                raw.seek(offset)
                pos_seen = offset
        carry: list[bytes] = []  # the start of a line whose newline has not been read yet
        carried = 0  # its bytes kept
        dropped = 0  # its NUL bytes not kept (blocks of nothing else)
        too_long: _TooLong | None = None  # a line past MAX_LINE_BYTES, being read past
        limit = MAX_LINE_BYTES
        line_no = first_line
        consumed = offset
        at_start = offset == 0  # a UTF-8 byte order mark opening the file is not part of line 1
        while failure is None:
            data, error = read_block(stream, chunk_bytes, piece=(64 << 10) if skip else chunk_bytes)
            if error is not None:
                failure = f"{unreadable}: {error}"
            if not data:
                break
            if too_long is None and carry and not at_start:
                end = data.find(b"\n")
                if end < 0:
                    # A line longer than a block goes on. Its pieces are joined once, at its end
                    # (joining and scanning them at every block made long lines quadratic); a
                    # block of nothing but NUL bytes (a preallocated or zeroed stretch of the
                    # file) is counted, not kept; a line past MAX_LINE_BYTES is read past.
                    if data.count(0) == len(data):
                        if not carry[-1].endswith(b"\0"):
                            carry.append(b"\0")  # the run stays visible in the line, one byte long
                            carried += 1
                            dropped -= 1
                        dropped += len(data)
                    else:
                        carry.append(data)
                        carried += len(data)
                        if carried > limit:
                            too_long = _TooLong(carry, dropped)
                            carry, carried, dropped = [], 0, 0
                    report()
                    continue
                if carried + end > limit:
                    too_long = _TooLong(carry, dropped)
                    carry, carried, dropped = [], 0, 0
            if too_long is not None:
                end = data.find(b"\n")
                too_long.add(data if end < 0 else data[: end + 1])
                report()
                if end < 0:
                    continue
                yield too_long.chunk(line_no, consumed, limit=limit)
                consumed += too_long.size
                line_no += 1
                too_long = None
                data = data[end + 1:]
                if not data:
                    continue
            if carry and not skip and not at_start:
                # A plain file: the carried line ends at this block's first newline. It is cut
                # on its own and the rest of the block is cut where it was read (joining the
                # block behind the carried bytes copied every block once more).
                first = b"".join([*carry, data[: end + 1]])
                buf = memoryview(data)[end + 1:]
                chunk, rest = _split_after(first, buf, line_no, consumed + dropped, ascii_=data.isascii())
                report()
            else:
                buf = b"".join([*carry, data]) if carry else data
                if at_start and (head := without_utf8_bom(buf)) is not None:
                    at_start, consumed, buf = False, consumed + len(buf) - len(head), head
                chunk, rest = _split(buf, line_no, consumed + dropped)
                report()
                if chunk is None:
                    carry, carried = [buf], len(buf)
                    continue
                if members is not None:
                    members.place(buf, line_no, base=consumed + dropped, end=chunk.end_offset)
                first = b""
            if dropped:
                chunk = dataclasses.replace(chunk, nuls=((line_no, dropped),))
                dropped = 0
            elif not skip:  # the bytes before the resume point, as they are in the file
                chunk = dataclasses.replace(chunk, tail=_tail(first, buf, len(buf) - rest))
            carry, carried = ([bytes(buf[len(buf) - rest:])] if rest else []), rest
            line_no = chunk.last_line + 1
            consumed = chunk.end_offset
            yield chunk
        report()
        # (the line being read when a gzip member failed is its first line, if it began there)
        damaged_from = members.first_damaged_line(line_no) if members is not None and failure else None
        if too_long is not None:
            yield too_long.chunk(line_no, consumed, limit=limit, unterminated=True)
            line_no += 1
        elif carry:
            # The final line has no newline: a writer may still be on it, or stopped mid-line.
            tail = b"".join([*carry, b"\n"])
            chunk, _ = _split(tail, line_no, consumed)
            assert chunk is not None
            yield Chunk(
                table=chunk.table, bad=chunk.bad, first_line=line_no, last_line=line_no,
                end_offset=consumed, unterminated=line_no, nbytes=len(tail),
                nuls=((line_no, dropped),) if dropped else (),
            )
            line_no += 1
        if failure is not None:
            if damaged_from is not None and damaged_from < line_no:
                failure += (f"; lines {damaged_from:,} to {line_no - 1:,} come from the gzip member that fails, "
                            "so they are not loaded")
            yield Chunk(
                table=_empty_table(), first_line=line_no, last_line=line_no - 1, end_offset=consumed,
                bad=(BadLine(line=line_no, reason="unreadable", detail=failure, raw=""),),
                damaged_from=damaged_from if damaged_from is not None and damaged_from < line_no else None,
            )
    finally:
        raw.close()


class _Upto:
    """A binary file read no further than byte ``end``, as if it ended there."""

    def __init__(self, raw: Any, end: int):
        self.raw, self.end = raw, end

    def read(self, size: int = -1) -> bytes:
        return self._upto(self.raw.read, size)

    def read1(self, size: int = -1) -> bytes:
        return self._upto(self.raw.read1, size)

    def _upto(self, read: Callable[[int], bytes], size: int) -> bytes:
        left = self.end - self.raw.tell()
        return read(left if size < 0 else min(size, left)) if left > 0 else b""

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()

    def close(self) -> None:
        self.raw.close()


class _GzipMembers:
    """A gzip stream read member by member with zlib, which checks each member's CRC and size.

    Like :class:`gzip.GzipFile` it reads concatenated members and skips NUL padding
    between them. It also tells a stream that merely ends early (the bytes before the
    cut are exact) from a member that fails its check or holds invalid deflate data:
    deflate decodes damaged input into plausible wrong bytes for a while, and the check
    at the member's end is the first sign. ``damaged`` is then the offset (in the
    decompressed stream) where that member began.
    """

    READ = 64 << 10
    TRAILER = 8

    def __init__(self, raw: Any):
        self.raw = raw
        self.ended = False
        self.inflate: Any = None
        self.input = b""
        self.peeked = b""
        self.pos = 0  # decompressed bytes returned so far (peeked ones included)
        self.member_start = 0
        self.damaged: int | None = None
        # Only the member being read can fail, so only the line it begins in is kept.
        self.member_line: int | None = None  # None while it is not known yet

    def _more(self) -> bool:
        """Read more compressed bytes; False at the end of the file."""
        if self.ended:
            return False
        more = self.raw.read(self.READ)
        self.ended = not more
        self.input += more
        return bool(more)

    def _next_member(self) -> bool:
        """Start the next member; False at the end of the stream."""
        while True:
            if self.input[:1] == b"\0":
                self.input = self.input.lstrip(b"\0")
            if len(self.input) >= 2 or not self._more():
                break
        if not self.input:
            return False
        if self.input[:2] != b"\x1f\x8b":
            raise gzip.BadGzipFile(f"Not a gzipped file ({self.input[:2]!r})")
        self.inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.member_start, self.member_line = self.pos, None
        return True

    def _inflate(self, size: int) -> bytes:
        while True:
            if self.inflate is None and not self._next_member():
                return b""
            # The last 8 bytes (where a member's CRC and size may be) wait for more input,
            # so the call that checks them has no output of its own to lose when they fail.
            while len(self.input) <= self.TRAILER and self._more():
                pass
            if not self.input:
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            held = 0 if self.ended else self.TRAILER
            try:
                out = self.inflate.decompress(self.input[: len(self.input) - held], size)
            except zlib.error:
                self.damaged = self.member_start
                raise
            rest = self.input[len(self.input) - held:] if held else b""
            if self.inflate.eof:
                self.input, self.inflate = self.inflate.unused_data + rest, None
            else:
                self.input = self.inflate.unconsumed_tail + rest
                if self.ended and not out and not self.input:
                    raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            if out:
                self.pos += len(out)
                return out

    def read1(self, size: int = -1) -> bytes:
        """At most ``size`` decompressed bytes (what one step gives, when negative)."""
        if size == 0:
            return b""
        if self.peeked:
            out = self.peeked if size < 0 else self.peeked[:size]
            self.peeked = self.peeked[len(out):]
            return out
        return self._inflate(size if size > 0 else self.READ * 4)

    read = read1

    def peek(self, size: int = 1) -> bytes:
        while len(self.peeked) < size:
            more = self._inflate(size)
            if not more:
                break
            self.peeked += more
        return self.peeked

    def place(self, buf: bytes, first_line: int, *, base: int, end: int) -> None:
        """Note the line the member being read begins in, if it began in ``buf`` (lines
        from ``first_line``, stream offset ``base``, complete up to offset ``end``). One
        scan of ``buf`` at most (a file may hold a member per line)."""
        start = self.member_start
        if self.member_line is None and start < end:
            self.member_line = first_line + buf.count(b"\n", 0, max(0, min(len(buf), start - base)))

    def first_damaged_line(self, next_line: int) -> int | None:
        """The first line decoded from the member that failed its check (``next_line`` if
        it began in the line still being read), or None when no member failed."""
        if self.damaged is None:
            return None
        return next_line if self.member_line is None else self.member_line


def _opens_with_utf16_bom(stream: Any, *, packed: bool) -> bool:
    """True when the (decompressed) stream starts with a UTF-16 byte order mark; the
    stream is left at its start."""
    try:
        head = stream.peek(2)[:2] if packed else stream.read(2)
    except READ_ERRORS:
        head = b""  # a broken compressed stream: the normal read reports it
    if not packed:
        stream.seek(0)
    return head in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


class _TooLong:
    """A line longer than :data:`MAX_LINE_BYTES`: counted as it is read past, its start kept."""

    def __init__(self, parts: list[bytes], dropped: int):
        self.head = b""
        for part in parts:
            self.head += part[: HEAD_BYTES - len(self.head)]
            if len(self.head) >= HEAD_BYTES:
                break
        self.size = sum(map(len, parts)) + dropped
        self.nuls = sum(p.count(0) for p in parts) + dropped

    def add(self, data: bytes) -> None:
        self.size += len(data)
        self.nuls += data.count(0)

    def chunk(self, line_no: int, consumed: int, *, limit: int, unterminated: bool = False) -> Chunk:
        """The line as a bad line: ``line-too-long``, or ``nul-bytes`` if it is mostly NUL bytes."""
        length = self.size - (0 if unterminated else 1)
        what = f"{length:,} bytes" + (", the file ends inside it" if unterminated else "")
        reason = "line-too-long"
        detail = f"{what}: longer than the {limit:,} bytes a line may have, so it is not read"
        if self.nuls * 2 > length:
            reason = "nul-bytes"
            detail = f"{self.nuls:,} NUL bytes ({NUL_RUNS_CAUSE}) in a line of {detail}"
        raw = show_nul_runs(self.head.decode("utf-8", "replace")) + " \u2026"
        return Chunk(
            table=_empty_table(), bad=(BadLine(line=line_no, reason=reason, detail=detail, raw=raw),),
            first_line=line_no, last_line=line_no, end_offset=consumed if unterminated else consumed + self.size,
            unterminated=line_no if unterminated else None,
        )


_DONE = object()


def prefetch(items: Iterator[Any], *, depth: int) -> Iterator[Any]:
    """Yield ``items``, produced ahead by a background thread (at most ``depth`` waiting).

    Reading and cutting lines (numpy, Arrow, file reads) then overlaps with the caller's
    SQL statements, during which DuckDB releases the GIL. An exception raised while
    producing is raised again in the caller, at the item where it happened; a caller
    that stops early stops the thread.

    >>> list(prefetch(iter(range(5)), depth=2))
    [0, 1, 2, 3, 4]
    """
    q: queue.Queue[tuple[Any, BaseException | None]] = queue.Queue(maxsize=max(1, depth))
    stop = threading.Event()

    def put(entry: tuple[Any, BaseException | None]) -> bool:
        while not stop.is_set():
            try:
                q.put(entry, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put((item, None)):
                    return
            put((_DONE, None))
        except BaseException as exc:  # handed to the consumer, raised there
            put((_DONE, exc))

    worker = threading.Thread(target=produce, name="failtax-read", daemon=True)
    worker.start()
    try:
        while True:
            item, error = q.get()
            if error is not None:
                raise error
            if item is _DONE:
                return
            yield item
    finally:
        stop.set()
        worker.join()


_NUMPY_TYPES = {"int64": np.int64, "int32": np.int32}


def numpy_array(values: np.ndarray, kind: pa.DataType) -> pa.Array:
    """A numpy vector as an Arrow array without a copy (``pa.array`` would import pandas)."""
    values = np.ascontiguousarray(values, dtype=_NUMPY_TYPES[str(kind)])
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def string_array(values: list[str | None]) -> pa.Array:
    """Python strings as an Arrow array (``pa.array`` would import pandas to check them)."""
    encoded = [b"" if v is None else v.encode("utf-8", "surrogatepass") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    valid = None
    if any(v is None for v in values):
        valid = pa.py_buffer(np.packbits([v is not None for v in values], bitorder="little"))
    return pa.Array.from_buffers(pa.large_string(), len(encoded), [valid, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def _empty_table() -> pa.Table:
    return pa.Table.from_arrays([numpy_array(np.zeros(0, np.int64), pa.int64()), string_array([])],
                                names=["line_no", "text"])


def _tail(first: bytes, body: Any, end: int) -> bytes:
    """The last :data:`TAIL_BYTES` of ``first`` and ``body[:end]`` together."""
    if end >= TAIL_BYTES or not first:
        return bytes(body[max(0, end - TAIL_BYTES):end])
    return (first + bytes(body[:end]))[-TAIL_BYTES:]


def _split_after(first: bytes, body: memoryview, first_line: int, base_offset: int, *,
                 ascii_: bool) -> tuple[Chunk, int]:
    """:func:`_split` of ``first + body`` where ``first`` is one whole line, without joining
    them: the chunk of the line and of ``body``'s complete lines, and the bytes of ``body``
    left over. ``ascii_``: ``body`` is known to be ASCII (else it is checked for UTF-8)."""
    line, _ = _split(first, first_line, base_offset)
    assert line is not None and line.last_line == first_line
    more, rest = _split(body, first_line + 1, base_offset + len(first), ascii_=ascii_)
    if more is None:
        return line, rest
    return Chunk(
        table=pa.concat_tables([line.table, more.table]), bad=line.bad + more.bad, first_line=first_line,
        last_line=more.last_line, end_offset=more.end_offset, nbytes=line.nbytes + more.nbytes,
    ), rest


def _split(buf: Any, first_line: int, base_offset: int, *, ascii_: bool | None = None) -> tuple[Chunk | None, int]:
    """Cut ``buf`` (bytes, or a memoryview of them) after its last newline; return the chunk
    and the number of bytes left over. ``ascii_``: whether ``buf`` is known to be ASCII
    (a memoryview cannot tell; ``False`` only means "check it")."""
    arr = np.frombuffer(buf, dtype=np.uint8)
    nl = np.flatnonzero(arr == 10)
    if len(nl) == 0:
        return None, len(buf)
    end = int(nl[-1]) + 1
    n = len(nl)
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1:] = nl + 1
    line_nos = np.arange(first_line, first_line + n, dtype=np.int64)
    text = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(buf))
    bad: list[BadLine] = []
    if not (buf.isascii() if ascii_ is None else ascii_):  # then look for invalid UTF-8
        invalid = _invalid_utf8_lines(text, buf, offsets)
        if invalid:
            for i, at in invalid:
                raw = bytes(buf[offsets[i] : offsets[i + 1]]).rstrip(b"\r\n")
                bad.append(BadLine(
                    line=first_line + i, reason="invalid-utf8",
                    detail=f"invalid UTF-8 at byte {at + 1}", raw=raw.decode("utf-8", "replace"),
                ))
            text, keep = _without_lines(buf, offsets, [i for i, _ in invalid])
            line_nos = line_nos[keep]
    table = pa.Table.from_arrays([numpy_array(line_nos, pa.int64()), text], names=["line_no", "text"])
    if table.num_rows > _BATCH_ROWS:
        # Several record batches let DuckDB scan the chunk on all its threads.
        table = pa.Table.from_batches(table.to_batches(max_chunksize=_BATCH_ROWS))
    chunk = Chunk(
        table=table, bad=tuple(bad), first_line=first_line, last_line=first_line + n - 1,
        end_offset=base_offset + end, nbytes=end,
    )
    return chunk, len(buf) - end


#: Lines checked together for invalid UTF-8 once a chunk holds some (see _invalid_utf8_lines).
_UTF8_PIECE = 512


def _invalid_utf8_lines(text: pa.LargeStringArray, buf: bytes, offsets: np.ndarray) -> list[tuple[int, int]]:
    """``(index, byte)`` of each line of ``text`` (over ``buf``, cut at ``offsets``) holding
    invalid UTF-8, and where in the line the first bad byte is.

    Arrow checks the whole chunk at once (about 3x as fast as a Python decode); only when
    it fails are pieces of 512 lines checked, and only in the pieces that fail is each line
    decoded. (Decoding the chunk and starting again after each error, as was done before,
    copied the rest of the chunk into every error: 34 ms for 8 MB with 13 bad lines, now 4.)
    """
    try:
        text.validate(full=True)
        return []
    except pa.ArrowInvalid:
        pass
    view = memoryview(buf)
    bad: list[tuple[int, int]] = []
    for start in range(0, len(text), _UTF8_PIECE):
        try:
            text.slice(start, _UTF8_PIECE).validate(full=True)
            continue
        except pa.ArrowInvalid:
            pass
        for i in range(start, min(start + _UTF8_PIECE, len(text))):
            try:
                codecs.utf_8_decode(view[offsets[i] : offsets[i + 1]], "strict", True)
            except UnicodeDecodeError as exc:
                bad.append((i, exc.start))
    return bad


def _without_lines(buf: bytes, offsets: np.ndarray, drop: list[int]) -> tuple[pa.LargeStringArray, np.ndarray]:
    """The lines of ``buf`` (cut at ``offsets``) but those at the sorted indices ``drop``,
    as a string array, and the mask of the lines kept. (The bytes between the dropped lines
    are copied in one join: 2 ms for 8 MB, where Arrow's filter takes 6.)"""
    n = len(offsets) - 1
    keep = np.ones(n, dtype=bool)
    keep[drop] = False
    lengths = np.diff(offsets)
    removed = np.zeros(n, dtype=np.int64)
    removed[drop] = lengths[drop]
    before = np.cumsum(removed) - removed  # bytes dropped before each line
    kept_offsets = np.empty(n - len(drop) + 1, dtype=np.int64)
    kept_offsets[:-1] = offsets[:-1][keep] - before[keep]
    kept_offsets[-1] = offsets[-1] - removed.sum()
    view = memoryview(buf)
    starts = [0, *(int(offsets[i + 1]) for i in drop)]
    ends = [*(int(offsets[i]) for i in drop), int(offsets[-1])]
    data = b"".join(view[a:b] for a, b in zip(starts, ends, strict=True))
    return pa.LargeStringArray.from_buffers(n - len(drop), pa.py_buffer(kept_offsets), pa.py_buffer(data)), keep
