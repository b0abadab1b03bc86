"""Candidate signals from text: phrases that separate buckets where the table is blind.

The table's extract rules name signals from evidence text; where no rule recognised an
event (it fell to the fallback) or the person overrode the table's bucket, the text may
hold a recurring phrase the table does not know. :func:`mine_candidate_signals`

1. takes the labelled events with text; the *candidates* are those the table routes to
   its fallback or whose implied bucket differs from the table's bucket;
2. masks what varies between occurrences of one message (secrets first, through
   :func:`failtax.redact.redact`; then URLs, emails, UUIDs, timestamps, paths, quoted
   strings, hex ids and numbers become ``<url>``, ``<uuid>``, ``<ts>``, ``<path>``,
   ``<str>``, ``<hex>``, ``<num>``), so one message template counts once per event;
3. counts word n-grams of the masked text with scikit-learn's ``CountVectorizer``
   (binary, one document per event) over the candidates, then measures each frequent
   n-gram over *all* labelled events, because an extract rule fires wherever its phrase
   appears: support, the bucket most of them imply, precision with a Wilson interval,
   and how many decisions routing the phrase to that bucket would win or lose;
4. keeps the significant ones (one-sided sign test, Bonferroni over the n-grams tried),
   drops near-duplicates (overlapping n-grams of one message), and turns each into an
   extract rule — a literal ``contains`` when the phrase appears verbatim, otherwise a
   linear-time RE2 regex — whose support and precision are measured again by running
   the rule itself.

The result is a list of :class:`SignalProposal` records for a person to accept:
nothing is applied unless :func:`apply_signal_proposals` is called.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from failtax.analysis.stats import rate
from failtax.errors import InputError
from failtax.evidence import ascii_lower
from failtax.table import ExtractRule, RouteRule, RuleTable, load_table
from failtax.taxonomy import load_taxonomy
from failtax.tune._frame import prepare, text_signal_patterns, with_signal_sets
from failtax.tune._search import sign_test_greater
from failtax.tune.changes import unique_route_id

__all__ = ["SignalProposal", "apply_signal_proposals", "mask_text", "mine_candidate_signals"]

_MASKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("<url>", re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s\"'<>]+", re.I)),
    ("<email>", re.compile(r"\b[\w.+\-]+@[\w\-]+\.[\w.\-]+\b")),
    ("<uuid>", re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)),
    ("<ts>", re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:z|[+\-]\d{2}:?\d{2})?)?\b", re.I)),
    ("<ts>", re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b")),
    ("<path>", re.compile(r"(?:\b[a-z]:)?(?:[\\/][\w.\-@~+]+){2,}[\\/]?", re.I)),
    ("<str>", re.compile(r"\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|`[^`\n]{0,200}`")),
    ("<hex>", re.compile(r"\b(?:0x)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b", re.I)),
    ("<num>", re.compile(r"\b\d+(?:\.\d+)?\b")),
)
_PLACEHOLDER_RX = {
    "<url>": r"[a-z][a-z0-9+.\-]*://\S+",
    "<email>": r"\S+@\S+",
    "<uuid>": r"[0-9a-f\-]{36}",
    "<ts>": r"[0-9][0-9:tz.,+\- ]*[0-9z]",
    "<path>": r"\S+",
    "<str>": r"[\"'`][^\"'`]*[\"'`]",
    "<hex>": r"(?:0x)?[0-9a-f]{6,}",
    "<num>": r"\d+(?:\.\d+)?",
    "<secret>": r"\S+",
}
_TOKEN = r"<[a-z]+>|[a-z][a-z0-9]+"
_REDACTED = re.compile(r"\[REDACTED:[a-z0-9\-]+\]")


def mask_text(text: str | None) -> str:
    """Lower-case ``text`` with secrets and variable parts replaced by placeholders.

    >>> mask_text("Hydration failed at /app/src/page.tsx:12 (run 9f3a1c2e) on 2026-11-02T10:00:00Z")
    'hydration failed at <path>:<num> (run <hex>) on <ts>'
    """
    if not text:
        return ""
    s = text
    try:
        from failtax.redact import redact

        s = redact(s)
    except ImportError:  # pragma: no cover - redaction ships with the package
        pass
    s = _REDACTED.sub(" <secret> ", s)
    for ph, rx in _MASKS:
        s = rx.sub(ph, s)
    return ascii_lower(s)


@dataclass(frozen=True)
class SignalProposal:
    """A proposed extract rule (and the route for its signal), with its evidence.

    ``support`` counts labelled events whose text the rule matches, ``hits`` those of
    them implying ``bucket``; ``precision`` is hits/support with a Wilson interval.
    ``wins``/``losses`` are decisions that routing the signal to ``bucket`` would turn
    into agreement / out of it; ``p_value`` is the one-sided sign test of the two.
    ``position`` says where the route goes: ``first`` (the phrase overrides other
    routes) or ``last`` (it decides only events no route recognised); support and
    precision count the events it would decide there.
    """

    signal: str
    phrase: str
    kind: str  # "contains" or "regex"
    pattern: str
    bucket: str
    support: int
    hits: int
    precision: float
    precision_low: float
    precision_high: float
    candidates: int
    wins: int
    losses: int
    p_value: float
    position: str = "first"  # the new route goes first, or last (deciding only unrecognised events)
    examples: tuple[str, ...] = ()
    example_text: str = ""

    def extract_rule(self, *, rule_id: str | None = None) -> ExtractRule:
        """The ``[[extract]]`` row this proposal adds."""
        note = f"mined from text: {self.phrase!r} (support {self.support}, precision {self.precision:.2f})"
        rid = rule_id or f"mined-{self.signal}"
        if self.kind == "contains":
            return ExtractRule(id=rid, signal=self.signal, contains=(self.pattern,), note=note)
        return ExtractRule(id=rid, signal=self.signal, regex=self.pattern, note=note)

    def route_rule(self, *, rule_id: str | None = None) -> RouteRule:
        """The ``[[route]]`` row that sends the new signal to ``bucket``."""
        return RouteRule(id=rule_id or self.signal, bucket=self.bucket, any=(self.signal,),
                         note=f"mined from text: {self.phrase!r}")

    def __str__(self) -> str:
        return (f"{self.signal}: {self.kind} {self.pattern!r} -> {self.bucket} ({self.position})  [support {self.support}, "
                f"precision {self.precision:.2f} ({self.precision_low:.2f}, {self.precision_high:.2f}), "
                f"{self.wins} won / {self.losses} lost, p={self.p_value:.2g}]")

    def to_dict(self) -> dict[str, Any]:
        return {
            "signal": self.signal, "phrase": self.phrase, "kind": self.kind, "pattern": self.pattern,
            "bucket": self.bucket, "support": self.support, "hits": self.hits, "precision": self.precision,
            "precision_low": self.precision_low, "precision_high": self.precision_high,
            "candidates": self.candidates, "wins": self.wins, "losses": self.losses, "p_value": self.p_value,
            "position": self.position,
            "examples": list(self.examples), "example_text": self.example_text,
        }


def _slug(tokens: Sequence[str]) -> str:
    words = [t for t in tokens if not t.startswith("<")]
    return "-".join(words)[:60].strip("-") or "text-pattern"


def _rule_for(tokens: Sequence[str], raw_lower: Sequence[str]) -> tuple[str, str]:
    """A literal when the words appear verbatim in most supporting texts, else a regex."""
    if not any(t.startswith("<") for t in tokens):
        literal = " ".join(tokens)
        if raw_lower and sum(literal in t for t in raw_lower) >= 0.9 * len(raw_lower):
            return "contains", literal
    parts = [_PLACEHOLDER_RX.get(t, r"\S+") if t.startswith("<") else re.escape(t) for t in tokens]
    return "regex", r"\b" + r"[^a-z0-9]+".join(parts)


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def mine_candidate_signals(
    decisions: Any,
    *,
    taxonomy: Any,
    table: Any = None,
    min_support: int = 10,
    min_precision: float = 0.8,
    alpha: float = 0.05,
    ngram_range: tuple[int, int] = (1, 4),
    max_proposals: int = 20,
    use_text: bool = True,
) -> tuple[SignalProposal, ...]:
    """Propose extract rules for phrases that separate buckets where the table is blind.

    Parameters
    ----------
    decisions : the ``decisions`` relation with its ``text`` column.
    taxonomy : taxonomy name; ``table`` defaults to its shipped table.
    min_support : least labelled events a phrase must appear in.
    min_precision : least share of those events implying the proposed bucket.
    alpha : significance level of the sign test (Bonferroni over the phrases tried).
    ngram_range : word n-gram lengths to count (placeholders count as words).
    max_proposals : at most this many proposals, best first.
    use_text : route events on the signals the table finds in their text, as classify does.

    Returns
    -------
    tuple of SignalProposal, best (most decisions won) first. Empty when nothing qualifies.

    Tips: proposals are measured against *all* labelled text, so a phrase that also
    appears in events the table already handles well is penalised; review the examples
    before accepting, then :func:`apply_signal_proposals` and refit the tuner.

    >>> from failtax.tune.synthetic import synthetic_decisions
    >>> df = synthetic_decisions("replay", n_events=3000, seed=5, defects="missing", text_only_missing=True)
    >>> [p.kind for p in mine_candidate_signals(df, taxonomy="replay")][:1]
    ['contains']
    """
    from sklearn.feature_extraction.text import CountVectorizer

    tax = load_taxonomy(taxonomy) if not hasattr(taxonomy, "bucket_names") else taxonomy
    tbl = load_table(table if table is not None else tax.name)
    if tbl.taxonomy != tax.name:
        raise InputError(f"table {tbl.name!r} is for taxonomy {tbl.taxonomy!r}, not {tax.name!r}")
    frame = prepare(decisions, taxonomy=tax)
    frame = frame.filter(pl.col("implied_bucket").is_not_null() & pl.col("text").is_not_null())
    if frame.height == 0:
        return ()
    frame = with_signal_sets(frame, tbl, use_text=use_text)
    from failtax.tune.tuner import _table_rules

    bucket, recognised = _table_rules(tbl, frame)
    labels = frame["implied_bucket"].to_numpy()
    cand = (~recognised) | (bucket != labels)
    if cand.sum() < min_support:
        return ()
    masked_all = [mask_text(t) for t in frame["text"].to_list()]
    vec = CountVectorizer(
        lowercase=False, token_pattern=_TOKEN, ngram_range=ngram_range, binary=True,
        min_df=max(2, min_support // 2), dtype=np.int32,
    )
    try:
        vec.fit([m for m, c in zip(masked_all, cand, strict=True) if c])
    except ValueError:  # empty vocabulary
        return ()
    X = vec.transform(masked_all).tocsc()
    names = vec.get_feature_names_out()
    stop = _stop_words()
    # A word in most texts (a log template's "step", "error", "run") or a placeholder
    # says nothing on its own; a phrase must begin and end with an informative word.
    uni = CountVectorizer(lowercase=False, token_pattern=_TOKEN, binary=True, vocabulary=sorted(
        {t for f in names for t in f.split(" ")}))
    df_share = np.asarray(uni.transform(masked_all).sum(axis=0)).ravel() / max(1, len(masked_all))
    common = {t for t, share in zip(uni.get_feature_names_out(), df_share, strict=True) if share > 0.5}

    def informative(t: str) -> bool:
        return len(t) >= 3 and not t.startswith("<") and t not in stop and t not in common

    keep_cols = [j for j, f in enumerate(names) if informative(f.split(" ")[0]) and informative(f.split(" ")[-1])]
    if not keep_cols:
        return ()
    X = X[:, keep_cols]
    names = names[keep_cols]
    buckets = tax.bucket_names
    bidx = {b: i for i, b in enumerate(buckets)}
    y = np.array([bidx.get(b, -1) for b in labels])
    cur = np.array([bidx[b] for b in bucket])
    Y = np.zeros((len(y), len(buckets)), dtype=np.int32)
    Y[np.arange(len(y)), y] = 1
    right = cur == y
    rows_f = np.arange(X.shape[1])

    def scoped(scope: np.ndarray) -> tuple[np.ndarray, ...]:
        """Support, best bucket, hits, wins and losses of each phrase deciding within ``scope``."""
        Ys = Y * scope[:, None]
        sup = np.asarray(X.T @ scope.astype(np.int32)).ravel()
        per_bucket = np.asarray(X.T @ Ys)  # events with the phrase implying each bucket
        won = np.asarray(X.T @ (Ys * (~right)[:, None]))  # ... where the table was wrong
        kept = np.asarray(X.T @ (Ys * right[:, None]))  # ... where the table was right
        b = per_bucket.argmax(axis=1)
        # Routing the phrase to B wins where the label is B and the table said otherwise,
        # and loses where the table was right and the label is not B.
        return sup, b, per_bucket[rows_f, b], won[rows_f, b], kept.sum(axis=1) - kept[rows_f, b]

    # Two placements: the new route first (the phrase overrides other rules) or last
    # (it decides only events no rule recognised). Each phrase gets the better one.
    first = scoped(np.ones(len(y), dtype=bool))
    last = scoped(~recognised)
    use_last = (last[3] - last[4]) > (first[3] - first[4])
    support, best, hits, wins, losses = (np.where(use_last, lv, fv) for fv, lv in zip(first, last, strict=True))
    ok = (support >= min_support) & (hits >= min_precision * support) & (wins > losses)
    cols = np.flatnonzero(ok)
    if len(cols) == 0:
        return ()
    m = len(names)
    pvals = np.array([sign_test_greater(int(wins[j]), int(losses[j])) for j in cols])
    cols = cols[pvals < alpha / m]
    if len(cols) == 0:
        return ()
    # best first: decisions won, then precision, then the longer (more specific) phrase
    order = sorted(cols, key=lambda j: (-(wins[j] - losses[j]), -hits[j] / support[j], -len(names[j].split(" ")), names[j]))
    chosen: list[int] = []
    covered = np.zeros(X.shape[0], dtype=bool)
    for j in order:
        rows = X[:, j].nonzero()[0]
        if use_last[j]:
            rows = rows[~recognised[rows]]
        new = rows[~covered[rows]]
        if len(new) < 0.5 * len(rows):  # mostly the same events as a phrase already chosen
            continue
        chosen.append(j)
        covered[rows] = True
        if len(chosen) >= max_proposals:
            break
    texts = frame["text"].to_list()
    ids = frame["event_id"].to_list()
    out: list[SignalProposal] = []
    taken = set(tbl.signals) | {r.id for r in tbl.extract}
    for j in chosen:
        tokens = names[j].split(" ")
        rows = X[:, j].nonzero()[0]
        if use_last[j]:
            rows = rows[~recognised[rows]]
        raw_lower = [ascii_lower(texts[i]) for i in rows[:200]]
        kind, pattern = _rule_for(tokens, raw_lower)
        signal = unique_route_id(_slug(tokens), taken)
        taken.add(signal)
        B = buckets[int(best[j])]
        prop = _measure(
            signal=signal, phrase=names[j], kind=kind, pattern=pattern, bucket=B, frame=frame, table=tbl,
            labels=labels, cur_bucket=bucket, cand=cand, recognised=recognised,
            position="last" if use_last[j] else "first",
        )
        if prop is None or prop.support < min_support or prop.precision < min_precision or prop.wins <= prop.losses:
            continue
        ex = [ids[i] for i in rows[:5]]
        out.append(SignalProposal(**{**prop.__dict__, "examples": tuple(ex), "example_text": masked_all[rows[0]][:200]}))
    out.sort(key=lambda p: (-(p.wins - p.losses), -p.precision, p.signal))
    return tuple(out)


def _measure(*, signal: str, phrase: str, kind: str, pattern: str, bucket: str, frame: pl.DataFrame,
             table: RuleTable, labels: np.ndarray, cur_bucket: np.ndarray, cand: np.ndarray,
             recognised: np.ndarray, position: str) -> SignalProposal | None:
    """Run the proposed rule itself over every labelled text and measure it."""
    rule = (ExtractRule(id="probe", signal=signal, contains=(pattern,)) if kind == "contains"
            else ExtractRule(id="probe", signal=signal, regex=pattern))
    try:
        probe = table.replace(extract=(rule,), route=(), locate=())
    except Exception:  # noqa: BLE001 - a pattern RE2 refuses is simply not proposed
        return None
    idx, patterns = text_signal_patterns(frame["text"], probe)
    hit = np.array([bool(patterns[i]) for i in idx], dtype=bool)
    if position == "last":
        hit &= ~recognised
    support = int(hit.sum())
    if support == 0:
        return None
    k = int((labels[hit] == bucket).sum())
    r = rate(k, support)
    right = cur_bucket == labels
    wins = int((hit & ~right & (labels == bucket)).sum())
    losses = int((hit & right & (labels != bucket)).sum())
    return SignalProposal(
        signal=signal, phrase=phrase, kind=kind, pattern=pattern, bucket=bucket, support=support, hits=k,
        precision=r.value, precision_low=r.low, precision_high=r.high, candidates=int((hit & cand).sum()),
        wins=wins, losses=losses, p_value=sign_test_greater(wins, losses), position=position,
    )


def apply_signal_proposals(table: Any, proposals: Iterable[SignalProposal]) -> RuleTable:
    """``table`` with each proposal's extract rule added and its signal routed.

    A proposal's route goes first or last as its ``position`` says (first: the phrase
    decides before the broader rules it corrects; last: it decides only what nothing
    else recognises).

    >>> apply_signal_proposals("replay", []).version
    '1.0.0'
    """
    tbl = load_table(table)
    extract = list(tbl.extract)
    head, tail = [], []
    ids_e = {r.id for r in extract}
    ids_r = {r.id for r in tbl.route}
    for p in proposals:
        rid = unique_route_id(f"mined-{p.signal}", ids_e)
        ids_e.add(rid)
        extract.append(p.extract_rule(rule_id=rid))
        route_id = unique_route_id(p.signal, ids_r)
        ids_r.add(route_id)
        (tail if p.position == "last" else head).append(p.route_rule(rule_id=route_id))
    return tbl.replace(extract=tuple(extract), route=(*head, *tbl.route, *tail))
