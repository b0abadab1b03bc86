"""The ``replay`` and ``regen`` tables: seed 000 §B/§C signals, their order, real runner text.

Every signal seed 000 lists routes to the bucket the seed puts it in; when signals span
buckets the table's documented order picks the most specific (checked pair by pair,
in both input orders); and the extractors turn what browser-test runners print into
those signals without the bare-word misfires the seed's names invite.
"""

from __future__ import annotations

import itertools

import pytest

import failtax
from failtax.table import load_table
from narrowed import answer, assert_not_read, assert_read, shipped_table_with_veto_word
from real_messages import REAL, read_yaml  # tests/real_messages.py: the fixtures, parsed once


REPLAY_SEED = {
    "infra": ["electron-crash", "chromium-error", "click-no-effect-on-clickable-element",
              "timeout-on-trivial-wait", "internal-error-in-mcp-output"],
    "stale-script": ["element-not-found", "selector-timeout", "label-path-mismatch",
                     "nav-target-404", "aria-label-changed"],
    "product-defect": ["assertion-failed-on-passing-step", "unexpected-error-toast",
                       "wrong-page-after-action", "network-500-from-app",
                       "form-validation-rejected-valid-input"],
}
REGEN_SEED = {
    "transient": ["network-error", "llm-rate-limit", "single-tool-call-error", "partial-progress-then-died"],
    "infra": ["electron-mcp-handler-crash", "internal-validation-error", "pipeline-stuck",
              "identical-failure-repeated"],
    "agent-course": ["goal_not_achievable", "loop-on-modal", "picked-wrong-element", "repeated-same-action"],
    "product-uxux": ["server-5xx", "page-not-found", "element-provably-absent", "product-broken"],
}


def named(taxonomy: str, *signals: str) -> failtax.Classification:
    return failtax.classify({"signals": list(signals)}, taxonomy=taxonomy)


def _pairs(seed):
    for (b1, s1), (b2, s2) in itertools.combinations(
        [(b, s) for b, ss in seed.items() for s in ss], 2
    ):
        if b1 != b2:
            yield s1, s2


# --------------------------------------------------------------------------- single signals


@pytest.mark.parametrize(("bucket", "signal"), [(b, s) for b, ss in REPLAY_SEED.items() for s in ss])
def test_every_replay_seed_signal_routes_to_its_bucket(bucket, signal):
    assert named("replay", signal).bucket == bucket


@pytest.mark.parametrize(("bucket", "signal"), [(b, s) for b, ss in REGEN_SEED.items() for s in ss])
def test_every_regen_seed_signal_routes_to_its_bucket(bucket, signal):
    assert named("regen", signal).bucket == bucket


def test_seed_signal_names_and_route_ids_are_kept():
    for name, seed in (("replay", REPLAY_SEED), ("regen", REGEN_SEED)):
        table = load_table(name)
        known = set(table.signals)
        for signals in seed.values():
            for s in signals:
                assert s.replace("_", "-") in known, (name, s)
        assert {"infra"} <= {r.id for r in table.route}
    routes = [r.id for r in load_table("replay").route]
    assert routes[:5] == ["infra", "app-unreachable", "app-error-page", "stale-script", "product-defect"]
    # After the seed's routes, only last-resort ones for plain words (`broad-…`), then the one for
    # the browser-tool words the regen table taught.
    assert routes[-1] == "regen-browser-tool-infra"
    assert all(r.startswith("broad-") for r in routes[5:-1]), routes[5:-1]


# --------------------------------------------------------------------------- signals spanning buckets


def replay_expected(a: str, b: str) -> str:
    """The documented order: infra > app error page (5xx, error toast) > stale-script > product-defect."""
    bucket = {s: k for k, ss in REPLAY_SEED.items() for s in ss}
    if "infra" in (bucket[a], bucket[b]):
        return "infra"
    if {a, b} & {"network-500-from-app", "unexpected-error-toast"}:
        return "product-defect"
    return "stale-script" if "stale-script" in (bucket[a], bucket[b]) else "product-defect"


def regen_expected(a: str, b: str) -> str:
    """The documented order: infra > product-uxux > agent-course (named course) > transient > goal_not_achievable."""
    bucket = {s: k for k, ss in REGEN_SEED.items() for s in ss}
    kinds = {bucket[a], bucket[b]}
    for k in ("infra", "product-uxux"):
        if k in kinds:
            return k
    course = {a, b} - {"goal_not_achievable"}
    if any(bucket[s] == "agent-course" for s in course):
        return "agent-course"
    return "transient"


@pytest.mark.parametrize(("a", "b"), list(_pairs(REPLAY_SEED)))
def test_replay_pairs_follow_the_documented_order(a, b):
    want = replay_expected(a, b)
    assert named("replay", a, b).bucket == want
    assert named("replay", b, a).bucket == want  # the order signals arrive in never matters


@pytest.mark.parametrize(("a", "b"), list(_pairs(REGEN_SEED)))
def test_regen_pairs_follow_the_documented_order(a, b):
    want = regen_expected(a, b)
    assert named("regen", a, b).bucket == want
    assert named("regen", b, a).bucket == want


def test_all_signals_are_kept_in_the_result():
    c = named("replay", "chromium-error", "selector-timeout", "network-500-from-app")
    assert c.bucket == "infra"
    assert set(c.signals) == {"chromium-error", "selector-timeout", "network-500-from-app"}


# --------------------------------------------------------------------------- runner text


RUNNER_TEXT = [
    ("replay", "Error: locator.click: Timeout 30000ms exceeded.\nCall log:\n  - waiting for locator('#buy')", "stale-script"),
    ("replay", "Error: expect(locator).toHaveText(expected) failed\n\nLocator: locator('#total')\nExpected: \"$10\"\nReceived: \"$12\"\n\nCall log:\n  - waiting for locator('#total')\n    9 × locator resolved to <span id=\"total\">$12</span>\n      - unexpected value \"$12\"", "product-defect"),
    ("replay", "Error: page.goto: Target page, context or browser has been closed", "infra"),
    ("replay", "Protocol error (Runtime.callFunctionOn): Target closed.", "infra"),
    ("replay", "Error: page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:3000/", "infra"),
    ("replay", "Failed to load resource: the server responded with a status of 500 (Internal Server Error)", "product-defect"),
    ("replay", "AssertionError: Timed out retrying after 4000ms: Expected to find element: `#save`, but never found it.", "stale-script"),
    ("replay", "org.openqa.selenium.NoSuchElementException: no such element: Unable to locate element: {\"method\":\"css selector\",\"selector\":\"#login\"}", "stale-script"),
    ("replay", "We detected that the Chromium Renderer process just crashed.", "infra"),
    ("regen", "Error: 429 Too Many Requests", "transient"),
    ("regen", "ZodError: invalid_type at steps[2].selector", "infra"),
    ("regen", "the agent got stuck in a loop on the newsletter popup, dismissing it again and again", "agent-course"),
    ("regen", "404 | This page could not be found.", "product-uxux"),
]


@pytest.mark.parametrize(("taxonomy", "text", "bucket"), RUNNER_TEXT, ids=[f"{t}:{x[:30]}" for t, x, _ in RUNNER_TEXT])
def test_runner_messages_land_on_the_seed_buckets(taxonomy, text, bucket):
    c = failtax.classify({"text": text}, taxonomy=taxonomy)
    assert c.bucket == bucket, f"{c.rule} {list(c.signals)}"


def test_playwright_project_name_is_not_a_chromium_error():
    text = (
        "  1) [chromium] › tests/cart.spec.ts:12:5 › cart total\n\n"
        "    Error: expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n    Received: 2"
    )
    c = failtax.classify({"text": text}, taxonomy="replay")
    assert "chromium-error" not in c.signals and c.bucket == "product-defect"


def test_the_ordinary_failed_exit_is_not_an_electron_crash():
    c = failtax.classify({"text": "Error: Electron exited with code 1"}, taxonomy="replay")
    assert (c.bucket, c.rule, c.signals) == ("product-defect", "fallback", ())
    assert "electron-crash" in failtax.classify(
        {"text": "Error: Electron exited with signal SIGSEGV"}, taxonomy="replay").signals


def test_exit_26_alone_is_goal_not_achievable():
    c = failtax.classify({"exit_code": 26}, taxonomy="regen")
    assert (c.bucket, c.rule) == ("agent-course", "goal-not-achievable")
    assert "goal-not-achievable" in c.signals


def test_agent_no_progress_is_not_a_stuck_pipeline():
    agent = failtax.classify({"text": "The agent made no progress after 30 steps on the pricing modal"}, taxonomy="regen")
    assert "pipeline-stuck" not in agent.signals and agent.bucket == "agent-course"
    pipeline = failtax.classify({"text": "pipeline stalled: no progress for 600s"}, taxonomy="regen")
    assert pipeline.bucket == "infra"


def test_partial_progress_needs_progress():
    text = "generation worker was killed (SIGKILL)"
    assert failtax.classify({"text": text, "fields": {"stepsCompleted": 5}}, taxonomy="regen").bucket == "transient"
    assert failtax.classify({"text": text, "fields": {"stepsCompleted": 0}}, taxonomy="regen").bucket == "agent-course"


@pytest.mark.parametrize("name", ["replay", "regen"])
def test_golden_files_cover_every_bucket_five_times(name):
    entries = read_yaml(REAL / f"{name}.yaml")
    per = {b: 0 for b in failtax.load_taxonomy(name).bucket_names}
    for e in entries:
        per[e["bucket"]] += 1
    assert min(per.values()) >= 5, per


# --------------------------------------------------------------------------- what replay took from regen


def test_the_words_regen_learnt_decide_a_replay_failure_only_when_no_replay_rule_does():
    # splinter's wording, which only the regen table knew before the replay table borrowed its rules.
    text = "splinter.exceptions.DriverNotFoundError: No driver for firefox.webdriver"
    got = failtax.classify({"text": text}, taxonomy="replay")
    assert (got.bucket, got.rule, got.signals) == ("infra", "regen-browser-tool-infra", ("browser-unavailable",))
    # A stale selector in the same output keeps its replay reading.
    both = text + "\nTimeoutError: waiting for selector `#checkout` failed: timeout 30000ms exceeded"
    assert failtax.classify({"text": both}, taxonomy="replay").bucket == "stale-script"


def test_a_session_the_runner_could_not_create_is_not_an_error_the_app_showed():
    text = ("Error: An error occurred while creating a new ChromeDriver session: "
            "[SessionNotCreatedError] session not created")
    got = failtax.classify({"text": text}, taxonomy="replay")
    assert got.bucket == "infra" and "unexpected-error-toast" not in got.signals
    # the app's own error page still counts
    app = "An error occurred while processing your request. Something went wrong."
    assert "unexpected-error-toast" in failtax.classify({"text": app}, taxonomy="replay").signals


def test_words_of_hard_reading_are_a_page_defect_only_beside_the_pages_own_text():
    # the rule read 'unreadable' and 'hard to read' anywhere: a response body or a config
    # file the tool could not read was a page defect
    for text in ("Error: cached response body unreadable after restart", "Their config file is hard to read"):
        assert "product-broken" not in failtax.classify({"text": text}, taxonomy="regen").signals, text
    for text in ("The grey text on the white background is hard to read", "The footer links are unreadable on mobile",
                 "Low contrast between the placeholder and the field"):
        assert "product-broken" in failtax.classify({"text": text}, taxonomy="regen").signals, text


def test_a_request_to_report_a_problem_is_the_tools_only_toward_a_code_hosts_tracker():
    # the rule read any 'please report this problem to': an app's own error page asking
    # its users to tell support was the tool's code failing, and so was a test named
    # 'should not raise errors' (the replay table borrows the signal)
    app_pages = ("Something went wrong while saving your order. Please report this problem to support@shop.example.",
                 "  ✕ should not raise errors when the form is empty (412 ms)\n    Expected: 0\n    Received: 2")
    for tax in ("regen", "replay"):
        for text in app_pages:
            assert "tool-code-error" not in failtax.classify({"text": text}, taxonomy=tax).signals, (tax, text)
    tools = ("Error: axe-core CLI crashed\nPlease report the problem to: https://github.com/dequelabs/axe-core-npm/issues/",
             "The button has a title that names it, so the checker should not generate a violation")
    for text in tools:
        assert "tool-code-error" in failtax.classify({"text": text}, taxonomy="regen").signals, text


def test_text_cut_off_on_a_login_or_dialog_screen_is_still_read_as_the_pages_layout():
    # the truncated-text rule stood down for 'log' (a log line cut off is no page defect),
    # which every 'login', 'dialog' and 'catalog' also holds
    for text in ("The login button text is truncated at 320 px and not visible",
                 "The dialog title gets clipped on zoom, not visible"):
        assert "product-broken" in failtax.classify({"text": text}, taxonomy="regen").signals, text
    logged = "The log line text is truncated at 320 px and not visible"
    assert "product-broken" not in failtax.classify({"text": logged}, taxonomy="regen").signals


def test_a_page_that_never_loads_is_the_apps_even_on_a_page_named_for_agents():
    # the loader rule's veto 'the agent' also stood down for 'the agents page'; a second
    # rule with a narrower veto read only 'spinner is stuck' and 'page loads forever'
    assert_read("regen", "product-broken", [
        "Loader is not disappearing on the agents page: the loader is continuously running",
        "On the agents list the spinner is stuck and the page loads forever",
        "Infinite loading spinner after login to the agents dashboard",
    ])
    assert_not_read("regen", "product-broken", [
        "The spinner keeps spinning forever while waiting for the agent.",
        "The agent is stuck: the page loads forever and the agent gets stuck on it",
    ])


def test_host_render_rule_leaves_app_errors_in_screenshots_to_the_app():
    # visual-diff-put-on-host-fonts-or-arch used to read any "failed without changing UI" beside a
    # snapshot word as a render-host mismatch (infra), even when the screenshot showed the app's own
    # 500 page, an uncaught TypeError or a backend change.
    assert_not_read("replay", "render-host-mismatch", [
        "Screenshot test failed without changing UI: the submit button now shows a 500 Internal Server Error page in the diff image.",
        "Screenshots failed without changing UI code; the dashboard now throws Uncaught TypeError: x is undefined after the API change, screenshot diff shows blank page",
        'Our Chromatic snapshot tests failed without changing UI: the backend now returns an empty product list, so the stories render "No results".',
    ], not_bucket="infra")
    # positive control: its own wording is still read
    assert_read("replay", "render-host-mismatch", [
        "Recently the new loki version 0.30.0 the test failed without changing UI. Reverted to 0.29.0 and the loki test passes using existing reference images.",
    ], bucket="infra")


def test_stale_baseline_rule_leaves_styling_regressions_to_the_app():
    # visual-baselines-left-behind-ui-changes used to read "baseline not up to date" whatever the
    # cause, so a report of a real CSS regression became a stale script.
    assert_not_read("replay", "label-path-mismatch", [
        "Percy: baseline not up to date because the header now renders broken: the logo overlaps the nav after the CSS regression in #412. Expected no visual changes.",
    ], not_bucket="stale-script")
    assert_read("replay", "label-path-mismatch", [
        "# Percy baseline not up to date\nPercy visual regression tests are still flagging up old changes because the baseline is missing many updated screenshots.",
    ], bucket="stale-script")


def test_not_the_apps_defect_ja_does_not_take_the_test_side_for_the_app():
    # not-the-apps-defect-ja used to read any "X側の不具合によるものではない" as infra, also when X is
    # the test side, which points at the app instead.
    assert_not_read("replay", "automation-setup-error", [
        "テスト側の不具合によるものではない。アプリの保存処理で例外が発生しています: NullPointerException",
    ], not_bucket="infra")
    assert_read("replay", "automation-setup-error", [
        "E2Eテストが内部エラーで落ちる。EC-CUBE側の不具合に起因するものではない模様。",
    ], bucket="infra")


def test_tests_followed_app_change_ja_leaves_app_bugs_to_the_app():
    # tests-followed-app-change-ja used to read any Japanese selector or "落ちないように修正" fix as a
    # script behind the app, even when the report says the app itself is at fault.
    assert_not_read("replay", "label-path-mismatch", [
        "アプリの不具合でE2Eテストが落ちる。ロケータを更新したが、保存ボタンを押すと画面が真っ白になる (TypeError: Cannot read properties of undefined)",
        "E2Eテストが落ちないように修正しましたが、本番でも同じ不具合が発生しているのでアプリ側のバグです。",
    ], not_bucket="stale-script")
    assert_read("replay", "label-path-mismatch", [
        "# E2Eテストの詳細検索ボタン修正\n詳細検索ボタンの xpath を修正",
    ], bucket="stale-script")


def test_e2e_broken_by_app_change_leaves_server_errors_and_browser_updates_alone():
    # e2e-tests-broken-by-app-change-in-prose used to read "tests failing after the app update" as a
    # stale script beside a bare 500, a validation failure or a new Chrome.
    assert_not_read("replay", "label-path-mismatch", [
        "E2E tests failing after the app update: the checkout page throws 500 on submit",
        "Cypress tests fail since the UI changes: the save button is disabled and never enables, form validation rejects a valid email",
        "UI tests broke after the app update because the new Chrome 120 headless mode changed screenshot size",
    ], not_bucket="stale-script")
    assert_read("replay", "label-path-mismatch", [
        "# EVG-16871: Fix e2e test\n- Fix e2e test broken by app changes",
    ], bucket="stale-script")


def test_squish_aut_rule_leaves_an_app_that_throws_on_launch():
    # squish-aut-did-not-start used to read "AUT did not start" as infra even when the app threw its
    # own exception on launch.
    assert_not_read("replay", "automation-setup-error", [
        "Test failed: the AUT did not start because the application throws an unhandled exception on launch: System.NullReferenceException in MainWindow.xaml.cs",
    ], not_bucket="infra")
    assert_read("replay", "automation-setup-error", [
        "# Squish tests - cannot run AUT\nUnable to start client during squish tests.\nNeed to add kdsingleapplication in squish image also",
    ], bucket="infra")


def test_name_mapping_rule_leaves_an_app_crash_to_the_app():
    # testcomplete-name-mapping-changed used to read "mapped objects have changed" as a stale script
    # even when the report says the app crashes and the object never appears.
    assert_not_read("replay", "label-path-mismatch", [
        "TestComplete test fails: the mapped objects have changed because the app now crashes on the Orders screen and the panel never appears.",
    ], not_bucket="stale-script")
    assert_read("replay", "label-path-mismatch", [
        "TestComplete: when this namemapping changes all my tests become unrunnable",
    ], bucket="stale-script")


def test_recorder_rule_leaves_a_broken_app_to_the_app():
    # recorder-picked-wrong-selector used to read "codegen generated the locator ... fails" as the
    # recorder's fault even when the report says the app is broken (TypeError).
    assert_not_read("replay", "label-path-mismatch", [
        "codegen generated the locator fine; the test fails because the button is broken in the app (TypeError)",
    ], not_bucket="stale-script")
    assert_read("replay", "label-path-mismatch", [
        "You can see that Studio picked a selector that only existed after the mousedown. Therefore, when the test runs, it will fail.",
    ], bucket="stale-script")


def test_console_error_on_visit_stands_down_for_agent_tools():
    # app-console-error-on-visit read a browser agent's own console error after opening
    # the app's URL (browser-use, Stagehand) as the app's JavaScript failing (product-uxux).
    assert_not_read("regen", "product-broken", [
        "After navigating to http://localhost:3000 the browser-use agent logs an error in the console: "
        "Failed to inject DOM tree script, buildDomTree.js returned null",
        "Opening http://localhost:8080 with Stagehand there are errors in the console: "
        "StagehandDefaultError: failed to initialise the page",
    ], not_bucket="product-uxux")
    assert_read("regen", "product-broken", [
        "Browsing to http://ps.example.net/ I see this error in the console.",
    ], bucket="product-uxux")


def test_console_asset_404_not_tool_endpoints_or_reports():
    # app-console-asset-404 read a 404 from Ollama's API, the Playwright trace viewer, and
    # 'the report's screenshots do not show' (Japanese) as the app's missing assets.
    assert_not_read("regen", "page-not-found", [
        "GET http://localhost:11434/api/chat 404 (Not Found) when midscene calls ollama",
        "GET http://localhost:9323/trace/index.html 404 (Not Found) when I open the Playwright HTML report",
        "テストレポートのスクリーンショット画像が表示されない。Midsceneのレポートを開いても画像が表示されない",
    ], not_bucket="product-uxux")
    assert_read("regen", "page-not-found", [
        "Console outputs: GET http://staff.example.camp/media/photos/a.png 404 (NOT FOUND)",
        "404ページの画像が表記されない",
    ], bucket="product-uxux")


def test_llm_provider_not_configured_needs_setup_wording():
    # llm-provider-not-configured read an app's own AI feature showing 'AI provider is
    # not configured' on its page as the test tool's model set-up (infra).
    assert_not_read("regen", "tool-setup-error", [
        'The chat page of our app shows "AI provider is not configured" when I click Ask, so the test cannot continue',
    ], not_bucket="infra")
    assert_read("regen", "tool-setup-error", [
        "NotImplementedError: Your LLM provider is not configured. Please configure it in the .env file.",
    ], bucket="infra")


def test_zero_success_needs_a_benchmark():
    # benchmark-reproduction-zero-success read 'Steps to reproduce' followed by an app's
    # payment success rate of 0% as a benchmark harness misconfigured (infra).
    assert_not_read("regen", "tool-setup-error", [
        "Steps to reproduce: add an item and click Checkout. The payment success rate is 0% since "
        "yesterday's deploy, every order fails with \"Payment declined\"",
    ], not_bucket="infra")
    assert_read("regen", "tool-setup-error", [
        "在复现OSWorld基准测试时，模型在3步内主动输出FAIL终止任务，成功率0%。",
    ], bucket="infra")


def test_model_not_taking_screenshots_is_not_image_input_setup():
    # model-without-image-input-for-screenshots read 'the LLM does not take screenshots'
    # (an agent that acts without looking and clicks the wrong element) as a model set up
    # without image input (infra).
    assert_not_read("regen", "tool-setup-error", [
        "The LLM does not take screenshots after each action, so it clicked the wrong Delete button",
    ], bucket="agent-course")
    assert_read("regen", "tool-setup-error", [
        "A multimodal large model capable of receiving and identifying images is required. "
        "The large model you are using may not support receiving images.",
    ], bucket="infra")


def test_upload_field_local_path_is_not_agent_attachment():
    # agent-attachment-only-local-path read an app's file-upload field that shows only the
    # local path and never uploads as the agent's send tool passing a path (infra).
    assert_not_read("regen", "tool-code-error", [
        "After choosing a file the attachment field only shows the local path C:\\fakepath\\report.pdf "
        "and the upload never starts",
        "选择文件后附件只有本地路径，点击上传没有反应",
    ], not_bucket="infra")
    assert_read("regen", "tool-code-error", [
        "连接个人电脑后，Agent 发送的截图或文件只有本地路径，Web 无法查看",
    ], bucket="infra")


def test_app_fix_released_is_not_the_tools():
    # tool-fix-released-zh read any '已修复 … 新版本/发布' (an app's developer saying its
    # 500 is fixed and will ship) as the test tool's fix, moving the app's 5xx to infra.
    assert_not_read("regen", "tool-code-error", [
        "提交按钮点击后页面报500。开发回复：这个问题已经修复，会在下周的新版本中发布",
    ], bucket="product-uxux")
    assert_read("regen", "tool-code-error", [
        "bug: 已连接手机,回复500。这个问题已经修复完成，我们已经发布了包含该修复的新版本 v1.5.14",
    ], bucket="infra")


def test_model_service_connection_cleared_by_retry_stays_out_of_setup():
    # model-service-not-reached-zh read '模型服务连接失败，重试一次就好了' (a retry cleared
    # it) as a model endpoint to fix in the set-up (infra).
    assert_not_read("regen", "tool-setup-error", [
        "模型服务连接失败，重试一次就好了",
    ], not_bucket="infra")
    assert_read("regen", "tool-setup-error", [
        "Error: Connection error.\n模型服务没连上，参考文档检查一下",
    ], bucket="infra")


def test_mcp_connection_failure_cleared_by_retry_stays_out_of_setup():
    # mcp-connection-failure-pt-es read an MCP connection error that worked on the next
    # try (Portuguese, Spanish) as an MCP server that does not start (infra).
    assert_not_read("regen", "tool-setup-error", [
        "O MCP deu erro de conexão hoje de manhã, mas depois de tentar de novo funcionou",
        "El MCP da error de conexión, pero al volver a intentar funciona",
    ], not_bucket="infra")
    assert_read("regen", "tool-setup-error", [
        "hoje o MCP está dando falha na conexão. Já tentei todos os metodos possiveis de solução e nada!",
    ], bucket="infra")


def test_htmlproofer_external_timeouts_are_not_broken_links():
    # link-checker-missing-target read 'HTML-Proofer found 3 failures!' over external
    # links that timed out (a blip) as the site's broken links (product-uxux).
    assert_not_read("regen", "product-broken", [
        "HTML-Proofer found 3 failures! External link https://twitter.com/foo failed: got a time out (response code 0)",
    ], bucket="transient")
    assert_read("regen", "product-broken", [
        "internally linking to publishing-snapshots/WD-metadata/Overview.html, which does not exist (line 190)\n"
        "Error:  HTML-Proofer found 1 failure!",
    ], bucket="product-uxux")


def test_flaky_layout_shift_budget_is_not_a_page_defect():
    # page-layout-shift-poor read a Lighthouse CI CLS budget that fails only on some runs
    # and passes on a rerun as the app's layout defect (product-uxux).
    assert_not_read("regen", "product-broken", [
        "Lighthouse CI: Cumulative Layout Shift exceeds the budget on some runs, it's flaky and passes on a rerun",
    ], bucket="transient")
    assert_read("regen", "product-broken", [
        "Mobile: Cumulative Layout Shift (CLS) >0.1, which exceeds the Google recommendations for mobile.",
    ], bucket="product-uxux")


def test_cdp_errors_cleared_on_retry_stay_blips():
    # cdp-operation-timed-out-or-superseded and cdp-target-session-gone read a CDP
    # time-out or lost session that passed on the retry / next run as the tool's browser
    # being unusable (infra).
    assert_not_read("regen", "browser-unavailable", [
        "CDP operation refresh tabs timed out after 20000ms. It happened once and the next run passed.",
        "Protocol error (Target.attachToTarget): Session with given id not found. Happened once, passed on retry.",
    ], bucket="transient")
    assert_read("regen", "browser-unavailable", [
        "`CDP operation refresh tabs timed out after 20000ms`\nThe failure reproduced across multiple fresh sessions.",
        "Failed to install browser network controls: CDP error (Page.enable): Session with given id not found.",
    ], bucket="infra")


def test_not_always_passing_on_ci_is_not_a_load_flake():
    # ci-load-flake-retried read 'doesn't always pass on CI because the agent clicks
    # Cancel' (the agent's course) as a load flake a retry clears (transient).
    assert_not_read("regen", "intermittent-flake", [
        "The test doesn't always pass on CI because the agent clicks the Cancel button instead of Save",
    ], not_bucket="transient")
    assert_read("regen", "intermittent-flake", [
        "I'm not sure why they don't always load on CI but let's retry the test when they don't.",
    ], bucket="transient")


def test_app_api_playground_is_not_the_tools_playground():
    # works-in-tool-playground-not-in-run read an app's own API playground ('the search
    # endpoint works in the playground but fails when the page calls it', GraphQL) as the
    # test tool's playground, moving the app's failure to infra.
    assert_not_read("regen", "tool-code-error", [
        'The search endpoint works in the playground but fails when the page calls it: the results list '
        'stays empty and shows "Error loading results"',
        "The query works in the GraphQL playground but the dashboard page shows an empty table",
    ], not_bucket="infra")
    assert_read("regen", "tool-code-error", [
        "定位筛选框底部按钮准确度很低，但是在playground中可以精准定位",
    ], bucket="infra")


def test_missing_alt_text_blamed_for_agent_pick_is_not_a_scanner_finding():
    # accessibility-scanner-flags-page read 'the agent picked the wrong image because the
    # product photo has no alt text' (the agent's course) as a scanner's finding on the
    # page (product-uxux).
    assert_not_read("regen", "product-broken", [
        "The agent picked the wrong image because the product photo has no alt text",
    ], bucket="agent-course")
    assert_read("regen", "product-broken", [
        "Siteimprove is reporting that http://www.example.edu/logo.png has no alt text on http://www.example.edu/",
    ], bucket="product-uxux")


def test_app_autofocus_moving_focus_is_not_the_tools_typing():
    # typed-text-focus-moved-elsewhere read an app whose own autofocus script moves focus
    # while typing as the tool's type action losing focus (infra).
    assert_not_read("regen", "tool-code-error", [
        "The type action worked but the focus was changed by the app's own autofocus script, "
        "which moves focus to the search field on every keystroke",
    ], not_bucket="infra")
    assert_read("regen", "tool-code-error", [
        'the type function seem to be working, but the "focus" is changed to another thing.',
    ], bucket="infra")


def test_app_limited_to_primary_monitor_is_not_the_input_library():
    # gui-input-library-primary-monitor-only read a desktop app under test that 'only
    # supports the primary monitor' (its dialog blank on a second screen) as the agent's
    # input library's screen set-up (infra).
    assert_not_read("regen", "tool-setup-error", [
        "The app only supports the primary monitor: opening the Settings dialog on a second screen leaves it blank",
    ], not_bucket="infra")
    assert_read("regen", "tool-setup-error", [
        "pyautogui, which is used by Agent-S to control the computer, cannot deal with multiple monitors. "
        "Currently, PyAutoGUI only works on the primary monitor.",
    ], bucket="infra")


def test_lighthouse_screenshot_codes_stand_down_for_a_blank_or_busy_page():
    # lighthouse-trace-or-screenshot-error-code used to read every NO_SCREENSHOTS / PROTOCOL_TIMEOUT as the
    # measuring browser's fault, so a page that rendered blank or hung its main thread was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        "After the last deploy our app renders a blank white page (the React root throws before mounting). "
        "Lighthouse CI now fails: Runtime error encountered: Chrome didn't collect any screenshots during the page load. "
        "Please make sure there is content visible on the page, and then try re-running Lighthouse. (NO_SCREENSHOTS)",
        "LH:PROTOCOL_TIMEOUT Waiting for DevTools protocol response has exceeded the allotted time. (Method: Runtime.evaluate) "
        "(PROTOCOL_TIMEOUT). The page's main thread is stuck in an infinite loop in our carousel script since v2.3.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "driver-internal-error", [
        "Runtime error encountered: Something went wrong with recording the trace over your page load. "
        "Please run Lighthouse again. (NO_TRACING_STARTED)",
        '"runtimeError": {"code": "NO_SCREENSHOTS", "message": "Chrome didn\'t collect any screenshots during the page load."}',
    ], bucket="infra")


def test_fix_diff_of_the_apps_own_jquery_is_not_a_script_selector():
    # fix-diff-replaces-script-selector used to take any `$(` / `$$(` diff line for a test lookup, so an app
    # fix to its own jQuery handler was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Bug: clicking Save does nothing on the profile page. Fix in our frontend code:\n"
        "- $('.save-btn').click(saveProfile);\n"
        "+ $('.btn-save').click(saveProfile);",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "-      cy.get('.chart-container .header_line');\n"
        "-      cy.get('.chart-container .subheader_line');\n"
        "+      cy.get('.chart-container .header-line');\n"
        "+      cy.get('.chart-container .subheader-line');\n"
        "A lot of these tests are now broken.",
        "-    await $('.login-btn').click();\n+    await $('[data-test=login]').click();",
    ], bucket="stale-script")


def test_known_bugs_of_the_tool_or_the_selectors_are_not_product_bugs():
    # failure-is-known-product-bug used to read `failing because of known/existing bugs` whatever they were bugs
    # in, so known bugs in Cypress or in the suite's own selectors were read as product-defect.
    assert_not_read("replay", "app-bug-filed", [
        "Cypress tests are failing because of known bugs in Cypress 13.6 (cypress-io/cypress#28000): Timed out retrying "
        "after 4000ms: Expected to find element: [data-cy=submit], but never found it. The button is on the page and visible.",
    ], not_bucket="product-defect")
    assert_not_read("replay", "app-bug-filed", [
        "The e2e tests are failing because of existing bugs in the e2e selectors (we still query #login, renamed to "
        "#signin last sprint):\nTimed out retrying after 4000ms: Expected to find element: #login, but never found it.",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-bug-filed", [
        "PurchaseWithProductTypes, WeightRecalculate and SiteSettings - tests are failing because of existing bugs, so that is correct",
        "Yes, it's a known product bug (https://mattermost.atlassian.net/browse/MM-38076) which I missed to mention.",
    ], bucket="product-defect")


def test_git_bisect_of_the_test_tool_is_not_an_app_regression():
    # product-regression-git-bisect-to-change used to read any bisect traced to a PR as the app's, so a bisect run
    # on Playwright's own repo was read as product-defect.
    assert_not_read("replay", "app-regression-bisected", [
        "I ran git bisect on the playwright repo and tracked it down to this PR: microsoft/playwright#28000, which "
        "changed how the chromium launcher passes flags. Our tests time out since 1.40.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-regression-bisected", [
        "I noticed that integration tests for `open_ai_smart_menu_test` have been failing consistently lately. "
        "I ran a `git bisect` and tracked it to this PR.",
    ], bucket="product-defect")


def test_undefined_steps_right_after_a_runner_upgrade_are_not_a_stale_script():
    # bdd-step-definition-missing used to read every `Undefined. Implement with the following snippet` as step glue
    # behind the feature text, so steps a cucumber upgrade stopped loading were read as stale-script.
    assert_not_read("replay", "step-definition-mismatch", [
        "After upgrading @cucumber/cucumber from 7 to 8 every step says Undefined. Implement with the following snippet: "
        "... The step definitions are unchanged and worked on 7.",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "step-definition-mismatch", [
        'pytest_bdd.exceptions.StepDefinitionNotFoundError: Step definition is not found: Given "an agent configured". '
        'Line 18 in scenario "A configured API key takes precedence"',
        "Scenario: add todo\n  ? Given I have a todo\n      Undefined. Implement with the following snippet:",
    ], bucket="stale-script")


def test_lhci_audit_not_run_after_an_accidental_removal_is_the_page():
    # lhci-assertions-for-audits-not-collected used to take any `was removed` beside an auditRan failure for an
    # intended change, so a hero image removed by accident was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Lighthouse CI: largest-contentful-paint-element failure for auditRan assertion, expected: >=1 found: 0. "
        "The hero image was removed from the homepage by accident and now the page renders nothing above the fold.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Currently when `collect` command is using the lighthouse config file with `onlyCategories` set subsequent "
        "`assert` **fails** with a list of errors like this one:\n\naria-command-name failure for auditRan assertion\n"
        "        expected: >=1\n           found: 0",
    ], bucket="stale-script")


