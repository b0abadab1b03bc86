"""The scheduled tuning report: telemetry in, one self-contained HTML page and a summary out.

:func:`build_report` runs these steps in order, each timed and named in progress
output and in any error:

=========== =====================================================================
step        what it does
=========== =====================================================================
load        load the telemetry files (or open ``--db``) into DuckDB; read ``decisions``
agreement   agreement overall, per taxonomy and per week; kappa, macro-F1, confusion
rules       re-classify every event under the shipped table (batch engine); rule
            coverage and accuracy, unknown signals, recognition rate per week
signals     misleading signals: match rate vs baseline, lift per bucket, examples
tune        fit :class:`~failtax.tune.TableTuner` per taxonomy (proposed changes, watch
            list) and backtest it: fit on earlier weeks, score on later ones, at three
            cut-offs; the fits run in parallel worker processes on large data
moves       re-classify under the proposed table (batch engine): events moving buckets
plots       the seven figures
write       ``index.html``, ``summary.json``, ``summary.md`` (+ proposed tables), atomically
=========== =====================================================================

Nothing in the output folder changes until every step has succeeded: the report is
written into a temporary folder beside it and its files are then moved into place one
by one with :func:`os.replace`, so a crash or a failed step leaves the previous report
as it was.

Errors: a bad input (no such file, a glob matching nothing, an unreadable database, an
unknown taxonomy, an empty window) raises :class:`ReportInputError`; anything else that
goes wrong inside a step raises :class:`ReportStepError`. Both name the step.
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from failtax.errors import FailtaxError, InputError, describe_os_error, folder_blocked, os_errors_named
from failtax.report.summary import order_taxonomies

__all__ = [
    "STEPS",
    "ReportInputError",
    "ReportResult",
    "ReportStepError",
    "build_report",
    "find_sample_telemetry",
    "load_decisions",
    "measure_report_agreement",
    "suggestion_taxonomies",
]

STEPS = ("load", "agreement", "rules", "signals", "tune", "moves", "plots", "write")

#: The decisions columns the report reads (``metadata`` is left in the database).
REPORT_COLUMNS = (
    "event_id", "family", "taxonomy", "ts", "resolved_ts", "week", "skill", "project_id", "run_id",
    "test_case_id", "ai_bucket", "ai_suggestion", "signals", "user_action", "implied_bucket", "decided",
    "opt_out", "agree", "latency_s", "text",
)  # + metadata, for pre-execution events only


class ReportStepError(FailtaxError):
    """A report step failed unexpectedly; ``step`` names it, ``cause`` is the error.

    >>> str(ReportStepError("tune", ValueError("boom")))
    "report step 'tune' failed: ValueError: boom"
    """

    def __init__(self, step: str, cause: BaseException):
        self.step = step
        self.cause = cause
        super().__init__(f"report step {step!r} failed: {type(cause).__name__}: {cause}")


class ReportInputError(InputError):
    """The report cannot run on what it was given (files, database, options); names the step.

    >>> str(ReportInputError("load", "data/*.jsonl: matched no telemetry files"))
    "report step 'load': data/*.jsonl: matched no telemetry files"
    """

    def __init__(self, step: str, message: str):
        self.step = step
        super().__init__(f"report step {step!r}: {message}")


@dataclass(frozen=True)
class ReportResult:
    """What :func:`build_report` wrote and found.

    ``failed_checks`` lists the ``--fail-under`` / ``--min-recognition`` checks that
    failed, in words; :attr:`exit_code` is 1 when any did, else 0.
    """

    out: Path
    index_html: Path
    summary_json: Path
    summary_md: Path
    summary: dict[str, Any]
    failed_checks: tuple[str, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    tables: tuple[Path, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 when every check passed, 1 when one failed (the scheduler's signal)."""
        return 1 if self.failed_checks else 0


# --------------------------------------------------------------------------- progress


