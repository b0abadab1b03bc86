"""Retry budgets: seed 001's anti-loop rule, seed 003's 529 retries and loop protection."""

from __future__ import annotations

import pytest

from failtax import Bucket, InputError, Taxonomy
from failtax.budget import (
    ALL_SCOPES,
    RecoveryAttempt,
    RecoveryBudget,
    Round,
    check_streaks,
    decide_overload,
    decide_recovery,
    find_streaks,
    build_must_fix_key,
    normalise_scope,
)

# =========================================================================== seed 001


def test_one_automatic_recovery_per_failure_type_then_escalate() -> None:
    b = RecoveryBudget()
    assert b.may_attempt("compile")
    assert b.escalation("compile") is None
    b2 = b.record("compile", result="failed", recipe="recipes/compile.md",
                  detail="error TS2304: Cannot find name 'UserProfile' remains")
    assert b.may_attempt("compile")  # the old budget is unchanged: records are immutable
    assert not b2.may_attempt("compile")
    d = b2.decide("compile")
    assert d.event == "recovery.escalated"
    assert d.attempts_used == 1
    # the report carries what was tried and why it failed, and forbids the same recipe
    assert "recipes/compile.md" in d.reason and "TS2304" in d.reason
    assert "do not retry the same recipe" in d.reason


def test_each_failure_type_has_its_own_attempt() -> None:
    b = RecoveryBudget().record("compile", result="failed")
    assert b.may_attempt("test")
    assert b.may_attempt("branch_divergence")
    b = b.record("test", result="failed")
    assert not b.may_attempt("test")


def test_a_recovered_attempt_still_spends_the_budget() -> None:
    b = RecoveryBudget().record("compile", result="recovered", recipe="recipes/compile.md")
    assert not b.may_attempt("compile")
    assert "recovered" in b.escalation("compile")


def test_budgets_are_per_scope() -> None:
    b = RecoveryBudget().record("compile", result="failed", scope="feature-1")
    assert not b.may_attempt("compile", scope="feature-1")
    assert b.may_attempt("compile", scope="feature-2")
    assert b.may_attempt("compile")  # no scope is a scope of its own
    assert b.may_attempt("compile", scope={"run": "r1"}) is True


def test_limit_is_configurable() -> None:
    b = RecoveryBudget(limit=2).record("mcp_startup", result="degraded")
    assert b.may_attempt("mcp_startup")
    assert not b.record("mcp_startup", result="failed").may_attempt("mcp_startup")


def test_types_that_are_not_auto_recoverable_get_no_attempt() -> None:
    tax = Taxonomy(
        name="devflow-mini", title="", source="", description="",
        buckets=(
            Bucket(name="compile", auto_recoverable=True),
            Bucket(name="test", auto_recoverable="partial"),
            Bucket(name="trust_gate", auto_recoverable=False),
            Bucket(name="infra", auto_recoverable="no"),
        ),
    )
    b = RecoveryBudget.from_taxonomy(tax)
    assert b.may_attempt("compile") and b.may_attempt("test")
    assert not b.may_attempt("trust_gate")
    assert "not auto-recoverable" in b.escalation("infra")


def test_decide_recovery_is_a_pure_function_over_history() -> None:
    history = [
        RecoveryAttempt.failed("compile", scope="f1"),
        RecoveryAttempt.recovered("test", scope="f1"),
        RecoveryAttempt.failed("compile", scope="f2"),
    ]
    assert not decide_recovery(history, "compile", scope="f1").allowed
    assert decide_recovery(history, "branch_divergence", scope="f1").allowed
    assert decide_recovery(history, "compile", scope="f3").event == "recovery.attempt"
    assert [a.scope for a in decide_recovery(history, "compile", scope="f2").tried] == ["f2"]


def test_bad_recovery_inputs() -> None:
    with pytest.raises(InputError, match="result must be one of"):
        RecoveryBudget().record("compile", result="maybe")
    with pytest.raises(InputError, match="failure type"):
        RecoveryBudget().record(" ", result="failed")
    with pytest.raises(InputError, match="limit"):
        decide_recovery([], "compile", limit=-1)


# =========================================================================== seed 003: 529


