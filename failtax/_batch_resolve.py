"""Resolving rows of a batch: scan, rules, signals, routes (private; see :mod:`failtax.batch`).

:func:`run` splits the rows into parts (forked processes on Linux for large inputs)
and ``_run_part`` resolves one part block by block: one literal scan per buffer,
group hits into a rows × groups matrix, rules into a rows × rules matrix, signals into
a rows × signals matrix with their order, and the first route that holds. Regexes
without a wide gap are answered by one RE2 set pass per row; the others run on RE2
only where a prefilter says they may match; the matched line, captured facts
and source locations are computed only for the rows whose answer shows them.
"""

from __future__ import annotations

import os
import pickle
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from failtax._batch_input import Columns
from failtax._batch_plan import Plan
from failtax._scan import Segment
from failtax.classify import (
    Classification,
    _field_holds,
    _matched_pos,
    _shown,
    _shown_line,
    classify,
    render_template,
)
from failtax.redact import _re2_span, _secrets_within_lines, find_secrets, redact
from failtax.table import RuleTable

__all__ = ["Part", "Want", "run", "singles"]

#: Rows below which classification stays in one process (forking costs more).
MIN_ROWS_PER_PROCESS = 50_000
#: Rows resolved at a time inside one process (bounds the dense matrices).
BLOCK_ROWS = 65_536
_BIG = np.iinfo(np.int32).max


@dataclass
class Part:
    """What one process computed for rows ``lo..hi`` (row numbers inside are local)."""

    lo: int
    hi: int
    decision: np.ndarray  # int64: route index; n_routes = the fallback
    sig_ptr: np.ndarray  # CSR of each row's signal ids (vocabulary: plan.signals + extra)
    sig_ids: np.ndarray
    lines: dict[int, str | None]  # matched lines (rows without one are absent)
    overrides: dict[int, tuple[str, str]]  # rendered (title, detail)
    located: dict[int, tuple[Any, Any]]  # (source_file, source_line)
    facts: dict[int, dict[str, str]] = field(default_factory=dict)
    signal_matrix: np.ndarray | None = None
    rule_matrix: np.ndarray | None = None


@dataclass(frozen=True)
class Want:
    """What the caller needs besides buckets and signals."""

    classifications: bool = False
    signal_matrix: bool = False
    rule_matrix: bool = False
    outputs: bool = True


class _Texts:
    """The matching text of each row of a part, where it sits in the shared buffers."""

    def __init__(self, buffers: list[Any], row_buf: np.ndarray, row_start: np.ndarray, row_len: np.ndarray):
        self.views = [memoryview(b) for b in buffers]
        self.buffers = buffers
        self.row_buf, self.row_start, self.row_len = row_buf, row_start, row_len
        self._buf, self._start, self._len = row_buf.tolist(), row_start.tolist(), row_len.tolist()
        self._cache: dict[int, bytes] = {}
        self._findings: dict[int, list[Any]] = {}

    def has_text(self, r: int) -> bool:
        return self._buf[r] >= 0

    def data(self, r: int) -> bytes:
        """The row's text as UTF-8 (cached until :meth:`forget`)."""
        d = self._cache.get(r)
        if d is None:
            b = self._buf[r]
            if b < 0:
                d = b""
            else:
                s = self._start[r]
                d = bytes(self.views[b][s : s + self._len[r]])
            self._cache[r] = d
        return d

    def text(self, r: int) -> str:
        return self.data(r).decode("utf-8")

    def views_of(self, rows: range) -> list[Any]:
        """The rows' texts as buffers into the shared ones (b"" without text; not cached)."""
        views, buf, start, n = self.views, self._buf, self._start, self._len
        return [views[buf[r]][start[r] : start[r] + n[r]] if buf[r] >= 0 else b"" for r in rows]

    def findings(self, r: int) -> list[Any]:
        """The secrets in the row's text (:func:`failtax.redact.find_secrets`), cached."""
        got = self._findings.get(r)
        if got is None:
            got = self._findings[r] = find_secrets(self.text(r))
        return got

    def forget(self) -> None:
        self._cache.clear()
        self._findings.clear()


def _re2_start(rx: Any, data: bytes, pos: int) -> int:
    """Where the leftmost match of ``rx`` at or after byte ``pos`` of ``data`` starts, or -1."""
    return int(_re2_span(rx, data, pos)[0])


