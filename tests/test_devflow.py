"""The ``devflow`` taxonomy and table: seed 001's categories, detection rules and output.

Seed 001 gives eight categories with a severity, an auto-recoverable flag and a recipe,
a list of detection signals per category, and a structured output
(``failure_type``, ``severity``, ``signal`` — the line that matched —, ``source_file``,
``source_line``, ``auto_recoverable``, ``recipe``, ``recovery_attempted``,
``recovery_result``). These tests pin each of them, then the places where the seed's
bare keywords misfire on real logs and how the shipped table routes them instead.
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

REAL = Path(__file__).resolve().parent / "fixtures" / "real_messages" / "devflow.yaml"

SEED_TEXT = "src/auth/middleware.ts(42,5): error TS2304: Cannot find name 'UserProfile'."


def devflow(text: str = "", **evidence) -> failtax.Classification:
    return failtax.classify({"text": text, **evidence}, taxonomy="devflow")


# --------------------------------------------------------------------------- taxonomy

SEED_TABLE = [
    # category, severity, auto-recoverable (Yes / No / Partial)
    ("compile", "blocking", True),
    ("test", "blocking", "partial"),
    ("branch_divergence", "blocking", True),
    ("trust_gate", "blocking", False),
    ("mcp_startup", "degraded", True),
    ("plugin_startup", "degraded", "partial"),
    ("infra", "blocking", False),
    ("prompt_delivery", "degraded", True),
]


def test_taxonomy_has_the_seed_categories_then_unknown():
    tax = load_taxonomy("devflow")
    assert tax.bucket_names == (*[c for c, _, _ in SEED_TABLE], "unknown")
    assert load_table("devflow").fallback == "unknown"


@pytest.mark.parametrize(("category", "severity", "auto"), SEED_TABLE)
def test_category_attributes_follow_the_seed_table(category, severity, auto):
    b = load_taxonomy("devflow").bucket(category)
    assert b.severity == severity
    assert b.auto_recoverable == auto
    assert b.recipe == f"recipes/{category}.md"
    assert b.meaning and b.title and b.detail and b.suggestion


def test_one_automatic_recovery_per_failure_type():
    tax = load_taxonomy("devflow")
    for category, _, auto in SEED_TABLE:
        assert tax.bucket(category).retry_limit == (0 if auto is False else 1), category


def test_trust_gate_text_says_never_to_echo_the_secret():
    detail = load_taxonomy("devflow").bucket("trust_gate").detail.lower()
    assert "never echo" in detail and "secret" in detail
    assert "human" in load_taxonomy("devflow").bucket("trust_gate").suggestion


# --------------------------------------------------------------------------- structured output


def test_seed_structured_output_example():
    out = devflow(SEED_TEXT, exit_code=2).to_dict()
    assert out["failure_type"] == "compile"
    assert out["severity"] == "blocking"
    # The seed reports the location apart from the message: signal is the message part.
    assert out["signal"].startswith("error TS2304: Cannot find name 'UserProfile'")
    assert "middleware.ts" not in out["signal"]
    assert out["source_file"] == "src/auth/middleware.ts"
    assert out["source_line"] == 42
    assert out["auto_recoverable"] is True
    assert out["recipe"] == "recipes/compile.md"
    assert out["recovery_attempted"] is False
    assert out["recovery_result"] is None


def test_signal_is_the_line_that_matched_not_the_whole_log():
    log = "\n".join([
        "> tsc -p tsconfig.json",
        "",
        "src/auth/middleware.ts:42:5 - error TS2304: Cannot find name 'UserProfile'.",
        "",
        "42   const user: UserProfile = req.user;",
        "Found 1 error in src/auth/middleware.ts:42",
    ])
    out = devflow(log, exit_code=2).to_dict()
    assert out["signal"] == "error TS2304: Cannot find name 'UserProfile'."
    assert (out["source_file"], out["source_line"]) == ("src/auth/middleware.ts", 42)
    assert (out["source_file"], out["source_line"]) == ("src/auth/middleware.ts", 42)


def test_cli_emits_the_seed_structured_output(failtax_cmd):
    lines = [
        {"id": "a", "text": SEED_TEXT, "exit_code": 2},
        {"id": "b", "text": "CONFLICT (content): Merge conflict in src/app.ts"},
        {"id": "c", "text": "nothing recognisable here"},
    ]
    proc = subprocess.run(
        [*failtax_cmd, "classify", "--taxonomy", "devflow"],
        input="\n".join(json.dumps(x) for x in lines) + "\n",
        capture_output=True, text=True, check=True, timeout=60,
    )
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [o["id"] for o in out] == ["a", "b", "c"]
    seed_keys = {"failure_type", "severity", "signal", "source_file", "source_line",
                 "auto_recoverable", "recipe", "recovery_attempted", "recovery_result"}
    assert all(seed_keys <= set(o) for o in out)
    assert (out[0]["failure_type"], out[0]["source_line"]) == ("compile", 42)
    assert (out[1]["failure_type"], out[1]["auto_recoverable"]) == ("branch_divergence", True)
    assert (out[2]["failure_type"], out[2]["rule"], out[2]["signal"]) == ("unknown", "fallback", None)


def test_unmatched_and_empty_evidence_fall_back_to_unknown():
    for evidence in ({}, {"text": ""}, {"text": "all good"}, {"exit_code": 1}):
        c = failtax.classify(evidence, taxonomy="devflow")
        assert (c.bucket, c.rule, c.matched_line) == ("unknown", "fallback", None)
        assert c.severity == "blocking" and c.auto_recoverable is False


# --------------------------------------------------------------------------- seed detection rules

SEED_SIGNALS = [
    # compile
    ("compile", {"text": "src/a.ts(3,1): error TS2322: Type 'string' is not assignable to type 'number'."}),
    ("compile", {"text": "SyntaxError: invalid syntax"}),
    ("compile", {"text": "Error: Cannot find module 'express'"}),
    ("compile", {"text": "error TS2339: Property 'name' does not exist on type 'User'."}),
    ("compile", {"text": "Module 'lodash' does not exist"}),
    ("compile", {"text": "parse.c:10:5: error: expected expression"}),
    ("compile", {"text": "Build failed with 2 errors"}),
    ("compile", {"text": "", "exit_code": 2, "fields": {"command": "npx tsc"}}),
    ("compile", {"text": "", "exit_code": 1, "fields": {"command": "esbuild src/index.ts --bundle"}}),
    ("compile", {"text": "", "exit_code": 2, "fields": {"tool": "webpack"}}),
    ("compile", {"text": "error: could not compile `app` (bin \"app\") due to 2 previous errors"}),
    ("compile", {"text": "", "exit_code": 101, "fields": {"command": "cargo build --release"}}),
    ("compile", {"text": "rustc error: linking failed"}),
    ("compile", {"text": "error[E0425]: cannot find value `x` in this scope"}),
    ("compile", {"text": "ImportError: cannot import name 'Foo' from 'bar'"}),
    ("compile", {"text": "ModuleNotFoundError: No module named 'requests'"}),
    # test
    ("test", {"text": "FAIL src/cart.test.ts\n  ● cart › adds items"}),
    ("test", {"text": "AssertionError: 3 != 4"}),
    ("test", {"text": "expected 200 but got 500"}),
    ("test", {"text": "1 test failed"}),
    ("test", {"text": "Tests:       2 failed, 10 passed, 12 total"}),
    ("test", {"text": "", "exit_code": 1, "fields": {"command": "npx jest"}}),
    ("test", {"text": "", "exit_code": 1, "fields": {"command": "vitest run"}}),
    ("test", {"text": "", "exit_code": 1, "fields": {"command": "pytest -q"}}),
    ("test", {"text": "", "exit_code": 101, "fields": {"command": "cargo test"}}),
    ("test", {"text": "  0 passing (3ms)"}),
    # branch_divergence
    ("branch_divergence", {"text": "CONFLICT (content): Merge conflict in src/app.ts"}),
    ("branch_divergence", {"text": "merge conflict in package-lock.json"}),
    ("branch_divergence", {"text": "Your branch and 'origin/main' have diverged"}),
    ("branch_divergence", {"text": "Your branch is behind 'origin/main' by 3 commits"}),
    ("branch_divergence", {"text": "this PR needs rebase"}),
    ("branch_divergence", {"text": "fatal: cannot fast-forward"}),
    ("branch_divergence", {"text": "Unmerged paths:\n\tboth modified:   a.py"}),
    ("branch_divergence", {"text": "", "fields": {"git_status": "UU a.py\n"}}),
    # trust_gate
    ("trust_gate", {"text": "pre-commit: secret detected in .env"}),
    ("trust_gate", {"text": "scanner: API key found in src/config.ts"}),
    ("trust_gate", {"text": "CONFIDENCE.md gate FAIL"}),
    ("trust_gate", {"text": "1 vulnerability found"}),
    ("trust_gate", {"text": "  3:1  warning  Unsafe Regular Expression  security/detect-unsafe-regex"}),
    # mcp_startup
    ("mcp_startup", {"text": "MCP server failed: playwright"}),
    ("mcp_startup", {"text": "connect ECONNREFUSED 127.0.0.1:9000 (connection refused)"}),
    ("mcp_startup", {"text": "mcp: handshake timeout after 30s"}),
    ("mcp_startup", {"text": "tool not available: browser_navigate"}),
    # plugin_startup
    ("plugin_startup", {"text": "plugin not found: code-review"}),
    ("plugin_startup", {"text": "invalid plugin.json: missing name"}),
    ("plugin_startup", {"text": "missing dependency: jq"}),
    ("plugin_startup", {"text": "hook failed to load: hooks/session_start.py"}),
    ("plugin_startup", {"text": "Error: failed to initialize plugin 'formatter'"}),
    # infra
    ("infra", {"text": "deployment failed: release v42"}),
    ("infra", {"text": "container exited with status 1"}),
    ("infra", {"text": "health check failed for service api"}),
    ("infra", {"text": "environment variable not set: DATABASE_URL"}),
    ("infra", {"text": "deploy: permission denied while pushing to registry"}),
    ("infra", {"text": "CI pipeline red on main"}),
    # prompt_delivery
    ("prompt_delivery", {"text": "context too long for model"}),
    ("prompt_delivery", {"text": "token limit exceeded (210000 > 200000)"}),
    ("prompt_delivery", {"text": "agent failed to respond"}),
    ("prompt_delivery", {"text": "tool call failed: Edit"}),
    ("prompt_delivery", {"text": "agent dispatch timed out after 120s"}),
    ("prompt_delivery", {"text": "", "fields": {"agent_response": ""}}),
]


@pytest.mark.parametrize(("bucket", "evidence"), SEED_SIGNALS, ids=lambda x: x if isinstance(x, str) else None)
def test_every_seed_detection_signal(bucket, evidence):
    c = failtax.classify(evidence, taxonomy="devflow")
    assert c.bucket == bucket, f"{evidence} -> {c.bucket} by {c.rule} ({list(c.signals)})"


def test_confidence_gate_counts_attempts():
    text = "CONFIDENCE.md gate FAIL"
    assert devflow(text, fields={"gate_attempts": 1}).bucket == "test"
    assert devflow(text, fields={"gate_attempts": 2}).bucket == "trust_gate"
    assert devflow(text).bucket == "trust_gate"  # unknown attempts: ask a person


def test_zero_passing_only_counts_when_tests_were_expected():
    assert devflow("0 passing (2ms)").bucket == "test"
    assert devflow("0 passing (2ms)", fields={"tests_expected": False}).bucket == "unknown"


# --------------------------------------------------------------------------- misfires fixed

MISFIRES = [
    # text, bucket it must get, why
    ('Error: Request failed with status code 409 {"error":"Conflict"}', "unknown", "HTTP 409 Conflict is not a git CONFLICT"),
    ('ERROR:  relation "users" does not exist', "infra", "a database object, not a code symbol"),
    ("fatal: path 'a.md' does not exist in 'HEAD'", "unknown", "git's does-not-exist is not a compile error"),
    ("React Hook useEffect has a missing dependency: 'load'. Either include it or remove the dependency array", "unknown", "a lint finding, not a plugin"),
    ("Error: No API key found. Set ANTHROPIC_API_KEY", "infra", "a missing key, not a leaked one"),
    ("SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON", "unknown", "runtime JSON error"),
    ("Login failed for user 'sa'.", "unknown", "the word failed is not a test failure"),
    ("fetch failed", "unknown", "the word failed is not a test failure"),
    ("Deployment of the failover replica: 0 tests failed", "unknown", "zero failures"),
    ("found 0 vulnerabilities", "unknown", "npm's all-clear line"),
    ("INF no leaks found", "unknown", "gitleaks' all-clear line"),
    ("net/http: TLS handshake timeout", "infra", "a TLS handshake is not the MCP handshake"),
    ("psycopg2.OperationalError: connection to server at \"localhost\", port 5432 failed: Connection refused", "infra", "database down"),
    ("Error: connect ECONNREFUSED 127.0.0.1:6379 (redis)", "infra", "database down"),
    ("husky - pre-commit hook exited with code 1 (error)", "unknown", "a git hook is not a plugin hook"),
    ("AssertionError: expected 'a' to equal 'b'", "test", "chai, not a compiler's `error: expected`"),
    ("Your loss diverged at step 300", "unknown", "not git's diverged"),
]


@pytest.mark.parametrize(("text", "bucket", "why"), MISFIRES, ids=[m[2] + ":" + m[0][:20] for m in MISFIRES])
def test_bare_keyword_misfires_are_fixed(text, bucket, why):
    c = devflow(text)
    assert c.bucket == bucket, f"{why}: got {c.bucket} by {c.rule} ({list(c.signals)})"


def test_upper_case_fail_is_anchored_to_runner_lines():
    # pytest's summary line and go's FAIL lines are test failures ...
    assert devflow("FAILED tests/test_cart.py::test_total - assert 3 == 4").bucket == "test"
    assert devflow("--- FAIL: TestCart (0.01s)").bucket == "test"
    assert devflow("FAIL\tgithub.com/acme/cart\t0.012s").bucket == "test"
    assert devflow("[FAIL] checkout flow").bucket == "test"  # the seed's capitalised FAIL
    assert devflow("Result: FAIL").signals == ("fail-upper",)
    # ... the word in prose is not
    assert devflow("Result: fail, will retry").bucket == "unknown"
    assert devflow("Request to upstream failed, will retry").bucket == "unknown"
    assert devflow("Operation failed successfully").bucket == "unknown"


# --------------------------------------------------------------------------- route order


def test_merge_conflict_beats_compile():
    text = (
        "src/app.ts(3,1): error TS1185: Merge conflict marker encountered.\n"
        "src/app.ts(9,3): error TS2304: Cannot find name 'ours'."
    )
    c = devflow(text)
    assert (c.bucket, c.rule) == ("branch_divergence", "merge-conflict")
    assert "ts-error" in c.signals  # every matched signal is kept


def test_secret_leak_beats_everything_it_comes_with():
    text = "FAILED tests/test_api.py::test_login\nERROR: Potential secrets about to be committed to git repo!"
    assert devflow(text).bucket == "trust_gate"


def test_stale_branch_beats_test_failure():
    text = "Your branch is behind 'origin/main' by 12 commits.\nFAILED tests/test_api.py::test_login - KeyError"
    assert devflow(text).bucket == "branch_divergence"


def test_missing_plugin_beats_cannot_find_module():
    text = "Failed to load plugin 'import' declared in '.eslintrc': Cannot find module 'eslint-plugin-import'"
    c = devflow(text)
    assert c.bucket == "plugin_startup" and "missing-module" in c.signals


def test_compile_beats_test_when_the_test_module_cannot_import():
    text = (
        "ImportError while importing test module '/ci/tests/test_x.py'.\n"
        "E   ModuleNotFoundError: No module named 'app'\n"
        "=========================== 1 error in 0.10s ==========================="
    )
    assert devflow(text).bucket == "compile"


def test_connection_refused_depends_on_what_refused():
    assert devflow('MCP server "db": connect ECONNREFUSED 127.0.0.1:5000').bucket == "mcp_startup"
    assert devflow("dial tcp 10.0.0.4:8080: connect: connection refused", fields={"phase": "session_start"}).bucket == "mcp_startup"
    assert devflow("FAIL src/api.test.ts\nconnect ECONNREFUSED 127.0.0.1:3000").bucket == "test"
    assert devflow("Liveness probe failed: dial tcp 10.0.0.4:8080: connect: connection refused").bucket == "infra"
    assert devflow("connection refused").bucket == "mcp_startup"  # the seed's own rule, bare


# --------------------------------------------------------------------------- locate

LOCATE = [
    ("src/x.ts(42,5): error TS2304: Cannot find name 'Y'.", "src/x.ts", 42),
    ("src/x.ts:42:5 - error TS2304: Cannot find name 'Y'.", "src/x.ts", 42),
    ("error[E0425]: cannot find value `y`\n --> src/main.rs:4:5\n  |", "src/main.rs", 4),
    ("src/io.c:17:3: error: 'fd' undeclared (first use in this function)", "src/io.c", 17),
    ("/repo/src/a.js\n  12:5  error  'x' is not defined  no-undef\n\n✖ 1 problem (1 error, 0 warnings)", "/repo/src/a.js", 12),
    ('Traceback (most recent call last):\n  File "/app/main.py", line 3, in <module>\n    run()\n  File "/app/jobs.py", line 42, in run\n    1/0\nZeroDivisionError: division by zero', "/app/jobs.py", 42),
    ("    def test_total():\n>       assert total() == 4\nE       assert 3 == 4\n\ntests/test_cart.py:12: AssertionError", "tests/test_cart.py", 12),
    ("FAIL src/cart.test.js\n    at Object.<anonymous> (src/cart.test.js:8:17)", "src/cart.test.js", 8),
    (" FAIL  src/cart.test.ts > cart > totals\n  ❯ src/cart.test.ts:40:15", "src/cart.test.ts", 40),
    ("--- FAIL: TestCart (0.00s)\n    cart_test.go:21: got 3, want 4", "cart_test.go", 21),
    ("[ERROR] /w/src/main/java/a/App.java:[11,45] error: cannot find symbol", "/w/src/main/java/a/App.java", 11),
]


@pytest.mark.parametrize(("text", "file", "line"), LOCATE, ids=[x[1] for x in LOCATE])
def test_locate_fills_source_file_and_line(text, file, line):
    c = devflow(text)
    assert (c.source_file, c.source_line) == (file, line), c.bucket


def test_urls_are_not_mistaken_for_source_locations():
    c = devflow("Error: connect ECONNREFUSED http://localhost:3000/api")
    assert c.source_file is None and c.source_line is None


# --------------------------------------------------------------------------- the table itself


def test_every_route_signal_can_be_produced_and_every_extracted_signal_is_routed():
    table = load_table("devflow")
    produced = {r.signal for r in table.extract}
    routed = {s for r in table.route for s in (*r.any, *r.all, *r.none)}
    assert routed <= produced, sorted(routed - produced)
    assert produced <= routed, sorted(produced - routed)


def test_golden_file_covers_every_category():
    entries = read_yaml(REAL)
    assert len(entries) >= 100
    per_bucket = {b: 0 for b in load_taxonomy("devflow").bucket_names}
    for e in entries:
        per_bucket[e["bucket"]] += 1
    assert min(per_bucket.values()) >= 5, per_bucket


def test_an_over_long_command_line_is_the_prompts_only_when_an_agent_was_spawned():
    # 'agent' anywhere before E2BIG read a CI build agent's over-long link line as a
    # prompt too long for an agent CLI
    agent = failtax.classify({"text": "Agent stream error: Error: spawn E2BIG"}, taxonomy="devflow")
    assert agent.bucket == "prompt_delivery", (agent.rule, agent.signals)
    build = failtax.classify({"text": "build agent: make: spawn E2BIG while linking"}, taxonomy="devflow")
    assert build.bucket != "prompt_delivery", (build.rule, build.signals)


def test_a_log_the_reporter_pasted_and_cut_is_not_a_prompt_that_lost_its_paste():
    # the paste rule read any 'paste…' then 'cut off' or 'truncated' within 40 characters,
    # so a bug report's 'the pasted output got cut off' became a prompt never delivered
    assert_not_read("devflow", "prompt-handoff-failed", [
        "npm ERR! code E404 — sorry, the pasted output got cut off",
        "error: linker command failed (the log I pasted here is truncated)",
    ])
    assert_read("devflow", "prompt-handoff-failed", [
        "Long paste truncated on Windows",
        "the pasted content is truncated mid-line before being submitted",
        "Text gets truncated when pasting or typing large content into the prompt",
    ])


def test_org_policy_blocked_needs_the_held_back_server_extension_or_site():
    # org-policy-blocked used to read any "blocked/disabled by your organization's policy",
    # so a registry download, an image pull or a push refused by an org policy became an
    # agent trust gate (trust_gate) instead of staying infra / unread.
    assert_not_read("devflow", "org-policy-blocked", [
        "npm ERR! 403 Forbidden - GET https://registry.npmjs.org/lodash - blocked by your organization's policy",
        "docker: Error response from daemon: image pull blocked by organization policy",
        "git push origin main\nremote: error: GH006: Protected branch update failed. Changes blocked by organization policy.",
    ], not_bucket="trust_gate")
    # positive control: the rule's own wordings
    assert_read("devflow", "org-policy-blocked", [
        "! Third-party MCP servers are disabled by your organization's Copilot policy. Only built-in servers are available.",
        "Error: This extension is disabled by your organization's policy.",
        "\"This site is blocked by your organization's policy.\"",
    ], bucket="trust_gate")


def test_implicit_declaration_bracketed_warning_is_not_a_compile_error():
    # c-implicit-function-declaration-not-warning vetoed only "warning: implicit declaration
    # of function", so a log's "[WARNING] implicit declaration of function" above failed tests
    # was read as a C compile error (compile instead of test).
    assert_not_read("devflow", "c-compile-error", [
        "[WARNING] implicit declaration of function 'memset'\nFAILED: 2 tests failed",
    ], bucket="test")
    # positive control: gcc 14's error and the report's wording
    assert_read("devflow", "c-compile-error", [
        "main.c: error: implicit declaration of function 'memset' [-Wimplicit-function-declaration]",
    ], bucket="compile")
    assert_read("devflow", "c-compile-error", [
        "在idf.py build出现implicit declaration of function 'memset' 等错误。",
    ])


def test_curl_28_timeout_counts_only_under_a_curl_download_to_a_file():
    # toolchain-download-timed-out read any curl (28) timeout as a refused download, even a
    # test's health check ("0 out of 0 bytes") or a timeout beside a compile error, which
    # moved test and compile failures to infra.
    assert_not_read("devflow", "dependency-fetch-refused", [
        "tests/test_api.py::test_download FAILED\nE   curl: (28) Operation timed out after 1000 milliseconds with 12 out of 100 bytes received\n1 failed, 5 passed",
    ], bucket="test")
    assert_not_read("devflow", "dependency-fetch-refused", [
        "Downloading deps\ncurl: (28) Operation timed out after 10000 milliseconds with 2048 out of 4096 bytes received\nsrc/main.c:10:5: error: expected ';' before '}' token\nmake: *** [all] Error 1",
    ], bucket="compile")
    assert_not_read("devflow", "dependency-fetch-refused", [
        "$ curl -sf http://localhost:8080/health\ncurl: (28) Operation timed out after 5000 milliseconds with 0 out of 0 bytes received\n",
    ])
    # positive control: a download cut off part-way under `curl --output`, and Codemagic's line
    assert_read("devflow", "dependency-fetch-refused", [
        "> curl --fail --show-error --silent --output flutter.zip --max-time 120.00 https://storage.googleapis.com/x.zip\ncurl: (28) Operation timed out after 120011 milliseconds with 525151681 out of 1167172797 bytes received\n",
        "Downloading Flutter release timed out\n\nBuild failed :|",
    ], bucket="infra")


def test_unable_to_connect_to_internet_needs_a_check_severity():
    # ci-connectivity-check-failed read any "unable to connect to internet", so an app's
    # own offline banner described in a bug report became a CI network problem (infra).
    assert_not_read("devflow", "network-env", [
        "The app shows 'Unable to connect to internet' even when online. Steps: open app, tap Sync.",
    ], not_bucket="infra")
    # positive control: YunoHost CI's connectivity check
    assert_read("devflow", "network-env", [
        'CI jobs fail with "Critical: Unable to connect to internet." errors.',
    ], bucket="infra")


def test_tool_error_line_needs_the_quoted_failure():
    # agent-chat-tool-error-line read any line "Tool <name>: failed/error", so a version
    # manager's "Tool node: failed to download ... connection reset" (infra) and a scanner's
    # "tool semgrep: failed, 3 findings" became a model's failed tool call (prompt_delivery).
    assert_not_read("devflow", "tool-call-failed", [
        "$ mise install\nTool node: failed to download https://nodejs.org/dist/v20.0.0/node.tar.gz: connection reset\n",
    ], bucket="infra")
    assert_not_read("devflow", "tool-call-failed", [
        "tool semgrep: failed, 3 findings (blocking)\nrules: python.lang.security.hardcoded-secret",
    ], not_bucket="prompt_delivery")
    # positive control: CodeCompanion's line
    assert_read("devflow", "tool-call-failed", [
        '# [Bug]: read_file fails\nTool read_file: "Error reading `nil`\nend_line_number_base_zero (249) is beyond file length',
    ], bucket="prompt_delivery")


def test_composer_rate_limit_then_source_fallback_is_not_a_refused_download():
    # composer-github-api-limit-exhausted read the rate-limit line even where Composer went on
    # to fetch the package from source, so the test failures after it moved to infra.
    text = (
        "  - Installing hamcrest/hamcrest-php (v2.0.0): Downloading (failed)\n"
        "Failed to download hamcrest/hamcrest-php from dist: GitHub API limit (0 calls/hr) is exhausted, could not fetch https://api.github.com/repos/hamcrest/hamcrest-php/zipball/776503d\n"
        "    Now trying to download from source\n"
        "  - Installing hamcrest/hamcrest-php (v2.0.0): Cloning 776503d3a8\n"
        "PHPUnit 9.5.0\n\nFAILURES!\nTests: 10, Assertions: 20, Failures: 2."
    )
    assert_not_read("devflow", "dependency-fetch-refused", [text], bucket="test")
    # positive control: the download refused outright
    assert_read("devflow", "dependency-fetch-refused", [
        "  - Installing hamcrest/hamcrest-php (v2.0.0): Downloading (0%)GitHub API limit (0 calls/hr) is exhausted, could not fetch https://api.github.com/repos/hamcrest/hamcrest-php/zipball/776503d. Create a GitHub OAuth token to go over the API rate limit.",
    ], bucket="infra")


def test_agent_name_in_a_sentence_about_a_build_command_line_is_not_a_prompt_handoff():
    # agent-cli-command-line-too-long used to accept the agent's name anywhere up to 80 characters
    # before Windows' "filename or extension is too long" / "command line is too long", so a test
    # JVM's classpath or a linker's command line in a sentence naming the agent was read as
    # prompt_delivery (a prompt that never reached the agent).
    assert_not_read("devflow", "prompt-handoff-failed", [
        "When Claude runs `gradlew test` on Windows the task fails: CreateProcess error=206, The filename or extension is too long",
    ], bucket="test")
    assert_not_read("devflow", "prompt-handoff-failed", [
        "Aider ran the linker and got: LINK : fatal error: The command line is too long.",
        "ERROR: Gemini CLI failed to build the Android app: ninja: error: CreateProcess: The filename or extension is too long.",
        "error: git checkout failed in C:\\work\\copilot\\src: The filename or extension is too long.",
    ], not_bucket="prompt_delivery")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "error: fork/exec C:\\Users\\me\\AppData\\Roaming\\npm\\claude.cmd: The filename or extension is too long.",
        "Error: Failed to spawn claude: The filename or extension is too long. (os error 206)",
        "Command failed with ENAMETOOLONG: claude -p --system-prompt \"You are Kilo Code\" --verbose\nspawn ENAMETOOLONG",
    ], bucket="prompt_delivery")


def test_prompt_shown_truncated_to_first_line_in_a_list_is_not_a_prompt_cut():
    # agent-cli-prompt-split-or-cut used to read any "prompt(s) truncated to (its) first line", so a
    # session picker that displays each prompt by its first line was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "In the session picker each prompt is truncated to its first line, which makes it hard to find old sessions.",
        "The resume list shows prompts truncated to the first line; feature request: show the whole prompt on hover.",
    ], bucket="unknown")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "Multi-line prompts truncated to first line on Windows",
        "Only the first line of the prompt is received.",
    ], bucket="prompt_delivery")


RENOVATE_NOTICE = (
    "### Edited/Blocked Notification\n"
    "Renovate will not automatically rebase this PR, because it does not recognize the last commit "
    "author and assumes somebody else may have edited the PR.\n"
    "You can manually request rebase by checking the rebase/retry box above.\n"
)


def test_renovate_edited_notice_beside_a_failing_build_is_not_a_stale_branch():
    # update-bot-will-not-rebase used to fire on Renovate's Edited/Blocked notice wherever it stood,
    # and needs-rebase routes before compile and test, so a Renovate PR (someone pushed a fix to it)
    # that still fails its tests or its type check was read as branch_divergence.
    assert_not_read("devflow", "needs-rebase", [
        RENOVATE_NOTICE + "\nCI: FAIL src/utils.test.ts\n  \u25cf formatDate \u203a handles UTC\n"
        "    expect(received).toBe(expected)\nTests: 1 failed, 41 passed, 42 total",
    ], bucket="test")
    assert_not_read("devflow", "needs-rebase", [
        RENOVATE_NOTICE + "src/index.ts(3,1): error TS2304: Cannot find name 'Foo'.",
    ], bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "needs-rebase", [
        "After recent Renovate configuration changes, we're still seeing 'Edited/Blocked Notification' "
        "warnings on Renovate PRs:\n\n> Renovate will not automatically rebase this PR, because it does "
        "not recognize the last commit author and assumes somebody else may have edited the PR.",
    ], bucket="branch_divergence")


def test_command_waiting_on_stdin_under_an_agent_is_not_the_agent_cli_waiting_for_its_prompt():
    # agent-cli-stdin-never-closed used to accept anything up to 80 characters between the agent's
    # hang and "stdin", so a hook, a test or git waiting on stdin under the agent's shell tool was
    # read as a prompt the agent CLI never received (prompt_delivery).
    assert_not_read("devflow", "prompt-handoff-failed", [
        "Claude hangs when my PreToolUse hook reads from stdin and the hook script never exits",
        "claude -p hangs: the pre-commit hook runs `npm test` in watch mode, which waits on stdin",
        "Copilot hangs at \"Running tests...\" because `pytest --pdb` stops at a breakpoint and reads stdin",
        "Ralph loop: opencode run hangs forever after the tool call; git commit opened vim waiting for stdin",
    ], bucket="unknown")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "codex exec \"<prompt>\" hangs indefinitely when stdin is a non-TTY pipe with no writer",
        "claude -p hangs waiting for stdin",
        "codex exec hangs forever waiting for EOF on stdin",
    ], bucket="prompt_delivery")


PYTEST_FAILED = """tests/test_server.py ......F.......                                     [100%]

