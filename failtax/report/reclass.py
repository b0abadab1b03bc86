"""Re-classifying the decisions' evidence with the batch engine, once per distinct evidence.

The report looks at the same events under two tables: the shipped one (rule
diagnostics, misleading signals) and the one the tuner proposes (which events would
move between buckets). Both go through :func:`failtax.batch.classify_batch`, the engine
``failtax classify`` uses, so the report says exactly what classification would do.

Real telemetry repeats the same evidence many times, so each distinct (signals, text)
pair is classified once and the answer joined back. :func:`reclassify_with_batch` returns
the :class:`~failtax.analysis.Reclassified` the analysis functions accept
(``diagnose_rules``, ``find_misleading_signals``, ``find_suspect_labels``), computed
with the batch engine instead of one Python call per text. As in
:func:`failtax.analysis.reclassify`, evidence is a decision's ``signals`` and ``text``
only: extract rules that need an exit code, a POSIX signal, a result frame or
structured fields are not run (the analysis lists them as unevaluable).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from failtax.analysis.frames import as_decisions
from failtax.analysis.reclassify import Reclassified, evaluable, resolve_table
from failtax.batch import classify_batch, extract_rule_matrix
from failtax.table import RuleTable

__all__ = ["bucket_moves", "distinct_evidence", "reclassify_with_batch"]


def _text_only(table: RuleTable) -> RuleTable:
    """``table`` restricted to the extract rules decisions can re-run (text and signals)."""
    keep = tuple(r for r in table.extract if evaluable(r))
    return table if len(keep) == len(table.extract) else table.replace(extract=keep)


def distinct_evidence(decisions: Any, *, taxonomy: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The decisions of ``taxonomy`` and their distinct (signals, text) evidence.

    Returns ``(events, uniq)``: ``events`` are the validated decision rows with a
    ``combo`` column; ``uniq`` has one row per ``combo`` with ``signals``, ``text`` and
    ``n`` (events), most frequent first.

    >>> df = pl.DataFrame({"taxonomy": ["replay"] * 3, "signals": [["a"], ["a"], ["b"]],
    ...                    "text": [None, None, "x"]})
    >>> ev, u = distinct_evidence(df, taxonomy="replay")
    >>> u["n"].to_list(), ev["combo"].to_list()
    ([2, 1], [0, 0, 1])
    """
    df = as_decisions(decisions, columns=["taxonomy", "signals"], optional=["text"])
    df = df.filter(pl.col("taxonomy") == taxonomy)
    uniq = (
        df.with_row_index("_i")
        .group_by("signals", "text")
        .agg(pl.col("_i"), pl.len().cast(pl.Int64).alias("n"))
        .sort("n", pl.col("_i").list.first(), descending=[True, False])
        .with_row_index("combo")
    )
    combo_of_row = uniq.select("combo", "_i").explode("_i").sort("_i")["combo"]
    events = df.with_columns(combo_of_row.alias("combo"))
    return events, uniq.select("combo", "signals", "text", "n")


