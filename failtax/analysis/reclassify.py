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

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.frames import as_decisions
from failtax.classify import extract_signals
from failtax.evidence import normalise_signal_name
from failtax.errors import InputError
from failtax.table import ExtractRule, RuleTable, load_table

__all__ = ["Reclassified", "reclassify", "resolve_table"]


def resolve_table(table: Any, *, taxonomy: str | None) -> RuleTable:
    """The rule table to analyse: a :class:`RuleTable`, a path, a shipped name, or (None)
    the shipped table of ``taxonomy``; refused when it belongs to another taxonomy.

    >>> resolve_table(None, taxonomy="replay").name
    'replay'
    >>> resolve_table("regen", taxonomy="replay")
    Traceback (most recent call last):
    failtax.errors.InputError: table 'regen' is for taxonomy 'regen', not 'replay'
    """
    if table is None:
        if taxonomy is None:
            raise InputError("give a taxonomy or a table")
        return load_table(taxonomy)
    tbl = load_table(table)
    if taxonomy is not None and tbl.taxonomy != taxonomy:
        raise InputError(f"table {tbl.name!r} is for taxonomy {tbl.taxonomy!r}, not {taxonomy!r}")
    return tbl


def evaluable(rule: ExtractRule) -> bool:
    """True when the rule needs nothing but text (and so can be re-run on decisions).

    >>> from failtax.table import ExtractRule
    >>> evaluable(ExtractRule(id="a", signal="a", contains=("x",))), evaluable(ExtractRule(id="b", signal="b", exit_code=(26,)))
    (True, False)
    """
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


#: Distinct texts above which the text rules run through batch classification.
BATCH_MIN_TEXTS = 2_000


def _text_rule_hits(texts: list[str | None], table: RuleTable, ext_ok: set[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(text index, extract rule index)`` of every evaluable extract rule that fires.

    Many distinct texts go through :func:`failtax.batch.extract_rule_matrix` (one
    multi-literal scan); a few through :func:`failtax.classify.extract_signals`. Both
    give :func:`failtax.classify`'s answers.
    """
    ids = [r.id for r in table.extract]
    keep = np.array([rid in ext_ok for rid in ids], dtype=bool)
    if len(texts) >= BATCH_MIN_TEXTS:
        try:
            from failtax.batch import extract_rule_matrix
        except ImportError:  # pragma: no cover - older batch module
            extract_rule_matrix = None
        if extract_rule_matrix is not None:
            mat, mids = extract_rule_matrix(pl.DataFrame({"text": pl.Series(texts, dtype=pl.String)}), table=table)
            assert tuple(mids) == tuple(ids)
            rows, cols = np.nonzero(mat[:, keep] if len(ids) else mat)
            return rows.astype(np.int64), np.flatnonzero(keep)[cols].astype(np.int64)
    pos = {rid: j for j, rid in enumerate(ids)}
    rows_l: list[int] = []
    cols_l: list[int] = []
    for i, t in enumerate(texts):
        if not t:
            continue
        _present, fired = extract_signals({"text": t}, table)
        for f in fired:
            if f in ext_ok:
                rows_l.append(i)
                cols_l.append(pos[f])
    return np.array(rows_l, dtype=np.int64), np.array(cols_l, dtype=np.int64)


def reclassify(decisions: Any, *, table: Any = None, taxonomy: str | None = None) -> Reclassified:
    """Classify every decision's evidence (``signals`` + ``text``) under a rule table.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``). Only rows of the table's taxonomy are kept.
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
    # Text rules depend on the text only and routing on the signal set only: run the
    # text rules once per distinct text, route once per distinct signal set, and join.
    # (Lists are built from flat columns: polars builds those far faster than lists.)
    text_list = uniq["text"].unique().to_list()
    t_rows, t_cols = _text_rule_hits(text_list, tbl, ext_ok)
    rule_ids = [r.id for r in tbl.extract]
    rule_sig = [r.signal for r in tbl.extract]
    hits = pl.DataFrame({
        "_tid": pl.Series(t_rows, dtype=pl.UInt32),
        "_j": pl.Series(t_cols, dtype=pl.Int64),
    }).sort("_tid", "_j").with_columns(
        pl.col("_j").replace_strict(dict(enumerate(rule_ids)), return_dtype=pl.String, default=None).alias("fired"),
        pl.col("_j").replace_strict(dict(enumerate(rule_sig)), return_dtype=pl.String, default=None).alias("_ext"),
    )
    ext = hits.group_by("_tid", maintain_order=True).agg(pl.col("_ext").unique(maintain_order=True))
    fir = hits.group_by("_tid", maintain_order=True).agg(pl.col("fired"))
    texts = pl.DataFrame({"text": pl.Series(text_list, dtype=pl.String)}).with_row_index("_tid")
    texts = texts.join(ext, on="_tid", how="left").join(fir, on="_tid", how="left")

    raw = uniq.select("combo", pl.col("signals").alias("_raw")).explode("_raw").drop_nulls("_raw")
    names = raw["_raw"].unique().to_list()
    norm = {v: normalise_signal_name(v) for v in names}
    tool = (
        raw.with_columns(pl.col("_raw").replace_strict(norm, return_dtype=pl.String).alias("_s"))
        .filter(pl.col("_s") != "")
        .group_by("combo", maintain_order=True)
        .agg(pl.col("_s").unique(maintain_order=True).alias("_tool"))
    )
    combos = (
        uniq.select("combo", "text", "n")
        .join(texts, on="text", how="left", nulls_equal=True)
        .join(tool, on="combo", how="left")
        .with_columns(
            pl.concat_list(pl.col("_ext").fill_null([]), pl.col("_tool").fill_null([]))
            .list.unique(maintain_order=True).alias("present"),
            pl.col("fired").fill_null([]),
        )
        .with_columns(pl.col("present").list.sort().list.join("\x1f").alias("_key"))
    )
    keys = combos["_key"].unique().to_list()
    r_key, r_route, k_rule, k_bucket = [], [], [], []
    for key in keys:
        pset = set(key.split("\x1f")) if key else set()
        routes = [r.id for r in tbl.route if r.matches(pset)]
        r_key += [key] * len(routes)
        r_route += routes
        k_rule.append(routes[0] if routes else "fallback")
        k_bucket.append(tbl.route_by_id(routes[0]).bucket if routes else tbl.fallback)
    routed = pl.DataFrame({"_key": pl.Series(keys, dtype=pl.String), "rule": pl.Series(k_rule, dtype=pl.String),
                           "bucket": pl.Series(k_bucket, dtype=pl.String)})
    route_lists = pl.DataFrame({"_key": pl.Series(r_key, dtype=pl.String), "routes": pl.Series(r_route, dtype=pl.String)})
    route_lists = route_lists.group_by("_key", maintain_order=True).agg(pl.col("routes"))
    combos = (
        combos.join(routed, on="_key", how="left").join(route_lists, on="_key", how="left")
        .with_columns(pl.col("routes").fill_null([]))
        .sort("combo")
        .select(
            "combo", pl.col("present").cast(pl.List(pl.String)), pl.col("fired").cast(pl.List(pl.String)),
            pl.col("routes").cast(pl.List(pl.String)), "rule", "bucket", pl.col("n").cast(pl.Int64),
        )
    )
    events = df.with_columns(combo_of_row.alias("combo"))
    return Reclassified(table=tbl, events=events, combos=combos)