@pytest.mark.parametrize(
    ("launches", "action", "left"),
    [
        ([], "proceed", 3),
        ([False], "proceed", 3),
        ([True], "retry", 2),
        ([True, True], "retry", 1),
        ([True, True, True], "ask-user", 0),
        ([True, True, True, True], "ask-user", 0),
        ([True, True, False], "proceed", 3),
        ([True, True, False, True], "retry", 2),  # a start resets the count
    ],
)
def test_overload_is_retried_then_put_to_the_user(launches: list[bool], action: str, left: int) -> None:
    d = decide_overload(launches)
    assert (d.action, d.attempts_left) == (action, left)


def test_overload_options_never_include_skipping_the_stage() -> None:
    d = decide_overload([True] * 3, stage="review")
    assert [o.key for o in d.options] == ["wait", "take-over", "pause"]
    assert d.forbidden == ("skip-stage",)
    assert "skip" not in {o.key for o in d.options}
    assert "20–30" in d.options[0].label
    take_over = d.options[1].detail
    assert "division of labour" in take_over and "re-run" in take_over
    assert "Never skip the stage" in d.reason and "'review'" in d.reason
    assert decide_overload([True]).options == ()


def test_overload_attempts_are_configurable_within_the_seeds_range() -> None:
    assert decide_overload([True] * 3, max_attempts=4).action == "retry"
    assert decide_overload([True] * 4, max_attempts=4).action == "ask-user"
    with pytest.raises(InputError, match="max_attempts"):
        decide_overload([True], max_attempts=0)
    with pytest.raises(InputError, match="launch #2"):
        decide_overload([True, "529"])  # type: ignore[list-item]


# =========================================================================== seed 003: loops


def _keys(stops):
    return [(s.kind, s.key, s.scope, s.count, s.round) for s in stops]


def test_same_test_red_twice_in_a_row_stops() -> None:
    h = [Round.verification(["tests/a.py::test_x"], scope="run-1"),
         Round.verification(["tests/a.py::test_x"], scope="run-1")]
    stops = check_streaks(h)
    assert _keys(stops) == [("test", "tests/a.py::test_x", "run-1", 2, 1)]
    assert "the test itself may need updating" in stops[0].what_to_do


def test_an_interrupted_streak_does_not_stop() -> None:
    h = [Round.verification(["t::x"]), Round.verification([]), Round.verification(["t::x"])]
    assert check_streaks(h) == []
    h = [Round.verification(["t::x"]), Round.verification(["t::y"]), Round.verification(["t::x"])]
    assert check_streaks(h) == []


def test_two_ids_red_in_one_run_are_counted_independently() -> None:
    h = [Round.verification(["t::a", "t::b"]), Round.verification(["t::a"]), Round.verification(["t::b"])]
    assert _keys(check_streaks(h)) == [("test", "t::a", None, 2, 1)]
    h = [Round.verification(["t::a", "t::b"]), Round.verification(["t::b", "t::a"])]
    assert [s.key for s in check_streaks(h)] == ["t::a", "t::b"]


def test_a_changed_message_is_still_the_same_test() -> None:
    h = [
        Round.from_record({"ts": "1", "failures": [{"id": "t::a[1]", "message": "expected 1 got 2"}]}),
        Round.from_record({"ts": "2", "failures": [{"id": "t::a[1]", "message": "expected 1 got 3"}]}),
    ]
    stops = check_streaks(h)
    assert _keys(stops) == [("test", "t::a[1]", None, 2, 1)]
    assert stops[0].ts == "2"


def test_counts_never_cross_scopes() -> None:
    h = [Round.verification(["t::a"], scope="run-1"), Round.verification(["t::a"], scope="run-2")]
    assert check_streaks(h) == []
    # no-scope rounds are a scope of their own
    h = [Round.verification(["t::a"]), Round.verification(["t::a"], scope="run-2")]
    assert check_streaks(h) == []


def test_other_scopes_rounds_do_not_interrupt_a_scope() -> None:
    h = [
        Round.verification(["t::a"], scope="run-1"),
        Round.verification([], scope="run-2"),  # green elsewhere
        Round.verification(["t::a"], scope="run-1"),
    ]
    assert _keys(check_streaks(h)) == [("test", "t::a", "run-1", 2, 2)]
    assert check_streaks(h, scope="run-2") == []
    assert len(check_streaks(h, scope="run-1")) == 1


