"""Table lint: dead, shadowed and duplicate rules, case and control characters, spelling."""

from __future__ import annotations

import dataclasses
import itertools
import random
import textwrap
from pathlib import Path

import pytest

from failtax import TableError, classify, load_table, read_table
from failtax.lint import CHECKS, _can_avoid, check_table, lint_table
from failtax.table import ExtractRule, RouteRule, list_tables

HEADER = """
[table]
name = "t"
taxonomy = "replay"
version = "1"
fallback = "product-defect"
"""
# Extract rules that emit a, b, c, d (routes below use them).
ABCD = "".join(
    f'\n[[extract]]\nid = "x-{s}"\nsignal = "{s}"\ncontains = ["{s}{s}{s}"]\n' for s in "abcd"
)


def _table(tmp_path: Path, body: str, *, extract: str = ABCD):
    p = tmp_path / "t.toml"
    p.write_text(HEADER + extract + textwrap.dedent(body), encoding="utf-8")
    return read_table(p)


def _codes(findings, code=None):
    return [(f.severity, f.code, f.rule) for f in findings if code is None or f.code == code]


# --------------------------------------------------------------------------- shipped tables


@pytest.mark.parametrize("name", list_tables())
def test_shipped_tables_have_no_lint_errors(name: str) -> None:
    errors = [str(f) for f in lint_table(name) if f.severity == "error"]
    assert errors == []


def test_every_finding_code_is_documented() -> None:
    import failtax.lint as mod

    for code in CHECKS:
        assert f"``{code}``" in mod.__doc__


# --------------------------------------------------------------------------- routes


def test_unsatisfiable_route(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "r1"
        bucket = "infra"
        all = ["a", "b"]
        none = ["b"]
        [[route]]
        id = "r2"
        bucket = "infra"
        any = ["c"]
        none = ["c"]
    """)
    assert _codes(lint_table(t), "unsatisfiable-route") == [
        ("error", "unsatisfiable-route", "r1"), ("error", "unsatisfiable-route", "r2")]


def test_duplicate_route_same_sets_in_any_order(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "first"
        bucket = "infra"
        any = ["a", "b"]
        [[route]]
        id = "again"
        bucket = "stale-script"
        any = ["b", "a"]
    """)
    f = lint_table(t)
    assert _codes(f, "duplicate-route") == [("error", "duplicate-route", "again")]
    assert "'first'" in f[0].message and "bucket 'infra', not 'stale-script'" in f[0].message
    assert not _codes(f, "shadowed-route")


def test_route_shadowed_by_one_earlier_route(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "broad"
        bucket = "infra"
        any = ["a"]
        [[route]]
        id = "narrow"
        bucket = "stale-script"
        all = ["a", "b"]
    """)
    f = lint_table(t)
    assert _codes(f, "shadowed-route") == [("error", "shadowed-route", "narrow")]
    assert "route 'broad'" in f[0].message
    # the bucket only the shadowed route led to is unreachable
    assert _codes(f, "unreachable-bucket") == [("warning", "unreachable-bucket", "stale-script")]


def test_specific_before_general_is_not_shadowed(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "both"
        bucket = "infra"
        all = ["a", "b"]
        [[route]]
        id = "one"
        bucket = "stale-script"
        any = ["a"]
    """)
    assert not _codes(lint_table(t), "shadowed-route")


def test_none_on_the_earlier_route_leaves_room(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "a-not-b"
        bucket = "infra"
        any = ["a"]
        none = ["b"]
        [[route]]
        id = "a-and-b"
        bucket = "stale-script"
        all = ["a", "b"]
    """)
    assert not _codes(lint_table(t), "shadowed-route")


def test_route_shadowed_by_several_routes_together(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "ra"
        bucket = "infra"
        any = ["a"]
        none = ["c"]
        [[route]]
        id = "rac"
        bucket = "stale-script"
        all = ["a", "c"]
        [[route]]
        id = "late"
        bucket = "product-defect"
        any = ["a"]
    """)
    f = _codes(lint_table(t), "shadowed-route")
    assert f == [("error", "shadowed-route", "late")]
    msg = next(x.message for x in lint_table(t) if x.code == "shadowed-route")
    assert "'ra', 'rac' together" in msg