def test_an_apps_queued_session_is_not_the_selenium_grid():
    # grid-session-queue-dropped-request used to accept `selenium` or `node` as the Grid's words, so a Selenium test of
    # a support chat whose own queue rejected the session was read as infra.
    assert_not_read("replay", "automation-setup-error", [
        'Selenium test test_support_chat fails: after clicking "Start chat" the widget shows "Your queued session was '
        'rejected. Please try again later." instead of connecting to an agent; the support backend\'s node process crashed.',
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "automation-setup-error", [
        "# [Bug]: Session request timeout not respected from version 4.27+ - queued sessions killed prematurely\n"
        "11:29:15.421 -> The queued session is rejected with HTTP 500:\n"
        "I've explicitly set -session-request-timeout to 10 minutes, but the session gets killed within 2 to 3 minutes instead.",
    ], bucket="infra")


def test_cucumber_hook_waiting_on_a_hung_app_endpoint_is_the_app():
    # cucumber-hook-function-timed-out used to read every timed-out Before hook as a slow set-up, so a hook stuck on
    # the app's own endpoint that hangs since a backend deploy was read as infra.
    assert_not_read("replay", "timeout-on-trivial-wait", [
        "× Before # features/support/hooks.js:3\n"
        "  Error: function timed out, ensure the promise resolves within 5000 milliseconds\n"
        "The hook calls our /api/seed endpoint which hangs since the last backend deploy (it never responds).",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "timeout-on-trivial-wait", [
        "1) Scenario: add todo # features\\page.feature:6\n"
        "   × Before # features\\support\\steps.js:3\n"
        "       Error: function timed out, ensure the promise resolves within 5000 milliseconds\n"
        "   - Given I have a todo \"clean the kitchen\" # features\\support\\steps.js:11",
    ], bucket="infra")


def test_webpagetest_no_results_from_the_sites_own_certificate_is_the_site():
    # webpagetest-no-successful-results used to read the agent's summary as the agent's fault unless a 5xx or 404 was
    # quoted, so a site whose TLS certificate expired was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        "The test completed but there were no successful results. The site returned an ERR_CERT_DATE_INVALID error; "
        "our TLS certificate expired yesterday.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "driver-internal-error", [
        "When looking at the failures in action, the page loads fine but stays open until the agent times out, then the "
        "results show `The test completed but there were no successful results`.",
    ], bucket="infra")


def test_lhci_no_paint_on_a_later_run_blamed_on_the_page_is_the_page():
    # lighthouse-no-paint-on-a-later-run used to put every later NO_FCP on the runner's Chrome, so a page the report
    # says intermittently renders blank (its hydration script throws) was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        "Lighthouse CI: Run #1...done. Run #2...done. Run #3...failed! Error: NO_FCP The page did not paint any content. "
        "Our page intermittently renders blank because the hydration script throws on a race.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "driver-internal-error", [
        "Run #1...done.\nRun #2...done.\nError: Lighthouse failed with exit code 1\nRun #3...failed!\n"
        '"runtimeError": {\n    "code": "NO_FCP",\n    "message": "The page did not paint any content. (NO_FCP)"\n  },',
    ], bucket="infra")


def test_tree_change_the_report_calls_the_apps_bug_is_the_app():
    # tests-failing-after-widget-tree-change used to read any failure `due to a change in the widget/component tree`
    # as finders behind a deliberate change, so a tree change the report calls a bug or regression of the app was
    # read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Golden tests fail due to a change in the widget tree: since 3.2 the Save button is no longer rendered at all "
        "when the form is dirty, which is a bug in the form widget.",
        "Integration tests started failing due to changes in the component tree; the settings page now renders an empty "
        "list because the provider was moved below the consumer, a regression in the app.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# [Bug] Integration tests failing\nIntegration tests are currently failing due to a change in the Widget tree "
        "of the Navigation's View Item.",
    ], bucket="stale-script")


def test_test_generator_maven_plugin_lets_model_api_blips_through():
    # test-generator-maven-plugin-fails used to read any failed chatunitest goal as the plugin's own code,
    # so the model API's 429, a socket time-out or a 503 wrapped in the goal was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "[ERROR] Failed to execute goal io.github.ZJU-ACES-ISE:chatunitest-maven-plugin:1.4.2:method (default-cli) on project demo: Execution default-cli failed: OpenAI API error 429 Too Many Requests: Rate limit reached for gpt-4o",
        "[ERROR] Failed to execute goal io.github.ZJU-ACES-ISE:chatunitest-maven-plugin:1.4.2:class (default-cli) on project demo: java.net.SocketTimeoutException: timeout while calling https://api.openai.com/v1/chat/completions",
        "[ERROR] Failed to execute goal io.github.ZJU-ACES-ISE:chatunitest-maven-plugin:1.4.2:project on project demo: LLM request failed: 503 Service Unavailable from api.openai.com",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "[ERROR] Failed to execute goal io.github.ZJU-ACES-ISE:chatunitest-maven-plugin:1.4.2:method (default-cli) on project Java-WebSocket: Execution default-cli of goal io.github.ZJU-ACES-ISE:chatunitest-maven-plugin:1.4.2:method failed: There are no variable actions in this node",
        "# In ClassTestMojo.execute: java.nio.file.NoSuchFileException: /tmp/chatunitest-info/abc-core/class-map.json",
    ], bucket="infra")


def test_french_app_control_stands_down_for_ai_bot_automation_and_flakes():
    # app-control-fails-fr used to read any French "boutons ne fonctionnent pas" / "renvoie vers la page
    # d'accueil" as the product's, so an AI that clicked the wrong link was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "L'IA clique sur le lien « Contact » au lieu de « Connexion » ; ce lien renvoie vers la page d'accueil.",
        "Le bot de génération de tests clique sur le mauvais bouton : le lien renvoie vers la page d'erreur.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Le test automatique clique sur le bouton « Envoyer » mais les boutons ne fonctionnent pas ; en manuel tout fonctionne.",
        "Les boutons ne fonctionnent pas par intermittence, ça remarche après un rechargement de la page.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Le bouton «dossier» & «test» (roue cranté) renvoie vers une page d'erreur",
        "Les boutons «prev», «next» et «refresh» ne semblent pas fonctionner",
    ], bucket="product-uxux")


def test_portuguese_signup_stands_down_for_network_rate_limit_and_ai():
    # app-signup-or-button-fails-pt used to read "Erro ao cadastrar" and "botões não funcionam" whatever
    # came with them, so a network error or a 429 during sign-up was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Erro ao cadastrar: Network Error (falha de conexão com o servidor, ERR_CONNECTION_RESET)",
        "Erro ao cadastrar: request failed with status code 429 Too Many Requests",
    ], bucket="transient")
    assert_not_read("regen", "product-broken", [
        "A IA clicou no botão errado; os botões do menu não funcionam porque o modal de cookies está por cima.",
        "Os botões não respondem no teste gerado; funcionou na segunda execução.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Não é possível cadastrar no site. A página retorna erro na hora de cadastrar com um Toast: \"Erro ao Cadastrar\"",
        "Botões não respondem quando clicados. Clico no botão cadastrar ele fica parado na mesma tela.",
    ], bucket="product-uxux")


def test_chinese_upgrade_rule_needs_a_tool_not_an_agent_or_proxy():
    # tool-failure-survives-upgrade-zh used to count "agent" (also in user-agent) and 代理 (proxy, dealer)
    # as a tool, so an agent looping after an upgrade was read as infra, and a site upgrade too.
    assert_not_read("regen", "tool-setup-error", ["Agent 升级后仍然反复点击同一个按钮，陷入循环"], bucket="agent-course")
    assert_not_read("regen", "tool-setup-error", ["升级后仍然报错：网络连接超时 ECONNRESET，代理设置正常"], bucket="transient")
    assert_not_read("regen", "tool-setup-error", [
        "网站升级后仍然无法提交订单，user-agent 为 Chrome 120",
        "我们的网站升级后也无法登录，代理商后台页面 404",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "Windows 桌面端：升级后内置 Browser 仍持续超时\n失败调用：mcp__cua_repl.js\n已尝试完全重启应用，并通过官方 MSIX 包升级。升级后仍复现。",
        "插件升级后仍然无法启动浏览器",
    ], bucket="infra")


def test_run_ending_after_one_action_stands_down_for_captcha_and_rate_limit():
    # tool-run-ends-after-one-action used to read any agent that "returns after the first step" as its
    # framework's code, so a captcha wall or a 429 that ended the run was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The agent returns after the first step: the site shows a Cloudflare captcha 'Verify you are human' on the login page.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "run_task returns after a single action because the LLM call fails with 429 Too Many Requests (rate limit exceeded).",
    ], bucket="transient")
    assert_not_read("regen", "tool-code-error", [
        "Agent returns after one step every time: the page shows 'Access denied' 403 Forbidden.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "it seem like run_task returns after executing a single action. every single time fallback_node is called the task is marked as completed",
    ], bucket="infra")


def test_tap_at_right_coordinates_stands_down_for_disabled_control_or_frozen_app():
    # device-tap-at-right-coordinates-no-effect used to read any tap "sent to the correct coordinates" with
    # no effect as the driver's, so a button greyed out until a required field is filled was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "adb input tap is sent to the correct coordinates but nothing happens: the Submit button is greyed out until the required email field is filled, which the agent skipped.",
    ], bucket="agent-course")
    assert_not_read("regen", "tool-code-error", [
        "The tap command was executed at the correct coordinates, but the tap had no effect because the app froze with an ANR: Application Not Responding",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "the first aiTap after a page navigation sometimes fails to register — the AI correctly identifies the element position, the ADB command is sent to the correct coordinates, but the tap has no effect on the app",
    ], bucket="infra")


def test_adb_command_failed_stands_down_for_app_crash_and_dropped_connection():
    # phone-agent-adb-command-failed used to read every failed adb shell call as the tool's plumbing, so
    # the app crashing under monkey, or a wireless adb connection reset, was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "Error: Command failed: adb -s emulator-5554 shell monkey -p com.example.shop 1\n// CRASH: com.example.shop (pid 4242)\n// Short Msg: java.lang.NullPointerException\nFATAL EXCEPTION: main Process: com.example.shop",
    ], not_bucket="infra")
    assert_not_read("regen", "tool-code-error", [
        "Error: Command failed: adb -s 192.168.1.5:5555 shell screencap -p\nadb: error: connection reset by peer; device offline",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "mobile_take_screenshot not working for android? Error: Command failed: /Users/xxxx/Library/Android/sdk/platform-tools/adb -s 192.168.86.32:5555 shell cmd display get-displays",
    ], bucket="infra")


def test_lost_screenshot_stands_down_for_network_app_gallery_and_ui_toggle():
    # phone-agent-loses-own-screenshot-file used to read any "cannot find/load the screenshot", so a
    # download cut by the network was read as infra, and an agent lost in Settings too.
    assert_not_read("regen", "tool-code-error", [
        "Failed to load the screenshots: net::ERR_CONNECTION_RESET while fetching from the storage bucket",
    ], bucket="transient")
    assert_not_read("regen", "tool-code-error", [
        "The agent could not find the screenshot toggle in Settings and kept scrolling the same list over and over.",
    ], bucket="agent-course")
    assert_not_read("regen", "tool-code-error", [
        "Users report they cannot find the screenshot in the gallery after tapping Share in version 3.1; the gallery shows nothing.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "my adb can take screenshots, and the agent can also recognize the screenshots, but there was an error when the agent was operating on the file, which ultimately led to the inability to find the screenshots.",
    ], bucket="infra")


def test_accessibility_service_stands_down_for_the_apps_own_prompt_and_a_passing_rerun():
    # phone-agent-accessibility-service-unavailable used to read the app's own "Accessibility service is
    # not enabled" prompt, and one that cleared on the next attempt, as the phone agent's set-up.
    assert_not_read("regen", "tool-setup-error", [
        "Accessibility service is not enabled. Please enable it in Settings > Accessibility to use the screen reader features of our app.",
        "Accessibility service not connected after the emulator restarted; it worked again on the next attempt.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "ValueError: Error retrieving clickable elements: Failed to get UI elements after 30 seconds of retries",
        "WARNING:Device:Failed to get views using Accessibility.",
    ], bucket="infra")


def test_first_run_failure_stands_down_for_server_error_network_and_agent():
    # command-fails-every-first-run used to read any "action always fails the first time" as the tool's
    # bug, so the app's 500, a network error or an agent behind a modal was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The Checkout action always fails the first time: the cart page returns 500 Internal Server Error, then it works.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "Our save action always errors out on the first attempt with 'Network Error' ECONNRESET, a second click works.",
    ], bucket="transient")
    assert_not_read("regen", "tool-code-error", [
        "The login action always fails on the first try because a cookie consent modal covers the button and the agent keeps clicking it.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "Generate Unit Tests command never works the 1st time; it works the 2nd time (I can repro this consistently)",
    ], bucket="infra")


def test_browserless_session_timer_stands_down_for_a_page_navigation_timeout():
    # browser-service-session-timer used to read "Job has hit timeout after" whatever ended the job, so a
    # page that never finished loading (a navigation time-out) was read as infra.
    assert_not_read("regen", "tool-setup-error", [
        "Job has hit timeout after 30,003ms of activity: the page never finished loading, Navigation timeout of 30000 ms exceeded",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "puppeteer  |   browserless.io:limiter:warn  Job has hit timeout after 30,003ms of activity. +4m",
    ], bucket="infra")


def test_preview_protection_needs_the_gate_as_the_cause():
    # preview-deployment-protection-blocks-e2e used to fire on any mention of the protection or its
    # bypass near a failed e2e run, so "... even with the Vercel protection bypass header set: the
    # checkout page returns 500" was read as infra (app-unreachable) though the app answered.
    assert_not_read("replay", "app-unreachable", [
        "Cypress e2e tests fail on the preview deployment even with the Vercel protection bypass header set: the checkout page returns 500 Internal Server Error",
        "Vercel deployment protection is configured with the automation bypass so the e2e tests reach the app; the tests fail because POST /api/orders returns 500 Internal Server Error",
        'Netlify password protection is off for previews. E2E tests fail: Error: expect(locator).toHaveText: Expected "Total: $20" Received "Total: NaN"',
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-unreachable", [
        "Vercel deployment protection is currently disabled for previews because enabling it causes e2e tests to fail. The fix for this is to enable automation bypass",
        "Playwright tests fail with 401 because of the Vercel deployment protection on preview builds",
    ], bucket="infra")


def test_server_wait_timeout_vetoed_by_app_compile_errors():
    # pre-test-server-wait-timed-out vetoed only some of the app's own start-up failures, so a wait
    # that ran out while webpack could not resolve the app's import, or tsc rejected its source,
    # was read as infra (app-unreachable) though the app did not start because of itself.
    assert_not_read("replay", "app-unreachable", [
        "Error: Server has taken more than 60000ms to start.\n[Jest Dev server] Module not found: Error: Can't resolve './components/Header' in '/app/src'",
        "Error: Timed out waiting for: http://localhost:3000\n[0] ERROR in src/app/app.component.ts:12:3 - error TS2339: Property 'title' does not exist on type 'AppComponent'.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-unreachable", [
        "Jest dev-server output:\nError: Server has taken more than 5000ms to start.\n    at setupJestServer (node_modules/jest-process-manager/lib/index.js:211:19)",
        "Compiling cdk-table-exporter : es2015 as esm2015\nError: Timed out waiting for: https://localhost:3000/app/login\n    at node_modules/wait-on/lib/wait-on.js:132:31",
    ], bucket="infra")


def test_environment_not_up_is_not_service_worker_or_a_failed_assertion():
    # app-environment-not-coming-up let any words follow "because the service/server", and took any
    # "fail" after "wait for the app to start and then", so a service worker that is not ready, a
    # server component not ready at hydration, or an assertion failing after the app started were
    # read as infra (app-unreachable).
    assert_not_read("replay", "app-unreachable", [
        'The offline page never shows because the service worker is not ready when the app navigates; the e2e test fails: expected "You are offline" to be visible',
        "Checkout shows a blank page because the server component is not ready when the client hydrates. Error: Hydration failed because the initial UI does not match what was rendered on the server.",
        "The e2e tests wait for the app to start and then fail on the first assertion: AssertionError: expected '/login' to equal '/dashboard'",
    ], bucket="product-defect")
    assert_not_read("replay", "app-unreachable", [
        "Our Cypress tests wait for the server to start and then fail on the login step: Timed out retrying after 4000ms: Expected to find element: [data-test=submit], but never found it.",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-unreachable", [
        "Sometimes workflows are broken because there are broken tests but the reason they are broken is because the service is not up and running (for example the tracker).",
        "Tests fail because the database container is not ready when the suite starts",
        "The application is not running it the CI env so the e2e tests wait for the app to start and then fail silently",
    ], bucket="infra")


def test_out_of_date_test_file_needs_the_ui_and_actual_bug_vetoes():
    # component-specs-behind-markup read any "test file is out of date" and vetoed only "real bug",
    # so a compiled test file out of date in ts-jest's cache and markup-coupled tests that "caught an
    # actual bug" were read as stale-script (label-path-mismatch).
    assert_not_read("replay", "label-path-mismatch", [
        "ts-jest keeps running the old code: the compiled test file is out of date in the cache, clearing the cache with jest --clearCache fixes it",
        "Vitest watch mode does not re-run: the module graph for the test file is out of date after a rename, so the old import is used",
        "Since we changed the templates last sprint the card tests fail. The tests are tightly coupled to the implementation, but this one caught an actual bug: the price is rendered as NaN",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# src/components/textField/textField.spec.js out of date?\nAs the spec file stands in `master`, the tests all pass.",
        "The spec file is out of date: its template no longer matches the component's",
        "While updating the components to use Vanilla 1.8.0 styling/markup (from 1.6.6) I found that pretty much every component that changed had their tests fail. This was due to the tests being very tightly coupled with the markup",
    ], bucket="stale-script")


def test_happy_dom_swap_and_failure_in_one_sentence():
    # happy-dom-environment-divergence took any failure word up to 200 characters after "from jsdom
    # to happy-dom", across sentences, so a past swap mentioned beside a release's regression or a
    # stale selector was read as infra (runner-setup-error).
    assert_not_read("replay", "runner-setup-error", [
        "We moved from jsdom to happy-dom last month and everything passed. Today's release broke the date picker: the test fails with expected '2024-01-01' but received 'Invalid Date'",
    ], bucket="product-defect")
    assert_not_read("replay", "runner-setup-error", [
        "After switching from jsdom to happy-dom the suite is 3x faster. Separately, since PR #812 the checkout test fails: expect(screen.getByText('Total: $20')).toBeInTheDocument() - Unable to find an element with the text: Total: $20",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "runner-setup-error", [
        "Whilst porting from JSDom to HappyDOM, I have a couple seemingly random instances of test cases erroneously failing. The issue seems to be related to `fireEvent`.",
        "After migrating from jsdom to happy-dom v15.7.4 several tests fail with a TypeError in the mount helper",
    ], bucket="infra")


def test_setup_steps_zh_leaves_site_5xx_rate_limit_jitter_and_agent_misclicks():
    # setup-steps-followed-then-error-zh used to read any error after "按照…一步步…的结果" as the
    # tool's set-up, so a site's 500/502, a 429 and a network jitter a retry cleared were read as infra.
    assert_not_read("regen", "tool-setup-error", [
        "按照官方文档一步步配置的结果：页面返回 500 Internal Server Error，被测系统的登录接口挂了",
        "按照步骤一步步操作的结果，网站首页返回 502 Bad Gateway",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-setup-error", [
        "按照README一步步安装的结果，运行时报 Connection error，网络波动，重试一次就好了",
        "按照教程一步步执行的结果，生成测试时 429 Too Many Requests rate limit exceeded",
    ], bucket="transient")
    assert_not_read("regen", "tool-setup-error", [
        "按照文档一步步操作的结果，智能体在日期选择器上一直点错日期，最后生成的用例不对",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "  ⎿  API Error (Connection error.) · Retrying in 1 seconds… (attempt 1/10)\n"
        "    ⎿  TypeError (fetch failed)\n按照操作一步步执行的结果",
    ], bucket="infra")


def test_date_picker_rule_leaves_model_that_clicked_the_wrong_thing():
    # app-date-picker-does-not-open used to fire whatever made the picker stay shut, so a model
    # (GPT-4o, Claude, Operator) clicking beside it or the wrong month was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "GPT-4o keeps clicking next to the field instead of on the icon, so the date picker never opens "
        "and the generated test stops at the booking step.",
        'Claude clicks the label "Check-in" instead of the input; the calendar popup does not appear '
        "and it retries the same click 12 times.",
        'Operator picks the wrong month: it clicks "next" twice so the calendar does not show up where it '
        "expects and it selects 2025-03-14 instead of 2025-01-14.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Datepicker Popup is not rendered for on-click events",
        "After uploading a file in add new media I select a regular date and the calendar icon is unresponsive.",
    ], bucket="product-uxux")


def test_slider_rule_leaves_model_misdrags_and_network_hiccup():
    # app-slider-drag-no-effect used to fire on any slider that was not dragged, so a model or the
    # generated test clicking instead of dragging was read as product-uxux, and a slider stuck after a
    # network hiccup that a retry passed as well.
    assert_not_read("regen", "product-broken", [
        "Claude clicks the slider handle instead of pressing and moving it, so the slider cannot be dragged "
        "and it gives up on setting the price range.",
        "The generated test clicks the range thumb twice; dragging has no effect because it never holds the "
        "mouse button, while a person can drag the slider fine.",
        "GPT-4o picks the wrong slider: the volume slider handle can't be dragged from the position it chose "
        "and it keeps repeating the same drag.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Slider thumb can't be dragged on the first try after a network hiccup; retrying the run passes.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Slider/range not dragged",
        "clicking on the slider/range makes it look clicked but dragging has no effect.",
    ], bucket="product-uxux")


def test_infinite_scroll_rule_leaves_scroll_tool_model_and_network_blip():
    # app-infinite-scroll-stops-loading used to fire on any infinite scroll that did not load, so the
    # agent's scroll tool scrolling nothing, a model scrolling the wrong pane and a network blip a later
    # run got past were read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "infinite scroll not working: the scroll_page tool scrolls by 0 pixels every call, so the next batch never loads.",
    ], not_bucket="product-uxux")
    assert_not_read("regen", "product-broken", [
        "Claude tries to scroll to the bottom, next page doesn't load because it scrolls the page body instead "
        "of the results panel.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Sometimes infinite scroll stopped working after a network blip; the next run loaded all items.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Infinite Scroll Broken\n- scroll to bottom, next set doesn't load",
    ], bucket="product-uxux")


def test_reinstall_zh_leaves_agent_goal_misread_site_button_and_blip():
    # tool-failure-survives-restart's Chinese reinstall branch used to read "重装也不行" whenever
    # agent or 浏览器 was named, so an agent that misread its goal, a site's button dead by hand too
    # and a plug-in's occasional network error were read as infra.
    assert_not_read("regen", "tool-setup-error", [
        "agent 理解错了任务目标，一直去搜索页面而不是购物车，重新安装也不行",
    ], bucket="agent-course")
    assert_not_read("regen", "tool-setup-error", [
        "浏览器插件重装也不行，网站的提交按钮点了还是没反应，换 Chrome 手动点也一样",
        "浏览器插件偶尔报网络错误，重装也不行，过一会儿自己就好了",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "执行agent-browser open，报错：\nOperation timed out. The page may still be loading or the element "
        "may not exist.\n卸载后重新装也不行",
    ], bucket="infra")


def test_relay_5xx_zh_leaves_app_sso_relay_and_relay_failing_every_time():
    # llm-relay-5xx-zh used to read any 中转 service's 5xx as a model relay's blip, so the app's SSO
    # relay failing by hand too was read as transient, and so was a relay with no channel that fails
    # every time (its set-up).
    assert_not_read("regen", "llm-server-error", [
        "登录后的 SSO 中转服务返回 500 Internal Server Error，手动登录也一样，是后端的 bug",
    ], bucket="product-uxux")
    assert_not_read("regen", "llm-server-error", [
        "中转站每次都返回 503：当前分组 default 下对于模型 claude-3-5-sonnet 无可用渠道，换了 key 也一样",
    ], not_bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "llm-server-error", [
        "用中转站时，上游偶尔返回 HTTP 525（Cloudflare SSL Handshake Failed）/ 520，请求直接失败。",
    ], bucket="transient")


def test_captcha_press_on_needs_the_agent_as_subject():
    # agent-presses-on-at-captcha used to take any subject, so a stealth plug-in that kept trying at a
    # Cloudflare block, or the site's own CAPTCHA that keeps coming back by hand, was read as agent-course.
    assert_not_read("regen", "agent-pressed-on-at-bot-wall", [
        'The stealth plugin detected the captcha but kept trying for 30s, then the page said "Access denied - '
        'you have been blocked" by Cloudflare.',
        "The site knows a captcha is shown but continues to show it after every correct answer; the signup "
        "form's reCAPTCHA never validates, even by hand.",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "agent-pressed-on-at-bot-wall", [
        "currently, it recognizes there is CAPTCHA BUT keeps going but will never succeed which is just wasting tokens/credit",
        "The agent recognizes the captcha but keeps trying to solve it instead of asking me.",
    ], bucket="agent-course")


def test_timeout_setting_ignored_zh_leaves_overloaded_model_and_slow_app():
    # tool-timeout-setting-ignored-zh used to read any "已设置超时…但还是超时" as the tool ignoring its
    # setting, so an overloaded model a retry got past and a slow endpoint or page of the app under
    # test were read as infra.
    assert_not_read("regen", "tool-code-error", [
        "已经设置超时 300 秒，但是模型还是超时，上游 API 过载 overloaded，过一会儿重试就好了",
    ], bucket="transient")
    assert_not_read("regen", "tool-code-error", [
        "已经设置了 60 秒超时，但还是会超时，因为被测系统的导出接口本身要两分钟才返回，后端说要优化",
        "已经设置了页面加载超时 60s，但网站首页还是加载超时，服务器返回很慢",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "用的本地模型，已经设置大于30秒的超时时间了，但是在使用智能体的时候还是会报30s超时然后任务失败",
    ], bucket="infra")


def test_plain_launcher_not_responding_and_the_apps_own_launcher_stay_off_the_device():
    # device-system-ui-not-responding used to read any "launcher isn't responding" and an ANR in a
    # Launcher3 fork the team ships, so an app's own launcher freezing was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        "Expected text \"Welcome\" but the app launcher is not responding after login; the dashboard launcher tile spins forever.",
        "We ship a custom home screen built on Launcher3. After the last commit, ANR in com.android.launcher3 (.Launcher) when the widget picker opens: our WidgetsListAdapter blocks the main thread.",
        "System UI isn't responding because our app posts 500 notifications in a loop from its sync service.",
    ], bucket="product-defect")
    assert_not_read("replay", "driver-internal-error", [
        "Error: Timed out waiting for element 'Open launcher'. The launcher is not responding to taps in the web app's app switcher.",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "driver-internal-error", [
        "I checked the page source and it turned out tests sometimes fail due to the system message `System UI isn't responding` showing, probably because of less machine resources.",
        "During emulator startup I experience the crash \"launcher3 has stopped\".",
        "ANR in com.google.android.apps.nexuslauncher (.NexusLauncherActivity)\nReason: Input dispatching timed out (Application does not have a focused window)",
        "Pixel Launcher isn't responding",
    ], bucket="infra")


def test_a_flutter_or_patrol_run_that_did_not_complete_without_a_crash_is_not_the_runner():
    # test-runner-never-completes-after-crash used to read any "flutter drive/patrol test did not
    # complete" and "the test command never completes", so an app that froze or hung was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        "patrol test didn't complete: the app froze on the Settings page after tapping Save and never navigated back to the home screen.",
        "The test command never completes because the app deadlocks on startup: our DatabaseHelper waits on itself in onCreate.",
        "flutter drive didn't finish: TimeoutException after 0:10:00.000000: Test timed out after 10 minutes. The app hung on the splash screen after the last release.",
    ], bucket="product-defect")
    assert_not_read("replay", "driver-internal-error", [
        "patrol test does not complete: Waiting for widget with key \"loginButton\" timed out; the button was renamed to \"signInButton\".",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "driver-internal-error", [
        "# [integration_test]: Tests never complete after native crash\n**Expected results:**\nThe test command should fail and report that the test app exited unexpectedly.\n\n**Actual results:**\nThe test command never completes.",
        "flutter test never exits after the app crash",
    ], bucket="infra")


def test_an_apps_own_clear_state_crash_is_not_maestros():
    # maestro-clear-state-crashes-later-launches used to read "clear state" with a space and any
    # clearState outside a Maestro flow, so an app's own Clear state action crashing later launches
    # was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        "Tapping \"Clear state\" in the app's Developer settings makes it crash on every subsequent launch: java.lang.NullPointerException at com.acme.settings.PrefsMigrator.migrate(PrefsMigrator.kt:42)",
        "Clear state on logout is broken: the app crashes on every following start because the session token is null in AuthInterceptor.",
        "After clearState: true the app crashes on every subsequent launch with IllegalStateException: Room cannot verify the data integrity, since our migration from v3 is missing.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "driver-internal-error", [
        "# [BUG] - Launching app with clearState: true is still crashing the app on every subsequent startup\nUsing\n\n```\n - launchApp:\n    clearState: true\n```\n\nmakes the app crash on every subsequent open",
    ], bucket="infra")


def test_a_test_rule_blamed_then_cleared_for_an_anr_stays_the_apps():
    # test-rule-causes-anr used to fire whenever a report said a test rule was causing the ANR, so a
    # report that went on to find the app blocking its main thread was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        "I thought ActivityScenarioRule was causing the ANR but it turned out our MainActivity.onCreate reads the whole database on the main thread: Input dispatching timed out.",
        "composeTestRule is causing ANR only since we added the Lottie animation on the home screen; the app's animation loop blocks the main thread (Input dispatching timed out).",
        "Espresso rule caused \"App not responding\" because our splash screen does network on the main thread.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "driver-internal-error", [
        "# baristaRule is causing keyDispatchingTimedOut during the automation test\nKeep getting random ANR during the test with error message of\nINSTRUMENTATION_RESULT: shortMsg=keyDispatchingTimedOut",
    ], bucket="infra")


OWN_WORDING = [
    "# [Bug]: When signing from dashboard, OTP is requested but never sent\n"
    "When I click \"Send\" on the \"enter OTP\" modal, a one-time password is not sent. "
    "When I click \"Resend\", a one-time password is not sent.",
    "# No signin OTP sent to email\nLogin OTP is not being sent",
    "The OTP is not received on the registered mobile number after clicking Send OTP.",
]


def test_login_code_never_sent_leaves_the_models_own_mistake_to_its_course():
    # login-code-never-sent used to read any "OTP was never received", so a code the model
    # never asked for or sent to an address it mistyped was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The model typed the phone number with a missing digit, so the OTP was never received.",
        "The AI entered a typo in the email address (jhon@exmaple.com), so the verification email was never delivered.",
        "Never clicked the \"Send OTP\" button, so the one-time password was never sent; it went straight to the verify field and typed 123456.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", OWN_WORDING, bucket="product-uxux")


def test_login_code_never_sent_leaves_the_tools_mail_reader_to_infra_or_its_blip():
    # login-code-never-sent used to win over the tool's own failure, so a mail reader that
    # crashed or could not log in to its mailbox was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "get_otp tool error: TypeError: Cannot read properties of undefined (reading 'messages'); "
        "the OTP was never received by the test harness.",
        "Generation stopped at the sign-in step: the verification code was never received because the "
        "read_email tool failed with IMAP authentication error (invalid credentials for the test mailbox).",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", OWN_WORDING, bucket="product-uxux")


def test_login_code_never_sent_leaves_a_late_or_throttled_code_a_blip():
    # login-code-never-sent used to come before the transient routes, so a code that came on
    # a retry, in one run of five, or behind the site's rate limit was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Verification email was not delivered within 30 seconds in 1 of 5 runs; it works on retry.",
        "Too many requests: OTP was not sent, please try again in 60 seconds.",
    ], bucket="transient")
    assert_not_read("regen", "product-broken", [
        "The OTP was not received on the first attempt; I clicked Resend and it arrived, and the rerun passed.",
        "Twilio outage: SMS verification codes were not delivered for about 20 minutes, status page says degraded performance; resolved now.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", OWN_WORDING, bucket="product-uxux")


def test_ui_kit_upgrade_that_breaks_the_app_is_not_a_stale_script():
    # ui-kit-upgrade-broke-tests used to read any tests broken by a UI-kit upgrade, so a
    # dropdown that no longer opens after Bootstrap 5 was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Upgrading to Bootstrap 5 breaks the tests: the dropdown menu no longer opens when clicked, "
        "the data-bs-toggle handler is never attached, so users cannot select a country.",
        "Migrating to Vuetify 3 broke the tests because the login page now redirects to a blank page "
        "and the API returns 401 Unauthorized.",
        "Playwright tests are broken after the Chakra UI upgrade because the toast never appears when saving.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "upgrades us to Vuetify 3, which breaks many of our existing browser end-to-end tests.",
    ], bucket="stale-script")


def test_ui_kit_update_beside_locators_with_a_broken_control_is_not_a_stale_script():
    # ui-kit-markup-changed-under-locators used to read any kit update beside failing selectors,
    # so a dialog that never opens after a Vuetify update was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Vuetify 3 update made the Playwright selectors fail because the dialog never opens anymore; "
        "clicking Open does nothing.",
        "After the MUI upgrade the locators were changed, and the Submit button now does nothing when "
        "clicked; the order is not created.",
        "Bootstrap 5 update caused selectors to fail and the navbar collapse no longer expands on mobile.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "After the Bootstrap update, some locators were affected, causing the E2E tests to fail.",
    ], bucket="stale-script")


def test_ui_kit_new_markup_with_a_dead_control_is_not_a_stale_script():
    # ui-kit-renders-different-markup used to read any "(previously ...)" markup change, so a
    # button that no longer responds after MUI's new class was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "MUI uses a new class name for the button (previously MuiButton-root) and the button no longer "
        "responds to clicks, the form cannot be submitted.",
        "Vuetify renders a different structure (previously a div) and the dialog never opens.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "recent Material-UI uses a different role (combobox) for select elements (previously button)",
    ], bucket="stale-script")


def test_shadow_dom_move_that_drops_the_submitted_value_is_not_a_stale_script():
    # shadow-dom-broke-tests-lookups used to read any move into shadow DOM beside failing tests,
    # so a date that is no longer submitted was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The date picker moved into shadow DOM and now the tests fail because the selected date is not "
        "submitted to the server; the booking is saved with no date.",
        "The component was moved into shadow DOM and tests fail because the form no longer submits "
        "the value of the custom input.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "PF4: Shadow DOM breaks selenium tests",
    ], bucket="stale-script")


def test_translation_that_breaks_the_layout_is_not_a_stale_script():
    # translated-copy-changed-under-tests used to read tests failing after new translations,
    # so a German label overflowing over the Pay button was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The test was failing because of the new translations: the German checkout button label "
        "overflows and covers the Pay button so it cannot be clicked.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "The cypress test was failing in the latest commits, this was because of adding translations "
        "to the landing page.",
    ], bucket="stale-script")


def test_layout_changes_that_push_a_button_off_screen_are_not_a_stale_script():
    # test-failures-stem-from-markup-changes used to read "stem from ... changes, not caused by
    # bugs", so a Pay button rendered off-screen for users was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Test failures stem from layout changes, not caused by bugs in the tests: the Pay button is "
        "rendered off-screen and cannot be clicked by users.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "These all stem from some slight markup changes and aren't caused by any actual bugs or issues.",
    ], bucket="stale-script")


def test_appium_inspector_crashing_while_idle_is_not_the_apps_defect():
    # app-crashes-while-idle used to read any "idle ... application crashes", so Appium
    # Inspector / Appium Desktop crashing while idle was read as product-defect.
    assert_not_read("replay", "app-component-defect", [
        "When Appium Inspector is kept idle for 5 minutes, the Appium Desktop application crashes and closes.",
        "If the session is left idle for a while the Appium Inspector app crashes with a white screen.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-component-defect", [
        "when try to tap on the popup or if it kept idle for few seconds the application is getting crash",
    ], bucket="product-defect")


def test_regenerated_class_names_beside_a_dead_button_are_not_a_stale_script():
    # generated-class-names-changed-under-tests used to read any regenerated class names beside
    # failing tests, so an Add to cart button that does nothing was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "All the class names got updated after the Next.js release and our cypress tests started failing: "
        "the Add to cart button does nothing when clicked.",
        "The class names were regenerated by the styled-components upgrade and the tests are failing "
        "because the menu never opens on hover.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "But after this update all the styled components classnames got updated and our whole automated "
        "regression test case codebase started failing.",
    ], bucket="stale-script")


