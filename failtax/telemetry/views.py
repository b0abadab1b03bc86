"""Views over ``events``: signals, decisions, lifecycle, retry streaks, agent failures.

``decisions`` follows the agreed contract (one row per classified failure event,
paired with its resolution). Pairing, per key (family, run_id, test_case_id) in time
order (a classification before a resolution at the same instant), works like matching
parentheses: each resolved event takes the latest classified event at or before it
that is not yet taken. In SQL: a running depth (+1 classified, −1 resolved) clamped at
zero — ``s − min(0, running min of s)`` — gives every event its nesting level; at one
level, classified and resolved events alternate, so a classified event's resolution is
simply the next row at its level. A resolution with nothing open (depth 0 before it)
pairs with nothing and is listed in ``orphan_resolutions``. A
``pre-execution-classification`` event is a classification when its ``userAction`` is
absent or empty (writers that fill every key of seed 000's template write ``""``), and
the follow-up override otherwise.

The taxonomy maps the views need (action → implied bucket, suggestion → actions that
carry it out, opt-out actions, bucket → default suggestion) are copied from the shipped
taxonomies into ``_taxonomy_*`` tables on every load, so the views are plain SQL.
"""

from __future__ import annotations

from typing import Any

from failtax.telemetry.schema import FAMILY_TAXONOMY, spelled_sql
from failtax.taxonomy import load_taxonomy

__all__ = ["DECISIONS_COLUMNS", "VIEW_DOCS", "create_views", "refresh_taxonomy_tables", "views_fingerprint"]

#: The decisions contract: (column, type, meaning).
DECISIONS_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("event_id", "VARCHAR", "stable id of the classified event"),
    ("family", "VARCHAR", "replay / regen / pre-execution"),
    ("taxonomy", "VARCHAR", "replay / regen / preexec"),
    ("ts", "TIMESTAMP", "classified event time (UTC)"),
    ("resolved_ts", "TIMESTAMP", "resolved event time, NULL when undecided"),
    ("week", "DATE", "Monday of ts's ISO week"),
    ("skill", "VARCHAR", "skillName"),
    ("project_id", "VARCHAR", "projectId"),
    ("run_id", "VARCHAR", "runId"),
    ("test_case_id", "VARCHAR", "testCaseId"),
    ("ai_bucket", "VARCHAR", "aiClassification"),
    ("ai_suggestion", "VARCHAR", "aiSuggestion (the bucket's default suggestion when the event left it empty)"),
    ("signals", "VARCHAR[]", "normalised signal names of the classified event"),
    ("user_action", "VARCHAR", "userAction of the resolution, spelt as the taxonomy spells actions "
                               "(Share_Email is share-email); NULL when undecided or blank"),
    ("implied_bucket", "VARCHAR", "the bucket the action implies, NULL when it implies nothing"),
    ("decided", "BOOLEAN", "a resolution exists"),
    ("opt_out", "BOOLEAN", "the action is an opt-out (skip)"),
    ("agree", "BOOLEAN", "the action carries out the suggestion; NULL when undecided or opt-out"),
    ("latency_s", "DOUBLE", "seconds from classification to resolution"),
    ("text", "VARCHAR", "evidence text from metadata (errorExcerpt, summary or failingStep)"),
    ("metadata", "JSON", "the classified event's metadata"),
)

#: One line per table/view, for ``failtax load --help`` and the README.
VIEW_DOCS: dict[str, str] = {
    "events": "one row per good line of any format; `source` says which (failure-event, lifecycle, retry-log, agent-failure)",
    "quarantine": "one row per bad line: file, line, reason, detail, raw text",
    "signals": "one row per event x signal (failure events' normalised signal names)",
    "decisions": "each classified failure event paired with the person's decision: AI bucket, suggestion, action, implied bucket, agree, opt_out, latency_s",
    "orphan_resolutions": "resolved events with no classified event before them",
    "lifecycle": "seed 001 lifecycle lines with their metadata as columns",
    "lifecycle_failures": "per session and failure type: recovery attempts and outcome (one automatic recovery per type)",
    "retry_streaks": "seed 003 retry budget: per scope and test id / must-fix key, the current run of consecutive repeats",
    "agent_failures": "seed 004 AgentFailure objects, ready to re-classify with a newer table",
    "files": "every file loaded, with size, lines read and when",
}


