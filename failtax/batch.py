"""Classifying many records: streams of JSON Lines and (later) whole frames."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from failtax.classify import classify
from failtax.table import RuleTable

__all__ = ["classify_stream"]


def classify_stream(lines: Iterable[tuple[str, int, bytes]], *, table: RuleTable, taxonomy: str, out: TextIO) -> int:
    """Classify JSON Lines ``(file, line number, raw bytes)``; write one JSON line per input.

    A bad line is answered with ``{"error": "<file>:<line>: <reason>"}`` and the stream
    goes on. Returns the number of error lines written.
    """
    from failtax.cli import parse_evidence_line

    errors = 0
    for where, n, raw in lines:
        rec, err = parse_evidence_line(raw, f"{where}:{n}")
        if err is not None:
            errors += 1
            out.write(json.dumps(err, ensure_ascii=False) + "\n")
            continue
        c = classify(rec, taxonomy=taxonomy, table=table)
        out.write(json.dumps(c.to_dict(), ensure_ascii=False, default=str) + "\n")
    return errors