=================================== FAILURES ===================================
    def test_fastmcp_fallback():
>       from mcp.server.fastmcp import FastMCP
E       ModuleNotFoundError: No module named 'mcp.server.fastmcp'

tests/test_server.py:88: ModuleNotFoundError
=========================== short test summary info ============================
FAILED tests/test_server.py::test_fastmcp_fallback - ModuleNotFoundError: No module named 'mcp.server.fastmcp'
========================= 1 failed, 13 passed in 0.41s ========================="""


UNITTEST_IMPORT = """Ran 12 tests in 0.210s

FAILED (errors=1)
ERROR: test_server (tests.test_server.ServerTest)
ImportError: Failed to import test module: test_server
Traceback (most recent call last):
  File "/home/u/proj/tests/test_server.py", line 3, in <module>
    from mcp.server.fastmcp import FastMCP
ModuleNotFoundError: No module named 'mcp.server.fastmcp'"""


DOCKER_BUILD = """#12 [build 5/6] RUN python -c "import server"
#12 0.512 Traceback (most recent call last):
#12 0.512   File "/app/server.py", line 1, in <module>
#12 0.512 ModuleNotFoundError: No module named 'mcp.server.fastmcp'
#12 ERROR: process "/bin/sh -c python -c \\"import server\\"" did not complete successfully: exit code: 1
ERROR: failed to solve: process "/bin/sh -c python -c \\"import server\\"" did not complete successfully: exit code: 1"""


def test_mcp_sdk_import_error_in_a_test_run_or_build_is_not_mcp_startup():
    # mcp-python-sdk-module-missing (route mcp-server-sdk-import-broken) used to decide on its own,
    # so a pytest or unittest run of the code under change that cannot import mcp.server.fastmcp,
    # or an image build that does, was read as mcp_startup.
    assert_lands("devflow", [PYTEST_FAILED, UNITTEST_IMPORT, DOCKER_BUILD], bucket="compile")
    assert_not_read("devflow", "mcp-sdk-import-broken", [UNITTEST_IMPORT], bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "mcp-sdk-import-broken", [
        "$ uvx paper-search-mcp --help\nTraceback (most recent call last):\n"
        "  File \"...\\paper_search_mcp\\server.py\", line 8, in <module>\n"
        "    from mcp.server.fastmcp import FastMCP\n"
        "ModuleNotFoundError: No module named 'mcp.server.fastmcp'. This is mcp 2.x, where\n"
        "FastMCP was renamed to MCPServer (from mcp.server.mcpserver import MCPServer)",
    ], bucket="mcp_startup")


LAMBDA_DEPLOY = """Deploying weather-mcp to AWS Lambda...
START RequestId: 9f2c Version: $LATEST
[ERROR] Runtime.ImportModuleError: Unable to import module 'handler': No module named 'pydantic_core._pydantic_core'
END RequestId: 9f2c
Deployment failed: health check did not pass"""


DOCKER_NATIVE = """#14 [6/7] RUN python -m mcp_server --version
#14 0.871 ModuleNotFoundError: No module named 'pydantic_core._pydantic_core'
#14 ERROR: process "/bin/sh -c python -m mcp_server --version" did not complete successfully: exit code: 1
ERROR: failed to solve: process "/bin/sh -c python -m mcp_server --version" did not complete successfully: exit code: 1"""


CI_NATIVE = """Traceback (most recent call last):
  File "/app/src/mcp_bridge/main.py", line 3, in <module>
    import cryptography
