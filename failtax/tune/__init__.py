"""Tuning rule tables from what people chose.

- :class:`TableTuner` learns a revised table (a draft ``RuleTable``) from decisions,
  with each change's support, gain, interval and p-value, and a watch list.
- :func:`backtest` / :func:`rolling_backtest` prove a tuned table on later weeks.
- :func:`mine_candidate_signals` proposes extractor rules from the text of failures no
  rule recognised or people overrode.
- :func:`export_table` writes the revised table with provenance and a diff;
  :func:`replay_history` replays history under two tables.
"""

from failtax.tune.changes import ProposedChange, RouteEdit, apply_changes
from failtax.tune.tuner import AgreementEstimate, TableTuner, agreement_of, predict_buckets

__all__ = [
    "AgreementEstimate",
    "ProposedChange",
    "RouteEdit",
    "TableTuner",
    "agreement_of",
    "apply_changes",
    "predict_buckets",
]
