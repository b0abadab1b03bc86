"""Write failure events the way seed 000 §D asks: append-only JSON Lines, fire-and-forget.

:func:`emit` appends one event to the sink (``~/.muggle-ai/telemetry/failure-events.jsonl``
unless a path is given). The line starts with ``ts`` (ISO-8601 UTC with milliseconds and
``Z``), then ``eventType``, ``skillName`` and the optional fields the caller gave; fields
that were not given are absent, never ``null``.

Guarantees, so a skill can call it from anywhere:

- **One complete line per event**, even with many processes appending to the same file:
  the whole line goes out in one ``os.write`` on an ``O_APPEND`` descriptor, under an
  advisory ``flock`` where the platform has one. If an earlier writer crashed and left
  a half-written last line, the new line starts on a fresh line so only the broken one
  is lost.
- **Never raises into the caller** and **never blocks it for long**: any failure is
  logged on the ``failtax.telemetry`` logger and ``emit`` returns ``False``; waiting for
  the lock gives up after ``lock_timeout`` seconds and writes anyway (an ``O_APPEND``
  write of a small line is still a single append).
- **Classified before asked**: :func:`ask_and_record` emits the classified event, only
  then asks the person, and emits the resolved event right after the answer — so the
  latency between suggestion and decision is in the data.

>>> import tempfile, os, json
>>> sink = os.path.join(tempfile.mkdtemp(), "events.jsonl")
>>> emit(sink, event_type="replay-failure-classified", skill_name="muggle-test",
...      ai_classification="stale-script", ai_suggestion="regenerate",
...      signals=["selector-timeout"])
True
>>> list(json.loads(open(sink).readline()))[:3]
['ts', 'eventType', 'skillName']
"""

from __future__ import annotations

import errno
import functools
import json
import logging
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

try:  # advisory locking; absent on Windows, where O_APPEND alone keeps lines whole
    import fcntl
except ImportError:  # pragma: no cover - exercised only off POSIX
    fcntl = None  # type: ignore[assignment]

from failtax.telemetry.schema import FAILURE_EVENT_TYPES, FAMILY_EVENT_TYPES, TAXONOMY_FAMILY

__all__ = ["DEFAULT_SINK", "ask_and_record", "default_sink", "emit", "event_line", "event_record", "format_ts"]

log = logging.getLogger("failtax.telemetry")

#: Where seed 000 §D puts the events, relative to the home directory.
DEFAULT_SINK = Path(".muggle-ai") / "telemetry" / "failure-events.jsonl"

_OPTIONAL = (
    ("aiClassification", "ai_classification"),
    ("aiSuggestion", "ai_suggestion"),
    ("userAction", "user_action"),
    ("runId", "run_id"),
    ("testCaseId", "test_case_id"),
    ("projectId", "project_id"),
)


def default_sink() -> Path:
    """The default telemetry file: ``~/.muggle-ai/telemetry/failure-events.jsonl``."""
    return Path.home() / DEFAULT_SINK


def format_ts(when: datetime | None = None) -> str:
    """ISO-8601 UTC with milliseconds and ``Z``, as the emitter writes ``ts``.

    >>> format_ts(datetime(2026, 9, 7, 8, 30, 1, 250999, tzinfo=timezone.utc))
    '2026-09-07T08:30:01.250Z'
    """
    if when is None:
        when = datetime.now(timezone.utc)
    elif when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    when = when.astimezone(timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def event_record(
    *,
    event_type: str,
    skill_name: str,
    ai_classification: str | None = None,
    ai_suggestion: str | None = None,
    user_action: str | None = None,
    run_id: str | None = None,
    test_case_id: str | None = None,
    project_id: str | None = None,
    signals: Sequence[str] | None = None,
    metadata: Mapping[str, Any] | None = None,
    ts: datetime | str | None = None,
) -> dict[str, Any]:
    """The event as an ordered dict in seed 000's key order; absent options stay absent.

    Raises :class:`ValueError` for an unknown event type or a value of the wrong type
    (:func:`emit` turns that into a logged ``False``).

    >>> event_record(event_type="regen-failure-resolved", skill_name="muggle-test",
    ...              user_action="retry", ts="2026-09-07T08:30:01.250Z")
    {'ts': '2026-09-07T08:30:01.250Z', 'eventType': 'regen-failure-resolved', 'skillName': 'muggle-test', 'userAction': 'retry'}
    """
    if event_type not in FAILURE_EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}; expected one of {', '.join(FAILURE_EVENT_TYPES)}")
    if not isinstance(skill_name, str) or not skill_name:
        raise ValueError("skill_name must be a non-empty string")
    rec: dict[str, Any] = {"ts": ts if isinstance(ts, str) else format_ts(ts), "eventType": event_type, "skillName": skill_name}
    given = {
        "ai_classification": ai_classification, "ai_suggestion": ai_suggestion, "user_action": user_action,
        "run_id": run_id, "test_case_id": test_case_id, "project_id": project_id,
    }
    for key, arg in _OPTIONAL:
        value = given[arg]
        if value is None:
            continue
        if not isinstance(value, str):
            raise ValueError(f"{arg} must be a string, got {type(value).__name__}")
        rec[key] = value
    if signals is not None:
        if isinstance(signals, str) or not all(isinstance(s, str) for s in signals):
            raise ValueError("signals must be a list of strings")
        rec["signals"] = list(signals)
    if metadata is not None:
        if not isinstance(metadata, Mapping):
            raise ValueError(f"metadata must be a mapping, got {type(metadata).__name__}")
        rec["metadata"] = dict(metadata)
    return rec


