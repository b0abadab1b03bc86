"""Suspect labels: implied buckets that contradict what the evidence strongly says.

People slip: a click on the wrong option, a ``report-bug`` for what was plainly a stale
script. The tuner should not learn from those. This module flags them with confident
learning (Northcutt et al., 2021; cleanlab's ``find_label_issues`` with
``filter_by="confident_learning"``), made explainable:

1. **Out-of-fold probabilities.** Each labelled decision gets a fold (seeded). For each
   fold a multinomial logistic regression (scikit-learn, ``random_state``) learns the
   implied bucket from the event's signals (the events × signals matrix of
   :mod:`failtax.analysis.reclassify`) on the *other* folds, and predicts this fold. The
   model sees each distinct signal set once, weighted by its count, so a million
   decisions fit in well under a second.
2. **Per-bucket thresholds** ``t_j`` = the mean predicted probability of bucket ``j`` over
   the decisions labelled ``j`` (the bucket's average self-confidence).
3. **Flag** a decision labelled ``i`` when ``p_i < t_i`` while some other bucket ``j`` has
   ``p_j >= t_j``; the suggested bucket is the most probable such ``j``.

Every flagged row carries its reason in words. A signal set whose labels are genuinely
mixed (e.g. after a drift) lifts no bucket above its threshold and is not flagged.
"""

from __future__ import annotations

import datetime as _dt
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.agreement import frame_records
from failtax.analysis.rules import ensure_reclassified
from failtax.taxonomy import load_taxonomy

__all__ = ["SuspectLabels", "find_suspect_labels"]


@dataclass(frozen=True)
class SuspectLabels:
    """Decisions whose implied bucket looks like a slip, with the evidence for it.

    ``flagged``: one row per suspect decision (``event_id``, its signals, the given and
    suggested buckets with their probabilities and thresholds, ``reason``);
    ``thresholds``: bucket → average self-confidence; ``n_labelled``: decisions scored;
    ``probabilities``: every labelled decision's out-of-fold probability of each bucket
    (one column per bucket).
    """

    taxonomy: str
    n_labelled: int
    n_folds: int
    random_state: int
    thresholds: dict[str, float]
    flagged: pl.DataFrame
    probabilities: pl.DataFrame

    @property
    def event_ids(self) -> tuple[str, ...]:
        """The flagged decisions' ids (what the tuner drops)."""
        return tuple(self.flagged["event_id"].to_list())

    def to_dict(self) -> dict[str, Any]:
        return {
            "taxonomy": self.taxonomy,
            "n_labelled": self.n_labelled,
            "n_folds": self.n_folds,
            "random_state": self.random_state,
            "thresholds": {k: (None if math.isnan(v) else v) for k, v in self.thresholds.items()},
            "flagged": frame_records(self.flagged),
        }


def _fit_predict(x_tr, y_tr, w_tr, x_te, classes: list[str], random_state: int, c: float) -> np.ndarray:
    """Probabilities over ``classes`` for ``x_te`` (columns in ``classes`` order)."""
    from sklearn.linear_model import LogisticRegression

    out = np.zeros((x_te.shape[0], len(classes)))
    present = sorted(set(y_tr[w_tr > 0].tolist()))
    if not present:
        out[:] = 1.0 / len(classes)
        return out
    if len(present) == 1:
        out[:, classes.index(present[0])] = 1.0
        return out
    # Few features (one per signal) and few rows (one per signal set): Newton steps
    # converge in a handful of iterations where L-BFGS needs hundreds.
    model = LogisticRegression(C=c, solver="newton-cholesky", max_iter=200, random_state=random_state)
    keep = w_tr > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(x_tr[keep], y_tr[keep], sample_weight=w_tr[keep])
    proba = model.predict_proba(x_te)
    for j, cls in enumerate(model.classes_):
        out[:, classes.index(cls)] = proba[:, j]
    return out


