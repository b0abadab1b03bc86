"""The public surface: one sorted __all__, every name resolvable, the core import light."""

from __future__ import annotations

import subprocess
import sys

import failtax


def test_all_is_sorted_and_unique():
    assert failtax.__all__ == sorted(failtax.__all__)
    assert len(set(failtax.__all__)) == len(failtax.__all__)


def test_every_exported_name_resolves():
    for name in failtax.__all__:
        assert getattr(failtax, name) is not None, name


def test_unknown_attribute_is_an_attribute_error():
    try:
        failtax.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_core_import_pulls_no_heavy_dependency():
    # Dependencies point one way: the core never imports duckdb, matplotlib, the CLI
    # library or the notebook tooling.
    code = (
        "import sys, failtax\n"
        "failtax.classify({'text': 'HTTP 429'}, taxonomy='agent-run')\n"
        "heavy = [m for m in ('duckdb', 'matplotlib', 'click', 'papermill', 'jupytext', 'sklearn', 'polars')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