def event_line(record: Mapping[str, Any]) -> bytes:
    """One event as a UTF-8 JSON line (compact, ending in ``\\n``).

    A NaN or infinite number is written as ``null``, as JavaScript's ``JSON.stringify``
    writes it: ``NaN`` is not JSON, and strict readers refuse the whole line.

    >>> event_line({"metadata": {"score": float("nan"), "ok": 1.5}})
    b'{"metadata":{"score":null,"ok":1.5}}\\n'
    """
    dump = functools.partial(json.dumps, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=False)
    try:
        text = dump(record)
    except ValueError:  # a NaN or an infinity somewhere
        text = dump(_finite(record))
    return (text + "\n").encode("utf-8")


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def emit(
    path: str | os.PathLike[str] | None = None,
    *,
    event_type: str,
    skill_name: str,
    ai_classification: str | None = None,
    ai_suggestion: str | None = None,
    user_action: str | None = None,
    run_id: str | None = None,
    test_case_id: str | None = None,
    project_id: str | None = None,
    signals: Sequence[str] | None = None,
    metadata: Mapping[str, Any] | None = None,
    lock_timeout: float = 0.5,
) -> bool:
    """Append one failure event to the telemetry file. Never raises; returns success.

    Parameters
    ----------
    path : the JSONL sink; default ``~/.muggle-ai/telemetry/failure-events.jsonl``
        (folders are created).
    event_type : one of ``pre-execution-classification``, ``replay-failure-classified``,
        ``replay-failure-resolved``, ``regen-failure-classified``, ``regen-failure-resolved``.
    skill_name : the skill that classified (``muggle-test`` …).
    ai_classification, ai_suggestion, user_action, run_id, test_case_id, project_id :
        strings, written only when given.
    signals : signal names as the tool names them; metadata : a JSON-able mapping
        (``failingStep``, ``errorExcerpt``, ``summary`` …).
    lock_timeout : seconds to wait for the advisory lock before writing without it.

    Returns
    -------
    bool
        ``True`` when the line was written; ``False`` (and a log record on the
        ``failtax.telemetry`` logger) when anything went wrong.

    Examples
    --------
    >>> import tempfile, os
    >>> emit(os.path.join(tempfile.mkdtemp(), "e.jsonl"), event_type="nope", skill_name="s")
    False
    """
    try:
        rec = event_record(
            event_type=event_type, skill_name=skill_name, ai_classification=ai_classification,
            ai_suggestion=ai_suggestion, user_action=user_action, run_id=run_id,
            test_case_id=test_case_id, project_id=project_id, signals=signals, metadata=metadata,
        )
        data = event_line(rec)
        target = Path(path) if path is not None else default_sink()
        append_line(target, data, lock_timeout=lock_timeout)
        return True
    except Exception as exc:  # fire-and-forget: a telemetry fault must never reach the skill
        log.warning("failtax telemetry: event not written to %s: %s: %s", path or default_sink(), type(exc).__name__, exc)
        return False


