"""Worker process for the report's tuner fits: ``python -m failtax.report._fitworker SPEC DIR``.

Started by :func:`failtax.report.tuning.fit_tuners_and_backtests` on large data; reads
its jobs from the pickle ``SPEC``, takes those no other worker has taken and writes their
results into the folder ``DIR``.
"""

from __future__ import annotations

import sys

from failtax.report.tuning import run_worker

if __name__ == "__main__":
    run_worker(sys.argv[1], sys.argv[2])
