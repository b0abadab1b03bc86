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
# # Agreement: where the AI's suggestion and the person's action agree
#
# For every classified failure event the tool suggested an action (`aiSuggestion`) and a
# person chose one (`userAction`). A decision *agrees* when the action carries out the
# suggestion (`share-email` carries out `share-defect`); `skip` is an opt-out, counted
# apart. This notebook shows agreement by bucket, skill and week, the confusion of the
# AI's bucket with the bucket the action implies, and how long people take to decide.
# Every number comes from `failtax.analysis`, the same functions `failtax report` runs.
#
# Run headless: `papermill notebooks/agreement.ipynb out.ipynb -p telemetry 'logs/*.jsonl'`.

# %% tags=["parameters"]
telemetry = None  # files, globs or folders; None = the sample telemetry in data/
taxonomy = None  # "replay", "regen", "preexec", or None for all
since = None  # "YYYY-MM-DD": ignore events classified before this day
until = None  # "YYYY-MM-DD": ignore events classified on or after this day
output_dir = "notebook-output"  # where the numbers (agreement.json) are written

# %%
from pathlib import Path

from failtax.analysis import find_unknown_values, summarize_preexec_overrides
from failtax.report import load_decisions, measure_report_agreement, plots, suggestion_taxonomies
from failtax.report.summary import agreement_numbers, format_rate, preexec_numbers, weekly_agreement, write_json

loaded = load_decisions(telemetry=telemetry, taxonomy=taxonomy, since=since, until=until)
decisions = loaded.decisions
print(f"{decisions.height:,} classified events from {', '.join(loaded.sources) or loaded.db}; "
      f"taxonomies: {', '.join(loaded.taxonomies)}")

# %% [markdown]
# ## Overall and per taxonomy
# Rates carry a Wilson 95% interval and their count; `low_count` flags slices resting on
# fewer than 30 rated decisions (shown, not hidden). As in `failtax report`, agreement is
# measured on replay and regen decisions; pre-execution choices are rated apart (below).

# %%
report = measure_report_agreement(decisions)
print("agreement:", format_rate(agreement_numbers(report)["agreement"]))
report.slices["taxonomy"]

# %% [markdown]
# ## By the AI's bucket

# %%
report.slices["bucket"].select("taxonomy", "ai_bucket", "n_rated", "agreement_rate", "agreement_low",
                               "agreement_high", "opt_out_rate", "low_count")

# %% [markdown]
# ## By skill

# %%
report.slices["skill"].select("skill", "n_rated", "agreement_rate", "agreement_low", "agreement_high",
                              "opt_out_rate", "low_count")

# %% [markdown]
# ## By week

# %%
weekly = weekly_agreement(decisions, taxonomies=suggestion_taxonomies(loaded.taxonomies))
plots.show(plots.plot_agreement_trend(weekly))

# %% [markdown]
# ## AI bucket × implied bucket
# Rows: the AI's bucket; columns: the bucket the person's action implies. Off-diagonal
# cells are where people disagreed with the bucket, not just the suggestion.

# %%
plots.show(plots.plot_confusion(report.scores))

# %% [markdown]
# ## Decision latency
# Overrides usually take longer than agreements: the person had to think.

# %%
plots.show(plots.plot_latency(report.latency))

# %%
report.latency

# %% [markdown]
# ## Pre-execution choices
# Before a run the AI picks replay or regen per test case; a person who disagrees records
# an override, one who agrees records nothing. So these are rated as an override rate.

# %%
preexec = summarize_preexec_overrides(decisions) if "preexec" in loaded.taxonomies else None
preexec.by_rule if preexec is not None else "no pre-execution events in the window"

# %% [markdown]
# ## Values their taxonomy does not define
# An AI bucket, suggestion or action the taxonomy does not know is kept, but such an
# action implies no bucket and never carries out a suggestion: a tool that renamed one
# lowers agreement without anyone disagreeing. An empty table is the good news.

# %%
unknown = find_unknown_values(decisions)
unknown

# %% [markdown]
# ## The numbers that matter
# Written to `agreement.json` in `output_dir` (what the tests and schedulers read).

# %%
numbers = {
    "parameters": {"telemetry": telemetry, "taxonomy": taxonomy, "since": since, "until": until},
    **agreement_numbers(report),
    "latency": report.latency.to_dicts(),
    "preexec": preexec_numbers(preexec) if preexec is not None else None,
    "unknown_values": unknown.to_dicts(),
}
path = write_json(numbers, Path(output_dir) / "agreement.json")
print(f"wrote {path}")