class _Progress:
    """Step names on stderr: a tqdm bar on a terminal, one plain line per step otherwise."""

    def __init__(self, enabled: bool, total: int):
        self.enabled = enabled
        self.bar = None
        self.i = 0
        self.total = total
        self.timings: dict[str, float] = {}
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="failtax report:", unit="step", file=sys.stderr, leave=False,
                            bar_format="{desc} {bar} {n_fmt}/{total_fmt} steps, {elapsed}")

    def start(self, name: str) -> None:
        self.i += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_description_str(f"failtax report: {name:<9}")
        else:
            print(f"failtax report: step {self.i}/{self.total} {name} …", file=sys.stderr, flush=True)

    def done(self, name: str, seconds: float) -> None:
        self.timings[name] = seconds
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@contextmanager
def _step(progress: _Progress, name: str) -> Iterator[None]:
    progress.start(name)
    t0 = time.perf_counter()
    try:
        yield
    except (ReportInputError, ReportStepError):
        raise
    except FailtaxError as exc:
        raise ReportInputError(name, str(exc)) from exc
    except OSError as exc:
        if exc.filename is None:
            raise ReportStepError(name, exc) from exc
        raise ReportInputError(name, describe_os_error(exc)) from exc
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        raise ReportStepError(name, exc) from exc
    progress.done(name, time.perf_counter() - t0)


# --------------------------------------------------------------------------- load


def find_sample_telemetry(start: str | os.PathLike[str] | None = None) -> Path:
    """The bundled sample telemetry folder ``data/``.

    Looked for in ``start`` (default: the current directory) and its parents — a
    ``data/`` of a failtax checkout, or one written by ``failtax simulate`` (it holds
    ``truth.json``) — then beside the installed package (a checkout installed in
    editable mode).

    Raises
    ------
    InputError
        naming where it looked and how to point ``--telemetry`` at files instead.
    """
    tried = []
    here = Path(start or os.getcwd()).resolve()
    for base in (here, *here.parents):
        cand = base / "data"
        tried.append(cand)
        # Only failtax's sample: a checkout's data/, or a folder `failtax simulate` wrote
        # (never some other project's data/ that happens to hold JSON Lines).
        if _has_telemetry(cand) and (_is_checkout(base) or (cand / "truth.json").is_file()):
            return cand
    import failtax

    cand = Path(failtax.__file__).resolve().parent.parent / "data"
    tried.append(cand)
    if _has_telemetry(cand):
        return cand
    raise InputError(
        f"no sample telemetry found (looked in {tried[0]} and its parents, and {cand}); "
        "run from the failtax checkout, or point at your files: "
        "failtax report --telemetry 'logs/**/*.jsonl' (or --db FILE from `failtax load`)"
    )