def _brute_can_avoid(route: RouteRule, earlier: list[RouteRule], universe: str) -> bool:
    for n in range(len(universe) + 1):
        for combo in itertools.combinations(universe, n):
            s = set(combo)
            if route.matches(s) and not any(e.matches(s) for e in earlier):
                return True
    return False


def _random_route(rng: random.Random, i: int, universe: str) -> RouteRule:
    def pick(k: int) -> tuple[str, ...]:
        return tuple(rng.sample(universe, rng.randint(0, k)))

    any_, all_ = pick(2), pick(2)
    if not any_ and not all_:
        any_ = (rng.choice(universe),)
    return RouteRule(id=f"r{i}", bucket="infra", any=any_, all=all_, none=pick(2))


def test_shadow_search_is_exact_against_brute_force() -> None:
    rng = random.Random(20261130)
    universe = "abcde"
    checked = shadowed = 0
    for _ in range(600):
        routes = [_random_route(rng, i, universe) for i in range(rng.randint(1, 5))]
        route, earlier = routes[-1], routes[:-1]
        assert bool(_can_avoid(route, earlier)) == _brute_can_avoid(route, earlier, universe), routes
        checked += 1
        shadowed += not _brute_can_avoid(route, earlier, universe)
    assert checked == 600 and 30 < shadowed < 570  # both outcomes were exercised


# --------------------------------------------------------------------------- signals


def test_signal_spelling_variant_in_a_route(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "r"
        bucket = "infra"
        any = ["element-notfound"]
    """, extract='\n[[extract]]\nid = "e"\nsignal = "element-not-found"\ncontains = ["no element"]\n')
    f = lint_table(t)
    assert _codes(f, "signal-spelling") == [("error", "signal-spelling", "r")]
    assert "'element-not-found'" in f[0].fix


def test_underscore_spelling_in_a_table_built_in_python() -> None:
    base = load_table("regen")
    route = RouteRule(id="gna", bucket="agent-course", any=("goal_not_achievable",))
    t = dataclasses.replace(base, route=(route, *base.route))
    f = [x for x in lint_table(t) if x.rule == "gna"]
    assert _codes(f) == [("error", "signal-spelling", "gna")]
    # and the lint is right: the route never fires on the evidence it was meant for
    c = classify({"text": "goal_not_achievable", "exit_code": 26}, taxonomy="regen", table=t)
    assert c.rule != "gna"


def test_unnormalised_route_signal_without_a_variant() -> None:
    base = load_table("replay")
    route = RouteRule(id="odd", bucket="infra", any=("Electron_Gone",))
    f = lint_table(dataclasses.replace(base, route=(*base.route, route)))
    assert ("error", "unnormalised-signal", "odd") in _codes(f)


def test_route_signal_nobody_extracts_is_a_warning_unless_known(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "r"
        bucket = "infra"
        any = ["a", "b", "c", "d"]
        [[route]]
        id = "tool-named"
        bucket = "stale-script"
        any = ["partial-progress-then-died"]
    """)
    assert _codes(lint_table(t), "route-signal-not-extracted") == [
        ("warning", "route-signal-not-extracted", "tool-named")]
    assert not _codes(lint_table(t, known_signals=["partial_progress_then_died"]), "route-signal-not-extracted")


def test_dead_extract_rule(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "r"
        bucket = "infra"
        any = ["a", "b", "c"]
    """)
    assert _codes(lint_table(t), "dead-extract") == [("warning", "dead-extract", "x-d")]
    assert not _codes(lint_table(t, known_signals=["d"]), "dead-extract")


def test_signal_used_only_in_none_is_not_dead(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "r"
        bucket = "infra"
        any = ["a", "b", "c"]
        none = ["d"]
    """)
    assert not _codes(lint_table(t), "dead-extract")


