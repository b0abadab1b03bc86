"""Telemetry as date-partitioned Parquet: layout, round trip, atomic replacement, the CLI.

Everything runs on real files: the bundled sample (``data/``) loaded into a real DuckDB
database, written with ``failtax load --parquet`` and read back with DuckDB, pyarrow and
polars. What must hold: the decisions read from Parquet equal the database's view row
for row; every row sits in the folder of its day; a table is replaced in one step (a
killed or failed write leaves the previous version readable and no stray files); and
``failtax agreement``/``signals --parquet`` print exactly what ``--db`` prints.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from polars.testing import assert_frame_equal

from failtax.errors import TelemetryError
from failtax.telemetry import load
from failtax.telemetry.parquet import MANIFEST, open_parquet, write_parquet
from failtax.telemetry.schema import EVENTS_COLUMNS
from failtax.telemetry.views import DECISIONS_COLUMNS

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The bundled sample loaded into a database file and written as Parquet."""
    root = tmp_path_factory.mktemp("parquet")
    tel = load(str(SAMPLE), db=root / "t.duckdb", progress=False)
    written = write_parquet(tel, root / "pq")
    out = {
        "root": root, "pq": root / "pq", "written": written,
        "decisions": tel.decisions.pl(), "events": tel.events.pl(),
        "views": {v: tel.table(v).pl() for v in ("signals", "lifecycle", "retry_streaks", "agent_failures",
                                                  "orphan_resolutions", "lifecycle_failures")},
    }
    tel.close()
    return out


