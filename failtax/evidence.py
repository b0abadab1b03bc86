"""Failure evidence: what a failed run left behind, normalised once for matching.

An :class:`Evidence` holds the raw facts (stderr tail or error text, exit code, signal,
the terminal ``result`` frame, structured ``fields`` and signals the tool already named).
:func:`Evidence.from_record` is the one lenient door from untrusted mappings (JSON lines,
telemetry rows): a value of the wrong type is dropped and noted in ``problems``, never
raised, so classification stays total.

The matching text (``haystack``) is built the way seed 004 builds it (stderr, then the
frame's error text on its own line) after normalisation: ANSI escape codes and NUL bytes
removed, ``\\r\\n`` and carriage-return progress redraws turned into separate lines, and
huge inputs capped to their tail while keeping the last error-looking line.
"""

from __future__ import annotations

import codecs
import itertools
import json
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from failtax.redact import redact

__all__ = [
    "Evidence",
    "MAX_TEXT_CHARS",
    "ascii_lower",
    "frame_error_text",
    "is_error_result_frame",
    "normalise_signal_name",
    "normalise_text",
    "tail_lines",
]

#: Matching looks at no more than this many characters of text (the tail is kept).
MAX_TEXT_CHARS = 65_536

# Terminal control sequences (ECMA-48 / ISO 2022), most specific first:
#   ESC [ …     CSI (colours, cursor moves, erase); also 8-bit CSI (0x9b)
#   ESC ] P X ^ _ …  OSC (titles, hyperlinks), DCS, SOS, PM, APC strings, ended by BEL or ST;
#                    also their 8-bit introducers (0x90 0x98 0x9d 0x9e 0x9f)
#   ESC N / ESC O   SS2 / SS3 and the character they shift
#   ESC ( B …   nF: character-set designations such as tput's
#   ESC 7, ESC =, ESC M, ESC c …  Fp / Fe / Fs
#   ESC         a lone or cut-off ESC
# Every branch starts with its introducer, so the scan only stops where one occurs
# (twice as fast as one branch per sequence kind; equal results, pinned by a test).
_ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)|[NO][^\x1b\n]?|[ -/]+[0-~]|[0-~]|)"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
)
# An 8-bit string introducer (DCS, SOS, OSC, PM, APC) opens a string that runs to the next
# BEL, ESC or ST. Where that stop does not end the string (the text ends, or an ESC other
# than ESC \ comes first), _ANSI fails there and tries again at every introducer after it,
# each time scanning to the same stop: 65,000 characters of such introducers took 10 s.
_STRING_STARTS = "\x90\x98\x9d\x9e\x9f"
_C1_INTRODUCERS = _STRING_STARTS + "\x9b"  # (and 8-bit CSI)
_STRING_RUN = re.compile(f"[{_STRING_STARTS}][^\x07\x1b\x9c]*")  # an introducer to its stop
_PRIVATE_USE = range(0xE000, 0xF900)  # characters to hide them behind
_SURROGATE = re.compile("[\ud800-\udfff]")
_ERRORISH = re.compile(r"error|fatal|exception|panic|failed|failure", re.IGNORECASE)

# POSIX signal numbers by name, fixed here rather than read from the running platform
# so the same evidence classifies the same everywhere.
_SIGNALS = {
    "HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8,
    "KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15,
    "XCPU": 24, "XFSZ": 25,
}


