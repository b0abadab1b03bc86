"""The table tuner: learn a revised rule table from what people chose.

:class:`TableTuner` follows scikit-learn's estimator contract: ``__init__`` only stores
its arguments, :meth:`TableTuner.fit` learns and returns ``self``, learned state lives in
attributes ending in ``_``, and ``random_state`` seeds everything random. What it learns
is a *draft table* (:attr:`TableTuner.table_`), readable and editable like the shipped
defaults, plus the list of changes that turned the base table into it, each with its
evidence, and a watch list of changes the data leans towards but cannot yet support.

How it decides (see :mod:`failtax.tune._search` for the details):

1. Decisions are aggregated over distinct (signal set, action, week) combinations, so a
   million rows cost about as much as a few thousand.
2. Candidate edits of the routes are generated from the labelled data (implied buckets)
   and replayed exactly; a decision agrees when the person's action carries out the new
   bucket's suggestion (``taxonomy.carries_out``).
3. A candidate is accepted only with enough labelled support, a Bonferroni-adjusted
   significant gain and a Newcombe interval above zero; the best is applied and the
   search goes on from the new table (route order makes edits interact).
4. Changes whose direction flips at some week (drift) are judged on the weeks since.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
import polars as pl
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from failtax.analysis.stats import Rate, format_gain, newcombe_diff_interval, rate
from failtax.errors import InputError
from failtax.table import RuleTable, load_table
from failtax.taxonomy import Taxonomy, load_taxonomy
from failtax.tune._design import Design, build_design, replay_routes
from failtax.tune._frame import prepare, with_signal_sets
from failtax.tune._labels import drop_suspect_labels
from failtax.tune._search import Searcher

__all__ = ["AgreementEstimate", "TableTuner", "bump_minor"]


@dataclass(frozen=True)
class AgreementEstimate:
    """Agreement of the base table and the tuned table on the same decisions.

    ``window`` names the decisions: ``fitted`` (all the data fitted on), ``recent`` (its
    last weeks) or ``cross-validated`` (each fold scored by a table fitted without it).
    ``gain_low``/``gain_high`` is a Newcombe 95% interval of the gain computed on the
    decisions that change bucket, scaled to all ``n`` (unmoved decisions change nothing).
    """

    window: str
    before: Rate
    after: Rate
    gain: float
    gain_low: float
    gain_high: float
    moved: int
    weeks: tuple[date | None, date | None] = (None, None)

    @classmethod
    def from_counts(cls, window: str, *, k_old: int, k_new: int, n: int, mk_old: int, mk_new: int,
                    n_moved: int, weeks: tuple[date | None, date | None] = (None, None)) -> AgreementEstimate:
        """Build one from agreeing counts (all decisions, and the moved ones)."""
        if n_moved > 0 and n > 0:
            lo, hi = newcombe_diff_interval(mk_new, n_moved, mk_old, n_moved)
            lo, hi = lo * n_moved / n, hi * n_moved / n
        else:
            lo = hi = 0.0 if n > 0 else math.nan
        gain = (k_new - k_old) / n if n else math.nan
        return cls(window, rate(k_old, n), rate(k_new, n), gain, lo, hi, n_moved, weeks)

    def __str__(self) -> str:
        return (f"{self.window}: {self.before} -> {self.after}, "
                f"gain {format_gain(self.gain, self.gain_low, self.gain_high)}, {self.moved} decisions moved")

    def to_dict(self) -> dict[str, Any]:
        def r(x: Rate) -> dict[str, Any]:
            return {"value": _num(x.value), "low": _num(x.low), "high": _num(x.high), "successes": x.successes, "n": x.n}

        return {
            "window": self.window,
            "before": r(self.before),
            "after": r(self.after),
            "gain": _num(self.gain),
            "gain_low": _num(self.gain_low),
            "gain_high": _num(self.gain_high),
            "moved": self.moved,
            "weeks": [w.isoformat() if w else None for w in self.weeks],
        }


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def bump_minor(version: str) -> str:
    """The next minor version: ``1.0.0`` → ``1.1.0``; ``2`` → ``2.1.0``.

    >>> bump_minor("1.4.2")
    '1.5.0'
    """
    m = re.match(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?", version.strip())
    if not m:
        return f"{version}+tuned"
    major = int(m.group(1))
    minor = int(m.group(2) or 0)
    return f"{major}.{minor + 1}.0"


def _resolve(taxonomy: Any, base_table: Any) -> tuple[Taxonomy, RuleTable]:
    tax = taxonomy if isinstance(taxonomy, Taxonomy) else load_taxonomy(str(taxonomy))
    base = load_table(base_table if base_table is not None else tax.name)
    if base.taxonomy != tax.name:
        raise InputError(f"base table {base.name!r} is for taxonomy {base.taxonomy!r}, not {tax.name!r}")
    return tax, base


class TableTuner(BaseEstimator):
    """Learn a revised rule table for one taxonomy from people's decisions.

    Parameters
    ----------
    taxonomy : taxonomy name (``replay``, ``regen``, ``preexec`` …) or a Taxonomy.
    base_table : the table to start from: a RuleTable, a path or a shipped name;
        default the shipped table of ``taxonomy``.
    min_support : least number of labelled events a change must move.
    alpha : significance level; each round divides it by the number of candidates
        (Bonferroni), so pure noise proposes nothing.
    min_gain : least gain in agreement rate (over the decisions the change is judged
        on) for a change to be accepted; 0.001 = 0.1 percentage point.
    max_changes : stop after this many accepted changes.
    use_text : also find signals in each event's ``text`` with the table's text rules
        (what ``failtax classify`` does with the same evidence).
    drop_suspect_labels : drop labels that look like a person's slip before fitting.
    suspect_method : ``"auto"`` (confident learning from
        :func:`failtax.analysis.find_suspect_labels`), ``"analysis"`` (the same, required)
        or ``"week"`` (a label contradicting a strong consensus of its signal set within
        its week; see :mod:`failtax.tune._labels`).
    cv : folds for the cross-validated agreement estimate (``None`` or < 2: skip).
    recent_weeks : weeks at the end of the data reported as the ``recent`` window.
    tree_depth : depth of the decision tree that proposes signal combinations.
    random_state : seed for the tree and the cross-validation folds.

    Attributes (after ``fit``)
    --------------------------
    table_ : the draft RuleTable (version bumped when anything changed).
    base_table_ : the RuleTable it started from.
    changes_ : accepted :class:`ProposedChange` records, in the order applied.
    watch_ : refused changes the data leans towards (too little support or significance).
    predicted_agreement_ : :class:`AgreementEstimate` on the fitted decisions;
        ``predicted_agreement_recent_`` on the last ``recent_weeks`` weeks;
        ``predicted_agreement_cv_`` cross-validated (or ``None``).
    n_events_, n_labelled_, n_decided_, n_suspect_labels_, suspect_method_, window_ :
        what was fitted on (``window_`` = first and last event time).
    timings_ : seconds spent per step (signal sets, suspect labels, design, search, estimates).

    Examples
    --------
    >>> import polars as pl
    >>> from failtax.tune.synthetic import synthetic_decisions
    >>> df = synthetic_decisions("replay", n_events=3000, seed=1, defects="misleading")
    >>> tuner = TableTuner("replay", cv=None).fit(df)
    >>> [c.kind for c in tuner.changes_]
    ['reroute-signal']
    """

    def __init__(
        self,
        taxonomy: Any = "replay",
        *,
        base_table: Any = None,
        min_support: int = 10,
        alpha: float = 0.05,
        min_gain: float = 0.001,
        max_changes: int = 20,
        use_text: bool = True,
        drop_suspect_labels: bool = True,
        suspect_method: str = "auto",
        cv: int | None = 3,
        recent_weeks: int = 4,
        tree_depth: int = 3,
        random_state: int | None = 0,
    ):
        self.taxonomy = taxonomy
        self.base_table = base_table
        self.min_support = min_support
        self.alpha = alpha
        self.min_gain = min_gain
        self.max_changes = max_changes
        self.use_text = use_text
        self.drop_suspect_labels = drop_suspect_labels
        self.suspect_method = suspect_method
        self.cv = cv
        self.recent_weeks = recent_weeks
        self.tree_depth = tree_depth
        self.random_state = random_state

    # ------------------------------------------------------------------ helpers
    def _check_params(self) -> None:
        if not isinstance(self.min_support, int | np.integer) or self.min_support < 1:
            raise InputError(f"min_support must be a positive integer, got {self.min_support!r}")
        if not (0 < float(self.alpha) < 1):
            raise InputError(f"alpha must be between 0 and 1, got {self.alpha!r}")
        if float(self.min_gain) < 0:
            raise InputError(f"min_gain must be >= 0, got {self.min_gain!r}")
        if self.cv is not None and (not isinstance(self.cv, int | np.integer) or self.cv < 0):
            raise InputError(f"cv must be None or a non-negative integer, got {self.cv!r}")

    def _searcher(self, design: Design, base: RuleTable) -> Searcher:
        return Searcher(
            design, fallback=base.fallback, min_support=self.min_support, alpha=self.alpha,
            min_gain=self.min_gain, random_state=self.random_state, tree_depth=self.tree_depth,
            text_signals=base.text_signals() if self.use_text else frozenset(),
        )

    def _design(self, decisions: Any, tax: Taxonomy, table: RuleTable, *, drop: bool,
                timings: dict[str, float]) -> tuple[pl.DataFrame, Design, int, str]:
        t0 = time.perf_counter()
        frame = prepare(decisions, taxonomy=tax)
        frame = with_signal_sets(frame, table, use_text=self.use_text)
        t1 = time.perf_counter()
        n_suspect, method = 0, ""
        if drop:
            frame, n_suspect, method = drop_suspect_labels(frame, taxonomy=tax.name, table=table,
                                                           random_state=self.random_state,
                                                           method=self.suspect_method)
        t2 = time.perf_counter()
        design = build_design(frame, taxonomy=tax)
        timings.update(signal_sets=t1 - t0, suspect_labels=t2 - t1, design=time.perf_counter() - t2)
        return frame, design, n_suspect, method

    # ------------------------------------------------------------------ fit
    def fit(self, decisions: Any, y: Any = None) -> TableTuner:
        """Learn the draft table from ``decisions`` (the telemetry contract's relation).

        ``y`` is ignored: the labels are the implied buckets inside ``decisions``.
        Returns ``self``.
        """
        self._check_params()
        tax, base = _resolve(self.taxonomy, self.base_table)
        timings: dict[str, float] = {}
        frame, design, n_suspect, method = self._design(decisions, tax, base, drop=self.drop_suspect_labels,
                                                        timings=timings)
        t0 = time.perf_counter()
        searcher = self._searcher(design, base)
        routes, accepted, watch = searcher.run(base.route, max_changes=int(self.max_changes), valid=_lint_ok(base))
        t1 = time.perf_counter()
        timings["search"] = t1 - t0
        self.base_table_ = base
        self.taxonomy_ = tax
        self.changes_ = tuple(accepted)
        self.watch_ = tuple(watch)
        self.n_candidates_ = searcher.n_evaluated
        self.n_events_ = int(frame.height + n_suspect)
        self.n_decided_ = int(frame["agree_row"].sum())
        self.n_labelled_ = int(frame["implied_bucket"].is_not_null().sum())
        self.n_suspect_labels_ = n_suspect
        self.suspect_method_ = method
        ts = frame["ts"].drop_nulls()
        self.window_ = (ts.min(), ts.max()) if ts.len() else (None, None)

        old_b, _ = searcher.replay(base.route)
        new_b, _ = searcher.replay(routes)
        self.predicted_agreement_ = _estimate(design, old_b, new_b, "fitted", slice(None))
        W = design.n_weeks
        start = max(0, W - int(self.recent_weeks)) if self.recent_weeks else 0
        self.predicted_agreement_recent_ = _estimate(design, old_b, new_b, "recent", slice(start, None))
        self.predicted_agreement_cv_ = self._cross_validate(design, base) if self.cv and self.cv >= 2 else None
        timings["estimates"] = time.perf_counter() - t1
        self.timings_ = timings

        version = bump_minor(base.version) if accepted else base.version
        self.table_ = base.replace(route=routes, version=version, provenance=self._provenance(base), path=None)
        return self

    def _cross_validate(self, design: Design, base: RuleTable) -> AgreementEstimate:
        rng = np.random.default_rng(self.random_state)
        k = int(self.cv)
        folds = _split_counts(design.counts, k, rng)
        tot = dict(k_old=0, k_new=0, n=0, mk_old=0, mk_new=0, n_moved=0)
        for f in range(k):
            train = design.with_counts(design.counts - folds[f])
            test = design.with_counts(folds[f])
            s = self._searcher(train, base)
            routes, _, _ = s.run(base.route, max_changes=int(self.max_changes))
            t = self._searcher(test, base)
            ob, _ = t.replay(base.route)
            nb, _ = t.replay(routes)
            for key, v in _counts(test, ob, nb, slice(None)).items():
                tot[key] += v
        return AgreementEstimate.from_counts("cross-validated", **tot, weeks=(design.weeks[0], design.weeks[-1]) if design.weeks else (None, None))

    def _provenance(self, base: RuleTable) -> dict[str, Any]:
        pa = self.predicted_agreement_
        wf, wt = self.window_
        prov: dict[str, Any] = {
            "source": "failtax tune",
            "base_table": base.name,
            "base_version": base.version,
            "data_from": wf.isoformat() if wf else "",
            "data_to": wt.isoformat() if wt else "",
            "events": self.n_events_,
            "decided": self.n_decided_,
            "labelled": self.n_labelled_,
            "suspect_labels_dropped": self.n_suspect_labels_,
            "parameters": [f"{k}={v!r}" for k, v in sorted(self.get_params().items()) if k not in ("taxonomy", "base_table")],
            "agreement_before": _fmt_rate(pa.before),
            "agreement_after": _fmt_rate(pa.after),
            "agreement_gain": format_gain(pa.gain, pa.gain_low, pa.gain_high),
            "recent_agreement_before": _fmt_rate(self.predicted_agreement_recent_.before),
            "recent_agreement_after": _fmt_rate(self.predicted_agreement_recent_.after),
            "changes": [c.provenance_line() for c in self.changes_],
        }
        if self.predicted_agreement_cv_ is not None:
            cv = self.predicted_agreement_cv_
            prov["cv_agreement_before"] = _fmt_rate(cv.before)
            prov["cv_agreement_after"] = _fmt_rate(cv.after)
        return prov

    # ------------------------------------------------------------------ use
    def predict(self, decisions: Any) -> np.ndarray:
        """The tuned table's bucket for every row of ``decisions`` (rows of other taxonomies dropped)."""
        check_is_fitted(self, "table_")
        return predict_buckets(self.table_, decisions, use_text=self.use_text)

    def score(self, decisions: Any, y: Any = None) -> float:
        """Agreement rate of the tuned table on ``decisions`` (higher is better)."""
        check_is_fitted(self, "table_")
        return agreement_of(self.table_, decisions, use_text=self.use_text).value

    def summary(self) -> str:
        """A readable report of the fit: agreement, accepted changes and the watch list."""
        check_is_fitted(self, "table_")
        lines = [f"taxonomy {self.taxonomy_.name}: {self.n_events_} events, {self.n_decided_} decided, "
                 f"{self.n_labelled_} labelled ({self.n_suspect_labels_} suspect labels dropped)"]
        for est in (self.predicted_agreement_, self.predicted_agreement_recent_, self.predicted_agreement_cv_):
            if est is not None:
                lines.append("  " + str(est))
        lines.append(f"changes ({len(self.changes_)}):" if self.changes_ else "changes: none")
        lines += [f"  {i}. {c}" for i, c in enumerate(self.changes_, 1)]
        if self.watch_:
            lines.append(f"watch ({len(self.watch_)}):")
            lines += [f"  - {c}  <- {c.reason}" for c in self.watch_]
        return "\n".join(lines)


def _lint_ok(base: RuleTable):  # noqa: ANN202
    """A check that a set of routes makes a table without lint errors (when lint exists)."""
    try:
        from failtax.lint import lint_table
    except ImportError:  # pragma: no cover - lint ships with the package
        return None
    known = tuple(base.signals)

    def ok(routes: tuple) -> bool:
        try:
            t = base.replace(route=routes)
            return not any(f.severity == "error" for f in lint_table(t, known_signals=known))
        except Exception:  # noqa: BLE001 - a table that does not even validate is not ok
            return False

    return ok


def _fmt_rate(r: Rate) -> str:
    if r.n == 0:
        return "n/a (n=0)"
    return f"{r.value:.4f} [{r.low:.4f}, {r.high:.4f}] (n={r.n})"


def _split_counts(counts: np.ndarray, k: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Assign every counted event to one of ``k`` folds at random (multinomial per group)."""
    left = counts.astype(np.int64).copy()
    out = []
    for f in range(k - 1):
        take = rng.binomial(left, 1.0 / (k - f))
        out.append(take)
        left = left - take
    out.append(left)
    return out


def _counts(design: Design, old_b: np.ndarray, new_b: np.ndarray, weeks: slice) -> dict[str, int]:
    per = design.counts[:, :, weeks].sum(axis=2)  # (U, Kd)
    ao = design.agree[:, old_b].T
    an = design.agree[:, new_b].T
    row = per * design.kind_agree_row
    moved = (old_b != new_b)[:, None]
    return dict(
        k_old=int((per * ao).sum()), k_new=int((per * an).sum()), n=int(row.sum()),
        mk_old=int((per * (ao & moved)).sum()), mk_new=int((per * (an & moved)).sum()), n_moved=int((row * moved).sum()),
    )


def _estimate(design: Design, old_b: np.ndarray, new_b: np.ndarray, window: str, weeks: slice) -> AgreementEstimate:
    ws = design.weeks[weeks]
    return AgreementEstimate.from_counts(window, **_counts(design, old_b, new_b, weeks),
                                         weeks=(ws[0], ws[-1]) if ws else (None, None))


def _table_rules(table: RuleTable, frame: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Bucket name and whether a route (not the fallback) decided, per row of a frame with ``sigkey``."""
    tax = load_taxonomy(table.taxonomy)
    codes = frame["sigkey"].cast(pl.Categorical).to_physical().cast(pl.Int64).to_numpy()
    uniq = frame.select(pl.col("sigkey"), _c=pl.Series(codes)).unique("_c")
    split = [k.split("\x1f") if k else [] for k in uniq["sigkey"].to_list()]
    vocab = sorted({s for ss in split for s in ss})
    col = {s: i for i, s in enumerate(vocab)}
    sets = np.zeros((len(split), len(vocab)), dtype=bool)
    for i, ss in enumerate(split):
        for s in ss:
            sets[i, col[s]] = True
    bidx = {b: i for i, b in enumerate(tax.bucket_names)}
    b, rule = replay_routes(sets, table.route, bidx[table.fallback], col, bidx)
    by_code_b = np.zeros(int(codes.max()) + 1 if len(codes) else 1, dtype=np.int64)
    by_code_r = np.zeros_like(by_code_b)
    by_code_b[uniq["_c"].to_numpy()] = b
    by_code_r[uniq["_c"].to_numpy()] = rule
    names = np.array(tax.bucket_names, dtype=object)
    return names[by_code_b[codes]], by_code_r[codes] < len(table.route)


def _table_buckets(table: RuleTable, frame: pl.DataFrame) -> pl.Series:
    """Bucket per row of a frame that has ``sigkey``, under ``table`` (replayed exactly)."""
    return pl.Series("bucket", _table_rules(table, frame)[0].tolist(), dtype=pl.Utf8)


def predict_buckets(table: Any, decisions: Any, *, use_text: bool = True) -> np.ndarray:
    """The bucket ``table`` gives each decision (its signals plus its text's signals).

    >>> import polars as pl
    >>> df = pl.DataFrame({"signals": [["selector-timeout"], []], "user_action": [None, None]})
    >>> predict_buckets("replay", df).tolist()
    ['stale-script', 'product-defect']
    """
    tbl = load_table(table)
    tax = load_taxonomy(tbl.taxonomy)
    frame = with_signal_sets(prepare(decisions, taxonomy=tax), tbl, use_text=use_text)
    return _table_buckets(tbl, frame).to_numpy()


def agreement_of(table: Any, decisions: Any, *, use_text: bool = True) -> Rate:
    """Agreement rate (with Wilson interval) of ``table`` replayed on ``decisions``."""
    tbl = load_table(table)
    tax = load_taxonomy(tbl.taxonomy)
    frame = with_signal_sets(prepare(decisions, taxonomy=tax), tbl, use_text=use_text)
    buckets = _table_buckets(tbl, frame)
    sugg = {b.name: b.suggestion for b in tax.buckets}
    rows = frame.select("user_action", "agree_row").with_columns(bucket=buckets)
    rows = rows.filter(pl.col("agree_row"))
    k = sum(
        n for (a, b), n in (
            ((a, b), n) for a, b, n in rows.group_by("user_action", "bucket").agg(n=pl.len()).iter_rows()
        ) if tax.carries_out(sugg[b], a)
    )
    return rate(k, rows.height)