def test_dns_lookup_of_a_removed_host_is_not_a_dns_hiccup():
    # dns-lookup-failed used to fire beside any flaky word, so a host that was decommissioned
    # (in a report that calls the suite flaky elsewhere) was routed as a transient DNS hiccup.
    assert_not_read("regen", "dns-lookup-failed", [
        "Our suite is flaky elsewhere, but this one is different: net::ERR_NAME_NOT_RESOLVED at https://staging.acme.dev because the staging host was decommissioned.",
        "Tests fail randomly today: page.goto: net::ERR_NAME_NOT_RESOLVED at http://locahost:3000 - a typo in baseURL, locahost instead of localhost.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "dns-lookup-failed", [
        "page.goto: net::ERR_NAME_NOT_RESOLVED at http://app.example.test/apps - we are seeing it intermittently in the current version",
    ], bucket="transient")


def test_function_calling_limitation_beside_a_retried_blip_is_not_tool_setup():
    # framework-function-calling-limited-to-some-models used to fire on the maintainer's caveat alone,
    # so a run that failed on a network blip that a retry cleared was read as infra.
    assert_not_read("regen", "tool-setup-error", [
        "There's a limitation in the framework for other models with function calling; but this run failed on a read ECONNRESET from the API once, retried and it passed.",
        "There's a limitation with LangChain on using local models for function calling, but that is not it here: the request timed out once and the retry passed.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "No matter the task, it is stuck on google.com. There's a limitation with AutoGen on using other models for function calling.",
    ], bucket="infra")


def test_back_to_cart_by_the_generators_click_is_not_a_broken_checkout():
    # app-checkout-cart-emptied used to fire on any 'sends the user back to the cart', so the
    # generator's own clicks on a link that does that were read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Clicking the close icon on the cookie banner kicks you back to the cart; the generator kept clicking it instead of 'Checkout'.",
        "Pressing Edit cart sends the user back to the cart as designed; the generator misread the goal and tried to pay from there.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Step 12: clicked 'Back' button which sends the user back to the shopping cart. Then the run hit a 503 once and retry passed.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "When I try to put an address in the address fields, it begins to load and throws me out of the order page, back to the shopping cart overview.",
    ], bucket="product-uxux")


def test_coupon_field_lost_by_the_generators_course_is_not_a_broken_form():
    # app-coupon-breaks-checkout used to fire on any coupon field that 'disappeared' or 'is gone',
    # so the generator typing into the wrong input or the bot skipping past it read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The coupon code field disappeared after the generator typed into the wrong input and navigated away to the blog.",
        "Voucher section is gone because the bot scrolled past it and chose the 'Skip' button instead.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "When applying a coupon it keeps loading forever",
    ], bucket="product-uxux")


def test_payment_refused_for_the_agents_card_data_or_a_blip_is_not_the_shops_plugin():
    # app-payment-integration-refuses used to fire on 'your payment cannot be processed' whatever
    # caused it, so the agent's wrong card data read as product-uxux, and a reset that a retry
    # cleared too.
    assert_not_read("regen", "product-broken", [
        "Your payment cannot be processed. The generator entered card number 4000 0000 0000 0002 (Stripe's decline test card) instead of 4242.",
        "Your payment could not be processed -- the agent filled the expiry in the CVC field.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Stripe: your payment cannot be processed (connection reset), retried and it succeeded.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Pressing confirm: Missing checkout session state (PayPalCheckoutState.PaypalOrderId). Your payment cannot be processed.",
    ], bucket="product-uxux")


def test_pt_layout_classes_rule_needs_the_script_named_not_botao():
    # site-markup-changed-under-script-pt used to take a bare `bot` (in `botão`) or `código`
    # (in `código de erro`) as the script, so an app's layout bug report was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Após a atualização do layout, as classes CSS foram alteradas e o botão Enviar ficou desalinhado e não responde ao clique no Safari.",
        "Com o novo layout do painel, os nomes das classes foram alterados e o tema escuro não é mais aplicado no botão de salvar; o código de erro no console é 500.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Recentemente o whatsapp web mudou seu layout e os nomes das classes utilizadas para envio foram alteradas.\nÉ necessário atualização do código para que o script volte a funcionar normalmente.",
        "O whatsapp mudou sua interface web, com isso o código não acha o botão em enviar, usei o xPATH do botão mas não obtive sucesso.",
    ], bucket="stale-script")


def test_es_url_changed_rule_needs_a_bot_not_boton_or_prueba():
    # site-url-changed-under-bot-es used to take `bot` (in `botón`), `test` or `prueba` as the bot,
    # so an app that navigated to the wrong URL after a click was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Al pulsar el botón Guardar la URL cambió a /pedidos/undefined en lugar de la nueva URL del pedido (/pedidos/123).",
        "Después de crear la cuenta la URL cambió, pero la nueva URL muestra una página en blanco; la prueba espera el panel de bienvenida.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# actualizar el bot no funciona\nactualizaar la pagina de toma de huella bot no funciona\nLa URL cambio. En la antigua web hay una noticia y hace un ref a la nueva URL, la cual  es: https://icp.administracionelectronica.gob.es/",
        "El scraper falla: la URL ha cambiado, ahora la nueva URL es https://x.es/",
    ], bucket="stale-script")


def test_ru_layout_changed_rule_needs_a_css_selector_not_a_ui_selector():
    # site-markup-changed-selectors-ru used to take any `селектор` after `изменилась вёрстка`,
    # so an app's broken currency selector widget was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "После релиза 2.3 изменилась вёрстка формы оплаты: селектор валюты уезжает за пределы экрана на мобильных и выбрать рубли нельзя.",
        "Изменилась вёрстка, но селектор тот же — элемент находится, просто кнопка «Оплатить» не реагирует и заказ не создаётся (ошибка 500).",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "На сайте изменилась вёрстка. Если теперь поискать селектор `.ListingCars-module__listingItem`, то такого на странице не окажется.",
        "На сайте изменилась вёрстка, селектор .item больше не находит карточки",
    ], bucket="stale-script")


def test_fr_script_broke_rule_does_not_take_a_changed_button():
    # script-broke-class-renamed-fr used to accept `le bouton a été modifié`, so a test
    # failing because the app's button stopped submitting was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Le test e2e ne fonctionne plus car le bouton a été modifié : il ne soumet plus le formulaire et renvoie une erreur 500.",
        "Le test ne marche plus car les boutons ont été changés dans la dernière version : cliquer sur Payer affiche une page blanche.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Le script actuel ne fonctionne plus car la classe a été renommée. Il semble que ça remarche avec ce nom de classe.",
        "Le test ne marche plus car le sélecteur a été changé",
    ], bucket="stale-script")


def test_infinite_scroll_not_read_when_run_passed_on_retry():
    # app-infinite-scroll-stops-loading's new "won't load more results" wording had no veto for a
    # retry, a time-out or "sometimes", so a blip was read as the product's broken list (product-uxux).
    assert_not_read("regen", "product-broken", [
        "Infinite scroll doesn't load more items on the first attempt; the same test passed on retry.",
        "Step 9 failed: infinite scroll won't load more results - request timed out after 30s, passed when re-run",
        "Infinite scroll doesn't load more results sometimes; it happened in 1 of 3 runs.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "# Search infinite scroll will not load results until the page moves\nIf you go to the site search and the browser window is sufficiently tall, it will show the loading dots but it won't load anything.",
        "# Infinite Scroll Broken\n- scroll to bottom, next set doesn't load",
    ], bucket="product-uxux")


def test_pagination_repeats_not_read_for_blips_or_agent_paging():
    # app-search-pagination-repeats-results fired on "no duplicate results" in a step log before a 429,
    # on a report of duplicates in 1 of 5 runs, and on an agent that kept clicking page 1,
    # moving them to product-uxux.
    assert_not_read("regen", "product-broken", [
        "Step 4: verified pagination - page 2 shows no duplicate results.\nStep 5: API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed your account's rate limit. Please try again later.\"}}",
        "The same results appear on multiple pages sometimes, about 1 in 5 runs; passed on rerun.",
        "the paginated results are duplicating the first page only occasionally; re-ran and it was fine",
    ], bucket="transient")
    assert_not_read("regen", "product-broken", [
        "The same product is shown on every page because I kept clicking page 1 in the pagination bar rather than Next.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "When navigating between pages of search results, the same result can appear on more than 1 page.",
        "I upgraded a client site to 8.2.1 and the paginated results are still duplicating page 1.",
        "When doing a search in the catalog, some views are duplicated.",
    ], bucket="product-uxux")


def test_sort_ignored_not_read_when_agent_skipped_apply_or_run_timed_out():
    # app-sort-order-ignored read "the sort option was not applied" where the Apply button was never
    # clicked, and "sorting by price does not work" in a run that timed out and passed on re-run,
    # as the product's sort (product-uxux).
    assert_not_read("regen", "product-broken", [
        "I picked 'Price: Low to High' but the sort option was never applied: the Apply button was never clicked.",
        "The selected sort order was not applied because I didn't click Apply after choosing it from the dropdown.",
        "The sort dropdown has no effect because I clicked the label text rather than the <select> itself.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Sorting by price does not work on the first run; the list was still loading when the step timed out. It passed on the re-run.",
        "Sorting by price doesn't work in the run once; it worked on retry (timeout loading the list).",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Ordering (sorting) by price does not work.",
        "# \"Sort by\" filter works only when search term/tag is entered",
        "sorting by 'price' (either Low to High or High to Low), the displayed items (Bag) appear in the incorrect order.",
    ], bucket="product-uxux")


def test_filter_not_applied_not_read_when_agent_missed_it_or_run_timed_out():
    # app-filter-facet-not-applied read a filter the agent never applied (Apply not pressed, wrong
    # checkbox) and filters not applied before a time-out that a retry passed as the product's
    # search (product-uxux).
    assert_not_read("regen", "product-broken", [
        "The filter was not applied to the results because the Apply button was not pressed after checking 'Red'.",
        "The filter didn't change the results: I checked 'Color: Blue' rather than 'Category: Shoes' as the test case asks.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Step 5: filters were not applied to the results within 30s (Timeout 30000ms exceeded); retry passed",
        "Filters are not applied to the list yet - spinner still showing when the step timed out; succeeded on retry",
    ], bucket="transient")
    assert_not_read("regen", "product-broken", [
        "Applied filters are not changing the results when clicked via browser_click; clicking the same checkbox by hand filters the list.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "# [solr-refactor] [staging] applied facets are not resulting in changes to the search result set",
        "filters don't apply to the results",
    ], bucket="product-uxux")


def test_search_returns_nothing_not_read_for_element_lookups_blips_or_unsubmitted_query():
    # app-search-returns-nothing read any "returns no results although … exists" (a find() for an
    # element in a shadow root), a search whose results timed out and showed on retry, and a query
    # the agent never submitted as the product's search (product-uxux).
    assert_not_read("regen", "product-broken", [
        "Search is not showing results because I typed the query and never pressed Enter or clicked the search button.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Search not showing any results for 20s — the results request timed out (ETIMEDOUT); the retry showed them.",
        "Search not displaying results: TimeoutError: waiting for selector '.result-item' failed: timeout 30000ms exceeded. Passed on retry.",
    ], bucket="transient")
    assert_not_read("regen", "product-broken", [
        "find() returns no results although the Submit button exists on the page (it is rendered inside a shadow root)",
        "Search is not showing any results after agent-browser press Enter; when I press Enter manually on my keyboard the results appear immediately.",
        "The search shows no results, though the test user exists - the seed data step failed in our fixture setup",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Searching for \"search\" gives no results, although pages with the term \"search\" have been indexed.",
        "# Simple search not displaying search results\nThe number of hits is shown, but not the actual entities, they stay blank.",
    ], bucket="product-uxux")


def test_browsers_not_installed_not_read_when_auto_install_hit_a_network_blip():
    # browser-build-missing-for-platform read "browsers not installed … auto-install failed" after a
    # DNS or connection-reset blip as a browser the platform cannot have (infra).
    assert_not_read("regen", "browser-unavailable", [
        "Playwright browsers were not installed, and the auto-install failed: getaddrinfo EAI_AGAIN playwright.azureedge.net. Passed on retry.",
        "The browsers aren't installed and auto-install failed with ECONNRESET while downloading chromium; network blip",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "browser-unavailable", [
        "I get an error about the browsers not being installed, and attempting to auto-install them fails, because of NixOS.",
        "$ playwright-cli open http://example.com\nERROR: not supported on Linux Arm64\nFailed to install browsers",
        "# agent-browser install\n✗ Chrome for Testing does not provide Linux ARM64 builds.",
    ], bucket="infra")


def test_hashed_chunk_rule_ignores_test_tool_chunks_in_node_modules():
    # app-hashed-chunk-js-error used to accept any file:// path or build folder before the chunk
    # name, so Vitest crashing in its own hashed dist chunk under node_modules was read as the app's
    # exception (product-defect).
    assert_not_read("replay", "app-uncaught-exception", [
        "Vitest crashes before running any test:\n"
        "TypeError: Cannot read properties of undefined (reading 'config')\n"
        "    at createVitest (file:///home/runner/work/app/node_modules/vitest/dist/index-a1b2c3d4.js:120:33)\n"
        "Upgrading vitest fixed it.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-uncaught-exception", [
        "TypeError: Cannot read properties of undefined (reading 'receive')\n"
        "    at tTe (index-DzRUuSsA.js:364:1245)",
        "TypeError: Cannot read properties of undefined (reading 'receive')\n"
        "    at tTe (http://localhost:5173/assets/index-DzRUuSsA.js:364:1245)",
    ], bucket="product-defect")


OWN = "使用autoglm-phone经常出现“模型响应中没有操作”"


def test_model_reply_without_action_zh_leaves_throttled_and_dropped_model_calls_to_blips():
    # model-reply-without-action-zh used to veto only 429 / timeouts / 5xx, so an overloaded model or a
    # reset connection beside "经常 … 模型响应中没有操作" was read as infra (its route comes before the blips').
    assert_not_read("regen", "tool-code-error", [
        "经常出现“模型响应中没有操作”，日志里是 overloaded_error（模型服务过载），过一会儿再跑就好了",
        "手机连WiFi跑AutoGLM经常出现模型响应中没有操作，日志里是 java.net.SocketException: Connection reset，换成4G就好了",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [OWN], bucket="infra")


def test_model_reply_without_action_zh_leaves_reports_that_it_comes_and_goes():
    # model-reply-without-action-zh took "一直" in "一直没找到原因" as "always", so a flake said in
    # Chinese ("时好时坏，有时候又没问题") was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "这个问题时好时坏，有时候又没问题，一直没找到原因：模型响应中没有操作",
    ], bucket="transient")
    assert_read("regen", "tool-code-error", [OWN], bucket="infra")


def test_model_reply_without_action_zh_leaves_a_model_blamed_for_hallucinating_to_the_agent():
    # model-reply-without-action-zh fired beside the agent's own hallucination, so
    # "模型经常出现幻觉，认为自己已经完成了任务，所以模型回复中没有动作" was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "模型经常出现幻觉，认为自己已经完成了任务，所以模型回复中没有动作",
        "这是模型的问题，模型输出中没有操作，总是直接回答问题",
        "感觉是模型能力不足，总是直接回答问题，模型输出中没有操作",
    ], bucket="agent-course")
    assert_read("regen", "tool-code-error", [
        "LLM在思考中总是自己加入“继续执行任务，当前屏幕截图如下”，然后自问自答，最后忘记输出要执行的动作。",
    ], bucket="infra")


def test_model_reply_without_action_zh_leaves_a_page_that_fails_to_the_product():
    # model-reply-without-action-zh fired on an empty action beside the app's 404 or site error, so
    # "每次打开设置页都是 404 Not Found，模型响应中没有操作" was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "每次打开设置页都是 404 Not Found，模型响应中没有操作",
        "每次提交表单后网站报错，模型响应中没有操作，测试无法继续",
    ], bucket="product-uxux")
    assert_read("regen", "tool-code-error", [OWN], bucket="infra")


def test_expired_card_scenario_or_app_expiry_bug_is_not_stale_test_card():
    # e2e-test-card-expired used to read "using expired card", a present-tense "card's expiration
    # date is in the past" and cards the text says are still valid, so a checkout that accepts an
    # expired card or rejects a valid one was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "E2E test `declines payment using expired card` fails: checkout accepts the order instead of showing 'Your card has expired'.",
        "Since the year rollover checkout rejects every payment with 'Your card's expiration date is in the past' even for 12/29. E2E tests fail on the payment step.",
        "Customers get errors that the card is expired even though it expires in 2027; our e2e tests fail on it too.",
        "E2E tests fail: the expiry date of the card is set to 12/34 but the payment form still rejects it as expired.",
        "Regression in 3.2: the checkout e2e tests fail because of expired card errors shown for cards expiring next year; the month/year parsing swapped.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# E2E tests failing due to expired test card details\nE2E tests are failing due to the use of expired test card details (main card expiry is Feb 2024).",
        "As tests suddenly fail, I had a quick look and saw that credit card valid dates were already in the past. So I updated them.",
        "# Fix end to end tests.\nWe were getting errors that the card was expired.",
    ], bucket="stale-script")


def test_app_hardcoded_date_beside_failing_e2e_is_not_stale_fixture():
    # e2e-fixture-date-now-in-past used to read any "hardcoded ... date/year ... now in the past"
    # beside the word test, so an app component's or service's own stale date was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The promo banner component hardcodes the sale end date 2024-12-31 (now in the past), so the e2e test for the banner fails: the banner is hidden.",
        "E2E tests fail: the pricing service has a hardcoded early-bird cutoff of 2025 which is now in the past, so every quote shows the full price.",
        "The test fails because the backend hardcodes the fiscal year 2024, now in the past, and rejects new invoices.",
        "Checkout e2e spec fails: the coupon validator hard-codes the expiry timestamp, which is already in the past, so valid coupons are refused.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# [CI fix] test_event_time_display: _create_fixed_event uses hardcoded April 13 2026 (now in the past)",
        "The e2e helper hardcodes 2024-01-01 as the booking date (now in the past), so the test fails.",
    ], bucket="stale-script")


def test_app_action_deleting_test_user_is_not_lost_test_account():
    # e2e-seeded-test-account-gone used to read any "deleted/removed/wiped/purged the test user",
    # with no test-failure context, so the app's own delete, logout or bulk action on the test user
    # (or its data) was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Saving the profile form wiped the test user's address book; the e2e test then fails on the address step.",
        "The Delete button says it deleted the test user, but after reload the test user is still listed.",
        "Bug: bulk action 'Deactivate' removed all test accounts from the org instead of only the selected one; e2e test for bulk actions fails.",
        "Logging out removed the test user's saved cart; the e2e checkout test fails.",
        "The nightly cleanup job in the app purged the test accounts created today, not just the 30-day-old ones, so the signup e2e fails.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "For the second time in a week the staging service appears to have forgotten our test account, causing our automated tests to fail.",
        "Our seeded test user was deleted from staging, so the e2e login fails.",
    ], bucket="stale-script")


def test_removed_element_breaking_e2e_is_not_stale_count():
    # e2e-count-broken-by-removed-item used to read anything "no longer present / was removed ...
    # breaking the ... e2e tests", so a regressed button, a missing CSRF token or a dropped auth
    # cookie was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Regression: the 'Add to cart' button is no longer present on product pages since v2.3, breaking the shopping cart e2e tests.",
        "After the upgrade the CSRF token is no longer present in the form, breaking the login e2e tests: every submit returns 403.",
        "The auth cookie was removed on page reload, breaking the cypress tests: the user is logged out after every refresh.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Because of changes on the backend the ui-sql-cache is not present anymore, breaking the count on the e2e test for the feature-flags.",
        "The plan was removed from the backend, breaking the count in the plans e2e test.",
    ], bucket="stale-script")


OWN_8000 = ("# When taking screenshots, it sometimes cannot parse images because of too high dimensions:\n"
            "messages.2.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels")


OWN_2000 = ("I was asking for AI to take screenshot and suddenly I got this\n"
            "messages.3.content.318.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels")


def test_image_dimension_refusal_of_an_image_the_app_under_test_forwards_is_the_product():
    # model-refuses-image-dimensions used to veto only upload/avatar/profile picture, so an
    # AI chat app under test that forwards an attached or dragged-in image to Claude without
    # resizing it was read as infra (the tool's screenshot).
    assert_not_read("regen", "tool-setup-error", [
        'Test generation stopped at step 4 of "Ask about an image": the agent attached a 9000x3000 PNG '
        'in the chat composer and pressed Send; the app showed a red banner: "invalid_request_error: '
        'messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max '
        'allowed size: 8000 pixels" and no answer came. The app does not resize attached images before '
        'sending them to Claude, so the feature is broken.',
        'Step "drop a receipt image onto the chat" failed. The app\'s chat returned {"type":"error","error":'
        '{"type":"invalid_request_error","message":"messages.0.content.0.image.source.base64.data: At least '
        'one of the image dimensions exceed max allowed size: 8000 pixels"}} after dragging the scanned '
        'receipt in; the feature under test does not work with large scans.',
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [OWN_8000, OWN_2000], bucket="infra")


def test_many_image_refusal_after_an_agent_loop_is_the_agents_course():
    # model-refuses-image-dimensions used to fire whatever led to the many-image limit, so an
    # agent that looped on a modal (or repeated one action) taking a screenshot each time until
    # the request held too many images was read as infra instead of agent-course.
    assert_not_read("regen", "tool-setup-error", [
        'The agent looped on the cookie consent modal, clicking "Accept" and taking a screenshot after '
        'every click. After 35 identical screenshots the model call failed: messages.70.content.0.'
        'image.source.base64.data: At least one of the image dimensions exceed max allowed size for '
        'many-image requests: 2000 pixels. The modal was dismissable with the X button the agent never tried.',
        'Agent repeated the same action (scroll down + screenshot) 40 times without making progress on '
        'the goal, until the request failed with invalid_request_error: At least one of the image '
        'dimensions exceed max allowed size for many-image requests: 2000 pixels.',
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [OWN_2000], bucket="infra")


def test_image_dimension_refusal_that_a_retry_cleared_is_a_blip():
    # model-refuses-image-dimensions used to fire on one refused call the report says a retry
    # cleared, so an intermittent one-off was read as infra instead of transient.
    assert_not_read("regen", "tool-setup-error", [
        'One LLM call failed with invalid_request_error: messages.3.content.1.image.source.base64.data: '
        'At least one of the image dimensions exceed max allowed size: 8000 pixels; the retry passed and '
        'the run finished green. Intermittent, seen only once in 200 runs.',
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [OWN_8000], bucket="infra")


def test_timezone_rule_leaves_app_time_and_sum_bugs_to_the_app():
    # tests-assume-machine-timezone-or-locale used to fire on any test failing "in a non-UTC
    # timezone" / "with the German locale", so an app that returned or showed wrong times or sums
    # was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Since v2.3 the export spec fails: the API now returns timestamps in the server's local timezone instead of UTC, so every row is shifted by five hours.",
        "The checkout test fails with the German locale: the price field shows 1.234,00 and the order total is computed as 1.23 \u20ac.",
        "E2E tests fail in a non-UTC timezone: the booking page shows the event at 23:00 instead of 18:00 after saving.",
        "All tests fail in another time zone because the app's server returns 500 Internal Error on /api/events?tz=Europe/Berlin",
    ], bucket="product-defect")
    assert_not_read("replay", "label-path-mismatch", [
        "AssertionError: expected 'Jan 1, 2049 6:00 PM' to equal 'Jan 1, 2049 11:00 PM'. The scheduling test fails when the browser has a different timezone: the scheduled post is published five hours late.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# Change asserts of the date that can change with timezone\nWhen I execute the Cypress tests in my timezone the tests fail.\nChange assert of day",
        "# Fix Cypress tests that fail locally but pass on GitHub due to time zone difference",
        "# E2E test fail with german locale\nThe tests do not really change the language to english resulting in all tests failing.",
    ], bucket="stale-script")


def test_puppeteer_removed_method_rule_leaves_the_apps_own_uncaught_typeerror():
    # script-calls-removed-puppeteer-page-method used to read any `this.page.waitFor is not a
    # function`, so the app's own uncaught browser exception was read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "Uncaught TypeError: this.page.waitFor is not a function\n    at PageController.render (https://shop.example.com/static/js/main.3f2a.js:1:2231)\nThe storefront shows a blank screen after clicking Checkout.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "test-tool-regression", [
        "Error occurred: TypeError: page.waitForTimeout is not a function",
        "When running e2e tests, they fail with the error `Property 'waitForTimeout' does not exist on type 'Page'.`",
    ], bucket="infra")


def test_selenium_keyword_rule_leaves_the_apps_own_server_errors():
    # script-passes-removed-selenium-keyword used to read any "unexpected keyword argument
    # 'executable_path'" / "unknown keyword: :capabilities", so the app's own 500 tracebacks
    # were read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "Traceback (most recent call last):\n  File \"/srv/app/views.py\", line 88, in export\n    report = ReportBuilder(data, executable_path=settings.BIN)\nTypeError: __init__() got an unexpected keyword argument 'executable_path'\nInternal Server Error: /reports/export",
        "ActionView::Template::Error (unknown keyword: :capabilities):\n  app/views/admin/roles/edit.html.erb:12 -- the admin roles page returns 500 after the last deploy.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "test-tool-regression", [
        "    return webdriver.Chrome(service=service, options=options,\nTypeError: __init__() got an unexpected keyword argument 'desired_capabilities'",
        "driver.rb:319:in `create_bridge': unknown keyword: :desired_capabilities (ArgumentError)",
    ], bucket="infra")


def test_snapshot_name_rule_leaves_controls_the_page_left_unnamed():
    # tool-snapshot-drops-accessible-name used to fire on "makes the button invisible to agents using",
    # so a page whose button has no label (Lighthouse's finding) was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "This makes the button invisible to AI agents using screen readers too, because the app's button has no label. "
        "Lighthouse reports: Buttons do not have an accessible name.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "Accessibility snapshot drops the button name because the icon button has no aria-label; the app's markup is missing it.",
        "The page snapshot omits the element name since the <div> has no accessible name at all.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "Accessibility snapshot drops button name when text is nested inside spans with aria-hidden SVG, "
        "even though getByRole('button', { name: 'Add New Item' }) locates it. "
        "This makes the button invisible to AI agents using Playwright MCP's snapshot-based navigation.",
    ], bucket="infra")


def test_covered_elements_rule_leaves_an_app_whose_clicks_pass_through_its_overlay():
    # tool-acts-on-covered-elements used to fire on "fails to ignore elements that are covered",
    # so an app whose modal lets clicks through to the buttons under it was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The modal overlay doesn't close: our app fails to ignore elements that are covered by the backdrop, so clicks go "
        "through the overlay to the buttons underneath and trigger actions. Users accidentally delete items.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "Clicks pass through the dialog: the page does not ignore elements that are obscured by the modal; the backdrop "
        "is missing pointer-events so users click on the hidden buttons under it.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "It appears that the TESTAR Webdriver doesn't ignore interactive elements when they are clobbered by other divs "
        "with higher z-index. TESTAR tries to interact with the clobbered buttons, but it cannot.",
    ], bucket="infra")


def test_div_click_handler_rule_leaves_blips_and_named_tool_bugs():
    # app-control-markup-not-operable used to fire on any "div with a click handler",
    # so a navigation network blip passed on the next try was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Navigation to the settings page failed with net::ERR_NETWORK_CHANGED while clicking a div with a click handler; "
        "on the next try it passed.",
    ], bucket="transient")
    # ... and a browsing tool's own bug on such a control as the product's.
    assert_not_read("regen", "product-broken", [
        "Stagehand act() cannot click a div with a click handler on React 18 pages: the action resolves to the parent "
        "element. Same page works in Playwright directly. Bug in stagehand's observe.",
        "Browser-use agent fails to open dropdowns: the trigger uses onPointerDown instead of onClick, and browser-use's "
        "click_element only calls element.click() via JS. Bug in browser-use's controller.",
        "Our generator fails when the page has a div with an onclick handler: Error: Cannot read property 'tagName' of "
        "null at ElementMapper.resolve (mapper.ts:88). Internal crash in the recorder.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "# Make CustomDropdown Accessible\nIt is currently a `<div>` with a click handler attached to it.",
        "It's because the DropdownMenuTrigger component use a `onPointerDown` instead of a `onClick` callback",
    ], bucket="product-uxux")


def test_bare_click_rule_leaves_the_apps_own_pointerdown_only_controls():
    # tool-click-sends-no-pointer-events used to fire on "a simple click() ... is not enough",
    # so a report of the app's own control that keyboard users cannot open was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "Our custom select uses onPointerDown only. A simple click() on the trigger is not enough to open it, so keyboard "
        "users and screen readers can't open the menu either. This is a bug in our component.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "`tauri-pilot click` on Radix UI trigger elements does not open the dropdown. The click event fires (returns ok) "
        "but Radix doesn't react. A simple `click()` or `dispatchEvent(new MouseEvent('click'))` may not be sufficient.",
    ], bucket="infra")


def test_aria_role_rule_leaves_the_apps_keyboard_focus_bugs():
    # tool-misses-aria-role-controls used to fire on 'not targetable' beside role="tab"/"menuitem",
    # so an app whose role-carrying controls keyboard users cannot reach was read as infra.
    assert_not_read("regen", "tool-code-error", [
        'The tabs in our settings page have role="tab" but they are not targetable by keyboard because the app sets '
        'tabindex=-1 on all of them; users cannot reach them with Tab.',
        'Menu items with role="menuitem" are not targetable with the keyboard: our menu component does not implement '
        'arrow-key focus management (roving tabindex).',
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        '# Dropdown menues in Gmail not targetable\nThese buttons are targetable with VimFX, but the menues aren\'t. The buttons are `div`\'s with the attribute '
        '`role="button"`. The dropdown menus however dont have this attribute, but instead have `role="menuitem"`.',
    ], bucket="infra")


def test_same_code_on_older_tool_release_stands_down_for_app_side_changes():
    # same-code-worked-on-older-tool-release used to read any "same code worked with <tool> <version>",
    # so a frontend release that moved an element, or a deploy that broke the app, was read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "The same code was working before with Selenium 4.8 but since yesterday's frontend release the element #submit-btn cannot be found: NoSuchElementException: Unable to locate element: #submit-btn",
    ], bucket="stale-script")
    assert_not_read("replay", "test-tool-regression", [
        "After deploying 4.3.0 of the shop, checkout fails with a 500 from /api/cart. The same tests work with Playwright 1.40 against the 4.2.0 deploy.",
        "Same test worked with Cypress 12.17 last week; since the latest deploy the Save button does nothing and the console shows Uncaught TypeError: cannot read properties of undefined (reading 'id') in main.js",
    ], bucket="product-defect")
    assert_not_read("replay", "test-tool-regression", [
        "The same specs worked with Cypress 13.6.0 until the frontend team changed the login form's data-testid values; now cy.get('[data-testid=login-submit]') times out.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("replay", "test-tool-regression", [
        "After upgrading to latest version of Cypress, when I try to upload a file using cy.selectFile() I got an error (cy.selectFile() must only be invoked from the spec file or support file.). The same code works with Cypress 11.14.0.",
    ], bucket="infra")


def test_same_code_on_bare_version_stands_down_for_the_apps_release():
    # same-code-worked-on-older-version-tool-call used to read a bare "<x.y.z> version" beside a tool call,
    # so the app's own release that moved a button was read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "After upgrading our frontend to release 3.5.0, await page.click('#checkout') times out waiting for selector. Same test is working in 3.4.2 version.",
        "Error: locator.click: Timeout 30000ms exceeded waiting for getByRole('button', { name: 'Pay' }). Same code works in 2.1.0 version of the site; the button was moved into a dropdown in 2.2.0",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "test-tool-regression", [
        "await this.page.dragAndDrop(originSelector, targetSelector)})\nOrigin selector isn't released after moving to the target position. Same code is working in 1.16.2 version",
    ], bucket="infra")


def test_flaky_on_ci_stands_down_when_the_app_or_ui_is_blamed():
    # flaky-only-when-run-on-ci-pipeline used to read any "flaky when run on CI",
    # so an app bug or a redesign seen as flakiness on CI was read as infra (broad-infra).
    assert_not_read("replay", "broad-tool-failure", [
        "The login spec is flaky when run in the pipeline; TypeError: Cannot read properties of undefined (reading 'token') thrown by the app's auth store on slow machines",
        "Checkout e2e is flaky when run on GitHub Actions: our app's cart store loses the item after the second render, a bug in the reducer we fixed in #412",
        "Flaky when run in CI: the backend's /orders endpoint intermittently returns an empty list because the seed job races the API",
    ], bucket="product-defect")
    assert_not_read("replay", "broad-tool-failure", [
        "Tests are flaky when run on the pipeline since the header redesign: cy.get('.nav-login') sometimes matches the old hidden menu",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("replay", "broad-tool-failure", [
        "# Flaky Opa5 tests when ran on pipeline/Linux\nWe are running our integration tests written using Opa5 in our CI pipeline (Azure Pipelines), running on headless chrome using Karma.",
    ], bucket="infra")


def test_flaky_drag_and_drop_stands_down_when_the_server_rejects_the_move():
    # flaky-emulated-drag-and-drop used to read any flaky drag-and-drop,
    # so a move the server rejected (a 409 conflict) was read as a click that did not land (infra).
    assert_not_read("replay", "click-no-effect-on-clickable-element", [
        "Flaky drag and drop in the Kanban board: the card is dropped but the app reverts it because the PATCH /cards request fails with a 409 conflict from the server",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "click-no-effect-on-clickable-element", [
        "# [QA] Flaky drag-n-drop move operation\n   page.waitForResponse: Timeout 30000ms exceeded while waiting for event \"response\"",
    ], bucket="infra")


def test_screenshot_of_failed_action_stands_down_for_the_scripts_own_fault():
    # screenshot-shows-failed-app-action used to read any screenshot showing a failed login or submit,
    # so a script typing into a field the UI replaced, or clicking the old button, was read as product-defect.
    assert_not_read("replay", "app-component-defect", [
        "The screenshot shows a failed login: the script still types into #email but the sign-in form now uses #username after the auth page was rebuilt",
        "The video shows a failed submit because the test clicked the old 'Send' button that is now hidden; the new button is labelled 'Submit request'",
        "Screenshot shows a failed login since the test user's password in cypress.env.json was rotated last week",
    ])
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-component-defect", [
        "Seems like the first screenshot is showing a failed upload, I suspect the cookie not to be sent.",
    ], bucket="product-defect")


def test_manual_check_stands_down_when_nothing_changed():
    # manual-check-passes-after-change took "changed" inside "nothing changed" as a change,
    # so a CI/Electron-only failure the reporter checked by hand was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Tests fail only in headless Chrome on CI. Manually verified that the checkout is working properly on the same build; nothing changed in the code.",
        "Manually verified that the export is working fine. The Cypress click on Export never registers in Electron; Chrome passes. Nothing in the app changed.",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Cypress error was `expected undefined to be a string`. possibly something changed in the API call that broke tests.\n\nManually verified that download csv and text file are working properly using 2.9.0 RC2.",
    ], bucket="stale-script")


def test_release_wave_stands_down_for_throttling():
    # platform-release-wave-broke-script used to read any failure after a release wave beside "test script",
    # so the org throttling the test run (429 Too Many Requests) was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Since the 2023 release wave 1 our test script times out because the Dynamics org is throttling with 429 Too Many Requests",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "After Wave 2 2021, the function XrmApp.Grid.SwitchView(\"My View\") is no longer working. It's looking for the view selector until it times out.",
    ], bucket="stale-script")