def _is_checkout(base: Path) -> bool:
    try:
        text = (base / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return False
    return 'name = "failtax"' in text


def _has_telemetry(folder: Path) -> bool:
    if not folder.is_dir():
        return False
    for pattern in ("*.jsonl", "*.jsonl.gz", "*.ndjson", "*.ndjson.gz"):
        if any(folder.rglob(pattern)):
            return True
    return False


@dataclass(frozen=True)
class LoadedDecisions:
    """The decisions the report works on, with what the load saw."""

    decisions: pl.DataFrame
    sources: tuple[str, ...]
    db: str | None
    quarantine_by_reason: dict[str, int]
    lines_read: int | None
    taxonomies: tuple[str, ...]
    #: taxonomy → resolved events in the window with no classified event before them
    orphans: dict[str, int] = field(default_factory=dict)
    #: files of the folders given that were not read (not named as telemetry)
    left_out: tuple[str, ...] = ()


def _parse_since(since: Any) -> _dt.date | None:
    if since is None or since == "":
        return None
    if isinstance(since, _dt.datetime):
        return since.date()
    if isinstance(since, _dt.date):
        return since
    try:
        return _dt.date.fromisoformat(str(since)[:10])
    except ValueError:
        raise InputError(f"--since: not a date (YYYY-MM-DD): {since!r}") from None


def load_decisions(*, telemetry: str | Sequence[str] | None = None, db: str | os.PathLike[str] | None = None,
                   taxonomy: str | None = None, since: Any = None, until: Any = None,
                   progress: bool = False) -> LoadedDecisions:
    """Load telemetry (or open a database) and return the decisions in a window, as polars.

    This is the report's ``load`` step; the notebooks call it with their parameters.

    Parameters
    ----------
    telemetry : files, globs or folders (one or a list); default the bundled ``data/``
        sample when ``db`` is not given either.
    db : a DuckDB file built by ``failtax load``; with ``telemetry`` it is extended
        (incrementally), alone it is only read.
    taxonomy : keep one taxonomy (``replay``, ``regen``, ``preexec``); default all.
    since, until : keep decisions classified on or after ``since`` and before ``until``
        (dates or ISO strings).
    progress : show the loader's progress bar (only on a terminal).

    Returns
    -------
    LoadedDecisions
        ``decisions`` (polars, the contract's columns without ``metadata``),
        ``sources``, ``db``, ``quarantine_by_reason``, ``lines_read``, ``taxonomies``.

    >>> ld = load_decisions(telemetry="data", since="2000-01-01")   # doctest: +SKIP
    """
    from failtax.taxonomy import list_taxonomies
    from failtax.telemetry import connect, load

    if taxonomy is not None and taxonomy not in list_taxonomies():
        raise InputError(f"unknown taxonomy {taxonomy!r}; use one of {', '.join(list_taxonomies())}")
    start, end = _parse_since(since), _parse_since(until)
    if isinstance(telemetry, str | os.PathLike):
        telemetry = [os.fspath(telemetry)]
    sources: tuple[str, ...]
    if telemetry:
        tel = load(list(telemetry), db=db, progress=progress and sys.stderr.isatty())
        sources = tuple(str(t) for t in telemetry)
    elif db is not None:
        tel = connect(db, read_only=True)
        sources = ()
    else:
        sample = find_sample_telemetry()
        tel = load([str(sample)], progress=progress and sys.stderr.isatty())
        sources = (str(sample),)
    try:
        where, params = [], []
        if start is not None:
            where.append("ts >= ?")
            params.append(_dt.datetime.combine(start, _dt.time()))
        if end is not None:
            where.append("ts < ?")
            params.append(_dt.datetime.combine(end, _dt.time()))
        if taxonomy is not None:
            where.append("taxonomy = ?")
            params.append(taxonomy)
        # metadata is only read for pre-execution events (their age of the last pass).
        cols = ", ".join(REPORT_COLUMNS) + ", CASE WHEN taxonomy = 'preexec' THEN CAST(metadata AS VARCHAR) END AS metadata"
        sql = f"SELECT {cols} FROM decisions" + (" WHERE " + " AND ".join(where) if where else "")
        decisions = tel.sql(sql, params or None).pl()
        q = dict(tel.sql("SELECT reason, count(*) FROM quarantine GROUP BY reason ORDER BY 2 DESC, 1").fetchall())
        orphans = dict(tel.sql(
            "SELECT f.taxonomy, count(*) FROM orphan_resolutions JOIN _taxonomy_families f USING (family)"
            + (" WHERE " + " AND ".join(where) if where else "") + " GROUP BY 1 ORDER BY 1", params or None).fetchall())
        lines = tel.summary.lines_read if tel.summary is not None else None
        left_out = tel.summary.left_out if tel.summary is not None else ()
        db_path = tel.db
    finally:
        tel.close()
    present = order_taxonomies(decisions["taxonomy"].drop_nulls().unique().to_list())
    return LoadedDecisions(decisions=decisions, sources=sources, db=db_path,
                           quarantine_by_reason={str(k): int(v) for k, v in q.items()},
                           lines_read=lines, taxonomies=tuple(present),
                           orphans={str(k): int(v) for k, v in orphans.items()}, left_out=tuple(left_out))


#: The pre-execution taxonomy: a person who accepts the AI's mode leaves no event, so
#: its decisions are overrides only. It gets override rates, not agreement or tuning.
PREEXEC = "preexec"


def suggestion_taxonomies(taxonomies: Sequence[str]) -> tuple[str, ...]:
    """The taxonomies whose events are paired with a decision either way (all but ``preexec``).

    Agreement, rule diagnostics, misleading signals and tuning need decisions that can
    agree or disagree; pre-execution decisions are recorded only when a person overrides,
    so learning from them would learn only from the AI's mistakes.

    >>> suggestion_taxonomies(["replay", "regen", "preexec"])
    ('replay', 'regen')
    """
    return tuple(t for t in taxonomies if t != PREEXEC)


# --------------------------------------------------------------------------- steps


@dataclass
class _Work:
    """What the steps compute, filled in order (internal)."""

    loaded: LoadedDecisions | None = None
    agreement: Any = None
    weekly: pl.DataFrame | None = None
    preexec: Any = None
    reclassified: dict[str, Any] = field(default_factory=dict)
    diagnostics: dict[str, Any] = field(default_factory=dict)
    signals: dict[str, Any] = field(default_factory=dict)
    tuners: dict[str, Any] = field(default_factory=dict)
    backtests: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, str] = field(default_factory=dict)
    table_errors: dict[str, str] = field(default_factory=dict)
    moves: pl.DataFrame | None = None
    figures: list[tuple[str, str, Any]] = field(default_factory=list)


