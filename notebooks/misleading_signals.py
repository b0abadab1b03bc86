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
# # Misleading signals: which signals make people override the table?
#
# For each signal, among the labelled events where the signal *decided* the bucket, how
# often did the person's action imply the bucket the table routes it to (`match_rate`),
# compared with the table's accuracy over all labelled events (the baseline)? A signal
# whose match rate is significantly below the baseline (exact binomial test, Bonferroni)
# misleads; one no route knows, whose fallback bucket is wrong, needs a rule.
#
# The forest plot shows each signal's *lift*: P(bucket | signal) / P(bucket), with a 95%
# interval, for the bucket the table routes to and the bucket people chose instead.
# Example events are shown with secrets and personal data masked (`failtax.redact`).

# %% tags=["parameters"]
telemetry = None  # files, globs or folders; None = the sample telemetry in data/
taxonomy = None  # "replay", "regen", "preexec", or None for all
since = None  # "YYYY-MM-DD": ignore events classified before this day
until = None  # "YYYY-MM-DD": ignore events classified on or after this day
output_dir = "notebook-output"  # where the numbers (misleading_signals.json) are written
top = 10  # signals listed per taxonomy
n_examples = 3  # example events per signal

# %%
from pathlib import Path

from failtax.analysis import find_misleading_signals
from failtax.report import load_decisions, plots, suggestion_taxonomies
from failtax.report.reclass import reclassify_with_batch
from failtax.report.summary import summarize_signals, write_json

loaded = load_decisions(telemetry=telemetry, taxonomy=taxonomy, since=since, until=until)
decisions = loaded.decisions
print(f"{decisions.height:,} classified events; taxonomies: {', '.join(loaded.taxonomies)}")

# %% [markdown]
# Each taxonomy's events are classified again under its shipped table with the batch
# engine (what `failtax classify` does), once per distinct evidence. Pre-execution
# choices are left out, as in `failtax report`: only overrides are recorded for them.

# %%
found = {
    tax: find_misleading_signals(reclassify_with_batch(decisions, taxonomy=tax), n_examples=n_examples)
    for tax in suggestion_taxonomies(loaded.taxonomies)
}
{tax: f"baseline {m.baseline:.1%} over {m.n_labelled:,} labelled events" for tax, m in found.items()}

# %% [markdown]
# ## The ranked list
# Most misleading first: `misleading` (a route sends the signal to the wrong bucket),
# then `fallback_wrong` (no route knows it), then the rest by how far below the baseline.

# %%
columns = ["rank", "signal", "misleading", "fallback_wrong", "routed_bucket", "override_to", "n_labelled",
           "match_rate", "match_rate_low", "match_rate_high", "excess_low", "p_value"]
for tax, m in found.items():
    print(tax)
    display(m.signals.select(columns).head(top))  # noqa: F821 - IPython's display

# %% [markdown]
# ## Lift per signal (forest plot)

# %%
plots.show(plots.plot_signal_lift(list(found.values()), top=top))

# %% [markdown]
# ## Drill-down: the most misleading signal of each taxonomy
# Its lift for every bucket, whether it drifted (the week its match rate fell), and
# example overrides (newest first, text redacted).

# %%
for tax, m in found.items():
    flagged = m.signals.filter(m.signals["misleading"] | m.signals["fallback_wrong"])
    if flagged.height == 0:
        print(f"{tax}: no misleading signal")
        continue
    signal = flagged["signal"][0]
    print(f"{tax}: {signal}")
    display(m.lift.filter(m.lift["signal"] == signal))  # noqa: F821
    display(m.drift.filter(m.drift["signal"] == signal))  # noqa: F821
    display(m.examples.filter(m.examples["signal"] == signal))  # noqa: F821

# %% [markdown]
# ## The numbers that matter
# Written to `misleading_signals.json` in `output_dir`.

# %%
numbers = {
    "parameters": {"telemetry": telemetry, "taxonomy": taxonomy, "since": since, "until": until,
                   "top": top, "n_examples": n_examples},
    "taxonomies": {
        tax: {"baseline_match": m.baseline, "n_labelled": m.n_labelled,
              "misleading_signals": summarize_signals(m, top=top, n_examples=n_examples)}
        for tax, m in found.items()
    },
}
path = write_json(numbers, Path(output_dir) / "misleading_signals.json")
print(f"wrote {path}")
