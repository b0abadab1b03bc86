"""Tuning rule tables from what people chose.

- :class:`TableTuner` learns a revised table (a draft ``RuleTable``) from decisions,
  with each change's support, gain, interval and p-value, and a watch list.
- :func:`backtest` / :func:`rolling_backtest` prove a tuned table on later weeks.
- :func:`mine_candidate_signals` proposes extractor rules from the text of failures no
  rule recognised or people overrode; :func:`apply_signal_proposals` adds accepted ones.
- :func:`export_table` writes the revised table with provenance and a diff;
  :func:`replay_history` replays history under two tables.
"""

from failtax.tune.backtest import BacktestResult, backtest, default_cutoff, rolling_backtest, split_at
from failtax.tune.changes import ProposedChange, RouteEdit, apply_changes
from failtax.tune.export import ExportResult, export_table, load_decisions, replay_history
from failtax.tune.mine import SignalProposal, apply_signal_proposals, mask_text, mine_candidate_signals
from failtax.tune.replay import BucketAgreement, MovedEvents, ReplayResult, WeekAgreement, replay_decisions
from failtax.tune.tuner import AgreementEstimate, TableTuner, agreement_of, bump_minor, predict_buckets

__all__ = [
    "AgreementEstimate",
    "BacktestResult",
    "BucketAgreement",
    "ExportResult",
    "MovedEvents",
    "ProposedChange",
    "ReplayResult",
    "RouteEdit",
    "SignalProposal",
    "TableTuner",
    "WeekAgreement",
    "agreement_of",
    "apply_changes",
    "apply_signal_proposals",
    "backtest",
    "bump_minor",
    "default_cutoff",
    "export_table",
    "load_decisions",
    "mask_text",
    "mine_candidate_signals",
    "predict_buckets",
    "replay_decisions",
    "replay_history",
    "rolling_backtest",
    "split_at",
]
