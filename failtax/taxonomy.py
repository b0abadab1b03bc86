"""Taxonomies: the fixed bucket lists, each bucket with what its seed says about it.

A taxonomy is data (``failtax/data/taxonomies/<name>.toml``): buckets with their meaning,
suggestion and other options, retryable / severity / auto-recoverable, title and detail
text, plus the map from a person's action to the bucket it implies and from a
suggestion to the actions that carry it out. Rule tables route evidence to these buckets.

>>> tax = load_taxonomy("replay")
>>> tax.implied_bucket("regenerate")
'stale-script'
>>> tax.carries_out("share-defect", "share-email")
True
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from failtax.errors import TaxonomyError

__all__ = ["Bucket", "Taxonomy", "list_taxonomies", "load_taxonomy"]

_BUCKET_KEYS = {
    "name", "meaning", "title", "detail", "suggestion", "suggestion_text", "options",
    "retryable", "severity", "auto_recoverable", "recipe", "verdict", "handling",
    "retry_limit",
}


@dataclass(frozen=True, slots=True)
class Bucket:
    """One bucket of a taxonomy and the attributes its seed gives it."""

    name: str
    meaning: str = ""
    title: str = ""
    detail: str = ""
    suggestion: str | None = None
    suggestion_text: str | None = None
    options: tuple[str, ...] = ()
    retryable: bool | None = None
    severity: str | None = None
    auto_recoverable: bool | str | None = None
    recipe: str | None = None
    verdict: str | None = None
    handling: str | None = None
    retry_limit: int | None = None

    @classmethod
    def from_mapping(cls, d: Mapping[str, Any], *, where: str) -> Bucket:
        unknown = set(d) - _BUCKET_KEYS
        if unknown:
            raise TaxonomyError(f"{where}: unknown bucket keys {sorted(unknown)}")
        if not isinstance(d.get("name"), str) or not d["name"]:
            raise TaxonomyError(f"{where}: every bucket needs a name")
        kw = dict(d)
        kw["options"] = tuple(kw.get("options", ()))
        return cls(**kw)


@dataclass(frozen=True, slots=True)
class Taxonomy:
    """A named, ordered list of buckets with the action and suggestion maps."""

    name: str
    title: str
    source: str
    description: str
    buckets: tuple[Bucket, ...]
    actions: Mapping[str, str] = field(default_factory=dict)
    suggestion_actions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    opt_out: tuple[str, ...] = ()
    event_family: str | None = None

    @property
    def bucket_names(self) -> tuple[str, ...]:
        """Bucket names in the taxonomy's order (the label order of every metric)."""
        return tuple(b.name for b in self.buckets)

    def bucket(self, name: str) -> Bucket:
        """The bucket called ``name``; :class:`TaxonomyError` when there is none."""
        for b in self.buckets:
            if b.name == name:
                return b
        raise TaxonomyError(f"taxonomy {self.name!r} has no bucket {name!r}")

    def has_bucket(self, name: str) -> bool:
        return any(b.name == name for b in self.buckets)

    def implied_bucket(self, action: str | None) -> str | None:
        """The bucket a person's action implies, or ``None`` when it implies nothing."""
        if action is None:
            return None
        return self.actions.get(action)

    def is_opt_out(self, action: str | None) -> bool:
        """True for an action that opts out (``skip``): neither agreement nor override."""
        return action is not None and action in self.opt_out

    def carries_out(self, suggestion: str | None, action: str | None) -> bool:
        """True when ``action`` is one of the actions that carry out ``suggestion``."""
        if suggestion is None or action is None:
            return False
        if action == suggestion:
            return True
        return action in self.suggestion_actions.get(suggestion, ())

    def suggestion_for(self, bucket: str) -> str | None:
        return self.bucket(bucket).suggestion


def list_taxonomies() -> list[str]:
    """Names of the taxonomies shipped with failtax, sorted.

    >>> "agent-run" in list_taxonomies()
    True
    """
    root = resources.files("failtax") / "data" / "taxonomies"
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".toml"))


@functools.lru_cache(maxsize=None)
def load_taxonomy(name: str) -> Taxonomy:
    """Load a shipped taxonomy by name (``agent-run``, ``devflow``, ``replay`` …)."""
    if isinstance(name, Taxonomy):
        return name
    names = list_taxonomies()
    if name not in names:
        raise TaxonomyError(f"unknown taxonomy {name!r}; known: {', '.join(names)}")
    res = resources.files("failtax") / "data" / "taxonomies" / f"{name}.toml"
    where = f"taxonomy {name}"
    try:
        doc = tomllib.loads(res.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TaxonomyError(f"{where}: {exc}") from exc
    buckets = tuple(
        Bucket.from_mapping(b, where=f"{where}, bucket #{i + 1}")
        for i, b in enumerate(doc.get("buckets", []))
    )
    seen: set[str] = set()
    for b in buckets:
        if b.name in seen:
            raise TaxonomyError(f"{where}: bucket {b.name!r} is listed twice")
        seen.add(b.name)
    actions = dict(doc.get("actions", {}))
    for action, bucket in actions.items():
        if bucket not in seen:
            raise TaxonomyError(f"{where}: action {action!r} implies unknown bucket {bucket!r}")
    suggestion_actions = {k: tuple(v) for k, v in doc.get("suggestion_actions", {}).items()}
    return Taxonomy(
        name=doc.get("name", name),
        title=doc.get("title", name),
        source=doc.get("source", ""),
        description=doc.get("description", ""),
        buckets=buckets,
        actions=actions,
        suggestion_actions=suggestion_actions,
        opt_out=tuple(doc.get("opt_out", ())),
        event_family=doc.get("event_family"),
    )