def _sorted(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort([c for c, t in df.schema.items() if not isinstance(t, pl.List)], nulls_last=True)


def test_decisions_read_back_equal_the_database_view_row_for_row(sample: dict) -> None:
    with open_parquet(sample["pq"]) as tel:
        got = tel.decisions.pl()
    assert got.height == 6000
    assert got.columns == [c for c, _, _ in DECISIONS_COLUMNS]
    assert_frame_equal(got, sample["decisions"])  # same order too: ts, then event_id


def test_events_and_the_views_built_on_them_read_back_equal(sample: dict) -> None:
    with open_parquet(sample["pq"]) as tel:
        events = tel.events.pl()
        assert events.columns == [c for c, _, _ in EVENTS_COLUMNS]
        assert dict(zip(tel.events.columns, tel.events.types, strict=True))["metadata"] == "JSON"
        assert_frame_equal(events.sort("event_id"), sample["events"].sort("event_id"))
        for name, want in sample["views"].items():
            assert_frame_equal(_sorted(tel.table(name).pl()), _sorted(want), check_row_order=True)


def test_every_row_sits_in_the_folder_of_its_day(sample: dict) -> None:
    for table, want in (("decisions", sample["decisions"]), ("events", sample["events"])):
        folder = sample["pq"] / table
        days = sorted(p.name for p in folder.iterdir() if p.is_dir())
        expected = sorted({f"date={d}" for d in want["ts"].dt.date().drop_nulls().to_list()}
                          | ({"date=__HIVE_DEFAULT_PARTITION__"} if want["ts"].null_count() else set()))
        assert days == expected
        # pyarrow reads the same folders with hive partitioning: each row's day is its folder's
        hive = ds.partitioning(pa.schema([("date", pa.date32())]), flavor="hive")
        got = pl.from_arrow(ds.dataset(folder, format="parquet", partitioning=hive).to_table())
        assert got.height == want.height
        inside = got.filter(pl.col("ts").is_not_null())
        assert (inside["ts"].dt.date() == inside["date"]).all()
        assert got.filter(pl.col("ts").is_null())["date"].null_count() == want["ts"].null_count()
    # events without a time (seed 004 AgentFailure objects) are kept, in the null partition
    assert sample["events"].filter(pl.col("ts").is_null()).height == 150


def test_manifest_and_returned_records_agree_with_the_files(sample: dict) -> None:
    by_table = {w.table: w for w in sample["written"]}
    assert [w.table for w in sample["written"]] == ["events", "decisions"]
    for table, frame in (("events", sample["events"]), ("decisions", sample["decisions"])):
        doc = json.loads((sample["pq"] / table / MANIFEST).read_text())
        assert doc["rows"] == by_table[table].rows == frame.height
        assert doc["partitions"] == by_table[table].partitions == len([p for p in (sample["pq"] / table).iterdir()
                                                                       if p.is_dir()])
        n = pl.scan_parquet(str(sample["pq"] / table / "*" / "*.parquet"), hive_partitioning=True).select(pl.len())
        assert n.collect().item() == frame.height


def test_only_events_still_gives_the_decisions_by_pairing(sample: dict, tmp_path: Path) -> None:
    with open_parquet(sample["pq"]) as src:
        write_parquet(src, tmp_path / "only", tables=["events"])
    assert not (tmp_path / "only" / "decisions").exists()
    with open_parquet(tmp_path / "only") as tel:
        assert_frame_equal(tel.decisions.pl(), sample["decisions"])


def test_an_empty_table_reads_back_empty_with_its_columns(tmp_path: Path) -> None:
    p = tmp_path / "lifecycle.jsonl"
    p.write_text('{"timestamp":"2026-09-07T08:00:00Z","severity":"info","event":"failure.classified",'
                 '"feature_id":"f1","session_id":"s1","metadata":{"failure_type":"compile"},"message":"m"}\n')
    with load(str(p), progress=False) as tel:
        written = write_parquet(tel, tmp_path / "pq")
    assert {w.table: w.rows for w in written} == {"events": 1, "decisions": 0}
    assert [p.name for p in (tmp_path / "pq" / "decisions").iterdir()] == [MANIFEST]
    with open_parquet(tmp_path / "pq") as tel:
        dec = tel.decisions.pl()
        assert dec.height == 0 and dec.columns == [c for c, _, _ in DECISIONS_COLUMNS]
        assert tel.lifecycle.pl()["failure_type"].to_list() == ["compile"]


def test_a_second_write_replaces_the_table_whole_and_leaves_no_temporaries(sample: dict, tmp_path: Path) -> None:
    out = tmp_path / "pq"
    first = tmp_path / "first.jsonl"
    lines = (SAMPLE / "failure-events.jsonl").read_text().splitlines(keepends=True)
    first.write_text("".join(lines[:500]))
    with load(str(first), db=tmp_path / "t.duckdb", progress=False) as tel:
        w1 = {w.table: w.rows for w in write_parquet(tel, out)}
    with load(str(SAMPLE), db=tmp_path / "t.duckdb", progress=False) as tel:  # incremental: adds the rest
        w2 = {w.table: w.rows for w in write_parquet(tel, out)}
        want = tel.decisions.pl()
    assert w1["decisions"] < w2["decisions"] == 6000
    with open_parquet(out) as tel:
        assert_frame_equal(tel.decisions.pl(), want)
    assert sorted(p.name for p in out.iterdir()) == ["decisions", "events"]  # no .writing / .old folder


def test_a_failed_write_keeps_the_previous_table(sample: dict, tmp_path: Path) -> None:
    out = tmp_path / "pq"
    with open_parquet(sample["pq"]) as src:
        write_parquet(src, out, tables=["decisions"])
        before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
        with pytest.raises(TelemetryError, match="cannot write Parquet"):
            write_parquet(src, out, tables=["decisions"], compression="no-such-codec")
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    with open_parquet(out) as tel:
        assert tel.decisions.pl().height == 6000


def test_unknown_table_and_missing_folder_are_refused(sample: dict, tmp_path: Path) -> None:
    with open_parquet(sample["pq"]) as src, pytest.raises(TelemetryError, match="'quarantine'"):
        write_parquet(src, tmp_path / "x", tables=["quarantine"])
    with pytest.raises(TelemetryError, match="no Parquet telemetry here"):
        open_parquet(tmp_path / "nothing")
    (tmp_path / "bad" / "decisions").mkdir(parents=True)
    (tmp_path / "bad" / "decisions" / MANIFEST).write_text('{"format": 99, "table": "decisions"}')
    with pytest.raises(TelemetryError, match="another failtax version"):
        open_parquet(tmp_path / "bad")


_WRITER = """
import sys
from failtax.telemetry.parquet import open_parquet, write_parquet
src = open_parquet(sys.argv[1])
print("ready", flush=True)
while True:
    write_parquet(src, sys.argv[2], tables=["decisions"])
"""


def test_a_killed_writer_never_leaves_a_partial_table(sample: dict, tmp_path: Path) -> None:
    out = tmp_path / "pq"
    with open_parquet(sample["pq"]) as src:
        write_parquet(src, out, tables=["decisions"])
    for delay in (0.05, 0.3, 0.7, 1.1):
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(sample["pq"]), str(out)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with open_parquet(out) as tel:  # always one complete version
            assert tel.decisions.pl().height == 6000
        n = pl.scan_parquet(str(out / "decisions" / "*" / "*.parquet")).select(pl.len()).collect().item()
        assert n == 6000
        visible = [p.name for p in out.iterdir() if not p.name.startswith(".")]
        assert visible == ["decisions"]


# --------------------------------------------------------------------------- the CLI


def _run(failtax_cmd: list[str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*failtax_cmd, *args], capture_output=True, text=True, timeout=120)


def test_cli_load_writes_parquet_and_the_analysis_reads_it(failtax_cmd: list[str], tmp_path: Path) -> None:
    db, pq = tmp_path / "t.duckdb", tmp_path / "lake"
    r = _run(failtax_cmd, "load", str(SAMPLE), "--db", str(db), "--parquet", str(pq), "--json")
    assert r.returncode == 0, r.stderr
    payload = json.loads(r.stdout)
    assert {p["table"]: p["rows"] for p in payload["parquet"]} == {"events": 11773, "decisions": 6000}
    assert payload["events_added"] == 11773
    r = _run(failtax_cmd, "load", str(SAMPLE), "--parquet", str(tmp_path / "lake2"))
    assert r.returncode == 0 and f"parquet: {tmp_path / 'lake2' / 'decisions'}: 6,000 rows in 84 date partition(s)" \
        in r.stdout
    for command in (["agreement", "--json"], ["signals", "--json", "--taxonomy", "replay"]):
        from_db = _run(failtax_cmd, *command, "--db", str(db))
        from_pq = _run(failtax_cmd, *command, "--parquet", str(pq))
        assert from_db.returncode == from_pq.returncode == 0, from_pq.stderr
        assert from_pq.stdout == from_db.stdout
    since = _run(failtax_cmd, "agreement", "--json", "--parquet", str(pq), "--since", "2026-11-02")
    overall = json.loads(since.stdout)["overall"]
    assert 0 < overall["n_events"] < 6000
    with open_parquet(pq) as tel:
        assert overall["n_events"] == tel.decisions.pl().filter(pl.col("ts").dt.date() >= date(2026, 11, 2)).height


def test_cli_parquet_errors_exit_2(failtax_cmd: list[str], tmp_path: Path) -> None:
    r = _run(failtax_cmd, "agreement", "--parquet", str(tmp_path / "none"))
    assert r.returncode == 2 and "no Parquet telemetry here" in r.stderr
    (tmp_path / "t.jsonl").write_text("")
    r = _run(failtax_cmd, "signals", "--parquet", str(tmp_path), "--telemetry", str(tmp_path / "t.jsonl"))
    assert r.returncode == 2 and "one of them" in r.stderr
    r = _run(failtax_cmd, "agreement", "--help")
    assert "--parquet DIR" in r.stdout


def test_module_examples_run() -> None:
    import doctest

    import failtax.telemetry.parquet as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0
