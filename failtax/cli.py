"""The ``failtax`` command line: a thin shell over the library.

Each command parses its options, calls one library function, formats the answer, and
turns library errors into a one-line message naming the file, line or rule and what to
do. Exit codes: 0 success; 1 a check failed (``--fail-under``, lint findings with
``--strict``); 2 bad usage or bad input (unknown taxonomy, invalid table, unreadable
file); 3 an unexpected internal error (with the failing step named).
"""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from failtax.errors import FailtaxError, InputError, describe_os_error, folder_blocked

EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
# A write refused for want of room, the usual one being standard output sent to a full disk.
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class _Group(click.Group):
    """Turns library errors into clean messages instead of tracebacks."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except FailtaxError as exc:
            click.echo(f"failtax: error: {exc}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except OSError as exc:  # a path given that cannot be made, read or written: say which, and why
            if exc.filename is None:  # (a refused write of standard output: said by main)
                raise
            click.echo(f"failtax: error: {describe_os_error(exc)}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            click.echo("failtax: interrupted", err=True)
            ctx.exit(130)


def _no_room(exc: OSError) -> bool:
    """Say ``cannot write: <reason>`` for a write refused for want of room (standard output
    on a full disk) and point standard output at the null device, so that what is still
    buffered for it is not refused again as the interpreter shuts down; False, saying
    nothing, for any other error."""
    if exc.filename is not None or exc.errno not in _NO_ROOM:
        return False
    click.echo(f"failtax: error: cannot write: {exc.strerror}", err=True)
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return True


def _taxonomy_choice() -> click.Choice:
    from failtax.taxonomy import list_taxonomies

    return click.Choice(list_taxonomies())


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="failtax")
def cli() -> None:
    """Classify failure evidence, load failure telemetry, measure agreement, tune rules.

    \b
    Typical use:
      failtax classify --taxonomy agent-run errors.jsonl   # one JSON answer per line
      failtax report                                      # tuning report on data/
      failtax table show agent-run                        # read a rule table

    Every command has --help. Exit codes: 0 ok, 1 a check failed, 2 bad input or
    usage, 3 internal error.
    """


# --------------------------------------------------------------------------- classify


@cli.command("classify")
@click.option("--taxonomy", "-t", required=True, type=_taxonomy_choice(), help="Taxonomy to classify into.")
@click.option("--table", "table_path", type=click.Path(dir_okay=False), help="A rule table file (e.g. one exported by `failtax tune`) instead of the shipped default.")
@click.option("--text", "as_text", is_flag=True, help="Classify each FILE (or stdin) as one whole text, e.g. a stderr capture (gzip, bzip2, xz and zstd read decompressed).")
@click.option("--exit-code", type=int, help="With --text: the exit code that went with the text.")
@click.option("--signal", "posix_signal", callback=lambda _ctx, _param, value: _signal_option(value),
              help="With --text: the terminating signal (number or name such as SIGKILL).")
@click.option("--explain", is_flag=True, help="With --text: print the human explanation instead of JSON.")
@click.option("--no-progress", is_flag=True, help="No progress bar (it is shown on stderr only when that is a terminal).")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, allow_dash=False))
def classify_cmd(taxonomy: str, table_path: str | None, as_text: bool, exit_code: int | None,
                 posix_signal: str | None, explain: bool, no_progress: bool, files: tuple[str, ...]) -> None:
    """Classify failure evidence: JSON Lines in, one JSON object out per line.

    \b
    Reads FILES (or stdin when none). Each input line is a JSON object with any of:
      text, exit_code, signal, result_frame, fields, signals, id
    Each output line has id (when given), taxonomy, bucket, signals, rule, and the
    bucket's attributes (suggestion, retryable, severity, title, detail …), in input
    order. A bad line gets {"error": "<file>:<line>: <reason>"} and the stream goes on.

    \b
    Examples:
      echo '{"text": "HTTP 429 Too Many Requests", "exit_code": 1}' \\
        | failtax classify --taxonomy agent-run
      failtax classify --taxonomy devflow --text build.log
      failtax classify --taxonomy agent-run --table tuned.toml history.jsonl
    """
    from failtax.classify import classify
    from failtax.table import load_table

    table = load_table(table_path) if table_path else load_table(taxonomy)
    if table.taxonomy != taxonomy:
        raise click.UsageError(f"table {table_path} is for taxonomy {table.taxonomy!r}, not {taxonomy!r}")
    out = sys.stdout
    if not as_text:
        given = [flag for flag, value in (("--exit-code", exit_code), ("--signal", posix_signal), ("--explain", explain or None))
                 if value is not None]
        if given:
            named = " and ".join([", ".join(given[:-1]), given[-1]] if len(given) > 1 else given)
            raise click.UsageError(f"{named} go{'es' * (len(given) == 1)} with --text "
                                   "(JSON Lines carry each line's own exit_code and signal)")
    if as_text:
        sources = files or ("-",)
        for src in sources:
            data = _read_whole(src)
            rec: dict[str, Any] = {"text": data.decode("utf-8", "replace")}
            if exit_code is not None:
                rec["exit_code"] = exit_code
            if posix_signal is not None:
                rec["signal"] = posix_signal
            c = classify(rec, taxonomy=taxonomy, table=table)
            out.write((c.explain() if explain else _dumps(c.to_dict())) + "\n")
        return
    from failtax.batch import classify_jsonl

    out.flush()
    paths = files or ("-",)
    opening = _opening_bytes(paths[0])
    with _classify_progress(paths, show=not no_progress and sys.stderr.isatty()) as bar:
        errors = classify_jsonl(paths, table=table, out=out, progress=bar.update)
    if errors:
        said = f"failtax classify: {errors:,} line{'s' * (errors != 1)} could not be read; each has an \"error\" line in the output"
        hint = _jsonl_hint(opening, "stdin" if paths[0] == "-" else paths[0], taxonomy)
        click.echo(said + (f"\nhint: {hint}" if hint else ""), err=True)


def _signal_option(value: str | None) -> str | None:
    """``--signal`` as given, once it names a signal (a number, ``KILL`` or ``SIGKILL``)."""
    from failtax.evidence import Evidence

    if value is not None and Evidence.from_record({"signal": value}).signal is None:
        raise click.BadParameter(f"{value!r} is neither a signal number nor a signal name such as KILL or SIGKILL")
    return value


def _jsonl_hint(opening: bytes, name: str, taxonomy: str) -> str | None:
    """What to do about an input whose lines could not be read, told from its first bytes:
    None for JSON Lines (a bad line among good ones needs no hint)."""
    import codecs

    from failtax.evidence import without_utf8_bom

    if opening[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        opening = opening.decode("utf-16", "replace").encode("utf-8")
    head = (without_utf8_bom(opening) or b"").lstrip()
    source = "… | jq -c {}" if name == "stdin" else f"jq -c {{}} {name}"
    one_per_line = f"classify reads one JSON object per line: {source} | failtax classify -t {taxonomy}"
    if head[:1] == b"[":
        return f"{name} holds a JSON array; " + one_per_line.format("'.[]'")
    if head[:1] == b"{" and not head[1:].split(b"\n", 1)[0].strip():  # "{" alone: pretty-printed
        return f"{name} holds JSON written over several lines; " + one_per_line.format(".")
    if head[:1] not in (b"{", b""):
        return f"{name} does not look like JSON Lines; to classify it as one whole text, add --text"
    return None


def _read_whole(path: str, size: int | None = None) -> bytes:
    """A file's bytes, or standard input's for ``-`` (up to ``size``; compressed ones
    decompressed), read as ``failtax classify`` reads its inputs; one it cannot read is
    an InputError naming it."""
    import contextlib

    from failtax._compressed import read_block
    from failtax.batch import open_input, open_stdin

    with contextlib.nullcontext(open_stdin()) if path == "-" else open_input(path) as fh:
        data, failed = read_block(fh, size)
    if failed is not None:  # a corrupt or truncated compressed stream
        raise InputError(f"{'<stdin>' if path == '-' else path}: cannot read: {failed}")
    return data


def _opening_bytes(path: str) -> bytes:
    """The first bytes of an input, read without consuming them (stdin is peeked);
    empty for an input that cannot be read (classifying it will say why)."""
    if path == "-":
        peek = getattr(sys.stdin.buffer, "peek", None)
        return peek(256)[:256] if peek is not None else b""
    try:
        return _read_whole(path, 256)
    except InputError:
        return b""


def _classify_progress(paths: Sequence[str], *, show: bool) -> Any:
    """A bar of input bytes classified (on stderr; off unless ``show``). Its total is the
    files' size when every input is an uncompressed file; stdin or a compressed file
    leave it open-ended."""
    from tqdm import tqdm

    from failtax._compressed import compression

    def uncompressed(p: str) -> bool:
        try:
            return p != "-" and Path(p).is_file() and compression(p) is None
        except OSError:
            return False

    total = sum(Path(p).stat().st_size for p in paths) if all(map(uncompressed, paths)) else None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc="classifying",
                file=sys.stderr, leave=False, disable=not show)


# --------------------------------------------------------------------------- verdict


@cli.command("verdict")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
def verdict_cmd(files: tuple[str, ...]) -> None:
    """Decide one run verdict (seed 000 §F) from per-test outcomes.

    \b
    Reads FILES (or stdin when none): JSON Lines, one object per test case:
      {"outcome": "pass" | "skipped" | <bucket>, "taxonomy": "replay" | "regen",
       "retried": true | false, "id": "<test case id>"}
    (testCaseId works as id; taxonomy is needed for a bucket; blank lines are skipped).

    \b
    Prints ONE JSON object: verdict (PASS, FAIL, PARTIAL, INCONCLUSIVE, BLOCKED or
    SKIPPED), regression_signal, final, total, counts (tests per verdict), retry_due
    (transient tests owed their one retry; counted INCONCLUSIVE until retried), reasons,
    tests (the per-test verdicts) and errors.

    \b
    A bad line (invalid JSON or UTF-8, unknown bucket, wrong type) is listed in errors
    as "<file>:<line>: <reason>", the verdict is decided from the good lines, and the
    exit code is 2 so a script cannot mistake a partial answer for a whole one.

    \b
    Example:
      printf '%s\\n' '{"outcome": "pass"}' \\
        '{"outcome": "stale-script", "taxonomy": "replay"}' | failtax verdict
    """
    from failtax.batch import ReadFailure, iter_lines, parse_jsonl_line
    from failtax.verdict import TestOutcome, decide_verdict

    outcomes: list[TestOutcome] = []
    errors: list[str] = []
    for line in iter_lines(files):
        if isinstance(line, ReadFailure):  # a compressed file cut short: the lines before it still count
            errors.append(str(line))
            continue
        where, n, raw = line
        if not raw.strip():
            continue
        rec, err = parse_jsonl_line(raw, f"{where}:{n}")
        if err is not None:
            errors.append(err["error"])
            continue
        try:
            outcomes.append(TestOutcome.from_record(rec, source=f"{where}:{n}"))
        except InputError as exc:
            errors.append(str(exc))
    result = decide_verdict(outcomes).to_dict()
    result["errors"] = errors
    click.echo(_dumps(result))
    if errors:
        click.echo(
            f"failtax: error: {len(errors)} bad line(s), first: {errors[0]} — fix or remove "
            f"them; the verdict above covers only the {len(outcomes)} good line(s)",
            err=True,
        )
        sys.exit(EXIT_BAD_INPUT)


# --------------------------------------------------------------------------- agreement, signals

_ANALYSIS_TAXONOMIES = ("replay", "regen", "preexec")


def _analysis_options(fn: Any) -> Any:
    """The options `failtax agreement` and `failtax signals` share."""
    opts = [
        click.option("--telemetry", metavar="GLOB", multiple=True,
                     help="Telemetry files, globs or folders to load (in memory); repeatable."),
        click.option("--db", "db", type=click.Path(dir_okay=False), help="A database built by `failtax load --db FILE`."),
        click.option("--parquet", metavar="DIR", type=click.Path(file_okay=False), expose_value=False,
                     callback=_remember_parquet, help="Parquet written by `failtax load PATHS --parquet DIR`."),
        click.option("--taxonomy", "-t", "taxonomies", multiple=True, type=click.Choice(_ANALYSIS_TAXONOMIES),
                     help="Only this taxonomy (repeatable); default: every one present."),
        click.option("--since", metavar="DATE", help="Ignore decisions classified before this ISO date."),
        click.option("--min-count", type=click.IntRange(min=1),
                     help="Flag (not hide) rates resting on fewer decisions [default: 30; signals: 15, "
                          "under which a signal is not tested]."),
        click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def _remember_parquet(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``--parquet DIR`` of the analysis commands, kept for :func:`_load_decisions`."""
    if value is not None:
        ctx.meta["failtax.parquet"] = value


