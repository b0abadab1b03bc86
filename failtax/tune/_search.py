"""The tuner's search: generate candidate route edits, replay them, keep the significant.

Each round generates every candidate edit of the current routes that the labelled data
could support (re-route a signal to each bucket its events imply, route an unknown
signal at each position, drop a signal, remove or move a route, add a route for a
signal combination found by pair counts or by a shallow decision tree), replays the
edited table on the aggregated design, and measures the moved decisions: wins (the
person's action now carries out the suggestion) and losses. A change point in the weekly
wins/losses restricts the evidence to the latest weeks when the change's direction flips
(drift) and the split passes the same Bonferroni-adjusted level as the change itself (a
change point tested on every candidate turns up by chance in some). A candidate is
accepted when its labelled support, its Bonferroni-adjusted one-sided binomial p-value,
its gain and the lower bound of its Newcombe interval all pass;
the best accepted candidate is applied and the next round starts from the new table,
because edits interact through route order. Edits of the same events whose gains differ
by no more than sampling noise are tied, and a tie goes to the smallest change: a route
for a signal combination placed where that combination is decided now, a re-routed
signal placed where it was decided (an unknown one at the end), before edits that
change a signal's precedence, drop it, or move or remove whole routes. What the data
cannot tell apart is thus left as it was.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from failtax.analysis.stats import newcombe_diff_interval
from failtax.table import RouteRule
from failtax.tune._design import Design, route_masks
from failtax.tune.changes import ProposedChange, RouteEdit, apply_edits, unique_route_id


@dataclass
class Candidate:
    kind: str
    summary: str
    edits: tuple[RouteEdit, ...]
    signals: tuple[str, ...]
    to_bucket: str | None
    touched: tuple[str, ...]
    order: int = 0


@dataclass
class Evaluation:
    cand: Candidate
    routes: tuple[RouteRule, ...]
    moved: int
    support: int
    wins: int
    losses: int
    n: int
    k_old: int
    k_new: int
    n_moved: int
    gain: float
    gain_low: float
    gain_high: float
    p_value: float
    since: int | None
    transitions: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # old, new bucket, count per group
    effect: int = 0  # hash of (moved sets, their new buckets)
    moved_sets: np.ndarray = None  # type: ignore[assignment]  # ids of the sets that change bucket
    since_p: float = 1.0  # p-value of the change point (Bonferroni over the splits)

    @property
    def moves(self) -> tuple[tuple[int, int, int], ...]:
        if self.transitions is None:
            return ()
        o, nw, n = self.transitions
        B = int(max(o.max(), nw.max())) + 1 if len(o) else 0
        mat = np.zeros((B, B), dtype=np.int64)
        np.add.at(mat, (o, nw), n)
        return tuple((int(i), int(j), int(mat[i, j])) for i, j in zip(*np.nonzero(mat), strict=True))

    def to_change(self, design: Design, status: str, reason: str = "") -> ProposedChange:
        b = design.buckets
        return ProposedChange(
            kind=self.cand.kind,
            summary=self.cand.summary,
            edits=self.cand.edits,
            signals=self.cand.signals,
            to_bucket=self.cand.to_bucket,
            moves=tuple((b[o], b[n], c) for o, n, c in self.moves),
            moved=self.moved,
            support=self.support,
            wins=self.wins,
            losses=self.losses,
            n=self.n,
            gain=self.gain,
            gain_low=self.gain_low,
            gain_high=self.gain_high,
            p_value=self.p_value,
            since=design.weeks[self.since] if self.since is not None else None,
            status=status,
            reason=reason,
        )


#: The kinds of edit that route one signal alone.
_ONE_SIGNAL_KINDS = frozenset({"reroute-signal", "route-new-signal"})
_KIND_RANK = {"add-combination-route": 0, "reroute-signal": 1, "route-new-signal": 1, "drop-signal": 3,
              "move-route": 4, "remove-route": 5}


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard overlap of two sorted id arrays."""
    if len(a) == 0 and len(b) == 0:
        return 1.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


def sign_test_greater(wins: int, losses: int) -> float:
    """One-sided exact binomial (sign) test: P(X >= wins) for X ~ Bin(wins + losses, 1/2).

    >>> round(sign_test_greater(9, 1), 4)
    0.0107
    """
    if wins <= 0:
        return 1.0
    return float(special.betainc(wins, losses + 1, 0.5))