def append_line(path: Path, data: bytes, *, lock_timeout: float = 0.5) -> None:
    """Append ``data`` (one line ending in ``\\n``) as a single write; raises ``OSError``."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT  # read access: to see whether the last line is whole
    try:
        fd = os.open(path, flags, 0o644)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, flags, 0o644)
    except PermissionError:  # append-only for us: write without looking
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        locked = _lock(fd, lock_timeout)
        try:
            if locked and _ends_mid_line(fd):
                # A writer crashed mid-line: start ours on a fresh line so only theirs is lost.
                data = b"\n" + data
            _write_all(fd, data)
        finally:
            if locked:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _lock(fd: int, timeout: float) -> bool:
    if fcntl is None:
        return False
    deadline = time.monotonic() + max(timeout, 0.0)
    delay = 0.0005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                return False  # locking unsupported here (some network file systems)
        if time.monotonic() >= deadline:
            log.info("failtax telemetry: lock wait over %.2fs; appending without the lock", timeout)
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def _ends_mid_line(fd: int) -> bool:
    size = os.fstat(fd).st_size
    if size == 0:
        return False
    try:
        return os.pread(fd, 1, size - 1) != b"\n"
    except OSError:  # a sink we may append to but not read (a FIFO, a device)
        return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# --------------------------------------------------------------------------- §D helper


def ask_and_record(
    classification: Any,
    ask: Callable[[Any], str | None],
    *,
    skill_name: str,
    path: str | os.PathLike[str] | None = None,
    run_id: str | None = None,
    test_case_id: str | None = None,
    project_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> str | None:
    """Emit the classified event, ask the person, emit the resolved event; return the answer.

    Seed 000 §D: the classified event goes out *before* the person is asked and the
    resolved event right after they pick, so the latency between the two is recorded.
    For the pre-execution taxonomy there is no resolved event unless the person
    overrides the AI's mode; then a follow-up ``pre-execution-classification`` event
    with ``userAction`` is written.

    Parameters
    ----------
    classification : a :class:`failtax.Classification` (``taxonomy``, ``bucket``,
        ``suggestion``, ``signals``) or a mapping with those keys.
    ask : called with ``classification`` once the classified event is on disk; returns
        the person's action (``regenerate``, ``share-email``, ``skip`` …) or ``None``
        when they gave none (then no resolved event is written). Its exceptions
        propagate: they belong to the caller.
    skill_name, path, run_id, test_case_id, project_id, metadata : as for :func:`emit`.

    Returns
    -------
    The action ``ask`` returned.

    Examples
    --------
    >>> import tempfile, os, failtax
    >>> sink = os.path.join(tempfile.mkdtemp(), "e.jsonl")
    >>> c = failtax.classify({"signals": ["selector-timeout"]}, taxonomy="replay")
    >>> ask_and_record(c, lambda c: "regenerate", skill_name="muggle-test", path=sink,
    ...                run_id="r1", test_case_id="t1")
    'regenerate'
    >>> [json.loads(line)["eventType"] for line in open(sink)]
    ['replay-failure-classified', 'replay-failure-resolved']
    """
    taxonomy, bucket, suggestion, signals = _classification_fields(classification)
    family = TAXONOMY_FAMILY.get(taxonomy)
    if family is None:
        raise ValueError(f"taxonomy {taxonomy!r} has no failure-event family (use replay, regen or preexec)")
    classified_type, resolved_type = FAMILY_EVENT_TYPES[family]
    common = {"path": path, "skill_name": skill_name, "run_id": run_id, "test_case_id": test_case_id, "project_id": project_id}
    emit(
        event_type=classified_type, ai_classification=bucket, ai_suggestion=suggestion,
        signals=signals, metadata=metadata, **common,
    )
    action = ask(classification)
    if action is None:
        return None
    if classified_type == resolved_type and action in (bucket, suggestion):
        return action  # pre-execution: the person kept the AI's mode; nothing to record
    emit(event_type=resolved_type, ai_classification=bucket, ai_suggestion=suggestion, user_action=action, **common)
    return action


def _classification_fields(c: Any) -> tuple[str, str, str | None, list[str]]:
    if isinstance(c, Mapping):
        get = c.get
    else:
        def get(key: str, default: Any = None) -> Any:
            return getattr(c, key, default)
    taxonomy, bucket = get("taxonomy"), get("bucket")
    if not isinstance(taxonomy, str) or not isinstance(bucket, str):
        raise ValueError("classification needs 'taxonomy' and 'bucket' strings")
    suggestion = get("suggestion")
    return taxonomy, bucket, suggestion if isinstance(suggestion, str) else None, [str(s) for s in (get("signals") or ())]

