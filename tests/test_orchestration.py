"""The ``orchestration`` taxonomy and table: seed 003's failure kinds and their handling.

Seed 003 (maigo's failure-handling skill, in Chinese) describes how an orchestrator
handles each way a subagent flow fails. These tests pin the taxonomy (every kind with
its handling, retry limit and severity), the table's routing of real harness messages,
and the seed's tell between a stall from overload / a long silent command and a stall
from a sleeping machine (other agents stalled in the same window).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import failtax
from failtax.table import load_table
from failtax.taxonomy import load_taxonomy
from narrowed import assert_lands, assert_not_read, assert_read
from real_messages import read_yaml  # tests/real_messages.py: the fixtures, parsed once

REAL = Path(__file__).resolve().parent / "fixtures" / "real_messages" / "orchestration.yaml"
STALL = "Agent stalled: no progress for 600s (stream watchdog did not recover)"
OVERLOADED = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'

KINDS = (
    "review_blocked", "verification_red", "environment_false_red", "subagent_overloaded",
    "stalled_no_progress", "stalled_machine_sleep", "usage_limit_mid_task",
    "notification_failed_work_done", "handback_missing", "relay_refused", "stop_hook_loop",
    "same_must_fix_twice", "same_test_red_twice", "sentinel_wait_loop", "unknown",
)


def orch(text: str = "", **evidence) -> failtax.Classification:
    return failtax.classify({"text": text, **evidence}, taxonomy="orchestration")


# --------------------------------------------------------------------------- taxonomy


def test_taxonomy_lists_the_seed_failure_kinds():
    assert load_taxonomy("orchestration").bucket_names == KINDS
    assert load_table("orchestration").fallback == "unknown"


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_carries_handling_and_texts(kind):
    b = load_taxonomy("orchestration").bucket(kind)
    assert b.handling and len(b.handling) > 80
    assert b.title and b.detail and b.meaning and b.suggestion
    assert b.severity in ("blocking", "degraded")


RETRY_LIMITS = {
    "subagent_overloaded": 3,  # "重試 2-3 次"
    "stalled_no_progress": 1,  # resume once; a second stall hands over to a new agent
    "stalled_machine_sleep": 1,
    "review_blocked": 1,  # the same must-fix blocked twice in a row stops
    "verification_red": 1,  # the same test ID red twice in a row stops
    "same_must_fix_twice": 0,
    "same_test_red_twice": 0,
    "relay_refused": 0,  # never SendMessage the stuck agent again
    "stop_hook_loop": 0,  # never re-explain the same false positive
}


@pytest.mark.parametrize(("kind", "limit"), RETRY_LIMITS.items())
def test_retry_limits_follow_the_seed(kind, limit):
    assert load_taxonomy("orchestration").bucket(kind).retry_limit == limit


def test_overload_handling_never_skips_the_stage():
    b = load_taxonomy("orchestration").bucket("subagent_overloaded")
    assert "2-3" in b.handling and "20-30 minutes" in b.handling
    assert "never skip the stage" in b.handling.lower()
    assert not any("skip" in o for o in b.options)
    assert set(b.options) == {"wait-20-30-min-and-retry", "orchestrator-takes-over-stage", "pause-until-recovered"}
    assert b.retryable is True


def test_handling_texts_keep_the_seed_s_key_instructions():
    tax = load_taxonomy("orchestration")
    assert "SendMessage" in tax.bucket("stalled_no_progress").handling
    assert "third time" in tax.bucket("stalled_no_progress").handling
    assert "do not assume the lost conclusion was PASS" in tax.bucket("handback_missing").handling
    assert "zero characters" in tax.bucket("stop_hook_loop").handling
    assert "git log --oneline" in tax.bucket("notification_failed_work_done").handling
    assert "known-test-failures" in tax.bucket("environment_false_red").handling
    assert "Agent()" in tax.bucket("relay_refused").handling
    assert "same change snapshot" in tax.bucket("verification_red").handling
    assert "same reviewer" in tax.bucket("review_blocked").handling.lower()


# --------------------------------------------------------------------------- the stall tell


def test_a_stall_alone_is_a_no_progress_stall():
    c = orch(STALL)
    assert (c.bucket, c.rule) == ("stalled_no_progress", "stalled")


def test_other_agents_stalled_in_the_same_window_points_to_sleep():
    c = orch(STALL, fields={"otherAgentsStalledSameWindow": True})
    assert (c.bucket, c.rule) == ("stalled_machine_sleep", "stall-other-agents-same-window")
    assert orch(STALL, fields={"otherAgentsStalledSameWindow": False}).bucket == "stalled_no_progress"


def test_interruptions_in_one_idle_period_point_to_sleep():
    assert orch(STALL, fields={"stallsInSameIdleWindow": True}).bucket == "stalled_machine_sleep"


def test_the_sleep_message_is_decisive():
    c = orch("Your computer went to sleep mid-response")
    assert (c.bucket, c.rule) == ("stalled_machine_sleep", "machine-sleep")
    assert "backing off does not help" in c.detail


def test_a_second_stall_after_a_resume_hands_over_to_a_new_agent():
    c = orch(STALL, fields={"resumeCount": 1})
    assert (c.bucket, c.rule) == ("stalled_no_progress", "stalled-again")
    assert "third time" in c.detail and "new agent" in c.detail
    # the sleep tell still wins: a new agent would stall the same way
    assert orch(STALL, fields={"resumeCount": 1, "otherAgentsStalledSameWindow": True}).bucket == "stalled_machine_sleep"


def test_overload_is_not_a_stall():
    assert orch(OVERLOADED).bucket == "subagent_overloaded"
    assert orch(STALL).bucket != "subagent_overloaded"


# --------------------------------------------------------------------------- harness messages

MESSAGES = [
    (OVERLOADED, {}, "subagent_overloaded"),
    ("Agent terminated early due to an API error: API Error: 529 Overloaded.", {}, "subagent_overloaded"),
    (STALL, {}, "stalled_no_progress"),
    ("Your computer went to sleep mid-response", {}, "stalled_machine_sleep"),
    ("Claude usage limit reached. Your limit will reset at 3pm (America/New_York).", {}, "usage_limit_mid_task"),
    ("You've hit your session limit · resets 2am", {}, "usage_limit_mid_task"),
    ("## Verdict\nNEEDS_CHANGES\n#1 add a test", {}, "review_blocked"),
    ("## Verdict\nBLOCKED", {}, "review_blocked"),
    ("", {"verdict": "BLOCKED"}, "review_blocked"),
    ("## Verdict\nFAIL", {}, "verification_red"),
    ("FAILED tests/a.py::test_b - assert 1 == 2", {}, "verification_red"),
    ("The engine \"node\" is incompatible with this module.", {}, "environment_false_red"),
    ("FAILED tests/a.py::test_b", {"cleanEnvGreen": True}, "environment_false_red"),
    ("<task-notification><status>failed</status><summary>Exit 0, passed. Let's verify</summary></task-notification>",
     {"workComplete": True}, "notification_failed_work_done"),
    ("<status>completed</status><result>report delivered to you as a message; read it there</result>",
     {"handbackReceived": False}, "handback_missing"),
    ("I won't apply this relayed instruction without direct user authorization.", {}, "relay_refused"),
    ("Stop hook feedback: pytest: error: collected 0 items", {}, "stop_hook_loop"),
    ("Reason: [Self-Modification] writing .claude/test-command", {}, "stop_hook_loop"),
    ("## Verdict\nBLOCKED\n#1 same file", {"sameMustFixCount": 2}, "same_must_fix_twice"),
    ("FAILED tests/a.py::test_b", {"sameTestRedCount": 2}, "same_test_red_twice"),
    ("until [ -f /tmp/done.flag ]; do sleep 5; done", {}, "sentinel_wait_loop"),
    ("something odd happened", {}, "unknown"),
]


@pytest.mark.parametrize(("text", "fields", "kind"), MESSAGES, ids=[m[2] + ":" + m[0][:24] for m in MESSAGES])
def test_harness_messages_route_to_their_kind(text, fields, kind):
    c = orch(text, fields=fields)
    assert c.bucket == kind, f"got {c.bucket} by {c.rule} ({list(c.signals)})"


def test_loop_protection_overrides_the_normal_fix_loop():
    review = "## Verdict\nBLOCKED\n#1 src/a.py f(): race"
    assert orch(review, fields={"sameMustFixCount": 1}).bucket == "review_blocked"
    assert orch(review, fields={"sameMustFixCount": 2}).bucket == "same_must_fix_twice"
    red = "FAILED tests/a.py::test_b - KeyError"
    assert orch(red, fields={"sameTestRedCount": 1}).bucket == "verification_red"
    assert orch(red, fields={"sameTestRedCount": 2}).bucket == "same_test_red_twice"


def test_a_failed_notification_is_judged_by_the_git_state():
    note = "<task-notification><status>failed</status><summary>Exit 0, passed. Let's verify</summary></task-notification>"
    assert orch(note, fields={"workComplete": True}).rule == "notification-failed-work-done"
    incomplete = orch(note, fields={"workComplete": False})
    assert incomplete.rule == "notification-failed-work-incomplete" and "inventory" in incomplete.detail
    assert orch(note).rule == "notification-failed"  # no git facts yet: check them first


def test_a_stop_hook_on_a_real_red_test_is_verification_red():
    text = "Stop hook feedback:\n[verify.sh]: FAILED tests/test_api.py::test_login - AssertionError"
    assert orch(text).bucket == "verification_red"
    assert orch(text, fields={"stopHookBlocks": 3}).bucket == "stop_hook_loop"


# --------------------------------------------------------------------------- output


def test_cli_output_carries_handling_and_retry_limit(failtax_cmd):
    lines = [{"id": 1, "text": OVERLOADED}, {"id": 2, "text": STALL, "fields": {"otherAgentsStalledSameWindow": True}}]
    proc = subprocess.run(
        [*failtax_cmd, "classify", "--taxonomy", "orchestration"],
        input="\n".join(json.dumps(x) for x in lines) + "\n",
        capture_output=True, text=True, check=True, timeout=60,
    )
    first, second = (json.loads(x) for x in proc.stdout.splitlines())
    assert first["bucket"] == "subagent_overloaded" and first["retry_limit"] == 3
    assert "20-30 minutes" in first["handling"]
    assert second["bucket"] == "stalled_machine_sleep" and "ListAgents" in second["handling"]


def test_every_route_signal_can_be_produced_and_every_extracted_signal_is_routed():
    table = load_table("orchestration")
    produced = {r.signal for r in table.extract}
    routed = {s for r in table.route for s in (*r.any, *r.all, *r.none)}
    assert routed <= produced, sorted(routed - produced)
    unrouted = produced - routed
    assert unrouted <= {"env-collection-error"} | routed, sorted(unrouted)


def test_golden_file_has_five_cases_per_kind():
    entries = read_yaml(REAL)
    per = {k: 0 for k in KINDS}
    for e in entries:
        per[e["bucket"]] += 1
    assert min(per.values()) >= 5, per


def test_a_stall_told_beside_a_sleeping_machine_in_loose_words_is_the_sleep_bucket():
    # the sleep words vetoed the last-resort stall route and fed no route of their own,
    # so a stall no sleep rule read fell to the fallback
    text = "The agent run stalled overnight; the laptop display was asleep when I checked."
    got = failtax.classify({"text": text}, taxonomy="orchestration")
    assert got.bucket == "stalled_machine_sleep", (got.rule, got.signals)
    # sleep words alone are no stall, and the stall words alone stay a plain stall
    assert failtax.classify({"text": "The laptop display was asleep when I checked."}, taxonomy="orchestration").bucket != "stalled_machine_sleep"
    assert failtax.classify({"text": "The agent run stalled overnight."}, taxonomy="orchestration").bucket == "stalled_no_progress"


def test_a_ci_build_agent_failing_the_build_is_not_a_coding_agents_red_gate():
    # the rule read 'agent … fails the build' for any agent, a CI service's build agent too
    assert_not_read("orchestration", "verification-red", [
        "The self-hosted agent fails the build: No space left on device",
        "Azure Pipelines: the build agent fails the build because JDK 17 is not installed",
    ])
    assert_read("orchestration", "verification-red", [
        "When Github hosted Copilot fails a CI build it just kinda sits there and does nothing",
        "The coding agent fails the PR build: 3 tests failed",
    ])


def test_usage_window_zh_needs_reached_cap_not_any_shiyong_shangxian():
    # usage-window-cap-zh used to read any bare '使用上限' (also a per-user API cap asked for in a
    # review) as a usage window running out, moving a reviewer's must-fix to usage_limit_mid_task.
    assert_not_read("orchestration", "usage-limit", [
        "Reviewer: NEEDS_CHANGES. Must-fix: 给 API 增加每个用户的使用上限，否则会被滥用。",
    ], bucket="review_blocked")
    assert_read("orchestration", "usage-limit", [
        "HttpError 429: 已达到 5 小时的使用上限。您的限额将在 2026-08-25 07:41:44 重置。",
    ], bucket="usage_limit_mid_task")


def test_review_against_previous_fix_needs_adversarial_loop():
    # review-against-previous-fix used to read any 'findings against the previous round's fix' as the
    # same must-fix again, so one ordinary NEEDS_CHANGES on a new defect in a fix left review_blocked.
    assert_not_read("orchestration", "same-must-fix-twice", [
        "The reviewer posted findings against the previous round's fix: the new null check swallows the error. NEEDS_CHANGES.",
    ], bucket="review_blocked")
    ok = orch("AI review gates find real defects for about two rounds, then start generating adversarial cases against the previous round's fix, which is unbounded by construction.")
    assert ok.bucket == "same_must_fix_twice"


def test_pr_blocked_until_needs_reviewer_not_bare_approved():
    # pr-blocked-until-requested-changes used to accept a bare 'approv…' after 'blocked until', so a PR
    # held for a red build ('until the build is green and approved') became a review block.
    assert_not_read("orchestration", "review-blocking", [
        "The PR is blocked until the build is green and approved; verify step failed: npm test exited 1.",
    ], not_bucket="review_blocked")
    assert_read("orchestration", "review-blocking", [
        "Unfortunately PR is blocked until the author changes the other code as requested by Gemini.",
    ], bucket="review_blocked")
    ok2 = orch("If an author assigns two reviewers, the merge is blocked until both requested reviewers approve, request changes, or are unrequested.")
    assert ok2.bucket == "review_blocked"


def test_never_heard_back_needs_agent_that_messaged_people():
    # reply-never-observed used to read any 'agent … never heard back' as a wait on a reply, so an agent
    # that never heard back from CI or the verifier over red tests became sentinel_wait_loop.
    assert_not_read("orchestration", "notification-never-arrives", [
        "The agent sent the PR and never heard back from CI; the checks failed with 2 red tests.",
        "The agent stopped and never heard back from the verifier: test_login FAILED (AssertionError) twice in a row.",
    ], not_bucket="sentinel_wait_loop")
    assert_read("orchestration", "notification-never-arrives", [
        "An agent that messaged four people and stopped never heard back.",
    ], bucket="sentinel_wait_loop")


def test_notification_unreachable_not_a_webhook_that_starts_work():
    # notification-destination-unreachable used to take a bare 'webhook'/'hook' as the notice, so a
    # webhook that should have started a deploy (which never ran) read as a notice failed after the work.
    assert_not_read("orchestration", "channel-notification-failed", [
        "Notifications were sent, but the webhook call to trigger the deploy job failed to reach the runner; the deploy never ran.",
    ], not_bucket="notification_failed_work_done")
    ok = orch("Notifications controller tried to send on deployed signal to the lambda but failed to reach it, which has an error logged.")
    assert ok.bucket == "notification_failed_work_done"


def test_freeze_on_429_leaves_plan_allowance_to_usage():
    # freeze-on-429 used to read a stall after a 429 that the text puts down to a spent plan
    # allowance as an overload (subagent_overloaded).
    assert_not_read("orchestration", "overload-cut-off", [
        "The agent stalls after 429: You have exceeded your monthly plan allowance.",
    ], not_bucket="subagent_overloaded")
    assert_read("orchestration", "overload-cut-off", [
        "Delegated subagents freeze on 429 Too Many Requests; OpenCode retries with no limit and the session freezes indefinitely.",
    ], bucket="subagent_overloaded")


def test_job_active_nothing_happening_leaves_limits_alone():
    # job-active-nothing-happening used to win over rate and usage limits named in the same text,
    # moving a 429-throttled worker (overload) and a usage-limited agent to stalled_no_progress.
    r = orch("Job is stuck in the active state, nothing is happening since the worker was rate limited with 429 Too Many Requests.")
    assert r.bucket == "subagent_overloaded"
    r2 = orch("Task stuck in active status and nothing happening: the agent hit the usage limit and will resume at 5pm.")
    assert r2.bucket == "usage_limit_mid_task"
    assert_read("orchestration", "stall-watchdog", [
        "Sometimes it'll die and there's a job set in the `active` state, but nothing is happening.",
    ], bucket="stalled_no_progress")


def test_port_in_use_needs_tests_not_latest():
    # test-port-already-in-use used and_contains "test", which 'latest' satisfies, so a dev server
    # that could not bind its port after an upgrade read as an environment false red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "After upgrading to the latest Next.js the dev server fails: Error: listen EADDRINUSE: address already in use :::3000",
    ], not_bucket="environment_false_red")
    assert_read("orchestration", "env-version-mismatch", [
        "Running the test suite frequently runs into listen EADDRINUSE: address already in use :::54024 (flaky test)",
    ], bucket="environment_false_red")


def test_docker_daemon_down_needs_tests_not_latest():
    # tests-without-docker-daemon used and_contains "test", which 'node:latest' satisfies, so a plain
    # docker pull with the daemon down read as a red test of the environment.
    assert_not_read("orchestration", "env-version-mismatch", [
        "docker pull node:latest: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
    ], not_bucket="environment_false_red")
    assert_read("orchestration", "env-version-mismatch", [
        "Clean up docker failing during tests: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
    ], bucket="environment_false_red")


def test_commit_status_post_failed_leaves_red_builds_alone():
    # commit-status-post-failed used to read 'failed to update commit status' as the only failure even
    # when the same text says the build's own tests failed, moving a red build to notification_failed_work_done.
    assert_not_read("orchestration", "channel-notification-failed", [
        "Failed to update commit status on GitHub, and the build itself failed: 3 tests red in test_api.py.",
    ], not_bucket="notification_failed_work_done")
    assert_read("orchestration", "channel-notification-failed", [
        "Our commit status isn't updated on GitHub after the build finishes successfully.",
    ], bucket="notification_failed_work_done")


def test_run_never_enqueued_leaves_usage_limits_alone():
    # run-never-enqueued used to win over a usage limit named in the same text, moving runs held by a
    # spent usage window (usage_limit_mid_task) to a start-up overload.
    assert_not_read("orchestration", "waits-on-failed-start", [
        "Runs stuck in pending on scheduling errors because the usage limit was reached; resets at 5pm.",
    ], bucket="usage_limit_mid_task")
    assert_read("orchestration", "waits-on-failed-start", [
        "Delayed runs stuck in PENDING indefinitely on enqueue failure.",
    ], bucket="subagent_overloaded")


def test_fix_loop_same_error_leaves_overload_limit_and_stall_errors_alone():
    # fix-loop-same-error used to read any "looping on (fixing) the same error" / "tried to fix ..., leading to
    # the same error", so a 529, a usage limit or the stall watchdog named as that error was read as same_test_red_twice.
    assert_not_read("orchestration", "same-test-red-twice", [
        'The implementer keeps looping on the same error: API Error: 529 {"type":"overloaded_error"}. Retried 3 times. Is there a fix?',
        "The agent tried to fix it by restarting, leading to the same error: API Error: 529 Overloaded",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "same-test-red-twice", [
        "Claude kept looping on fixing the same error until it hit the limit: Claude usage limit reached. Your limit will reset at 5pm.",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "same-test-red-twice", [
        "Subagent tried to fix the migration, leading to the same error: Agent stalled: no progress for 600s",
    ], bucket="stalled_no_progress")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-test-red-twice", [
        "AI keeps looping over trying to fix the same issue, and this is with AGENT mode enabled too.",
        "Gemini looped over the same bug 10+ times, seemingly just adding and removing the same line of code. It would lose track of what fixes had already been tried.",
    ], bucket="same_test_red_twice")


def test_fix_rerun_hits_it_again_leaves_overload_and_usage_limit_alone():
    # fix-rerun-hits-it-again used to read "keep fixing ..., run it, and get the same error again" whatever the error,
    # so a 529 or a usage limit hit again was read as same_test_red_twice.
    assert_not_read("orchestration", "same-test-red-twice", [
        "I keep fixing the config, run it, and get the same error again: API Error: 529 Overloaded",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "same-test-red-twice", [
        "It keeps looping: I wait for the reset, run it, and hit it again. Claude usage limit reached. Your limit will reset at 3pm. Any fix?",
    ], bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-test-red-twice", [
        'Bolt ran into errors running it. It keeps looping "fixing" the error, running it, encountering it again, and "fixing" it again, chewing through my tokens.',
    ], bucket="same_test_red_twice")


def test_same_failure_across_attempts_leaves_start_failures_and_stalls_alone():
    # same-failure-across-attempts used to read "same failure across N attempts" next to any "test" word, so a
    # test agent that failed to start (503) or stalled on every retry was read as same_test_red_twice.
    assert_not_read("orchestration", "same-test-red-twice", [
        "Test agent: same failure across 3 attempts - Task failed to start: 503 Service Unavailable",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "same-test-red-twice", [
        "verifier subagent: same failure across 3 retries: Agent stalled: no progress for 600s while running the test suite",
    ], bucket="stalled_no_progress")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-test-red-twice", [
        "N5 reported the same single failure (test_default_config_path_posix, full AssertionError) across 3 impl attempts; the stagnation detector halted the run with 'Test count stagnant: 52/53'.",
    ], bucket="same_test_red_twice")


def test_reviewer_readds_same_suggestions_leaves_stop_hook_alone():
    # reviewer-readds-same-suggestions used to read any "re-raising the same findings", so a Stop hook re-raising
    # its collection error every turn was read as same_must_fix_twice.
    assert_not_read("orchestration", "same-must-fix-twice", [
        "Stop hook feedback: re-raising the same findings: 3 errors during collection. ImportError while loading conftest",
    ], bucket="stop_hook_loop")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-must-fix-twice", [
        "the second run of AI PR review, shouldnt re add the same suggestions as the one from the initial commit and run. Is this possible",
        "As a result the reviewers could resurface a concern that was already addressed.",
    ], bucket="same_must_fix_twice")


def test_dashscope_throttling_code_leaves_reviews_and_red_tests_of_throttle_code_alone():
    # dashscope-throttling-code used to read any "per-minute request throttling" / "RPM throttling", so a review or a
    # red test run about code implementing a throttle was read as subagent_overloaded.
    assert_not_read("orchestration", "overloaded", [
        "Verdict: NEEDS_CHANGES\nMust-fix #1: src/limiter.py: the per-minute request throttling resets its window on every call.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "overloaded", [
        "FAIL tests/test_limiter.py::test_window - 2 failing tests in the RPM throttling middleware: expected 429, got 200. Exit code 1",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "When a Bailian model hits its per-minute token throttle, omp stalls for 30 minutes. Bailian reports this throttle as HTTP `429 Throttling.AllocationQuota` using OpenAI-compatible billing wording: You exceeded your current quota, please check your plan and billing details. (type=insufficient_quota)",
    ], bucket="subagent_overloaded")


def test_errors_out_instead_of_managing_rate_leaves_red_tests_alone():
    # errors-out-instead-of-managing-rate used to read "crashes instead of handling the rate limit" in a red test
    # run about client code, which was then read as subagent_overloaded.
    assert_not_read("orchestration", "overloaded", [
        "FAIL tests/test_client.py::test_backoff: the client crashes instead of handling the rate limit (expected retry). pytest exited with code 1",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "Rate limited on 3.5. Could you manage this more gracefully please? currently just errors out instead of managing rate.",
    ], bucket="subagent_overloaded")


def test_sleeps_on_timers_leaves_reviews_and_red_tests_about_blind_sleeps_alone():
    # sleeps-on-timers-for-ci used to read any "blind sleep", so a must-fix or a red e2e test about a test that
    # uses a blind sleep was read as sentinel_wait_loop.
    assert_not_read("orchestration", "sentinel-wait", [
        "Verdict: NEEDS_CHANGES\nMust-fix #1: tests/e2e/login.spec.ts uses a blind sleep(5000) instead of waiting for the selector.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "sentinel-wait", [
        "FAIL tests/e2e/checkout.spec.ts (timeout 30000ms); the test relies on blind sleeps. Exit code 1",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "sentinel-wait", [
        "Two of five dispatched os-dev agents finished their implementation, pushed, opened the PR, and then spent the rest of their session repeatedly sleeping on background timers waiting for CI to converge.",
        "Caught a Kiro Crew agent burning time with blind `sleep` in a single session (`sleep 240`, `sleep 90`), then poll gh pr view.",
    ], bucket="sentinel_wait_loop")


def test_dev_box_idle_timeout_leaves_a_coder_agents_own_timeout_alone():
    # dev-box-idle-timeout used to take any "coder" for the Coder product, so a "Coder agent" cut off by its own
    # idle timeout (a stall) was read as stalled_machine_sleep.
    assert_not_read("orchestration", "host-stopped-under-agent", [
        "The Coder agent exceeded its idle timeout after 300s with no output. Agent stalled: no progress for 300s",
        "coder subagent hit the inactivity timeout: no progress for 600s, killed by the watchdog",
    ], bucket="stalled_no_progress")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "host-stopped-under-agent", [
        "GitHub Codespaces have an idle timeout (default 30 minutes). When a codespace times out, any running agent sessions die silently.",
        "Our Coder workspace idle timeout stopped the box and the agent session running in it died.",
    ], bucket="stalled_machine_sleep")


def test_dev_box_deadline_pauses_task_needs_a_dev_box_deadline_not_inactivity():
    # dev-box-deadline-pauses-task used to accept "inactivity" as the deadline word, so an agent stopped mid-task
    # after minutes of inactivity (the stall watchdog) was read as stalled_machine_sleep.
    assert_not_read("orchestration", "host-stopped-under-agent", [
        "Subagent stopped mid-task after 10 minutes of inactivity (stall watchdog: no progress for 600s).",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", "host-stopped-under-agent", [
        "The implementer agent paused mid-run after 15 minutes of inactivity; nothing in its report file since.",
    ], not_bucket="stalled_machine_sleep")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "host-stopped-under-agent", [
        "AI agents report status, but this wasn't extending workspace deadlines, causing tasks to pause mid-execution when there were no human connections.",
    ], bucket="stalled_machine_sleep")


def test_finished_command_zh_leaves_usage_limits_and_stop_hooks():
    # ide-agent-stuck-in-finished-command-zh used to fire whatever else the text said, so a
    # usage limit or a re-firing Stop hook beside "显示命令执行中" was read as sentinel_wait_loop.
    assert_not_read("orchestration", "notification-never-arrives", [
        "终端命令已经执行完了，界面仍显示命令执行中，随后弹出 Claude usage limit reached. Your limit will reset at 3pm (Asia/Shanghai).",
        "命令已经执行完了但一直停在命令执行中，然后显示 5-hour limit reached ∙ resets 7pm",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "notification-never-arrives", [
        "Stop hook 的测试命令已经执行完了，但界面一直显示命令执行中，每次回复都会再次触发 Stop hook",
    ], bucket="stop_hook_loop")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "notification-never-arrives", [
        "命令执行后，AI不会自动检查执行结果了，而是一直卡在命令执行中，需要点跳过才能正常继续执行。git status是不可能卡主的，terminal已经执行完了",
    ], bucket="sentinel_wait_loop")


def test_never_exiting_command_zh_leaves_limit_reached():
    # blocks-on-command-that-never-exits-zh vetoed "usage limit" but not "limit reached", so
    # Claude Code's "5-hour limit reached" after the freeze was read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "Builder 会等待命令退出才执行下一步，这就导致卡死，然后显示 5-hour limit reached ∙ resets 7pm",
    ], bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "# trae builder 无法处理不退出的程序\n比如让 trae builder 使用 gdb 对一个二进制文件进行分析，在启动 gdb 后 builder 会等待命令退出才执行下一步，这就导致卡死",
    ], bucket="stalled_no_progress")


def test_idle_spin_zh_leaves_polling_limits_overload_and_stop_hooks():
    # idle-spin-no-output-zh (空转) only vetoed spending words, so a sentinel poll, an English
    # usage limit, a 529 and a re-firing Stop hook beside 空转 were read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "子代理一直空转，反复轮询 /tmp/review-done.flag，等待一个永远不会被创建的文件，sentinel 文件从来没人写",
    ], bucket="sentinel_wait_loop")
    assert_not_read("orchestration", "stall-watchdog", [
        "Claude Code 一直空转，什么也不输出，半小时后显示 Claude usage limit reached. Your limit will reset at 3pm.",
        "会话经常陷入空转，然后 5-hour limit reached ∙ resets 7pm",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "stall-watchdog", [
        '子代理陷入空转，最后 API Error: 529 {"type":"overloaded_error","message":"Overloaded"}',
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "stall-watchdog", [
        "Stop hook 每次回复都重新触发，agent 一直空转，反复解释同一个测试环境问题",
    ], bucket="stop_hook_loop")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "# 空转\n正常使用中，经常陷入 空置等待会持续很长时间。还经常会陷入另外一个问题，空白思考。",
    ], bucket="stalled_no_progress")


def test_confirm_button_zh_leaves_limit_reached():
    # frozen-on-confirm-button-zh vetoed "usage limit" but not "limit reached", so a
    # "5-hour limit reached" shown after the click was read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "跑到一半卡在执行提示上，点允许后显示 5-hour limit reached ∙ resets 7pm",
    ], bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "现在的问题是：用户以为已经配置好了自动运行，结果 Agent 跑到一半卡在确认按钮上，几个小时后才发现任务根本没继续执行。",
    ], bucket="stalled_no_progress")


def test_egress_allowlist_in_code_under_review_is_not_env():
    # egress-proxy-refuses-host read any "egress allowlist", so a review of the product's own
    # SSRF allowlist and a failing test of it were read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "NEEDS_CHANGES\nMust-fix 1: src/net/webhook.ts sends the callback with a bare fetch() and bypasses the egress allowlist check in src/net/guard.ts, so any tenant can make the server call internal hosts (SSRF). Route it through guardedFetch().",
        "BLOCKED. The new egress network allowlist in config/proxy.yaml is parsed but never enforced: isAllowed() returns true when the list is empty. Must-fix: deny by default.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "env-version-mismatch", [
        "Verification: RED\n$ npm test -- src/net\nFAIL src/net/guard.test.ts\n  ● egress allowlist › refuses hosts that are not listed\n    Expected: 403\n    Received: 200\nTests: 1 failed, 41 passed, 42 total\nexit code 1",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "Playwright browser binaries cannot be downloaded in Claude Code on the web sessions due to missing domains in the egress proxy allowlist.",
        "Error: Download failed: server returned code 403 body 'Host not allowed'",
    ], bucket="environment_false_red")


def test_network_error_fetch_of_a_report_is_not_env():
    # install-fails-on-network-error read "failed to fetch ... due to a network error", so a
    # failed task-notification over a dropped report was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "<task-notification> status: failed. The implementer failed to fetch the final response due to a network error while writing its report; summary cut off mid-sen",
    ], bucket="notification_failed_work_done")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "It looks like Copilot agent often fails to install playwright on its own due to network error.",
    ], bucket="environment_false_red")


def test_rebutted_code_is_correct_claim_stays_red():
    # red-though-code-correct-env took any "env var" as the environment's variable, so a
    # verifier rebutting "fails even though the code is correct" was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "Verifier: npm test exited 1\nFAIL src/config.test.ts\n  ● loadConfig › reads PORT from the environment variable\n    Expected: 8080, Received: undefined\nAnon claimed the test fails even though the code is correct, but the env var is read as process.env.Port instead of PORT: a real bug.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "Cloud Agent shells run with `NO_COLOR=1` / `FORCE_COLOR=0` injected by the runtime. The four `test/lib/display.spec.ts` cases compare `display()` output against fixtures containing ANSI color codes, so they fail under `NO_COLOR` even though the code is correct.",
    ], bucket="environment_false_red")


def test_docker_side_note_in_a_real_red_stays_red():
    # checks-without-docker-daemon fired on a verifier's side note about a skipped Docker suite,
    # so a real red (assertion failures, exit 1) was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "Verification red: 2 tests failed (src/api.test.ts), 5 integration tests skipped: no Docker daemon\nexit code 1\nFAIL src/api.test.ts › POST /orders › returns 201\nExpected 201, received 500",
        'Verifier: npm test exited 1 - 3 tests failed; the compose-based suite was not run (no Docker daemon), the 3 failures are in src/parser.test.ts: Expected "a,b" Received "a;b"',
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "Previously, Moose's startup routines and test suites failed in Cursor background agents due to the absence of a running Docker daemon and related networking/permission issues.",
    ], bucket="environment_false_red")


def test_missing_authorization_in_code_stays_red():
    # red-solely-on-missing-secret read "missing auth\w*" and any missing token, so a route that
    # skips its authorization check, and a PR that deleted the token, were read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "FAILED tests/test_admin.py::test_admin_route_requires_login - the test fails solely because of missing authorization: the new /admin route skips the @require_auth decorator, so anonymous requests get 200\n1 failed, 80 passed",
    ], bucket="verification_red")
    assert_not_read("orchestration", "env-version-mismatch", [
        "Reviewer NEEDS_CHANGES: test_upload fails solely due to the missing token: this PR deleted `GH_TOKEN: ${{ secrets.GH_TOKEN }}` from .github/workflows/ci.yml. Must-fix: restore it.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "Both Copilot smoke tests fail solely on missing auth; the Claude equivalents pass",
        "Root cause: the Copilot auth secret the workflow references resolves to an empty string, so Copilot CLI refuses to start.",
    ], bucket="environment_false_red")


def test_pr_checks_failing_after_push_stay_verification_red():
    # publish-failed-after-push used to take any PR or pull request that failed "after the branch was already pushed",
    # so a PR's red checks were read as notification_failed_work_done.
    assert_not_read("orchestration", "failed-over-finished-work", [
        "The PR's checks failed after the branch was already pushed:\nFAIL src/auth.test.ts > login > rejects expired token\nTests  1 failed | 41 passed",
        "The pull request CI failed after the branch was already pushed: ruff check reported 3 errors, exit code 1.",
        "The pull request workflow failed after the branch had been already pushed: Error: 2 errors during collection",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "failed-over-finished-work", [
        "If the comment POST fails (transient API error), the step aborts here — *after* the branch was already force-pushed.",
        "A run could therefore successfully push commits to one branch, then fail PR creation against a stale planned branch.",
    ], bucket="notification_failed_work_done")


def test_nothing_posted_to_pr_needs_a_finished_agent():
    # tracker-handoff-never-posted used to read any "nothing was posted to the PR" or "PR comment posting fails",
    # so a red verifier, a Stop-hook loop and a reviewer's block were read as handback_missing.
    assert_not_read("orchestration", "handback-missing", [
        "Taki ran the tests: FAIL tests/test_api.py::test_login (exit code 1). The verifier job failed, so nothing was posted to the PR.",
    ], bucket="verification_red")
    assert_not_read("orchestration", "handback-missing", [
        "Stop hook feedback: pytest: 2 errors during collection (ModuleNotFoundError: No module named 'app'). The hook fires again every round and nothing was posted to the PR.",
    ], bucket="stop_hook_loop")
    assert_not_read("orchestration", "handback-missing", [
        "Soyo: NEEDS_CHANGES. Must fix: the migration lacks a rollback. The PR comment posting fails because the bot token is read-only.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "handback-missing", [
        "The background review finished, but get_reviews and get_comments are both empty — nothing was posted to PR 929.",
        "Claude stated the Linear task was complete, but failed to actually update the Linear issue status to Done.",
    ], bucket="handback_missing")


def test_pushed_without_pr_with_a_sentinel_wait_stays_a_fake_wait():
    # the pushed-branch-without-pr route used to decide over a sentinel wait,
    # so an agent polling a flag file nobody creates was read as handback_missing.
    assert_lands("orchestration", [
        "The agent pushed without a PR and then got stuck polling /tmp/pr-opened.flag, a sentinel file nobody ever creates.",
    ], bucket="sentinel_wait_loop")
    # positive control: the route's own wording is still read
    assert_read("orchestration", "pushed-without-pr", [
        "Opened automatically for `agent/smoke/autopr-check`, which was pushed without a pull request.",
    ], bucket="handback_missing")


def test_issue_status_after_agent_work_with_a_block_or_red_run_is_not_stale():
    # issue-status-stuck-after-agent-completed used to read any issue left blocked or in progress after the agent
    # finished, so a reviewer's block or a red verification that keeps it there was read as notification_failed_work_done.
    assert_not_read("orchestration", "stale-status-over-finished-work", [
        "The ticket is left in blocked after the agent has completed the work — Soyo's verdict is NEEDS_CHANGES, must-fix #1 missing test.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "stale-status-over-finished-work", [
        "Issue stays in in-progress after the agent finished its work; Taki's verification is red: FAIL tests/test_api.py (exit code 1).",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stale-status-over-finished-work", [
        "An issue can remain stuck in `blocked` or `in_progress` after an assigned agent has completed the work through follow-up comment-triggered runs.",
    ], bucket="notification_failed_work_done")


BAZEL = (
    "//src/test/shell/bazel:execroot_test                                     FAILED in 3 out of 3 in 1.5s\n"
    "  Stats over 3 runs: max = 1.5s, min = 0.5s, avg = 1.1s, dev = 0.5s"
)


def test_every_attempt_failed_bazel_needs_bazel_summary_line():
    # every-attempt-failed-bazel used to read any "failed in 3 out of 3", so a spawn retried on 529 was read as same_test_red_twice.
    assert_not_read("orchestration", "same-test-red-twice", [
        'Spawning the reviewer subagent failed in 3 out of 3 attempts: API Error 529 {"type":"overloaded_error"}',
        "Task(implementer) failed in 3 out of 3 attempts with 503 Service Unavailable; the agent never started.",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "same-test-red-twice", [
        "Request failed in 3 out of 3 retries: 429 Too Many Requests - you have hit your usage limit, resets at 5pm",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "same-test-red-twice", [
        "//src/test:integration_test FAILED in 3 out of 3 in 0.4s; every attempt died with 'No space left on device' on the CI runner, the test passes on a clean checkout",
    ], bucket="environment_false_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-test-red-twice", [BAZEL], bucket="same_test_red_twice")


def test_test_reruns_fail_too_leaves_runner_reds_to_environment():
    # test-reruns-fail-too used to fire on retries red only on the runner image, so this was read as same_test_red_twice.
    assert_not_read("orchestration", "same-test-red-twice", [
        "With jest.retryTimes(2) the retries fail as well because the runner image ships Node 18 which lacks structuredClone; green on Node 20",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "same-test-red-twice", [
        "pytest --reruns 3: the test is flaky and the reruns fail too, but it passes locally and only fails in the CI docker image",
        "flaky test: the retries all fail with ENOSPC: no space left on device on the runner",
    ], not_bucket="same_test_red_twice")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-test-red-twice", [
        "Our CI runs pytest with `--reruns 3` by default. In some cases, the initial test run fails and leaves some "
        "global state (e.g. DB entries) in a messed up state. This then causes the reruns to fail with a downstream error.",
    ], bucket="same_test_red_twice")


def test_handoff_rejected_leaves_ci_gates_and_review_blocks():
    # handoff-rejected used to read any gate or check that rejects the handoff, so a red CI gate was read as relay_refused.
    assert_not_read("orchestration", "relay-undeliverable", [
        "The CI gate rejects the handoff: 3 tests failed in tests/test_auth.py (exit code 1)",
        "Quality check rejects the handoff because ruff lint is red on src/app.py",
    ], bucket="verification_red")
    assert_not_read("orchestration", "relay-undeliverable", [
        "Subagent handoff rejection: the reviewer returned BLOCKED with 2 items",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "relay-undeliverable", [
        "When a post-tool reasoning decision requests a late subagent handoff but deterministic ownership validation "
        "rejects the assignment, the rejection should remain a handled routing outcome.",
        "Late subagent handoff rejection aborts the turn instead of recovering gracefully",
    ], bucket="relay_refused")


def test_output_shows_failed_build_leaves_stop_hook_loops():
    # output-shows-failed-build used to fire beside a Stop hook, so the hook's loop was read as verification_red.
    assert_not_read("orchestration", "verification-red", [
        "The terminal output shows a failed build: Stop hook error, the hook re-runs npm run build on every stop and blocks again",
    ], bucket="stop_hook_loop")
    assert_not_read("orchestration", "verification-red", [
        "The log shows a failed build, but only because the runner ran out of disk space (No space left on device)",
    ], not_bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "verification-red", [
        "Copilot regularly views a failed build as completed. Terminal output clearly shows a failed build.",
    ], bucket="verification_red")


def test_build_task_failed_exit_code_leaves_services_that_never_started():
    # build-task-failed-exit-code used to fire on a task whose database never started, so it was read as verification_red.
    assert_not_read("orchestration", "verification-red", [
        "Task test:e2e failed with exit code 1 — the postgres container never started on the runner "
        "(connect ECONNREFUSED 127.0.0.1:5432); passes locally",
    ], not_bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "verification-red", [
        "Task Build TestRunner.sln (Debug) failed with exit code 1.",
    ], bucket="verification_red")


def test_gate_rules_leave_runner_disk_reds():
    # gate-job-still-failing and changes-do-not-pass-gate used to fire on reds the runner's disk explains,
    # so "the test job is failing because the runner ran out of disk space" was read as verification_red.
    assert_not_read("orchestration", "verification-red", [
        "The test job is failing because the runner ran out of disk space; green on a clean runner",
        "The patch fails to pass the tests only on the CI runner: No space left on device while writing the coverage file",
    ], not_bucket="verification_red")
    # positive control: the rules' own wording is still read
    assert_read("orchestration", "verification-red", [
        "main's \"Lint (ruff)\" CI job is still failing after #246",
        "OpenHands consistently submits PRs that do not pass linting",
    ], bucket="verification_red")


def test_out_of_credits_not_read_from_review_or_test_report():
    # out-of-credits used to read any "stopped/cancelled due to ... credits" (the new "due to" form), so a
    # reviewer's must-fix and a red pytest about credit-stop code were read as usage_limit_mid_task.
    assert_not_read("orchestration", "usage-limit", [
        "NEEDS_CHANGES. must-fix: when the run is stopped due to lack of credits, the worker discards the partial diff instead of offering the task back for resume. Please keep the checkpoint.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "usage-limit", [
        'pytest tests/test_credits.py -q\nF.\nE   assert job.status == "cancelled due to credits"\n1 failed, 1 passed in 0.41s',
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "usage-limit", [
        "it blew through my budget within a single session in ~2 minutes, then stopped due to lack of credits.",
        "A subagent stopped for credits settles cancelled; the credit_stop type is what offers the task back for resume.",
    ], bucket="usage_limit_mid_task")


def test_cursor_resource_exhausted_not_read_when_text_says_overload_or_throttle():
    # cursor-resource-exhausted used to read any "Cursor returned resource_exhausted", so Cursor passing on a
    # provider overload or a 429 throttle was read as usage_limit_mid_task.
    assert_not_read("orchestration", "usage-limit", [
        "Cursor returned resource_exhausted: the model provider is overloaded right now, please try again in a few seconds.",
        "cursor-agent gave resource_exhausted (HTTP 429 Too Many Requests) on every subagent spawn for 10 minutes; after a retry it came back.",
        "When the Cursor provider returns resource_exhausted with 'rate limit exceeded, please retry in 20s', the agent stops instead of backing off and retrying.",
    ], bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "usage-limit", [
        "When execute a job took a long time. But cursor return resource_exhausted. The agent auto stop execution. Need user continue manually.",
        "When the Cursor Provider returns resource_exhausted, automatically run Resume once instead of terminating directly.",
    ], bucket="usage_limit_mid_task")


def test_rate_limit_429_in_parens_not_read_from_daily_quota_or_red_tests():
    # rate-limit-429-in-parens used to read any "rate limit(ed) (429)", so a per-day quota was read as
    # subagent_overloaded instead of a usage limit, and red test runs about 429 handling too.
    assert_not_read("orchestration", "overloaded", [
        "Gemini returned rate limited 429, you have used all 1500 requests per day for this key; the subagent was cut off halfway through the refactor.",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "overloaded", [
        " FAIL  src/llm/retry.test.ts\n  \u25cf retry \u203a backs off when the provider answers rate limited (429) and retries three times\n    expect(jest.fn()).toHaveBeenCalledTimes(expected)\n    Expected number of calls: 3\n    Received number of calls: 1\nTests: 1 failed, 14 passed, 15 total",
        "pytest -q tests/test_client.py\nE   httpx.HTTPStatusError: rate limited (429) for url https://api.example.com/v1/chat\nE   assert resp.status_code == 200\n1 failed, 20 passed in 2.11s",
    ], bucket="verification_red")
    assert_not_read("orchestration", "overloaded", [
        "Task failed: GitHub rate limit (429) when the verifier tried to fetch PR check runs; wait for the hourly reset.",
    ], not_bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "When the primary agent in a `--cascade` chain hits a rate limit (429) or quota exhaustion, the task immediately FAILs.",
    ], bucket="subagent_overloaded")


def test_rate_limited_by_model_api_not_read_for_other_apis_or_daily_quota():
    # rate-limited-by-model-api used to read "rate limited by the <any> API", so a Slack notifier's throttle that
    # lost the task-notification and a Docker Hub throttle under a red e2e run were read as subagent_overloaded,
    # and an OpenAI per-day allowance too.
    assert_not_read("orchestration", "overloaded", [
        "Sometimes the notifier gets rate limited by the Slack API and the task-notification never arrives, so the orchestrator thinks the subagent is still running.",
    ], bucket="handback_missing")
    assert_not_read("orchestration", "overloaded", [
        "Our e2e tests fail because we get rate limited by the Docker Hub API when pulling images; on a clean runner with a login they pass.",
    ], bucket="verification_red")
    assert_not_read("orchestration", "overloaded", [
        "We keep getting rate limited by the OpenAI API: You exceeded your current tier limit of 200 requests per day.",
    ], bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "I am using autogen for high-volume systems.  Sometimes we get rate limited using Azure OpenAI's API.  I would like to switch to a different model deployment whenever that happens.",
    ], bucket="subagent_overloaded")


def test_rate_limit_reached_retry_wanted_not_read_from_red_tests_or_plan_allowance():
    # rate-limit-reached-retry-wanted used to read "rate limit reached/hit ... retry", so a red jest run about
    # retry code was read as subagent_overloaded, and a 5-hour or monthly allowance too.
    assert_not_read("orchestration", "overloaded", [
        " FAIL  src/agent/backoff.test.ts\n  \u25cf retries when rate limit reached and waits before retrying\n    expect(received).toBe(expected)\nTests: 1 failed, 3 passed",
    ], bucket="verification_red")
    assert_not_read("orchestration", "overloaded", [
        "Rate limit hit: you've used your 5-hour allowance. Retry after 18:00 UTC. The implementer stopped with half the files edited.",
        "Rate limit reached for claude-opus in org on tokens per month. Please retry after your plan renews on the 1st.",
    ], not_bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "+1 would be nice if agent-swarm could catch the `Rate limit reached` error and pause for `x` number of seconds before trying again instead of terminating.",
    ], bucket="subagent_overloaded")


def test_spanish_hang_beside_limit_or_api_error_is_not_a_stall():
    # stuck-thinking-never-moves-on-es used to read any 'se quedó colgado' as a stall, so a hang
    # that ended in Claude Code's limit notice or an API 500 was read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "El subagente se quedó colgado a mitad de la tarea y luego mostró: You've hit your limit · resets 3pm (Europe/Madrid)",
        "El agente se quedó colgado y después: 5-hour limit reached ∙ resets 2pm",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "stall-watchdog", [
        'Se quedó colgado varios minutos y al final: API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
    ], bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "Se ha quedado pensando y escribiendo el thinking en bucle repitiendo lo mismo sin ser inteligente y parar o saltar al siguiente paso.",
    ], bucket="stalled_no_progress")


def test_portuguese_freeze_beside_limit_or_api_error_is_not_a_stall():
    # freezes-and-stops-answering-pt used to read 'trava e não responde' / 'para do nada' as a stall
    # even beside Claude Code's limit notice or an API 500, so those were read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "O Claude Code trava e não responde e depois aparece: You've hit your limit · resets 3pm",
        "O agente para do nada e mostra 5-hour limit reached ∙ resets 2pm",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "stall-watchdog", [
        'O agente para do nada: API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
    ], bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "A todo momento trava e nao responde, para do nada, depois que implementaram a limitação do sonet ficou muito ruim",
    ], bucket="stalled_no_progress")


def test_japanese_declared_then_ended_beside_limit_notice_is_not_a_stall():
    # declared-action-then-session-ended-ja used to fire beside Claude Code's English limit notice,
    # so a session ended by 'You've hit your limit' was read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "Codex は作業を宣言した後、何も実行せずに終了しました。You've hit your limit · resets 3pm",
    ], bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "# Codex: 実行を宣言した後、外部操作を行わずにセッションが終了する",
    ], bucket="stalled_no_progress")


def test_nothing_resumes_beside_session_limit_or_lost_handback_is_not_a_stall():
    # marked-done-while-work-open-nothing-resumes used to read 'nothing picks the work back up' /
    # 'nichts nimmt die Arbeit wieder auf' as a stall even when a session limit or a lost handback
    # was the cause, so those were read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "The agent hit its session limit mid-task and nothing picks the work back up after the reset.",
        "Der Agent hat sein Sitzungslimit erreicht (You've hit your limit · resets 3pm); nichts nimmt die Arbeit wieder auf.",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "stall-watchdog", [
        "The child finished and committed, but its handback message never arrived, so nothing picks the work back up.",
    ], bucket="handback_missing")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "Der Watcher führt ausdrücklich nur kind=task aus. Nichts nimmt die Arbeit wieder auf.",
        "Rückfrage während eines Tasks wird als 'done' quittiert — Arbeit gilt als erledigt, obwohl sie offen ist",
    ], bucket="stalled_no_progress")


def test_review_bot_blocks_merge_stands_down_for_red_tests_and_reviewers_that_never_ran():
    # review-bot-blocks-merge used to read any "<bot> review blocks merge", so a red test run
    # mentioned beside it was read as review_blocked (decided before verification_red).
    assert_not_read("orchestration", "review-blocking", [
        "AI review check blocks merge because CI is red: FAILED tests/test_api.py::test_create_user - AssertionError: assert 500 == 201. Error: Process completed with exit code 1.",
        "Automated review blocks merging until the pipeline is green; right now `npm test` exits 1 with 3 failing tests in src/parser.test.ts.",
    ], bucket="verification_red")
    # ... and a review job that never ran (CLI not installed, secret not set) as a review verdict to relay.
    assert_not_read("orchestration", "review-blocking", [
        "The Gemini code review job still blocks the merge: the gemini CLI isn't installed on the runner, so gemini_review reports not_exec and the required gate fails. codex PASS.",
        "The automated Copilot review currently blocks the Mergeable Check on every fork PR: the job fails with `Error: OPENAI_API_KEY is not set` because secrets are not passed to forks, so it never reviews anything.",
    ], not_bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "review-blocking", [
        "A failed `Code Review` job (automated Copilot review) currently blocks the `Mergeable Check` status, e.g. https://github.com/ClickHouse/ClickHouse/pull/104679.",
    ], bucket="review_blocked")


def test_severity_findings_block_merges_stands_down_for_clean_reviews_and_policy_lines():
    # severity-findings-block-merges used to read "<severity> findings that block the merge" after
    # "no"/"only", so a clean review or a policy line beside a red verifier was read as review_blocked.
    assert_not_read("orchestration", "review-blocking", [
        "Review: APPROVED, no P0 or P1 findings that block the merge.\nVerification: FAIL. `pytest -q` exit code 1: FAILED tests/test_dates.py::test_parse_iso - AssertionError: assert None == datetime(2024, 1, 1)",
        "Codex review found no critical findings that block merging. The verifier then ran `npm test`: 2 failing tests in src/cart.test.ts, exit code 1.",
        "Only P0 findings that block merges are listed here; the P2 notes are advisory. Verification is red: `go test ./...` FAIL github.com/acme/api/handlers 0.412s",
    ], bucket="verification_red")
    assert_not_read("orchestration", "review-blocking", [
        "Feature request: add a config option so that only critical findings that block merges are posted as review comments; lower severities should go to the summary.",
    ], bucket="unknown")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "review-blocking", [
        "# fix(securityaudit): auditor instructions have no scope; product decisions the issue made are reported as p2 findings and block merges",
    ], bucket="review_blocked")


def test_reviewer_cannot_run_is_not_a_human_review_not_yet_given():
    # review-gate-reviewer-cannot-run used to read "there is no <anyone> review of <sha> ... gate",
    # so a required human review not yet given was read as environment_false_red.
    assert_not_read("orchestration", "clean-env-green", [
        "There is no human review of `9c1e2d4f` yet, so the required-review gate blocks the merge; CI itself is green.",
    ], bucket="unknown")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "clean-env-green", [
        "The gate is **correct to fail**: there genuinely is no Greptile review of `bd8c9a0f`, and a gate timeout is a refusal rather than a flake.",
    ], bucket="environment_false_red")


def test_plan_tier_ci_red_stands_down_when_tests_in_the_same_log_are_red():
    # review-tool-plan-tier-ci-red vetoed only "assertionerror", "tests failed" and "failing test",
    # so a CI log with pytest's FAILED line or a collection error beside the Sourcery plan
    # message was read as environment_false_red.
    assert_not_read("orchestration", "clean-env-green", [
        "Lint and tests on CI:\nFAILED tests/test_api.py::test_login - KeyError: 'token'\n1 failed, 57 passed in 3.21s\nThen the sourcery step: The Sourcery CLI is not available with this tier of Sourcery.\nError: Process completed with exit code 1.",
        "Run sourcery review --check .\nThe Sourcery CLI is not available with this tier of Sourcery.\nError: Process completed with exit code 1.\nRun pytest\nE   ModuleNotFoundError: No module named 'app.settings'\nERROR tests/test_app.py - 1 error during collection\nError: Process completed with exit code 2.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "clean-env-green", [
        "During github actions we get the following error:\nThe Sourcery CLI is not available with this tier of Sourcery.\nPlease upgrade at https://sourcery.ai/pricing/\nError: Process completed with exit code 1.",
    ], bucket="environment_false_red")


def test_short_screen_lock_or_other_cause_is_not_machine_sleep():
    # frozen-after-long-screen-lock used to accept any lock length ("a few", "a while", any digit) and no other
    # bucket's words, so a few-minute lock beside a watchdog stall or an overload was read as stalled_machine_sleep.
    assert_not_read("orchestration", "machine-sleep", [
        "The Mac was locked for a few minutes while the subagent ran `npm run build` in the foreground with no output; it got stuck and then: Agent stalled: no progress for 600s",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", "machine-sleep", [
        'My screen was locked for 5 minutes and when I came back the reviewer subagent was stuck: API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "machine-sleep", [
        "Laptop was locked for about an hour during the run. When I unlocked it, the session was stuck: You've hit your session limit · resets 5pm",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "machine-sleep", [
        "The screen was locked for 2 minutes; the implementer refused the relayed must-fix, saying it was a coordinator message without user authorisation, and stays stuck even after I confirmed.",
    ], bucket="relay_refused")
    assert_not_read("orchestration", "machine-sleep", [
        "The machine was locked for a few minutes; the reviewer task-notification arrived with status: completed saying the report was delivered as a message, but the message never appeared and the orchestrator is stuck waiting.",
    ], bucket="handback_missing")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "machine-sleep", [
        "When running a long task in opencode on macOS, if the system is locked for an extended period (e.g., about 1 hour), the session becomes unresponsive after unlocking.",
        "opencode session freezes after macOS lock screen while task remains In Progress",
        "The laptop was locked for 3 hours and the agent run was frozen when I came back.",
    ], bucket="stalled_machine_sleep")


def test_zh_interrupted_work_with_failed_notification_is_not_a_stall():
    # interrupted-work-not-resumed-zh used to ignore a failed task notification and a session cap (上限),
    # so a failed notification over finished commits was read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "任务通知显示 status: failed，中断的任务没有恢复，但 git log 显示提交已经完成。",
    ], bucket="notification_failed_work_done")
    assert_not_read("orchestration", "stall-watchdog", [
        "达到会话上限后中断的任务不会自动恢复，提示 5 小时后重置。",
        "实现者拒绝了 SendMessage 转发的 must-fix，认为这是协调者消息，中断的任务无法继续。",
    ], not_bucket="stalled_no_progress")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "daemon 重启后中断的 agent 任务不会自动恢复",
        "agent 正在 running 时重启 daemon，重启后 agent 进入 waiting 状态，未继续原工作，直到 operator 明确提示才恢复。",
    ], bucket="stalled_no_progress")


def test_verifier_or_linter_repeating_after_review_is_not_same_must_fix():
    # review-continues-same-findings used to accept any subject near the word review, so a verifier or linter
    # that went on reporting the same problems after the review was read as same_must_fix_twice.
    assert_not_read("orchestration", "same-must-fix-twice", [
        "Anon pushed the fix, but Taki continues to report the same problems even after the review was APPROVED: `npm test` exits 1 on test/auth.spec.ts.",
        "Since the code review merged, the linter continues to report the same issues: ruff E501 in src/app.py, exit code 1.",
        "After review, CI continues to report the same problems in the type check: mypy error: Incompatible return value type, exit 1.",
    ], not_bucket="same_must_fix_twice")
    assert_not_read("orchestration", "same-must-fix-twice", [
        "Review bot: the implementer refused the relayed must-fix as a coordinator message, so the reviewer continues to raise the same concerns.",
    ], bucket="relay_refused")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-must-fix-twice", [
        "when they have an agent working on fixing copilot review feedback, Peel continues to report the same issues in its own review.",
        "The reviewer continues to flag the same issues after the fix was merged.",
    ], bucket="same_must_fix_twice")


def test_old_code_restored_by_rewind_or_restart_is_not_same_test_red():
    # fix-returns-original-broken-code used to read anyone going back to the old code and any restore of it,
    # so a checkpoint rewind, an overload restart or a stalled resume was read as same_test_red_twice.
    assert_not_read("orchestration", "same-test-red-twice", [
        "After the 529 Overloaded error the subagent restarted and gave back the original broken code instead of its fix.",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "same-test-red-twice", [
        "The subagent stalled mid-task; when I resumed it with SendMessage it went back to the original broken implementation and started the fix from scratch.",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", "same-test-red-twice", [
        "I pressed Esc twice to rewind and the checkpoint restore brought back the original broken code, undoing the fix Claude had just made.",
        "I went back to the original broken code to bisect the regression myself; the fix the agent proposed turned out to be fine, the failure came from the CI runner's Python 3.12.",
    ], not_bucket="same_test_red_twice")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-test-red-twice", [
        "Asking again to fix it with the error is giving back the initial bugged code (before the first correction)",
        "Every time I ask it to fix the error it brings back the original broken code.",
    ], bucket="same_test_red_twice")


def test_recurring_timeout_limit_or_env_red_is_not_same_test_red():
    # repeated-on-same-bug used to read any "failed N times on the same error" with a fix word, so a start-up
    # timeout, a session limit or a Node-only red was read as same_test_red_twice.
    assert_not_read("orchestration", "same-test-red-twice", [
        "The Task failed twice on the same error: Request timed out. Retrying did not help and there is nothing to fix in the prompt.",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "same-test-red-twice", [
        "The subagent failed twice on the same error: You've hit your session limit · resets 5pm. It had applied half the fix.",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "same-test-red-twice", [
        "test_parse_date failed three times on the same test after each patch; it passes in a fresh container and on Node 20, only the Node 22 runner with TZ unset is red.",
    ], bucket="environment_false_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-test-red-twice", [
        "Claude applied another fix and again told the user to try it. This happened FOUR consecutive times on the same scroll bug.",
        "Multiple round-trips on the same bug — a fix is applied, tested, found broken, patched again.",
    ], bucket="same_test_red_twice")


def test_cascade_cut_by_limit_or_env_red_is_not_same_test_red():
    # fix-fail-new-fix-cascade used to ignore a clean environment and a session limit,
    # so an environment-only red or a limit that cut the cycle off was read as same_test_red_twice.
    assert_not_read("orchestration", "same-test-red-twice", [
        "Claude spent an hour in a fix-fail-new-fix loop on test_tz, but the test is green in a clean environment: the runner's Node 22 changed Intl date formatting.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "same-test-red-twice", [
        "The subagent was in the middle of a fix-fail-propose-new-fix cycle when it hit your session limit · resets 5pm; half the changes are in the working tree.",
    ], bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "same-test-red-twice", [
        "The fix-fail-propose-new-fix cascade pattern persists even under a strict conformance harness.",
    ], bucket="same_test_red_twice")


def test_peer_pane_refusal_quoted_in_a_test_report_or_review_is_not_a_refused_relay():
    # peer-pane-send-refused used to veto only '## verdict', must-fix, AssertionError and 'failed tests/',
    # so a Vitest/Jest report or a CHANGES_NEEDED verdict about the pane-probe code was read as relay_refused.
    assert_not_read("orchestration", "relay-refused", [
        "FAIL  src/send.test.ts > agent send > refuses a shell pane\n  expect(received).toMatch(expected)\n"
        "  Expected pattern: /targetNotAgentPane/\n  Received string: \"ok\"\nTests: 1 failed, 41 passed",
        "npm test exited with code 1\n  \u25cf maw hey \u203a surfaces the error when tmux refuses send-keys\n    expect(received).toThrow()",
    ], bucket="verification_red")
    assert_not_read("orchestration", "relay-refused", [
        "VERDICT: CHANGES_NEEDED\nsend.ts: the targetNotAgentPane branch swallows the probe error; add a test that drives it.",
        "NEEDS_CHANGES\n1. pane.go: when tmux refuses send-keys in copy-mode we retry forever; bail out after 3 tries.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "relay-refused", [
        "targetNotAgentPane: the target's pane is not running its agent right now (observed: unknown)",
        "The underlying `tmux send-keys -t <target> ...` returns exit 1 because tmux refuses send-keys while the target pane is in copy-mode.",
    ], bucket="relay_refused")


def test_agent_mail_contact_words_in_a_review_verdict_are_not_a_refused_relay():
    # agent-mail-contact-blocked used to veto only '## verdict', must-fix, AssertionError and 'failed tests/',
    # so a NEEDS_CHANGES verdict about send_message's contact handling was read as relay_refused.
    assert_not_read("orchestration", "relay-refused", [
        "NEEDS_CHANGES\n1. mail.py send_message(): with auto_contact_if_blocked=true the payload is dropped; queue it until approval.",
        "VERDICT: CHANGES_NEEDED\nsend_message() silently drops the body when the contact link isn't approved; add a test.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "relay-refused", [
        "`send_message(auto_contact_if_blocked=true)` reads as \"if the contact link isn't approved, auto-establish it AND queue the message\". The underlying message is dropped.",
    ], bucket="relay_refused")


def test_a_spawn_that_fails_or_a_red_run_is_not_a_child_ignoring_its_task():
    # child-ignores-delegated-task used to read any "cannot spawn/invoke/call subagents ... cannot continue",
    # so a spawn refused at a concurrency cap was read as relay_refused instead of a start-up failure,
    # and a Stop hook's red run that named an ignored delegated instruction was read as relay_refused.
    assert_not_read("orchestration", "relay-refused", [
        "Error: cannot spawn subagents: maximum concurrent agents (10) reached. Cannot continue.",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "relay-refused", [
        "Stop hook feedback: npm test failed. The worker ignored the delegated instructions to add tests; FAIL src/a.test.ts",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "relay-refused", [
        "The subagent tries to invoke subagents and realizes it can't use subagents and sometimes \"I can't use subagents in this environment so I can't continue\"",
        "Native subagents frequently ignore concrete delegated tasks and respond as if only AGENTS.md were received.",
    ], bucket="relay_refused")


def test_goal_continuation_words_beside_a_cap_a_hang_a_limit_an_overload_or_a_red_run_decide_elsewhere():
    # goal-auto-continuation-loop used to fire beside a turn cap, a hang, a session limit, a server error,
    # a red test report or a CHANGES_REQUESTED verdict, and its route comes before all of theirs,
    # so e.g. "The goal's automatic continuation loop stopped after max_turns (50) was reached" was read as stop_hook_loop.
    assert_not_read("orchestration", "hook-refires-forever", [
        "The goal's automatic continuation loop stopped after max_turns (50) was reached without finishing the task.",
        "The automatic continuation loop hung for 40 minutes with no output; the agent never resumed.",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", "hook-refires-forever", [
        "You've hit your session limit \u00b7 resets 11pm (Europe/Berlin). The auto-continuation loop kept firing after that.",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "hook-refires-forever", [
        "API Error: 500 Internal Server Error. The agent repeatedly retried the automatic continuation and then gave up.",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "hook-refires-forever", [
        "FAIL src/goal/continuation.test.ts > stops the automatic continuation loop when the goal is paused\n"
        "  expect(received).toBe(expected)\nTests: 1 failed, 12 passed",
    ], bucket="verification_red")
    assert_not_read("orchestration", "hook-refires-forever", [
        "NEEDS_CHANGES\n1. goal.rs: the automatic continuation loop has no upper bound; cap it at 3 consecutive continuations.",
        "Review: CHANGES_REQUESTED - repeated auto continuation is never deduplicated in scheduler.ts; add a guard and a test.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "hook-refires-forever", [
        "A persistent `/goal` entered an effectively unbounded automatic-continuation loop after a deterministic hook failure.",
        "Codex Desktop repeatedly injects duplicate goal continuations without user input",
    ], bucket="stop_hook_loop")


def test_a_still_active_guard_prompt_beside_a_limit_an_overload_or_a_real_red_decides_elsewhere():
    # still-active-continue-before-stopping used to fire beside a usage limit, a 529 or a red test report,
    # and its route comes first, so a Ralph loop prompt followed by "Claude usage limit reached" was read as stop_hook_loop.
    assert_not_read("orchestration", "hook-refires-forever", [
        "[RALPH LOOP] Ralph loop is still active (iteration 3/100); continue working on the task before stopping.\n"
        "Claude usage limit reached. Your limit will reset at 5pm (America/New_York).",
        "Autopilot is still active; continue the task before stopping.\nYou've hit your limit \u00b7 resets 3pm",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "hook-refires-forever", [
        "OMX ralph mode is still active; continue working on the task before stopping. API Error: 529 {\"type\":\"overloaded_error\"}",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "hook-refires-forever", [
        "Stop hook feedback: ultrawork mode is still active; continue the task and make the failing tests pass before stopping.\n"
        " FAIL src/a.test.ts > parses dates\n Tests: 1 failed, 20 passed",
        "Stop hook blocked: OMX autopilot is still active (phase: verify); continue the task and fix the red test before stopping.\n"
        "=== FAILURES ===\nFAILED tests/test_api.py::test_login - assert 401 == 200",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "hook-refires-forever", [
        "task finishes\nomx replies for no reason : \"OMX autopilot is still active (phase: ralplan); continue the task and gather fresh verification evidence before stopping.\"",
    ], bucket="stop_hook_loop")


def test_a_review_verdict_about_a_hook_with_a_stop_trigger_is_a_review_block():
    # hook-with-stop-trigger had no veto, so a reviewer's NEEDS_CHANGES or BLOCKED verdict about
    # "the hook with a Stop trigger" was read as stop_hook_loop.
    assert_not_read("orchestration", "stop-hook", [
        "Configured a hook on the Stop trigger to run the linter. Review verdict: NEEDS_CHANGES - the hook script has no timeout.",
        "NEEDS_CHANGES\n1. hooks.json: the hook with a Stop trigger runs the full e2e suite on every turn; scope it to the changed package.",
        "## Verdict\nBLOCKED\n## Must-fix\n#1 the hook with a Stop trigger has no timeout",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stop-hook", [
        "When using a Agent Hook with a Stop trigger, you will have cases where Kiro asks you questions but the agent hook tiggers and then Kiro takes that as a answer and continues",
    ], bucket="stop_hook_loop")


def test_a_reset_notice_quoted_in_a_test_report_or_review_is_not_a_usage_limit():
    # limit-reset-hours-away had no veto, so a red test asserting the notice's text, or a verdict
    # about code that hard-codes it, was read as usage_limit_mid_task.
    assert_not_read("orchestration", "usage-limit", [
        "FAIL src/limits.test.ts > renders the reset notice\n  Expected: \"Please wait 3 hours for your limit to reset\"\n"
        "  Received: \"Please wait 3 minutes for your limit to reset\"",
    ], bucket="verification_red")
    assert_not_read("orchestration", "usage-limit", [
        "NEEDS_CHANGES: banner.tsx hard-codes 'wait 5 hours for your limit to reset'; read the reset time from the response.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "usage-limit", [
        "You've hit your global rate limit. Please upgrade your plan or wait 3 hours 43 minutes for your limit to reset. Learn More\n\nTry Again",
    ], bucket="usage_limit_mid_task")


def test_secret_rule_leaves_lexer_tokens_and_singular_missing_secret_to_the_red_gate():
    # secret-never-reaches-test-env used to take any "no/empty <word> token ... so the tests
    # cannot pass" and any "fails due to missing secret <noun>", so a lexer bug or a dropped
    # HMAC secret argument in a verifier's red report was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "The lexer emits no EOF token, so the parser tests cannot pass: parse() loops past the end of input.\n3 failed, 41 passed",
        "Verifier: test_webhook_signature fails due to missing secret in the HMAC call; handler.py passes an empty key since a1b2c3.\n1 failed, 12 passed",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "Integration harness never provisions a Copilot credential, so the live Copilot tests cannot pass",
        "GitHub copilot agent instrumentation fails to export due to missing secrets",
        "The harness starts the server without an API token, so the live tests cannot pass",
    ], bucket="environment_false_red")


def test_environment_leak_rule_needs_a_statement_and_a_test_subject():
    # environment-leak-or-gap-not-code used to take "environment problem, not a bug" even
    # when asked and answered no, and any "fails on every host where the config is set",
    # so a verifier's red report on a code defect was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "Is this an environmental problem, not a bug? No: the verifier re-ran in a fresh venv and tests/test_cache.py::test_ttl still fails (1 failed, 12 passed).",
        "The CLI fails on every host where the config is set: parse_config() crashes on the new `retries` key (KeyError). 3 failed, 20 passed",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "Provisioning a live Postgres+pgvector is an environment concern, not a code defect",
        "**`make test` failed on any machine with a Nebius profile selected.**",
    ], bucket="environment_false_red")


SIGNAL = "completion-not-propagated"


def test_wait_never_sees_finished_child_needs_a_child_that_finished():
    # wait-never-sees-finished-child used to take "finished" inside "had not finished", and a
    # test report, an overload or a red-only-on-Windows run beside its wait words, as a child
    # that did finish, so a stalled child was read as handback_missing.
    assert_not_read("orchestration", SIGNAL, [
        "The implementer was never detected as done: it had not finished its task. Its last tool call was a foreground `pytest -x` that printed no output for 45 minutes before the orchestrator killed it.",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", SIGNAL, [
        "FAILED tests/test_wait.py::test_wait_resolves_on_done - the agent finished its turn but the wait never resolved within 5s\n==== 1 failed in 5.21s ====",
        "× waitForIdle › resolves once the agent finished its turn but the wait never returned (timeout 5000ms)\nTest Files  1 failed (1)",
    ], bucket="verification_red")
    assert_not_read("orchestration", SIGNAL, [
        'The subagent never finished its task — API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} — so the wait never sees completion.',
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", SIGNAL, [
        "Tests are red only on Windows: the wait path never detects idle because the ConPTY output uses CRLF; on Linux in a clean env the same suite is green. The child finished normally.",
    ], bucket="environment_false_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SIGNAL, [
        "Codex finished its turn and `herdr agent list` showed the pane's `agent_status` as `done`, but the wait never resolved — it ran the full 15 minutes and exited 1 with `timed out waiting for agent status change`.",
        "On codex-cli 0.146.0, the **sync wait path never observes COMPLETED**: `cao session send <session> \"msg\"` blocks until timeout even though codex answered within seconds.",
        "Support roles spawned as tmux sessions are never detected as completed by the daemon. They run their one-shot task, then sit idle at the Claude CLI prompt.",
    ], bucket="handback_missing")


def test_report_never_written_needs_the_finished_analysis():
    # report-never-written-to-awaited-file used to count "review" in "reviewer" as a finished
    # review, so a reviewer that never wrote its file because of a usage limit, a 529 at start-up
    # or a refused relay was read as handback_missing.
    assert_not_read("orchestration", SIGNAL, [
        "The security reviewer never invoked the Write tool: its pane shows `You've hit your limit · resets 4pm (Europe/Berlin)` after it finished reading half the diff, and the coordinator sat waiting on the review file.",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", SIGNAL, [
        'The correctness reviewer never called the Write tool — its Task failed with `API Error: 529 {"type":"overloaded_error","message":"Overloaded"}` before the review started — and the coordinator sits waiting for the review file.',
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", SIGNAL, [
        "The reviewer never used the Write tool because it refused the relayed instruction as not authorised by the user; the coordinator waits for the review file, the analysis never completed.",
    ], bucket="relay_refused")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SIGNAL, [
        "Observed today (PAN-1055): the correctness reviewer completed its full analysis (3 blockers, 209KB transcript in `correctness-claude.log`, full review visible in the pane) but never invoked the Write tool to save `correctness.md` to the expected output path. The coordinator then sat waiting on that file indefinitely. Synthesis could not dispatch.",
    ], bucket="handback_missing")


def test_finished_but_result_not_received_zh_not_on_unfinished_task():
    # finished-but-result-not-received-zh used to read 执行完 inside 没执行完 / 执行完一半 (not or half
    # finished), and to pass over an overload, a usage limit or a test failure quoted in English,
    # so a task cut off before its end was read as handback_missing.
    assert_not_read("orchestration", SIGNAL, [
        "子代理的任务还没执行完，CLI就一直显示等待状态，收不到结果，终端也没有任何输出。",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", SIGNAL, [
        "Codex任务没有执行完，CLI一直在等待，收不到结果；日志里最后一行是 API Error: 529 Overloaded。",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", SIGNAL, [
        "任务执行完一半，CLI一直显示等待，收不到结果。日志：Claude AI usage limit reached|1733400000",
        "任务执行完了，但 CLI 一直显示等待状态，收不到结果。后来看日志是 You've hit your limit · resets 3pm",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", SIGNAL, [
        "测试执行完了，终端一直在等待，收不到结果。FAILED tests/test_api.py::test_login - AssertionError",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SIGNAL, [
        "# Win11 Codex任务执行完了，CLI一直显示等待状态，收不到结果\n1. messageTimer触发后只发送SIGTERM信号，但不等待进程退出",
    ], bucket="handback_missing")


def test_ends_turn_to_wait_not_over_the_reports_it_waited_for():
    # ends-turn-to-wait used to fire on the wait line even when the verifier's red run, the
    # reviewer's verdict or a failed task-notification followed it, so those were read as
    # sentinel_wait_loop.
    wait = "I'll wait for the agents to report back.\n"
    assert_not_read("orchestration", "sentinel-wait", [
        wait + "Taki (verifier): FAILED tests/test_api.py::test_login - assert 401 == 200\n==== 1 failed in 0.42s ====",
        "I'll wait for the background agents to report back.\nVerifier: `npm test` — 2 failing\n  1) auth › rejects expired token: Error: expected 401, got 200",
        "The orchestrator ends its turn to wait; then Taki reports: FAIL src/auth.test.ts (1 failed test), exit 1.",
    ], bucket="verification_red")
    assert_not_read("orchestration", "sentinel-wait", [
        "I'll wait for the sub-agents to report back.\n🟡 爽世：\n## Verdict\nBLOCKED\n## Must fix\n#1 `src/auth.py` login(): expired-token branch untested.",
        wait + "不通過。沒有測試。",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "sentinel-wait", [
        "I'll wait for the background agents to report back.\n<task-notification>\n<status>failed</status>\n<summary>Agent \"implement auth\" failed: API connection dropped while writing the final report</summary>\n</task-notification>\ngit log shows 3 commits: the work is done.",
    ], bucket="notification_failed_work_done")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "sentinel-wait", [
        "Three of the last four `/review` runs on #485 failed with \"the review stated no verdict\". The execution logs show the reviewer's final message each time: \"I'll wait for the agents and the test suite to report back\" / \"Both bug-scan agents are running. Waiting for their results.\" — it spawns Task agents, ends its turn to wait, and that dangling message becomes the run's result with no `REVIEW_VERDICT` line for the gate to parse.",
    ], bucket="sentinel_wait_loop")


SIG = "channel-notification-failed"


REV = "review-blocking"


def test_slack_api_error_needs_a_post_or_notification():
    # slack-api-error-on-post used to read any Slack Web API error code, so a Slack bot
    # that failed at start-up was read as notification_failed_work_done.
    assert_not_read("orchestration", SIG, [
        "[slack-bot] Starting Bolt app in socket mode...\nError: An API error occurred: invalid_auth\n"
        "    at platformErrorFromResult (node_modules/@slack/web-api/dist/errors.js:62:33)\n"
        "The agent never started; no tool calls were made.",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", SIG, [
        "Subagent (slack-triage) fetching conversations.history for #incidents to summarise the outage\n"
        "Error: An API error occurred: not_in_channel\nTriage aborted before any summary was written.",
    ], not_bucket="notification_failed_work_done")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SIG, [
        "# [INFRA] Make the slack notifications work again\nWe usually received a slack message when the npm package is available.\n"
        "Run slackapi/slack-github-action@v1.24.0\nError: Error: An API error occurred: invalid_auth",
    ], bucket="notification_failed_work_done")


def test_channel_delivery_incomplete_is_not_a_completion():
    # channel-delivery-failed-after-success used to take "incomplete" for its completion word,
    # so a run cut off mid-task was read as notification_failed_work_done.
    assert_not_read("orchestration", SIG, [
        "Slack send failed: channel_not_found. Agent stopped at step 3/7, run incomplete; nothing was committed.",
    ], not_bucket="notification_failed_work_done")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SIG, [
        "When a cron job completes successfully but Telegram delivery fails (e.g., 502 Bad Gateway), "
        "the job's overall status is reported as `error`.",
    ], bucket="notification_failed_work_done")


def test_run_failed_because_of_notification_needs_the_notice_itself():
    # run-failed-because-of-notification used to read "fail on/for <email|webhook ...>" followed by
    # any noun, so failures in email-handling code were read as notification_failed_work_done.
    assert_not_read("orchestration", SIG, [
        "The nightly jobs fail on the email parser since the refactor: ValueError: invalid header in message 42",
        "Tasks fail for email addresses with a plus sign: the signup worker crashes with KeyError 'local_part'.",
        "Jobs fail due to webhook timeout: the deploy webhook never answered, so the release never reached production.",
    ], not_bucket="notification_failed_work_done")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SIG, [
        "This PR ensures the pipeline run does not fail because of notification\nWay better than what we had.",
        "having a pipeline run failing for a mail error feels awkward.",
    ], bucket="notification_failed_work_done")


def test_smtp_error_on_product_email_is_not_a_notification():
    # smtp-error-sending-notification used to read any email send, so a broken signup email
    # (the product's own work) was read as notification_failed_work_done.
    assert_not_read("orchestration", SIG, [
        "Users never receive the signup confirmation: SMTP error when trying to send the confirmation email "
        "(535 5.7.8 Authentication credentials invalid). The signup flow is broken.",
    ], not_bucket="notification_failed_work_done")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SIG, [
        "# Error when sending partner email\nAn SMTP error occurred from the notification pipeline when attempting to send the partner email.",
    ], bucket="notification_failed_work_done")


def test_tool_permission_approvals_are_not_a_review():
    # approval-the-author-cannot-give used to read tool-permission approvals an agent cannot give,
    # so a run waiting forever on a confirmation prompt was read as review_blocked.
    assert_not_read("orchestration", REV, [
        "The tool requires approvals the agent cannot provide in non-interactive mode, so it waits forever on the confirmation prompt.",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", REV, [
        "In auto mode the subagent cannot give approvals; its Write call was denied and it returned without editing the file.",
    ], not_bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", REV, [
        "## BLOCKED — branch protection requires an approving review the worker cannot self-provide",
        "This seat cannot supply the approval (agent seats never approve governed PRs) and will not re-queue.",
        "gh pr review 18972 --approve\n→ failed to create review: GraphQL: Review Can not approve your own pull request (addPullRequestReview)",
    ], bucket="review_blocked")


def test_code_owner_review_beside_a_red_gate():
    # code-owner-or-extra-approval-outstanding used to fire whatever the rest said, so a verifier's
    # red typecheck with an already approved code-owner review was read as review_blocked.
    assert_not_read("orchestration", REV, [
        "Verifier: FAIL. npm run typecheck exited 2: src/api.ts(14,3): error TS2345: Argument of type 'string' is not "
        "assignable to parameter of type 'number'. Required code owner review already approved by @web-team.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", REV, [
        "Every agent gate this PR owes is already landed at head and CI is green. What remains is a control-plane "
        "approval outstanding: the required code-owner review.",
    ], bucket="review_blocked")


def test_needs_review_label_beside_a_red_build():
    # review-label-or-review-pass-missing-for-queue used to fire on any mention of a needs-review label,
    # so a red build whose label was added or removed was read as review_blocked.
    assert_not_read("orchestration", REV, [
        "Bot added the needs-review label. Build failed: error TS2304: Cannot find name 'Notifier'.",
        "Verifier: FAIL. npm run typecheck exited 2: src/api.ts(14,3): error TS2345: Argument of type 'string' is not "
        "assignable to parameter of type 'number'. The needs-review label was removed after approval.",
    ], bucket="verification_red")
    assert_not_read("orchestration", REV, [
        "评审已通过，但 CI 构建失败，禁止合并：编译错误 error TS2307。",
    ], not_bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", REV, [
        "This PR entered the merge queue while the `needs:contract-review` label is on **this PR**.",
        "「双肢命中任一 ⇒ 无席内条款②复核 PASS 在案 ⛔ 禁止入队」",
    ], bucket="review_blocked")


def test_changes_recommended_in_a_verifier_report():
    # agent-ignores-requested-changes used to read any "Changes recommended —", so a verifier's red
    # test report was read as review_blocked.
    assert_not_read("orchestration", REV, [
        "Verifier report: Changes recommended — the migration test fails: FAIL tests/migrate.spec.ts > drops column (expected 0, received 3)",
    ], bucket="verification_red")
    assert_not_read("orchestration", REV, [
        "## Verdict\nPASS\nChanges recommended — none blocking; optional nit on naming in utils.py.",
    ], not_bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", REV, [
        "a COMMENTED review whose body read \"🟡 Changes recommended — The new ADR is future-dated, which should be corrected.\"",
        "# Agent doesn't respond when I request changes on a PR\nCopilot was unresponsive to my request.",
    ], bucket="review_blocked")


def test_revise_verdict_needs_a_nonzero_open_count():
    # revise-verdict-with-findings used to count any number of findings, zero and resolved rounds
    # included, so a passing review next to a red verification run was read as review_blocked.
    assert_not_read("orchestration", "review-blocking", [
        "Review: APPROVE, 0 unaddressed P1 findings.\nVerification: FAIL: pytest exited with code 1, 3 failed in tests/test_auth.py",
        "Code review R003: APPROVE (0 unaddressed P0 findings). Then npm test went red: 2 failing tests in auth.test.ts, exit code 1.",
        "R001: **REVISE** (2× P1), both fixed in a3f9c1; R002: **APPROVE**. Verification step: `npm run typecheck` exit code 2, 4 errors in src/api.ts.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "review-blocking", [
        "| `R002-code-step1.md` | **REVISE** (5× P1) | `code Step 1: APPROVE` |",
        "the worker advanced to Step 2 and would have finalized the task with 5 unaddressed P1 findings",
    ], bucket="review_blocked")


def test_daily_quota_needs_the_429_beside_the_cap_or_the_violated_quota_id():
    # daily-quota-spent used to read a 429 and a daily cap across a comma, and any RequestsPerDay
    # quota name beside a 429, so per-minute throttles that mention the daily cap were read as
    # usage_limit_mid_task.
    assert_not_read("orchestration", "usage-limit", [
        "Subagent failed to start: 429, daily cap not the issue (12/500). Gemini capacity is overloaded right now.",
        "Set a quota override for GenerateRequestsPerDayPerProjectPerModel to 5000, but the worker still gets 429 Too Many Requests after ten calls in a minute: the model is overloaded, retry later.",
    ], bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "usage-limit", [
        "after a few prompts the cli writes  [API Error: You have exhausted your daily quota on this model.]",
        "Gemini's free-tier `RESOURCE_EXHAUSTED` 429 (daily cap, e.g. `generate_content_free_tier_requests, limit: 500`) includes a short retry hint; the worker retries it for its full budget.",
        "Worker stopped: 429 RESOURCE_EXHAUSTED {'quotaId': 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', 'quotaValue': '250'}",
    ], bucket="usage_limit_mid_task")


def test_merged_over_red_check_not_read_in_a_stop_hook_loop():
    # gate-merged-over-red-check used to fire inside Stop-hook feedback, so a hook looping on its
    # own environment was read as verification_red (through stop-hook-real-red).
    assert_not_read("orchestration", "verification-red", [
        "Stop hook: the diff was merged over a failing ci job that only fails because the hook's runner has no network; the same job is green in a clean environment.",
        "Stop hook blocked the turn: the task was marked done despite a failing test step. The hook runs pytest from the wrong directory so it collects 0 items.",
    ], bucket="stop_hook_loop")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "verification-red", [
        "PR 115 merged with a red ruff check because my merge gate did not stop on failure. This restores green; the gate pattern is fixed on my side.",
    ], bucket="verification_red")


def test_went_red_needs_a_nonzero_violation_count():
    # gate-went-red-on-lint-violations used to accept a count of 0, so a Stop hook whose lint step
    # went red with "0 ruff violations" was read as verification_red.
    assert_not_read("orchestration", "verification-red", [
        "Stop hook blocked again: the lint step went red, 0 ruff violations, the hook just cannot find the ruff binary in the worktree's venv.",
    ], bucket="stop_hook_loop")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "verification-red", [
        "Main's repo-shape step went red for every PR after two individually-green merges combined: #2275 added `check_lanes.py` + two repo-shape CI steps, carrying three ruff violations.",
    ], bucket="verification_red")


def test_type_lint_errors_past_approval_not_read_when_there_were_none():
    # type-lint-errors-past-review-approval used to fire on "no/0 lint errors ... got review
    # approval", so a Stop-hook loop and a failed notification were read as verification_red.
    assert_not_read("orchestration", "verification-red", [
        "Stop hook feedback: 0 lint errors, got review approval, yet the hook still blocks because its test command points at the old package path.",
    ], bucket="stop_hook_loop")
    assert_not_read("orchestration", "verification-red", [
        "<task-notification> status: failed. The branch had no lint errors and received code-review approval; the connection dropped while the worker wrote its report.",
    ], bucket="notification_failed_work_done")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "verification-red", [
        "code that has TypeScript strict-mode errors, lint failures, or format violations can receive a code-review APPROVE",
    ], bucket="verification_red")


def test_api_limit_subagent_rule_leaves_reviewer_blocks():
    # subagent-stops-on-api-limit used to read a reviewer's finding about code that handles API
    # limits, so "## Requested changes ... the sub-agent will stop" was read as subagent_overloaded.
    assert_not_read("orchestration", "overloaded", [
        "## Requested changes\n- If the API rate limit is hit, the sub-agent will stop; wrap run_child in the retry helper.",
        "Two blocking issues found:\n1. When the API limit is reached the subagent fails and the parent never notices.\n2. No test for the retry path.",
        "Reviewer returned BLOCKED: the subagent stops on hitting the API limit because the 429 is swallowed.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "When an agent has sub agents working, if there is an API limit reached, the sub agent will stop, then the main agent will stop.",
    ], bucket="subagent_overloaded")


def test_api_limit_subagent_rule_leaves_test_reports_and_env_diagnoses():
    # subagent-stops-on-api-limit used to read a red test named after the behaviour, so a jest or
    # pytest failure of "subagent stops when the API limit is reached" was read as subagent_overloaded.
    assert_not_read("orchestration", "overloaded", [
        "FAIL src/orchestrator.test.ts\n  \u25cf Orchestrator \u203a subagent stops when the API limit is reached\n"
        "    expect(received).toBe(expected)\n    Expected: \"stopped\"\n    Received: \"running\"\nTests: 1 failed, 41 passed",
        "pytest -q\nFAILED tests/test_pool.py::test_retry - sub-agent fails when the API limit is hit: "
        "expected RetryScheduled, got Stopped\n1 failed, 88 passed in 3.2s",
    ], bucket="verification_red")
    assert_not_read("orchestration", "overloaded", [
        "The retry test fails only on Node 18: sub-agent fails when the API limit is hit because fetch is undefined; "
        "in a clean Node 20 env the same test is green.",
    ], bucket="environment_false_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "When an agent has sub agents working, if there is an API limit reached, the sub agent will stop, then the main agent will stop.",
    ], bucket="subagent_overloaded")


def test_spawned_children_rule_leaves_reviewer_blocks():
    # spawned-children-fail-immediately used to read a reviewer's finding about spawn code, so
    # "Reviewer returned BLOCKED: ... makes the children fail immediately" was read as subagent_overloaded.
    assert_not_read("orchestration", "overloaded", [
        "Reviewer returned BLOCKED: spawning teammates with an empty prompt makes the children fail immediately; validate the prompt first.",
        "Two blocking issues found:\n1. The spawned child sessions die immediately because the env is not passed to Popen.\n2. Missing tests.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "When spawning multiple subagents rapidly (N \u2265 10) from a single parent session, some children fail immediately with:\n"
        "Error: file lock stale for /path/to/agents/<agent>/sessions/<id>.jsonl: code=file_lock_stale",
        "The child never writes its first message \u2014 the lock is already stale before the session starts writing.",
    ], bucket="subagent_overloaded")


def test_spawned_children_rule_leaves_env_diagnoses_and_set_up_faults():
    # spawned-children-fail-immediately used to read worker threads a Node release breaks, so
    # "Spawned worker threads crash immediately on Node 22 only ... a clean env would be green"
    # was read as subagent_overloaded, and an invalid API key (a set-up fault) as overload too.
    assert_not_read("orchestration", "overloaded", [
        "Spawned worker threads crash immediately on Node 22 only; it is the Node version, not the code: a clean env would be green.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "overloaded", [
        "Spawned sub-agents fail immediately with: Error: invalid x-api-key (401). Check ANTHROPIC_API_KEY.",
    ], bucket="unknown")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "When spawning multiple subagents rapidly (N \u2265 10) from a single parent session, some children fail immediately with:\n"
        "Error: file lock stale for /path/to/agents/<agent>/sessions/<id>.jsonl: code=file_lock_stale",
    ], bucket="subagent_overloaded")


def test_pr_never_attributed_stands_down_on_red_ci_run():
    # pr-never-attributed-to-worker used to fire whatever surrounded it, so a red CI run on the fix
    # for the observer bug was read as handback_missing.
    assert_not_read("orchestration", "handback-missing", [
        "CI on the fix branch is red: `pnpm test` exits 1 with 3 failures in pr-linker.spec.ts — the observer still never links PRs pushed to a fork remote.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "handback-missing", [
        "bug(scm): SCM observer never attributes PRs pushed to a fork remote, leaving 'no PR yet' / empty PR data",
    ], bucket="handback_missing")


def test_pushed_branches_no_pr_stands_down_on_polling_and_red_runs():
    # pushed-branches-no-open-pr used to fire on any pushed branch with no PR, so a flag-file poll
    # and a verifier's red run that mention one were read as handback_missing.
    assert_not_read("orchestration", "handback-missing", [
        "The worker pushed branch has no open PR yet, so the orchestrator is polling for .pr-opened every minute; that flag is never created and the loop continues.",
    ], bucket="sentinel_wait_loop")
    assert_not_read("orchestration", "handback-missing", [
        "Verifier: the pushed branch has no open PR yet so CI never ran; I ran it locally: npm run lint -> 12 errors, pytest -> 3 failed. RED.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "handback-missing", [
        "orphaned work: substantial pushed branches have no open PR (incl. prioritised #12951, twice)",
        'Tonight, twice, work stopped between "branch pushed" and "PR open":',
    ], bucket="handback_missing")


def test_report_file_never_written_needs_the_orchestrator_pointed_at_it():
    # pointed-at-report-file-never-written used to read any orchestrator near "a file the X never wrote",
    # so a coordinator polling a done/flag file nobody writes was read as handback_missing.
    assert_not_read("orchestration", "handback-missing", [
        "The orchestrator keeps polling for a done file the worker never wrote; it has checked .agent/worker-3.done every 30s for 40 minutes and nothing will ever create it.",
        "The coordinator waits on a flag file the indexer did not write: `while [ ! -f .index.done ]; do sleep 30; done` has been looping since 14:02.",
    ], bucket="sentinel_wait_loop")
    assert_not_read("orchestration", "handback-missing", [
        "Verifier report: npm test → 4 failing. The parent config file the generator didn't write is missing, so src/config.spec.ts fails to import it. FAIL.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "handback-missing", [
        "work-done points the orchestrator at a summary file the daemon never wrote",
        "So in all three of (a), (b) and (c) the orchestrator is told to read a file the daemon did not write.",
    ], bucket="handback_missing")


def test_dropped_output_means_a_sub_agent_not_a_child_process():
    # child-output-silently-dropped used to read "drops child output" / "drops the worker's output"
    # of processes and test-runner workers, so an environment false red was read as handback_missing.
    assert_not_read("orchestration", "handback-missing", [
        "On Node 20 the test runner drops child output from spawned processes, so the CLI snapshot test fails; in a clean environment with Node 18 the same test passes. Node version behaviour, not a code defect.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "handback-missing", [
        "Verification: FAIL. npm test exited 1: 3 failed. The runner drops the worker's output on crash, so only the summary line is visible.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "handback-missing", [
        "Fixes critical bug where the swarm tool silently drops all sub-agent output due to accessing `AgentResult.content`",
    ], bucket="handback_missing")


def test_declared_report_paths_means_report_paths_not_build_outputs():
    # declared-report-paths-missing used to read any declared/returned output or result path that did
    # not exist, so a build's red run and a parent polling a result path were read as handback_missing.
    assert_not_read("orchestration", "handback-missing", [
        "Verification FAIL: the build's declared output paths dist/cli.js and dist/index.d.ts did not exist after `tsc -b`; 14 type errors in src/. Red.",
    ], bucket="verification_red")
    assert_not_read("orchestration", "handback-missing", [
        "The parent keeps polling the declared result path /tmp/job-42/result.json every 20s; it doesn't exist because the child writes result-42.json instead, so the wait never ends.",
    ], bucket="sentinel_wait_loop")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "handback-missing", [
        "workflow output should not leave declared report paths dangling",
    ], bucket="handback_missing")


def test_teammate_spawn_fails_or_exits_stands_down_beside_another_named_cause():
    # teammate-spawn-fails-or-exits had no vetoes, so a test runner's own worker exiting, a Stop hook
    # blocking right after a spawn, an unknown agent type and a reviewer's finding were all read as a
    # subagent stopped by overload.
    assert_not_read("orchestration", "overloaded", [
        "Error: [vitest-pool]: Worker forks emitted error.\nCaused by: Error: Worker exited unexpectedly\n FAIL  src/orchestrator.test.ts\n Test Files  1 failed (12)",
    ], bucket="verification_red")
    assert_not_read("orchestration", "overloaded", [
        "Stop hook feedback: the teammate was spawned, then the worker exited immediately because the Stop hook blocked again: 'tests must pass before stopping'.",
    ], bucket="stop_hook_loop")
    assert_not_read("orchestration", "overloaded", [
        "## Verdict\nBLOCKED\n[P1] spawning a worker always fails when the env is missing; must-fix: pass env to Popen",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "overloaded", [
        "Spawning the teammate fails: Error: Agent type 'reviewer' not found. Available agents: general-purpose, Explore",
    ], not_bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "spawning any teammate agent consistently fails",
        "Worker process exited unexpectedly: Droid process exited unexpectedly (exit code 0)",
    ], bucket="subagent_overloaded")


def test_nothing_happens_for_minutes_leaves_start_failures_and_red_runs():
    # nothing-happens-for-minutes used to fire beside a subagent that never started on a 503
    # and beside a verifier's red run, so both were read as stalled_no_progress.
    assert_not_read("orchestration", "stall-watchdog", [
        "The subagent doesn't start at all: after the Task call nothing happens for 10 minutes, and the agent logs don't show any activity. The API returned 503 Service Unavailable.",
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "stall-watchdog", [
        "Verifier report: `npm test` exited 1, 3 failing. Nothing happens for 5 minutes after the last spec, then the run logs don't show any progress.",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        'For some reason it tells me "Thinking..." but nothing happens for atleast 15 minutes. Even the session logs at C:\\Users\\me\\.codex\\sessions dont show any activity.',
    ], bucket="stalled_no_progress")


def test_no_next_step_zh_needs_tool_results_and_leaves_limits():
    # no-next-step-after-tool-results-zh used to read any 没有继续执行下一步, so a plan's
    # usage ceiling, a 503 overload, a refused relay and a red check were read as stalls.
    assert_not_read("orchestration", "stall-watchdog", [
        "已达到 5 小时的使用上限。模型没有继续生成下一步，改动只做了一半。",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "stall-watchdog", [
        "API 返回 503 服务不可用，服务器过载，会话没有继续执行下一步。",
        "实现者 agent 认为编排器转发的修改意见是协调者消息、没有用户授权，拒绝执行，没有继续执行下一步。",
        "验证失败：npm test 有 3 个用例不通过，流程没有继续执行下一步。",
    ], not_bucket="stalled_no_progress")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "卡住的不是 shell 命令，而是工具结果返回之后，模型/会话调度没有继续生成下一步。",
        "17:27:40.855 之后到 17:34:39：没有新的 assistant 消息、没有新的工具调用、没有 task_complete。",
    ], bucket="stalled_no_progress")


def test_session_stopped_for_long_ja_leaves_lid_hook_refusal_credits_and_marker():
    # session-stopped-for-long-ja used to read any セッションが長時間止まって, so a closed lid,
    # a Stop hook blocking, a refused relay, spent credits and a marker-file wait were stalls.
    assert_not_read("orchestration", "stall-watchdog", [
        "MacBookの蓋を閉じたら、セッションが長時間止まっていた。",
        "Stopフックが毎回同じテスト失敗でブロックするので、セッションがずっと進まない。",
        "実装エージェントがオーケストレーターから転送された修正指示をユーザーの許可がないとして拒否し、作業がずっと止まっている。",
        "クレジット残高がゼロになり、エージェントがずっと止まっている。",
        "エージェントが完了マーカーのファイルを待ち続けて、処理がずっと進まない。",
    ], not_bucket="stalled_no_progress")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "stall-watchdog", [
        "Jules側がユーザーの入力（追加指示やプラン承認など）を待っている状態になっても，VSCode上でそれに気付く手段が乏しく，セッションが長時間停止してしまう．",
    ], bucket="stalled_no_progress")


def test_quota_used_up_zh_leaves_test_environment_and_disk_quota():
    # quota-used-up-zh used to read any 额度/配额 … 用完, so a test environment's API key
    # quota and a CI runner's disk quota (both green in a clean environment) were usage limits,
    # and so were a reviewer's finding and a unit test about quota handling.
    assert_not_read("orchestration", "usage-limit", [
        "CI 里的集成测试全部红了：测试环境的 API Key 额度用完了，换一个新的 key 后在干净环境里全部通过。",
        "CI 运行器的磁盘配额用完了，测试全部报 No space left on device；本地干净环境是绿的。",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "usage-limit", [
        "审查结论：BLOCKED\n必须修复：当用户的额度用完时，重试逻辑会无限循环。",
        "单元测试失败（exit code 1）：额度耗尽时应返回 429，实际返回 500。",
    ], not_bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "usage-limit", [
        "当回复因额度耗尽而中断时会停止继续输出, 这就导致我这轮对话没有得到一个完整的答案",
        "1. 额度不到5天就用完了。",
    ], bucket="usage_limit_mid_task")


def test_usage_limit_reached_ko_leaves_recursion_concurrency_hook_and_size_limits():
    # usage-limit-reached-ko used to read any 한도 초과/도달, so a recursion limit, a cap on
    # concurrent agents, a Stop hook's block cap and an upload size limit were usage limits.
    assert_not_read("orchestration", "usage-limit", [
        "에이전트가 재귀 한도에 도달해서 작업 중간에 멈췄습니다.",
        "동시 실행 가능한 에이전트 수 한도를 초과해서 서브에이전트가 시작되지 않습니다.",
        "Stop 훅이 같은 테스트 실패로 계속 차단해서 차단 한도를 초과했습니다.",
        "CI에서 테스트가 실패합니다: 파일 업로드 크기 한도 초과. 로컬 깨끗한 환경에서는 통과합니다.",
    ], not_bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "usage-limit", [
        "Claude Pro로 작업을 하다가 한도에 걸렸고 Max로 변경했는데 한도는 늘었지만 이어서 해달라는 요청을 해도 반응이 없습니다",
        "요청 한도에 도달 했다고 뜨는데 추후에 수업 과정을 위해 업그레이드 필요하나요",
    ], bucket="usage_limit_mid_task")


def test_usage_limit_reached_de_leaves_concurrent_sessions_disk_quota_and_tests():
    # usage-limit-reached-de used to read any Session-Limit erreicht or Kontingent aufgebraucht,
    # so a cap on concurrent sessions that kept a subagent from starting, a disk quota in CI and
    # a red test about the limit were usage limits.
    assert_not_read("orchestration", "usage-limit", [
        "Der Subagent konnte nicht gestartet werden: Session-Limit erreicht, zu viele gleichzeitige Sitzungen offen.",
        "Die Tests schlagen nur im CI fehl: das Festplatten-Kontingent ist aufgebraucht. In einer sauberen Umgebung sind sie grün.",
        "Verifikation rot: Der Test prüft, dass bei Nutzungslimit erreicht eine 429 kommt, es kommt aber 500. Exit 1.",
    ], not_bucket="usage_limit_mid_task")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "usage-limit", [
        "Wenn eine über Happy gestartete Claude- oder Codex-Session aufgrund eines erreichten Usage- oder Rate-Limits nicht weiterarbeiten kann, ist das in der Happy Mobile App derzeit nicht eindeutig erkennbar.",
        "Nutzungslimit erreicht.",
        "Kontingent aufgebraucht.",
    ], bucket="usage_limit_mid_task")


def test_env_limitation_claim_quoted_by_red_or_verdict_stays_red():
    # environment-limitation-not-a-defect used to read any "environment issue, not a bug", so a
    # verdict or red run rejecting the implementer's claim was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "Verifier: FAIL (exit 1). pnpm test -> 2 failed. The implementer's note calls this an environment problem, not a regression, but both failures are assertion mismatches in src/totals.spec.ts: expected 10 received 12.",
        "Taki: verification red. npm test exited with code 1; claimed environment issue, not a bug — wrong, the snapshot diff shows the new header markup.",
    ], bucket="verification_red")
    assert_not_read("orchestration", "env-version-mismatch", [
        "Review verdict: BLOCKED. Anon wrote that the red is an environmental limitation, not a bug; I reproduced it in a fresh container, so it is a real regression in parse_date().",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "`doctor` reports one expected `claude CLI on PATH` error in the cloud VM (no harness binary installed) — an environment limitation, not a defect.",
    ], bucket="environment_false_red")


def test_agent_ran_tests_without_network_errors_and_got_red_stays_red():
    # agent-env-setup-for-network-errors used to read any agent that ran tests "without network
    # errors", so a red run after the network was fixed was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "Copilot agent ran the test suite without network errors this time, but 3 tests still fail: FAILED api/retry.py::backoff - expected 3 got 4",
        "The coding agent can now run the tests without networking errors after the firewall allowlist change; the verifier still reports red: 2 failures in src/parser (expected 'a', got 'b').",
    ], bucket="verification_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "Creates an environment for copilot agents so that it can actually test things without networking errors",
    ], bucket="environment_false_red")


def test_dockerfile_host_that_does_not_resolve_is_not_a_bridgeless_daemon():
    # docker-daemon-without-bridge used to read any "docker build cannot resolve hosts", so a
    # Dockerfile the change pointed at a missing host was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "BLOCKED: docker build fails to resolve hosts listed in the new Dockerfile's ARG MIRROR; the change hardcodes apt.corp.local which only exists on the author's laptop.",
    ], bucket="verification_red")
    assert_not_read("orchestration", "env-version-mismatch", [
        "Verifier: FAIL. `docker build` could not resolve host pypi.internal.example: the Dockerfile this PR added points RUN pip install at a mirror that does not exist. Fix the index URL.",
        "Taki ran ./scripts/e2e.sh: exit code 1. docker build cannot resolve apt hosts because the PR's Dockerfile sets --network=none in the build stage; that's our bug.",
    ], not_bucket="environment_false_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "Docker’s `bridge: none` daemon (stock `docker build` cannot resolve apt hosts).",
        "stock docker build cannot resolve apt hosts on the cloud VM",
    ], bucket="environment_false_red")


def test_binary_the_change_removed_is_not_a_missing_machine_tool():
    # missing-binary-exit-red-over-passing-tests used to read any spawn ENOENT beside passing tests,
    # so a tool the change itself removed was read as environment_false_red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "Verification red: `npm run build` prints `spawn esbuild ENOENT` and exits 1 even though all tests pass, because the PR removed esbuild from devDependencies while build.mjs still spawns it.",
    ], bucket="verification_red")
    assert_not_read("orchestration", "env-version-mismatch", [
        "Reviewer: BLOCKED. The new CLI calls spawn ./bin/helper ENOENT and exits 1 even though all tests pass — the tests never exercise the spawn path; add the helper to the package files.",
        "pnpm test: spawn tsc ENOENT; exited 1 even though all tests passed. The PR deleted typescript from package.json.",
    ], not_bucket="environment_false_red")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "env-version-mismatch", [
        "the Cloud VM does not, so without it `pnpm test` prints `spawn tsc ENOENT` and exits non-zero **even though all tests pass**.",
    ], bucket="environment_false_red")


def test_parent_asking_for_users_own_results_is_no_lost_handback():
    # parent-asks-user-to-paste-results used to read any parent asking the user to paste results,
    # so results from the user's machine or CI were read as handback_missing.
    assert_not_read("orchestration", "handback-missing", [
        "The main agent asks me to paste the test results from my Mac because in the sandbox's Node 18 the crypto specs are red; on Node 20 in a clean environment they are green.",
        "Parent agent asks me to paste the CI results: the GitHub Actions run is red, 2 jobs failed on the Windows runner only, path separator assertions.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "handback-missing", [
        "The verifier can't reach the device farm, so the main agent asks me to paste the results from my local run: LoginTests.testSignIn FAIL, XCTAssertEqual failed: 401 is not equal to 200.",
    ], not_bucket="handback_missing")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "handback-missing", [
        "Both the search results and full email bodies are correctly returned from subagents. This has resulted in multiple repeated subagent runs, as well as the main agent asking me to manually paste the full results in.",
    ], bucket="handback_missing")


def test_run_marked_failed_with_lost_output_is_no_lost_handback():
    # output-delivery-failed-after-completion used to read any output retrieval failure, so a run
    # marked failed over finished work was read as handback_missing.
    assert_not_read("orchestration", "handback-missing", [
        "Component marked as failed with successful pod. The driver logs show an output retrieval failure: the artifact upload to MinIO timed out after the pod completed.",
        "The subagent was marked failed: output retrieval failed (connection reset while streaming the final summary), but the diff and commits are all there.",
    ], not_bucket="handback_missing")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "handback-missing", [
        "2 of 5 agents had output retrieval failures despite completing successfully, but the output delivery mechanism was unreliable.",
        "TaskOutput returned `status: completed` but content was empty (only system reminder tags)",
    ], bucket="handback_missing")


SAME_RED = "same-test-red-twice"


def test_unfixable_check_loop_leaves_hangs_and_rate_limits_alone():
    # unfixable-check-loops-forever used to fire on any "unable to fix ... loops forever", so a
    # linter that hangs or a provider's RateLimitError was read as same_test_red_twice.
    assert_not_read("orchestration", SAME_RED, [
        "aider fails to fix the test failures and loops forever while the linter command hangs with no output",
        "aider is unable to fix lint errors and loops forever: litellm.RateLimitError: AnthropicException - rate_limit_error",
    ], bucket="stalled_no_progress")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SAME_RED, [
        "If aider is unable to fix lint error, it will loop forever without adding or changing code.",
    ], bucket="same_test_red_twice")


def test_same_failure_on_repeat_leaves_node_release_and_api_timeouts_alone():
    # same-failure-on-repeat used to fire on "same test errors on every run/retry" whatever the
    # cause, so a Node release or an API timeout repeating was read as same_test_red_twice.
    assert_not_read("orchestration", SAME_RED, [
        "We get the same test errors on every run since the runner moved to Node 22: TypeError: fetch failed in tests/api.test.ts. Pinning Node 20 makes it green.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", SAME_RED, [
        "Same errors on every retry: API Error: Request timed out. The test-runner subagent never starts, no tests run.",
    ], bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SAME_RED, [
        "check with the LLM if it is stuck because of a bad test command, or just the same test failure on repeat",
    ], bucket="same_test_red_twice")


def test_original_failure_still_reproduces_leaves_api_errors_and_event_loops_alone():
    # original-failure-still-reproduces used to take "loop" and "fix" as bare substrings and had
    # no API-error veto, so a 500 after retry attempts was read as same_test_red_twice, and so
    # was one red test naming "Event loop is closed" in a fixture.
    assert_not_read("orchestration", SAME_RED, [
        'Fix attempts failed: the same error still occurs: API Error: 500 {"type":"api_error","message":"Internal server error"} after 5 retry attempts',
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", SAME_RED, [
        "tests/test_ws.py::test_reconnect FAILED\nRuntimeError: Event loop is closed\nThe same error still occurs in the async fixture teardown.",
    ], not_bucket="same_test_red_twice")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SAME_RED, [
        "the original runtime failure still reproduced; the agent expanded a bounded task into a five-hour, non-convergent loop and still produced no effective fix",
    ], bucket="same_test_red_twice")


def test_failing_test_rerun_leaves_session_limits_and_stalls_alone():
    # failing-test-rerun-repeats had no session-limit or stall-watchdog veto, so an agent cut off
    # by its session limit or the stall watchdog while re-running a test was read as same_test_red_twice.
    assert_not_read("orchestration", SAME_RED, [
        "Copilot runs the failing test over and over until it stops with: You've hit your session limit, resets 3pm. The test still fails.",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", SAME_RED, [
        "The verifier keeps running the failing tests over and over; no output for 10 minutes, then Agent stalled: no progress for 600s",
    ], bucket="stalled_no_progress")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SAME_RED, [
        "When the agent uses the terminal to run tests it repeats and gets stuck. Create a failing test case, then ask the agent to run and fix it.",
    ], bucket="same_test_red_twice")


def test_tests_red_again_leaves_api_errors_alone():
    # tests-red-again-after-fix had no API-error veto, so a verifier subagent failing to start
    # with a 500 was read as same_test_red_twice.
    assert_not_read("orchestration", SAME_RED, [
        "Running the tests reported failures again after the fix: API Error: 500 Internal server error while the verifier subagent was starting",
    ], bucket="subagent_overloaded")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SAME_RED, [
        "So it tried to fix the issues and running the tests revealed errors again.",
    ], bucket="same_test_red_twice")


def test_changes_still_failed_leaves_limits_and_review_blocks_alone():
    # changes-made-still-failed had no session-limit or review-verdict veto, so "made the changes,
    # but it still failed: 5-hour limit reached" and "still fail on review: NEEDS_CHANGES" were
    # read as same_test_red_twice.
    assert_not_read("orchestration", SAME_RED, [
        "Made the changes, but it still failed: 5-hour limit reached - resets 7pm. The test edits are half done.",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", SAME_RED, [
        "Applied the fixes, but they still fail on review: NEEDS_CHANGES, the new tests do not cover the error path.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", SAME_RED, [
        "obviously the tests fail and I provided the stacktrace. It made changes, but still failed.",
    ], bucket="same_test_red_twice")


def test_deploy_wait_rules_stand_down_on_stop_hook_words():
    # waiter-given-nothing-to-wait-for, scheduler-cli-never-exits-without-nodes and
    # iac-still-creating-over-ready-resource (sharing deploy-wait-other-causes) used to fire on a
    # Stop hook's own hang, so a Stop-hook loop was read as sentinel_wait_loop.
    assert_not_read("orchestration", "deploy-wait-never-satisfied", [
        "The Stop hook's test command hangs if no path is specified to pytest, so every reply re-fires the hook.",
        "Stop hook feedback: the verifier hangs when no target is given and blocks again on every reply.",
        "The Stop hook never finishes when no Node is installed in the sandbox, and it re-fires on every reply.",
    ], bucket="stop_hook_loop")
    assert_not_read("orchestration", "deploy-wait-never-satisfied", [
        "The agent ran the Stop hook; terraform printed Still creating... and the hook never ends, even though the environment is ready.",
    ], not_bucket="sentinel_wait_loop")
    # positive control: the rules' own wording is still read
    assert_read("orchestration", "deploy-wait-never-satisfied", [
        "wait_for hangs with default options\nThe wait_for module hangs if no port or path is specified.",
        "`nomad job run` never exits when no clients available\nWhen there is no any clients then `nomad job run` never exits",
        "After 8 minutes its still creating:\n`ionoscloud_logging_pipeline.xxx: Still creating... [8m1s elapsed]`\n"
        "but when I query the status via ionosctl the logging pipeline appears ready",
    ], bucket="sentinel_wait_loop")


def test_deploy_wait_rules_stand_down_on_an_agent_cut_off_without_output():
    # kubectl-wait-never-ends and waiter-given-nothing-to-wait-for used to fire on a subagent's
    # foreground command that ran with no output until it was cut off, so a mid-task stall was
    # read as sentinel_wait_loop.
    assert_not_read("orchestration", "deploy-wait-never-satisfied", [
        "The implementer ran `kubectl wait --for=condition=available deploy/web` with no timeout; kubectl wait "
        "hung indefinitely and the agent produced no output until the harness killed it.",
        "The subagent hangs when no file is specified for the test runner and was cut off by the stall detector after 10 minutes.",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", "deploy-wait-never-satisfied", [
        "The verifier ran `terraform apply` in the foreground and sat on `aws_db_instance.main: Still creating... "
        "[14m elapsed]` with no output until it was cut off; the change itself is ready for review.",
    ], not_bucket="sentinel_wait_loop")
    # positive control: the rules' own wording is still read
    assert_read("orchestration", "deploy-wait-never-satisfied", [
        "kubectl wait command do indefinite timeout when init container fails\n"
        "But if  pod fails at init stage and then it waits for indefinite time and i have to kill it",
    ], bucket="sentinel_wait_loop")


def test_claimed_tests_passed_needs_the_tests_themselves_to_be_what_did_not_pass():
    # agent-claims-tests-passed-over-red-run used to read any "even though it didn't <do something>"
    # after a passing claim, so a failed task-notification whose agent didn't finish its summary
    # was read as verification_red.
    assert_not_read("orchestration", "verification-red", [
        "<task-notification> status: failed. The subagent reported all tests passed even though it didn't "
        "finish writing its summary; git log shows both commits are in.",
    ], bucket="notification_failed_work_done")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "verification-red", [
        "it will always say that all tests passed successfully, even if they haven't.",
        "the agent did not wait for the test result but claim to user that all tests passed, while the test result failed",
    ], bucket="verification_red")


def test_german_wait_node_branch_needs_the_wait_time_to_have_passed():
    # workflow-wait-node-never-resumes used to read any German "hängt ... Waiting ... obwohl", so an
    # agent waiting out a usage limit ("obwohl das Nutzungslimit ...") was read as sentinel_wait_loop.
    assert_not_read("orchestration", "deploy-wait-never-satisfied", [
        "Der Agent hängt im Status „waiting“, obwohl das Nutzungslimit erst morgen zurückgesetzt wird.",
    ], not_bucket="sentinel_wait_loop")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "deploy-wait-never-satisfied", [
        "Der Node hängt weiterhin im Status „Waiting“, obwohl die Zeit bereits überschritten ist.",
    ], bucket="sentinel_wait_loop")


def test_provider_downtime_beside_lost_handback_stays_handback():
    # provider-model-downtime used to fire on any 'the provider had some downtime', so a completed
    # task-notification whose promised message never arrived, with an outage named as a guess, was read as subagent_overloaded.
    assert_not_read("orchestration", "overloaded", [
        "<task-notification>\n<status>completed</status>\n<result>I've sent my review to you as a message.</result>\n</task-notification>\n"
        "The message never appeared. Anthropic had an outage around then, so maybe that's why.",
        "The reviewer's handback never arrived: the notification says completed and that the findings were sent, "
        "but there is no message. The provider had some downtime this morning.",
    ], bucket="handback_missing")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "The BrowsingAgent seems to be stuck after loading the initial webpage.\nPossibly, vision model had some downtime.",
    ], bucket="subagent_overloaded")


def test_review_findings_about_outage_handling_stay_review_blocked():
    # provider-model-downtime, fastchat-high-traffic-refusal and model-not-loaded-for-memory were vetoed only by
    # must-fix/verdict words, so a review in 'changes required' / 'required fix' words about code that handles
    # an outage, shows FastChat's banner or loads a model was read as subagent_overloaded.
    assert_not_read("orchestration", "overloaded", [
        "Required fix: the fallback path is untested. If the model has an outage, callLLM() returns undefined and the agent silently skips the step.",
        "Changes required: [HIGH] ui/Chat.tsx shows 'NETWORK ERROR DUE TO HIGH TRAFFIC' for every 400, even validation errors; map the status codes properly.",
        "Changes required: [HIGH] loader.py reads the whole checkpoint before checking free RAM, so the model failed to load into memory on small boxes; stream it instead.",
        "Required fix: the new quantized models don't fit in the memory budget of the edge device; keep the fp16 path behind a flag.",
    ], bucket="review_blocked")
    # positive control: the rules' own wording is still read
    assert_read("orchestration", "overloaded", [
        "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '**NETWORK ERROR DUE TO HIGH TRAFFIC. PLEASE REGENERATE OR",
        "I finally realized the model was not loading into memory due to exceeding the memory ceiling error.",
        "both of these models don't fit in my ram",
        "Possibly, vision model had some downtime.",
    ], bucket="subagent_overloaded")


def test_503_from_the_projects_own_service_is_not_overload():
    # reported-getting-503 used to read any 'getting 503 errors/responses', so a red verification, an environment
    # false red and a review about the project's own endpoints returning 503 were read as subagent_overloaded.
    assert_not_read("orchestration", "overloaded", [
        "Verification red: after the change, `curl -fsS https://preview.example.dev/api/orders` keeps getting 503 responses; "
        "the new readiness middleware rejects every request while the cache warms.",
    ], bucket="verification_red")
    assert_not_read("orchestration", "overloaded", [
        "This looks environmental: the integration suite keeps getting 503 errors from the local mock server under Docker Desktop on macOS; "
        "on Linux runners everything passes.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "overloaded", [
        "## Review\nRequired fix: the health check handler. Under load, clients keep getting 503 errors because the pool size is 1.",
        "Changes required.\n[HIGH] server/proxy.ts: with the new circuit breaker, clients keep getting 503 errors even after the upstream recovers; "
        "reset the breaker on success.",
    ], bucket="review_blocked")
    # positive control: the rule's own wording is still read
    assert_read("orchestration", "overloaded", [
        "Currently I'm using Gemini-2.5-flash, and sometimes I'm getting the 503 error for network communication error.",
        "# [Bug]: 503 error every day 3-4 times\nI have also tried changing the model to Gemini-2.0-flash but am still encountering the same error",
    ], bucket="subagent_overloaded")


# Review of orchestration's rules added since 1d0087d: each test names messages a new rule misread
# (they must no longer get its signal, and must land in their own bucket) and the rule's own wording
# from its golden case (it must still be read).

_BABYSITTER = ("## ⚠️ CI Alert\n\nThe babysitter pushed changes (commit `0a2106f`), but CI/CD checks are still failing:\n\n"
               "- **build**: Check run failure ([details](https://github.com/gsd-build/gsd-2/actions/runs/25839156490/job/75920795517))\n\n"
               "Manual investigation may be required.")


def test_fixer_push_with_new_failure_version_or_limit_is_not_same_red_again():
    # pushed-fix-checks-still-failing read any check still red after a fix push as the same red twice:
    # a new failure after the fixed check went green, a check red only on one Node version, and a fixer
    # cut off by Claude's usage limit.
    assert_not_read("orchestration", "same-test-red-twice", [
        "The fix agent pushed a fix for the type error, but CI is still failing: typecheck is green now, the new failure is\n"
        "FAILED tests/e2e/test_login.py::test_redirect_after_timeout - AssertionError: assert 302 == 200",
    ], bucket="verification_red")
    assert_not_read("orchestration", "same-test-red-twice", [
        "The babysitter pushed changes (commit `4f1c2aa`), but CI/CD checks are still failing:\n\n"
        "- **test (node 18)**: Check run failure — passes on Node 20; the runner's Node 18 lacks `structuredClone`.\n\n"
        "Manual investigation may be required.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "same-test-red-twice", [
        "The agent pushed a fix, but tests are still failing. You've hit your limit · resets 5pm (Europe/Berlin)",
    ], bucket="usage_limit_mid_task")
    assert_read("orchestration", "same-test-red-twice", [_BABYSITTER], bucket="same_test_red_twice")


def test_tests_that_passed_are_not_failures_handed_again():
    # same-failures-handed-to-fixer-again read `passed the same failing tests` (they went green on
    # another runtime) as failures handed to the fixer again.
    assert_not_read("orchestration", "same-test-red-twice", [
        "Retrying on Node 20 passed the same failing tests; they only fail on Node 18, where the runner lacks structuredClone.",
    ], bucket="environment_false_red")
    assert_read("orchestration", "same-test-red-twice", [
        "It did start — three times. `jules-ci-fix.yml` handed the same branch and the same set of failures to Jules at "
        "12:25, 12:31 and 12:39 UTC on 2026-09-07, spending the whole daily budget of three on one problem.",
    ], bucket="same_test_red_twice")


def test_negated_recurrence_and_recurring_stalls_are_not_red_after_fix():
    # recurred-after-fix-merged read a negated recurrence over another test's red, and a stall watchdog or
    # a sleeping machine that recurred after a fix, as the same test red again.
    assert_not_read("orchestration", "same-test-red-twice", [
        "Hasn't recurred with the #1439 fix merged (14 nightlies green). The red on this PR is a different test: "
        "FAILED tests/test_api.py::test_auth_header - AssertionError: 401 != 200",
    ], bucket="verification_red")
    assert_not_read("orchestration", "same-test-red-twice", [
        "The stall recurred with the fix already merged: Agent stalled: no progress for 600s (last tool: Bash `npm run e2e`).",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", "same-test-red-twice", [
        "Recurred overnight with the #88 fix already merged — Your computer went to sleep mid-response. "
        "Three agents stalled in the same window.",
    ], bucket="stalled_machine_sleep")
    assert_read("orchestration", "same-test-red-twice", [
        "## Recurred on daily #1444 — **with the #1439 fix already merged**\n\nNew occurrence from daily-failure triage #1444. "
        "Same test, same signature, hard failure on all 3 attempts.",
    ], bucket="same_test_red_twice")


def test_fix_loop_cap_change_and_limit_cut_loop_are_not_wedged_corrections():
    # wedged-in-corrections-loop read a PR that stops agents getting stuck in a fix loop (its own test red),
    # and a fix loop cut by the usage limit, as the same red through every correction.
    assert_not_read("orchestration", "same-test-red-twice", [
        "This PR adds an iteration cap so the agent can no longer get stuck in a fix loop. CI is red on it:\n"
        "FAILED tests/test_loop_cap.py::test_stops_after_three_attempts - AssertionError: assert 4 == 3",
    ], bucket="verification_red")
    assert_not_read("orchestration", "same-test-red-twice", [
        "Claude got stuck in the fix loop and then: You've hit your limit · resets 3am. Tests still failing.",
    ], bucket="usage_limit_mid_task")
    assert_read("orchestration", "same-test-red-twice", [
        "Run `1c225d25` (deliver on #2909, 28 Aug) wedged in its corrections loop and failed after three iterations, "
        "even though its correction agent behaved exactly as the #2939 contract asks. The full lint check is red only "
        "for a pre-existing raw recursive cleanup.",
    ], bucket="same_test_red_twice")


def test_merge_bot_test_failure_quoting_code_owner_approval_is_red_run():
    # code-owner-approval-missing-holds-automerge read a merge bot's own failing test, whose assertion
    # message quotes `without code owner approval,`, as a review hold (review-blocked routes before red).
    assert_not_read("orchestration", "review-blocking", [
        "FAILED tests/test_automerge.py::test_holds_pr - AssertionError: without code owner approval, the bot should hold the PR",
    ], bucket="verification_red")
    assert_read("orchestration", "review-blocking", [
        "Handle codeowners approval not being met in Cirqbot\n\nWithout Codeowners approval, PRs can get into a state where "
        "the automerge bot doesn't know what to do:\n\n1. modify things in a PR that belong to multiple parts\n"
        "2. have only one of the codeowners approve - partial coverage\n3. put the `automerge` label on",
    ], bucket="review_blocked")


def test_approval_rules_that_do_not_block_automerge_are_no_review_hold():
    # approval-rule-blocks-bot-automerge read `approval rules don't/do not block automerge` (a negation,
    # beside the red pipeline that really holds the MR) as a review hold.
    assert_not_read("orchestration", "review-blocking", [
        "Approval rules don't block automerge here (approvals_before_merge is 0); what holds the MR is the red pipeline:\n"
        "FAILED tests/unit/test_merge.py::test_fast_forward - AssertionError: assert False",
        "Approval rules do not block automerge for Renovate MRs (gitLabIgnoreApprovals is set); the MR stays open because "
        "the pipeline is red: FAILED tests/test_api.py::test_auth - AssertionError",
    ], bucket="verification_red")
    assert_read("orchestration", "review-blocking", [
        "Gitlab allow to configure approvals count per repo, but dont have setting to auto-configure it per-mergre request "
        "depending on conditions. This is blocks automerge of merge request from renovate.",
    ], bucket="review_blocked")


def test_cargo_results_lost_on_a_git_branch_are_red_run_not_branch_handback():
    # parallel-branch-final-state-discarded took a git branch beside cargo test's lost final results for
    # a graph branch whose final state was dropped.
    assert_not_read("orchestration", "handback-missing", [
        "cargo test on branch fix-collect: the final results were lost:\nfailures:\n    pipeline::tests::keeps_order\n"
        "test result: FAILED. 41 passed; 1 failed",
    ], bucket="verification_red")
    assert_read("orchestration", "handback-missing", [
        "Parallel streaming nodes drop the final state returned via Data.done(...)\nWhen a streaming node is executed as a "
        "branch of a `ParallelNode`, the final business state carried by `AsyncGenerator.Data.done(Map.of(...))` is lost.\n"
        "The `Data.done(...)` result value is discarded, so state produced at stream completion never reaches the graph state.",
    ], bucket="handback_missing")


# Review of orchestration's rules added since 7161d6b (batches 497-498): each test names the
# messages a new rule misread and the rule's own golden wording, which it must still read.

RUST_A2A = """thread 'a2a::tests::follow_up_opens_new_task' panicked at src/a2a/client.rs:301:14:
called `Result::unwrap()` on an `Err` value: JsonRpc { code: -32600, message: "Task 3b1c0d is in a terminal state (completed) and cannot be modified." }
failures:
    a2a::tests::follow_up_opens_new_task