ModuleNotFoundError: No module named '_cffi_backend'
Error: Process completed with exit code 1."""


UNITTEST_NATIVE = """Ran 0 tests in 0.000s
FAILED (errors=1)
ImportError: Failed to import test module: test_mcp_server
ModuleNotFoundError: No module named 'pydantic_core._pydantic_core'"""


def test_native_core_missing_in_deploy_build_ci_or_test_run_is_not_mcp_startup():
    # python-native-core-module-missing (route mcp-server-wrong-python) used to decide beside any
    # mention of mcp, so a Lambda deploy, an image build, a CI job or a unittest run of an
    # x-mcp project that misses pydantic_core's compiled core was read as mcp_startup.
    assert_lands("devflow", [LAMBDA_DEPLOY, DOCKER_NATIVE, CI_NATIVE], bucket="compile")
    assert_not_read("devflow", "python-native-core-missing", [UNITTEST_NATIVE], bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "python-native-core-missing", [
        "# aws-api-mcp-server: Server fails on macOS due to Python version incompatibility in Claude Desktop Extension\n"
        "NotOpenSSLWarning: urllib3 v2 only supports OpenSSL 1.1.1+, currently the 'ssl' module is compiled with 'LibreSSL 2.8.3'\n"
        "ModuleNotFoundError: No module named 'pydantic_core._pydantic_core'",
    ], bucket="mcp_startup")


def test_xctest_bundle_that_could_not_load_its_libraries_is_no_test_failure():
    # swiftpm-test-process-signal used to read any signal after the .xctest bundle, so a bundle
    # that died in dyld loading XCTest (no test ran: the environment) was read as test.
    assert_not_read("devflow", "test-failed", [
        "$ swift test\nBuilding for debugging...\nBuild complete! (12.40s)\n"
        "dyld[48211]: Library not loaded: @rpath/XCTest.framework/Versions/A/XCTest\n"
        "  Referenced from: <8A1F> /Users/ci/work/app/.build/debug/AppPackageTests.xctest/Contents/MacOS/AppPackageTests\n"
        "  Reason: tried: '/usr/lib/swift/XCTest.framework/Versions/A/XCTest' (no such file)\n"
        "error: Process '/Users/ci/work/app/.build/debug/AppPackageTests.xctest' exited with unexpected signal code 6",
        "$ swift test\nBuild complete! (0.21s)\n"
        "/work/.build/x86_64-unknown-linux-gnu/debug/FooPackageTests.xctest: error while loading shared libraries: "
        "libFoundation.so: cannot open shared object file: No such file or directory\n"
        "error: Process '/work/.build/x86_64-unknown-linux-gnu/debug/FooPackageTests.xctest' exited with unexpected signal code 4",
    ], not_bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "test-failed", [
        "error: Process '/root/swift-subprocess/.build/x86_64-unknown-freebsd/debug/swift-subprocessPackageTests.xctest "
        "--testing-library swift-testing' exited with unexpected signal code 13",
    ], bucket="test")


def test_kaocha_namespace_that_failed_to_load_is_no_test_failure():
    # kaocha-tally-failed used to read every tally with an error, so Kaocha's count of a test
    # namespace that could not be loaded (a missing namespace on the classpath) was read as test.
    assert_not_read("devflow", "test-count-failed", [
        "ERROR in unit (NO_SOURCE_FILE)\nFailed loading tests:\n"
        "Exception: java.io.FileNotFoundException: Could not locate app/util__init.class, app/util.clj or app/util.cljc on classpath.\n"
        "1 tests, 1 assertions, 1 errors, 0 failures.\nError: Process completed with exit code 1.",
    ], not_bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "test-count-failed", [
        "    kaocha.runner$run.invokeStatic (runner.clj:129)\n241 tests, 5987 assertions, 1 errors, 0 failures.\n"
        "Error: Process completed with exit code 1.",
        "5 tests, 12 assertions, 1 pending, 2 failures.",
    ], bucket="test")


def test_mcp_remote_fallback_that_connected_is_no_connect_failure():
    # mcp-remote-transport-strategy-refused used to read the first strategy's refusal alone, so a
    # log whose SSE fallback then connected, over a failed deploy or a failed tool call, was read
    # as mcp_startup.
    assert_not_read("devflow", "connect-failed", [
        "mcp-remote connects (the HTTP-first strategy gets a 404 and it falls back to SSE), but the deploy of the server behind it now fails:\n"
        "[8842] Connected to remote server using SSEClientTransport\n"
        "Error: Deployment failed: health check timed out after 300s",
    ], bucket="infra")
    assert_not_read("devflow", "connect-failed", [
        "With mcp-remote the http-first strategy returns 405, so it falls back to SSE; that works.\n"
        "[9001] Connected to remote server using SSEClientTransport\n"
        "Error: tool call failed: Tool 'search' failed: invalid arguments",
    ], bucket="prompt_delivery")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "connect-failed", [
        "# Cannot connect via mcp-remote - SSE 400 / HTTP 404 errors\n**Error:**\n"
        "- HTTP-first strategy → 404: `Session not found`\n- Fallback to SSE → 400: `Non-200 status code`",
    ], bucket="mcp_startup")


GO_TESTIFY = '''--- FAIL: TestAcceptMergeRequest_SHAMismatch (0.00s)
    merge_requests_test.go:212:
        Error Trace:    merge_requests_test.go:212
        Error:          Not equal:
                        expected: "SHA does not match HEAD of source branch: 6104942438c14ec7bd21c6cd5bd995272b3faff6"
                        actual  : "409 Conflict"
        Test:           TestAcceptMergeRequest_SHAMismatch
FAIL
FAIL    gitlab.com/gitlab-org/api/client-go    0.412s'''


RSPEC = '''Failures:

  1) API::MergeRequests PUT /projects/:id/merge_requests/:merge_request_iid/merge returns 409 if the SHA parameter doesn't match
     Failure/Error: expect(json_response['message']).to eq("SHA does not match HEAD of source branch: 5937ac0a7beb003549fc5fd26fc247adbce4a52e")

       expected: "SHA does not match HEAD of source branch: 5937ac0a7beb003549fc5fd26fc247adbce4a52e"
            got: "405 Method Not Allowed"

       (compared using ==)
     # ./spec/requests/api/merge_requests_spec.rb:2871:in `block (3 levels) in <top (required)>'

Finished in 41.2 seconds (files took 18.51 seconds to load)
1 example, 1 failure'''


PYTEST = '''    def test_merge_409_is_reported_as_race(self):
        with pytest.raises(HeadMovedError) as exc:
            bot.merge(mr)
>       assert str(exc.value) == "SHA does not match HEAD of source branch: a1b2c3d4e5f6"
E       AssertionError: assert 'GitLab API error 409' == 'SHA does not match HEAD of source branch: a1b2c3d4e5f6'
E         - SHA does not match HEAD of source branch: a1b2c3d4e5f6
E         + GitLab API error 409

tests/test_merge.py:88: AssertionError
=========================== short test summary info ============================
FAILED tests/test_merge.py::TestMerge::test_merge_409_is_reported_as_race - AssertionError
1 failed, 41 passed in 2.31s'''


JEST = '''FAIL src/gitlab/merge.test.ts
  \u25cf mergeRequest \u203a surfaces a moved head as a conflict

    expect(received).rejects.toThrow(expected)

    Expected substring: "SHA does not match HEAD of source branch: 9f86d081"
    Received message:   "Request failed with status code 409"

      41 |     await expect(merge(client, 7)).rejects.toThrow(
    > 42 |       "SHA does not match HEAD of source branch: 9f86d081",

Tests:       1 failed, 23 passed, 24 total'''


MARGE = '''2018-10-31 15:54:07,700 ERROR Unanticipated ApiError from GitLab on merge attempt
Traceback (most recent call last):
  File "/usr/lib/python3.6/site-packages/marge/gitlab.py", line 55, in call
    raise error(response.status_code, err_message)
marge.gitlab.Conflict: (409, {'message': 'SHA does not match HEAD of source branch: f1c318c21746a4bd3c26574d82e8cc1c88394d9b'})
2018-10-31 15:54:07,703 WARNING I couldn't merge this branch: had some issue with GitLab, check my logs...'''


CURL = '''$ curl --fail -X PUT "$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$MR_IID/merge?sha=$CI_COMMIT_SHA"
{"message":"SHA does not match HEAD of source branch: 0a4d55a8d778e5022fab701977c5d840bbc486d0"}
curl: (22) The requested URL returned error: 409
ERROR: Job failed: exit code 22'''


def test_gitlab_sha_mismatch_expected_by_a_failing_client_test_is_a_test_failure():
    # gitlab-merge-sha-moved used to match GitLab's 409 wording with its SHA wherever it stood, so a
    # GitLab client's failing test that expects that refusal (testify, RSpec, pytest, Jest) was read
    # as branch_divergence (behind-base routes before test).
    assert_not_read("devflow", "behind-base", [GO_TESTIFY, RSPEC, PYTEST, JEST], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "behind-base", [MARGE, CURL], bucket="branch_divergence")
    assert devflow(MARGE).rule == "stale-branch"


def test_stuck_waiting_for_confirmation_needs_the_agent():
    # agent-approval-unanswerable used to read any "stuck waiting for user confirmation", so an
    # npx install prompt under an MCP server and terraform waiting in CI were read as trust_gate.
    assert_not_read("devflow", "permission-refused", [
        "[MCP] Server 'filesystem' failed to start: npx is stuck waiting for user confirmation (Need to install the following packages: @modelcontextprotocol/server-filesystem Ok to proceed? (y)); add -y to the args.",
    ], bucket="mcp_startup")
    assert_not_read("devflow", "permission-refused", [
        "The deploy job in GitHub Actions hangs: terraform apply is stuck waiting for user confirmation. Error: Process completed with exit code 1.",
    ], bucket="infra")
    assert_not_read("devflow", "permission-refused", [
        "CI job timed out after 60 minutes: apt-get install was stuck waiting for user confirmation (Do you want to continue? [Y/n]) in the Docker build step.",
    ], not_bucket="trust_gate")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "permission-refused", [
        'Non-interactive agents running via the CLI driver cannot present this card, causing them to get stuck indefinitely with: "The agent got stuck waiting for user confirmation."',
    ], bucket="trust_gate")


def test_updated_by_another_client_needs_the_tf401028_code():
    # azure-repos-ref-updated-by-another-client used to read the bare phrase, so an Azure DevOps
    # wiki page or build definition edited concurrently was read as branch_divergence.
    assert_not_read("devflow", "behind-base", [
        "Error: Error creating wiki page: The wiki page has already been updated by another client, so you cannot update it. Please try again.",
        "TF400813: update failed. The build definition has already been updated by another client; reload and retry.",
    ], not_bucket="branch_divergence")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "behind-base", [
        "! [remote rejected] main -> main (TF401028: The reference 'refs/heads/main' has already been updated by another client, so you cannot update it. Please try again.)",
    ], bucket="branch_divergence")


def test_wrapped_rebase_failing_for_another_cause_is_not_a_rebase():
    # wrapped-git-rebase-command-failed used to read any non-zero git rebase exit, so refused
    # credentials, an unknown host key, a missing base ref in a shallow clone, the editor, a
    # lock file or a failing hook were read as branch_divergence.
    assert_not_read("devflow", "needs-rebase", [
        "hit: callCommand: git pull --rebase origin main (exit 128): fatal: Authentication failed for 'https://github.com/acme/app.git/'",
        "Error: Command failed: git pull --rebase origin main (exit code 128)\nHost key verification failed.",
        "Error: git rebase origin/main (exit 128): fatal: invalid upstream 'origin/main'",
        "autosquash step: git rebase -i --autosquash main (exit 1)\nhint: Waiting for your editor to close the file... error: There was a problem with the editor 'vi'.",
        "git pull --rebase (exit 1): error: cannot lock ref 'refs/remotes/origin/main': Unable to create '/repo/.git/refs/remotes/origin/main.lock': File exists.",
        "sync failed: git rebase --continue (exit status 1): error: pre-commit hook failed: eslint found 3 errors",
    ], not_bucket="branch_divergence")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "needs-rebase", [
        "hit: callCommand: git rebase origin/master (exit 128): failed",
    ], bucket="branch_divergence")


def test_restack_marker_beside_refused_credentials_is_not_a_restack():
    # stacked-branch-needs-restack used to read the stack log's "(needs restack)" marker even when
    # the forge refused the tool's credentials, so a 401 on submit was read as branch_divergence.
    assert_not_read("devflow", "needs-rebase", [
        "gs stack submit\n  feat-2 (needs restack)\nERROR: submit feat-1: POST https://api.github.com/graphql: 401 Unauthorized []",
    ], not_bucket="branch_divergence")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "needs-rebase", [
        "Submit failed after updating some of the branches because this branch needed to be restacked",
    ], bucket="branch_divergence")


def test_zh_mcp_clause_naming_a_database_is_not_mcp_startup():
    # route mcp-start-failed-zh-clause used to take any "MCP 服务…启动失败" clause, so a database
    # the MCP server uses failing to start was read as mcp_startup (zh-other-start-subject now
    # names databases, which vetoes the route; the clause signal itself still fires).
    assert_lands("devflow", [
        "我的 MCP 服务器连接的 Redis 启动失败了",
        "MCP 服务调用数据库时报错：MySQL 服务启动失败，端口 3306 被占用",
    ], not_bucket="mcp_startup")
    # positive control: the route's own wording is still read
    assert_read("devflow", "mcp-start-failed-zh-clause", [
        "所有通过 npx 启动的 MCP 服务器（包括 Playwright、context7、sequential-thinking、mcp-deepwiki、memory）在当前的 Windows 环境下都存在相同的启动失败问题：",
    ], bucket="mcp_startup")


ANSIBLE_UNDER_PYTEST = """=================================== FAILURES ===================================
______________________ test_playbook_syntax[conflict.yml] ______________________
----------------------------- Captured stderr call -----------------------------
ERROR! conflicting action statements: debug, msg
AssertionError: expected rc 4, got 1
=========================== short test summary info ============================
FAILED tests/test_syntax.py::test_playbook_syntax[conflict.yml] - AssertionError: expected rc 4, got 1
========================= 1 failed, 41 passed in 12.3s ========================="""


ANSIBLE_FIXTURE_IN_SUMMARY = """tests/test_loader.py::test_broken_yaml_fixture FAILED
----------------------------- Captured stdout call -----------------------------
ERROR! Syntax Error while loading YAML.
  did not find expected key
=========================== short test summary info ============================
FAILED tests/test_loader.py::test_broken_yaml_fixture - assert 'mapping values are not allowed' in out"""


def test_ansible_error_quoted_by_a_failed_test_is_not_a_parse_error():
    # playbook-or-kustomization-does-not-load used to read Ansible's `ERROR!` line wherever it
    # started a line, so a pytest run whose captured output quotes a fixture playbook's parse
    # error (the test expected another message or return code) was read as compile.
    assert_not_read("devflow", "compile-diagnostic",
                    [ANSIBLE_UNDER_PYTEST, ANSIBLE_FIXTURE_IN_SUMMARY], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "compile-diagnostic", [
        "ansible-playbook -i hosts master.yml\n\nERROR! conflicting action statements: debug, msg\n\n"
        "The error appears to be in '/tmp/master.yml': line 38, column 7\n\nThe offending line appears to be:\n",
        "ERROR! Syntax Error while loading YAML.\n  did not find expected key\n",
        "Error: accumulating resources: accumulation err='merging resources from 'svc.yaml': "
        "may not add resource with an already registered id: Service.v1.[noGrp]/x.system'",
    ], bucket="compile")


NBVAL_NETWORK = """_____________________ docs/examples/download.ipynb::Cell 2 ______________________
Notebook cell execution failed
Cell 2: Cell outputs differ
Traceback: mismatch 'stdout'
 - Downloaded 4096 rows
 + Download failed: HTTPSConnectionPool(host='data.example.org', port=443): Max retries exceeded (Caused by NewConnectionError: [Errno -3] Temporary failure in name resolution)"""


NBVAL_KERNEL_DIED = """_____________________ notebooks/train.ipynb::Cell 5 ______________________
Notebook cell execution failed
Cell 5: Cell outputs differ
The kernel appears to have died. It will restart automatically."""


def test_nbval_output_mismatch_from_network_or_dead_kernel_is_not_a_test_failure():
    # nbval-cell-output-mismatch used to veto only `kernel died`/`dead kernel`, so a cell whose
    # output differs because the runner could not resolve the data host was read as test
    # (it was infra), and Jupyter's `The kernel appears to have died` was read as test too.
    assert_not_read("devflow", "test-failed", [NBVAL_NETWORK], bucket="infra")
    assert_not_read("devflow", "test-failed", [NBVAL_KERNEL_DIED], not_bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "test-failed", [
        "Notebook cell execution failed\nCell 9: Cell outputs differ\n\nTraceback:\n mismatch 'text/plain'\n",
        "<<<<<<<<<<<< Reference output from ipynb file:\n1498639847.5\n"
        "============ disagrees with newly computed (test) output:\n1498643832.1\n>>>>>>>>>>>>",
        "Traceback: Missing output fields from running code: {'image/svg+xml'}",
    ], bucket="test")


GE_THEN_HELM = """+ great_expectations checkpoint run staging_suite
Validation succeeded!
+ helm upgrade --install api ./chart
Error: UPGRADE FAILED: validation failed
Validation failed"""


def test_bare_validation_failed_after_a_checkpoint_run_is_not_its_verdict():
    # great-expectations-checkpoint-failed used to take any line that reads `Validation failed`
    # within 600 characters of a checkpoint run, so a helm upgrade failing right after a
    # checkpoint that succeeded was read as test (it was infra).
    assert_not_read("devflow", "test-failed", [GE_THEN_HELM], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "test-failed", [
        " $ great_expectations checkpoint run my_checkpoint\n"
        "Heads up! This feature is Experimental. It may change.\nValidation Failed!",
    ], bucket="test")


KARMA_MOCHA_REPORTER = """05 03 2020 10:12:01.123:ERROR [reporter]: Can not load reporter "coverage-istanbul", it is not registered!
  Perhaps you are missing some plugin?
05 03 2020 10:12:02.456:INFO [karma-server]: Karma v4.4.1 server started at http://0.0.0.0:9876/
05 03 2020 10:12:05.789:INFO [HeadlessChrome 80.0.3987 (Linux 0.0.0)]: Connected on socket abc with id 1234

  Calculator
    ✔ adds numbers
    ✖ subtracts numbers

SUMMARY:
✔ 1 test completed
✖ 1 test failed

FAILED TESTS:
  Calculator
    ✖ subtracts numbers
      HeadlessChrome 80.0.3987 (Linux 0.0.0)
    Expected 1 to equal 2.
        at <Jasmine>
"""


KARMA_OLD_LAUNCHER_MOCHA = """WARN [launcher]: Can not load "Firefox", it is not registered!
  Perhaps you are missing some plugin?
INFO [launcher]: Starting browser Chrome
INFO [Chrome 49.0.2623 (Mac OS X 10.11.3)]: Connected on socket /#x with id 5512

  LoginController
    ✖ should reject an empty password
      AssertionError: expected true to be false
          at Context.<anonymous> (test/login.spec.js:22:31)

SUMMARY:
✔ 14 tests completed
✖ 1 test failed
"""


def test_karma_missing_plugin_beside_failed_tests_stays_test():
    # karma-launcher-not-registered used to veto only the progress reporter's `(1 FAILED)`, so a
    # Karma run whose tests executed and failed under the mocha reporter (`✖ 1 test failed`) with a
    # missing reporter/launcher warning above it was read as plugin_startup.
    assert_not_read("devflow", "plugin-not-found", [KARMA_MOCHA_REPORTER, KARMA_OLD_LAUNCHER_MOCHA], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "plugin-not-found", [
        '27 03 2018 15:15:49.888:ERROR [launcher]: Cannot load browser "Safari": it is not registered! Perhaps you are missing some plugin?',
        'WARN [launcher]: Can not load "Chrome", it is not registered!\n  Perhaps you are missing some plugin?',
    ], bucket="plugin_startup")


PRETTIER_STANDALONE_JEST = """FAIL src/utils/formatCode.test.ts
  ● formatCode › formats markdown

    ConfigError: Couldn't resolve parser "markdown". Plugins must be explicitly added to the standalone bundle.

      10 | export function formatCode(code: string, parser: string) {
    > 11 |   return prettier.format(code, { parser, plugins: [parserBabel] });
         |                   ^
      12 | }

      at normalize (node_modules/prettier/standalone.js:9893:13)
      at Object.<anonymous> (src/utils/formatCode.test.ts:8:12)

Tests:       1 failed, 4 passed, 5 total
"""


PRETTIER_NODE_API_VITEST = """ FAIL  src/codegen/emit.test.ts > emit > formats the generated svelte component
ConfigError: Couldn't resolve parser "svelte".
 ❯ normalizeFormatOptions node_modules/prettier/index.mjs:20810:11
 ❯ emitComponent src/codegen/emit.ts:41:10

 Test Files  1 failed | 3 passed (4)
      Tests  1 failed | 20 passed (21)
"""


PRETTIER_STANDALONE_PYTEST = """FAILED tests/e2e/test_editor.py::test_format_button - AssertionError: console error: ConfigError: Couldn't resolve parser "babel". Plugins must be explicitly added to the standalone bundle.
======================== 1 failed, 12 passed in 8.21s ========================
"""


def test_prettier_api_error_in_code_under_test_stays_test():
    # prettier-parser-unresolved used to fire on any `Couldn't resolve parser "x"`, so a test of code
    # that calls prettier's API (prettier/standalone in a browser bundle, a code generator formatting
    # its output) without the parser plugin was read as plugin_startup.
    assert_not_read("devflow", "plugin-not-found",
                    [PRETTIER_STANDALONE_JEST, PRETTIER_NODE_API_VITEST, PRETTIER_STANDALONE_PYTEST], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "plugin-not-found", [
        '[error] Couldn\'t resolve parser "sh".',
        '# `[error] Couldn\'t resolve parser "sh".` when upgrading to Prettier 3.1.0\n[error] Couldn\'t resolve parser "sh".',
    ], bucket="plugin_startup")


PLUGGY_APP_PYTEST = """============================= test session starts ==============================
collected 12 items

tests/test_plugins.py ..F.........                                       [100%]

=================================== FAILURES ===================================
_____________________________ test_load_plugins ________________________________

    def test_load_plugins():
>       pm.register(my_plugin, name="custom")
E       ValueError: Plugin already registered under a different name: custom=<module 'my_plugin' from '/home/u/proj/tests/my_plugin.py'>

