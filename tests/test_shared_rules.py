"""Rules one shipped table borrows from another: what the source reads, the borrower never leaves unknown.

Tables that watch the same tools share what their real messages taught them: replay and regen
the browsers, drivers and runners; agent-run, devflow and orchestration the model providers'
usage limits, overloads and context overflows. A table borrows another's extract rules for those
signals with a ``[[borrow]]`` row (see failtax/table.py): they come after its own rules with ids
``<source>-…``, and its routes for them, also named ``<source>-…``, come last (a borrowed signal
whose name the table already used is renamed ``<source>-<signal>``). Whenever the source table
decides one of its golden cases by a route holding a borrowed signal, the borrowing table must not
leave that case to its fallback.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources

import pytest

import failtax
from failtax.table import load_table
from real_messages import evidence, real_messages  # tests/real_messages.py: the fixtures, parsed once

TABLES = ("agent-run", "devflow", "orchestration", "regen", "replay")


def _borrowed_signals(dst: str, src: str) -> set[str]:
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


PAIRS = [(src, dst) for dst in TABLES for src in TABLES if src != dst and _borrowed_signals(dst, src)]


def test_the_tables_that_share_rules_are_the_ones_meant_to():
    assert sorted(PAIRS) == [("agent-run", "devflow"), ("agent-run", "orchestration"), ("devflow", "agent-run"),
                             ("orchestration", "agent-run"), ("regen", "replay"), ("replay", "regen")]


def test_borrowed_rules_and_routes_are_named_after_their_source_and_come_last():
    for src, dst in PAIRS:
        table = load_table(dst)
        routes = [r.id for r in table.route]
        shared = [i for i, rid in enumerate(routes) if any(rid.startswith(f"{t}-") for t in TABLES)]
        assert shared == list(range(len(routes) - len(shared), len(routes))), f"{dst}: borrowed routes not last"
        taken = {r.id for r in table.extract if r.id.startswith(f"{src}-")}
        assert taken, f"{dst} routes {src}'s signals but borrowed none of its rules"
        # every borrowed rule is one of the source's, whose id it carries
        source_ids = {r.id for r in load_table(src).extract}
        assert {t.removeprefix(f"{src}-") for t in taken} <= source_ids, f"{dst}: a {src}- rule {src} does not have"


@pytest.mark.parametrize("name", TABLES)
def test_a_shipped_table_holds_no_copy_of_another_tables_rules(name):
    """What a table shares comes by [[borrow]] alone, so a source's new rule reaches the borrower."""
    doc = tomllib.loads((resources.files("failtax") / "data" / "tables" / f"{name}.toml").read_text("utf-8"))
    written = [row["id"] for row in doc.get("extract", []) if any(row["id"].startswith(f"{t}-") for t in TABLES)]
    assert not written
    borrowed = [r for r in load_table(name).extract if any(r.id.startswith(f"{t}-") for t in TABLES)]
    assert len(borrowed) == len(load_table(name).extract) - len(doc["extract"])
    for row in doc.get("borrow", []):
        src = load_table(row["from"])
        want = [r.id for r in src.extract if r.signal in row["signals"] and not r.id.startswith(tuple(f"{t}-" for t in TABLES))]
        assert [r.id for r in borrowed if r.id.startswith(f"{row['from']}-")] == [f"{row['from']}-{i}" for i in want]


@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{s}->{d}" for s, d in PAIRS])
def test_what_the_source_decides_by_a_borrowed_signal_the_borrower_never_leaves_unknown(src, dst):
    borrowed = _borrowed_signals(dst, src)
    routes = {r.id: r for r in load_table(src).route}
    unknown = []
    for case_id, ev, got in _answers(src):
        route = routes.get(got.rule)
        if route is None or not set(route.positive_signals) & set(got.signals) & borrowed:
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


def test_borrowed_loose_words_stand_down_where_their_source_does():
    # inside a test runner's report agent-run's loose overload words say nothing, in orchestration too
    report = "FAIL src/api.test.ts\n  ● retries\n    Error: The model is overloaded. Please try again later."
    assert failtax.classify({"text": report}, taxonomy="orchestration").rule != "agent-run-overloaded"
    # (that report goes to verification_red first; in a mocha stack nothing else decides, so only
    # the borrowed guard can keep the borrowed overload words from deciding)
    stack = "    at Context.<anonymous> (test/api.js:10:5)\nError: The model is overloaded. Please try again later."
    for taxonomy, signal in (("agent-run", "overloaded"), ("orchestration", "agent-run-overloaded")):
        got = failtax.classify({"text": stack}, taxonomy=taxonomy)
        assert {signal, "foreign-report"} <= set(got.signals) and got.rule == "fallback", (taxonomy, got.rule)


def test_the_output_cap_rule_leaves_context_overflows_to_agent_run_context_exceeded():
    overflow = "Error: input length and `max_tokens` exceed context limit: 180000 + 32000 > 200000"
    assert failtax.classify({"text": overflow}, taxonomy="agent-run").bucket == "context_exceeded"
