"""Run-level verdicts (seed 000 §F): many per-test outcomes → one verdict for the run.

An acceptance run touches several test cases. Each ends as ``"pass"``, ``"skipped"`` or a
failure bucket of the ``replay`` or ``regen`` taxonomy. Each outcome gets a per-test
verdict, and the run gets the most significant one:

=====================  ==========================================================
per-test outcome       per-test verdict
=====================  ==========================================================
``pass``               PASS
``skipped``            SKIPPED (no code under test for this test case)
a failure bucket       the bucket's ``verdict`` in the taxonomy data
                       (infra → BLOCKED, stale-script → INCONCLUSIVE,
                       product-defect → FAIL, product-uxux → FAIL,
                       agent-course → INCONCLUSIVE, transient → INCONCLUSIVE)
=====================  ==========================================================

The bucket → verdict map is read from the taxonomy files
(``failtax.load_taxonomy("regen").bucket("transient").verdict``), never hard-coded here.

**Retried once.** A bucket the taxonomy marks ``retryable`` (``transient``) is retried
once. When it comes back still transient (``retried=True``) it is INCONCLUSIVE. When it
has not been retried yet, it is *also* counted INCONCLUSIVE, and it is listed in
:attr:`RunVerdict.retry_due`: the verdict is provisional (:attr:`RunVerdict.final` is
False) until the caller retries those tests and decides again with their new outcomes.

**Aggregation.** The run verdict is the highest of the per-test verdicts in the priority
order FAIL > PARTIAL > BLOCKED > INCONCLUSIVE > SKIPPED > PASS, where PARTIAL stands in
when at least one test passed and at least one was INCONCLUSIVE (seed 000 §F: "if some
passed and some were INCONCLUSIVE, the run is PARTIAL"). Consequences, all from that
one rule:

- any FAIL → FAIL, whatever else happened;
- PASS + INCONCLUSIVE → PARTIAL (also with BLOCKED or SKIPPED tests beside them, because
  PARTIAL outranks both);
- PASS + BLOCKED (no INCONCLUSIVE) → BLOCKED: the seed's PARTIAL rule names
  INCONCLUSIVE only and the priority table puts BLOCKED above PASS — an infra blocker
  means the run cannot vouch for the PR, so no partial credit is given;
- PASS + SKIPPED → SKIPPED (priority SKIPPED > PASS; drop skipped tests before calling
  when they should not count);
- all SKIPPED → SKIPPED; all PASS → PASS;
- no tests at all → SKIPPED, with the reason "no test cases were given".

Only PASS and FAIL say something about the PR (:attr:`RunVerdict.regression_signal`).

>>> v = decide_verdict([
...     TestOutcome.from_record({"outcome": "pass"}),
...     TestOutcome.from_record({"outcome": "stale-script", "taxonomy": "replay"}),
... ])
>>> v.verdict, v.counts["PASS"], v.counts["INCONCLUSIVE"], v.regression_signal
('PARTIAL', 1, 1, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from failtax.errors import InputError, TaxonomyError
from failtax.taxonomy import load_taxonomy

__all__ = [
    "PRIORITY",
    "RunVerdict",
    "TestOutcome",
    "TestVerdict",
    "VERDICTS",
    "decide_test_verdict",
    "decide_verdict",
]

#: The six run verdicts, most significant first (seed 000 §F's priority order).
PRIORITY: tuple[str, ...] = ("FAIL", "PARTIAL", "BLOCKED", "INCONCLUSIVE", "SKIPPED", "PASS")
#: The same six names, in the seed's table order (for display).
VERDICTS: tuple[str, ...] = ("PASS", "FAIL", "PARTIAL", "INCONCLUSIVE", "BLOCKED", "SKIPPED")

PASS_OUTCOME = "pass"
SKIPPED_OUTCOME = "skipped"
_RANK = {v: i for i, v in enumerate(PRIORITY)}
_RECORD_KEYS = {"outcome", "taxonomy", "retried", "id", "testCaseId"}


@dataclass(frozen=True)
class TestOutcome:
    """How one test case ended: ``pass``, ``skipped`` or a failure bucket.

    Build it with :meth:`from_record` (checks everything) or :meth:`passed`,
    :meth:`skipped`, :meth:`failed`.

    Attributes
    ----------
    outcome : ``"pass"``, ``"skipped"`` or a bucket name of ``taxonomy``.
    taxonomy : ``"replay"`` or ``"regen"`` (any taxonomy whose buckets carry a verdict);
        ``None`` for pass / skipped.
    retried : True when this outcome is the result of the one retry.
    id : the test case id, when known.
    source : where the outcome came from (``file:line``), used as a label without ``id``.
    """

    __test__ = False  # not a pytest test class, despite the name

    outcome: str
    taxonomy: str | None = None
    retried: bool = False
    id: str | None = None
    source: str | None = None

    @classmethod
    def passed(cls, *, id: str | None = None) -> TestOutcome:
        """A test case that ran and passed."""
        return cls(outcome=PASS_OUTCOME, id=id)

    @classmethod
    def skipped(cls, *, id: str | None = None) -> TestOutcome:
        """A test case with no code under test (placeholder, empty diff, no-op change)."""
        return cls(outcome=SKIPPED_OUTCOME, id=id)

    @classmethod
    def failed(cls, bucket: str, *, taxonomy: str, retried: bool = False, id: str | None = None) -> TestOutcome:
        """A failure classified into ``bucket`` of ``taxonomy``; checked like a record.

        >>> TestOutcome.failed("transient", taxonomy="regen").outcome
        'transient'
        """
        return cls.from_record({"outcome": bucket, "taxonomy": taxonomy, "retried": retried, "id": id})

    @classmethod
    def from_record(cls, record: Any, *, source: str | None = None) -> TestOutcome:
        """Check and build an outcome from a mapping (one JSON line of ``failtax verdict``).

        Keys: ``outcome`` (required), ``taxonomy`` (required for a bucket), ``retried``
        (bool, default false), ``id`` or ``testCaseId`` (optional). Outcome and taxonomy
        names are matched case-insensitively.

        Raises
        ------
        InputError
            naming the bad key and what is allowed, prefixed with ``source`` when given.

        >>> TestOutcome.from_record({"outcome": "PASS"}).outcome
        'pass'
        >>> TestOutcome.from_record({"outcome": "oops", "taxonomy": "replay"})
        Traceback (most recent call last):
        ...
        failtax.errors.InputError: outcome 'oops' is not 'pass', 'skipped' or a bucket of taxonomy 'replay' (infra, stale-script, product-defect)
        """
        where = f"{source}: " if source else ""
        if not isinstance(record, Mapping):
            raise InputError(f"{where}expected a JSON object, got {type(record).__name__}")
        unknown = sorted(set(record) - _RECORD_KEYS)
        if unknown:
            raise InputError(
                f"{where}unknown key(s) {', '.join(map(repr, unknown))}; "
                f"allowed: outcome, taxonomy, retried, id, testCaseId"
            )
        outcome = record.get("outcome")
        if not isinstance(outcome, str) or not outcome.strip():
            raise InputError(f"{where}'outcome' must be a non-empty string: 'pass', 'skipped' or a bucket name")
        outcome = outcome.strip().lower()
        retried = record.get("retried", False)
        if retried is None:
            retried = False
        if not isinstance(retried, bool):
            raise InputError(f"{where}'retried' must be true or false, got {retried!r}")
        test_id = record.get("id", record.get("testCaseId"))
        if test_id is not None and not isinstance(test_id, str | int):
            raise InputError(f"{where}'id' must be a string or a number, got {type(test_id).__name__}")
        taxonomy = record.get("taxonomy")
        if taxonomy is not None:
            if not isinstance(taxonomy, str):
                raise InputError(f"{where}'taxonomy' must be a string such as 'replay' or 'regen'")
            taxonomy = taxonomy.strip().lower()
        if outcome in (PASS_OUTCOME, SKIPPED_OUTCOME):
            # A taxonomy beside pass/skipped is harmless; it is kept for the record.
            return cls(outcome=outcome, taxonomy=taxonomy, retried=retried,
                       id=None if test_id is None else str(test_id), source=source)
        if taxonomy is None:
            raise InputError(
                f"{where}outcome {outcome!r} is a failure bucket and needs a 'taxonomy' "
                f"('replay' or 'regen')"
            )
        try:
            tax = load_taxonomy(taxonomy)
        except TaxonomyError as exc:
            raise InputError(f"{where}{exc}") from None
        if not tax.has_bucket(outcome):
            raise InputError(
                f"{where}outcome {outcome!r} is not 'pass', 'skipped' or a bucket of taxonomy "
                f"{taxonomy!r} ({', '.join(tax.bucket_names)})"
            )
        if tax.bucket(outcome).verdict not in _RANK:
            raise InputError(
                f"{where}bucket {outcome!r} of taxonomy {taxonomy!r} carries no run verdict; "
                f"use a 'replay' or 'regen' bucket"
            )
        return cls(outcome=outcome, taxonomy=taxonomy, retried=retried,
                   id=None if test_id is None else str(test_id), source=source)


@dataclass(frozen=True)
class TestVerdict:
    """The verdict of one test case, and whether it still owes its one retry."""

    __test__ = False

    outcome: TestOutcome
    verdict: str
    retry_due: bool
    reason: str

    @property
    def label(self) -> str:
        """The test's id, else where it came from, else ``"?"``."""
        return self.outcome.id or self.outcome.source or "?"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.outcome.id is not None:
            out["id"] = self.outcome.id
        elif self.outcome.source is not None:
            out["source"] = self.outcome.source
        out["outcome"] = self.outcome.outcome
        if self.outcome.taxonomy is not None:
            out["taxonomy"] = self.outcome.taxonomy
        out["retried"] = self.outcome.retried
        out["verdict"] = self.verdict
        if self.retry_due:
            out["retry_due"] = True
        out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class RunVerdict:
    """One verdict for a whole run, with the numbers behind it.

    Attributes
    ----------
    verdict : one of :data:`VERDICTS`.
    counts : tests per per-test verdict; all six keys, zeros kept (PARTIAL is always 0:
        it is a run-level verdict only).
    tests : the per-test verdicts, in input order.
    retry_due : labels (id, else source, else ``#n``) of tests still owed their one retry;
        they are counted INCONCLUSIVE until retried.
    reasons : why the run got its verdict, in plain words.
    """

    verdict: str
    counts: Mapping[str, int]
    tests: tuple[TestVerdict, ...]
    retry_due: tuple[str, ...]
    reasons: tuple[str, ...]

    @property
    def regression_signal(self) -> bool:
        """True only for PASS and FAIL: the only verdicts that say something about the PR."""
        return self.verdict in ("PASS", "FAIL")

    @property
    def final(self) -> bool:
        """False while some test still owes its one retry (the verdict may change)."""
        return not self.retry_due

    def to_dict(self) -> dict[str, Any]:
        """The ``failtax verdict`` output object (without ``errors``)."""
        return {
            "verdict": self.verdict,
            "regression_signal": self.regression_signal,
            "final": self.final,
            "total": len(self.tests),
            "counts": dict(self.counts),
            "retry_due": list(self.retry_due),
            "reasons": list(self.reasons),
            "tests": [t.to_dict() for t in self.tests],
        }


