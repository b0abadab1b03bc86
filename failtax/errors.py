"""The exceptions failtax raises.

Every error a person can cause carries what they need to act: the file, the line or the
rule, and the reason.

    FailtaxError
    ├── TaxonomyError        an unknown taxonomy name, or a broken taxonomy file
    ├── TableError           a rule table that cannot be read, validated or compiled
    │                        (.path, .rule, .reason)
    ├── TelemetryError       telemetry that cannot be read at all (not one bad line:
    │                        bad lines are quarantined, never raised)
    └── InputError           a caller passed something failtax cannot use
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["FailtaxError", "InputError", "TableError", "TaxonomyError", "TelemetryError", "describe_os_error", "file_in_the_way", "folder_blocked",
           "os_errors_named"]


class FailtaxError(Exception):
    """Base class of every error failtax raises on purpose."""


class TaxonomyError(FailtaxError):
    """An unknown taxonomy, or a taxonomy file that is not well formed."""


class TableError(FailtaxError):
    """A rule table that cannot be used, naming the file, the rule and the reason.

    >>> str(TableError("reason here", path="t.toml", rule="http-429"))
    "t.toml: rule 'http-429': reason here"
    """

    def __init__(self, reason: str, *, path: str | None = None, rule: str | None = None):
        self.reason = reason
        self.path = path
        self.rule = rule
        super().__init__(self._message())

    def _message(self) -> str:
        where = []
        if self.path:
            where.append(str(self.path))
        if self.rule:
            where.append(f"rule {self.rule!r}")
        return ": ".join([*where, self.reason])


class TelemetryError(FailtaxError):
    """Telemetry that cannot be read at all: a missing file, an unreadable database."""


class InputError(FailtaxError):
    """An argument failtax cannot use (wrong type, unknown column, bad option)."""


def file_in_the_way(path: str | os.PathLike[str]) -> Path | None:
    """The part of ``path`` (itself or a folder above it) that is a file, so that no
    folder can be made there; None when the path's nearest existing part is a folder."""
    p = Path(path)
    for part in (p, *p.parents):
        if part.exists():
            return None if part.is_dir() else part
    return None


def folder_blocked(folder: str | os.PathLike[str], name: str | os.PathLike[str]) -> str | None:
    """``<name>: <file> is a file, not a folder`` when a file stands where ``folder`` (or a
    folder above it) should be, else None; ``name`` is the path the person gave."""
    blocker = file_in_the_way(folder)
    if blocker is None:
        return None
    return f"{name}: {'it' if blocker == Path(name) else blocker} is a file, not a folder"


@contextmanager
def os_errors_named(path: str | os.PathLike[str]) -> Iterator[None]:
    """Re-raise an operating-system error inside the block as the same error about
    ``path`` (the path asked for, not a temporary twin or a parent folder)."""
    try:
        yield
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None


def describe_os_error(exc: OSError) -> str:
    """``<path>: <reason>`` for an operating-system error about a path, naming the part
    of the path that is a file where a folder should be (the usual cause of "File exists"
    and "Not a directory" when an output folder is made).

    >>> describe_os_error(FileNotFoundError(errno.ENOENT, "No such file or directory", "logs/a.jsonl"))
    'logs/a.jsonl: No such file or directory'
    """
    name = exc.filename if exc.filename is not None else "?"
    if exc.errno in (errno.EEXIST, errno.ENOTDIR) and exc.filename is not None:
        blocked = folder_blocked(str(exc.filename), str(exc.filename))
        if blocked is not None:
            return blocked
    return f"{name}: {exc.strerror or exc}"
