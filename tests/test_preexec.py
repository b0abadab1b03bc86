"""Seed 000 §A: the pre-execution replay-vs-regen decision, rules 1–4 and the 30-day drift."""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timedelta, timezone

import pytest

from failtax import InputError, load_table, save_table
from failtax.preexec import (
    DEFAULT_REPLAY_SIGNAL,
    ChangedFile,
    compute_age_days,
    decide_mode,
    is_ui_file,
    match_changed_files,
    tokenize_test_case,
)

SIGNUP = {"title": "Submit signup form", "instructions": "Fill in email and password, press Create account"}


# --------------------------------------------------------------------------- rules 1-4


def test_rule_1_no_script_is_regen() -> None:
    d = decide_mode(has_replayable_script=False, last_passed_age_days=2)
    assert (d.mode, d.rule, d.signal) == ("regen", "rule-1", "rule-1-no-script")
    assert d.signals == ("rule-1-no-script",)


def test_rule_1_fires_first_and_other_matched_rules_are_kept() -> None:
    d = decide_mode(has_replayable_script=False, changed_files=["app/auth/signup/page.tsx"],
                    test_case=SIGNUP, last_passed_age_days=45)
    assert d.signal == "rule-1-no-script"
    assert d.signals == ("rule-1-no-script", "rule-2-ui-changed", "rule-3-stale-30d")


def test_rule_2_seed_example_signup_page_maps_to_signup_test() -> None:
    d = decide_mode(has_replayable_script=True, changed_files=["app/auth/signup/page.tsx"],
                    test_case=SIGNUP, last_passed_age_days=1)
    assert (d.mode, d.signal) == ("regen", "rule-2-ui-changed")
    assert d.changed_files_matched == ("app/auth/signup/page.tsx",)


def test_rule_2_beats_rule_3() -> None:
    d = decide_mode(has_replayable_script=True, changed_files=["app/auth/signup/page.tsx"],
                    test_case=SIGNUP, last_passed_age_days=90)
    assert d.signal == "rule-2-ui-changed"
    assert d.signals == ("rule-2-ui-changed", "rule-3-stale-30d")


def test_ui_change_for_another_feature_does_not_map() -> None:
    d = decide_mode(has_replayable_script=True, changed_files=["app/billing/invoices/page.tsx"],
                    test_case=SIGNUP, last_passed_age_days=3)
    assert (d.mode, d.rule, d.signal) == ("replay", "fallback", DEFAULT_REPLAY_SIGNAL)
    assert d.changed_files_matched == ()


def test_rule_4_logic_only_change_replays() -> None:
    d = decide_mode(
        has_replayable_script=True,
        changed_files=["server/auth/signup.py", "api/users.go", "README.md", "package.json"],
        test_case=SIGNUP, last_passed_age_days=10,
    )
    assert (d.mode, d.signal, d.signals) == ("replay", "rule-4-default-replay", ("rule-4-default-replay",))


@pytest.mark.parametrize(
    ("age", "mode", "signal"),
    [
        (29, "replay", "rule-4-default-replay"),
        (30, "replay", "rule-4-default-replay"),
        (30.0, "replay", "rule-4-default-replay"),
        (30.0001, "regen", "rule-3-stale-30d"),
        (31, "regen", "rule-3-stale-30d"),
        (None, "replay", "rule-4-default-replay"),
        (0, "replay", "rule-4-default-replay"),
    ],
)
def test_30_day_boundary(age: float | None, mode: str, signal: str) -> None:
    d = decide_mode(has_replayable_script=True, last_passed_age_days=age)
    assert (d.mode, d.signal) == (mode, signal)
    assert d.last_passed_age_days == age


# --------------------------------------------------------------------------- file mapping


@pytest.mark.parametrize(
    "path",
    [
        "app/auth/signup/page.tsx", "src/components/SignupForm.jsx", "src/views/Signup.vue",
        "src/routes/signup/+page.svelte", "templates/signup.html", "src/pages/signup.ts",
        "styles/signup.scss", "app/signup/layout.js", "views/signup.erb",
    ],
)
def test_ui_files_are_recognised(path: str) -> None:
    assert is_ui_file(path)