def ascii_lower(text: str) -> str:
    """Lower-case ASCII letters only, as Rust's ``to_ascii_lowercase`` does.

    Offsets stay valid (no character changes length) and the result matches what a
    caseless byte-level matcher sees.

    >>> ascii_lower("HTTP 429 Ä")
    'http 429 Ä'
    """
    if text.isascii():
        return text.lower()
    # bytes.lower() touches ASCII letters only and runs in C; UTF-8 keeps every other
    # code point (lone surrogates included, via surrogatepass) byte for byte.
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def _utf8_encodable(text: str) -> bool:
    """False when ``text`` holds a lone surrogate (the only str that UTF-8 cannot encode)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def without_utf8_bom(head: bytes) -> bytes | None:
    """The first bytes of a file without the UTF-8 byte order mark some Windows writers put
    before line 1; ``None`` while ``head`` is too short to tell (a prefix of the mark).

    >>> without_utf8_bom(b"\\xef\\xbb\\xbf{}"), without_utf8_bom(b"{}"), without_utf8_bom(b"\\xef")
    (b'{}', b'{}', None)
    """
    if len(head) < len(codecs.BOM_UTF8) and codecs.BOM_UTF8.startswith(head):
        return None
    return head.removeprefix(codecs.BOM_UTF8)


class Utf16AsUtf8:
    """A binary stream of UTF-16 text (with its byte order mark) read as UTF-8 bytes, for
    the readers of JSON Lines (a PowerShell ``>`` redirect writes UTF-16).

    A lone surrogate becomes the (invalid) UTF-8 bytes of that surrogate and an odd byte
    at the end becomes ``0xff``, so the line that holds either is refused as invalid
    UTF-8 like any other; the bytes around it decode as they are.
    """

    def __init__(self, stream: Any):
        self.stream = stream
        self.decoder = codecs.getincrementaldecoder("utf-16")(errors="surrogatepass")
        self.pending = b""  # decoded bytes beyond what the last call asked for
        self.ended = False

    def read1(self, size: int = -1) -> bytes:
        """At most ``size`` bytes of UTF-8 (all that one read gives, when negative)."""
        if size == 0:
            return b""
        out = self.pending
        while not out and not self.ended:
            data = self.stream.read1(size) if hasattr(self.stream, "read1") else self.stream.read(size)
            self.ended = not data
            try:
                out = self.decoder.decode(data, final=self.ended).encode("utf-8", "surrogatepass")
            except UnicodeDecodeError:  # the stream ended inside a code unit
                out = b"\xff"
        if 0 < size < len(out):
            out, self.pending = out[:size], out[size:]
        else:
            self.pending = b""
        return out

    read = read1


def normalise_signal_name(name: str) -> str:
    """Spell a signal name one way: lower case, words joined by ``-``.

    >>> normalise_signal_name("goal_not_achievable")
    'goal-not-achievable'
    >>> normalise_signal_name(" Element Not Found ")
    'element-not-found'
    """
    s = str(name).strip().lower()
    s = re.sub(r"[\s_]+", "-", s)
    return re.sub(r"-{2,}", "-", s).strip("-")


def normalise_text(text: str, *, max_chars: int = MAX_TEXT_CHARS) -> str:
    """Make text matchable: no ANSI codes, no NULs, ``\\n`` line ends, bounded size.

    Carriage-return progress redraws (``50%\\r60%\\rError``) become separate lines so
    nothing a terminal overwrote is lost to matching. Text longer than ``max_chars``
    keeps its tail, cut at a line boundary, plus the last error-looking line of the
    part that was dropped when the tail itself has none.

    >>> normalise_text("\\x1b[31mError\\x1b[0m: boom\\r\\n")
    'Error: boom\\n'
    """
    if not text:
        return ""
    is_ascii = text.isascii()
    if not is_ascii and not _utf8_encodable(text):
        # Lone surrogates (from JSON "\\ud800" escapes) are not UTF-8; the matchers need UTF-8.
        text = _SURROGATE.sub("\ufffd", text)
    if "\x00" in text:
        text = text.replace("\x00", "")
    if "\x1b" in text or (not is_ascii and any(c in text for c in _C1_INTRODUCERS)):
        text = _strip_control(text, is_ascii=is_ascii)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > max_chars:
        text = _cap(text, max_chars)
    return text


def _strip_control(text: str, *, is_ascii: bool) -> str:
    """``_ANSI.sub("", text)``, in time linear in the text.

    An 8-bit string introducer whose run to the next stop (BEL, ESC, ST) is not ended
    there is no sequence, nor is any introducer in the same run: they stay in the text.
    Those introducers are hidden from _ANSI behind characters the text does not hold
    (no branch of _ANSI can match one, nor do they end a run), then put back.

    >>> _strip_control("\\x9dno end \\x9d\\x1b[31mred\\x9d0;title\\x07.", is_ascii=False)
    '\\x9dno end \\x9dred.'
    """
    if is_ascii or not any(c in text for c in _STRING_STARTS):
        return _ANSI.sub("", text)
    pieces, last, n = [], 0, len(text)
    hide: dict[int, int] | None = None
    for m in _STRING_RUN.finditer(text):
        end = m.end()
        if end < n and (text[end] != "\x1b" or text.startswith("\x1b\\", end)):
            continue  # ended by BEL, ST or ESC \: a string (or within one); _ANSI takes it
        if hide is None:
            present = set(text)
            free = list(itertools.islice((c for c in _PRIVATE_USE if chr(c) not in present), len(_STRING_STARTS)))
            if len(free) < len(_STRING_STARTS):  # (a text holding every one of them)
                return _ANSI.sub("", text)
            hide = dict(zip(map(ord, _STRING_STARTS), free))
        pieces += [text[last:m.start()], m.group().translate(hide)]
        last = end
    if hide is None:
        return _ANSI.sub("", text)
    pieces.append(text[last:])
    stripped = _ANSI.sub("", "".join(pieces))
    return stripped.translate({v: k for k, v in hide.items()})


_ERROR_WORDS = ("error", "fatal", "exception", "panic", "failed", "failure")
#: How much of the kept error line a capped text holds, around its error word.
MAX_KEPT_LINE_CHARS = 4096


def _cap(text: str, max_chars: int) -> str:
    cut = len(text) - max_chars
    nl = text.find("\n", cut)
    start = nl + 1 if 0 <= nl < len(text) - 1 else cut
    tail = text[start:]
    if _ERRORISH.search(tail):
        return tail
    # The last error-looking word of the dropped part: found with rfind on an ASCII
    # lower-cased copy (C speed; a regex per line costs seconds on 10 MB of output).
    head = ascii_lower(text[:start])
    pos = max(head.rfind(w) for w in _ERROR_WORDS)
    if pos < 0:
        return tail
    ls = head.rfind("\n", 0, pos) + 1
    le = head.find("\n", pos)
    le = len(head) if le < 0 else le
    if le - ls > MAX_KEPT_LINE_CHARS:  # one huge line: keep the part around the word
        half = MAX_KEPT_LINE_CHARS // 2
        ls = max(ls, min(pos - half, le - MAX_KEPT_LINE_CHARS))
        le = min(le, ls + MAX_KEPT_LINE_CHARS)
    return text[ls:le] + "\n" + tail


def tail_lines(text: str, max_lines: int = 24, max_chars: int = 1600) -> str:
    """The last ``max_lines`` non-empty lines of ``text``, then its last ``max_chars`` characters.

    Seed 004's ``tail_lines``: lines are right-trimmed, empty ones dropped, and the
    character cap never splits a code point (Python strings are code points).

    >>> tail_lines("a\\n\\nb  \\nc", 2, 100)
    'b\\nc'
    """
    lines = [ln.rstrip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    if len(lines) > max_lines:
        lines = lines[-max_lines:]
    joined = "\n".join(lines)
    if len(joined) > max_chars:
        joined = joined[-max_chars:]
    return joined


def is_error_result_frame(frame: Any) -> bool:
    """True when a terminal stream-json ``result`` frame reports a failure (seed 004)."""
    if not isinstance(frame, Mapping):
        return False
    if frame.get("is_error") is True:
        return True
    subtype = frame.get("subtype")
    return isinstance(subtype, str) and subtype.startswith("error")


def frame_error_text(frame: Any) -> str:
    """Best-effort error text of a result frame, in seed 004's order.

    ``/error/message``, else a string ``error``, else a string ``result``, else the first
    non-empty string of ``errors``, else the ``subtype``.
    """
    if not isinstance(frame, Mapping):
        return ""
    err = frame.get("error")
    if isinstance(err, Mapping) and isinstance(err.get("message"), str):
        return err["message"]
    if isinstance(err, str):
        return err
    res = frame.get("result")
    if isinstance(res, str):
        return res
    errors = frame.get("errors")
    if isinstance(errors, list):
        for e in errors:
            if isinstance(e, str) and e:
                return e
    subtype = frame.get("subtype")
    return subtype if isinstance(subtype, str) else ""


def _inband_text(frames: Sequence[Any]) -> str:
    """Error text carried in-band by stream frames (an assistant message with ``error``)."""
    parts: list[str] = []
    for frame in frames:
        if not isinstance(frame, Mapping):
            continue
        err = frame.get("error")
        if not isinstance(err, str) or not err:
            continue
        piece = [err]
        message = frame.get("message")
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list):
            for block in content:
                if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                    piece.append(block["text"])
        parts.append(" ".join(piece))
    return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a failure left behind. Build it with :meth:`from_record` at the edges.

    Attributes
    ----------
    text : stderr tail, error line or summary (raw, not yet normalised).
    exit_code, signal : the child's exit status; ``signal`` is a POSIX number.
    result_frame : the terminal stream-json ``result`` object, when one was seen.
    frames : other stream frames (in-band errors are folded into the text).
    fields : structured facts, e.g. ``{"lastPassedAgeDays": 41}``.
    signals : signal names the tool already gave, normalised.
    id : the caller's identifier, echoed in results.
    problems : values from the record that were dropped, with the reason.
    """

    text: str = ""
    exit_code: int | None = None
    signal: int | None = None
    result_frame: Mapping[str, Any] | None = None
    frames: tuple[Any, ...] = ()
    fields: Mapping[str, Any] = field(default_factory=dict)
    signals: tuple[str, ...] = ()
    id: Any = None
    problems: tuple[str, ...] = ()

    @classmethod
    def from_record(cls, record: Any) -> Evidence:
        """Build evidence from a mapping with any of the CLI input keys. Never raises.

        Keys: ``text`` (also ``stderr``/``stderrTail``), ``exit_code`` (``exitCode``),
        ``signal``, ``result_frame`` (a mapping or a JSON string), ``frames``, ``fields``,
        ``signals``, ``id``. A value of the wrong type is dropped and noted in
        ``problems``, as is a record whose keys are all ones evidence is not read from.

        >>> Evidence.from_record({"text": "HTTP 429", "exit_code": "1"}).exit_code
        1
        >>> Evidence.from_record({"signal": "SIGKILL"}).signal
        9
        """
        if isinstance(record, Evidence):
            return record
        if not isinstance(record, Mapping):
            return cls(problems=(f"evidence must be an object, got {type(record).__name__}",))
        problems: list[str] = []
        text = _first(record, TEXT_KEYS)
        text = _as_text(text, "text", problems)
        exit_code = _as_int(_first(record, EXIT_CODE_KEYS), "exit_code", problems)
        signal = _as_signal(record.get("signal"), problems)
        frame = _as_frame(_first(record, FRAME_KEYS), problems)
        frames = record.get("frames")
        if frames is None:
            frames_t: tuple[Any, ...] = ()
        elif isinstance(frames, list | tuple):
            frames_t = tuple(frames)
        else:
            problems.append("frames: expected a list")
            frames_t = ()
        fields = record.get("fields")
        if fields is None:
            fields = {}
        elif not isinstance(fields, Mapping):
            problems.append("fields: expected an object")
            fields = {}
        signals = _as_signals(record.get("signals"), problems)
        unread = unread_keys_problem(record)
        if unread is not None:
            problems.append(unread)
        return cls(
            text=text,
            exit_code=exit_code,
            signal=signal,
            result_frame=frame,
            frames=frames_t,
            fields=dict(fields),
            signals=signals,
            id=record.get("id"),
            problems=tuple(problems),
        )

    def combined_text(self) -> str:
        """Normalised text, then the result frame's and in-band error text, one per line."""
        parts = [normalise_text(self.text)] if self.text else []
        frame_text = frame_error_text(self.result_frame)
        if frame_text:
            parts.append(normalise_text(frame_text))
        if self.frames:
            inband = _inband_text(self.frames)
            if inband:
                parts.append(normalise_text(inband))
        return "\n".join(parts)


