"""Input checks and signal sets for the tuner: the one place decisions are validated.

Every public tuning function accepts the ``decisions`` relation of the telemetry
contract as a polars or pandas DataFrame, an Arrow table or a DuckDB relation. This
module turns any of them into one polars frame with the columns the tuner needs, and
computes each event's *signal set* the way :func:`failtax.classify` would see it: the
signals the tool named (normalised) plus the signals the table's text rules find in the
event's ``text``. Evidence the telemetry does not carry (exit codes, structured fields)
is not re-evaluated: the tool's named signals already reflect it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

from failtax.errors import InputError
from failtax.table import ExtractRule, RuleTable
from failtax.taxonomy import Taxonomy

SEP = "\x1f"  # joins the signals of a set into one grouping key

_REQUIRED = ("signals", "user_action")


def as_polars(decisions: Any) -> pl.DataFrame:
    """Any supported frame or relation as a polars DataFrame (no copy when possible)."""
    if isinstance(decisions, pl.DataFrame):
        return decisions
    if isinstance(decisions, pl.LazyFrame):
        return decisions.collect()
    mod = type(decisions).__module__
    if mod.startswith("pandas"):
        return pl.from_pandas(decisions)
    if mod.startswith("pyarrow"):
        out = pl.from_arrow(decisions)
        if isinstance(out, pl.Series):
            raise InputError("decisions: expected a table, got an Arrow array")
        return out
    if hasattr(decisions, "pl") and callable(decisions.pl):  # a DuckDB relation
        return decisions.pl()
    raise InputError(
        f"decisions: expected a polars or pandas DataFrame, an Arrow table or a DuckDB "
        f"relation, got {type(decisions).__name__}"
    )


def prepare(decisions: Any, *, taxonomy: Taxonomy) -> pl.DataFrame:
    """Check ``decisions`` and return the columns the tuner uses, filled in where absent.

    Rows of other taxonomies (when a ``taxonomy`` column is present) are dropped.
    Returned columns: ``event_id``, ``ts``, ``resolved_ts``, ``week``, ``signals``
    (normalised, de-duplicated), ``user_action``, ``implied_bucket``, ``opt_out``,
    ``agree_row`` (the row counts in agreement), ``text``.
    """
    df = as_polars(decisions)
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        raise InputError(
            f"decisions: missing column(s) {', '.join(missing)}; the tuner needs the "
            f"'decisions' relation of the telemetry contract (have: {', '.join(df.columns)})"
        )
    if "taxonomy" in df.columns:
        df = df.filter(pl.col("taxonomy") == taxonomy.name)
    n = df.height
    cols: list[pl.Expr] = []
    if "event_id" in df.columns:
        cols.append(pl.col("event_id").cast(pl.Utf8))
    else:
        cols.append(pl.int_range(0, n, dtype=pl.Int64).cast(pl.Utf8).alias("event_id"))
    if "ts" in df.columns:
        cols.append(pl.col("ts").cast(pl.Datetime("us")))
    else:
        cols.append(pl.lit(None, dtype=pl.Datetime("us")).alias("ts"))
    if "resolved_ts" in df.columns:
        cols.append(pl.col("resolved_ts").cast(pl.Datetime("us")))
    else:
        cols.append(pl.lit(None, dtype=pl.Datetime("us")).alias("resolved_ts"))
    if "week" in df.columns:
        cols.append(pl.col("week").cast(pl.Date))
    elif "ts" in df.columns:
        cols.append(pl.col("ts").cast(pl.Datetime("us")).dt.truncate("1w").cast(pl.Date).alias("week"))
    else:
        cols.append(pl.lit(None, dtype=pl.Date).alias("week"))
    sig_dtype = df.schema["signals"]
    if sig_dtype == pl.Null:
        cols.append(pl.lit([], dtype=pl.List(pl.Utf8)).alias("signals"))
    elif not isinstance(sig_dtype, pl.List) or sig_dtype.inner not in (pl.Utf8, pl.Null):
        raise InputError(f"decisions: column 'signals' must be a list of strings, got {sig_dtype}")
    else:
        cols.append(
            pl.col("signals")
            .cast(pl.List(pl.Utf8))
            .fill_null([])
            .list.eval(
                pl.element()
                .str.strip_chars()
                .str.to_lowercase()
                .str.replace_all(r"[\s_]+", "-")
                .str.replace_all(r"-{2,}", "-")
                .str.strip_chars("-")
            )
            .list.eval(pl.element().filter(pl.element().str.len_chars() > 0))
            .list.unique(maintain_order=True)
            .alias("signals")
        )
    cols.append(pl.col("user_action").cast(pl.Utf8))
    actions = dict(taxonomy.actions)
    if "implied_bucket" in df.columns:
        implied = pl.col("implied_bucket").cast(pl.Utf8)
    else:
        implied = pl.col("user_action").cast(pl.Utf8).replace_strict(actions, default=None, return_dtype=pl.Utf8)
    cols.append(implied.alias("implied_bucket"))
    if "opt_out" in df.columns:
        opt = pl.col("opt_out").cast(pl.Boolean).fill_null(False)
    else:
        opt = pl.col("user_action").cast(pl.Utf8).is_in(list(taxonomy.opt_out)).fill_null(False)
    cols.append(opt.alias("opt_out"))
    cols.append(pl.col("text").cast(pl.Utf8) if "text" in df.columns else pl.lit(None, dtype=pl.Utf8).alias("text"))
    out = df.select(cols)
    out = out.with_columns(
        agree_row=pl.col("user_action").is_not_null() & ~pl.col("opt_out"),
    )
    # An implied bucket of an opt-out or undecided row is not a label.
    out = out.with_columns(
        implied_bucket=pl.when(pl.col("agree_row")).then(pl.col("implied_bucket")).otherwise(None)
    )
    return out


def is_text_rule(rule: ExtractRule) -> bool:
    """True when an extract rule looks at nothing but the text (so telemetry can replay it)."""
    return rule.uses_text and not (
        rule.exit_code or rule.has_signal is not None or rule.posix_signal or rule.frame_subtype
        or rule.frame_error is not None or rule.field is not None
    )


def text_rules(table: RuleTable) -> tuple[ExtractRule, ...]:
    return tuple(r for r in table.extract if is_text_rule(r))


def _text_signals_loop(texts: Iterable[str], table: RuleTable) -> list[list[str]]:
    from failtax.classify import extract_signals

    out = []
    for t in texts:
        sig, _ = extract_signals({"text": t}, table)
        out.append(list(sig))
    return out


def text_signals(texts: pl.Series, table: RuleTable) -> pl.Series:
    """The signals ``table``'s text rules find in each text (a list per text, in order)."""
    rules = text_rules(table)
    if not rules or texts.len() == 0:
        return pl.Series("text_signals", [[] for _ in range(texts.len())], dtype=pl.List(pl.Utf8))
    sub = table.replace(extract=rules, route=(), locate=())
    frame = pl.DataFrame({"text": texts})
    uniq = frame.filter(pl.col("text").is_not_null()).unique("text")
    found = _text_signals_batch(uniq["text"], sub)
    if found is None:
        found = pl.Series(_text_signals_loop(uniq["text"].to_list(), sub), dtype=pl.List(pl.Utf8))
    lut = uniq.with_columns(text_signals=found)
    joined = frame.with_row_index("_i").join(lut, on="text", how="left").sort("_i")
    return joined["text_signals"].fill_null([]).alias("text_signals")