def test_partial_download_read_stands_down_when_the_file_itself_is_truncated():
    # runner-read-partial-download used to read every cy.readFile end-of-JSON error as the runner's race,
    # so an export the app truncates (cut off when opened by hand) was read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "cy.readFile(\"cypress/downloads/report.json\") failed while trying to read the file at the following path: Unexpected end of JSON input. Opening the downloaded file by hand it is also cut off: the export endpoint truncates files over 1MB",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "test-tool-regression", [
        "cy.readFile(\"XXX.json\") failed while trying to read the file at the following path:\n\n  /XXX/XXX.json\n\nThe following error occurred:\n\n  > \"/XXX/XXX.json: Unexpected end of JSON input\"",
    ], bucket="infra")


def test_recorder_export_not_read_beside_a_404_site():
    # recorder-cannot-export-code used to fire beside a site that answers 404, so
    # "Cannot export recording to cypress: the site under test returned 404 ..." was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "Cannot export recording to cypress: the site under test returned 404 for every page so nothing was captured",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "Can't export record/replay with testingLibrary, cypress and puppeteer.",
    ], bucket="infra")


def test_recorder_freeze_not_read_beside_5xx_or_rerun():
    # recorder-freezes-or-saves-nothing used to fire beside a bare 503 or a rerun that fixed it, so
    # "Codegen freezes on our site: the backend returns 503 ..." was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "Codegen freezes on our site: the backend returns 503 for every request",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "Recorder is frozen: the network dropped for a moment, rerunning fixed it",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "Tried on two different machines, same issue as my normal work laptop: codegen browser freezes.",
    ], bucket="infra")


def test_device_state_error_not_read_when_retry_worked():
    # phone-agent-accessibility-service-unavailable's new droidrun phrase used to fire when a retry
    # fixed it, so "Error retrieving state ... retry worked fine" was read as infra.
    assert_not_read("regen", "tool-setup-error", [
        "Error retrieving state from the connected device. The device went offline for a moment, retry worked fine",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "I have enabled the accessibility service still receiving the following error.\n"
        "Error retrieving state from the connected device. Is the Accessibility Service enabled?",
    ], bucket="infra")


def test_runner_ends_on_overlay_not_read_for_app_exception_or_agent():
    # mobile-runner-process-ends-when-app-shows-overlay used to fire beside the app's own unhandled
    # exception or a model's wrong tap, so "Appium crashes when an alert appears: the app throws an
    # unhandled exception and closes" was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "Appium crashes when an alert appears: the app throws an unhandled exception and closes",
    ], not_bucket="infra")
    assert_not_read("regen", "tool-code-error", [
        "Maestro ends when the keyboard appears because the model tapped the wrong field",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "The `maestro test` process ends when a custom toast appears in the app.",
    ], bucket="infra")


def test_automated_tool_crash_not_read_when_a_retry_passed():
    # app-crash-found-by-automated-test-tool used to fire on a time-out that passed on a retry, so
    # "The crash was caught by our automated test tool but it is a network timeout ..., retry passed"
    # was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The crash was caught by our automated test tool but it is a network timeout: java.net.SocketTimeoutException, retry passed",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "App crash due to network exceptions: a null Serie object causes a null pointer exception crash.\n"
        "This bug is found by an automatic tool.",
    ], bucket="product-uxux")


def test_version_regression_not_read_for_the_site_under_test():
    # tool-regression-since-version-older-fine used to fire on a release of the site under test, so
    # "Starting with v2.0 the site shows a blank page after the deploy; v1.9 worked fine" was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "Starting with v2.0 the site shows a blank page after the deploy; v1.9 worked fine",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "I am running `droidrun` on macOS and starting with version 0.4.16, everything started to break and no "
        "commands can be run anymore. Version 0.4.25 still does not work, however version 0.4.15 is fine.",
    ], bucket="infra")


def test_puppeteer_install_needs_the_install_to_fail():
    # puppeteer-install-script-failed used to fire on any line naming node_modules/puppeteer and install.mjs,
    # so a log that merely ran the install before an app's or script's own failure was read as infra.
    assert_not_read("replay", "runner-setup-error", [
        "postinstall: node_modules/puppeteer ran install.js fine. The test failed: AssertionError: expected 'Total: $0.00' to equal 'Total: $42.00'. The cart totals are computed wrong since #512, the app shows $0.00 to customers.",
        "> node node_modules/puppeteer/install.mjs  (skipped, PUPPETEER_SKIP_DOWNLOAD set)\nError: expect(received).toBe(expected)\nExpected: \"Welcome back\"\nReceived: \"Internal Server Error\"\nThe /dashboard endpoint crashes with a TypeError after the last merge.",
    ], bucket="product-defect")
    assert_not_read("replay", "runner-setup-error", [
        "Run node node_modules/puppeteer/install.mjs\nChrome (121.0.6167.85) downloaded to /home/runner/.cache/puppeteer\nTimeoutError: Waiting for selector `#signup-button` failed: Waiting failed: 30000ms exceeded\nThe button was renamed to #register-button in the last redesign, the test still uses the old id.",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "runner-setup-error", [
        "  File \"/__w/zulip/zulip/tools/lib/test_script.py\", line 125, in prepare_puppeteer_run\n"
        "    subprocess.check_call([\"node\", \"install.mjs\"], cwd=\"node_modules/puppeteer\")\n"
        "subprocess.CalledProcessError: Command '['node', 'install.mjs']' returned non-zero exit status 1.",
    ], bucket="infra")


def test_matcher_should_never_have_matched_needs_a_failing_test():
    # test-matcher-should-never-have-matched used to fire on tests that were green thanks to an assertion that
    # "should never have passed", so e2e reds that exposed a real defect of the app were read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The e2e tests were green due to an assertion that should never have passed: checkout actually returns a 500 and shows a blank page for logged-out customers, fixed in the app.",
        "Cypress specs pass because of a regexp check that should never have passed: the API leaks emails to anonymous visitors; this is a security issue in the backend.",
        "Playwright test failing due to the selector that should never have matched a disabled button; the button is enabled because of a bug in the form validation, which we fixed in the component.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "We've a failing e2e test due to regex that likely should never have matched properly.",
    ], bucket="stale-script")


def test_problem_is_the_test_itself_not_read_when_doubted():
    # problem-is-the-test-itself used to fire on doubts and second thoughts ("I don't think the problem is with
    # the test itself", "at first I thought"), so reports of a real app bug were read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "I don't think the problem is with the test itself: the API really returns 500 on /login since the last deploy, reproduced manually.",
        "At first I thought the issue is with the test itself, but the modal never opens in production either; it's a real bug introduced in #4410.",
        "I doubt the problem is with the e2e test itself; the page throws TypeError: Cannot read properties of undefined (reading 'map') in the console when loading the dashboard.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "nb: what the e2e is testing is working fine when manually testing, the problem is about the test itself",
    ], bucket="stale-script")


def test_hardcoded_strings_need_changing_test_data():
    # hardcoded-test-strings-data-changed used to fire on any removal of hard-coded values "that were different",
    # so app refactors that removed hard-coding and broke the page were read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "feat: removes hardcoded values that were different between staging and prod and reads them from config; this broke checkout, the price now shows NaN (cypress red on checkout.cy.ts).",
        "This PR removed the hardcoded labels which were changed by translators, but now the German settings page shows raw keys like settings.title to users in production.",
        "Refactor replaces hardcoded names that are different per tenant; since then the e2e test fails because the app renders 'undefined' in the header.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Turn e2e tests back on, removes hardcoded strings that were changing since the datagenerator used in CI is returning different patterns then the generator ran locally.",
    ], bucket="stale-script")


def test_failing_e2e_after_recent_changes_only_for_app_ui_changes():
    # failing-e2e-fixed-after-recent-app-changes used to accept any one word before "changes", so tool and
    # environment changes ("recent Playwright changes", "recent docker changes") were read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Fix failing e2e due to recent Playwright changes",
        "Fix failing e2e after recent docker changes, the compose network no longer exposes port 8065",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "MM-49414 : Fix failing e2e due to recent a11y changes",
    ], bucket="stale-script")


STALE_TITLE = ("[Bug]: After the page's height and width are changed by JavaScript, "
               "subsequent clicks are incorrect, still clicking the previous position.")


OWN_WINDOW_TITLE = "# [Bug]: UI tars 启动的时候自己的的界面会遮挡住下面的按钮，无法点击到。"


ZERO_TOOLS = ("# Manus selected 0 tools to use\n"
              "提出问题之后，Manus正常进行思考，但调用工具（Google Search）时始终显示：\n"
              "Manus selected 0 tools to use\n"
              "然后进入循环，一直思考相同内容，无法调用工具。")


def test_stale_position_rule_leaves_form_fields_named_old_location():
    # tool-clicks-stale-position used to read a field called "old location" / "previous position"
    # as a stale click position, so an agent that picked the wrong form field was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The agent kept clicking the old location field instead of the new address field on the "
        "Move form, so the new address was never filled in.",
        "Agent misread the goal: it kept clicking the previous position field in the job history "
        "form instead of Current position.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [STALE_TITLE], bucket="infra")


def test_own_window_rule_needs_a_covering_verb_and_leaves_product_popups():
    # tool-own-window-covers-target used to take "hides" (a panel that hides itself) as covering,
    # so an agent that misread the goal was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The agent's own panel hides after each step, so the agent misread the goal and clicked "
        "Cancel instead of Save.",
    ], bucket="agent-course")
    # ... and a product's chat widget or popup whose own panel covers a button was read as the tool's.
    assert_not_read("regen", "tool-code-error", [
        "页面运行时，客服浮窗自己的界面会挡住提交按钮，无法点击。",
        "操作时弹窗自己的面板遮挡了下一步按钮，关不掉。",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [OWN_WINDOW_TITLE], bucket="infra")


def test_zero_tools_rule_leaves_timeouts_and_rate_limits():
    # agent-never-gets-tool-calls used to fire whatever the cause, so a `selected 0 tools` run
    # whose model call timed out or hit a 429 was read as infra instead of a blip.
    assert_not_read("regen", "tool-code-error", [
        "Manus selected 0 tools to use\nError: Request timed out. 网络超时，无法调用工具，重新运行就好了。",
        "调用工具时一直显示 Manus selected 0 tools to use，API 返回 429 rate limit，稍后再试就好了。",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [ZERO_TOOLS], bucket="infra")


def test_antialiasing_rule_leaves_comparator_output_and_found_regressions():
    # visual-diff-antialiasing-noise used to read any 'anti-aliased pixels' followed by 'mismatch'/'fail',
    # and any mention of AA or sub-pixel jitter even when the diff turned out to be the app's,
    # so a comparator's 'Ignoring anti-aliased pixels, the mismatch is in the toolbar' was read as infra.
    assert_not_read("replay", "render-host-mismatch", [
        "Error: Screenshot comparison failed: 4213 pixels (ratio 0.02) are different. Ignoring anti-aliased pixels, the mismatch is in the toolbar: the Save button is missing since commit abc123.",
        "Visual test failed. At first we blamed inconsistent anti-aliasing, but the screenshot diff turned out to be a regression: the border of the card was removed by #412.",
        "The carousel slides now show sub-pixel jitter in the screenshot diff since the app switched to transform: translateX(-50%); fixed in the app's CSS.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "render-host-mismatch", [
        "visual snapshot flakiness was caused by inconsistent antialiasing across environments",
        "A few anti-aliased edge pixels or sub-pixel rendering jitter between captures is enough to push a coefficient and flip a bit, throwing `Screenshot mismatch!`",
        "Chromium's antialiasing along text/vector edges is not bit-reproducible across CI runs; a 3-pixel diff against the baseline",
    ], bucket="infra")


def test_font_loading_rule_leaves_the_apps_own_missing_fonts():
    # visual-diff-font-loading-or-browser-rendering used to read any diff 'due to the font not loading',
    # so a build that dropped the app's font files or a CSP of the app blocking them was read as infra.
    assert_not_read("replay", "render-host-mismatch", [
        "Visual regression: headings render in Times due to the font not loading: the new build dropped the woff2 files from dist after the webpack config change. Screenshot diff attached.",
        "The screenshot diff is due to the web font not loading: our Content-Security-Policy now blocks fonts.gstatic.com since the last deploy.",
        "Inconsistent font loading in the screenshot: the app's FontFace.load() promise rejects since #301, so the page falls back to Arial. Real issue in the app.",
        "The newest version of Chrome renders the page differently since our app relies on the removed -webkit-box-orient; the layout is broken for users too. Screenshot diff attached.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "render-host-mismatch", [
        "Unreliable font loading causes difference between test and reference. We are experiencing intermittent test failures due to font not loading for some scenarios.",
        "It seems that the newest version of Chrome renders our screenshots differently, causing the screenshot tests to fail.",
    ], bucket="infra")


def test_phantom_changes_rule_leaves_changes_that_were_not_there_before():
    # visual-service-phantom-changes used to read 'diffs where there were none' even when followed by 'before',
    # so visual tests that newly report a real change after a merge were read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "After merging #88 the visual tests report diffs where there were none before: the PR removed the header padding by mistake.",
        "Chromatic shows changes where there were none before our last commit; the footer now overlaps the page content in the snapshot.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "test-tool-regression", [
        "Subsequent PRs will run Chromatic, look for a baseline to compare against, and not see the previous test. This causes PRs to report visual changes when there are none.",
    ], bucket="infra")


def test_baseline_out_of_date_needs_its_article_except_after_regenerating():
    # visual-baseline-out-of-date's article became optional after every verb, so 'ran with --ci without updating
    # snapshots' (Jest's CI mode) or a fix made 'without updating baselines' was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Jest ran with --ci without updating snapshots, and the toMatchSnapshot assertion failed: the rendered price is $0.00 instead of $19.99.",
        "We fixed the bug in the checkout page without updating baselines, and the screenshot test still fails: expected total 10 but got 0.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "BL-16370 changed how the back cover renders and landed without regenerating baselines, so the nightly has failed since.",
        "Code of `Title` component was changed, and without regenerating the golden image the PR got green build",
        "the code was updated without updating the snapshots.",
    ], bucket="stale-script")


def test_winerror_32_on_the_apps_own_files_is_not_a_locked_browser_profile():
    # tool-browser-profile-files-locked-windows used to take any `profile` or `browser` within
    # 120 characters of WinError 32, so the app's own server failing on a locked upload was read as infra.
    assert_not_read("regen", "browser-unavailable", [
        "Saving the profile page fails: the app returns HTTP 500 Internal Server Error. Server log: PermissionError: [WinError 32] The process cannot access the file because it is being used by another process: 'C:\\inetpub\\app\\uploads\\profile\\avatar.png'",
        "The app's export button fails with [WinError 32] The process cannot access the file because it is being used by another process - the browser shows a 500 Internal Server Error page",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "browser-unavailable", [
        "browser-use --headed --profile \"Default\" open https://example.com\nFails with WinError 32 when Chrome is running (profile copy vs file locks)",
        "PermissionError: [WinError 32] The process cannot access the file because it is being used by another process: 'C:\\Users\\me\\AppData\\Local\\Google\\Chrome\\User Data\\Default\\Network\\Cookies'",
    ], bucket="infra")


def test_chrome_136_change_cited_as_background_leaves_the_apps_500_to_the_product():
    # chrome-refuses-debugging-on-default-profile used to read any citation of Chrome 136's change,
    # so a report that worked around it and then hit the app's 500 was read as infra.
    assert_not_read("regen", "browser-unavailable", [
        "Setup note: Chrome 136+ no longer supports being driven over CDP with the default profile, so we use a fresh profile (works). But the checkout page returns HTTP 500 Internal Server Error on submit and the order is never created.",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "browser-unavailable", [
        "Chrome failed to start: DevTools remote debugging requires a non-default data directory. Specify this using --user-data-dir.",
    ], bucket="infra")


def test_attach_to_running_browser_that_broke_on_a_blip_stays_a_blip():
    # agent-cannot-attach-to-running-browser used to ignore resets and a next run that connected,
    # so a one-off ECONNRESET on the attach was read as infra.
    assert_not_read("regen", "browser-unavailable", [
        "Failed to connect to the existing browser: connect ECONNRESET 127.0.0.1:9222. Happened once, the next run connected fine.",
        "Playwright: browserType.connectOverCDP: failed to connect to the running Chrome: net::ERR_NETWORK_CHANGED, a network blip; retry succeeded.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "browser-unavailable", [
        "`agent-browser --auto-connect` fails to connect to a running Chrome instance on Windows, even though the port is active and listening.",
    ], bucket="infra")


def test_capture_permission_words_of_the_app_or_a_setup_note_are_not_the_hosts():
    # macos-capture-permission-blocks-tool used to read `permission ... is required` and `denied`
    # anywhere, so setup notes and a web app's own permission messages were read as infra.
    assert_not_read("regen", "browser-unavailable", [
        "Note: Screen Recording permission is required for screenshots; it is granted. The agent looped on the cookie modal, clicking 'Accept' 20 times, stuck in a loop on the modal.",
        "The agent misread the goal: asked to test the 'Accessibility' settings page, it opened the permissions tab where accessibility permission is not enabled for the demo user and toggled it instead of checking font size.",
    ], bucket="agent-course")
    assert_not_read("regen", "browser-unavailable", [
        "Clicking 'Share screen' in the meeting web app shows a modal 'Screen recording permission denied' even though Chrome has it; the Share button does nothing and the page shows an error.",
        "Our web app's onboarding page says 'Accessibility permission is required' and the Continue button is disabled forever, so no test can get past onboarding.",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "browser-unavailable", [
        "Safari [safari_screenshot]\nscreencapture failed — Screen Recording permission may have been lost. Grant permission in System Settings → Privacy & Security → Screen Recording, then restart",
        "Error: Accessibility permission is required. Grant it in System Settings → Privacy & Security → Accessibility, then restart the MCP server.",
        "辅助功能权限、屏幕录像已经允许，但是在设置 -> Computer Use页面显示这两项权限未授权",
    ], bucket="infra")


def test_ui_kit_release_rule_leaves_tests_whose_lookup_failed_after_a_kit_upgrade():
    # ui-kit-release-regressed-component used to read any "no longer works with <kit> <version>",
    # so a test whose lookup found nothing after an MUI or Bootstrap upgrade was read as product-defect.
    assert_not_read("replay", "app-component-defect", [
        'Tests no longer work with MUI 5.11: the Select component now renders a div instead of a native select, so our test fails with "Unable to find an element".',
        "Bootstrap 5.3 broke our dropdown component: Error: element not found: .dropdown-menu.show after clicking the toggle; the menu now gets the class .dropdown-menu[data-bs-popper] instead.",
        'Our Select no longer works with MUI 5.11 — Unable to find an accessible element with the name "Country"; the label is now attached to a different element.',
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-component-defect", [
        "Prop 'mask' of q-input does not work in Quasar ver  1.15.22. I don't have this issue in Quasar ver 1.15.21",
        "Using `null` as the value of a combobox option no longer works in @headlessui/vue v1.7.17. As soon as you hover over the combobox option with value `null`, you'll see an error in the console.",
    ], bucket="product-defect")


def test_runner_hang_rule_leaves_hangs_the_report_puts_on_the_app_or_a_stale_selector():
    # runner-hangs-on-command used to read any "Cypress hangs when clicking X", so an app whose
    # request never returned, that threw a TypeError, or a renamed selector, was read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "Cypress hangs when clicking the Export button: the export request never returns and the spinner keeps spinning forever. Opening the page by hand shows the same endless spinner.",
        "TestCafe hangs when clicking the Save button: the page throws Uncaught TypeError: Cannot read properties of undefined (reading 'id') and the form never submits.",
        "The call to cy.visit freezes the Cypress test runner: the page keeps redirecting between /login and /home because the session cookie is never set.",
    ], bucket="product-defect")
    assert_not_read("replay", "test-tool-regression", [
        "Cypress hangs when typing into the email field after the login page redesign; the input was renamed to #user-email and the old #email selector no longer matches.",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "test-tool-regression", [
        "# Cypress hangs when calling .click() on a web component\nThis appears to be a regression in 4.8. In 4.7 this functions as expected.\ncy.contains('ion-button', 'My Button').click()\nThe call to the click freezes the Cypress test runner.",
    ], bucket="infra")


def test_e2e_helper_rule_leaves_the_apps_own_helpers_and_classes():
    # e2e-helper-class-needs-adjusting used to read any helper or class "accordingly" beside a test word,
    # so an e2e red caused by the app's own pricing or date helper was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "E2E checkout test fails: the total shows 10.00 instead of 12.10 since the VAT rate changed on the server. We need to update the helper `calcVat` accordingly in the pricing service.",
        "The Cypress test caught it: after the currency change the cart shows $0.00 for every item. Someone has to update the helpers formatPrice.ts accordingly in src/utils.",
        "E2E test red: due to the changes the Datepicker got from 4 -> 5, dates shift by a day; update the class DateAdapter in src/app accordingly.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "In e2e testing of ionic7 projects, the ion-input is not accessible / no value can be set.\nIn my opinion, you just have to look which changes the Ion-Input got from 6 ⇾ 7 and adjust the class `IonicInput` accordingly.",
        "The Playwright e2e run fails on the new signup flow: adjust the page objects SignupPage accordingly.",
    ], bucket="stale-script")


def test_engine_bug_rule_leaves_a_browser_bug_the_report_rules_out():
    # browser-engine-bug-cited-as-cause used to read a tracker link after "caused by the Firefox bug"
    # even when the report said it was not the cause, so the app's own bug was read as infra.
    assert_not_read("replay", "browser-release-regression", [
        '# Date picker shows NaN in Firefox\nWe first thought this was caused by the Firefox bug https://bugzilla.mozilla.org/show_bug.cgi?id=1234567 but it is not: our date formatter passes "2024-01-05 10:00" to new Date(), which Firefox rejects. Fixed the formatter.',
        "Not due to the Chrome bug https://crbug.com/1400000 as suggested: the Save button is disabled in Chrome because our form validation reads event.path, which was removed. Fixed in the form component.",
        "The checkout e2e test is red in Safari only. It is not because of a WebKit bug: https://bugs.webkit.org/show_bug.cgi?id=200000 was closed as invalid; the checkout page actually sends an empty cart id in Safari because the localStorage write fails in private mode.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "browser-release-regression", [
        "# Firefox INP tests failing\nDue to this bug:\nhttps://bugzilla.mozilla.org/show_bug.cgi?id=2000426\n\nTests expecting a `click` event are instead seeing a longer `pointerdown` event.",
    ], bucket="infra")


def test_bundled_browser_rule_leaves_a_runner_browser_the_report_clears():
    # runner-bundled-browser-build-problem used to read "problem" anywhere after "Chromium in the version
    # of Playwright", so a report clearing the browser (the app or a renamed label at fault) was read as infra.
    assert_not_read("replay", "browser-release-regression", [
        "We first blamed the Chromium in the version of Playwright we use, but it was not a browser problem: the login form double-submits because our submit handler is attached twice, and the server answers 409.",
        'Suspected WebKit of the version of Playwright we pin has an issue, but the real cause is the checkout page calling a removed API; the page shows "Something went wrong" in every browser.',
    ], bucket="product-defect")
    assert_not_read("replay", "browser-release-regression", [
        'Firefox in this version of Playwright is not the problem here: the "Log in" button was renamed to "Sign in" and the test still looks for the old label.',
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "browser-release-regression", [
        "# test(integration-ui): fix for WebKit\nWebKit in the version of Playwright we are with seems to have a problem where `:host(bx-modal[open])` is defined before `:host(bx-modal)`.",
    ], bucket="infra")


def test_scroll_or_focus_rule_leaves_missing_fields_and_crashed_browsers():
    # browser-specific-scroll-or-focus-lost used to read "In Firefox ... the focus is lost" beside any
    # test tool not on its list, a failed lookup or a crashed browser, so those were read as product-defect.
    assert_not_read("replay", "app-component-defect", [
        'In Firefox the focus is lost on the search field and then: Capybara::ElementNotFound: Unable to find field "q" that is not disabled. The field is now called "query" after the header change.',
    ], bucket="stale-script")
    assert_not_read("replay", "app-component-defect", [
        "In Safari the focus is lost right after the page loads, then the browser crashed and the session terminated.",
    ], bucket="infra")
    assert_not_read("replay", "app-component-defect", [
        "In Chrome the focus gets lost between two fill_in calls in Capybara, so half the text ends up in the wrong input; typing by hand works fine.",
        "In Safari 17.4 the focus is lost when the dialog opens; this is a known WebKit issue (fixed in Safari 17.5), nothing in our dialog changed and it passes in Chrome and Firefox.",
    ])
    # positive control: the rule's own wording is still read
    assert_read("replay", "app-component-defect", [
        "# Firefox: the scroll is dropped on clicking the test case/suite/folder\nIn Firefox, on opening a test case, test suite or a folder, the scroll is dropped down.",
    ], bucket="product-defect")


def test_app_socket_drop_is_not_the_tools_missing_reconnect():
    # tool-never-reconnects-dropped-socket used to accept "headless" or a DevTools window as
    # the browser tool and had no blip veto, so an app's socket watched in DevTools, one met in
    # a headless run, and a CDP drop a retry cleared were read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The notifications WebSocket disconnects repeatedly without auto-reconnect in our headless runs; after that the Save button does nothing.",
        "In DevTools the websocket disconnects frequently with no automatic reconnect, and then the Save button does nothing until you reload.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "Remote browser session failed: the CDP websocket disconnects repeatedly with no auto-reconnect; read ECONNRESET from the corporate proxy, a retry worked.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "When using OpenClaw's browser data scraping feature, the WebSocket connection drops frequently, causing scraping tasks to fail or require manual restart.\nWebSocket disconnects frequently, with no automatic recovery.",
    ], bucket="infra")


def test_reconnect_loop_needs_the_browser_itself_reopened():
    # tool-reconnect-loop used to take any "infinite loop trying to re…" with "browser" within
    # 30 characters, so an agent re-creating an item in the browser and a page reconnecting
    # its own websocket were read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The agent went into an endless loop of trying to re-create the same todo item in the browser, clicking Add again and again.",
    ], bucket="agent-course")
    assert_not_read("regen", "tool-code-error", [
        "After the session expires the page enters an infinite loop trying to reconnect the websocket and the browser tab freezes; the Save button does nothing.",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "When using Browser Use with CDP, if the browser is closed (eg. session timeout after 30s), Browser Use enters an infinite loop attempting to reopen a new browser context.",
    ], bucket="infra")


def test_negated_happens_rarely_is_not_a_share_of_runs():
    # reported-share-of-runs' new "happens rarely" matched inside "doesn't happen rarely" and
    # "not something that happens rarely", so a browser that never starts was read as transient.
    assert_not_read("regen", "reported-share-of-runs", [
        "browserType.launch: Browser closed. It doesn't happen rarely, it happens every single time since the update.",
        "Chrome failed to launch: Failed to launch the browser process! This is not something that happens rarely; it fails on every run on the ARM runner.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "reported-share-of-runs", [
        "We checked this particular instance and found that this failure is due to our infra browser issue. It happen very rarely and we have work in plan to handle it in coming month.",
    ])


def test_last_working_version_of_the_app_or_a_blip_is_not_a_tool_regression():
    # tool-last-working-version used to read any "Last working version: N.N" line, so the app's
    # own release that broke a button and a network blip that names a version were read as infra.
    assert_not_read("regen", "tool-code-error", [
        "Playwright generation fails on our checkout page: after upgrading the storefront theme, the Pay button stays disabled for valid cards.\nLast working version: 4.2.1\n",
        "Checkout form: the Submit button does nothing after upgrading the storefront to 4.3.0.\nLast working version: 4.2.1\nThe page shows a blank white screen after clicking Pay.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "Generation fails with ETIMEDOUT connecting to the remote browser over CDP.\nLast working version: v1.4.2\nIt seems to be a network blip on our side, retrying sometimes works.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "**agent-browser version:** v0.21.0, v0.21.2 (both affected)\n**Last working version:** v0.19.0\nWhen connecting to a remote Browserless instance over WSS, the agent-browser daemon in v0.21.x loses its CDP connection between sequential command invocations.",
    ], bucket="infra")


def test_placeholder_assertions_written_by_a_coding_assistant_stay_its_course():
    # tool-generator-writes-placeholder-assertions vetoed only "the agent", "the model", Claude,
    # GPT and Copilot, so a scaffold that Cursor or an AI assistant wrote with placeholder
    # assertions was read as the tool's template (infra).
    assert_not_read("regen", "tool-code-error", [
        "Cursor generated a Playwright test scaffold, but the assertions are placeholders: expect(true).toBe(true). It never looked at the page.",
        "The AI assistant produced a test template and the assertions are dummy placeholders; it ignored the acceptance criteria in the test case.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        '`generate(what: "test", test_name: "google_news_load")` produces a Playwright test scaffold, but the assertions are generic placeholders.',
    ], bucket="infra")


def test_same_old_screenshot_from_a_page_that_never_changed_is_not_the_tools():
    # tool-feeds-agent-stale-screenshots read any "fed the same old screenshot", so a page of the
    # app that never re-rendered was read as infra.
    assert_not_read("regen", "tool-code-error", [
        "After clicking Save the page never re-renders and the Save button does nothing, so the agent is fed the same old screenshot each step.",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        'Magnitude does not give the agent updated screenshots past the initial "Page stability wait". The agent is instead fed the same (old) screenshots and keeps waiting for the changes it expects which never happens, even though the page has updated in the meantime.',
    ], bucket="infra")


def test_app_gateway_cannot_forward_beside_a_data_grid_is_not_the_grid_hub():
    # grid-hub-cannot-forward-request used to accept a bare "grid" as the grid's own word, so an
    # app's gateway refusing a request on a page with a data grid was read as infra (chromium-error).
    assert_not_read("replay", "chromium-error", [
        'Checkout e2e fails on staging: after clicking "Place order" in the orders grid the page shows '
        '"502 Bad Gateway: cannot forward the request to upstream orders-service". The API gateway config '
        "was changed in yesterday's deploy.",
        'Our ag-grid page test failed. Response from /api/export: {"error":"cannot forward the request to '
        'the reporting service"} - reporting service returns error since v2.3',
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "chromium-error", [
        "org.openqa.selenium.WebDriverException: cannot forward the request 172.17.0.7:40005 failed to respond",
        "This is with zalenium: cannot forward the request 172.17.0.7:40005 failed to respond",
    ], bucket="infra")


def test_keda_named_as_the_grid_setup_is_not_blamed():
    # grid-autoscaler-blamed used to fire on any failure word within 200 characters of "KEDA",
    # so a test failing on a KEDA-scaled grid because the app misbehaved was read as infra.
    assert_not_read("replay", "automation-setup-error", [
        'Tests fail on our selenium-grid (autoscaled by KEDA) because the checkout page now shows '
        '"Payment declined" for every valid card; the payment service was updated yesterday.',
        "The test failed on Selenium Grid (KEDA scaling enabled): expected total 100.00 but was 0.00, "
        "the cart no longer applies the discount.",
        "Our Selenium Grid runs on AKS and scales with KEDA. The login test fails at the same step every run: "
        "after submitting the form the app returns 500 Internal Server Error since the 4.2 deploy.",
    ], bucket="product-defect")
    assert_not_read("replay", "automation-setup-error", [
        "Selenium grid with KEDA ScaledObject: test fails with NoSuchElementException: Unable to locate element: "
        "#login-btn. The login button got a new id in the latest frontend release.",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "automation-setup-error", [
        'AKS and KEDA_Selenium grid: my selenium webdriver script randomly fails at different steps with "System.NullReferenceException: '
        'Object reference not set to an instance of an object." when executed on AKS using auto scaler KEDA.',
        "Selenium Grid on AKS: I don't see this issue when KEDA is removed.",
    ], bucket="infra")


def test_consent_banner_broken_for_users_is_not_a_stale_script():
    # consent-banner-in-the-way-prose's new "fix tests after the banner came" branch used to read a
    # report whose banner or flow itself is broken, so it was read as stale-script.
    assert_not_read("replay", "unhandled-modal-blocks-step", [
        "Fix playwright tests after OneTrust was introduced - the login form now redirects to /error after "
        "accepting cookies, users are logged out.",
        "Update the tests following the consent banner changes. Expected the Accept button to dismiss the banner "
        "but the banner stays open; the click handler throws TypeError: Cannot read properties of undefined "
        "(reading 'setConsent').",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "unhandled-modal-blocks-step", [
        "Fix cypress tests after CookieBot was introduced",
        "After implementing cookiebot the E2E are failing. This PR should fix cypress by having it create the cookie.",
    ], bucket="stale-script")


def test_page_showing_stale_or_raw_text_instead_of_new_copy_is_the_app():
    # spec-waited-on-copy-the-ui-removed used to read any "instead of the text that was changed",
    # so a page that shows old cached copy or a raw i18n key was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "E2E test fails on /pricing: the page renders the raw i18n key `pricing.cta.title` instead of the "
        "heading text that was changed in the last translation update.",
        "Cypress spec fails: after deploy the homepage still shows the old banner instead of the copy that was "
        "changed in the CMS yesterday; looks like the CDN cache is never invalidated.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "- `database-webhooks.spec.ts` — wait on the `Database Webhooks` heading instead of marketing copy that "
        "was removed when the page moved to the new integrations UI.",
    ], bucket="stale-script")


def test_text_changed_into_broken_value_is_not_a_stale_script():
    # ui-text-changed-so-tests-fail used to read any "text/title has changed, causing the tests to fail",
    # so a page whose text changed into "undefined", NaN or a raw translation key was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        'The page title has changed, causing the e2e tests to fail: it now reads "undefined | Acme" on every '
        "page after the router upgrade.",
        "The button text has changed, so the tests fail - it now shows the raw translation key "
        '`checkout.pay_now` instead of "Pay now".',
        "The total text has changed, causing the test to fail: the cart shows NaN instead of the sum since the "
        "currency refactor.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "The label has changed upstream, causing the e2e test to time out consistently.",
        "Label has changed, therefore the tests are failing. This fixes the issue.",
    ], bucket="stale-script")


def test_invalidated_tests_and_broken_new_flows_are_not_reordered_steps():
    # flow-steps-reordered-under-tests used to read a bare "invalidated ... e2e tests" and a new flow
    # said to be broken, so a driver upgrade was read as stale-script and app bugs likewise.
    assert_not_read("replay", "label-path-mismatch", [
        "The chromedriver upgrade invalidated several e2e tests: they now hang on driver.get() until the 60s timeout.",
    ], bucket="infra")
    assert_not_read("replay", "label-path-mismatch", [
        "Yesterday's release invalidated a few cypress tests: the checkout total is wrong, expected 42.00 but got 0.00.",
        "The onboarding test fails because the order of steps has changed: the wizard now skips the payment step "
        "entirely and creates the account without a plan, which is a bug.",
        "Fix the e2e helpers to handle the new login flow; the new login flow itself crashes with TypeError: "
        "Cannot read properties of null (reading 'token') on submit.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "The change invalidated a couple of onboarding e2e tests since the order of steps has changed.",
        "Update the test suite's skip onboarding to use the new onboarding flow.",
    ], bucket="stale-script")


def test_test_id_rename_beside_an_app_crash_is_not_a_stale_script():
    # test-id-attribute-renamed used to read any test-id rename, so a report whose app crashed on load
    # after the rename was read as stale-script.
    got = answer("replay", "Playwright getByTestId fails after we migrated data-test to data-testid: the app "
                           "crashes on load with TypeError: Cannot read properties of undefined (reading 'map').")
    assert "label-path-mismatch" not in got.signals and got.bucket != "stale-script", (got.bucket, got.signals)
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Fixing E2E tests: Updating `data-test-id` to `data-testid`.",
    ], bucket="stale-script")