def test_signal_used_only_by_a_shadowed_route_is_dead(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "r"
        bucket = "infra"
        any = ["a", "b", "c"]
        [[route]]
        id = "never"
        bucket = "stale-script"
        all = ["a", "d"]
    """)
    f = lint_table(t)
    assert _codes(f, "dead-extract") == [("warning", "dead-extract", "x-d")]
    assert "'never'" in next(x.message for x in f if x.code == "dead-extract")


# --------------------------------------------------------------------------- extract rules

ROUTE_ALL = """
[[route]]
id = "r"
bucket = "infra"
any = ["a", "b", "c", "d"]
"""


def test_duplicate_extract_rules(tmp_path: Path) -> None:
    extract = """
[[extract]]
id = "one"
signal = "a"
contains = ["Boom", "crash"]
[[extract]]
id = "two"
signal = "a"
contains = ["crash", "boom"]
[[extract]]
id = "three"
signal = "b"
contains = ["boom", "crash"]
"""
    f = lint_table(_table(tmp_path, ROUTE_ALL, extract=extract))
    assert _codes(f, "duplicate-extract") == [
        ("warning", "duplicate-extract", "two"), ("warning", "duplicate-extract", "three")]
    assert "emits 'b' instead of 'a'" in [x for x in f if x.rule == "three"][0].message


def test_redundant_extract_rule_implied_by_another(tmp_path: Path) -> None:
    extract = """
[[extract]]
id = "code-and-text"
signal = "a"
contains = ["goal not achievable"]
exit_code = [26]
[[extract]]
id = "text"
signal = "a"
contains = ["not achievable"]
[[extract]]
id = "other-signal"
signal = "b"
contains = ["goal not achievable"]
exit_code = [26]
"""
    f = lint_table(_table(tmp_path, ROUTE_ALL, extract=extract))
    assert _codes(f, "redundant-extract") == [("warning", "redundant-extract", "code-and-text")]
    assert "drop the text condition" in f[0].fix


def test_rule_vetoed_by_its_own_unless(tmp_path: Path) -> None:
    extract = """
[[extract]]
id = "v"
signal = "a"
contains = ["exited with code 26", "electron exited with code 26 now"]
unless = ["code 26"]
"""
    f = lint_table(_table(tmp_path, ROUTE_ALL, extract=extract))
    assert ("error", "vetoed-extract", "v") in _codes(f)


def test_contradictory_signal_conditions(tmp_path: Path) -> None:
    extract = """
[[extract]]
id = "k"
signal = "a"
has_signal = false
posix_signal = [9]
"""
    assert ("error", "contradictory-extract", "k") in _codes(lint_table(_table(tmp_path, ROUTE_ALL, extract=extract)))


@pytest.mark.parametrize(
    ("literals", "severity"),
    [
        (['"\\u001b[31merror"'], "error"),  # ANSI colour code
        (['"fatal\\u0000"'], "error"),  # NUL
        (['"progress\\r done"'], "error"),  # carriage return
        (['"\\u001b[31merror"', '"fatal"'], "warning"),  # another literal still matches
    ],
)
def test_literals_with_control_characters_never_match(tmp_path: Path, literals: list[str], severity: str) -> None:
    extract = f'\n[[extract]]\nid = "c"\nsignal = "a"\ncontains = [{", ".join(literals)}]\n'
    t = _table(tmp_path, ROUTE_ALL, extract=extract)
    f = [x for x in lint_table(t) if x.code == "unmatchable-literal"]
    assert {x.severity for x in f} == {severity}
    # the claim holds: text carrying the very same bytes does not fire the rule
    raw = t.extract[0].contains[0]
    assert "a" not in classify({"text": raw + "\n"}, taxonomy="replay", table=t).signals


def test_control_character_in_unless_is_a_warning(tmp_path: Path) -> None:
    extract = '\n[[extract]]\nid = "u"\nsignal = "a"\ncontains = ["boom"]\nunless = ["\\u001b[0m"]\n'
    assert _codes(lint_table(_table(tmp_path, ROUTE_ALL, extract=extract)), "unmatchable-literal") == [
        ("warning", "unmatchable-literal", "u")]


def test_multiline_literal_is_a_warning_and_still_matches(tmp_path: Path) -> None:
    extract = '\n[[extract]]\nid = "m"\nsignal = "a"\ncontains = ["error:\\nat main"]\n'
    t = _table(tmp_path, ROUTE_ALL, extract=extract)
    assert _codes(lint_table(t), "multiline-literal") == [("warning", "multiline-literal", "m")]
    assert "a" in classify({"text": "Error:\r\nat main()"}, taxonomy="replay", table=t).signals


def test_a_literal_written_twice_in_one_list_is_a_warning(tmp_path: Path) -> None:
    extract = ('\n[[extract]]\nid = "r"\nsignal = "a"\ncontains = ["Chrome failed to start", "boom", '
               '"chrome failed to start"]\nunless = ["ok", "fine"]\n'
               '\n[[extract]]\nid = "s"\nsignal = "a"\ncontains = ["bang"]\nunless = ["ok", "OK"]\n')
    found = [(f.severity, f.code, f.rule, f.message) for f in lint_table(_table(tmp_path, ROUTE_ALL, extract=extract))
             if f.code == "repeated-literal"]
    assert [x[:3] for x in found] == [("warning", "repeated-literal", "r"), ("warning", "repeated-literal", "s")]
    assert "'contains'" in found[0][3] and "'chrome failed to start'" in found[0][3]
    assert "'unless'" in found[1][3]


def test_non_ascii_capital_in_a_literal(tmp_path: Path) -> None:
    extract = '\n[[extract]]\nid = "fr"\nsignal = "a"\ncontains = ["Échec de connexion"]\n'
    t = _table(tmp_path, ROUTE_ALL, extract=extract)
    assert _codes(lint_table(t), "non-ascii-case") == [("warning", "non-ascii-case", "fr")]
    assert "a" not in classify({"text": "échec de connexion"}, taxonomy="replay", table=t).signals


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        ("\\\\x1b\\\\[31m", "error"),  # an ANSI colour code
        ("\\\\x{1b}\\\\[0m", "error"),
        ("\\\\033\\\\[1m", "error"),  # octal escape
        ("error\\\\r\\\\n", "error"),
        ("\\\\x00", "error"),
        ("[\\\\r\\\\x00]", "error"),  # a class of only dead characters
        ("\\\\Qa\\r\\\\E", "error"),  # quoted text with a raw carriage return
        ("(?:\\\\x1b\\\\[31m)?error", "warning"),  # optional part
        ("\\\\x1b\\\\[31merror|fatal", "warning"),  # one branch
        ("\\\\x1b*error", "warning"),
        ("error\\\\s+at", None),
        ("[\\\\r\\\\n]+", None),  # \\n can match
        ("[^\\\\x00]", None),
        ("(?-i)FAIL\\\\s", None),  # case is kept for regexes: this matches jest's FAIL
        ("(?-i)[A-Z]+ failed", None),
        ("\\\\d+ ERRORS", None),
        ("(?P<code>\\\\d{3})", None),
    ],
)
def test_regexes_that_can_never_match(tmp_path: Path, regex: str, expected: str | None) -> None:
    extract = f'\n[[extract]]\nid = "rx"\nsignal = "a"\nregex = "{regex}"\n'
    t = _table(tmp_path, ROUTE_ALL, extract=extract)
    f = [x for x in lint_table(t) if x.code == "unmatchable-regex"]
    assert [x.severity for x in f] == ([expected] if expected else [])


def test_a_regex_reported_unmatchable_really_never_fires(tmp_path: Path) -> None:
    extract = '\n[[extract]]\nid = "rx"\nsignal = "a"\nregex = "\\\\x1b\\\\[31merror"\n'
    t = _table(tmp_path, ROUTE_ALL, extract=extract)
    assert _codes(lint_table(t), "unmatchable-regex") == [("error", "unmatchable-regex", "rx")]
    for text in ("\x1b[31merror", "\x1b[31mERROR\x1b[0m", "error"):
        assert "a" not in classify({"text": text}, taxonomy="replay", table=t).signals


def test_case_sensitive_regex_parts_are_no_finding_because_they_match(tmp_path: Path) -> None:
    extract = '\n[[extract]]\nid = "rx"\nsignal = "a"\nregex = "(?m)(?-i:^FAIL) "\n'
    t = _table(tmp_path, ROUTE_ALL, extract=extract)
    assert not _codes(lint_table(t), "unmatchable-regex")
    assert "a" in classify({"text": "FAIL src/a.test.ts"}, taxonomy="replay", table=t).signals
    assert "a" not in classify({"text": "fail src/a.test.ts"}, taxonomy="replay", table=t).signals


def test_a_word_boundary_beside_a_non_ascii_letter_is_a_warning_and_really_never_matches(tmp_path: Path) -> None:
    """RE2's \\b is ASCII: ``\\bшаг\\b`` never matches шаг between spaces, which lint says;
    the same words without the boundaries match, and an ASCII boundary is no finding."""
    extract = ('\n[[extract]]\nid = "ru-b"\nsignal = "a"\nregex = "\\\\bшаг\\\\b"\n'
               '\n[[extract]]\nid = "ru"\nsignal = "b"\nregex = "шаг обращается"\n'
               '\n[[extract]]\nid = "en-b"\nsignal = "c"\nregex = "\\\\bstep\\\\b"\n')
    t = _table(tmp_path, ROUTE_ALL, extract=extract)
    found = [f for f in lint_table(t) if f.code == "ascii-word-boundary"]
    assert [(f.severity, f.rule) for f in found] == [("warning", "ru-b")]
    assert "'ш', 'г'" in found[0].message and "ASCII only" in found[0].message
    got = classify({"text": "новый шаг обращается к полю; step 2"}, taxonomy="replay", table=t).signals
    assert "a" not in got and "b" in got and "c" in got


@pytest.mark.parametrize(
    ("regex", "unfiltered"),
    [
        ("\\\\d{3}\\\\s+\\\\w+", ["\\d{3}\\s+\\w+"]),  # no literal at all
        ("quota\\\\s+exceeded|\\\\w+ limit", []),  # every alternative has one
        ("quota exceeded|[a-z]+\\\\d+", ["[a-z]+\\d+"]),  # the second has none
        ("status[:=]\\\\s*503", []),  # a class opening with a colon is no POSIX class
    ],
)
def test_regex_alternatives_that_batch_classification_must_run_on_every_record(
    tmp_path: Path, regex: str, unfiltered: list[str]
) -> None:
    extract = f'\n[[extract]]\nid = "rx"\nsignal = "a"\nregex = "{regex}"\n'
    t = _table(tmp_path, ROUTE_ALL, extract=extract)
    found = [x for x in lint_table(t) if x.code == "unfiltered-regex"]
    assert [x.severity for x in found] == ["warning"] * len(unfiltered)
    for x, alt in zip(found, unfiltered, strict=True):
        assert repr(alt) in x.message and "every record" in x.message


def test_unfiltered_alternatives_are_read_from_the_kept_prefilters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lint finds which alternatives have no literal prefilter with the prefilters batch
    classification uses, kept in the cache folder: the same findings derived and read
    back, and nothing derived again once kept."""
    from failtax import _scan
    from failtax.lint import _extract_findings

    regexes = ["\\\\d{3}\\\\s+\\\\w+", "quota exceeded|[a-z]+\\\\d+", "status[:=]\\\\s*503"]
    extract = "".join(f'\n[[extract]]\nid = "rx{i}"\nsignal = "a"\nregex = "{r}"\n' for i, r in enumerate(regexes))
    t = _table(tmp_path, ROUTE_ALL, extract=extract)

    def findings() -> list:
        _extract_findings.cache_clear()
        return [(x.rule, x.message) for x in lint_table(t) if x.code == "unfiltered-regex"]

    monkeypatch.setenv("FAILTAX_CACHE_DIR", "")  # nothing kept: derived
    derived = findings()
    assert [rule for rule, _ in derived] == ["rx0", "rx1"] and "'[a-z]+\\\\d+'" in derived[1][1]
    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path / "cache"))
    assert findings() == derived
    assert len(list((tmp_path / "cache" / "prefilters").iterdir())) == 1

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("derived again instead of read from the cache")

    monkeypatch.setattr(_scan.Prefilter, "of", refuse)
    assert findings() == derived