tests/test_plugins.py:31: ValueError
=========================== short test summary info ============================
FAILED tests/test_plugins.py::test_load_plugins - ValueError: Plugin already registered under a different name: custom=<module 'my_plugin' from '/home/u/proj/tests/my_plugin.py'>
========================= 1 failed, 11 passed in 0.34s =========================
"""


PLUGGY_APP_OLD_PLUGGY = """FAILED tests/test_hooks.py::test_plugin_registered_once - ValueError: Plugin already registered: myapp.plugins.csv=<module 'myapp.plugins.csv' from '/src/myapp/plugins/csv.py'>
========================= 1 failed, 48 passed in 1.02s ========================="""


def test_pluggy_error_in_app_test_stays_test():
    # pluggy-plugin-registered-twice used to fire on pluggy's ValueError wherever it appeared, so a
    # failed test of an application that drives its own pluggy plugin manager was read as plugin_startup.
    assert_not_read("devflow", "plugin-init-error", [PLUGGY_APP_PYTEST, PLUGGY_APP_OLD_PLUGGY], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "plugin-init-error", [
        "ValueError: Plugin already registered under a different name: pytest_profiling=<module 'pytest_profiling' from '/usr/local/lib/python3.10/site-packages/pytest_profiling.py'>",
    ], bucket="plugin_startup")


CDN_SPEC_FAILURE = """Failures:

  1) Pod::CDNSource raises an informative error when the CDN answers 500
     Failure/Error: expect { @source.search('BeaconKit') }.to raise_error(Pod::Informative, "CDN: test_cdn_repo_local URL couldn't be downloaded: http://localhost:4321/CocoaPods-version.yml Response: 500")
       expected Pod::Informative with message "CDN: test_cdn_repo_local URL couldn't be downloaded: http://localhost:4321/CocoaPods-version.yml Response: 500", got #<Pod::Informative: [!] CDN: test_cdn_repo_local URL couldn't be downloaded: http://localhost:4321/CocoaPods-version.yml Response: 500 Internal Server Error>

Finished in 2.31 seconds (files took 1.2 seconds to load)
212 examples, 1 failure"""


def test_cocoapods_cdn_refusal_from_a_local_stub_server_is_no_registry_outage():
    # package-cdn-or-release-server-status-refused used to read any CDN refusal, so a failing
    # CocoaPods spec that stubs the CDN on localhost:4321 was read as infra (dependency-fetch-refused).
    assert_not_read("devflow", "dependency-fetch-refused", [CDN_SPEC_FAILURE], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "dependency-fetch-refused", [
        "# CDN: trunk URL couldn't be downloaded: https://cdn.cocoapods.org/CocoaPods-version.yml Response: 403",
        "➤ YN0035: The remote server failed to provide the requested resource\n➤ YN0035:   Response Code: 530\n"
        "➤ YN0035:   Request Method: GET\n➤ YN0035:   Request URL: https://nightly.yarnpkg.com/latest.js",
    ], bucket="infra")


def test_registry_host_said_not_to_be_down_is_no_outage():
    # package-host-reported-down used to read the host phrase whatever surrounded it, so a report
    # that rules the outage out ("I don't think pypi.org is down") went to infra over its own failure.
    assert_not_read("devflow", "network-env", [
        "I don't think pypi.org is down (pip download works from the same runner); the extension failed to activate after the update",
        "I thought registry.npmjs.org was down, but npm ping answers; the plugin could not be loaded: unknown plugin 'foo'",
    ], bucket="plugin_startup")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "network-env", [
        "# MSYS2 acquisition failed\nWhen doing fresh build from vcpkg anything that requires msys2, build will fail due to repo.msys2.org being down",
        "npm install fails again, registry.npmjs.org is down",
    ], bucket="infra")


def test_local_app_server_answering_500_is_no_remote_outage():
    # urllib3-retries-exhausted-on-server-status used to read any host, so a project's own local
    # server crashing with 500s (a code bug) was read as infra (network-env).
    texts = [
        "requests.exceptions.RetryError: HTTPConnectionPool(host='127.0.0.1', port=5000): Max retries exceeded with url: /api/users "
        "(Caused by ResponseError('too many 500 error responses'))\nThe endpoint crashes with KeyError: 'email' in create_user()",
        "Traceback (most recent call last):\n  File \"app/client.py\", line 40, in fetch\n    r = session.get(url)\n"
        "requests.exceptions.RetryError: HTTPConnectionPool(host='localhost', port=8080): Max retries exceeded with url: /graphql "
        "(Caused by ResponseError('too many 500 error responses'))",
    ]
    assert_not_read("devflow", "network-env", texts, not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "network-env", [
        "ERROR: HTTPSConnectionPool(host='center.conan.io', port=443): Max retries exceeded with url: /v1/ping "
        "(Caused by ResponseError('too many 502 error responses',)). [Remote: conan-center]",
    ], bucket="infra")


def test_argument_list_too_long_of_a_command_the_agent_ran_is_not_its_prompt():
    # agent-cli-argument-list-too-long used to accept any 60 characters between the agent's
    # `name:` and the refusal, so a command the agent ran itself (git, rm) refused as too long
    # was read as the agent's prompt: prompt_delivery (over a red CI step) instead of infra.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "aider: error running git add: /usr/bin/git: Argument list too long\n"
        "##[error]Process completed with exit code 126.",
        "codex: exec failed: /bin/sh: rm: Argument list too long\n"
        "##[error]Process completed with exit code 1.",
        "claude: running `git commit` with 40000 files: /usr/bin/git: Argument list too long\n"
        "##[error]Process completed with exit code 126.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "/opt/hostedtoolcache/node/22.22.2/x64/bin/opencode: Argument list too long\n"
        "##[error]Process completed with exit code 126.",
        ".../npm/gemini: line 15: .../node: Argument list too long",
        "error: agent fix tests: claude start: fork/exec <agent>: argument list too long",
        "/usr/bin/opencode: La lista de argumentos es demasiado larga",
    ], bucket="prompt_delivery")


def test_agent_error_over_a_builds_spawn_enametoolong_is_not_the_prompt():
    # agent-cli-prompt-not-received used to read `spawn ENAMETOOLONG` anywhere within 40
    # characters after `Agent ... error:`, so a build the agent process ran that Windows refused
    # (`Agent process error: npm run build: spawn ENAMETOOLONG`) was read as prompt_delivery
    # instead of the CI failure it is (infra).
    assert_not_read("devflow", "prompt-handoff-failed", [
        "Agent process error: npm run build: spawn ENAMETOOLONG\n"
        "##[error]Process completed with exit code 1.",
        "Agent run error: tsc --build: spawn ENAMETOOLONG\n"
        "##[error]Process completed with exit code 1.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "[2026-03-25T14:13:47.041Z] Agent stream error: Error: spawn ENAMETOOLONG",
        "Agent stream error: spawn ENAMETOOLONG",
    ], bucket="prompt_delivery")


def test_compiler_missing_module_beside_lmstudio_plugin_stderr_stays_compile():
    # route lmstudio-mcp-plugin-import-failed used to take any missing module beside an
    # LM Studio `[Plugin(mcp/x)] stderr:` line, so TypeScript's own `error TS2307: Cannot find
    # module './utils'` in the same log was read as mcp_startup instead of compile.
    assert_lands("devflow", [
        "[Plugin(mcp/filesystem)] stderr: Secure MCP Filesystem Server running on stdio\n"
        "src/app.ts(3,20): error TS2307: Cannot find module './utils' or its corresponding type declarations.",
    ], bucket="compile")
    # positive control: the route's own case is still read as the server failing to start
    assert_read("devflow", "mcp-plugin-stderr", [
        "[Plugin(mcp/web-search)] stderr: node:internal/modules/cjs/loader:1228\n"
        "[Plugin(mcp/web-search)] stderr: Error: Cannot find module 'C:\\Users\\me\\~\\mcp\\web-search\\dist\\index.js'",
    ], bucket="mcp_startup")


MCP_WITH_CONFIG_SAVE = [
    'MCP server "github" failed to connect: Connection closed\n'
    "[DEBUG] Failed to save config with lock: Error: EEXIST: file already exists, mkdir 'C:\\Users\\bob'\n"
    '[ERROR] MCP server "github" Connection failed: spawn npx ENOENT',
    "Error: MCP error -32000: Connection closed\n"
    "2025-07-01T10:00:00Z [ERROR] Failed to save config with lock: Error: EACCES: permission denied, open '/home/u/.claude.json'\n"
    'MCP server "playwright": Connection failed after 30000ms',
]


PROMPT_WITH_CONFIG_SAVE = [
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 212345 tokens > 200000 maximum"}}\n'
    "Debug log:\n"
    "[ERROR] Failed to save config with lock: Error: EBUSY: resource busy or locked, open 'C:\\Users\\bob\\.claude.json'",
]


OWN_WORDING = [
    "Debug log error\n"
    "Failed to save config with lock: Error: EEXIST: file already exists, mkdir 'C:\\Users\\navaneethp'\n"
    "The mkdir call fails because the home directory already exists. This prevents saving the trust config, so 'Yes' appears to hang.",
    "Claude Code forgets every setting. claude --debug shows:\n"
    "[ERROR] Failed to save config with lock: Error: EPERM: operation not permitted, rename '/home/u/.claude.json.tmp' -> '/home/u/.claude.json'",
]


def test_config_save_route_stands_down_beside_mcp_and_prompt_failures():
    # route agent-config-save-failed used to send any message carrying Claude Code's
    # `Failed to save config with lock: Error: E...` debug line to infra, before the MCP and
    # prompt-delivery routes, so an MCP server that failed to connect (or a prompt that was too
    # long) with that line in its pasted debug log was read as infra.
    # (The signal still fires; the route stands down, so these assert the bucket.)
    assert_lands("devflow", MCP_WITH_CONFIG_SAVE, bucket="mcp_startup")
    assert_lands("devflow", PROMPT_WITH_CONFIG_SAVE, bucket="prompt_delivery")
    for text in MCP_WITH_CONFIG_SAVE + PROMPT_WITH_CONFIG_SAVE:
        assert devflow(text).rule != "agent-config-save-failed", text
    # positive control: the config-save failure alone (and beside the trust dialog) is still infra
    assert_read("devflow", "agent-config-save-failed", OWN_WORDING, bucket="infra")
    assert devflow(OWN_WORDING[0]).rule == "agent-config-save-failed"


def test_nvcc_architecture_must_be_numbered_not_a_build_file_name():
    # nvcc-gpu-architecture-unsupported used to take any word after compute_/sm_, so a build file's
    # own bad value (an unexpanded 'compute_SM', a doubled 'compute_sm_80' / 'sm_sm_86') was read as
    # a toolchain version mismatch (infra).
    assert_not_read("devflow", "toolchain-version-mismatch", [
        "[ 12%] Building CUDA object CMakeFiles/nvinfer_plugin.dir/common/kernels/decodeBBoxes.cu.o\n"
        "nvcc fatal   : Unsupported gpu architecture 'compute_SM'\n"
        "ninja: build stopped: subcommand failed.",
        "After my change to CMakeLists.txt (set(CMAKE_CUDA_ARCHITECTURES sm_86)) the build fails:\n"
        "nvcc fatal   : Value 'sm_sm_86' is not defined for option 'gpu-architecture'\n"
        "ninja: build stopped: subcommand failed.",
        "[  4%] Building CUDA object CMakeFiles/kernels.dir/src/reduce.cu.o\n"
        "nvcc fatal   : Unsupported gpu architecture 'compute_sm_80'\n"
        "ninja: build stopped: subcommand failed.",
    ], bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "toolchain-version-mismatch", [
        "nvcc fatal: Unsupported gpu architecture 'compute_86' ninja: build stopped: subcommand failed.",
        "nvcc fatal   : Unsupported gpu architecture 'compute_35'",
        "nvcc fatal : Value 'sm_89' is not defined for option 'gpu-architecture'",
        "nvcc fatal : Value 'sm_90a' is not defined for option 'gpu-architecture'",
    ], bucket="infra")


def test_conflicting_needs_the_base_branch_itself_not_a_word_starting_with_it():
    # forge-mergeable-conflicting used to match any word starting with a base name after
    # "is conflicting with the" (target framework, base image, default environment), so a NuGet
    # build error, a Docker build failure and a failed deploy were read as branch_divergence.
    assert_not_read("devflow", "merge-conflict", [
        "Build failed: the version pinned in this branch is conflicting with the target framework.\n"
        "error NU1202: Package Foo 2.0.0 is not compatible with net6.0",
    ], bucket="compile")
    assert_not_read("devflow", "merge-conflict", [
        "The Dockerfile in this PR is conflicting with the base image: ERROR: failed to solve: process "
        "\"/bin/sh -c apt-get install -y python3.12\" did not complete successfully: exit code: 100",
        "Deploy failed: this branch is conflicting with the default environment variables; DATABASE_URL is not set",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "merge-conflict", [
        "**One thing blocks the merge: the branch is CONFLICTING against current `main`.** These are real code conflicts",
        "this branch is still conflicting against main",
        "branch is conflicting with origin/develop.",
    ], bucket="branch_divergence")


def test_branch_conflicting_with_remote_ref_name_is_not_a_content_conflict():
    # branch-conflicts-with-remote-tracking-base used to read any "branch ... conflicts with origin/x",
    # so a fetch whose ref names clash (git's `cannot lock ref ... exists`, fixed by `git remote prune`)
    # was read as branch_divergence.
    assert_not_read("devflow", "merge-conflict", [
        "git fetch fails because my branch name conflicts with origin/feature/login:\n"
        "error: cannot lock ref 'refs/remotes/origin/feature/login': 'refs/remotes/origin/feature' exists; "
        "cannot create 'refs/remotes/origin/feature/login'",
        "error: some local refs could not be updated; try running\n"
        " 'git remote prune origin' to remove any old, conflicting branches\n"
        "the branch feature/x conflicts with origin/feature",
    ], not_bucket="branch_divergence")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "merge-conflict", [
        "When `worktree create` reuses an existing worktree whose branch conflicts with `origin/$DEFAULT_BRANCH`, "
        "the helper runs rebase, immediately aborts it on conflict",
    ], bucket="branch_divergence")


def test_commits_behind_dev_environment_is_a_deploy_lag_not_a_stale_branch():
    # behind-base-forge-wording's new dev/develop/trunk bases used to match "dev" as an environment
    # (a dev environment, production lagging dev), so failed deploys were read as branch_divergence.
    assert_not_read("devflow", "behind-base", [
        "Deploy to production failed: health check timed out after 300s. production is 42 commits behind dev",
        "Staging is 12 commits behind dev environment; container exited with code 137 (OOMKilled)",
        "the preview deployment is 3 commits behind the dev deployment: Error: The deployment failed: 502 Bad Gateway",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "behind-base", [
        "$ git rev-parse origin/main\n39c63e8465b8d9b3c9cefeca231b2151535ba009            # 16 days old, 426 commits behind dev",
        "feature/x is 14 commits behind develop.",
        "worktree base origin/main, 30 commits behind trunk",
    ], bucket="branch_divergence")


def test_fast_forward_failing_on_a_lock_network_or_missing_git_is_not_a_stale_base():
    # stack-tool-trunk-failed-to-fast-forward vetoed `could not lock` but not git's `cannot lock ref`,
    # nor ssh time-outs or a missing git, so those were read as branch_divergence.
    assert_not_read("devflow", "cannot-fast-forward", [
        "⚠ Failed to fast-forward main: failed to run git: error: cannot lock ref 'refs/heads/main': "
        "Unable to create '/repo/.git/refs/heads/main.lock': File exists.",
    ], not_bucket="branch_divergence")
    assert_not_read("devflow", "cannot-fast-forward", [
        "⚠ Failed to fast-forward main: failed to run git: ssh: connect to host github.com port 22: "
        "Connection timed out\nfatal: the remote end hung up unexpectedly",
        "Failed to fast-forward master: exec: \"git\": executable file not found in $PATH",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "cannot-fast-forward", [
        "⚠ Failed to fast-forward master: failed to run git: fatal: cannot force update the branch "
        "'master' used by worktree at 'XXX'",
    ], bucket="branch_divergence")


def test_zed_language_server_download_failing_on_network_or_disk_is_infra():
    # editor-lsp-plugin-server-start-failed used to read any Zed `Failed to start language server "x":
    # from extension`, so a server download cut by the network or a full disk was read as plugin_startup.
    assert_not_read("devflow", "plugin-init-error", [
        "2026-05-02T18:32:32 ERROR [project::lsp_store] Failed to start language server \"rust-analyzer\": "
        "from extension \"Rust\" version 0.1.0: failed to download: error sending request for url "
        "(https://github.com/rust-lang/rust-analyzer/releases): connection error: Connection reset by peer",
        "ERROR [project::lsp_store] Failed to start language server \"pyright\": from extension \"Python\" "
        "version 0.2.0: npm ERR! code ENOSPC\nnpm ERR! syscall write\nnpm ERR! errno -28 no space left on device",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "plugin-init-error", [
        "LSP: failed to start language server: No such file or directory (os error 2): pylsp",
        "ERROR [project::lsp_store] Failed to start language server \"ansible\": from extension \"Ansible\" "
        "version 0.2.0: installed package '@ansible/ansible-language-server' did not contain expected path "
        "'node_modules/@ansible/ansible-language-server/bin/ansible-language-server'",
    ], bucket="plugin_startup")


def test_void_transient_in_a_ci_step_or_buttercup_run_is_not_a_plugin_load():
    # emacs-package-needs-newer-transient vetoed ERT and byte-compile output but not a CI step's exit
    # or buttercup's tally, so a package's own CI compile was read as plugin_startup (not infra) and a
    # failing buttercup spec as plugin_startup (not test).
    assert_not_read("devflow", "plugin-init-error", [
        "Run eask compile\nCompiling /home/runner/work/foo/foo/foo.el...\n"
        "Error: Symbol's function definition is void: transient-define-prefix\n"
        "##[error]Process completed with exit code 1.",
    ], bucket="infra")
    assert_not_read("devflow", "plugin-init-error", [
        "Error: void-function (transient-prefix)\nRan 4 specs, 1 failed, in 0.3 seconds.",
    ], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "plugin-init-error", [
        "Warning (initialization): An error occurred while booting Doom Emacs:\n\n"
        "Symbol's function definition is void: transient-prefix",
        "Error loading autoloads: (void-function transient-prefix)",
    ], bucket="plugin_startup")


def test_vim_plug_hook_failing_on_network_or_disk_is_infra():
    # vim-plug-post-update-hook-failed used to read any `x Post-update hook for X ...`, so a hook that
    # could not reach the network or ran out of disk was read as plugin_startup.
    assert_not_read("devflow", "plugin-init-error", [
        "x Post-update hook for LanguageClient-neovim ... curl: (6) Could not resolve host: github.com",
        "x Post-update hook for markdown-preview.nvim ... npm ERR! code ENOSPC no space left on device",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "plugin-init-error", [
        "x Post-update hook for avante.nvim ... Vim:E492: Not an editor command: AvanteBuild",
    ], bucket="plugin_startup")


def test_newline_submits_needs_an_agent_or_prompt_beside_it():
    # pasted-newline-submits-prompt used to read "every line is submitted separately",
    # "newlines as Enter key" and "multi-line messages ... arrive chopped" with nothing around
    # them, so a SQL console paste, a serial console and a chat bot were read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "Pasting a multi-line query into the psql console, every line is submitted separately and the migration tests fail.",
        "Multi-line messages posted by the release bot arrive chopped in the Slack channel; the notification test fails.",
        "Our IRC bridge: each newline submits a separate line sent to the channel, and the integration test fails.",
        "In the web terminal every newline submits the command sent to the remote shell, so the e2e spec fails.",
    ], bucket="test")
    assert_not_read("devflow", "prompt-handoff-failed", [
        "The serial console receives newlines as Enter key events, so the deploy to the board failed halfway.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "Multi-line messages typed into agent TUIs arrive chopped - every newline submits",
        "First newline submits immediately and only the part before the newline is sent to codex.",
        "the agent receives it chopped into fragments — every line is submitted separately",
        "Multiline paste into child TUI is emitted as Enter-separated input despite DECSET 2004",
        "Claude Code's TUI receives line endings as ordinary Enter/CR key events.",
    ], bucket="prompt_delivery")


def test_garbled_non_ascii_input_is_a_prompt_only_in_a_prompt_or_on_the_agents_side():
    # non-ascii-prompt-replaced-on-submit used to read any "input" or "chat" field and any text
    # "typed correctly but arrives as question marks", so a web app's form under test was read
    # as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "Cyrillic characters are replaced with ? when submitted in the chat input of our web app; the i18n e2e spec fails on the staging build.",
        "Japanese text is turned into mojibake when typed into the input box of the form; the Playwright test for the signup page fails.",
        "The name is typed correctly but arrives as question marks in the CSV export; the export test fails.",
    ], bucket="test")
    # a Chinese UI test's search box (测试, 用例) is not a prompt either
    assert_not_read("devflow", "prompt-handoff-failed", [
        "Selenium 自动化测试：在搜索框输入中文后变乱码，用例失败",
    ], not_bucket="prompt_delivery")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "Non-ASCII characters (e.g. Cyrillic) are replaced with ? when submitted in the prompt field. The text is typed correctly but arrives as question marks on Claude's side.",
        "The text is typed correctly but arrives as question marks on Claude's side.",
        "输入中文后变乱码",
    ], bucket="prompt_delivery")


def test_prompt_syntax_error_must_be_the_shells():
    # prompt-parsed-as-shell-syntax used to read any "syntax error ... when the prompt contains
    # an apostrophe", so an app's SQL error under its tests was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "Saving a template fails with a SQL syntax error when the prompt contains an apostrophe; the test for the prompt library fails.",
        "Unexpected EOF while parsing the JSON body when the prompt contains backticks, so the request builder spec fails.",
    ], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "ralph-loop: shell parse error when prompt contains metacharacters",
        "zsh: bad substitution when the prompt contains a dollar sign",
    ], bucket="prompt_delivery")


def test_enter_not_pressed_needs_a_tmux_pane_agent_or_tui():
    # typed-prompt-never-submitted used to accept any "session", so a UI test that typed a
    # chat message without pressing Enter was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "The test types the message into the chat session but the Enter key is not sent, so the spec fails.",
    ], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "the prompt message is delivered to the tmux session but the enter key is not pressed",
        "The instruction is pasted into the agent pane but the Return key was never sent.",
    ], bucket="prompt_delivery")


def test_prompt_losing_its_head_needs_the_agent_it_went_to():
    # injected-prompt-lost-its-head used to read any long or pasted prompt that lost its
    # beginning, so a web chat textarea under test was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "Long pasted prompts lose their beginning in our web chat textarea (maxlength), the e2e test fails.",
    ], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "Long injected prompts can lose their prefix in Claude Code on macOS",
        "Pasted prompts lose their first half when sent to the agent through tmux.",
    ], bucket="prompt_delivery")


def test_laravel_ai_tool_approval_mismatch_is_not_an_approval_test():
    # approval-test-mismatch used to read any `ApprovalMismatchException` / `ApprovalMissingException`,
    # so Laravel AI's tool-approval error was read as test.
    assert_not_read("devflow", "test-failed", [
        "Tool call failed: Laravel\\Ai\\Exceptions\\ApprovalMismatchException: "
        "Approval decisions include already-resolved tool call ids.",
    ], bucket="prompt_delivery")
    assert_not_read("devflow", "test-failed", [
        "   Laravel\\Ai\\Exceptions\\ApprovalMismatchException \n\n"
        "  Approval decisions do not match the pending tool calls.\n\n"
        "  at vendor/laravel/ai/src/Gateway/TextGenerationLoop.php:412",
        "[2026-03-02 10:14:55] production.ERROR: The pending tool calls have already been resumed "
        "or are being resumed. {\"exception\":\"[object] (Laravel\\\\Ai\\\\Exceptions\\\\ApprovalMismatchException(code: 0): "
        "The pending tool calls have already been resumed or are being resumed. at "
        "/var/www/vendor/laravel/ai/src/Middleware/RememberConversation.php:61)\"}",
    ], not_bucket="test")
    # positive control: ApprovalTests' own exceptions are still read
    assert_read("devflow", "test-failed", [
        "ApprovalTests.Core.Exceptions.ApprovalMismatchException : Failed Approval: Received file "
        "C:\\src\\Tests\\ReportTests.Render.received.txt does not match approved file "
        "C:\\src\\Tests\\ReportTests.Render.approved.txt.",
        "ApprovalMismatchException : Failed Approval: Received file /src/T.received.txt does not match "
        "approved file /src/T.approved.txt.",
        "ApprovalTests.Core.Exceptions.ApprovalMissingException : Failed Approval: Approval File "
        "\"/workspace/tests/IntegrationTest.approved.xml\" Not Found.",
    ], bucket="test")


def test_docs_reference_to_hypothesis_unsatisfiable_is_not_a_test():
    # property-test-gave-up used to read a bare `hypothesis.errors.Unsatisfiable`,
    # so a Sphinx docs build's unresolved reference to it was read as test.
    assert_not_read("devflow", "test-failed", [
        "Warning: /home/runner/work/proj/docs/api.rst:12: WARNING: py:exc reference target not found: "
        "hypothesis.errors.Unsatisfiable\nError: Process completed with exit code 2.",
    ], bucket="infra")
    # positive control: Hypothesis raising it is still read
    assert_read("devflow", "test-failed", [
        "E   hypothesis.errors.Unsatisfiable: Unable to satisfy assumptions of test_roundtrip",
        "FAILED tests/test_codec.py::test_roundtrip - hypothesis.errors.Unsatisfiable: "
        "Could not find any valid examples in 100 tries",
    ], bucket="test")


DOCKER_GATEWAY_PANIC = (
    "2025-07-07T23:27:21.996Z [MCP_DOCKER] [info] Initializing server... { metadata: undefined }\n"
    "2025-07-07T23:27:22.103Z [MCP_DOCKER] [info] Server started and connected successfully { metadata: undefined }\n"
    "panic: unable to get 'ProgramData' [recovered]\n"
    "\tpanic: unable to get 'ProgramData'"
)


def test_server_init_panic_needs_the_clients_log_tag():
    # server-init-panic used to read any "Initializing server..." followed by a Go panic, so a
    # project's own program run by an agent (`go run ./cmd/api` panicking on a missing config
    # file, in a transcript that merely names an mcp__ tool) was read as mcp_startup.
    assert_not_read("devflow", "server-init-panic", [
        "● Bash(go run ./cmd/api)\n"
        "  ⎿  Error: exit status 2\n"
        "     2025/06/10 10:00:01 Initializing server...\n"
        "     panic: open config/app.yaml: no such file or directory\n"
        "\n"
        "     goroutine 1 [running]:\n"
        "     main.main()\n"
        "\t     /home/dev/shop/cmd/api/main.go:27 +0x1f4\n"
        "● The server panics because config/app.yaml is missing. "
        "Let me check with mcp__filesystem__list_directory.",
        "$ go run ./cmd/server\n"
        "INFO[0000] Initializing server...\n"
        "panic: listen tcp :8080: bind: address already in use\n"
        "\n"
        "goroutine 1 [running]:\n"
        "main.main()\n"
        "\t/src/mcp-demo-web/cmd/server/main.go:33 +0x2a5",
    ], not_bucket="mcp_startup")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "server-init-panic", [
        DOCKER_GATEWAY_PANIC,
        "2025-08-01T10:00:00.000Z [info] [MCP_DOCKER] Initializing server...\n"
        "panic: unable to get 'ProgramData'",
    ], bucket="mcp_startup")


def test_server_init_panic_stands_down_for_a_panic_inside_a_tool_call():
    # server-init-panic used to read a panic a few lines after Claude Desktop's
    # "Initializing server...", even when the client had already sent a tools/call to the
    # started server, so a Go MCP server crashing inside a tool was read as mcp_startup.
    assert_not_read("devflow", "server-init-panic", [
        "2025-06-10T09:12:01.101Z [github] [info] Initializing server...\n"
        "2025-06-10T09:12:01.180Z [github] [info] Server started and connected successfully\n"
        '2025-06-10T09:12:05.442Z [github] [info] Message from client: {"method":"tools/call",'
        '"params":{"name":"get_file_contents","arguments":{"owner":"acme","repo":"api",'
        '"path":"README.md"}},"jsonrpc":"2.0","id":7}\n'
        "panic: runtime error: invalid memory address or nil pointer dereference\n"
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x8f2a1c]\n"
        "goroutine 42 [running]:\n"
        "github.com/github/github-mcp-server/pkg/github.GetFileContents.func1",
        "[info] [mcp-k8s] Initializing server...\n"
        "[info] [mcp-k8s] Server started and connected successfully\n"
        '[info] [mcp-k8s] Message from client: {"method":"tools/call","params":{"name":"list_pods",'
        '"arguments":{"namespace":"default"}},"jsonrpc":"2.0","id":3}\n'
        "panic: runtime error: index out of range [0] with length 0\n"
        "\n"
        "goroutine 17 [running]:\n"
        "main.listPods(...)",
    ], not_bucket="mcp_startup")
    # positive control: the rule's own wording is still read, "Server started and connected
    # successfully" before the panic included
    assert_read("devflow", "server-init-panic", [DOCKER_GATEWAY_PANIC], bucket="mcp_startup")


JEST_PR_CONFLICTS_TYPEERROR = """  ● PR conflicts › labels the pull request when mergeable is false

    TypeError: Cannot read properties of undefined (reading 'data')

      41 |   const { data: pr } = await octokit.rest.pulls.get(params);
    > 42 |   if (pr.mergeable === false) {

      at Object.<anonymous> (test/conflicts.test.ts:42:12)

Test Suites: 1 failed, 3 passed, 4 total
Tests:       1 failed, 18 passed, 19 total"""


JEST_PR_CONFLICTS_CALLS = """  ● PR conflicts › adds the conflict label

    expect(jest.fn()).toHaveBeenCalledTimes(expected)

    Expected number of calls: 1
    Received number of calls: 0

Tests:       1 failed, 12 passed, 13 total"""


MOCHA_PR_CONFLICTS = """  1) PR conflicts
       should comment on the pull request:
     TypeError: Cannot read properties of undefined (reading 'number')
      at Context.<anonymous> (test/pr.spec.js:22:31)

  14 passing (120ms)
  1 failing"""


LABEL_ACTION_PERMISSION = """Run eps1lon/actions-label-merge-conflict@v3
Error: Resource not accessible by integration while labeling PR conflicts
Error: HttpError: Resource not accessible by integration"""


DEPENDABOT_AZURE_PR_CONFLICTS = """# Not updating to resolve existing PR's conflicts
I have one pipeline with mulitple stages (for each repository a stage) to run dependabot. It works great only when for example Angular updates multiple PRs are created. After completing one the process very often halts because there getting conflicts in package.json (same for nuget)."""


def test_pull_request_conflicts_words_need_a_resolving_verb():
    # pull-request-conflicts-words used to read any "PR conflicts" / "pull request conflicts", so a
    # Jest or Mocha suite named "PR conflicts" that failed was read as branch_divergence (and a
    # conflict-labeling action's permission error as branch_divergence instead of infra).
    assert_not_read("devflow", "merge-conflict",
                    [JEST_PR_CONFLICTS_TYPEERROR, JEST_PR_CONFLICTS_CALLS, MOCHA_PR_CONFLICTS], bucket="test")
    assert_not_read("devflow", "merge-conflict", [LABEL_ACTION_PERMISSION], bucket="infra")
    assert_not_read("devflow", "merge-conflict",
                    ["This PR conflicts with the project's coding guidelines: please don't use tabs"],
                    not_bucket="branch_divergence")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "merge-conflict",
                [DEPENDABOT_AZURE_PR_CONFLICTS, "Please rebase onto main to resolve the pull request conflicts."],
                bucket="branch_divergence")


BITBUCKET_TEST_FAILURE = """  Failed BitbucketClientTests.MergePullRequestAsync_WhenConflict_ReturnsError [12 ms]
  Error Message:
   Expected result.Error to be BitbucketError.PullRequestMergeConflict, but found BitbucketError.Unknown.
  Stack Trace:
     at BitbucketClientTests.MergePullRequestAsync_WhenConflict_ReturnsError() in /src/tests/BitbucketClientTests.cs:line 212

