"""failtax: classify failure evidence, load failure telemetry, tune the rules.

The core (taxonomies, rule tables, ``classify``, verdicts, pre-execution decisions, retry
budgets, lint, redaction) imports nothing heavy. The data tools (batch classification,
the DuckDB telemetry loader, analysis, tuner, report) are imported on first use, so
``import failtax`` stays cheap.

>>> import failtax
>>> failtax.classify({"text": "overloaded_error: please retry", "exit_code": 1},
...                  taxonomy="agent-run").bucket
'overloaded'
"""

from __future__ import annotations

import importlib
from typing import Any

from failtax.budget import RecoveryBudget, check_streaks, decide_overload, find_streaks
from failtax.classify import Classification, classify
from failtax.errors import FailtaxError, InputError, TableError, TaxonomyError, TelemetryError
from failtax.evidence import Evidence
from failtax.importers import import_rules
from failtax.lint import LintFinding, check_table, lint_table
from failtax.preexec import PreexecDecision, decide_mode
from failtax.redact import find_secrets, redact
from failtax.table import RuleTable, diff_tables, dump_table, load_table, read_table, save_table
from failtax.taxonomy import Bucket, Taxonomy, list_taxonomies, load_taxonomy
from failtax.verdict import RunVerdict, decide_verdict

__version__ = "0.1.0"

# Heavy parts (polars, duckdb, scikit-learn, matplotlib), imported when first used.
_LAZY = {
    "classify_batch": ("failtax.batch", "classify_batch"),
    "extract_signal_matrix": ("failtax.batch", "extract_signal_matrix"),
    "emit": ("failtax.telemetry", "emit"),
    "ask_and_record": ("failtax.telemetry", "ask_and_record"),
    "load_telemetry": ("failtax.telemetry", "load"),
    "connect_telemetry": ("failtax.telemetry", "connect"),
    "simulate": ("failtax.telemetry", "simulate"),
    "Telemetry": ("failtax.telemetry", "Telemetry"),
    "measure_agreement": ("failtax.analysis", "measure_agreement"),
    "diagnose_rules": ("failtax.analysis", "diagnose_rules"),
    "find_misleading_signals": ("failtax.analysis", "find_misleading_signals"),
    "find_suspect_labels": ("failtax.analysis", "find_suspect_labels"),
    "summarize_preexec_overrides": ("failtax.analysis", "summarize_preexec_overrides"),
    "summarize_loops": ("failtax.analysis", "summarize_loops"),
    "TableTuner": ("failtax.tune", "TableTuner"),
    "backtest": ("failtax.tune", "backtest"),
    "rolling_backtest": ("failtax.tune", "rolling_backtest"),
    "mine_candidate_signals": ("failtax.tune", "mine_candidate_signals"),
    "export_table": ("failtax.tune", "export_table"),
    "replay_history": ("failtax.tune", "replay_history"),
    "build_report": ("failtax.report.build", "build_report"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'failtax' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Bucket",
    "Classification",
    "Evidence",
    "FailtaxError",
    "InputError",
    "LintFinding",
    "PreexecDecision",
    "RecoveryBudget",
    "RuleTable",
    "RunVerdict",
    "TableError",
    "TableTuner",
    "Taxonomy",
    "TaxonomyError",
    "Telemetry",
    "TelemetryError",
    "__version__",
    "ask_and_record",
    "backtest",
    "build_report",
    "check_streaks",
    "check_table",
    "classify",
    "classify_batch",
    "connect_telemetry",
    "decide_mode",
    "decide_overload",
    "decide_verdict",
    "diagnose_rules",
    "diff_tables",
    "dump_table",
    "emit",
    "export_table",
    "extract_signal_matrix",
    "find_misleading_signals",
    "find_secrets",
    "find_streaks",
    "find_suspect_labels",
    "import_rules",
    "lint_table",
    "list_taxonomies",
    "load_table",
    "load_taxonomy",
    "load_telemetry",
    "measure_agreement",
    "mine_candidate_signals",
    "read_table",
    "redact",
    "replay_history",
    "rolling_backtest",
    "save_table",
    "simulate",
    "summarize_loops",
    "summarize_preexec_overrides",
]