# --------------------------------------------------------------------------- entry points


def test_findings_are_errors_first_and_print_what_to_do(tmp_path: Path) -> None:
    t = _table(tmp_path, """
        [[route]]
        id = "broad"
        bucket = "infra"
        any = ["a"]
        [[route]]
        id = "narrow"
        bucket = "stale-script"
        all = ["a", "b"]
    """)
    f = lint_table(t)
    sev = [x.severity for x in f]
    assert sev == sorted(sev, key=lambda s: s != "error")
    text = str(f[0])
    assert text.startswith("error: [[route]] 'narrow': ") and "\n    fix: " in text
    assert f[0].to_dict()["code"] == "shadowed-route"


def test_check_table_refuses_errors_and_returns_warnings(tmp_path: Path) -> None:
    bad = _table(tmp_path, """
        [[route]]
        id = "broad"
        bucket = "infra"
        any = ["a"]
        [[route]]
        id = "narrow"
        bucket = "stale-script"
        all = ["a", "b"]
    """)
    with pytest.raises(TableError) as exc:
        check_table(bad)
    assert "narrow" in str(exc.value) and str(bad.path) in str(exc.value)
    warn_only = _table(tmp_path, ROUTE_ALL + """
[[route]]
id = "tool-named"
bucket = "stale-script"
any = ["partial-progress-then-died"]
""")
    warnings = check_table(warn_only)
    assert warnings and {w.severity for w in warnings} == {"warning"}
    with pytest.raises(TableError, match="lint finding"):
        check_table(warn_only, strict=True)


