"""Failure telemetry: write it, load it into DuckDB, and simulate it with a known truth.

- :func:`emit` / :func:`ask_and_record`: append seed 000 events to the JSONL sink, safely
  from many processes, never raising into the caller.
- :func:`load` / :func:`connect`: failure events, lifecycle lines, retry logs and
  AgentFailure objects into DuckDB (``events``, ``quarantine``, ``signals``,
  ``decisions`` …) as relations convertible to polars and pandas.
- :func:`simulate`: seeded, realistic telemetry of every format with planted defects.

>>> from failtax.telemetry import emit, load, simulate
"""

from failtax.telemetry.emit import ask_and_record, default_sink, emit
from failtax.telemetry.load import FileReport, LoadSummary, Telemetry, connect, load
from failtax.telemetry.simulate import Defect, People, SimulationResult, simulate

__all__ = [
    "Defect",
    "FileReport",
    "LoadSummary",
    "People",
    "SimulationResult",
    "Telemetry",
    "ask_and_record",
    "connect",
    "default_sink",
    "emit",
    "load",
    "simulate",
]
