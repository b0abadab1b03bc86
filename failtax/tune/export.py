"""Export a tuned table with provenance and a diff; replay history under two tables.

:func:`export_table` writes the revised table as TOML, atomically
(:func:`failtax.table.save_table`), with its minor version bumped and a provenance
header saying what it was learned from (data window, event and label counts, the
tuner's parameters, the predicted agreement before and after with intervals, and each
change with its support). It refuses a table that :func:`failtax.lint.lint_table`
finds errors in. It returns the rule-by-rule diff (:func:`failtax.table.diff_tables`)
and, given the decisions, the events that would move between buckets — which is
exactly what ``failtax classify --table PATH`` then does with those events.

:func:`replay_history` replays decisions (a frame, a telemetry glob or a database)
under two tables: moved events and the agreement change overall and per bucket.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

from failtax.analysis.stats import format_gain
from failtax.errors import InputError, TableError
from failtax.table import RuleTable, TableDiff, diff_tables, load_table, save_table
from failtax.tune.replay import ReplayResult, replay_decisions
from failtax.tune.tuner import TableTuner, bump_minor

__all__ = ["ExportResult", "export_table", "load_decisions", "replay_history"]


@dataclass(frozen=True)
class ExportResult:
    """What :func:`export_table` wrote: the file, the table, its diff and the moved events."""

    path: Path
    table: RuleTable
    base: RuleTable
    diff: TableDiff
    replay: ReplayResult | None
    warnings: tuple[str, ...] = ()

    def __str__(self) -> str:
        lines = [f"wrote {self.path} ({self.table.name} {self.table.version}, from {self.base.version})", str(self.diff)]
        if self.replay is not None:
            lines.append(str(self.replay))
        if self.warnings:
            lines.append("lint warnings:")
            lines += [f"  {w}" for w in self.warnings]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "name": self.table.name,
            "version": self.table.version,
            "base_version": self.base.version,
            "diff": self.diff.to_records(),
            "replay": self.replay.to_dict() if self.replay is not None else None,
            "warnings": list(self.warnings),
        }


def _freeze(d: dict[str, Any]) -> dict[str, Any]:
    """Provenance values as TOML writes and reads them back (lists become tuples)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if v is None:
            continue
        out[k] = tuple(v) if isinstance(v, list | tuple) else v
    return out


def _lint(table: RuleTable, known_signals: tuple[str, ...]) -> tuple[str, ...]:
    """Refuse a table with lint errors; return the warnings as text."""
    try:
        from failtax.lint import lint_table
    except ImportError:  # pragma: no cover - lint ships with the package
        table.compiled()
        return ()
    findings = lint_table(table, known_signals=known_signals)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise TableError("refusing to export a table with lint errors:\n" + "\n".join(str(f) for f in errors),
                         path=table.path)
    return tuple(str(f).splitlines()[0] for f in findings)