def decide_test_verdict(outcome: TestOutcome) -> TestVerdict:
    """The per-test verdict of one outcome, read from the taxonomy data.

    Parameters
    ----------
    outcome : a checked :class:`TestOutcome`.

    Returns
    -------
    TestVerdict
        ``retry_due`` is True for a retryable bucket (``transient``) not yet retried.

    >>> decide_test_verdict(TestOutcome.failed("transient", taxonomy="regen")).retry_due
    True
    >>> decide_test_verdict(TestOutcome.failed("transient", taxonomy="regen", retried=True)).verdict
    'INCONCLUSIVE'
    """
    if outcome.outcome == PASS_OUTCOME:
        return TestVerdict(outcome, "PASS", False, "passed")
    if outcome.outcome == SKIPPED_OUTCOME:
        return TestVerdict(outcome, "SKIPPED", False, "skipped: no code under test")
    if outcome.taxonomy is None:
        raise InputError(f"outcome {outcome.outcome!r} needs a taxonomy; build it with TestOutcome.from_record")
    bucket = load_taxonomy(outcome.taxonomy).bucket(outcome.outcome)
    verdict = bucket.verdict
    if verdict not in _RANK or verdict == "PARTIAL":
        raise InputError(f"bucket {bucket.name!r} of taxonomy {outcome.taxonomy!r} carries no per-test verdict")
    name = f"{outcome.taxonomy} bucket {bucket.name}"
    if bucket.retryable:
        if outcome.retried:
            return TestVerdict(outcome, verdict, False, f"{name}, still {bucket.name} after its one retry")
        return TestVerdict(
            outcome, verdict, True,
            f"{name}, not retried yet: retry once; counted {verdict} until retried",
        )
    return TestVerdict(outcome, verdict, False, name)