def _text_signals_batch(texts: pl.Series, table: RuleTable) -> pl.Series | None:
    """Use the vectorised batch extractor when the package provides one."""
    try:
        from failtax import batch
    except ImportError:  # pragma: no cover - batch is part of the package
        return None
    fn = getattr(batch, "extract_signal_matrix", None)
    if fn is None:
        return None
    return _from_signal_matrix(fn, texts, table)


def _from_signal_matrix(fn: Any, texts: pl.Series, table: RuleTable) -> pl.Series | None:
    try:
        res = fn(pl.DataFrame({"text": texts}), table=table)
    except TypeError:
        return None
    return signal_lists_from_matrix(res, table)


def signal_lists_from_matrix(res: Any, table: RuleTable) -> pl.Series | None:
    """Turn what ``extract_signal_matrix`` returns into one signal list per row."""
    import numpy as np

    names: list[str] | None = None
    mat = None
    if isinstance(res, tuple) and len(res) == 2:
        a, b = res
        if isinstance(a, list | tuple) and not isinstance(b, list | tuple):
            names, mat = list(a), b
        else:
            mat, names = a, list(b)
    elif hasattr(res, "matrix") and hasattr(res, "signals"):
        mat, names = res.matrix, list(res.signals)
    elif isinstance(res, pl.DataFrame):
        if "signals" in res.columns and isinstance(res.schema["signals"], pl.List):
            return res["signals"].cast(pl.List(pl.Utf8))
        names = list(res.columns)
        mat = res.to_numpy()
    if mat is None or names is None:
        return None
    if hasattr(mat, "toarray"):
        mat = mat.toarray()
    mat = np.asarray(mat, dtype=bool)
    order = [s for s in dict.fromkeys(r.signal for r in table.extract)]
    pos = {s: i for i, s in enumerate(names)}
    cols = [pos[s] for s in order if s in pos]
    keep = [s for s in order if s in pos]
    lists = [[keep[j] for j in np.flatnonzero(row)] for row in mat[:, cols]]
    return pl.Series(lists, dtype=pl.List(pl.Utf8))


def with_signal_sets(frame: pl.DataFrame, table: RuleTable, *, use_text: bool) -> pl.DataFrame:
    """Add ``sigset`` (sorted list) and ``sigkey`` (its joined key) to a prepared frame."""
    sets = pl.col("signals")
    if use_text and text_rules(table) and frame["text"].null_count() < frame.height:
        frame = frame.with_columns(text_signals(frame["text"], table))
        sets = pl.concat_list([pl.col("signals"), pl.col("text_signals")])
    frame = frame.with_columns(sigset=sets.list.unique().list.sort())
    frame = frame.with_columns(sigkey=pl.col("sigset").list.join(SEP))
    if "text_signals" in frame.columns:
        frame = frame.drop("text_signals")
    return frame