class _Firsts:
    """Per key, the rows it occurs in (ascending, each once) and its smallest value in
    each: the first start of a position slot's literals, the first end of a regex
    superset. Sparse, as most (key, row) pairs never occur."""

    def __init__(self, keys: np.ndarray, rows: np.ndarray, values: np.ndarray, n_keys: int):
        order = np.lexsort((values, rows, keys))
        keys, rows, values = keys[order], rows[order], values[order]
        first = np.ones(len(keys), dtype=bool)
        first[1:] = (keys[1:] != keys[:-1]) | (rows[1:] != rows[:-1])
        self._rows, self._values = rows[first], values[first].astype(np.int32)
        self._bounds = np.searchsorted(keys[first], np.arange(n_keys + 1))
        self._maps: dict[int, dict[int, int]] = {}

    def rows(self, key: int) -> np.ndarray:
        return self._rows[self._bounds[key] : self._bounds[key + 1]]

    def values(self, key: int) -> np.ndarray:
        return self._values[self._bounds[key] : self._bounds[key + 1]]

    def at(self, key: int, row: int) -> int:
        """The key's smallest value in ``row``, or _BIG where it does not occur."""
        m = self._maps.get(key)
        if m is None:
            m = self._maps[key] = dict(zip(self.rows(key).tolist(), self.values(key).tolist(), strict=True))
        return m.get(row, _BIG)


