"""Values in the decisions that their taxonomy does not define.

A tool that renames an action (``share-defect`` → ``file-defect``), a bucket the AI
invents (``flaky``), a typo in a suggestion: each is a good event the loader keeps, but
the agreement it feeds is quietly wrong (an action no taxonomy knows implies no bucket and
never carries out a suggestion). :func:`find_unknown_values` counts them, so the report
can say so beside the quarantine.
"""

from __future__ import annotations

import functools
from typing import Any

import polars as pl

from failtax.analysis.frames import as_frame
from failtax.taxonomy import list_taxonomies, load_taxonomy

__all__ = ["ABSENT", "UNKNOWN_VALUE_FIELDS", "find_unknown_values", "taxonomy_vocabulary"]

#: The value an ``ai_bucket`` that is absent is counted under.
ABSENT = "(absent)"

#: The decisions columns checked, and what each should hold.
UNKNOWN_VALUE_FIELDS: dict[str, str] = {
    "ai_bucket": "a bucket of the taxonomy",
    "ai_suggestion": "an action of the taxonomy",
    "user_action": "an action of the taxonomy",
}


@functools.cache
def taxonomy_vocabulary(taxonomy: str) -> dict[str, frozenset[str]]:
    """The values a taxonomy defines: ``buckets``, and ``actions`` (every action its
    files name: the action→bucket map, the opt-outs, the actions that carry out each
    suggestion, and each bucket's suggestion and options).

    >>> v = taxonomy_vocabulary("replay")
    >>> "stale-script" in v["buckets"], {"regenerate", "retry", "skip"} <= v["actions"]
    (True, True)
    """
    t = load_taxonomy(taxonomy)
    actions = set(t.actions) | set(t.opt_out) | set(t.suggestion_actions)
    actions.update(a for acts in t.suggestion_actions.values() for a in acts)
    for b in t.buckets:
        actions.update(b.options)
        if b.suggestion:
            actions.add(b.suggestion)
    return {"buckets": frozenset(t.bucket_names), "actions": frozenset(actions)}


def find_unknown_values(decisions: Any) -> pl.DataFrame:
    """Count the AI buckets, suggestions and actions their taxonomy does not define.

    Parameters
    ----------
    decisions : the ``decisions`` relation (any frame :func:`~failtax.analysis.as_frame`
        takes) with ``taxonomy`` and any of ``ai_bucket``, ``ai_suggestion``,
        ``user_action``. Nulls are not values: an absent suggestion or an undecided event
        is not counted, except a classification that names no bucket (its agreement
        cannot be judged), counted as ``ai_bucket`` value ``(absent)``. Rows of a
        taxonomy failtax does not ship are left out.

    Returns
    -------
    polars.DataFrame
        ``taxonomy``, ``field`` (the column), ``value``, ``events`` (how many rows hold
        it), ``expected`` (what the column should hold); most frequent first.

    >>> df = pl.DataFrame({"taxonomy": ["replay"] * 4, "ai_bucket": ["infra", "flaky", "flaky", None],
    ...                    "ai_suggestion": ["report-bug", None, "teleport", None],
    ...                    "user_action": ["retry", "skip", None, "retry"]})
    >>> find_unknown_values(df).select("field", "value", "events").rows()
    [('ai_bucket', 'flaky', 2), ('ai_bucket', '(absent)', 1), ('ai_suggestion', 'teleport', 1)]
    """
    df = as_frame(decisions, what="decisions")
    schema = {"taxonomy": pl.String, "field": pl.String, "value": pl.String, "events": pl.Int64,
              "expected": pl.String}
    fields = [f for f in UNKNOWN_VALUE_FIELDS if f in df.columns]
    if "taxonomy" not in df.columns or not fields or df.height == 0:
        return pl.DataFrame(schema=schema)
    shipped = set(list_taxonomies())
    parts = []
    for f in fields:
        held = pl.col(f).cast(pl.String)
        if f == "ai_bucket":  # a classification that names no bucket is counted, not skipped
            held = held.fill_null(ABSENT)
        counts = (df.lazy().filter(held.is_not_null() & pl.col("taxonomy").is_in(list(shipped)))
                  .group_by("taxonomy", held.alias("value")).agg(pl.len().alias("events"))
                  .collect())
        kind = "buckets" if f == "ai_bucket" else "actions"
        for tax, value, n in counts.iter_rows():
            if value not in taxonomy_vocabulary(tax)[kind]:
                parts.append((tax, f, value, n, UNKNOWN_VALUE_FIELDS[f]))
    out = pl.DataFrame(parts, schema=schema, orient="row")
    order = {f: i for i, f in enumerate(UNKNOWN_VALUE_FIELDS)}
    return (out.with_columns(pl.col("field").replace_strict(order, return_dtype=pl.Int32).alias("_o"))
            .sort(["events", "taxonomy", "_o", "value"], descending=[True, False, False, False]).drop("_o"))
