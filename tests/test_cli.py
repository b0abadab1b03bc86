"""The command line as a user runs it: real subprocesses of the `failtax` entry point."""

from __future__ import annotations

import dataclasses
import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path

import click
import pytest

from failtax import list_taxonomies, load_table, read_table, save_table
from failtax.table import RouteRule, list_tables

CMD = [sys.executable, "-c", "from failtax.cli import main; main()"]


def run(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*CMD, *args], input=stdin, capture_output=True, timeout=120, cwd=cwd)


def no_traceback(p: subprocess.CompletedProcess[bytes]) -> None:
    assert b"Traceback" not in p.stderr and b"Traceback" not in p.stdout, p.stderr.decode()
    assert b"internal error" not in p.stderr, p.stderr.decode()


# --------------------------------------------------------------------------- help


def _command_paths() -> list[tuple[str, ...]]:
    from failtax.cli import cli

    out: list[tuple[str, ...]] = []

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        out.append(path)
        if isinstance(cmd, click.Group):
            for name, sub in sorted(cmd.commands.items()):
                walk(sub, (*path, name))

    walk(cli, ())
    return out


COMMANDS = _command_paths()


def test_the_tree_has_the_core_commands() -> None:
    assert {("classify",), ("verdict",), ("taxonomies",), ("table", "show"), ("table", "diff"),
            ("table", "lint")} <= set(COMMANDS)


