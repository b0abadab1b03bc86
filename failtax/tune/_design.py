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


@dataclass
class Design:
    """Distinct signal sets and (set, action, label, week) groups with counts."""

    taxonomy: Taxonomy
    buckets: tuple[str, ...]
    vocab: tuple[str, ...]
    col: dict[str, int]
    sets: np.ndarray  # bool (U, K)
    set_keys: tuple[str, ...]
    actions: tuple[str, ...]
    weeks: tuple[date | None, ...]
    g_set: np.ndarray  # int32 (G,)
    g_action: np.ndarray  # int32, -1 when undecided
    g_label: np.ndarray  # int32 bucket index, -1 when no label
    g_week: np.ndarray  # int32 index into weeks
    g_agree_row: np.ndarray  # bool: decided, not an opt-out
    g_n: np.ndarray  # int64 counts
    agree: np.ndarray  # bool (A + 1, B); the last row (action -1) is all False
    set_ptr: np.ndarray  # CSR over groups sorted by set
    set_perm: np.ndarray
    signal_sets: list[np.ndarray]  # per signal, the ids of sets that contain it

    @property
    def n_weeks(self) -> int:
        return len(self.weeks)

    def with_counts(self, counts: np.ndarray) -> Design:
        """The same design with other group counts (cross-validation folds)."""
        return Design(**{**self.__dict__, "g_n": np.asarray(counts, dtype=np.int64)})

    def sets_with(self, signals: Sequence[str]) -> np.ndarray:
        """Ids of the sets containing any of ``signals`` (sorted, unique)."""
        parts = [self.signal_sets[self.col[s]] for s in signals if s in self.col]
        if not parts:
            return np.zeros(0, dtype=np.int64)
        if len(parts) == 1:
            return parts[0]
        return np.unique(np.concatenate(parts))

    def groups_of(self, set_ids: np.ndarray) -> np.ndarray:
        """Indices of the groups whose set is in ``set_ids``."""
        if len(set_ids) == 0:
            return np.zeros(0, dtype=np.int64)
        starts = self.set_ptr[set_ids]
        lens = self.set_ptr[set_ids + 1] - starts
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        offs = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
        return self.set_perm[np.arange(total) + offs]

    def label_counts(self) -> np.ndarray:
        """Labelled counts per (set, bucket): an (U, B) int matrix."""
        out = np.zeros((self.sets.shape[0], len(self.buckets)), dtype=np.int64)
        m = self.g_label >= 0
        np.add.at(out, (self.g_set[m], self.g_label[m]), self.g_n[m])
        return out

    def week_totals(self) -> np.ndarray:
        """Agreement rows per week."""
        return np.bincount(self.g_week, weights=self.g_n * self.g_agree_row, minlength=self.n_weeks).astype(np.int64)


def build_design(frame: pl.DataFrame, *, taxonomy: Taxonomy, extra_signals: Sequence[str] = ()) -> Design:
    """Aggregate a prepared frame with ``sigkey`` into a :class:`Design`."""
    buckets = taxonomy.bucket_names
    bidx = {b: i for i, b in enumerate(buckets)}
    g = (
        frame.group_by(["sigkey", "user_action", "implied_bucket", "agree_row", "week"])
        .agg(n=pl.len())
        .sort(["sigkey", "user_action", "implied_bucket", "week"], nulls_last=True)
    )
    keys = g["sigkey"].unique(maintain_order=True).to_list()
    key_id = {k: i for i, k in enumerate(keys)}
    split = [k.split(SEP) if k else [] for k in keys]
    vocab = sorted({s for ss in split for s in ss} | set(extra_signals))
    col = {s: i for i, s in enumerate(vocab)}
    sets = np.zeros((len(keys), len(vocab)), dtype=bool)
    for i, ss in enumerate(split):
        for s in ss:
            sets[i, col[s]] = True
    actions = tuple(sorted(a for a in g["user_action"].unique().to_list() if a is not None))
    aidx = {a: i for i, a in enumerate(actions)}
    weeks = tuple(sorted({w for w in g["week"].to_list()}, key=lambda w: (w is None, w or date.min)))
    widx = {w: i for i, w in enumerate(weeks)}
    g_set = np.fromiter((key_id[k] for k in g["sigkey"].to_list()), dtype=np.int64, count=g.height)
    g_action = np.fromiter((aidx.get(a, -1) if a is not None else -1 for a in g["user_action"].to_list()), dtype=np.int64, count=g.height)
    g_label = np.fromiter((bidx.get(b, -1) if b is not None else -1 for b in g["implied_bucket"].to_list()), dtype=np.int64, count=g.height)
    g_week = np.fromiter((widx[w] for w in g["week"].to_list()), dtype=np.int64, count=g.height)
    g_agree_row = g["agree_row"].to_numpy().astype(bool)
    g_n = g["n"].to_numpy().astype(np.int64)
    agree = np.zeros((len(actions) + 1, len(buckets)), dtype=bool)
    for a, i in aidx.items():
        for b, j in bidx.items():
            agree[i, j] = taxonomy.carries_out(taxonomy.bucket(b).suggestion, a)
    perm = np.argsort(g_set, kind="stable")
    ptr = np.zeros(len(keys) + 1, dtype=np.int64)
    np.add.at(ptr, g_set + 1, 1)
    ptr = np.cumsum(ptr)
    signal_sets = [np.flatnonzero(sets[:, k]) for k in range(len(vocab))]
    return Design(
        taxonomy=taxonomy, buckets=buckets, vocab=tuple(vocab), col=col, sets=sets,
        set_keys=tuple(keys), actions=actions, weeks=weeks, g_set=g_set, g_action=g_action,
        g_label=g_label, g_week=g_week, g_agree_row=g_agree_row, g_n=g_n, agree=agree,
        set_ptr=ptr, set_perm=perm, signal_sets=signal_sets,
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