def test_validator_rule_ignores_values_the_tester_typed_wrong():
    # app-validator-rejects-every-valid-input used to read any "validator rejects every valid
    # password" as the app's, so a password the test data or the AI typed with a stray space
    # was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Client-side validation blocks every valid password because the test data has a trailing space after each password.",
        "Signup step fails: the client-side validator rejects every valid password the AI typed, since Claude pastes it with a leading space.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Form validation rejects every valid password",
        "tất cả mật khẩu đúng luật đều bị client-side validator chặn",
    ], bucket="product-uxux")


def test_dead_end_rule_ignores_dead_ends_the_agent_wandered_into():
    # app-flow-dead-end-no-way-on used to read any "dead-end page ... no way to proceed" as the
    # app's, so a step that left the app by mistake or never clicked the cookie banner's Accept
    # was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Navigated to the blog by mistake and reached a dead-end page with no way to proceed to checkout.",
        "Step 7 opened the Help link in a new tab and landed on a dead-end page (the docs site), with no way to get back to the checkout tab.",
        "Generation hit a dead-end modal: the cookie consent banner covered the page with no way to proceed, because the generator never clicked Accept.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "In-browser 'Begin a new chronicle' dead-ends — no way to start playing outside the native app",
        "In-browser checkout dead-ends — no way to proceed past the shipping step",
    ], bucket="product-uxux")


def test_dead_button_rule_ignores_clicks_on_an_overlay_or_before_load():
    # app-button-dead-click-landed used to read "click landed ... no navigation happened" and
    # "button is dead" whatever took the click, so a click on the cookie overlay or one made
    # while the page was still hydrating was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The click landed on the overlay; no navigation happened. The cookie banner was still open.",
        "Submit button is dead on page load for about 2 seconds while React hydrates; the step clicked too early.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "the new 'Try again' button was DEAD (click landed, no retry fired). Its retry action is a no-op.",
    ], bucket="product-uxux")


def test_overflow_rule_needs_a_mobile_screen():
    # app-page-overflows-mobile-viewport used to read any page "N pixels wider than the window"
    # as the app's layout, so a desktop browser window the tool or agent sized too small was read
    # as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The browser was launched without --window-size, so the page was 300 pixels wider than the window and the Submit button was hanging off the right edge; the generated step never found it.",
        "Agent's browser window is 1024px but it sets the viewport to 1280, so every page is 256px wider than the window and the agent cannot see the right side.",
        "The Electron BrowserWindow is created at 800x600 while the page is laid out for 1280, so the page renders 480px wider than the window and the Next button is hanging off the right edge.",
        "Midscene with UI-TARS: the canvas is 200px wider than the screen on the VM, so clicks miss the right column.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "every run reported the same verified finding at the 390px mobile viewport: the page was 103 pixels wider than the screen, with the button in the header hanging off the right edge.",
    ], bucket="product-uxux")


def test_unclickable_rule_ignores_tool_and_timing_causes():
    # product-control-not-clickable's new "buttons/links/tabs ... unclickable" branch used to
    # read any unclickable control as the app's, so headless-only failures, a control under a
    # sticky header, a frame never switched to and a click before load were read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Links are unclickable in headless Chrome but work fine in headed mode.",
        "Nav items unclickable because the sticky header covers them; scrolling the element into view first works.",
        "The buttons are unclickable while the page is still loading; the generated step clicks before the spinner goes away.",
        "Buttons inside the iframe unclickable with Selenium until I switched to the frame first; the generated test never switches.",
        "Tabs unclickable in Playwright's bundled Chromium since 1.40; same page works in Chrome.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Nav buttons time out / unclickable during active DM narration (can't leave Table, can't return to it)",
        "[ominzon] Scroll back to top - is not clickable",
    ], bucket="product-uxux")


def test_image_refusal_rule_ignores_the_apps_own_upload_feature():
    # provider-refuses-image-parts used to read any API or endpoint that "does not support image
    # input" beside a provider or model word, so the app's own upload or chat feature refusing a
    # user's picture was read as the tool's model set-up (infra).
    assert_not_read("regen", "tool-setup-error", [
        "Chat page test: after attaching a photo the assistant shows \"OpenAI API error: the Responses API does not support image input for this model\"; our backend uses gpt-3.5 so image chat is broken on the site.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-setup-error", [
        "Profile page: uploading a WebP avatar fails with \"the API does not support image input in this format\" for every WebP file; the storage provider only takes PNG and JPEG.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "Request failed: DeepSeek Responses does not support image tool results.",
        "OpenRouter error 404: No endpoints found that support image input",
    ], bucket="infra")


def test_model_set_up_rules_ignore_the_apps_own_ai_backend():
    # model-client-lacks-structured-output and model-json-mode-refused-without-json-word used to
    # read LangChain's and DeepSeek's errors wherever they appeared, so the app's own AI feature
    # failing in production with them was read as the test tool's model set-up (infra).
    assert_not_read("regen", "tool-setup-error", [
        "Our app uses LangChain; the support bot page shows 500 because with_structured_output is not implemented for ChatOllama in production.",
    ], not_bucket="infra")
    assert_not_read("regen", "tool-setup-error", [
        "The site search page returns 500: Prompt must contain the word json in some form to use response_format of type json_object (our backend calls DeepSeek)",
    ], bucket="product-uxux")
    # positive control: the rules' own wording is still read
    assert_read("regen", "tool-setup-error", [
        "LLM API call failedwith_structured_output is not implemented for this model",
        "the API returns an error: `Prompt must contain the word 'json' in some form to use 'response_format' of type 'json_object'`",
    ], bucket="infra")


def test_revert_of_an_app_library_beside_an_api_tool_is_not_the_tools_regression():
    # api-test-tool-revert-clears-issue used to read any "rolling back to X fixes the issue"
    # beside an API-tool word (even "impact" for "pact"), so a rolled-back spring-boot, a
    # rolled-back service release or moment.js was read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "After upgrading spring-boot to 3.2.1 the /orders endpoint returns 500 when I call it from Postman. "
        "Rolling back to 3.1.5 fixes the issue, so something in our controller mapping broke.",
        "Newman run against staging: 12 assertions failed on GET /orders after we deployed release 3.2.0 of the "
        "orders service (totals are now null). Rolling back to 3.1.4 fixed the issue.",
        "Karate suite: expected total 42 but got 0 on /cart after bumping jackson-databind in the API. "
        "Reverting back to 2.15.2 solves the problem.",
        "The checkout page shows the wrong currency since we upgraded moment.js; reverting back to 2.29.4 "
        "fixes the issue. This has a big impact on our customers.",
    ], bucket="product-defect")
    # positive control: the rule's own wording (the tool's own code or version) is still read
    assert_read("replay", "test-tool-regression", [
        "which used to work perfectly fine until Friday (on version 0.28.0) but since version 0.29.0 and 0.30.0 "
        "were released late last week, my test started failing with the following error message:\n"
        "E           tavern.util.exceptions.BadSchemaError: Unexpected keys passed to $ext: {'m', 'a'}\n"
        "Reverting back to 0.28.0 addresses the problem.",
        "Newman 6.0.0 fails every collection run with TypeError: Cannot read properties of undefined "
        "(reading 'id'). Rolling back to 5.3.2 fixes the issue.",
    ], bucket="infra")


def test_a_doubted_false_positive_is_not_the_tools_misfire():
    # api-test-tool-finding-false-positive used to read "false positive" anywhere within 60
    # characters of "response", "server error" or "check", so a report that first suspected
    # a false positive and then found the API's own bug was read as infra.
    assert_not_read("replay", "test-tool-regression", [
        "Schemathesis reports a server error on POST /orders (500 Internal Server Error). At first I thought it "
        "was a false positive, but the response body shows a NullPointerException in our OrderController.",
        "Dredd: I suspected a false positive in the response check, but our API really returns `price` as a "
        "string instead of a number; fixed it in the serializer.",
        "Schemathesis found that GET /users/{id} returns 500 for id=0. Is this a false positive? The server error "
        "comes from our database layer, so it is our bug.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "test-tool-regression", [
        '# [BUG] False positive for "Accepted negative data"\nAfter upgrading to the new schemathesis 4.0.1 I was '
        "getting new errors related to negative and positive data.\nThe `charset=null` is a valid input and the "
        "output is as expected.\nHowever, schemathesis treats this case as negative data.",
        "Schemathesis: false positive for the status code conformance check on 204 responses",
    ], bucket="infra")


def test_a_refusal_quoted_in_the_services_own_response_is_not_an_unreachable_app():
    # api-client-connection-refused-localhost used to read an HttpHostConnectException quoted
    # in the body of the service's own 5xx (its backend refused it), so Karate's
    # `status code was: 500 ... response: {...Connect to localhost:9200 ... refused}` was infra.
    assert_not_read("replay", "app-unreachable", [
        "com.intuit.karate.KarateException: status code was: 500, expected: 200, response time: 35, "
        "url: http://localhost:8080/api/search, response: {\"error\":\"org.apache.http.conn."
        "HttpHostConnectException: Connect to localhost:9200 [localhost/127.0.0.1] failed: Connection refused\"}",
        "AssertionError: expected response to have status code 200 but got 503\nresponse body: {\"message\":"
        "\"org.apache.http.conn.HttpHostConnectException: Connect to localhost:8081 [localhost/127.0.0.1] "
        "failed: Connection refused (Connection refused)\"}",
        "GET /api/reports -> 502\n{\"error\": \"upstream failed: org.apache.http.conn.HttpHostConnectException: "
        "Connect to 127.0.0.1:9000 [/127.0.0.1] failed: Connection refused\"}",
    ], bucket="product-defect")
    # positive control: the client's own refused connection is still read
    assert_read("replay", "app-unreachable", [
        "I get this stack trace:\norg.apache.http.conn.HttpHostConnectException: Connection to "
        "http://localhost:8080 refused\n\tat org.apache.http.impl.conn.DefaultClientConnectionOperator."
        "openConnection(DefaultClientConnectionOperator.java:190)",
        "Error invoking remote method 'send-http-request': Error: connect ECONNREFUSED 127.0.0.1:44394",
    ], bucket="infra")


def test_a_contract_broken_by_accident_or_a_library_bump_is_not_a_stale_pact():
    # api-contract-no-longer-in-use used to read any "contracts/interactions/pacts are no longer
    # valid/supported" beside a pact word, so a provider that accidentally dropped a route, a
    # provider deploy that breaks its consumer and a pact library bump were read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Provider verification failed for consumer web-app: GET /users/1 now returns 404 because the provider "
        "accidentally dropped the route; the interactions are no longer valid.",
        "Pact verification fails after the provider deploy: the contract is no longer valid because the /orders "
        "endpoint now returns an empty body; this breaks the consumer in production.",
    ], bucket="product-defect")
    assert_not_read("replay", "label-path-mismatch", [
        "After bumping @pact-foundation/pact to 12.0.0, the consumer tests fail: V2 pacts are no longer "
        "supported by the new Rust core.",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# Wrongly failing the build because pact is no longer supported\nconsumerA has contract with providerB\n"
        "after some refactor providerB was split to providerB and providerC and consumerA has nothing for "
        "providerB now\nbut now when providerB tests are running ( for other consumer ), broker still asks for "
        "consumerA :providerB compatibility",
    ], bucket="stale-script")


def test_api_tests_changed_after_a_tool_upgrade_are_not_stale_scripts():
    # api-tests-follow-intended-change used to read "responses have changed ... tests need to be
    # updated" and "bring the API tests up to date" after an upgrade or bump of the test tool
    # itself, so a tavern bump (infra) was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "After bumping tavern to 2.0 the response fields have changed handling (ints are saved as strings), "
        "so the tavern tests need to be updated.",
    ], bucket="infra")
    assert_not_read("replay", "label-path-mismatch", [
        "After upgrading to Karate 1.4, the response fields have changed type (numbers are now parsed as "
        "doubles), so our karate tests need to be updated.",
        "Bring the API tests up to date after the upgrade to Newman 6, which broke how our pre-request scripts "
        "read environment variables.",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# Bring hurl tests for invoices up to date so it doesn't fail\nAPI responses for invoices had changed, "
        "so the hurl test had to change too",
        "# [RegTest] Update postman test\nFollowing gravitee-io/issues#5262 some error message have change.\n"
        "Postman tests have to be fixed",
    ], bucket="stale-script")


def test_tab_connection_limit_needs_an_extension_named():
    # browser-extension-bridge-unreachable used to read any "only able to connect to N tabs",
    # so an app's own tab or connection limit (a chat app that drops its third tab) was read as infra.
    assert_not_read("regen", "browser-unavailable", [
        'Our chat app is only able to connect to 2 active tabs: when I open a third tab, '
        'the page shows "Disconnected" and the Send button stays disabled.',
        "The live dashboard is only able to connect to 6 tabs at a time; in the 7th tab the event "
        "feed stays empty and the Refresh button does nothing.",
        "Trading screen only able to connect to 3 tabs per user; the fourth tab's order form stays "
        'disabled and the page shows "Connection limit reached".',
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "browser-unavailable", [
        "# Kapture only able to connect to 3 tabs at a time\n"
        "The Kapture extension appears limited to 3 active tab connections at a time.",
        "The browser extension is only able to connect to 3 tabs; a 4th tab reports Disconnected.",
    ], bucket="infra")


def test_service_not_connected_needs_the_browser_extension_named():
    # extension-bridge-service-not-started used to take any "mcp", "extension", "bridge", "插件"
    # or "扩展" as context, so an app's integration card (or a run of an MCP test tool) showing
    # Service Not Connected was read as infra.
    assert_not_read("regen", "browser-unavailable", [
        "muggle-test MCP: generation failed at step 4. The Integrations page shows Service Not "
        "Connected for Slack after OAuth succeeds and the Save button stays disabled.",
        "The Hue Bridge tile on the dashboard shows Service Not Connected even though the bridge "
        "is online; the Reconnect button stays disabled.",
        "Settings > Extensions: the Zendesk extension card still shows Service Not Connected after "
        "I authorise it, and the Save button stays disabled.",
    ], bucket="product-uxux")
    assert_not_read("regen", "browser-unavailable", [
        "集成页面上 Slack 插件一直显示Service Not Connected，点击连接按钮没有反应，保存按钮一直是灰色的",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "browser-unavailable", [
        "# MCP不能用了 浏览器插件链接不上了？\n一直显示Service Not Connected，"
        "点击Connected之后变成Connected, Service Not Started",
        "The mcp-chrome extension popup stays on Service Not Connected after installing the bridge.",
        "Chrome extension says Connected, Service Not Started; the native host never comes up.",
    ], bucket="infra")


APP_TOASTS = [
    "AssertionError: Timed out retrying after 4000ms: expected '[data-cy=toast]' to contain 'Order placed'\n"
    "  but the text was 'We encountered an unexpected error talking to our servers. The server's response was: 500 Internal Server Error'",
    "1) Checkout\n     submits the order:\n"
    "   CypressError: `cy.contains()` found the toast: We encountered an unexpected error talking to our servers. Please try again later.\n"
    "   Backend log: StatusCodeError: 500 - {\"error\":\"payment service returned null\"}",
]


CYPRESS_OWN = (
    "We encountered an unexpected error talking to our servers.\n"
    "There is likely something wrong with the request.\n"
    "The --parallel flag you passed was: true\n"
    "The server's response was:\n"
    "StatusCodeError: 422\n"
    "{\"code\": \"INDETERMINATE_CI_BUILD_ID\"}"
)


def test_cypress_recording_rule_leaves_app_toast_quoted_in_assertion():
    # cypress-recording-service-request-failed used to read Cypress's sentence anywhere, so an app
    # toast worded the same inside a failed assertion, beside "The server's response was: 500",
    # was read as infra.
    assert_not_read("replay", "automation-setup-error", APP_TOASTS, bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "automation-setup-error", [CYPRESS_OWN], bucket="infra")


MERGED_APP_FAILURES = [
    "After merging the shard blob reports with `npx playwright merge-reports --reporter html ./all-blob-reports`, the report shows one failure:\n"
    "  1) [chromium] › cart.spec.ts:14:5 › Cart › removes an item\n"
    "    Error: Uncaught TypeError: Cannot read properties of undefined (reading 'id')\n"
    "        at removeItem (http://localhost:5173/assets/index-9f8e21.js:1:4521)",
    "CI job merge-reports: 1 failed\n"
    "  [firefox] › checkout.spec.ts:31:3 › checkout › shows the order summary\n"
    "  TypeError: Cannot read properties of undefined (reading 'total')\n"
    "      at OrderSummary (https://staging.example.com/_next/static/chunks/pages/checkout-3ab1.js:1:2214)",
]


def test_blob_merge_rule_leaves_app_typeerror_in_merged_report():
    # playwright-blob-merge-failed used to take any "Cannot read properties of undefined" beside
    # merge-reports, so a merged report whose test failed on the app's own TypeError was read as infra.
    assert_not_read("replay", "automation-setup-error", MERGED_APP_FAILURES, bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "automation-setup-error", [
        "Encountered below error when tried using merge-reports feature of playwright to merge blob reports.\n"
        "> TypeError: Cannot read properties of undefined (reading 'repeatEach')",
        "Error: Blob reports being merged were recorded with different test directories, and\nmerging cannot proceed.",
    ], bucket="infra")


def test_typed_text_rule_leaves_grounding_product_limits_and_agent_focus():
    # computer-use-typed-text-differs-from-request used to read any "coordinates the model gives
    # … behaviour in the browser don't match", any "actual action didn't enter the text", and
    # text cut by the page's own maxlength or a disabled field, so the agent's mis-grounding and
    # typing before focusing a field were read as infra, and a disabled field as infra.
    assert_not_read("regen", "tool-code-error", [
        "The coordinates the model gives and its behavior in the browser don't match: the model keeps pointing at the \"Search\" label next to the box instead of the input itself, so every click lands on the label.",
        "The generation failed at step 4. The agent typed before clicking the email field, so the actual action didn't enter the text anywhere and the form stayed empty.",
        "Step 6: the agent never clicked the search box, so the executed action did not type the text into the page; it then declared the task impossible.",
    ], bucket="agent-course")
    assert_not_read("regen", "tool-code-error", [
        "The actual typing action did not input the text because the Name field on the signup page is disabled by the app after the first keystroke; it is greyed out for every user.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "The text the agent sends to the tool and its behavior in the browser don't match: the site's search field has maxlength=10, so only the first ten characters of the query end up in the box.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "I've found that sometimes the input that claude asks to be given to the tool and its behavior in the computer don't match, for example, when using the computer tool to perform a type action, claude gives the input text '万能青年旅店 2024 演出', but the actual action doesn't enter the words in full.",
        "The actual action doesn't enter the words in full when the text is Chinese.",
    ], bucket="infra")


def test_null_click_rule_leaves_model_that_gave_no_coordinates_and_blips():
    # gui-agent-parsed-click-null-coordinates used to read any "start_box: [null", so a model that
    # gave no coordinates at all (all-null box) was read as infra, and so was a timed-out reply.
    assert_not_read("regen", "tool-code-error", [
        "Hey, the model often fails to output coordinates for small icons. Raw output: Action: click(start_box='') and the parsed action is click(start_box: [null,null,null,null]), so nothing is clicked. The 2B model does this a lot, the 7B model gives proper boxes.",
        "The model didn't follow the output format and answered in prose; parsed: {\"action_type\": \"click\", \"action_inputs\": {\"start_box\": [null, null]}}. With a stricter prompt the model outputs coordinates.",
    ], bucket="agent-course")
    assert_not_read("regen", "tool-code-error", [
        "The model request timed out and returned an empty response, so the action came out as click(start_box: [null,null]); retrying the step worked.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "Also, with an action.click event I always get an output like this: Action: click(start_box: [null,0.98,null,0.98])",
    ], bucket="infra")


def test_desktop_driver_rule_leaves_frozen_app_and_agent_own_actions():
    # desktop-driver-failed-to-manipulate-desktop used to read any "driver failed to interact with
    # the screen/desktop", so an app under test that froze or crashed, and an agent that locked
    # the screen or closed the only window itself, were read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The driver failed to interact with the screen because the app under test froze: the main window shows \"Not Responding\" after clicking Export and never recovers, for any user.",
        "Our desktop app crashes on launch with a segfault in libgtk, so the driver cannot interact with the desktop app window at all; the crash happens when users open it too.",
    ], not_bucket="infra")
    assert_not_read("regen", "tool-code-error", [
        "The automation driver could not control the desktop because the agent pressed Win+L and locked the screen itself, then kept trying to click the lock screen.",
        "The agent closed the only application window by pressing Alt+F4, after which the driver was unable to interact with the screen because nothing was open.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "The CUA driver failed to manipulate the desktop during an agent run. The agent then fell back to shell scripting instead of completing the interaction through the desktop driver.",
    ], bucket="infra")


def test_screenshot_rule_leaves_elements_that_are_not_in_the_page():
    # screenshot-shows-what-the-page-does-not used to read any screenshot with something that
    # "doesn't exist in the actual page/app", so a model that hallucinated a form or button and a
    # test case whose mockup shows a feature never shipped were read as infra.
    assert_not_read("regen", "tool-code-error", [
        "The model hallucinated: it described a login form in the screenshot that doesn't exist in the actual page, and typed credentials into nothing.",
    ], bucket="agent-course")
    assert_not_read("regen", "tool-code-error", [
        "The test case was written from the Figma mockup: the screenshot attached to the case has an Export button that doesn't exist in the actual app; the feature was never shipped, so generation cannot find it.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "The agent said the screenshot shows a \"Confirm order\" button that does not exist in the actual page, then kept trying to click it for 15 steps until the run hit the step limit.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-code-error", [
        "When using Claude in Chrome's `computer` tool to take screenshots after scrolling, the captured image contains a large dark/blank gap (~300-400px) at the top of the viewport that doesn't exist in the actual browser rendering.",
        "Claude in Chrome: screenshots show false blank gap above page content after scrolling (Windows)",
    ], bucket="infra")


def test_app_legacy_cipher_failure_is_not_the_runners_openssl():
    # runtime-openssl3-refuses-legacy-hash used to read any `digital envelope routines::unsupported`,
    # so the app's own legacy cipher failing on its server (a 500, an error toast) was read as infra.
    assert_not_read("replay", "runner-setup-error", [
        "After deploying on Node 18, login in the replay fails: POST /api/login returns 500 and the server log shows Error: error:0308010C:digital envelope routines::unsupported at Cipheriv.createCipherBase (node:internal/crypto/cipher:116:19) in src/auth/encrypt.js",
        "Checkout step fails: the payment page shows 'Something went wrong' and the API log has code: 'ERR_OSSL_EVP_UNSUPPORTED' from crypto.createDecipheriv('des-ede3-cbc') in our billing service",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "runner-setup-error", [
        "# Cypress 9.2.1 + Node 17.1 (Win 11) Fails/Errors When Attempting Any Test\nThe error is: **Error: error:0308010C:digital envelope routines::unsupported**\n\nError: The following error was thrown by a plugin. We stopped running your tests because a plugin crashed.",
        "Received the following message output in the terminal .../17.0.1/bin/node: --openssl-legacy-provider is not allowed in NODE_OPTIONS",
    ], bucket="infra")


def test_app_code_missing_dropped_stdlib_module_is_the_apps():
    # runtime-dropped-stdlib-module used to read any `cannot load such file -- csv`, so a Rails app's
    # own controller failing to load csv under the replay's click was read as infra.
    assert_not_read("replay", "runner-setup-error", [
        "Failure/Error: click_on 'Export CSV'\n ActionView::Template::Error: cannot load such file -- csv\n # ./app/controllers/reports_controller.rb:3:in `require'",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "runner-setup-error", [
        "# python 3.12.10 not supporting distutils\nUpgraded the python to 3.12.10 and getting error as\nModuleNotFoundError: No module named 'distutils'",
        "~/.rvm/gems/ruby-3.0.0/gems/selenium-webdriver-3.142.7/lib/selenium/webdriver/firefox.rb:22:in `require': cannot load such file -- rexml/document (LoadError)",
    ], bucket="infra")


def test_apps_runtime_upgrade_with_wrong_values_or_moved_ui_is_not_infra():
    # runtime-upgrade-told-as-cause used to read any `upgraded the <runtime> version to`, so the app's
    # backend upgrade that changed what the page showed (a wrong value, a 500) was read as infra, and so
    # was a selector time-out after a redesign shipped with the upgrade.
    assert_not_read("replay", "runner-setup-error", [
        "We upgraded the Node version from 18 to 20 in the app's Dockerfile and now the invoice page shows times one hour off; the replay's assertion expected '10:00' but found '09:00'",
        "After updating the Python version to 3.12 the orders API responds with a 500 error when the replay submits the form",
        "We bumped the Java version to 21 for the backend and the login step now fails: AssertionError: expected 'Welcome, Ann' but got 'Welcome, null'",
    ], bucket="product-defect")
    assert_not_read("replay", "runner-setup-error", [
        "Upgraded the node version to 20 along with the redesign; the test's selector #login-btn timed out waiting for locator('#login-btn') since the button moved into the header",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "runner-setup-error", [
        "# wrong number of arguments (given 1, expected 0), when connect to sauce session\ngetting error of wrong argument when connect to sauce. It is working fine at local execution.\n\nStarted getting this error when I have upgrade the ruby version from Ruby 2.3 to Ruby 3.0. Using selenium version 3.142.7 in sauce capabilities.",
        "Playwright 1.45.3 predates Node.js 24 support (added in v1.55), causing an immediate crash on startup.",
    ], bucket="infra")


def test_unmocked_requests_from_backend_change_or_tool_upgrade_are_not_stale_mocks():
    # test-mock-behind-changed-api-request used to read any `without updating the fixtures` or requests
    # that `fell through unhandled` beside a mock word, so a backend change that broke the app in
    # production was read as stale-script, and so was a runner upgrade that stopped matching stubs.
    assert_not_read("replay", "awaited-request-never-made", [
        "Backend renamed user_name to username in /api/profile without updating the fixtures the frontend was built against; the profile page now shows 'Hello, undefined' in production and the replay fails: expected 'Hello, Ann'",
    ], bucket="product-defect")
    assert_not_read("replay", "awaited-request-never-made", [
        "When upgrading Cypress to 13.1 the stubbed requests fell through unhandled: cy.intercept no longer matches URLs with a query string",
        "Upgraded Playwright to 1.45 and now page.route mocks no longer catch requests: every call went unmocked and hit the real server",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "awaited-request-never-made", [
        "Playwright `page.route()` glob patterns match against the full URL including the query string, so all three mocked GET endpoints started falling through unhandled.",
        "The e2e fixture mocks only page.route(\"**/v1/scan/job-remediation\", ...), so the request went unmocked. Changing the fetch without updating the fixture was the miss.",
    ], bucket="stale-script")


def test_e2e_failures_on_new_endpoints_that_misbehave_are_the_apps():
    # e2e-behind-api-route-or-url-change used to read `tests for the new endpoints` and any e2e failure
    # beside an endpoint change, so new or changed endpoints that threw, answered 403 or returned wrong
    # data were read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Playwright tests for the new endpoints fail: /api/v2/search returns an empty list although the items exist",
        "E2E tests fail with the new API endpoints: POST /v2/orders throws TypeError: Cannot read properties of undefined (reading 'id') in the server",
        "Cypress tests broke after the endpoint change: the API now returns 403 for every logged-in user, so the dashboard never loads",
        "API endpoint changes broke the e2e tests: the /orders endpoint now returns prices as strings and the cart total shows NaN",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# FIx Playwright E2Es with reworked API routes",
        "# E2E tests broken due to url change\nTodo api url change caused all e2e tests to break",
        "Issue #73 unified API routes to `/api/v1/` prefix, but the E2E test scripts still use old paths:",
    ], bucket="stale-script")


def test_redirect_wait_that_did_not_help_or_tool_change_is_not_a_stale_url_check():
    # test-url-assert-before-intended-redirect used to read any `waiting for the redirect to complete
    # before ...`, so a redirect that landed on an empty cart (the wait did not help) was read as
    # stale-script, and so was a runner release that stopped waiting for redirects.
    assert_not_read("replay", "label-path-mismatch", [
        "The app now redirects from /checkout to /cart and the cart is empty; we tried waiting for the redirect to complete before checking the total and it is still 0",
    ], bucket="product-defect")
    assert_not_read("replay", "label-path-mismatch", [
        "Since Playwright 1.40 toHaveURL returns early; we worked around it by waiting for the redirect to complete before asserting",
    ], not_bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "A previously passing test started failing with the error AssertionError: expected 'https://midnighttge.io/' to include 'https://www.midnight.gd' as it appears the Midnight app redirects from https://midnighttge.io/ to https://www.midnight.gd. This PR solves the problem by waiting for the redirect to complete before asserting the final URL.",
    ], bucket="stale-script")


def test_date_picker_day_off_not_read_for_bot_or_test_browser():
    # app-date-picker-stores-day-off used to fire on any date picker or bare "when picking a date"
    # that picks the previous day, so a bot's miscount or a test browser's time zone was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The bot opened the datepicker, miscounted the rows of the grid and picks the previous day every time; the goal asked for the 12th.",
        "When picking a date, it picks the previous day: the step index in the action script is off by one, so the click lands on the cell before the target.",
        "The test browser is launched with timezoneId UTC, so when our generated step fills the date input it stores the previous day for Pacific users. The app is fine; set the browser's timezone to the user's.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "We've had a report from a user that when the pick a date in the date picker, it automatically switches to the previous day.",
        "When selecting a date it selects the previous day instead of the selected date :(",
    ], bucket="product-uxux")


def test_time_shown_hours_off_not_read_for_tool_dashboard_or_vm():
    # app-time-shown-hours-off used to fire on any time shown hours off or wrong time beside a time zone,
    # so the tool's run history, a sandbox VM's clock or a bot's misreading was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "In the run history of the dashboard, the time shown for each generation is one hour behind the real start time (daylight saving).",
        "The VM displays the wrong time, its time zone was never configured, so every calendar check the generator wrote fails.",
        "Asked to check the opening hours, the bot read the times shown on the page as 2 hours earlier than they are and concluded the store was closed.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "The time shown in the Event is one hour ahead of the time given in the backend.",
        "Times displayed on the event cache screen are off, in my case by 4 hours.",
    ], bucket="product-uxux")


def test_number_input_amount_not_read_for_cli_value_or_bot_typing():
    # app-number-input-changes-amount used to take "rate" in "generate" as a money word,
    # so a CLI threshold or a bot typing into the wrong box was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "muggle generate --threshold 0.85: the value 0.85 is changed to 85 by the CLI, so the accuracy check never passes and generation stops.",
        "The bot typed 12.50 into the quantity box, not the price box, so 12.50 was converted to 12 and the cart total is wrong.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "If I save an invoice (or the global task hourly rate) as `123,00` format, it’s saved as `12300,00`, which is horribly wrong.",
        "Currently you can only enter amounts with a decimal point. For example, if I enter 2.55, I get 2.00 as the value after leaving the field.",
    ], bucket="product-uxux")


def test_decimal_comma_not_read_for_tool_cli_or_config():
    # app-decimal-comma-rejected used to fire on any comma decimal separator refused or not working,
    # so the test tool's own CLI or config under a German locale was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "When a comma is used as the decimal separator (de_DE locale), muggle-test generate doesn't work: ValueError: could not convert string to float: '0,5' in config.py",
        "The CLI rejects comma as decimal separator in --min-confidence under a German locale, so generation never starts.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Currency input rejects comma as decimal separator (de-DE)",
        "When a comma is used as Decimal separator, the application does not work properly!",
    ], bucket="product-uxux")


def test_currency_symbol_not_read_for_run_or_usage_costs():
    # app-price-wrong-currency-symbol used to fire on any prices or costs shown with a symbol,
    # so a run that opened the wrong menu, a bot that looked too early or the tool's usage costs were read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Goal: switch the store currency to EUR and check the prices. The run opened the language menu and picked Deutsch, then reported that prices are still showing in $ and stopped.",
        "The bot checked the product page before the currency switcher had finished, so it saw totals displayed with $ and marked the test failed; a second later they show €.",
        "Usage summary: costs are shown in $ although my billing account is in EUR; the generation itself failed at step 4 with 'locator not found'.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "Product option prices when currency is set to £ are showing as $ on admin screen and on printed receipt.",
    ], bucket="product-uxux")


def test_calendar_widget_wrong_date_not_read_for_bot_or_sandbox():
    # app-calendar-widget-wrong-date used to fire on any calendar popup or view showing the wrong month,
    # so a bot or navigator that clicked the arrows too often, or a sandbox browser in UTC, was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The date picker popup shows the wrong month at first because the bot clicked Next twice; it then picks 20 October and the booking is for the wrong month.",
        "The calendar view shows the wrong month in the screenshot since the navigator pressed the previous arrow once too often; the app itself is fine.",
        "The calendar widget shows the wrong date only in our sandbox, whose browser runs in UTC; for real users it is right.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "the bug occurs in OpenCms 8.5.2 when you select a date in the calendar xml widget. It shows the wrong date of every month with the number of days below 31.",
    ], bucket="product-uxux")


def test_tell_agent_detailed_steps_not_read_beside_tool_crash():
    # maintainer-says-tell-agent-detailed-steps used to fire whatever else the answer said,
    # so a maintainer naming a crash in the tool's handler was read as agent-course.
    assert_not_read("regen", "no-real-progress", [
        "Thanks for the report. Before you say you have to tell the agent more detailed steps: this is a crash in our handler (KeyError: 'selector'), fixed in 0.4.2.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "no-real-progress", [
        "This WebDriver is desinged by general purpose, so it's not finetuned by how to use Playwright to input text in Google website. So you have to tell WebDrive as much detail steps as possible.",
    ], bucket="agent-course")


def test_flows_broken_after_new_screen_needs_the_missing_step():
    # mobile-suite-behind-intended-ui-change used to read any "after merging a new <screen>, most of
    # our (work)flows are failing", so a new sign-in screen whose button is disabled, or CI workflows
    # failing beside a new login page, were read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "After merging the new sign-in screen, all of our flows are failing because the Sign in button is disabled even with valid credentials.",
        "After shipping the new settings screen, most of our workflows are failing with 'Resource not accessible by integration' on the checkout step.",
    ], not_bucket="stale-script")
    assert_not_read("replay", "label-path-mismatch", [
        "After releasing the new onboarding flow, most of our flows are broken: tapping Continue on the last step throws a NullPointerException and the screen stays blank.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "After merging a new onboarding flow, most of our workflows are broken as they are missing one step",
    ], bucket="stale-script")


def test_old_ids_must_be_the_tests_own_not_the_apps():
    # mobile-suite-behind-intended-ui-change used to allow 120 characters between "tests"/"flows" and
    # "still uses the old keys", so the app (or an SDK) still using old keys was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The Espresso tests fail because the app still uses the old keys in SharedPreferences after the upgrade, so saved settings are lost on restart.",
        "Flows pass locally, but on the emulator the payment SDK still references the old keys and the checkout returns an error.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "With the completion of the native search-only input rollout, several Maestro flows (autofill password\ngeneration/backfilling…) stillused the old ID: `omnibarTextInput`.",
        "Several Maestro flows still use the old ID: `omnibarTextInput`.",
    ], bucket="stale-script")


def test_screen_rework_that_broke_the_app_is_not_a_stale_suite():
    # mobile-suite-behind-intended-ui-change used to read "UI tests were broken by a refactor of the
    # <screen>" whatever followed, so a refactor that made the app throw, compute a wrong total, go
    # to the wrong screen or lose a setting was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "UI tests were broken by a refactor of the settings screen: the dark mode toggle is no longer persisted and resets to off after rotation.",
        "Espresso tests were broken after a refactor of the login screen: pressing Sign in now throws IllegalStateException: Fragment not attached to a context.",
        "E2E tests got broken following a rework of the checkout page: the total now shows the price without tax, which is wrong.",
        "The e2e tests are broken since a refactor of the navigation: the back button goes to the home screen instead of the previous page.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "The UI test for the settings screen was broken following a rework of the settings screen. As a result, the strings to be matched weren't referenced correctly and the position of the item to be clicked were out of order.",
    ], bucket="stale-script")


