"""One door into the analysis: any frame of decisions → a validated polars frame.

Every analysis function accepts the ``decisions`` relation (see the telemetry loader)
as a DuckDB relation, a polars ``DataFrame``/``LazyFrame``, a pandas ``DataFrame`` or an
Arrow table, and calls :func:`as_decisions` once: it converts to polars, checks that the
columns that function needs are present with usable types, and normalises the few
types that differ between sources (pandas turns ``DATE`` into datetimes, JSON comes out
of DuckDB as text). A missing or mistyped column raises :class:`~failtax.InputError`
naming the column, what was expected and what was found.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import polars as pl

from failtax.errors import InputError

__all__ = [
    "DECISION_COLUMNS",
    "as_decisions",
    "as_frame",
    "filter_decisions",
    "with_rate_columns",
]

#: The ``decisions`` columns and the polars type family each must have.
DECISION_COLUMNS: dict[str, str] = {
    "event_id": "string",
    "family": "string",
    "taxonomy": "string",
    "ts": "datetime",
    "resolved_ts": "datetime",
    "week": "date",
    "skill": "string",
    "project_id": "string",
    "run_id": "string",
    "test_case_id": "string",
    "ai_bucket": "string",
    "ai_suggestion": "string",
    "signals": "list[string]",
    "user_action": "string",
    "implied_bucket": "string",
    "decided": "boolean",
    "opt_out": "boolean",
    "agree": "boolean",
    "latency_s": "number",
    "text": "string",
    "metadata": "string",
}


#: The inputs a loaded :class:`~failtax.telemetry.load.Telemetry` holds as a relation of that name.
_TELEMETRY_VIEWS = ("decisions", "lifecycle")


def as_frame(data: Any, *, what: str = "data") -> pl.DataFrame:
    """Convert a DuckDB relation, polars, pandas or Arrow table to a polars ``DataFrame``.

    Parameters
    ----------
    data : ``duckdb.DuckDBPyRelation``, ``pl.DataFrame``, ``pl.LazyFrame``,
        ``pandas.DataFrame`` or ``pyarrow.Table``; or a loaded
        :class:`~failtax.telemetry.load.Telemetry`, whose relation named ``what``
        (``decisions``, ``lifecycle``) is taken.
    what : the name used in error messages.

    Returns
    -------
    polars.DataFrame

    >>> as_frame(pl.DataFrame({"a": [1]})).shape
    (1, 1)
    """
    if isinstance(data, pl.DataFrame):
        return data
    if isinstance(data, pl.LazyFrame):
        return data.collect()
    from failtax.telemetry.load import Telemetry

    if isinstance(data, Telemetry):
        # A loaded database holds several relations: take the one asked for by name.
        if what not in _TELEMETRY_VIEWS:
            raise InputError(f"{what}: got a whole Telemetry database; pass one of its relations "
                             f"(tel.decisions, tel.lifecycle, tel.events …)")
        return getattr(data, what).pl()
    mod = type(data).__module__.split(".")[0]
    if mod == "duckdb" and hasattr(data, "pl"):
        return data.pl()
    if mod == "pandas":
        return pl.from_pandas(data)
    if mod == "pyarrow":
        out = pl.from_arrow(data)
        if isinstance(out, pl.DataFrame):
            return out
    raise InputError(
        f"{what}: expected a DuckDB relation, a polars or pandas DataFrame or an Arrow "
        f"table, got {type(data).__module__}.{type(data).__name__}"
    )


def _family(dtype: pl.DataType) -> str:
    if dtype == pl.String or dtype == pl.Categorical or isinstance(dtype, pl.Enum):
        return "string"
    if dtype == pl.Boolean:
        return "boolean"
    if dtype == pl.Date:
        return "date"
    if isinstance(dtype, pl.Datetime):
        return "datetime"
    if dtype.is_numeric():
        return "number"
    if isinstance(dtype, pl.List):
        inner = _family(dtype.inner)
        return f"list[{inner}]"
    if dtype == pl.Null:
        return "null"
    if isinstance(dtype, pl.Struct):
        return "struct"
    return str(dtype)


def _coerce(df: pl.DataFrame, name: str, want: str, what: str) -> pl.Expr | None:
    """An expression turning column ``name`` into type family ``want``, or None if already fine."""
    got = _family(df.schema[name])
    if got == want:
        if got == "string" and df.schema[name] != pl.String:
            return pl.col(name).cast(pl.String)
        return None
    if got == "null" or got == "list[null]":
        return pl.lit(None).cast(_POLARS_TYPES[want]).alias(name)
    if want == "date" and got == "datetime":
        return pl.col(name).dt.date()
    if want == "datetime" and got == "date":
        return pl.col(name).cast(pl.Datetime("us"))
    if want == "number" and got == "boolean":
        return pl.col(name).cast(pl.Float64)
    if want == "string" and got == "struct":
        return pl.col(name).struct.json_encode()
    if want == "list[string]" and got.startswith("list["):
        return pl.col(name).cast(pl.List(pl.String))
    raise InputError(f"{what}: column {name!r} should be {want}, found {got} ({df.schema[name]})")


_POLARS_TYPES: dict[str, pl.DataType] = {
    "string": pl.String(),
    "boolean": pl.Boolean(),
    "date": pl.Date(),
    "datetime": pl.Datetime("us"),
    "number": pl.Float64(),
    "list[string]": pl.List(pl.String),
}


def as_decisions(
    data: Any,
    *,
    columns: Iterable[str] | None = None,
    optional: Iterable[str] = (),
    what: str = "decisions",
) -> pl.DataFrame:
    """Validate a frame of decisions once and return it as polars.

    Parameters
    ----------
    data : the ``decisions`` relation as DuckDB, polars, pandas or Arrow.
    columns : the columns the caller needs (default: every ``decisions`` column).
        Each must be present with the type of :data:`DECISION_COLUMNS`.
    optional : columns used when present; an absent one is added as all-NULL.
    what : the name used in error messages.

    Returns
    -------
    polars.DataFrame
        The needed and optional columns first, with normalised types, then any others.

    Raises
    ------
    InputError
        Naming the missing columns, or the column whose type cannot be used.

    >>> df = pl.DataFrame({"ai_bucket": ["infra"], "implied_bucket": ["infra"]})
    >>> as_decisions(df, columns=["ai_bucket", "implied_bucket"]).columns
    ['ai_bucket', 'implied_bucket']
    >>> as_decisions(df, columns=["agree"])
    Traceback (most recent call last):
    failtax.errors.InputError: decisions: missing column(s) 'agree' (have: ai_bucket, implied_bucket)
    """
    df = as_frame(data, what=what)
    need = list(DECISION_COLUMNS) if columns is None else list(dict.fromkeys(columns))
    opt = [c for c in dict.fromkeys(optional) if c not in need]
    for c in [*need, *opt]:
        if c not in DECISION_COLUMNS:
            raise InputError(f"{what}: {c!r} is not a decisions column (known: {', '.join(DECISION_COLUMNS)})")
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(
            f"{what}: missing column(s) {', '.join(repr(c) for c in missing)} "
            f"(have: {', '.join(df.columns) or 'none'})"
        )
    exprs = []
    for c in opt:
        if c not in df.columns:
            exprs.append(pl.lit(None).cast(_POLARS_TYPES[DECISION_COLUMNS[c]]).alias(c))
    if exprs:
        df = df.with_columns(exprs)
    fixes = [e for c in [*need, *opt] if (e := _coerce(df, c, DECISION_COLUMNS[c], what)) is not None]
    if fixes:
        df = df.with_columns(fixes)
    return df.select([*need, *opt, *[c for c in df.columns if c not in need and c not in opt]])


def filter_decisions(
    df: pl.DataFrame,
    *,
    taxonomy: str | Sequence[str] | None = None,
    since: _dt.date | _dt.datetime | str | None = None,
) -> pl.DataFrame:
    """Keep the decisions of some taxonomies and/or from a date on.

    Parameters
    ----------
    df : a validated decisions frame (needs ``taxonomy`` when filtering by it, ``ts``
        when filtering by date).
    taxonomy : one name or several (``replay``, ``regen``, ``preexec``); None keeps all.
    since : a date (or ISO string); rows with ``ts`` before it are dropped.

    >>> df = pl.DataFrame({"taxonomy": ["replay", "regen"]})
    >>> filter_decisions(df, taxonomy="regen").height
    1
    """
    if taxonomy is not None:
        names = [taxonomy] if isinstance(taxonomy, str) else list(taxonomy)
        df = df.filter(pl.col("taxonomy").is_in(names))
    if since is not None:
        if isinstance(since, str):
            try:
                since = _dt.date.fromisoformat(since[:10])
            except ValueError:
                raise InputError(f"since: not an ISO date: {since!r}") from None
        start = since if isinstance(since, _dt.datetime) else _dt.datetime.combine(since, _dt.time())
        df = df.filter(pl.col("ts") >= start)
    return df


def with_rate_columns(df: pl.DataFrame, name: str, k: str, n: str, *,
                      suffixes: tuple[str, str, str] = ("", "_low", "_high")) -> pl.DataFrame:
    """Add the rate ``k / n`` (NaN where ``n`` is 0) and its Wilson 95% interval as three
    columns named ``name`` + each of ``suffixes`` (by default ``name``, ``name_low``, ``name_high``).

    >>> with_rate_columns(pl.DataFrame({"k": [3], "n": [4]}), "r", "k", "n")["r"].to_list()
    [0.75]
    """
    from failtax.analysis.stats import wilson_interval

    kk = df[k].cast(pl.Float64).to_numpy()
    nn = df[n].cast(pl.Float64).to_numpy()
    lo, hi = wilson_interval(kk, nn)
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(nn > 0, kk / np.where(nn > 0, nn, 1), np.nan)
    rate, low, high = (name + sfx for sfx in suffixes)
    return df.with_columns(
        pl.Series(rate, val, dtype=pl.Float64),
        pl.Series(low, np.atleast_1d(lo), dtype=pl.Float64),
        pl.Series(high, np.atleast_1d(hi), dtype=pl.Float64),
    )
