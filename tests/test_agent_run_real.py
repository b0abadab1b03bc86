"""The shipped agent-run table against seed 004's keyword chain, on real messages.

``seed_classify`` below is a plain-Python port of seed 004's ``classify()`` if-chain
(agentmux_srv/agents/failure.rs), keyword for keyword and in the same order. On the
real messages in ``tests/fixtures/real_messages/agent-run.yaml`` its bare keywords
misfire: "resolve", "insufficient", "timeout", "context" or "overloaded" inside
unrelated errors, subscription caps worded like rate limits, kills and out-of-memory
deaths reported only in text, and ``spawn_failure``, which the seed declares but never
returns. These tests pin each misfire and show the shipped table gets it right.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

import failtax
from narrowed import answer, assert_lands, assert_not_read, assert_read, shipped_table_with_veto_word
from real_messages import read_yaml  # tests/real_messages.py: the fixtures, parsed once

REAL = Path(__file__).resolve().parent / "fixtures" / "real_messages" / "agent-run.yaml"
_STATUS_CONTEXTS = (
    "http {c}", "http/1.1 {c}", "http/2 {c}", "status {c}", "status: {c}", "status code {c}",
    "code {c}", "code: {c}", "error {c}", "error: {c}", "[{c}]", "({c})",
)


def _status(hay: str, code: str) -> bool:
    return any(p.format(c=code) in hay for p in _STATUS_CONTEXTS)


def _frame_text(frame: dict | None) -> str:
    if not frame:
        return ""
    err = frame.get("error")
    if isinstance(err, dict) and isinstance(err.get("message"), str):
        return err["message"]
    for key in ("error", "result"):
        if isinstance(frame.get(key), str):
            return frame[key]
    for e in frame.get("errors") or []:
        if isinstance(e, str) and e:
            return e
    return frame.get("subtype") if isinstance(frame.get("subtype"), str) else ""


def seed_classify(exit_code: int | None, signal: int | None, stderr: str, frame: dict | None = None) -> str:
    """Seed 004's classify(), returning the FailureClass wire name."""
    frame_error = bool(frame) and (
        frame.get("is_error") is True or str(frame.get("subtype", "")).startswith("error")
    )
    frame_text = _frame_text(frame)
    combined = f"{stderr}\n{frame_text}" if frame_text else stderr
    hay = combined.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"))
    has = lambda *words: any(w in hay for w in words)  # noqa: E731
    if frame and "max_turns" in str(frame.get("subtype", "")):
        return "max_turns"
    if signal is not None or exit_code == 137:
        return "killed"
    if has("rate limited", "temporarily limiting requests", "rate_limit") or _status(hay, "429"):
        return "rate_limited"
    if has("overloaded") or _status(hay, "529"):
        return "overloaded"
    if has("bind an account for this provider in connectors", "bind an account for this provider in the armory"):
        return "auth"
    if has("running in another agentmux instance", "was taken over by another agentmux instance"):
        return "live_elsewhere"
    if has("was deleted, so this pane cannot start"):
        return "agent_deleted"
    if has("instead of an isolated agentmux account", "refusing to spawn with an unprotected config dir"):
        return "auth"
    if has(
        "authentication_error", "authentication_failed", "invalid authentication", "invalid api key",
        "invalid x-api-key", "unauthorized", "please run /login",
    ) or _status(hay, "401"):
        return "auth"
    if has("model_context_window_exceeded", "prompt is too long") or (
        "context" in hay and has("exceed", "window", "too long")
    ):
        return "context_exceeded"
    if has("max turns", "max-turns", "maximum number of turns"):
        return "max_turns"
    if has("usage limit", "out of credits", "quota", "billing", "insufficient"):
        return "usage_limit"
    if has("apiconnectionerror", "connection error", "could not resolve", "econnreset", "network",
           "timed out", "timeout", "dns"):
        return "network"
    if frame_error:
        return "unknown_non_zero"
    if exit_code == 0:
        return "no_output"
    return "unknown_non_zero"


@functools.lru_cache(maxsize=1)
def _entries() -> tuple[dict[str, Any], ...]:
    return tuple(read_yaml(REAL))


def _seed(entry: dict[str, Any]) -> str:
    return seed_classify(entry.get("exit_code"), entry.get("signal"), entry.get("text", ""), entry.get("result_frame"))


def _table(entry: dict[str, Any]) -> str:
    evidence = {k: entry[k] for k in ("text", "exit_code", "signal", "result_frame") if k in entry}
    return failtax.classify(evidence, taxonomy="agent-run").bucket


# (golden id, what seed 004 answers) — each a misfire of one of its bare keywords.
SEED_MISFIRES = [
    # "resolve", "insufficient", "timeout", "context", "overloaded" inside unrelated errors
    ("npm-eresolve-could-not-resolve-dependency", "network"),
    ("esbuild-could-not-resolve-import", "network"),
    ("gradle-could-not-resolve-all-files", "network"),
    ("anthropic-sdk-could-not-resolve-auth-method", "network"),
    ("claude-insufficient-permissions-npm", "usage_limit"),
    ("git-insufficient-permission-objects", "usage_limit"),
    ("k8s-insufficient-memory", "usage_limit"),
    ("jest-exceeded-timeout", "network"),
    ("vitest-test-timed-out", "network"),
    ("playwright-locator-timeout", "network"),
    ("rustc-cannot-find-timeout", "network"),
    ("mocha-timeout-exceeded-at-context", "context_exceeded"),
    ("mocha-window-not-defined", "context_exceeded"),
    ("mocha-max-call-stack", "context_exceeded"),
    ("go-context-deadline-exceeded-openai", "context_exceeded"),
    ("gcc-call-of-overloaded-ambiguous", "overloaded"),
    ("disk-quota-exceeded", "usage_limit"),
    ("jest-billing-test-failure", "usage_limit"),
    ("jest-network-path-failure", "network"),
    ("supertest-got-401-unauthorized", "auth"),
    ("git-pathspec-quota-branch", "usage_limit"),
    ("python-import-billing", "usage_limit"),
    ("chai-expected-status-429", "rate_limited"),
    # subscription caps worded like rate limits, and rate limits worded like quotas
    ("openai-insufficient-quota-429", "rate_limited"),
    ("gemini-resource-exhausted-check-quota", "usage_limit"),
    ("gemini-per-minute-and-per-day", "rate_limited"),
    ("bedrock-too-many-tokens-per-day", "rate_limited"),
    ("copilot-cli-rate-limit-time-period", "unknown_non_zero"),
    ("bedrock-throttlingexception", "unknown_non_zero"),
    ("claude-session-limit-resets", "unknown_non_zero"),
    ("copilot-premium-request-allowance", "unknown_non_zero"),
    ("claude-hit-your-limit-resets", "unknown_non_zero"),
    ("claude-five-hour-limit-resets", "unknown_non_zero"),
    # kills and out-of-memory deaths reported only in text
    ("bash-killed-line", "unknown_non_zero"),
    ("kernel-oom-killed-process", "unknown_non_zero"),
    ("node-heap-out-of-memory", "unknown_non_zero"),
    ("python-subprocess-died-sigkill", "unknown_non_zero"),
    ("exit-143-sigterm", "unknown_non_zero"),
    ("go-exec-signal-killed", "unknown_non_zero"),
    # launches that never started: the seed has no branch for spawn_failure
    ("sdk-spawn-claude-enoent", "unknown_non_zero"),
    ("zsh-command-not-found-claude", "unknown_non_zero"),
    ("env-node-missing", "unknown_non_zero"),
    ("windows-not-recognized", "unknown_non_zero"),
    # other agent CLIs' wordings the seed does not know
    ("gemini-input-token-count-exceeds", "unknown_non_zero"),
    ("gemini-reached-max-session-turns", "unknown_non_zero"),
    ("codex-refresh-token-already-used", "unknown_non_zero"),
    ("gemini-api-key-not-valid", "unknown_non_zero"),
    ("claude-gateway-time-out-504", "unknown_non_zero"),
    ("go-context-deadline-exceeded-reading-body", "context_exceeded"),
    ("node-getaddrinfo-enotfound", "unknown_non_zero"),
]


def test_seed_port_is_faithful_on_the_seeds_own_examples() -> None:
    assert seed_classify(1, None, "API Error: Server is temporarily limiting requests (not your usage limit) · Rate limited") == "rate_limited"
    assert seed_classify(2, None, "panic at 2026-04-29T10:00:00: unexpected eof") == "unknown_non_zero"
    assert seed_classify(1, None, "request failed with status 401") == "auth"
    assert seed_classify(None, 9, "") == "killed"
    assert seed_classify(0, None, "") == "no_output"
    assert seed_classify(0, None, "", {"type": "result", "is_error": True, "subtype": "error_max_turns"}) == "max_turns"
    assert seed_classify(0, None, "", {"is_error": True, "error": {"message": "overloaded_error: busy"}}) == "overloaded"
    assert seed_classify(1, None, "APIConnectionError: Connection error.") == "network"


@pytest.mark.parametrize(("golden_id", "seed_bucket"), SEED_MISFIRES, ids=[g for g, _ in SEED_MISFIRES])
def test_seed_misfires_and_the_table_does_not(golden_id: str, seed_bucket: str) -> None:
    entry = next(e for e in _entries() if e["id"] == golden_id)
    assert _seed(entry) == seed_bucket, "the seed port's answer changed"
    assert seed_bucket != entry["bucket"], "listed as a misfire but the seed is right"
    assert _table(entry) == entry["bucket"]


def test_table_is_right_wherever_the_seed_is_right() -> None:
    regressions = [e["id"] for e in _entries() if _seed(e) == e["bucket"] and _table(e) != e["bucket"]]
    assert regressions == []


def test_table_beats_the_seed_on_real_messages() -> None:
    entries = _entries()
    seed_wrong = {e["id"] for e in entries if _seed(e) != e["bucket"]}
    table_wrong = {e["id"] for e in entries if _table(e) != e["bucket"]}
    assert table_wrong == set()
    assert {g for g, _ in SEED_MISFIRES} <= seed_wrong
    # The seed's keywords get well under two thirds of the real messages right.
    assert len(seed_wrong) * 3 > len(entries)


def test_seed_never_returns_spawn_failure() -> None:
    assert "spawn_failure" not in {_seed(e) for e in _entries()}
    assert any(_table(e) == "spawn_failure" for e in _entries())


def test_max_cap_count_reached_reads_agent_steps_not_client_retries():
    # max-cap-count-reached took any one word before steps/iterations/rounds/loops, so a
    # client's retry or reconnect cap ('max retry steps (3) reached', 'max reconnect
    # iterations=10 reached') was read as the run's turn cap and beat the network error.
    assert_not_read("agent-run", "max-turns", [
        "Warning: max retry steps (3) reached while reconnecting: ECONNRESET, connection reset by peer",
        "max reconnect iterations=10 reached, giving up: connect ETIMEDOUT 104.18.2.1:443",
    ], bucket="network")
    assert_not_read("agent-run", "max-turns", [
        "max polling loops (60) reached waiting for sandbox to start: container failed to start: "
        "exec: \"python\": executable file not found in $PATH",
    ], bucket="spawn_failure")
    # positive control: the agent's own step kind still reads as the cap
    r = answer("agent-run", "<agent_error>Max react steps (6) reached without finishing.</agent_error>")
    assert r.bucket == "max_turns" and r.rule == "max-turns", (r.bucket, r.rule)
    assert answer("agent-run", "Task incomplete: Maximum iterations (1) reached.").bucket == "max_turns"


def test_python_cli_entry_syntax_error_not_for_code_the_cli_parses():
    # python-cli-entry-syntax-error took any SyntaxError within 8 lines of a bin/ entry
    # frame, so an agent CLI that exec()s or ast.parse()s a model's code ('File "<string>",
    # line 1' … SyntaxError) was read as a launch failure.
    assert_not_read("agent-run", "spawn-failed", [
        'Traceback (most recent call last):\n  File "/home/u/.venv/bin/aider", line 8, in <module>\n'
        '    sys.exit(main())\n  File "/home/u/.venv/lib/python3.11/site-packages/aider/main.py", line 900, in main\n'
        '    exec(code)\n  File "<string>", line 1\n    def foo(\n           ^\nSyntaxError: \'(\' was never closed\n',
        'Traceback (most recent call last):\n  File "/usr/local/bin/agent", line 8, in <module>\n    sys.exit(main())\n'
        '  File "/app/agent/tools.py", line 42, in run\n    ast.parse(generated_code)\n'
        '  File "/usr/lib/python3.11/ast.py", line 50, in parse\n    return compile(source, filename, mode, flags)\n'
        '  File "<unknown>", line 3\nSyntaxError: invalid syntax\n',
    ], not_bucket="spawn_failure")
    # positive control: the installed package's own file cannot be parsed (mentat on 3.9)
    r = answer("agent-run", '[1] % mentat .\nTraceback (most recent call last):\n  File "/home/gussand/.venv/bin/mentat", line 5, in <module>\n'
               '    from mentat.app import run_cli\n  File "/home/gussand/github/mentat/mentat/app.py", line 117\n'
               '    match user_response.lower():\n          ^\nSyntaxError: invalid syntax\n')
    assert r.bucket == "spawn_failure", r.bucket


def test_http_503_server_error_reason_only_as_a_labelled_reason_line():
    # http-503-server-error-reason read 'server error: 503' anywhere, so an Envoy reset
    # ('… reset reason: connection failure. Server error: 503') became overloaded instead of
    # network, and a tool's output about the app under test became the service's 503.
    r = answer("agent-run", "Connection error: upstream connect error or disconnect/reset before headers. "
               "reset reason: connection failure. Server error: 503")
    assert r.bucket == "network", r.bucket
    assert_not_read("agent-run", "http-503", [
        "curl: (22) The requested URL returned error: 503\n"
        "Tool run_command output: Server error: 503 from http://localhost:8080/health",
    ], not_bucket="overloaded")
    # positive control: Copilot's reason line under a translated notice
    assert_lands("agent-run", [
        "申し訳ございません。要求に失敗しました。もう一度お試しください。\n\n理由: Server error: 503",
        "Desculpe, sua solicitação falhou. Tente novamente.\n\nMotivo: Server error: 503",
        "Sorry, your request failed. Please try again.\n\nReason: Server error: 503",
    ], bucket="overloaded")


def test_auth_entra_sts_error_code_not_for_transient_sts_codes():
    # auth-entra-sts-error-code read every AADSTS code as a refused sign-in, including the
    # service's own transient errors, which a retry (not a sign-in) fixes.
    assert_not_read("agent-run", "auth-rejected", [
        "AADSTS90033: A transient error has occurred. Please try again.",
        "Error: AADSTS50196: The server terminated an operation because it encountered a client request loop.",
    ], not_bucket="auth")
    # positive control: a tenant's policy denying the token
    r = answer("agent-run", "Error Message: access_denied: AADSTS90123: The token can't be issued because the identity "
               "or claim issuance provider denied the request. Response code: access_denied.")
    assert r.bucket == "auth", r.bucket
    assert answer("agent-run", "AADSTS70020: The provided value for the input parameter 'device_code' is not valid. "
                  "This device code has expired.").bucket == "auth"


def test_serverless_invocation_timeout_not_for_a_relay_or_proxy():
    # killed-serverless-invocation-timeout vetoed only 'error from provider' / 'upstream', so
    # a proxy or relay on Vercel that the agent calls timing out was read as the agent killed.
    assert_not_read("agent-run", "killed-text", [
        "Error: fetch to https://proxy.example.vercel.app/v1/chat/completions failed: "
        "504 Gateway Timeout FUNCTION_INVOCATION_TIMEOUT",
        "OpenAI-compatible relay returned: An error occurred with your deployment "
        "EDGE_FUNCTION_INVOCATION_TIMEOUT (relay https://api.myrelay.com)",
    ], bucket="network")
    # positive control: the deployment running the agent was stopped
    assert answer("agent-run", "Vercel log shows this: `[POST] /api/chat reason=EDGE_FUNCTION_INVOCATION_TIMEOUT, "
                  "status=504, user_error=true`").bucket == "killed"
    assert answer("agent-run", "Requests are often ending with An error occurred with your deployment "
                  "FUNCTION_INVOCATION_TIMEOUT.").bucket == "killed"


