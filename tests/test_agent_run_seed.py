"""Seed 004's test suite (agentmux_srv/agents/failure.rs), ported test for test.

Every ``#[test]`` of the seed has a counterpart here with the same name, asserting the
same things against ``failtax.classify(..., taxonomy="agent-run")``. Where the seed
calls its private helpers (``extract_*_provider``, ``capitalize_provider``,
``tail_lines``), the port goes through what replaces them in failtax: the shipped
table's ``capture`` patterns, :func:`failtax.classify.render_template` and
:func:`failtax.evidence.tail_lines` — and also through ``classify`` end to end.
"""

from __future__ import annotations

import json

import pytest

import failtax
from failtax.classify import render_template
from failtax.evidence import tail_lines
from failtax.table import compile_regex, load_table


def classify(exit_code, signal, stderr, result_frame=None):
    """The seed's signature, mapped onto failtax's evidence mapping."""
    evidence = {"text": stderr, "exit_code": exit_code, "signal": signal}
    if result_frame is not None:
        evidence["result_frame"] = result_frame
    return failtax.classify(evidence, taxonomy="agent-run")


def capture_of(rule_id: str):
    """The compiled ``capture`` pattern of one shipped extractor rule."""
    table = load_table("agent-run")
    rule = next(r for r in table.extract if r.id == rule_id)
    assert rule.capture, f"{rule!r} has no capture"
    return compile_regex(rule.capture)


def extract_spawn_gate_provider(text: str) -> str | None:
    m = capture_of("spawn-gate-missing-credentials").search(text)
    return m.group("provider") if m else None


def extract_ambient_home_provider(text: str) -> str | None:
    m = capture_of("spawn-gate-ambient-home").search(text)
    return m.group("provider") if m else None


def extract_claude_md_seed_provider(text: str) -> str | None:
    m = capture_of("spawn-gate-config-isolation").search(text)
    return m.group("provider") if m else None


def capitalize_provider(provider_id: str) -> str:
    return render_template("{provider|capitalize}", {"provider": provider_id})


def error_frame(message: str) -> dict:
    return {
        "type": "result",
        "is_error": True,
        "subtype": "error_during_execution",
        "error": {"message": message},
    }


# `SpawnGateError::AgentDeleted { agent_id: "uid-x" }.to_string()`
AGENT_DELETED_MSG = "agent uid-x was deleted, so this pane cannot start"
# `agent_admission::denied_message("Agent3", None)`
DENIED_MSG = (
    "Agent3 is already running in another AgentMux instance on this host. "
    "Take it over there, or close it first."
)


def test_rate_limit_incident_string_classifies_retryable():
    stderr = "API Error: Server is temporarily limiting requests (not your usage limit) · Rate limited"
    f = classify(1, None, stderr)
    assert f.bucket == "rate_limited"
    assert f.retryable is True
    e = f.explain()
    assert "Rate-limited" in e
    assert "retryable" in e
    assert "rate limited" in e.lower()


def test_not_your_usage_limit_does_not_classify_as_usage_limit():
    f = classify(1, None, "temporarily limiting requests (not your usage limit) · Rate limited")
    assert f.bucket == "rate_limited"


@pytest.mark.parametrize(
    "stderr",
    [
        "panic at 2026-04-29T10:00:00: unexpected eof",
        "build 2026-04-01 failed: assertion",
        "ts=2026-05-29 fatal: segfault",
    ],
)
def test_iso_date_in_stderr_does_not_false_positive(stderr):
    f = classify(2, None, stderr)
    assert f.bucket == "unknown_non_zero", f"{stderr!r} must not match an HTTP status"
    assert f.rule == "fallback"


def test_anchored_http_status_still_classifies():
    assert classify(1, None, "Error: HTTP 429 Too Many Requests").bucket == "rate_limited"
    assert classify(1, None, "request failed with status 401").bucket == "auth"


def test_overloaded_is_retryable():
    f = classify(1, None, "overloaded_error: please retry")
    assert f.bucket == "overloaded"
    assert f.retryable is True


def test_invalid_api_key_is_auth_not_retryable():
    f = classify(1, None, "authentication_error: Invalid API key provided")
    assert f.bucket == "auth"
    assert f.retryable is False


def test_sigkill_is_killed():
    f = classify(None, 9, "")
    assert f.bucket == "killed"
    assert f.signal == 9
    assert "[signal 9]" in f.explain()


def test_exit_137_is_killed():
    f = classify(137, None, "")
    assert f.bucket == "killed"


def test_context_window_exceeded_classifies():
    f = classify(1, None, "prompt is too long: 1200000 tokens > 200000 maximum context window")
    assert f.bucket == "context_exceeded"


