"""failtax on Spark gives exactly the answers of the local DuckDB/polars path.

A real PySpark in local mode (``local[2]``, Java from the machine, started once per test
worker: the fixtures are session-wide, so tests of other modules run in between do not
stop and start it again) reads the Parquet that ``failtax load --parquet`` wrote, for the
bundled sample (``data/``) and for 20,000 simulated classified events (``failtax
simulate``, seeded; the simulation and load run as real CLI subprocesses while Spark
starts). Against the local path on the database the same load built, it must give:

- the same classification, row by row and column by column, through ``mapInArrow``
  (and ``mapInPandas``), with the rule table parsed once per Python worker;
- the same agreement figures: every count, rate and interval of every slice, the label
  scores and the latency percentiles;
- the same misleading-signal findings (ranking, lift, drift, examples);
- the same tuned table: identical changes and identical TOML, fitted from counts per
  signal set that are a small fraction of the events.

Skipped as a whole when PySpark is not installed (``pip install failtax[spark]``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

import polars as pl  # noqa: E402
import pyarrow as pa  # noqa: E402
from polars.testing import assert_frame_equal  # noqa: E402

import failtax.analysis as local  # noqa: E402
from failtax import spark as fs  # noqa: E402
from failtax.batch import classify_batch  # noqa: E402
from failtax.errors import InputError  # noqa: E402
from failtax.spark.classify import table_cache_info  # noqa: E402
from failtax.spark.io import QUICK_START_JAVA_OPTIONS  # noqa: E402
from failtax.spark.tune import GROUP_KEYS  # noqa: E402
from failtax.table import dump_table, load_table  # noqa: E402
from failtax.taxonomy import load_taxonomy  # noqa: E402
from failtax.telemetry import connect, load  # noqa: E402
from failtax.telemetry.parquet import write_parquet  # noqa: E402
from failtax.tune import TableTuner  # noqa: E402
from failtax.tune._frame import prepare, with_signal_sets  # noqa: E402

pytestmark = [
    pytest.mark.spark,
    pytest.mark.slow,
    pytest.mark.xdist_group("spark"),  # one Spark session: keep these on one worker (--dist loadgroup)
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data"
SIM_EVENTS = 20_000
SIM_SEED = 11


def _cli() -> list[str]:
    return [sys.executable, "-c", "from failtax.cli import main; main()"]


@pytest.fixture(scope="session")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spark")


@pytest.fixture(scope="session")
def simulated(workdir: Path) -> Iterator[subprocess.Popen]:
    """``failtax simulate`` then ``failtax load --db --parquet``, started before Spark."""
    sim, db, pq = workdir / "sim", workdir / "sim.duckdb", workdir / "sim-pq"
    script = (
        f"{subprocess.list2cmdline(_cli())} simulate --out {sim} --events {SIM_EVENTS} --seed {SIM_SEED} >/dev/null"
        f" && {subprocess.list2cmdline(_cli())} load {sim} --db {db} --parquet {pq} --no-progress >/dev/null"
    )
    proc = subprocess.Popen(["/bin/sh", "-c", script], stderr=subprocess.PIPE, text=True)
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def spark(simulated: subprocess.Popen, _pattern_cache: Path) -> Iterator[object]:
    if shutil.which("java") is None:
        pytest.fail("PySpark is installed but no Java runtime is on PATH")
    # The JVM, and the Python workers it starts, keep the environment they start with: the
    # run's pattern cache, not the user's (the per-test setting comes after module fixtures).
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FAILTAX_CACHE_DIR", str(_pattern_cache))
        session = fs.start_local_session(cores=2, shuffle_partitions=2, app_name="failtax-tests", memory="2g",
                                         java_options=QUICK_START_JAVA_OPTIONS)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _decisions(db: Path) -> pl.DataFrame:
    with connect(db) as tel:
        return local.as_decisions(tel.decisions)


@pytest.fixture(scope="session")
def sample(spark: object, workdir: Path) -> dict:
    """The bundled sample: database + Parquet, local decisions, Spark decisions."""
    db, pq = workdir / "sample.duckdb", workdir / "sample-pq"
    with load(str(SAMPLE), db=db, progress=False) as tel:
        write_parquet(tel, pq)
        events = tel.events.pl()
    return {"local": _decisions(db), "spark": fs.read_decisions(spark, str(pq)), "pq": pq, "events": events}


@pytest.fixture(scope="session")
def sim(spark: object, simulated: subprocess.Popen, workdir: Path) -> dict:
    """20,000 simulated events: the CLI's database for the local path, its Parquet for Spark."""
    _, err = simulated.communicate(timeout=600)
    assert simulated.returncode == 0, err
    local_df = _decisions(workdir / "sim.duckdb")
    assert local_df.height == SIM_EVENTS
    return {"local": local_df, "spark": fs.read_decisions(spark, str(workdir / "sim-pq"))}


