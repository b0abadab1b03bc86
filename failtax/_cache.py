"""Answers kept in the user's cache folder between processes (private).

Some answers cost most of a second to derive and never change for the same input: a
table's compiled hyperscan database, the regex prefilters of its alternatives, which of
its regexes may join an RE2 set, a shipped table's parsed TOML, and that its patterns
all compile on RE2. Every ``failtax`` command, report and worker process would pay them
again; they are kept in files named
by the hash of everything they were derived from, so a changed input is never answered
from an old file. A file that cannot be read or written only costs the derivation.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

_T = TypeVar("_T")

__all__ = ["cache_dir", "derived_file", "kept", "kept_file", "kept_json", "source_digest"]


def cache_dir() -> Path | None:
    """Where answers are kept: ``$FAILTAX_CACHE_DIR`` (empty: nowhere), else
    ``$XDG_CACHE_HOME/failtax`` or ``~/.cache/failtax``."""
    env = os.environ.get("FAILTAX_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "failtax"


def kept_file(kind: str, key: Any, suffix: str) -> Path | None:
    """The file in the cache folder's ``kind`` folder named by the hash of ``key`` (as
    JSON); None when nothing is kept (``FAILTAX_CACHE_DIR`` empty)."""
    folder = cache_dir()
    if folder is None:
        return None
    return folder / kind / f"{hashlib.sha256(json.dumps(key).encode('utf-8')).hexdigest()}{suffix}"


def derived_file(kind: str, sources: Sequence[str], key: Any, suffix: str = ".json") -> Path | None:
    """:func:`kept_file` for an answer derived by the code in ``sources`` (module files)
    with Python's own parsers: named by the sources' SHA-256, the Python version and
    ``key``, so changed code or another Python never answers from an old file. None when
    a source cannot be read (a frozen build) or nothing is kept."""
    digests = [source_digest(s) for s in sources]
    if None in digests:
        return None
    return kept_file(kind, [*digests, list(sys.version_info[:3]), key], suffix)


@functools.cache
def source_digest(path: str) -> str | None:
    """The SHA-256 of a module's source file (``__file__``), or None where it cannot be
    read (a frozen build: then nothing derived by that module's rules is kept)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def kept(path: Path | None, read: Callable[[Path], _T | None], make: Callable[[], _T],
         write: Callable[[Path, _T], None]) -> _T:
    """``read(path)`` when the kept file answers, else ``make()``, written to ``path``.

    A miss is made under the lock of ``path`` and read again first, so processes that
    want the same file at once (test workers, ``classify -j`` workers, Spark's Python
    workers, a first run of a table) make it once and the others read it. Without a
    path (``FAILTAX_CACHE_DIR`` empty) nothing is kept."""
    if path is None:
        return make()
    got = read(path)
    if got is None:
        with _lock(path):
            got = read(path)
            if got is None:
                got = make()
                write(path, got)
    return got


def kept_json(path: Path | None, make: Callable[[], _T], decode: Callable[[Any], _T | None],
              encode: Callable[[_T], Any] = lambda v: v) -> _T:
    """:func:`kept` for an answer kept as JSON: ``encode(answer)`` is written, and what a
    kept file holds is ``decode(parsed JSON)``, which says None for anything not of the
    answer's shape (a damaged file: derived again). An answer JSON cannot hold is only not
    kept."""

    def read(p: Path) -> _T | None:
        try:
            return decode(json.loads(p.read_bytes()))
        except Exception:  # noqa: BLE001 - absent, unreadable or damaged: derive again
            return None

    def write(p: Path, value: _T) -> None:
        from failtax.table import atomic_write_bytes

        try:
            atomic_write_bytes(p, json.dumps(encode(value)).encode("utf-8"))
        except (TypeError, ValueError, OSError):
            pass  # a value JSON cannot hold, a read-only home, a full disk: only not kept

    return kept(path, read, make, write)


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock named for the kept file ``path`` (in the cache folder's
    ``locks`` folder). Without locks (no ``fcntl``, a read-only folder) each process
    makes the file for itself."""
    try:
        import fcntl

        folder = path.parent.parent / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        f = open(folder / f"{path.name}.lock", "a+b")  # noqa: SIM115 - held for the block below
    except (ImportError, OSError):
        yield
        return
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