def test_network_error_is_retryable():
    f = classify(1, None, "APIConnectionError: Connection error.")
    assert f.bucket == "network"
    assert f.retryable is True


def test_clean_exit_no_output_is_no_output():
    f = classify(0, None, "")
    assert f.bucket == "no_output"
    assert f.retryable is False


def test_unknown_nonzero_is_default():
    f = classify(2, None, "something unexpected happened")
    assert f.bucket == "unknown_non_zero"
    assert "[exit 2]" in f.explain()


def test_authentication_failed_string_is_auth():
    # In-band 401: the CLI wraps the error in a synthetic assistant message with
    # "error": "authentication_failed"; its text is folded into the evidence.
    f = classify(
        0,
        None,
        "authentication_failed Failed to authenticate. API Error: 401 Invalid authentication credentials",
    )
    assert f.bucket == "auth"
    assert f.retryable is False


def test_authentication_failed_in_band_frame_is_auth():
    # The same evidence as the seed's test, given as the in-band frame itself.
    frame = {
        "type": "assistant",
        "error": "authentication_failed",
        "message": {"content": [{"type": "text", "text": "Failed to authenticate. API Error: 401"}]},
    }
    f = failtax.classify({"exit_code": 0, "frames": [frame]}, taxonomy="agent-run")
    assert f.bucket == "auth"
    assert "authentication_failed Failed to authenticate" in f.stderr_tail


def test_invalid_authentication_credentials_is_auth():
    assert classify(0, None, "invalid authentication credentials").bucket == "auth"


def test_api_error_colon_401_is_auth():
    assert classify(0, None, "api error: 401 invalid authentication credentials").bucket == "auth"


def test_spawn_gate_agent_deleted_is_its_own_class_and_not_retryable():
    f = classify(None, None, AGENT_DELETED_MSG)
    assert f.bucket == "agent_deleted"
    assert f.retryable is False
    assert f.title == "Agent was deleted"


def test_a_single_live_instance_refusal_is_its_own_class():
    f = classify(None, None, DENIED_MSG)
    assert f.bucket == "live_elsewhere"
    assert f.title == "Running in another AgentMux instance"
    assert f.detail == DENIED_MSG, "the detail is the refusal itself, naming the holder"
    assert f.retryable is False
    framed = f"[AgentMux] {DENIED_MSG}"
    framed_f = classify(None, None, framed)
    assert framed_f.bucket == "live_elsewhere"
    assert framed_f.detail == DENIED_MSG, "the [AgentMux] prefix is not part of the detail"
    taken = "Agent3 was taken over by another AgentMux instance on this host (channel x)."
    assert classify(None, None, taken).title == "Taken over by another AgentMux instance"
    assert f.to_agent_failure()["code"] == "live_elsewhere"


def test_live_instance_detail_is_the_refusal_line_among_other_lines():
    # frame_or_stderr_line: the one line that carries the refusal, prefix removed.
    text = f"starting agent\n[AgentMux] {DENIED_MSG}\nbye"
    f = classify(None, None, text)
    assert f.detail == DENIED_MSG


def test_spawn_gate_missing_credentials_is_auth_not_unknown():
    frame = error_frame(
        "[AgentMux] no credentials for claude: the bound account was deleted or is unresolvable. "
        "Bind an account for this provider in Connectors → Accounts."
    )
    f = classify(1, None, "", frame)
    assert f.bucket == "auth"
    assert "Claude" in f.detail, f.detail
    assert f.title == "No account linked"
    assert f.detail.startswith("No Claude account is bound to this agent")


def test_spawn_gate_missing_credentials_from_before_the_armory_split_still_classifies():
    frame = error_frame(
        "[AgentMux] no credentials for codex: the bound account was deleted or is unresolvable. "
        "Bind an account for this provider in the Armory."
    )
    f = classify(1, None, "", frame)
    assert f.bucket == "auth"
    assert "Codex" in f.detail, f.detail


def test_spawn_gate_missing_credentials_names_the_actual_provider_not_claude():
    frame = error_frame(
        "[AgentMux] no credentials for gemini: the bound account was deleted or is unresolvable. "
        "Bind an account for this provider in Connectors → Accounts."
    )
    f = classify(1, None, "", frame)
    assert f.bucket == "auth"
    assert "Gemini" in f.detail, f.detail
    assert "Claude" not in f.detail, f.detail


def test_spawn_gate_missing_credentials_without_provider_falls_back_to_generic_phrase():
    # The seed's `.unwrap_or_else(|| "No account")` when the extraction misses.
    f = classify(1, None, "Bind an account for this provider in Connectors → Accounts.")
    assert f.bucket == "auth"
    assert f.detail.startswith("No account is bound to this agent"), f.detail