def test_max_turns_route_not_vetoed_by_an_earlier_recovered_tool_call_error():
    # The max-turns route had 'none = ["tool-call-malformed"]', so any run that hit its turn
    # cap after one malformed tool call it had recovered from (Cline's retry notice, an
    # 'emitted invalid JSON arguments' line) went to unknown_non_zero instead of max_turns.
    # The veto now sits on max-turns-localized-zh, beside the ReAct '未能解析出有效的Action'.
    assert_lands("agent-run", [
        "[ERROR] One or more tool calls were invalid or missing required parameters (read_file: Tool call "
        "arguments could not be parsed as JSON). Retrying...\n...\nError: Reached max turns (25). The task may not be complete.",
        "Tool call run_commands emitted invalid JSON arguments; asking the model again\n"
        "Agent stopped: reached maximum steps (20)",
    ], bucket="max_turns")
    # positive control: the ReAct loop that could not read an Action still is not a cap
    r = answer("agent-run", "--- 第 1 步 ---\n⚠️ 警告：未能解析出有效的Action，流程终止。\n⏰ 已达到最大步数，流程终止。\n\n"
               "✅ 默认配置结果: 抱歉，我无法在限定步数内完成这个任务。")
    assert r.bucket == "unknown_non_zero" and r.rule == "tool-call-malformed", (r.bucket, r.rule)
    assert answer("agent-run", "达到最大迭代次数，任务终止。").bucket == "max_turns"


def test_single_instance_lock_needs_a_live_holder():
    # orphans-hold-single-instance-lock used to take a past-tense holder ('held') and a
    # 'no running instance', so a stale lock left by a crash or a spawn failure was read as live_elsewhere.
    assert_not_read("agent-run", "other-instance-holds", [
        "Failed to start: single-instance lock is stale. The process that held the single-instance lock crashed earlier; delete the lock file",
        "The background process held the single-instance lock and was OOM killed by the kernel",
    ], not_bucket="live_elsewhere")
    assert_not_read("agent-run", "other-instance-holds", [
        "no running instance holds the single-instance lock, yet launch fails: spawn claude ENOENT",
    ], bucket="spawn_failure")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "other-instance-holds", [
        "Closing Claude Desktop on Windows frequently leaves ~9 Claude processes running (0% CPU). These orphans hold the app's single-instance lock, so relaunching the app fails silently until the processes are killed manually.",
    ], bucket="live_elsewhere")


def test_turn_count_cap_must_end_the_clause():
    # turn-count-exceeding-configured-max used to take any 'limit of <n>' after a turn count,
    # so a token or message limit reached after N turns was read as max_turns.
    assert_not_read("agent-run", "max-turns", [
        "after 14 turns the conversation exceeds the limit of 200000 tokens",
        "After 12 turns the input exceeds the maximum of 128000 tokens allowed by the model",
        "Session ended after 25 turns: your weekly usage exceeded the allowed limit of 500 messages",
    ], not_bucket="max_turns")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns", [
        "Claude reported a successful result after 108 turns, exceeding the configured maximum of 80",
        "Claude reported a successful result after 108 turns, exceeding the configured maximum of 80.",
    ], bucket="max_turns")


def test_runner_canceled_annotation_not_after_failed_action_download():
    # ci-runner-step-canceled-annotation used to read the runner's '##[error]The operation was canceled.'
    # after its own action download timed out, so a download that never ran anything was read as killed.
    assert_not_read("agent-run", "killed-text", [
        "##[warning]Failed to download action 'https://api.github.com/repos/anthropics/claude-code-action/tarball/abc'. Error: The operation was canceled.\n"
        "##[warning]Back off 22.3 seconds before retry.\n##[error]The operation was canceled.",
    ], not_bucket="killed")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text", [
        '{"msg":"Running acpx","agent":"codex","route":"review","permission_mode":"approve-all"}\n'
        "##[error]The operation was canceled.\nTerminate orphan process: pid (...) (codex-acp)",
    ], bucket="killed")


def test_step_timeout_that_never_stopped_the_run_is_not_a_kill():
    # ci-step-timeout-killed-run used to take 'timeout-minutes … never cancelled' as a kill,
    # so a run that hung on a connection error was read as killed instead of network.
    assert_not_read("agent-run", "killed-text", [
        "Even with timeout-minutes: 30 the step is never cancelled; Claude just hangs after 'API Error: Connection error.'",
        "The job timeout never killed it: codex kept retrying 'stream disconnected before completion: error sending request'",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text", [
        "We set `claudecode-timeout: '10'` but a stalled invocation ran ~27 minutes — well past both the configured 10 min "
        "and the documented 20-min default — until an *outer* GitHub `timeout-minutes` step-timeout killed it.",
    ], bucket="killed")


def test_kill_all_must_end_the_agent_in_the_same_clause():
    # agent-killed-by-own-kill-all used to let the agent's name follow the kill across a comma,
    # so 'killall node killed my dev server, Codex then hit <network error>' was read as killed.
    assert_not_read("agent-run", "killed-text", [
        "After `killall node` killed my dev server, Codex then hit stream disconnected before completion: connection reset",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text", [
        "# `killall node` command terminates gemini-cli itself\nWhen running gemini-cli, it asks whether it can execute the killall node command. "
        "If you allow it, the CLI unexpectedly terminates. This happens because killall node ends all Node.js processes — including the gemini-cli process itself.",
    ], bucket="killed")


def test_zh_agent_done_empty_not_when_a_cause_is_named():
    # empty-output-localized-zh-agent-done-empty used to read 'agent finished, no output' beside a cause
    # named in Chinese (a timeout, a kill, a spent quota, a bad key, a throttle), so each was read as no_output.
    assert_not_read("agent-run", "empty-output", [
        "agent 运行完成后没有输出，请求超时",
        "Agent 执行完成后没有输出，进程被 OOM 杀死",
        "agent 运行完成后没有输出，提示额度已用完",
        "agent 运行完成后没有输出，提示 API Key 无效",
        "agent 运行完成后没有回复，显示 429 请求过多",
    ], not_bucket="no_output")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "# [Bug]: run_in_background 子 Agent 完成后 .output 文件始终为空（0字节）\n"
        "`run_in_background=true` 的子 agent，UI 上显示全部完成后，对应的 `.output` 文件始终为 0 字节，结果未落盘。",
    ], bucket="no_output")