def _both(request: pytest.FixtureRequest, name: str) -> dict:
    return request.getfixturevalue(name)


# --------------------------------------------------------------------------- classification


def _evidence(df: pl.DataFrame, taxonomy: str) -> pl.DataFrame:
    return df.filter(pl.col("taxonomy") == taxonomy).select(pl.col("event_id").alias("id"), "text", "signals")


@pytest.mark.parametrize("data", ["sample", "sim"])
def test_buckets_equal_the_local_batch_path_row_by_row(request: pytest.FixtureRequest, data: str) -> None:
    d = _both(request, data)
    for taxonomy in ("replay", "regen"):
        sdf = d["spark"].filter(d["spark"].taxonomy == taxonomy).select(
            d["spark"].event_id.alias("id"), "text", "signals")
        got = pl.from_arrow(fs.classify_spark(sdf, taxonomy=taxonomy).toArrow())
        want = classify_batch(_evidence(d["local"], taxonomy), taxonomy=taxonomy)
        assert got.columns == want.columns  # the local batch path's columns, in its order
        assert got.height == want.height > 0
        assert_frame_equal(got.sort("id"), want.sort("id"), check_dtypes=False)
        assert got["bucket"].n_unique() == len(load_taxonomy(taxonomy).bucket_names)


def test_agent_failures_with_exit_codes_and_signals_classify_the_same(spark: object, sample: dict) -> None:
    ev = sample["events"].filter(pl.col("source") == "agent-failure").select(
        pl.col("event_id").alias("id"), pl.col("stderr_tail").alias("stderrTail"), "exit_code",
        pl.col("posix_signal").alias("signal"))
    assert ev.height == 150 and ev["exit_code"].null_count() < ev.height
    sdf = spark.createDataFrame(ev.to_arrow())  # type: ignore[attr-defined]
    got = pl.from_arrow(fs.classify_spark(sdf, taxonomy="agent-run").toArrow())
    want = classify_batch(ev, taxonomy="agent-run")
    assert_frame_equal(got.sort("id"), want.sort("id"), check_dtypes=False)
    assert got["bucket"].n_unique() >= 5


def test_map_in_pandas_and_kept_columns(sample: dict) -> None:
    sdf = sample["spark"].filter(sample["spark"].taxonomy == "regen").select("event_id", "week", "text", "signals")
    got = pl.from_arrow(fs.classify_spark(sdf, taxonomy="regen", keep=["event_id", "week"], pandas=True).toArrow())
    want = classify_batch(sample["local"].filter(pl.col("taxonomy") == "regen").select("text", "signals"),
                          taxonomy="regen")
    assert got.columns == ["event_id", "week", *want.columns]
    ids = sample["local"].filter(pl.col("taxonomy") == "regen").select("event_id", "week")
    want = pl.concat([ids, want], how="horizontal")
    assert_frame_equal(got.sort("event_id"), want.sort("event_id"), check_dtypes=False)
    with pytest.raises(InputError, match="no evidence column"):
        fs.classify_spark(sdf.select("event_id"), taxonomy="regen")