test result: FAILED. 17 passed; 1 failed"""

JEST_A2A = """ FAIL  test/a2a/followup.spec.ts
  \u25cf a2a_send \u203a starts a new task when the stored task has completed

    JSON-RPC error: Task ed401f7a-9c1e is in a terminal state (completed) and cannot be modified. (Code: -32600)

Tests:       1 failed, 11 passed, 12 total"""

A2A_503 = ("The remote reviewer agent returned 503 Service Unavailable three times; its task 7f3a21 "
           "is in terminal state: TaskState.failed, so the retry was rejected.")

A2A_TIMEOUT = ("Verifier: subagent timed out after 300s waiting for the model (upstream request timeout); "
               "Task a91c-22 is in a terminal state (failed) and cannot be modified.")

PI_A2A = """When `a2a_send` is called with a stored `taskId` and the remote task is already in a terminal state (completed/failed/cancelled), the hub rejects the follow-up with:
JSON-RPC error: Task ed401f7a-... is in a terminal state (completed) and cannot be modified. (Code: -32600)
This surfaces as a red `\u274c A2A error` to the user, even though the intent was just to send a new message to the same agent."""


def test_a2a_terminal_state_leaves_test_runs_and_overloads_alone():
    # a2a-task-terminal-state-refused read a Jest spec and a Rust test red on the A2A error as a
    # refused relay (its route comes before verification-red), and a task a 503 or a model timeout
    # had failed as a refused relay too, though its note says the overload decides.
    assert_not_read("orchestration", "relay-undeliverable", [RUST_A2A, JEST_A2A], bucket="verification_red")
    assert_not_read("orchestration", "relay-undeliverable", [A2A_503], bucket="subagent_overloaded")
    assert_not_read("orchestration", "relay-undeliverable", [A2A_TIMEOUT], bucket="stalled_no_progress")
    assert_read("orchestration", "relay-undeliverable", [PI_A2A], bucket="relay_refused")


RUST_POLICY = """thread 'policy::tests::peer_default_deny_allows_supervisor' panicked at crates/runtime/src/policy.rs:212:9:
assertion `left == right` failed
  left: Err(MessageNotAuthorized)
 right: Ok(Delivered)