def find_suspect_labels(
    decisions: Any,
    *,
    taxonomy: str | None = None,
    table: Any = None,
    since: _dt.date | str | None = None,
    n_folds: int = 5,
    random_state: int = 0,
    c: float = 1.0,
) -> SuspectLabels:
    """Flag implied buckets that contradict a strong consensus of the evidence.

    Parameters
    ----------
    decisions : the ``decisions`` relation (DuckDB, polars, pandas or Arrow, or a loaded
        ``Telemetry``), or a :class:`~failtax.analysis.reclassify.Reclassified`.
    taxonomy : the taxonomy to look at.
    table : the table whose extractor rules name the signals (default: the shipped one).
    since : ignore decisions classified before this date.
    n_folds : folds for the out-of-fold probabilities (at least 2).
    random_state : seed of the fold assignment and of the model.
    c : inverse regularisation strength of the logistic regression.

    Returns
    -------
    SuspectLabels

    Tips
    ----
    Pass ``result.event_ids`` to the tuner as decisions to leave out. A flag is a
    question for a person, not a verdict: check the ``reason`` of a few first.

    >>> sig = [["selector-timeout"]] * 20 + [["electron-crash"]] * 20
    >>> imp = ["stale-script"] * 19 + ["infra"] + ["infra"] * 20
    >>> df = pl.DataFrame({"event_id": [str(i) for i in range(40)], "taxonomy": ["replay"] * 40,
    ...                    "signals": sig, "implied_bucket": imp})
    >>> find_suspect_labels(df, taxonomy="replay").event_ids
    ('19',)
    """
    if n_folds < 2:
        from failtax.errors import InputError

        raise InputError(f"n_folds must be at least 2, got {n_folds}")
    rc = ensure_reclassified(decisions, table=table, taxonomy=taxonomy, since=since, columns=["implied_bucket"],
                             optional=["ai_bucket", "user_action", "ts"])
    classes = list(load_taxonomy(rc.table.taxonomy).bucket_names)
    ev = rc.events.filter(pl.col("implied_bucket").is_not_null() & pl.col("implied_bucket").is_in(classes))
    n = ev.height
    rng = np.random.default_rng(random_state)
    ev = ev.with_columns(pl.Series("_fold", rng.integers(0, n_folds, size=n), dtype=pl.Int64))

    # Features: one column per signal. The model sees signals only, so distinct texts
    # with the same signal set share one row ("sig" = the signal set's id).
    sets = rc.combos.select(
        "combo", pl.col("present").list.unique().list.sort().alias("_set")
    ).with_columns(pl.col("_set").list.join("\x1f").alias("_key"))
    uniq = sets.select("_key", "_set").unique("_key", maintain_order=True).with_row_index("sig")
    set_of_combo = sets.join(uniq.select("_key", "sig"), on="_key").select("combo", "sig")
    ev = ev.join(set_of_combo, on="combo", how="left", maintain_order="left")
    sig_names = sorted({x for lst in uniq["_set"].to_list() for x in lst})
    col = {x: j for j, x in enumerate(sig_names)}
    x_all = np.zeros((uniq.height, max(len(sig_names), 1)))
    for sid, lst in uniq.select("sig", "_set").iter_rows():
        for x in lst:
            x_all[sid, col[x]] = 1.0

    counts = ev.group_by("_fold", "sig", "implied_bucket").agg(pl.len().cast(pl.Int64).alias("k"))
    total = counts.group_by("sig", "implied_bucket").agg(pl.col("k").sum().alias("kt"))
    proba_parts = []
    for f in range(n_folds):
        in_f = counts.filter(pl.col("_fold") == f).select("sig", "implied_bucket", pl.col("k").alias("kf"))
        tr = total.join(in_f, on=["sig", "implied_bucket"], how="left").with_columns(
            (pl.col("kt") - pl.col("kf").fill_null(0)).alias("w")).filter(pl.col("w") > 0).sort("sig", "implied_bucket")
        # (sorted: group-by order varies between runs, and the fit's floats with it)
        test_sets = in_f["sig"].unique().sort().to_numpy()
        if len(test_sets) == 0:
            continue
        p = _fit_predict(
            x_all[tr["sig"].to_numpy()], tr["implied_bucket"].to_numpy(), tr["w"].to_numpy().astype(float),
            x_all[test_sets], classes, random_state, c,
        )
        part = pl.DataFrame({"_fold": np.full(len(test_sets), f, dtype=np.int64), "sig": test_sets})
        part = part.with_columns([pl.Series(f"p_{j}", p[:, j]) for j in range(len(classes))])
        proba_parts.append(part)
    schema_p = {"_fold": pl.Int64, "sig": pl.UInt32, **{f"p_{j}": pl.Float64 for j in range(len(classes))}}
    proba = pl.concat(proba_parts) if proba_parts else pl.DataFrame(schema=schema_p)
    proba = proba.with_columns(pl.col("sig").cast(pl.UInt32))
    scored = ev.join(proba, on=["_fold", "sig"], how="left", maintain_order="left")

    p_mat = scored.select([f"p_{j}" for j in range(len(classes))]).to_numpy() if n else np.zeros((0, len(classes)))
    given = np.array([classes.index(b) for b in scored["implied_bucket"].to_list()], dtype=np.int64)
    thresholds = np.full(len(classes), np.nan)
    for j in range(len(classes)):
        m = given == j
        if m.any():
            thresholds[j] = float(p_mat[m, j].mean())
    p_given = p_mat[np.arange(n), given] if n else np.zeros(0)
    t_given = thresholds[given] if n else np.zeros(0)
    above = p_mat >= np.where(np.isnan(thresholds), np.inf, thresholds)[None, :]
    if n:
        above[np.arange(n), given] = False
    cand = np.where(above, p_mat, -1.0)
    sugg = cand.argmax(axis=1) if n else np.zeros(0, dtype=np.int64)
    flag = (p_given < t_given) & above.any(axis=1) if n else np.zeros(0, dtype=bool)

    idx = np.flatnonzero(flag)
    sub = scored[idx] if len(idx) else scored.clear()
    present = rc.combos.select("combo", pl.col("present").alias("signals"))
    sub = sub.drop("signals", strict=False).join(present, on="combo", how="left", maintain_order="left")
    s_idx = sugg[idx]
    reasons = []
    for k, i in enumerate(idx):
        gi, si = given[i], s_idx[k]
        sigs = sub["signals"][k].to_list() if sub.height else []
        reasons.append(
            f"labelled {classes[gi]!r} (p={p_given[i]:.2f} < its threshold {thresholds[gi]:.2f}) but "
            f"{classes[si]!r} is likely (p={p_mat[i, si]:.2f} >= its threshold {thresholds[si]:.2f}) "
            f"for signals [{', '.join(sigs) or 'none'}]"
        )
    flagged = pl.DataFrame(
        {
            "event_id": sub["event_id"].cast(pl.String) if sub.height else pl.Series([], dtype=pl.String),
            "signals": sub["signals"] if sub.height else pl.Series([], dtype=pl.List(pl.String)),
            "ai_bucket": sub["ai_bucket"].cast(pl.String) if sub.height else pl.Series([], dtype=pl.String),
            "user_action": sub["user_action"].cast(pl.String) if sub.height else pl.Series([], dtype=pl.String),
            "implied_bucket": sub["implied_bucket"] if sub.height else pl.Series([], dtype=pl.String),
            "p_given": pl.Series(p_given[idx], dtype=pl.Float64),
            "threshold_given": pl.Series(thresholds[given[idx]] if len(idx) else [], dtype=pl.Float64),
            "suggested_bucket": pl.Series([classes[s] for s in s_idx], dtype=pl.String),
            "p_suggested": pl.Series(p_mat[idx, s_idx] if len(idx) else [], dtype=pl.Float64),
            "threshold_suggested": pl.Series(thresholds[s_idx] if len(idx) else [], dtype=pl.Float64),
            "reason": pl.Series(reasons, dtype=pl.String),
        }
    ).sort(["p_given", "event_id"])
    return SuspectLabels(
        taxonomy=rc.table.taxonomy,
        n_labelled=n,
        n_folds=n_folds,
        random_state=random_state,
        thresholds={b: float(t) for b, t in zip(classes, thresholds, strict=True)},
        flagged=flagged,
        probabilities=scored.select(
            pl.col("event_id").cast(pl.String), "implied_bucket",
            *[pl.col(f"p_{j}").alias(b) for j, b in enumerate(classes)],
        ).sort("event_id"),
    )