def export_table(
    tuner_or_table: TableTuner | RuleTable | str | os.PathLike[str],
    path: str | os.PathLike[str],
    *,
    base: Any = None,
    decisions: Any = None,
    version: str | None = None,
    created: str | None = None,
    use_text: bool = True,
) -> ExportResult:
    """Write a revised table (TOML, atomically) with provenance; return its diff and moved events.

    Parameters
    ----------
    tuner_or_table : a fitted :class:`TableTuner` (its ``table_`` is written) or a
        RuleTable / path / name (e.g. after :func:`~failtax.tune.apply_signal_proposals`).
    path : where to write; the previous file stays intact if anything fails.
    base : the table it revises (default: the tuner's base table, or the shipped table
        of the same taxonomy).
    decisions : the decisions to replay for the moved events (and, for a plain table,
        the provenance's data window and agreement).
    version : the new version (default: the base's version with the minor part bumped
        when the rules changed).
    created : the date for the provenance (default: today, UTC).
    use_text : route on the signals found in ``text`` too when replaying.

    Returns
    -------
    ExportResult with ``diff`` (rule by rule) and ``replay`` (moved events; ``None``
    without decisions).

    Raises
    ------
    TableError when the table has lint errors (nothing is written).

    >>> import tempfile, os
    >>> from failtax.tune.synthetic import synthetic_decisions
    >>> df = synthetic_decisions("replay", n_events=3000, seed=1, defects="misleading")
    >>> t = TableTuner("replay", cv=None).fit(df)
    >>> r = export_table(t, os.path.join(tempfile.mkdtemp(), "replay.toml"), decisions=df)
    >>> r.table.version, len(r.diff) > 0, r.replay.n_moved > 0
    ('1.1.0', True, True)
    """
    if isinstance(tuner_or_table, TableTuner):
        tuner = tuner_or_table
        if not hasattr(tuner, "table_"):
            raise InputError("the tuner is not fitted yet: call fit(decisions) first")
        table = tuner.table_
        base_t = load_table(base) if base is not None else tuner.base_table_
        prov = dict(tuner.table_.provenance)
    else:
        tuner = None
        table = load_table(tuner_or_table)
        base_t = load_table(base if base is not None else table.taxonomy)
        prov = {"source": "failtax export", "base_table": base_t.name, "base_version": base_t.version}
    if base_t.taxonomy != table.taxonomy:
        raise InputError(f"base table is for taxonomy {base_t.taxonomy!r}, the table for {table.taxonomy!r}")
    changed = (table.extract, table.route, table.fallback) != (base_t.extract, base_t.route, base_t.fallback)
    if version is None:
        version = bump_minor(base_t.version) if changed else base_t.version
    rep = replay_decisions(base_t, table, decisions, use_text=use_text) if decisions is not None else None
    if rep is not None and tuner is None:
        from failtax.analysis.frames import as_frame

        df = as_frame(decisions, what="decisions")
        if "taxonomy" in df.columns:
            df = df.filter(pl.col("taxonomy") == table.taxonomy)
        if "ts" in df.columns and df.height:
            ts = df["ts"].cast(pl.Datetime("us")).drop_nulls()
            if ts.len():
                prov["data_from"] = ts.min().isoformat()
                prov["data_to"] = ts.max().isoformat()
        prov["events"] = rep.events
        prov["decided"] = rep.decisions
        prov["agreement_before"] = f"{rep.before.value:.4f} [{rep.before.low:.4f}, {rep.before.high:.4f}] (n={rep.before.n})"
        prov["agreement_after"] = f"{rep.after.value:.4f} [{rep.after.low:.4f}, {rep.after.high:.4f}] (n={rep.after.n})"
        prov["agreement_gain"] = format_gain(rep.gain, rep.gain_low, rep.gain_high)
    if rep is not None:
        prov["events_moved"] = rep.n_moved
    prov["created"] = created or datetime.now(timezone.utc).date().isoformat()
    prov["changed"] = changed
    out = dataclasses.replace(table, version=version, provenance=_freeze(prov), path=None)
    known = tuple(sorted(set(out.signals) | set(base_t.signals)))
    warnings = _lint(out, known)
    written = save_table(out, path)
    reread = load_table(written)
    if (reread.extract, reread.route, reread.fallback, reread.version) != (out.extract, out.route, out.fallback, out.version):
        raise TableError("the written table does not read back as written", path=str(written))
    return ExportResult(path=written, table=reread, base=base_t, diff=diff_tables(base_t, reread), replay=rep,
                        warnings=warnings)


def load_decisions(*, telemetry: Any = None, db: Any = None, decisions: Any = None,
                   taxonomy: str | None = None) -> pl.DataFrame:
    """The ``decisions`` relation as polars, from a frame, telemetry files or a database.

    Exactly one of ``decisions``, ``telemetry`` (files, globs or folders, loaded in
    memory) or ``db`` (a database built by ``failtax load``) must be given. Rows of other
    taxonomies are dropped when ``taxonomy`` is given.
    """
    given = [x is not None for x in (telemetry, db, decisions)]
    if sum(given) != 1:
        raise InputError("give exactly one of decisions, telemetry (files or globs) or db (a database file)")
    if decisions is not None:
        from failtax.analysis.frames import as_frame

        df = as_frame(decisions, what="decisions")
    else:
        from failtax.telemetry import connect, load

        tel = load(telemetry, progress=False) if telemetry is not None else connect(db)
        try:
            df = tel.decisions.pl()
        finally:
            tel.close()
    if taxonomy is not None and "taxonomy" in df.columns:
        df = df.filter(pl.col("taxonomy") == taxonomy)
    return df


def replay_history(old: Any, new: Any, *, telemetry: Any = None, db: Any = None, decisions: Any = None,
                   use_text: bool = True) -> ReplayResult:
    """Replay recorded decisions under ``old`` and ``new``: moved events, agreement change.

    Parameters
    ----------
    old, new : tables (RuleTable, path or shipped name) of one taxonomy.
    telemetry : telemetry files or globs (loaded in memory), or
    db : a database built by ``failtax load``, or
    decisions : the decisions relation itself.

    Returns
    -------
    ReplayResult: events that move (per old → new bucket pair, with example event ids),
    agreement before/after with a Newcombe interval of the gain, per-bucket agreement.

    >>> import polars as pl
    >>> df = pl.DataFrame({"event_id": ["a"], "signals": [["selector-timeout"]], "user_action": ["regenerate"]})
    >>> replay_history("replay", "replay", decisions=df).n_moved
    0
    """
    t_old = load_table(old)
    df = load_decisions(telemetry=telemetry, db=db, decisions=decisions, taxonomy=t_old.taxonomy)
    return replay_decisions(t_old, load_table(new), df, use_text=use_text)
