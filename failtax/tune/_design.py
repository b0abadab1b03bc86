"""The aggregated design the tuner searches over, and exact replay of route tables on it.

A million decisions hold only a few thousand distinct (signal set, action, week)
combinations, so everything is computed on those groups with their counts:

- ``sets``: a boolean matrix, one row per distinct signal set, one column per signal;
- groups: (set, action, implied bucket, week) with a count;
- ``agree``: for every action and bucket, whether the action carries out the bucket's
  suggestion (``taxonomy.carries_out``), so replaying a table is two array lookups.

Replaying a table's routes on the sets follows the evaluation spec of
:mod:`failtax.table` exactly: routes in order, the first whose ``any``/``all``/``none``
hold decides, otherwise the fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import polars as pl

from failtax.table import RouteRule
from failtax.taxonomy import Taxonomy
from failtax.tune._frame import SEP

#: What the tuner counts events by: a signal set, the person's action, its implied bucket,
#: whether the row counts for agreement, and the week.
GROUP_KEYS = ("sigkey", "user_action", "implied_bucket", "agree_row", "week")


@dataclass
class Design:
    """Distinct signal sets × decision kinds × weeks, as one dense count tensor.

    A *kind* is a distinct (action, implied bucket, counts-in-agreement) triple; kind
    ``k`` agrees with bucket ``b`` when ``agree[k, b]``.
    """

    taxonomy: Taxonomy
    buckets: tuple[str, ...]
    vocab: tuple[str, ...]
    col: dict[str, int]
    sets: np.ndarray  # bool (U, K)
    set_keys: tuple[str, ...]
    weeks: tuple[date | None, ...]
    kind_action: tuple[str | None, ...]
    kind_label: np.ndarray  # int (Kd,), -1 when the kind carries no label
    kind_agree_row: np.ndarray  # bool (Kd,)
    agree: np.ndarray  # bool (Kd, B): the kind counts in agreement and carries out the bucket's suggestion
    counts: np.ndarray  # int64 (U, Kd, W)
    signal_sets: list[np.ndarray]  # per signal, the ids of sets that contain it

    @property
    def n_weeks(self) -> int:
        return len(self.weeks)

    def with_counts(self, counts: np.ndarray) -> Design:
        """The same design with other counts (cross-validation folds)."""
        return Design(**{**self.__dict__, "counts": np.asarray(counts, dtype=np.int64)})

    def sets_with(self, signals: Sequence[str]) -> np.ndarray:
        """Ids of the sets containing any of ``signals`` (sorted, unique)."""
        parts = [self.signal_sets[self.col[s]] for s in signals if s in self.col]
        if not parts:
            return np.zeros(0, dtype=np.int64)
        if len(parts) == 1:
            return parts[0]
        return np.unique(np.concatenate(parts))

    def label_counts(self) -> np.ndarray:
        """Labelled counts per (set, bucket): an (U, B) int matrix."""
        per_kind = self.counts.sum(axis=2)  # (U, Kd)
        out = np.zeros((self.sets.shape[0], len(self.buckets)), dtype=np.int64)
        for k, lab in enumerate(self.kind_label):
            if lab >= 0:
                out[:, lab] += per_kind[:, k]
        return out

    def week_totals(self) -> np.ndarray:
        """Agreement rows per week."""
        return self.counts[:, self.kind_agree_row, :].sum(axis=(0, 1))


def build_design(frame: pl.DataFrame, *, taxonomy: Taxonomy, extra_signals: Sequence[str] = ()) -> Design:
    """Aggregate a prepared frame with ``sigkey`` into a :class:`Design`."""
    buckets = taxonomy.bucket_names
    bidx = {b: i for i, b in enumerate(buckets)}
    g = frame.group_by(list(GROUP_KEYS)).agg(n=pl.len())
    keys = sorted(g["sigkey"].unique().to_list())
    key_id = {k: i for i, k in enumerate(keys)}
    split = [k.split(SEP) if k else [] for k in keys]
    vocab = sorted({s for ss in split for s in ss} | set(extra_signals))
    col = {s: i for i, s in enumerate(vocab)}
    sets = np.zeros((len(keys), len(vocab)), dtype=bool)
    for i, ss in enumerate(split):
        for s in ss:
            sets[i, col[s]] = True
    weeks = tuple(sorted(set(g["week"].to_list()), key=lambda w: (w is None, w or date.min)))
    widx = {w: i for i, w in enumerate(weeks)}
    kinds_frame = g.select("user_action", "implied_bucket", "agree_row").unique().sort(
        ["user_action", "implied_bucket", "agree_row"], nulls_last=True
    )
    kinds = [tuple(r) for r in kinds_frame.iter_rows()]
    kid = {k: i for i, k in enumerate(kinds)}
    kind_action = tuple(k[0] for k in kinds)
    kind_label = np.array([bidx.get(k[1], -1) if k[1] is not None else -1 for k in kinds], dtype=np.int64)
    kind_agree_row = np.array([bool(k[2]) for k in kinds], dtype=bool)
    agree = np.zeros((len(kinds), len(buckets)), dtype=bool)
    for i, (a, _lab, row) in enumerate(kinds):
        if row and a is not None:
            for b, j in bidx.items():
                agree[i, j] = taxonomy.carries_out(taxonomy.bucket(b).suggestion, a)
    gs = np.fromiter((key_id[k] for k in g["sigkey"].to_list()), dtype=np.int64, count=g.height)
    gk = np.fromiter((kid[r] for r in g.select("user_action", "implied_bucket", "agree_row").iter_rows()),
                     dtype=np.int64, count=g.height)
    gw = np.fromiter((widx[w] for w in g["week"].to_list()), dtype=np.int64, count=g.height)
    counts = np.zeros((len(keys), len(kinds), len(weeks)), dtype=np.int64)
    np.add.at(counts, (gs, gk, gw), g["n"].to_numpy().astype(np.int64))
    signal_sets = [np.flatnonzero(sets[:, k]) for k in range(len(vocab))]
    return Design(
        taxonomy=taxonomy, buckets=buckets, vocab=tuple(vocab), col=col, sets=sets, set_keys=tuple(keys),
        weeks=weeks, kind_action=kind_action, kind_label=kind_label, kind_agree_row=kind_agree_row,
        agree=agree, counts=counts, signal_sets=signal_sets,
    )


def route_masks(sets: np.ndarray, routes: Sequence[RouteRule], col: dict[str, int]) -> np.ndarray:
    """Which rows of ``sets`` each route matches: a bool (len(routes), rows) matrix."""
    out = np.zeros((len(routes), sets.shape[0]), dtype=bool)
    for i, r in enumerate(routes):
        m = np.ones(sets.shape[0], dtype=bool)
        if r.any:
            idx = [col[s] for s in r.any if s in col]
            if not idx:
                continue
            m &= sets[:, idx].any(axis=1)
        if r.all:
            if any(s not in col for s in r.all):
                continue
            m &= sets[:, [col[s] for s in r.all]].all(axis=1)
        if r.none:
            idx = [col[s] for s in r.none if s in col]
            if idx:
                m &= ~sets[:, idx].any(axis=1)
        out[i] = m
    return out


def replay_routes(
    sets: np.ndarray, routes: Sequence[RouteRule], fallback: int, col: dict[str, int], bucket_index: dict[str, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Bucket index and deciding route index (``len(routes)`` = fallback) for each set."""
    n = sets.shape[0]
    bucket = np.full(n, fallback, dtype=np.int64)
    rule = np.full(n, len(routes), dtype=np.int64)
    if n == 0 or not routes:
        return bucket, rule
    masks = route_masks(sets, routes, col)
    any_hit = masks.any(axis=0)
    first = np.argmax(masks, axis=0)
    rule[any_hit] = first[any_hit]
    rb = np.array([bucket_index[r.bucket] for r in routes], dtype=np.int64)
    bucket[any_hit] = rb[first[any_hit]]
    return bucket, rule
