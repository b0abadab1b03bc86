"""Golden cases: real messages with their source, expected bucket and deciding rule.

Every ``tests/fixtures/real_messages/<taxonomy>.yaml`` is a list of entries
``{id, source, text, exit_code?, signal?, result_frame?, fields?, signals?, bucket,
rule?, note?}``; the file name is the taxonomy. Each entry is classified with the
shipped table and must land in its bucket (and on its rule, when one is given).
Every table change adds cases here, as ua-parser's ``tests/test_ua.yaml`` does.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

import failtax
from failtax.classify import extract_signals
from real_messages import EVIDENCE_KEYS, REAL, evidence, read_yaml  # tests/real_messages.py: the fixtures, parsed once

ENTRY_KEYS = {"id", "source", "bucket", "rule", "note", *EVIDENCE_KEYS}
#: Taxonomies whose every bucket must have at least one real message, once their file exists.
COVERED = ("agent-run", "devflow", "replay", "regen")


def _load(path: Path) -> list[dict[str, Any]]:
    entries = read_yaml(path)
    assert isinstance(entries, list), f"{path.name}: expected a list of entries"
    return entries


def _groups() -> list[Any]:
    """One case per taxonomy and expected bucket, holding every entry that expects it
    (one test per entry spent more time in the test runner than in classifying)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for path in sorted(REAL.glob("*.yaml")):
        for entry in _load(path):
            groups.setdefault((path.stem, str(entry.get("bucket"))), []).append(entry)
    return [pytest.param(tax, entries, id=f"{tax}:{bucket}") for (tax, bucket), entries in groups.items()]


def _check(taxonomy: str, entry: dict[str, Any]) -> str | None:
    """What is wrong with one golden entry, or None."""
    unknown = set(entry) - ENTRY_KEYS
    if unknown:
        return f"unknown keys {sorted(unknown)}"
    if not entry.get("source"):
        return "every golden case names its source"
    got = failtax.classify(evidence(entry), taxonomy=taxonomy)
    if got.bucket != entry["bucket"]:
        return (f"expected {entry['bucket']}, got {got.bucket} by rule {got.rule!r} "
                f"with signals {list(got.signals)}")
    if "rule" in entry and got.rule != entry["rule"]:
        return f"decided by {got.rule!r}, expected {entry['rule']!r}"
    return None


@pytest.mark.parametrize(("taxonomy", "entries"), _groups())
def test_golden(taxonomy: str, entries: list[dict[str, Any]]) -> None:
    """Every entry of the group lands in its bucket, on its rule when one is given; a
    failure names each entry that does not (``-k 'agent-run:rate_limited'`` runs one group)."""
    wrong = [f"{e.get('id')}: {why}" for e in entries if (why := _check(taxonomy, e)) is not None]
    assert not wrong, f"{len(wrong)} of {len(entries)} golden cases fail:\n" + "\n".join(wrong)


def test_a_wrong_golden_case_is_named_with_its_reason() -> None:
    """The grouped check names an entry that lands elsewhere, and one without a source."""
    entry = {"id": "x", "source": "s", "text": "HTTP 429 Too Many Requests: rate limit exceeded", "bucket": "auth"}
    assert _check("agent-run", entry) is not None and "expected auth, got rate_limited" in _check("agent-run", entry)
    assert _check("agent-run", {**entry, "bucket": "rate_limited"}) is None
    assert _check("agent-run", {**entry, "bucket": "rate_limited", "rule": "nope"}).startswith("decided by")
    assert _check("agent-run", {**entry, "source": ""}) == "every golden case names its source"
    assert _check("agent-run", {**entry, "colour": "red"}) == "unknown keys ['colour']"
    with pytest.raises(AssertionError, match=r"1 of 2 golden cases fail:\n\s*x: expected auth"):
        test_golden("agent-run", [entry, {**entry, "id": "y", "bucket": "rate_limited"}])


def test_golden_files_are_well_formed() -> None:
    files = sorted(REAL.glob("*.yaml"))
    assert files, "no golden files found"
    known = set(failtax.list_taxonomies())
    for path in files:
        assert path.stem in known, f"{path.name}: no taxonomy called {path.stem!r}"
        tax = failtax.load_taxonomy(path.stem)
        ids = [e.get("id") for e in _load(path)]
        assert all(ids), f"{path.name}: an entry has no id"
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        assert not dupes, f"{path.name}: duplicate ids {dupes}"
        for e in _load(path):
            assert tax.has_bucket(e.get("bucket", "")), f"{path.name}:{e['id']}: unknown bucket {e.get('bucket')!r}"


