"""Golden cases: real messages with their source, expected bucket and deciding rule.

Every ``tests/fixtures/real_messages/<taxonomy>.yaml`` is a list of entries
``{id, source, text, exit_code?, signal?, result_frame?, fields?, signals?, bucket,
rule?, note?}``; the file name is the taxonomy. Each entry is classified with the
shipped table and must land in its bucket (and on its rule, when one is given).
Every table change adds cases here, as ua-parser's ``tests/test_ua.yaml`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import failtax
from real_messages import EVIDENCE_KEYS, REAL, evidence, read_yaml  # tests/real_messages.py: the fixtures, parsed once

ENTRY_KEYS = {"id", "source", "bucket", "rule", "note", *EVIDENCE_KEYS}
#: Taxonomies whose every bucket must have at least one real message, once their file exists.
COVERED = ("agent-run", "devflow", "replay", "regen")


def _load(path: Path) -> list[dict[str, Any]]:
    entries = read_yaml(path)
    assert isinstance(entries, list), f"{path.name}: expected a list of entries"
    return entries


def _cases() -> list[Any]:
    cases = []
    for path in sorted(REAL.glob("*.yaml")):
        for entry in _load(path):
            cases.append(pytest.param(path.stem, entry, id=f"{path.stem}:{entry.get('id')}"))
    return cases


@pytest.mark.parametrize(("taxonomy", "entry"), _cases())
def test_golden(taxonomy: str, entry: dict[str, Any]) -> None:
    unknown = set(entry) - ENTRY_KEYS
    assert not unknown, f"unknown keys {sorted(unknown)}"
    assert entry.get("source"), "every golden case names its source"
    got = failtax.classify(evidence(entry), taxonomy=taxonomy)
    assert got.bucket == entry["bucket"], (
        f"expected {entry['bucket']}, got {got.bucket} by rule {got.rule!r} "
        f"with signals {list(got.signals)}"
    )
    if "rule" in entry:
        assert got.rule == entry["rule"], f"decided by {got.rule!r}, expected {entry['rule']!r}"


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
