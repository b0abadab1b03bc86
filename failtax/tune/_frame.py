"""Input checks and signal sets for the tuner: the one place decisions are validated.

Every public tuning function accepts the ``decisions`` relation of the telemetry
contract as a polars or pandas DataFrame, an Arrow table or a DuckDB relation (or a
loaded ``Telemetry``, whose ``decisions`` relation is taken). This
module turns any of them into one polars frame with the columns the tuner needs, and
computes each event's *signal set* the way :func:`failtax.classify` would see it: the
signals the tool named (normalised) plus the signals the table's text rules find in the
event's ``text``. Evidence the telemetry does not carry (exit codes, structured fields)
is not re-evaluated: the tool's named signals already reflect it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.frames import as_frame
from failtax.errors import InputError
from failtax.table import ExtractRule, RuleTable
from failtax.taxonomy import Taxonomy

SEP = "\x1f"  # joins the signals of a set into one grouping key

_REQUIRED = ("signals", "user_action")


def prepare(decisions: Any, *, taxonomy: Taxonomy) -> pl.DataFrame:
    """Check ``decisions`` and return the columns the tuner uses, filled in where absent.

    Rows of other taxonomies (when a ``taxonomy`` column is present) are dropped. For the
    pre-execution family an event without an override counts as the person taking the
    AI's mode (the contract's silent acceptance).
    Returned columns: ``event_id``, ``ts``, ``resolved_ts``, ``week``, ``signals``
    (normalised, de-duplicated), ``user_action``, ``implied_bucket``, ``opt_out``,
    ``agree_row`` (the row counts in agreement), ``text``.
    """
    df = as_frame(decisions, what="decisions")
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
        cols.append(pl.col("signals").cast(pl.List(pl.Utf8)).fill_null([]).alias("signals"))
    action = pl.col("user_action").cast(pl.Utf8)
    silent = taxonomy.event_family == "pre-execution"
    if silent:
        # A pre-execution event without an override was accepted silently (the telemetry
        # contract): the person took the AI's mode. Counting only the overrides would
        # make every decision a disagreement.
        if "ai_suggestion" in df.columns:
            accepted = pl.col("ai_suggestion").cast(pl.Utf8)
        elif "ai_bucket" in df.columns:
            sugg = {b.name: b.suggestion for b in taxonomy.buckets if b.suggestion}
            accepted = pl.col("ai_bucket").cast(pl.Utf8).replace_strict(sugg, default=None, return_dtype=pl.Utf8)
        else:
            accepted = pl.lit(None, dtype=pl.Utf8)
        action = pl.when(action.is_null() & (accepted != "")).then(accepted).otherwise(action)
    cols.append(action.alias("user_action"))
    actions = dict(taxonomy.actions)
    if "implied_bucket" in df.columns and not silent:
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
    out = out.with_columns(signals=_normalised_lists(out["signals"]))
    out = out.with_columns(
        agree_row=pl.col("user_action").is_not_null() & ~pl.col("opt_out"),
    )
    # An implied bucket of an opt-out or undecided row is not a label.
    out = out.with_columns(
        implied_bucket=pl.when(pl.col("agree_row")).then(pl.col("implied_bucket")).otherwise(None)
    )
    return out


def _normalised_lists(signals: pl.Series) -> pl.Series:
    """Each list of signal names normalised and de-duplicated (order kept).

    Telemetry repeats a few distinct lists millions of times, so each distinct list is
    normalised once (:func:`failtax.evidence.normalise_signal_name`) and joined back.
    """
    from failtax.evidence import normalise_signal_name

    keys = signals.list.join(SEP)
    frame = pl.DataFrame({"_k": keys})
    uniq = frame.unique("_k", maintain_order=True)
    fixed = []
    for k in uniq["_k"].to_list():
        names = [normalise_signal_name(x) for x in k.split(SEP)] if k else []
        fixed.append(list(dict.fromkeys(x for x in names if x)))
    lut = uniq.with_columns(_s=pl.Series(fixed, dtype=pl.List(pl.Utf8)))
    return frame.join(lut, on="_k", how="left", maintain_order="left")["_s"].alias("signals")


def _text_signals_loop(texts: Iterable[str], table: RuleTable) -> list[tuple[str, ...]]:
    from failtax.classify import extract_signals

    return [extract_signals({"text": t}, table)[0] for t in texts]


def text_signal_patterns(texts: pl.Series, table: RuleTable) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """For each text, the index of its pattern of text-rule signals, and the patterns.

    Pattern 0 is always the empty pattern (no text, or nothing found). Texts are
    classified once each (the batch extractor when the package has one, else
    :func:`failtax.classify.extract_signals` per distinct text); up to
    :data:`MEMO_TEXTS` distinct texts are remembered for the next call.
    """
    n = texts.len()
    rules = table.text_rules()
    if not rules or n == 0 or texts.null_count() == n:
        return np.zeros(n, dtype=np.int64), [()]
    sub = table.replace(extract=rules, route=(), locate=())
    # One code per distinct text (nulls become -1).
    codes = texts.cast(pl.Categorical).to_physical().cast(pl.Int64).fill_null(-1).to_numpy()
    frame = pl.DataFrame({"text": texts, "_c": pl.Series(codes, dtype=pl.Int64)})
    uniq = frame.filter(pl.col("text").is_not_null()).unique("_c", maintain_order=True)
    if uniq.height <= MEMO_TEXTS:  # (the usual case: remembered, so read again for free)
        inv, patterns = _patterns_of(_remembered_signals(uniq["text"].to_list(), sub))
    else:
        inv, patterns = _signal_patterns(uniq["text"], sub)
    # Re-number so that pattern 0 is the empty one.
    patterns_full = [()] + [p for p in patterns if p]
    remap = np.array([patterns_full.index(p) if p else 0 for p in patterns], dtype=np.int64)
    by_code = np.zeros(int(codes.max()) + 1 if len(codes) else 1, dtype=np.int64)
    by_code[uniq["_c"].to_numpy()] = remap[inv]
    out = np.where(texts.is_null().to_numpy(), 0, by_code[np.where(codes < 0, 0, codes)])
    return out.astype(np.int64), patterns_full


#: Distinct texts whose text-rule signals are remembered per set of text rules (for the
#: last few sets): a tuner's fit, its cross-validation and a report's backtests read
#: overlapping windows of the same texts, and each would find their signals again.
MEMO_TEXTS = 100_000
_MEMO_TABLES = 4
_memo: OrderedDict[tuple[str, tuple[ExtractRule, ...]], dict[str, tuple[str, ...]]] = OrderedDict()


def _remembered_signals(texts: list[str], sub: RuleTable) -> list[tuple[str, ...]]:
    """The signals ``sub``'s text rules find in each of the distinct ``texts`` (in table
    order), found once per text while remembered."""
    key = (sub.taxonomy, sub.extract)
    memo = _memo.get(key)
    if memo is None:
        memo = _memo[key] = {}
        while len(_memo) > _MEMO_TABLES:
            _memo.popitem(last=False)
    else:
        _memo.move_to_end(key)
    missing = [t for t in texts if t not in memo]
    new = dict(zip(missing, _find_signals(missing, sub), strict=True)) if missing else {}
    out = [new[t] if t in new else memo[t] for t in texts]
    if len(memo) + len(new) > MEMO_TEXTS:
        memo.clear()
    memo.update(new)
    return out


def _find_signals(texts: list[str], sub: RuleTable) -> list[tuple[str, ...]]:
    """The signals ``sub``'s text rules find in each text, in table order."""
    inv, patterns = _signal_patterns(pl.Series(texts, dtype=pl.Utf8), sub)
    return [patterns[i] for i in inv]