@pytest.mark.parametrize(
    "path",
    [
        "server/signup.py", "src/lib/validate.ts", "db/migrations/001.sql", "package.json",
        "src/components/SignupForm.test.tsx", "src/components/SignupForm.stories.tsx",
        "e2e/signup.spec.ts", "src/__tests__/Signup.jsx", "docs/signup.md",
    ],
)
def test_non_ui_files_are_not(path: str) -> None:
    assert not is_ui_file(path)


def test_css_with_only_cosmetic_changes_has_no_dom_impact() -> None:
    diff = "--- a/s.css\n+++ b/s.css\n@@ -1,3 +1,3 @@\n .btn {\n-  color: red;\n+  color: #333;\n-  box-shadow: none;\n+  box-shadow: 0 1px 2px #000; /* softer */\n }\n"
    assert not is_ui_file(ChangedFile(path="styles/signup.css", diff=diff))


@pytest.mark.parametrize(
    "change",
    [
        "-.signup-btn {\n+.signup-button {",  # selector renamed
        "-  display: none;\n+  display: flex;",  # layout
        "+  position: absolute;",
        "+@media (max-width: 600px) {",
        "+  --gap: 4px;",  # a custom property may drive anything: in doubt, it counts
    ],
)
def test_css_that_changes_selectors_or_layout_counts(change: str) -> None:
    assert is_ui_file({"path": "styles/signup.css", "diff": change})


def test_css_without_a_diff_counts() -> None:
    assert is_ui_file("styles/signup.css")


def test_without_test_case_text_every_ui_file_counts() -> None:
    files = ["app/billing/page.tsx", "server/x.py", "styles/a.css"]
    assert match_changed_files(files, None) == ("app/billing/page.tsx", "styles/a.css")
    d = decide_mode(has_replayable_script=True, changed_files=files, last_passed_age_days=1)
    assert d.signal == "rule-2-ui-changed"


@pytest.mark.parametrize(
    "path",
    ["app/layout.tsx", "src/App.vue", "styles/globals.css", "src/components/ui/button.tsx",
     "src/shared/Header.jsx", "index.html"],
)
def test_shared_or_global_ui_files_count_for_every_test_case(path: str) -> None:
    assert match_changed_files([path], {"title": "Export invoices as CSV"}) == (path,)


@pytest.mark.parametrize(
    ("title", "path", "matches"),
    [
        ("Log in with email", "app/login/page.tsx", True),
        ("Sign up", "src/pages/signup.tsx", True),
        ("Signup flow", "src/pages/sign-up/index.tsx", True),
        ("Update account settings", "app/settings/account/page.tsx", True),
        ("Create an invoice", "src/views/Invoices.vue", True),
        ("Search products", "src/components/ProductSearch.tsx", True),
        ("Search products", "app/checkout/page.tsx", False),
        ("Log in with email", "app/dashboard/[id]/page.tsx", False),
    ],
)
def test_title_tokens_meet_path_segments(title: str, path: str, matches: bool) -> None:
    assert (match_changed_files([path], {"title": title}) == (path,)) is matches


def test_goal_and_instructions_are_used_too() -> None:
    tc = {"title": "Happy path", "goal": "The user reaches the checkout"}
    assert match_changed_files(["app/checkout/page.tsx"], tc) == ("app/checkout/page.tsx",)


def test_tokens_drop_stop_words_and_join_split_words() -> None:
    assert tokenize_test_case({"title": "Submit the Sign up form"}) == frozenset({"submit", "sign", "signup"})
    assert tokenize_test_case("click the button") == frozenset()
    assert tokenize_test_case(None) == frozenset()


def test_matched_files_keep_input_order_without_duplicates() -> None:
    files = ["app/signup/page.tsx", "server/a.py", "styles/signup.css", "app/signup/page.tsx"]
    assert match_changed_files(files, SIGNUP) == ("app/signup/page.tsx", "styles/signup.css")