def test_spawn_gate_ambient_home_dir_is_auth_not_unknown():
    frame = error_frame(
        "[AgentMux] this agent's claude identity points directly at your personal claude config "
        "directory (C:\\Users\\user\\.claude) instead of an isolated AgentMux account — AgentMux no "
        "longer allows spawning an agent against your own global CLI login. Re-bind this identity "
        "to an isolated account in Connectors \u2192 Accounts (delete the current claude account and "
        "log in again to create a fresh, isolated one), then retry."
    )
    f = classify(1, None, "", frame)
    assert f.bucket == "auth"
    assert f.retryable is False, "a bare retry can never succeed against this gate"
    assert "Claude" in f.detail, f.detail
    assert "identity" in f.title.lower(), f.title


def test_spawn_gate_ambient_home_dir_names_the_actual_provider_not_claude():
    frame = error_frame(
        "[AgentMux] this agent's codex identity points directly at your personal codex config "
        "directory (/home/user/.codex) instead of an isolated AgentMux account — AgentMux no longer "
        "allows spawning an agent against your own global CLI login. Re-bind this identity to an "
        "isolated account in Connectors \u2192 Accounts (delete the current codex account and log in "
        "again to create a fresh, isolated one), then retry."
    )
    f = classify(1, None, "", frame)
    assert f.bucket == "auth"
    assert "Codex" in f.detail, f.detail
    assert "Claude" not in f.detail, f.detail


def test_spawn_gate_claude_md_seed_failed_is_auth_not_unknown():
    frame = error_frame(
        "[AgentMux] could not isolate this agent's claude config directory "
        "(C:\\Users\\user\\.agentmux\\shared\\identities\\id-1\\claude): permission denied. Refusing "
        "to spawn with an unprotected config dir — retry, and check the directory's permissions if "
        "it persists."
    )
    f = classify(1, None, "", frame)
    assert f.bucket == "auth"
    assert f.retryable is False, "a bare retry may not succeed against a persistent permissions issue"
    assert "Claude" in f.detail, f.detail
    assert "isolate" in f.title.lower(), f.title


def test_spawn_gate_claude_md_seed_failed_names_the_actual_provider_not_claude():
    frame = error_frame(
        "[AgentMux] could not isolate this agent's codex config directory "
        "(/home/user/.agentmux/shared/providers/codex): permission denied. Refusing to spawn with "
        "an unprotected config dir — retry, and check the directory's permissions if it persists."
    )
    f = classify(1, None, "", frame)
    assert f.bucket == "auth"
    assert "Codex" in f.detail, f.detail
    assert "Claude" not in f.detail, f.detail


def test_extract_claude_md_seed_provider_reads_the_provider_out_of_the_gate_wording():
    text = "could not isolate this agent's gemini config directory (/x): some io error."
    assert extract_claude_md_seed_provider(text) == "gemini"
    # End to end: the same wording with the refusal marker names Gemini in the detail.
    f = classify(1, None, text + " Refusing to spawn with an unprotected config dir.")
    assert f.facts["provider"] == "gemini"
    assert "This agent's Gemini config directory" in f.detail


def test_extract_claude_md_seed_provider_returns_none_on_wording_mismatch():
    assert extract_claude_md_seed_provider("some unrelated error text") is None
    f = classify(1, None, "Refusing to spawn with an unprotected config dir (wording drifted)")
    assert f.bucket == "auth"
    assert "provider" not in f.facts
    assert f.detail.startswith("This agent's config directory could not be prepared"), f.detail


def test_extract_ambient_home_provider_reads_the_provider_out_of_the_gate_wording():
    text = "this agent's gemini identity points directly at your personal gemini config directory (/x)."
    assert extract_ambient_home_provider(text) == "gemini"
    f = classify(1, None, text + " instead of an isolated AgentMux account")
    assert f.facts["provider"] == "gemini"
    assert f.detail.startswith("This agent's Gemini identity is bound directly")


def test_extract_ambient_home_provider_returns_none_on_wording_mismatch():
    assert extract_ambient_home_provider("some unrelated error text") is None
    f = classify(1, None, "bound instead of an isolated AgentMux account")
    assert f.bucket == "auth"
    assert f.detail.startswith("This agent's identity is bound directly"), f.detail


def test_capitalize_provider_title_cases_the_raw_id():
    assert capitalize_provider("claude") == "Claude"
    assert capitalize_provider("gemini") == "Gemini"
    assert capitalize_provider("") == ""


def test_spawn_gate_injection_unavailable_is_not_auth():
    frame = error_frame(
        "[AgentMux] credential injection could not run (panic); the spawn was refused rather than "
        "falling back to the global CLI login. Retry, and check `muxlog auth` if it persists."
    )
    f = classify(1, None, "", frame)
    assert f.bucket == "unknown_non_zero"