def _signal_patterns(texts: pl.Series, sub: RuleTable) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """Per text, the index of its signals among the distinct patterns found, and those
    patterns: by the batch extractor when the package has one, else text by text."""
    mat_names = _text_signals_batch(texts, sub)
    if mat_names is None:
        return _patterns_of(_text_signals_loop(texts.to_list(), sub))
    return _matrix_patterns(*mat_names, sub)


def _patterns_of(found: list[tuple[str, ...]]) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """Per row of ``found``, the index of its pattern, and the distinct patterns."""
    lut: dict[tuple[str, ...], int] = {}
    inv = np.fromiter((lut.setdefault(f, len(lut)) for f in found), dtype=np.int64, count=len(found))
    return inv, list(lut)


def _matrix_patterns(mat: np.ndarray, names: list[str], sub: RuleTable) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """Per row of the batch extractor's (matrix, signal names), the index of its pattern,
    and the distinct patterns (signals in table order)."""
    order = list(dict.fromkeys(r.signal for r in sub.extract))
    keep = [s for s in order if s in names]
    mat = np.ascontiguousarray(mat[:, [names.index(s) for s in keep]], dtype=bool)
    if mat.shape[1] <= 63:  # one integer per row: unique on integers is fast
        code = mat.astype(np.uint64) @ (np.uint64(1) << np.arange(mat.shape[1], dtype=np.uint64))
        pats, inv = np.unique(code, return_inverse=True)
        patterns = [tuple(keep[j] for j in range(len(keep)) if (int(p) >> j) & 1) for p in pats]
    else:
        pats, inv = np.unique(np.packbits(mat, axis=1), axis=0, return_inverse=True)
        patterns = [tuple(keep[j] for j in np.flatnonzero(np.unpackbits(p)[: len(keep)])) for p in pats]
    return np.asarray(inv).reshape(-1), patterns


