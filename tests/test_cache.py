"""Answers kept in the cache folder between processes: a shipped table's parsed TOML and
which regexes may join an RE2 set. Each is read back instead of derived, equals what
deriving gives, is derived again when its file is damaged, and is never kept where it
should not be."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from failtax import _regex_set, table
from failtax.table import load_table, read_table, table_from_mapping

SHIPPED = Path(table.__file__).parent / "data" / "tables"


def _fresh_default(name: str) -> table.RuleTable:
    table._load_default.cache_clear()
    return load_table(name)


def test_a_shipped_table_is_read_back_from_its_kept_document_and_equals_the_toml(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first load keeps one JSON document per file read (the table and each table it
    borrows from); the next load parses no TOML and builds an equal table; a damaged or
    wrong-shaped kept file is parsed again and replaced."""
    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path))
    want = table_from_mapping(tomllib.loads((SHIPPED / "orchestration.toml").read_text("utf-8")),
                              path=str(SHIPPED / "orchestration.toml"))
    assert _fresh_default("orchestration") == want
    kept = sorted((tmp_path / "toml").glob("*.json"))
    sources = {b["from"] for b in tomllib.loads((SHIPPED / "orchestration.toml").read_text("utf-8")).get("borrow", [])}
    assert sources, "the orchestration table borrows rules; this test reads its sources too"
    assert len(kept) == 1 + len(sources)
    assert any(json.loads(p.read_bytes()) == tomllib.loads((SHIPPED / "orchestration.toml").read_text("utf-8"))
               for p in kept)

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("TOML parsed again")

    with monkeypatch.context() as m:
        m.setattr(tomllib, "loads", refuse)
        assert _fresh_default("orchestration") == want

    for p, bad in zip(kept, [b"{\"table\": ", b"[1, 2]", b"\xff\xfe"] * 3, strict=False):
        p.write_bytes(bad)
    assert _fresh_default("orchestration") == want
    assert all(isinstance(json.loads(p.read_bytes()), dict) for p in kept)
    table._load_default.cache_clear()


def test_a_table_of_the_users_own_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only shipped tables are kept (a tuned table, changed every run, would pile up); a
    user's table beside its borrowed source reads both from their TOML."""
    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path / "cache"))
    mine = tmp_path / "tables"
    mine.mkdir()
    for name in ("orchestration", "agent-run"):  # (orchestration borrows from agent-run)
        (mine / f"{name}.toml").write_bytes((SHIPPED / f"{name}.toml").read_bytes())
    got = read_table(mine / "orchestration.toml")
    (mine / "orchestration.toml").write_text((SHIPPED / "orchestration.toml").read_text("utf-8") + "\n# mine\n")
    assert read_table(mine / "orchestration.toml").extract == got.extract
    assert not list((tmp_path / "cache").rglob("*.json"))
    assert got.extract == _fresh_default("orchestration").extract  # (the shipped one is kept)
    sources = {b["from"] for b in tomllib.loads((SHIPPED / "orchestration.toml").read_text("utf-8"))["borrow"]}
    assert len(list((tmp_path / "cache" / "toml").glob("*.json"))) == 1 + len(sources)
    table._load_default.cache_clear()


def test_a_shipped_tables_patterns_found_good_once_are_compiled_only_when_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shipped table's patterns are checked by compiling them once; later loads (another
    process, the cache folder kept) compile none until a rule is tried. A bad pattern is
    still refused by name, and a user's own copy is compiled whole with nothing kept."""
    import os

    import failtax
    from failtax.errors import TableError
    from failtax.table import compile_regex

    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path / "cache"))
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    monkeypatch.setattr(table, "_shipped_folder", lambda: shipped.resolve())
    stamp = os.urandom(4).hex()  # patterns no other test (or run) compiled before
    rows = "".join(f'[[extract]]\nid = "rx{i}"\nsignal = "boom"\nregex = \'boom-{stamp}-{i} \\d+\'\n\n'
                   for i in range(40))
    rows += f'[[extract]]\nid = "cap"\nsignal = "boom"\ncontains = ["boom"]\ncapture = \'(?P<n>{stamp}-\\d+)\'\n\n'
    doc = ('[table]\nname = "t"\ntaxonomy = "agent-run"\nversion = "1"\nfallback = "unknown_non_zero"\n\n'
           + rows + '[[route]]\nid = "r"\nany = ["boom"]\nbucket = "network"\n')
    (shipped / "t.toml").write_text(doc, encoding="utf-8")
    (tmp_path / "mine.toml").write_text(doc, encoding="utf-8")

    def compiled_now() -> int:
        return compile_regex.cache_info().currsize

    compile_regex.cache_clear()
    read_table(shipped / "t.toml").compiled()
    assert compiled_now() == 41  # the first load checks every pattern
    assert len(list((tmp_path / "cache" / "re2-checked").iterdir())) == 1
    compile_regex.cache_clear()
    t = read_table(shipped / "t.toml")
    ct = t.compiled()
    assert compiled_now() == 0 and len(ct.regex) == 40 and "rx7" in ct.regex and "cap" in ct.capture
    c = failtax.classify({"text": f"BOOM-{stamp}-7 12", "exit_code": 1}, table=t)
    assert (c.bucket, c.signals) == ("network", ("boom",))
    assert 1 <= compiled_now() < 41  # the rules the record's literals point at, not the table
    assert ct.regex["rx3"].search(f"boom-{stamp}-3 9") is not None and ct.regex.get("nope") is None

    compile_regex.cache_clear()
    read_table(tmp_path / "mine.toml").compiled()
    assert compiled_now() == 41  # a user's table: compiled whole,
    assert len(list((tmp_path / "cache" / "re2-checked").iterdir())) == 1  # and nothing kept for it

    (shipped / "bad.toml").write_text(doc.replace("[[route]]", "[[extract]]\nid = \"bad\"\nsignal = \"boom\"\n"
                                                 "regex = '(a)\\1'\n\n[[route]]"), encoding="utf-8")
    for _ in range(2):  # nothing kept for a set that failed
        with pytest.raises(TableError, match="bad pattern") as err:
            read_table(shipped / "bad.toml")
        assert err.value.rule == "bad"
    table._load_default.cache_clear()