def test_a_table_that_does_not_validate_raises_with_file_and_rule(tmp_path: Path) -> None:
    t = load_table("replay")
    broken = dataclasses.replace(t, route=(RouteRule(id="x", bucket="nope", any=("a",)),))
    with pytest.raises(TableError, match="unknown bucket 'nope'"):
        lint_table(broken)


def test_extract_rule_records_are_not_modified() -> None:
    # lint is pure: running it leaves the table equal to a fresh load
    t = load_table("agent-run")
    lint_table(t)
    assert t == load_table("agent-run")
    assert isinstance(t.extract[0], ExtractRule)


def test_of_two_rules_implying_each_other_one_is_kept(tmp_path: Path) -> None:
    extract = """
[[extract]]
id = "first"
signal = "a"
contains = ["boom", "boom!"]
[[extract]]
id = "second"
signal = "a"
contains = ["boom"]
"""
    f = lint_table(_table(tmp_path, ROUTE_ALL, extract=extract))
    assert _codes(f, "redundant-extract") == [("warning", "redundant-extract", "first")]


def test_table_level_dead_routes_match_brute_force() -> None:
    # every route lint calls never-deciding (unsatisfiable, duplicate or shadowed) is
    # exactly one that no signal set lets decide, with all earlier routes in play
    rng = random.Random(7)
    universe = "abcde"
    base = load_table("replay")
    extract = tuple(ExtractRule(id=f"x-{s}", signal=s, contains=(s * 3,)) for s in universe)
    for _ in range(150):
        routes = [_random_route(rng, i, universe) for i in range(rng.randint(2, 7))]
        t = dataclasses.replace(base, extract=extract, route=tuple(routes))
        found = {f.rule for f in lint_table(t)
                 if f.code in ("unsatisfiable-route", "duplicate-route", "shadowed-route")}
        truth = {r.id for i, r in enumerate(routes) if not _brute_can_avoid(r, routes[:i], universe)}
        assert found == truth, routes