def decide_verdict(tests: Iterable[TestOutcome | Mapping[str, Any]]) -> RunVerdict:
    """Aggregate per-test outcomes into one run verdict (seed 000 §F).

    Parameters
    ----------
    tests : :class:`TestOutcome` objects, or mappings checked with
        :meth:`TestOutcome.from_record` (``{"outcome": ..., "taxonomy": ..., "retried": ...}``).

    Returns
    -------
    RunVerdict
        See the module docstring for the aggregation rule; an empty input is SKIPPED.

    Raises
    ------
    InputError
        for a mapping that is not a valid outcome (the message names its position).

    >>> decide_verdict([{"outcome": "pass"}, {"outcome": "infra", "taxonomy": "regen"}]).verdict
    'BLOCKED'
    >>> decide_verdict([]).reasons
    ('no test cases were given',)
    """
    outcomes: list[TestOutcome] = []
    for i, t in enumerate(tests, 1):
        if isinstance(t, TestOutcome):
            outcomes.append(t)
        else:
            outcomes.append(TestOutcome.from_record(t, source=f"#{i}"))
    per_test = tuple(decide_test_verdict(o) for o in outcomes)
    counts = {v: 0 for v in VERDICTS}
    for tv in per_test:
        counts[tv.verdict] += 1
    labels = [tv.outcome.id or tv.outcome.source or f"#{i}" for i, tv in enumerate(per_test, 1)]
    retry_due = tuple(lbl for lbl, tv in zip(labels, per_test, strict=True) if tv.retry_due)

    if not per_test:
        return RunVerdict("SKIPPED", counts, (), (), ("no test cases were given",))

    present = {tv.verdict for tv in per_test}
    candidates = set(present)
    if "PASS" in present and "INCONCLUSIVE" in present:
        candidates.add("PARTIAL")
    verdict = min(candidates, key=_RANK.__getitem__)

    def named(v: str) -> str:
        ids = [lbl for lbl, tv in zip(labels, per_test, strict=True) if tv.verdict == v]
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        return f"{len(ids)} of {len(per_test)} {v} ({shown})"

    reasons: list[str] = []
    if verdict == "FAIL":
        reasons.append(f"{named('FAIL')}: a test case showed wrong behaviour; the run is FAIL")
    elif verdict == "PARTIAL":
        reasons.append(f"some tests passed and some were INCONCLUSIVE: {named('PASS')}, {named('INCONCLUSIVE')}")
    elif verdict == "BLOCKED":
        reasons.append(f"{named('BLOCKED')}: an infra blocker prevented meaningful execution")
    elif verdict == "INCONCLUSIVE":
        reasons.append(f"{named('INCONCLUSIVE')}: environment, script or agent problems, not a regression")
    elif verdict == "SKIPPED":
        reasons.append(f"{named('SKIPPED')}: no code under test")
    else:
        reasons.append(f"all {len(per_test)} test(s) passed")
    for v in PRIORITY:
        if v != verdict and v in present and not (verdict == "PARTIAL" and v in ("PASS", "INCONCLUSIVE")):
            reasons.append(f"also {named(v)}")
    if retry_due:
        reasons.append(
            f"retry due for {', '.join(retry_due)}: transient, retry once; counted INCONCLUSIVE "
            f"until retried, so this verdict is provisional"
        )
    if verdict not in ("PASS", "FAIL"):
        reasons.append(f"{verdict} is not a regression signal: draw no conclusion about the PR from this run")
    return RunVerdict(verdict, counts, per_test, retry_due, tuple(reasons))
