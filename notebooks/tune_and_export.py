# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     notebook_metadata_filter: kernelspec,jupytext
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Tune and export: a revised rule table, proven on later weeks
#
# The tuner learns from the buckets people's actions imply, proposes table edits a
# person can read (re-route a signal, add a route for a signal no rule knows, reorder
# routes), and refuses edits without enough support or significance (the watch list).
# A backtest fits on earlier weeks only and scores the current and the tuned table on
# the weeks after. Then: review the diff, export the table, classify with it.

# %% tags=["parameters"]
telemetry = None  # files, globs or folders; None = the sample telemetry in data/
taxonomy = "replay"  # the taxonomy whose table to tune: "replay", "regen" or "preexec"
since = None  # "YYYY-MM-DD": ignore events classified before this day
until = None  # "YYYY-MM-DD": ignore events classified on or after this day
output_dir = "notebook-output"  # where the table and the numbers (tune_and_export.json) are written
min_support = 10  # least labelled events a change must move
alpha = 0.05  # significance level (Bonferroni over candidates)

# %%
from pathlib import Path

import polars as pl

import failtax
from failtax.batch import classify_batch
from failtax.report import load_decisions, plots
from failtax.report.reclass import bucket_moves, distinct_evidence
from failtax.report.summary import backtest_frame, moves_numbers, tuning_numbers, write_json
from failtax.report.tuning import backtest_rows, run_backtests
from failtax.tune import TableTuner, export_table

loaded = load_decisions(telemetry=telemetry, taxonomy=taxonomy, since=since, until=until)
decisions = loaded.decisions
print(f"{decisions.height:,} {taxonomy} events")

# %% [markdown]
# ## Fit

# %%
tuner = TableTuner(taxonomy, min_support=min_support, alpha=alpha, cv=None, random_state=0).fit(decisions)
print(tuner.summary())

# %% [markdown]
# ## Proposed changes and the watch list

# %%
changes = pl.DataFrame([c.to_dict() for c in tuner.changes_ + tuner.watch_]) if (tuner.changes_ or tuner.watch_) \
    else pl.DataFrame()
changes.select("status", "summary", "support", "moved", "wins", "losses", "gain", "gain_low", "gain_high",
               "reason") if changes.height else "no change proposed, nothing on the watch list"

# %% [markdown]
# ## Backtest: fitted before each cut-off, scored after it

# %%
backtests = run_backtests(decisions, taxonomies=[taxonomy])
plots.show(plots.plot_backtest(backtest_frame(backtest_rows(backtests))))

# %% [markdown]
# ## Review the diff, and the events that would move

# %%
print(failtax.diff_tables(tuner.base_table_, tuner.table_))

# %%
moves = bucket_moves(decisions, old=tuner.base_table_, new=tuner.table_)
plots.show(plots.plot_bucket_moves(moves, buckets={taxonomy: failtax.load_taxonomy(taxonomy).bucket_names}))

# %% [markdown]
# ## Export, load back, classify
# The exported file is an ordinary rule table: `failtax classify --taxonomy TAXONOMY
# --table FILE` uses it. Loading it back and classifying the same evidence must give the
# buckets the diff promised.

# %%
export_path = Path(output_dir) / f"{taxonomy}-tuned.toml"
export_path.parent.mkdir(parents=True, exist_ok=True)
exported = export_table(tuner, export_path, decisions=decisions)  # provenance header, lint-checked
print(exported)
reloaded = failtax.load_table(export_path)
_events, evidence = distinct_evidence(decisions, taxonomy=taxonomy)
buckets = classify_batch(evidence.select("signals", "text"), table=reloaded)["bucket"]
reclassified = (pl.DataFrame({"bucket": buckets, "n": evidence["n"]}).group_by("bucket").agg(pl.col("n").sum())
                .sort("bucket"))
promised = moves.group_by("new_bucket").agg(pl.col("n").sum()).rename({"new_bucket": "bucket"}).sort("bucket")
print(f"exported {export_path} (version {reloaded.version}); classify agrees with the diff:",
      reclassified.equals(promised))

# %% [markdown]
# ## The numbers that matter
# Written to `tune_and_export.json` in `output_dir`.

# %%
numbers = {
    "parameters": {"telemetry": telemetry, "taxonomy": taxonomy, "since": since, "until": until,
                   "min_support": min_support, "alpha": alpha},
    "n_events": tuner.n_events_,
    "n_labelled": tuner.n_labelled_,
    **tuning_numbers(tuner),
    "backtest": backtests.get(taxonomy),
    "moves": moves_numbers(moves, taxonomy=taxonomy),
    "export": {"path": str(export_path), "version": reloaded.version,
               "moved": exported.replay.n_moved if exported.replay is not None else None,
               "classify_matches_diff": reclassified.equals(promised)},
}
path = write_json(numbers, Path(output_dir) / "tune_and_export.json")
print(f"wrote {path}")
