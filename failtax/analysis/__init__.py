"""Analysis of decisions: agreement, rule diagnostics, misleading signals, suspect labels.

Every function takes the ``decisions`` relation (a DuckDB relation, a polars or pandas
frame or an Arrow table; see :mod:`failtax.analysis.frames`) and returns polars frames
or frozen dataclasses with ``to_dict()``. Plots are built elsewhere from these frames.

- :mod:`~failtax.analysis.agreement`: agreement and opt-out rates overall and per
  slice, macro-F1, Cohen's kappa, confusion matrix, decision latency;
- :mod:`~failtax.analysis.reclassify`: the events' evidence classified under a table
  (the shared events × signals representation);
- :mod:`~failtax.analysis.rules`: per-rule coverage, overlap, conflict, accuracy,
  dead rules, unknown signals, recognition rate, shadowed routes;
- :mod:`~failtax.analysis.signals`: misleading signals, lift, drift, examples;
- :mod:`~failtax.analysis.labels`: suspect labels (confident learning);
- :mod:`~failtax.analysis.preexec`: overrides of the pre-execution replay/regen choice;
- :mod:`~failtax.analysis.loops`: recovery budget use, escalations, repeated failures;
- :mod:`~failtax.analysis.quality`: AI buckets, suggestions and actions no taxonomy defines;
- :mod:`~failtax.analysis.stats`: Wilson and Newcombe intervals, proportion tests.
"""

from failtax.analysis.agreement import (
    AgreementReport,
    LabelScores,
    cohen_kappa_score,
    confusion_matrix,
    macro_f1_score,
    measure_agreement,
    score_labels,
    summarize_agreement,
    summarize_latency,
)
from failtax.analysis.frames import as_decisions, filter_decisions
from failtax.analysis.labels import SuspectLabels, find_suspect_labels
from failtax.analysis.loops import (
    LoopReport,
    find_failure_streaks,
    find_retry_streaks,
    summarize_loops,
    summarize_recoveries,
)
from failtax.analysis.preexec import PreexecOverrides, age_band, summarize_preexec_overrides
from failtax.analysis.quality import find_unknown_values
from failtax.analysis.reclassify import Reclassified, reclassify
from failtax.analysis.rules import RuleDiagnostics, diagnose_rules, signal_routes
from failtax.analysis.signals import MisleadingSignals, find_misleading_signals

__all__ = [
    "AgreementReport",
    "LabelScores",
    "LoopReport",
    "MisleadingSignals",
    "PreexecOverrides",
    "Reclassified",
    "RuleDiagnostics",
    "SuspectLabels",
    "age_band",
    "as_decisions",
    "cohen_kappa_score",
    "confusion_matrix",
    "diagnose_rules",
    "filter_decisions",
    "find_failure_streaks",
    "find_misleading_signals",
    "find_retry_streaks",
    "find_suspect_labels",
    "find_unknown_values",
    "macro_f1_score",
    "measure_agreement",
    "reclassify",
    "score_labels",
    "signal_routes",
    "summarize_agreement",
    "summarize_latency",
    "summarize_loops",
    "summarize_preexec_overrides",
    "summarize_recoveries",
]
