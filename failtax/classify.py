"""Classify one piece of failure evidence: a pure, total function.

``classify(evidence, taxonomy=..., table=None)`` extracts every signal the table's
extractor rules find, routes them through its ordered bucket rules (first match wins),
and returns a :class:`Classification` carrying the bucket, all matched signals, the
rule that decided, the table version and the bucket's attributes. It does no IO beyond
loading a shipped table the first time, never returns ``None`` and never raises on odd
evidence: what it cannot use is noted in ``warnings``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from failtax._scan import FOLD_RISK
from failtax.evidence import Evidence, ascii_lower, is_error_result_frame, tail_lines
from failtax.redact import Finding, find_secrets, redact, redact_slice
from failtax.table import CompiledTable, ExtractRule, RuleTable, load_table

__all__ = ["Classification", "classify", "extract_signals", "render_template"]

_TEMPLATE = re.compile(r"\{([a-zA-Z_][\w]*)(?:\|(capitalize|upper|lower))?(?:\?([a-zA-Z_][\w]*))?\}")


@dataclass(frozen=True)
class Classification:
    """The answer for one piece of evidence.

    ``bucket`` is always a bucket of ``taxonomy``; ``rule`` is the id of the route that
    decided, or ``"fallback"``; ``signals`` lists every matched signal (extracted, in
    table order, then the ones the tool gave). The rest are the bucket's attributes,
    with the deciding route's overrides applied.
    """

    taxonomy: str
    bucket: str
    signals: tuple[str, ...]
    rule: str
    table_version: str
    title: str = ""
    detail: str = ""
    meaning: str = ""
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
    exit_code: int | None = None
    signal: int | None = None
    stderr_tail: str = ""
    matched_line: str | None = None
    source_file: str | None = None
    source_line: int | None = None
    facts: Mapping[str, str] = field(default_factory=dict)
    id: Any = None
    warnings: tuple[str, ...] = ()

    @property
    def recognised(self) -> bool:
        """True when a rule routed the evidence (not the table's fallback)."""
        return self.rule != "fallback"

    def explain(self) -> str:
        """One string in seed 004's shape: ``title — detail [exit N] (retryable)`` + the tail.

        >>> c = classify({"text": "Rate limited", "exit_code": 1}, taxonomy="agent-run")
        >>> c.explain().splitlines()[0].endswith("[exit 1] (retryable)")
        True
        """
        s = self.title
        if self.detail:
            s += " — " + self.detail
        if self.signal is not None:
            s += f" [signal {self.signal}]"
        elif self.exit_code is not None:
            s += f" [exit {self.exit_code}]"
        if self.retryable:
            s += " (retryable)"
        if self.stderr_tail:
            label = "claude stderr" if self.taxonomy == "agent-run" else "stderr"
            s += f"\n--- {label} (tail) ---\n" + self.stderr_tail
        return s

    def to_agent_failure(self) -> dict[str, Any]:
        """Seed 004's ``AgentFailure`` wire object (camelCase, optional keys omitted)."""
        out: dict[str, Any] = {"code": self.bucket, "title": self.title, "detail": self.detail}
        if self.exit_code is not None:
            out["exitCode"] = self.exit_code
        if self.signal is not None:
            out["signal"] = self.signal
        if self.stderr_tail:
            out["stderrTail"] = self.stderr_tail
        out["retryable"] = bool(self.retryable)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The CLI's output record: common keys, then what this taxonomy's seed adds."""
        out: dict[str, Any] = {}
        if self.id is not None:
            out["id"] = self.id
        out.update(
            taxonomy=self.taxonomy,
            bucket=self.bucket,
            signals=list(self.signals),
            rule=self.rule,
            table_version=self.table_version,
            title=self.title,
            detail=self.detail,
            suggestion=self.suggestion,
            retryable=self.retryable,
            severity=self.severity,
        )
        if self.taxonomy == "agent-run":
            out["code"] = self.bucket
            out.update({k: v for k, v in self.to_agent_failure().items() if k in ("exitCode", "signal", "stderrTail")})
            out["explain"] = self.explain()
        elif self.taxonomy == "devflow":
            out.update(
                failure_type=self.bucket,
                signal=_message_part(self.matched_line, self.source_file),
                source_file=self.source_file,
                source_line=self.source_line,
                auto_recoverable=self.auto_recoverable,
                recipe=self.recipe,
                recovery_attempted=False,
                recovery_result=None,
            )
        else:
            if self.suggestion_text:
                out["suggestion_text"] = self.suggestion_text
            if self.options:
                out["options"] = list(self.options)
            if self.verdict:
                out["verdict"] = self.verdict
            if self.handling:
                out["handling"] = self.handling
            if self.retry_limit is not None:
                out["retry_limit"] = self.retry_limit
            if self.matched_line:
                out["matched_line"] = self.matched_line
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def _message_part(line: str | None, source_file: str | None) -> str | None:
    """The matched line without a leading ``file(line,col):`` / ``file:line:col:`` location.

    Seed 001 reports the location in ``source_file``/``source_line`` and the message in
    ``signal``: ``src/a.ts(42,5): error TS2304: …`` → ``error TS2304: …``.
    """
    if not line or not source_file or not line.startswith(source_file):
        return line
    rest = re.sub(r"^(?:\(\d+(?:,\d+)?\)|:\d+(?::\d+)?)?\s*[:\-–]?\s*", "", line[len(source_file):])
    return rest or line


def render_template(template: str, facts: Mapping[str, str]) -> str:
    """Fill ``{name}``, ``{name|capitalize}`` and ``{name?other}`` from ``facts``.

    A missing fact renders as nothing and the doubled space it leaves is closed, so
    ``"No {provider|capitalize} account"`` reads ``"No account"`` without a provider.

    >>> render_template("No {provider|capitalize} account", {"provider": "gemini"})
    'No Gemini account'
    >>> render_template("No {provider|capitalize} account", {})
    'No account'
    """
    if "{" not in template:
        return template

    def sub(m: re.Match[str]) -> str:
        name, filt, alt = m.group(1), m.group(2), m.group(3)
        value = facts.get(name)
        if not value and alt:
            value = facts.get(alt)
        if not value:
            return "\x00"
        if filt == "capitalize":
            value = value[:1].upper() + value[1:]
        elif filt == "upper":
            value = value.upper()
        elif filt == "lower":
            value = value.lower()
        return value

    out = _TEMPLATE.sub(sub, template)
    if "\x00" in out:
        out = re.sub(r" ?\x00 ?", " ", out).replace(" ,", ",").strip()
        out = re.sub(r"  +", " ", out)
    return out


def _field_value(fields: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    cur: Any = fields
    for part in name.split("."):
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        else:
            return False, None
    return True, cur


def _field_holds(rule: ExtractRule, ct: CompiledTable, fields: Mapping[str, Any]) -> bool:
    present, v = _field_value(fields, rule.field or "")
    op, want = rule.op, rule.value
    try:
        if op == "present":
            return present and v is not None
        if op == "missing":
            return not present or v is None
        if not present:
            return False
        if op == "truthy":
            return bool(v)
        if op == "falsy":
            return not v
        if op == "empty":
            return v is None or (hasattr(v, "__len__") and len(v) == 0)
        if op == "nonempty":
            return v is not None and hasattr(v, "__len__") and len(v) > 0
        if op == "==":
            return v == want
        if op == "!=":
            return v != want
        if op in (">", ">=", "<", "<="):
            if isinstance(v, bool) or not isinstance(v, int | float):
                return False
            return {">": v > want, ">=": v >= want, "<": v < want, "<=": v <= want}[op]
        if op == "in":
            return v in want
        if op == "not_in":
            return v not in want
        if op == "contains":
            if isinstance(v, str):
                return ascii_lower(str(want)) in ascii_lower(v)
            if isinstance(v, list | tuple):
                return want in v
            return False
        if op == "matches":
            rx = ct.regex_value(rule)
            if isinstance(v, str):
                return rx.search(v) is not None
            if isinstance(v, list | tuple):
                return any(isinstance(x, str) and rx.search(x) is not None for x in v)
            return False
    except Exception:  # odd values never make classification raise
        return False
    return False


def _extract_matches(
    rule: ExtractRule, ct: CompiledTable, present: frozenset[str], ev: Evidence, frame_error: bool, text: bytes,
    gated: bool,
) -> bool:
    """Whether ``rule`` fires on the evidence. ``present`` holds the table's literals the
    lower-cased text contains; ``text`` is the text itself encoded as UTF-8, once per
    record (RE2 would encode it again for each of a table's hundred-odd regex searches).
    ``gated``: a regex none of whose required literals is present is not run."""
    if rule.exit_code and ev.exit_code not in rule.exit_code:
        return False
    if rule.has_signal is not None and (ev.signal is not None) != rule.has_signal:
        return False
    if rule.posix_signal and ev.signal not in rule.posix_signal:
        return False
    if rule.frame_error is not None and frame_error != rule.frame_error:
        return False
    if rule.frame_subtype:
        st = ev.result_frame.get("subtype") if ev.result_frame else None
        if not isinstance(st, str) or not any(s in st for s in rule.frame_subtype):
            return False
    if rule.field is not None and not _field_holds(rule, ct, ev.fields):
        return False
    lits, also, unless, gate = ct.index.sets[rule.id]
    if lits and lits.isdisjoint(present):
        return False
    if also and also.isdisjoint(present):
        return False
    if unless and not unless.isdisjoint(present):
        return False
    # The pattern is compiled case-insensitive; searching the original text lets a table's
    # `(?-i)` group match upper-case words such as jest's FAIL.
    if rule.regex is not None:
        if gated and gate and gate.isdisjoint(present):
            return False
        if ct.regex[rule.id].search(text) is None:
            return False
    return True


def _fired(ct: CompiledTable, hay: str) -> tuple[frozenset[str], bool, Sequence[ExtractRule]]:
    """The literals ``hay`` holds, whether regexes may be skipped on them, and the rules
    worth trying in table order. Where the text holds a character RE2 folds onto an ASCII
    letter (the Kelvin sign, the long s), a regex can match without its literals in
    ``hay``: every rule is tried and every regex run."""
    present = ct.index.present(hay)
    rules = ct.table.extract
    if any(ch in hay for ch in FOLD_RISK):
        return present, False, rules
    return present, True, [rules[i] for i in ct.index.candidates(present)]


def extract_signals(evidence: Any, table: RuleTable) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The signals ``table`` extracts from ``evidence`` and the ids of the rules that fired.

    Signals the evidence already names come after the extracted ones.
    """
    ev = Evidence.from_record(evidence)
    ct = table.compiled()
    combined = ev.combined_text()
    hay = ascii_lower(combined)
    frame_error = is_error_result_frame(ev.result_frame)
    signals: list[str] = []
    fired: list[str] = []
    text = combined.encode()
    present, gated, rules = _fired(ct, hay)
    for rule in rules:
        if _extract_matches(rule, ct, present, ev, frame_error, text, gated):
            fired.append(rule.id)
            if rule.signal not in signals:
                signals.append(rule.signal)
    for s in ev.signals:
        if s not in signals:
            signals.append(s)
    return tuple(signals), tuple(fired)


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)].strip()


