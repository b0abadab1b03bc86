"""Importing rules teams already keep: the YAML "regex list per category" and Allure's
``categories.json``, into a devflow rule table that keeps their matching semantics.

The fixtures under ``tests/fixtures/importers/`` are real-looking files: a team's
hand-kept YAML rules (mapping and list shapes) and an Allure categories file shaped like
the one in Allure's documentation, plus files with patterns RE2 cannot run.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import failtax
from failtax.errors import InputError, TableError
from failtax.importers import (
    guess_bucket,
    import_allure_categories,
    import_rules,
    import_yaml_rules,
    parse_mapping,
    translate_java_regex,
)
from failtax.table import read_table, save_table

FIX = Path(__file__).resolve().parent / "fixtures" / "importers"


def run(table, text: str = "", **evidence) -> failtax.Classification:
    return failtax.classify({"text": text, **evidence}, taxonomy="devflow", table=table)


# --------------------------------------------------------------------------- YAML: category -> [regex]


@pytest.fixture(scope="module")
def team():
    return import_yaml_rules(FIX / "team-rules.yaml")


def test_yaml_one_rule_and_one_route_per_regex_in_file_order(team):
    t = team.table
    assert t.taxonomy == "devflow" and t.fallback == "unknown"
    assert len(t.extract) == len(t.route) == 17
    assert [r.bucket for r in t.route][:5] == ["branch_divergence"] * 3 + ["trust_gate"] * 2
    assert t.provenance["semantics"].startswith("first matching category in file order wins")
    assert team.format == "yaml" and team.source.endswith("team-rules.yaml")


def test_yaml_categories_map_by_name_then_heuristic(team):
    mapping = dict(team.mapping)
    assert mapping["compile"] == "compile" and mapping["Lint"] == "compile"
    assert mapping["Flaky infra"] == "infra"
    assert team.unmapped == ("Vendor weirdness",)
    assert mapping["Vendor weirdness"] == "unknown"  # routed to the fallback in its place
    assert "'Vendor weirdness'" in team.summary()


def test_yaml_first_match_wins_across_categories(team):
    # Matches a compile regex and a test regex: compile comes first in the file.
    c = run(team.table, "src/a.ts(1,1): error TS2304: Cannot find name 'x'.\nAssertionError: boom")
    assert (c.bucket, c.rule) == ("compile", "compile-1")
    # Matches a branch regex and a compile regex: the branch category is earlier.
    c = run(team.table, "error TS1185: Merge conflict marker encountered.\nhint: ... have diverged")
    assert c.bucket == "branch_divergence"
    assert run(team.table, "nothing the team anticipated").bucket == "unknown"


def test_yaml_patterns_keep_python_re_search_semantics(team):
    # `^` anchors at the start of the text (re.search without MULTILINE) ...
    assert run(team.table, "FAILED tests/t.py::test_a - assert 1 == 2").bucket == "test"
    assert run(team.table, "collected 3 items\nFAILED tests/t.py::test_a").bucket == "unknown"
    # ... and matching is case-sensitive unless asked otherwise.
    assert run(team.table, "assertionerror: lower case").bucket == "unknown"
    loose = import_yaml_rules(FIX / "team-rules.yaml", ignore_case=True).table
    assert run(loose, "assertionerror: lower case").bucket == "test"


def test_yaml_list_shape_keeps_interleaved_order():
    r = import_yaml_rules(FIX / "rules-list.yaml")
    assert [x.bucket for x in r.table.route] == ["test", "infra", "test", "prompt_delivery"]
    assert [x.id for x in r.table.route] == ["test-1", "infra-1", "test-2", "prompt-delivery-1"]
    db = "connection to server at \"db\" failed\nFAILED tests/test_api.py::test_x"
    assert run(r.table, db).bucket == "infra"  # infra's regex precedes the second test regex
    assert run(r.table, "FAILED tests/test_db.py::test_y\nconnection to server at x failed").bucket == "test"


def test_yaml_mapping_option_maps_unknown_names():
    r = import_yaml_rules(FIX / "team-rules.yaml", mapping={"Vendor weirdness": "infra"})
    assert r.unmapped == () and dict(r.mapping)["Vendor weirdness"] == "infra"
    assert run(r.table, "Segmentation fault (core dumped)").bucket == "infra"


def test_yaml_refuses_what_re2_cannot_run_naming_file_line_category_pattern():
    with pytest.raises(TableError) as exc:
        import_yaml_rules(FIX / "rules-lookahead.yaml")
    msg = str(exc.value)
    assert f"{FIX / 'rules-lookahead.yaml'}:4" in msg
    assert "category 'test'" in msg and "'FAIL(?!ED)'" in msg and "lookahead" in msg


@pytest.mark.parametrize(("content", "reason"), [
    ("compile: 3\n", "must be a string (quote it"),
    ("compile: {a: b}\n", "expected a list of regexes"),
    ("- just a string\n", "each list item must be {category, patterns}"),
    ("compile: [\n", "not valid YAML"),
    ("", "the file is empty"),
    ("test:\n  - 'a(b'\n", "cannot run on RE2"),
    ("test:\n  - '(?x) a b'\n", "not supported by RE2"),
])
def test_yaml_bad_input_is_refused_with_file_and_reason(tmp_path, content, reason):
    p = tmp_path / "rules.yaml"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(TableError, match=re.escape(reason)) as exc:
        import_yaml_rules(p)
    assert str(p) in str(exc.value)


def test_python_end_anchor_is_translated(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("test:\n  - 'tests failed\\Z'\n", encoding="utf-8")
    t = import_yaml_rules(p).table
    assert t.extract[0].regex.endswith("tests failed\\z)")
    assert run(t, "3 tests failed").bucket == "test"
    assert run(t, "3 tests failed, retrying").bucket == "unknown"


# --------------------------------------------------------------------------- Allure categories.json


@pytest.fixture(scope="module")
def allure():
    return import_allure_categories(FIX / "categories.json")


def test_allure_categories_map_to_devflow_buckets(allure):
    assert dict(allure.mapping) == {
        "Ignored tests": "test",
        "Infrastructure problems": "infra",
        "Outdated tests": "test",
        "Timeouts": "infra",
        "Known quirks": "unknown",
        "Product defects": "test",
        "Test defects": "test",
    }
    assert allure.unmapped == ("Known quirks",)
    assert allure.table.route[0].id == "ignored-tests"


def test_allure_regexes_are_full_matches_with_dotall(allure):
    t = allure.table
    infra = "Error: connect ECONNRESET 10.0.0.3:443\n    at TLSSocket.onConnectEnd"
    assert run(t, infra, fields={"status": "broken"}).bucket == "infra"  # .* spans the newline
    # "Known quirks" has no .*: Allure needs the whole message to match ...
    assert run(t, "Element is not attached to the DOM").rule == "known-quirks"
    assert run(t, "StaleElement: Element is not attached to the DOM").rule != "known-quirks"
    # ... and is case-sensitive, as Java's Pattern is by default.
    assert run(t, "element is not attached to the dom").rule != "known-quirks"


def test_allure_statuses_trace_and_flaky_conditions(allure):
    t = allure.table
    trace = "java.io.FileNotFoundException: fixtures/user.json\n\tat Loader.read(Loader.java:12)"
    assert run(t, "broken step", fields={"status": "broken", "statusTrace": trace}).rule == "outdated-tests"
    assert run(t, "broken step", fields={"status": "failed", "statusTrace": trace}).rule == "product-defects"
    assert run(t, "", fields={"status": "skipped"}).rule == "ignored-tests"
    # flaky: true categories hold only for flaky results; flaky: false ones only for the others
    msg = "TimeoutError: waiting for selector `#pay`"
    assert run(t, msg, fields={"flaky": True}).rule == "timeouts"
    assert run(t, msg, fields={"flaky": False}).rule != "timeouts"
    assert run(t, "Connection refused", fields={"status": "failed", "flaky": True}).rule != "infrastructure-problems"


def test_allure_defaults_apply_when_no_category_matched(allure):
    t = allure.table
    assert run(t, "expected 3 but was 4", fields={"status": "failed"}).rule == "product-defects"
    assert run(t, "NullPointerException", fields={"status": "broken"}).rule == "test-defects"
    # plain-text evidence (no status) is not held against a category, and gets the fallback otherwise
    assert run(t, "502 Bad Gateway from the API").bucket == "infra"
    assert (run(t, "anything else").bucket, run(t, "anything else").rule) == ("unknown", "fallback")


@pytest.mark.parametrize(("name", "reason"), [
    ("categories-java-intersection.json", "intersection"),
    ("categories-lookbehind.json", "lookbehind"),
])
def test_allure_refuses_java_only_or_non_linear_patterns(name, reason):
    with pytest.raises(TableError) as exc:
        import_allure_categories(FIX / name)
    msg = str(exc.value)
    assert str(FIX / name) in msg and reason in msg and "pattern" in msg and "category '" in msg


def test_java_translation():
    assert translate_java_regex(r"a\Zb") == r"a(?:\n?\z)b"
    assert translate_java_regex(r"[\Z]") == r"[\Z]"  # inside a class it is not the anchor
    assert translate_java_regex(r"\Q&&[\E") == r"\Q&&[\E"  # quoted, not an intersection
    for bad in (r"(?U)\w+", r"[a-z&&[def]]", r"\p{javaLowerCase}", r"(?x) a b"):
        with pytest.raises(ValueError):
            translate_java_regex(bad)


@pytest.mark.parametrize(("content", "reason"), [
    ("{}", "expected a JSON list"),
    ("[{\"messageRegex\": \".*\"}]", "has no name"),
    ("[{\"name\": \"x\", \"matchedStatuses\": \"failed\"}]", "matchedStatuses must be a list"),
    ("[{\"name\": \"x\", \"flaky\": \"yes\"}]", "flaky must be true or false"),
    ("[{\"name\": \"x\",\n \"messageRegex\": 5}]", "messageRegex must be a string"),
    ("[{\"name\": ", "not valid JSON"),
])
def test_allure_bad_input_is_refused(tmp_path, content, reason):
    p = tmp_path / "categories.json"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(TableError, match=re.escape(reason)) as exc:
        import_allure_categories(p)
    assert str(p) in str(exc.value)


# --------------------------------------------------------------------------- shared parts


def test_guess_bucket_and_parse_mapping():
    assert guess_bucket("Secrets in diff") == "trust_gate"
    assert guess_bucket("MCP server down") == "mcp_startup"
    assert guess_bucket("Merge conflicts") == "branch_divergence"
    assert guess_bucket("Syntax errors") == "compile"
    assert guess_bucket("stale-script", "replay") == "stale-script"
    assert guess_bucket("Selectors", "replay") is None
    assert parse_mapping(["A=B=test"]) == {"A=B": "test"}
    with pytest.raises(InputError, match="no bucket 'tests'"):
        parse_mapping(["Flaky=tests"])
    with pytest.raises(InputError, match="NAME=BUCKET"):
        parse_mapping(["Flaky"])
    with pytest.raises(InputError, match="unknown import format"):
        import_rules(FIX / "team-rules.yaml", format="toml")


def test_imported_table_round_trips_through_save(tmp_path, team, allure):
    for result in (team, allure):
        out = save_table(result.table, tmp_path / f"{result.format}.toml")
        again = read_table(out)
        assert again == result.table
        sample = "src/a.ts(1,1): error TS2304: x"
        assert failtax.classify({"text": sample}, taxonomy="devflow", table=out).bucket == \
            failtax.classify({"text": sample}, taxonomy="devflow", table=result.table).bucket


def test_other_taxonomies_import_by_bucket_name(tmp_path):
    p = tmp_path / "replay-rules.yaml"
    p.write_text("stale-script:\n  - 'NoSuchElementException'\nproduct-defect:\n  - 'AssertionError'\n", encoding="utf-8")
    r = import_yaml_rules(p, taxonomy="replay")
    assert r.table.taxonomy == "replay" and r.table.fallback == "product-defect"
    assert failtax.classify({"text": "NoSuchElementException: #x"}, taxonomy="replay", table=r.table).bucket == "stale-script"


# --------------------------------------------------------------------------- CLI


def test_cli_imports_yaml_and_the_table_classifies(tmp_path, failtax_cmd):
    out = tmp_path / "team.toml"
    proc = subprocess.run(
        [*failtax_cmd, "table", "import", "--format", "yaml", str(FIX / "team-rules.yaml"),
         "--taxonomy", "devflow", "--out", str(out), "--map", "Vendor weirdness=infra"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout and "'Vendor weirdness' -> infra" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["team.toml"]  # no temp file left
    table = read_table(out)
    assert table.name == "devflow-team-rules"
    assert run(table, "Segmentation fault").bucket == "infra"


def test_cli_allure_reports_unmapped_and_strict_fails(tmp_path, failtax_cmd):
    out = tmp_path / "allure.toml"
    args = [*failtax_cmd, "table", "import", "--format", "allure", str(FIX / "categories.json"), "--out", str(out)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "not mapped to a bucket" in proc.stderr and "'Known quirks'" in proc.stderr
    assert "--map 'Known quirks=BUCKET'" in proc.stderr
    assert out.exists()
    strict = tmp_path / "strict.toml"
    proc = subprocess.run([*args[:-1], str(strict), "--strict"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and not strict.exists()


def test_cli_refuses_bad_patterns_and_bad_maps(tmp_path, failtax_cmd):
    out = tmp_path / "x.toml"
    proc = subprocess.run(
        [*failtax_cmd, "table", "import", "--format", "yaml", str(FIX / "rules-lookahead.yaml"), "--out", str(out)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and not out.exists()
    assert "rules-lookahead.yaml:4" in proc.stderr and "FAIL(?!ED)" in proc.stderr
    proc = subprocess.run(
        [*failtax_cmd, "table", "import", "--format", "allure", str(FIX / "categories.json"),
         "--out", str(out), "--map", "Known quirks=nope"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and "no bucket 'nope'" in proc.stderr


def test_cli_help_documents_import(failtax_cmd):
    proc = subprocess.run([*failtax_cmd, "table", "import", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "--format" in proc.stdout and "--map" in proc.stdout and "Examples" in proc.stdout