def refresh_taxonomy_tables(con: Any) -> None:
    """(Re)write the ``_taxonomy_*`` tables from the shipped taxonomies."""
    buckets, actions, suggestions, opt_out = [], [], [], []
    for taxonomy in FAMILY_TAXONOMY.values():
        tax = load_taxonomy(taxonomy)
        for b in tax.buckets:
            buckets.append((taxonomy, b.name, b.suggestion))
        for action, bucket in tax.actions.items():
            actions.append((taxonomy, action, bucket))
        for suggestion, acts in tax.suggestion_actions.items():
            for a in dict.fromkeys((suggestion, *acts)):
                suggestions.append((taxonomy, suggestion, a))
        for a in tax.opt_out:
            opt_out.append((taxonomy, a))
    con.execute("CREATE OR REPLACE TABLE _taxonomy_buckets (taxonomy VARCHAR, bucket VARCHAR, suggestion VARCHAR)")
    con.execute("CREATE OR REPLACE TABLE _taxonomy_actions (taxonomy VARCHAR, action VARCHAR, bucket VARCHAR)")
    con.execute("CREATE OR REPLACE TABLE _taxonomy_suggestions (taxonomy VARCHAR, suggestion VARCHAR, action VARCHAR)")
    con.execute("CREATE OR REPLACE TABLE _taxonomy_opt_out (taxonomy VARCHAR, action VARCHAR)")
    con.execute("CREATE OR REPLACE TABLE _taxonomy_families (family VARCHAR, taxonomy VARCHAR)")
    for table, rows in (
        ("_taxonomy_buckets", buckets), ("_taxonomy_actions", actions),
        ("_taxonomy_suggestions", suggestions), ("_taxonomy_opt_out", opt_out),
        ("_taxonomy_families", list(FAMILY_TAXONOMY.items())),
    ):
        if rows:
            # one statement: executemany pays a round trip per row
            marks = ", ".join("(" + ", ".join("?" * len(rows[0])) + ")" for _ in rows)
            con.execute(f"INSERT INTO {table} VALUES {marks}", [v for row in rows for v in row])


#: SQL over ``events``: the failure event is a classification that waits for a person's
#: decision (a ``pre-execution-classification`` is one when its ``userAction`` is absent or
#: empty; with an action it is the override that follows).
IS_CLASSIFICATION = (
    "(event_type IN ('replay-failure-classified', 'regen-failure-classified')"
    " OR (event_type = 'pre-execution-classification' AND coalesce(user_action, '') = ''))"
)


def _signal_set(col: str) -> str:
    """SQL: the signal names of list ``col`` as a set: each once (first-seen order), no blank
    one. The events table keeps the list as the line wrote it."""
    return f"list_filter({col}, lambda s, i: s <> '' AND list_position({col}, s) = i)"


_PAIRING = """
WITH fe AS (
  SELECT event_id, ts, skill, project_id, run_id, test_case_id, ai_classification,
         nullif(""" + spelled_sql("ai_suggestion") + """, '') AS ai_suggestion,
         nullif(""" + spelled_sql("user_action") + """, '') AS user_action, signals, metadata, file, line,
         CASE WHEN starts_with(event_type, 'replay-') THEN 'replay'
              WHEN starts_with(event_type, 'regen-') THEN 'regen'
              ELSE 'pre-execution' END AS family,
         """ + IS_CLASSIFICATION + """ AS is_open
  FROM events
  WHERE source = 'failure-event'
), walk AS (
  SELECT *,
         sum(CASE WHEN is_open THEN 1 ELSE -1 END) OVER w AS s,
         row_number() OVER w AS pos
  FROM fe
  WINDOW w AS (PARTITION BY family, run_id, test_case_id
               ORDER BY ts, is_open DESC, file, line ROWS UNBOUNDED PRECEDING)
), depth AS (
  SELECT *, s - least(0, min(s) OVER w) AS d
  FROM walk
  WINDOW w AS (PARTITION BY family, run_id, test_case_id ORDER BY pos ROWS UNBOUNDED PRECEDING)
), levels AS (
  SELECT *, lag(d, 1, 0) OVER (PARTITION BY family, run_id, test_case_id ORDER BY pos) AS d_before
  FROM depth
), leveled AS (
  SELECT *, CASE WHEN is_open THEN d ELSE d_before END AS lvl
  FROM levels
  WHERE is_open OR d_before > 0
), paired AS (
  SELECT *,
         lead(is_open) OVER v AS next_open,
         lead(ts) OVER v AS next_ts,
         lead(user_action) OVER v AS next_action
  FROM leveled
  WINDOW v AS (PARTITION BY family, run_id, test_case_id, lvl ORDER BY pos)
)
"""

