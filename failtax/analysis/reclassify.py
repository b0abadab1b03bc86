"""The events' evidence classified again under a rule table: the shared representation.

Rule diagnostics, misleading signals and suspect labels all look at the same thing: for
each decision, which signals are present, which extractor rules fired, which routes
match and which one decides. :func:`reclassify` computes it once.

Evidence of a decision = its ``signals`` (named by the tool) + its ``text``. Real
telemetry repeats the same evidence many times, so the table is run once per *unique*
(signal set, text) combination and the answer joined back: a million decisions with a
few thousand distinct combinations cost a few thousand classifications.

The result keeps two frames:

- ``combos``: one row per distinct evidence ``combo`` with ``present`` (signals after
  extraction, table order then the tool's), ``fired`` (ids of extractor rules that
  matched), ``routes`` (ids of every route that matches, in table order), ``rule`` (the
  deciding route or ``"fallback"``), ``bucket`` and ``n`` (events);
- ``events``: the decisions with a ``combo`` column (join key into ``combos``).

Extractor rules whose conditions need evidence the decisions do not carry (exit code,
POSIX signal, result frame, structured fields) cannot be re-run here; they are listed
in :attr:`Reclassified.unevaluable` and reported as such, never as dead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from failtax.analysis.frames import as_decisions
from failtax.classify import extract_signals
from failtax.errors import InputError
from failtax.table import ExtractRule, RuleTable, load_table

__all__ = ["Reclassified", "reclassify", "resolve_table"]


def resolve_table(table: Any, *, taxonomy: str | None) -> RuleTable:
    """The rule table to analyse: a :class:`RuleTable`, a path, a shipped name, or (None)
    the shipped table of ``taxonomy``."""
    if table is None:
        if taxonomy is None:
            raise InputError("give a taxonomy or a table")
        return load_table(taxonomy)
    tbl = load_table(table)
    if taxonomy is not None and tbl.taxonomy != taxonomy:
        raise InputError(f"table {tbl.name!r} is for taxonomy {tbl.taxonomy!r}, not {taxonomy!r}")
    return tbl


def evaluable(rule: ExtractRule) -> bool:
    """True when the rule needs nothing but text (and so can be re-run on decisions)."""
    return not (
        rule.exit_code or rule.has_signal is not None or rule.posix_signal or rule.frame_subtype
        or rule.frame_error is not None or rule.field is not None
    )


@dataclass(frozen=True)
class Reclassified:
    """Decisions of one taxonomy with their evidence classified under ``table``."""

    table: RuleTable
    events: pl.DataFrame
    combos: pl.DataFrame

    @property
    def unevaluable(self) -> tuple[str, ...]:
        """Ids of extractor rules that need evidence the decisions do not carry."""
        return tuple(r.id for r in self.table.extract if not evaluable(r))

    def event_frame(self, *columns: str) -> pl.DataFrame:
        """``events`` joined with the named ``combos`` columns (``present``, ``rule`` …)."""
        return self.events.join(self.combos.select("combo", *columns), on="combo", how="left")

    def signal_matrix(self) -> pl.DataFrame:
        """The events × signals matrix in long form: ``(combo, signal)`` per present signal."""
        return self.combos.select("combo", pl.col("present").alias("signal")).explode("signal").drop_nulls("signal")


def _classify_combo(signals: Sequence[str] | None, text: str | None, table: RuleTable, ext_ok: set[str]) -> tuple:
    ev: dict[str, Any] = {"signals": list(signals or ())}
    if text:
        ev["text"] = text
    present, fired = extract_signals(ev, table)
    fired = tuple(f for f in fired if f in ext_ok)
    pset = set(present)
    routes = tuple(r.id for r in table.route if r.matches(pset))
    if routes:
        rule = routes[0]
        bucket = table.route_by_id(rule).bucket
    else:
        rule, bucket = "fallback", table.fallback
    return list(present), list(fired), list(routes), rule, bucket


def reclassify(decisions: Any, *, table: Any = None, taxonomy: str | None = None) -> Reclassified:
    """Classify every decision's evidence (``signals`` + ``text``) under a rule table.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow). Only rows
        of the table's taxonomy are kept.
    table : a :class:`~failtax.RuleTable`, a path or shipped name; default the shipped
        table of ``taxonomy``.
    taxonomy : the taxonomy (needed when ``table`` is None).

    Returns
    -------
    Reclassified

    >>> df = pl.DataFrame({"event_id": ["a", "b"], "taxonomy": ["replay"] * 2,
    ...     "signals": [["selector-timeout"], []], "text": [None, "Electron crashed"]})
    >>> r = reclassify(df, taxonomy="replay")
    >>> r.event_frame("rule", "bucket").select("event_id", "rule", "bucket").rows()
    [('a', 'stale-script', 'stale-script'), ('b', 'infra', 'infra')]
    """
    tbl = resolve_table(table, taxonomy=taxonomy)
    df = as_decisions(decisions, columns=["taxonomy", "signals"], optional=["text"])
    df = df.filter(pl.col("taxonomy") == tbl.taxonomy)
    # Group on the raw (signals, text) values: the same evidence listed in another
    # order only makes one more combination, never a wrong one.
    uniq = (
        df.with_row_index("_i")
        .group_by("signals", "text")
        .agg(pl.col("_i"), pl.len().alias("n"))
        .sort("n", pl.col("_i").list.first(), descending=[True, False])
        .with_row_index("combo")
    )
    combo_of_row = uniq.select("combo", "_i").explode("_i").sort("_i")["combo"]
    ext_ok = {r.id for r in tbl.extract if evaluable(r)}
    tbl.compiled()
    rows = [
        _classify_combo(sigs, txt, tbl, ext_ok)
        for sigs, txt in zip(uniq["signals"].to_list(), uniq["text"].to_list(), strict=True)
    ]
    combos = pl.DataFrame(
        {
            "combo": uniq["combo"],
            "present": pl.Series([r[0] for r in rows], dtype=pl.List(pl.String)),
            "fired": pl.Series([r[1] for r in rows], dtype=pl.List(pl.String)),
            "routes": pl.Series([r[2] for r in rows], dtype=pl.List(pl.String)),
            "rule": pl.Series([r[3] for r in rows], dtype=pl.String),
            "bucket": pl.Series([r[4] for r in rows], dtype=pl.String),
            "n": uniq["n"].cast(pl.Int64),
        }
    )
    events = df.with_columns(combo_of_row.alias("combo"))
    return Reclassified(table=tbl, events=events, combos=combos)