def test_a_search_that_runs_out_of_budget_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    import failtax.lint as mod

    n = 60  # a chain of 'none' signals that makes the last route's search long
    extract = tuple(ExtractRule(id=f"e{i}", signal=f"s{i}", contains=(f"lit{i}",)) for i in range(n))
    routes = tuple(
        RouteRule(id=f"r{i}", bucket="infra", any=(f"s{i}", f"s{(i + 1) % n}"), none=(f"s{(i + 7) % n}",))
        for i in range(n)
    )
    t = dataclasses.replace(load_table("replay"), extract=extract, route=routes)
    monkeypatch.setattr(mod, "_ROUTE_BUDGET", 200)
    f = lint_table(t)
    incomplete = [x for x in f if x.code == "incomplete-analysis"]
    assert len(incomplete) == 1 and "'r59'" in incomplete[0].message
    assert "r59" not in {x.rule for x in f if x.code == "shadowed-route"}


def test_extract_findings_follow_the_extract_rules_not_the_route_set_they_come_with():
    """The tuner lints one set of extract rules with many route sets; what it is told
    about the extract rules must be what a fresh lint of each table says."""
    base = load_table("agent-run")
    first = base.extract[0]
    twin = dataclasses.replace(first, id="twin-of-first")
    with_twin = base.replace(extract=base.extract + (twin,))
    fewer_routes = base.replace(route=base.route[:-1])
    for t in (base, with_twin, fewer_routes, base, with_twin):
        got = [f for f in lint_table(t) if f.section == "extract"]
        has_twin = any(r.id == "twin-of-first" for r in t.extract)
        assert (("warning", "duplicate-extract", "twin-of-first") in _codes(got, "duplicate-extract")) == has_twin
    import failtax.lint

    for t in (fewer_routes, with_twin):
        kept = lint_table(t)
        failtax.lint._extract_findings.cache_clear()
        assert lint_table(t) == kept