_DECISIONS = _PAIRING + """
, decided AS (
  SELECT p.*, f.taxonomy,
         (p.next_open IS NOT NULL AND NOT p.next_open) AS is_decided,
         coalesce(nullif(p.ai_suggestion, ''), b.suggestion) AS eff_suggestion
  FROM paired p
  JOIN _taxonomy_families f ON f.family = p.family
  LEFT JOIN _taxonomy_buckets b ON b.taxonomy = f.taxonomy AND b.bucket = p.ai_classification
  WHERE p.is_open
), acted AS (
  SELECT d.*, CASE WHEN is_decided THEN next_action END AS action
  FROM decided d
)
SELECT
  a.event_id,
  a.family,
  a.taxonomy,
  a.ts,
  CASE WHEN a.is_decided THEN a.next_ts END AS resolved_ts,
  CAST(date_trunc('week', a.ts) AS DATE) AS week,
  a.skill,
  a.project_id,
  a.run_id,
  a.test_case_id,
  a.ai_classification AS ai_bucket,
  a.eff_suggestion AS ai_suggestion,
  coalesce(""" + _signal_set("a.signals") + """, CAST([] AS VARCHAR[])) AS signals,
  a.action AS user_action,
  ia.bucket AS implied_bucket,
  a.is_decided AS decided,
  (oo.action IS NOT NULL) AS opt_out,
  CASE WHEN NOT a.is_decided OR oo.action IS NOT NULL THEN NULL
       ELSE (a.action = a.eff_suggestion OR sa.action IS NOT NULL) END AS agree,
  CASE WHEN a.is_decided THEN (epoch_us(a.next_ts) - epoch_us(a.ts)) / 1e6 END AS latency_s,
  coalesce(a.metadata->>'errorExcerpt', a.metadata->>'summary', a.metadata->>'failingStep') AS text,
  a.metadata
FROM acted a
LEFT JOIN _taxonomy_actions ia ON ia.taxonomy = a.taxonomy AND ia.action = a.action
LEFT JOIN _taxonomy_opt_out oo ON oo.taxonomy = a.taxonomy AND oo.action = a.action
LEFT JOIN _taxonomy_suggestions sa
       ON sa.taxonomy = a.taxonomy AND sa.suggestion = a.eff_suggestion AND sa.action = a.action
ORDER BY a.ts, a.event_id
"""

_ORPHANS = _PAIRING.replace("WHERE is_open OR d_before > 0", "WHERE NOT is_open AND d_before = 0") + """
SELECT event_id, family, ts, skill, project_id, run_id, test_case_id, user_action, file, line
FROM leveled ORDER BY ts, event_id
"""

_SIGNALS = """
SELECT event_id, source, event_type, ts, skill, project_id, ai_classification, signal
FROM (SELECT *, unnest(""" + _signal_set("signals") + """) AS signal
      FROM events WHERE source = 'failure-event' AND len(signals) > 0)
"""

_LIFECYCLE = """
SELECT event_id, ts, event_type AS event, severity, feature_id, session_id,
       metadata->>'failure_type' AS failure_type,
       metadata->>'severity' AS failure_severity,
       metadata->>'signal' AS matched_signal,
       metadata->>'source_file' AS source_file,
       TRY_CAST(metadata->>'source_line' AS INTEGER) AS source_line,
       metadata->>'auto_recoverable' AS auto_recoverable,
       metadata->>'recipe' AS recipe,
       metadata->>'action_taken' AS action_taken,
       metadata->>'lost_capability' AS lost_capability,
       metadata->>'reason' AS reason,
       message, metadata, file, line
FROM events WHERE source = 'lifecycle'
"""

