"""Compressed inputs, told by their first bytes whatever their name: gzip, bzip2, xz, zstd.

Log rotation compresses with any of them (logrotate's ``compresscmd``), so telemetry and
stderr captures arrive as ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` files. Each is read as a
stream of its decompressed bytes with ``read1`` (one step at a time, so that a stream
cut short or corrupt keeps what it gave before) and ``peek``. A stream that ends inside
a frame or block raises :class:`EOFError`, and damaged data the library's own error, all
of them in :data:`READ_ERRORS`; an ``error`` line or a quarantined line says which.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
from typing import Any, BinaryIO

import zstandard

__all__ = ["HEAD", "READ_ERRORS", "SUFFIXES", "compression", "compression_of", "decompressed", "decompressing",
           "read_block", "read_error_text"]

#: What reading a damaged or cut-short compressed stream can raise.
READ_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error, lzma.LZMAError, zstandard.ZstdError)
#: File name endings of the formats read (a file is told by its bytes, not by these).
SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
#: Bytes to read to tell the format.
HEAD = 10

_CUT_SHORT = "Compressed file ended before the end-of-stream marker was reached"


def compression_of(head: bytes) -> str | None:
    """``"gzip"``, ``"bzip2"``, ``"xz"`` or ``"zstd"`` for a stream opening with ``head``
    (its first :data:`HEAD` bytes), None for anything else.

    >>> compression_of(b"\\x1f\\x8b\\x08\\x00"), compression_of(b'{"ts": 1}')
    ('gzip', None)
    """
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    # bzip2: "BZh", the block size digit, then a block's or the stream end's magic number
    # (a text that merely opens with "BZh" is not taken for one)
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bzip2"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if head[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    return None


def compression(path: str | os.PathLike[str]) -> str | None:
    """The compression of the file at ``path`` (see :func:`compression_of`); raises
    :class:`OSError` when it cannot be read."""
    with open(path, "rb") as fh:
        return compression_of(fh.read(HEAD))


def decompressed(raw: BinaryIO, kind: str) -> Any:
    """A reader of ``raw``'s decompressed bytes (``read``, ``read1``, ``peek``, and
    ``close``, which closes ``raw`` too) for a stream of compression ``kind``;
    concatenated streams are read one after the other, as the command-line tools read
    them."""
    if kind == "gzip":
        return _Owning(gzip.GzipFile(fileobj=raw, mode="rb"), raw)
    if kind == "bzip2":
        return _Owning(bz2.BZ2File(raw, "rb"), raw)
    if kind == "xz":
        return _Owning(lzma.LZMAFile(raw, "rb"), raw)
    if kind == "zstd":
        return ZstdFrames(raw)
    raise ValueError(f"not a compression read here: {kind!r}")


class _Closing:
    """``with reader:`` closes it."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Owning(_Closing):
    """A standard library decompressor that also closes the file it reads (given a file
    object, they leave it open)."""

    def __init__(self, inner: Any, raw: BinaryIO):
        self.inner, self.raw = inner, raw

    def read(self, size: int = -1) -> bytes:
        return self.inner.read(size)

    def read1(self, size: int = -1) -> bytes:
        return self.inner.read1(size)

    def peek(self, size: int = 1) -> bytes:
        return self.inner.peek(size)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self.raw.close()


def decompressing(raw: BinaryIO) -> Any:
    """``raw`` itself, or a reader of its decompressed bytes when its first bytes (peeked,
    not consumed) say it is compressed. A stream that cannot be peeked, or whose peek
    fails with an I/O error, is given back as it is: its first read says why."""
    peek = getattr(raw, "peek", None)
    try:
        kind = compression_of(peek(HEAD)[:HEAD]) if peek is not None else None
    except OSError:
        return raw
    return raw if kind is None else decompressed(raw, kind)


def read_block(fh: Any, size: int | None = None, *, piece: int | None = None) -> tuple[bytes, str | None]:
    """Up to ``size`` bytes of ``fh`` (all of it when None; fewer only at its end), and why
    reading stopped early, if it did. Read a step at a time (``read1``, at most ``piece``
    bytes each): a decompressor's ``read(size)`` would lose what it had decompressed when
    the stream turns out cut short or corrupt."""
    parts: list[bytes] = []
    got = 0
    read = getattr(fh, "read1", fh.read)
    while size is None or got < size:
        want = 1 << 22 if size is None else size - got
        try:
            data = read(want if piece is None else min(piece, want))
        except READ_ERRORS as exc:  # a compressed stream cut short or corrupt, an I/O error
            return b"".join(parts), read_error_text(exc)
        if not data:
            break
        parts.append(data)
        got += len(data)
    return (parts[0] if len(parts) == 1 else b"".join(parts)), None


def read_error_text(exc: BaseException) -> str:
    """Why reading stopped, in the words of the error (``strerror`` of an OSError)."""
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__


class ZstdFrames(_Closing):
    """A zstd stream's decompressed bytes, frame after frame.

    zstandard's own stream reader ends quietly where a stream is cut short inside a
    frame; this one raises :class:`EOFError` there, as gzip, bz2 and lzma do. Input is
    fed in small pieces, so one call's output stays near what those pieces encode.
    """

    PIECE = 8 << 10

    def __init__(self, raw: BinaryIO):
        self.raw = raw
        self.unzstd = zstandard.ZstdDecompressor()
        self.frame: Any = None  # the decompressor of the frame being read
        self.begun = False  # the frame has been given input
        self.pending = b""  # input after the end of a frame: the next frame's start
        self.out = b""  # decompressed; returned up to ``at``
        self.at = 0

    def _step(self) -> bool:
        """Decompress one more piece of input into ``out``; False at the stream's end."""
        data = self.pending or self.raw.read(self.PIECE)
        self.pending = b""
        if not data:
            if self.frame is not None and self.begun:
                raise EOFError(_CUT_SHORT)
            return False
        if self.frame is None:
            self.frame, self.begun = self.unzstd.decompressobj(), False
        got = self.frame.decompress(data)
        if got:
            self.out, self.at = self.out[self.at:] + got, 0
        self.begun = True
        if self.frame.eof:
            self.pending, self.frame = self.frame.unused_data, None
        return True

    def read1(self, size: int = -1) -> bytes:
        """At most ``size`` bytes (what one step gives, when negative); empty at the end."""
        while self.at == len(self.out):
            if not self._step():
                return b""
        end = len(self.out) if size is None or size < 0 else min(len(self.out), self.at + size)
        got, self.at = self.out[self.at:end], end
        return got

    read = read1

    def peek(self, size: int = 1) -> bytes:
        """The next bytes, left to be read (at least ``size`` unless the stream ends first)."""
        while len(self.out) - self.at < size and self._step():
            pass
        return self.out[self.at:]

    def close(self) -> None:
        self.raw.close()