#: The keys (and column names) evidence is read from, aliases in the order they are tried.
TEXT_KEYS = ("text", "stderr", "stderrTail", "stderr_tail")
EXIT_CODE_KEYS = ("exit_code", "exitCode")
FRAME_KEYS = ("result_frame", "resultFrame")
#: Every key a record may give evidence under (``id`` names it, it is no evidence).
EVIDENCE_KEYS = (*TEXT_KEYS, *EXIT_CODE_KEYS, "signal", *FRAME_KEYS, "frames", "fields", "signals")


def unread_keys_problem(record: Mapping[str, Any]) -> str | None:
    """The problem of a record whose keys are all ones evidence is not read from.

    ``{"message": "HTTP 429"}`` classifies as no evidence at all; saying so beats a
    silent fallback bucket. ``None`` when some evidence key has a value, or the record
    has no key but ``id``.

    >>> unread_keys_problem({"id": 3, "message": "HTTP 429", "error": None})
    'no evidence: none of text, exit_code, signal, result_frame, frames, fields, signals has a value (keys given: error, message)'
    """
    if any(record.get(k) is not None for k in EVIDENCE_KEYS):
        return None
    others = sorted(str(k) for k in record if k != "id" and k not in EVIDENCE_KEYS)
    if not others:
        return None
    shown = ", ".join(others[:8]) + (f" and {len(others) - 8} more" if len(others) > 8 else "")
    return (f"no evidence: none of text, exit_code, signal, result_frame, frames, fields, signals "
            f"has a value (keys given: {shown})")


