"""Failure telemetry: write it (:func:`emit`), load it into DuckDB (:func:`load`), fake it (:func:`simulate`).

>>> from failtax.telemetry import emit, load
"""

from failtax.telemetry.emit import ask_and_record, default_sink, emit
from failtax.telemetry.load import FileReport, LoadSummary, Telemetry, connect, load

__all__ = [
    "FileReport",
    "LoadSummary",
    "Telemetry",
    "ask_and_record",
    "connect",
    "default_sink",
    "emit",
    "load",
]