def test_result_frame_max_turns_subtype():
    frame = {"type": "result", "is_error": True, "subtype": "error_max_turns"}
    f = classify(0, None, "", frame)
    assert f.bucket == "max_turns"


def test_result_frame_error_message_feeds_classification():
    f = classify(0, None, "", error_frame("overloaded_error: upstream busy"))
    assert f.bucket == "overloaded"


def test_result_frame_error_without_known_cause_is_agent_reported_error():
    # The seed's `frame_reported_error` fallback: exit 0 but the frame says error.
    f = classify(0, None, "", error_frame("something odd"))
    assert f.bucket == "unknown_non_zero"
    assert f.title == "Agent reported an error"


def test_result_frame_text_order_follows_the_seed():
    # /error/message, else string error, else string result, else errors[0], else subtype.
    assert classify(1, None, "", {"error": "Rate limited", "result": "x"}).bucket == "rate_limited"
    assert classify(1, None, "", {"result": "Prompt is too long"}).bucket == "context_exceeded"
    frame = {"is_error": True, "errors": ["", "No conversation found with session ID: abc"]}
    f = classify(1, None, "", frame)
    assert "No conversation found" in f.stderr_tail
    assert classify(0, None, "", {"subtype": "error_max_turns"}).bucket == "max_turns"


def test_tail_lines_keeps_last_lines_char_safe():
    s = "\n".join(f"line{i}" for i in range(100))
    t = tail_lines(s, 5, 1000)
    assert len(t.splitlines()) == 5
    assert "line99" in t
    assert "line0\n" not in t


def test_tail_lines_char_cap_never_splits_a_code_point():
    s = "ok\n" + "é🙂" * 1000
    t = tail_lines(s, 24, 1600)
    assert len(t) == 1600
    t.encode("utf-8")  # a split surrogate would make this raise
    assert t.endswith("é🙂")


def test_classification_tail_is_24_lines_and_1600_chars():
    s = "\n".join(f"line {i} " + "x" * 100 for i in range(40))
    f = classify(1, None, s)
    assert len(f.stderr_tail) == 1600
    assert f.stderr_tail.endswith("line 39 " + "x" * 100)
    assert len(tail_lines(s, 24, 10**6).splitlines()) == 24


def test_extract_spawn_gate_provider_reads_the_provider_out_of_the_gate_wording():
    text = "no credentials for codex: the bound account was deleted or is unresolvable."
    assert extract_spawn_gate_provider(text) == "codex"


def test_extract_spawn_gate_provider_returns_none_on_wording_mismatch():
    assert extract_spawn_gate_provider("some unrelated error text") is None


def test_serializes_snake_case_code_camel_fields():
    f = classify(1, None, "Rate limited")
    v = f.to_agent_failure()
    assert v["code"] == "rate_limited"
    assert v["retryable"] is True
    assert "stderrTail" in v, f"camelCase stderrTail expected: {v}"
    assert v["exitCode"] == 1
    assert "signal" not in v and "exit_code" not in v and "stderr_tail" not in v
    json.dumps(v)  # the wire object is plain JSON


def test_agent_failure_omits_empty_tail_and_carries_signal():
    v = classify(None, 9, "").to_agent_failure()
    assert v == {
        "code": "killed",
        "title": "Agent process was killed",
        "detail": (
            "Terminated by a signal — most often the OS out-of-memory killer or an external stop. "
            "Reduce concurrent load / memory pressure and retry."
        ),
        "signal": 9,
        "retryable": False,
    }


def test_explain_has_the_seed_shape():
    f = classify(1, None, "Error: HTTP 429 Too Many Requests")
    assert f.explain() == (
        "Rate-limited by the API — Server-side rate limit — transient, and not your account "
        "quota. Retry shortly; consider lowering parallelism. [exit 1] (retryable)\n"
        "--- claude stderr (tail) ---\n"
        "Error: HTTP 429 Too Many Requests"
    )
    # A signal is shown instead of the exit code when both are present.
    assert "[signal 15]" in classify(143, 15, "").explain()
    assert "[exit" not in classify(143, 15, "").explain()


def test_every_failure_class_has_its_wire_name():
    # FailureClass with serde(rename_all = "snake_case"), in declaration order.
    assert failtax.load_taxonomy("agent-run").bucket_names == (
        "rate_limited", "overloaded", "usage_limit", "auth", "context_exceeded", "max_turns",
        "network", "killed", "no_output", "spawn_failure", "unknown_non_zero", "agent_deleted",
        "live_elsewhere",
    )