def test_koboldcpp_decode_failure_beside_gpu_error_is_not_a_full_window():
    # context-local-cache-full used to read KoboldCpp's 'Check your context buffer sizes!' alone, which it prints
    # after any failed decode, so a CUDA or Vulkan out-of-memory was read as context_exceeded.
    assert_not_read("agent-run", "context-exceeded", [
        "CUDA error: out of memory\n  current device: 0, in function ggml_cuda_op_mul_mat at ggml-cuda.cu:1606\n"
        "Failed to predict at token position 212! Check your context buffer sizes!",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: cudaMalloc failed: out of memory\n"
        "llama_decode: failed to decode, ret = -3\nFailed to predict at token position 45! Check your context buffer sizes!",
        "ggml_vulkan: Device memory allocation of size 1073741824 failed.\n"
        "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory\nllama_decode: failed to decode, ret = -3\n\n"
        "Failed to predict at token position 0! Check your context buffer sizes!",
        "ggml_vulkan: Device lost (vk::Queue::submit: ErrorDeviceLost)\n"
        "Failed to predict at token position 1024! Check your context buffer sizes!",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "context-exceeded", [
        "[Context Shifting: Erased 143 tokens at position 1379]\nProcessing Prompt [BLAS] (454 / 454 tokens)update: applying K-shift\n"
        "llama_decode: failed to decode, ret = 1\n\nFailed to predict at token position 15480! Check your context buffer sizes!",
        "ERROR:    ValueError: Request length 71599 + 2048 is greater than max_seq_len 65536",
        "Server error: prompt_too_long: tokenized VLM text prompt has 20767 tokens, max prompt/context tokens is",
    ], bucket="context_exceeded")


def test_kv_cache_slot_warning_before_a_gpu_crash_is_the_backend_failure():
    # context-kv-cache-slot-full used to read llama.cpp's 'failed to find KV cache slot' (a batch it retries smaller)
    # whatever followed, so a server that then died of a CUDA out-of-memory, or an Ollama runner that terminated,
    # was read as context_exceeded.
    assert_not_read("agent-run", "context-exceeded", [
        "decode: failed to find KV cache slot for ubatch of size 512\n"
        "srv  update_slots: failed to find free space in the KV cache, retrying with smaller batch size\n"
        "CUDA error: out of memory\n  current device: 0, in function ggml_backend_cuda_graph_compute at ggml-cuda.cu:2705\n"
        "GGML_ASSERT: ggml-cuda.cu:100: !\"CUDA error\"\nAborted (core dumped)",
        "llama_decode: failed to find KV cache slot\nllama runner process has terminated: exit status 2",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "context-exceeded", [
        "decode: failed to find KV cache slot for ubatch of size 454\nllama_decode: failed to decode, ret = 1",
    ], bucket="context_exceeded")


def test_git_bash_requirement_told_in_passing_is_not_the_start_up_check():
    # windows-prerequisite-git-bash-missing used to read 'on windows requires git-bash' anywhere, so a report that
    # only mentions the requirement before a lost connection was read as spawn_failure.
    assert_not_read("agent-run", "spawn-failed", [
        "Claude Code on Windows requires git-bash, so I installed Git for Windows and set CLAUDE_CODE_GIT_BASH_PATH. "
        "claude now starts, but every prompt ends with:\nAPI Error: Connection error. (ECONNRESET)",
        "Since Claude Code on Windows requires git-bash I run it from Git Bash. After about 20 minutes the session "
        "freezes and exits with:\nError: socket hang up",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "spawn-failed", [
        "Setting up Claude Code...\nClaude Code on Windows requires git-bash (https://git-scm.com/downloads/win). If installed "
        "but not in PATH, set environment variable pointing to your bash.exe, similar to: "
        "CLAUDE_CODE_GIT_BASH_PATH=C:\\Program Files\\Git\\bin\\bash.exe",
        "Claude Code on Windows requires git-bash. If installed but not in PATH, set environment variable pointing to "
        "your bash.exe",
        "Error: Claude Code on Windows requires git-bash",
    ], bucket="spawn_failure")


def test_unsupported_platform_from_a_tool_hook_or_language_server_is_not_the_agents_launch():
    # launcher-unsupported-platform-arch used to read the `${platform} (${arch})` wording that many npm wrappers of
    # native CLIs share, so a running agent's Bash tool, a hook or a language server hitting it was read as spawn_failure.
    assert_not_read("agent-run", "spawn-failed", [
        "⏺ Bash(npx @example/cli build)\n  ⎿  Error: Command failed with exit code 1\n"
        "     Error: Unsupported platform: linux (arm64)\n"
        "         at Object.<anonymous> (/workspace/node_modules/@example/cli/bin/run.js:22:9)",
        "PreToolUse:Bash hook error: Failed with non-blocking status code: node_modules/@biomejs/biome/bin/biome:38\n"
        "Error: Unsupported platform: win32 (arm64)",
        "[language server] Failed to start rust-analyzer: Error: Unsupported platform: linux (riscv64)",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "spawn-failed", [
        "file:///C:/Users/user/AppData/Roaming/fnm/node-versions/v22.18.0/installation/node_modules/@openai/codex/bin/codex.js:56\n"
        "  throw new Error(`Unsupported platform: ${platform} (${arch})`);\n        ^\n\n"
        "Error: Unsupported platform: win32 (arm64)\n"
        "    at file:///C:/Users/gaura/AppData/Roaming/fnm/node-versions/v22.18.0/installation/node_modules/@openai/codex/bin/codex.js:56:9",
    ], bucket="spawn_failure")


def test_defender_quarantining_a_build_output_is_not_the_agent_binary_gone():
    # agent-binary-quarantined used to read any quarantined .exe, so Defender removing a binary the run had just
    # built (a Rust target\debug exe, a PyInstaller dist\ installer) was read as spawn_failure.
    assert_not_read("agent-run", "spawn-failed", [
        "Codex built the project and ran it, then Windows Security showed:\nThreat: Trojan:Win32/Wacatac.B!ml\n"
        "Status: Quarantined\nAffected items: file:C:\\src\\myapp\\target\\debug\\myapp.exe\n"
        "cargo run now fails with: The system cannot find the file specified. (os error 2)",
        "Threat: Trojan:Win32/Wacatac.H!ml\nStatus: Quarantined\nAffected items:\nfile:C:\\Users\\me\\project\\dist\\setup.exe\n"
        "Claude wrote a PyInstaller spec and built the installer, and Defender removed it right away.",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "spawn-failed", [
        "Threat: Trojan:Win32/Bearfoos.A!ml\nStatus: Quarantined\nAction: Automatically removed by system\nAffected item:\n"
        "C:\\Users\\<USER>\\AppData\\Roaming\\npm\\node_modules\\@openai\\codex\\bin\\codex-x86_64-pc-windows-msvc.exe\n\n"
        "After this, running the CLI fails because the binary has been deleted.",
    ], bucket="spawn_failure")


def test_zh_sign_in_that_could_not_reach_its_server_stays_network():
    # auth-oauth-or-session-expired-zh used to read any 'OAuth 授权失败', so an OAuth sign-in that timed out was read as auth.
    assert_not_read("agent-run", "auth-loose", [
        "OAuth 授权失败: error sending request for url (https://auth.openai.com/oauth/token): operation timed out",
        "刷新 token 失败：token 验证失败，网络连接超时 (ETIMEDOUT)",
    ], bucket="network")
    assert_not_read("agent-run", "auth-loose", [
        "Codex 登录失败：OAuth 认证失败，无法连接到 auth.openai.com（连接超时），请检查网络",
    ], not_bucket="auth")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "auth-loose", ["尝试多次，成功登录codex，但Codex OAuth认证失败"], bucket="auth")


def test_zh_login_expired_on_a_web_page_or_beside_the_context_is_not_the_agents_sign_in():
    # auth-oauth-or-session-expired-zh used to read '登录已过期' anywhere, so a page the agent opened in a browser tool was read as auth.
    assert_not_read("agent-run", "auth-loose", [
        "使用 Playwright 打开管理后台页面时提示“登录已过期，请重新登录”，agent 一直卡在截图这一步",
        "浏览器工具打开网页后页面显示登录状态已失效，agent 无法继续操作",
        "上下文 token 超出模型限制，当前会话已过期，请新建会话",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "auth-loose", ["claude code 登录 codex 失效 Codex 令牌失效\n刷新授权，显示 会话已过期",
                                            "Claude Code 登录已过期，请重新登录"], bucket="auth")


def test_memory_or_disk_usage_limit_is_not_a_plan_allowance():
    # usage-limit-reached-romance-ko used to read 'limite de uso' / '사용량 한도에 도달' of any resource, so an OOM kill was read as usage_limit.
    assert_not_read("agent-run", "usage-limit", [
        "O contêiner atingiu o limite de uso de memória e foi encerrado (OOMKilled)",
        "se alcanzó el límite de uso de memoria del contenedor (OOMKilled)",
        "컨테이너가 메모리 사용량 한도에 도달해 OOMKilled 되었습니다",
    ], bucket="killed")
    assert_not_read("agent-run", "usage-limit", ["디스크 사용량 한도에 도달했습니다: No space left on device"],
                    not_bucket="usage_limit")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "usage-limit", ["Não gerou resposta e já atingiu o limite de uso, não faz sentido",
                                             "교재 실습 중 클로드 사용 한도 도달 문제"], bucket="usage_limit")


def test_a_limit_lifted_in_seconds_or_a_conversation_cap_is_not_a_plan_allowance():
    # usage-limit-reached-romance-ko used to read a bare 'se alcanzó el límite' / 'atteint la limite de messages', so a retry in seconds or one conversation's cap was read as usage_limit.
    assert_not_read("agent-run", "usage-limit", [
        "Se alcanzó el límite. Vuelve a intentarlo en unos segundos.",
        "Você atingiu o limite de uso. Tente novamente em alguns segundos.",
        "Vous avez atteint la limite de messages pour cette conversation. Commencez une nouvelle conversation.",
        "me sale que se alcanzó el límite, la conversación es demasiado larga y tengo que empezar una nueva",
    ], not_bucket="usage_limit")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "usage-limit", [
        "estoy intentando hacer un plan de trabajo con copilot usando sonnet 4 o 3.7 y  muestra que se alcanzo el limite, pero no lo the usado para nada aun.",
        "J'utilise co-pilote pro , et j'ai le message comme quoi j'ai atteint le maximum de message et qu'il faut que j'upgrade",
    ], bucket="usage_limit")


def test_thread_not_found_needs_the_assistants_quoted_id():
    # agent-not-found-by-id used to read any "No thread found with id", so a Slack tool's
    # missing chat thread was read as agent_deleted.
    assert_not_read("agent-run", "agent-not-found",
                    ["slack_mcp tool failed: Error: No thread found with id 1699999.12345 in channel C123"],
                    bucket="unknown_non_zero")
    # positive control: the Assistants API's own wording is still read
    assert_read("agent-run", "agent-not-found",
                ["Error: 404 No thread found with id '9098ea79-1853-467b-ac1d-5485078443c1'."],
                bucket="agent_deleted")


def test_malformed_previous_response_id_and_other_caches_are_no_lost_state():
    # server-conversation-state-gone used to read OpenAI's id-format check on previous_response_id
    # and any "cached content … has expired" debug line, so a malformed request and a DNS failure
    # were read as agent_deleted.
    assert_not_read("agent-run", "agent-not-found",
                    ["Error code: 400 - {'error': {'message': \"Invalid 'previous_response_id': 'chatcmpl-abc'. "
                     "Expected an ID that begins with 'resp'.\", 'type': 'invalid_request_error', "
                     "'param': 'previous_response_id', 'code': 'invalid_value'}}"],
                    bucket="unknown_non_zero")
    assert_not_read("agent-run", "agent-not-found",
                    ["DEBUG cached content https://api.example.com/v1/models has expired, refetching\n"
                     "Error: getaddrinfo ENOTFOUND api.example.com",
                     "request failed: fetch failed (ECONNRESET); cache content models.json has expired"],
                    bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "agent-not-found",
                ['{"type":"error","status":400,"error":{"type":"invalid_request_error","message":"Invalid `previous_response_id`."}}',
                 "Vertex returns `400 INVALID_ARGUMENT: Cache content X is expired` when a `cachedContent` reference is used past its TTL."],
                bucket="agent_deleted")


def test_cap_setting_said_not_reached_or_a_plan_allowance_is_no_turn_cap():
    # cap-setting-reached used to read "before it hits max steps" and a free tier's
    # "exhausted the max model calls", so a network failure and an allowance were read as max_turns.
    assert_not_read("agent-run", "max-turns",
                    ["The run fails with 'fetch failed' before it hits max steps; it is not the step cap.",
                     "The stream dropped with 'socket hang up' before the agent could reach max_iterations."],
                    bucket="network")
    assert_not_read("agent-run", "max-turns",
                    ["Error: you have exhausted the max model calls for today on the free tier. Try again tomorrow."],
                    not_bucket="max_turns")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns",
                ["Currently when an agent hits max steps, it terminates the agent often with a misleading error.",
                 "With GroupChat, if max_rounds is reached Autogen will just stop, with no feedback to the User."],
                bucket="max_turns")


def test_kubernetes_killing_a_server_pod_is_not_the_agent_killed():
    # killed-by-kubernetes-worded used to read any "Kubernetes killed the pod …", so a model
    # server's or MCP server's pod going down under the agent was read as killed.
    assert_not_read("agent-run", "killed-text",
                    ["APIConnectionError: Connection error. Our vLLM server runs on k8s and Kubernetes killed "
                     "the pod running vLLM, so requests get connection reset."],
                    bucket="network")
    assert_not_read("agent-run", "killed-text",
                    ["MCP error -32000: Connection closed. Kubernetes killed the pod running the github MCP server."],
                    bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text",
                ["When an agent exceeds its memory limit, Kubernetes kills the container. The user gets no explanation."],
                bucket="killed")


def test_spurious_sighup_reload_is_no_kill():
    # killed-unexpected-stop-signal used to take SIGHUP, a daemon's reload signal, so a proxy's
    # dropped connections on config reload were read as killed.
    assert_not_read("agent-run", "killed-text",
                    ["Error: connect ECONNREFUSED 127.0.0.1:8080. The LiteLLM proxy keeps receiving spurious "
                     "SIGHUP on config reload and drops connections."],
                    bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text",
                ["Agent processes running on DigitalOcean droplets are receiving unexpected `SIGTERM` signals, "
                 "which kills the spawned service."],
                bucket="killed")


def test_openai_rate_limit_code_stays_a_rate_limit():
    # service-processing-too-many-requests used to read the clause whatever code came with it, so
    # OpenAI's 429 whose body names code 'rate_limit_exceeded' was read as overloaded.
    assert_not_read("agent-run", "server-capacity", [
        "Error: 429 We're currently processing too many requests - please try again later.\n"
        "Serialized Error: { status: 429, error: { type: 'invalid_request_error', code: 'rate_limit_exceeded' }, code: 'rate_limit_exceeded' }",
        "openai.RateLimitError: Error code: 429 - {'error': {'message': \"We're currently processing too many requests - please try again later.\", "
        "'type': 'invalid_request_error', 'param': None, 'code': 'rate_limit_exceeded'}}",
    ], bucket="rate_limited")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "server-capacity", [
        '{"detail":{"message":"We\'re currently processing too many requests. Please try again later."}}: Something went wrong.',
    ], bucket="overloaded")


def test_thinking_budget_cut_is_not_an_empty_answer():
    # empty-output-after-reasoning vetoed only finish_reason: length spelt bare, so Ollama's
    # done_reason length / num_predict cut (budget spent thinking) was read as no_output.
    assert_not_read("agent-run", "empty-output", [
        "Ollama /api/generate returns an empty response field with done_reason: length when num_predict is small and thinking is on",
        'qwen3 spends its whole num_predict budget thinking: the response field is empty and done_reason is "length".',
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "# No output after the reasoning",
        "Ollama reasoning models may return `The response could not be processed` because the response field is empty "
        "while the generated output appears in the thinking field.",
    ], bucket="no_output")


def test_gemini_candidate_stopped_by_a_named_block_is_not_empty():
    # empty-output-empty-candidate vetoed SAFETY, RECITATION and the like but not Gemini's other
    # block reasons, so 'Gemini candidate has no content (finishReason: BLOCKLIST)' was read as no_output.
    assert_not_read("agent-run", "empty-output", [
        'Error: Gemini candidate has no content (finishReason: BLOCKLIST). Raw: {"candidates":[{"finishReason":"BLOCKLIST","index":0}]}',
        'Error: Gemini candidate has no content (finishReason: SPII). Raw: {"candidates":[{"finishReason":"SPII","index":0}]}',
        'RuntimeError: Gemini candidate has no parts: {"candidates":[{"finishReason":"NO_IMAGE","index":0}]}',
        'Error: Gemini candidate has no content (finishReason: UNEXPECTED_TOOL_CALL).',
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "Error: Gemini candidate has no content (finishReason: STOP).",
        "# gemini-1.5会偶尔出现返回的candidate里没有数据的情况，有知道什么情况吗",
    ], bucket="no_output")


def test_tool_or_error_body_without_content_is_not_an_empty_answer():
    # empty-output-response-lacks-content had no veto, so an MCP server's or tool's answer without
    # content, and an API error body without choices, were read as no_output.
    assert_not_read("agent-run", "empty-output", [
        "Error: MCP response did not include content.",
        "Error: The tool response did not include any text output",
        'OpenAI translation response did not contain choices: {"error":{"message":"Invalid schema for response_format \'Translation\': '
        'In context=(), \'additionalProperties\' is required to be supplied and to be false.","type":"invalid_request_error",'
        '"param":"response_format","code":null}}',
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "LM Studio response did not include message content",
        "Error: OpenRouter response did not include content.",
    ], bucket="no_output")


def test_copilot_token_refusal_inside_other_test_reports_is_not_the_agents_sign_in():
    # auth-copilot-token-exchange-refused used to stand down only for jest/vitest reports
    # (expect(, .test., .spec.), so a pytest, Go, mocha or cargo report of a Copilot client's
    # own tests that prints the refusal was read as auth.
    assert_not_read("agent-run", "auth-rejected", [
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_copilot_auth.py::test_refresh_retries_once - RuntimeError: Failed to get copilot token due to 401 status\n"
        "1 failed, 41 passed in 2.31s",
        "--- FAIL: TestExchangeTokenRetries (0.00s)\n"
        "    provider_test.go:88: unexpected error: failed to get copilot token due to 401\n"
        "FAIL\n"
        "FAIL\tgithub.com/acme/copilot-proxy/internal/auth\t0.014s",
        "  1) copilot token exchange\n"
        "       reports a refused token:\n"
        "     Error: Failed to get copilot token due to 401 status. Please sign out and try again.\n"
        "      at Context.<anonymous> (test/auth.js:40:13)",
        "test auth::tests::surfaces_forbidden ... FAILED\n\nfailures:\n\n"
        "---- auth::tests::surfaces_forbidden stdout ----\n"
        "thread 'auth::tests::surfaces_forbidden' panicked at src/auth.rs:212:9:\n"
        "unexpected message: Invalid copilot token: missing token: 403\n\n"
        "test result: FAILED. 11 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "auth-rejected", [
        "[INFO] [auth] [2023-09-08T07:57:36.545Z] Failed to get copilot token due to 401 status. Please sign out and try again.",
        "[info] [auth] Invalid copilot token: missing token: 403",
        "Error: Error: GitHub Copilot authentication expired",
    ], bucket="auth")


def test_bare_your_github_token_is_invalid_from_other_tools_is_not_the_agents_sign_in():
    # auth-copilot-token-exchange-refused used to read 'your github token is invalid' anywhere,
    # so a repository tool's, gh's (in a Bash call) or the GitHub MCP server's refused GitHub
    # token was read as the agent's own credentials (auth).
    assert_not_read("agent-run", "auth-rejected", [
        "Your GitHub token is invalid or expired. Please run:\n  repo-guardian auth login\n"
        "or update your GITHUB_TOKEN environment variable.",
        "MCP error -32603: GitHub API request failed: Your GitHub token is invalid or expired. "
        "Check GITHUB_PERSONAL_ACCESS_TOKEN in the github MCP server's env.",
        "● Bash(gh pr create --fill)\n  ⎿  Error: Your GitHub token is invalid or has insufficient scopes for this repository.",
    ], bucket="unknown_non_zero")
    # positive control: the Copilot extension's activation error is still read
    assert_read("agent-run", "auth-rejected", [
        'GitHub Copilot could not connect to server. Extension activation failed: "Your GitHub token is invalid. '
        'Please sign out from your GitHub account using VSCode UI and try again."',
    ], bucket="auth")


def test_slash_platform_pair_needs_an_agent_cli_named():
    # launcher-unsupported-platform-arch used to read any 'unsupported platform: os/arch', so a
    # setup script or extension an agent ran (a yt-dlp or Tor downloader) was read as spawn_failure.
    assert_not_read("agent-run", "spawn-failed", [
        "exec bash -lc 'npm run setup' in /workspace exited 1 in 212ms:\n"
        "Error: Unsupported platform: linux/arm64\n"
        "    at getBinaryName (/workspace/scripts/setup-ytdlp.mjs:12:9)",
        "Error: Unsupported platform: linux/arm64\n"
        "    at downloadTor (/home/u/.pi/agent/extensions/tor/index.ts:88:11)\n"
        'Extension "tor" failed to load',
    ], bucket="unknown_non_zero")
    # and beside a real connection error it no longer takes the message from network
    assert_not_read("agent-run", "spawn-failed", [
        "Error: Unsupported platform: darwin/ia32\n"
        "request to https://api.anthropic.com/v1/messages failed, reason: getaddrinfo ENOTFOUND api.anthropic.com",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "spawn-failed", [
        "# [regression] Copilot stopped working on FreeBSD: Unsupported platform: freebsd/x64",
        "Error: Unsupported platform: freebsd (arm64)\n"
        "    at file:///home/u/.local/lib/node_modules/@openai/codex/bin/codex.js:70:9",
    ], bucket="spawn_failure")


def test_nixos_stub_ld_reads_only_the_agent_binary():
    # nixos-stub-ld-refused used to read NixOS's refusal of any program, so a running agent's
    # ripgrep, a build's esbuild or Codex's sandbox helper was read as spawn_failure.
    tail = ("\nNixOS cannot run dynamically linked executables intended for generic\n"
            "linux environments out of the box. For more information, see:\n"
            "https://nix.dev/permalink/stub-ld")
    assert_not_read("agent-run", "spawn-failed", [
        '⏺ Search(pattern: "TODO")\nError: Could not start dynamically linked executable: '
        "/home/u/.npm-global/lib/node_modules/@anthropic-ai/claude-code/vendor/ripgrep/x64-linux/rg" + tail,
        "exec bash -lc 'npm run build' in /home/u/proj exited 127 in 80ms:\n"
        "Could not start dynamically linked executable: /home/u/proj/node_modules/@esbuild/linux-x64/bin/esbuild" + tail,
        "Could not start dynamically linked executable: /home/u/.codex/tmp/arg0/codex-linux-sandbox" + tail
        + "\nsandbox error: command exited with 127",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "spawn-failed", [
        "Could not start dynamically linked executable: "
        "/nix/store/iprd5kgchxn87lmg7z9v3qd3vgpx92z3-pi-coding-agent-0.78.0/lib/pi/pi" + tail,
    ], bucket="spawn_failure")


def test_remote_cli_install_stands_down_for_plain_connection_errors():
    # remote-host-cli-install-failed used to veto only Node's error codes, so curl's and ssh's
    # connection errors in words were read as spawn_failure instead of network.
    assert_not_read("agent-run", "spawn-failed", [
        "Error: Couldn't install the Claude CLI on the remote (cli archive): curl: (7) Failed to connect "
        "to downloads.claude.ai port 443: Connection refused",
        "Couldn't install the Claude CLI on the remote: ssh: connect to host devbox port 22: Connection refused",
        "Couldn't install the Claude CLI on the remote (cli archive): curl: (6) Could not resolve host: downloads.claude.ai",
        "Couldn't install the Claude CLI on the remote (cli archive): network is unreachable",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "spawn-failed", [
        "Couldn't install the Claude CLI on the remote (cli archive)",
    ], bucket="spawn_failure")


def test_page_or_file_open_in_another_browser_or_editor_is_not_agent_held_elsewhere():
    # other-instance-already-running used to take any one word before "pane/window/tab", so
    # "already open in another browser tab" and "... another editor window" were read as live_elsewhere.
    assert_not_read("agent-run", "other-instance-holds", [
        "Error: This session is already open in another browser tab. Playwright: browser is busy",
        "The file is already open in another editor window; cannot save changes. EACCES: permission denied",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "other-instance-holds", [
        "this session is already open in another Reasonix window or still running in the background; close the other window or open a copy",
        "This conversation is already open in another pane (block 3f2a)",
    ], bucket="live_elsewhere")


def test_left_over_in_use_mark_or_refused_connection_is_not_session_held_by_another_client():
    # session-in-use-by-another-client used to fire on an in-use mark the reporter says no other
    # instance holds, and on the warning beside a refused connection, so both were read as live_elsewhere.
    assert_not_read("agent-run", "other-instance-holds", [
        "The UI shows the session as in-use even though no other instance is running; the lock file is left over after a crash",
    ], bucket="unknown_non_zero")
    assert_not_read("agent-run", "other-instance-holds", [
        "Warning: session in use by another client. Error: connect ECONNREFUSED 127.0.0.1:8080",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "other-instance-holds", [
        "Resume after /new shows previous session as in-use",
        "Warning: session in use by another CLI or application",
    ], bucket="live_elsewhere")


def test_second_copy_killed_for_memory_is_not_live_elsewhere():
    # second-copy-while-one-running used to fire on any second process beside a running one, so a
    # second copy the OOM killer or SIGKILL ended was read as live_elsewhere instead of killed.
    assert_not_read("agent-run", "other-instance-holds", [
        "If I spawn a second process while another is still running, the first gets killed by the OOM killer (exit 137)",
        "Cannot run multiple claude processes simultaneously on this machine due to memory; the second is killed with SIGKILL",
    ], bucket="killed")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "other-instance-holds", [
        "When attempting to run a second `opencode` process while one is already running, the following error occurs:\nSQLiteError: locking protocol",
        "Cannot run multiple opencode processes simultaneously",
    ], bucket="live_elsewhere")


def test_resume_that_failed_on_its_own_beside_an_archived_session_is_not_agent_deleted():
    # resume-session-was-archived used to fire on any archived session beside a resume, so a resume
    # that broke on a reset connection or a missing binary was read as agent_deleted.
    assert_not_read("agent-run", "agent-not-found", [
        "The session was archived successfully. Then `claude --resume` failed with ECONNRESET: socket hang up",
    ], bucket="network")
    assert_not_read("agent-run", "agent-not-found", [
        "Error: spawn claude ENOENT while trying to resume session; the session was archived",
    ], bucket="spawn_failure")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "agent-not-found", [
        "When using `claude --resume <session_id>` to continue a session, the CLI returns `error_during_execution` (rc=1) with 0 turns. The session JSONL file has been auto-archived (moved from `~/.claude/projects/<project>/` to `~/.claude/projects-archive/`).",
    ], bucket="agent_deleted")


def test_untrusted_root_on_a_code_signature_is_not_network():
    # network-tls-schannel-untrusted-root used to fire on the chain codes wherever they stood, so an
    # Authenticode signature Windows would not trust was read as a network failure.
    for text in [
        "claude.exe failed to start: Windows cannot verify the digital signature (CERT_TRUST_IS_UNTRUSTED_ROOT); the binary is blocked by SmartScreen",
        "Authenticode verification failed: CERT_TRUST_IS_UNTRUSTED_ROOT for the codex.exe signature, so Windows refused to launch it",
        "Windows: error 0x80090325 when signing the installer with signtool: the certificate chain was issued by an authority that is not trusted",
    ]:
        assert_not_read("agent-run", "network-error", [text], not_bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "network-error", [
        "Windows Codex stuck on \u201cReconnecting... waiting for network\u201d when Schannel certificate validation fails\nSEC_E_UNTRUSTED_ROOT (0x80090325)",
        "CertGetCertificateChain: CERT_TRUST_IS_UNTRUSTED_ROOT",
    ], bucket="network")


def test_japanese_rate_limit_denied_is_not_a_rate_limit():
    # rate-limit-ja used to read any verb after 'レート制限', negated or not, so
    # 'レート制限されていないのに … 401' ('not rate-limited, yet 401') was read as rate_limited.
    assert_not_read("agent-run", "rate-limited", [
        "Error: 401 Unauthorized。レート制限されていないのに、ログインし直しても認証エラーになります。",
        "レート制限に達していないのに「Invalid API key · Please run /login」と表示されます",
    ], bucket="auth")
    assert_not_read("agent-run", "rate-limited", [
        "レート制限を超えていないのに、コンテキスト長の上限を超えました: prompt is too long: 210000 tokens > 200000 maximum",
    ], bucket="context_exceeded")
    assert_not_read("agent-run", "rate-limited", [
        "レート制限されず、JavaScript heap out of memory でクラッシュしました",
    ], bucket="killed")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "rate-limited", [
        "申し訳ございません。要求はレート制限されました。84 seconds を待ってから、もう一度お試しください。",
        "レート制限を超えました",
        "レート制限に達しました",
    ], bucket="rate_limited")


def test_upgrade_offered_beside_a_rate_limit_is_not_a_usage_cap():
    # usage-cap-upgrade-plan used to stand down only beside 'global rate limit', so a rate limit
    # or a concurrency cap that offers an upgrade as a way round it was read as usage_limit.
    assert_not_read("agent-run", "usage-cap", [
        "Rate limit exceeded (20 requests/min). Retry in 12 seconds or upgrade your plan.",
        "You are being rate-limited. Please upgrade your plan or try again in a minute.",
        "Error 429: Too many requests. Slow down or upgrade your plan.",
    ], bucket="rate_limited")
    assert_not_read("agent-run", "usage-cap", [
        '{"detail": "Too many concurrent active sessions. Please wait for one to finish, kill one, or upgrade your plan."}',
    ], not_bucket="usage_limit")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "usage-cap", [
        "You have reached your limit. Upgrade your plan to continue",
    ], bucket="usage_limit")


def test_crash_or_overflow_during_reauthentication_is_not_a_signin_failure():
    # the signin-attempt-failed route (auth-reauthentication-attempt-failed) decided before the
    # killed, context, max-turns, MCP and command-timeout routes, so 'JavaScript heap out of
    # memory while reauthenticating' was read as auth.
    for texts, bucket in [
        (["<--- Last few GCs ---> FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory while reauthenticating",
          "codex crashes with SIGSEGV while re-authenticating",
          "Killed: 9 while reauthenticating"], "killed"),
        (["Prompt is too long: the conversation hits the context window limit during reauthentication"], "context_exceeded"),
        (["Reached max turns (25) while reauthenticating the gh CLI inside the sandbox"], "max_turns"),
        (['Error: MCP server "github" failed to start: spawn npx ENOENT (on reauthentication the server is restarted)',
          "gcloud command timed out after 120000ms while re-authenticating the tool's own cloud credentials"], "unknown_non_zero"),
    ]:
        for t in texts:
            got = answer("agent-run", t)
            assert got.bucket == bucket and got.rule != "signin-attempt-failed", (t, got.bucket, got.rule)
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "signin-attempt-failed", [
        'Zed editor codex-cli returns error "Resource not found" during Reauthentication using Login with ChatGPT',
        'Installed codex cli from ACP registry, tried to reauthenticate using "Login with ChatGPT" returns error "Resource not found"',
    ], bucket="auth")


def test_acp_session_exit_after_a_network_error_is_network():
    # spawn-host-failed-to-start-agent's 'Failed to initialize ACP session … process exited with
    # code N' decided by the spawn route, which comes before the network route, so a claude process
    # that exited because it could not reach the API was read as spawn_failure.
    assert_not_read("agent-run", "spawn-failed", [
        'Failed to initialize ACP session. Error: Internal error: "Claude Code process exited with code 1"\nerror: getaddrinfo ENOTFOUND api.anthropic.com',
        'Failed to initialize ACP session. Error: Internal error: "Claude Code process exited with code 1" - stderr: API Error: Request timed out.',
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "spawn-failed", [
        'The AI Chat Claude Agent fails to initialize on Windows with "Intellij AI Chat Failed to initialize ACP session. Error: Internal error: "Claude Code process exited with code 1"". Claude Code works fine in the terminal.',
    ], bucket="spawn_failure")


def test_agent_operation_timeout_stands_down_for_connection_errors():
    # killed-agent-operation-timeout used to read any '<agent> operation/execution timed out after N'
    # as the wrapper's own stop, so a timeout that named its lost connection was read as killed.
    assert_not_read("agent-run", "killed-text", [
        "Error: Codex execution timed out after 600 seconds\nstream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)",
        "[ERROR] Claude CLI operation timed out after 30 seconds.\nAPI Error: Connection error. (fetch failed)",
        "Gemini operation timed out after 60s: request to https://generativelanguage.googleapis.com failed, reason: ENOTFOUND",
        "claude execution timed out after 45s: Could not resolve host: api.anthropic.com",
    ], bucket="network")
    # nor a codex MCP tool's call that timed out inside a live run
    assert_not_read("agent-run", "killed-text", [
        "MCP error -32001: Request timed out\ncodex execution timed out after 60 seconds",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text", [
        "Executing Claude CLI command...\n[ERROR] Claude CLI operation timed out after 30 seconds.\n[HINT] This may indicate network issues or Claude service problems.\n[DEBUG] Command executed: timeout 30s claude",
    ], bucket="killed")


def test_ci_timeout_worded_stands_down_for_connection_errors():
    # killed-ci-timeout-worded used to read 'until killed by timeout' beside any error,
    # so a run hung on a lost connection until the job's timer ended it was read as killed.
    assert_not_read("agent-run", "killed-text", [
        "# Codex action hangs on \"stream disconnected - retrying\"\nThe Codex step keeps printing `stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)` and retrying, until killed by the job's timeout.",
        "# gemini-cli hangs with fetch failed in CI\nGemini CLI logs `[API Error: fetch failed]` every few seconds and never exits until killed by timeout.",
        "# Codex action: run hangs after 'Connection error.'\nAfter `API Error: Connection error.` the claude-code-action step sits there until killed by the timeout.",
        "Error: getaddrinfo EAI_AGAIN api.anthropic.com — the action then hangs until killed by the timeout.",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text", [
        "# The Gemini CLI freezes on startup\nThe run-gemini-cli GH action installs Gemini CLI, then it executes the Gemini CLI, which freezes forever (until killed by timeout). There is no output.",
        "Codex finishes the turn, writes its output file, prints its final message and token count — and then the step sits idle until the job's `timeout-minutes` kills it.",
    ], bucket="killed")


def test_session_idle_cleanup_stands_down_for_tool_sessions():
    # killed-session-idle-cleanup used to read any '<x> session … has been idle for Ns, cleaning up',
    # so a browser or shell tool's own session clean-up was read as the run being killed.
    assert_not_read("agent-run", "killed-text", [
        "[WARNING] Browser session 4f2a has been idle for 300s, cleaning up\nError: page.goto: Target page, context or browser has been closed",
        "2026-03-13T05:11:55.597Z [WARNING] Shell session 3 has been idle for 600s, cleaning up\nError: shell session 3 not found",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text", [
        "# The Copilot CLI will hang after 35 minutes\n2026-03-13T05:11:48.095Z [DEBUG] edit: /testbed/filenamea\n2026-03-13T05:11:55.597Z [WARNING] Session 7bfbb4ba-73bc-4814-8661-c85d9fa5038c has been idle for 2100s, cleaning up",
    ], bucket="killed")


# The API's own refusals, as the golden cases have them (the rule's own wording).
OWN_WORDING = [
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.44.content.1.image.source.base64: image exceeds 5 MB maximum: 11641928 bytes > 5242880 bytes"},"request_id":"req_011CUtc4QmYXvDmHZ4aqQP5i"}',
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.59.content.12.image.source.base64.data: At least one of the image dimensions exceed max \n    allowed size for many-image requests: 2000 pixels"}}',
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.38.content.0.pdf.source.base64.data: A maximum of 100 PDF pages may be provided."}}',
    '● PDF too large. Please double press esc to edit your message and try again.',
]


def test_attachment_limit_quoted_in_a_product_test_report_is_not_context_exceeded():
    # attachment-over-api-limit used to read the API's image/PDF refusal anywhere, so a
    # failing test of the product being built (which quotes that refusal in its assertion)
    # was read as context_exceeded, though the agent's own history never held the image.
    assert_not_read("agent-run", "context-exceeded", [
        " FAIL  src/lib/errors.test.ts > classifyAPIError > maps the image size refusal\n"
        "AssertionError: expected 'unknown' to be 'image_too_large' // Object.is equality\n"
        " ❯ src/lib/errors.test.ts:42:36\n"
        "     40|     const err = apiError(400, 'messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 5316852 bytes > 5242880 bytes')\n",
        "FAIL tests/vision.test.js\n  ● vision provider › keeps the provider's own words on a 400\n\n"
        "    expect(received).toContain(expected)\n\n"
        "    Expected substring: \"At least one of the image dimensions exceed max allowed size: 8000 pixels\"\n"
        "    Received string:    \"Vision request failed\"\n",
        "FAILED tests/test_ai.py::test_a_rejected_request_is_not_retried - AssertionError: assert not True\n"
        "E    +  where True = _is_transient_model_error(Exception('ValidationException: A maximum of 100 PDF pages may be provided'))\n"
        "=========================== short test summary info ============================\n",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "context-exceeded", OWN_WORDING, bucket="context_exceeded")


def test_attachment_limit_from_a_tools_own_model_call_is_a_tool_failure():
    # attachment-over-api-limit used to read the refusal inside a tool's or MCP server's
    # error, so a vision tool whose own model call carried the image was read as
    # context_exceeded instead of a failed tool (the agent's history never held it).
    assert_not_read("agent-run", "context-exceeded", [
        "Error calling tool 'browser_vision': Error: 400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
        "\"message\":\"messages.0.content.0.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels\"}}",
        "MCP error -32603: Vision analysis failed: 400 messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: 7304852 bytes > 5242880 bytes",
        "Error: tool call error: tool call failed for `zen/chat`\n  Caused by: messages.3.content.0.pdf.source.base64.data: A maximum of 100 PDF pages may be provided.",
    ], bucket="unknown_non_zero")
    for text in ["Error calling tool 'browser_vision': 400 image dimensions exceed max allowed size: 8000 pixels"]:
        assert answer("agent-run", text).rule == "tool-failed"
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "context-exceeded", OWN_WORDING, bucket="context_exceeded")


def test_auto_reply_cap_not_read_when_said_unreached_or_beside_a_network_or_kill():
    # auto-reply-cap-reached used to allow any 20 characters between the setting and 'reached'/'hit', and
    # any 'limit' before it, so "ends before max_consecutive_auto_reply is reached", "was never reached" and
    # "the token count hits the limit, even with max_consecutive_auto_reply=50" were read as max_turns.
    assert_not_read("agent-run", "max-turns", [
        "Even though max_consecutive_auto_reply was never reached, the run dies with httpx.ConnectError: [Errno 111] Connection refused after a few turns.",
        "The chat terminates when the token count hits the limit, even with max_consecutive_auto_reply=50: openai.APIConnectionError: Connection error.",
    ], bucket="network")
    assert_not_read("agent-run", "max-turns", [
        "The agent stopped long before max_consecutive_auto_reply was hit; the container was OOM killed (exit code 137).",
    ], bucket="killed")
    assert_not_read("agent-run", "max-turns", [
        "The group chat ends before max_consecutive_auto_reply is reached: the assistant replies with an empty message and the conversation just terminates.",
    ], not_bucket="max_turns")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns", [
        "max_consecutive_auto_reply is reached",
        "max_consecutive_auto_reply (10) was reached, the chat stops",
        "# The agent stops only when the number of sessions reaches the upper limit（Commenting system_message also doesn't work unless max_consecutive_auto_reply is modified）",
        "The chat stops when the reply count hits the limit set by max_consecutive_auto_reply.",
        "Maximum number of consecutive auto-replies reached",
    ], bucket="max_turns")


