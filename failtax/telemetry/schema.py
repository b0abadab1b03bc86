"""The telemetry formats failtax reads and the database schema it loads them into.

Four line formats, told apart per line by their keys:

=================  ===========================================================  ===========
source             keys (required in bold in the docs; see ``FORMATS``)         seed
=================  ===========================================================  ===========
``failure-event``  ts, eventType, skillName, aiClassification, aiSuggestion,    000 §A–D
                   userAction, runId, testCaseId, projectId, signals, metadata
``lifecycle``      timestamp, severity, event, feature_id, session_id,          001
                   metadata, message
``retry-log``      ts, failures | must_fix_keys, scope                          003
``agent-failure``  code, title, detail, exitCode, signal, stderrTail, retryable  004
=================  ===========================================================  ===========

Every good line becomes one row of ``events`` (the columns below, one schema for all
four formats, ``source`` telling which); every bad line becomes one row of
``quarantine`` with one of :data:`QUARANTINE_REASONS`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AGENT_FAILURE_CODES",
    "EVENTS_COLUMNS",
    "EVENT_FAMILY",
    "FAILURE_EVENT_TYPES",
    "FAMILY_EVENT_TYPES",
    "FAMILY_TAXONOMY",
    "FIELDS",
    "FORMATS",
    "Format",
    "LIFECYCLE_EVENT_TYPES",
    "QUARANTINE_COLUMNS",
    "QUARANTINE_REASONS",
    "SOURCES",
    "TAXONOMY_FAMILY",
]

# --------------------------------------------------------------------------- seed 000

FAILURE_EVENT_TYPES = (
    "pre-execution-classification",
    "replay-failure-classified",
    "replay-failure-resolved",
    "regen-failure-classified",
    "regen-failure-resolved",
)

#: family → (classified event type, resolved event type). Pre-execution has one type:
#: the follow-up event with ``userAction`` is the resolution.
FAMILY_EVENT_TYPES = {
    "replay": ("replay-failure-classified", "replay-failure-resolved"),
    "regen": ("regen-failure-classified", "regen-failure-resolved"),
    "pre-execution": ("pre-execution-classification", "pre-execution-classification"),
}
FAMILY_TAXONOMY = {"replay": "replay", "regen": "regen", "pre-execution": "preexec"}
TAXONOMY_FAMILY = {v: k for k, v in FAMILY_TAXONOMY.items()}
EVENT_FAMILY = {t: fam for fam, types in FAMILY_EVENT_TYPES.items() for t in types}

# --------------------------------------------------------------------------- seed 001, 004

LIFECYCLE_EVENT_TYPES = (
    "failure.classified",
    "recovery.attempted",
    "recovery.succeeded",
    "recovery.degraded",
    "recovery.escalated",
)

#: Seed 004's ``FailureClass`` wire names (snake_case), the ``code`` of an AgentFailure.
AGENT_FAILURE_CODES = (
    "rate_limited", "overloaded", "usage_limit", "auth", "context_exceeded", "max_turns",
    "network", "killed", "no_output", "spawn_failure", "unknown_non_zero", "agent_deleted",
    "live_elsewhere",
)

SOURCES = ("failure-event", "lifecycle", "retry-log", "agent-failure")

# --------------------------------------------------------------------------- line fields

#: Every JSON key the loader reads, with the JSON type it must have.
#: ``str``: a string; ``strs``: a list of strings; ``obj``: an object; ``int``: an
#: integer; ``bool``: true/false. ``null`` counts as absent.
FIELDS: dict[str, str] = {
    # seed 000
    "ts": "str", "eventType": "str", "skillName": "str", "aiClassification": "str",
    "aiSuggestion": "str", "userAction": "str", "runId": "str", "testCaseId": "str",
    "projectId": "str", "signals": "strs", "metadata": "obj",
    # seed 001
    "timestamp": "str", "event": "str", "severity": "str", "feature_id": "str",
    "session_id": "str", "message": "str",
    # seed 003
    "failures": "strs", "must_fix_keys": "strs", "scope": "obj",
    # seed 004
    "code": "str", "title": "str", "detail": "str", "exitCode": "int", "signal": "int",
    "stderrTail": "str", "retryable": "bool",
}

TYPE_NAMES = {"str": "a string", "strs": "a list of strings", "obj": "an object", "int": "an integer", "bool": "true or false"}


@dataclass(frozen=True)
class Format:
    """One line format: the key that identifies it, required and optional keys."""

    source: str
    marker: tuple[str, ...]
    required: tuple[str, ...]
    optional: tuple[str, ...]
    kind_key: str | None
    kinds: tuple[str, ...]
    time_key: str | None
    seed: str


FORMATS: tuple[Format, ...] = (
    Format(
        source="failure-event", marker=("eventType",),
        required=("ts", "eventType", "skillName"),
        optional=("aiClassification", "aiSuggestion", "userAction", "runId", "testCaseId", "projectId", "signals", "metadata"),
        kind_key="eventType", kinds=FAILURE_EVENT_TYPES, time_key="ts", seed="000",
    ),
    Format(
        source="lifecycle", marker=("event",),
        required=("timestamp", "event"),
        optional=("severity", "feature_id", "session_id", "metadata", "message"),
        kind_key="event", kinds=LIFECYCLE_EVENT_TYPES, time_key="timestamp", seed="001",
    ),
    Format(
        source="retry-log", marker=("failures", "must_fix_keys"),
        required=("ts",),
        optional=("failures", "must_fix_keys", "scope"),
        kind_key=None, kinds=(), time_key="ts", seed="003",
    ),
    Format(
        source="agent-failure", marker=("code",),
        required=("code", "title", "detail", "retryable"),
        optional=("exitCode", "signal", "stderrTail"),
        kind_key="code", kinds=AGENT_FAILURE_CODES, time_key=None, seed="004",
    ),
)

# --------------------------------------------------------------------------- quarantine

#: Why a line was quarantined. The loader never stops on a bad line.
QUARANTINE_REASONS: dict[str, str] = {
    "truncated-last-line": "the file's last line has no newline and does not parse (a writer stopped mid-line)",
    "invalid-utf8": "the line is not valid UTF-8",
    "unescaped-quote": "a complete-looking object that does not parse because of a stray double quote (shell writers)",
    "invalid-json": "the line is not valid JSON",
    "not-an-object": "valid JSON, but not an object",
    "unknown-format": "an object with none of the keys of the four formats",
    "missing-field": "a required field is absent or null",
    "wrong-type": "a field has the wrong JSON type",
    "unknown-event-type": "the eventType / event / code is not one the format defines",
    "bad-timestamp": "the timestamp is not an ISO-8601 date-time, or names a year outside 1970–2099",
    "unreadable": "the rest of the file could not be read (e.g. a corrupt gzip stream)",
    "corrupt-gzip": "the line comes from a gzip member that fails its integrity check (CRC), so its bytes may be wrong",
    "line-too-long": "the line is longer than 64 MiB (NUL bytes aside): it is not read",
    "nul-bytes": ("the line holds NUL bytes (a crashed writer's zeroed or preallocated bytes); whole objects "
                  "beside them are loaded"),
}

# --------------------------------------------------------------------------- tables

#: ``events``: one row per good line, whatever its format. (name, SQL type, meaning)
EVENTS_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("event_id", "VARCHAR", "stable id: the line's XXH3-128, first 64 bits in hex (file-independent)"),
    ("source", "VARCHAR", "failure-event | lifecycle | retry-log | agent-failure"),
    ("event_type", "VARCHAR", "eventType (000), event (001), test-failures / must-fix (003), agent-failure (004)"),
    ("ts", "TIMESTAMP", "event time, UTC (ts / timestamp); for AgentFailure objects only the ts or timestamp a writer added"),
    ("skill", "VARCHAR", "skillName (000)"),
    ("ai_classification", "VARCHAR", "aiClassification (000), metadata.failure_type (001), code (004)"),
    ("ai_suggestion", "VARCHAR", "aiSuggestion (000), metadata.recipe (001)"),
    ("user_action", "VARCHAR", "userAction (000)"),
    ("run_id", "VARCHAR", "runId (000), scope run id (003)"),
    ("test_case_id", "VARCHAR", "testCaseId (000)"),
    ("project_id", "VARCHAR", "projectId (000)"),
    ("signals", "VARCHAR[]", "signal names, normalised: lower case, '_' and spaces as '-' (000)"),
    ("metadata", "JSON", "metadata object (000, 001)"),
    ("severity", "VARCHAR", "severity (001), in lower case"),
    ("feature_id", "VARCHAR", "feature_id (001)"),
    ("session_id", "VARCHAR", "session_id (001)"),
    ("message", "VARCHAR", "message (001)"),
    ("failures", "VARCHAR[]", "failing test ids (003)"),
    ("must_fix_keys", "VARCHAR[]", "must-fix keys (003)"),
    ("task_id", "VARCHAR", "scope task id (003)"),
    ("scope", "JSON", "scope object (003)"),
    ("title", "VARCHAR", "title (004)"),
    ("detail", "VARCHAR", "detail (004)"),
    ("exit_code", "INTEGER", "exitCode (004)"),
    ("posix_signal", "INTEGER", "signal (004): the terminating POSIX signal"),
    ("stderr_tail", "VARCHAR", "stderrTail (004)"),
    ("retryable", "BOOLEAN", "retryable (004)"),
    ("file", "VARCHAR", "the file the line came from (first one, when duplicated)"),
    ("line", "BIGINT", "its line number (1-based)"),
    ("line_hash", "UBIGINT", "the other 64 bits of the line's XXH3-128 (duplicate detection)"),
)

#: ``events`` is a view over two tables. A plain failure event (nearly all of what the
#: emitter writes) is a row of :data:`PLAIN_EVENTS_TABLE`, which has only the columns
#: that format fills; every other row is one of :data:`EVENTS_TABLE`, which has them all.
#: (Storing the other formats' 14 columns, NULL, with each plain event took about 0.33 s
#: of CPU per million rows, a tenth of the insert.)
EVENTS_TABLE = "_events"
PLAIN_EVENTS_TABLE = "_plain_events"
PLAIN_EVENT_COLUMNS: tuple[str, ...] = (
    "event_id", "source", "event_type", "ts", "skill", "ai_classification", "ai_suggestion", "user_action",
    "run_id", "test_case_id", "project_id", "signals", "metadata", "file", "line", "line_hash",
)


def events_view_sql() -> str:
    """SQL: the ``events`` view, every column of :data:`EVENTS_COLUMNS` in order, over both tables."""
    names = ", ".join(f'"{c}"' for c, _, _ in EVENTS_COLUMNS)
    plain = ", ".join(f'"{c}"' if c in PLAIN_EVENT_COLUMNS else f'CAST(NULL AS {t}) AS "{c}"'
                      for c, t, _ in EVENTS_COLUMNS)
    return (f"CREATE OR REPLACE VIEW events AS SELECT {names} FROM {EVENTS_TABLE}\n"
            f"UNION ALL SELECT {plain} FROM {PLAIN_EVENTS_TABLE}")


QUARANTINE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("file", "VARCHAR", "the file"),
    ("line", "BIGINT", "the line number (1-based)"),
    ("reason", "VARCHAR", "one of: " + ", ".join(QUARANTINE_REASONS)),
    ("detail", "VARCHAR", "what exactly is wrong (field, expected type, value)"),
    ("source", "VARCHAR", "the format the line looked like, when it could be told"),
    ("raw", "VARCHAR", "the line as written (invalid bytes replaced)"),
    ("loaded_at", "TIMESTAMP", "when it was quarantined"),
)


def spelled_sql(expr: str) -> str:
    """SQL: the name ``expr`` spelled as :func:`failtax.evidence.normalise_signal_name`
    spells it (lower case, words joined by ``-``); the loader's signals and the
    ``decisions`` view's actions use it alike."""
    return f"trim(regexp_replace(regexp_replace(lower(trim({expr})), '[\\s_]+', '-', 'g'), '-{{2,}}', '-', 'g'), '-')"