def test_ids_gone_after_ui_update_but_users_hit_is_the_apps():
    # mobile-suite-behind-intended-ui-change used to read "element IDs no longer exist after the UI
    # update" even when the report said users could not use the screen, so it was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Element IDs on the cart page no longer exist after the UI update, and the Checkout button is missing for every user, so nobody can pay.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Settings e2e tests are broken. Elements IDs and some of the components tested dont longer exists because of v3 UI updates.",
    ], bucket="stale-script")


def test_accessibility_label_changes_are_what_users_hear():
    # mobile-suite-behind-intended-ui-change used to read UI tests failing "after the accessibility
    # label changes", so labels emptied by a regression, or a button that threw, were read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Appium tests fail after the accessibility label changes: all buttons now have empty labels, which is an accessibility regression in the app.",
        "XCUITests fail after the accessibility identifier changes because the Save button now throws an exception when tapped.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Fixed UI test problems introduced after the accessibility identifier changes",
    ], bucket="stale-script")


PYTEST_COLLECTION = """__________ ERROR collecting tests/test_checkout_flow.py __________
ImportError while importing test module '/app/tests/test_checkout_flow.py'.
tests/test_checkout_flow.py:3: in <module>
    from tests.pages.checkout import CheckoutPage
E   ImportError: cannot import name 'CheckoutPage' from 'tests.pages.checkout' (/app/tests/pages/checkout.py)"""


APP_502 = """Traceback (most recent call last):
  File "/srv/app/manage.py", line 22, in <module>
ImportError: cannot import name 'force_text' from 'django.utils.encoding'
The page at http://localhost:8000/signup shows a blank 502 Bad Gateway."""


def test_import_name_rule_leaves_test_collection_and_app_502_alone():
    # python-import-name-missing used to read any `cannot import name`, so pytest collecting a test
    # module that imports a page object nobody wrote was read as infra, and the app's own server
    # dying behind a 502 Bad Gateway was read as infra instead of the product's.
    assert_not_read("regen", "tool-setup-error", [PYTEST_COLLECTION], bucket="agent-course")
    assert_not_read("regen", "tool-setup-error", [APP_502], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "ImportError: cannot import name 'WorldModel' from 'lavague.core' (/Users/x/env/lib/python3.8/site-packages/lavague/core/__init__.py)",
    ], bucket="infra")


def test_dependency_resolution_rule_leaves_pins_the_agent_wrote():
    # python-dependency-resolution-failed used to read a resolver conflict over a pin the agent wrote
    # into the generated tests' requirements, so it was read as infra instead of the agent's course.
    assert_not_read("regen", "tool-setup-error", [
        "The agent wrote `pytest-playwright==0.3.0` into requirements-test.txt; pip says\n"
        "ERROR: ResolutionImpossible: pytest-playwright 0.3.0 depends on playwright>=1.18 but the project pins playwright==1.14",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "Because langchain (0.3.25) depends on langchain-core (>=0.3.58,<1.0.0)\n and langchain (0.3.24) depends on "
        "langchain-core (>=0.3.55,<1.0.0), version solving failed.",
    ], bucket="infra")


def test_upload_rule_leaves_the_agents_and_tools_uploads():
    # app-upload-fails-without-error used to read any upload that fails silently, so the agent that
    # never picked a file, and the agent's headless browser that never opened the chooser, were read
    # as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The agent clicked 'Attach' but the upload fails silently because the agent never selected a file in the dialog.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "The agent's upload fails silently: it sent the file path to the text field and the headless browser never opened the chooser.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "# Uploading video (label) to form settings fails silently.\nWhen uploading this file on the following screen "
        "it fails without showing an error message.",
    ], bucket="product-uxux")


def test_export_rule_leaves_an_export_the_agent_clicked_too_early():
    # app-export-file-empty used to read any empty exported file, so an agent that clicked Export
    # before the table loaded was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The agent clicked Export before the table had loaded, so the exported csv file is empty; waiting for the rows first gives a full file.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "When i try to export base table as a CSV file, pgAdmin exports empty CSV file.",
    ], bucket="product-uxux")


def test_download_rule_leaves_files_the_agent_saved_wrong():
    # app-download-corrupted used to read any corrupt or broken downloaded file, so an agent that
    # saved the viewer page instead of using the Download button was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The agent saved the preview page as report.pdf, so the downloaded PDF is broken — it is HTML with a .pdf extension.",
        "The downloaded file is corrupted because the agent clicked 'Save page' on the viewer tab; the real Download button gives a valid PDF.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "# [DPLM] File download\nDownloaded files are corrupted and cannot be opened correctly (.odt for instance)",
    ], bucket="product-uxux")


def test_image_preview_rule_leaves_a_file_the_agent_chose():
    # app-image-preview-broken used to read any broken image in an upload preview, so an agent that
    # set a .docx as the avatar was read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "The agent set the avatar to the .docx it found in Downloads, so the upload preview shows a broken image.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", [
        "When uploading a cover photo for the first time a `broken image` icon appears along with the 'Generating Preview' message.",
    ], bucket="product-uxux")


WDIO_STEP_NULL_CLICK = """[chrome 120.0 linux #0-0] login › signs in
TypeError: Cannot read properties of null (reading 'click')
    at /repo/test/specs/login.e2e.ts:22:35
    at AllureCommandStepExecutable.run (/repo/node_modules/@wdio/allure-reporter/build/common/api.js:160:30)
    at step (/repo/node_modules/@wdio/allure-reporter/build/common/api.js:301:23)"""


PLAYWRIGHT_ALLURE_STEP_NULL = """  1) [chromium] › tests/cart.spec.ts:20:5 › cart › shows item count
    TypeError: Cannot read properties of null (reading 'textContent')
        at /repo/tests/cart.spec.ts:31:45
        at /repo/node_modules/allure-playwright/dist/index.js:133:16
        at /repo/node_modules/@playwright/test/lib/common/testType.js:212:26"""


def test_spec_code_inside_a_reporter_step_wrapper_is_not_a_reporter_crash():
    # reporter-plugin-code-crashed used to read a TypeError whose second frame is in a reporter
    # package whatever the first was, so the spec's own null lookup run inside allure's step()
    # wrapper (first frame in the spec, second in @wdio/allure-reporter) was read as infra.
    assert_not_read("replay", "driver-internal-error",
                    [WDIO_STEP_NULL_CLICK, PLAYWRIGHT_ALLURE_STEP_NULL], bucket="stale-script")
    # positive control: the rule's own wording is still read, first frame or second frame
    # below a frame that is also in node_modules
    assert_read("replay", "driver-internal-error", [
        """Error in reporter TypeError: Cannot read properties of undefined (reading 'updateStep')
    at AllureReporter.onStepEnd (C:\\qa\\node_modules\\allure-playwright\\src\\index.ts:357:13)
    at C:\\qa\\node_modules\\playwright\\lib\\reporters\\multiplexer.js:77:38""",
        """TypeError: Cannot read properties of undefined (reading 'testsuite')
    at baseGet (/repo/node_modules/lodash/lodash.js:3050:20)
    at lastSuite (/repo/node_modules/mocha-junit-reporter/index.js:217:46)
    at Runner.emit (node:events:539:35)""",
    ], bucket="infra")


def test_upload_rule_needs_the_service_named_not_a_word_containing_it():
    # results-upload-service-refused used to accept `currents` and `xray` anywhere (so
    # `currentStudent`, `currentStatus` and an app's `/xray` page named the service), so an
    # app's own `Failed to update test results` toast was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        "Gradebook regression: saving a score for currentStudent shows the toast "
        "\"Failed to update test results\" and the score is not saved. Worked before 4.1.",
        "After the 2.3 release, saving a lab order shows the toast \"Failed to update test results\" "
        "and the API returns 500. Steps: open /orders/77/xray, edit the result, click Save. "
        "The currentStatus stays \"pending\". Worked in 2.2.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "driver-internal-error", [
        "#TestRail >> Sending case results to run R563: C135\n"
        "  Could not send list of TestRail results: 400 Bad Request >> Field :results.elapsed "
        "is not in a valid time span format.",
        "│ Cypress Xray Plugin │ ERROR   │ Failed to import execution: Cannot read properties of undefined (reading 'key')\n"
        "│ Cypress Xray Plugin │ WARNING │ No test results were uploaded",
    ], bucket="infra")


def test_upload_failing_after_an_app_assertion_leaves_the_assertion_to_decide():
    # results-upload-service-refused used to fire beside a failed check, so a run whose
    # assertion failed on the app and whose results upload then failed was read as infra.
    assert_not_read("replay", "driver-internal-error", [
        """  1) checkout.spec.ts:18:5 › checkout › shows order total
    Error: expect(locator).toHaveText(expected)
    Expected string: "$42.00"
    Received string: "$0.00"
        at checkout.spec.ts:25:40
[ReportPortal] failed to send log. Error: Request failed with status code 413""",
        """  1) Login
       shows the dashboard after sign in:
     AssertionError: Timed out retrying after 4000ms: expected '<h1>' to have text 'Dashboard', but the text was 'Internal Server Error'
#TestRail >> Sending case results to run R12: C135
  Could not send list of TestRail results: 401 Unauthorized""",
        """Error: expect(received).toBe(expected)
Expected: 200
Received: 500
  at api.spec.ts:10
│ Cypress Xray Plugin │ WARNING │ No test results were uploaded""",
    ], bucket="product-defect")
    # positive control: the upload failure alone is still read
    assert_read("replay", "driver-internal-error", [
        "Getting this error whenever I try to run the example playwright tests with ReportPortal\n"
        "failed to finish test. Error: Request failed with status code 404\n"
        "    at /x/node_modules/@reportportal/client-javascript/lib/rest.js:37:15",
    ], bucket="infra")


def test_shared_browser_needs_another_agents_page_not_a_wrong_page():
    # browser-server-shared-by-parallel-agents used to fire on agents sharing one browser
    # plus any "wrong page" or "other agent", so an agent that clicked the wrong link
    # itself was read as infra.
    assert_not_read("regen", "tool-setup-error", [
        "Our three agents share one browser instance by design, each in its own tab. The checkout agent clicked 'Settings' instead of 'Cart' and ended up on the wrong page, then kept clicking the same link over and over.",
        "The workers share a single browser and that is fine. The issue is the agent keeps picking the wrong element: it opened the wrong page from the sidebar, looped on the cookie modal, and never reached the form.",
        "Planner and executor agents share one browser instance. The other agent navigated to Billing instead of Invoices because it misread the goal, then looped on the same click.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "Claude Code subagents share a single Playwright MCP server. Agent A calls browser_snapshot and gets the page another agent navigated to.",
        "We run three sub-agents that share the same Chrome browser instance; agent A's screenshot showed the other agent's page, so it filled the wrong form.",
    ], bucket="infra")


def test_shared_browser_leaves_the_apps_500_and_404_to_the_product():
    # browser-server-shared-by-parallel-agents used to fire on "the other agent" beside a shared
    # browser, so a page that answers 500 or 404 (by hand too) was read as infra.
    assert_not_read("regen", "tool-setup-error", [
        "Two subagents share one browser instance (one logs in, the other runs checks). After login, the other agent navigates to /checkout and the page returns 500 Internal Server Error; the Pay button is missing. The same happens when I click through it by hand.",
        "Two subagents share the same Playwright MCP server. The other agent navigated to /checkout and the page returned 500 Internal Server Error; I get the same by hand.",
        "agents share the same browser. The app redirects to the wrong page after saving the form: /settings goes to a blank 404 page not found. Reproduced by hand in Chrome, so it's our product.",
    ], bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "tool-setup-error", [
        "Subagents share one Playwright MCP server, so when agent A takes a snapshot it sees the page another agent navigated to: the wrong page.",
    ], bucket="infra")


def test_shared_browser_leaves_blips_to_the_blip_rules():
    # browser-server-shared-by-parallel-agents used to fire on "another agent" beside a shared
    # browser, so another agent's timed-out navigation or rate-limited call that passed on a
    # retry was read as infra; and a share the report says happens only sometimes was too.
    assert_not_read("regen", "tool-setup-error", [
        "Our subagents share the same Playwright MCP server. Sometimes another agent's browser_navigate times out with net::ERR_CONNECTION_RESET; retrying the run as-is passes.",
        "Workers sharing one browser instance: another agent's call failed with 429 rate limit from the LLM API; it went through on the second attempt.",
    ], bucket="transient")
    assert_not_read("regen", "tool-setup-error", [
        "Our subagents share one Playwright MCP server. Sometimes agent A's snapshot shows the page another agent navigated to; on retry it passes.",
    ], not_bucket="infra")
    # positive control: the rule's own wording is still read (the Korean report it was written for)
    assert_read("regen", "tool-setup-error", [
        "Claude Code를 여러 터미널에서 동시에 실행하면 각 에이전트가 독립적으로 Playwright MCP를 호출한다. 문제는 이들이 같은 MCP 서버 인스턴스를 공유한다는 점이다. 브라우저는 이미 에이전트 B가 이동시킨 /settings 페이지를 보여준다. 결과적으로 A는 엉뚱한 화면을 받게 되고, 이후 작업이 꼬이기 시작한다.",
    ], bucket="infra")


def test_shared_browser_korean_agent_named_alone_is_not_read():
    # browser-server-shared-by-parallel-agents used to fire on "에이전트 B" named beside a shared
    # browser, so an agent B that pressed the wrong button and looped was read as infra.
    got = answer("regen", "에이전트 A와 에이전트 B가 같은 브라우저를 공유한다. 에이전트 B가 로그인 버튼 대신 회원가입 버튼을 잘못 눌러 엉뚱한 화면으로 이동했고 같은 동작을 무한 반복한다.")
    assert "tool-setup-error" not in got.signals, got.signals
    assert got.bucket == "agent-course", (got.bucket, got.rule)


def test_cypress_verification_step_of_the_app_is_not_the_binary_check():
    # cypress-verify-step-failed-prose used to read any ", the verification step times out" in a
    # Cypress sentence, so an app's email/OTP verification that never completes (or a cy.get that
    # never found the verify button) was read as infra.
    assert_not_read("replay", "automation-setup-error", [
        "In our Cypress signup spec, the verification step times out: the verification email is never sent since the 2.3 release.",
        "Running the cypress e2e suite against staging, the verification step times out because the OTP SMS never arrives after login.",
        "Cypress verification step hangs waiting for the confirmation email; the mailer service returns 500.",
    ], bucket="product-defect")
    assert_not_read("replay", "automation-setup-error", [
        "cy.get('[data-test=verify-button]') - the cypress verification step timed out after 4000ms waiting for the element: "
        "Timed out retrying: Expected to find element: [data-test=verify-button], but never found it.",
    ], bucket="stale-script")
    # positive control: the rule's own wording is still read
    assert_read("replay", "automation-setup-error", [
        "While trying to run cypress tests in a CI/CD build pipeline setup on TeamCity, the verification step times out without any useful debug logs.",
        "Cypress verify step times out on our Windows agent.",
    ], bucket="infra")


def test_tests_failing_because_of_ui_changes_not_when_the_change_broke_the_app():
    # tests-failing-due-to-ui-changes used to read "failing ... because of / after changes in the UI"
    # whatever the report said next, so a UI change that broke the app (a modal that no longer
    # closes, a wrong date called a regression, an unintended change) was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Failing e2e tests after changes in the UI: since v3.2 the Delete button removes the wrong row from the table.",
        "Cypress tests failing because of changes in the UI: the modal no longer closes after submitting and the order is never created.",
        "Our tests are broken because of changes in the web UI. The change was unintended: the dark-mode refactor hid the Login button on Safari for real users too.",
        "Tests are failing due to change in UI: the date picker now saves the wrong date (off by one day), which is a regression from 4.1.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# [QA][gui-tests] fix failing tests due to the changes in client UI",
        "As `2.9` is in-progress some of the existing tests are failing due to change in UI elements.",
        "Specs are failing because of changes in the UI.",
    ], bucket="stale-script")


def test_stale_label_the_app_shows_is_not_an_obsolete_script_label():
    # test-failing-on-obsolete-label used to read any test failing "because of a stale/outdated
    # label/caption/strings", so an app that kept showing old text (not refreshed after a rename,
    # a caption not updated) was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The rename-project e2e test fails because of a stale label: after renaming, the sidebar still shows the old project name until the page is reloaded.",
        "Checkout spec fails because of an outdated caption: the price caption is not updated when the quantity changes, it keeps showing the first total.",
        "The scenario breaks due to a stale label in the header: the unread counter label keeps the old value after messages are read.",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "Default WebUI test (ui/webui/test/integration/default.py) fails because of an obsolete button label.",
    ], bucket="stale-script")


def test_app_updated_to_match_design_changes_is_not_a_script_update():
    # script-updated-to-match-site-ui-changes used to read "updated to match the new ... design
    # changes" whatever was updated, so an app page updated to a new design that then broke
    # (a Pay button that stays disabled, a value not persisted, a wrong total) was read as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The checkout page was updated to match the new design changes, and now the e2e spec fails: the Pay button stays disabled after the card is entered.",
        "Settings form updated to match the new UI changes in 5.0. Since then the save test fails: the value entered is not persisted after reload, the API returns 200 but the field is empty.",
        "Demo app updated to match the recent layout changes; the e2e test now fails with: AssertionError: expected 'Total: $99' but received 'Total: $0'",
    ], bucket="product-defect")
    # positive control: the rule's own wording is still read
    assert_read("replay", "label-path-mismatch", [
        "# Update demo-02.feature\nUpdate to match current github and google UI changes",
        "Update login.spec.ts\nUpdated to match the new login page changes.",
        "The login scenario steps were updated to match the new design changes.",
    ], bucket="stale-script")


def test_scrape_timeout_code_beside_sdk_crash_stays_infra():
    # scraping-api-upstream-timeout used to fire on any ERR::<X>::TIMEOUT code, so a scraping SDK
    # crashing in its own client beside such a code was read as transient.
    assert_not_read("regen", "network-error", [
        "ERR::SESSION::TIMEOUT: the scrapfly SDK raised TypeError: Cannot read properties of undefined (reading 'session') in its own client when resuming the session.",
        "scrapfly-sdk 0.8.5 crashes with ScrapflyError: ERR::SCRAPE::UPSTREAM_TIMEOUT raised as an unhandled exception in the async client; the traceback shows a KeyError in the sdk's retry handler.",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "network-error", [
        "I added a rerun on failures because the error occurring in the GitHub Action is `422 | ERR::SCRAPE::UPSTREAM_TIMEOUT`",
    ], bucket="transient")


def test_scrape_timeout_after_agent_wandered_stays_agent_course():
    # scraping-api-upstream-timeout used to read the time-out code that ends a run the agent spent
    # on the wrong page as a blip, so it was read as transient.
    assert_not_read("regen", "network-error", [
        "The agent navigated to the wrong page, clicked the login link repeatedly and the run ended with ERR::SCRAPE::OPERATION_TIMEOUT.",
    ], bucket="agent-course")
    # positive control: the rule's own wording is still read
    assert_read("regen", "network-error", [
        "Scraper test failed: `422 | ERR::SCRAPE::UPSTREAM_TIMEOUT`",
    ], bucket="transient")


def test_reruns_added_without_a_blip_reason_are_not_flake():
    # reruns-added-for-failures used to fire on any mention of adding reruns, so a deterministic
    # set-up error (missing API key, server that never starts, unparsable model output on every
    # retry) mentioned beside it was read as transient.
    assert_not_read("regen", "intermittent-flake", [
        "I added a rerun on failures because the API key for OPENAI_API_KEY is missing in the GitHub Action secrets and the generation fails at startup.",
        "Added rerun for failures; the agent said all tests passed but it never opened the browser.",
    ], bucket="infra")
    assert_not_read("regen", "intermittent-flake", [
        "Adding reruns for failures did not help: the playwright MCP server exits with Error: spawn npx ENOENT on startup, the config has the wrong path.",
        "We added reruns for failing tests, but the model returns invalid JSON and the tool fails to parse the response on every retry.",
    ], not_bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "intermittent-flake", [
        "I added a rerun on failures because the error occurring in the GitHub Action is `422 | ERR::SCRAPE::UPSTREAM_TIMEOUT`",
        "We enabled reruns of failed tests since the staging proxy drops a request now and then.",
    ], bucket="transient")


def test_reruns_beside_unparsed_model_reply_stay_infra():
    # reruns-added-for-failures used to add intermittent-flake to a model reply the tool cannot parse,
    # so model-reply-unparsed-now-and-then moved it from infra to transient.
    assert_not_read("regen", "intermittent-flake", [
        "Enable reruns on failed tests in pytest. Meanwhile the LLM reply could not be parsed: Failed to parse model output as JSON, on all three attempts.",
    ], bucket="infra")


def test_same_query_other_app_beside_tool_crash_stays_infra():
    # agent-same-query-opens-other-app-zh used to fire beside the tool's own crash, so a TypeError in
    # the tool's code was read as agent-course.
    assert_not_read("regen", "picked-wrong-element", [
        "使用同一query打开的应用不同，报错 TypeError: Cannot read properties of undefined (reading 'x')，工具代码崩溃。",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "picked-wrong-element", [
        "# 应用点击坐标不准确，使用同一query打开的应用不同\n感觉效果不是很稳定，每次点击的坐标都不一样",
    ], bucket="agent-course")


QAWOLF_WORDING = [
    ":bug: on DevTools: Open React DevTools not available\nsteps to repro:\n• open a replay\n• view devtools\n"
    "• react devtools not available\naffected tests: <https://app.qawolf.com/test/cl1xt3zli27421950p9q7yhmnk1>",
    "Replay crashes on loading and shows a blank page\nExpected: React TODO replay to load successfully\n"
    "Results: Page loads for a second and then crashes resulting in a blank page\nBug report:\n"
    "https://app.qawolf.com/bug-reports/cl9lyl1ul15069186tppvv8tfq4q",
]


def test_qa_service_report_stands_down_for_qa_wolfs_own_cli_runner_and_test_code():
    # qa-service-bug-report-on-app used to read any QA Wolf trail line as the app's defect, so
    # QA Wolf's own CLI crashing, its runner out of memory or crashing Chromium, and a bug in
    # the test's own code were read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "qawolf create crashes with TypeError: Cannot read property 'evaluate' of undefined\n"
        "Affected tests: every test I try to create with npx qawolf create\n"
        "Stack: at CodeGenerator.prepareSteps (node_modules/qawolf/build/build-code/buildSteps.js:22:11)",
        "Auto posted from QA Wolf Slack message\nRun failed before the first step: the QA Wolf runner ran out "
        "of memory (JavaScript heap out of memory) while starting the test, the app was never loaded.",
        "Bug report: https://app.qawolf.com/bug-reports/clabc123\nResults: page.goto: Target crashed in the "
        "QA Wolf runner's Chromium before the app loaded\nExpected: test proceeds",
        "Bug report: https://app.qawolf.com/bug-reports/cl1\nReferenceError: expect is not defined at test.js:12 "
        "(our test code imports were dropped in the last QA Wolf edit)",
    ], bucket="infra")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", QAWOLF_WORDING, bucket="product-uxux")


def test_qa_service_report_stands_down_for_page_load_network_error_green_next_run():
    # qa-service-bug-report-on-app used to veto only ERR_CONNECTION/ERR_NETWORK, so a QA Wolf
    # Slack post of a net::ERR_SOCKET_NOT_CONNECTED load that was green on the next run was
    # read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Auto posted from QA Wolf Slack message\nTest failed: net::ERR_SOCKET_NOT_CONNECTED while loading "
        "https://staging.example.com; all tests green on the next run.",
    ], bucket="transient")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", QAWOLF_WORDING, bucket="product-uxux")


def test_qa_service_report_stands_down_when_the_app_is_fine():
    # qa-service-bug-report-on-app used to fire whatever the thread said later, so a platform
    # fault on QA Wolf's side, a missing environment variable, deleted test data and a change
    # the app made on purpose were read as product-uxux.
    assert_not_read("regen", "product-broken", [
        "Auto posted from QA Wolf Slack message\nQA Wolf platform incident: test runs are failing to start "
        "due to an outage on our side; your app is not affected. Affected tests: all suites.",
        "Affected tests: <https://app.qawolf.com/test/ck1>\nError: process.env.DEFAULT_PASSWORD is undefined - "
        "the environment variable is missing from the QA Wolf environment settings",
        ":bug: on DevTools: recording library empty\nResults: no recordings shown\n"
        "Affected tests: <https://app.qawolf.com/test/ck2>\nUpdate: the test account's recordings were deleted "
        "by a cleanup job, the app is fine; we restored the test data.",
        ":bug: on DevTools: Share button missing\nAffected tests: <https://app.qawolf.com/test/ck8>\n"
        "Maintainer: this is expected, we removed the Share button on purpose in #7100; the test needs to be updated.",
    ], not_bucket="product-uxux")
    # positive control: the rule's own wording is still read
    assert_read("regen", "product-broken", QAWOLF_WORDING, bucket="product-uxux")


def test_reverted_rename_with_stale_lookup_is_not_a_product_regression():
    # product-change-reverted-broke-e2e read a revert of a label rename whose tests still looked
    # the button up by its old text, and a revert that was denied as the cause, as product-defect
    # (app-regression-bisected beats the stale-script route).
    assert_not_read("replay", "app-regression-bisected", [
        "# Revert \"Rename 'Sign in' button to 'Log in'\"\nThis reverts commit 3f2a91c.\n"
        "This caused the Cypress tests to fail: they still look for the button by its old label \"Sign in\". "
        "We'll re-land it together with the updated tests.\n"
        "CypressError: Timed out retrying after 4000ms: Expected to find element: button:contains('Sign in'), but never found it.",
        "# Revert \"Reword checkout CTA\"\nReverts acme/shop#1423\n"
        "This made the e2e tests fail because cy.contains('Place order') no longer finds the button after the copy change. "
        "Reverting until the specs are updated to the new wording.\n"
        "CypressError: Timed out retrying after 4000ms: Expected to find content: 'Place order' but never did.",
        "I tried reverting #4521 locally but the run is still red, so it isn't that PR that caused the e2e tests to fail.\n"
        "CypressError: Timed out retrying after 4000ms: Expected to find element: [data-cy=submit-order], but never found it.",
    ], bucket="stale-script")
    assert_read("replay", "app-regression-bisected", [
        '# Revert "display better validation errors when hitting deploy (#2831)"\n'
        "This reverts commit 044e9365d022fc97ac82a8b6d1e9832c64bb9077.\n## Intent\n"
        "This caused an e2e test to fail. Reverting until we can make a fix.",
        "# Revert #2792\nThis reverts commit 1bc0f70827224fadf0fd4182a1a08d904481bed5 which made E2E tests fail, "
        "despite them passing in the PR.",
    ], bucket="product-defect")


def test_regression_words_beside_out_of_date_selectors_are_not_the_apps():
    # unintended-regressions-not-meant-to-modify read "these are regressions and not something we
    # meant to modify" as product-defect although the same report found the data-cy selectors out of date.
    assert_not_read("replay", "app-regression-bisected", [
        "Two Cypress specs fail on the redesign branch. I first thought these are regressions and not something "
        "we meant to modify, but the button's data-cy attribute was renamed in the redesign, so the selectors are "
        "just out of date.\nExpected to find element: [data-cy=save-btn], but never found it.",
    ], bucket="stale-script")
    assert_read("replay", "app-regression-bisected", [
        "# Fix Cypress test regression\nA handful of Cypress tests are currently failing on the feature/subform "
        "branch. These are regressions and not something we've directly meant to modify by the work undertaken "
        "in the `subform` project.\nObserved failures are:\n- [x] stateless-app/stateless.ts",
    ], bucket="product-defect")


def test_control_not_working_for_the_tests_lookup_is_stale_script():
    # app-control-not-functioning-cause read "the cause was that the X button was not functioning"
    # as an app defect when the reason given was the test's own lookup (a changed label, an old
    # data-testid renamed on purpose), beating the stale-script route.
    assert_not_read("replay", "app-component-defect", [
        "The cause was that the save button was not functioning in the test because it now has a different label "
        "and cy.contains('Save') no longer finds it.\n"
        "CypressError: Timed out retrying after 4000ms: Expected to find content: 'Save' but never did.",
        "The cause is that the checkout button is not working with the old data-testid the spec still uses; the "
        "button was renamed to place-order-button on purpose.\n"
        "Error: locator.click: Timeout 30000ms exceeded. waiting for getByTestId('checkout-button')",
    ], bucket="stale-script")
    assert_read("replay", "app-component-defect", [
        "# fix(web): #21171\n- Fixed the cause of the e2e tests failure of https://github.com/immich-app/immich/pull/21171\n"
        "- The cause was that the add_photos button was not functioning due to the following:\n"
        "  - By reverting {timelineManager} to bind:timelineManager, the Timeline component can correctly return "
        "the timelineManager instance to the parent component",
    ], bucket="product-defect")


def test_copying_that_changed_output_is_not_a_copy_change():
    # copy-changed-broke-text-lookup took "copy" the verb or a Copy button ("... copy the invoice, the
    # amount changed, causing ... tests to fail") for the page's wording, sending app defects to stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The \"Copy link\" button's output changed, causing two of our Cypress tests to fail: the copied URL now "
        "points to localhost:3000 instead of the share domain.",
        "When the user clicks Duplicate to copy the invoice, the amount changed, causing two of our e2e tests to "
        "fail: the duplicate shows 0.00 instead of 120.00.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "The copy [shown at the bottom](https://www.theguardian.com/world/2020/apr/24/x) of the corona embed "
        "recently changed causing one of our Cypress tests to fail, breaking the build on `main`",
        "# fix: initial-exploration test due to homepage rediesgn\nHome page text changed broke the cypress tests.",
    ], bucket="stale-script")


def test_app_server_enospc_shown_to_the_test_is_not_the_runner_host():
    # runner-host-enospc read the app's own server out of disk (ENOSPC quoted in an assertion's
    # values or in a 500 response's JSON body) as the runner's host, and the infra route wins first.
    assert_not_read("replay", "runner-out-of-memory", [
        "  1) Upload avatar shows the new picture:\n     AssertionError: expected 'Upload failed: ENOSPC: no space "
        "left on device, open \\'/var/app/uploads/avatar.png\\'' to equal 'Upload complete'",
        "Error: expect(received).toEqual(expected)\nExpected: \"Saved\"\n"
        "Received: \"Could not save draft: ENOSPC: no space left on device, write\"",
        "POST http://localhost:3000/api/attachments -> status 500\n"
        "{\"error\":\"ENOSPC: no space left on device, open '/srv/app/storage/tmp/upload_9f1.bin'\"}\n"
        "then the test failed at step 4: the attachment never shows in the list",
    ], bucket="product-defect")
    assert_read("replay", "runner-out-of-memory", [
        "Attempt 1 failed: BrowserType.launch: ENOSPC: no space left on device, mkdtemp '/tmp/playwright-artifacts-aNE1l9'",
        "Error: ENOSPC: System limit for number of file watchers reached\nwe're getting this error in my \"Test\" "
        "phase using cypress.",
    ], bucket="infra")


def test_wdio_workers_killed_after_a_failed_assertion_are_not_oom():
    # wdio-worker-exit-code-null read "Runner 0-1 finished with exit code null" as the OOM killer even
    # when a spec had already failed an assertion and the launcher (bail) killed the other workers.
    assert_not_read("replay", "runner-out-of-memory", [
        "[0-0] RUNNING in chrome - /test/specs/checkout.e2e.js\n"
        "[0-0] Error in \"Checkout should show the order total\": AssertionError: expected 'Total: $0.00' to equal 'Total: $42.00'\n"
        "[0-0] FAILED in chrome - /test/specs/checkout.e2e.js\n"
        "[0-1] RUNNING in chrome - /test/specs/profile.e2e.js\n"
        "Runner 0-1 finished with exit code null\n"
        "Spec Files:\t 0 passed, 2 failed, 2 total (100% completed) in 00:00:41",
        "[chrome 120 linux #0-0] Checkout\n[chrome 120 linux #0-0]    \u2716 should show the order total\n"
        "[chrome 120 linux #0-0] Expected: \"Total: $42.00\"\n[chrome 120 linux #0-0] Received: \"Total: $0.00\"\n"
        "Bail out! Stopping remaining workers (bail: 1)\nRunner 0-1 finished with exit code null",
    ], bucket="product-defect")
    assert_read("replay", "runner-out-of-memory", [
        "# [\U0001f41b Bug]: Runner 0-n finished with exit code null\nI can confirm that in my case the issue was "
        "related to memory usage. We run e2e tests on Kubernetes pod that had limited RAM 1Gb, but 3 parallel wdio "
        "threads require a bit more at some point that could kill browser/wdio session with 'exit code null' error "
        "without any real indication in 'spec' reporter.",
    ], bucket="infra")


def test_overflow_rule_skips_negated_test_titles_beside_a_blip():
    # app-page-overflows-horizontally-at-phone-width read a generated test's goal ("does not / should
    # not overflow horizontally at 390px") quoted beside the rate limit or network error that failed the run.
    assert_not_read("regen", "product-broken", [
        'Test case "Homepage does not overflow horizontally at 390px (mobile)" — generation failed: OpenAI API returned 429 Too Many Requests: Rate limit reached for gpt-4o. Please retry after 20s.',
        "Generated test `mobile homepage should not overflow horizontally at 390px` failed:\npage.goto: net::ERR_CONNECTION_RESET at https://staging.example.com/",
    ], bucket="transient")
    assert_read("regen", "product-broken", [
        "# Fix horizontal overflow on the mobile homepage\nThe production homepage overflows horizontally at a 390 × 844 mobile viewport.\ndocument.documentElement.scrollWidth = 441\ndocument.documentElement.clientWidth = 390",
        "# Mobile: page overflows horizontally at 390px on every layout\nAt a 390px viewport (iPhone 14/15/16 base width) the page is wider than the screen and scrolls sideways.",
    ], bucket="product-uxux")


def test_tap_target_rule_skips_audits_that_found_none_and_agents_picking_the_neighbour():
    # app-tap-targets-below-minimum-size read an audit line that found no small targets (beside the blip
    # that failed the run) and a browsing agent that picked the neighbouring icon instead of the one asked.
    assert_not_read("regen", "product-broken", [
        "Mobile audit summary (360px Android): tap targets below 48px: 0, contrast issues: 0.\nGeneration failed: page.goto: net::ERR_CONNECTION_RESET at https://app.example.com/wallet",
        "Accessibility checks passed — no touch targets below 44px found on /checkout (mobile).\nError: 429 Too Many Requests from api.openai.com: Rate limit reached for gpt-4o-mini; retrying in 20s",
    ], bucket="transient")
    assert_not_read("regen", "product-broken", [
        'Midscene picked the neighbouring icon: the tap target is smaller than 24px on the 360px android viewport, so its click went to "Share" rather than "Copy".',
    ], bucket="agent-course")
    assert_read("regen", "product-broken", [
        "# ZUULI mobile: make every interactive target reliably tappable\nThe 360 CSS-pixel Android audit found many visible controls whose actual clickable bounding box is below ZUULI's 44 px `min-tap` design rule.\n- Wallet History “Copy transaction ID”: **22×24 px**.",
        "Lighthouse mobile audit: Tap targets are not sized appropriately (12 targets too close).",
    ], bucket="product-uxux")