_LIFECYCLE_FAILURES = """
WITH l AS (SELECT * FROM lifecycle WHERE failure_type IS NOT NULL)
SELECT session_id, feature_id, failure_type,
       min(ts) FILTER (WHERE event = 'failure.classified') AS classified_at,
       count(*) FILTER (WHERE event = 'failure.classified') AS times_classified,
       count(*) FILTER (WHERE event = 'recovery.attempted') AS recovery_attempts,
       arg_max(event, ts) FILTER (WHERE event IN ('recovery.succeeded', 'recovery.degraded', 'recovery.escalated')) AS outcome,
       max(ts) AS last_ts,
       count(*) FILTER (WHERE event = 'recovery.attempted') > 1 AS over_budget
FROM l
GROUP BY session_id, feature_id, failure_type
ORDER BY classified_at NULLS LAST, session_id, failure_type
"""

_RETRY_STREAKS = """
WITH entries AS (
  SELECT run_id AS scope_run_id, task_id AS scope_task_id, ts, file, line, 'test' AS kind, failures AS keys
  FROM events WHERE source = 'retry-log' AND failures IS NOT NULL
  UNION ALL
  SELECT run_id, task_id, ts, file, line, 'must-fix', must_fix_keys
  FROM events WHERE source = 'retry-log' AND must_fix_keys IS NOT NULL
), numbered AS (
  SELECT *,
         row_number() OVER (PARTITION BY scope_run_id, scope_task_id, kind ORDER BY ts, file, line) AS n,
         count(*) OVER (PARTITION BY scope_run_id, scope_task_id, kind) AS n_last
  FROM entries
), items AS (
  SELECT DISTINCT scope_run_id, scope_task_id, kind, n, n_last, ts, key
  FROM (SELECT *, unnest(keys) AS key FROM numbered)
  WHERE key IS NOT NULL
), islands AS (
  SELECT *, n - row_number() OVER (PARTITION BY scope_run_id, scope_task_id, kind, key ORDER BY n) AS island
  FROM items
), streaks AS (
  SELECT scope_run_id, scope_task_id, kind, key, island,
         count(*) AS len, max(n) AS last_n, any_value(n_last) AS n_last,
         min(ts) AS first_ts, max(ts) AS last_ts
  FROM islands
  GROUP BY scope_run_id, scope_task_id, kind, key, island
)
SELECT scope_run_id, scope_task_id, kind, key,
       max(CASE WHEN last_n = n_last THEN len ELSE 0 END) AS streak,
       max(len) AS longest_streak,
       CAST(sum(len) AS BIGINT) AS times_seen,
       min(first_ts) AS first_seen,
       max(last_ts) AS last_seen,
       max(CASE WHEN last_n = n_last THEN len ELSE 0 END) >= 2 AS over_budget
FROM streaks
GROUP BY scope_run_id, scope_task_id, kind, key
ORDER BY scope_run_id NULLS FIRST, scope_task_id NULLS FIRST, kind, key
"""

_AGENT_FAILURES = """
SELECT event_id, ai_classification AS code, title, detail, exit_code, posix_signal AS signal,
       stderr_tail, retryable, ts, file, line
FROM events WHERE source = 'agent-failure'
"""

_FILES = """
SELECT path AS file, size, lines, "offset" AS bytes_read, gzip, loaded_at FROM _files ORDER BY path
"""

VIEWS: dict[str, str] = {
    "signals": _SIGNALS,
    "decisions": _DECISIONS,
    "orphan_resolutions": _ORPHANS,
    "lifecycle": _LIFECYCLE,
    "lifecycle_failures": _LIFECYCLE_FAILURES,
    "retry_streaks": _RETRY_STREAKS,
    "agent_failures": _AGENT_FAILURES,
    "files": _FILES,
}


def views_fingerprint() -> str:
    """A hash of every view's SQL: views are rebuilt only when it changes."""
    import hashlib

    return hashlib.sha256("\n".join(f"{k}\n{v}" for k, v in VIEWS.items()).encode()).hexdigest()[:16]


def create_views(con: Any) -> None:
    """Create (or replace) every view; ``events`` and the taxonomy tables must exist."""
    for name, sql in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")
