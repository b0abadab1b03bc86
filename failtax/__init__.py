"""failtax: classify failure evidence, load failure telemetry, tune the rules.

>>> import failtax
>>> failtax.classify({"text": "overloaded_error: please retry", "exit_code": 1},
...                  taxonomy="agent-run").bucket
'overloaded'
"""

from failtax.classify import Classification, classify
from failtax.errors import FailtaxError, InputError, TableError, TaxonomyError, TelemetryError
from failtax.evidence import Evidence
from failtax.table import RuleTable, diff_tables, dump_table, load_table, read_table, save_table
from failtax.taxonomy import Bucket, Taxonomy, list_taxonomies, load_taxonomy

__version__ = "0.1.0"

__all__ = [
    "Bucket",
    "Classification",
    "Evidence",
    "FailtaxError",
    "InputError",
    "RuleTable",
    "TableError",
    "Taxonomy",
    "TaxonomyError",
    "TelemetryError",
    "__version__",
    "classify",
    "diff_tables",
    "dump_table",
    "list_taxonomies",
    "load_table",
    "load_taxonomy",
    "read_table",
    "save_table",
]