def _load_decisions(telemetry: tuple[str, ...], db: str | None, since: str | None) -> Any:
    """The decisions as polars, from telemetry files, a database or Parquet (validated once)."""
    import datetime as dt

    parquet = click.get_current_context().meta.get("failtax.parquet")
    if sum(1 for x in (telemetry, db, parquet) if x) != 1:
        raise click.UsageError("give --telemetry GLOB (files to load), --db FILE (a loaded database) or "
                               "--parquet DIR (written by `failtax load --parquet`), one of them")
    if since is not None:
        try:
            dt.date.fromisoformat(since)
        except ValueError:
            raise click.BadParameter(f"not an ISO date (YYYY-MM-DD): {since!r}", param_hint="--since") from None
    from failtax.analysis.frames import as_decisions
    from failtax.telemetry import connect, load
    from failtax.telemetry.parquet import open_parquet

    tel = open_parquet(parquet) if parquet else load(list(telemetry)) if telemetry else connect(db)
    try:
        return as_decisions(tel.decisions)
    finally:
        tel.close()


def _present_taxonomies(df: Any, wanted: tuple[str, ...]) -> list[str]:
    present = set(df["taxonomy"].drop_nulls().unique().to_list())
    return [t for t in _ANALYSIS_TAXONOMIES if t in present and (not wanted or t in wanted)]