test result: FAILED. 41 passed; 1 failed; 0 ignored"""

HOLON = """- `InvokeAgent(target=existing_agent, agent_id=crypto-assistant)` \u88ab\u8fd0\u884c\u65f6\u62d2\u7edd\uff1a
  {"kind":"not_found","message":"agent target was not found or is not available to this caller"}
1. **peer\u2192peer \u9ed8\u8ba4\u5168\u62d2**\uff1a\u76ee\u6807 agent \u672a\u663e\u5f0f\u914d\u7f6e policy \u65f6 `allowed=false` \u2192 `MessageNotAuthorized`\uff08"caller is not authorized by the target message policy"\uff09\u3002"""


def test_message_policy_rule_leaves_rust_test_red_alone():
    # target-message-policy-not-authorized read a Rust unit test of the policy, red on
    # `left: Err(MessageNotAuthorized)`, as a refused relay instead of a red run.
    assert_not_read("orchestration", "relay-undeliverable", [RUST_POLICY], bucket="verification_red")
    assert_read("orchestration", "relay-undeliverable", [HOLON], bucket="relay_refused")


JEST_MARVEEN = """ FAIL  src/web/routes/messages.spec.ts
  \u25cf POST /api/messages \u203a lets the owner send from the compose box

    expect(received).toBe(expected) // Object.is equality

    Expected: 200
    Received: 403

    Response body: {"error":"unknown agent 'user1' -- from must be a registered fleet agent id"}