Failed!  - Failed:     1, Passed:    57, Skipped:     0, Total:    58, Duration: 2 s"""


PYTEST_DOCSTRING_FAILURE = """_________________________ test_merge_conflict_raises __________________________

repo = GitManager(repo_root=PosixPath('/tmp/pytest-of-ci/pytest-0/test_merge0'))

    def test_merge_conflict_raises(repo):
        \"\"\"When the git merge results in conflicts, MergeConflictError is raised.\"\"\"
        make_conflicting_branches(repo)
>       with pytest.raises(MergeConflictError):
E       Failed: DID NOT RAISE <class 'gitops.errors.MergeConflictError'>

tests/test_git_manager.py:41: Failed
=========================== short test summary info ============================
FAILED tests/test_git_manager.py::test_merge_conflict_raises - Failed: DID NOT RAISE <class 'gitops.errors.MergeConflictError'>
1 failed, 23 passed in 1.92s"""


TS_IDENTIFIER_COMPILE_ERROR = """src/services/pull-request-merge-service.test.ts(3,10): error TS2305: Module '"./pull-request-merge-service"' has no exported member 'PullRequestMergeConflictError'."""


CS_IDENTIFIER_COMPILE_ERROR = """src/Git/BranchActualizer.cs(14,24): error CS0246: The type or namespace name 'PullRequestMergeConflict' could not be found (are you missing a using directive or an assembly reference?)"""


DOCS_BUILD_MERGE_CONFLICT = """### :x: Validation status: errors
 - **[Error]** Cannot sync git repo to specified state. Please make sure the pull request is mergeable. Details: Git merge results in conflict, repository remote url: https://github.com/Azure/azure-docs-sdk-dotnet, working directory: W:\\fjee-s, target branch: master, target branch commit: f40246f9271a1bdd4cf53bb8a20ef0bd1f6edc46, source branch: 887dbcc04c6ceff76a50289d8f6f708d/master, source branch commit: ."""


def test_forge_merge_api_conflict_needs_the_build_service_prefixes():
    # forge-merge-api-conflict used to read any "pullrequestmergeconflict" or "git merge results in
    # conflict", so a test asserting BitbucketError.PullRequestMergeConflict, a pytest traceback with a
    # docstring about merge conflicts, or a compile error naming PullRequestMergeConflictError was read
    # as branch_divergence.
    assert_not_read("devflow", "merge-conflict", [BITBUCKET_TEST_FAILURE, PYTEST_DOCSTRING_FAILURE], bucket="test")
    assert_not_read("devflow", "merge-conflict", [TS_IDENTIFIER_COMPILE_ERROR, CS_IDENTIFIER_COMPILE_ERROR], bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "merge-conflict",
                [DOCS_BUILD_MERGE_CONFLICT,
                 "Build failed: Error-PullRequestMergeConflict: the pull request could not be merged into its target branch."],
                bucket="branch_divergence")


def test_waiting_for_a_terminal_prompt_is_not_a_prompt_lost_on_its_way_to_an_agent():
    # prompt-never-reached-agent used to read any "prompt that never arrives" and any "child/Pi
    # never gets a prompt", so a pexpect test or a release step hanging on a password or OTP
    # prompt (a terminal's prompt, not an agent's) was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "pexpect test fails: test_login waits for a prompt that never arrives and raises pexpect.exceptions.TIMEOUT",
    ], bucket="test")
    assert_not_read("devflow", "prompt-handoff-failed", [
        "The release step hangs on an npm OTP prompt that never arrives in the non-interactive runner, and the deploy fails",
        "When stdin is not a TTY, the child never receives the prompt from sudo and the install step fails with exit status 1",
        "The Pi never gets a prompt on the serial console after flashing, so the provisioning step failed.",
    ], bucket="infra")
    assert_not_read("devflow", "prompt-handoff-failed", [
        "The deploy script hangs waiting for a password prompt that never arrives; the SSH step times out after 10 minutes.",
    ], not_bucket="prompt_delivery")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "`agent prompt` can acknowledge a long multiline prompt that never reaches Pi",
        "`omh coding hermes-child dispatch` completes (exit 0), but the child Hermes never receives the prompt: it replies with a generic greeting.",
        "Any content piped into `hermes -z` is silently discarded — the agent only ever sees the literal `PROMPT` string",
    ], bucket="prompt_delivery")


def test_pty_context_is_not_found_inside_the_word_empty():
    # typed-prompt-appears-but-not-submitted took "pty" as its context word, which "empty" holds,
    # so a chat app's e2e test whose message sits in the composer was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "E2E test fails: the message appears in the composer but is never sent, and the conversation list stays empty.",
        "Cypress spec failed: the text appears in the input field but is not submitted; the results table is empty",
    ], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "tmux send-keys uses 'Enter' instead of 'C-m' in agent-runtime.ts.\n3. The text appears in the input but is never submitted",
    ], bucket="prompt_delivery")


def test_enter_not_registered_needs_tmux_or_send_keys():
    # typed-prompt-enter-not-submitting read an Enter "not registered in the TUI" of any program,
    # so an installer's TUI on Windows Terminal failing a setup step was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "On Windows Terminal, the Enter key is not registered in the TUI of the installer; the setup step failed with exit status 1",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "WHen i use either tmux-cli's send or tmux's send-keys with Enter, there seems to be some timing issue. causing the Enter not to be registered on the other pane.",
    ], bucket="prompt_delivery")


def test_a_ci_or_ssh_agent_is_not_an_agent_tui():
    # agent-tui-ignores-send-keys took the bare word "agent", so a Jenkins build agent or ssh-agent
    # whose tmux-driven tests broke was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "On the Jenkins build agent, our integration tests that use tmux send-keys stopped working after the tmux 3.4 upgrade; 3 tests fail",
        "The ssh-agent forwarding test: tmux send-keys is ignored in the nested session and the spec fails",
    ], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "After interrupting a multi-line input with Esc, Esc in Claude Code running inside tmux, `tmux send-keys -l` stops working for that pane.",
    ], bucket="prompt_delivery")


def test_a_web_prompt_swallowing_enter_is_not_a_paste_into_an_agent():
    # multiline-paste-submits-first-line anchored its absorbed Enter on any "prompt", so a web UI's
    # search prompt that eats the Enter under an e2e test was read as prompt_delivery.
    assert_not_read("devflow", "prompt-handoff-failed", [
        "The search prompt in the web UI swallows the Enter key instead of submitting the form; the e2e test fails",
    ], bucket="test")
    assert_not_read("devflow", "prompt-handoff-failed", [
        "When the autocomplete prompt is open, the dialog eats the Enter instead of submitting, so test_search_submit fails",
    ], not_bucket="prompt_delivery")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "prompt-handoff-failed", [
        "Long prompts pasted into the claude-code REPL via `tmux paste-buffer` arrived without bracketed-paste escape codes, so claude's TUI read them across multiple terminal reads, producing several `[Pasted text +N lines]` blocks for one message and absorbing the trailing Enter instead of submitting.",
    ], bucket="prompt_delivery")