@cli.command("agreement")
@_analysis_options
@click.option("--rules", "with_rules", is_flag=True, help="Add rule diagnostics of each taxonomy's shipped table.")
def agreement_cmd(telemetry: tuple[str, ...], db: str | None, taxonomies: tuple[str, ...], since: str | None,
                  min_count: int | None, as_json: bool, with_rules: bool) -> None:
    """How often people's actions agree with the AI's suggestions.

    \b
    Overall and by taxonomy, event family, AI bucket, skill, project, signal and week:
    agreement rate (actions that carry out the suggestion, of decided non-skip
    decisions), opt-out (skip) rate, each with its count and a Wilson 95% interval;
    macro-F1, Cohen's kappa and the confusion matrix of AI bucket vs the bucket the
    action implies; decision latency (median, p90) for agreements, overrides, opt-outs.
    Slices resting on fewer than --min-count decisions are marked "low n".

    \b
    Examples:
      failtax agreement --telemetry 'logs/**/*.jsonl'
      failtax agreement --db telemetry.duckdb --taxonomy replay --since 2026-09-01 --json
    """
    from failtax.analysis import diagnose_rules, measure_agreement
    from failtax.analysis.agreement import DEFAULT_MIN_COUNT
    from failtax.analysis.render import format_agreement

    df = _load_decisions(telemetry, db, since)
    taxes = _present_taxonomies(df, taxonomies)
    min_count = DEFAULT_MIN_COUNT if min_count is None else min_count
    report = measure_agreement(df, taxonomy=taxes, since=since, min_count=min_count)
    rules = [diagnose_rules(df, taxonomy=t, since=since, min_count=min_count) for t in taxes] if with_rules else []
    if as_json:
        payload = report.to_dict()
        if with_rules:
            payload["rules"] = [d.to_dict() for d in rules]
        click.echo(_dumps(payload))
    else:
        click.echo(format_agreement(report, rules=rules), nl=False)


@cli.command("signals")
@_analysis_options
@click.option("--table", "table_path", type=click.Path(dir_okay=False),
              help="Test this rule table's routing instead of the shipped one (needs one --taxonomy).")
@click.option("--examples", type=click.IntRange(min=0), default=3, show_default=True,
              help="Override events kept per signal (text redacted).")