# --------------------------------------------------------------------------- telemetry


def test_event_payload_is_telemetry_ready() -> None:
    d = decide_mode(has_replayable_script=True, changed_files=["app/auth/signup/page.tsx"],
                    test_case=SIGNUP, last_passed_age_days=12.5)
    e = d.to_event(test_case_id="tc-7", project_id="p-1")
    assert e == {
        "eventType": "pre-execution-classification",
        "skillName": "muggle-test",
        "aiClassification": "regen",
        "aiSuggestion": "regen",
        "testCaseId": "tc-7",
        "projectId": "p-1",
        "signals": ["rule-2-ui-changed"],
        "metadata": {"lastPassedAgeDays": 12.5, "changedFilesMatched": ["app/auth/signup/page.tsx"]},
    }
    override = d.to_event(user_action="replay")
    assert override["userAction"] == "replay"
    assert "testCaseId" not in override and "projectId" not in override


def test_event_omits_unknown_age() -> None:
    e = decide_mode(has_replayable_script=True).to_event()
    assert e["metadata"] == {"changedFilesMatched": []}
    assert e["signals"] == ["rule-4-default-replay"]


# --------------------------------------------------------------------------- tuned tables


def _tuned(tmp_path, **changes):
    t = load_table("preexec")
    t = dataclasses.replace(t, **changes)
    return save_table(t, tmp_path / "preexec-tuned.toml")


def test_a_tuned_table_changes_the_decision(tmp_path) -> None:
    base = load_table("preexec")
    extract = tuple(
        dataclasses.replace(r, value=14) if r.id == "stale-30d" else r for r in base.extract
    )
    path = _tuned(tmp_path, extract=extract, version="2.0.0")
    assert decide_mode(has_replayable_script=True, last_passed_age_days=20).mode == "replay"
    d = decide_mode(has_replayable_script=True, last_passed_age_days=20, table=str(path))
    assert (d.mode, d.signal, d.table_version) == ("regen", "rule-3-stale-30d", "2.0.0")


def test_a_table_without_rule_2_replays_ui_changes(tmp_path) -> None:
    base = load_table("preexec")
    path = _tuned(tmp_path, route=tuple(r for r in base.route if r.id != "rule-2"))
    d = decide_mode(has_replayable_script=True, changed_files=["app/signup/page.tsx"],
                    test_case=SIGNUP, last_passed_age_days=1, table=path)
    assert (d.mode, d.signal) == ("replay", "rule-4-default-replay")
    assert d.changed_files_matched == ("app/signup/page.tsx",)  # still reported
    assert "rule-2-ui-changed" in d.signals


def test_a_table_for_another_taxonomy_is_refused() -> None:
    with pytest.raises(InputError, match="needs a preexec table"):
        decide_mode(has_replayable_script=True, table="replay")


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("age", [-1, math.nan, "30", True])
def test_bad_ages_are_refused(age: object) -> None:
    with pytest.raises(InputError, match="last_passed_age_days"):
        decide_mode(has_replayable_script=True, last_passed_age_days=age)  # type: ignore[arg-type]


def test_bad_script_flag_and_file_are_refused() -> None:
    with pytest.raises(InputError, match="has_replayable_script"):
        decide_mode(has_replayable_script="yes")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="changed file"):
        decide_mode(has_replayable_script=True, changed_files=[3])


def test_days_since() -> None:
    now = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
    assert compute_age_days(now - timedelta(days=30), now=now) == 30.0
    assert compute_age_days("2026-01-30T12:00:00.000Z", now=now) == 30.0
    assert compute_age_days(None, now=now) is None
    with pytest.raises(InputError, match="ISO-8601"):
        compute_age_days("last tuesday", now=now)
    with pytest.raises(InputError, match="time zone"):
        compute_age_days(datetime(2026, 1, 1), now=now)
