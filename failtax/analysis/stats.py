"""Small, exact statistics shared by the analysis and the tuner.

Every rate failtax reports comes with its count and a Wilson 95% interval; differences
of rates use Newcombe's hybrid score interval (method 10), which stays inside [-1, 1]
and behaves at 0 and n. Functions are vectorised over numpy arrays where it matters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Rate",
    "binomial_test_greater",
    "binomial_test_less",
    "fisher_exact_less",
    "newcombe_diff_interval",
    "rate",
    "tarone_count",
    "two_proportion_z_test",
    "wilson_interval",
]

Z95 = 1.959963984540054


def wilson_interval(successes, n, *, z: float = Z95):
    """Wilson score interval for a binomial proportion; ``(nan, nan)`` when ``n == 0``.

    Works on scalars or numpy arrays.

    >>> lo, hi = wilson_interval(8, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.4902, 0.9433)
    """
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / m
        denom = 1 + z * z / m
        centre = (p + z * z / (2 * m)) / denom
        half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / denom
        lo = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def newcombe_diff_interval(k1, n1, k2, n2, *, z: float = Z95) -> tuple[float, float]:
    """95% interval for ``p1 - p2`` (Newcombe 1998, method 10, from Wilson intervals).

    >>> lo, hi = newcombe_diff_interval(56, 70, 48, 80)
    >>> round(lo, 4), round(hi, 4)
    (0.0524, 0.3339)
    """
    if n1 == 0 or n2 == 0:
        return (math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, z=z)
    l2, u2 = wilson_interval(k2, n2, z=z)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (max(-1.0, lo), min(1.0, hi))


def two_proportion_z_test(k1, n1, k2, n2) -> float:
    """Two-sided p-value of the pooled two-proportion z test (1.0 when undefined)."""
    if n1 == 0 or n2 == 0:
        return 1.0
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    zval = (k1 / n1 - k2 / n2) / se
    return float(math.erfc(abs(zval) / math.sqrt(2)))  # 2 * P[Z > |z|]


def binomial_test_greater(k: int, n: int, p0: float) -> float:
    """One-sided exact binomial p-value of observing ``k`` or more successes in ``n`` at ``p0``."""
    if n == 0:
        return 1.0
    if k <= 0:
        return 1.0
    from scipy.special import bdtrc  # imported here: scipy.stats costs seconds to import

    return float(bdtrc(int(k) - 1, int(n), p0))


def tarone_count(min_p, alpha: float) -> int:
    """How many tests of a family of discrete tests to correct for (Tarone 1990).

    A discrete test has a smallest p-value it can reach however the data fall: a sign
    test on ``n`` events never goes below ``0.5 ** n``. A test that cannot reach the
    Bonferroni level ``alpha / K`` can never be significant at it, so it need not be
    counted among the ``K``: the count is the smallest ``K >= 1`` such that at most ``K``
    tests can reach ``alpha / K``. Testing every test at ``alpha / K`` keeps the
    family-wise error at most ``alpha``, as Bonferroni over all of them does, and ``K``
    is never more than the number of tests. The many pairs and candidates that rest on
    a handful of events then stop diluting the few that rest on enough.

    >>> tarone_count([0.5 ** n for n in (1, 2, 3, 12, 20)], 0.05)  # two can reach 0.025
    2
    >>> tarone_count([], 0.05)
    1
    """
    p = np.sort(np.asarray(min_p, dtype=float).ravel())
    for k in range(1, len(p) + 1):
        if np.searchsorted(p, alpha / k, side="right") <= k:
            return k
    return max(len(p), 1)


def binomial_test_less(k, n, p0):
    """One-sided exact binomial p-value of observing ``k`` or fewer successes in ``n`` at ``p0``.

    Works on scalars or numpy arrays; 1.0 where ``n == 0``.

    >>> round(binomial_test_less(2, 20, 0.5) * 2**20)
    211
    """
    from scipy.special import bdtr

    k = np.asarray(k, dtype=np.int64)
    n = np.asarray(n, dtype=np.int64)
    out = np.where(n > 0, bdtr(np.clip(k, 0, None), np.maximum(n, 1), p0), 1.0)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion with its count and Wilson 95% interval."""

    successes: int
    n: int
    value: float
    low: float
    high: float

    def __str__(self) -> str:
        if self.n == 0:
            return "n/a (n=0)"
        return f"{self.value:.1%} [{self.low:.1%}, {self.high:.1%}] (n={self.n})"


def format_gain(gain: float, low: float, high: float) -> str:
    """A change in agreement in percentage points with its interval; n/a where unknown.

    >>> format_gain(0.1703, 0.1609, 0.1783)
    '+17.03 pp (+16.09, +17.83)'
    >>> format_gain(math.nan, math.nan, math.nan)
    'n/a'
    """
    if math.isnan(gain):
        return "n/a"

    def pp(x: float) -> str:
        return "n/a" if math.isnan(x) else f"{x * 100:+.2f}"

    return f"{pp(gain)} pp ({pp(low)}, {pp(high)})"


def rate(successes: int, n: int) -> Rate:
    """Build a :class:`Rate`.

    >>> str(rate(3, 4))
    '75.0% [30.1%, 95.4%] (n=4)'
    """
    lo, hi = wilson_interval(successes, n)
    return Rate(int(successes), int(n), (successes / n) if n else math.nan, lo, hi)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_exact_less(k1: int, n1: int, k2: int, n2: int) -> float:
    """One-sided Fisher exact p-value that group 2's success rate is below group 1's.

    ``P[X <= k2]`` for ``X`` hypergeometric: ``n2`` draws from ``n1 + n2`` items of which
    ``k1 + k2`` are successes. Exact at any sample size (where a z test is not).
    1.0 when either group is empty.

    >>> # 3/3 before, 0/3 after: only 1 of C(6, 3) = 20 tables is as extreme
    >>> round(fisher_exact_less(3, 3, 0, 3), 12)
    0.05
    """
    if n1 <= 0 or n2 <= 0:
        return 1.0
    total, succ = n1 + n2, k1 + k2
    lo = max(0, n2 - (total - succ))
    if k2 < lo:
        return 0.0
    denom = _log_comb(total, n2)
    terms = [_log_comb(succ, x) + _log_comb(total - succ, n2 - x) - denom for x in range(lo, min(k2, succ, n2) + 1)]
    top = max(terms)
    return float(min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms)))

