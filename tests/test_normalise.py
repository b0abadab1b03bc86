"""Evidence normalisation before matching: terminal noise never hides a rule's words.

Stderr captured from a terminal carries colour codes, cursor moves, hyperlinks,
carriage-return progress redraws, Windows line ends and NUL bytes (UTF-16 read as
UTF-8). Each damage below is applied to text a rule of the shipped agent-run, devflow
or replay table must recognise, and ``classify`` must give the same bucket and rule as
for the clean text. Huge inputs are capped to their tail the way seed 004 caps its
stderr, keeping the last error line even when it lies before the tail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from failtax.classify import classify
from failtax.evidence import MAX_KEPT_LINE_CHARS, MAX_TEXT_CHARS, normalise_text

FAILTAX = [sys.executable, "-c", "from failtax.cli import main; main()"]

# (taxonomy, text a rule must recognise, bucket, the line a person should see)
CLEAN = [
    ("agent-run", "API Error: Rate limited, please slow down", "rate_limited"),
    ("agent-run", 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}', "overloaded"),
    ("agent-run", "Error: invalid x-api-key · Please run /login", "auth"),
    ("devflow", "CONFLICT (content): Merge conflict in src/app.ts", "branch_divergence"),
    ("devflow", "hint: You have divergent branches and need to specify how to reconcile them.", "branch_divergence"),
    ("replay", "Error: element not found: button#submit", "stale-script"),
    ("replay", "page.goto: Timeout 30000ms exceeded while waiting for navigation", "infra"),
]


def _inside(word: str, code_on: str, code_off: str) -> str:
    """Put codes inside the word itself, the way highlighting splits a keyword."""
    mid = len(word) // 2
    return word[:3] + code_on + word[3:mid] + code_off + word[mid:]


DAMAGES = {
    "colour-inside-keyword": lambda t: _inside(t, "\x1b[31m", "\x1b[0m"),
    "bold-and-tput-sgr0": lambda t: "\x1b[1m" + _inside(t, "\x1b(B\x1b[m", "\x1b[1;33m") + "\x1b(B\x1b[m",
    "256-and-truecolour": lambda t: _inside(t, "\x1b[38;5;196m", "\x1b[38;2;255;128;0m") + "\x1b[39;49m",
    "colon-params": lambda t: _inside(t, "\x1b[38:5:196m", "\x1b[0m"),
    "cursor-moves-and-erase": lambda t: "\x1b[2K\x1b[1G\x1b[1A" + _inside(t, "\x1b[10C", "\x1b[K") + "\x1b[0J",
    "hidden-cursor": lambda t: "\x1b[?25l" + t + "\x1b[?25h",
    "osc8-hyperlink": lambda t: _inside(t, "\x1b]8;;https://docs.example.com/errors\x1b\\", "\x1b]8;;\x1b\\"),
    "osc-title-bel": lambda t: "\x1b]0;claude — running\x07" + _inside(t, "\x1b]2;x\x07", ""),
    "c1-csi": lambda t: _inside(t, "\x9b31m", "\x9b0m"),
    "dec-save-restore-keypad": lambda t: "\x1b7\x1b=" + _inside(t, "\x1b8", "\x1b>"),
    "carriage-return-progress": lambda t: "Downloading  10% |##        |\rDownloading  55% |#####     |\r" + t,
    "spinner-redraw-after": lambda t: t + "\r⠋ waiting\r⠙ waiting\r",
    "windows-line-ends": lambda t: "starting run\r\n" + t + "\r\nexit status 1\r\n",
    "nul-bytes": lambda t: "\x00".join(t) + "\x00",
    "utf16-le-as-utf8": lambda t: t.encode("utf-16-le").decode("latin-1"),
    "everything": lambda t: "\x1b[2K\r" + "\x00".join(_inside(t, "\x1b[1;31m", "\x1b(B\x1b[m")) + "\r\n\x1b[0m",
}


@pytest.mark.parametrize("damage", DAMAGES, ids=str)
@pytest.mark.parametrize("taxonomy,text,bucket", CLEAN, ids=[f"{c[0]}:{c[2]}" for c in CLEAN])
def test_terminal_noise_does_not_stop_a_rule(taxonomy: str, text: str, bucket: str, damage: str) -> None:
    clean = classify({"text": text, "exit_code": 1}, taxonomy=taxonomy)
    assert clean.bucket == bucket  # the case itself is meaningful
    damaged = DAMAGES[damage](text)
    assert damaged != text
    got = classify({"text": damaged, "exit_code": 1}, taxonomy=taxonomy)
    assert (got.bucket, got.rule) == (clean.bucket, clean.rule)
    # What a person is shown is clean too: no escape codes or NULs in the tail.
    assert "\x1b" not in got.stderr_tail and "\x00" not in got.stderr_tail and "\x9b" not in got.stderr_tail


@pytest.mark.parametrize("damage", ["colour-inside-keyword", "nul-bytes", "windows-line-ends", "osc8-hyperlink"])
def test_noise_in_a_result_frame_is_removed_too(damage: str) -> None:
    frame = {"type": "result", "subtype": "error_during_execution", "is_error": True,
             "error": {"message": DAMAGES[damage]("Rate limited, please slow down")}}
    assert classify({"exit_code": 1, "result_frame": frame}).bucket == "rate_limited"


def test_line_anchored_patterns_see_lines_after_crlf_and_redraws() -> None:
    # devflow's conflict-marker rule is a (?m)^ regex: a line start must be a line start.
    for text in ("merging\r\n<<<<<<< HEAD\r\n", "50%\r<<<<<<< HEAD\n", "\x1b[31m<<<<<<< HEAD\x1b[0m\n"):
        c = classify({"text": text, "exit_code": 1}, taxonomy="devflow")
        assert c.bucket == "branch_divergence", repr(text)


def test_normalise_text_examples() -> None:
    assert normalise_text("\x1b[31mError\x1b[0m: boom\r\n") == "Error: boom\n"
    assert normalise_text("50%\r60%\rError") == "50%\n60%\nError"
    assert normalise_text("a\x00b") == "ab"
    assert normalise_text("ok \x1b(B\x1b[m done") == "ok  done"
    assert normalise_text("\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\") == "link"
    assert normalise_text("plain [31m text, no escape") == "plain [31m text, no escape"
    assert normalise_text("cut off \x1b[3") == "cut off 3"
    assert normalise_text("") == ""


def test_cli_text_mode_reads_raw_terminal_bytes(tmp_path: Path) -> None:
    raw = ("\x1b[2K\rDownloading 40%\r\x1b[1;31mAPI Error:\x1b(B\x1b[m Rate "
           "\x1b[33mlim\x1b[0mited\r\n").encode() + b"\xff\xfe broken utf-8\x00\r\n"
    f = tmp_path / "stderr.bin"
    f.write_bytes(raw)
    p = subprocess.run([*FAILTAX, "classify", "--taxonomy", "agent-run", "--text", "--exit-code", "1", str(f)],
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    out = p.stdout.decode()
    assert '"bucket": "rate_limited"' in out
    assert "\\u001b" not in out and "\\u0000" not in out


# --------------------------------------------------------------------------- huge inputs

NOISE_LINE = "[{:07d}] compiling module {} ... ok\n"


def _noise(n_bytes: int, start: int = 0) -> str:
    lines, size, i = [], 0, start
    while size < n_bytes:
        line = NOISE_LINE.format(i, i % 97)
        lines.append(line)
        size += len(line)
        i += 1
    return "".join(lines)


def test_a_10mb_input_keeps_the_last_error_line_from_before_its_tail() -> None:
    first = "Error: something unrelated went wrong earlier\n"
    last = "API Error: 429 Too Many Requests (rate_limit_error)\n"
    text = first + _noise(5_000_000) + last + _noise(5_000_000, start=10**6)
    assert len(text) > 10_000_000
    norm = normalise_text(text)
    assert len(norm) <= MAX_TEXT_CHARS + MAX_KEPT_LINE_CHARS + 1
    assert norm.startswith(last)  # the line that matters, then the tail
    assert first not in norm
    assert norm.endswith(text[-1000:])
    c = classify({"text": text, "exit_code": 1})
    assert c.bucket == "rate_limited"
    assert len(c.stderr_tail) <= 1600 and c.stderr_tail.count("\n") <= 23  # seed 004's tail cap


def test_an_error_inside_the_tail_is_enough() -> None:
    text = "Error: old failure\n" + _noise(2_000_000) + "overloaded_error: please retry\n" + _noise(1000)
    norm = normalise_text(text)
    assert "old failure" not in norm and "overloaded_error" in norm
    assert classify({"text": text, "exit_code": 1}).bucket == "overloaded"


def test_one_huge_line_keeps_the_part_around_its_error() -> None:
    text = "x" * 5_000_000 + " API Error: rate limited " + "y" * 5_000_000
    norm = normalise_text(text)
    kept = norm.split("\n", 1)[0]
    assert "API Error: rate limited" in kept and len(kept) <= MAX_KEPT_LINE_CHARS
    assert classify({"text": text, "exit_code": 1}).bucket == "rate_limited"


def test_a_huge_input_with_noise_everywhere_still_classifies() -> None:
    noisy = _noise(6_000_000).replace(" ok\n", " \x1b[32mok\x1b[0m\r\n").replace("compiling", "comp\x00iling")
    text = noisy + "\x1b[1;31merror\x1b(B\x1b[m: Over\x1b[0mloaded\r\n" + _noise(4_000_000).replace("\n", "\r")
    c = classify({"text": text, "exit_code": 1})
    assert c.bucket == "overloaded"
    assert "\x1b" not in c.stderr_tail and "\x00" not in c.stderr_tail


def test_cli_text_mode_on_a_10mb_file(tmp_path: Path) -> None:
    f = tmp_path / "huge.log"
    f.write_bytes(b"fatal: spawn claude ENOENT\n" + _noise(10_000_000).encode().replace(b"\n", b"\r\n"))
    p = subprocess.run([*FAILTAX, "classify", "--taxonomy", "agent-run", "--text", "--exit-code", "1", str(f)],
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    assert '"bucket": "spawn_failure"' in p.stdout.decode()


# One branch per kind of control sequence, in the order a terminal reads them: the
# readable statement of what normalise_text removes. The shipped expression groups the
# branches by their introducer (for speed) and must remove exactly the same.
_ANSI_BY_KIND = (
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[NO][^\x1b\n]?"  # SS2 / SS3
    r"|\x1b[ -/]+[0-~]"  # nF
    r"|\x1b[0-~]"  # Fp / Fe / Fs
    r"|\x1b"  # a lone ESC
)


def test_grouped_control_sequence_expression_removes_what_one_branch_per_kind_does() -> None:
    import random
    import re

    from failtax.evidence import _ANSI, _strip_control

    reference = re.compile(_ANSI_BY_KIND)
    rng = random.Random(11)
    alphabet = "\x1b\x9b\x90\x98\x9d\x9e\x9f\x07\x9c[]PX^_NO (/0?@~;m31\\a\n\ue000\ue001"
    for _ in range(50_000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        want = reference.sub("", s)
        assert _ANSI.sub("", s) == want, repr(s)
        assert _strip_control(s, is_ascii=s.isascii()) == want, repr(s)


def test_unended_8bit_strings_stay_in_the_text_and_cost_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the property tests: 65,000 characters holding 16,000 8-bit OSC introducers
    that no BEL or ST ends (classifying it took 10 s, each introducer scanning to the end).
    They are no control sequences, so they stay; a string that a BEL does end still goes,
    from the first introducer before the BEL (the first half of ``text``) to the BEL.

    The control-sequence expression is where the time went: it must never be handed an
    introducer that no stop ends (each would cost a scan to the end), only those of ended
    strings (the first of which takes its whole run in one match)."""
    import re

    from failtax import evidence

    seen: list[int] = []  # introducers in each text the expression is run on

    class Counting:
        def sub(self, repl: str, text: str) -> str:
            seen.append(sum(text.count(c) for c in evidence._STRING_STARTS))
            return evidence_ansi.sub(repl, text)

    evidence_ansi = evidence._ANSI
    monkeypatch.setattr(evidence, "_ANSI", Counting())
    chunk = "v\x05\x9d\x99"
    assert normalise_text(chunk * 16_276) == chunk * 16_276
    assert seen == [0]
    small = chunk * 300 + "\x9d0;title\x07" + chunk * 300 + "\x9e\x1bx"
    assert normalise_text(small) == re.sub(_ANSI_BY_KIND, "", small) == "v\x05" + chunk * 300 + "\x9e"
    text = chunk * 8_000 + "\x9d0;title\x07" + chunk * 8_000 + "\x9e\x1bx"
    assert normalise_text(text) == "v\x05" + chunk * 8_000 + "\x9e"
    assert seen[1:] == [301, 8_001]  # the ended string's run; the unended half was hidden


def test_lone_surrogates_and_8bit_introducers_are_normalised() -> None:
    assert normalise_text("bad \ud800 byte é") == "bad \ufffd byte é"
    assert normalise_text("é \x9b31mred\x9b0m") == "é red"
    assert normalise_text("é \x9d8;;https://x\x9clink") == "é link"