def reclassify_with_batch(decisions: Any, *, table: Any = None, taxonomy: str | None = None,
                          n_jobs: int | None = None) -> Reclassified:
    """Classify every decision's evidence under ``table`` with the batch engine.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``); rows of other taxonomies are dropped.
    table : a :class:`~failtax.RuleTable`, path or shipped name; default the shipped
        table of ``taxonomy``.
    taxonomy : needed when ``table`` is None.
    n_jobs : processes for the batch engine (None: as it sees fit).

    Returns
    -------
    failtax.analysis.Reclassified
        The same frames :func:`failtax.analysis.reclassify` builds (``combos`` with
        ``present``, ``fired``, ``routes``, ``rule``, ``bucket``, ``n``; ``events`` with
        ``combo``), ready for ``diagnose_rules`` and ``find_misleading_signals``.

    >>> df = pl.DataFrame({"event_id": ["a", "b"], "taxonomy": ["replay"] * 2,
    ...     "signals": [["selector-timeout"], []], "text": [None, "Electron crashed"]})
    >>> r = reclassify_with_batch(df, taxonomy="replay")
    >>> r.event_frame("rule", "bucket").select("event_id", "rule", "bucket").rows()
    [('a', 'stale-script', 'stale-script'), ('b', 'infra', 'infra')]
    """
    tbl = resolve_table(table, taxonomy=taxonomy)
    events, uniq = distinct_evidence(decisions, taxonomy=tbl.taxonomy)
    run = _text_only(tbl)
    evidence = uniq.select("signals", "text")
    if uniq.height:
        res = classify_batch(evidence, table=run, n_jobs=n_jobs)
        mat, ids = extract_rule_matrix(evidence, table=run, n_jobs=n_jobs)
        rows, cols = mat.nonzero()
        fired = (
            pl.DataFrame({"combo": pl.Series(rows, dtype=pl.UInt32),
                          "fired": pl.Series([ids[c] for c in cols], dtype=pl.String)})
            .group_by("combo", maintain_order=True).agg(pl.col("fired"))
        )
        present = res["signals"].cast(pl.List(pl.String))
        rule, bucket = res["rule"], res["bucket"]
    else:
        fired = pl.DataFrame(schema={"combo": pl.UInt32, "fired": pl.List(pl.String)})
        present = pl.Series([], dtype=pl.List(pl.String))
        rule = bucket = pl.Series([], dtype=pl.String)
    combos = uniq.select("combo", "n").with_columns(
        present.alias("present"), rule.alias("rule"), bucket.alias("bucket"),
    ).join(fired, on="combo", how="left").with_columns(pl.col("fired").fill_null([]))
    # Every matching route per distinct signal set (routing depends on the set only).
    keyed = combos.with_columns(pl.col("present").list.sort().list.join("\x1f").alias("_key"))
    keys = keyed["_key"].unique().to_list()
    k_out, r_out = [], []
    for key in keys:
        pset = set(key.split("\x1f")) if key else set()
        for r in tbl.route:
            if r.matches(pset):
                k_out.append(key)
                r_out.append(r.id)
    routes = (
        pl.DataFrame({"_key": pl.Series(k_out, dtype=pl.String), "routes": pl.Series(r_out, dtype=pl.String)})
        .group_by("_key", maintain_order=True).agg(pl.col("routes"))
    )
    combos = (
        keyed.join(routes, on="_key", how="left")
        .with_columns(pl.col("routes").fill_null([]))
        .sort("combo")
        .select("combo", pl.col("present").cast(pl.List(pl.String)), pl.col("fired").cast(pl.List(pl.String)),
                pl.col("routes").cast(pl.List(pl.String)), "rule", "bucket", pl.col("n").cast(pl.Int64))
    )
    return Reclassified(table=tbl, events=events, combos=combos)


def bucket_moves(decisions: Any, *, old: Any, new: Any, taxonomy: str | None = None,
                 n_jobs: int | None = None) -> pl.DataFrame:
    """How many events each (old bucket, new bucket) pair holds when ``new`` replaces ``old``.

    Both tables classify each distinct evidence once with the batch engine; events are
    counted with their repeats.

    Parameters
    ----------
    decisions : the ``decisions`` relation.
    old, new : tables (RuleTable, path or shipped name) of the same taxonomy.
    taxonomy : default ``old``'s taxonomy.
    n_jobs : processes for the batch engine.

    Returns
    -------
    polars.DataFrame
        ``taxonomy``, ``old_bucket``, ``new_bucket``, ``n``, sorted by ``n`` descending.

    >>> df = pl.DataFrame({"taxonomy": ["replay"] * 2, "signals": [["selector-timeout"], []]})
    >>> bucket_moves(df, old="replay", new="replay").rows()
    [('replay', 'product-defect', 'product-defect', 1), ('replay', 'stale-script', 'stale-script', 1)]
    """
    t_old = resolve_table(old, taxonomy=taxonomy)
    t_new = resolve_table(new, taxonomy=t_old.taxonomy)
    _events, uniq = distinct_evidence(decisions, taxonomy=t_old.taxonomy)
    schema = {"taxonomy": pl.String, "old_bucket": pl.String, "new_bucket": pl.String, "n": pl.Int64}
    if uniq.height == 0:
        return pl.DataFrame(schema=schema)
    evidence = uniq.select("signals", "text")
    b_old = classify_batch(evidence, table=_text_only(t_old), n_jobs=n_jobs)["bucket"]
    b_new = b_old if t_new == t_old else classify_batch(evidence, table=_text_only(t_new), n_jobs=n_jobs)["bucket"]
    return (
        pl.DataFrame({"old_bucket": b_old, "new_bucket": b_new, "n": uniq["n"]})
        .group_by("old_bucket", "new_bucket").agg(pl.col("n").sum().cast(pl.Int64))
        .with_columns(pl.lit(t_old.taxonomy).alias("taxonomy"))
        .select("taxonomy", "old_bucket", "new_bucket", "n")
        .sort(["n", "old_bucket", "new_bucket"], descending=[True, False, False])
    )