def test_keyboard_rule_skips_mobile_agent_loops_and_fixed_fields():
    # app-input-hidden-behind-onscreen-keyboard read a mobile agent (Droidrun) looping on a field under the
    # soft keyboard it never dismissed, and a field verified no longer hidden beside the network error that failed the run.
    assert_not_read("regen", "product-broken", [
        "Droidrun keeps tapping the email field again and again: the soft keyboard covers the password field, and it never presses Back to dismiss it, so it loops for 40 steps on the login screen of the Android app.",
    ], bucket="agent-course")
    assert_not_read("regen", "product-broken", [
        "Verified on iPhone 15 Safari: the input field is no longer hidden behind the on-screen keyboard after #2012. The run failed later with net::ERR_CONNECTION_RESET while loading /settings.",
    ], bucket="transient")
    assert_read("regen", "product-broken", [
        "# Mobile: input field hidden behind keyboard in structured view\nOn iOS Safari (and likely other mobile browsers), when tapping the message input field in the web dashboard's structured view, the virtual keyboard opens and the viewport shifts, but the input field ends up positioned behind/underneath the on-screen keyboard. The user cannot see what they are typing.",
    ], bucket="product-uxux")


def test_mcp_session_terminated_rule_skips_one_off_network_drops_and_agent_closed_browser():
    # mcp-tool-call-session-terminated read a session lost once to the user's network and re-run, an upstream
    # 429 beside it, and an agent that closed the browser itself and kept calling the dead session.
    assert_not_read("regen", "browser-unavailable", [
        "ERROR tools.mcp_tool: MCP tool playwright/browser_navigate call failed: Session terminated\nIt happened once after my laptop's wifi dropped; I re-ran the generation and it worked fine.",
        "MCP tool playwright/browser_click call failed: Session terminated\nIt happened once, during a network outage on our VPN; I re-ran the generation and every call went through.",
        "[gateway] MCP tool playwright/browser_snapshot call failed: Session terminated (upstream 429 Too Many Requests: rate limit exceeded)",
    ], bucket="transient")
    assert_not_read("regen", "browser-unavailable", [
        'MCP tool playwright/browser_navigate call failed: Session terminated\nThe agent called browser_close itself at step 3 ("closing the browser since the task looks done") and then kept calling browser_navigate on the closed session for the remaining 20 steps.',
    ], bucket="agent-course")
    assert_read("regen", "browser-unavailable", [
        "# [Bug]: ERROR tools.mcp_tool: MCP tool playwright/browser_run_code call failed: Session terminated - From Gateway sessions\nFrom a Hermes gateway client: Remote Playwright MCP calls results failed while same from Hermes Cli runs without issues.",
    ], bucket="infra")


def test_first_attempt_overload_rule_skips_negated_and_repeated_overloads():
    # backend-overloaded-on-first-attempt read a negated overload ahead of the agent's own loop, and an app
    # API overloaded on the first attempt whose retry got the same 503 (not cleared on retry).
    assert_not_read("regen", "error-cleared-on-retry", [
        'Our logs show the backend was not overloaded on the first attempt: the agent looped on the cookie modal, clicking "Preferences" 30 times without ever pressing "Accept".',
    ], bucket="agent-course")
    assert_not_read("regen", "error-cleared-on-retry", [
        "The app's API server was overloaded on the first attempt and the retry got the same 503 Service Unavailable from /api/orders; the second attempt failed too. The checkout page shows \"Something went wrong\".",
    ], bucket="product-uxux")
    assert_read("regen", "error-cleared-on-retry", [
        'Generating tests infinite load\nHighlighting code and clicking on context menu item "generate tests" brings up the window to provide tests and other code suggestions. However the window is loading infinitely.\nClosing the IDE and retying the process worked.\nProbably our backend been overload in first attempt... Please let us know if it happened again!',
    ], bucket="transient")


def test_overlap_rule_skips_flaky_navbar_overlap_during_scroll():
    # layout-overlap-covers-control, since `navbar` was added, read a flaky CI test whose sticky navbar
    # overlaps the button for a few ms of the scroll animation and passes on retry (transient before the change).
    assert_not_read("regen", "product-broken", [
        "checkout.spec.ts is flaky in CI: the navbar overlaps the Submit button for a few ms during the scroll animation, and the test passes on retry.",
    ], bucket="transient")
    assert_read("regen", "product-broken", [
        "# Header nav overlaps theme/language selector on 1024-1279px viewports\nOn viewports between the `lg` breakpoint (1024px) and roughly 1280px, the full header nav (recursos/como funciona/.../GitHub badge) visually overlaps the theme toggle and language selector on the right.\n## Root cause (confirmed via Playwright measurements)\nThe header's inner container was capped at `max-w-6xl` (1152px).",
        "# [BUG] RTL layout issues in desktop and mobile websites\n7. The icons aren't aligned, the horizontal margin is missing around the text, the menu button is overlapping with logo and the active page indicator isn't aligned",
    ], bucket="product-uxux")


def test_inbox_delay_suspected_then_ruled_out_is_not_the_services():
    # test-inbox-service-delayed read a Mailosaur/Mailtrap delay that the report first suspected and then
    # ruled out (a negated or questioned mention, an app that never triggered the mail) as infra.
    assert_not_read("replay", "runner-setup-error", [
        "I first thought Mailosaur was slow, but the reset email is never triggered at all: POST /api/password-reset returns 500 and the mailer job is never enqueued.\n"
        "Error: No matching messages found in time. By default, only messages received in the last hour are checked (use receivedAfter to override this).",
        "It's not a delay with Mailosaur: the signup confirmation email is never queued by our app since the template refactor, so cy.mailosaurGetMessage times out.\n"
        "Error: No matching messages found in time.",
        "Is this a delay problem with Mailtrap? No - Mailtrap shows the email arrived instantly, but the verification link inside it points to "
        "http://localhost:3000/undefined/verify, so the e2e test lands on a 404.",
    ], bucket="product-defect")
    assert_read("replay", "runner-setup-error", [
        "The email is not landing in the MailoSaur inbox to perform the validation of the 6-digit code.\n"
        "This issue occurred in March 2023, and it was observed that it was a delay problem with MailoSaur.\n"
        "We can see that the test failed on the first run, but on the second attempt, it passed. However, in a large part, it is failing due to this delay with MailoSaur.\n"
        "**ERROR:**\nNo matching messages found in time.",
    ], bucket="infra")


def test_idp_rate_limit_needs_the_tenant_and_no_negation():
    # idp-test-tenant-rate-limited read the app's own 429 (X-RateLimit-Remaining: 0 from its /api after a
    # login that merely went through Auth0 or Okta) and tests that no longer hit Auth0's limit as infra.
    assert_not_read("replay", "runner-setup-error", [
        "The e2e tests no longer hit the Auth0 rate limit since we cache the token per spec; the failure now is the profile page, "
        "which throws TypeError: Cannot read properties of undefined (reading 'email') after login.",
        "Cypress tests do not exceed the Auth0 rate limit any more (one login per spec). What remains: after saving, the project list still shows the old name until a reload.",
        "Login via Auth0 works fine, but right after it GET /api/projects answers 429 Too Many Requests with X-RateLimit-Limit: 5, X-RateLimit-Remaining: 0 "
        "after the dashboard's first load; the limiter introduced in #412 counts the SPA's polling requests. Regression since 2.3.0.",
        "cy.request GET /api/v1/orders\nStatus: 429 - Too Many Requests\nHeaders: {x-ratelimit-limit: 100, x-ratelimit-remaining: 0}\n"
        "The dashboard polls orders every 200ms after the Okta login redirect instead of every 20s, so the page throttles itself and the orders table stays empty.",
    ], bucket="product-defect")
    assert_read("replay", "runner-setup-error", [
        "Improve logged in tests to avoid Auth0 rate limiting\nProblem:\nDev and Staging e2e tests sometimes hit Auth0 rate limiting, which contributes to flakey tests",
        "Maybe it's just my Auth0 org? That's possible.\nThen I noticed this in my logs. Seems to be rate-limiting that's causing the issue!\n"
        "```\n{X-RateLimit-Limit: 10}{X-RateLimit-Remaining: 0}{X-RateLimit-Reset: 1630781443}\n```",
    ], bucket="infra")


def test_stripe_error_stubbed_by_the_spec_is_the_apps_handling():
    # stripe-test-mode-unavailable read Stripe's outage text that the spec itself planted with
    # StripeMock.prepare_error (to check the app's handling, which then failed) as Stripe's test mode down.
    assert_not_read("replay", "runner-setup-error", [
        "Checkout when Stripe test mode returns an API error shows the retry banner\n"
        "Failure/Error: expect(page).to have_content(\"Payment could not be processed, please retry\")\n"
        "  expected to find text \"Payment could not be processed, please retry\" in \"Error while communicating with one of our backends. Sorry about that!\"\n"
        "# stubbed with StripeMock.prepare_error(Stripe::APIError.new(\"Error while communicating with one of our backends. Sorry about that!\"), :new_charge)",
        "it handles Stripe outages gracefully\n"
        "StripeMock.prepare_error(Stripe::APIError.new(\"Test mode requests are temporarily disabled due to exceptionally high traffic.\"), :create_payment_intent)\n"
        "Failure/Error: expect(response).to have_http_status(:service_unavailable)\n"
        "  expected the response to have status code :service_unavailable (503) but it was :internal_server_error (500)\n"
        "NoMethodError: undefined method `message' for nil:NilClass in app/controllers/payments_controller.rb:42",
    ], bucket="product-defect")
    assert_read("replay", "runner-setup-error", [
        "(Status 503) Test mode requests are temporarily disabled due to exceptionally high traffic. Please contact us via https://support.stripe.com/contact "
        "for more information if this problem persists.\nFailure/Error: @approved_card_token ||= Stripe::Token.create(card: stripe_card(:visa))\n"
        "./spec/support/stripe_helpers.rb:24:in `stripe_token_approved'",
        "We currently get sporadic failures when calling the Stripe test API from some of our server tests.\n"
        "Here is an example error we get back from Stripe API:\n```\nError: Error while communicating with one of our backends. Sorry about that!\n```",
    ], bucket="infra")


def test_tests_broken_by_a_new_flow_need_the_suites_fixed_to_be_stale():
    # ui-tests-broken-due-to-new-app-experience read a bare "e2e tests failing due to the new checkout flow"
    # whose new flow itself was broken (button stays greyed out, users stuck, Back logs out) as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "E2E tests failing due to the new checkout flow: after entering the card, the Pay button stays greyed out and the order is never created. Reproduced by hand on staging.",
        "The integration tests are failing due to the new onboarding flow - users get stuck on step 2 because the Next button stays disabled for valid emails.",
        "Cypress e2e tests broke due to the new navigation: clicking Back from Settings now logs the user out and lands on /login instead of the previous page.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "Bug 1381660 - Fixing XCUITests, KIFTests, EarlGrey Tests, and FxScreenGraph\n"
        "This PR fixes the UITests that were broken due to the new onboarding experience - specifically, the fact that there is no longer "
        "an accessible \"Start Browsing\" button on the first page to exit the onboarding overlay.",
    ], bucket="stale-script")


def test_recent_change_must_rename_a_label_the_test_looks_up():
    # test-failing-due-to-recent-renaming-change read a change that removed a CSRF token or moved a session
    # cookie (the app broken: 403, logged out) as a renamed label the test still looks up.
    assert_not_read("replay", "label-path-mismatch", [
        "test_checkout_submits_order fails due to the recent change removing the CSRF token from the payment form: submitting the form now returns 403 Forbidden.",
        "login.spec.ts is broken due to the recent change moving the session cookie to a subdomain: after signing in, the user is logged out on the next page load.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "[XCUITests] iPad Test: testUpdateTabCounter is failing due to missing updated\n"
        "This test is failing when removing one tab from the top bar due to the recent change re-naming the tabs title in the tab tray.",
    ], bucket="stale-script")


def test_extra_or_second_thing_the_app_now_has_is_a_surplus_not_a_new_count():
    # test-failing-because-app-now-has-more read an extra empty cart row and a second confirmation email
    # sent twice (surpluses the app produced by mistake) as an expected count out of date.
    assert_not_read("replay", "label-path-mismatch", [
        "The test is failing because now there is an extra empty row in the cart after removing the last item, so the \"Your cart is empty\" message is never shown.",
        "The tests are failing because now there is a second confirmation email sent for every order; the mailer is triggered twice since the webhook retry change.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "I think the test is failing because if now there is a default tab when opening the app, when do the verification of the number of tabs it found 2 instead of 1, "
        "at least that's the failure that I have seen on Bitrise for this test.\n"
        "`/Users/vagrant/git/Tests/XCUITests/NavigationTest.swift:343 - XCTAssertEqual failed: (\"Optional(\"1\")\") is not equal to (\"Optional(\"2\")\")`",
    ], bucket="stale-script")


def test_qodo_fatal_test_command_with_app_failure_or_network_reset_is_not_setup():
    # generator-test-command-failed-to-run read Qodo's "Fatal: Error running test command", which Qodo prints
    # for ANY nonzero exit of the suite, as tool set-up (infra) even when the output shows the app's 500 or a
    # failed page assertion (product-uxux) or npm's ECONNRESET (transient).
    assert_not_read("regen", "tool-setup-error", [
        'AssertionError: Fatal: Error running test command. Are you sure the command is correct? "pytest --cov=. --cov-report=xml"\n'
        'Exit code 1.\nStdout:\n'
        'FAILED tests/test_api.py::test_login - requests.exceptions.HTTPError: 500 Server Error: Internal Server Error for url: http://localhost:8000/api/login\n'
        'Stderr:',
        'Fatal: Error running test command. Are you sure the command is correct? "pytest tests/"\nStdout:\n'
        'E   AssertionError: expected the signup page to show "Welcome", got "Something went wrong" - the signup form on the app is broken since yesterday\'s deploy.',
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-setup-error", [
        'AssertionError: Fatal: Error running test command. Are you sure the command is correct? "npm test"\n'
        'Exit code 1.\nStderr:\n'
        'npm ERR! network request to https://registry.npmjs.org/jest failed, reason: read ECONNRESET\n'
        'npm ERR! network This is a problem related to network connectivity.',
    ], bucket="transient")
    assert_read("regen", "tool-setup-error", [
        'AssertionError: Fatal: Error running test command. Are you sure the command is correct? "pytest --cov=. --cov-report=term"\n'
        'Stderr: \nCommand timed out',
    ], bucket="infra")


def test_ide_generate_tests_click_needs_an_ide_word_and_no_model_5xx():
    # ide-extension-generate-tests-does-nothing read any 'clicked the "Generate Tests" button ... nothing happens'
    # as the IDE extension's set-up (infra): a run summary of an app's own Generate Tests button that is broken
    # (product-uxux) and a VS Code click that got OpenAI's 503 (transient) were both taken.
    assert_not_read("regen", "tool-setup-error", [
        'Clicked the "Generate Tests" button on the Test Plans page; nothing happens. No request is sent and the console '
        'shows "TypeError: onGenerate is not a function", so the feature is broken and the test cannot continue.',
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-setup-error", [
        'In VS Code, when I click the "Generate Tests" command nothing happens for a while, then '
        '"Error: 503 Service Unavailable from api.openai.com". Works a few minutes later.',
    ], bucket="transient")
    assert_read("regen", "tool-setup-error", [
        'Set up the API key in the settings. Retarted vsCode, and clicked the "Generate Tests" button. Nothing Happens.',
    ], bucket="infra")


def test_playwright_webserver_error_quoted_as_fixed_is_not_setup():
    # playwright-webserver-not-able-to-start read Playwright's webServer error even when the report quotes it as
    # already fixed or gone, before its real failure: the agent clicking another button (agent-course) or the
    # app's 404 (product-uxux) went to infra.
    assert_not_read("regen", "tool-setup-error", [
        'The "Process from config.webServer was not able to start" error is gone after I set the port, but now the generated '
        'test clicks "Sign up" instead of the "Log in" button every time and never reaches the dashboard.',
    ], bucket="agent-course")
    assert_not_read("regen", "tool-setup-error", [
        'Fixed the "Process from config.webServer was not able to start" problem by running npm install. Now the checkout '
        'page itself returns 404 Not Found, so the test cannot proceed.',
    ], bucket="product-uxux")
    assert_read("regen", "tool-setup-error", [
        'When I Try running the tests( auto.spec.ts) it gives :\nError: Process from config.webServer was not able to start. Exit code: 1',
    ], bucket="infra")


def test_agent_looping_on_its_own_docker_run_is_not_tool_container_handling():
    # docker-container-name-already-in-use read Docker's name conflict as the tool's container handling (infra)
    # when the agent itself ran the same `docker run --name` over and over (agent-course, repeated action).
    assert_not_read("regen", "tool-setup-error", [
        'The agent kept running `docker run --name web -p 3000:3000 app` and got "docker: Error response from daemon: Conflict. '
        'The container name "/web" is already in use by container "9f2c1a". You have to remove (or rename) that container" '
        'twelve times in a row, repeating the same command instead of reusing the running container.',
    ], bucket="agent-course")
    assert_read("regen", "tool-setup-error", [
        'When I run the keploy in test mode, it showcases that\n```\nError response from daemon: Conflict. The container name '
        '"/secAppecho" is already in use by container "d1144f8f28f17f4afdf0a1e02e8a924a0e99880ed9281cf6a78e95b7342dea95". '
        'You have to remove (or rename) that container to be able to reuse that name.\n```',
    ], bucket="infra")


def test_generated_wrong_selector_or_endpoint_that_passed_on_rerun_is_a_blip():
    # generated-tests-use-wrong-import-or-mock read "generated test(s) use/call the wrong ..." as the generator's
    # course (agent-course) in reports of a first run that timed out and passed on a re-run or retry (transient).
    assert_not_read("regen", "generated-test-off-course", [
        'The generated test calls the wrong endpoint only on the first run after a cold start: the request timed out and '
        'the retry picked the fallback URL. Re-running passes.',
        'Generated tests used the wrong selector on the first run: the page had not finished loading (Timeout 30000ms '
        'exceeded waiting for locator), a re-run with the same test passed.',
    ], bucket="transient")
    assert_read("regen", "generated-test-off-course", [
        'Generated tests use incorrect sys.modules paths for mocking\nPDD-generated test files inconsistently use `sys.modules` '
        'for pre-import mocking, often using **incorrect module paths** that don\'t match the actual import paths in the source code.',
        '4. Check generated test:\n# Generated test imports wrong function:\n'
        'from find_closest_elements import find_closest_elements  # Should be calculate_factorial',
    ], bucket="agent-course")


def test_generated_tests_failing_first_run_on_network_reset_is_a_blip():
    # generated-tests-rarely-work-out-of-the-box read "generated tests don't work out of the box" as the model's
    # wrong tests (agent-course) when the first run failed on a connection reset and the second run passed (transient).
    assert_not_read("regen", "generated-test-off-course", [
        "The generated tests don't work out of the box in CI: the first run fails with net::ERR_CONNECTION_RESET on the "
        "login page and the second run passes.",
    ], bucket="transient")
    assert_read("regen", "generated-test-off-course", [
        'Improve Tabnine test running. The new test mode is pretty good, but it takes a very long time to generate tests '
        'this way, and they rarely work out of the box, which requires multiple rounds of running and correcting the test.',
    ], bucket="agent-course")


def test_device_cloud_5xx_in_words_leaves_relayed_command_errors_and_the_apps_own_500():
    # device-cloud-5xx-in-words read a WebDriver/Appium command error that the cloud grid relays
    # in its 500 (element missing from the app, the app's JS crash), the app's own server trace
    # after a form submit on a BrowserStack run, and a negated "not that SauceLabs returns error 500"
    # as the cloud's blip (transient).
    assert_not_read("regen", "browser-provider-server-error", [
        "BrowserStack returns error 500 on the tap: An unknown server-side error occurred while processing the command. Original error: Could not find element with id 'com.shop:id/place_order'. Build 4.2 of the shop app no longer renders the Place order button on the cart screen.",
        "Sauce Labs returns status code 500 for findElement: no such element: Unable to locate element: {\"method\":\"css selector\",\"selector\":\"#add-to-cart\"}. The product detail screen has no Add to cart button at all since the redesign.",
        "BrowserStack returns status 500 on executeScript: javascript error: Cannot read properties of null (reading 'addEventListener') at main.3f2a9c.js:1:48213 - the shop's bundle crashes on load in Safari 16 and the cart never renders.",
        "Our e2e suite on BrowserStack fails with internal server error 500 right after submitting the registration form:\nActiveRecord::RecordNotUnique in UsersController#create\nPG::UniqueViolation: ERROR: duplicate key value violates unique constraint \"index_users_on_email\"",
        "It is not that SauceLabs returns error 500 - the session starts fine. The 500 Internal Server Error is thrown by the app under test: Django IntegrityError at /accounts/register/ on every submit of the form.",
    ], bucket="product-uxux")
    assert_read("regen", "browser-provider-server-error", [
        "Benchmarks run on Sauce Labs fail with internal error 500\nError \"Error while extracting response for type\" / 500\nInternal errors of SauceLab are causing our CI checks to fail.\nManual re-triggering of the GitHub action workflows fixes the issue.",
        "SauceLabs randomly returns error 502:\n14 10 2018 23:14:06.323:ERROR [launcher.sauce]: Can not start internet explorer 10.0 (Windows 7)\n  Failed to start Sauce Connect:\n  Download failed with status code: 502",
        "Our mobile tests run on real phones in the SauceLabs cloud. Starting a test session there sometimes fails with a 500 error, and that single failure kills the whole CI job.",
    ], bucket="transient")


def test_browser_cloud_confirmed_their_fault_needs_the_provider_to_own_a_fault_a_rerun_clears():
    # browser-cloud-confirmed-their-fault read "their" of another team (the app's pricing team owning
    # a 500 on the cart seen in a BrowserStack run) and an SDK bug fixed in a numbered version
    # as the cloud's passing fault (error-cleared-on-retry, transient).
    assert_not_read("regen", "error-cleared-on-retry", [
        "The BrowserStack run shows a 500 error on /cart; the pricing team confirmed it was on their side - a null pointer in the pricing service that breaks the cart for every user until they deploy a fix.",
    ], bucket="product-uxux")
    assert_not_read("regen", "error-cleared-on-retry", [
        "BrowserStack error \"Cannot read properties of undefined (reading 'capabilities')\" from browserstack-node-sdk: the SDK maintainers confirmed it was their issue and fixed it in v1.31.2; with 1.31.1 the test generation crashes before any session starts.",
    ], bucket="infra")
    # A fault the provider owned that still fails on every run weeks later is no blip either.
    assert_not_read("regen", "error-cleared-on-retry", [
        "We opened a ticket about the BrowserStack error; they said it was on their end, but two weeks later the same session keeps failing with \"Unable to communicate to node\" on every run.",
    ], not_bucket="transient")
    assert_read("regen", "error-cleared-on-retry", [
        "The error you got (\"Unable to communicate to node\"), I guess on March 2nd, was BrowserStack error. I got the same error that day, and later they confirmed that it was their fault and they have fixed it. Maybe you can try to run your tests again?",
    ], bucket="transient")


# Review of replay's rules added since 2d58101 (batch 501): each narrowed rule misread
# messages of another bucket; these fail on the table at HEAD and pass on the narrowed one.

PACT_OWN = ("Frontend Tools pushed a change to the pact search contract and renamed the interaction string. "
            "The string defined in the provider state MUST be an exact match to what's defined as the interaction "
            "in the contract. Otherwise, verification fails. Pact verification will fail until this is merged")


def test_pact_rename_not_read_when_provider_answer_mismatches_or_tooling_fails():
    # pact-interaction-renamed-provider-state-stale read a rename whose state was already updated while the
    # provider's own answer still failed verification (a dropped body key, a 404 for a state-created claim),
    # and the Pact tooling failing to load, as stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "Pact verification failed for search-frontend.\n"
        "We renamed the interaction description to \"a search for claims\" in the consumer and updated the provider "
        "state to match. The provider state must be an exact match to the interaction, and it is now, yet verification still fails:\n"
        "  1) Verifying a pact between search-frontend and vets-api Given claims exist - a search for claims returns a response which has a matching body\n"
        "     $.data.total -> Expected 'total' (Integer) but it was missing\n"
        "The serializer change in #4890 stopped emitting total for every search.",
        "The consumer team renamed the interaction in the contract, and the provider state was renamed with it. "
        "The pact now verifies the state, but the provider answers 404 for a claim the state just created:\n"
        "Expected status 200 but was 404",
    ], bucket="product-defect")
    assert_not_read("replay", "label-path-mismatch", [
        "Frontend renamed the interaction description in the pact; provider states must exactly match the interaction. "
        "Verification cannot start: Error: Cannot find module '@pact-foundation/pact-core' / npm ERR! code ELIFECYCLE",
    ], bucket="infra")
    assert_read("replay", "label-path-mismatch", [PACT_OWN], bucket="stale-script")


def test_newly_enforced_parameters_not_read_when_enforcement_is_unintended_or_hits_real_clients():
    # api-tests-lack-newly-enforced-parameters read an enforcement the report says was not meant (a header that
    # should have stayed optional, reverted) or that rejects real clients (health checks, Safari page loads) as
    # tests left behind, stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "# Fix API tests missing required location params\n"
        "API tests failing because the requests don't send the X-Request-Id header now required by the gateway. "
        "The header was supposed to stay optional: the new middleware rejects every client that omits it, including the mobile app. Reverting #5120.",
        "Integration tests fail because they lack the tenant parameter now required on /health. Health checks must never "
        "require a tenant; the load balancer now marks all pods down and the site is unavailable.",
        "Karate tests failing because they omit the Accept-Language header now validated by the API, and the production "
        "web app omits it too: every page load from Safari returns 400 Bad Request.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "# Fix API tests missing required location params\n"
        "Fixes the TO API Tests failing because they lack required Location Parameters now enforced by the config generation.\n"
        "Labeling bug, even though it isn't, because it fixes the tests being broken.",
    ], bucket="stale-script")


def test_empty_body_expectation_needs_an_added_status_or_error_message():
    # api-test-expects-body-before-added-message read `add\w*` (so `Feature: address details`) and any added
    # details or message (`add details to audit log entries`, `add message queue`) as the enhancement that gave
    # the response a body, so REST Assured's failing empty-body check on another endpoint became stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "# Feature: address details on the customer profile\n"
        "CustomerDeleteEndpointTest.java:1 | 1 expectation failed. Response body doesn't match expectation. Expected: is \"\"   "
        "Actual: {\"status\":200,\"error\":\"java.lang.NullPointerException: Cannot invoke \\\"Address.getStreet()\\\" because \\\"address\\\" is null\"}",
        "feat: add details to audit log entries\n"
        "AuditEndpointTest > purgeReturnsEmptyBody FAILED\n"
        "    1 expectation failed.\n"
        "    Response body doesn't match expectation.\n"
        "    Expected: is \"\"\n"
        "      Actual: {\"purged\":0,\"error\":\"audit table locked\"}",
        "feat: add message queue for invoice events\n"
        "InvoiceDeleteTest.java:31 | 1 expectation failed. Response body doesn't match expectation. Expected: is \"\"   "
        "Actual: {\"error\":\"queue unavailable, invoice not deleted\"}",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "# Enhancement: Add 404 response message\n"
        "It seems like this is making some unit tests fail, too\n"
        "explainability-service/src/test/java/org/kie/trustyai/service/endpoints/metrics/fairness/group/DisparateImpactRatioEndpointMemoryTest.java:1 | "
        "1 expectation failed. Response body doesn't match expectation. Expected: is \"\"   Actual: 404 Not Found: The queried endpoint "
        "\"/metrics/group/fairness/dir/request\" does not exist within TrustyAI.",
    ], bucket="stale-script")


def test_live_data_change_not_read_for_the_projects_own_staging_or_deployed_service():
    # live-api-data-no-longer-matches-expected read data returned by the project's own services (a pricing
    # service on staging right after its deploy, an orders service changed since the project's PR) as a third
    # party's live data moving on, stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "The integration tests against staging are failing because the data returned by the pricing service no longer matches the expected totals:\n"
        "  Expected: 100.00\n"
        "  But was:  0.00\n"
        "It started after this morning's deploy of pricing 2.3; every cart on staging shows a zero total.",
        "The contract tests are failing, apparently because the responses sent by the orders service no longer match the expected schema: "
        "`amount` comes back as a string (\"12.50\") instead of a number since #881.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "# Integration tests are failing\n"
        "The integration tests that download data from Wikipedia are failing, presumably because the data returned no longer matches the expected data:\n"
        "Unexpected value for p.MaxUploadSize\n"
        "  Expected: 4294967296\n"
        "  But was:  5368709120",
    ], bucket="stale-script")


def test_key_now_required_not_read_for_postmans_own_api_or_the_apps_gateway():
    # external-api-now-requires-key-tests-updated read Postman's own API key that newman needs to fetch the
    # collection (the test tool's set-up) and the project's own gateway demanding a key so visitors get 401
    # on public pages (the app's defect) as an external API's intended change, stale-script.
    assert_not_read("replay", "label-path-mismatch", [
        "CI tests failing: a Postman API key is now required to fetch the collection in `newman run https://api.getpostman.com/collections/1234`.\n"
        "error: collection could not be loaded\n"
        "  unable to fetch data from url \"https://api.getpostman.com/collections/1234\" - AuthenticationError\n"
        "The Postman API requirements seem to have changed.",
    ], bucket="infra")
    assert_not_read("replay", "label-path-mismatch", [
        "test: API key now required for the storefront API\n"
        "Our e2e tests now send x-api-key with every request. Anonymous visitors get 401 on the home page since the gateway's "
        "requirements have changed in the last deploy; nobody can browse the catalogue without signing in.",
        "tests: an access token is now required on /public/status\n"
        "The status page itself now shows \"401 Unauthorized\" to visitors; the API seems to have changed in release 4.2 and the public page is broken.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "# [NT-0] test: API key now required for requests\n"
        "Added missing API key to the header for the failing requests.\n"
        "Payload.AddHeader(CSP_TEXT(\"x-api-key\"), CSP_TEXT(\"reqres-free-v1\"));\n"
        "We use an external service (https://reqres.in/) for testing against a real API, and there requirements seem to have changed.",
    ], bucket="stale-script")


# Review of replay's new rules (since ed3c7fe): messages of other buckets they misread.


def test_genuine_bug_denied_in_other_words_is_not_a_filed_product_bug():
    # failure-tagged-product-bug read `isn't a genuine front-end bug` (a denial its vetoes
    # only knew as `not a genuine`) as a filed product bug, over a renamed locator and over a
    # runner that ran out of memory.
    assert_not_read("replay", "app-bug-filed", [
        "The failure isn't a genuine front-end bug: the data-testid of the save button was renamed in #4120, so we updated the locator.",
    ], bucket="stale-script")
    assert_not_read("replay", "app-bug-filed", [
        "This isn't a genuine front-end bug: Cypress timed out because the CI runner ran out of memory.",
    ], bucket="infra")
    assert_read("replay", "app-bug-filed", [
        "In tackling `create_data_block_with_chart.robot` , I found the following genuine front-end bugs:\n* EES-6052 - footnote updates not appearing in already-viewed data blocks.",
        "# Quarantine model serving tests due to [Product Bug: RHOAIENG-29340]",
    ], bucket="product-defect")


def test_tests_broken_by_a_package_rename_are_not_a_stale_label_path():
    # script-names-stale-or-outdated-locators' new `tests broken by/after ... rename` branch read
    # a renamed npm package (the suite's own support file failing to import it) as a renamed
    # control of the page; the test tool failing to set up is infra.
    assert_not_read("replay", "label-path-mismatch", [
        "Cypress tests broken after the package rename: Error: Cannot find module '@acme/cypress-commands' from /app/cypress/support/e2e.ts",
        "Cypress tests broken by the package rename: Error: Cannot find module '@acme/test-utils' from cypress/support/e2e.ts",
    ], bucket="infra")
    assert_read("replay", "label-path-mismatch", [
        "# Fix UI tests broken after new section rename\nWe didn't run circle tests for this contributor PR, which broke the UI tests.\nIt's purely a test issue, with an easy fix.",
    ], bucket="stale-script")


def test_label_change_that_shipped_broken_is_the_apps():
    # failure-due-to-control-text-change read a test failing `due to the button label change`
    # as a stale label path when the report says the new label shipped broken: an untranslated
    # key users see, a button that no longer triggers validation.
    assert_not_read("replay", "label-path-mismatch", [
        'The checkout e2e test fails due to the button label change: the new label "Pay now" was never added to the German locale, so users see "checkout.pay_now" on the button.',
        'The registration spec fails due to the button text change: the new "Create account" button no longer triggers validation, so invalid emails are accepted.',
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "# Playwright tests broken\nDue to a change of the menu names, the creation of anode in playwright is currently broken.",
        "to prevent failing test due to button text change",
    ], bucket="stale-script")


def test_redesign_that_left_a_wrong_value_is_the_apps():
    # tests-failing-after-redesign read tests `failing after the redesign` as stale when the
    # report says the page now shows a wrong value (a wrong order total, a cart badge that no
    # longer counts), over the failed assertion that names it.
    assert_not_read("replay", "label-path-mismatch", [
        "Cypress tests are failing after the redesign: the total on the order summary is wrong, expected $42.00 but the page shows $0.00.",
        "Playwright tests are failing after the redesign: expect(locator).toHaveCount(3) failed, received 0 - the cart badge no longer counts items added from the wishlist.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "# fix failing tests due to redesign\nIn the redesign process we refactored some components and the ids or identifiers used in the playwright tests have now changed and the tests are failing in github actions.",
    ], bucket="stale-script")


def test_changed_page_that_now_misbehaves_is_the_apps():
    # tests-failing-after-pages-changed read `pages have been changed so our smoke tests are
    # failing` as stale when the report goes on to say the changed page misbehaves (a login
    # that loops on valid credentials, a subtotal that is wrong).
    assert_not_read("replay", "label-path-mismatch", [
        "The login form has been changed so our smoke tests are failing: after submitting valid credentials the page reloads and shows the form again.",
        "The cart page has been changed so our smoke tests are failing: the subtotal is wrong after removing an item.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "# Make smoke test sign-in step resilient to button text changes\nDfE Sign-In pages have been changed slightly on `pre-prod` so our smoke tests are failing on `staging` which is preventing deploys to `production`.",
    ], bucket="stale-script")


def test_control_removed_by_mistake_is_not_a_moved_control():
    # test-broken-by-reordered-or-moved-control read a spec `broken since the export button was
    # removed` as left behind by an intended change when the report says the removal was a
    # mistake (its vetoes knew only `by mistake`).
    assert_not_read("replay", "label-path-mismatch", [
        "The e2e spec is broken since the export button was removed in #812; removing it was a mistake, the export is gone from the toolbar and we need it back.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        "# Fix Selenium tests\nFixes\n- `AddingST` (broken since first tab was moved to popup dialog - #3415)\n- `SearchingST` (broken since menu button was removed - #3535)",
    ], bucket="stale-script")


# Review of regen's rules added since ed3c7fe: each test names the messages of another bucket a new
# rule misread (they must no longer get its signal and must land where they belong) and the rule's
# own wording from its golden case (it must still be read).


def test_page_not_loaded_rule_leaves_network_throttle_and_mistyped_url_alone():
    # app-page-cannot-be-loaded-not-wait-time read a page lost to a reset connection without `net::`
    # or to the site's 429, and a page a model or generated test reached by a mistyped URL, as the
    # app's own page failing to render (product-uxux).
    assert_not_read("regen", "product-broken", [
        "Some pages can't be loaded, not related to the waiting time: Error: page.goto: ERR_CONNECTION_RESET at http://staging.local/admin; our Wi-Fi dropped during the run.",
        "The page cannot be loaded, and it is not related to the waiting time: the site answers 429 Too Many Requests because eight workers hit it from the same IP at once.",
    ], bucket="transient")
    assert_not_read("regen", "product-broken", [
        "Claude guessed the URL /dashbaord, so it ended on a page that cannot be loaded; this is not related to the wait time, the right route is /dashboard.",
        "Step 4: navigated to a page that can't be loaded, not due to the loading time: the generated test typed the URL with a typo (/setings instead of /settings).",
    ], bucket="agent-course")
    assert_read("regen", "product-broken", [
        "BUG: Rendering exception and timeout\n"
        "This is most likely the reason why the front-end E2E test always loses an element and fails immediately after cy.login\n"
        "When we enter the dashboard panel for the first time, there will be a random page that cannot be loaded, which has nothing to do with the waiting time.",
    ], bucket="product-uxux")


