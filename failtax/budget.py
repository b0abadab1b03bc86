"""Retry budgets: when to try again automatically and when to stop and ask a person.

Three budgets from the seeds, each a pure function over a history the caller keeps (so
the telemetry loader can replay retry logs through the very same code):

**One automatic recovery per failure type** (seed 001, Anti-Loop Rule). Each failure type
gets ONE automatic recovery attempt per scope; once it is spent the next failure of that
type escalates: emit ``recovery.escalated`` and report the classification, what was
tried and why it failed — never retry the same recipe. A spent attempt stays spent even
when it recovered, so a fix → break → fix loop cannot run unattended; start a new scope
(a new feature, run or task) for a new budget. Failure types a taxonomy marks as not
auto-recoverable (seed 001: ``trust_gate``, ``infra``) get no automatic attempt at all.
See :func:`decide_recovery` and :class:`RecoveryBudget`.

**Overload retries** (seed 003, "Subagent 過載 / 不可用（如 529 Overloaded）"). A stage whose
agent fails to *start* because of overload is retried a few times (2–3 retries in the
seed; here ``max_attempts=3`` launches by default, i.e. 2 retries), then the options go
to the person — wait 20–30 minutes, let the orchestrator take over the stage, or pause.
Skipping the stage is never an option. See :func:`decide_overload`.

**Loop protection** (seed 003, "無限迴圈防護"). Stop and ask the person when the reviewer
blocks the *same must-fix* twice in a row, or verification is red on the *same test ID*
twice in a row. Counts belong to one run/task scope only, never carried across scopes or
sessions. Each test ID counts on its own (several red in one run are several streaks);
a changed error message does not make a different test — only the ID counts; a
must-fix is the same when it points at the same file, section and kind of problem
(:func:`build_must_fix_key`), whatever its wording. A streak is broken only by a round
of the *same kind* in which the key is absent (a review round does not interrupt a
streak of red verification runs). See :func:`find_streaks` and :func:`check_streaks`.

>>> history = [Round.verification(["t::a", "t::b"], scope="run-1"),
...            Round.verification(["t::a"], scope="run-1")]
>>> [(s.key, s.count) for s in check_streaks(history)]
[('t::a', 2)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from failtax.errors import InputError

__all__ = [
    "ALL_SCOPES",
    "OVERLOAD_OPTIONS",
    "OverloadDecision",
    "OverloadOption",
    "RecoveryAttempt",
    "RecoveryBudget",
    "RecoveryDecision",
    "Round",
    "Stop",
    "Streak",
    "build_must_fix_key",
    "check_streaks",
    "decide_overload",
    "decide_recovery",
    "find_streaks",
    "normalise_scope",
]

TEST, MUST_FIX = "test", "must-fix"
RECOVERY_RESULTS = ("recovered", "degraded", "failed")


class _AllScopes:
    def __repr__(self) -> str:
        return "ALL_SCOPES"


#: Pass as ``scope=`` to look at every scope, each counted on its own (the default).
ALL_SCOPES: Any = _AllScopes()


def normalise_scope(scope: Any) -> str | None:
    """One string per run/task scope: a string as is, a mapping as sorted ``k=v`` pairs.

    Retry logs carry the scope as an object (run and task id); the same object always
    gives the same string.

    >>> normalise_scope({"task": "t-2", "run": "r-1"})
    'run=r-1,task=t-2'
    >>> normalise_scope(None) is None
    True
    """
    if scope is None:
        return None
    if isinstance(scope, str):
        return scope.strip() or None
    if isinstance(scope, int) and not isinstance(scope, bool):
        return str(scope)
    if isinstance(scope, Mapping):
        parts = [f"{k}={scope[k]}" for k in sorted(scope, key=str) if scope[k] not in (None, "")]
        return ",".join(parts) or None
    raise InputError(f"a scope must be a string or an object of ids, got {type(scope).__name__}")


# =========================================================================== recovery


@dataclass(frozen=True)
class RecoveryAttempt:
    """One automatic recovery attempt (seed 001): the type, the recipe, how it ended."""

    failure_type: str
    result: str
    scope: str | None = None
    recipe: str | None = None
    detail: str = ""

    @classmethod
    def recovered(cls, failure_type: str, *, scope: Any = None, recipe: str | None = None) -> RecoveryAttempt:
        """An attempt whose recipe fixed the failure."""
        return cls._make(failure_type, "recovered", scope, recipe, "")

    @classmethod
    def failed(cls, failure_type: str, *, scope: Any = None, recipe: str | None = None, detail: str = "") -> RecoveryAttempt:
        """An attempt whose recipe did not fix the failure; ``detail`` says why."""
        return cls._make(failure_type, "failed", scope, recipe, detail)

    @classmethod
    def degraded(cls, failure_type: str, *, scope: Any = None, recipe: str | None = None, detail: str = "") -> RecoveryAttempt:
        """An attempt that went on with reduced capability (retry once, then skip with warning)."""
        return cls._make(failure_type, "degraded", scope, recipe, detail)

    @classmethod
    def _make(cls, failure_type: str, result: str, scope: Any, recipe: str | None, detail: str) -> RecoveryAttempt:
        if not isinstance(failure_type, str) or not failure_type.strip():
            raise InputError("a recovery attempt needs a failure type")
        return cls(failure_type.strip(), result, normalise_scope(scope), recipe, detail)


@dataclass(frozen=True)
class RecoveryDecision:
    """May this failure get an automatic recovery attempt, and if not, why.

    ``event`` is the lifecycle event to emit: ``recovery.attempt`` when allowed,
    ``recovery.escalated`` when not.
    """

    failure_type: str
    scope: str | None
    allowed: bool
    attempts_used: int
    limit: int
    event: str
    reason: str
    tried: tuple[RecoveryAttempt, ...] = ()


def decide_recovery(
    history: Iterable[RecoveryAttempt],
    failure_type: str,
    *,
    scope: Any = None,
    limit: int = 1,
    automatic: bool = True,
) -> RecoveryDecision:
    """Seed 001's anti-loop rule: one automatic recovery per failure type, then escalate.

    Parameters
    ----------
    history : earlier attempts (any scopes, any types; only matching ones count).
    failure_type : the type of the failure at hand (``compile``, ``test`` …).
    scope : the scope the budget belongs to (feature, run, task); attempts in other
        scopes never count.
    limit : automatic attempts per type and scope (the seed says one).
    automatic : False for a type that is not auto-recoverable at all.

    >>> first = decide_recovery([], "compile", scope="feat-1")
    >>> first.allowed, first.event
    (True, 'recovery.attempt')
    >>> spent = [RecoveryAttempt.failed("compile", scope="feat-1", recipe="recipes/compile.md",
    ...                                 detail="error TS2304 remains")]
    >>> d = decide_recovery(spent, "compile", scope="feat-1")
    >>> d.allowed, d.event
    (False, 'recovery.escalated')
    >>> decide_recovery(spent, "compile", scope="feat-2").allowed
    True
    """
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise InputError(f"limit must be a whole number ≥ 0, got {limit!r}")
    ft = failure_type.strip()
    sc = normalise_scope(scope)
    tried = tuple(a for a in history if a.failure_type == ft and a.scope == sc)
    where = f" in scope {sc!r}" if sc else ""
    if not automatic:
        return RecoveryDecision(
            ft, sc, False, len(tried), 0, "recovery.escalated",
            f"{ft} is not auto-recoverable: report it to the user with the classification; "
            f"a person must review it",
            tried,
        )
    if len(tried) < limit:
        left = limit - len(tried)
        return RecoveryDecision(
            ft, sc, True, len(tried), limit, "recovery.attempt",
            f"{ft}{where}: {left} automatic recovery attempt{'s' if left != 1 else ''} left; run its recipe once",
            tried,
        )
    last = tried[-1] if tried else None
    what = ""
    if last is not None:
        what = f" (tried {last.recipe or 'its recipe'}: {last.result}"
        what += f" — {last.detail})" if last.detail else ")"
    return RecoveryDecision(
        ft, sc, False, len(tried), limit, "recovery.escalated",
        f"{ft}{where}: the automatic recovery budget ({limit}) is spent{what}; escalate: "
        f"report the classification, what was tried and why it failed — do not retry the same recipe",
        tried,
    )


@dataclass(frozen=True)
class RecoveryBudget:
    """An immutable ledger of recovery attempts; :meth:`record` returns a new budget.

    >>> b = RecoveryBudget()
    >>> b.may_attempt("compile")
    True
    >>> b = b.record("compile", result="failed", recipe="recipes/compile.md")
    >>> b.may_attempt("compile"), b.may_attempt("test")
    (False, True)
    >>> b.escalation("compile").startswith("compile: the automatic recovery budget (1) is spent")
    True
    """

    limit: int = 1
    attempts: tuple[RecoveryAttempt, ...] = ()
    never_automatic: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_taxonomy(cls, taxonomy: Any, *, limit: int = 1) -> RecoveryBudget:
        """A budget that gives no automatic attempt to buckets marked not auto-recoverable.

        ``taxonomy`` is a :class:`~failtax.Taxonomy` or a shipped name (``devflow``).
        A bucket's ``auto_recoverable`` of ``False`` or ``"no"`` means never automatic;
        ``True`` and ``"partial"`` get the normal budget.
        """
        from failtax.taxonomy import Taxonomy, load_taxonomy

        tax = taxonomy if isinstance(taxonomy, Taxonomy) else load_taxonomy(taxonomy)
        never = frozenset(
            b.name for b in tax.buckets
            if b.auto_recoverable is False
            or (isinstance(b.auto_recoverable, str) and b.auto_recoverable.strip().lower() in ("no", "false"))
        )
        return cls(limit=limit, never_automatic=never)

    def decide(self, failure_type: str, *, scope: Any = None) -> RecoveryDecision:
        """The :func:`decide_recovery` answer for ``failure_type`` in ``scope``."""
        return decide_recovery(
            self.attempts, failure_type, scope=scope, limit=self.limit,
            automatic=failure_type.strip() not in self.never_automatic,
        )

    def may_attempt(self, failure_type: str, *, scope: Any = None) -> bool:
        """True while ``failure_type`` has an automatic attempt left in ``scope``."""
        return self.decide(failure_type, scope=scope).allowed

    def escalation(self, failure_type: str, *, scope: Any = None) -> str | None:
        """Why ``failure_type`` must escalate now, or ``None`` while an attempt is left."""
        d = self.decide(failure_type, scope=scope)
        return None if d.allowed else d.reason

    def record(
        self,
        failure_type: str,
        *,
        result: str,
        scope: Any = None,
        recipe: str | None = None,
        detail: str = "",
    ) -> RecoveryBudget:
        """A new budget with one more attempt recorded (``result``: recovered, degraded, failed)."""
        if result not in RECOVERY_RESULTS:
            raise InputError(f"result must be one of {', '.join(RECOVERY_RESULTS)}, got {result!r}")
        attempt = RecoveryAttempt._make(failure_type, result, scope, recipe, detail)
        return RecoveryBudget(self.limit, (*self.attempts, attempt), self.never_automatic)


# =========================================================================== overload


@dataclass(frozen=True)
class OverloadOption:
    """One choice put to the person when overload retries are spent."""

    key: str
    label: str
    detail: str


#: Seed 003's options after the overload retries, in the seed's order.
OVERLOAD_OPTIONS: tuple[OverloadOption, ...] = (
    OverloadOption(
        "wait", "Wait 20–30 minutes, then retry",
        "Short-interval retries only burn time; let the peak pass before trying again.",
    ),
    OverloadOption(
        "take-over", "The orchestrator takes over this stage",
        "Unblocks now. Say plainly that this breaks the command's division of labour and "
        "that independence is weaker (it reviews or changes its own flow's output); keep "
        "full rigour (the stage's own checklist, git diff and real runs, real exit codes); "
        "once the infrastructure recovers, have the real agent re-run the stage.",
    ),
    OverloadOption(
        "pause", "Pause until the infrastructure recovers",
        "Stop here and resume the flow from this stage later.",
    ),
)


@dataclass(frozen=True)
class OverloadDecision:
    """What to do after a stage's launch attempts (seed 003's 529 handling).

    ``action`` is ``"proceed"`` (the last launch started), ``"retry"`` (overloaded, a
    retry is left) or ``"ask-user"`` (retries spent: put ``options`` to the person).
    ``forbidden`` lists what must never be done: skipping the stage.
    """

    action: str
    overloaded_in_a_row: int
    attempts_left: int
    max_attempts: int
    reason: str
    stage: str | None = None
    options: tuple[OverloadOption, ...] = ()
    forbidden: tuple[str, ...] = ("skip-stage",)


def decide_overload(
    overloaded: Sequence[bool],
    *,
    max_attempts: int = 3,
    stage: str | None = None,
) -> OverloadDecision:
    """Retry an overloaded stage launch a few times, then ask the person (never skip).

    Parameters
    ----------
    overloaded : one entry per launch of the stage's agent, oldest first: True when the
        launch failed for an infrastructure reason (529 Overloaded, timeout, temporarily
        unavailable), False when it started. Only the failures since the last start count.
    max_attempts : launches allowed before asking (default 3 = the first try and 2
        retries; the seed's "2–3 retries" is 3 or 4).
    stage : the stage name, quoted in the reason.

    >>> decide_overload([True]).action
    'retry'
    >>> d = decide_overload([True, True, True], stage="review")
    >>> d.action, [o.key for o in d.options], d.forbidden
    ('ask-user', ['wait', 'take-over', 'pause'], ('skip-stage',))
    >>> decide_overload([True, True, False]).action
    'proceed'
    """
    if not isinstance(max_attempts, int) or isinstance(max_attempts, bool) or max_attempts < 1:
        raise InputError(f"max_attempts must be a whole number ≥ 1, got {max_attempts!r}")
    run = 0
    for i, v in enumerate(overloaded):
        if not isinstance(v, bool):
            raise InputError(f"launch #{i + 1}: expected true (overloaded) or false (started), got {v!r:.40}")
        run = run + 1 if v else 0
    name = f"stage {stage!r}" if stage else "the stage"
    if run == 0:
        return OverloadDecision("proceed", 0, max_attempts, max_attempts,
                                f"{name} started; nothing to retry", stage)
    left = max_attempts - run
    if left > 0:
        return OverloadDecision(
            "retry", run, left, max_attempts,
            f"{name} failed to start {run} time(s) in a row on overload; retry "
            f"({left} attempt(s) left) — each retry is costly, do not retry silently without limit",
            stage,
        )
    return OverloadDecision(
        "ask-user", run, 0, max_attempts,
        f"{name} failed to start {run} time(s) in a row on overload; stop retrying and put "
        f"the options to the user: wait 20–30 min, orchestrator takes over the stage, or "
        f"pause. Never skip the stage: overload is an infrastructure problem, not a pass",
        stage, OVERLOAD_OPTIONS,
    )


# =========================================================================== loop protection


def build_must_fix_key(file: str, section: str, problem: str) -> str:
    """The identity of a must-fix: same file + same function/section + same kind of problem.

    Wording does not matter, so ``problem`` should be the *kind* of problem (a short
    label such as ``missing-null-check``), not the reviewer's sentence.

    >>> build_must_fix_key("src\\\\auth/mw.ts", " verify() ", "Missing null check")
    'src/auth/mw.ts::verify()::missing-null-check'
    """
    parts = []
    for name, value in (("file", file), ("section", section), ("problem", problem)):
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"build_must_fix_key needs a non-empty {name}")
        parts.append(value)
    f = parts[0].strip().replace("\\", "/")
    s = parts[1].strip()
    p = re.sub(r"[\s_]+", "-", parts[2].strip().lower())
    return f"{f}::{s}::{p}"


_TEST_ID_KEYS = ("id", "test_id", "testId", "nodeid", "node_id", "name")


def _test_id(item: Any, where: str) -> str:
    if isinstance(item, str) and item.strip():
        return item.strip()
    if isinstance(item, Mapping):
        for k in _TEST_ID_KEYS:
            v = item.get(k)
            if isinstance(v, str) and v.strip():
                return v.strip()
    raise InputError(f"{where}: a failure must be a test ID or an object with 'id' (messages are ignored), got {item!r:.60}")


def _keys(items: Any, where: str, *, tests: bool) -> tuple[str, ...]:
    if not isinstance(items, list | tuple):
        raise InputError(f"{where}: expected a list, got {type(items).__name__}")
    out: list[str] = []
    for item in items:
        if tests:
            key = _test_id(item, where)
        elif isinstance(item, str) and item.strip():
            key = item.strip()
        else:
            raise InputError(f"{where}: a must-fix key must be a non-empty string, got {item!r:.60}")
        if key not in out:
            out.append(key)
    return tuple(out)


@dataclass(frozen=True)
class Round:
    """One verification run and/or review round in a scope.

    ``failures`` lists the test IDs that were red (``None``: this round ran no
    verification); ``must_fix_keys`` the must-fix items the reviewer blocked on
    (``None``: no review in this round). An empty tuple is a green run / a clean review,
    which breaks every streak of its kind.
    """

    scope: str | None = None
    failures: tuple[str, ...] | None = None
    must_fix_keys: tuple[str, ...] | None = None
    ts: str | None = None

    @classmethod
    def verification(cls, failed_ids: Iterable[Any], *, scope: Any = None, ts: str | None = None) -> Round:
        """A verification run; ``failed_ids`` are test IDs (or objects with ``id``)."""
        return cls(normalise_scope(scope), _keys(list(failed_ids), "failures", tests=True), None, ts)

    @classmethod
    def review(cls, must_fix_keys: Iterable[str], *, scope: Any = None, ts: str | None = None) -> Round:
        """A review round that blocked on ``must_fix_keys`` (see :func:`build_must_fix_key`)."""
        return cls(normalise_scope(scope), None, _keys(list(must_fix_keys), "must_fix_keys", tests=False), ts)

    @classmethod
    def from_record(cls, record: Any, *, where: str = "record") -> Round:
        """A retry-log line: ``{"ts", "failures": [...]}`` or ``{"ts", "must_fix_keys": [...]}``,
        optionally with ``scope`` (a string or an object of run and task ids).

        >>> Round.from_record({"ts": "2026-01-01T00:00:00Z", "failures": [{"id": "t::a", "message": "x"}],
        ...                    "scope": {"run": "r1"}})
        Round(scope='run=r1', failures=('t::a',), must_fix_keys=None, ts='2026-01-01T00:00:00Z')
        """
        if not isinstance(record, Mapping):
            raise InputError(f"{where}: expected an object, got {type(record).__name__}")
        has_f, has_m = "failures" in record, "must_fix_keys" in record
        if not (has_f or has_m):
            raise InputError(f"{where}: a retry-log line needs 'failures' or 'must_fix_keys'")
        ts = record.get("ts")
        if ts is not None and not isinstance(ts, str):
            raise InputError(f"{where}: 'ts' must be a string")
        try:
            scope = normalise_scope(record.get("scope"))
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        return cls(
            scope=scope,
            failures=_keys(record["failures"], f"{where}: failures", tests=True) if has_f else None,
            must_fix_keys=_keys(record["must_fix_keys"], f"{where}: must_fix_keys", tests=False) if has_m else None,
            ts=ts,
        )

    def keys(self, kind: str) -> tuple[str, ...] | None:
        return self.failures if kind == TEST else self.must_fix_keys


@dataclass(frozen=True)
class Streak:
    """A run of consecutive rounds of one kind, in one scope, in which ``key`` failed.

    ``rounds`` are the positions of its rounds in the history given (0-based);
    ``first`` and ``last`` the first and last of them.
    """

    kind: str
    key: str
    scope: str | None
    rounds: tuple[int, ...]
    first_ts: str | None = None
    last_ts: str | None = None

    @property
    def length(self) -> int:
        return len(self.rounds)

    @property
    def first(self) -> int:
        return self.rounds[0]

    @property
    def last(self) -> int:
        return self.rounds[-1]


@dataclass(frozen=True)
class Stop:
    """Loop protection tripped: stop and ask the person.

    ``count`` is the streak's full length (more than the limit means the flow went on
    past the stop); ``round`` is the position where the limit was reached.
    """

    kind: str
    key: str
    scope: str | None
    count: int
    round: int
    ts: str | None
    reason: str
    what_to_do: str


def _scopes(history: Sequence[Round], scope: Any) -> list[str | None]:
    if scope is ALL_SCOPES:
        return list(dict.fromkeys(r.scope for r in history))
    return [normalise_scope(scope)]


def find_streaks(history: Sequence[Round], *, scope: Any = ALL_SCOPES, min_length: int = 1) -> list[Streak]:
    """Every maximal streak of consecutive failures of one key, per scope and kind.

    Parameters
    ----------
    history : rounds in the order they happened.
    scope : one scope (string, ids object or ``None`` for rounds without a scope), or
        :data:`ALL_SCOPES` (default) for each scope counted on its own.
    min_length : keep streaks at least this long.

    Returns
    -------
    list[Streak]
        ordered by the round where each streak started, then kind, then key.

    >>> h = [Round.verification(["a"]), Round.verification(["b"]), Round.verification(["a"])]
    >>> [(s.key, s.length) for s in find_streaks(h)]
    [('a', 1), ('b', 1), ('a', 1)]
    """
    history = list(history)
    for i, r in enumerate(history):
        if not isinstance(r, Round):
            raise InputError(f"history #{i + 1}: expected a Round, got {type(r).__name__} (use Round.from_record)")
    out: list[Streak] = []
    for sc in _scopes(history, scope):
        rounds = [(i, r) for i, r in enumerate(history) if r.scope == sc]
        for kind in (TEST, MUST_FIX):
            open_: dict[str, list[int]] = {}
            for i, r in rounds:
                keys = r.keys(kind)
                if keys is None:
                    continue  # a round of the other kind does not interrupt this one
                now = set(keys)
                for key in [k for k in open_ if k not in now]:
                    out.append(_streak(kind, key, sc, open_.pop(key), history))
                for key in keys:
                    open_.setdefault(key, []).append(i)
            for key, idx in open_.items():
                out.append(_streak(kind, key, sc, idx, history))
    out = [s for s in out if s.length >= min_length]
    out.sort(key=lambda s: (s.first, s.kind != TEST, s.key))
    return out


def _streak(kind: str, key: str, scope: str | None, idx: list[int], history: Sequence[Round]) -> Streak:
    return Streak(kind, key, scope, tuple(idx), history[idx[0]].ts, history[idx[-1]].ts)


def check_streaks(history: Sequence[Round], *, scope: Any = ALL_SCOPES, limit: int = 2) -> list[Stop]:
    """Seed 003's loop protection: the streaks that reached ``limit`` (2) in a row.

    Parameters
    ----------
    history : rounds in order (verification runs and review rounds, any scopes).
    scope : as in :func:`find_streaks`; by default each scope is checked on its own.
    limit : consecutive failures of one key that stop the flow (the seed says 2).

    Returns
    -------
    list[Stop]
        one per streak that reached the limit, ordered by the round where it did.

    >>> h = [Round.review(["a.py::f::x"], scope="t1"), Round.review(["a.py::f::x"], scope="t1")]
    >>> check_streaks(h)[0].reason.startswith("the reviewer blocked the same must-fix 2 times in a row")
    True
    """
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise InputError(f"limit must be a whole number ≥ 1, got {limit!r}")
    history = list(history)
    stops: list[Stop] = []
    for s in find_streaks(history, scope=scope, min_length=limit):
        at = s.rounds[limit - 1]  # the round where the count reached the limit
        where = f" in scope {s.scope!r}" if s.scope else ""
        if s.kind == MUST_FIX:
            reason = f"the reviewer blocked the same must-fix {s.length} times in a row{where}: {s.key}"
            todo = "stop and ask the user to step in: the plan itself may be wrong"
        else:
            reason = f"verification was red on the same test {s.length} times in a row{where}: {s.key}"
            todo = "stop and ask the user to step in: the test itself may need updating"
        stops.append(Stop(s.kind, s.key, s.scope, s.length, at, history[at].ts, reason, todo))
    stops.sort(key=lambda st: (st.round, st.kind != TEST, st.key))
    return stops