Tests:       1 failed, 23 passed, 24 total"""

MARVEEN = ("Messages UI: owner can never send from the compose box (403 unknown agent)\n"
           "On the dashboard Messages (inter-agent) page, every thread shows a compose box + send button, but when the "
           "owner sends it always fails: unknown agent 'user1' -- from must be a registered fleet agent id. "
           "The UI offers a send affordance the API always refuses for the owner.")


def test_unregistered_sender_rule_leaves_jest_spec_red_alone():
    # message-sender-not-registered-agent read a Jest spec of the messages route, red on the 403
    # whose body quotes the guard, as a refused relay instead of a red run.
    assert_not_read("orchestration", "relay-undeliverable", [JEST_MARVEEN], bucket="verification_red")
    assert_read("orchestration", "relay-undeliverable", [MARVEEN], bucket="relay_refused")


BUSY_STUCK = ('POST /api/agents/trader/message -> 409 {"code":"AGENT_BUSY","error":"agent is busy; message rejected"} '
              "\u2014 trader has been stuck on the same tool call for 25 minutes, no new output since 14:02.")

BUSY_NPM_TEST = """\u2717 npm test exited with code 1
FAIL src/services/__tests__/messaging.spec.ts
  \u25cf send-message \u203a queues instead of dropping when target is AGENT_BUSY
    Error: AGENT_BUSY: message rejected"""

CREWLY = ("[Enhancement] Queue messages when agent is AGENT_BUSY instead of dropping them\n"
          "When `send-message` is called on a busy agent, the message is silently dropped. "
          "The caller gets an error but there is no automatic retry or queue.")


def test_busy_agent_rule_leaves_stuck_agents_and_test_runs_alone():
    # busy-agent-refuses-message read an agent stuck on one tool call with no new output, whose
    # AGENT_BUSY refusals are the stall's symptom, and an `npm test exited with code 1` run whose
    # spec quotes AGENT_BUSY, as refused relays.
    assert_not_read("orchestration", "relay-undeliverable", [BUSY_STUCK], bucket="stalled_no_progress")
    assert_not_read("orchestration", "relay-undeliverable", [BUSY_NPM_TEST], bucket="verification_red")
    assert_read("orchestration", "relay-undeliverable", [CREWLY], bucket="relay_refused")


LANDLOCK_REVIEW = """Reviewer: BLOCKED
1. [high] linux_sandbox.rs:210 \u2014 when Landlock is denied (ENOSYS on older kernels) we silently fall back to running unsandboxed; fail closed instead."""

CODEX_LANDLOCK = ('Unable to execute repository commands due to sandbox denial ("error running landlock: '
                  'Sandbox(LandlockRestrict)"). No files were modified, and no branch or commit could be created. '
                  "Testing failed with pwd command immediately blocked (\u274c).")


def test_landlock_rule_leaves_review_of_sandbox_code_alone():
    # landlock-or-seccomp-setup-denied read a reviewer's BLOCKED finding about how the code handles a
    # Landlock denial as an environment false red (its route comes before review-blocked).
    assert_not_read("orchestration", "clean-env-green", [LANDLOCK_REVIEW], bucket="review_blocked")
    assert_read("orchestration", "clean-env-green", [CODEX_LANDLOCK], bucket="environment_false_red")


RUST_PROXY = """thread 'proxy::tests::allows_crates_io_through_allowlist' panicked at codex-rs/network-proxy/src/tests.rs:88:5:
request to https://index.crates.io/config.json was blocked by the sandbox proxy (403 Forbidden)
failures:
    proxy::tests::allows_crates_io_through_allowlist