def test_stop_after_n_model_calls_not_read_beside_a_kill_crash_or_dropped_connection():
    # stops-after-n-model-calls used to veto only a few connection words, so an OOM kill, a segfault or
    # httpx's "Server disconnected" after N LLM calls was read as max_turns.
    assert_not_read("agent-run", "max-turns", [
        "The agent stops after 10 LLM calls: the process was killed by the OOM killer, memory grows with each call.",
        "The run ends after 2 model calls with Segmentation fault (core dumped).",
    ], bucket="killed")
    assert_not_read("agent-run", "max-turns", [
        "MCP server disconnects after 3 LLM calls: httpx.RemoteProtocolError: peer closed connection without sending complete message body",
        "After 20 model calls it stopped: Server disconnected without sending a response.",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns", [
        "I am observing that after 10 LLM calls it disconnect, I have to then start again. there is no option to. set configuration for. that.",
        "The agent stops after 25 model calls every time.",
    ], bucket="max_turns")


def test_kept_stopping_not_read_when_the_setting_is_ruled_out_or_a_cause_is_named():
    # kept-stopping-at-iteration-setting used to read any "keeps stopping … max_iterations", so a report that
    # rules the setting out and shows ECONNRESET, or one whose model returns an empty response, was max_turns.
    assert_not_read("agent-run", "max-turns", [
        "The agent keeps stopping mid-task and it is not max_iterations (I set it to 200): the log shows ECONNRESET from the proxy.",
    ], bucket="network")
    assert_not_read("agent-run", "max-turns", [
        "It keeps stopping after one tool call even with max_steps=50; the model just returns an empty response with finish_reason stop.",
    ], not_bucket="max_turns")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns", [
        "it kept stopping even though I was explicit multiple times to continue processing until an objective was met. "
        "This was infuriating... but I finally realized that I has set Parameters --> Max-Iterations to 5, thinking that it was (max-retries on failure).",
        "The run stopped because of the Max-Iterations setting.",
    ], bucket="max_turns")