def _matched_line(rule_ids: list[str], ct: CompiledTable, combined: str, hay: str) -> str | None:
    best = _matched_pos(rule_ids, ct, combined, hay)
    return None if best is None else _line_at(combined, best)


def _matched_pos(rule_ids: list[str], ct: CompiledTable, combined: str, hay: str) -> int | None:
    """Where the earliest text match of these rules starts, or None."""
    best: int | None = None
    for rid in rule_ids:
        lits, _, _ = ct.literals[rid]
        for s in lits:
            i = hay.find(s)
            if i >= 0 and (best is None or i < best):
                best = i
        rx = ct.regex.get(rid)
        if rx is not None:
            # Table regexes see the text with its case kept (offsets equal the hay's).
            m = rx.search(combined)
            if m is not None and (best is None or m.start() < best):
                best = m.start()
    return best


def _shown(text: str, start: int, end: int, findings: list[Finding]) -> str:
    """``text[start:end]`` as it may be shown: every secret overlapping it masked."""
    return redact_slice(text, start, end, findings=findings) if findings else text[start:end]


def _shown_line(text: str, pos: int, findings: list[Finding]) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return _shown(text, start, end if end >= 0 else len(text), findings).strip()


def classify(evidence: Any, *, taxonomy: str = "agent-run", table: Any = None) -> Classification:
    """Classify failure evidence into a bucket of ``taxonomy``.

    Parameters
    ----------
    evidence : a mapping with any of ``text``, ``exit_code``, ``signal``, ``result_frame``,
        ``frames``, ``fields``, ``signals``, ``id``; or an :class:`~failtax.Evidence`.
    taxonomy : the taxonomy name; its shipped default table is used unless ``table``
        is given.
    table : a :class:`~failtax.RuleTable`, a shipped table name or a path to a TOML
        table (for instance one exported by ``failtax tune``).

    Returns
    -------
    Classification
        Never ``None``; unmatched evidence gets the table's fallback bucket.

    Examples
    --------
    >>> c = classify({"text": "API Error: 429 Too Many Requests", "exit_code": 1},
    ...              taxonomy="agent-run")
    >>> c.bucket, c.retryable
    ('rate_limited', True)
    """
    tbl = load_table(table if table is not None else taxonomy)
    ct = tbl.compiled()
    ev = Evidence.from_record(evidence)
    combined = ev.combined_text()
    hay = ascii_lower(combined)
    frame_error = is_error_result_frame(ev.result_frame)
    # Rules match the original text; every text the result shows has its secrets masked.
    findings = find_secrets(combined)

    signals: list[str] = []
    by_signal: dict[str, list[str]] = {}
    facts: dict[str, str] = {}
    text = combined.encode()
    present, gated, rules = _fired(ct, hay)
    for rule in rules:
        if not _extract_matches(rule, ct, present, ev, frame_error, text, gated):
            continue
        if rule.signal not in by_signal:
            signals.append(rule.signal)
            by_signal[rule.signal] = []
        by_signal[rule.signal].append(rule.id)
        cap = ct.capture.get(rule.id)
        if cap is not None:
            m = cap.search(combined)
            if m is not None:
                for k, v in m.groupdict().items():
                    if v and k not in facts:
                        g = cap.groupindex[k]
                        facts[k] = _shown(combined, m.start(g), m.end(g), findings).strip()
    for s in ev.signals:
        if s not in by_signal:
            signals.append(s)
            by_signal[s] = []
    present = set(signals)

    route = next((r for r in tbl.route if r.matches(present)), None)
    bucket_name = route.bucket if route is not None else tbl.fallback
    bucket = ct.taxonomy.bucket(bucket_name)
    shown_text = redact(combined, findings=findings) if findings else combined
    facts.setdefault("text", shown_text.strip())

    title, detail, retryable = bucket.title, bucket.detail, bucket.retryable
    matched_line = None
    if route is not None:
        title = route.title if route.title is not None else title
        detail = route.detail if route.detail is not None else detail
        retryable = route.retryable if route.retryable is not None else retryable
        for s in route.positive_signals:
            if s in present and by_signal.get(s):
                pos = _matched_pos(by_signal[s], ct, combined, hay)
                matched_line = None if pos is None else _shown_line(combined, pos, findings)
                if matched_line:
                    break
    source_file = source_line = None
    for _loc, rx in ct.locate:
        m = rx.search(combined)
        if m is not None:
            gd = m.groupdict()
            source_file = gd.get("file")
            if source_file and findings:
                g = rx.groupindex["file"]
                source_file = _shown(combined, m.start(g), m.end(g), findings)
            line = gd.get("line")
            source_line = int(line) if line and line.isdigit() else None
            break

    return Classification(
        taxonomy=ct.taxonomy.name,
        bucket=bucket_name,
        signals=tuple(signals),
        rule=route.id if route is not None else "fallback",
        table_version=tbl.version,
        title=render_template(title, facts),
        detail=render_template(detail, facts),
        meaning=bucket.meaning,
        suggestion=bucket.suggestion,
        suggestion_text=bucket.suggestion_text,
        options=bucket.options,
        retryable=retryable,
        severity=bucket.severity,
        auto_recoverable=bucket.auto_recoverable,
        recipe=bucket.recipe,
        verdict=bucket.verdict,
        handling=bucket.handling,
        retry_limit=bucket.retry_limit,
        exit_code=ev.exit_code,
        signal=ev.signal,
        stderr_tail=tail_lines(shown_text, 24, 1600),
        matched_line=matched_line,
        source_file=source_file,
        source_line=source_line,
        facts={k: v for k, v in facts.items() if k != "text"},
        id=ev.id,
        warnings=tuple(redact(w) for w in ev.problems),
    )