test result: FAILED. 31 passed; 1 failed; 0 ignored"""

PYTEST_PROXY = ("FAILED test_egress.py::test_pypi_is_allowlisted - urllib.error.HTTPError: HTTP Error 403: "
                "request denied by egress proxy\n1 failed, 0 errors in 0.41s")

RUFLO = ("`agentic-flow` (both the `@fix` tag and the default latest) fails to install because its dependency `sharp` "
         "requires a native binary download (libvips) which is blocked by the sandboxed runner's proxy with HTTP 403 Forbidden.")


def test_egress_proxy_rule_leaves_proxy_test_runs_alone():
    # blocked-by-sandbox-egress-proxy read a Rust and a pytest run of an egress proxy's own
    # allowlist tests, red on the block, as an environment false red instead of a red run.
    assert_not_read("orchestration", "clean-env-green", [RUST_PROXY, PYTEST_PROXY], bucket="verification_red")
    assert_read("orchestration", "clean-env-green", [RUFLO], bucket="environment_false_red")


GO_IMAGE = """Our distroless runtime image ships no bash, so the entrypoint was rewritten in Go.
--- FAIL: TestEntrypointArgs (0.00s)
    entrypoint_test.go:42: got ["serve"], want ["serve" "--port=8080"]
FAIL	github.com/acme/api/cmd/entrypoint	0.014s"""

POWER_PACK = ("Fix-forward for the CI regression introduced by #449. `tests/test_check_ignored_additions.py` shells out "
              "to real `git` and `bash` via subprocess. The Woodpecker `validate` step runs in "
              "`ghcr.io/astral-sh/uv:python3.11-bookworm-slim`, which ships **bash but not git**, so the module raised "
              "`FileNotFoundError` and failed CI.")


def test_image_ships_rule_leaves_go_test_red_alone():
    # image-ships-without-tool read a Go test red on the code written around a bash-less image
    # (`--- FAIL: TestEntrypointArgs`) as an environment false red instead of a red run.
    assert_not_read("orchestration", "clean-env-green", [GO_IMAGE], bucket="verification_red")
    assert_read("orchestration", "clean-env-green", [POWER_PACK], bucket="environment_false_red")


CODE_BEFORE_TESTS = [
    "Soak gate failed before tests because network/retry.py has a SyntaxError on line 42 (unexpected indent).",
    "Verification red: the required check failed before the tests because vitest could not load "
    "src/api/client.ts, which no longer exports fetchWithRetry.",
    "Taki: verification FAIL. The e2e gate failed before tests because tests/conftest.py still imports "
    "download_fixture, renamed in this PR.",
]

ODYSSEY = ("Gradient Soak run 30562314191 at main SHA `3756e1bf` failed before tests because the shared development "
           "image unconditionally downloaded the optional Claude Code CLI:\n"
           "RUN curl -fsSL https://claude.ai/install.sh | bash -s -- stable\n"
           "curl: (35) Recv failure: Connection reset by peer")


def test_failed_before_tests_rule_reads_fetch_words_not_code_names():
    # failed-before-tests-on-network-fetch read `network/retry.py`, `fetchWithRetry` and
    # `download_fixture` (a path and code names in a code defect that stopped the suite) as a
    # network fetch, and so an environment false red instead of a red gate.
    assert_not_read("orchestration", "clean-env-green", CODE_BEFORE_TESTS, bucket="verification_red")
    assert_read("orchestration", "clean-env-green", [ODYSSEY], bucket="environment_false_red")


def test_command_end_never_registered_leaves_test_reds_reviews_limits_and_stop_hooks_alone():
    # command-end-never-registered read its "doesn't detect that the command has exited" /
    # "waiting for the X command to finish ... already finished" wording as a stall (its route
    # decides before every other one) inside texts of other buckets: a test runner's failure
    # asserting that an executor detects a command's exit, a PR quoting the Trae issue title
    # beside a red CI run, a reviewer's must-fix about a wait function, a 529 overload or a 429
    # rate limit after the phrase (also a negated mention of the bug), Claude Code's
    # "You've hit your limit", and a Stop hook's own input.
    assert_not_read("orchestration", "stall-watchdog", [
        "FAILED tests/test_terminal.py::test_run_command_detects_exit - AssertionError: executor did not detect that the command had exited within 5s\n"
        "=================== 1 failed, 41 passed in 12.31s ===================",
        " FAIL  src/terminal/__tests__/shellIntegration.test.ts > ShellIntegration > marks the command as done\n"
        "AssertionError: expected false to be true // Object.is equality\n"
        " \u276f the watcher never notices that the command has finished when the prompt marker is missing\n"
        "Tests: 1 failed, 88 passed",
        "PR #1302 fixes #1268 (Agent doesn't recognize when git commands have finished). "
        "CI on this PR is red: 3 tests failed in packages/terminal (exit code 1).",
    ], bucket="verification_red")
    assert_not_read("orchestration", "stall-watchdog", [
        "Verdict: NEEDS_CHANGES\nMust-fix:\n"
        "1. src/agent/terminal.ts:142 `waitForCommand()` never detects that the command has exited when the child "
        "closes stdout before the exit event; the agent will hang. Listen for 'exit' as well as 'close'.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "stall-watchdog", [
        "Agent doesn't recognize when git commands have finished. It keeps waiting for the git command to finish even though "
        "it already finished in the terminal; then the request fails with API Error: 529 "
        '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        "The agent is waiting for the npm test command to finish, even though it already completed in the terminal; the log "
        "shows: API Error: 429 rate_limit_error - Number of request tokens has exceeded your per-minute rate limit. "
        "Retrying in 30s (attempt 4/10)",
        "Not the \"agent doesn't recognize when git commands have finished\" bug from #1268: this time the agent crashed with "
        'Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} before running anything.',
    ], bucket="subagent_overloaded")
    assert_not_read("orchestration", "stall-watchdog", [
        "Claude stopped waiting for the build command to finish even though it already finished... "
        "then: You've hit your limit \u00b7 resets 3pm (Europe/Berlin)",
    ], bucket="usage_limit_mid_task")
    assert_not_read("orchestration", "stall-watchdog", [
        '{"hook_event_name":"Stop","stop_hook_active":true} The agent does not notice that the test command has finished '
        "and the verifier blocks again: \"pytest: error: ModuleNotFoundError: No module named 'conftest'\"",
    ], bucket="stop_hook_loop")
    # Positive control: the Trae report the rule was written from, and hangs after a green test
    # command (its summary lines must not trip the test-report vetoes).
    assert_read("orchestration", "stall-watchdog", [
        "Agent doesn't recognize when git commands have finished\n"
        "when the agent actually completes some changes and wants to commit those, it gets stuck in an infinite loop "
        "waiting for the git command to finish, even though it already successfully finished in the terminal.\n"
        "it first calls 'git add .', which successfully runs in the terminal and stages all files but the agent is still "
        "waiting forever on that command to be done",
        "The agent waits for the pytest command to finish even though it already finished: the terminal shows "
        "\"===== 42 passed in 3.10s =====\" but the agent still says \"Waiting for command to complete...\"",
        "The agent doesn't notice when the jest command has finished: the terminal prints \"Tests:       42 passed, 42 total\" "
        "and exits 0, but the agent keeps showing \"Running command...\" for ten minutes with no output.",
    ], bucket="stalled_no_progress")


# remote-connection-lost-to-sleep (machine-sleep, routed 3rd, before stalls, failed notifications and red runs)
# read a step that RULES OUT sleep ("I never let the computer sleep", "we don't let the machine sleep") as a
# sleep report, and read a jest or pytest failure of a sleep-inhibition test ("sleep not inhibited",
# "wait for the host to sleep" beside "disconnected" / "tunnel connection is interrupted") as a slept machine.
def test_negated_sleep_step_and_sleep_inhibit_test_failures_are_not_machine_sleep():
    assert_not_read("orchestration", "machine-sleep", [
        "Agent stalled: no progress for 600s\n"
        "This is not the machine: I never let the computer sleep (caffeinate -dims is running), yet the session "
        "disconnected in the middle of `npm run build`, the single long foreground command with no output.",
        "worker-2 was cut off mid-task: no output for 10 minutes while it ran the full e2e suite in the foreground.\n"
        "It's not sleep: the build host is a server and we don't let the machine sleep. The SSH session "
        "disconnected after the watchdog killed it.",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", "machine-sleep", [
        "<task-notification>\n<status>failed</status>\n"
        "<summary>Agent \"implement-auth\" failed: API connection lost while writing the final report</summary>\n"
        "</task-notification>\n"
        "Not the laptop: I never let the machine sleep during runs. git log shows both commits are in and all "
        "acceptance criteria are met.",
    ], bucket="notification_failed_work_done")
    assert_not_read("orchestration", "machine-sleep", [
        "FAIL src/tunnel/sleepInhibitor.spec.ts\n"
        "  \u25cf tunnel keepalive \u203a keeps the connection when preventSleep is set\n"
        "    expect(received).toBe(expected)\n"
        "    Expected: \"connected\"\n"
        "    Received: \"disconnected\"\n"
        "    sleep not inhibited: power assertion was released before the tunnel closed\n"
        "Tests: 1 failed, 14 passed",
        "FAILED tests/test_tunnel.py::test_reconnect_after_host_sleep - AssertionError: tunnel connection is interrupted\n"
        "    # wait for the host to sleep, then check the session\n"
        "1 failed, 22 passed in 3.41s",
    ], bucket="verification_red")
    assert_read("orchestration", "machine-sleep", [
        "[JetBrains Gateway] Connection doesn't recover\n"
        "The workspaces list in Gitpod's Provider main screen from JetBrains Gateway gets empty after leaving the "
        "computer alone for a while or having it go to sleep\n"
        "Error log:\n"
        "gitpod.io: connection permanently closed\n"
        "kotlinx.coroutines.JobCancellationException: StandaloneCoroutine was cancelled; "
        "job=StandaloneCoroutine{Cancelled}@6cc8f31c",
        "Remote tunnels: Sleep not inhibited on macOS\n"
        "* `remote.tunnels.access.preventSleep: true`\n"
        "* Connected to the tunnel from a different system and open a workspace\n"
        "* Wait for the system to sleep\n"
        "* Observe that tunnel connection is interrupted while navigating files in the workspace",
        # an imperative workaround is not a denial: still read
        "Remote tunnels: tunnel connection is interrupted overnight\n"
        "Steps: connect from another machine, then wait for the host to sleep. The tunnel connection is "
        "interrupted and never recovers.\n"
        "Workaround for now: don't let the machine sleep (caffeinate).",
    ], bucket="stalled_machine_sleep")


# refuses-own-delegated-work (relay-refused, routed before review blocks, environment false reds and red runs)
# read a negated refusal ("did not refuse its own assigned task") ahead of an environment-only red, a reviewer's
# CHANGES_REQUESTED / "Verdict: BLOCKED" on the PM-directive fix, and a jest failure of a test named
# "does not refuse its own delegated work" as a refused relay.
def test_negated_refusal_reviews_of_the_fix_and_its_failing_test_are_not_relay_refused():
    assert_not_read("orchestration", "relay-refused", [
        "The engineer did not refuse its own assigned task this time; it ran the suite and 3 tests are red, but only "
        "on Node 22 \u2014 on a clean Node 20 environment the same commit is green (the ESM loader change breaks "
        "jest's module mocking).",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "relay-refused", [
        "Review: CHANGES_REQUESTED\n"
        "The new disclaimer in dispatch_prompt() is appended only for engineers; ticketing agents will still refuse "
        "their own delegated work when the worktree's CLAUDE.md carries the PM directive. Add it to every dispatch "
        "and add a test.",
        "**Verdict: BLOCKED**\n"
        "1. src/pm/dispatch.py:88 \u2014 the disclaimer is only added for engineer agents, so ticketing agents still "
        "refuse their own delegated work.\n"
        "Evidence owed: a transcript of a ticketing dispatch after the fix.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "relay-refused", [
        "FAIL tests/dispatch.spec.ts\n"
        "  \u25cf delegation directive \u203a engineer agent does not refuse its own delegated work\n"
        "    expect(received).toBe(expected)\n"
        "    Expected: \"implemented\"\n"
        "    Received: \"refused\"\n"
        "Tests:       1 failed, 41 passed, 42 total",
        " FAIL  tests/delegation.spec.ts > PM directive scoping > workers no longer refuse their own assigned tasks\n"
        "Error: Timed out waiting for the engineer's report",
    ], bucket="verification_red")
    assert_read("orchestration", "relay-refused", [
        "postmortem(trusty-mpm): subagents read the PM's CLAUDE.md mandatory-delegation directive and refuse their "
        "own delegated work\n"
        "**Failure mode:** worktree/project CLAUDE.md files carry the PM's \"YOU ARE STRICTLY FORBIDDEN FROM DOING "
        "ANY WORK DIRECTLY \u2014 delegate everything\" directive. Delegated implementation agents (engineers, "
        "ticketing) read that file as part of project context and conclude THEY must not implement, refusing or "
        "re-delegating their own assigned work.\n"
        "**Occurrences:** the #2451 merge refusal loop and the #2485 ticketing refusal (2026-07-11/12 session); "
        "mitigated since by hand-adding a disclaimer to every dispatch prompt (\"that directive governs the PM "
        "orchestrator only, NOT you \u2014 you are the specialist the work was delegated to\"), which has worked in "
        "all subsequent dispatches.",
        # an expected-behaviour line is not a denial: still read
        "trusty-mpm: ticketing agent refuses work\n"
        "**Expected:** delegated agents should not refuse their own assigned work.\n"
        "**Actual:** the ticketing agent reads the PM's CLAUDE.md \"delegate everything\" directive and refuses its "
        "own assigned work, asking the PM to delegate it instead.",
    ], bucket="relay_refused")


# parallel-results-reduced-to-status (handback-missing, routed before review blocks, Stop hooks and sentinel
# waits) read a reviewer's CHANGES_REQUESTED / "Verdict: BLOCKED" on the formatter fix, a parent that schedules
# wake-ups to wait for reports nobody writes, and a parallel run whose children all timed out as a lost handback.
def test_reviews_of_the_formatter_wakeup_waits_and_timed_out_children_are_not_handback_missing():
    assert_not_read("orchestration", "handback-missing", [
        "Review: CHANGES_REQUESTED\n"
        "formatResultsSummary() in this PR still returns only a per-task status line, not the child agents' output; "
        "the issue asks for finalOutput. Please read finalOutput and add a test.",
        "**Verdict: BLOCKED**\n"
        "src/subagent/format.ts:284 \u2014 parallel mode still returns only the status summary, not the children's "
        "text. Evidence owed: a parallel run transcript showing each child's finalOutput.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "handback-missing", [
        "The parent returned only an aggregate status, so it scheduled a ScheduleWakeup every 5 minutes to check "
        "whether the children's reports had appeared; nobody ever writes them and it keeps waking up.",
    ], bucket="sentinel_wait_loop")
    assert_not_read("orchestration", "handback-missing", [
        "pi-subagents: parallel run returned only an aggregate status\n"
        "run_parallel: 0 succeeded, 3 timed out after 600000ms\n"
        "None of the three children produced a report before the timeout.",
    ], bucket="stalled_no_progress")
    assert_read("orchestration", "handback-missing", [
        "subagent: parallel tasks return only metrics, not child output\n"
        "In parallel mode (`tasks`), the `subagent` tool result sent back to the parent model contains only a "
        "per-task metrics line, not the child agents' text. Single mode (`task`) returns the child's `finalOutput`.\n"
        "`formatResultsSummary` (line 284) builds status plus `progressSummary` and does not read `finalOutput`",
        "enhancement(pi-conductor): surface task IDs and summaries from parallel work\n"
        "`conductor_run_parallel_work` completed successfully but returned only a terse aggregate status:\n"
        "ran 2 parallel conductor task(s) with runtime=headless runs=2; 2 succeeded, 0 need follow-up\n"
        "It did not include task IDs, worker IDs, run IDs, terminal states, latest progress, completion summaries, "
        "or suggested next inspection commands.\n"
        "The parent workflow immediately needed follow-up tool calls just to discover what ran",
    ], bucket="handback_missing")


def test_lefthook_guard_rule_leaves_a_reviewers_finding_on_the_guard_to_review():
    # lefthook-guard-wants-undefined-hook read a reviewer's [P1] finding that quotes the guard's
    # BLOCKED sentence (a review of the guard's fix) as the guard blocking the agent: stop_hook_loop.
    assert_not_read("orchestration", "stop-hook", [
        "Review of PR #1702 (guard: check configured hooks):\n"
        "[P1] crates/csa-executor/src/guard.rs:88 returns `BLOCKED: lefthook config exists but no executable "
        "pre-commit hook is active` when lefthook.yml defines only pre-push; read the configured hook names "
        "before demanding one.\n"
        "[P2] the new helper has no test for a lefthook.yml without any hooks.",
    ], bucket="review_blocked")
    assert_read("orchestration", "stop-hook", [
        "A CSA executor could not commit because the injected git guard requires an executable "
        "`.git/hooks/pre-commit` whenever any `lefthook.yml` exists.\n"
        "BLOCKED: lefthook config exists but no executable pre-commit hook is active.\n"
        "Run: lefthook install\n"
        "Expected hook: .git/hooks/pre-commit\n"
        "Running `lefthook install` returned success and printed `sync hooks: (pre-push)`, but it only created "
        "`.git/hooks/pre-push` because this repository has no `pre-commit` section in `lefthook.yml`.",
    ], bucket="stop_hook_loop")


def test_hook_wedge_rule_leaves_host_only_reds_reviews_and_failed_notifications_alone():
    # git-hook-wedges-every-commit read a hook red only under the agent's older Python/Node (green on a
    # clean machine or on CI), a reviewer's [blocking] finding on the Lefthook shim, and a failed
    # task-notification whose committed work merely mentions the wedge, all as stop_hook_loop.
    assert_not_read("orchestration", "stop-hook", [
        "Your pre-commit hook wedges every commit only in the agent container (Python 3.9 there, the hook's "
        "ruff needs 3.10+); on a clean machine it is green.",
        "The husky pre-commit hook wedges all commits in the agent's shell: `astro check` exits with "
        "\"Node.js v20.11.1 is not supported by Astro!\"; it is green on CI, where .nvmrc pins Node 22.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "stop-hook", [
        "Review: REQUEST CHANGES\n"
        "[blocking] scripts/hooks/lefthook-shim.sh: the `command -v` fallback sits behind an always-true "
        "condition, so an unresolvable Lefthook wedges all commits; make the fallback reachable.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "stop-hook", [
        "<task-notification>\n<status>failed</status>\n"
        "<summary>Agent \"implement retry budget\" failed: API connection error while writing the final report</summary>\n"
        "<result>Committed a1b2c3d feat(retry): add retry budget and 4e5f6a7 test(retry): cover budget. Pushed. "
        "Note: the Lefthook shim wedges all commits when uv cannot resolve lefthook, so I ran the global lefthook bin inst</result>\n"
        "</task-notification>",
    ], bucket="notification_failed_work_done")
    assert_read("orchestration", "stop-hook", [
        "fix(hooks): generated Lefthook shim resolves through an always-true condition, so every fallback is "
        "dead and an unresolvable Lefthook wedges all commits\n"
        "When `uv run --frozen lefthook` cannot resolve the package, the shim does not fall through to a working "
        "`lefthook` binary. It fails, and the commit is impossible without a policy-forbidden bypass.",
    ], bucket="stop_hook_loop")


def test_missing_tool_hook_rule_leaves_reviews_ci_green_reds_and_failed_notifications_alone():
    # hook-blocks-tool-not-installed read a reviewer's [P1] / "changes required" finding about a hook that
    # blocks without uv, a hook red only on dev boxes while CI is green, and the failed task-notification of
    # the agent that already fixed the hook (quoting the old behaviour), all as stop_hook_loop.
    assert_not_read("orchestration", "stop-hook", [
        "Soyo: BLOCKED\n[P1] hooks/user-prompt.sh: when uv is not installed the hook blocks after every prompt. "
        "Guard the call with `command -v uv`.",
        "Code review: changes required.\n1. hooks/prompt_submit.sh: when uv is not installed the hook blocks every "
        "prompt with no message; exit 0 with a warning instead.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "stop-hook", [
        "When jq is not installed the hook blocks every prompt on our Ubuntu 22.04 dev boxes, but it passes on "
        "CI's macOS image where jq ships by default.",
    ], bucket="environment_false_red")
    assert_not_read("orchestration", "stop-hook", [
        "<task-notification>\n<task-id>a7f3</task-id>\n<status>failed</status>\n"
        "<summary>Agent \"add prompt guard\" failed: Connection error.</summary>\n"
        "<result>Done: hooks/prompt.sh now checks `command -v uv` first (commit 9e1c0b2). Before this, when uv is "
        "not installed the hook blocks every prompt; now it prints a warning and exits 0. Writing the final rep</result>\n"
        "</task-notification>",
    ], bucket="notification_failed_work_done")
    assert_read("orchestration", "stop-hook", [
        "When UV is not installed, the hook blocks after user prompts\n"
        "Right now, the whole setup silently fails if uv is not installed. Users don't receive an error message, "
        "but instead when they submit a prompt, a hook that tries to call uv then blocks everything.",
    ], bucket="stop_hook_loop")


def test_shared_library_missing_skips_test_reports_verdicts_and_notifications_quoting_loader_words():
    # shared-library-missing-on-host (env-version-mismatch, routed before the review and verifier
    # routes) misread: a pytest AssertionError and a Rust test's panic whose assertions quote the
    # loader's words (verification red), a reviewer's `**Verdict: BLOCKED**` / `Review verdict:`
    # that only `## verdict` vetoed (review blocked), and a failed task-notification over an agent's
    # summary quoting the loader error it fixed (notification failed): all read as environment false red.
    assert_not_read("orchestration", "env-version-mismatch", [
        "FAILED tests/test_doctor.py::test_reports_missing_library - AssertionError: assert 'install libgbm1' in \"/usr/share/atom/atom: error while loading shared libraries: libgbm.so.1: cannot open shared object file: No such file or directory\\n\"\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_doctor.py::test_reports_missing_library\n"
        "1 failed, 41 passed in 3.12s",
        "test launcher::tests::missing_lib_hint ... FAILED\n"
        "---- launcher::tests::missing_lib_hint stdout ----\n"
        "thread 'launcher::tests::missing_lib_hint' panicked at src/launcher.rs:212:9:\n"
        "assertion `left == right` failed\n"
        "  left: \"error while loading shared libraries: libssl.so.3: cannot open shared object file\"\n"
        " right: \"error while loading shared libraries: libssl.so.3: cannot open shared object file (hint: install openssl 3)\"\n"
        "test result: FAILED. 57 passed; 1 failed; 0 ignored",
    ], bucket="verification_red")
    assert_not_read("orchestration", "env-version-mismatch", [
        "**Verdict: BLOCKED**\n"
        "The new `build.rs` now links `-lodbc` unconditionally, so every macOS build fails with `ld: library 'odbc' not found`. Gate the link behind the `odbc` feature before this can merge.",
        "Review verdict: BLOCKED\n"
        "1. `setup.py` drops `libtiledb` from the bundled wheel libs; the import now dies with `OSError: libtiledb.so.2.11: cannot open shared object file`. Put it back in package_data.",
    ], bucket="review_blocked")
    assert_not_read("orchestration", "env-version-mismatch", [
        "<task-notification>\n<task-id>b7c2e9</task-id>\n<status>failed</status>\n"
        "<summary>Installed libgbm1 in the CI image: `/usr/share/atom/atom: error while loading shared libraries: libgbm.so.1: cannot open shared object file` is gone, committed 3f2a1c9, Test-grammar job now runs the specs and</summary>\n"
        "</task-notification>",
    ], bucket="notification_failed_work_done")
    assert_read("orchestration", "env-version-mismatch", [
        "Test-grammar CI job is failing\nSeems to be an issue with a missing shared library dependency.\nRunning specs...\n"
        "/usr/share/atom/atom: error while loading shared libraries: libgbm.so.1: cannot open shared object file: No such file or directory",
        "2026-04-15T03:32:07.6449628Z OSError: libOpenCL.so.1: cannot open shared object file: No such file or directory\n"
        "2026-04-15T03:32:07.6474428Z testSharedLibrariesLoad (rocm_sdk.tests.core_test.ROCmCoreTest.testSharedLibrariesLoad) ...",
        "Every sign-off that gets past setup now dies at the link step of an unrelated crate:\n"
        "ld: warning: search path '/Users/runner/lib' not found\nld: library 'odbc' not found\n"
        "clang: error: linker command failed with exit code 1",
    ], bucket="environment_false_red")


def test_collection_broken_by_code_skips_agent_reports_of_an_import_error_already_fixed():
    # collection-broken-by-code (verification-red, which vetoes the pushed-branch-without-pr route)
    # misread an agent's hand-back over a branch pushed without a PR that quotes the syntax or
    # circular-import error it fixed: read as a red gate instead of the missing hand-off.
    assert_not_read("orchestration", "verification-red", [
        "Branch `fix/autoagents-syntax` pushed without a PR: the stray `except ValueError as e:` in autoagents.py that caused "
        "`SyntaxError: invalid syntax` and `ERROR collecting tests/unit/test_tools_and_ui.py` is fixed, 318 passed.",
        "Branch fix/circular-import pushed without a PR: moved the `NMFolder` import into `NMManager.__init__`, which resolves "
        "`ImportError: cannot import name 'NMFolder' from partially initialized module 'pyneuromatic.core.nm_folder' "
        "(most likely due to a circular import)`; tests/test_core now collects and passes (212 passed).",
    ], bucket="handback_missing")
    assert_read("orchestration", "verification-red", [
        "All tests under `tests/test_core/` that import from `pyneuromatic.core.nm_manager`\n"
        "or `pyneuromatic.core.nm_folder` fail to collect with:\n"
        "ImportError: cannot import name 'NMFolder' from partially initialized module\n"
        "'pyneuromatic.core.nm_folder' (most likely due to a circular import)",
        "E     File \"/home/runner/work/PraisonAI/PraisonAI/src/praisonai-agents/praisonaiagents/agents/autoagents.py\", line 436\n"
        "E       except ValueError as e:\nE       ^^^^^^\nE   SyntaxError: invalid syntax\n"
        "_______________ ERROR collecting tests/unit/test_tools_and_ui.py _______________",
    ], bucket="verification_red")


def test_token_counts_and_costs_holding_529_are_no_overload_veto():
    """The shared limit-or-overload veto words read 529 only in the forms a status takes
    (`API Error: 529 {`, `(HTTP 529)`): a bare `529` stood the stall rules down on an agent
    UI's token count or cost (`1529 out · $0.0529`) and on an issue number."""
    stopped = "the sub-agents above stopped in the middle of execution"
    assert_read("orchestration", "stall-watchdog", [
        f"Round 2: {stopped} (Done · 35s · 1529 out · $0.0529)",
        f"{stopped}, see https://github.com/acme/agents/issues/529",
    ], bucket="stalled_no_progress")
    assert_not_read("orchestration", "stall-watchdog", [
        f'{stopped}: API Error: 529 {{"type":"error","error":{{"type":"overloaded_error"}}}}',
        f"{stopped} (HTTP 529)",
    ], bucket="subagent_overloaded")