def test_artifact_upload_after_a_lint_import_or_coverage_failure_leaves_it_to_that_failure():
    # the ci-artifact-store-failed route stepped aside only for compiler diagnostics and some test
    # signals, so a job that failed on ESLint errors, a pytest collection ImportError or a coverage
    # threshold and then failed to upload its artifacts (`when: always`) was read as infra.
    # (The route is narrowed; its signal still fires on the upload line.)
    assert_lands("devflow", [
        "$ npx eslint .\n/builds/app/src/index.js\n  12:5  error  'foo' is not defined  no-undef\n\n✖ 1 problem (1 error, 0 warnings)\n\nUploading artifacts for failed job\nWARNING: Uploading artifacts as \"junit\" to coordinator... failed  id=116 responseStatus=500 Internal Server Error\nERROR: Job failed: exit code 1",
        "==================================== ERRORS ====================================\n___________________ ERROR collecting tests/test_api.py ___________________\nImportError while importing test module '/builds/app/tests/test_api.py'.\nE   ModuleNotFoundError: No module named 'requests'\n=========================== 1 error in 0.12s ===========================\nUploading artifacts for failed job\nWARNING: Uploading artifacts as \"junit\" to coordinator... failed  id=5 responseStatus=500 Internal Server Error\nERROR: Job failed: exit code 2",
        "Run actions/upload-artifact@v3\nA 503 status code has been received, will attempt to retry the upload\nArtifact playwright-report has been successfully uploaded!\nRun npm run lint\n✖ 3 problems (3 errors, 0 warnings)\nError: Process completed with exit code 1.",
    ], bucket="compile")
    assert_lands("devflow", [
        "$ pytest --cov=app --cov-fail-under=90\nFAIL Required test coverage of 90% not reached. Total coverage: 84.12%\nUploading artifacts for failed job\nERROR: Uploading artifacts as \"archive\" to coordinator... too large archive  id=996 responseStatus=413 Request Entity Too Large\nERROR: Job failed: exit code 1",
    ], bucket="test")
    # positive control: the tools' own upload failures are still read
    assert_read("devflow", "ci-artifact-store-failed", [
        "ERROR: Uploading artifacts to coordinator... too large archive  id=996 responseStatus=413 Request Entity Too Large\nFATAL: Too large\nERROR: Job failed: exit code 1",
        "Uploading artifacts...\n3.4M\tartifacts.tgz\ncurl: (22) The requested URL returned error: 500 Internal Server Error\n\nERROR: Build failed with: exit status 1",
    ], bucket="infra")


NOMAD_OWN = "Error getting job struct: error parsing 'job': only one 'job' block allowed"


def test_nomad_job_file_not_found_is_not_a_parse_error():
    # nomad-jobspec-parse-error used to read any `Error parsing job file x: ...`, so a job file
    # that does not exist at the given path was read as compile (a jobspec parse error).
    assert_not_read("devflow", "compile-diagnostic", [
        "Error parsing job file example.nomad: open example.nomad: no such file or directory",
        "Error getting job struct: Error parsing job file from example.nomad: open example.nomad: no such file or directory",
        "Error parsing job file jobs\\web.nomad: open jobs\\web.nomad: The system cannot find the file specified.",
        # a run without -var for a required input (the job file is fine; Terraform's twin is left out too)
        """Error getting job struct: Error parsing job file from example.nomad:
example.nomad:3,1-20: Missing required variable; No value for required variable "datacenter" is set""",
    ], not_bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "compile-diagnostic", [NOMAD_OWN], bucket="compile")


NODE_OWN = """/usr/local/lib/node_modules/aws-cdk/lib/index.js:12322
return process.env.CDK_HOME ? path.resolve(process.env.CDK_HOME) : path.join((os.userInfo().homedir ?? os.homedir()).trim() || "/", ".cdk");

SyntaxError: Unexpected token '?'
    at wrapSafe (internal/modules/cjs/loader.js:915:16)"""


def test_typescript_source_run_by_node_is_not_node_too_old():
    # node-too-old-for-syntax used to fire on any ?? or ?. above `Unexpected token '?'`, so
    # TypeScript source run by plain Node (an optional parameter `user?: User` on the line) was
    # read as infra (toolchain-version-mismatch) instead of compile.
    assert_not_read("devflow", "toolchain-version-mismatch", [
        """/app/src/utils.ts:4
function getName(user?: User) { return user?.name ?? 'anon'; }
                     ^

SyntaxError: Unexpected token '?'
    at wrapSafe (internal/modules/cjs/loader.js:979:16)
    at Module._compile (internal/modules/cjs/loader.js:1027:27)""",
        """What am I doing wrong??
function greet(name?: string) {
                   ^
SyntaxError: Unexpected token '?'""",
    ], bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "toolchain-version-mismatch", [NODE_OWN], bucket="infra")


TF_OWN = """│ Error: Argument or block definition required
│
│   on main.tf line 12:
│   12: resource "aws_s3_bucket" "b" {} x
│
│ An argument or block definition is required here."""


def test_terraform_conflict_markers_are_not_a_config_error():
    # terraform-static-config-error's new HCL parser summaries read the error Terraform prints for
    # a merge-conflict marker left in a .tf or lock file, so a merge conflict was read as compile.
    assert_not_read("devflow", "compile-diagnostic", [
        """│ Error: Argument or block definition required
│
│   on main.tf line 12:
│   12: <<<<<<< HEAD
│
│ An argument or block definition is required here.""",
        """Error: Argument or block definition required

  on .terraform.lock.hcl line 9:
   9: >>>>>>> feature/vpc

An argument or block definition is required here.""",
    ], not_bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "compile-diagnostic", [TF_OWN], bucket="compile")


def test_landed_parent_needs_the_replay_not_a_build_still_failing():
    # stack-parent-revision-already-landed used to take any `still` ... `applying` after a landed
    # parent, so a child whose build still fails after applying a fix was read as branch_divergence.
    assert_not_read("devflow", "needs-rebase", [
        "The parent revision has already landed, but the build still fails after applying the fix:\n"
        "llvm/lib/Foo.cpp:12:5: error: use of undeclared identifier 'bar'",
        "Backport request: apply the already landed patch D5555 to release/17.x; the cherry-pick builds but fails with\n"
        "llvm/lib/Foo.cpp:12:5: error: use of undeclared identifier 'bar'",
    ], bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "needs-rebase", [
        "If the dependent patch has already been landed, the pre-merge check still try to apply that patch which cause the build failure.",
        "Issue with build for D70771 (244908): Apply the already landed patch",
    ], bucket="branch_divergence")


def test_someone_else_checked_in_meantime_needs_the_submit_refused():
    # vcs-submit-refused-branch-moved-by-someone-else used to read `someone else checked in to the branch
    # in the meantime` on its own, so a compile error someone else's check-in caused was read as branch_divergence.
    assert_not_read("devflow", "behind-base", [
        "Someone else checked in to the branch in the meantime and broke the build:\n"
        "Assets/Scripts/Player.cs(42,13): error CS0103: The name 'speed' does not exist in the current context",
    ], bucket="compile")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "behind-base", [
        "Unable to submit if someone else committed to the branch",
        "If I edited some files, and someone else submitted to my branch in the meantime, PlasticSCM will tell me "
        "(Paraphrasing) \"New changes appeared but you can merge them safely  do you want to do that and submit?\"",
    ], bucket="branch_divergence")


def test_spark_submit_merge_issues_is_not_a_checkin_conflict():
    # vcs-checkin-fails-on-merge-issues used to take any `submit` word, so a Spark job's Delta MERGE
    # failure (`spark-submit fails due to merge issues`) was read as branch_divergence.
    assert_not_read("devflow", "merge-conflict", [
        "The nightly spark-submit fails due to merge issues: org.apache.spark.sql.delta.DeltaUnsupportedOperationException: "
        "Cannot perform Merge as multiple source rows matched and attempted to modify the same target row in the Delta table "
        "in possibly conflicting ways.",
    ], not_bucket="branch_divergence")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "merge-conflict", [
        "If a check-in to the server fails due to merge issues, then the check-in should fail with the reported message "
        "(\"need to resolve differences\").",
    ], bucket="branch_divergence")


def test_elpaca_ert_run_of_recipe_error_is_a_test():
    # emacs-package-manager-no-recipe vetoed buttercup's summary but not ERT's, so an ERT run of
    # elpaca's own tests asserting the recipe error was read as plugin_startup.
    assert_not_read("devflow", "plugin-not-found", [
        "Running 9 tests (2026-01-08 13:56:46+0100, selector `t')\n"
        "Test elpaca-test-recipe-url condition:\n"
        "    (error \"Unable to determine recipe URL\")\n"
        "   FAILED  3/9  elpaca-test-recipe-url (0.000412 sec) at test/elpaca-test.el:42\n"
        "Ran 9 tests, 8 results as expected, 1 unexpected (2026-01-08 13:56:47+0100, 0.2 sec)",
    ], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "plugin-not-found", [
        "[2026-01-08 13:56:46] Unable to determine repo dir: (error \"Cannot determine URL from recipe: (:source nil "
        ":protocol https :inherit t :depth treeless :package \\\"dag-draw\\\")\")",
    ], bucket="plugin_startup")


def test_tycho_test_runtime_unresolved_bundle_is_not_a_plugin_start():
    # osgi-bundle-unresolved-requirement vetoed Surefire's tally but not Tycho's test runtime, so a
    # test bundle Tycho could not resolve (`No tests found.`) was read as plugin_startup.
    assert_not_read("devflow", "plugin-init-error", [
        "[INFO] --- tycho-surefire-plugin:2.7.5:test (default-test) @ com.example.core.tests ---\n"
        "!MESSAGE Could not resolve module: com.example.core.tests [12]\n"
        "  Unresolved requirement: Import-Package: org.junit.jupiter.api; version=\"5.9.0\"\n"
        "[ERROR] Failed to execute goal org.eclipse.tycho:tycho-surefire-plugin:2.7.5:test (default-test) on project "
        "com.example.core.tests: No tests found.\n"
        "[INFO] BUILD FAILURE",
    ], not_bucket="plugin_startup")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "plugin-init-error", [
        "org.osgi.framework.BundleException: Could not resolve module: fr.kazejiyu.discord.rpc.integration.ui.preferences [483]\n"
        "  Unresolved requirement: Require-Bundle: fr.kazejiyu.discord.rpc.integration; bundle-version=\"0.8.3\"",
    ], bucket="plugin_startup")


VALIDATOR_WARNING_BESIDE_TS_ERROR = (
    "warning: osv-scanner detected low severity issues\n"
    "detail: osv-scanner detected 1 unique low severity issues for lockfile: /tmp/validator123/yarn.lock\n"
    "error: Plugin build failed\n"
    "src/datasource.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.")


VALIDATOR_WARNING_BESIDE_TEST_FAILURE = (
    "Run npx @grafana/plugin-validator\n"
    "warning: osv-scanner detected low severity issues\n"
    "FAIL src/components/QueryEditor.test.tsx\n"
    "  \u25cf QueryEditor \u203a renders\n"
    "    TypeError: Cannot read properties of undefined (reading 'refId')\n"
    "Tests: 1 failed, 12 passed, 13 total")


def test_osv_scanner_validator_warnings_leave_the_real_failure_alone():
    # osv-scanner-severity-issues used to read any labelled line, so the plugin validator's
    # non-failing `warning: osv-scanner detected low severity issues` (and its `detail:` line)
    # beside a TypeScript error or a failing Jest suite was read as trust_gate.
    assert_not_read("devflow", "vulnerability-found", [VALIDATOR_WARNING_BESIDE_TS_ERROR], bucket="compile")
    assert_not_read("devflow", "vulnerability-found", [VALIDATOR_WARNING_BESIDE_TEST_FAILURE], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "vulnerability-found", [
        "error: osv-scanner detected high severity issues\n"
        "detail: osv-scanner detected 2 unique high severity issues for lockfile: /tmp/validator3611935275/yarn.lock",
        "error: osv-scanner detected a critical severity issue\n"
        "detail: SEVERITY: CRITICAL in package immer, vulnerable to CVE-2021-23436",
    ], bucket="trust_gate")


def test_severity_vulnerable_words_need_an_audit_holding_them():
    # severity-vulnerable-versions used to read the bare phrase, so a clean audit beside failing
    # tests, a Dependabot update that hit ERESOLVE and a Renovate PR with merge conflicts were
    # read as trust_gate.
    assert_not_read("devflow", "vulnerability-found", [
        "bun audit found no high-severity vulnerable packages, but the CI still fails:\n"
        "FAIL src/api.test.ts > fetchUser > returns 404\n"
        "Tests  1 failed | 40 passed (41)",
    ], bucket="test")
    assert_not_read("devflow", "vulnerability-found", [
        "Dependabot couldn't update the high severity vulnerable dependencies:\n"
        "npm ERR! code ERESOLVE\n"
        "npm ERR! ERESOLVE unable to resolve dependency tree\n"
        "npm ERR! Could not resolve dependency: peer react@\"^17.0.0\" from react-dom@17.0.2",
        "We upgraded the high-severity vulnerable dependencies and now the build fails:\n"
        "src/index.ts(12,3): error TS2345: Argument of type 'Foo' is not assignable to parameter of type 'Bar'.\n"
        "Found 1 error.",
    ], bucket="compile")
    assert_not_read("devflow", "vulnerability-found", [
        "Renovate: the PR to bump low-severity vulnerable packages has merge conflicts.\n"
        "CONFLICT (content): Merge conflict in package-lock.json\n"
        "Automatic merge failed; fix conflicts and then commit the result.",
    ], bucket="branch_divergence")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "vulnerability-found", [
        "The security workflow is failing on main during bun audit --audit-level=high because the resolved "
        "dependency graph includes high-severity vulnerable versions of transitive packages.",
    ], bucket="trust_gate")


def test_cosign_tlog_words_in_a_failing_go_test_are_the_tests():
    # artifact-signature-unverified's new tlog branches fired inside a Go test's failure, so
    # cosign's own tests expecting the verify-blob error were read as trust_gate.
    assert_not_read("devflow", "signature-verification-failed", [
        "--- FAIL: TestVerifyBlobNoTlog (0.02s)\n"
        "    verify_blob_test.go:88: expected error \"could not find a valid tlog entry for provided blob\", got nil\n"
        "FAIL\n"
        "FAIL\tgithub.com/sigstore/cosign/v2/cmd/cosign/cli/verify\t1.203s",
        "=== RUN   TestVerifyBlob/no_tlog\n"
        "    verify_blob_test.go:120: \n"
        "        Error Trace:\tverify_blob_test.go:120\n"
        "        Error:      \tShould be empty, but was could not find a valid tlog entry for provided blob\n"
        "--- FAIL: TestVerifyBlob (0.31s)",
    ], bucket="test")
    # positive control: the rule's own wording is still read
    assert_read("devflow", "signature-verification-failed", [
        "WARNING: No valid entries were found in rekor to verify this blob.\n"
        "Error: verifying blob [checksums.txt]: could not find a valid tlog entry for provided blob, found 1 invalid entries\n"
        "main.go:62: error during command execution: verifying blob [checksums.txt]: could not find a valid tlog entry "
        "for provided blob, found 1 invalid entries",
        "Verifying artifact constellation-darwin-amd64: FAILED: could not find a matching valid signature entry: "
        "got unexpected errors unexpected tlog entry type, invalid signature: no signature found",
    ], bucket="trust_gate")


def test_language_client_phrases_only_as_a_whole_log_line():
    # language-client-start-failed read a program's own "starting client failed: ..." panic in a
    # failing cargo test, and an Ansible task's "Restarting server failed: Job for ..." as an
    # editor plugin that never started (plugin_startup, whose route outranks test and infra).
    rust_test = (
        "running 3 tests\n"
        "test tests::pull_private_image ... FAILED\n\n"
        "failures:\n\n"
        "---- tests::pull_private_image stdout ----\n"
        "thread 'tests::pull_private_image' panicked at src/lib.rs:12:10:\n"
        "starting client failed: Os { code: 111, kind: ConnectionRefused, message: \"Connection refused\" }\n\n"
        "failures:\n    tests::pull_private_image\n\n"
        "test result: FAILED. 2 passed; 1 failed; 0 ignored\n"
    )
    assert_not_read("devflow", "plugin-init-error", [rust_test], bucket="test")
    ansible = (
        "TASK [app : restart service] ***************************************************\n"
        "fatal: [web01]: FAILED! => {\"changed\": false, \"msg\": \"Restarting server failed: Job for app.service "
        "failed because the control process exited with error code.\"}\n"
        "PLAY RECAP *********************************************************************\n"
        "web01 : ok=12 changed=3 unreachable=0 failed=1\n"
    )
    assert_not_read("devflow", "plugin-init-error", [ansible], not_bucket="plugin_startup")
    assert_read("devflow", "plugin-init-error", [
        "[Info  - 5:08:56 PM] \tfrom /usr/local/bundle/bin/bundle:25:in `<main>'\n"
        "[Error - 5:08:56 PM] Starting client failed\nerror code 1\n",
        "Starting client failed\n  Message: JSON RPC parse error: json: cannot unmarshal number into Go struct field\n  Code: -32700",
        "[Error - 12:58:17 AM] Restarting server failed\n"
        "Failed to initialize Language Support for Java due to Error: Pending response rejected since connection got disposed",
    ], bucket="plugin_startup")


def test_no_basic_auth_credentials_not_read_in_jest_pattern_or_mcp_launch():
    # registry-no-basic-auth-credentials read Jest's toThrow expectation of the phrase
    # ("Expected pattern: /no basic auth credentials/") as a refused pull (infra, ahead of the
    # test route), and a docker-launched MCP server whose private image cannot be pulled as infra,
    # though the same launch refused with the registry's "denied" lands in mcp_startup.
    jest = (
        "  ● registry client › pull › rejects a private image without login\n\n"
        "    expect(received).toThrow(expected)\n\n"
        "    Expected pattern: /no basic auth credentials/\n"
        "    Received message: \"unauthorized: authentication required\"\n\n"
        "Tests:       1 failed, 41 passed, 42 total\n"
    )
    assert_not_read("devflow", "dependency-fetch-refused", [jest], bucket="test")
    mcp = (
        "2025-03-01T10:12:01.201Z [DEBUG] MCP server \"aws-docs\": Starting connection with timeout of 30000ms\n"
        "2025-03-01T10:12:03.554Z [DEBUG] MCP server \"aws-docs\": Server stderr: Unable to find image "
        "'123456789012.dkr.ecr.us-east-1.amazonaws.com/mcp/aws-docs:latest' locally\n"
        "docker: Error response from daemon: Head \"https://123456789012.dkr.ecr.us-east-1.amazonaws.com/v2/mcp/"
        "aws-docs/manifests/latest\": no basic auth credentials.\n"
        "2025-03-01T10:12:03.600Z [ERROR] MCP server \"aws-docs\" Connection failed: MCP error -32000: Connection closed\n"
    )
    assert_not_read("devflow", "dependency-fetch-refused", [mcp], bucket="mcp_startup")
    assert_read("devflow", "dependency-fetch-refused", [
        "Step 1/13 : FROM ************.dkr.ecr.ca-central-1.amazonaws.com/***********\n\n"
        "--10 | time=\"2021-06-10T17:11:46Z\" level=fatal msg=\"Head https://************.dkr.ecr.ca-central-1"
        ".amazonaws.com/v2/************: no basic auth credentials\"",
        "Error response from daemon: Get https://x.dkr.ecr.us-west-2.amazonaws.com/v2/x/manifests/v1.6.3: "
        "no basic auth credentials",
    ], bucket="infra")