def test_defined_iteration_limit_not_read_when_said_unreached_or_beside_a_network_error():
    # hits-defined-iteration-limit used to veto only ENOTFOUND/ECONNREFUSED/ECONNRESET/fetch failed, and no
    # negation, so "long before … reaches the defined "Max Iterations" limit … Connection error", a socket
    # hang up, and "did not hit the set maxSteps limit" after an empty response were read as max_turns.
    assert_not_read("agent-run", "max-turns", [
        'Long before the run reaches the defined "Max Iterations" limit, the workflow fails with Connection error.',
        "Does the agent stop because it hits the defined `Max Iterations` limit? No, the logs show: Error: socket hang up",
    ], bucket="network")
    assert_not_read("agent-run", "max-turns", [
        "The agent stops at step 3 with Error: The model returned an empty response. It did not hit the set maxSteps limit.",
    ], bucket="no_output")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns", [
        'When the AI Agent Node hits the defined `Max Iterations` limit while "On Error" is set to "Continue (using error output)", the execution routes to the Success output.',
        "When an agent hits the maxSteps limit (default 30), the turn just silently stops.",
    ], bucket="max_turns")


def test_iteration_reaches_maximum_not_read_for_a_maximum_limit_of_something_else():
    # iteration-reaches-maximum used to take any "maximum limit"/"maximum count" as the cap, so "this turn
    # exceeded the maximum limit of 8192 output tokens" or an upload step's 10 MB limit was read as max_turns.
    assert_not_read("agent-run", "max-turns", [
        "Error: the response in this turn exceeded the maximum limit of 8192 output tokens; the answer was cut off.",
        "Upload step exceeded the maximum limit of 10 MB for attachments.",
        "Request failed: the number of tool calls in this turn exceeded the maximum limit of 128.",
    ], not_bucket="max_turns")
    assert_not_read("agent-run", "max-turns", [
        "The memory used by this step exceeded the maximum limit and the process was killed (OOM).",
    ], bucket="killed")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns", [
        "# Receive a message/event rather than raising RuntimeError when agent iteration reaches maximum",
        "Whether it's possible to get an event instead of RuntimeError when iteration exceeds maximum.",
        "The turn reached the maximum limit.",
        "agent step reached maximum (20)",
    ], bucket="max_turns")


def test_empty_model_response_code_not_read_inside_a_longer_identifier():
    # empty-output-host-placeholder's new empty_(model|llm|assistant)_ form used to match inside any
    # identifier, so a traceback through _handle_empty_model_response or a missing allow_empty_assistant_reply
    # setting was read as no_output.
    assert_not_read("agent-run", "empty-output", [
        'Traceback (most recent call last):\n  File "agent/loop.py", line 212, in _handle_empty_model_response\n'
        '    return self.messages[-1]["content"][0]\nTypeError: \'NoneType\' object is not subscriptable',
        "KeyError: 'allow_empty_assistant_reply' in config/agent.yaml",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "任务回复和总结均成功，但完成通知的持久化状态为 `kind: completion`、`status: failed`、`error: EMPTY_MODEL_RESPONSE`。",
        "error: EMPTY_LLM_RESPONSE",
        "incomplete/task_complete_empty_reply",
    ], bucket="no_output")


def test_empty_string_not_read_from_a_command_or_setting_naming_the_agent():
    # empty-output-sdk-returned-empty-string used to allow 30 characters between the agent's name and
    # "returns an empty string", so `which claude` or `claude --version` returning nothing (a launch problem)
    # and a model-name setting were read as no_output.
    assert_not_read("agent-run", "empty-output", [
        "`which claude` returns an empty string under launchd, so the spawn of the agent does nothing.",
        "claude --version returns an empty string after the update; the binary seems broken.",
        "The model name setting returns an empty string, so the agent falls back to the default.",
    ], not_bucket="no_output")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "When the Claude Code SDK returns an empty string (0 chars), the bridge never delivers SDLC stage progress, links, or any response to Telegram.",
        "Sometimes the agent's response returns an empty string.",
    ], bucket="no_output")


def test_zh_no_output_not_read_inside_a_word_or_beside_a_named_cause():
    # empty-output-localized-zh-no-output-text used to take the letters 'ai' anywhere (python main.py) and had
    # no veto for an OOM kill or an expired key, so these were read as no_output.
    assert_not_read("agent-run", "empty-output", [
        "运行 python main.py 没有输出任何内容",
        "进程被 OOM 杀掉，模型没有输出任何内容",
        "API Key 过期，模型没有输出任何内容，返回 401",
    ], not_bucket="no_output")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "让agent对一个文件进行review，过程看起来貌似正常，但是cursor里没有最终的文字输出",
        "模型连续两轮都没有输出内容。可以重试，或换一种说法。",
        "AI没有输出任何内容",
    ], bucket="no_output")


def test_reasoning_then_done_not_read_beside_a_kill_crash_or_dropped_stream():
    # empty-output-reasoning-then-done (an early route, before network and kill) used to ignore kills, crashes,
    # a 502 and a disconnected stream, so "thinking but no output text, then zsh: killed" was read as no_output.
    assert_not_read("agent-run", "empty-finish-stop", [
        'Claude Code showed its thinking but no output text, then the terminal printed "zsh: killed claude" (out of memory).',
        "After the reasoning, the CLI printed [DONE] and then crashed with Segmentation fault (core dumped).",
        "After thinking for a while it printed [DONE] and the process exited with code 137.",
    ], bucket="killed")
    assert_not_read("agent-run", "empty-finish-stop", [
        "The stream shows reasoning but no content, then the proxy returns 502 Bad Gateway.",
        "The model streams its reasoning but no answer text, then: Error: stream disconnected before completion: Transport error: error decoding response body",
    ], bucket="network")
    assert_not_read("agent-run", "empty-finish-stop", [
        "o3-mini spends all 2000 max_completion_tokens on reasoning but empty content is returned.",
    ], not_bucket="no_output")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-finish-stop", [
        "The unsteady LLM gives a empty response(normal CoT but empty main text). The console on right side shows the "
        "monitor proxy program, it shows that after the CoT, LLM just gives [DONE].",
        "The model streams its reasoning but no final answer, and the stream ends.",
    ], bucket="no_output")


def test_git_remote_auth_failure_is_not_the_agents_sign_in():
    # auth-your-token-may-be-invalid used to read any "Authentication failed" headline followed by a
    # "Your … may be expired" line, so a git push refused by its remote was read as auth.
    assert_not_read("agent-run", "auth-rejected", [
        "git push origin feature\nfatal: Authentication failed for 'https://dev.azure.com/org/proj/_git/repo'\nYour PAT may be expired.",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "auth-rejected", [
        "Error: Authentication failed (Request ID: 2915:A0B85:4D563A2:5BD65FE:6A915A71)\n\n"
        "Your GitHub token may be invalid, expired, or lacking the required permissions.",
    ], bucket="auth")


def test_sso_refresh_in_a_tool_is_not_the_agents_sign_in():
    # auth-aws-sdk-sso-refresh-failed used to read the Go SDK's SSO refresh failure from any program,
    # so Terraform or kubectl run by the agent with an expired SSO session was read as auth.
    assert_not_read("agent-run", "auth-rejected", [
        "Bash(terraform plan)\nError: configuring Terraform AWS Provider: validating provider credentials: retrieving caller identity from STS: "
        "operation error STS: GetCallerIdentity, get identity: get credentials: failed to refresh cached credentials, refresh cached SSO token failed, "
        "unable to refresh SSO token, operation error SSO OIDC: CreateToken, https response error StatusCode: 400, InvalidGrantException",
        "kubectl get pods\nerror: exec plugin: failed to refresh cached credentials, refresh cached SSO token failed, unable to refresh SSO token",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "auth-rejected", [
        "Error processing message: LLM call failed after retries: bedrock converse: operation error Bedrock Runtime: Converse, "
        "get identity: get credentials: failed to refresh cached credentials, refresh cached SSO token failed...",
    ], bucket="auth")


def test_signal_to_a_timed_out_tool_command_is_not_a_kill_of_the_agent():
    # killed-terminated-by-named-signal and killed-external-sigterm-worded used to read a named stop signal
    # anywhere, so a tool command the agent ran, stopped on its time limit, was read as killed.
    assert_not_read("agent-run", "killed-text", [
        "Bash(npm run test:e2e)\n  ⎿  Error: Command timed out after 2m 0s\n     The test runner was terminated by SIGTERM.",
        "Bash(pytest -x)\n  ⎿  Command timed out after 2m 0s. pytest received a SIGTERM and exited",
        "Tool call failed: the dev server (vite) was terminated by SIGINT when the command timed out after 120000ms",
    ], bucket="unknown_non_zero")
    # positive control: the rules' own wording is still read
    assert_read("agent-run", "killed-text", [
        "When the `claude` process is terminated by **SIGTERM** — for example, by a wrapper enforcing an execution timeout via `timeout` — the configured `Stop` hook never runs.",
        "the Python process was being killed (likely by SIGHUP signal) when E2B's connection was closed",
        "Because of a new deployment, our worker received a `SIGTERM` signal mid-call.",
    ], bucket="killed")


def test_closed_browser_tab_is_not_a_closed_terminal():
    # killed-terminal-closed-ended-session used to read any closed "tab", so a browser tool's tab closing
    # and ending its Playwright session was read as killed.
    assert_not_read("agent-run", "killed-text", [
        "The browser tab was closed unexpectedly and the Playwright session was terminated.\nError: Target page, context or browser has been closed",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text", [
        "When the user-side terminal within Codex is closed, the current session is terminated.",
    ], bucket="killed")


def test_ctrl_c_out_of_a_network_hang_is_the_networks():
    # killed-user-ctrl-c-had-to-kill used to read any Ctrl+C that ended a session, so a user giving up on a
    # request hung on a lost connection was read as killed.
    assert_not_read("agent-run", "killed-text", [
        "The request hung on 'Reconnecting... ECONNRESET' for ten minutes; Ctrl+C did nothing so I had to kill the session.",
        "Stuck at 'Thinking...' forever after fetch failed (ETIMEDOUT). Ctrl-C twice, had to kill the conversation.",
    ], bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "killed-text", [
        "pressing Ctrl+C once didn't stop it, so had to do it twice and kill the conversation without ability to follow up on it, context is gone.",
    ], bucket="killed")


def test_zh_timeout_setting_named_is_no_timeout():
    # network-request-timeout-zh used to match 超时 at the start of a setting's name (超时时间, 超时设置,
    # 超时调大), so an empty answer beside "已把请求超时调大到 10 分钟" was read as network.
    assert_not_read("agent-run", "network-loose", [
        "Error: The model returned an empty response.\n(已把请求超时调大到 10 分钟，问题依旧)",
        "API 请求超时设置为 600000ms\nError: model returned an empty response",
    ], bucket="no_output")
    got = answer("agent-run", "连接超时时间: 30s\n请求超时时间: 600s\nagent exited with code 0 but produced no result")
    assert "network-loose" not in got.signals and got.bucket == "no_output", (got.bucket, got.signals)
    # positive control: the rule's own wording is still read, a setting beside a real timeout too
    assert_read("agent-run", "network-loose", [
        "# 设置了全局代理后，通过本地代理访问openai官方模型超时",
        "# 请求超时\nError: Request timeout",
        "请求超时 (超时时间: 600s)",
        "连接超时",
    ], bucket="network")


def test_oom_killed_spaced_needs_an_asserted_kill():
    # oom-killed-spaced used to read any 'OOM kill(s/ed)', so denials, questions and a killed local model server were read as killed.
    assert_not_read("agent-run", "out-of-memory", [
        "API Error: Connection error.\nThe session just stops with this after ~10 minutes. Memory stays under 1 GB and dmesg shows nothing, so it did not get OOM killed.",
        "stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)\nThis isn't an OOM kill, the process keeps running and retries.",
        "Error: connect ECONNREFUSED 127.0.0.1:11434\nOllama got OOM killed while loading qwen2.5-coder:32b and the agent kept retrying the connection.",
    ], bucket="network")
    assert_not_read("agent-run", "out-of-memory", [
        "Error: spawn claude ENOENT\n    at ChildProcess._handle.onexit (node:internal/child_process:285:19)\nI'm on a 2 GB VPS and was worried about OOM kills, but the binary is simply not found.",
    ], bucket="spawn_failure")
    assert_not_read("agent-run", "out-of-memory", [
        "claude exited with code 1 and no output. I don't think it's an OOM kill: the box has 64 GB free.",
    ], not_bucket="killed")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "out-of-memory", [
        "# [Bug]: Openclaw was OOM killed after companion app connected\nI connected the companion windows app and then the memory peaked for an unknown reason and crashed openclaw, since it was then OOM killed by kubernetes.",
        "The agent got OOM killed.",
    ], bucket="killed")


def test_windows_virtual_memory_denials_are_no_kill():
    # oom-windows-low-virtual-memory used to read the words even when ruled out, so 'it is not virtual memory exhaustion' was read as killed.
    assert_not_read("agent-run", "out-of-memory", [
        "API Error: Connection error.\nWindows Event Viewer shows nothing (no low virtual memory condition, no crash), the request just fails.",
    ], bucket="network")
    assert_not_read("agent-run", "out-of-memory", [
        "Error: spawn EPERM\n    at ChildProcess.spawn (node:internal/child_process:421:11)\nI first suspected virtual memory exhaustion since the pagefile is small, but it's an antivirus block.",
    ], bucket="spawn_failure")
    assert_not_read("agent-run", "out-of-memory", [
        "Codex finished with exit 0 but the last message is empty. Not out of virtual memory (checked Resource Monitor).",
    ], not_bucket="killed")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "out-of-memory", [
        "Source: Microsoft-Windows-Resource-Exhaustion-Detector\nMessage: Windows successfully diagnosed a low virtual memory condition.\n  claude.exe (31460) consumed 2,815,025,152 bytes",
        "`claude.exe` grows unbounded until Windows reports\n  virtual-memory exhaustion.",
    ], bucket="killed")


def test_german_oom_needs_oom_as_the_cause():
    # oom-german-runs-die used to read any dying word ('abgebrochen', 'beendet') within 30 characters of OOM or Speichermangel,
    # so a dropped connection beside a denial ('Mit OOM hat das nichts zu tun', 'nicht wegen Speichermangel') was read as killed.
    assert_not_read("agent-run", "out-of-memory", [
        "Fehler: Verbindung zum Server abgebrochen (ECONNRESET). Mit OOM hat das nichts zu tun.",
        "# Agent-Läufe brechen ab, aber nicht wegen Speichermangel\nConsumer error: Connection closed by server.\nDer Host hat 32 GB frei.",
        "Der Agent bricht ab, obwohl kein Speichermangel vorliegt:\nAPI Error: Connection error.",
        "Läufe werden abgebrochen. OOM ausgeschlossen (dmesg ist leer), im Log steht nur:\nError: connect ECONNREFUSED 127.0.0.1:8080",
    ], bucket="network")
    assert_not_read("agent-run", "out-of-memory", [
        "Error: spawn claude ENOENT\nDer Prozess wird sofort beendet. Speichermangel können wir ausschließen, das Binary fehlt im PATH.",
    ], bucket="spawn_failure")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "out-of-memory", [
        "# bug(infra): Laeufe sterben still am Host-OOM — cgroup-Speicher-Controller ist abgeschaltet\nConsumer error: Connection closed by server.",
        "Der Lauf wurde wegen Speichermangel beendet.",
    ], bucket="killed")


def test_libstdcxx_version_needed_by_a_loaded_module_is_not_the_agents_launch():
    # binary-not-loadable used to read any "version `GLIBCXX_…' / `CXXABI_…' not found", so a project's
    # Python import or Node addon failing inside a command the agent ran was read as spawn_failure.
    assert_not_read("agent-run", "spawn-failed", [
        "Error: Command failed: python train.py\nTraceback (most recent call last):\n"
        "  File \"/home/u/proj/train.py\", line 3, in <module>\n    import torch\n"
        "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found "
        "(required by /home/u/miniconda3/envs/dev/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so)",
        " FAIL  tests/db.test.ts\n  ● Test suite failed to run\n"
        "    Error: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found "
        "(required by /app/node_modules/better-sqlite3/build/Release/better_sqlite3.node)\nTests: 0 passed, 1 failed",
        "exec bash -lc 'npm run build' in /workspace\n"
        "node: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.21' not found "
        "(required by /workspace/node_modules/sharp/build/Release/sharp-linux-x64.node)\nexited 1 in 320ms",
    ], bucket="unknown_non_zero")
    # positive control: the loader refusing the agent's own binary is still read
    assert_read("agent-run", "spawn-failed", [
        "/home/me/.local/bin/goose: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found",
        "kiro-cli fails after recent update with /lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found",
        "goose: /lib64/libstdc++.so.6: version `CXXABI_1.3.13' not found (required by goose)",
    ], bucket="spawn_failure")


