"""Writes that never tear: a table export killed mid-write leaves a complete table.

A child process writes two versions of a large rule table, one after the other, to one
path with :func:`failtax.table.save_table`, and is SIGKILLed at seeded moments of three
kinds, in turn: while a temporary file of the write exists (inside the write), right
after exactly one complete write (so the version in place is known), and at random.
After every kill the target must be exactly one of the two complete versions, load with
:func:`failtax.table.read_table`, and be no older than the child's last complete write.

What a kill may leave behind, by decision: a stale temporary file per interrupted write,
named ``.<name>.<random>.tmp`` in the same folder. It is hidden, does not end in
``.toml``, is never read as the table, and a later write neither needs nor trips on it.
"""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from failtax.errors import TableError
from failtax.table import atomic_write_text, dump_table, load_table, read_table, save_table

BIG_TABLE = r"""
import dataclasses
from failtax.table import load_table


def big_table(version, copies=1):
    # The agent-run table, its extract rules repeated ``copies`` times: some 450 KB of
    # TOML each (long enough that a kill lands inside a write).
    t = load_table("agent-run")
    extract = tuple(dataclasses.replace(r, id=f"{r.id}-{k}") for k in range(copies) for r in t.extract)
    return dataclasses.replace(t, extract=extract, version=version)
"""

CHILD = BIG_TABLE + r"""
import sys
from failtax.table import save_table
a, b, target, first = big_table("2.0.0-a"), big_table("2.0.0-b"), sys.argv[1], int(sys.argv[2])
print("ready", flush=True)
# Wait for the order: the parent warms the next writer up meanwhile. "one" writes once,
# says so and waits to be killed; "go" writes the two versions in turn until killed.
order = sys.stdin.readline().strip()
i = first
while True:
    save_table(b if i % 2 else a, target)
    i += 1
    print("wrote", flush=True)
    if order == "one":
        sys.stdin.readline()
"""

KILLS = 20

_ns: dict = {}
exec(BIG_TABLE, _ns)  # the parent builds the very tables the child writes
big_table = _ns["big_table"]


def _stale(folder: Path, target: Path) -> list[Path]:
    return sorted(folder.glob(f".{target.name}.*.tmp"))


def _wait_for_new_tmp(folder: Path, target: Path, old: set[str], deadline: float) -> bool:
    """Poll until a temporary file of a write in progress appears (not a stale one)."""
    while time.monotonic() < deadline:
        for n in os.listdir(folder):
            if n.startswith(f".{target.name}.") and n.endswith(".tmp") and n not in old:
                return True
    return False


def test_sigkill_mid_write_leaves_the_old_or_the_new_complete_table(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    out = tmp_path / "exports"
    out.mkdir()
    a, b = big_table("2.0.0-a"), big_table("2.0.0-b")
    versions = {dump_table(a).encode(): a, dump_table(b).encode(): b}
    assert len(next(iter(versions))) > 100_000
    target = out / "agent-run.toml"
    save_table(a, target)  # the version in place before the first kill

    seen: set[str] = set()
    kinds = ("inside", "after-one", "random")
    killed = dict.fromkeys(kinds, 0)
    stale_after_kill = 0

    def _first(k: int) -> int:
        # Kills right after one write alternate the version written, so both are caught.
        return (k // 3) % 2 if kinds[k % 3] == "after-one" else k % 2

    def _version(i: int) -> str:
        """The version a child writes in its write number ``first + n`` (see CHILD)."""
        return "2.0.0-b" if i % 2 else "2.0.0-a"

    def _check_after_kill(k: int, child: subprocess.Popen, first: int, said: int, before: str) -> str:
        nonlocal stale_after_kill
        stale = _stale(out, target)
        stale_after_kill += bool(stale)
        data = target.read_bytes()
        assert data in versions, f"kill {k}: the table is torn ({len(data)} bytes)"
        table = read_table(target)
        assert table == versions[data]
        # The child says "wrote" after each complete write; one more may have completed
        # unsaid. The version in place is that of the last one said (``before`` when none
        # was), or of the one after it.
        said += child.stdout.read().count(b"wrote\n")
        possible = {_version(first + said), _version(first + said - 1) if said else before}
        assert table.version in possible, f"kill {k} ({kinds[k % 3]}): {table.version} after {said} writes"
        seen.add(table.version)
        # A stale temporary file is never taken for a table: it is hidden and not *.toml.
        assert sorted(p.name for p in out.glob("*.toml")) == [target.name]
        assert len(stale) <= k + 1
        assert all(p.name.startswith(".") and p.suffix == ".tmp" for p in stale)
        return table.version

    def start_writer(first: int) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", CHILD, str(target), str(first)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    children: list[tuple[subprocess.Popen, int]] = [(start_writer(_first(0)), _first(0))]
    in_place = "2.0.0-a"
    try:
        for k in range(KILLS):
            child, first = children[-1]
            if k + 1 < KILLS:
                children.append((start_writer(_first(k + 1)), _first(k + 1)))
            assert child.stdout.readline() == b"ready\n", child.stderr.read().decode()
            kind = kinds[k % 3]
            before = {p.name for p in _stale(out, target)}
            child.stdin.write(b"one\n" if kind == "after-one" else b"go\n")
            child.stdin.flush()
            said = 0  # "wrote" lines read before the kill
            if kind == "inside":
                # A temporary file exists between its creation and the rename.
                assert _wait_for_new_tmp(out, target, before, time.monotonic() + 60), "the child never wrote"
                time.sleep(rng.uniform(0, 0.002))
            elif kind == "after-one":
                assert child.stdout.readline() == b"wrote\n", child.stderr.read().decode()
                said = 1
            else:
                time.sleep(rng.uniform(0.0, 0.25))
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            assert child.returncode == -signal.SIGKILL
            killed[kind] += 1
            in_place = _check_after_kill(k, child, first, said, in_place)
            if kind == "after-one":
                assert in_place == _version(first), "killed while waiting, after exactly one write"
    finally:
        for c, _ in children:
            if c.poll() is None:
                c.kill()
            c.wait(timeout=30)
            for stream in (c.stdin, c.stdout, c.stderr):
                stream.close()
    assert seen == {"2.0.0-a", "2.0.0-b"}, "the kills should catch both versions in place"
    assert stale_after_kill >= 1, "some kills should land inside a write"
    assert killed == {"inside": 7, "after-one": 7, "random": 6}

    # A stale temporary file can be a torn copy: it must never parse as this table by
    # accident of its name, and the next write goes through beside it.
    save_table(b, target)
    assert read_table(target) == b
    assert load_table(str(target)) == b


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "t.toml"
    atomic_write_text(target, "old = 1\n")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "new = '\udcff'\n")  # cannot be encoded: fails mid-write
    assert target.read_text() == "old = 1\n"
    assert list(tmp_path.iterdir()) == [target]


def test_save_table_refuses_an_invalid_table_before_touching_the_file(tmp_path: Path) -> None:
    target = tmp_path / "agent-run.toml"
    good = load_table("agent-run")
    save_table(good, target)
    before = target.read_bytes()
    bad = dataclasses.replace(good, fallback="no-such-bucket")
    with pytest.raises(TableError, match="no-such-bucket"):
        save_table(bad, target)
    assert target.read_bytes() == before
    assert list(tmp_path.iterdir()) == [target]