def test_kcl_test_failed_assert_is_a_test_not_a_compile_error():
    # kcl-coded-diagnostic read `kcl test`'s failed assert, which KCL reports as an
    # EvaluationError (not AssertionError) at a _test.k position under "test_x: FAIL (3ms)",
    # as a configuration that does not compile (compile, ahead of the test route).
    kcl_test = (
        "$ kcl test ./...\n"
        "test_person: PASS (2ms)\n"
        "test_person_age: FAIL (3ms)\n"
        "error[E3M38]: EvaluationError\n"
        " --> /home/runner/work/config/hello_test.k:7:1\n"
        "  |\n"
        "7 |     assert a.age == 123\n"
        "  |\n"
        "  |\n"
        "--------------------------------------------------------------------------------\n"
        "FAIL: 1/2\n"
    )
    kcl_test_msg = (
        "test_person_age: FAIL (3ms)\n"
        "error[E3M38]: EvaluationError\n"
        " --> hello_test.k:7:1\n"
        "  |\n"
        "7 |     assert a.age == 123, \"age should be 123\"\n"
        "  |  age should be 123\n"
        "  |\n"
    )
    assert_not_read("devflow", "compile-diagnostic", [kcl_test, kcl_test_msg], bucket="test")
    assert_read("devflow", "compile-diagnostic", [
        "$ kcl main.k\n"
        "error[E3M38]: EvaluationError\n"
        " --> /Users/main.k:6:1\n"
        "  |\n"
        "6 | schema_in_main_k = SchemaInMainK(msg='I am the instance of SchemaInMainK')\n"
        "  |  attribute 'msg' of SchemaInMainK is required and can't be None or Undefined\n"
        "  |\n",
    ], bucket="compile")


# Review of devflow's rules added or changed since 7161d6b: each test names messages of another
# bucket that a new rule misread (they must no longer get its signal, and land where they belong)
# and the rule's own wording from its golden cases (still read).


def test_push_race_in_a_test_runs_own_fixture_repository_is_a_test_failure():
    # push-remote-ref-moved read the `! [remote rejected] ... (cannot lock ref ...: is at X but expected Y)`
    # that a failing test printed from its own push into a fixture repository (pytest's
    # CalledProcessError with no assertion words, jest's execa error under `Test Suites: 1 failed`)
    # as the pusher's branch having moved (branch_divergence); the code under test failed.
    assert_not_read("devflow", "cannot-fast-forward", [
        "============================= test session starts ==============================\ncollected 14 items\n\ntests/test_sync.py ....F.........                                        [100%]\n\n=================================== FAILURES ===================================\n___________________________ test_concurrent_sync_pushes ___________________________\n    def test_concurrent_sync_pushes(bare_remote, two_clones):\n>       run_sync(two_clones)\ntests/test_sync.py:88:\nE   subprocess.CalledProcessError: Command '['git', 'push', 'origin', 'main']' returned non-zero exit status 1.\n----------------------------- Captured stderr call -----------------------------\nTo /tmp/pytest-of-runner/pytest-0/remote0/remote.git\n ! [remote rejected] main -> main (cannot lock ref 'refs/heads/main': is at 3f1c2a9d8e7b6a5c4d3e2f1a0b9c8d7e6f5a4b3c but expected 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b)\nerror: failed to push some refs to '/tmp/pytest-of-runner/pytest-0/remote0/remote.git'\n=========================== short test summary info ============================\nFAILED tests/test_sync.py::test_concurrent_sync_pushes - subprocess.CalledProcessError: Command '['git', 'push', 'origin', 'main']' returned non-zero exit status 1.\n========================= 1 failed, 13 passed in 4.21s =========================",
        " FAIL  test/publish.test.ts (12.4 s)\n  ● publish › pushes the release tag and branch\n\n    Command failed with exit code 1: git push --atomic origin main v2.3.0\n    To /tmp/jest-repo-x81Kd/origin.git\n     ! [remote rejected] main -> main (cannot lock ref 'refs/heads/main': is at 5b1d0c7 but expected 8e2f4a1)\n     ! [remote rejected] v2.3.0 -> v2.3.0 (atomic push failure)\n    error: failed to push some refs to '/tmp/jest-repo-x81Kd/origin.git'\n\n      at makeError (node_modules/execa/lib/error.js:60:11)\n\nTest Suites: 1 failed, 11 passed, 12 total\nTests:       1 failed, 37 passed, 38 total\nSnapshots:   0 total\nTime:        31.2 s",
    ], bucket="test")
    assert_read("devflow", "cannot-fast-forward", [
        "Push to branch refs/heads/optimize-strategy-ac\nTo https://github.com/EA31337/EA31337-Lite-optimization-tests.git\n ! [remote rejected] HEAD -> optimize-strategy-ac (cannot lock ref 'refs/heads/optimize-strategy-ac': is at 98bf7e54a615d7e23cbcf8688d22c4099a1d2240 but expected 00da1b358846ae9a8ffa71b34eb1e330e3a37e3d)\nerror: failed to push some refs to 'https://github.com/EA31337/EA31337-Lite-optimization-tests.git'\nError: Invalid status code: 1",
        "Remote rejected refs/heads/main: cannot lock ref 'refs/heads/main': is at 5fba7059d04331dca5f91b3913d5658f3fde157c but expected 4d2e31892e29d957ad7d6bc79097c7f3e86798c7",
        '✔️ group (2) (382.91 seconds)\n  ✔️ python-tests (336.75 seconds)\n  ✔️ pre-pr-validation (24.72 seconds)\n  ... every gate green ...\n ! [remote rejected] fix/3535-3549-adr006-echo-prose -> fix/3535-3549-adr006-echo-prose\n   (cannot lock ref: is at e2ea55048319c3de759edccb4425106fe4c47c46\n    but expected 8605e39dd96be36c5f6ffab4b536eecd7618efa6)',
    ], bucket="branch_divergence")


def test_mycila_header_warning_beside_a_compile_or_test_failure_is_not_a_licence_gate():
    # license-header-audit-refused read the mycila license-maven-plugin's
    # `[WARNING] Some files do not have the expected license header` (its failIfMissing=false mode,
    # where the build goes on) and took a later javac error or JUnit failure to trust_gate.
    assert_not_read("devflow", "license-gate", ['[INFO] --- license-maven-plugin:4.3:check (check-license) @ core ---\n[INFO] Checking licenses...\n[WARNING] Missing header in: /home/runner/work/app/core/src/main/java/org/acme/Util.java\n[WARNING] Some files do not have the expected license header. Run license:format to update them.\n[INFO] --- maven-compiler-plugin:3.11.0:compile (default-compile) @ core ---\n[INFO] Compiling 42 source files to /home/runner/work/app/core/target/classes\n[ERROR] COMPILATION ERROR :\n[ERROR] /home/runner/work/app/core/src/main/java/org/acme/Service.java:[27,16] cannot find symbol\n  symbol:   class OrderRepository\n  location: class org.acme.Service\n[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project core: Compilation failure'], bucket="compile")
    assert_not_read("devflow", "license-gate", ['[INFO] Checking licenses...\n[WARNING] Missing header in: /work/api/src/test/resources/fixtures/order.json\n[WARNING] Some files do not have the expected license header\n[INFO] -------------------------------------------------------\n[INFO]  T E S T S\n[INFO] -------------------------------------------------------\n[INFO] Running org.acme.OrderServiceTest\n[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.41 s <<< FAILURE! - in org.acme.OrderServiceTest\n[ERROR] totalIncludesTax  Time elapsed: 0.02 s  <<< FAILURE!\norg.opentest4j.AssertionFailedError: expected: <107.0> but was: <100.0>\n[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE'], bucket="test")
    assert_read("devflow", "license-gate", [
        '[INFO] BUILD FAILURE\n[INFO] ------------------------------------------------------------------------\n[INFO] Total time: 1.441 s\n[INFO] Finished at: 2016-02-22T15:10:48+08:00\n[INFO] Final Memory: 11M/155M\n[INFO] ------------------------------------------------------------------------\n[ERROR] Failed to execute goal com.mycila:license-maven-plugin:2.11:check (default) on project parent: Some files do not have the expected license header -> [Help 1]',
        "[ERROR] Failed to execute goal com.mycila:license-maven-plugin:4.3:check (default) on project core: Some files do not have the expected license header. Run license:format to update them. -> [Help 1]",
        '[ERROR] Failed to execute goal org.apache.rat:apache-rat-plugin:0.13:check (rat-check) on project maven-site: Too many files with unapproved license: 1 See RAT report in: /home/elharo/maven-site/target/rat.txt -> [Help 1]\n[ERROR]\n[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n[ERROR] Re-run Maven using the -X switch to enable full debug logging.\n[ERROR]\n[ERROR] For more information about the errors and possible solutions, please read the following articles:\n[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException\n\n1 Unknown Licenses\n\n*****************************************************\n\nFiles with unapproved licenses:\n\ncontent/apt/archives/maven-2.x/maven-2.1-architectural-goals.apt',
        "➜  bfe git:(develop) ✗ license-eye header check\nINFO Loading configuration from file: .licenserc.yaml\nINFO Totally checked 8592 files, valid: 507, invalid: 4, ignored: 8081, fixed: 0\nERROR the following files don't have a valid license header:\n.gitignore\nbfe_modules/mod_markdown/mod_markdown_test.go\ndocs/mkdocs_en.yml\ndocs/mkdocs_zh.yml",
    ], bucket="trust_gate")


def test_licensee_log_mode_and_ort_rule_tests_are_not_a_licence_gate():
    # dependency-license-policy-refused read Cash App Licensee's ` - ERROR: ... is NOT allowed` lines,
    # which it also prints with violationAction = LOG while the task passes, and took the build's
    # later Kotlin compile error or failing Gradle test to trust_gate; and it read a Kotest
    # AssertionFailedError comparing RuleViolation lists (ORT's evaluator tests) as ORT's verdict.
    assert_not_read("devflow", "license-gate", ["> Task :app:licenseeDebug\ncom.squareup.okio:okio:3.6.0\n - ERROR: Unknown license URL 'https://www.apache.org/licenses/LICENSE-2.0.txt' is NOT allowed\n\n> Task :app:compileDebugKotlin FAILED\ne: file:///home/runner/work/app/app/src/main/java/com/acme/MainActivity.kt:42:9 Unresolved reference: bindng\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':app:compileDebugKotlin'.\n> Compilation error. See log for more details"], bucket="compile")
    assert_not_read("devflow", "license-gate", ["> Task :lib:licensee\norg.jetbrains:annotations:13.0\n - ERROR: SPDX identifier 'Apache-2.0' is NOT allowed\n\n> Task :lib:test FAILED\n\nParserTest > parsesEmptyInput() FAILED\n    java.lang.IllegalStateException at ParserTest.kt:31\n\n12 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n* What went wrong:\nExecution failed for task ':lib:test'.\n> There were failing tests. See the report at: file:///w/lib/build/reports/tests/test/index.html", 'EvaluatorTest > evaluate() > rule with severity ERROR is reported FAILED\n    io.kotest.assertions.AssertionFailedError: expected:<[]> but was:<[RuleViolation(rule=COPYLEFT_IN_DEPENDENCY, pkg=Identifier(type=Maven, namespace=org.glassfish, name=javax.json, version=1.0.4), license=GPL-2.0-only, licenseSource=DECLARED, severity=ERROR, message=copyleft, howToFix=)]>'], bucket="test")
    assert_read("devflow", "license-gate", [
        "> Task :app:licenseeDebug FAILED\n> com.google.android:annotations:4.1.1.4\n>  - ERROR: Unknown license URL 'http://www.apache.org/licenses/LICENSE-2.0' is NOT allowed",
        '13:06:39.469 [main] ERROR com.here.ort.commands.EvaluatorCommand - RuleViolation(rule=COPYLEFT_IN_DEPENDENCY, pkg=Identifier(type=Maven, namespace=org.glassfish, name=javax.json, version=1.0.4), license=GPL-2.0-only, licenseSource=DECLARED, severity=ERROR, message=The project Gradle:my_app:app: has a dependency licensed under the ScanCode copyleft catagorized license GPL-2.0-only., howToFix=A text written in MarkDown to help users resolve policy violations\nwhich may link to additional resources.)',
        "gathering licenses...\n6 packages and dependencies.\n\ncheck forbidden packages based on licenses...\n1 forbidden packages :\n\n    Unidecode (0.4.20) : GPL ['GNU General Public License v2 or later (GPLv2+)']\n\n      dependencies:\n\n          Unidecode << python-slugify << yoyo-migrations\n\n\n\ncheck authorized packages based on licenses...\n4 packages.\n\ncheck authorized packages...\n1 packages.\n\ncheck unknown licenses...\nnone",
        'Dependency Graph\n  Total Dependency Graph :: 761\n  Dependency Graph violations :: 0\nDependency Graph Results - Licensing\n  Loaded extra licensing information :: 9459\n  Total Dependencies in Graph :: 761\n  Dependency Graph violations :: 5\nTotal unacceptable alerts :: 5\nError: Unacceptable Threshold of Risk has been hit!\nError: Process completed with exit code 1.',
    ], bucket="trust_gate")


def test_server_status_glyph_not_read_from_a_test_or_scan_scripts_failed_label():
    # client-server-status-failed misread a shell script's result label `✗ Failed: <step>` (and its
    # `✓ Passed:` / `✗ Failed:` summary and `... ✗ FAILED` per-test lines) in an MCP project's
    # test or secret-scan run as a client's server status, sending test failures and a gitleaks
    # finding to mcp_startup.
    assert_not_read("devflow", "server-status-failed", [
        "Running MCP server tests...\n"
        "✗ Failed: MCP server integration tests\n",
        "Test summary (mcp-inspector e2e): 14 tests passed, 2 tests failed\n"
        "  ✓ Passed: 14\n"
        "  ✗ Failed: 2\n",
        "Testing MCP tools/list ... ✗ FAILED\n"
        "Testing MCP tools/call ... ✓ PASSED\n"
        "2 tests failed\n",
    ], bucket="test")
    assert_not_read("devflow", "server-status-failed", [
        "==> gitleaks detect (mcp-registry)\n"
        "Finding:     GITHUB_TOKEN=ghp_****************\n"
        "Secret:      REDACTED\n"
        "RuleID:      github-pat\n"
        "File:        .mcp.json\n"
        "1:02PM WRN leaks found: 1\n"
        "✗ Failed: secret scan\n",
    ], bucket="trust_gate")
    assert_not_read("devflow", "server-status-failed", [
        "==> Build release binary (mcp-proxy)\n"
        "error[E0425]: cannot find value `transport` in this scope\n"
        "  --> src/main.rs:42:9\n"
        "✗ Failed: Build release binary\n",
    ], bucket="compile")
    assert_read("devflow", "server-status-failed", [
        "Type:     sse\nURL:      http://127.0.0.1:8080/mcp\nStatus:   ✗ Failed\n"
        "Error:    SSE error: Non-200 status code (400)",
        "     ❯ 1. ft_generate_mcp_server  ✘ failed · Enter to view details",
        "  Manage MCP servers\n     ❯ context7 · ✘ failed\n       sequential-thinking · ✘ failed",
        "info: [MCP][azure-mcp-npx] ✗ Failed",
        "postgresql: npx -y @modelcontextprotocol/server-postgres - ✗ Failed to connect",
    ], bucket="mcp_startup")


# Review of devflow's rules added since ed3c7fe: the messages each one misread, and its own wording.

SNYK_0005 = """ERROR   Authentication error (SNYK-0005)
        Authentication credentials not recognized, or user access is not provisioned.
        Revise credentials and try again, or request access from your Snyk
        administrator.

        Use `snyk auth` to authenticate.

Status:  401 Unauthorized"""

SNYK_NPM_TEST = """> network-pulse@2.0.0 test /home/travis/build/mozilla/network-pulse
> snyk test --file=package.json && run-s test:**
snyk test requires an authenticated account. Please run `snyk auth` and try again.
npm ERR! Test failed.  See above for more details."""

SEMGREP_LOGGED_IN = ("Cannot run `semgrep ci` while logged in and with explicit config. "
                     "Use semgrep.dev to configure rules to run.")

SWC_JEST_WORKAROUND = r"""thread '<unnamed>' panicked at 'called `Result::unwrap()` on an `Err` value: LayoutError', /home/runner/.cargo/registry/src/index.crates.io-6f17d22bba15001f/rkyv-0.7.42/src/impls/core/mod.rs:266:67
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
thread '<unnamed>' panicked at /Users/runner/.cargo/registry/src/index.crates.io-6f17d22bba15001f/swc-0.272.1/src/plugin.rs:162:14:
failed to invoke plugin: failed to invoke plugin on 'Some("/Users/dlabrecq/Work/hcs/repos/hybrid-committed-spend-ui/src/api/options/detailsOption.test.ts")'

Caused by:
 FAIL  src/api/options/detailsOption.test.ts js transform plugin at jest_workaround
  ● Test suite failed to run

    failed to handle: failed to invoke plugin: failed to invoke plugin on 'Some("/Users/dlabrecq/Work/hcs/repos/hybrid-committed-spend-ui/src/api/options/detailsOption.test.ts")'

    Caused by:
        0: failed to invoke `jest_workaround` as js transform plugin at jest_workaround
        1: RuntimeError: unreachable

      at Compiler.transformSync (node_modules/@swc/core/index.js:244:29)
      at transformSync (node_modules/@swc/core/index.js:351:21)
      at Object.process (node_modules/@swc/jest/index.js:73:45)"""

VITE_DASHBOARD = """[plugin:vite:react-babel] /home/project/src/components/Dashboard.tsx: Unexpected token (46:4)

/home/project/src/components/Dashboard.tsx:46:4

44 |        </div>
45 |      </div>
46 |    );
   |      ^"""