def test_windows_image_mismatch_of_a_project_build_is_not_the_agents_launch():
    # windows-image-not-for-this-windows used to read Windows refusing any .exe, so an app the project
    # built for another architecture (bin\Release, target\release) that the agent ran was read as spawn_failure.
    assert_not_read("agent-run", "spawn-failed", [
        "Running dotnet test... The specified program requires a newer version of Windows.\n"
        "This version of C:\\work\\app\\bin\\Release\\net8.0\\win-arm64\\app.exe is not compatible with the version "
        "of Windows you're running. Check your computer's system information and then contact the software vendor.",
        "Error: Command failed: .\\target\\release\\mytool.exe --help\n"
        "This version of C:\\Users\\me\\proj\\target\\release\\mytool.exe is not compatible with the version of Windows you're running.",
    ], bucket="unknown_non_zero")
    # positive control: Windows refusing the agent's own binary is still read
    assert_read("agent-run", "spawn-failed", [
        "This version of C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\@anthropic-ai\\claude-code\\bin\\claude.exe "
        "is not compatible with the version of Windows you're running. Check your computer's system information "
        "and then contact the software vendor.",
        "该版本的 C:\\Program Files\\nodejs\\node_modules\\@anthropic-ai\\claude-code\\bin\\claude.exe 与你运行的 Windows 版本不兼容。",
    ], bucket="spawn_failure")


def test_a_tools_already_running_line_beside_another_cause_is_not_another_instance():
    # tool-says-it-is-already-running used to read any one-word '<name> is already running' line,
    # so a tool's line beside a timed-out command, a kill or a missing binary, or a task's own
    # 'Task is already running.', was read as live_elsewhere.
    assert_not_read("agent-run", "other-instance-holds",
                    ["Error: Command timed out after 120000ms\nMetro is already running.\n"],
                    bucket="unknown_non_zero")
    assert_not_read("agent-run", "other-instance-holds",
                    ["Killed\nollama is already running\n"], bucket="killed")
    assert_not_read("agent-run", "other-instance-holds",
                    ["Error: spawn claude ENOENT\nsyncthing is already running\n"], bucket="spawn_failure")
    assert_not_read("agent-run", "other-instance-holds",
                    ["Error: Task is already running.\n", "Compaction is already running.\n"],
                    not_bucket="live_elsewhere")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "other-instance-holds",
                ["2026-04-28T17:37:17+03:00 INFO  [crashes] crash signal handlers installed\nzed is already running\n"
                 "2026-04-28T17:37:17+03:00 INFO  [crashes] spawning crash handler process"],
                bucket="live_elsewhere")


def test_address_in_use_beside_a_connection_timeout_is_the_network():
    # address-in-use-beside-other-running-copy had no connection-error veto, so a timed-out
    # connection to the API beside another copy's 'address already in use' was read as live_elsewhere.
    assert_not_read("agent-run", "other-instance-holds",
                    ["Error: connect ETIMEDOUT 160.79.104.10:443\n"
                     "(another running instance of the proxy logged: address already in use)"],
                    bucket="network")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "other-instance-holds",
                ["When you're launching a tabby server, it doesn't check for other running servers to fail fast, "
                 "it stalls for quite a bit of time (~25s) before crashing with a \"Address already in use\" error"],
                bucket="live_elsewhere")


def test_a_plans_tool_invocation_allowance_is_not_the_turn_cap():
    # tool-call-cap (widened to 'invocations' and 'has been/is reached') had no plan or quota veto,
    # so a plan's allowance of tool invocations was read as max_turns.
    assert_not_read("agent-run", "max-turns",
                    ["Maximum tool invocations exceeded for your plan. Please upgrade to continue.",
                     "Maximum number of tool calls has been exceeded for your plan quota. Upgrade to continue."],
                    not_bucket="max_turns")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns",
                ["With more complex prompts, Copilot sometimes shows a warning stating that maximum number of tool "
                 "invocations has been reached, asking to type 'continue' to continue."],
                bucket="max_turns")


def test_an_interpreters_function_call_depth_is_not_the_turn_cap():
    # tool-call-depth-cap's new branch read 'max(imum) function call depth exceeded' without 'nested',
    # so an interpreter's own recursion limit was read as max_turns.
    assert_not_read("agent-run", "max-turns",
                    ["Error: Maximum function call depth (1000) exceeded while evaluating template\nsegmentation fault"],
                    bucket="killed")
    assert_not_read("agent-run", "max-turns",
                    ["Traceback (most recent call last):\nRuntimeError: maximum function call depth exceeded\n"
                     "Process exited with code 1",
                     "jsonnet: RUNTIME ERROR: max function call depth exceeded"],
                    not_bucket="max_turns")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns",
                ["As it stands, the agent just stops when it hits the maximum depth.\n"
                 "I was running into the occasional \"max function calls nested depth reached\""],
                bucket="max_turns")


def test_a_solvers_iteration_count_is_not_the_turn_cap():
    # reaches-maximum-iteration-count read any 'reached the maximum iteration count', so a numeric
    # solver's cap in a tool's output beside a timed-out command was read as max_turns.
    assert_not_read("agent-run", "max-turns",
                    ["Solver reached the maximum iteration count (5000) without converging\nCommand timed out after 120s"],
                    bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns",
                ["When Hermes reaches the configured maximum iteration count before completing a tool-driven request, "
                 "`nemohermes exec` returns exit code 0 even though the requested operation is incomplete."],
                bucket="max_turns")


def test_a_tool_calls_time_or_size_limit_is_not_the_turn_cap():
    # tool-calls-hitting-limit-at-count read any count after 'tool call hit the limit of', so a
    # tool call's time or output-size limit was read as max_turns.
    assert_not_read("agent-run", "max-turns",
                    ["Tool call reached the limit of 120 seconds and timed out",
                     "Tool call hit the limit of 30 seconds; the shell command was cancelled",
                     "Bash tool call reached the limit of 30000 characters of output, output truncated"],
                    not_bucket="max_turns")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "max-turns",
                ["# [Bug] Tool calls hitting limits at 50\nHave 1 prompt that lets the agent run 50 tool calls.\n"
                 "It shouldn't hit the limit and stop, this is not the behavior in other harnesses."],
                bucket="max_turns")


def test_clean_stop_rule_skips_tool_calls_stream_chunks_and_refusals():
    # empty-content-clean-stop used to fire on any `content: null` beside `finish_reason: stop`,
    # so a tool call written `tool_calls: [{`, the Python SDK's final stream chunk
    # (ChoiceDelta(content='') ... finish_reason='stop') and a structured-output refusal were
    # read as no_output.
    assert_not_read("agent-run", "empty-output", [
        '# [Bug]: hermes tool parser: tool calls come back with the wrong finish_reason\n'
        'The response has `content: null`, `finish_reason: "stop"` and `tool_calls: [{"id": "chatcmpl-tool-1", '
        '"type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]`, so the agent loop thinks the turn ended.',
        "content=None, finish_reason='stop', tool_calls=[{'id': 'call_1', 'function': {'name': 'ls'}}]",
        "IndexError: list index out of range\nChatCompletionChunk(id='chatcmpl-9x', choices=[Choice(delta=ChoiceDelta("
        "content='', function_call=None, refusal=None, role=None, tool_calls=None), finish_reason='stop', index=0, "
        "logprobs=None)], created=1718000000, model='gpt-4o', object='chat.completion.chunk', usage=None)",
        '# Usage is missing from the last streamed chunk\nThe final chunk is `delta: { content: "" }, finish_reason: "stop"` '
        'and `usage` is null even with stream_options.include_usage=true.',
        "Structured outputs: ChatCompletionMessage(content=None, refusal=\"I'm sorry, I can't assist with that request.\", "
        "role='assistant', tool_calls=None) finish_reason='stop'",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        '# [Bug]: GPT-OSS Harmony: vLLM silently returns `content: null` with `finish_reason="stop"` when its parser ends in a non-terminal state',
        "ChatCompletionMessage(content=None, refusal=None, role='assistant', tool_calls=None) finish_reason='stop'",
    ], bucket="no_output")


def test_zh_content_field_rule_skips_requests_tool_calls_reasoning_and_chunks():
    # empty-content-field-zh used to fire on any 'content 为/是 null|空', so a request the server
    # refused (400 Bad Request), a tool call with content null, an empty *reasoning* content and a
    # stream's last chunk were read as no_output.
    assert_not_read("agent-run", "empty-output", [
        "调用 chat 接口时，如果 assistant 消息的 content 为 null，vLLM 会返回 400 Bad Request",
        "使用 function calling 时 content 为 null，tool_calls 里有函数调用，但是 LangChain 抛出 KeyError: 'arguments'",
        "开启 enable_thinking 后 reasoning content 为空，思考过程全部输出在 content 里，没有被解析出来",
        "流式输出时最后一个 chunk 的 content 为空，usage 字段也是 null，无法统计 token",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "# [Bug] qwen3.6-27b使用sglang=0.5.10.post1部署，结果content经常是none",
        "模型部署后调用接口，返回的content为空",
    ], bucket="no_output")


def test_generations_list_rule_skips_aborted_runs():
    # empty-generations-list used to fire on any empty generations list, so a LangChain run that
    # was aborted or cancelled (its LLMResult empty because it never finished) was read as no_output.
    assert_not_read("agent-run", "empty-output", [
        'Exiting LLM run with output: { "generations": [ [] ] }\nError: Request was aborted. AbortError',
        "LLMResult(generations=[[]], llm_output=None) after callback raised CancelledError",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        '# langchain agent -> Exiting LLM run with output: { "generations": [ [ null ] ] }',
        "LLMResult(generations=[[]], llm_output=None)",
    ], bucket="no_output")


def test_logged_response_rule_skips_a_token_cap():
    # empty-response-logged used to fire on an empty logged response whatever stopped it, so a
    # reply cut by max_tokens (which the table reads as a too-long context) was read as no_output.
    assert_not_read("agent-run", "empty-output", [
        "LLM response: ''\nstop_reason: max_tokens",
    ], bucket="context_exceeded")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        '<Bot> full response to system: ""',
    ], bucket="no_output")


def test_response_text_rule_skips_http_bodies_and_token_caps():
    # empty-response-text-property used to read any empty response.text, so an HTTP call's empty
    # body (status 500, a requests.get of a page) and Gemini's text cut by MAX_TOKENS were read as
    # no_output.
    assert_not_read("agent-run", "empty-output", [
        "POST http://localhost:11434/api/generate returned status 500 and response.text is empty, so I can't see why the server failed",
        "requests.get(url) to fetch the page: response.text is empty because the site needs JavaScript; the scraper tool then fails",
        "Gemini: response.text is empty and finish_reason is MAX_TOKENS when max_output_tokens=256",
    ], bucket="unknown_non_zero")
    # positive control: the rule's own wording is still read
    assert_read("agent-run", "empty-output", [
        "# generateStream has empty (await response).text\ngenerateStream has empty (await response).text when using OpenAI models",
        "response.text is empty",
    ], bucket="no_output")


def test_zsh_killed_after_the_binary_ran_is_a_kill_not_a_signature_refusal():
    # binary-killed-past-security-prompt read any "Privacy & Security" mention before a
    # "zsh: killed" line as macOS refusing the binary at exec, even when the binary had
    # printed output first, grew its RAM to tens of GB, or was killed by hand.
    assert_not_read("agent-run", "binary-signature-refused", [
        "Gave Terminal Full Disk Access in System Settings > Privacy & Security, and crush starts now."
        " But after indexing the repo for a few minutes its RAM use climbs past 40 GB and then:\n"
        "% ./crush\nzsh: killed     ./crush",
        "Allowed it under Privacy & Security, so it opens now:\n% ./crush\n"
        "Loading session... indexing 18,422 files\nzsh: killed     ./crush",
        "I checked Security & Privacy and nothing is blocked. It runs for about ten minutes and then"
        " I had to kill -9 it from Activity Monitor:\nzsh: killed     claude",
    ], bucket="killed")
    assert_read("agent-run", "binary-signature-refused", [
        "I am not able to re-test/validate the fix because now the binary gets killed without any prompts"
        " to allow it through **Security & Privacy**:\n\n/tmp/crush_0.1.3_Darwin_arm64\n% ./crush\n"
        "zsh: killed     ./crush",
    ], bucket="spawn_failure")


