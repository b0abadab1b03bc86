"""Agreement between the AI's suggestion and the person's action.

Definitions (the telemetry contract's):

- **agreement rate** = mean(``agree``) over rows where ``agree`` is not NULL (decided,
  not an opt-out);
- **opt-out rate** = mean(``opt_out``) over decided rows;
- **labels** = rows with ``implied_bucket`` not NULL: ``y_true = implied_bucket``,
  ``y_pred = ai_bucket``, over the taxonomy's full bucket list.

Metrics follow scikit-learn's conventions: ``(y_true, y_pred, *, labels=...)``,
``*_score`` is higher-is-better, and the full label list keeps absent classes as zero
rows. :func:`macro_f1_score` and :func:`cohen_kappa_score` return exactly what
``sklearn.metrics.f1_score(average="macro", labels=...)`` and
``sklearn.metrics.cohen_kappa_score`` return (tested), computed from pair counts so a
million rows cost one group-by.

Frames: :func:`summarize_agreement` (overall or one slice: bucket, skill, project,
family, taxonomy, signal, week), :func:`score_labels` (F1, kappa, confusion per
taxonomy), :func:`summarize_latency`, and :func:`measure_agreement` that bundles them.
Every rate carries its count and a Wilson 95% interval; a slice under ``min_count`` is
flagged ``low_count``, never hidden.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.frames import DECISION_COLUMNS, as_decisions, filter_decisions, with_rate_columns
from failtax.errors import InputError
from failtax.taxonomy import load_taxonomy

__all__ = [
    "AgreementReport",
    "LabelScores",
    "SLICES",
    "cohen_kappa_score",
    "confusion_matrix",
    "macro_f1_score",
    "measure_agreement",
    "score_labels",
    "summarize_agreement",
    "summarize_latency",
]

#: Slice name → the decisions column(s) it groups by.
SLICES: dict[str, tuple[str, ...]] = {
    "taxonomy": ("taxonomy",),
    "family": ("family",),
    "bucket": ("taxonomy", "ai_bucket"),
    "skill": ("skill",),
    "project": ("project_id",),
    "signal": ("taxonomy", "signal"),
    "week": ("week",),
}

DEFAULT_MIN_COUNT = 30


# --------------------------------------------------------------------------- metrics


def _as_series(y: Any, name: str) -> pl.Series:
    if isinstance(y, pl.Series):
        s = y
    elif type(y).__module__.split(".")[0] == "pandas":
        s = pl.from_pandas(y)
    else:
        s = pl.Series(values=list(y) if not isinstance(y, np.ndarray) else y.tolist())
    if s.dtype != pl.String:
        s = s.cast(pl.String)
    return s.alias(name)


def _pair_counts(y_true: Any, y_pred: Any) -> pl.DataFrame:
    """Counts of each (y_true, y_pred) pair as a frame ``(t, p, n)``."""
    a, b = _as_series(y_true, "t"), _as_series(y_pred, "p")
    if a.len() != b.len():
        raise InputError(f"y_true and y_pred differ in length ({a.len()} vs {b.len()})")
    return pl.DataFrame([a, b]).group_by("t", "p").len("n")


def confusion_matrix(y_true: Any, y_pred: Any, *, labels: Sequence[str]) -> np.ndarray:
    """Counts ``C[i, j]`` of samples with ``y_true == labels[i]`` and ``y_pred == labels[j]``.

    As ``sklearn.metrics.confusion_matrix(y_true, y_pred, labels=labels)``: every label
    gets a row and a column (zeros when absent); samples whose values are not in
    ``labels`` are not counted.

    Parameters
    ----------
    y_true, y_pred : sequences of labels of equal length (lists, numpy arrays, polars
        or pandas Series).
    labels : the full label list, in the order of rows and columns.

    Returns
    -------
    numpy.ndarray of shape ``(len(labels), len(labels))``, dtype int64.

    >>> confusion_matrix(["a", "b", "b"], ["a", "a", "b"], labels=["a", "b", "c"]).tolist()
    [[1, 0, 0], [1, 1, 0], [0, 0, 0]]
    """
    return _confusion_from_counts(_pair_counts(y_true, y_pred), [str(x) for x in labels])


def macro_f1_score(y_true: Any, y_pred: Any, *, labels: Sequence[str]) -> float:
    """Unweighted mean of per-label F1 over ``labels`` (absent labels count as 0).

    Equals ``sklearn.metrics.f1_score(y_true, y_pred, average="macro", labels=labels)``
    with its default ``zero_division`` (a label with no true and no predicted sample
    scores 0). A sample whose value is not in ``labels`` still counts as a false
    positive or false negative of the label on its other side, as in scikit-learn.

    Parameters
    ----------
    y_true, y_pred : sequences of labels of equal length.
    labels : the labels to average over (use the taxonomy's full bucket list).

    Returns
    -------
    float in [0, 1]; 0.0 for empty input.

    >>> from fractions import Fraction
    >>> # a: tp 1 fp 1 fn 0 -> 2/3; b: tp 1 fp 0 fn 1 -> 2/3; c: absent -> 0
    >>> macro_f1_score(["a", "b", "b"], ["a", "a", "b"], labels=["a", "b", "c"]) == float(Fraction(4, 9))
    True
    """
    labels = [str(x) for x in labels]
    if not labels:
        raise InputError("labels must not be empty")
    tp = dict.fromkeys(labels, 0)
    n_true = dict.fromkeys(labels, 0)
    n_pred = dict.fromkeys(labels, 0)
    for t, p, n in _pair_counts(y_true, y_pred).iter_rows():
        if t in n_true:
            n_true[t] += n
        if p in n_pred:
            n_pred[p] += n
        if t == p and t in tp:
            tp[t] += n
    scores = []
    for lab in labels:
        denom = n_true[lab] + n_pred[lab]  # = 2tp + fp + fn
        scores.append(2 * tp[lab] / denom if denom else 0.0)
    return float(np.mean(scores))


def cohen_kappa_score(y1: Any, y2: Any, *, labels: Sequence[str] | None = None) -> float:
    """Cohen's kappa: agreement between two labelings beyond chance.

    Equals ``sklearn.metrics.cohen_kappa_score(y1, y2, labels=labels)``: the confusion
    matrix over ``labels`` (samples outside them dropped), ``kappa = 1 - sum(W*C) /
    sum(W*E)`` with ``W`` the off-diagonal ones and ``E`` the product of the margins
    over ``n``. Undefined cases (no sample, or only one label in common) give ``nan``.

    Parameters
    ----------
    y1, y2 : sequences of labels of equal length (the measure is symmetric).
    labels : the label list; default every value seen in either sequence.

    Returns
    -------
    float in [-1, 1], or nan when undefined.

    >>> from fractions import Fraction
    >>> # C = [[2, 1], [0, 1]], n = 4: po = 3/4, pe = (2*3 + 2*1)/16 = 1/2 -> kappa = 1/2
    >>> cohen_kappa_score(["a", "a", "a", "b"], ["a", "a", "b", "b"]) == float(Fraction(1, 2))
    True
    """
    counts = _pair_counts(y1, y2)
    if labels is None:
        labels = sorted({v for v in counts["t"].to_list() + counts["p"].to_list() if v is not None})
    labels = [str(x) for x in labels]
    if not labels:
        return math.nan
    # Same operations in the same order as scikit-learn, so the floats agree bit for bit.
    c = _confusion_from_counts(counts, labels).astype(np.float64)
    sum0, sum1 = c.sum(axis=0), c.sum(axis=1)
    total = sum0.sum()
    if total == 0:
        return math.nan
    expected = np.outer(sum0, sum1) / total
    w = np.ones((len(labels), len(labels)), dtype=np.float64)
    np.fill_diagonal(w, 0)
    denom = np.sum(w * expected)
    if denom == 0:
        return math.nan
    return float(1 - np.sum(w * c) / denom)


def _confusion_from_counts(counts: pl.DataFrame, labels: Sequence[str]) -> np.ndarray:
    """The confusion matrix from a frame of pair counts ``(t, p, n)`` (values outside ``labels`` dropped)."""
    idx = {lab: i for i, lab in enumerate(labels)}
    out = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for t, p, n in counts.iter_rows():
        if t in idx and p in idx:
            out[idx[t], idx[p]] += n
    return out


# --------------------------------------------------------------------------- frames


#: Agreement slices name their rate columns ``<name>_rate``, ``<name>_low``, ``<name>_high``.
RATE_SUFFIXES = ("_rate", "_low", "_high")

_AGG = [
    pl.len().alias("n_events"),
    pl.col("decided").fill_null(False).sum().cast(pl.Int64).alias("n_decided"),
    pl.col("agree").is_not_null().sum().cast(pl.Int64).alias("n_rated"),
    pl.col("agree").fill_null(False).sum().cast(pl.Int64).alias("n_agree"),
    (pl.col("opt_out").fill_null(False) & pl.col("decided").fill_null(False)).sum().cast(pl.Int64).alias("n_opt_out"),
    pl.col("implied_bucket").is_not_null().sum().cast(pl.Int64).alias("n_labelled"),
]


def _slice_table(df: pl.DataFrame, keys: Sequence[str], min_count: int) -> pl.DataFrame:
    if keys:
        out = df.group_by(list(keys)).agg(_AGG).sort(list(keys), nulls_last=True)
    else:
        out = df.select(_AGG)
    out = with_rate_columns(out, "agreement", "n_agree", "n_rated", suffixes=RATE_SUFFIXES)
    out = with_rate_columns(out, "opt_out", "n_opt_out", "n_decided", suffixes=RATE_SUFFIXES)
    return out.with_columns((pl.col("n_rated") < min_count).alias("low_count"))


def summarize_agreement(
    decisions: Any,
    *,
    by: str | None = None,
    min_count: int = DEFAULT_MIN_COUNT,
    taxonomy: str | Sequence[str] | None = None,
    since: _dt.date | str | None = None,
) -> pl.DataFrame:
    """Agreement and opt-out rates, overall or per slice, with counts and Wilson intervals.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``).
    by : None for one overall row, or a slice of :data:`SLICES`: ``"taxonomy"``,
        ``"family"``, ``"bucket"`` (the AI's bucket, keyed with its taxonomy),
        ``"skill"``, ``"project"``, ``"signal"`` (an event counts once under each of
        its signals; an event without signals under a NULL signal) or ``"week"``.
    min_count : slices whose agreement rests on fewer rated rows are flagged
        ``low_count`` (kept, not hidden).
    taxonomy, since : optional filters (see :func:`~failtax.analysis.frames.filter_decisions`).

    Returns
    -------
    polars.DataFrame
        The slice key column(s), then ``n_events``, ``n_decided``, ``n_rated`` (agree
        not NULL), ``n_agree``, ``n_opt_out``, ``n_labelled``, ``agreement_rate``,
        ``agreement_low``, ``agreement_high``, ``opt_out_rate``, ``opt_out_low``,
        ``opt_out_high``, ``low_count``.

    >>> df = pl.DataFrame({"taxonomy": ["replay"] * 3, "family": ["replay"] * 3,
    ...     "ai_bucket": ["infra"] * 3, "implied_bucket": ["infra", None, None],
    ...     "decided": [True, True, False], "opt_out": [False, True, False],
    ...     "agree": [True, None, None], "ts": [None] * 3})
    >>> row = summarize_agreement(df).row(0, named=True)
    >>> row["agreement_rate"], row["opt_out_rate"], row["low_count"]
    (1.0, 0.5, True)
    """
    if by is not None and by not in SLICES:
        raise InputError(f"unknown slice {by!r}; use one of {', '.join(SLICES)}")
    need = ["taxonomy", "decided", "opt_out", "agree", "implied_bucket"]
    keys: tuple[str, ...] = ()
    if by is not None:
        keys = SLICES[by]
        need += ["signals" if k == "signal" else k for k in keys]
    if since is not None:
        need.append("ts")
    df = filter_decisions(as_decisions(decisions, columns=need), taxonomy=taxonomy, since=since)
    if by == "signal":
        # An event without signals counts once under a NULL signal (an empty list would
        # vanish in the explode).
        df = df.with_columns(
            pl.when(pl.col("signals").list.len() > 0).then(pl.col("signals"))
            .otherwise(pl.lit(None, dtype=pl.List(pl.String))).alias("signal")
        ).explode("signal")
    return _slice_table(df, keys, min_count)


@dataclass(frozen=True)
class LabelScores:
    """Macro-F1, Cohen's kappa and the confusion matrix of one taxonomy's labels.

    ``confusion[i][j]`` counts events the AI put in ``labels[i]`` whose person's action
    implied ``labels[j]`` (rows: AI bucket, columns: implied bucket).
    """

    taxonomy: str
    labels: tuple[str, ...]
    n: int
    accuracy: float
    macro_f1: float
    kappa: float
    confusion: tuple[tuple[int, ...], ...]

    @classmethod
    def from_pairs(cls, *, taxonomy: str, labels: Sequence[str], y_true: Any, y_pred: Any) -> LabelScores:
        """Score ``y_pred`` (AI buckets) against ``y_true`` (implied buckets)."""
        labels = tuple(labels)
        counts = _pair_counts(y_true, y_pred)
        cm = _confusion_from_counts(counts.select(pl.col("p").alias("t"), pl.col("t").alias("p"), "n"), labels)
        n = int(counts["n"].sum()) if counts.height else 0
        return cls(
            taxonomy=taxonomy,
            labels=labels,
            n=n,
            accuracy=float(np.trace(cm) / n) if n else math.nan,
            macro_f1=macro_f1_score(y_true, y_pred, labels=labels) if n else math.nan,
            kappa=cohen_kappa_score(y_true, y_pred, labels=labels) if n else math.nan,
            confusion=tuple(tuple(int(x) for x in row) for row in cm),
        )

    def confusion_frame(self) -> pl.DataFrame:
        """The confusion matrix as a frame: column ``ai_bucket``, then one column per implied bucket."""
        cols: dict[str, Any] = {"ai_bucket": list(self.labels)}
        for j, lab in enumerate(self.labels):
            cols[lab] = [row[j] for row in self.confusion]
        return pl.DataFrame(cols, schema={"ai_bucket": pl.String, **{lab: pl.Int64 for lab in self.labels}})

    def to_dict(self) -> dict[str, Any]:
        return {
            "taxonomy": self.taxonomy,
            "labels": list(self.labels),
            "n": self.n,
            "accuracy": _num(self.accuracy),
            "macro_f1": _num(self.macro_f1),
            "kappa": _num(self.kappa),
            "confusion": {"rows": "ai_bucket", "columns": "implied_bucket", "matrix": [list(r) for r in self.confusion]},
        }


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def score_labels(
    decisions: Any,
    *,
    taxonomy: str,
    since: _dt.date | str | None = None,
) -> LabelScores:
    """Macro-F1, Cohen's kappa and confusion matrix of AI bucket vs implied bucket.

    Only rows of ``taxonomy`` with an implied bucket count. The label list is the
    taxonomy's full bucket list, so a bucket nobody used is a zero row and column
    (and scores 0 in the macro-F1, as in scikit-learn).

    Parameters
    ----------
    decisions : the ``decisions`` relation.
    taxonomy : ``replay``, ``regen``, ``preexec`` (any shipped taxonomy).
    since : optional start date.

    Returns
    -------
    LabelScores

    >>> df = pl.DataFrame({"taxonomy": ["replay"] * 2, "ai_bucket": ["infra", "infra"],
    ...                    "implied_bucket": ["infra", "stale-script"]})
    >>> s = score_labels(df, taxonomy="replay")
    >>> s.n, s.accuracy, s.confusion[0]
    (2, 0.5, (1, 1, 0))
    """
    labels = load_taxonomy(taxonomy).bucket_names
    need = ["taxonomy", "ai_bucket", "implied_bucket"] + (["ts"] if since is not None else [])
    df = filter_decisions(as_decisions(decisions, columns=need), taxonomy=taxonomy, since=since)
    df = df.filter(pl.col("implied_bucket").is_not_null())
    return LabelScores.from_pairs(taxonomy=taxonomy, labels=labels, y_true=df["implied_bucket"], y_pred=df["ai_bucket"])


def summarize_latency(
    decisions: Any,
    *,
    by_taxonomy: bool = True,
    taxonomy: str | Sequence[str] | None = None,
    since: _dt.date | str | None = None,
) -> pl.DataFrame:
    """Decision latency (seconds from suggestion to decision): median and 90th percentile.

    Outcomes: ``agree`` (the action carried out the suggestion), ``override`` (it did
    not) and ``opt-out`` (``skip``), kept apart. Percentiles interpolate linearly
    between order statistics (numpy's default method).

    Parameters
    ----------
    decisions : the ``decisions`` relation.
    by_taxonomy : one row per (taxonomy, outcome) instead of per outcome.
    taxonomy, since : optional filters.

    Returns
    -------
    polars.DataFrame with ``[taxonomy,] outcome, n, median_s, p90_s``.

    >>> df = pl.DataFrame({"taxonomy": ["replay"] * 3, "decided": [True] * 3,
    ...     "opt_out": [False] * 3, "agree": [True, True, False], "latency_s": [1.0, 3.0, 9.0]})
    >>> summarize_latency(df, by_taxonomy=False).rows()
    [('agree', 2, 2.0, 2.8), ('override', 1, 9.0, 9.0)]
    """
    need = ["taxonomy", "decided", "opt_out", "agree", "latency_s"] + (["ts"] if since is not None else [])
    df = filter_decisions(as_decisions(decisions, columns=need), taxonomy=taxonomy, since=since)
    df = df.filter(pl.col("decided").fill_null(False) & pl.col("latency_s").is_not_null())
    df = df.with_columns(
        pl.when(pl.col("opt_out").fill_null(False)).then(pl.lit("opt-out"))
        .when(pl.col("agree")).then(pl.lit("agree"))
        .when(pl.col("agree").not_()).then(pl.lit("override"))
        .otherwise(pl.lit(None)).alias("outcome")
    ).filter(pl.col("outcome").is_not_null())
    keys = ["taxonomy", "outcome"] if by_taxonomy else ["outcome"]
    return (
        df.group_by(keys)
        .agg(
            pl.len().cast(pl.Int64).alias("n"),
            pl.col("latency_s").median().alias("median_s"),
            pl.col("latency_s").quantile(0.9, interpolation="linear").alias("p90_s"),
        )
        .sort(keys)
    )


@dataclass(frozen=True)
class AgreementReport:
    """Everything :func:`measure_agreement` computes, as polars frames and scores.

    ``overall`` is one row; ``slices`` maps each slice name of :data:`SLICES` to its
    frame; ``scores`` holds one :class:`LabelScores` per taxonomy present; ``latency``
    is :func:`summarize_latency`'s frame.
    """

    overall: pl.DataFrame
    slices: dict[str, pl.DataFrame]
    scores: tuple[LabelScores, ...]
    latency: pl.DataFrame
    min_count: int
    taxonomies: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (NaN as null; dates as ISO strings)."""
        return {
            "min_count": self.min_count,
            "taxonomies": list(self.taxonomies),
            "overall": frame_records(self.overall)[0] if self.overall.height else {},
            "slices": {k: frame_records(v) for k, v in self.slices.items()},
            "scores": [s.to_dict() for s in self.scores],
            "latency": frame_records(self.latency),
        }


def frame_records(df: pl.DataFrame) -> list[dict[str, Any]]:
    """Rows of ``df`` as JSON-ready dicts: NaN → None, dates and times → ISO strings.

    >>> frame_records(pl.DataFrame({"week": [_dt.date(2026, 9, 7)], "rate": [float("nan")]}))
    [{'week': '2026-09-07', 'rate': None}]
    """
    out = []
    for row in df.iter_rows(named=True):
        rec = {}
        for k, v in row.items():
            if isinstance(v, float) and math.isnan(v):
                v = None
            elif isinstance(v, _dt.date | _dt.datetime):
                v = v.isoformat()
            rec[k] = v
        out.append(rec)
    return out


def measure_agreement(
    decisions: Any,
    *,
    taxonomy: str | Sequence[str] | None = None,
    since: _dt.date | str | None = None,
    min_count: int = DEFAULT_MIN_COUNT,
    slices: Sequence[str] = tuple(SLICES),
) -> AgreementReport:
    """The weekly agreement picture: overall, per slice, label scores and latency.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``).
    taxonomy : restrict to one taxonomy or several; default every one present.
    since : ignore decisions classified before this date.
    min_count : flag (not hide) slices resting on fewer rated rows.
    slices : which slices of :data:`SLICES` to compute.

    Returns
    -------
    AgreementReport

    >>> df = pl.DataFrame({"event_id": ["1", "2"], "taxonomy": ["replay"] * 2,
    ...     "family": ["replay"] * 2, "ai_bucket": ["infra"] * 2,
    ...     "implied_bucket": ["infra", "stale-script"], "decided": [True, True],
    ...     "opt_out": [False, False], "agree": [True, False], "latency_s": [2.0, 5.0]})
    >>> r = measure_agreement(df, slices=["bucket"])
    >>> r.overall["agreement_rate"][0], r.scores[0].n
    (0.5, 2)
    """
    for s in slices:
        if s not in SLICES:
            raise InputError(f"unknown slice {s!r}; use one of {', '.join(SLICES)}")
    need = {"taxonomy", "decided", "opt_out", "agree", "implied_bucket", "ai_bucket", "latency_s"}
    for s in slices:
        need.update("signals" if k == "signal" else k for k in SLICES[s])
    if since is not None:
        need.add("ts")
    cols = [c for c in DECISION_COLUMNS if c in need]
    df = filter_decisions(as_decisions(decisions, columns=cols), taxonomy=taxonomy, since=since)
    present = tuple(sorted(x for x in df["taxonomy"].unique().to_list() if x is not None))
    overall = _slice_table(df, (), min_count)
    out_slices = {s: summarize_agreement(df, by=s, min_count=min_count) for s in slices}
    labelled = df.filter(pl.col("implied_bucket").is_not_null())
    scores = []
    for tax in present:
        sub = labelled.filter(pl.col("taxonomy") == tax)
        scores.append(
            LabelScores.from_pairs(
                taxonomy=tax, labels=load_taxonomy(tax).bucket_names,
                y_true=sub["implied_bucket"], y_pred=sub["ai_bucket"],
            )
        )
    latency = summarize_latency(df)
    return AgreementReport(
        overall=overall, slices=out_slices, scores=tuple(scores), latency=latency,
        min_count=min_count, taxonomies=present,
    )