def test_every_command_has_help_that_describes_it() -> None:
    from failtax.cli import cli

    # start them all at once: each is a separate interpreter
    procs = {path: subprocess.Popen([*CMD, *path, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for path in COMMANDS}
    for path, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        shown = " ".join(("failtax", *path))
        assert proc.returncode == 0, (shown, err.decode())
        text = out.decode()
        assert text.startswith(f"Usage: {shown}"), (shown, text[:200])
        assert "Traceback" not in err.decode()
        cmd: click.Command = cli
        for name in path:
            cmd = cmd.commands[name]  # type: ignore[attr-defined]
        summary = (cmd.help or "").strip().splitlines()[0] if cmd.help else ""
        assert len(summary.split()) >= 3, f"{shown}: the help needs a summary sentence"
        assert summary.split()[0] in text, shown
        if isinstance(cmd, click.Group):
            for sub in cmd.commands:
                assert sub in text, f"{shown} --help does not list {sub}"


def test_h_is_help_too() -> None:
    p = run("-h")
    assert p.returncode == 0 and p.stdout.startswith(b"Usage: failtax")
    assert b"Exit codes" in p.stdout


# --------------------------------------------------------------------------- classify

BAD_LINES = (
    b'{"id": "first", "text": "locator.click: Timeout 30000ms exceeded. waiting for locator(#submit)"}\n'
    b"{not json\n"
    b'{"text": "caf\xe9"}\n'
    b'["a", "list"]\n'
    b"\n"
    b'{"id": "last", "text": "HTTP 500 Internal Server Error after clicking Save"}\n'
)


def test_classify_answers_every_line_in_order_and_names_bad_ones(tmp_path: Path) -> None:
    f = tmp_path / "evidence.jsonl"
    f.write_bytes(BAD_LINES)
    p = run("classify", "--taxonomy", "replay", str(f))
    no_traceback(p)
    lines = p.stdout.decode().splitlines()
    assert len(lines) == 6
    recs = [json.loads(x) for x in lines]
    assert recs[0]["id"] == "first" and recs[0]["bucket"] == "stale-script"
    assert recs[5]["id"] == "last" and recs[5]["bucket"] == "product-defect"
    assert recs[5]["taxonomy"] == "replay" and "signals" in recs[5] and "rule" in recs[5]
    errors = [r.get("error", "") for r in recs[1:5]]
    assert [e.split(": ")[0] for e in errors] == [f"{f}:{n}" for n in (2, 3, 4, 5)]
    assert "JSON" in errors[0]
    assert "UTF-8" in errors[1]
    assert "object" in errors[2]
    assert "empty" in errors[3]


def test_classify_answers_numbers_no_exit_code_can_be_with_a_warning() -> None:
    # JSON numbers of any size: an exit code or signal beyond 32 bits, written as an
    # integer or as a float, is no exit code, and the stream goes on.
    lines = [{"id": i, "text": "Killed", "exit_code": v, "signal": v}
             for i, v in enumerate([1e308, -1e30, 2**70, 10_000_000_000.0, 137.0])]
    p = run("classify", "-t", "agent-run", stdin="".join(json.dumps(x) + "\n" for x in lines).encode())
    no_traceback(p)
    recs = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert [r["id"] for r in recs] == [0, 1, 2, 3, 4]
    assert all("error" not in r for r in recs)
    for r, shown in zip(recs[:4], ["1e+308", "-1e+30", str(2**70), "10000000000.0"], strict=True):
        assert r["warnings"] == [f"exit_code: expected an integer, got {shown}", f"signal: expected an integer, got {shown}"]
    assert recs[4]["bucket"] == "killed" and not recs[4].get("warnings")


def test_classify_reads_stdin_and_names_it() -> None:
    p = run("classify", "-t", "agent-run", stdin=b'{"text": "Rate limited", "exit_code": 1}\nnope\n')
    no_traceback(p)
    first, second = (json.loads(x) for x in p.stdout.decode().splitlines())
    assert first["bucket"] == "rate_limited" and first["retryable"] is True
    assert second["error"].startswith("<stdin>:2: ")


def test_classify_warns_when_a_line_gives_no_evidence_key() -> None:
    # {"message": ...} is a likely slip for {"text": ...}: the answer says so, and a line
    # with a real evidence key, or no key but its id, gets no such warning.
    p = run("classify", "-t", "agent-run", stdin=b'{"id": 1, "message": "HTTP 429 Too Many Requests", "error": "x"}\n'
            b'{"id": 2, "text": "HTTP 429 Too Many Requests", "message": "x"}\n{"id": 3}\n')
    no_traceback(p)
    first, second, third = (json.loads(x) for x in p.stdout.decode().splitlines())
    assert first["id"] == 1 and first["rule"] == "fallback"
    assert first["warnings"] == ["no evidence: none of text, exit_code, signal, result_frame, frames, fields, "
                                 "signals has a value (keys given: error, message)"]
    assert second["bucket"] == "rate_limited" and not second.get("warnings")
    assert third["id"] == 3 and not third.get("warnings")


def test_classify_reads_a_file_that_opens_with_a_byte_order_mark(tmp_path: Path) -> None:
    # Windows editors and PowerShell's Out-File write a UTF-8 BOM before the first line.
    f = tmp_path / "evidence.jsonl"
    f.write_bytes(b'\xef\xbb\xbf{"text": "HTTP 429 Too Many Requests", "exit_code": 1}\r\n'
                  b'{"text": "\xef\xbb\xbfKilled", "exit_code": 137}\r\n')
    p = run("classify", "-t", "agent-run", str(f))
    no_traceback(p)
    first, second = (json.loads(x) for x in p.stdout.decode().splitlines())
    assert first["bucket"] == "rate_limited"
    assert second["bucket"] == "killed"
    # only the mark opening the file is dropped; one mid-file is the line's own text
    p = run("classify", "-t", "agent-run", stdin=b'{"text": "Killed"}\n\xef\xbb\xbf{"text": "Killed"}\n')
    first, second = (json.loads(x) for x in p.stdout.decode().splitlines())
    assert "bucket" in first and second["error"].startswith("<stdin>:2: not valid JSON")


def test_classify_counts_unreadable_lines_and_points_plain_text_to_text_mode(tmp_path: Path) -> None:
    # a stderr capture piped in as it is: every line is an error line, and stderr says why
    p = run("classify", "-t", "agent-run", stdin=b"Error: 429 Too Many Requests\nretrying\n")
    assert p.returncode == 0
    assert [json.loads(x)["error"][:9] for x in p.stdout.decode().splitlines()] == ["<stdin>:1", "<stdin>:2"]
    err = p.stderr.decode()
    assert "2 lines could not be read" in err
    assert "hint: stdin does not look like JSON Lines" in err and "--text" in err
    # JSON Lines with one bad line: counted, but no hint about text mode
    f = tmp_path / "evidence.jsonl"
    f.write_bytes(b'{"text": "Killed"}\n[1]\n{"text": "HTTP 429"}\n')
    p = run("classify", "-t", "agent-run", str(f))
    assert len(p.stdout.decode().splitlines()) == 3
    err = p.stderr.decode()
    assert "1 line could not be read" in err and "hint" not in err
    # a plain-text file named as JSON Lines gets the hint with its name
    log = tmp_path / "build.log"
    log.write_text("error TS2304: Cannot find name 'x'.\n")
    p = run("classify", "-t", "devflow", str(log))
    assert f"hint: {log} does not look like JSON Lines" in p.stderr.decode()
    # nothing is said when every line was read
    p = run("classify", "-t", "agent-run", stdin=b'{"text": "Killed"}\n')
    assert p.stderr.decode() == ""
    # a byte order mark before the first object is still JSON Lines; a gzip file is read
    # decompressed, as classifying reads it
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b'\xef\xbb\xbf{"text": "Killed"}\n[1]\n')
    err = run("classify", "-t", "agent-run", str(bom)).stderr.decode()
    assert "1 line could not be read" in err and "hint" not in err
    zipped = tmp_path / "build.log.gz"
    zipped.write_bytes(gzip.compress(b"error TS2304: Cannot find name 'x'.\n"))
    assert f"hint: {zipped} does not look like JSON Lines" in run("classify", "-t", "devflow", str(zipped)).stderr.decode()
    # a JSON array, or JSON written over several lines, is told how to become JSON Lines
    array = tmp_path / "export.json"
    array.write_text(json.dumps([{"text": "Killed"}, {"text": "HTTP 429"}]))
    err = run("classify", "-t", "agent-run", str(array)).stderr.decode()
    assert f"hint: {array} holds a JSON array; classify reads one JSON object per line: jq -c '.[]' {array} |" in err
    err = run("classify", "-t", "agent-run", stdin=array.read_bytes()).stderr.decode()
    assert "hint: stdin holds a JSON array" in err and "… | jq -c '.[]' | failtax classify -t agent-run" in err
    pretty = tmp_path / "one.json"
    pretty.write_text(json.dumps({"text": "Killed", "exit_code": 137}, indent=2))
    err = run("classify", "-t", "regen", str(pretty)).stderr.decode()
    assert f"hint: {pretty} holds JSON written over several lines" in err and "jq -c . " in err
    # UTF-16 (a PowerShell redirect) is JSON Lines read as such: answered, nothing to hint
    p = run("classify", "-t", "agent-run", stdin='{"text": "Killed"}\n{"text": "HTTP 429"}\n'.encode("utf-16"))
    assert [json.loads(x)["bucket"] for x in p.stdout.decode().splitlines()] == ["killed", "rate_limited"]
    assert p.stderr.decode() == ""
    # … and one whose lines cannot be read gets the hint its text deserves
    p = run("classify", "-t", "agent-run", stdin="Error: 429 Too Many Requests\n".encode("utf-16"))
    assert "hint: stdin does not look like JSON Lines" in p.stderr.decode()


def test_classify_keeps_order_over_many_lines(tmp_path: Path) -> None:
    texts = ["HTTP 500 from the app", "waiting for selector #x", "electron crashed", "all good"]
    rows = []
    for i in range(3000):
        if i % 997 == 5:
            rows.append(b"{broken\n")
        else:
            rows.append(json.dumps({"id": i, "text": texts[i % 4]}).encode() + b"\n")
    f = tmp_path / "many.jsonl"
    f.write_bytes(b"".join(rows))
    p = run("classify", "-t", "replay", str(f))
    no_traceback(p)
    out = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert len(out) == 3000
    for i, rec in enumerate(out):
        if i % 997 == 5:
            assert rec["error"].startswith(f"{f}:{i + 1}: ")
        else:
            assert rec["id"] == i
    assert [out[i]["bucket"] for i in range(4)] == ["product-defect", "stale-script", "infra", "product-defect"]


def _classify_on_a_terminal(args: list[str], cwd: Path) -> tuple[bytes, bytes]:
    """Run ``failtax classify`` with stderr on a pseudo-terminal of 100 columns (stdout to
    a pipe); its stdout and what the terminal showed."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    answers = cwd / "answers.jsonl"  # a file, not a pipe: nothing waits on a full pipe buffer
    with answers.open("wb") as fh:
        p = subprocess.Popen([*CMD, "classify", *args], cwd=cwd, stdout=fh, stderr=slave)
    os.close(slave)
    shown = bytearray()
    while True:
        if not select.select([master], [], [], 120)[0]:
            p.kill()  # silent for two minutes: fail below rather than hang the suite
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    p.wait(timeout=120)
    os.close(master)
    assert p.returncode == 0, bytes(shown)
    return answers.read_bytes(), bytes(shown)


def test_classify_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    """A bar of the bytes classified on a terminal's stderr, never on stdout; none with
    --no-progress or when stderr is not a terminal. The answers are the same each way."""
    f = tmp_path / "many.jsonl"
    f.write_bytes(b"".join(json.dumps({"id": i, "text": "HTTP 429 Too Many Requests"}).encode() + b"\n"
                           for i in range(2000)))
    out, shown = _classify_on_a_terminal(["-t", "agent-run", str(f)], tmp_path)
    assert b"classifying" in shown and b"100%" in shown and b"%|" in shown
    quiet_out, quiet = _classify_on_a_terminal(["-t", "agent-run", "--no-progress", str(f)], tmp_path)
    assert b"classifying" not in quiet
    piped = run("classify", "-t", "agent-run", str(f))
    assert piped.stderr == b""
    assert out == quiet_out == piped.stdout and len(out.splitlines()) == 2000


def test_classify_text_mode_reads_a_whole_file_as_one_text(tmp_path: Path) -> None:
    f = tmp_path / "stderr.txt"
    f.write_text("starting\n\x1b[31mError: 529 overloaded_error\x1b[0m\nretrying\n", encoding="utf-8")
    p = run("classify", "-t", "agent-run", "--text", "--exit-code", "1", str(f))
    no_traceback(p)
    lines = p.stdout.decode().splitlines()
    assert len(lines) == 1
    rec = json.loads(lines[0])
    assert rec["bucket"] == "overloaded" and rec["exitCode"] == 1
    p = run("classify", "-t", "agent-run", "--text", "--explain", stdin=b"Rate limited\n")
    assert p.returncode == 0
    assert p.stdout.decode().splitlines()[0].endswith("(retryable)")


def test_classify_text_mode_options_are_checked(tmp_path: Path) -> None:
    f = tmp_path / "stderr.txt"
    f.write_text("oops\n", encoding="utf-8")
    # a signal by name, lower case, with or without SIG
    for name in ("sigkill", "KILL", "9"):
        p = run("classify", "-t", "agent-run", "--text", "--signal", name, str(f))
        assert json.loads(p.stdout)["bucket"] == "killed", name
    # a signal that is no signal is refused before anything is read
    p = run("classify", "-t", "agent-run", "--text", "--signal", "SIGFOO", str(f))
    assert p.returncode == 2 and p.stdout == b""
    no_traceback(p)
    assert "'SIGFOO' is neither a signal number nor a signal name" in p.stderr.decode()
    # the text-mode options without --text would be ignored: refused, naming them
    lines = tmp_path / "evidence.jsonl"
    lines.write_text('{"text": "oops"}\n', encoding="utf-8")
    p = run("classify", "-t", "agent-run", "--exit-code", "3", "--explain", str(lines))
    assert p.returncode == 2 and p.stdout == b""
    assert "--exit-code and --explain go with --text" in p.stderr.decode()
    # a missing file in text mode: the path and the reason, no traceback
    missing = tmp_path / "gone.txt"
    p = run("classify", "-t", "agent-run", "--text", str(missing))
    assert p.returncode == 2
    no_traceback(p)
    assert f"{missing}: cannot open: No such file or directory" in p.stderr.decode()
    # a gzip capture is read decompressed; one named .gz that holds plain text is read as
    # the text it holds (a file is told by its bytes); a gzip stream cut short is named
    zipped = tmp_path / "stderr.txt.gz"
    zipped.write_bytes(gzip.compress(b"starting\nKilled\n"))
    p = run("classify", "-t", "agent-run", "--text", str(zipped))
    assert json.loads(p.stdout)["bucket"] == "killed"
    fake = tmp_path / "fake.gz"
    fake.write_bytes(b"Killed\n")
    p = run("classify", "-t", "agent-run", "--text", str(fake))
    assert p.returncode == 0 and json.loads(p.stdout)["bucket"] == "killed"
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(b"starting\nKilled\n")[:12])
    p = run("classify", "-t", "agent-run", "--text", str(cut))
    assert p.returncode == 2 and p.stdout == b""
    no_traceback(p)
    assert f"{cut}: cannot read: Compressed file ended before the end-of-stream marker was reached" in p.stderr.decode()


def test_classify_and_verdict_read_a_gzip_cut_short_up_to_the_cut(tmp_path: Path) -> None:
    """A truncated .gz is not a crash: its whole lines are answered, one error line names
    where reading stopped, the next file is read, and stderr counts the error."""
    lines = b"".join(b'{"id": "r%d", "text": "HTTP 429 Too Many Requests"}\n' % i for i in range(4000))
    packed = gzip.compress(lines)
    cut = tmp_path / "events.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    after = tmp_path / "more.jsonl"
    after.write_bytes(b'{"text": "HTTP 401 Unauthorized"}\n')
    p = run("classify", "-t", "agent-run", str(cut), str(after))
    no_traceback(p)
    assert p.returncode == 0
    got = [json.loads(ln) for ln in p.stdout.splitlines()]
    n = len(got) - 2
    assert n == zlib.decompressobj(31).decompress(cut.read_bytes()).count(b"\n")  # every whole line read
    assert 0 < n < 4000 and all(g["bucket"] == "rate_limited" for g in got[:n])
    assert got[n] == {"error": f"{cut}:{n + 1}: cannot read from this line on: "
                               "Compressed file ended before the end-of-stream marker was reached"}
    assert got[n + 1]["bucket"] == "auth"
    assert "1 line could not be read" in p.stderr.decode()
    # the verdict counts the outcomes read before the cut and lists the failure
    outcomes = gzip.compress(b'{"outcome": "pass"}\n' * 3000)
    cut.write_bytes(outcomes[: len(outcomes) - 10])
    p = run("verdict", str(cut))
    no_traceback(p)
    assert p.returncode == 2
    out = json.loads(p.stdout)
    assert out["verdict"] == "PASS" and 0 < out["total"] <= 3000
    assert out["total"] == zlib.decompressobj(31).decompress(cut.read_bytes()).count(b"\n")
    assert out["errors"] == [f"{cut}:{out['total'] + 1}: cannot read from this line on: "
                             "Compressed file ended before the end-of-stream marker was reached"]


def test_classify_with_a_table_of_another_taxonomy_is_refused(tmp_path: Path) -> None:
    t = tmp_path / "replay-copy.toml"
    save_table(load_table("replay"), t)
    p = run("classify", "-t", "agent-run", "--table", str(t), stdin=b'{"text": "x"}\n')
    assert p.returncode == 2
    no_traceback(p)
    err = p.stderr.decode()
    assert str(t) in err and "'replay'" in err and "'agent-run'" in err
    assert p.stdout == b""


def test_classify_with_a_missing_table_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "tuned.toml"
    p = run("classify", "-t", "replay", "--table", str(missing), stdin=b'{"text": "x"}\n')
    assert p.returncode == 2
    no_traceback(p)
    assert str(missing) in p.stderr.decode()


def test_classify_with_an_unknown_taxonomy_lists_the_known_ones() -> None:
    p = run("classify", "-t", "nope", stdin=b"")
    assert p.returncode == 2
    no_traceback(p)
    assert b"agent-run" in p.stderr


# --------------------------------------------------------------------------- taxonomies


def test_taxonomies_lists_every_shipped_taxonomy() -> None:
    p = run("taxonomies")
    assert p.returncode == 0
    names = [line.split()[0] for line in p.stdout.decode().splitlines() if line.strip()]
    assert names == list_taxonomies()
    p = run("taxonomies", "--json")
    assert [t["name"] for t in json.loads(p.stdout)] == list_taxonomies()


def test_taxonomies_shows_one_taxonomy() -> None:
    p = run("taxonomies", "regen")
    assert p.returncode == 0
    for bucket in ("transient", "infra", "agent-course", "product-uxux"):
        assert bucket in p.stdout.decode()


# --------------------------------------------------------------------------- table show / diff


@pytest.mark.parametrize("name", list_tables())
def test_table_show_round_trips(tmp_path: Path, name: str) -> None:
    p = run("table", "show", name)
    assert p.returncode == 0
    f = tmp_path / f"{name}.toml"
    f.write_bytes(p.stdout)
    assert read_table(f) == load_table(name)


def test_table_diff_names_the_changed_rule(tmp_path: Path) -> None:
    base = load_table("replay")
    new = dataclasses.replace(base, route=base.route[1:], version="1.1.0")
    f = save_table(new, tmp_path / "replay-1.1.toml")
    p = run("table", "diff", "replay", str(f))
    assert p.returncode == 0
    removed = base.route[0].id
    assert f"- [[route]] [[route]] id={removed!r}" in p.stdout.decode() or f"id={removed!r}" in p.stdout.decode()
    p = run("table", "diff", "--json", "replay", str(f))
    changes = json.loads(p.stdout)["changes"]
    assert {"kind": "removed", "section": "route", "rule": removed}.items() <= changes[0].items()


@pytest.mark.parametrize("sub", [("show",), ("diff", "replay"), ("lint",)])
def test_unknown_table_path_exits_2_naming_it(tmp_path: Path, sub: tuple[str, ...]) -> None:
    missing = tmp_path / "no" / "such.toml"
    p = run("table", *sub, str(missing))
    assert p.returncode == 2
    no_traceback(p)
    assert str(missing) in p.stderr.decode()


def test_unknown_table_name_lists_the_shipped_ones() -> None:
    p = run("table", "show", "agent_run")
    assert p.returncode == 2
    no_traceback(p)
    assert b"agent-run" in p.stderr


# --------------------------------------------------------------------------- table lint

SHADOWED = """
[table]
name = "replay-edited"
taxonomy = "replay"
version = "1.1"
fallback = "product-defect"

[[extract]]
id = "nf"
signal = "element-not-found"
contains = ["element not found"]

[[extract]]
id = "crash"
signal = "electron-crash"
contains = ["electron crashed"]

[[route]]
id = "stale"
bucket = "stale-script"
any = ["element-not-found"]

[[route]]
id = "crash-while-stale"
bucket = "infra"
all = ["element-not-found", "electron-crash"]
"""


def test_lint_a_clean_table() -> None:
    p = run("table", "lint", "agent-run")
    assert p.returncode == 0
    assert p.stdout.decode().strip().endswith("no findings")
    assert run("table", "lint", "--strict", "agent-run").returncode == 0


def test_lint_prints_findings_with_what_to_do_and_strict_fails(tmp_path: Path) -> None:
    f = tmp_path / "edited.toml"
    f.write_text(SHADOWED, encoding="utf-8")
    p = run("table", "lint", str(f))
    assert p.returncode == 0
    out = p.stdout.decode()
    assert f"{f}: error: [[route]] 'crash-while-stale': " in out
    assert "'stale'" in out and "fix: " in out
    assert "unreachable-bucket" in out  # infra is now reached by no route that can decide
    assert out.strip().splitlines()[-1] == f"{f}: 1 error(s), 2 warning(s)"
    strict = run("table", "lint", "--strict", str(f))
    assert strict.returncode == 1
    p = run("table", "lint", "--json", str(f))
    doc = json.loads(p.stdout)
    assert doc["errors"] == 1 and doc["warnings"] == 2
    assert [x["code"] for x in doc["findings"]] == ["shadowed-route", "dead-extract", "unreachable-bucket"]


def test_lint_known_signal_option(tmp_path: Path) -> None:
    base = load_table("replay")
    t = dataclasses.replace(base, route=(*base.route, RouteRule(id="tool", bucket="infra", any=("mcp-down",))))
    f = save_table(t, tmp_path / "t.toml")
    assert b"route-signal-not-extracted" in run("table", "lint", str(f)).stdout
    p = run("table", "lint", "--strict", "--known-signal", "mcp-down", str(f))
    assert p.returncode == 0, p.stdout.decode()


def test_lint_of_a_table_that_does_not_load_names_file_rule_and_reason(tmp_path: Path) -> None:
    f = tmp_path / "broken.toml"
    f.write_text(SHADOWED.replace('bucket = "infra"', 'bucket = "infrastructure"'), encoding="utf-8")
    p = run("table", "lint", str(f))
    assert p.returncode == 2
    no_traceback(p)
    err = p.stderr.decode()
    assert str(f) in err and "'crash-while-stale'" in err and "unknown bucket 'infrastructure'" in err
    assert "fix the table file" in err


def test_lint_of_invalid_toml_names_the_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("[table\nname = 1\n", encoding="utf-8")
    p = run("table", "lint", str(f))
    assert p.returncode == 2
    no_traceback(p)
    assert str(f) in p.stderr.decode() and "TOML" in p.stderr.decode()


# --------------------------------------------------------------------------- verdict


def test_verdict_missing_file_exits_2_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "run.jsonl"
    p = run("verdict", str(missing))
    assert p.returncode == 2
    no_traceback(p)
    assert str(missing) in p.stderr.decode()


def test_verdict_reads_several_files(tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text('{"outcome": "pass", "id": "t1"}\n', encoding="utf-8")
    b.write_text('{"outcome": "product-uxux", "taxonomy": "regen", "id": "t2"}\n', encoding="utf-8")
    p = run("verdict", str(a), str(b))
    assert p.returncode == 0
    out = json.loads(p.stdout)
    assert out["verdict"] == "FAIL" and out["regression_signal"] is True
    assert [t["id"] for t in out["tests"]] == ["t1", "t2"]


def test_standard_output_on_a_full_disk_is_said_in_one_line(tmp_path: Path) -> None:
    """Answers sent to a device with no room left (Linux's /dev/full refuses every write
    with ENOSPC): one line saying the write failed and why, exit 3, whether the command
    writes one answer, a stream answered by worker processes, or a table."""
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps({"text": f"HTTP 429 Too Many Requests {i} " * 40}) + "\n"
                           for i in range(20_000)), encoding="utf-8")
    one = tmp_path / "one.jsonl"
    one.write_text('{"text": "rate limit exceeded"}\n', encoding="utf-8")
    commands = {
        "one answer": ("classify", "-t", "agent-run", str(one)),
        "a stream": ("classify", "-t", "agent-run", str(big)),
        "a table": ("table", "show", "devflow"),
    }
    for name, args in commands.items():
        with open("/dev/full", "wb") as full:
            p = subprocess.run([*CMD, *args], stdout=full, stderr=subprocess.PIPE, timeout=120)
        said = p.stderr.decode()
        assert p.returncode == 3, (name, said)
        assert said == "failtax: error: cannot write: No space left on device\n", (name, said)


# --------------------------------------------------------------------------- output paths


def test_an_output_path_under_a_file_is_named_not_a_crash(tmp_path: Path) -> None:
    """Every command that writes somewhere says which part of the path is a file in the
    way (exit 2), and the report says so before it runs its steps."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder\n", encoding="utf-8")
    p = run("simulate", "--out", str(tmp_path / "sim"), "--events", "300", "--weeks", "2")
    assert p.returncode == 0, p.stderr.decode()
    events = tmp_path / "sim"
    cases = {
        "simulate": ("simulate", "--out", str(blocker / "sim"), "--events", "50"),
        "load": ("load", str(events), "--db", str(blocker / "t.duckdb")),
        "tune": ("tune", "-t", "replay", "--telemetry", str(events), "--export", str(blocker / "t.toml")),
        "report": ("report", "--telemetry", str(events), "--out", str(blocker / "site"), "--no-progress"),
    }
    for name, args in cases.items():
        p = run(*args)
        assert p.returncode == 2, (name, p.stderr.decode())
        no_traceback(p)
        assert f"{blocker} is a file, not a folder" in p.stderr.decode(), (name, p.stderr.decode())
        if name in ("report", "tune"):  # before the work: no step run, nothing learnt
            assert "step 1/" not in p.stderr.decode() and p.stdout == b""
    assert blocker.read_text(encoding="utf-8") == "a file, not a folder\n"