def test_serde_reasons_after_a_stream_decode_error_are_not_a_dropped_stream():
    # network-reqwest-stream-body-decode vetoed only some of serde's reasons: a chunk of an
    # unknown shape (untagged enum, unknown field, a malformed object) read as a cut connection.
    assert_not_read("agent-run", "network-error", [
        "✗ stream error: error decoding response body: data did not match any variant of untagged enum StreamEvent",
        "Stream read error: error decoding response body: unknown field `reasoning_content`,"
        " expected one of `role`, `content`",
        "provider stream chunk error: error decoding response body: expected `,` or `}` at line 1 column 57",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "network-error", [
        "· response interrupted\n\n  ✗ stream error: error decoding response body",
    ], bucket="network")


def test_aiohttp_payload_error_in_a_tool_or_a_project_test_is_not_the_api_link():
    # network-aiohttp-payload-not-completed read a scraper tool's cut download (smolagents,
    # CrewAI) and pytest's report of a project test as the agent's stream to the API.
    assert_not_read("agent-run", "network-error", [
        "Error executing tool 'fetch_url' with arguments {\"url\": \"https://example.com/docs\"}:"
        " ClientPayloadError: Response payload is not completed",
        "Tool Usage Failed\nName: scrape_website\nError: aiohttp.client_exceptions.ClientPayloadError:"
        " Response payload is not completed: <ContentLengthError: 400, message='Not enough data to satisfy"
        " content length header.'>",
        "FAILED tests/test_stream.py::test_sse_reconnect - aiohttp.client_exceptions.ClientPayloadError:"
        " Response payload is not completed: <TransferEncodingError: 400, message='Not enough data to"
        " satisfy transfer length header.'>",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "network-error", [
        "File \"g4f\\requests\\__init__.py\", line 235, in sse_stream\n"
        "File \"aiohttp\\streams.py\", line 52, in __anext__\n"
        "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed:"
        " <TransferEncodingError: 400, message='Not enough data to satisfy transfer length header.'>",
    ], bucket="network")


def test_okhttp_stream_reset_in_a_gradle_test_report_is_not_the_agents_stream():
    # network-okhttp-http2-stream-reset read a project's failing JUnit test (run by the agent
    # through Gradle) whose StreamResetException is the code under test's, as a network error.
    assert_not_read("agent-run", "network-error", [
        "$ ./gradlew :client:test\n> Task :client:test FAILED\n\n"
        "ChatClientTest > streamsAfterServerReset() FAILED\n"
        "    okhttp3.internal.http2.StreamResetException: stream was reset: PROTOCOL_ERROR\n"
        "        at app//okhttp3.internal.http2.Http2Stream.takeHeaders(Http2Stream.kt:148)\n\n"
        "12 tests completed, 1 failed",
        "MockWebServerHttp2Test > refusedStream() FAILED\n"
        "    java.lang.AssertionError: expected:<200> but was:<StreamResetException: stream was reset: REFUSED_STREAM>",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "network-error", [
        "StreamResetException: stream was reset: INTERNAL_ERROR\n"
        "    at okhttp3.internal.http2.Http2Stream$FramingSource.read(Http2Stream.kt:355)\n"
        "    at com.anthropic.core.handlers.SseHandler$sseHandler$1.invokeSuspend(SseHandler.kt:21)",
    ], bucket="network")


def test_a_tools_404_thread_not_found_is_not_the_runs_thread_gone():
    # agent-absent-where-named read a tool's 404 for a forum or chat thread it fetched
    # (smolagents, CrewAI) as the conversation the run names being gone (agent_deleted).
    assert_not_read("agent-run", "agent-not-found", [
        "Error executing tool 'get_thread' with arguments {\"thread_id\": \"1729\"}: HTTPError: 404 Thread not found",
        "Tool Usage Failed\nName: fetch_forum_thread\nError: 404 Thread not found",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "agent-not-found", [
        "`POST /v1/runs/stream` looks the thread up in the caller's workspace, so every run answers"
        " `404 Thread not found`.",
        "$ tgpt -s \"How to update my system?\"\nSome error has occurred. Statuscode: 404\n"
        "{\"detail\":\"Assistant not found\"}",
    ], bucket="agent_deleted")


# Review of agent-run's rules added since 7161d6b (batches 489 and 494).


def test_dbg_terminate_process_code_of_mcp_server_timed_out_command_or_test_is_not_the_agents_kill():
    # killed-windows-dbg-terminate-process read 0x40010004 / 1073807364 wherever it stood: an MCP
    # server that exited with it (then 'Connection failed: MCP error -32000'), a tool command that
    # Codex timed out, and a jest test expecting the code to map to a kill all went to killed.
    assert_not_read("agent-run", "killed-text", [
        '[MCP] Server "appmap" exited with code 0x40010004 (DBG_TERMINATE_PROCESS)\n'
        'MCP server "appmap" Connection failed: MCP error -32000: Connection closed',
        "■ exec_command failed: command timed out after 120000 milliseconds; `npm run dev` exited with code 1073807364",
        " FAIL  src/__tests__/exitCodes.test.ts\n"
        "  ● classifyExit › maps DBG_TERMINATE_PROCESS to killed\n"
        "    expect(received).toBe(expected)\n"
        '    Expected: "killed"\n'
        '    Received: "crashed"',
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "killed-text", [
        "Process killed with `0x40010004` on Windows\n"
        "Typically some time after startup, the RPC server is killed with a `0x40010004` exit code on Windows.",
    ], bucket="killed")


def test_ctrl_event_that_stops_a_tool_command_is_not_a_kill_of_the_agent():
    # killed-windows-console-ctrl-event took any agent name within 60 characters after the verb, and
    # had no 'without' negation: Codex's time-out of a tool command, whose CTRL_BREAK_EVENT 'terminated
    # the pytest run spawned by codex' or whose CTRL_C_EVENT 'interrupts the running command without
    # killing Codex', went to killed instead of the command time-out.
    assert_not_read("agent-run", "killed-text", [
        "■ exec_command failed: command timed out after 10000 milliseconds. On timeout Codex sends "
        "CTRL_BREAK_EVENT to the process group, which terminated the pytest run spawned by codex.",
        "■ exec_command failed: command timed out after 10000 milliseconds. The shell tool sent "
        "CTRL_C_EVENT, which interrupts the running command without killing Codex.",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "killed-text", [
        "A PowerShell process launched through a Codex task can attach to another launched console and send a console-wide\n"
        "`CTRL_C_EVENT` that immediately terminates or interrupts the Codex App/task control plane as well as the intended\n"
        "target process chain.",
    ], bucket="killed")


def test_taskkill_node_that_took_only_the_agents_mcp_servers_is_not_a_kill_of_the_agent():
    # agent-killed-by-own-kill-all-by-image read any agent name within 20 characters after 'including':
    # 'including Claude Code's MCP servers' / 'including the MCP servers Claude Code had started',
    # beside Claude Code's own 'MCP server "x" Connection failed: MCP error -32000: Connection closed',
    # went to killed although the session ran on and only its MCP servers were lost.
    assert_not_read("agent-run", "killed-text", [
        'MCP server "filesystem" Connection failed: MCP error -32000: Connection closed. Claude ran '
        "`taskkill //IM node.exe` to restart the dev server; this kills all node processes, including "
        "Claude Code's MCP servers.",
        'MCP server "playwright" Connection failed: MCP error -32000: Connection closed\n'
        "(after `taskkill //IM node.exe`, which kills every node process including the MCP servers "
        "Claude Code had started)",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "killed-text", [
        "When asked to restart a dev server or kill a stuck process, Claude sometimes uses broad process killers "
        "like `taskkill //IM node.exe` (Windows) or `pkill node` (Unix). This kills ALL Node.js processes on the "
        "system, including Claude Code's own infrastructure (MCP servers, file watchers, etc.), causing the "
        "session to crash.",
    ], bucket="killed")


def test_input_token_refusal_inside_a_test_report_is_the_products_not_the_agents_context():
    # context-input-tokens-over-model-limit read Vertex's 'input token count is … but model only
    # supports up to …' and Agentforce's 'Request input tokens exceed model token limit' inside a
    # pytest report of the product being built (its own Vertex / Einstein call failed in a test), and
    # the context-exceeded route has no test-report guard, so both went to context_exceeded.
    assert_not_read("agent-run", "context-exceeded", [
        "FAILED tests/integration/test_summarize.py::test_summarize_whole_repo - google.api_core.exceptions."
        "InvalidArgument: 400 Unable to submit request because the input token count is 1251952 but model only "
        "supports up to 1048576. Reduce the input token count and try again.",
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_einstein_client.py::test_generate_long_case - EinsteinError: Request input tokens "
        "exceed model token limit. Reduce the input size.\n"
        "1 failed, 41 passed in 12.31s",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "context-exceeded", [
        "✕ [API Error: Failed to generate content: Unable to submit request because the input token count is "
        "1251952 but model only supports up to 1048576. Reduce the input token count and try again. You can also "
        "use the CountTokens API to calculate prompt token count and billable characters. Learn more: "
        "https://cloud.google.com/vertex-ai/generative-ai/docs/learn/models]",
        "Error : Request input tokens exceed model token limit. Reduce the input size.",
    ], bucket="context_exceeded")


# instance-lock-stale-or-false read a tool's own hint ("make sure no other instance is running",
# "If you are sure no other instance is running, delete … gateway.pid") and a stale PID file the
# reporter suspected and ruled out as the reporter's finding, sending live refusals to unknown_non_zero.
def test_stale_lock_rule_ignores_tool_hints_and_a_ruled_out_stale_pid():
    assert_not_read("agent-run", "instance-lock-stale", [
        "Error: could not acquire lock /home/me/.hermes/gateway.lock: another gateway instance is already running (PID 4121).\n"
        "Please make sure no other instance is running, then try again.",
        "ERROR gateway.run: another gateway instance is already running (PID 5512).\n"
        "If you are sure no other instance is running, delete ~/.hermes/gateway.pid and start again.",
        "I first thought a stale gateway.pid caused the refusal, but ps shows the old gateway (PID 2231) is still running: "
        "'Gateway already running (pid 2231)'. Killing it fixed it.",
    ], bucket="live_elsewhere")
    assert_read("agent-run", "instance-lock-stale", [
        "# Bug: Stale gateway.pid causes gateway restart loop after crash/SIGKILL\n"
        "2. Host rebooted during a short window. Daemon died ungracefully.\n"
        "   ERROR gateway.run: PID file race lost to another gateway instance. Exiting.",
        "✗ A gateway is already running under systemd (user) for this profile.\n"
        "This happens even though no conflicting instance actually exists — it appears to be the "
        "duplicate-instance guard false-triggering against its own state.",
    ], bucket="unknown_non_zero")


# another-instance-running-zh read ClawX's "另一个实例正在运行" when the reporter says the lock file was
# left behind ("残留") and the process had already exited ("已经退出", "没有任何 … 进程"): a stale lock
# (unknown_non_zero), misread as a live copy (live_elsewhere).
def test_zh_instance_refusal_with_leftover_lock_is_not_a_live_copy():
    assert_not_read("agent-run", "other-instance-holds", [
        "启动时提示\"另一个实例正在运行\"，但任务管理器里没有任何 ClawX 进程，锁文件是上次崩溃后残留的，删除 clawx.instance.lock 后就能启动。",
        "每次打开都提示另一个实例正在运行，实际上进程已经退出了，是锁文件残留导致的。",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "other-instance-holds", [
        "从 v0.3.0 更新到 v0.3.1 后，ClawX 无法正常启动，提示\"另一个实例正在运行\"。\n"
        "- Gateway 启动的 Python 子进程变成孤儿进程\n- 孤儿进程持有 `clawx.instance.lock` 锁文件",
    ], bucket="live_elsewhere")


# address-in-use-holder-named-other-copy read "the holder is another process" (lsof naming a dev
# server) and "the holder is not the other agent" as the machine's other agent: port clashes with an
# unrelated program (spawn_failure) went to live_elsewhere.
def test_port_holder_that_is_just_another_process_is_not_the_other_agent():
    assert_not_read("agent-run", "other-instance-holds", [
        "Error: listen EADDRINUSE: address already in use :::3000\n"
        "lsof -i :3000 says the holder is another process: my Next.js dev server program was using the port.",
        "could not bind 34334: Address already in use. I checked with lsof: the holder is not the other agent, "
        "the docker-proxy service was using the port.",
    ], bucket="spawn_failure")
    assert_read("agent-run", "other-instance-holds", [
        "peer channel disabled: could not bind 34334: Address already in use\n"
        "the peer port is not configurable on `agent run`, so the holder is almost always this machine's *other* agent "
        "(a service from `install.sh` plus a hand-started copy).",
    ], bucket="live_elsewhere")


# context-empty-response-due-to-size read an empty response said NOT to be due to context length as a
# full context window: an empty answer (no_output) went to context_exceeded.
def test_empty_response_said_not_due_to_context_stays_no_output():
    assert_not_read("agent-run", "context-exceeded", [
        "WARNING: empty response from model, not due to context length (prompt 1,204 tokens of 128k); "
        "finish_reason=stop with no content.",
    ], bucket="no_output")
    assert_read("agent-run", "context-exceeded", [
        "Model returned empty response after all retries due to context size",
    ], bucket="context_exceeded")


# empty-output-empty-provider-turn read goose's bug title quoted as an installed fix beside another
# failure (a Rust panic, a config parse error) as this run's empty turn: a crash (unknown_non_zero)
# went to no_output.
def test_empty_provider_turn_quoted_as_a_fix_is_not_the_failure():
    assert_not_read("agent-run", "empty-output", [
        "goose 1.9.2 (has the fix for \"Empty provider turn (no tool calls, no text) silently ends the reply loop\")\n"
        "thread 'main' panicked at crates/goose/src/agents/agent.rs:412:9:\n"
        "called `Option::unwrap()` on a `None` value",
        "Upgraded past the empty provider turn fix, but the run still exits with code 1: Error: Failed to parse config "
        "file ~/.config/goose/config.yaml: invalid type: map, expected a string at line 12",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "empty-output", [
        "Empty provider turn (no tool calls, no text) silently ends the reply loop with no response or error\n"
        "goose can silently terminate a turn with **no response and no error** whenever a provider returns an "
        "*empty* completion (no tool calls **and** no text).",
    ], bucket="no_output")


GOOSE_KEYRING_PANIC = (
    "thread 'main' panicked at /home/runner/work/goose/goose/crates/goose-cli/src/session/builder.rs:32:64:\n"
    "  Failed to create provider: Failed to access keyring: Platform secure storage failure: DBus error: "
    "The name org.freedesktop.secrets was not provided by any .service files"
)


def test_secret_service_refusal_of_a_tools_credential_helper_or_test_or_survived_warning_is_not_the_agents_sign_in():
    # auth-secret-service-unreachable read D-Bus's "org.freedesktop.secrets was not provided" from a
    # credential helper of a tool the agent ran (docker, git-credential-libsecret), the agent's project's own
    # failing cargo test of a keyring wrapper, and a keyring warning goose survived in other words than
    # "falling back" (the network error, context overflow or kill after it stopped the run): all read as auth.
    assert_not_read("agent-run", "auth-rejected", [
        "$ docker pull ghcr.io/acme/api:latest\n"
        "Error response from daemon: Get \"https://ghcr.io/v2/\": error getting credentials - err: exit status 1, "
        "out: `GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not "
        "provided by any .service files`",
        "$ git push origin feature/login\n"
        "(git-credential-libsecret:48211): CRITICAL **: 10:14:02.113: GDBus.Error:org.freedesktop.DBus.Error."
        "ServiceUnknown: The name org.freedesktop.secrets was not provided by any .service files\n"
        "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
        "running 3 tests\n"
        "test store::tests::saves_token ... FAILED\n\nfailures:\n\n"
        "---- store::tests::saves_token stdout ----\n"
        "thread 'store::tests::saves_token' panicked at src/store.rs:41:10:\n"
        "called `Result::unwrap()` on an `Err` value: PlatformFailure(Failed to access keyring: Platform secure "
        "storage failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files)\n\n"
        "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n"
        "error: test failed, to rerun pass `--lib`",
    ], bucket="unknown_non_zero")
    assert_not_read("agent-run", "auth-rejected", [
        "2025-06-02T10:11:04Z WARN goose::config::base: Failed to access keyring: Platform secure storage failure: "
        "DBus error: The name org.freedesktop.secrets was not provided by any .service files; reading "
        "OPENAI_API_KEY from the environment instead\n"
        "2025-06-02T10:11:09Z ERROR goose::agents::agent: Error: Request failed: error sending request for url "
        "(https://api.openai.com/v1/chat/completions): operation timed out",
        "goose session: Failed to access keyring (Platform secure storage failure), storing secrets in plaintext "
        "at ~/.config/goose/secrets.yaml\n"
        "error: stream error: unexpected EOF while reading response body; the connection was closed by the server",
    ], bucket="network")
    assert_not_read("agent-run", "auth-rejected", [
        "2025-06-02T10:11:04Z WARN goose::config::base: Failed to access keyring: Platform secure storage failure: "
        "DBus error: The name org.freedesktop.secrets was not provided by any .service files; reading "
        "OPENAI_API_KEY from the environment instead\n"
        "Error: Context length exceeded: This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 131072 tokens.",
    ], bucket="context_exceeded")
    assert_not_read("agent-run", "auth-rejected", [
        "WARN keyring unavailable: Failed to access keyring: Platform secure storage failure; secrets will be read "
        "from config.yaml\nKilled",
    ], bucket="killed")
    assert_read("agent-run", "auth-rejected", [GOOSE_KEYRING_PANIC], bucket="auth")


def test_macos_keychain_refusal_of_docker_certificate_import_or_xctest_is_not_the_agents_sign_in():
    # auth-macos-keychain-interaction-not-allowed read docker's osxkeychain credential helper on a pull the
    # agent ran over SSH, fastlane's certificate import in a build step, the project's own XCTest failure on a
    # keychain wrapper, and a keychain lookup beside a timed-out connection to the API, all as the agent's auth.
    assert_not_read("agent-run", "auth-rejected", [
        "$ docker compose pull\n"
        "error getting credentials - err: exit status 1, out: `User interaction is not allowed. (-25308)`",
        "Bash(docker pull ghcr.io/acme/worker:1.4)\n"
        "  \u23bf  Error: error getting credentials - err: exit status 1, out: `User interaction is not allowed. (-25308)`",
        "[14:02:11]: Installing certificate...\n"
        "security: SecKeychainItemImport: User interaction is not allowed.\n"
        "[!] Could not import certificate /tmp/dist.p12 into keychain ~/Library/Keychains/login.keychain-db",
        "Test Suite 'KeychainStoreTests' started at 2025-05-01 10:00:01.000\n"
        "/Users/ci/app/Tests/KeychainStoreTests.swift:42: error: -[AppTests.KeychainStoreTests testSaveToken] : "
        "XCTAssertEqual failed: (\"-25308\") is not equal to (\"0\") - SecItemAdd: User interaction is not allowed. (-25308)\n"
        "Test Case '-[AppTests.KeychainStoreTests testSaveToken]' failed (0.012 seconds).\n"
        "** TEST FAILED **",
    ], bucket="unknown_non_zero")
    assert_not_read("agent-run", "auth-rejected", [
        "security: SecKeychainSearchCopyNext: User interaction is not allowed.\n"
        "Error: Request failed: connect ETIMEDOUT 160.79.104.10:443",
    ], bucket="network")
    assert_read("agent-run", "auth-rejected", [
        "SecKeychainItemModifyContent: User interaction is not allowed",
    ], bucket="auth")


def test_device_code_expired_earlier_in_a_log_with_a_later_sign_in_is_not_what_stopped_the_run():
    # auth-device-code-expired read the Copilot agent's old WARN line for an expired 'device_code', kept in
    # the IDE's log above a sign-in that then went through, as the cause of a later lost connection.
    assert_not_read("agent-run", "auth-rejected", [
        "2025-10-29 13:10:02,114 [1206425]   WARN - #com.github.copilot.lang.agent.vscodeRpc.CancellableAsyncPromise "
        "- DeviceFlowError: This 'device_code' has expired., request id: 12, error code: 1001\n"
        "2025-10-29 13:24:14,525 [1207001]   INFO - #com.github.copilot - GitHub Copilot: signed in as octocat\n"
        "2025-10-29 13:30:14,901 [1208022]  ERROR - #com.github.copilot - Request failed: getaddrinfo EAI_AGAIN "
        "api.githubcopilot.com",
        "2025-10-29 13:10:02,114 [1206425]   WARN - #com.github.copilot.lang.agent.vscodeRpc.CancellableAsyncPromise "
        "- DeviceFlowError: This 'device_code' has expired., request id: 12, error code: 1001\n"
        "2025-10-29 13:24:14,525 [1207001]   INFO - #com.github.copilot - Successfully signed in to GitHub\n"
        "2025-10-29 13:30:14,901 [1208022]  ERROR - #com.github.copilot - Request failed: request timed out after 30000ms",
    ], bucket="network")
    assert_read("agent-run", "auth-rejected", [
        "2025-10-29 13:24:14,525 [1206425]   WARN - #com.github.copilot.lang.agent.vscodeRpc.CancellableAsyncPromise "
        "- DeviceFlowError: This 'device_code' has expired., request id: 89, error code: 1001\n"
        "com.github.copilot.lang.agent.SignInException: DeviceFlowError: This 'device_code' has expired., "
        "request id: 89, error code: 1001",
    ], bucket="auth")


def test_d_bus_error_with_a_hyphen_is_a_failed_d_bus_call_not_a_sigbus():
    # crash-text read the dbus crate's "D-Bus error: …" (a desktop notification a Rust CLI could not post
    # on a headless box) as a SIGBUS, deciding killed over the lost connection or the failed turn after it.
    assert_not_read("agent-run", "crashed-text", [
        "WARN codex_tui::notifications: failed to post desktop notification: D-Bus error: The name "
        "org.freedesktop.Notifications was not provided by any .service files (org.freedesktop.DBus.Error.ServiceUnknown)\n"
        "ERROR: stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)",
    ], bucket="network")
    assert_not_read("agent-run", "crashed-text", [
        "WARN notify: D-Bus error: The name org.freedesktop.Notifications was not provided by any .service files "
        "(org.freedesktop.DBus.Error.ServiceUnknown)\n"
        "error: turn failed: tool call to `shell` failed: the command exited with status 2",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "crashed-text", [
        "Bus error",
        "panic(main thread): Bus error at address 0xF1B8830\n"
        "oh no: Bun has crashed. This indicates a bug in Bun, not your code.\nTrace/breakpoint trap",
    ], bucket="killed")


# Review of agent-run's new usage-cap rules (since eb16446): each test names messages of other
# buckets the rule used to read as a plan cap, and the rule's own golden wording it still reads.


def test_monthly_quota_named_as_a_guess_a_denial_or_in_a_test_report_is_no_cap():
    # usage-cap-period-quota-exceeded read a host's guess list after a 401 ("This can happen due
    # to ... or if you have exceeded your monthly quota"), a rate limit denying the monthly cap, and
    # a jest report on a product's own quota feature, as usage_limit.
    assert_not_read("agent-run", "usage-cap", [
        "Error: Request failed with status code 401\n"
        "This can happen due to an invalid API key, or if you have exceeded your monthly quota.",
    ], bucket="auth")
    assert_not_read("agent-run", "usage-cap", [
        "Rate limit reached: too many requests in a short period. You have not yet exceeded your "
        "monthly quota; please retry in 30 seconds.",
    ], bucket="rate_limited")
    assert_not_read("agent-run", "usage-cap", [
        "FAIL src/limits/quota.test.ts\n"
        "  \u25cf QuotaGuard \u203a returns 402 once the workspace has exhausted the weekly seat allowance\n\n"
        "    expect(received).toBe(expected) // Object.is equality\n\n"
        "    Expected: 402\n    Received: 200",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "usage-cap", [
        "API Error: Request rejected (429) \u00b7 You have exceeded the monthly usage quota. It will reset at "
        "2026-08-29 23:59:59 +0800 CST. We recommend upgrading your plan for more quota, or waiting for "
        "the reset. Request id: 021787385003028709",
        "You have exceeded your monthly quota (Request ID: F278:2BE859:4ED4F1:5D9E33:6A8D4A1C)",
    ], bucket="usage_limit")


def test_overage_cap_denied_beside_aws_throttling_or_in_a_go_test_is_no_cap():
    # usage-cap-overage-limit read AWS's "ThrottlingException: Rate exceeded" beside "you have not
    # hit your overage cap yet", and a Go test's failure on a product's overage guard, as usage_limit.
    assert_not_read("agent-run", "usage-cap", [
        "ThrottlingException: Rate exceeded (request_id: 5a1). Please wait and retry.\n"
        "Note: you have not hit your overage cap yet.",
    ], bucket="rate_limited")
    assert_not_read("agent-run", "usage-cap", [
        "--- FAIL: TestOverageGuard (0.00s)\n"
        "    guard_test.go:42: expected ErrOverage when tenant has reached the limit for overages, got <nil>\n"
        "FAIL\nexit status 1",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "usage-cap", [
        "You have reached the limit for overages. (request_id: 6e194e96-b0c5-43fe-9bc0-65409d549960)",
        "You've reached your overage limit. (Request ID: 882c5c6b-9bd6-4b28-8286-d5ef3074f23f)",
    ], bucket="usage_limit")


def test_unpaid_charges_of_someone_else_or_denied_are_no_cap():
    # usage-cap-unpaid-charges read any "has unpaid charges": a jest test on a billing product's
    # customer, and a 429's disclaimer "your account does not have an outstanding balance".
    assert_not_read("agent-run", "usage-cap", [
        "FAIL src/billing/invoice.test.ts\n"
        "  \u25cf InvoiceBanner \u203a shows the warning when the customer has unpaid charges\n\n"
        "    expect(received).toBeInTheDocument()\n\n"
        "    received value must be an HTMLElement or an SVGElement.\n\n"
        "Tests: 1 failed, 41 passed, 42 total",
        "FAIL src/__tests__/dunning.test.js\n"
        "  \u25cf Dunning \u203a locks the editor when the user has unpaid On-Demand charges\n\n"
        "    expect(received).toBe(expected)\n\n    Expected: true\n    Received: false",
    ], bucket="unknown_non_zero")
    assert_not_read("agent-run", "usage-cap", [
        "429 Too Many Requests: Rate limit exceeded, please retry in 20s. Your account does not have an "
        "outstanding balance; this is a temporary throttle.",
    ], bucket="rate_limited")
    assert_read("agent-run", "usage-cap", [
        "You have outstanding On-Demand Usage Billing charges, so your request cannot continue. Please "
        "update your payment method and complete the payment to proceed.",
    ], bucket="usage_limit")


def test_free_tier_maximum_counted_in_seconds_or_in_a_test_report_is_no_cap():
    # usage-cap-trial-request-maximum read a free tier's per-RPM maximum with "try again in 6
    # seconds" and a pytest assertion on a proxy's own trial-cap message as usage_limit.
    assert_not_read("agent-run", "usage-cap", [
        "HTTP 429: You have exceeded the maximum number of requests for the free tier (10 RPM). "
        "Please try again in 6 seconds.",
        "HTTP 429: You have reached the maximum number of requests for the free tier within the last "
        "60 seconds. Retry after 42 seconds.",
    ], bucket="rate_limited")
    assert_not_read("agent-run", "usage-cap", [
        "FAILED tests/test_proxy.py::test_trial_cap - AssertionError: expected 'You have exceeded the "
        "maximum number of requests for the free trial.' in body\n"
        "=========================== short test summary info ============================\n"
        "1 failed, 20 passed in 1.02s",
    ], bucket="unknown_non_zero")
    assert_read("agent-run", "usage-cap", [
        "HTTP 429 Too Many Requests from https://proxy-server-blue-l6vsfbzhba-uw.a.run.app/stream_chat "
        "You have exceeded the maximum number of requests for the free trial.",
    ], bucket="usage_limit")


def test_gateway_caps_counted_per_day_or_month_are_usage_limits_and_per_minute_ones_rate_limits():
    # GitHub Models names its counter (UserByModelByDay, UserByModelByMinute) and Cohere's trial
    # key its window (calls / month, calls / minute), both inside a 429 worded as a rate limit.
    # No public thread holds the daily or monthly forms yet (NOT_YET_READ in test_golden.py), so
    # their rules are pinned here, beside the per-minute forms that must stay rate limits.
    assert_read("agent-run", "quota-per-day", [
        "Error code: 429 - {'error': {'code': 'RateLimitReached', 'message': 'Rate limit of 50 per "
        "86400s exceeded for UserByModelByDay. Please wait 57829 seconds before retrying.'}}",
    ], bucket="usage_limit")
    assert_read("agent-run", "usage-cap", [
        "cohere.errors.too_many_requests_error.TooManyRequestsError: status_code: 429, body: {'message': "
        "'You are using a Trial key, which is limited to 1000 API calls / month. You can continue to use "
        "the Trial key for free or upgrade to a Production key with higher rate limits.'}",
    ], bucket="usage_limit")
    assert_not_read("agent-run", "quota-per-day", [
        "Error code: 429 - {'error': {'code': 'RateLimitReached', 'message': 'Rate limit of 10 per 60s "
        "exceeded for UserByModelByMinute. Please wait 29 seconds before retrying.'}}",
    ], bucket="rate_limited")
    assert_not_read("agent-run", "usage-cap", [
        "cohere.errors.too_many_requests_error.TooManyRequestsError: status_code: 429, body: {'message': "
        "'You are using a Trial key, which is limited to 10 API calls / minute. You can continue to use "
        "the Trial key for free or upgrade to a Production key with higher rate limits.'}",
    ], bucket="rate_limited")


def test_a_runs_own_model_call_cap_is_max_turns_and_a_plans_daily_model_calls_are_not():
    # max-model-calls-reached: Camunda's connector (a golden case) and Google ADK's
    # LlmCallsLimitExceededError, whose "limit of `N`" wording no public thread quotes yet.
    assert_read("agent-run", "max-turns", [
        "google.adk.agents.invocation_context.LlmCallsLimitExceededError: Max number of llm calls "
        "limit of `500` exceeded",
    ], bucket="max_turns")
    assert_lands("agent-run", [
        "You have reached the maximum number of model calls for today. Upgrade your plan to continue.",
    ], bucket="usage_limit")


def test_a_test_report_quoting_a_sign_in_wording_is_not_the_runs_sign_in():
    """`auth-phrase` stands down on the test-report words: a spec that asserts a missing
    key's message failed, the run's own credentials did not. The wordings themselves,
    printed by a run, stay auth."""
    assert_not_read("agent-run", "auth-rejected", [
        'expect(received).toThrow(expected) Expected: "OPENAI_API_KEY environment variable is missing" AssertionError',
        'FAIL src/auth.test.ts > rejects bad keys: expected: "Invalid API key · Please run /login"',
    ], not_bucket="auth")
    assert_read("agent-run", "auth-rejected", [
        "Error: OPENAI_API_KEY environment variable is missing or empty",
        "Invalid API key · Please run /login",
    ], bucket="auth")


def test_a_proxys_5xx_to_the_tunnel_is_the_network_and_a_providers_503_an_overload():
    """The overload words stand down on a proxy's answer to CONNECT: a `503 Service
    Unavailable` reason phrase after `Tunnel connection failed:` or curl's `response 503`
    belongs to the proxy, so the request never reached the API."""
    assert_lands("agent-run", [
        "requests.exceptions.ProxyError: HTTPSConnectionPool(host='api.openai.com', port=443): "
        "Max retries exceeded with url: /v1/chat/completions (Caused by ProxyError('Unable to "
        "connect to proxy', OSError('Tunnel connection failed: 503 Service Unavailable')))",
        "curl: (56) CONNECT tunnel failed, response 503 Service Unavailable",
    ], bucket="network")
    # the same set keeps a proxy's 403 from reading as refused credentials
    assert_not_read("agent-run", "http-401", [
        "ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 403 Forbidden'))",
        "curl: (56) CONNECT tunnel failed, response 403 Forbidden",
    ], bucket="network")
    assert_lands("agent-run", [
        "openai.InternalServerError: Error code: 503 - Service Unavailable",
        "API Error: 503 upstream service unavailable, please retry",
    ], bucket="overloaded")


def test_an_editors_failed_connect_to_its_acp_process_is_not_the_network():
    """`Failed to connect to <X> agent:` over an ACP process that exited is the agent's
    stdio that never came up; a connection error the process printed still decides."""
    assert_not_read("agent-run", "network-error", [
        "Failed to connect to Qwen agent: Qwen ACP process exited unexpectedly (exit code: 0, signal: null)",
    ], not_bucket="network")
    assert_lands("agent-run", [
        "Failed to connect to Qwen agent: Qwen ACP process failed to start (exit code: 1)\n"
        "CLI stderr: npm error code ECONNRESET\nnpm error network aborted",
        "Failed to connect to api.anthropic.com: ETIMEDOUT",
    ], bucket="network")


def test_the_acp_launch_rule_shares_the_connection_error_set_without_failed_to_connect():
    """`spawn-acp-process-failed-to-start` names the shared `named-connection-error` set, not
    a typed copy of it: a word added to the set reaches it as it reaches the forty rules that
    name the set; and those rules still stand down on a bare `failed to connect`, which they
    name apart (`failed-to-connect`), while the launch rule reads through it."""
    table, vetoes = shipped_table_with_veto_word("agent-run", "named-connection-error", "quuxnet down")
    launch = "Failed to connect to Qwen agent: Qwen ACP process failed to start (exit code: 1)"
    got = failtax.classify({"text": launch}, taxonomy="agent-run", table=table)
    assert got.bucket == "spawn_failure" and "spawn-failed" in got.signals, (got.bucket, got.rule)
    got = failtax.classify({"text": launch + "\nCLI stderr: quuxnet down"}, taxonomy="agent-run", table=table)
    assert "spawn-failed" not in got.signals, (got.bucket, got.rule, got.signals)
    for word in vetoes["named-connection-error"]:
        got = failtax.classify({"text": f"{launch}\nCLI stderr: npm error {word}"}, taxonomy="agent-run")
        assert got.bucket == "network" and "spawn-failed" not in got.signals, (word, got.bucket, got.rule)
    held = ("ERR: Connection: agent-endpoint-lon.monitoring.api.rackspacecloud.com:443 (1.2.3.4:443) "
            "-> Agent is already connected")
    assert_read("agent-run", "other-instance-holds", [held], bucket="live_elsewhere")
    assert_not_read("agent-run", "other-instance-holds", [held + "\nfailed to connect to the endpoint"])


def test_no_capacity_fallback_is_a_missing_fallback_not_a_provider_at_capacity():
    """`capacity-phrase` stands down on a host's `no capacity fallback` (a subagent pinned
    to one model); the provider's own `No capacity available` stays an overload, in this
    table and in orchestration, which borrows the rule."""
    pinned = "Subagent on Fable 5 has no capacity fallback: the run stopped there."
    assert_not_read("agent-run", "server-capacity", [pinned], not_bucket="overloaded")
    assert_not_read("orchestration", "server-capacity", [pinned], not_bucket="subagent_overloaded")
    at_capacity = ["No capacity available for model claude-opus-4 on the server"]
    assert_read("agent-run", "server-capacity", at_capacity, bucket="overloaded")
    assert_read("orchestration", "server-capacity", at_capacity, bucket="subagent_overloaded")


def test_a_projects_own_script_failing_an_import_is_not_a_broken_cli_install():
    """`python-cli-entry-import-failed` reads the launcher an installer wrote (no dot in its
    name, or Windows' `<tool>.exe\\__main__.py`), not a project's `scripts/<name>.py`."""
    project = ('Traceback (most recent call last):\n'
               '  File "/home/dev/projects/skyvern/scripts/create_organization.py", line 6, in <module>\n'
               '    from skyvern.forge import app\n'
               "ModuleNotFoundError: No module named 'skyvern'")
    assert_not_read("agent-run", "spawn-failed", [project], not_bucket="spawn_failure")
    assert_read("agent-run", "spawn-failed", [
        'Traceback (most recent call last):\n'
        '  File "/home/dev/.local/share/uv/tools/mistral-vibe/bin/vibe", line 4, in <module>\n'
        '    from vibe.cli import main\n'
        "ModuleNotFoundError: No module named '_socket'",
        'Traceback (most recent call last):\n'
        '  File "C:\\Users\\me\\.local\\bin\\fcc-server.exe\\__main__.py", line 4, in <module>\n'
        '    from cli import main\n'
        "ModuleNotFoundError: No module named 'cli'",
    ], bucket="spawn_failure")