def measure_report_agreement(decisions: Any, *, since: Any = None) -> Any:
    """Agreement as the report measures it: over the taxonomies whose events are paired
    with a decision either way (not pre-execution, see :func:`suggestion_taxonomies`),
    sliced by taxonomy, week, skill and AI bucket.

    Returns
    -------
    failtax.analysis.AgreementReport

    >>> df = pl.DataFrame({"taxonomy": ["replay", "preexec"], "decided": [True, True],
    ...     "opt_out": [False, False], "agree": [True, False], "implied_bucket": [None, None],
    ...     "ai_bucket": ["infra", "regen"], "latency_s": [1.0, 2.0], "week": [None, None],
    ...     "skill": ["s", "s"]})
    >>> measure_report_agreement(df).overall["agreement_rate"][0]
    1.0
    """
    from failtax.analysis import measure_agreement
    from failtax.analysis.frames import as_frame

    df = as_frame(decisions, what="decisions")
    present = df["taxonomy"].drop_nulls().unique().to_list() if "taxonomy" in df.columns else []
    taxes = list(suggestion_taxonomies(order_taxonomies(present)))
    return measure_agreement(df, taxonomy=taxes, since=since, slices=("taxonomy", "week", "skill", "bucket"))


def _step_agreement(w: _Work) -> None:
    from failtax.analysis import summarize_preexec_overrides
    from failtax.report.summary import weekly_agreement

    df = w.loaded.decisions
    w.agreement = measure_report_agreement(df)
    w.weekly = weekly_agreement(df, taxonomies=list(suggestion_taxonomies(w.loaded.taxonomies)))
    if PREEXEC in w.loaded.taxonomies:
        w.preexec = summarize_preexec_overrides(df)


def _step_rules(w: _Work) -> None:
    from failtax.analysis import diagnose_rules
    from failtax.report.reclass import reclassify_with_batch

    for tax in suggestion_taxonomies(w.loaded.taxonomies):
        rc = reclassify_with_batch(w.loaded.decisions, taxonomy=tax)
        w.reclassified[tax] = rc
        w.diagnostics[tax] = diagnose_rules(rc)


def _step_signals(w: _Work) -> None:
    from failtax.analysis import find_misleading_signals

    for tax, rc in w.reclassified.items():
        w.signals[tax] = find_misleading_signals(rc)


def _step_tune(w: _Work) -> None:
    from failtax.errors import TableError
    from failtax.report.tuning import fit_tuners_and_backtests
    from failtax.tune import export_table

    w.tuners, w.backtests = fit_tuners_and_backtests(
        w.loaded.decisions, taxonomies=suggestion_taxonomies(w.loaded.taxonomies), random_state=0)
    # The proposed tables, as the tuner's exporter writes them (provenance header, lint
    # check); kept as text until the write step puts them beside the page.
    with tempfile.TemporaryDirectory(prefix="failtax-report-tables-") as tmp:
        for tax, tu in w.tuners.items():
            if not tu.changes_:
                continue
            try:
                path = export_table(tu, Path(tmp) / f"{tax}.toml").path
            except TableError as exc:
                w.table_errors[tax] = str(exc)
                continue
            w.tables[f"tables/{tax}.toml"] = Path(path).read_text(encoding="utf-8")


