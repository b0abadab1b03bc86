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

__all__ = ["FailtaxError", "InputError", "TableError", "TaxonomyError", "TelemetryError"]


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