def test_submit_error_banner_beside_lost_connection_or_agent_input_is_not_the_product():
    # app-problem-submitting-your-response read the form's "Sorry, there was a problem submitting
    # your response" banner as the product failing a valid submission even when the connection was
    # lost or the request timed out (transient), and when the model typed into the wrong field or
    # left a mandatory question unanswered (agent-course).
    assert_not_read("regen", "product-broken", [
        "Sorry, there was a problem submitting your response. Please check your internet connection and try again.\n"
        "POST https://forms.example.ca/api/submit net::ERR_INTERNET_DISCONNECTED",
        "Submitting the form showed \"Sorry, there was a problem submitting your response.\" The request timed out after 30000ms while the staging network was down; the same submission went through a minute later.",
    ], bucket="transient")
    assert_not_read("regen", "product-broken", [
        "Step 7: browser_click on \"Submit\" -> banner \"Sorry, there is a problem submitting your response\". Claude typed the phone number into the Email field, so the form rejected it; the right field is #email.",
        "Claude left the mandatory \"Province\" question unanswered and pressed Submit; the form showed \"Sorry, there is a problem submitting your response\" and marked the question as required.",
    ], bucket="agent-course")
    assert_read("regen", "product-broken", [
        "When I test out a form in /Test, I get an error saying \"Sorry there is a problem submitting your response\" within the dotted border.",
    ], bucket="product-uxux")


def test_no_success_notice_after_rightly_refused_input_is_the_agents_course():
    # app-submit-no-success-notice read a submit the form rightly held back (a required field left
    # empty, an invalid card number or date the generated test or model typed) as the product's
    # submit ending without its success notice.
    assert_not_read("regen", "product-broken", [
        "Step 6: clicked Submit, but it did not show a success message: the Email field was left empty, so the form outlined it in red.",
        "Clicked \"Place order\" and it did not show a confirmation page: the generated test filled the card number with 1234 5678, which the checkout rightly rejects as an invalid card.",
        "Clicking Save did not show a success toast: Claude typed \"tomorrow\" into the Due date field, which the app rightly refuses as an invalid date.",
    ], bucket="agent-course")
    assert_read("regen", "product-broken", [
        "Clicking on Submit your app never returns a success or completion\n"
        "Clicking on Submit your app does not return a success or completion notice",
    ], bucket="product-uxux")


def test_app_auth_refusing_every_request_after_the_first_is_not_a_tool_bug():
    # every-call-after-the-first-fails read the app's own API answering 401 after the first request
    # (its broken refresh-token rotation) as a tool client failing identically (infra).
    assert_not_read("regen", "identical-failure-repeated", [
        "After the first successful request, all subsequent requests fail with HTTP 401 Unauthorized from the app's own /api/orders endpoint: its refresh-token rotation is broken, so every user is signed out after one call.",
    ], bucket="product-uxux")
    assert_read("regen", "identical-failure-repeated", [
        "I discovered a bug with the browser tools (browser_navigate, browser_snapshot, browser_screenshot, etc.). After the first successful use of any browser tool, all subsequent calls fail with the error:\n"
        "`Error executing browser_navigate: no close frame received or sent`\n"
        "The issue appears to be in the cptr browser client. The WebSocket connection to the CDP server is not closed properly after the first use. The CDP server sends no \"close frame\", which causes a keepalive ping timeout.",
    ], bucket="infra")


def test_session_creation_failed_needs_a_real_grid_and_not_a_concurrency_cap():
    # device-cloud-session-creation-failed read a device cloud refusing a session for its
    # concurrency cap (a capacity blip) as the tool side's failure (infra), and took a bare "grid"
    # (the app's own data grid) as a Selenium grid, reading the app's "Session creation failed"
    # toast after login as the test browser not starting.
    assert_not_read("regen", "browser-unavailable", [
        "Sauce Labs: session creation failed: maximum concurrent sessions reached for this account (5 of 5 VMs in use); the job started once another build finished.",
        "LambdaTest grid: session creation failed, too many concurrent sessions on this plan; the queued build went through ten minutes later.",
    ], bucket="transient")
    assert_not_read("regen", "browser-unavailable", [
        "After login the dashboard's data grid stays empty and the app shows \"Session creation failed\" in a red toast; the /api/session endpoint of the app rejects every valid user.",
    ], bucket="product-uxux")
    assert_read("regen", "browser-unavailable", [
        "As intern has problems with testingbot (#488), it not only fails to run the tests, but runs the session four times. each time eating up minutes by doing nothing.\n"
        "This is the same problem as #516. Intern retries up to `environmentRetries` times if a session fails to be created. TestingBot is broken, creates the session, then redirects to the wrong URL so Leadfoot thinks the session creation failed. This is not an Intern bug, but a bug in TestingBot.",
    ], bucket="infra")


def test_test_lab_timeout_beside_the_apps_own_5xx_is_the_product():
    # test-lab-gcloud-run-timed-out-or-crashed read gcloud's `(gcloud.firebase.test.android.run)
    # timed out` as Test Lab's blip (transient) even when the matrix waited on the app's own 500 or
    # 502, which the rule is decided before.
    assert_not_read("regen", "tool-service-server-error", [
        "ERROR: (gcloud.firebase.test.android.run) timed out\n"
        "Every test in the matrix hit HTTP 500 Internal Server Error from our staging backend at /api/login, so the instrumentation waited on the spinner until the run's limit.",
        "ERROR: (gcloud.firebase.test.ios.run) timed out\n"
        "The app's checkout returned 502 Bad Gateway on each device and the XCUITest waited for the receipt screen until Test Lab gave up.",
    ], bucket="product-uxux")
    assert_read("regen", "tool-service-server-error", [
        "Still a flake here and there, though. Here's one from tip of tree:\n"
        "https://cirrus-ci.com/task/5126493739155456?command=main#L2835\n"
        "ERROR: (gcloud.firebase.test.android.run) timed out\n"
        "Should we check for this specific string and retry the test?\n"
        "It seems it failed first with 500 ^^\n"
        "> ERROR: gcloud crashed (MetadataServerException): HTTP Error 500: Internal Server Error",
    ], bucket="transient")


# Review of regen's rules added since 89c4ac0: messages of other buckets they misread.

_MISUSED = ("System.InvalidOperationException: Misused header name. Make sure request headers are used with "
            "HttpRequestMessage, response headers with HttpResponseMessage, and content headers with HttpContent objects.")


def test_restler_engine_failure_on_socket_or_reported_flaky_is_not_restlers_code():
    # restler-engine-checker-exception read `Restler engine failed` / `Exception … applying checker` whatever
    # exception reached the checker: RESTler's own socket error to a service being redeployed, a gateway's 429,
    # and a failure the report calls flaky or says happens sometimes all went to infra as RESTler's code.
    assert_not_read("regen", "tool-code-error", [
        "Nightly fuzz-lean job went red:\n"
        "ERROR: Restler engine failed. See logs in /agent/_work/1/s/restler/Fuzz directory for more information.\n"
        "EngineStdOut.txt ends with\n"
        "Exception Exception Creating Socket: [Errno 110] Connection timed out applying checker "
        "<checkers.invalid_dynamic_object_checker.InvalidDynamicObjectChecker object at 0x7f3a1c2b5e50>\n"
        "The staging API was being redeployed at that minute; re-running the same pipeline an hour later "
        "finished with no errors.",
        "ERROR: Restler engine failed. See logs in /work/Fuzz directory for more information.\n"
        "network.testing log: every request after 10:02 got HTTP/1.1 429 Too Many Requests with Retry-After: 60 "
        "from the API gateway's rate limit.\n"
        "Exception 429 Too Many Requests applying checker <checkers.use_after_free_checker.UseAfterFreeChecker object at 0x7f1c>",
        "ERROR: Restler engine failed. See logs in /agent/_work/3/s/Fuzz directory for more information.\n"
        "This is flaky on our build agents, about one run in five; the others finish the whole grammar.",
        "ERROR: Restler engine failed. See logs in /agent/_work/3/s/Fuzz directory for more information.\n"
        "Only happens sometimes on our build agents; the next run finishes the whole grammar.",
    ], bucket="transient")
    assert_read("regen", "tool-code-error", [
        "The out of the box demo_server compiles OK but running `fuzz` causes Restler to exit with errors:\n\n"
        "`ERROR: Restler engine failed. See logs in /home/joachim/src/elux_fuzz/Fuzz directory for more information.`\n\n"
        "EngineStdErr.txt is empty and `EngineStdOut.txt` has:\n\n```\n2022-09-01 13:13:51.184: Generation: 2 \n"
        "Exception substring not found applying checker <checkers.invalid_value_checker.InvalidValueChecker "
        "object at 0x7f482060ee30>\n```",
    ], bucket="infra")


def test_misused_header_name_from_the_app_or_a_generated_test_is_not_the_recorders():
    # dotnet-misused-header-name read .NET's `InvalidOperationException: Misused header name` anywhere: the app's
    # own Kestrel log behind a failed checkout, a 500's problem details from the app's API, and a generated xUnit
    # test that put Content-Type on DefaultRequestHeaders all went to infra as WireMock.Net's proxy code.
    assert_not_read("regen", "tool-code-error", [
        'Checkout step: clicking "Place order" shows "Something went wrong" and the network tab has POST /api/orders 500.\n'
        "The app's server log:\n"
        "fail: Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware[1]\n"
        "      An unhandled exception has occurred while executing the request.\n"
        "      " + _MISUSED + "\n"
        "         at System.Net.Http.Headers.HttpHeaders.GetHeaderDescriptor(String name)\n"
        "         at Shop.Payments.StripeGatewayClient.ChargeAsync(Order order) in /src/Shop.Payments/StripeGatewayClient.cs:line 57\n"
        "         at Shop.Api.Controllers.OrdersController.Place(PlaceOrderRequest req)",
        "POST /api/invoices returned 500 Internal Server Error\n"
        '{"type":"https://tools.ietf.org/html/rfc9110#section-15.6.1","title":"An error occurred while processing '
        'your request.","status":500,"detail":"' + _MISUSED + '\\n   at Billing.Api.Clients.TaxServiceClient.QuoteAsync()"}\n'
        "The invoice page never loads, so the test cannot get to the Pay button.",
    ], bucket="product-uxux")
    assert_not_read("regen", "tool-code-error", [
        "Failed Shop.Api.Tests.OrdersApiTests.CreateOrder_ReturnsCreated [12 ms]\n"
        "  Error Message:\n"
        "   " + _MISUSED + "\n"
        "  Stack Trace:\n"
        "     at System.Net.Http.Headers.HttpHeaders.GetHeaderDescriptor(String name)\n"
        "     at System.Net.Http.Headers.HttpHeaders.Add(String name, String value)\n"
        "     at Shop.Api.Tests.OrdersApiTests.CreateOrder_ReturnsCreated() in /src/Shop.Api.Tests/OrdersApiTests.cs:line 31\n"
        "The generated test adds Content-Type to client.DefaultRequestHeaders instead of setting it on the StringContent.",
    ], bucket="agent-course")
    assert_read("regen", "tool-code-error", [
        "When we try to record a request with HttpMethod as post, then we are getting error as below.\n```\n"
        + _MISUSED + "\n"
        "   at System.Net.Http.Headers.HttpHeaders.CheckHeaderName(String name)\n"
        "   at System.Net.Http.Headers.HttpHeaders.Add(String name, IEnumerable`1 values)\n"
        "   at WireMock.Http.HttpClientHelper.<SendAsync>d__1.MoveNext()\n```",
    ], bucket="infra")


def test_model_call_failure_under_testspark_frames_is_a_blip_not_the_plugins_code():
    # ide-test-generator-java-exception read any java.lang exception above TestSpark's frames: the model API's
    # 429 rate limit, a Hugging Face 503 while the model loads, and a SocketTimeoutException on the LLM request,
    # each carried up through TestSpark's request manager, went to infra as the plugin's bug.
    assert_not_read("regen", "tool-code-error", [
        "java.lang.IllegalStateException: OpenAI responded 429 Too Many Requests: Rate limit reached for gpt-4o in "
        "organization org-abc on tokens per min (TPM): Limit 30000, Used 29840. Please try again in 2.1s.\n"
        "\tat org.jetbrains.research.testspark.tools.llm.generation.openai.OpenAIRequestManager.send(OpenAIRequestManager.kt:81)\n"
        "\tat org.jetbrains.research.testspark.core.generation.llm.network.RequestManager.request(RequestManager.kt:61)",
        "java.lang.IllegalStateException: HuggingFace Inference API returned 503 Service Unavailable: Model "
        "codellama/CodeLlama-34b-Instruct-hf is currently loading, estimated_time 40.0\n"
        "\tat org.jetbrains.research.testspark.tools.llm.generation.hf.HuggingFaceRequestManager.send(HuggingFaceRequestManager.kt:66)\n"
        "\tat org.jetbrains.research.testspark.core.generation.llm.network.RequestManager.request(RequestManager.kt:61)",
        "Generating tests for OrderService with GPT-4o stopped with:\n"
        "java.lang.RuntimeException: java.net.SocketTimeoutException: timeout\n"
        "\tat org.jetbrains.research.testspark.tools.llm.generation.openai.OpenAIRequestManager.send(OpenAIRequestManager.kt:74)\n"
        "\tat org.jetbrains.research.testspark.core.generation.llm.network.RequestManager.request(RequestManager.kt:61)\n"
        "Clicking Generate again a minute later gave me tests.",
    ], bucket="transient")
    assert_read("regen", "tool-code-error", [
        "Error during asking to generate tests for the external line.\n\n```\njava.lang.NullPointerException\n"
        "\tat org.jetbrains.research.testspark.java.JavaPsiHelper.collectClassesToTest(JavaPsiHelper.kt:93)\n"
        "\tat org.jetbrains.research.testspark.tools.llm.generation.PromptManager._get_classesToTest_$lambda$0(PromptManager.kt:51)\n"
        "\tat org.jetbrains.research.testspark.tools.llm.generation.PromptManager.getClassesToTest(PromptManager.kt:48)\n"
        "\tat org.jetbrains.research.testspark.tools.llm.generation.PromptManager.<init>(PromptManager.kt:60)\n"
        "\tat org.jetbrains.research.testspark.tools.llm.Llm.generateTestsForLine(Llm.kt:192)\n```",
        "TestCherry crashes IntelliJ when I try to use the plugin.\n\nError:\n\n```\n"
        "java.lang.IllegalArgumentException: Missing extension point: com.intellij.projectConfigurable in container Application (RA allowed)\n"
        "\tat com.intellij.openapi.extensions.impl.ExtensionsAreaImpl.getExtensionPoint(ExtensionsAreaImpl.kt:273)\n"
        "\tat com.intellij.openapi.extensions.ExtensionPointName.getExtensions(ExtensionPointName.kt:51)\n"
        "\tat com.blacknebula.testcherry.actions.GenerateTestMethods.actionPerformed(GenerateTestMethods.java:106)\n```",
    ], bucket="infra")


def test_detox_busy_log_beside_detox_own_failed_lookup_or_expectation_is_not_a_driver_stall():
    # detox-uimanagermodule-busy read Detox's routine `UIManagerModule is busy.` logcat line as a driver
    # stall (infra) even when Detox itself reported the test's failure: a lookup that matched no view
    # (the script's selector, stale-script) or a text expectation the app's screen did not meet (product-defect).
    assert_not_read("replay", "driver-internal-error", [
        'DetoxRuntimeError: Test Failed: No views in hierarchy found matching: (view.getTag() is "loginButton" and view has effective visibility=VISIBLE)\n'
        "    at ViewInteraction.tap (e2e/login.e2e.js:14:42)\n"
        "Android logcat:\n"
        "I Detox   : UIManagerModule is busy.\n"
        "I Detox   : UIManagerModule is busy.\n",
    ], bucket="stale-script")
    assert_not_read("replay", "driver-internal-error", [
        "  \u25cf Login \u203a shows the welcome banner after sign-in\n\n"
        "    Test Failed: 'view.getText() is \"Welcome back, Ann\"' doesn't match the selected view.\n"
        '    Expected: view.getText() is "Welcome back, Ann"\n'
        '    Got: "ReactTextView{id=1203, visibility=VISIBLE, text=Something went wrong}"\n\n'
        "detox[4312] I Detox   : UIManagerModule is busy.\n",
    ], bucket="product-defect")
    assert_read("replay", "driver-internal-error", [
        "Test stalls despite synchronization turned off. Detox: UIManagerModule is busy.\n"
        "After a few successful steps, the test pauses before executing the next `.tap()` action. "
        "Android logcat shows `I Detox   : UIManagerModule is busy.`.\n"
        "I run my test with `await device.disableSynchronization();`. Why is the execution stopped?",
    ], bucket="infra")


def test_flutter_service_disappeared_after_the_app_died_or_the_test_already_failed_is_not_the_drivers():
    # flutter-driver-vm-service-disappeared read vm_service's `(112) Service has disappeared` as the
    # harness's link breaking (infra) when the app's process had died (ActivityManager's `has died`,
    # the app's fault: product-defect) or when the Flutter test framework had already reported the
    # test's own failure (a finder that found 0 widgets: stale-script; a wrong text showing a 500: product-defect).
    assert_not_read("replay", "driver-internal-error", [
        "00:42 +3: login flow taps Sign in\n"
        "I/ActivityManager(  512): Process com.example.shop (pid 8812) has died: fg  TOP\n"
        "Unhandled exception:\n"
        "DriverError: Failed to fulfill Tap due to remote error\n"
        "Original error: ext.flutter.driver: (112) Service has disappeared\n",
        "\u2550\u2550\u2561 EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK \u255e\u2550\u2550\u2550\u2550\n"
        "The following TestFailure was thrown running a test:\n"
        "Expected: 'Order placed'\n"
        "  Actual: 'Payment failed: 500 Internal Server Error'\n"
        "   Which: is different.\n\n"
        "The test description was:\n  places an order\n"
        "Unhandled exception:\n"
        "DriverError: Failed to fulfill RequestData due to remote error\n"
        "Original error: ext.flutter.driver: (112) Service has disappeared\n",
    ], bucket="product-defect")
    assert_not_read("replay", "driver-internal-error", [
        "\u2550\u2550\u2561 EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK \u255e\u2550\u2550\u2550\u2550\n"
        "The following TestFailure was thrown running a test:\n"
        "Expected: exactly one matching candidate\n"
        '  Actual: _TextWidgetFinder:<Found 0 widgets with text "Place order": []>\n'
        "   Which: means none were found but one was expected\n\n"
        "When the exception was thrown, this was the stack:\n"
        "#4      main.<anonymous closure> (file:///app/integration_test/checkout_test.dart:41:7)\n"
        "Unhandled exception:\n"
        "DriverError: Failed to fulfill RequestData due to remote error\n"
        "Original error: ext.flutter.driver: (112) Service has disappeared\n",
    ], bucket="stale-script")
    assert_read("replay", "driver-internal-error", [
        "This works like a charm except when it doesn't. We're plagued by Flutter Driver's instability.\n"
        "Unhandled exception:\n"
        "DriverError: Failed to fulfill RequestData due to remote error\n"
        "Original error: ext.flutter.driver: (112) Service has disappeared\n"
        "Original stack trace:\n"
        "#0      new _OutstandingRequest (package:vm_service/src/vm_service.dart:1746:45)\n"
        "#3      VMServiceFlutterDriver.sendCommand (package:flutter_driver/src/driver/vmservice_driver.dart:306:66)\n"
        "#4      FlutterDriver.requestData (package:flutter_driver/src/driver/driver.dart:522:45)\n"
        "#5      integrationDriver (package:integration_test/integration_test_driver.dart:76:42)",
    ], bucket="infra")


# Review of replay's actual-defect-was-ours-after-bisect and test-named-label-the-ui-never-had.

REPLAY_NORA_BISECT_GOLDEN = "Closing — pinning only `@playwright/test` back to 1.59.1 turned the suite green.\nThe actual defect was ours, though — `Field`'s `<label>` wrapped the hint and the control, so the control's accessible name was label + hint rather than just the label."
REPLAY_BMO_ATTACH_FILE_GOLDEN = "# no bug - Fix Selenium tests for #1362\nI thought the tests for #1362 were passing, but the button on the modal bug UI is labelled as **Attach New File**, not Attach File. This should fix the current failures on master."


def test_actual_defect_was_ours_only_as_the_reports_own_statement_about_the_app():
    # actual-defect-was-ours-after-bisect read "the actual bug was in our app" inside a guess the
    # report takes back (the grid, the session or the tunnel failed): product-defect instead of infra.
    assert_not_read("replay", "app-component-defect", [
        "I first assumed the actual bug was in our app, but it reproduces on a blank page too: the chromedriver session crashes as soon as the file chooser opens. Same spec passes locally; only the CI grid fails.",
        "We were sure the real problem was ours, but the same checkout spec fails on an empty HTML page too: Cypress could not connect to the browser after the Chrome 120 update on the runner image.",
        "At first it looked like the real bug was in our app, but it's the grid: the Selenium session timed out while connecting to the node, before a single page of ours was loaded.",
        "Initially we suspected the real culprit was our own frontend, but it turned out to be Sauce Labs: the tunnel failed to connect and every session got a blank page.",
    ], bucket="infra")
    # It also read "our own UI/component tests" (its noun list matched before "tests") and "in our
    # app's new design" that the recorded script lags behind: product-defect instead of stale-script.
    assert_not_read("replay", "app-component-defect", [
        "The real problem is our own UI tests: checkout.cy.ts still clicks `#btn-pay`, which became `#pay-now` in the new layout.\nAssertionError: Timed out retrying after 4000ms: Expected to find element: `#btn-pay`, but never found it.",
        "The underlying problem is our own component tests — they still query the old aria-label \"Close dialog\" that we changed to \"Dismiss\" in the new modal.",
        "The real problem is in our app's new design: the login button moved into the account dropdown, so the recorded script can't find it anymore.\nError: Timed out retrying after 10000ms: Expected to find element: `[data-test=login]`, but never found it.",
    ], bucket="stale-script")
    assert_read("replay", "app-component-defect", [
        REPLAY_NORA_BISECT_GOLDEN,
        "Bisect pointed at the Cypress 13 bump, but it turned out the real bug was in our app: the dialog's focus trap swallowed the first click.",
        "Pinned Playwright back and the suite went green. So the underlying problem is our own markup: the checkbox has no label element at all.",
    ], bucket="product-defect")


def test_label_the_ui_never_had_not_read_for_negated_test_fixes_or_raw_i18n_keys():
    # test-named-label-the-ui-never-had took "fix the tests" inside "don't fix the tests" / "before we
    # fix the tests" / "I thought the tests were wrong, but ... on production": stale-script instead
    # of product-defect (the app shows the wrong label and the tests were right).
    # It also read a raw translation key shown as the label ("labelled as `common.buttons.save`,
    # not Save", a lost translation) as a script naming the wrong label.
    assert_not_read("replay", "label-path-mismatch", [
        "Please don't fix the tests: the button in the checkout dialog is labelled as Cancel, not Confirm, since the DialogFooter refactor swapped the two props. The tests are correct; the app is wrong.",
        "I thought the tests were wrong, but the button on the payment page really is labelled as \"Pay\", not \"Pay now\", on production since yesterday's deploy, and customers are writing in about it.",
        "Before we fix the tests: the delete button is labelled as \"Save\", not \"Delete\" — that is a copy of the wrong string constant in ConfirmModal, users can't tell what it does.",
        "Fix the tests later — first the app: the Save button is labelled as `common.buttons.save`, not Save. The de locale lost its entries in #412.",
        "Fix e2e tests on the German build: the submit button is labelled as `checkout.submit`, not Absenden; the strings were dropped from de.json in the last sync.",
    ], bucket="product-defect")
    assert_read("replay", "label-path-mismatch", [
        REPLAY_BMO_ATTACH_FILE_GOLDEN,
        "Fix the Cypress tests for the settings page: the tab is actually called \"Preferences...\", not \"Settings\".",
    ], bucket="stale-script")


# Review of regen's rules added since eb16446: each test names what the rule misread
# (it must no longer get the signal, and land where it belongs) and the rule's own wording
# from its golden case (it must still be read).


def test_struts_page_in_a_flaky_report_is_a_blip():
    # struts-unhandled-exception-page read a Struts page that the report itself calls flaky /
    # "comes and goes" as the app's server error: the shared passed-on-retry list lacks those words.
    assert_not_read("regen", "server-5xx", [
        "Flaky: sometimes the generated test lands on \"Struts has detected an unhandled exception: "
        "java.lang.NullPointerException at com.acme.web.action.CartAction.execute(CartAction.java:88)\" "
        "after Add to cart; the next run passes with no change, it comes and goes.",
        "The checkout step is flaky in CI: now and then the page is a Struts Problem Report "
        "(java.lang.IllegalStateException: Session already invalidated) instead of the order summary; "
        "the next run passes with no change.",
    ], bucket="transient")
    assert_read("regen", "server-5xx", [
        "3. Got a backtrace instead of the page.\nBeginning of the error :\n"
        "Struts has detected an unhandled exception:\nMessages:\njava.lang.reflect.InvocationTargetException\n"
        "Unable to instantiate Action, org.gbif.ipt.action.AboutAction, defined for 'about'\nin namespace '/'",
    ], bucket="product-uxux")


def test_odoo_server_error_in_a_flaky_report_is_a_blip():
    # odoo-server-error-dialog read an Odoo Server Error dialog in a report that calls the step
    # flaky (sometimes, the next run passes) as the app's server error; its note promised otherwise.
    assert_not_read("regen", "server-5xx", [
        "The confirm step is flaky: sometimes clicking Confirm on the sale order shows the "
        "Odoo Server Error dialog, the next run passes with no change.",
        "Odoo Server Error on Validate comes and goes: it shows up occasionally in CI and a rerun "
        "of the same job passes.",
    ], bucket="transient")
    assert_read("regen", "server-5xx", [
        "Steps to reproduce:\n- add inventory dashboard context to dashboard module\n"
        "- click on '3 To receive' button in middle of kanban\nCurrent behavior:\n"
        "- Odoo Server Error was raised and shows system trying to read a 'board.board' record\n"
        "Expected behavior:\n- go to receive picking list",
    ], bucket="product-uxux")


def test_codeigniter_php_error_in_a_test_file_or_a_flaky_report_is_not_the_product():
    # codeigniter-php-error-block read a notice raised in the generated test file itself, in the
    # forms CodeIgniter 3 really prints (two path parts on a page, the whole path under PHPUnit's
    # CLI), which its `filename: tests/` veto never matched, as the product's ...
    assert_not_read("regen", "product-broken", [
        "1) Main_test::test_following_page\nA PHP Error was encountered\nSeverity: Notice\n"
        "Message: Undefined variable: user_id\nFilename: controllers/Main_test.php\nLine Number: 27\n",
        "1) Welcome_test::test_index\nA PHP Error was encountered\n\nSeverity:    Notice\n"
        "Message:     Undefined variable: expected\n"
        "Filename:    /var/www/html/application/tests/controllers/Welcome_test.php\nLine Number: 31\n",
    ], bucket="agent-course")
    # ... and a block the report says comes and goes as a product defect rather than a blip.
    assert_not_read("regen", "product-broken", [
        "Our generated login test fails randomly on the dashboard step: the page shows\n"
        "A PHP Error was encountered\nSeverity: Warning\n"
        "Message: session_start(): Failed to read session data: user (path: /var/lib/php/sessions)\n"
        "Filename: Session/Session.php\nLine Number: 143\n"
        "It happens maybe one run in ten; the same test passes on rerun without any change.",
        "Flaky: sometimes after login the page shows \"A PHP Error was encountered Severity: Warning "
        "Message: mysqli::real_connect(): (HY000/2002): Connection timed out Filename: "
        "mysqli/mysqli_driver.php Line Number: 203\". Re-running the job clears it.",
    ], bucket="transient")
    assert_read("regen", "product-broken", [
        "Error on following page (in upper right, for authenticated user):\nA PHP Error was encountered\n"
        "Severity: Notice\nMessage: Undefined index: id\nFilename: controllers/main.php\nLine Number: 483",
    ], bucket="product-uxux")


def test_phoenix_no_route_for_a_path_the_tester_made_up_is_its_course():
    # phoenix-no-route-found read a NoRouteError for a path the agent typed itself, or a generated
    # ExUnit test's own get(conn, ...) to a route the app never had, as the app's missing page.
    assert_not_read("regen", "page-not-found", [
        "The agent typed http://localhost:4000/login into the address bar instead of clicking \"Log in\" "
        "and got Phoenix's page: no route found for GET /login (DemoWeb.Router). "
        "The app's login page is at /users/log_in.",
        "  1) test GET /profile shows the profile (DemoWeb.ProfileControllerTest)\n"
        "     test/demo_web/controllers/profile_controller_test.exs:12\n"
        "     ** (Phoenix.Router.NoRouteError) no route found for GET /profile (DemoWeb.Router)\n"
        "     code: conn = get(conn, \"/profile\")\n     stacktrace:\n"
        "       (demo 0.1.0) lib/phoenix/router.ex:487: DemoWeb.Router.call/2\n"
        "       test/demo_web/controllers/profile_controller_test.exs:13: (test)\n",
        "step 4: browser_navigate {\"url\": \"http://localhost:4000/dashboard\"}\n"
        "Page: Phoenix.Router.NoRouteError at GET /dashboard\nno route found for GET /dashboard (ShopWeb.Router)",
    ], bucket="agent-course")
    assert_read("regen", "page-not-found", [
        "When you initially enter invalid user credentials, it redirects you back to /sessions/new. "
        "Immediately after, you enter in valid user credentials, you are then redirected to /sessions "
        "and receive a no route error.\n5. Enter valid credentials\n"
        "6. You are redirected to `/sessions` and receive a `no route found for GET /sessions` error",
    ], bucket="product-uxux")


def test_cypress_whoops_page_quoted_as_gone_does_not_hide_the_next_failure():
    # cypress-runner-no-test-to-run-page read a follow-up that says the Whoops page is gone and the
    # app now answers 500 as the runner's page (infra), before the app's server error could decide.
    assert_not_read("regen", "tool-code-error", [
        "Update: with experimentalModifyObstructiveThirdPartyCode the \"Whoops, there is no test to run\" "
        "page is gone. Now after clicking Login the app itself answers 500 Internal Server Error: "
        "NoMethodError in SessionsController#create undefined method `email' for nil.",
        "Setting chromeWebSecurity: false fixed the Whoops, there is no test to run page; we no longer see it. "
        "Now the Save button returns HTTP 500 Internal Server Error from /api/orders.",
    ], bucket="product-uxux")
    assert_read("regen", "tool-code-error", [
        "Error Whoops, there is no test to run.\nI am getting the error \"Whoops, there is no test to run\n"
        "After clicking on Login  getting the error \"Whoops, there is no test to run",
    ], bucket="infra")


def test_rules_that_stand_down_on_comes_and_goes_read_intermittent_too():
    """The two rules that named only `comes-and-goes` name `passed-on-retry` as well, which
    holds `intermittent`: a tool's spent credits or a control hidden at a width band,
    reported as intermittent, is a blip like the same report saying `sometimes`; said
    plainly, each stays where it was."""
    credits = 'KaneAI run failed: reason: "Credits exhausted: {\\"error\\":\\"insufficient credits\\"}"'
    hidden = 'Button for "Save" in the editor is hidden on screens 1025-1075'
    assert_read("regen", "tool-setup-error", [credits], bucket="infra")
    assert_read("regen", "product-broken", [hidden], bucket="product-uxux")
    for text in (credits, hidden):
        for said in ("this failure is intermittent", "this failure happens sometimes"):
            got = answer("regen", f"{text} - {said}")
            assert got.bucket == "transient", (text, said, got.bucket, got.rule)


def test_the_tool_vetoes_a_named_tool_but_not_the_sites_tooltip_or_toolbar():
    """`tester-or-agent-named` and `test-tool-named` hold `the tool` as a word of its own:
    a report that also quotes the site's tooltip or toolbar stays the site's, and one that
    names the tool still stands down."""
    wizard = "The back button clears all fields in a multi-page wizard."
    saved = "The tax portal's session expired and I should have been redirected, but they weren't; the form shows 401 errors."
    assert_read("regen", "product-broken", [
        wizard + " The tooltip on Back says it keeps your answers.",
        wizard + " The toolbar's Save button is greyed out as well.",
        saved + " The tooltip still says you are signed in.",
    ], bucket="product-uxux")
    assert_not_read("regen", "product-broken", [
        wizard + " It happens when the tool presses Back.",
        wizard + " Reported by the tool.",
    ])
    # a rule that names `test-tool-named` (the booking calendar's) reads the same way
    booked = ("Slot shows as available even if event limit exceeds\nI have limits set for my specific event. "
              "One of my mentees tried to book a session. From the message, it seems the limit exceeded.\n"
              "* Date is shown as available, but when customer tries to book, error is thrown")
    assert_read("regen", "product-broken", [booked + " The tooltip says the slot is free."], bucket="product-uxux")
    assert_not_read("regen", "product-broken", [booked + " It happens when the tool books."])


def test_a_person_with_devtools_open_is_no_tool_named_but_a_named_tool_is():
    """`tester-or-agent-named` reads `tool` and `tools` as words of their own: "devtools"
    (a person's browser DevTools, open beside the site's own failing copy button) ends
    in "tools " and once made every product rule that names the set stand down."""
    copy = ("Copy link button: copying to the clipboard fails{}: "
            "NotAllowedError: Failed to execute 'writeText' on 'Clipboard': Document is not focused.")
    assert_read("regen", "product-broken", [copy.format(" when browser devtools is open"),
                                            copy.format(" while react devtools is installed")], bucket="product-uxux")
    assert_not_read("regen", "product-broken", [copy.format(" when the tool clicks it"),
                                                copy.format(" in xdotool runs"),
                                                copy.format(". Seen by our tools (the checker)")])


def test_the_scripts_clock_rules_name_the_app_at_fault_set_and_read_through_an_exception():
    """replay's clock and date rules name `app-at-fault-words` instead of typing five of its
    words: a word added to the set reaches them. `exception` is a set of its own
    (`app-exception-word`), named beside it by the rules that stood down on it before, while a
    script's faked clock still reads with an exception in the text, and a rule that stood
    down on one still does."""
    clock = "If I use cy.clock() stub the clock, setTimeout(() => done(), 0) doesn't running at all."
    assert_read("replay", "label-path-mismatch", [clock, clock + " Uncaught exception in the spec."],
                bucket="stale-script")
    assert_not_read("replay", "label-path-mismatch", [clock + " Our customers see the same."])
    table, vetoes = shipped_table_with_veto_word("replay", "app-at-fault-words", "quuxbug")
    got = failtax.classify({"text": clock + " A quuxbug."}, taxonomy="replay", table=table)
    assert "label-path-mismatch" not in got.signals, (got.bucket, got.rule, got.signals)
    assert vetoes["app-exception-word"] == ["exception"]
    reworded = ('# Update link selector to match new wording\n@steventux This is the fix for the test broken '
                'by the incoming component update in government-frontend.\n     click_link("View on website")\n'
                '     expect_url_matches_live_gov_uk\n-    click_link("+ full page history")\n'
                '+    click_link("+ show all updates")')
    assert_read("replay", "label-path-mismatch", [reworded], bucket="stale-script")
    assert_not_read("replay", "label-path-mismatch", [reworded + "\nAn exception is raised in the app."])