def test_snyk_auth_rule_leaves_failing_tests_that_quote_snyks_auth_error():
    # snyk-cli-not-authenticated (routed to infra before test) read a failing test that
    # expects Snyk's wording as a CLI that could not authenticate: the Snyk CLI's own jest
    # acceptance test, a Go test of snyk-ls, a wrapper's pytest.
    assert_not_read("devflow", "scanner-setup-failed", [
        """ FAIL  test/jest/acceptance/snyk-test/auth-errors.spec.ts (12.345 s)
  ● snyk test › with an invalid token › prints the SNYK-0005 authentication error

    expect(received).toContain(expected) // indexOf

    Expected substring: "Authentication error (SNYK-0005)"
    Received string:    "ERROR   Unspecified Error (SNYK-CLI-0000)
            Something went wrong running the command."

      42 |       });
      43 |       expect(code).toEqual(2);
    > 44 |       expect(stderr).toContain('Authentication error (SNYK-0005)');
         |                      ^

Test Suites: 1 failed, 212 passed, 213 total
Tests:       1 failed, 1834 passed, 1835 total""",
        """--- FAIL: TestCLIScanner_AuthFailure_ReportsSnyk0005 (0.03s)
    cli_scanner_test.go:118:
        \tError Trace:\t/home/runner/work/snyk-ls/snyk-ls/infrastructure/cli/cli_scanner_test.go:118
        \tError:      \t"ERROR   Unspecified Error (SNYK-CLI-0000)" does not contain "Authentication error (SNYK-0005)"
        \tTest:       \tTestCLIScanner_AuthFailure_ReportsSnyk0005
FAIL
FAIL\tgithub.com/snyk/snyk-ls/infrastructure/cli\t1.204s""",
        """    def test_snyk_missing_token(run_scan):
        result = run_scan(env={"SNYK_TOKEN": ""})
>       assert "snyk test requires an authenticated account" in result.stderr
E       AssertionError: assert 'snyk test requires an authenticated account' in 'Testing /tmp/proj...\\n'

tests/test_snyk_wrapper.py:57: AssertionError
=========================== short test summary info ============================
FAILED tests/test_snyk_wrapper.py::test_snyk_missing_token - AssertionError: assert 'snyk test requires an authenticated account' in 'Testing /tmp/proj...\\n'
========================= 1 failed, 41 passed in 3.12s =========================""",
    ], bucket="test")
    assert_read("devflow", "scanner-setup-failed", [SNYK_0005, SNYK_NPM_TEST], bucket="infra")


def test_semgrep_refusal_rule_leaves_semgreps_own_failing_e2e_tests():
    # semgrep-ci-refused-to-start (routed to infra before test) read Semgrep's own pytest e2e
    # tests, failing while they assert the refusal is printed, as a CI job semgrep refused.
    assert_not_read("devflow", "scanner-setup-failed", [
        """    def test_fail_on_explicit_config_when_logged_in(run_semgrep, mocker):
        result = run_semgrep(subcommand="ci", options=["--config", "p/python"], assert_exit_code=2)
>       assert "Cannot run `semgrep ci` while logged in and with explicit config" in result.stderr
E       AssertionError: assert 'Cannot run `semgrep ci` while logged in and with explicit config' in 'Scan was limited to files tracked by git.\\n'

tests/default/e2e/test_ci.py:1412: AssertionError
=========================== short test summary info ============================
FAILED tests/default/e2e/test_ci.py::test_fail_on_explicit_config_when_logged_in - AssertionError: assert 'Cannot run `semgrep ci` while logged in and with explicit config' in 'Scan was limited to files tracked by git.\\n'
================= 1 failed, 318 passed, 4 skipped in 211.40s ==================""",
        """FAILED tests/default/e2e/test_login.py::test_login - AssertionError: assert 'API token not valid. Try to run `semgrep logout` and `semgrep login` again.' in 'Saved login token\\n\\n        e2...n'
=================== 1 failed, 96 passed, 2 skipped in 58.02s ===================""",
    ], bucket="test")
    assert_read("devflow", "scanner-setup-failed", [SEMGREP_LOGGED_IN], bucket="infra")


def test_swc_plugin_rule_leaves_snapshot_and_call_count_failures_and_full_disks():
    # swc-wasm-plugin-invoke-failed (plugin_startup, routed before everything but the gates)
    # read a jest run where another suite failed toMatchSnapshot or toHaveBeenCalled (matchers
    # that print no `Expected:`, so test-assertion-words missed them) beside one suite's plugin
    # failure, and a plugin whose compiled-module cache could not be written on a full disk.
    assert_not_read("devflow", "plugin-init-error", [
        """ FAIL  src/components/Button.test.tsx
  ● Button › renders the primary variant

    expect(received).toMatchSnapshot()

    Snapshot name: `Button renders the primary variant 1`

    - Snapshot  - 1
    + Received  + 1

    -   class="btn btn-primary"
    +   class="btn btn-primary btn-lg"

 FAIL  src/components/Modal.test.tsx
  ● Test suite failed to run

    failed to handle: failed to invoke plugin: failed to invoke plugin on 'Some("/home/runner/work/web/web/src/components/Modal.test.tsx")'

    Caused by:
        0: failed to invoke `@swc/plugin-styled-components` as js transform plugin at node_modules/@swc/plugin-styled-components/swc_plugin_styled_components.wasm
        1: RuntimeError: unreachable

      at Compiler.transformSync (node_modules/@swc/core/index.js:244:29)

 › 1 snapshot failed.
Snapshot Summary
 › 1 snapshot failed from 1 test suite. Inspect your code changes or press `u` to update them.

Test Suites: 2 failed, 31 passed, 33 total
Tests:       1 failed, 212 passed, 213 total
Snapshots:   1 failed, 40 passed, 41 total""",
        """ FAIL  src/hooks/useAuth.test.ts
  ● useAuth › calls onLogout when the session expires

    expect(jest.fn()).toHaveBeenCalled()

    Expected number of calls: >= 1
    Received number of calls:    0

      31 |     act(() => jest.advanceTimersByTime(60_000));
    > 32 |     expect(onLogout).toHaveBeenCalled();

 FAIL  src/hooks/useTheme.test.ts
  ● Test suite failed to run

    failed to handle: failed to invoke plugin: failed to invoke plugin on 'Some("/app/src/hooks/useTheme.test.ts")'

    Caused by:
        0: failed to invoke `jest_workaround` as js transform plugin at jest_workaround
        1: RuntimeError: unreachable

Test Suites: 2 failed, 18 passed, 20 total
Tests:       1 failed, 96 passed, 97 total""",
    ], bucket="test")
    assert_not_read("devflow", "plugin-init-error", [
        """thread '<unnamed>' panicked at /Users/runner/.cargo/registry/src/index.crates.io-6f17d22bba15001f/swc-0.273.24/src/plugin.rs:166:14:
failed to invoke plugin: failed to invoke plugin on 'Some("/home/ci/app/src/pages/_app.tsx")'

Caused by:
    0: failed to invoke `/home/ci/app/node_modules/@swc/plugin-emotion/swc_plugin_emotion.wasm` as js transform plugin at /home/ci/app/node_modules/@swc/plugin-emotion/swc_plugin_emotion.wasm
    1: Failed to create plugin instance
    2: failed to write the compiled module to the cache at /home/ci/app/.swc/plugins/v7_linux_x86_64_8.0.0
    3: No space left on device (os error 28)""",
    ], bucket="infra")
    assert_read("devflow", "plugin-init-error", [SWC_JEST_WORKAROUND], bucket="plugin_startup")


def test_vite_parse_error_rule_leaves_failing_tests_of_the_overlay_text():
    # vite-plugin-parse-error-in-source (compile, routed before test) read a failing test of
    # the error overlay (Vite's or a React plugin's own playground test) that quotes the
    # overlay's parse error as the project's own syntax error.
    assert_not_read("devflow", "syntax-error", [
        """ FAIL  playground/react/__tests__/react.spec.ts > shows the babel syntax error in the overlay
AssertionError: expected '[plugin:vite:react-babel] /playground/react/App.jsx: Unexpected token (12:4)' to contain 'Unexpected token, expected ","'
 ❯ playground/react/__tests__/react.spec.ts:88:27

 Test Files  1 failed | 41 passed (42)
      Tests  1 failed | 512 passed (513)""",
        """ FAIL  test/overlay.spec.ts
  ● error overlay › names the plugin that parsed the file

    expect(received).toContain(expected) // indexOf

    Expected substring: "[plugin:vite:react-swc] /src/App.tsx: Unexpected token"
    Received string:    "[plugin:vite:react-swc] × Expected ',', got '<eof>'"

Tests:       1 failed, 23 passed, 24 total""",
    ], bucket="test")
    assert_read("devflow", "syntax-error", [VITE_DASHBOARD], bucket="compile")


def test_conflict_markers_read_for_branches_named_search_or_replace():
    # conflict-markers: its SEARCH/REPLACE veto (`<<<<<<< search`, `>>>>>>> replace` as substrings
    # anywhere in the text) threw away real git conflicts whose marker names a branch starting with
    # those words (an LFS pointer merged from `replace-textures`, GitHub's conflict editor showing the
    # head branch `search-page`): they fell to unknown. Only the bare SEARCH/REPLACE marker line of a
    # coding agent's edit block is passed over now.
    assert_read("devflow", "merge-conflict", [
        "version https://git-lfs.github.com/spec/v1\n<<<<<<< HEAD\n"
        "oid sha256:db51d6ae13e8b4016eac73b1cf1c48a6dda9fff72411d8e557cb3877d0e9ab9a\n=======\n"
        "oid sha256:98190567d0ef18bf2c79fc9847dfe5eabb6d617a5cad71b4d04a86698aae8878\n"
        ">>>>>>> replace-textures\nsize 4252",
        "<<<<<<< search-page\nconst PAGE_SIZE = 20;\n=======\nconst PAGE_SIZE = 50;\n>>>>>>> main",
    ], bucket="branch_divergence")
    # positive controls: the rule's own golden wording, and the edit blocks it must still pass over
    assert_read("devflow", "merge-conflict", [
        '  File "app/config.py", line 8\n    <<<<<<< HEAD\n    ^^\nSyntaxError: invalid syntax',
        "both added:      lib/sub/README\n\nMy super library\n\n<<<<<<< HEAD\nhahaha\n=======\n>>>>>>> stree-sub/master",
    ], bucket="branch_divergence")
    assert_not_read("devflow", "merge-conflict", [
        "<error_details>\nERROR: Diff block is malformed: marker '=======' found in your diff content at line 29. "
        "Expected: <<<<<<< SEARCH\n\nCORRECT FORMAT:\n\n<<<<<<< SEARCH\n:start_line: (required) The line number of "
        "original content where the search block starts.\n-------\n[exact content to find including whitespace]\n"
        "=======\n[new content to replace with]\n>>>>>>> REPLACE\n\n</error_details>",
    ], bucket="prompt_delivery")


def test_swe_agent_requery_not_read_when_run_exits_on_environment_error():
    # swe-agent-format-error-requery: a FormatError requery SWE-agent got past is only a warning; when
    # the run then exits on its SWE-ReX/Docker runtime (`Exiting due to environment error: ...`), the
    # rule still made it a tool-call failure (prompt_delivery) instead of the infra failure it is.
    assert_not_read("devflow", "tool-call-failed", [
        "2025-05-24 11:15:45,449 - WARNING - swea-agent - Requerying model after FormatError (1th requery)\n"
        "2025-05-24 11:16:02,118 - INFO - swea-agent - ========================= STEP 14 =========================\n"
        "2025-05-24 11:16:40,902 - ERROR - swea-agent - Exiting due to environment error: Runtime is not alive: "
        "Docker container exited unexpectedly with code 137",
    ], bucket="infra")
    # positive control: SWE-agent's own requery and format reminder from its golden case
    assert_read("devflow", "tool-call-failed", [
        "2025-05-24 11:15:45,449 - WARNING - swea-agent - Requerying model after FormatError (2th requery)\n"
        "2025-05-24 11:15:45,450 - WARNING - swea-agent - Your output was not formatted correctly. You must always "
        "include one discussion and one command as part of your response. Make sure you do not have multiple "
        "discussion/command tags.\nPlease make sure your output precisely matches the following format:",
    ], bucket="prompt_delivery")


def test_openhands_bad_tool_args_not_read_when_run_dies_on_its_runtime():
    # coding-agent-tool-args-undecodable: OpenHands hands a tool call with undecodable arguments back to
    # the model as an error observation; when the run then stops because its sandbox runtime died
    # (AgentRuntimeDisconnectedError, the runtime container OOM-killed), the rule still made the whole
    # run a tool-call failure (prompt_delivery) instead of the infra failure it ended on.
    assert_not_read("devflow", "tool-call-failed", [
        "ERROR:root:Error validating args {\"command\":\"str_replace\",\"path\":\"/workspace/app.py\",\"old_str\":\"def ma"
        " for tool 'file_editor': Unterminated string starting at: line 1 column 61 (char 60)\n"
        "16:02:11 - openhands:ERROR: agent_controller.py:291 - [Agent Controller default] Error while running the "
        "agent (session ID: default): Runtime container openhands-runtime-default exited with code 137 (OOMKilled). "
        "Please check the runtime logs.\n"
        "openhands.core.exceptions.AgentRuntimeDisconnectedError: Runtime container exited",
    ], bucket="infra")
    # positive control: the rule's golden wording
    assert_read("devflow", "tool-call-failed", [
        "Error validating args {\"command\":\"str_replace\",\"path\":\"...for tool 'file_editor': "
        "Unterminated string starting at: line 1 column 7372 (char 7371)",
    ], bucket="prompt_delivery")


def test_concourse_worker_message_quoted_by_a_failing_ginkgo_spec_is_a_test():
    # concourse-worker-disappeared read Concourse's own Ginkgo spec that failed on the worker
    # client's error string (Gomega's `Expected <err> to be nil`, `FAIL! -- 57 Passed | 1 Failed`,
    # `Test Suite Failed`) as a lost CI worker: its route comes before the test route and the
    # assertion-words veto knows none of Ginkgo's or Gomega's words.
    assert_not_read("devflow", "ci-agent-unavailable", [
        "• [FAILED] [0.004 seconds]\n"
        "Client Reaper when the worker is gone [It] returns a retryable error\n"
        "/go/src/github.com/concourse/concourse/worker/client_test.go:212\n\n"
        "  [FAILED] Expected\n"
        "      <*errors.errorString | 0xc00041e2a0>: {\n"
        "          s: \"Get \\\"/volumes/46868a3f\\\": worker ip-11-221-153-38 disappeared while trying to reach it\",\n"
        "      }\n"
        "  to be nil\n\n"
        "Summarizing 1 Failure:\n"
        "  [FAIL] Client Reaper when the worker is gone [It] returns a retryable error\n\n"
        "Ran 58 of 58 Specs in 0.311 seconds\n"
        "FAIL! -- 57 Passed | 1 Failed | 0 Pending | 0 Skipped\n"
        "Ginkgo ran 1 suite in 4.2s\n"
        "Test Suite Failed\n",
    ], bucket="test")
    assert_read("devflow", "ci-agent-unavailable", [
        "Pipeline execution errored. Please try another attempt and file an incident if the error persists.\n\n"
        "logs:\n"
        "Get \"/volumes/46868a3f-8ff4-4bab-6f18-eafb5f070586\": worker ip-11-221-153-38 disappeared while trying to reach it\n"
        "Get \"/volumes/46868a3f-8ff4-4bab-6f18-eafb5f070586\": worker ip-11-221-153-38 disappeared while trying to reach it, will retry.\n",
    ], bucket="infra")


def test_go_download_chain_inside_an_mcp_start_or_tool_call_is_not_bitrise_cache():
    # bitrise-cache-archive-download-failed read the bare Go chain `download failed: failed to
    # download archive` anywhere: an MCP server whose release binary could not be fetched and a
    # tool call that failed on a download went to infra through the early artifact-store route.
    assert_not_read("devflow", "ci-artifact-store-failed", [
        "[error] MCP server \"github\" failed to start: download failed: failed to download archive: "
        "GET https://github.com/github/github-mcp-server/releases/download/v0.5.0/github-mcp-server_Linux_x86_64.tar.gz: 404 Not Found",
        "2024-06-01T10:00:00Z ERROR context server \"postgres\" failed to start: download failed: "
        "failed to download archive: connection reset by peer",
    ], bucket="mcp_startup")
    assert_not_read("devflow", "ci-artifact-store-failed", [
        "Tool call failed: fetch_release: download failed: failed to download archive: timeout",
    ], bucket="prompt_delivery")
    assert_read("devflow", "ci-artifact-store-failed", [
        "download failed: failed to download archive: Range request returned invalid Content-Length: 149 however the range was: [...]",
        "download failed: failed to download archive: GET https://storage.example/cache.tzst giving up after 3 attempt(s)",
    ], bucket="infra")


def test_fastlane_tests_failed_beside_bitrise_test_result_upload_is_a_test():
    # bitrise-test-results-upload-refused read a Bitrise build whose fastlane scan failed
    # (`[!] Tests have failed`) and whose always-run deploy step then could not upload the results:
    # that verdict only gives the last-resort broad-test-failed signal, which the artifact-store
    # route does not veto, so the red tests went to infra.
    assert_not_read("devflow", "ci-artifact-store-failed", [
        "[14:02:11]: fastlane finished with errors\n"
        "[!] Tests have failed\n"
        "Failed to upload test results: unsuccessful response code: 500\n",
        "[!] Tests have failed\n"
        "+--------------------+-------+\n"
        "| Number of tests    | 212   |\n"
        "| Number of failures | 3     |\n"
        "+--------------------+-------+\n"
        "Upload test results\n"
        "- uploading (6) test results\n"
        "Failed to upload test results: %!(EXTRA *errors.errorString=unsuccessful response code: 403\n"
        "body:\n{\"error\":\"Unauthorized request\"}\n)\n",
    ], bucket="test")
    assert_read("devflow", "ci-artifact-store-failed", [
        "Upload test results\n"
        "- uploading (6) test results\n"
        "Failed to upload test results: %!(EXTRA *errors.errorString=unsuccessful response code: 403\n"
        "body:\n{\"error\":\"Unauthorized request\"}\n)\n",
    ], bucket="infra")


def test_test_runner_verdict_above_buildkite_artifact_upload_is_not_the_artifact_store():
    # buildkite-artifact-upload-no-route read a job whose test command failed (fastlane's
    # `[!] Tests have failed`, Python unittest's `FAILED (failures=2)`) before the agent's artifact
    # upload hit `[FATAL] No route matches`: neither verdict gives a signal the artifact-store route
    # vetoes, so the red tests went to infra.
    assert_not_read("devflow", "ci-artifact-store-failed", [
        "[!] Tests have failed\n"
        "Uploading artifacts\n"
        "2014-09-10 15:31:05 [FATAL] No route matches v1/connect\n",
    ], bucket="test")
    # unittest's bare summary is read by no test rule of devflow: it must at least not be infra.
    assert_not_read("devflow", "ci-artifact-store-failed", [
        "Ran 212 tests in 41.201s\n\n"
        "FAILED (failures=2)\n"
        "Uploading artifacts\n"
        "2014-09-10 15:31:05 [FATAL] No route matches v1/connect\n",
    ], not_bucket="infra")
    assert_read("devflow", "ci-artifact-store-failed", [
        "Uploading artifacts\n"
        "2014-09-10 15:31:05 [FATAL] No route matches v1/connect\n",
    ], bucket="infra")


def test_an_image_tagged_latest_is_no_test_that_failed():
    # broad-test-failed found `test` inside `latest`, so an image tag followed by a failure word
    # (`myorg/api:latest: failed to resolve source metadata`, `node:latest failed to pull`) read
    # as a red test wherever no other rule decided.
    assert_not_read("devflow", "broad-test-failed", [
        "ERROR: myorg/api:latest: failed to resolve source metadata\n",
        "Step 3/9: pulling node:latest failed after 3 attempts\n",
    ], not_bucket="test")
    # a test class whose name ends in Test or Tests, and a superlative, are still read
    assert_read("devflow", "broad-test-failed", [
        "AppTest > testLogin FAILED\n",
        "UserServiceTests failed: expected 3 but was 4\n",
        "the greatest test in the suite failed again\n",
    ], bucket="test")