def test_the_table_is_parsed_once_per_worker_process(spark: object, sample: dict) -> None:
    """Eight partitions on two cores: each Python worker parses the table text once."""
    clf = fs.ArrowClassifier.for_table(
        "replay", input_schema=pa.schema([("id", pa.string()), ("text", pa.string()),
                                          ("signals", pa.list_(pa.string()))]))

    def probe(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = sum(b.num_rows for b in clf(batches))
        info = table_cache_info()
        yield pa.record_batch({"pid": [info["pid"]], "parses": [info["parses"].get(clf.digest, 0)], "rows": [rows]})

    sdf = sample["spark"].filter(sample["spark"].taxonomy == "replay").select(
        sample["spark"].event_id.alias("id"), "text", "signals").repartition(8)
    out = pl.from_arrow(sdf.mapInArrow(probe, "pid long, parses long, rows long").toArrow())
    assert out.height == 8 and out["rows"].sum() == 3000
    per_worker = out.group_by("pid").agg(pl.col("parses").max())
    assert per_worker["parses"].to_list() == [1] * per_worker.height  # reused workers found it cached
    assert per_worker.height < 8


# --------------------------------------------------------------------------- agreement


def _assert_same_report(got: local.AgreementReport, want: local.AgreementReport) -> None:
    assert got.taxonomies == want.taxonomies
    assert_frame_equal(got.overall, want.overall, check_dtypes=False)
    assert set(got.slices) == set(want.slices)
    for name, frame in want.slices.items():
        assert_frame_equal(got.slices[name], frame, check_dtypes=False)
        # the only type difference allowed: row counts as Int64 instead of polars' UInt32
        diff = {c for c in frame.columns if got.slices[name].schema[c] != frame.schema[c]}
        assert diff <= {"n_events"} and got.slices[name].schema["n_events"] == pl.Int64
    assert got.scores == want.scores  # macro-F1, kappa, confusion: equal to the last bit
    assert_frame_equal(got.latency, want.latency)
    assert got.to_dict() == want.to_dict()


@pytest.mark.parametrize("data", ["sample", "sim"])
def test_agreement_figures_equal_the_local_analysis(request: pytest.FixtureRequest, data: str) -> None:
    d = _both(request, data)
    got = fs.measure_agreement(d["spark"])
    want = local.measure_agreement(d["local"])
    _assert_same_report(got, want)
    assert want.overall["n_events"][0] == d["local"].height
    assert 0.5 < want.overall["agreement_rate"][0] < 1.0


def test_agreement_with_filters_reads_only_the_days_it_needs(sim: dict) -> None:
    got = fs.measure_agreement(sim["spark"], taxonomy=["replay", "preexec"], since="2026-10-19", min_count=50,
                               slices=["bucket", "week", "signal"])
    want = local.measure_agreement(sim["local"], taxonomy=["replay", "preexec"], since="2026-10-19", min_count=50,
                                   slices=["bucket", "week", "signal"])
    _assert_same_report(got, want)
    assert want.slices["week"]["week"].min().isoformat() == "2026-10-19"
    plan = fs.stats.filter_decisions(sim["spark"], since="2026-10-19")._jdf.queryExecution().executedPlan().toString()
    assert "PartitionFilters: [isnotnull(date" in plan and "2026-10-19" in plan


def test_label_scores_from_counts_match_sklearn_on_a_hand_example() -> None:
    from sklearn.metrics import cohen_kappa_score, f1_score

    t = ["infra"] * 5 + ["stale-script"] * 3 + ["product-defect"] * 2
    p = ["infra"] * 4 + ["stale-script"] + ["stale-script"] * 2 + ["infra"] + ["product-defect", "infra"]
    counts = pl.DataFrame({"t": t, "p": p}).group_by("t", "p").len("n")
    labels = ["infra", "stale-script", "product-defect"]
    s = fs.label_scores_from_counts(counts, taxonomy="replay", labels=labels)
    assert s.n == 10 and s.accuracy == 7 / 10
    assert s.macro_f1 == f1_score(t, p, average="macro", labels=labels)
    assert s.kappa == cohen_kappa_score(t, p, labels=labels)
    assert s.confusion == ((4, 1, 1), (1, 2, 0), (0, 0, 1))  # rows: AI bucket


# --------------------------------------------------------------------------- misleading signals


@pytest.mark.parametrize("taxonomy", ["replay", "regen"])
def test_misleading_signals_equal_the_local_analysis(sim: dict, taxonomy: str) -> None:
    got = fs.find_misleading_signals(sim["spark"], taxonomy=taxonomy)
    want = local.find_misleading_signals(sim["local"], taxonomy=taxonomy)
    for name in ("signals", "lift", "drift", "examples"):
        assert_frame_equal(getattr(got, name), getattr(want, name))
    assert (got.baseline, got.n_labelled) == (want.baseline, want.n_labelled)
    assert got.to_records() == want.to_records()
    # the planted defects are there to be found: the comparison is not between empty frames
    assert want.signals["misleading"].sum() + want.signals["fallback_wrong"].sum() >= 2
    assert want.drift["drifted"].sum() >= 1


# --------------------------------------------------------------------------- the tuner


@pytest.mark.parametrize("taxonomy", ["replay"])  # regen: on the sample below, cross-validated
def test_tuned_table_equals_the_local_fit(sim: dict, taxonomy: str, tmp_path: Path) -> None:
    counts = fs.count_signal_sets(sim["spark"], taxonomy=taxonomy)
    n_events = sim["local"].filter(pl.col("taxonomy") == taxonomy).height
    assert counts["n"].sum() == n_events
    # the driver sees one row per group (signal set, label, week …), exactly as the local
    # tuner groups the events, and far fewer groups than events
    local_sets = with_signal_sets(prepare(sim["local"].filter(pl.col("taxonomy") == taxonomy),
                                          taxonomy=load_taxonomy(taxonomy)), load_table(taxonomy), use_text=True)
    want_counts = local_sets.group_by(GROUP_KEYS).agg(pl.len().alias("n"), pl.col("ts").min().alias("ts_min"),
                                                      pl.col("ts").max().alias("ts_max"))
    assert_frame_equal(counts, want_counts.sort(list(GROUP_KEYS), nulls_last=True), check_dtypes=False)
    # (about a third of the events on this simulation: 3,449 groups for 10,000 events once
    # the tables' growth widened the simulated signal sets; the bound asks for a clear cut)
    assert counts.height < n_events // 2

    params = dict(suspect_method="week", cv=None, random_state=7)  # cross-validation: on the sample below
    got = fs.fit_counts(TableTuner(taxonomy, **params), counts)
    want = TableTuner(taxonomy, **params).fit(sim["local"])
    assert [str(c) for c in got.changes_] == [str(c) for c in want.changes_]
    assert len(want.changes_) >= 2  # planted defects: there is something to tune
    assert [str(c) for c in got.watch_] == [str(c) for c in want.watch_]
    for attr in ("n_events_", "n_decided_", "n_labelled_", "n_suspect_labels_", "window_",
                 "predicted_agreement_", "predicted_agreement_recent_", "predicted_agreement_cv_"):
        assert getattr(got, attr) == getattr(want, attr), attr
    assert dump_table(got.table_) == dump_table(want.table_)

    from failtax.tune import export_table

    a = export_table(got, tmp_path / "spark.toml", created="2026-12-01")
    b = export_table(want, tmp_path / "local.toml", created="2026-12-01")
    assert a.path.read_text() == b.path.read_text()


def test_tune_table_on_the_sample_cross_validated_and_confident_learning_refused(sample: dict) -> None:
    got = fs.tune_table(sample["spark"], taxonomy="regen", cv=2, random_state=3)
    want = TableTuner("regen", cv=2, random_state=3, suspect_method="week").fit(sample["local"])
    assert got.predicted_agreement_cv_ == want.predicted_agreement_cv_ is not None
    assert got.changes_ and dump_table(got.table_) == dump_table(want.table_)
    # the tuned table (no file, no shipped name) travels to the workers as text
    sdf = sample["spark"].filter(sample["spark"].taxonomy == "regen").select(
        sample["spark"].event_id.alias("id"), "text", "signals")
    classified = pl.from_arrow(fs.classify_spark(sdf, table=got.table_).toArrow())
    assert_frame_equal(classified.sort("id"),
                       classify_batch(_evidence(sample["local"], "regen"), table=want.table_).sort("id"),
                       check_dtypes=False)
    assert set(classified["table_version"].to_list()) == {want.table_.version}
    before = classify_batch(_evidence(sample["local"], "regen"), taxonomy="regen").sort("id")
    assert (classified.sort("id")["bucket"] != before["bucket"]).sum() > 0  # the tuned routes are in use
    with pytest.raises(InputError, match="confident learning"):
        fs.tune_table(sample["spark"], taxonomy="replay", suspect_method="auto")


def test_module_examples_run() -> None:
    """The docstring examples of the Spark package (they need no session)."""
    import doctest
    import importlib

    for name in ("failtax.spark", "failtax.spark.classify", "failtax.spark.stats", "failtax.spark.tune",
                 "failtax.spark.io"):
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, name
