"""Rules one shipped table copied from another: what the source reads, the copy never leaves unknown.

Tables that watch the same tools share what their real messages taught them: replay and regen
the browsers, drivers and runners; agent-run, devflow and orchestration the model providers'
usage limits, overloads and context overflows. A table that copies another's extract rules
names their ids ``<source>-…`` and routes them last, in routes also named ``<source>-…`` (a
copied signal whose name the table already used is renamed ``<source>-<signal>``). Whenever the
source table decides one of its golden cases by a route holding a copied signal, the copying
table must not leave that case to its fallback: a rule added to one table that the other copied
from must be copied too.
"""

from __future__ import annotations

import functools

import pytest

import failtax
from failtax.table import load_table
from real_messages import evidence, real_messages  # tests/real_messages.py: the fixtures, parsed once

TABLES = ("agent-run", "devflow", "orchestration", "regen", "replay")


def _copied(dst: str, src: str) -> set[str]:
    """The source's names of the signals ``dst`` routes by the routes it took from ``src``."""
    table = load_table(dst)
    src_signals = set(load_table(src).signals)
    names = {s for r in table.route if r.id.startswith(f"{src}-") for s in (*r.any, *r.all)}
    bare = {n.removeprefix(f"{src}-") if n.startswith(f"{src}-") and n not in src_signals else n for n in names}
    return bare & src_signals


@functools.cache
def _answers(taxonomy: str) -> list[tuple[str, dict, failtax.Classification]]:
    """Each golden case of ``taxonomy`` with its evidence and its own table's answer (agent-run's
    cases are the source of two pairs: classified once)."""
    return [(e["id"], ev, failtax.classify(ev, taxonomy=taxonomy))
            for e in real_messages(taxonomy) for ev in (evidence(e),)]


PAIRS = [(src, dst) for dst in TABLES for src in TABLES if src != dst and _copied(dst, src)]


def test_the_tables_that_share_rules_are_the_ones_meant_to():
    assert sorted(PAIRS) == [("agent-run", "devflow"), ("agent-run", "orchestration"), ("devflow", "agent-run"),
                             ("orchestration", "agent-run"), ("regen", "replay"), ("replay", "regen")]


def test_copied_rules_and_routes_are_named_after_their_source_and_come_last():
    for src, dst in PAIRS:
        table = load_table(dst)
        routes = [r.id for r in table.route]
        copied = [i for i, rid in enumerate(routes) if any(rid.startswith(f"{t}-") for t in TABLES)]
        assert copied == list(range(len(routes) - len(copied), len(routes))), f"{dst}: copied routes not last"
        taken = {r.id for r in table.extract if r.id.startswith(f"{src}-")}
        assert taken, f"{dst} routes {src}'s signals but copied none of its rules"
        # every copied rule is one of the source's, whose id it carries
        source_ids = {r.id for r in load_table(src).extract}
        assert {t.removeprefix(f"{src}-") for t in taken} <= source_ids, f"{dst}: a {src}- rule {src} does not have"


@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{s}->{d}" for s, d in PAIRS])
def test_what_the_source_decides_by_a_copied_signal_the_copy_never_leaves_unknown(src, dst):
    copied = _copied(dst, src)
    routes = {r.id: r for r in load_table(src).route}
    unknown = []
    for case_id, ev, got in _answers(src):
        route = routes.get(got.rule)
        if route is None or not set(route.positive_signals) & set(got.signals) & copied:
            continue
        if failtax.classify(ev, taxonomy=dst).rule == "fallback":
            unknown.append(case_id)
    assert not unknown, f"{src} cases {dst} leaves to its fallback: {unknown[:10]} ({len(unknown)} in all)"


READ_ACROSS = [
    # OpenRouter's key limit and a model at capacity, from agent-run's golden cases, were unknown to orchestration.
    ("403 Key limit exceeded. Manage it using https://openrouter.ai/keys",
     "agent-run", "usage_limit", "orchestration", ("usage_limit_mid_task", "agent-run-usage-cap")),
    ("Selected model is at capacity. Please try a different model.",
     "agent-run", "overloaded", "orchestration", ("subagent_overloaded", "agent-run-overloaded")),
    # devflow counts an output cap as a prompt-delivery failure; agent-run keeps it apart from context overflows.
    ("API Error: Claude's response exceeded the 32000 output token maximum.",
     "devflow", "prompt_delivery", "agent-run", ("unknown_non_zero", "output-token-cap")),
    # Claude Code's context limit, from devflow's golden cases, was unknown to agent-run.
    ("Context limit reached · /compact or /clear to continue",
     "devflow", "prompt_delivery", "agent-run", ("context_exceeded", "devflow-context-too-long")),
]


@pytest.mark.parametrize(("text", "src", "src_bucket", "dst", "want"), READ_ACROSS, ids=[r[0][:30] for r in READ_ACROSS])
def test_a_message_one_table_knew_reaches_the_other_in_its_own_bucket(text, src, src_bucket, dst, want):
    assert failtax.classify({"text": text}, taxonomy=src).bucket == src_bucket
    got = failtax.classify({"text": text}, taxonomy=dst)
    assert (got.bucket, got.rule) == want


def test_copied_loose_words_stand_down_where_their_source_does():
    # inside a test runner's report agent-run's loose overload words say nothing, in orchestration too
    report = "FAIL src/api.test.ts\n  ● retries\n    Error: The model is overloaded. Please try again later."
    assert failtax.classify({"text": report}, taxonomy="orchestration").rule != "agent-run-overloaded"
    # (that report goes to verification_red first; in a mocha stack nothing else decides, so only
    # the copied guard can keep the copied overload words from deciding)
    stack = "    at Context.<anonymous> (test/api.js:10:5)\nError: The model is overloaded. Please try again later."
    for taxonomy, signal in (("agent-run", "overloaded"), ("orchestration", "agent-run-overloaded")):
        got = failtax.classify({"text": stack}, taxonomy=taxonomy)
        assert {signal, "foreign-report"} <= set(got.signals) and got.rule == "fallback", (taxonomy, got.rule)


def test_the_output_cap_rule_leaves_context_overflows_to_agent_run_context_exceeded():
    overflow = "Error: input length and `max_tokens` exceed context limit: 180000 + 32000 > 200000"
    assert failtax.classify({"text": overflow}, taxonomy="agent-run").bucket == "context_exceeded"