def test_extract_findings_are_kept_between_processes_and_derived_again_when_damaged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's extract findings are read back from the cache folder (not derived again)
    once kept, equal what deriving gives, and a damaged file is derived again."""
    import failtax.lint

    monkeypatch.setenv("FAILTAX_CACHE_DIR", str(tmp_path))
    base = load_table("agent-run")
    twin = dataclasses.replace(base.extract[0], id="twin-of-first")
    t = base.replace(extract=base.extract + (twin,))
    failtax.lint._extract_findings.cache_clear()
    want = lint_table(t)
    assert ("warning", "duplicate-extract", "twin-of-first") in _codes(want, "duplicate-extract")
    (kept,) = (tmp_path / "lint-extract").glob("*.json")

    def refuse(*_a: object) -> None:
        raise AssertionError("derived again")

    with monkeypatch.context() as m:
        m.setattr(failtax.lint, "_lint_extract", refuse)
        failtax.lint._extract_findings.cache_clear()
        assert lint_table(t) == want
        failtax.lint._extract_findings.cache_clear()
        with pytest.raises(AssertionError, match="derived again"):  # other rules: another file
            lint_table(base)
    for bad in (b"[[1, 2]]", b"{", b"[[\"warning\"]]"):
        kept.write_bytes(bad)
        failtax.lint._extract_findings.cache_clear()
        assert lint_table(t) == want
    failtax.lint._extract_findings.cache_clear()