def test_an_invalid_shipped_document_still_names_its_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A document in the shipped folder that is not TOML is refused with the file and the
    reason, and nothing is kept for it (a good one beside it is)."""
    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path / "cache"))
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    monkeypatch.setattr(table, "_shipped_folder", lambda: shipped.resolve())
    bad = shipped / "bad.toml"
    bad.write_text("[table\nname = 1\n")
    with pytest.raises(table.TableError, match=r"bad\.toml.*not valid TOML"):
        table._read_doc(bad)
    assert not list((tmp_path / "cache").rglob("*.json"))
    good = shipped / "good.toml"
    good.write_text("[table]\nname = \"t\"\n")
    assert table._read_doc(good) == {"table": {"name": "t"}}
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 1


def test_the_regexes_an_re2_set_may_hold_are_kept_and_derived_again_when_damaged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The set's members equal the patterns without a wide gap, read back without parsing
    once kept; a file naming an index out of range is derived again."""
    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path))
    patterns = tuple(r.regex for r in load_table("agent-run").extract if r.regex)
    want = [i for i, p in enumerate(patterns) if not _regex_set.wide_gap(p)]
    assert 0 < len(want) < len(patterns)
    assert _regex_set._narrow(patterns) == want
    (kept,) = (tmp_path / "narrow-regexes").glob("*.json")
    assert json.loads(kept.read_bytes()) == want

    with monkeypatch.context() as m:
        m.setattr(_regex_set, "wide_gap", lambda p: (_ for _ in ()).throw(AssertionError("parsed again")))
        assert _regex_set._narrow(patterns) == want
        with pytest.raises(AssertionError, match="parsed again"):  # other patterns: another file
            _regex_set._narrow(patterns[:-1])

    kept.write_text(json.dumps([*want, len(patterns)]))
    assert _regex_set._narrow(patterns) == want
    assert json.loads(kept.read_bytes()) == want
    monkeypatch.setenv("FAILTAX_CACHE_DIR", "")  # empty: nothing kept, still answered
    assert _regex_set._narrow(patterns[:-1]) == [i for i in want if i < len(patterns) - 1]


def test_the_literals_each_regex_requires_are_kept_and_derived_again_when_damaged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The literal index's regex gates equal :func:`required_literals` of each pattern,
    are read back without parsing once kept, and a damaged or wrong-shaped file is derived
    again; with the cache folder empty nothing is kept and the answer is the same."""
    from failtax import _scan

    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path))
    patterns = [r"\d{5}", *(r.regex for r in load_table("replay").extract if r.regex)]
    want = [_scan.required_literals(p) for p in patterns]
    assert any(w is None for w in want) and any(w for w in want)
    assert _scan.required_literals_kept(patterns) == want
    (kept,) = (tmp_path / "required-literals").glob("*.json")

    with monkeypatch.context() as m:
        m.setattr(_scan, "required_literals", lambda p: (_ for _ in ()).throw(AssertionError("parsed again")))
        assert _scan.required_literals_kept(patterns) == want
        with pytest.raises(AssertionError, match="parsed again"):  # other patterns: another file
            _scan.required_literals_kept(patterns[1:])

    for bad in (b"[1, 2]", json.dumps([["x"]] * (len(patterns) - 1)).encode(), b"\xff"):
        kept.write_bytes(bad)
        assert _scan.required_literals_kept(patterns) == want
    assert json.loads(kept.read_bytes()) == [list(w) if w is not None else None for w in want]
    monkeypatch.setenv("FAILTAX_CACHE_DIR", "")
    assert _scan.required_literals_kept(patterns[:3]) == want[:3]
    assert len(list((tmp_path / "required-literals").glob("*.json"))) == 1


def test_a_derived_answer_is_named_by_its_sources_and_not_kept_without_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another source text, another key or another kind names another file; a source
    that cannot be read (a frozen build) or an empty cache folder keeps nothing."""
    from failtax import _cache

    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path))
    src = tmp_path / "rules.py"
    src.write_text("A = 1\n")
    first = _cache.derived_file("k", [str(src)], ["x"])
    assert first is not None and first.parent == tmp_path / "k" and first.suffix == ".json"
    assert _cache.derived_file("k", [str(src)], ["x"]) == first
    assert _cache.derived_file("k", [str(src)], ["y"]) != first
    assert _cache.derived_file("other", [str(src)], ["x"]).parent == tmp_path / "other"
    changed = tmp_path / "rules2.py"
    changed.write_text("A = 2\n")
    assert _cache.derived_file("k", [str(changed)], ["x"]) != first
    assert _cache.derived_file("k", [str(src), str(tmp_path / "missing.py")], ["x"]) is None
    monkeypatch.setenv("FAILTAX_CACHE_DIR", "")
    assert _cache.derived_file("k", [str(src)], ["x"]) is None