@click.option("--limit", type=click.IntRange(min=1), help="Print only the first N signals (tables only).")
def signals_cmd(telemetry: tuple[str, ...], db: str | None, taxonomies: tuple[str, ...], since: str | None,
                min_count: int | None, as_json: bool, table_path: str | None, examples: int, limit: int | None) -> None:
    """Signals that mislead: where people override the table's routing, ranked.

    \b
    For each signal: how often people override when it is present and to which bucket,
    the bucket the table routes it to, how often people's actions match that bucket
    where it decided (vs. the baseline over all decisions, exact binomial test), lift of
    each bucket given the signal, drift by week, and example events. Ranked most
    misleading first; --json prints that ranked list.

    \b
    Examples:
      failtax signals --db telemetry.duckdb
      failtax signals --telemetry data/ --taxonomy replay --table tuned.toml --json
    """
    from failtax.analysis import find_misleading_signals
    from failtax.analysis.render import format_signals
    from failtax.analysis.signals import DEFAULT_MIN_SIGNAL_COUNT

    df = _load_decisions(telemetry, db, since)
    taxes = _present_taxonomies(df, taxonomies)
    if table_path and len(taxes) != 1:
        raise click.UsageError("--table needs exactly one --taxonomy (the table's)")
    records: list[dict[str, Any]] = []
    for t in taxes:
        found = find_misleading_signals(df, taxonomy=t, table=table_path, since=since,
                                        min_count=DEFAULT_MIN_SIGNAL_COUNT if min_count is None else min_count,
                                        n_examples=examples)
        records.extend(found.to_records())
    records.sort(key=lambda r: (not r["misleading"], not r["fallback_wrong"],
                                -(r["excess_low"] if r["excess_low"] is not None else -2.0),
                                r["p_value"], r["taxonomy"], r["signal"]))
    for i, r in enumerate(records, 1):
        r["rank"] = i
    if as_json:
        click.echo(_dumps(records))
    else:
        click.echo(format_signals(records, limit=limit), nl=False)


# --------------------------------------------------------------------------- taxonomies


@cli.command("taxonomies")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.argument("name", required=False)
def taxonomies_cmd(as_json: bool, name: str | None) -> None:
    """List the shipped taxonomies, or show one taxonomy's buckets (NAME)."""
    from failtax.taxonomy import list_taxonomies, load_taxonomy

    names = [name] if name else list_taxonomies()
    taxes = [load_taxonomy(n) for n in names]
    if as_json:
        payload = [
            {
                "name": t.name,
                "title": t.title,
                "source": t.source,
                "buckets": [
                    {k: v for k, v in _bucket_dict(b).items() if v not in (None, "", ())} for b in t.buckets
                ],
                "actions": dict(t.actions),
            }
            for t in taxes
        ]
        click.echo(_dumps(payload if not name else payload[0]))
        return
    for t in taxes:
        if not name:
            click.echo(f"{t.name:<14} {t.title}  [{', '.join(t.bucket_names)}]")
            continue
        click.echo(f"{t.name}: {t.title}\n  source: {t.source}\n")
        for b in t.buckets:
            click.echo(f"  {b.name}")
            click.echo(f"      {b.meaning}")
            extras = [f"{k}={v}" for k, v in _bucket_dict(b).items()
                      if k in ("suggestion", "retryable", "severity", "auto_recoverable", "verdict", "retry_limit") and v is not None]
            if extras:
                click.echo("      " + "  ".join(extras))
        if t.actions:
            click.echo("\n  action → implied bucket: " + ", ".join(f"{a}→{b}" for a, b in t.actions.items()))


def _bucket_dict(b: Any) -> dict[str, Any]:
    import dataclasses

    return {f.name: (list(v) if isinstance(v := getattr(b, f.name), tuple) else v) for f in dataclasses.fields(b)}


# --------------------------------------------------------------------------- table


@cli.group("table")
def table_group() -> None:
    """Read, compare and check rule tables (shipped names or TOML paths)."""


@table_group.command("show")
@click.argument("table")
def table_show(table: str) -> None:
    """Print TABLE (a shipped name such as agent-run, or a path) as TOML."""
    from failtax.table import dump_table, load_table

    click.echo(dump_table(load_table(table)), nl=False)


@table_group.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@click.option("--telemetry", multiple=True, metavar="GLOB",
              help="Also replay these telemetry files (globs, folders; repeatable) under both tables.")