def _step_moves(w: _Work) -> None:
    from failtax.report.reclass import bucket_moves

    parts = []
    for tax, tuner in w.tuners.items():
        parts.append(bucket_moves(w.loaded.decisions, old=tuner.base_table_, new=tuner.table_, taxonomy=tax))
    w.moves = pl.concat(parts, how="vertical") if parts else None


def _step_plots(w: _Work, *, fail_under: float | None, min_recognition: float | None) -> None:
    from failtax.report import plots
    from failtax.report.summary import backtest_frame, weekly_recognition
    from failtax.report.tuning import backtest_rows
    from failtax.taxonomy import load_taxonomy

    taxes = list(suggestion_taxonomies(w.loaded.taxonomies))
    scores = [s for tax in taxes for s in w.agreement.scores if s.taxonomy == tax]
    diags = [w.diagnostics[t] for t in taxes]
    w.figures = [
        ("agreement-trend", "Agreement per week, overall and per taxonomy, with Wilson 95% intervals; bars: decisions rated.",
         plots.plot_agreement_trend(w.weekly, fail_under=fail_under)),
        ("confusion", "AI bucket × bucket implied by the person's action, counts per cell.",
         plots.plot_confusion(scores)),
        ("signal-lift", "Per-signal lift with 95% intervals for the most misleading signals of each taxonomy.",
         plots.plot_signal_lift([w.signals[t] for t in taxes])),
        ("rule-bars", "Route rules: coverage (share of events decided) and accuracy against implied buckets.",
         plots.plot_rule_bars(diags)),
        ("recognition-trend", "Recognition rate per week (events a rule decides rather than the fallback).",
         plots.plot_recognition_trend(weekly_recognition(diags), min_recognition=min_recognition)),
        ("backtest", "Old vs proposed table, fitted before each cut-off and scored on the weeks after it.",
         plots.plot_backtest(backtest_frame(backtest_rows(w.backtests)))),
        ("bucket-moves", "Events moving between buckets when the proposed table replaces the current one.",
         plots.plot_bucket_moves(w.moves if w.moves is not None else pl.DataFrame(
             schema={"taxonomy": pl.String, "old_bucket": pl.String, "new_bucket": pl.String, "n": pl.Int64}),
             buckets={t: load_taxonomy(t).bucket_names for t in taxes})),
    ]
    # Render here, so the write step only writes (and the step times say where time goes).
    uris = plots.render_uris([fig for _n, _c, fig in w.figures])
    w.figures = [(name, caption, uri) for (name, caption, _f), uri in zip(w.figures, uris, strict=True)]


# --------------------------------------------------------------------------- main


