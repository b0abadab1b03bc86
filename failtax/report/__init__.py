"""The scheduled tuning report and the pieces the notebooks share with it.

- :func:`build_report` (``failtax report``): telemetry → ``index.html`` (one
  self-contained page, plots embedded), ``summary.json``, ``summary.md``;
- :mod:`failtax.report.plots`: the figures (matplotlib, no pyplot state);
- :mod:`failtax.report.summary`: the numbers, their formatting, ``summary.json``/``.md``;
- :mod:`failtax.report.reclass`: re-classification of the decisions' evidence with the
  batch engine (rule diagnostics, events moving between buckets);
- :mod:`failtax.report.html`: the self-contained HTML page builder.

>>> from failtax.report import build_report   # doctest: +SKIP
>>> build_report(out="report", fail_under=0.8).exit_code   # doctest: +SKIP
0
"""

from failtax.report.build import (
    STEPS,
    ReportInputError,
    ReportResult,
    ReportStepError,
    build_report,
    find_sample_telemetry,
    load_decisions,
    measure_report_agreement,
    suggestion_taxonomies,
)

from failtax.report.build import __all__  # noqa: E402  (the same public names)
