"""The report's HTML page and Markdown summary, from the steps' results.

One page, in reading order: the scheduler checks, the key numbers (each with a
``data-key`` attribute, equal to ``summary.json``), then Agreement, Rules, Misleading
signals, Proposed table (changes, watch list, backtest, moves, diff) and Data quality.
Every plot is an embedded PNG (``<img src="data:image/png;base64,…">``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from failtax.report.html import HtmlPage
from failtax.report.summary import (
    build_summary,
    format_count,
    format_pct,
    format_rate,
    format_weeks,
    jsonable,
    key_numbers,
    render_markdown,
)
from failtax.telemetry.files import count_files

__all__ = ["assemble", "render_html"]

_SECTIONS = [
    ("agreement", "Agreement"),
    ("rules", "Rules"),
    ("signals", "Misleading signals"),
    ("tuning", "Proposed table"),
    ("data", "Data quality"),
]


def _pp(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 100:+.1f} pp"


def render_html(summary: Mapping[str, Any], figures: list[tuple[str, str, Any]],
                *, tables: Mapping[str, str] | None = None, table_errors: Mapping[str, str] | None = None) -> str:
    """The report page from the summary dict and ``(name, caption, Figure or data URI)`` triples.

    ``tables`` maps a taxonomy to the relative path of its proposed table file;
    ``table_errors`` to why its table was not exported.
    """
    win = summary.get("window", {})
    inputs = summary.get("inputs", {})
    src = ", ".join(inputs.get("telemetry") or []) or (inputs.get("db") or "")
    page = HtmlPage(
        title="failtax tuning report",
        subtitle=(f"{win.get('from') or 'n/a'} to {win.get('to') or 'n/a'} ({format_weeks(win.get('weeks'))}) · "
                  f"source: {src} · generated {summary.get('generated_at', '')} · failtax {summary.get('failtax_version', '')}"),
    )
    figs = {name: (caption, fig) for name, caption, fig in figures}
    checks = summary.get("checks", {})
    if checks.get("failed"):
        page.banner("Check failed: " + "; ".join(checks["failed"]), tone="bad", key="checks")
    elif checks.get("thresholds"):
        page.banner("Checks passed: " + "; ".join(checks.get("passed", [])), tone="good", key="checks")
    page.links(_SECTIONS[:-1] + ([("preexec", "Pre-execution overrides")] if summary.get("preexec") else [])
               + _SECTIONS[-1:])
    keys = key_numbers(summary)
    taxes = tuple(f"{t}." for t in summary.get("taxonomies", {}))
    head = [k for k in keys if not k.key.startswith(taxes)] if taxes else keys
    page.cards([(k.label, k.text, k.note, k.tone, k.key) for k in head])
    for tax in summary.get("taxonomies", {}):
        per = [k for k in keys if k.key.startswith(f"{tax}.")]
        page.heading(tax, level=3)
        page.cards([(k.label.split(": ", 1)[-1], k.text, k.note, k.tone, k.key) for k in per])

    def fig(name: str) -> None:
        if name in figs:
            caption, f = figs[name]
            page.figure(f, caption, name=name)

    # ---- agreement
    page.heading("Agreement", anchor="agreement")
    page.paragraph("A decision agrees when the person's action carries out the AI's suggestion; "
                   "skips are opt-outs, counted apart. Intervals are Wilson 95%. Pre-execution choices "
                   "are rated apart (overrides only).", cls="note")
    fig("agreement-trend")
    fig("confusion")
    # ---- rules
    page.heading("Rules", anchor="rules")
    fig("rule-bars")
    fig("recognition-trend")
    for tax, t in summary.get("taxonomies", {}).items():
        unknown = t.get("unknown_signals") or []
        if unknown:
            page.heading(f"{tax}: signals no rule knows", level=3)
            page.table(["signal", "events", "people's usual bucket"],
                       [(u["signal"], u["n_events"], u["top_implied_bucket"] or "") for u in unknown],
                       key=f"{tax}.unknown_signals")
        if t.get("dead_rules"):
            page.paragraph(f"{tax}: rules that never fired: {', '.join(t['dead_rules'])}", cls="note")
    # ---- signals
    page.heading("Misleading signals", anchor="signals")
    page.paragraph("A signal misleads when, where it decides, people's actions imply the table's bucket "
                   "significantly less often than for other events (exact binomial test, Bonferroni). "
                   "'missing rule': no route knows the signal and the fallback is wrong for it.", cls="note")
    for tax, t in summary.get("taxonomies", {}).items():
        sig = t.get("misleading_signals", [])
        page.heading(f"{tax}: top misleading signals", level=3)
        if not sig:
            page.paragraph("None found.", key=f"{tax}.misleading_signals")
            continue
        page.table(["#", "signal", "kind", "routed to", "people chose", "match where it decides", "events"],
                   [(s["rank"], s["signal"], s["kind"], s["routed_bucket"], s.get("override_to") or "",
                     format_rate(s["match"]), s["n_events"]) for s in sig], key=f"{tax}.misleading_signals")
        ex = [(s["signal"], e.get("ai_bucket"), e.get("user_action"), e.get("text") or "")
              for s in sig for e in s.get("examples", [])]
        if ex:
            page.table(["signal", "AI bucket", "person's action", "evidence (redacted)"], ex, max_rows=20,
                       key=f"{tax}.examples")
    fig("signal-lift")
    # ---- tuning
    page.heading("Proposed table", anchor="tuning")
    page.paragraph("The tuner proposes a change only with enough labelled support, a significant gain "
                   "(Bonferroni) and a gain interval above zero; the rest go on the watch list.", cls="note")
    for tax, t in summary.get("taxonomies", {}).items():
        ch = t.get("changes", [])
        tb = t.get("table", {})
        page.heading(f"{tax}: {len(ch)} proposed change(s), table {tb.get('name', tax)} "
                     f"{tb.get('version', '')} → {tb.get('proposed_version', '')}", level=3)
        if ch:
            page.table(["change", "support", "moved", "won / lost", "gain (95%)"],
                       [(c["summary"], c["support"], c["moved"], f"{c['wins']} / {c['losses']}",
                         f"{_pp(c['gain'])} [{_pp(c['gain_low'])}, {_pp(c['gain_high'])}]") for c in ch],
                       key=f"{tax}.changes")
        else:
            page.paragraph("No change proposed.", key=f"{tax}.changes")
        w = t.get("watch", [])
        if w:
            page.table(["watch list: change", "support", "why not yet"],
                       [(c["summary"], c["support"], c["reason"]) for c in w], key=f"{tax}.watch")
        pa = t.get("predicted_agreement")
        if pa and ch:
            page.paragraph(f"Predicted agreement on the fitted weeks: {format_pct(pa['before']['value'])} → "
                           f"{format_pct(pa['after']['value'])} ({_pp(pa['gain'])} "
                           f"[{_pp(pa['gain_low'])}, {_pp(pa['gain_high'])}]).")
        bt = t.get("backtest")
        if bt and bt.get("n"):
            page.paragraph(
                f"Backtest on later weeks (n={format_count(bt['n'])}): {format_pct(bt.get('old_rate'))} → "
                f"{format_pct(bt.get('new_rate'))}, gain {_pp(bt.get('gain'))} "
                f"[{_pp(bt.get('gain_low'))}, {_pp(bt.get('gain_high'))}]"
                + (": recommended for promotion." if bt.get("recommended") else ": not recommended yet."),
                key=f"{tax}.backtest")
        mv = t.get("moves")
        if mv:
            page.paragraph(f"{format_count(mv['moved'])} of {format_count(mv['events'])} events would move "
                           "between buckets.", key=f"{tax}.moves")
        if t.get("diff"):
            page.preformatted(t["diff"])
        if tables and tax in tables:
            page.paragraph(f"Proposed table written to {tables[tax]} — review it, then "
                           f"`failtax classify --taxonomy {tax} --table {tables[tax]}`.", cls="note")
        if table_errors and tax in table_errors:
            page.paragraph(f"The proposed table was not exported: {table_errors[tax]}", cls="flag")
    fig("backtest")
    fig("bucket-moves")
    # ---- pre-execution
    pre = summary.get("preexec")
    if pre:
        page.heading("Pre-execution overrides", anchor="preexec")
        page.paragraph("Before a run, the AI picks replay or regen per test case (seed 000 §A, rules 1–4); a "
                       "person who disagrees records an override, one who agrees records nothing. So these "
                       "decisions are rated as an override rate over all of them, and are not used for "
                       "agreement or tuning.", cls="note")
        page.paragraph(f"Overridden: {format_rate(pre['override'])}.", key="preexec.override_text")
        page.table(["rule fired", "AI mode", "overridden"],
                   [(r["rule"], r["ai_bucket"], format_rate(r["override"])) for r in pre["by_rule"]],
                   key="preexec.by_rule")
        page.table(["days since the last pass", "AI mode", "overridden"],
                   [(r["age_band"], r["ai_bucket"], format_rate(r["override"])) for r in pre["by_age_band"]],
                   key="preexec.by_age_band")
    # ---- data
    page.heading("Data quality", anchor="data")
    q = summary.get("quarantine", {})
    if q.get("by_reason"):
        page.table(["quarantine reason", "lines"],
                   sorted(q["by_reason"].items(), key=lambda kv: (-kv[1], kv[0])), key="quarantine")
    else:
        page.paragraph("No line was quarantined.", key="quarantine")
    dq = summary.get("data_quality", {})
    unknown = dq.get("unknown_values") or []
    if unknown:
        page.paragraph("Values their taxonomy does not define: the events are kept, but an action no taxonomy "
                       "knows implies no bucket and never carries out a suggestion, so it counts against "
                       "agreement. A renamed action or bucket in the tool shows up here.", cls="flag")
        page.table(["taxonomy", "field", "value", "events", "expected"],
                   [(u["taxonomy"], u["field"], u["value"], u["events"], u["expected"]) for u in unknown],
                   max_rows=30, key="unknown_values")
    else:
        page.paragraph("Every AI bucket, suggestion and action is one its taxonomy defines.", key="unknown_values")
    orphans = dq.get("orphan_resolutions") or {}
    if orphans:
        page.paragraph("Resolved events with no classified event before them (the tool asked the person before "
                       "writing its classification, or that line was lost): "
                       + ", ".join(f"{k} {format_count(v)}" for k, v in orphans.items()) + ".",
                       cls="flag", key="orphan_resolutions")
    if dq.get("left_out_files"):
        page.paragraph("Not read, in the folders given (their names are not telemetry names; name a file to read "
                       f"it): {count_files(dq['left_out_files'])}.", cls="flag", key="left_out_files")
    ev = summary.get("events", {})
    page.paragraph("Classified events by taxonomy: "
                   + ", ".join(f"{k} {format_count(v)}" for k, v in ev.get("by_taxonomy", {}).items()), cls="note")
    tm = summary.get("timings", {})
    if tm:
        page.paragraph("Step times: " + ", ".join(f"{k} {v:.1f} s" for k, v in tm.items()), cls="note")
    page.paragraph("Every number on this page is in summary.json beside it.", cls="note")
    return page.render()


def assemble(w: Any, *, inputs: Mapping[str, Any], fail_under: float | None, min_recognition: float | None,
             timings: Mapping[str, float]) -> tuple[dict[str, Any], str, str, dict[str, str]]:
    """Summary dict (with its JSON text under ``_json``), HTML, Markdown, and the proposed
    tables as ``relative path → TOML text``."""
    summary = build_summary(
        decisions=w.loaded.decisions, agreement=w.agreement, diagnostics=w.diagnostics, signals=w.signals,
        tuners=w.tuners, backtests=w.backtests, moves=w.moves, preexec=w.preexec,
        quarantine_by_reason=w.loaded.quarantine_by_reason, lines_read=w.loaded.lines_read,
        orphans=w.loaded.orphans, left_out=w.loaded.left_out, inputs=inputs, fail_under=fail_under,
        min_recognition=min_recognition, timings=timings,
    )
    tables = dict(w.tables)
    rel = {name.split("/", 1)[1].rsplit(".", 1)[0]: name for name in tables}
    html = render_html(summary, w.figures, tables=rel, table_errors=w.table_errors)
    md = render_markdown(summary)
    summary["_json"] = json.dumps(jsonable({k: v for k, v in summary.items() if k != "_json"}),
                                  indent=2, ensure_ascii=False) + "\n"
    return summary, html, md, tables