@click.option("--db", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also replay the decisions of this database (built by `failtax load`) under both tables.")
def table_diff(old: str, new: str, as_json: bool, telemetry: tuple[str, ...], db: str | None) -> None:
    """Compare two tables rule by rule (added, removed, changed, moved rules).

    \b
    With --telemetry or --db, history is replayed under both tables: the events that
    would move between buckets (counts per old -> new bucket, example event ids) and
    the agreement of people's actions with each table's suggestions, overall (with a
    Newcombe 95% interval of the gain) and per bucket.

    \b
    Examples:
      failtax table diff replay tuned.toml
      failtax table diff replay tuned.toml --telemetry 'logs/*.jsonl'
    """
    from failtax.table import diff_tables, load_table

    a, b = load_table(old), load_table(new)
    d = diff_tables(a, b)
    replay = None
    if telemetry or db:
        if telemetry and db:
            raise click.UsageError("give --telemetry GLOB or --db FILE, not both")
        from failtax.tune import replay_history

        replay = replay_history(a, b, telemetry=list(telemetry) or None, db=db)
    if as_json:
        payload: dict[str, Any] = {"changes": d.to_records()}
        if replay is not None:
            payload["replay"] = replay.to_dict()
        click.echo(_dumps(payload))
    else:
        click.echo(str(d))
        if replay is not None:
            click.echo("")
            click.echo(str(replay))


@cli.command("tune")
@click.option("--taxonomy", "-t", required=True, type=_taxonomy_choice(), help="Taxonomy whose table to tune.")
@click.option("--telemetry", multiple=True, metavar="GLOB", help="Telemetry files, globs or folders (repeatable).")
@click.option("--db", type=click.Path(dir_okay=False), metavar="FILE", help="A database built by `failtax load`.")
@click.option("--table", "table_path", metavar="PATH", help="Start from this table instead of the shipped one.")
@click.option("--cutoff", metavar="DATE", help="Backtest cut-off (ISO date); default leaves the last quarter of the weeks.")
@click.option("--min-support", type=click.IntRange(min=1), default=10, show_default=True, metavar="N",
              help="Least labelled events a change must move.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Significance level (Bonferroni-adjusted over the candidates of each round).")
@click.option("--mine", "mine", is_flag=True, help="Also propose extract rules for phrases in unrecognised text.")
@click.option("--export", "export_path", type=click.Path(dir_okay=False), metavar="PATH",
              help="Write the revised table here (TOML, version bumped, provenance header).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def tune_cmd(taxonomy: str, telemetry: tuple[str, ...], db: str | None, table_path: str | None, cutoff: str | None,
             min_support: int, alpha: float, mine: bool, export_path: str | None, as_json: bool) -> None:
    """Learn a revised rule table from what people chose, prove it, and export it.

    \b
    Fits the tuner on all decisions of TAXONOMY (implied buckets are the labels): each
    change (re-route a signal, route an unknown one, drop or move a route, add a route
    for a signal pair) comes with its support, agreement gain, Newcombe interval and
    p-value; changes without enough support or significance are listed as "watch".
    Then a backtest fits again on what was known before --cutoff and scores old vs new
    table on the weeks after (recommend promotion only when the gain's lower bound is
    above zero), and prints the rule-by-rule diff with the events that would move.
    `failtax classify --table PATH` on the exported file behaves exactly as that diff says.

    \b
    Examples:
      failtax tune --taxonomy replay --telemetry 'logs/*.jsonl'
      failtax tune --taxonomy regen --db telemetry.duckdb --cutoff 2026-11-01 --export regen.toml
    """
    if bool(telemetry) == bool(db):
        raise click.UsageError("give --telemetry GLOB (files to load) or --db FILE (a loaded database), one of them")
    from failtax.table import diff_tables
    from failtax.tune import (
        TableTuner, backtest, default_cutoff, export_table, load_decisions, mine_candidate_signals,
        replay_decisions,
    )

    if export_path and (blocked := folder_blocked(Path(export_path).parent, export_path)) is not None:
        raise InputError(blocked)  # said before the work, not after
    df = load_decisions(telemetry=list(telemetry) or None, db=db, taxonomy=taxonomy)
    if df.height == 0:
        raise click.UsageError(f"no decisions of taxonomy {taxonomy!r} in the telemetry given")
    tuner = TableTuner(taxonomy, base_table=table_path, min_support=min_support, alpha=alpha, cv=None).fit(df)
    cut = cutoff or default_cutoff(df)
    bt = backtest(df, cutoff=cut, taxonomy=taxonomy, base_table=tuner.base_table_, min_support=min_support, alpha=alpha)
    diff = diff_tables(tuner.base_table_, tuner.table_)
    replay = replay_decisions(tuner.base_table_, tuner.table_, df)
    proposals = mine_candidate_signals(df, taxonomy=taxonomy, table=tuner.table_, min_support=min_support,
                                       alpha=alpha) if mine else ()
    exported = export_table(tuner, export_path, decisions=df) if export_path else None
    if as_json:
        click.echo(_dumps({
            "taxonomy": taxonomy,
            "events": tuner.n_events_, "decided": tuner.n_decided_, "labelled": tuner.n_labelled_,
            "predicted_agreement": tuner.predicted_agreement_.to_dict(),
            "predicted_agreement_recent": tuner.predicted_agreement_recent_.to_dict(),
            "changes": [c.to_dict() for c in tuner.changes_],
            "watch": [c.to_dict() for c in tuner.watch_],
            "backtest": bt.to_dict(),
            "diff": diff.to_records(),
            "replay": replay.to_dict(),
            "proposals": [p.to_dict() for p in proposals],
            "export": exported.to_dict() if exported else None,
        }))
        return
    click.echo(tuner.summary())
    click.echo("")
    click.echo(str(bt))
    click.echo("")
    click.echo(str(diff))
    click.echo(str(replay))
    if mine:
        click.echo("")
        click.echo(f"candidate signals from text ({len(proposals)}):" if proposals else "candidate signals from text: none")
        for p in proposals:
            click.echo(f"  {p}")
    if exported:
        click.echo("")
        click.echo(f"wrote {exported.path} ({exported.table.name} {exported.table.version})")


@table_group.command("lint")
@click.argument("table")
@click.option("--strict", is_flag=True, help="Exit 1 when there is any finding, error or warning.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as one JSON object.")
@click.option("--known-signal", "known", multiple=True, metavar="NAME",
              help="A signal kept without a route on purpose, or one tools name (repeatable).")
def table_lint(table: str, strict: bool, as_json: bool, known: tuple[str, ...]) -> None:
    """Check TABLE (a shipped name or a path) for rules that cannot work as written.

    \b
    Finds routes that never decide (shadowed, duplicate, contradictory), buckets no
    route reaches, extract rules that never fire or add nothing (duplicate, redundant,
    vetoed), signal names misspelt between extract and route rules, literals and
    regexes that can never match because of case, ANSI escape codes, NUL or line
    breaks. Each finding says what to do.

    \b
    Exit codes: 0 findings printed (or none); 1 with --strict when there is any
    finding; 2 when the table does not load (the message names file, rule, reason).

    \b
    Examples:
      failtax table lint agent-run
      failtax table lint --strict --json tuned.toml
    """
    from failtax.errors import TableError
    from failtax.lint import lint_table
    from failtax.table import list_tables, load_table

    try:
        loaded = load_table(table)
        findings = lint_table(loaded, known_signals=known)
    except TableError as exc:
        if table not in list_tables() and not Path(table).exists():
            hint = f"check the path, or name a shipped table: {', '.join(list_tables())}"
        else:
            hint = (f"fix the table file, then run `failtax table lint {table}` again "
                    f"(the table spec is in failtax/table.py)")
        click.echo(f"failtax: error: {exc}\n  {hint}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    name = loaded.path or table
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    if as_json:
        click.echo(_dumps({"table": name, "version": loaded.version, "errors": errors,
                           "warnings": warnings, "findings": [f.to_dict() for f in findings]}))
    else:
        for f in findings:
            click.echo(f"{name}: {f}")
        click.echo(f"{name}: {errors} error(s), {warnings} warning(s)" if findings else f"{name}: no findings")
    if strict and findings:
        sys.exit(EXIT_CHECK_FAILED)


@table_group.command("import")
@click.option("--format", "fmt", required=True, type=click.Choice(["yaml", "allure"]),
              help="yaml: `category: [regex, ...]` (first match wins, else unknown); allure: categories.json.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--taxonomy", "-t", default="devflow", show_default=True, type=_taxonomy_choice(),
              help="Taxonomy whose buckets the categories map to.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="Where to write the TOML rule table (written atomically).")
@click.option("--map", "maps", multiple=True, metavar="NAME=BUCKET",
              help="Map a category name to a bucket (repeatable); other names map by bucket name or a heuristic.")
@click.option("--ignore-case", is_flag=True, help="yaml: match case-insensitively (Python regexes are case-sensitive).")
@click.option("--name", default=None, help="The table's name (default: TAXONOMY-FILESTEM).")
@click.option("--strict", is_flag=True, help="Exit 1, writing nothing, when a category could not be mapped.")
def table_import(fmt: str, file: str, taxonomy: str, out: str, maps: tuple[str, ...], ignore_case: bool,
                 name: str | None, strict: bool) -> None:
    """Turn rules a team already keeps (FILE) into a failtax rule table.

    \b
    yaml:   category: [regex, ...]   (or a list of {category, patterns}); one rule per
            regex, the first regex in file order that matches decides, else unknown.
    allure: Allure's categories.json; each regex must match the whole message/trace
            (Java matches() with DOTALL), translated to anchored RE2 patterns.
    Category names map to buckets by --map, else by name, else by a keyword heuristic;
    the report names categories that could not be mapped (routed to the fallback).
    Patterns RE2 cannot run (lookaround, backreferences, ...) are refused with the
    file, line, category and pattern.

    \b
    Exit codes: 0 written; 1 with --strict when a category is unmapped; 2 bad input.

    \b
    Examples:
      failtax table import --format yaml rules.yaml --taxonomy devflow --out devflow-team.toml
      failtax table import --format allure categories.json --out devflow-allure.toml \\
          --map "Outdated tests=test" --map "Known quirks=unknown"
      failtax classify --taxonomy devflow --table devflow-team.toml build-errors.jsonl
    """
    from failtax.importers import import_rules, parse_mapping
    from failtax.table import save_table

    mapping = parse_mapping(maps, taxonomy=taxonomy)
    result = import_rules(file, format=fmt, taxonomy=taxonomy, mapping=mapping,
                          ignore_case=ignore_case, name=name)
    for category, bucket in result.mapping:
        click.echo(f"  {category!r} -> {bucket}", err=True)
    if result.unmapped:
        hint = " ".join(f"--map '{u}=BUCKET'" for u in result.unmapped)
        click.echo(f"failtax: {len(result.unmapped)} categor{'y' if len(result.unmapped) == 1 else 'ies'} "
                   f"not mapped to a bucket (routed to {result.table.fallback!r}): "
                   f"{', '.join(repr(u) for u in result.unmapped)}\n  to map them: {hint}", err=True)
        if strict:
            sys.exit(EXIT_CHECK_FAILED)
    written = save_table(result.table, out)
    click.echo(f"wrote {written}: {result.summary()}")


# --------------------------------------------------------------------------- report


def _rate_option(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise click.BadParameter(f"a rate between 0 and 1 (e.g. 0.8), got {value}")
    return value


@cli.command("report")
@click.option("--telemetry", "telemetry", multiple=True, metavar="GLOB",
              help="Telemetry files, globs or folders (repeatable). Default: the sample in data/.")
@click.option("--db", type=click.Path(dir_okay=False), metavar="FILE",
              help="A database from `failtax load`: read it, or extend it with --telemetry.")
@click.option("--taxonomy", "-t", type=_taxonomy_choice(), help="Report on one taxonomy only (default: all present).")
@click.option("--since", metavar="DATE", help="Ignore decisions classified before DATE (YYYY-MM-DD).")
@click.option("--out", "out", default="report", show_default=True, type=click.Path(file_okay=False),
              help="Output folder for index.html, summary.json, summary.md.")
@click.option("--fail-under", type=float, callback=_rate_option, metavar="RATE",
              help="Exit 1 when the overall agreement rate is below RATE (0-1).")
@click.option("--min-recognition", type=float, callback=_rate_option, metavar="RATE",
              help="Exit 1 when the recognition rate (events a rule decides) is below RATE (0-1).")
@click.option("--no-progress", is_flag=True, help="Do not print the steps on stderr.")
def report_cmd(telemetry: tuple[str, ...], db: str | None, taxonomy: str | None, since: str | None, out: str,
               fail_under: float | None, min_recognition: float | None, no_progress: bool) -> None:
    """Run the tuning report: one self-contained HTML page, summary.json and summary.md.

    \b
    With no options it runs on the sample telemetry in data/ (from the failtax
    checkout) and writes report/index.html (plots embedded, readable offline),
    report/summary.json (every number) and report/summary.md (for CI logs), plus
    report/tables/TAXONOMY.toml for each taxonomy with proposed changes.
    Steps: load, agreement, rules, signals, tune (with backtests), moves, plots, write.
    The previous report is replaced only once every step has succeeded.

    \b
    Exit codes: 0 written, checks passed; 1 written, a check failed (--fail-under,
    --min-recognition); 2 bad input (no such file, a glob matching nothing, an
    unreadable database, no events in the window); 3 a step failed (it is named).

    \b
    Examples:
      failtax report
      failtax report --telemetry 'logs/**/*.jsonl' --since 2026-09-01 --out /srv/www/failtax
      failtax report --db telemetry.duckdb --fail-under 0.8 --min-recognition 0.9 --no-progress
    """
    from failtax.report import ReportInputError, ReportStepError, build_report

    try:
        result = build_report(telemetry=list(telemetry) or None, db=db, taxonomy=taxonomy, since=since, out=out,
                              fail_under=fail_under, min_recognition=min_recognition, progress=not no_progress)
    except ReportInputError as exc:
        click.echo(f"failtax: error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except ReportStepError as exc:
        click.echo(f"failtax: {exc}", err=True)
        sys.exit(EXIT_INTERNAL)
    s = result.summary
    click.echo(f"wrote {result.index_html}, {result.summary_json.name}, {result.summary_md.name}"
               + (f" and {len(result.tables)} proposed table(s)" if result.tables else ""))
    click.echo(f"agreement {s['agreement']['rate'] * 100:.1f}% (n={s['agreement']['n']:,}), "
               f"recognition {s['recognition']['rate'] * 100:.1f}%, {s['changes']} proposed change(s)"
               if s["agreement"]["rate"] is not None and s["recognition"]["rate"] is not None
               else f"{s['changes']} proposed change(s)")
    for msg in result.failed_checks:
        click.echo(f"failtax: check failed: {msg}", err=True)
    sys.exit(result.exit_code)


# --------------------------------------------------------------------------- load, simulate


@cli.command("load")
@click.argument("paths", nargs=-1, required=True, metavar="PATHS...")
@click.option("--db", type=click.Path(dir_okay=False), metavar="FILE",
              help="Database file to create or extend (incremental: a second run adds only new lines). "
                   "Without it the files are loaded in memory and only the summary is kept.")
@click.option("--parquet", type=click.Path(file_okay=False), metavar="DIR",
              help="Also write events and decisions as Parquet partitioned by day: DIR/<table>/date=YYYY-MM-DD/ "
                   "(each table replaced atomically; read it with --parquet DIR or on Spark).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--show-quarantine", type=click.IntRange(min=0), default=0, metavar="N",
              help="Also print the first N quarantined lines of this load (file:line reason detail).")
@click.option("--fail-on-quarantine", is_flag=True, help="Exit 1 when this load quarantined any line (for CI).")
@click.option("--lock-timeout", type=click.FloatRange(min=0), default=60.0, show_default=True, metavar="SECONDS",
              help="How long to wait for another load of the same database to finish.")
@click.option("--no-progress", is_flag=True, help="No progress bar (it is shown only on a terminal anyway).")
def load_cmd(paths: tuple[str, ...], db: str | None, as_json: bool, show_quarantine: int,
             fail_on_quarantine: bool, lock_timeout: float, no_progress: bool,
             parquet: str | None = None) -> None:
    """Load failure telemetry (JSON Lines) into DuckDB, keeping every good line.

    \b
    PATHS are files, globs ('logs/**/*.jsonl', quote them) or directories (searched
    for *.jsonl, *.ndjson, *.log and their .gz, .bz2, .xz or .zst; a compressed file
    is told by its bytes, whatever its name). Each line is told apart as one of:
      failure-event   seed 000: ts, eventType, skillName, aiClassification, ...
      lifecycle       seed 001: timestamp, severity, event, feature_id, session_id, ...
      retry-log       seed 003: ts with failures or must_fix_keys, optional scope
      agent-failure   seed 004: AgentFailure objects (code, title, detail, retryable, ...)
    A bad line (truncated, invalid UTF-8 or JSON, wrong type, unknown event type,
    missing field ...) never stops the load: it goes to the quarantine table with its
    file, line number, reason and raw text. Exact duplicate lines are kept once.

    \b
    Tables and views in the database:
      events              one row per good line of any format (`source` says which)
      quarantine          one row per bad line: file, line, reason, detail, raw
      signals             one row per event x signal (normalised signal names)
      decisions           each classified failure event paired with the person's
                          decision: ai_bucket, ai_suggestion, user_action,
                          implied_bucket, agree, opt_out, latency_s, ...
      orphan_resolutions  resolved events with no classified event before them
      lifecycle           seed 001 lines with their metadata as columns
      lifecycle_failures  per session and failure type: recovery attempts, outcome
      retry_streaks       seed 003 budget: per scope and test id / must-fix key, the
                          current run of consecutive repeats (over_budget at 2)
      agent_failures      seed 004 objects, ready to re-classify with a newer table
      files               the files loaded, with size and lines read

    \b
    Examples:
      failtax load data/                                   # check files, print a summary
      failtax load 'logs/**/*.jsonl' --db telemetry.duckdb # build or extend a database
      failtax load 'logs/**/*.jsonl' --db telemetry.duckdb --parquet lake/  # and Parquet for Spark
      duckdb telemetry.duckdb "SELECT reason, count(*) FROM quarantine GROUP BY 1"

    Exit codes: 0 loaded; 1 lines were quarantined (a file that could not be read
    is quarantined as `unreadable`, the others load) and --fail-on-quarantine was
    given; 2 a path matched nothing or the database is busy or incompatible.
    """
    from failtax.telemetry import load

    tel = load(list(paths), db=db, progress=not no_progress and sys.stderr.isatty(), lock_timeout=lock_timeout)
    try:
        summary = tel.summary
        assert summary is not None
        written = ()
        if parquet:
            from failtax.telemetry.parquet import write_parquet

            written = write_parquet(tel, parquet)
        if as_json:
            click.echo(_dumps({**summary.to_dict(), **({"parquet": [w.to_dict() for w in written]} if parquet else {})}))
        else:
            click.echo(str(summary))
            for w in written:
                click.echo(f"parquet: {w}")
        if show_quarantine:
            files = [f.path for f in summary.files if f.status != "unchanged"]
            if files:
                rows = tel.sql(
                    "SELECT file, line, reason, detail FROM quarantine WHERE list_contains(?, file) "
                    "ORDER BY file, line LIMIT ?", [files, show_quarantine]
                ).fetchall()
                for file, line, reason, detail in rows:
                    click.echo(f"{file}:{line}: {reason}: {detail}", err=as_json)
    finally:
        tel.close()
    if fail_on_quarantine and summary.quarantined:
        sys.exit(EXIT_CHECK_FAILED)


@cli.command("simulate")
@click.option("--out", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="Folder to write the telemetry files and truth.json into.")
@click.option("--events", type=click.IntRange(min=1), default=5000, show_default=True, metavar="N",
              help="Classified failure events (most get a resolution line too).")
@click.option("--weeks", type=click.IntRange(min=1), default=12, show_default=True, metavar="W")
@click.option("--seed", type=int, default=7, show_default=True, metavar="S", help="Same seed, same bytes.")
@click.option("--taxonomy", type=click.Choice(["replay", "regen", "all"]), default="all", show_default=True,
              help="Failure events of one family (with its defects), or replay + regen + pre-execution.")
@click.option("--clean", is_flag=True, help="Plant no defect: AI and truth differ only by people's noise.")
@click.option("--start", default="2026-09-07", show_default=True, metavar="DATE", help="First Monday.")
@click.option("--json", "as_json", is_flag=True, help="Print the truth as JSON.")
def simulate_cmd(out: str, events: int, weeks: int, seed: int, taxonomy: str, clean: bool, start: str,
                 as_json: bool) -> None:
    """Write seeded, realistic telemetry of every format plus its hidden truth.

    \b
    Writes into DIR:
      failure-events.jsonl   seed 000 events (replay, regen, pre-execution) with the
                             people's resolutions
      lifecycle.jsonl        seed 001 lines, a few from a shell writer (bad quotes)
      retry-log.jsonl        seed 003 retry logs with repeated failures
      agent-failures.jsonl   seed 004 AgentFailure objects
      mess/...jsonl          duplicates, invalid UTF-8, a truncated last line ...
      truth.json             the defects planted in the default tables
                             (misleading-signal, missing-signal, rule-too-early, drift)

    \b
    Example (the bundled sample):
      failtax simulate --out data --events 6000 --weeks 12 --seed 7
    """
    import datetime as dt

    from failtax.telemetry.simulate import simulate

    try:
        dt.date.fromisoformat(start)
    except ValueError:
        raise click.BadParameter(f"not an ISO date (YYYY-MM-DD): {start!r}", param_hint="--start") from None
    result = simulate(out, events=events, weeks=weeks, seed=seed, taxonomy=taxonomy, clean=clean, start=start)
    if as_json:
        click.echo(_dumps(result.truth))
        return
    for path in result.files:
        click.echo(f"wrote {path}")
    defects = result.truth["defects"]
    click.echo(f"{events:,} classified events over {weeks} weeks from {start}, seed {seed}; "
               f"{len(defects)} planted defect(s)" + (" (clean)" if clean else ""))
    for d in defects:
        click.echo(f"  {d['taxonomy']:<7} {d['kind']:<18} {d['signal']}: {d.get('note', '')}")


def main() -> None:
    """Console entry point."""
    try:
        try:
            cli(prog_name="failtax")
        finally:  # what is still buffered is written here, where a refusal can be said
            sys.stdout.flush()
    except OSError as exc:
        if not _no_room(exc):
            click.echo(f"failtax: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_INTERNAL)
    except Exception as exc:  # the last guard: name the failure, no traceback
        click.echo(f"failtax: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_INTERNAL)