def _bern_ll(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    b = np.asarray(b, dtype=float)
    c = np.asarray(c, dtype=float)
    n = b + c
    with np.errstate(divide="ignore", invalid="ignore"):
        lb = np.where(b > 0, b * np.log(b / n), 0.0)
        lc = np.where(c > 0, c * np.log(c / n), 0.0)
    return lb + lc


def change_point(b_w: np.ndarray, c_w: np.ndarray, *, alpha: float) -> int | None:
    """The first week of the latest regime when wins/losses flip direction, else ``None``.

    Fits one Bernoulli rate of wins among discordant decisions before and after every
    candidate week; when the best split is significant (likelihood ratio, Bonferroni over
    the splits) and the change helps on one side but not the other, the later side is
    the regime that matters for a table used from now on.

    >>> change_point(np.array([0, 1, 0, 9, 8, 9]), np.array([9, 8, 9, 1, 0, 1]), alpha=0.05)
    3
    """
    week, p = change_point_test(b_w, c_w)
    return week if p < alpha else None


def change_point_test(b_w: np.ndarray, c_w: np.ndarray) -> tuple[int | None, float]:
    """:func:`change_point`'s best split and its p-value (Bonferroni over the splits);
    ``(None, 1.0)`` when no split flips the direction of the change."""
    W = len(b_w)
    if W < 2:
        return None, 1.0
    cb = np.cumsum(b_w)[:-1]
    cc = np.cumsum(c_w)[:-1]
    tb, tc = float(np.sum(b_w)), float(np.sum(c_w))
    if tb + tc == 0:
        return None, 1.0
    ll = _bern_ll(cb, cc) + _bern_ll(tb - cb, tc - cc)
    ll0 = float(_bern_ll(np.array([tb]), np.array([tc]))[0])
    k = int(np.argmax(ll))
    stat = 2.0 * (float(ll[k]) - ll0)
    if stat <= 0:
        return None, 1.0
    b1, c1 = cb[k], cc[k]
    b2, c2 = tb - b1, tc - c1
    early_helps = b1 > c1
    late_helps = b2 > c2
    if early_helps == late_helps:
        return None, 1.0
    return k + 1, min(1.0, float(special.chdtrc(1, stat)) * (W - 1))


#: Booleans replayed at once: (candidates × routes × signal sets) of one block.
_BLOCK = 1 << 23


class _RouteLibrary:
    """The distinct routes of a round's candidates, each with its mask and bucket, found by
    identity (most are the round's own route objects) and otherwise by value."""

    def __init__(self, searcher: Searcher, routes: Sequence[RouteRule]):
        self._s = searcher
        self.masks: list[np.ndarray] = []
        self.buckets: list[int] = []
        self._by_value: dict[RouteRule, int] = {}
        self._by_id: dict[int, int] = {}
        self._alive: list[RouteRule] = []  # keeps every id in _by_id taken
        self.rows(routes)

    def rows(self, routes: Sequence[RouteRule]) -> tuple[int, ...]:
        out = tuple(map(self._by_id.get, map(id, routes)))
        if None not in out:
            return out
        return tuple(self._add(r) if i is None else i for r, i in zip(routes, out, strict=True))

    def _add(self, r: RouteRule) -> int:
        i = self._by_value.get(r)
        if i is None:
            i = self._by_value[r] = len(self.masks)
            self.masks.append(self._s._mask(r))
            self.buckets.append(self._s.bidx[r.bucket])
        self._by_id[id(r)] = i
        self._alive.append(r)
        return i


class _RoundSums:
    """Per set and week, the decisions that agree under the set's current bucket and under
    each other bucket, so that a candidate's weekly figures are sums over the sets it moves."""

    def __init__(self, counts: np.ndarray, d: Design, cur: np.ndarray):
        agree = d.agree.astype(np.int64)  # (Kd, B)
        now = counts * d.agree[:, cur].T[:, :, None]  # (U, Kd, W): agreeing under the current bucket
        self.agree_to = np.einsum("ukw,kb->ubw", counts, agree)  # under each bucket
        self.agree_both = np.einsum("ukw,kb->ubw", now, agree)  # under both
        self.agree_now = now.sum(axis=1)  # (U, W)
        self.rows = counts[:, d.kind_agree_row, :].sum(axis=1)
        self.labelled = counts[:, d.kind_label >= 0, :].sum(axis=1)
        self.total = counts.sum(axis=(1, 2))

    def per_week(self, ms: np.ndarray, nw: np.ndarray) -> np.ndarray:
        """Wins, losses, old and new agreeing, agreement rows, labelled: (6, W)."""
        to = self.agree_to[ms, nw].sum(axis=0)
        both = self.agree_both[ms, nw].sum(axis=0)
        now = self.agree_now[ms].sum(axis=0)
        return np.stack([to - both, now - both, now, to, self.rows[ms].sum(axis=0), self.labelled[ms].sum(axis=0)])


class Searcher:
    """Greedy search over route edits on one design."""

    def __init__(
        self,
        design: Design,
        *,
        fallback: str,
        min_support: int,
        alpha: float,
        min_gain: float,
        random_state: int | None = 0,
        tree_depth: int = 3,
        text_signals: frozenset[str] = frozenset(),
    ):
        self.d = design
        self.text_signals = text_signals  # signals the table's own text rules find
        self.bidx = {b: i for i, b in enumerate(design.buckets)}
        self.fallback = self.bidx[fallback]
        self.min_support = int(min_support)
        self.alpha = float(alpha)
        self.min_gain = float(min_gain)
        self.random_state = random_state
        self.tree_depth = tree_depth
        self.week_tot = design.week_totals()
        # Evidence the search may use: all of it, until a drift is accepted; from then on
        # the sets carrying the drifted signal count only from the drift's first week.
        self.counts = design.counts
        self.L = design.label_counts()
        self.n_evaluated = 0
        self._masks: dict[RouteRule, np.ndarray] = {}

    # ------------------------------------------------------------------ replay
    def _mask(self, route: RouteRule) -> np.ndarray:
        """Which sets ``route`` matches (cached: candidates share most routes)."""
        m = self._masks.get(route)
        if m is None:
            m = route_masks(self.d.sets, [route], self.d.col)[0]
            self._masks[route] = m
        return m

    def replay(self, routes: Sequence[RouteRule], set_ids: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Bucket and deciding route index (``len(routes)`` = fallback) per set."""
        n = self.d.sets.shape[0] if set_ids is None else len(set_ids)
        bucket = np.full(n, self.fallback, dtype=np.int64)
        rule = np.full(n, len(routes), dtype=np.int64)
        if n == 0 or not routes:
            return bucket, rule
        masks = np.stack([self._mask(r) for r in routes])
        if set_ids is not None:
            masks = masks[:, set_ids]
        hit = masks.any(axis=0)
        first = np.argmax(masks, axis=0)
        rb = np.array([self.bidx[r.bucket] for r in routes], dtype=np.int64)
        rule[hit] = first[hit]
        bucket[hit] = rb[first[hit]]
        return bucket, rule

    def agreement(self, bucket: np.ndarray, weeks: slice | None = None) -> tuple[int, int]:
        """(agreeing decisions, decisions) under per-set buckets ``bucket``."""
        d = self.d
        c = d.counts if weeks is None else d.counts[:, :, weeks]
        per = c.sum(axis=2)  # (U, Kd)
        ag = d.agree[:, bucket].T  # (U, Kd)
        return int((per * ag).sum()), int(per[:, d.kind_agree_row].sum())

    # ------------------------------------------------------------------ evaluate
    def evaluate(self, cand: Candidate, routes: tuple[RouteRule, ...], cur: np.ndarray, *,
                 drift_alpha: float | None = None) -> Evaluation | None:
        """Replay ``cand`` and measure the decisions it moves. A change point in its weekly
        wins and losses restricts the evidence to the latest regime when it passes
        ``drift_alpha`` (default the search's ``alpha``)."""
        d = self.d
        try:
            new_routes = apply_edits(routes, cand.edits)
        except (KeyError, ValueError):
            return None
        set_ids = d.sets_with(cand.touched)
        if len(set_ids) == 0:
            return None
        nb, _ = self.replay(new_routes, set_ids)
        ob = cur[set_ids]
        mv = nb != ob
        if not mv.any():
            return None
        self.n_evaluated += 1
        ms = set_ids[mv]
        o = ob[mv]
        nw = nb[mv]
        sub = self.counts[ms]  # (m, Kd, W)
        ao = d.agree[:, o].T  # (m, Kd)
        an = d.agree[:, nw].T
        row = np.broadcast_to(d.kind_agree_row, ao.shape)
        lab = np.broadcast_to(d.kind_label >= 0, ao.shape)
        masks = np.stack([an & ~ao, ao & ~an, ao, an, row, lab], axis=2).astype(np.int64)  # (m, Kd, 6)
        per_week = np.einsum("mkw,mkj->jw", sub, masks)  # (6, W)
        measured = self._measure(ms, o, nw, per_week, sub.sum(axis=(1, 2)), drift_alpha)
        return Evaluation(cand=cand, routes=new_routes, **measured)

    def _measure(self, ms: np.ndarray, o: np.ndarray, nw: np.ndarray, per_week: np.ndarray, per_set: np.ndarray,
                 drift_alpha: float | None) -> dict:
        """An evaluation's figures from the moved sets ``ms`` (old buckets ``o``, new ``nw``),
        their weekly wins, losses, old and new agreeing, agreement and labelled decisions
        (``per_week``, 6 × W) and their decisions per set."""
        b_w, c_w = per_week[0], per_week[1]
        tb, tc = b_w.sum(), c_w.sum()
        since, since_p = change_point_test(b_w, c_w) if (tb >= 3 and tc > 0) else (None, 1.0)
        if since_p >= (self.alpha if drift_alpha is None else drift_alpha):
            since = None
        sl = slice(since or 0, None)
        tot = per_week[:, sl].sum(axis=1)
        wins, losses, k_old, k_new, n_moved, support = (int(x) for x in tot)
        N = int(self.week_tot[sl].sum())
        moved = int(per_set.sum())
        gain = (wins - losses) / N if N else 0.0
        if n_moved > 0 and N > 0 and wins > losses:
            lo, hi = newcombe_diff_interval(k_new, n_moved, k_old, n_moved)
            lo, hi = lo * n_moved / N, hi * n_moved / N
        else:
            lo = hi = math.nan
        return dict(
            moved=moved, support=support, wins=wins, losses=losses,
            n=N, k_old=k_old, k_new=k_new, n_moved=n_moved, gain=gain, gain_low=lo, gain_high=hi,
            p_value=sign_test_greater(wins, losses), since=since, transitions=(o, nw, per_set),
            effect=hash((ms.tobytes(), nw.tobytes())), moved_sets=ms, since_p=since_p,
        )

    def evaluate_all(self, cands: Sequence[Candidate], routes: tuple[RouteRule, ...],
                     cur: np.ndarray) -> list[tuple[Evaluation | None, tuple[int, ...] | None]]:
        """``[evaluate(c, routes, cur) for c in cands]``, replayed together, each with a key
        equal for two candidates exactly when their edited routes are equal.

        A round holds thousands of candidates on a few hundred signal sets, and one edit
        leaves most routes as they were (the same objects). The candidates' route lists
        become rows of indices into one library of route masks and are replayed as one
        (candidates × routes × sets) array, a block of candidates at a time; the figures of
        a candidate depend only on the sets it moves and their new buckets, so candidates
        with the same effect are measured once, from per-set weekly sums of the round.
        """
        d = self.d
        out: list[tuple[Evaluation | None, tuple[int, ...] | None]] = [(None, None)] * len(cands)
        lib = _RouteLibrary(self, routes)
        todo = []  # (candidate position, edited routes, their library rows, touched sets)
        touched_sets: dict[tuple[str, ...], np.ndarray] = {}
        for i, cand in enumerate(cands):
            try:
                new_routes = apply_edits(routes, cand.edits)
            except (KeyError, ValueError):
                continue
            set_ids = touched_sets.get(cand.touched)
            if set_ids is None:
                set_ids = touched_sets[cand.touched] = d.sets_with(cand.touched)
            if len(set_ids):
                todo.append((i, new_routes, lib.rows(new_routes), set_ids))
        if not todo:
            return out
        n_sets = d.sets.shape[0]
        masks = np.vstack([*lib.masks, np.zeros(n_sets, dtype=bool)])  # the last row: padding, never matches
        buckets = np.array([*lib.buckets, self.fallback], dtype=np.int64)
        pad = len(lib.masks)
        width = max(1, max(len(t[2]) for t in todo))  # (a candidate may remove the only route)
        sums = _RoundSums(self.counts, d, cur)
        measured: dict[tuple[bytes, bytes], dict] = {}
        # Candidates that touch the same signals touch the same sets: blocks are cut within
        # such a group and read only its sets, and only the library rows they use. (Blocks
        # of any candidates read the union of their sets, and every row of the library was
        # copied for each block: on 300,000 regen decisions, 2,700 rows × 9,000 sets per
        # block where a candidate touched about 1,000 sets through 27 routes.)
        groups: dict[tuple[str, ...], list] = {}
        for t in todo:
            groups.setdefault(cands[t[0]].touched, []).append(t)
        blocks = []
        for group in groups.values():
            step = max(1, _BLOCK // (width * len(group[0][3])))
            blocks += [group[a:a + step] for a in range(0, len(group), step)]
        for block in blocks:
            touched = np.concatenate([t[3] for t in block])
            cols = np.unique(touched)
            idx = np.full((len(block), width), pad, dtype=np.intp)
            for r, t in enumerate(block):
                idx[r, :len(t[2])] = t[2]
            used, at = np.unique(idx, return_inverse=True)
            m = masks[used][:, cols][at.reshape(idx.shape)]  # (block, width, cols)
            first = m.argmax(axis=1)
            nb = np.where(m.any(axis=1), np.take_along_axis(buckets[idx], first, axis=1), self.fallback)
            on = np.zeros(nb.shape, dtype=bool)
            on[np.repeat(np.arange(len(block)), [len(t[3]) for t in block]), np.searchsorted(cols, touched)] = True
            rows, where = np.nonzero(on & (nb != cur[cols]))
            bounds = np.searchsorted(rows, np.arange(len(block) + 1))
            for r, (i, new_routes, lib_rows, _) in enumerate(block):
                lo, hi = bounds[r], bounds[r + 1]
                if lo == hi:
                    continue
                self.n_evaluated += 1
                ms = cols[where[lo:hi]]
                nw = nb[r, where[lo:hi]]
                key = (ms.tobytes(), nw.tobytes())
                fig = measured.get(key)
                if fig is None:
                    o = cur[ms]
                    fig = measured[key] = self._measure(ms, o, nw, sums.per_week(ms, nw), sums.total[ms], None)
                out[i] = (Evaluation(cand=cands[i], routes=new_routes, **fig), lib_rows)
        return out

    def refusal(self, e: Evaluation, alpha_adj: float) -> str:
        """Why ``e`` is refused, or ``""`` when it passes every gate."""
        if e.support < self.min_support:
            return f"insufficient support ({e.support} labelled events moved < {self.min_support})"
        if e.gain <= 0:
            return "no agreement gain"
        if e.p_value >= alpha_adj:
            return f"not significant (p={e.p_value:.2g} >= {alpha_adj:.2g} after Bonferroni)"
        if e.gain < self.min_gain:
            return f"gain {e.gain:.4f} below min_gain {self.min_gain}"
        if not (e.gain_low > 0):
            return "interval of the gain includes zero"
        return ""

    # ------------------------------------------------------------------ search
    base_ids: frozenset[str] = frozenset()

    def run(self, routes: tuple[RouteRule, ...], *, max_changes: int,
            valid: Callable[[tuple[RouteRule, ...]], bool] | None = None,
            ) -> tuple[tuple[RouteRule, ...], list[ProposedChange], list[ProposedChange]]:
        self.base_ids = frozenset(r.id for r in routes)
        accepted: list[ProposedChange] = []
        watch: list[ProposedChange] = []
        for _ in range(max_changes + 1):
            cur, rule = self.replay(routes)
            evals = self._evaluate_all(routes, cur, rule)
            # Candidates that move the same events to the same buckets test one hypothesis.
            m = max(1, len({e.effect for e in evals}))
            alpha_adj = self.alpha / m
            # A drift is one more claim about each candidate: tested on all of them, a
            # change point at the search's alpha turns up by chance in some, and judging
            # those on their latest weeks only would favour them. It must pass the same
            # bar as the change; otherwise the candidate is judged on all its weeks.
            evals = [self._without_weak_drift(e, routes, cur, alpha_adj) for e in evals]
            passing = [e for e in evals if not self.refusal(e, alpha_adj)]
            if not passing or len(accepted) >= max_changes:
                watch = self._watch(evals, alpha_adj)
                break
            passing.sort(key=lambda e: (-e.gain, e.moved, e.cand.order))
            # Edits of the same events whose gains differ by no more than sampling noise
            # are tied; among ties the smallest change wins (a route for a combination,
            # then a re-route where the signal was decided, ... then dropping, moving or
            # removing whole routes; see `_KIND_RANK` and the order of `candidates`).
            top = passing[0]
            net = top.wins - top.losses
            tol = max(2.0, math.sqrt(max(net, 0)) / 2) / max(top.n, 1)
            tied = [e for e in passing if e.gain >= top.gain - tol and _overlap(e.moved_sets, top.moved_sets) >= 0.5]
            rank = self._tie_ranks(tied)
            passing.sort(key=lambda e: rank.get(id(e), (1,)))
            best = next((e for e in passing if valid is None or valid(e.routes)), None)
            if best is None:  # every passing edit would leave a table that fails lint
                watch = self._watch(evals, alpha_adj)
                break
            accepted.append(best.to_change(self.d, "accepted"))
            routes = best.routes
            if best.since is not None:
                self.forget_before(best.cand.signals, best.since)
        return routes, accepted, watch

    def _tie_ranks(self, tied: list[Evaluation]) -> dict[int, tuple]:
        """The order among tied edits: the smallest change first.

        A route for a combination comes first when it moves fewer events than routing one
        of its signals alone would: it leaves the rest as it was. When a one-signal route
        moves exactly the same events, the data does not need the companion signal, so the
        one-signal route comes first. Among one-signal routes moving the same events, the
        signal found on fewer events comes first: routing a signal seen everywhere (a
        table's context word such as a browser being named) changes what later events
        it meets, where the rarer signal is the one the evidence points at. On events the
        data cannot tell apart, a signal the tool named comes before one the table's own
        text rules found in the event's text.
        """
        def key(e: Evaluation) -> tuple[str | None, bytes]:
            return e.cand.to_bucket, np.asarray(e.moved_sets, dtype=np.int64).tobytes()

        one_signal = {key(e) for e in tied if e.cand.kind in _ONE_SIGNAL_KINDS}
        rank: dict[int, tuple] = {}
        for e in tied:
            kind = _KIND_RANK.get(e.cand.kind, 9)
            if e.cand.kind == "add-combination-route" and key(e) in one_signal:
                kind = _KIND_RANK["reroute-signal"] + 0.5
            narrow = e.moved if e.cand.kind == "add-combination-route" else 0  # the narrower combination
            single = e.cand.kind in _ONE_SIGNAL_KINDS
            seen = self._events_with(e.cand.signals[0]) if single else 0
            found = single and e.cand.signals[0] in self.text_signals
            rank[id(e)] = (0, kind, narrow, seen, found, e.cand.order)
        return rank

    @functools.cached_property
    def _set_events(self) -> np.ndarray:
        """Events per signal set (only ties need it)."""
        return self.d.counts.sum(axis=(1, 2))

    def _events_with(self, signal: str) -> int:
        """How many events carry ``signal``."""
        if signal not in self.d.col:
            return 0
        return int(self._set_events[self.d.signal_sets[self.d.col[signal]]].sum())

    def _without_weak_drift(self, e: Evaluation, routes: tuple[RouteRule, ...], cur: np.ndarray,
                            alpha_adj: float) -> Evaluation:
        if e.since is None or e.since_p < alpha_adj:
            return e
        again = self.evaluate(e.cand, routes, cur, drift_alpha=alpha_adj)
        self.n_evaluated -= 1  # the same candidate, measured again
        return again if again is not None else e

    def forget_before(self, signals: Sequence[str], week: int) -> None:
        """Ignore evidence before ``week`` for every set carrying one of ``signals``."""
        sids = self.d.sets_with(signals)
        if len(sids) == 0 or week <= 0:
            return
        counts = self.counts.copy()
        counts[sids, :, :week] = 0
        self.counts = counts
        self.L = self.d.with_counts(counts).label_counts()

    def _evaluate_all(self, routes: tuple[RouteRule, ...], cur: np.ndarray, rule: np.ndarray) -> list[Evaluation]:
        cands = self.candidates(routes, cur, rule)
        for i, c in enumerate(cands):
            c.order = i
        out = []
        seen: set[tuple[int, ...]] = set()
        for e, key in self.evaluate_all(cands, routes, cur):
            if e is None or key in seen:
                continue
            seen.add(key)
            out.append(e)
        return out

    def _watch(self, evals: list[Evaluation], alpha_adj: float) -> list[ProposedChange]:
        best: dict[tuple, Evaluation] = {}
        for e in evals:
            if e.gain <= 0 or e.wins < 3 or e.wins <= 2 * e.losses:
                continue
            key = (e.cand.kind, e.cand.signals, e.cand.to_bucket)
            if key not in best or (e.gain, -e.moved) > (best[key].gain, -best[key].moved):
                best[key] = e
        ranked = sorted(best.values(), key=lambda e: (-e.gain, e.moved, e.cand.order))[:25]
        return [e.to_change(self.d, "watch", self.refusal(e, alpha_adj) or "not the best of its round") for e in ranked]

    # ------------------------------------------------------------------ candidates
    def candidates(self, routes: tuple[RouteRule, ...], cur: np.ndarray, rule: np.ndarray) -> list[Candidate]:
        d = self.d
        out: list[Candidate] = []
        ids = [r.id for r in routes]
        R = len(routes)
        thr = max(1, self.min_support // 4)  # a target bucket needs this many of the labels
        buckets = d.buckets
        L = self.L

        def anchor(i: int, removed: set[str] = frozenset()) -> str | None:
            for r in routes[i:]:
                if r.id not in removed:
                    return r.id
            return None

        # --- single signals: re-route, route, drop
        for s in d.vocab:
            sids = d.sets_with([s])
            tot = L[sids].sum(axis=0)
            if tot.sum() < self.min_support // 2:
                continue
            Rs = [i for i, r in enumerate(routes) if s in r.any]
            removal = [RouteEdit.remove_signal(routes[i].id, s) for i in Rs]
            gone = {routes[i].id for i in Rs if routes[i].any == (s,) and not routes[i].all}
            cur_buckets = {routes[i].bucket for i in Rs}
            decided_by = rule[sids]
            first = int(decided_by.min()) if len(decided_by) else R
            for bi in np.flatnonzero(tot >= thr):
                B = buckets[bi]
                if Rs and cur_buckets == {B}:
                    continue
                if Rs:
                    what = f"re-route {s!r} from {'/'.join(sorted(cur_buckets))} to {B}"
                    kind = "reroute-signal"
                else:
                    what = f"route signal {s!r} to {B}"
                    kind = "route-new-signal"
                new_id = unique_route_id(s, [x for x in ids if x not in gone])
                rr = RouteRule(id=new_id, bucket=B, any=(s,))

                def insert_at(p: int) -> Candidate:
                    before = anchor(p, gone)
                    where = f"before route {before!r}" if before else "at the end"
                    return Candidate(kind, f"{what} (new route {new_id!r} {where})",
                                     (*removal, RouteEdit.insert(rr, before=before)), (s,), B, (s,))

                # On a tie the first candidate wins, so the smallest change comes first: a
                # new route where the signal was decided until now (its precedence over
                # other signals unchanged), or, for a signal no route knows, at the end
                # (it decides only what nothing else recognises).
                home = min(Rs) if Rs else R
                out.append(insert_at(home))
                for j, r in enumerate(routes):
                    # only routes the person wrote: one this search added is named for its own signal
                    if r.bucket == B and r.any and not r.all and j not in Rs and r.id in self.base_ids:
                        out.append(Candidate(kind, f"{what} (add it to route {r.id!r})",
                                             (*removal, RouteEdit.add_signal(r.id, s)), (s,), B, (s,)))
                # Every other position up to the route that decides these events now: where
                # a new route sits decides which other signals it wins against.
                positions = set(range(max(min(Rs), min(first, R)) + 1)) if Rs else set(range(R + 1))
                out.extend(insert_at(p) for p in sorted(positions - {home}))
            if Rs:
                out.append(Candidate("drop-signal", f"drop {s!r} from route(s) {', '.join(repr(routes[i].id) for i in Rs)}",
                                     tuple(removal), (s,), None, (s,)))

        # --- a signal together with a later route's signals: the later route wins
        for i, r1 in enumerate(routes):
            for a in r1.any:
                if a not in d.col:
                    continue
                for r2 in routes[i + 1:]:
                    if r2.bucket == r1.bucket or not r2.any or r2.all:
                        continue
                    others = tuple(s for s in r2.any if s != a)
                    inter = [s for s in others if s in d.col]
                    if not inter:
                        continue
                    sa = d.sets[:, d.col[a]] & d.sets[:, [d.col[s] for s in inter]].any(axis=1)
                    bi = self.bidx[r2.bucket]
                    if L[sa, bi].sum() < thr or L[sa].sum() < self.min_support // 2:
                        continue
                    # Two variants: only the signals whose pairs with `a` the data shows going
                    # to r2's bucket (the smallest change; tried first, so it wins ties), and
                    # all of r2's signals (when unseen pairs should follow the same rule).
                    agreeing = []
                    for s in others:
                        if s in d.col:
                            both = d.sets[:, d.col[a]] & d.sets[:, d.col[s]]
                            lab = L[both & (cur != bi)].sum(axis=0)  # pairs that would move
                            if lab[bi] >= 2 and lab[bi] * 2 > lab.sum():
                                agreeing.append(s)
                    variants = []
                    if agreeing and tuple(agreeing) != others:
                        variants.append((tuple(agreeing), "any of " + ", ".join(repr(x) for x in agreeing)))
                    variants.append((others, f"any signal of route {r2.id!r}"))
                    for anys, what in variants:
                        rid = unique_route_id(f"{a}-and-{anys[0]}" if len(anys) == 1 else f"{a}-with-{r2.id}", ids)
                        rr = RouteRule(id=rid, bucket=r2.bucket, any=anys, all=(a,))
                        for p in range(i, -1, -1):  # just before r1 (the smallest change) first
                            out.append(Candidate(
                                "add-combination-route",
                                f"route {a!r} together with {what} to {r2.bucket} "
                                f"(new route {rid!r} before route {routes[p].id!r})",
                                (RouteEdit.insert(rr, before=routes[p].id),), (a, *anys), r2.bucket, (a,)))

        # --- signal pairs
        out.extend(self._pair_candidates(routes, cur, rule, thr))
        # --- conjunctions from a shallow decision tree
        out.extend(self._tree_candidates(routes, cur, rule))
        # --- whole routes: remove, move (last: on a tie the more local edit above wins)
        for j, r in enumerate(routes):
            pos_sig = r.positive_signals
            out.append(Candidate("remove-route", f"remove route {r.id!r} ({r.bucket})", (RouteEdit.remove(r.id),),
                                 pos_sig, None, pos_sig))
            for i in range(R + 1):
                if i in (j, j + 1):
                    continue
                lo, hi = (i, j) if i < j else (j, i)
                touched = tuple(dict.fromkeys(s for x in routes[lo:hi + 1] for s in x.positive_signals))
                before = routes[i].id if i < R else None
                where = f"before route {before!r}" if before else "to the end"
                out.append(Candidate("move-route", f"move route {r.id!r} ({r.bucket}) {where}",
                                     (RouteEdit.move(r.id, before=before),), pos_sig, r.bucket, touched))

        return out

    def _pair_candidates(self, routes, cur, rule, thr) -> list[Candidate]:
        d = self.d
        L = self.L
        K = len(d.vocab)
        if K < 2:
            return []
        S = d.sets.astype(np.float64)
        total = S.T @ (S * L.sum(axis=1, keepdims=True))
        iu = np.argwhere(np.triu(total >= max(1, self.min_support // 2), k=1))
        out = []
        ids = [r.id for r in routes]
        R = len(routes)
        for a_i, b_i in iu:
            a, b = d.vocab[a_i], d.vocab[b_i]
            both = d.sets[:, a_i] & d.sets[:, b_i]
            lab = L[both].sum(axis=0)
            first = int(rule[both].min())
            curb = set(cur[both].tolist())
            for bi in np.flatnonzero(lab >= thr):
                if curb == {bi}:
                    continue
                B = d.buckets[bi]
                rid = unique_route_id(f"{a}-and-{b}", ids)
                rr = RouteRule(id=rid, bucket=B, all=(a, b))
                # the pair's home: where either signal alone is decided now; closest first
                home = next((k for k, r in enumerate(routes) if r.matches({a}) or r.matches({b})), R)
                for p in range(max(home, min(first, R)), -1, -1):
                    before = routes[p].id if p < R else None
                    where = f"before route {before!r}" if before else "at the end"
                    out.append(Candidate("add-combination-route", f"route {a!r} with {b!r} to {B} (new route {rid!r} {where})",
                                         (RouteEdit.insert(rr, before=before),), (a, b), B, (a,)))
        return out

    def _tree_candidates(self, routes, cur, rule) -> list[Candidate]:
        from sklearn.tree import DecisionTreeClassifier

        d = self.d
        L = self.L
        rows, labels = np.nonzero(L)
        if len(rows) == 0 or len(d.vocab) == 0 or len(set(labels.tolist())) < 2:
            return []
        weights = L[rows, labels].astype(float)
        total = weights.sum()
        if total < 2 * self.min_support:
            return []
        tree = DecisionTreeClassifier(
            max_depth=self.tree_depth,
            min_weight_fraction_leaf=min(0.5, self.min_support / total),
            random_state=self.random_state,
        )
        tree.fit(d.sets[rows].astype(np.float32), labels, sample_weight=weights)
        t = tree.tree_
        out = []
        ids = [r.id for r in routes]
        R = len(routes)
        leaf_of_set = tree.apply(d.sets.astype(np.float32))

        def walk(node: int, present: tuple[int, ...], absent: tuple[int, ...]) -> None:
            if t.children_left[node] == -1:
                if not present:
                    return
                B_i = int(tree.classes_[int(np.argmax(t.value[node][0]))])
                members = leaf_of_set == node
                if not members.any() or L[members, B_i].sum() < self.min_support // 2:
                    return
                if set(cur[members].tolist()) == {B_i}:
                    return
                B = d.buckets[B_i]
                pres = tuple(d.vocab[i] for i in present)
                none = tuple(d.vocab[i] for i in absent)
                if len(pres) + len(none) < 2:  # one signal alone: the re-route candidates cover it
                    return
                name = "-and-".join(pres) + (("-without-" + "-".join(none)) if none else "")
                rid = unique_route_id(name, ids)
                rr = RouteRule(id=rid, bucket=B, any=pres if len(pres) == 1 else (), all=pres if len(pres) > 1 else (), none=none)
                first = int(rule[members].min())
                for p in sorted({0, min(first, R)}, reverse=True):
                    before = routes[p].id if p < R else None
                    where = f"before route {before!r}" if before else "at the end"
                    cond = " and ".join(repr(s) for s in pres) + ("".join(f" without {s!r}" for s in none))
                    out.append(Candidate("add-combination-route", f"route {cond} to {B} (new route {rid!r} {where})",
                                         (RouteEdit.insert(rr, before=before),), pres, B, (pres[0],)))
                return
            f = int(t.feature[node])
            walk(int(t.children_left[node]), present, (*absent, f))
            walk(int(t.children_right[node]), (*present, f), absent)

        walk(0, (), ())
        return out