def test_fix_loop_rules_stand_down_on_every_limit_word_the_shared_set_holds():
    """fix-loop-other-causes names no limit words of its own: its rules name
    limit-or-overload-words beside it, so a weekly limit or a 529 status beside a test red
    after the fix is the limit's, while the red alone is still the same test twice."""
    red = "Even after fixing the import, the test test_login still fails with the same assertion."
    assert_read("orchestration", "same-test-red-twice", [red], bucket="same_test_red_twice")
    assert_not_read("orchestration", "same-test-red-twice", [
        f"{red} Then: weekly limit reached, resets Monday.",
        f"{red} API Error: 529 {{\"type\":\"error\"}}",
    ], not_bucket="same_test_red_twice")


def test_rules_that_stand_down_on_limits_read_529_only_as_a_status():
    # cancelled-child-null-result-over-completed-work typed its own copy of the limit words with a
    # bare `529`, which a token count or a cost (`1529 out · $0.0529`) holds; it and the two stall
    # rules that typed limit words inline now name the shared limit-or-overload-words set.
    footer = " (tokens 4529 in, 1529 out · $0.0529)"
    assert_read("orchestration", "false-stall-over-live-work", [
        "The worker was cancelled after 600s and returned an empty result even though it had"
        " already finished writing report.md" + footer,
    ], bucket="notification_failed_work_done")
    assert_read("orchestration", "stall-watchdog", [
        "Heartbeat froze 5h, it never reaped the worker" + footer,
    ], bucket="stalled_no_progress")
    # and they still stand down on the set's limit words, the hyphenated form included
    assert_lands("orchestration", [
        "The lead froze 5h while Usage-limit gating held its teammates until the window reopens",
        "The worker was cancelled by a rate limit and returned null even though it had completed the edits",
    ], not_bucket="stalled_no_progress")
    assert_lands("orchestration", [
        "The worker was cancelled by a rate limit and returned null even though it had completed the edits",
    ], not_bucket="notification_failed_work_done")