def test_every_bucket_has_a_real_message() -> None:
    missing = {}
    for name in COVERED:
        path = REAL / f"{name}.yaml"
        if not path.exists():
            continue
        seen = {e["bucket"] for e in _load(path)}
        absent = [b for b in failtax.load_taxonomy(name).bucket_names if b not in seen]
        if absent:
            missing[name] = absent
    assert (REAL / "agent-run.yaml").exists()
    assert not missing, f"buckets without a golden case: {missing}"


#: Own extract rules no real message reads yet: the seed's field, exit-code and dispatch
#: rules (their evidence is telemetry, not text), a few veto or fallback readings, and two
#: gateways' documented caps no public thread quotes yet (pinned in test_agent_run_real.py).
NOT_YET_READ = {
    "agent-run": {"http-529-json", "http-529-sdk-status", "quota-per-day-github-models", "usage-cap-calls-per-month"},
    "devflow": {"api-key-found", "approval-gate-requires", "ci-status-field", "compiler-exit-tool",
                "dispatch-phase-timeout", "dispatch-timeout", "eglot-log", "no-tests-expected",
                "test-runner-exit-tool"},
    "replay": {"firefox-error-page-network", "lighthouse-trace-or-screenshot-error-code"},
    "regen": set(),
    "orchestration": {"notification-failed-field"},
}


@pytest.mark.parametrize("taxonomy", sorted(NOT_YET_READ))
def test_every_own_extract_rule_reads_a_real_message(taxonomy: str) -> None:
    """Each extract rule a table writes itself fires on at least one of its golden cases.

    The narrowed-rule tests check a rule's own wording by its signal, which other rules
    may give too; this names the rule, so a rule narrowed (or broken) until it reads
    nothing fails here. A rule that starts reading a real message leaves NOT_YET_READ.
    """
    tables = Path(failtax.__file__).parent / "data" / "tables"
    own = {r["id"] for r in tomllib.loads((tables / f"{taxonomy}.toml").read_text(encoding="utf-8"))["extract"]}
    table = failtax.load_table(taxonomy)
    fired: set[str] = set()
    for entry in _load(REAL / f"{taxonomy}.yaml"):
        fired.update(extract_signals(evidence(entry), table)[1])
    assert not own - fired - NOT_YET_READ[taxonomy], f"rules no golden case fires: {sorted(own - fired - NOT_YET_READ[taxonomy])}"
    assert not NOT_YET_READ[taxonomy] & fired, f"now read, drop from NOT_YET_READ: {sorted(NOT_YET_READ[taxonomy] & fired)}"


def test_the_readme_and_the_history_count_the_golden_cases_the_files_hold() -> None:
    """The counts the README and HISTORY.md print are derived from the fixture files and
    written by hand with each batch: a batch that forgets them fails here."""
    counts = {path.stem: len(_load(path)) for path in sorted(REAL.glob("*.yaml"))}
    total = f"{sum(counts.values()):,}"
    readme = " ".join((REAL.parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert f"checked against {total} real messages" in readme
    assert f"the {total} golden cases checked" in readme
    history = (REAL / "HISTORY.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([a-z-]+)` \| ([\d,]+) \| (.*)$", history, re.M)}
    assert rows == {tax: f"{n:,}" for tax, n in counts.items()}
    # the share over the per-taxonomy batches, from the table's own cells
    cells = [(int(n), int(p)) for line in re.findall(r"^\| `[a-z-]+` \| [\d,]+ \| (.*)$", history, re.M)
             for n, p in re.findall(r"(\d+) \((\d+)%\)", line)]
    messages, right = sum(n for n, _ in cells), sum(round(n * p / 100) for n, p in cells)
    share = f"{messages:,} messages were classified before their rules, and the table of the day got {round(100 * right / messages)}% of"
    assert share in readme
    assert f"{messages:,} messages, {round(100 * right / messages)}% right)" in " ".join(history.split())
