"""The real-message fixtures (``tests/fixtures/real_messages/*.yaml``), parsed once per process.

Several test modules read the same files, some at collection in every test worker and
some once per test: parsing them with PyYAML's pure-Python loader took 1.6 s each time.
Here they are parsed with libyaml when PyYAML has it (the same values, ~7× faster), once,
and each caller gets its own copy to change as it likes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from failtax._cache import kept_json

REAL = Path(__file__).resolve().parent / "fixtures" / "real_messages"
#: The keys of a golden entry that are evidence for ``failtax.classify``.
EVIDENCE_KEYS = ("text", "exit_code", "signal", "result_frame", "fields", "signals")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=None)
def _parsed(path: str) -> Any:
    """The file's values; kept as JSON (named by the file's bytes) in the temporary folder
    the way failtax keeps its own derived answers, so the test workers and later runs read
    ~3 MB of JSON instead of parsing the YAML again (about a second a process). Values
    JSON would change are never kept."""
    data = Path(path).read_bytes()
    kept = Path(tempfile.gettempdir()) / "failtax-test-fixtures" / "parsed" / f"{hashlib.sha256(data).hexdigest()}.json"

    def exact_json(value: Any) -> Any:
        if json.loads(json.dumps(value)) != value:
            raise ValueError("not kept: JSON would change these values")
        return value

    return kept_json(kept, lambda: yaml.load(data.decode("utf-8"), Loader=_LOADER),  # noqa: S506 (a safe loader)
                     lambda got: got, exact_json)


def read_yaml(path: Path | str) -> Any:
    """The parsed YAML file at ``path`` (a fresh copy)."""
    return copy.deepcopy(_parsed(str(Path(path).resolve())))


def real_messages(taxonomy: str) -> list[dict[str, Any]]:
    """The real messages of ``taxonomy`` (empty when it has no file)."""
    path = REAL / f"{taxonomy}.yaml"
    return (read_yaml(path) or []) if path.exists() else []


def evidence(entry: dict[str, Any]) -> dict[str, Any]:
    """What a golden entry hands ``failtax.classify``: its evidence keys only."""
    return {k: entry[k] for k in EVIDENCE_KEYS if k in entry}


def spread(entries: list[Any], n: int) -> list[Any]:
    """At most ``n`` of ``entries``, evenly spaced from the first, in their order.

    For the tests whose work follows the number of messages they read and that need a
    fair share of them rather than every one (tests/test_golden.py and the batch
    differential test read every message): the share stays the same size as the
    fixtures grow, and spans the whole file, old cases and new."""
    if len(entries) <= n:
        return list(entries)
    return [entries[i * len(entries) // n] for i in range(n)]