def _first(record: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for k in keys:
        if k in record and record[k] is not None:
            return record[k]
    return None


def _as_text(value: Any, name: str, problems: list[str]) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    problems.append(f"{name}: expected a string, got {type(value).__name__}")
    return ""


def _as_int(value: Any, name: str, problems: list[str]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", "") == "b":  # numpy's too
        problems.append(f"{name}: expected an integer, got a boolean")
        return None
    if type(value) not in (int, float) and isinstance(value, numbers.Real | Decimal):
        # numpy's scalars (a pandas row's values), Decimal: as the number they hold
        try:
            value = int(value) if isinstance(value, numbers.Integral) else float(value)
        except (ValueError, OverflowError):
            return _bad(name, value, problems)
    if isinstance(value, int | float) and -(2**31) <= value < 2**31 and float(value).is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,10}\s*", value):
        return _as_int(int(value), name, problems)
    return _bad(name, value, problems)


def _bad(name: str, value: Any, problems: list[str]) -> None:
    shown = redact(repr(value))
    if len(shown) > 40:
        shown = shown[:37] + "..."
    problems.append(f"{name}: expected an integer, got {shown}")
    return None


def _as_signal(value: Any, problems: list[str]) -> int | None:
    if isinstance(value, str):
        name = value.strip().upper()
        if name.startswith("SIG"):
            name = name[3:]
        if name in _SIGNALS:
            return _SIGNALS[name]
    return _as_int(value, "signal", problems)


def _as_frame(value: Any, problems: list[str]) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            problems.append("result_frame: a string that is not JSON")
            return None
        except RecursionError:  # nesting deeper than the JSON decoder can follow
            problems.append("result_frame: JSON nested too deeply")
            return None
    if isinstance(value, Mapping):
        return dict(value)
    problems.append(f"result_frame: expected an object, got {type(value).__name__}")
    return None


def _as_signals(value: Any, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        problems.append(f"signals: expected a list of strings, got {type(value).__name__}")
        return ()
    out: list[str] = []
    for v in value:
        if isinstance(v, str) and v.strip():
            name = normalise_signal_name(redact(v))
            if name and name not in out:
                out.append(name)
        else:
            problems.append(f"signals: dropped a non-string entry {v!r:.40}")
    return tuple(out)