def test_scope_objects_are_compared_by_value() -> None:
    h = [
        Round.from_record({"failures": ["t::a"], "scope": {"run": "r1", "task": "t1"}}),
        Round.from_record({"failures": ["t::a"], "scope": {"task": "t1", "run": "r1"}}),
    ]
    assert [s.scope for s in check_streaks(h)] == ["run=r1,task=t1"]
    assert normalise_scope({"run": "r1", "task": None}) == "run=r1"


def test_review_rounds_do_not_interrupt_a_verification_streak() -> None:
    h = [Round.verification(["t::a"]), Round.review(["a.py::f::x"]), Round.verification(["t::a"])]
    assert _keys(check_streaks(h)) == [("test", "t::a", None, 2, 2)]


def test_same_must_fix_twice_in_a_row_stops_whatever_its_wording() -> None:
    k1 = build_must_fix_key("src/auth/middleware.ts", "verifyToken", "missing null check")
    k2 = build_must_fix_key("src\\auth\\middleware.ts", " verifyToken ", "Missing_Null  check")
    assert k1 == k2
    h = [Round.review([k1], scope="task-9"), Round.review([k2], scope="task-9")]
    stops = check_streaks(h)
    assert _keys(stops) == [("must-fix", k1, "task-9", 2, 1)]
    assert "the plan itself may be wrong" in stops[0].what_to_do
    # a clean review in between breaks it
    h = [Round.review([k1]), Round.review([]), Round.review([k1])]
    assert check_streaks(h) == []


def test_a_long_streak_is_one_stop_and_separate_streaks_are_separate_stops() -> None:
    red = Round.verification(["t::a"])
    green = Round.verification([])
    assert _keys(check_streaks([red, red, red])) == [("test", "t::a", None, 3, 1)]
    assert _keys(check_streaks([red, red, green, red, red])) == [
        ("test", "t::a", None, 2, 1), ("test", "t::a", None, 2, 4)]


def test_find_streaks_is_the_telemetry_streak_view() -> None:
    h = [
        Round.from_record({"ts": "t1", "failures": ["a", "b"], "scope": "r"}),
        Round.from_record({"ts": "t2", "must_fix_keys": ["k"], "scope": "r"}),
        Round.from_record({"ts": "t3", "failures": ["a"], "must_fix_keys": ["k"], "scope": "r"}),
    ]
    streaks = find_streaks(h, scope=ALL_SCOPES)
    got = [(s.kind, s.key, s.length, s.rounds, s.first_ts, s.last_ts) for s in streaks]
    assert got == [
        ("test", "a", 2, (0, 2), "t1", "t3"),
        ("test", "b", 1, (0,), "t1", "t1"),
        ("must-fix", "k", 2, (1, 2), "t2", "t3"),
    ]
    assert [s.key for s in find_streaks(h, min_length=2)] == ["a", "k"]


def test_limit_is_configurable_for_the_stop() -> None:
    red = Round.verification(["t::a"])
    assert check_streaks([red, red], limit=3) == []
    assert _keys(check_streaks([red, red, red], limit=3)) == [("test", "t::a", None, 3, 2)]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"ts": "x"}, "needs 'failures' or 'must_fix_keys'"),
        ({"failures": "t::a"}, "expected a list"),
        ({"failures": [{"message": "boom"}]}, "object with 'id'"),
        ({"must_fix_keys": [3]}, "must-fix key must be a non-empty string"),
        ({"failures": [], "ts": 5}, "'ts' must be a string"),
        ({"failures": [], "scope": 1.5}, "scope must be a string"),
        ([1], "expected an object"),
    ],
)
def test_bad_retry_log_lines_are_refused(record: object, message: str) -> None:
    with pytest.raises(InputError) as exc:
        Round.from_record(record, where="retries.jsonl:4")
    assert message in str(exc.value)
    assert str(exc.value).startswith("retries.jsonl:4")


def test_history_must_hold_rounds() -> None:
    with pytest.raises(InputError, match="use Round.from_record"):
        check_streaks([{"failures": ["a"]}])  # type: ignore[list-item]


def test_the_decision_modules_import_no_heavy_or_cli_libraries() -> None:
    import subprocess
    import sys

    code = (
        "import sys, failtax.verdict, failtax.preexec, failtax.budget, failtax.lint\n"
        "bad = sorted(m for m in ('duckdb', 'click', 'matplotlib', 'papermill', 'jupytext', 'nbformat')"
        " if m in sys.modules)\n"
        "print(','.join(bad))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == ""