def build_report(
    *,
    telemetry: str | Sequence[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    taxonomy: str | None = None,
    since: Any = None,
    out: str | os.PathLike[str] = "report",
    fail_under: float | None = None,
    min_recognition: float | None = None,
    progress: bool = True,
) -> ReportResult:
    """Run the tuning report and write ``index.html``, ``summary.json`` and ``summary.md``.

    Parameters
    ----------
    telemetry : telemetry files, globs or folders (one or a list); default the bundled
        sample in ``data/`` (unless ``db`` is given).
    db : a DuckDB file from ``failtax load``: read it (alone) or extend it (with ``telemetry``).
    taxonomy : report on one taxonomy only; default every one present.
    since : ignore decisions classified before this date (``YYYY-MM-DD``).
    out : the output folder (created when missing; its report files are replaced).
    fail_under : a check: the result's :attr:`~ReportResult.exit_code` is 1 when the
        overall agreement rate is below this (0–1).
    min_recognition : a check: exit code 1 when the recognition rate is below this.
    progress : print the step names (and times) on stderr while working.

    Returns
    -------
    ReportResult

    Raises
    ------
    ReportInputError
        bad input, naming the step (e.g. a telemetry glob that matches nothing).
    ReportStepError
        a step failed unexpectedly, naming the step; the previous report is left as it was.

    Examples
    --------
    >>> r = build_report(out="/tmp/failtax-report", fail_under=0.8)   # doctest: +SKIP
    >>> r.exit_code, r.summary["agreement"]["rate"]                   # doctest: +SKIP
    (0, 0.87...)
    """
    for name, v in (("fail_under", fail_under), ("min_recognition", min_recognition)):
        if v is not None and not (0.0 <= float(v) <= 1.0):
            raise ReportInputError("load", f"{name.replace('_', '-')} must be a rate between 0 and 1, got {v!r}")
    out_dir = Path(out)
    if (blocked := folder_blocked(out_dir, out_dir)) is not None:  # said now, not after every step has run
        raise ReportInputError("write", blocked)
    prog = _Progress(progress, len(STEPS))
    w = _Work()
    try:
        with _step(prog, "load"):
            w.loaded = load_decisions(telemetry=telemetry, db=db, taxonomy=taxonomy, since=since, progress=progress)
            if w.loaded.decisions.height == 0:
                where = f" since {since}" if since else ""
                raise InputError(f"no classified events{where}" + (f" for taxonomy {taxonomy!r}" if taxonomy else "")
                                 + " in the telemetry; check --telemetry, --since and --taxonomy")
        with _step(prog, "agreement"):
            _step_agreement(w)
        with _step(prog, "rules"):
            _step_rules(w)
        with _step(prog, "signals"):
            _step_signals(w)
        with _step(prog, "tune"):
            _step_tune(w)
        with _step(prog, "moves"):
            _step_moves(w)
        with _step(prog, "plots"):
            _step_plots(w, fail_under=fail_under, min_recognition=min_recognition)
        with _step(prog, "write"):
            from failtax.report.page import assemble

            summary, html, md, tables = assemble(
                w, inputs={"telemetry": list(w.loaded.sources), "db": w.loaded.db, "taxonomy": taxonomy,
                           "since": str(_parse_since(since)) if since else None},
                fail_under=fail_under, min_recognition=min_recognition, timings=prog.timings,
            )
            written = _write_atomically(out_dir, {"index.html": html, "summary.json": summary["_json"],
                                                  "summary.md": md, **tables})
    finally:
        prog.close()
    summary.pop("_json", None)
    if progress:
        total = sum(prog.timings.values())
        print(f"failtax report: wrote {out_dir / 'index.html'} in {total:.1f} s", file=sys.stderr, flush=True)
    return ReportResult(
        out=out_dir, index_html=out_dir / "index.html", summary_json=out_dir / "summary.json",
        summary_md=out_dir / "summary.md", summary=summary,
        failed_checks=tuple(summary["checks"]["failed"]), timings=dict(prog.timings),
        tables=tuple(p for p in written if p.suffix == ".toml"),
    )


def _write_atomically(out_dir: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` (relative name → text) into a temp folder beside ``out_dir``, then
    move each into place with :func:`os.replace`
    (the previous files stay until then). Proposed tables of an earlier report that this
    one does not propose again are removed, so ``tables/`` never holds a stale proposal."""
    out_dir = out_dir.resolve() if out_dir.exists() else out_dir.absolute()
    parent = out_dir.parent
    with os_errors_named(out_dir):  # the folder asked for, not its temporary twin
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".tmp", dir=parent))
    try:
        for name, content in files.items():
            p = tmp / name
            p.parent.mkdir(parents=True, exist_ok=True)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(content)
                fh.flush()
                os.fsync(fh.fileno())
        if not out_dir.exists():
            os.replace(tmp, out_dir)
            return [out_dir / n for n in files]
        written = []
        # Index last: a reader who sees the new page also finds the new summary.
        for name in sorted(files, key=lambda n: n == "index.html"):
            dest = out_dir / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp / name, dest)
            written.append(dest)
        stale = out_dir / "tables"
        if stale.is_dir():
            for old in stale.glob("*.toml"):
                if f"tables/{old.name}" not in files:
                    old.unlink()
        return written
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