class _Block:
    """The hits of one block of rows, and the questions the resolution asks of them."""

    def __init__(self, plan: Plan, texts: _Texts, a: int, k: int, rows: np.ndarray, lits: np.ndarray, starts: np.ndarray):
        self.plan, self.texts, self.a, self.k = plan, texts, a, k
        n_lit = len(plan.literals)
        is_unit = lits >= n_lit
        # regex supersets: first end per (alternative, row)
        self.ends = _Firsts(lits[is_unit] - n_lit, rows[is_unit], starts[is_unit], plan.n_units)
        # literal hits -> group hits, and first positions of the groups that need them
        br, bl, bs = rows[~is_unit], lits[~is_unit], starts[~is_unit]
        cnt = plan.lg_ptr[bl + 1] - plan.lg_ptr[bl]
        rep_rows = np.repeat(br, cnt)
        offs = np.arange(len(rep_rows)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        rep_groups = plan.lg_data[np.repeat(plan.lg_ptr[bl], cnt) + offs]
        self.G = np.zeros((k, plan.n_groups), dtype=bool, order="F")
        self.G[rep_rows, rep_groups] = True
        slot = plan.pos_slot[rep_groups]
        sel = slot >= 0
        #: first start per (position slot, row), sparse: a dense rows × slots array is
        #: 75 MB per block for agent-run's 285 slots, nearly all of it empty
        self.pos = _Firsts(slot[sel], rep_rows[sel], np.repeat(bs, cnt)[sel], plan.n_slots)
        self.fold = self.G[:, plan.g_fold]
        # rows × the plan's RE2 set: which of its alternatives match each row (exact)
        self.U: np.ndarray | None = None
        rs = plan.regex_set
        if rs.compiled:
            match = rs.match
            got = [match(v) for v in texts.views_of(range(a, a + k))]
            lens = np.fromiter(map(len, got), dtype=np.int64, count=k)
            ids = np.fromiter((j for g in got for j in g), dtype=np.int64, count=int(lens.sum()))
            self.U = np.zeros((k, len(rs.members)), dtype=bool, order="F")
            self.U[np.repeat(np.arange(k), lens), ids] = True

    def answered(self, u: int) -> bool:
        """True when the RE2 set says exactly where regex alternative ``u`` matches."""
        return self.U is not None and self.plan.set_col[u] >= 0

    def candidates(self, u: int) -> np.ndarray:
        """Rows where regex alternative ``u`` may match (a superset of where it does;
        exactly where it does for the alternatives of the plan's RE2 set)."""
        plan = self.plan
        if self.answered(u):
            return self.U[:, plan.set_col[u]]
        if plan.unit_hs[u]:
            m = np.zeros(self.k, dtype=bool)
            m[self.ends.rows(u)] = True
            return m | self.fold
        g = plan.unit_group[u]
        if g >= 0:
            m = self.G[:, g]
            for h in plan.unit_also[u]:
                m = m & self.G[:, h]
            return m | self.fold
        return np.ones(self.k, dtype=bool)

    def unit_start(self, u: int, i: int) -> int:
        """Where alternative ``u`` first matches in row ``i``'s text (byte), or -1.

        classify() searches table regexes in the normalised text with its case kept,
        both to fire a rule and to find where it matched.
        """
        plan = self.plan
        if plan.unit_exact[u] and not self.fold[i]:
            # a set of strings: it matches where the first of them occurs
            at = self.pos.at(int(plan.pos_slot[plan.unit_group[u]]), i)
            return at if at < _BIG else -1
        rx, width = plan.units[u]
        pos = 0
        if width is not None and not self.fold[i]:
            # No match can end before the superset's first match, or start more than
            # its width before the first of its required literals.
            if plan.unit_hs[u]:
                pos = max(0, self.ends.at(u, i) - width)
            elif plan.unit_group[u] >= 0:
                pos = max(0, self.pos.at(int(plan.pos_slot[plan.unit_group[u]]), i) - width)
        return _re2_start(rx, self.data(i), pos)

    def data(self, i: int) -> bytes:
        return self.texts.data(i + self.a)


def _lines_at(texts: _Texts, rows: list[int], pos: list[int]) -> list[str]:
    """classify()'s shown line for many rows: the stripped line around each byte position,
    with every secret overlapping it masked."""
    out = []
    for r, p in zip(rows, pos, strict=True):
        data = texts.data(r)
        if not _secrets_within_lines(data):  # a private-key block may run through the line
            findings = texts.findings(r)
            out.append(_shown_line(texts.text(r), len(data[:p].decode("utf-8")), findings))
            continue
        a = data.rfind(b"\n", 0, p) + 1
        z = data.find(b"\n", p)
        # the line's secrets are those of the line alone: it is all that is scanned
        out.append(redact(data[a : z if z >= 0 else len(data)].decode("utf-8")).strip())
    return out


def _run_part(plan: Plan, cols: Columns, lo: int, hi: int, want: Want) -> Part:
    m = hi - lo
    cols.normalise(lo, hi)
    buffers = cols.buffers
    row_buf = cols.row_buf[lo:hi].copy()
    row_start = cols.row_start[lo:hi]
    row_len = cols.row_len[lo:hi]
    for i in cols.python_rows:
        if lo <= i < hi:
            row_buf[i - lo] = -1
    texts = _Texts(buffers, row_buf, row_start, row_len)
    segments = []
    for b in np.unique(row_buf[row_buf >= 0]).tolist():
        rows = np.flatnonzero(row_buf == b)
        rows = rows[np.argsort(row_start[rows], kind="stable")]
        segments.append(Segment(buffers[b], row_start[rows], row_len[rows], rows))
    hits = plan.engine.scan_all(segments)
    h_rows, h_lits, h_starts = hits.rows, hits.lits, hits.starts
    if len(h_rows) > 1 and not bool(np.all(h_rows[1:] >= h_rows[:-1])):
        order = np.argsort(h_rows, kind="stable")
        h_rows, h_lits, h_starts = h_rows[order], h_lits[order], h_starts[order]

    n_tsig = len(plan.signals)
    n_sig = n_tsig + len(cols.vocab_extra)
    extra_index = {s: n_tsig + k for k, s in enumerate(cols.vocab_extra)}
    skip = {i - lo for i in cols.python_rows if lo <= i < hi}
    decision = np.empty(m, dtype=np.int64)
    sig_rows: list[np.ndarray] = []
    sig_vals: list[np.ndarray] = []
    lines: dict[int, str | None] = {}
    line_rows: list[np.ndarray] = []
    line_pos: list[np.ndarray] = []
    overrides: dict[int, tuple[str, str]] = {}
    located: dict[int, tuple[Any, Any]] = {}
    facts_out: dict[int, dict[str, str]] = {}
    smat = np.zeros((m, n_sig), dtype=bool) if want.signal_matrix else None
    rmat = np.zeros((m, plan.n_rules), dtype=bool) if want.rule_matrix else None
    slot_of_rule = np.where(plan.g_contains >= 0, plan.pos_slot[np.maximum(plan.g_contains, 0)], -1)

    for a in range(0, m, BLOCK_ROWS):
        z = min(m, a + BLOCK_ROWS)
        k = z - a
        ha, hz = np.searchsorted(h_rows, [a, z])
        blk = _Block(plan, texts, a, k, h_rows[ha:hz] - a, h_lits[ha:hz], h_starts[ha:hz])
        E, regex_start = _eval_rules(plan, cols, blk, lo + a, lo + z)
        # signals: present, and ordered by the first rule that found them
        K = np.full((k, n_sig), _BIG, dtype=np.int32, order="F")
        for j, rs in enumerate(plan.sig_rules):
            if len(rs) == 0:
                continue
            sub = E[:, rs]
            anyf = sub.any(axis=1)
            K[anyf, j] = rs[np.argmax(sub[anyf], axis=1)]
        extracted = K[:, :n_tsig] < _BIG
        for i, names in cols.given.between(lo + a, lo + z):
            r = i - lo - a
            for q, s in enumerate(names):
                j = plan.sig_index.get(s)
                if j is None:
                    j = extra_index[s]
                if K[r, j] >= _BIG:
                    K[r, j] = plan.n_rules + q
        S = K < _BIG
        if smat is not None:
            smat[a:z] = S
        if rmat is not None:
            rmat[a:z] = E
        # routes: the first that holds decides
        R = np.zeros((k, plan.n_routes + 1), dtype=bool, order="F")
        for q in range(plan.n_routes):
            ok = np.ones(k, dtype=bool)
            if len(plan.route_any[q]):
                ok &= S[:, plan.route_any[q]].any(axis=1)
            if len(plan.route_all[q]):
                ok &= S[:, plan.route_all[q]].all(axis=1)
            if len(plan.route_none[q]):
                ok &= ~S[:, plan.route_none[q]].any(axis=1)
            R[:, q] = ok
        R[:, plan.n_routes] = True
        D = np.argmax(R, axis=1)
        decision[a:z] = D
        pr, pc = np.nonzero(S)
        o = np.lexsort((K[pr, pc], pr))
        sig_rows.append(pr[o] + a)
        sig_vals.append(pc[o])
        if not want.outputs:
            texts.forget()
            continue

        # matched line: the first positive signal of the route (in order) with a position
        Q = np.full((k, n_tsig), _BIG, dtype=np.int32, order="F")
        for j, rs in enumerate(plan.sig_rules):
            for r in rs.tolist():
                if slot_of_rule[r] >= 0:
                    rows, at = blk.pos.rows(int(slot_of_rule[r])), blk.pos.values(int(slot_of_rule[r]))
                    on = E[rows, r]
                    rows, at = rows[on], at[on]
                    Q[rows, j] = np.minimum(Q[rows, j], at)
                if r in regex_start:
                    np.minimum(Q[:, j], regex_start[r], out=Q[:, j])
        routed = D < plan.n_routes
        for q in np.unique(D[routed]).tolist():
            ps = plan.route_pos[q]
            if not ps:
                continue
            rows_q = np.flatnonzero(D == q)
            qq = Q[np.ix_(rows_q, ps)]
            cand = extracted[np.ix_(rows_q, ps)] & (qq < _BIG)
            has = cand.any(axis=1)
            pos = qq[np.arange(len(rows_q)), np.argmax(cand, axis=1)]
            line_rows.append(rows_q[has] + a)
            line_pos.append(pos[has])
        if line_rows:
            lr = np.concatenate(line_rows).tolist()
            lp = np.concatenate(line_pos).tolist()
            if skip:
                keep = [k for k, r in enumerate(lr) if r not in skip]
                lr, lp = [lr[k] for k in keep], [lp[k] for k in keep]
            for r, at, line in zip(lr, lp, _lines_at(texts, lr, lp), strict=True):
                if not line:  # a match on a blank line: classify()'s own loop decides
                    line = _exact_line(plan, E[r - a], S[r - a], plan.route_pos[int(D[r - a])], texts.text(r), texts.findings(r))
                if line is not None:
                    lines[r] = line
            line_rows.clear()
            line_pos.clear()
        # templates and captures, only where needed
        need = plan.needs_facts[D]
        if want.classifications and plan.capture_rules:
            need = need | E[:, plan.capture_mask].any(axis=1)
        for rr in np.flatnonzero(need).tolist():
            r = rr + a
            if r in skip:
                continue
            text = texts.text(r)
            findings = texts.findings(r)
            facts = _facts(plan, E[rr], text, findings)
            if plan.needs_facts[D[rr]]:
                d = plan.decisions[int(D[rr])]
                f = dict(facts)
                if plan.needs_text[D[rr]]:
                    f.setdefault("text", (redact(text, findings=findings) if findings else text).strip())
                overrides[r] = (render_template(d["title"], f), render_template(d["detail"], f))
            if want.classifications and facts:
                facts_out[r] = facts
        # source locations (tables with [[locate]] rules)
        if plan.locate:
            cand_l = np.zeros(k, dtype=bool)
            for _loc, _rx, units in plan.locate:
                for u in units:
                    cand_l |= blk.candidates(u)
            for rr in np.flatnonzero(cand_l).tolist():
                r = rr + a
                if r in skip or not texts.has_text(r):
                    continue
                found = _locate(plan, texts.text(r), texts.findings(r))
                if found is not None:
                    located[r] = found
        texts.forget()

    rows_all = np.concatenate(sig_rows) if sig_rows else np.zeros(0, dtype=np.int64)
    vals_all = np.concatenate(sig_vals) if sig_vals else np.zeros(0, dtype=np.int64)
    return Part(
        lo=lo, hi=hi, decision=decision,
        sig_ptr=np.searchsorted(rows_all, np.arange(m + 1)).astype(np.int64),
        sig_ids=vals_all.astype(np.int32), lines=lines, overrides=overrides, located=located,
        facts=facts_out,
        signal_matrix=smat, rule_matrix=rmat,
    )


def _eval_rules(plan: Plan, cols: Columns, blk: _Block, lo: int, hi: int) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """The records × extract-rules matrix of rows ``lo..hi``, and regex match starts.

    The starts (byte offsets; big = none) are kept for the regex rules whose signal can
    name a route's matched line and matched in the block.
    """
    k = hi - lo
    G = blk.G
    E = np.ones((k, plan.n_rules), dtype=bool, order="F")
    exit_v, exit_k = cols.exit_code[lo:hi], cols.exit_known[lo:hi]
    sig_v, sig_k = cols.signal[lo:hi], cols.signal_known[lo:hi]
    starts: dict[int, np.ndarray] = {}
    for r, rule in enumerate(plan.table.extract):
        col = E[:, r]
        if rule.exit_code:
            col &= exit_k & np.isin(exit_v, rule.exit_code)
        if rule.has_signal is not None:
            col &= sig_k == rule.has_signal
        if rule.posix_signal:
            col &= sig_k & np.isin(sig_v, rule.posix_signal)
        if rule.frame_error is not None:
            col &= cols.frame_error[lo:hi] == rule.frame_error
        if rule.frame_subtype:
            ok = np.zeros(k, dtype=bool)
            for i, st in cols.subtype.between(lo, hi):
                ok[i - lo] = isinstance(st, str) and any(s in st for s in rule.frame_subtype)
            col &= ok
        if rule.field is not None:
            ok = np.full(k, _field_holds(rule, plan.ct, {}), dtype=bool)
            for i, f in cols.fields.between(lo, hi):
                ok[i - lo] = _field_holds(rule, plan.ct, f)
            col &= ok
        for g, want in ((plan.g_contains[r], True), (plan.g_and[r], True), (plan.g_unless[r], False)):
            if g >= 0:
                col &= G[:, g] if want else ~G[:, g]
        if rule.regex is not None:
            # Where the rule can name the matched line, every alternative is searched
            # (the leftmost match counts); else the first match is enough.
            base = col.copy()
            col[:] = False
            need_start = r in plan.regex_line_routes
            first: dict[int, int] = {}
            for u in plan.rule_units[r]:
                cand = base & blk.candidates(u)
                if not need_start:
                    if blk.answered(u):  # exactly where it matches: nothing to search
                        col |= cand
                        continue
                    cand &= ~col
                for i in np.flatnonzero(cand).tolist():
                    at = blk.unit_start(u, i)
                    if at >= 0:
                        col[i] = True
                        if need_start and at < first.get(i, _BIG):
                            first[i] = at
            if first:
                start = np.full(k, _BIG, dtype=np.int32)
                start[np.fromiter(first, dtype=np.int64)] = np.fromiter(first.values(), dtype=np.int32)
                starts[r] = start
    return E, starts


def _facts(plan: Plan, fired: np.ndarray, text: str, findings: list[Any]) -> dict[str, str]:
    """classify()'s captured facts: the fired capture rules' named groups, first wins,
    with secrets masked."""
    facts: dict[str, str] = {}
    for r, rx in plan.capture_rules:
        if not fired[r]:
            continue
        mt = rx.search(text)
        if mt is not None:
            for key, v in mt.groupdict().items():
                if v and key not in facts:
                    g = rx.groupindex[key]
                    facts[key] = _shown(text, mt.start(g), mt.end(g), findings).strip()
    return facts


def _locate(plan: Plan, text: str, findings: list[Any]) -> tuple[Any, Any] | None:
    """classify()'s source location: the first [[locate]] regex that matches, its groups."""
    for _loc, rx, _units in plan.locate:
        mt = rx.search(text)
        if mt is not None:
            gd = mt.groupdict()
            file = gd.get("file")
            if file and findings:
                g = rx.groupindex["file"]
                file = _shown(text, mt.start(g), mt.end(g), findings)
            line = gd.get("line")
            return file, int(line) if line and line.isdigit() else None
    return None


def _exact_line(plan: Plan, fired: np.ndarray, present: np.ndarray, ps: list[int], text: str, findings: list[Any]) -> str | None:
    """classify()'s matched-line loop for one row, run as it is."""
    hay = _ascii_lower(text)
    rules = plan.table.extract
    line = None
    for j in ps:
        if not present[j]:
            continue
        rule_ids = [rules[r].id for r in plan.sig_rules[j].tolist() if fired[r]]
        if not rule_ids:
            continue
        at = _matched_pos(rule_ids, plan.ct, text, hay)
        line = None if at is None else _shown_line(text, at, findings)
        if line:
            break
    return line


def _ascii_lower(text: str) -> str:
    """:func:`failtax.evidence.ascii_lower`, through bytes (much faster on non-ASCII text)."""
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


# =========================================================================== running parts


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def _jobs(n_jobs: int | None, n: int, plan: Plan) -> int:
    if n <= 1 or plan.engine.name != "hyperscan" or not _can_fork():
        return 1  # the polars engine is threaded already and must not run in a fork
    if n_jobs is None:
        return max(1, min(os.cpu_count() or 1, n // MIN_ROWS_PER_PROCESS))
    return max(1, min(int(n_jobs), n))


def run(plan: Plan, cols: Columns, want: Want, n_jobs: int | None) -> list[Part]:
    """Resolve all rows, split across forked processes when that pays."""
    n = cols.n
    jobs = _jobs(n_jobs, n, plan)
    bounds = np.linspace(0, n, jobs + 1).astype(int).tolist()
    if jobs == 1:
        return [_run_part(plan, cols, 0, n, want)]
    children = []
    for p in range(1, jobs):
        lo, hi = bounds[p], bounds[p + 1]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child computes, sends and leaves without the parent's exit hooks
            code = 1
            try:
                os.close(r)
                part = _run_part(plan, cols, lo, hi, want)
                with os.fdopen(w, "wb") as fh:
                    pickle.dump(part, fh, protocol=pickle.HIGHEST_PROTOCOL)
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        children.append((pid, r, lo, hi))
    parts = [_run_part(plan, cols, bounds[0], bounds[1], want)]
    for pid, r, lo, hi in children:
        with os.fdopen(r, "rb") as fh:
            data = fh.read()
        _, status = os.waitpid(pid, 0)
        if status == 0 and data:
            parts.append(pickle.loads(data))
        else:  # a child that died: its rows are done again here
            parts.append(_run_part(plan, cols, lo, hi, want))
    return parts


def singles(cols: Columns, table: RuleTable) -> dict[int, Classification]:
    """Rows that are not evidence mappings at all: classified one by one, as classify does."""
    return {i: classify(cols.raw.record(i), taxonomy=table.taxonomy, table=table) for i in sorted(cols.python_rows)}
