"""``[[borrow]]``: a table takes another table's extract rules for some signals, by reference."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import failtax
from failtax.errors import TableError
from failtax.table import dump_table, load_table, read_table, save_table


def header(name: str) -> str:
    return f"""
    [table]
    name = "{name}"
    taxonomy = "agent-run"
    version = "0.1.0"
    fallback = "unknown_non_zero"
    """


def extract(rid: str, signal: str, literal: str) -> str:
    return f"""
    [[extract]]
    id = "{rid}"
    signal = "{signal}"
    contains = ["{literal}"]
    """


def route(rid: str, bucket: str, *signals: str) -> str:
    return f"""
    [[route]]
    id = "{rid}"
    bucket = "{bucket}"
    any = {list(signals)!r}
    """.replace("'", '"')


def write(tmp_path: Path, name: str, *parts: str) -> Path:
    p = tmp_path / f"{name}.toml"
    p.write_text("".join(textwrap.dedent(x) for x in parts), encoding="utf-8")
    return p


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """``src``: two rules for ``quota`` around one for ``reset``, and a borrow of its own."""
    write(tmp_path, "third", header("third"), extract("far", "faraway", "far away"))
    return write(
        tmp_path, "src", header("src"),
        extract("q1", "quota", "quota exceeded"),
        extract("r1", "reset", "connection reset"),
        extract("q2", "quota", "usage cap"),
        """
        [[borrow]]
        from = "third"
        signals = ["faraway"]
        """,
        route("quota", "rate_limited", "quota"),
    )


def test_a_borrow_takes_the_sources_rules_for_its_signals_in_order_after_the_tables_own(tmp_path, source):
    dst = write(tmp_path, "dst", header("dst"), extract("own", "mine", "my own words"),
                '\n[[borrow]]\nfrom = "src"\nsignals = ["quota"]\n',
                route("mine", "network", "mine"), route("src-quota", "rate_limited", "quota"))
    table = read_table(dst)
    assert [r.id for r in table.extract] == ["own", "src-q1", "src-q2"]
    assert [r.signal for r in table.extract] == ["mine", "quota", "quota"]
    assert table.extract[2].contains == ("usage cap",)
    got = failtax.classify({"text": "error: USAGE CAP reached", "exit_code": 1}, table=table)
    assert (got.bucket, got.signals, got.rule) == ("rate_limited", ("quota",), "src-quota")
    # the source's rule for another signal is not taken
    assert failtax.classify({"text": "connection reset", "exit_code": 1}, table=table).rule == "fallback"


def test_a_signal_the_table_has_itself_must_be_renamed(tmp_path, source):
    parts = [header("dst"), extract("own-quota", "quota", "over quota"),
             '\n[[borrow]]\nfrom = "src"\nsignals = ["quota"]\n', route("q", "rate_limited", "quota")]
    with pytest.raises(TableError) as exc:
        read_table(write(tmp_path, "dst", *parts))
    assert "signal 'quota' is also one of this table's own" in exc.value.reason
    assert 'rename = { quota = "src-quota" }' in exc.value.reason
    parts[2] = '\n[[borrow]]\nfrom = "src"\nsignals = ["quota"]\nrename = { quota = "src-quota" }\n'
    parts.append(route("src-quota", "network", "src-quota"))
    table = read_table(write(tmp_path, "dst", *parts))
    assert [(r.id, r.signal) for r in table.extract] == [
        ("own-quota", "quota"), ("src-q1", "src-quota"), ("src-q2", "src-quota")]
    got = failtax.classify({"text": "usage cap", "exit_code": 1}, table=table)
    assert (got.bucket, got.signals) == ("network", ("src-quota",))
    assert failtax.classify({"text": "over quota", "exit_code": 1}, table=table).bucket == "rate_limited"


@pytest.mark.parametrize(
    ("borrow", "reason"),
    [
        ('from = "nowhere"\nsignals = ["quota"]', "no table 'nowhere' beside this one and none shipped"),
        ('from = "src"\nsignals = ["nothing-like-it"]', "no extract rule of 'src' names 'nothing-like-it'"),
        # what the source borrowed itself is not borrowed again
        ('from = "src"\nsignals = ["faraway"]', "no extract rule of 'src' names 'faraway'"),
        ('from = "src"\nsignals = []', "names no signals"),
        ('signals = ["quota"]', "[[borrow]] #1 has no 'from'"),
        ('from = "src"', "[[borrow]] #1 has no 'signals'"),
        ('from = "src"\nsignals = "quota"', "'signals' must be list"),
        ('from = "src"\nsignals = [3]', "'signals' must list str values"),
        ('from = "src"\nsignals = ["quota"]\nrename = { reset = "x" }', "rename 'reset' must name one of its signals"),
        ('from = "src"\nsignals = ["quota"]\ncolour = "red"', "unknown key 'colour' in [[borrow]]"),
        ('from = "dst"\nsignals = ["mine"]', "a table cannot borrow from itself"),
    ],
)
def test_a_bad_borrow_is_an_error_naming_the_file_and_the_reason(tmp_path, source, borrow, reason):
    dst = write(tmp_path, "dst", header("dst"), extract("own", "mine", "mine"),
                f"\n[[borrow]]\n{borrow}\n", route("mine", "network", "mine"))
    with pytest.raises(TableError) as exc:
        read_table(dst)
    assert exc.value.path == str(dst)
    assert reason in exc.value.reason


def test_one_signal_cannot_come_from_two_borrows(tmp_path, source):
    write(tmp_path, "other", header("other"), extract("q", "quota", "quota gone"))
    dst = write(tmp_path, "dst", header("dst"),
                '\n[[borrow]]\nfrom = "src"\nsignals = ["quota"]\n',
                '\n[[borrow]]\nfrom = "other"\nsignals = ["quota"]\n', route("q", "rate_limited", "quota"))
    with pytest.raises(TableError, match="signal 'quota' is already borrowed from 'src'"):
        read_table(dst)


def test_a_broken_source_is_reported_with_its_own_file(tmp_path):
    bad = write(tmp_path, "src", header("src"), '\n[[extract]]\nid = "x"\ncontains = ["x"]\n')
    dst = write(tmp_path, "dst", header("dst"), '\n[[borrow]]\nfrom = "src"\nsignals = ["x"]\n',
                route("x", "network", "x"))
    with pytest.raises(TableError) as exc:
        read_table(dst)
    assert exc.value.path == str(bad)
    assert "needs a 'signal'" in exc.value.reason


def test_a_saved_table_holds_the_borrowed_rules_and_reads_alone(tmp_path, source):
    dst = write(tmp_path, "dst", header("dst"), '\n[[borrow]]\nfrom = "src"\nsignals = ["quota", "reset"]\n',
                route("src-quota", "rate_limited", "quota"), route("src-reset", "network", "reset"))
    table = read_table(dst)
    assert [r.id for r in table.extract] == ["src-q1", "src-r1", "src-q2"]
    text = dump_table(table)
    assert "[[borrow]]" not in text and 'id = "src-r1"' in text
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = read_table(save_table(table, elsewhere / "dst.toml"))
    assert again == table


def test_a_shipped_table_is_the_source_when_no_file_of_that_name_is_beside(tmp_path):
    replay = load_table("replay")
    own = [r for r in replay.extract if not r.id.startswith("regen-")]
    signal = own[0].signal
    dst = write(tmp_path, "mine", header("mine"), f'\n[[borrow]]\nfrom = "replay"\nsignals = ["{signal}"]\n',
                route("replay-x", "network", signal))
    table = read_table(dst)
    assert [r.id for r in table.extract] == [f"replay-{r.id}" for r in own if r.signal == signal]
