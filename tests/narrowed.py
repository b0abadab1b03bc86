"""Checks for a rule that was narrowed after it misread messages of another bucket.

Each such test names the messages the rule used to misread (they must no longer get its
signal, and land where they belong) and the rule's own wording (it must still be read):
a test that only asserted the first half would pass on a rule narrowed to nothing.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import failtax
from failtax.table import table_from_mapping


def answer(taxonomy: str, text: str) -> Any:
    """The shipped table's answer for a message of ``text`` alone."""
    return failtax.classify({"text": text}, taxonomy=taxonomy)


def _lands(got: Any, text: str, bucket: str | None, not_bucket: str | None) -> None:
    assert bucket is None or got.bucket == bucket, (text, got.bucket, got.rule)
    assert not_bucket is None or got.bucket != not_bucket, (text, got.bucket, got.rule)


def assert_lands(taxonomy: str, texts: Iterable[str], *,
                 bucket: str | None = None, not_bucket: str | None = None) -> None:
    """Each of ``texts`` lands in ``bucket`` and not in ``not_bucket``, whatever signals it gets
    (for a narrowed route, whose signal still fires)."""
    assert bucket is not None or not_bucket is not None, "name the bucket to land in or to avoid"
    for text in texts:
        _lands(answer(taxonomy, text), text, bucket, not_bucket)


def assert_not_read(taxonomy: str, signal: str, texts: Iterable[str], *,
                    bucket: str | None = None, not_bucket: str | None = None) -> None:
    """None of ``texts`` gets ``signal``; each lands in ``bucket`` and not in ``not_bucket``, when given."""
    for text in texts:
        got = answer(taxonomy, text)
        assert signal not in got.signals, (text, got.signals)
        _lands(got, text, bucket, not_bucket)


def assert_read(taxonomy: str, signal: str, texts: Iterable[str], *, bucket: str | None = None) -> None:
    """Each of ``texts`` gets ``signal`` and lands in ``bucket``, when given."""
    for text in texts:
        got = answer(taxonomy, text)
        assert signal in got.signals, (text, got.signals)
        _lands(got, text, bucket, None)


def shipped_table_with_veto_word(taxonomy: str, set_name: str, word: str) -> tuple[Any, dict[str, list[str]]]:
    """The shipped table of ``taxonomy`` built with ``word`` added to its ``[vetoes]`` set
    ``set_name``, and the shipped table's own vetoes. A rule that names the set stands down
    on ``word``; one that types a copy of the set's words does not."""
    path = Path(failtax.__file__).parent / "data" / "tables" / f"{taxonomy}.toml"
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    shipped = {name: list(words) for name, words in doc["vetoes"].items()}
    doc["vetoes"][set_name] = [word, *shipped[set_name]]
    return table_from_mapping(doc, path=str(path)), shipped