def test_a_start_refused_for_the_tokens_access_is_not_a_start_up_overload():
    """Every rule that reads a failed start as overload stands down on the
    `start-refused-for-access` set: a token without the needed permissions fails the
    same way on every retry. The same starts for capacity stay overloads."""
    refused = [
        "Subagent failed to start: the token does not have the necessary permissions to access this repository",
        "Copilot is unable to start working on this issue: The token used to assign the agent "
        "doesn't have the necessary permissions. Agent failed to start.",
    ]
    assert_not_read("orchestration", "overloaded", refused, not_bucket="subagent_overloaded")
    assert_not_read("orchestration", "broad-start-failure", refused)
    assert_read("orchestration", "overloaded", [
        "Subagent failed to start: 529 overloaded", "Agent failed to start. Request was aborted.",
    ], bucket="subagent_overloaded")


def test_a_benchmark_instance_id_s_number_is_no_failure_count():
    # verification-fail read the bare count `\b[1-9]\d* failed` in an instance id's trailing
    # number (`django__django-12663 failed`), making a harness's retry line a red gate
    assert_not_read("orchestration", "verification-red", [
        "Instance django__django-12663 failed (attempt 2/3): container exited",
        "astropy__astropy-14365 failed on all retries",
    ])
    assert_read("orchestration", "verification-red", [
        "3 failed",
        "=== 3 failed, 10 passed in 2.1s ===",
        "pytest: 12 failed, 1 passed",
    ], bucket="verification_red")