def text_signals(texts: pl.Series, table: RuleTable) -> pl.Series:
    """The signals ``table``'s text rules find in each text (a list per text, in table order)."""
    idx, patterns = text_signal_patterns(texts, table)
    lists = pl.Series("text_signals", [list(p) for p in patterns], dtype=pl.List(pl.Utf8))
    return lists.gather(idx).alias("text_signals")


def _text_signals_batch(texts: pl.Series, table: RuleTable) -> tuple[np.ndarray, list[str]] | None:
    """The vectorised batch extractor's (matrix, signal names), when the package has one."""
    try:
        from failtax import batch
    except ImportError:  # pragma: no cover - batch is part of the package
        return None
    fn = getattr(batch, "extract_signal_matrix", None)
    if fn is None:
        return None
    try:
        mat, names = fn(pl.DataFrame({"text": texts}), table=table)
    except Exception:  # noqa: BLE001 - the exact per-text loop is always right
        return None
    mat = np.asarray(mat.toarray() if hasattr(mat, "toarray") else mat, dtype=bool)
    if mat.shape != (texts.len(), len(names)):
        return None
    return mat, list(names)


def with_signal_sets(frame: pl.DataFrame, table: RuleTable, *, use_text: bool) -> pl.DataFrame:
    """Add ``sigkey``: each event's signal set (named + found in text), sorted and joined."""
    # (prepare() de-duplicated the names; the few distinct combinations are sorted below)
    named = frame["signals"].list.join(SEP)
    if use_text and table.text_rules() and frame["text"].null_count() < frame.height:
        tpat, patterns = text_signal_patterns(frame["text"], table)
    else:
        tpat, patterns = np.zeros(frame.height, dtype=np.int64), [()]
    pairs = pl.DataFrame({"_named": named, "_tpat": tpat})
    combos = pairs.unique(maintain_order=True)
    keys = []
    for nk, tp in combos.iter_rows():
        ss = set(nk.split(SEP)) if nk else set()
        ss.update(patterns[tp])
        keys.append(SEP.join(sorted(ss)))
    combos = combos.with_columns(sigkey=pl.Series(keys, dtype=pl.Utf8))
    sigkey = pairs.join(combos, on=["_named", "_tpat"], how="left", maintain_order="left")["sigkey"]
    return frame.with_columns(sigkey=sigkey)
