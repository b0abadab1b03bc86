"""Import failure-classification rules teams already keep, as a failtax rule table.

Two shapes are read:

**YAML "regex list per category"** — the common hand-kept file where each category
lists regular expressions and the first one that matches decides, else *unknown*::

    compile:                      # or: - category: compile
      - 'error TS\\d+'            #       patterns: ['error TS\\d+', ...]
      - 'SyntaxError'
    test:
      - 'AssertionError'

becomes one ``[[extract]]`` rule per regex and one ``[[route]]`` per regex *in file
order*, so "the first regex in the file that matches wins" holds exactly, even when a
category appears twice in a list. The table's fallback is the taxonomy's (``unknown``
for ``devflow``). The regexes are taken as Python ``re`` patterns: case-sensitive
unless ``ignore_case=True``, searched anywhere in the text (``re.search``).

**Allure's ``categories.json``** — a list of ``{name, messageRegex, traceRegex,
matchedStatuses, flaky}``. Allure (``CategoriesPlugin.matches``) compiles each regex
with ``Pattern.DOTALL`` and requires a *full* match (``Matcher.matches()``) of the
test's status message / trace; a category holds when every condition it names holds,
and a result with no category falls back to *Product defects* (failed) or *Test
defects* (broken). The translation keeps those semantics on RE2's search: a pattern
``P`` becomes ``(?s-i)\\A(?:P)\\z`` (dot matches newline, case-sensitive, anchored at both
ends); ``messageRegex`` is matched against the evidence text, ``traceRegex`` against
``fields.statusTrace``, ``matchedStatuses`` against ``fields.status`` and ``flaky``
against ``fields.flaky``. Evidence without a ``status`` field is not held against a
category that also names a regex (plain-text evidence has none); a category that only
lists statuses needs the status. Allure puts a result in *every* matching
category; a failtax result has one bucket, so the first matching category in file
order decides. Category names map to buckets by ``mapping`` (``--map NAME=BUCKET``),
else by the bucket's own name, else (``devflow``) by a keyword heuristic; a category
that cannot be mapped is routed to the fallback bucket in its place, so it still
shadows the categories after it as it did in Allure, and is reported in ``unmapped``.

Patterns RE2 cannot run (lookaround, backreferences, possessive or atomic groups, and
Java-only constructs such as class intersection ``[a-z&&[^b]]``, ``\\p{javaLowerCase}``
or the ``(?U)``/``(?x)`` flags, whose meaning differs or is missing on RE2) are refused
with a :class:`~failtax.TableError` naming the file and line, the category and the
pattern. Importing runs none of the file's content and returns a draft table; writing
it is the caller's step (:func:`failtax.table.save_table`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from failtax.errors import InputError, TableError
from failtax.evidence import normalise_signal_name
from failtax.table import (
    ExtractRule,
    RouteRule,
    RuleTable,
    compile_regex,
    load_table,
    table_from_mapping,
    table_to_mapping,
)
from failtax.taxonomy import Taxonomy, load_taxonomy

__all__ = [
    "ImportResult",
    "guess_bucket",
    "import_allure_categories",
    "import_rules",
    "import_yaml_rules",
    "parse_mapping",
    "translate_java_regex",
]

FORMATS = ("yaml", "allure")
MAX_IMPORT_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class ImportResult:
    """What an import produced: the draft table and what could not be carried over.

    Attributes
    ----------
    table : the :class:`~failtax.RuleTable` (validated; not yet written).
    mapping : ``(category, bucket)`` pairs in file order, as the table routes them.
    unmapped : category names no bucket was found for; routed to the fallback bucket.
    source : the file that was read.
    format : ``"yaml"`` or ``"allure"``.
    """

    table: RuleTable
    mapping: tuple[tuple[str, str], ...]
    unmapped: tuple[str, ...] = ()
    source: str = ""
    format: str = ""

    def summary(self) -> str:
        """One human line: categories, rules, and any unmapped category.

        >>> r = ImportResult(table=load_table("devflow"), mapping=(("Build", "compile"),))
        >>> r.summary().startswith("1 categories")
        True
        """
        n_rules = len(self.table.extract)
        s = f"{len(self.mapping)} categories, {n_rules} extract rules, {len(self.table.route)} routes"
        if self.unmapped:
            s += f"; not mapped to a bucket (routed to {self.table.fallback!r}): " + ", ".join(
                repr(u) for u in self.unmapped
            )
        return s


# --------------------------------------------------------------------------- mapping

# Keyword stems per devflow bucket, tried in this order (most specific first) against
# the words of a category name. A stem matches a word that starts with it.
_DEVFLOW_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mcp_startup", ("mcp",)),
    ("plugin_startup", ("plugin", "hook", "extension")),
    ("trust_gate", ("secret", "securit", "vulnerab", "leak", "credential", "cve", "trust", "confidence", "sast", "audit")),
    ("branch_divergence", ("conflict", "merge", "rebase", "diverg", "branch", "stale")),
    ("prompt_delivery", ("prompt", "context", "token", "agent", "llm", "model", "dispatch")),
    ("compile", ("compil", "build", "syntax", "type", "typing", "typecheck", "import", "lint", "tsc")),
    ("infra", ("infra", "environment", "env", "deploy", "network", "connection", "server", "container", "docker",
               "ci", "http", "5xx", "database", "db", "grid", "driver", "webdriver", "browser", "timeout",
               "timeouts", "unavailable", "permission", "ssl", "certificate", "dns", "resource", "k8s", "kubernetes")),
    ("test", ("test", "tests", "assert", "assertion", "expect", "expectation", "product", "defect", "defects",
              "regression", "failure", "failures", "failed", "broken", "flaky", "outdated", "bug", "bugs")),
    ("unknown", ("unknown", "other", "others", "uncategori", "unclassified", "misc", "ignored", "skipped")),
)


def guess_bucket(name: str, taxonomy: Taxonomy | str = "devflow") -> str | None:
    """The bucket a category name most likely means, or ``None``.

    The bucket's own name (case, spaces and ``-``/``_`` ignored) wins; for ``devflow`` a
    keyword heuristic over the name's words follows (MCP before plugin before security
    before git before agent before build before infrastructure before tests).

    >>> guess_bucket("Product defects"), guess_bucket("Infrastructure problems")
    ('test', 'infra')
    >>> guess_bucket("Branch Divergence"), guess_bucket("zzz")
    ('branch_divergence', None)
    """
    tax = taxonomy if isinstance(taxonomy, Taxonomy) else load_taxonomy(taxonomy)
    key = re.sub(r"[\s\-_]+", "_", name.strip().lower())
    for b in tax.bucket_names:
        if key == b.replace("-", "_"):
            return b
    if tax.name != "devflow":
        return None
    words = re.findall(r"[a-z0-9]+", name.lower())
    for bucket, stems in _DEVFLOW_KEYWORDS:
        if any(w.startswith(s) if len(s) > 3 else w == s for w in words for s in stems):
            return bucket if tax.has_bucket(bucket) else None
    return None


def parse_mapping(items: Iterable[str], *, taxonomy: Taxonomy | str = "devflow") -> dict[str, str]:
    """Parse ``NAME=BUCKET`` strings (the CLI's ``--map``) into a mapping, checking buckets.

    >>> parse_mapping(["Flaky UI=test", "Secrets = trust_gate"])
    {'Flaky UI': 'test', 'Secrets': 'trust_gate'}
    """
    tax = taxonomy if isinstance(taxonomy, Taxonomy) else load_taxonomy(taxonomy)
    out: dict[str, str] = {}
    for item in items:
        name, sep, bucket = item.rpartition("=")
        name, bucket = name.strip(), bucket.strip()
        if not sep or not name or not bucket:
            raise InputError(f"--map {item!r}: expected NAME=BUCKET")
        if not tax.has_bucket(bucket):
            raise InputError(
                f"--map {item!r}: taxonomy {tax.name!r} has no bucket {bucket!r} "
                f"(buckets: {', '.join(tax.bucket_names)})"
            )
        out[name] = bucket
    return out


def _bucket_for(name: str, tax: Taxonomy, mapping: Mapping[str, str]) -> str | None:
    if name in mapping:
        return mapping[name]
    folded = {k.strip().lower(): v for k, v in mapping.items()}
    if name.strip().lower() in folded:
        return folded[name.strip().lower()]
    return guess_bucket(name, tax)


# --------------------------------------------------------------------------- regex translation

_RE2_HINTS = (
    ("(?=", "lookahead is not supported by RE2"),
    ("(?!", "negative lookahead is not supported by RE2"),
    ("(?<=", "lookbehind is not supported by RE2"),
    ("(?<!", "negative lookbehind is not supported by RE2"),
    ("(?>", "atomic groups are not supported by RE2"),
    ("escape sequence: \\", "backreferences and some escapes are not supported by RE2"),
    ("bad repetition operator", "possessive or nested quantifiers are not supported by RE2"),
)


def _explain(msg: str) -> str:
    for needle, hint in _RE2_HINTS:
        if needle in msg:
            return f"{hint} ({msg})"
    return msg


def _walk(pattern: str) -> Iterable[tuple[str, bool]]:
    """Yield ``(token, in_class)``: an escape (``\\x``) or a single character."""
    i, in_class, n = 0, False, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            if pattern[i + 1] in "pP" and i + 2 < n and pattern[i + 2] == "{":  # \p{Name} is one token
                end = pattern.find("}", i + 3)
                end = n if end < 0 else end + 1
                yield pattern[i:end], in_class
                i = end
                continue
            if pattern[i + 1] == "Q":  # \Q...\E quotes literally
                end = pattern.find("\\E", i + 2)
                end = n if end < 0 else end + 2
                yield pattern[i:end], in_class
                i = end
                continue
            yield pattern[i : i + 2], in_class
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            yield c, False
            i += 1
            if i < n and pattern[i] == "^":
                yield "^", True
                i += 1
            if i < n and pattern[i] == "]":  # a leading ] is a literal
                yield "]", True
                i += 1
            continue
        if c == "]" and in_class:
            in_class = False
            yield c, False
            i += 1
            continue
        yield c, in_class
        i += 1


def translate_java_regex(pattern: str) -> str:
    """Rewrite a Java regex for RE2, refusing constructs whose meaning would change.

    ``\\Z`` (end, before a final line break) becomes ``\\n?\\z``. Raises ``ValueError``
    with the reason for class intersection (``&&`` inside ``[...]``), ``\\p{java...}``
    classes and the ``(?U)``, ``(?x)``, ``(?u)``, ``(?d)`` flags.

    >>> translate_java_regex(r".*timed out\\Z")
    '.*timed out(?:\\\\n?\\\\z)'
    """
    out: list[str] = []
    tokens = list(_walk(pattern))
    for k, (tok, in_class) in enumerate(tokens):
        if tok == "&" and in_class and k + 1 < len(tokens) and tokens[k + 1][0] == "&":
            raise ValueError("Java character-class intersection (&&) means something else on RE2")
        if tok.startswith("\\p{java") or tok.startswith("\\P{java"):
            raise ValueError("Java-specific \\p{java...} classes are not supported by RE2")
        if tok == "\\Z" and not in_class:
            out.append("(?:\\n?\\z)")
            continue
        out.append(tok)
    text = "".join(out)
    for m in re.finditer(r"\(\?([a-zA-Z\-]+)[:)]", text):
        bad = set(m.group(1)) & set("Uxud")
        if bad:
            raise ValueError(
                f"the inline flag(s) {''.join(sorted(bad))} in {m.group(0)!r} differ or are missing on RE2 "
                "((?U) is ungreedy there, not Unicode classes)"
            )
    return text


def _translate_python_regex(pattern: str) -> str:
    """Python ``re`` → RE2: ``\\Z`` is RE2's ``\\z``; flags RE2 lacks are refused."""
    out = []
    for tok, in_class in _walk(pattern):
        out.append("\\z" if tok == "\\Z" and not in_class else tok)
    text = "".join(out)
    for m in re.finditer(r"\(\?([a-zA-Z\-]+)[:)]", text):
        bad = set(m.group(1)) & set("xaLu")
        if bad:
            raise ValueError(f"the inline flag(s) {''.join(sorted(bad))} in {m.group(0)!r} are not supported by RE2")
    return text


def _check_re2(pattern: str) -> None:
    try:
        compile_regex(pattern)
    except Exception as exc:  # re2 raises its own error type
        msg = exc.args[0] if exc.args else exc
        if isinstance(msg, bytes):
            msg = msg.decode("utf-8", "replace")
        raise ValueError(_explain(str(msg))) from None


def _refuse(where: str, category: str, pattern: str, reason: str) -> TableError:
    return TableError(
        f"category {category!r}: pattern {pattern!r} cannot run on RE2: {reason}; "
        "rewrite it without that construct (failtax tables only run linear-time patterns)",
        path=where,
    )


# --------------------------------------------------------------------------- reading files


def _read_text(path: Path) -> str:
    where = str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise TableError(f"cannot read the rules file: {exc.strerror or exc}", path=where) from None
    if size > MAX_IMPORT_BYTES:
        raise TableError(f"rules file is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MB", path=where)
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TableError(f"not UTF-8 text (byte {exc.start})", path=where) from None
    except OSError as exc:
        raise TableError(f"cannot read the rules file: {exc.strerror or exc}", path=where) from None


@dataclass(frozen=True)
class _Pattern:
    category: str
    pattern: str
    line: int


def _yaml_entries(path: Path, text: str) -> list[_Pattern]:
    """(category, pattern, line) in file order from either YAML shape."""
    where = str(path)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}" if mark is not None else ""
        raise TableError(f"not valid YAML: {getattr(exc, 'problem', exc)}", path=where + at) from None
    if root is None:
        raise TableError("the file is empty: expected `category: [regex, ...]`", path=where)

    def line(node: yaml.Node) -> int:
        return node.start_mark.line + 1

    def scalar(node: yaml.Node, what: str) -> str:
        if not isinstance(node, yaml.ScalarNode) or not node.tag.endswith(":str"):
            raise TableError(f"{what} must be a string (quote it in the YAML)", path=f"{where}:{line(node)}")
        return str(node.value)

    def patterns(cat: str, node: yaml.Node) -> list[_Pattern]:
        if isinstance(node, yaml.ScalarNode):
            return [_Pattern(cat, scalar(node, f"category {cat!r}: a pattern"), line(node))]
        if not isinstance(node, yaml.SequenceNode):
            raise TableError(f"category {cat!r}: expected a list of regexes", path=f"{where}:{line(node)}")
        out = [_Pattern(cat, scalar(n, f"category {cat!r}: a pattern"), line(n)) for n in node.value]
        if not out:
            raise TableError(f"category {cat!r} lists no regex", path=f"{where}:{line(node)}")
        return out

    # A single wrapper key such as `categories:` or `rules:` is unwrapped.
    if isinstance(root, yaml.MappingNode) and len(root.value) == 1:
        (k, v), = root.value
        if isinstance(k, yaml.ScalarNode) and k.value in ("categories", "rules", "patterns"):
            root = v
    entries: list[_Pattern] = []
    if isinstance(root, yaml.MappingNode):
        for k, v in root.value:
            entries.extend(patterns(scalar(k, "a category name"), v))
    elif isinstance(root, yaml.SequenceNode):
        for item in root.value:
            if not isinstance(item, yaml.MappingNode):
                raise TableError("each list item must be {category, patterns}", path=f"{where}:{line(item)}")
            keys = {scalar(k, "a key"): v for k, v in item.value}
            cat_node = keys.get("category") or keys.get("name")
            pat_node = keys.get("patterns") or keys.get("pattern") or keys.get("regex") or keys.get("regexes")
            if cat_node is None or pat_node is None:
                raise TableError("a list item needs 'category' and 'patterns'", path=f"{where}:{line(item)}")
            entries.extend(patterns(scalar(cat_node, "category"), pat_node))
    else:
        raise TableError("expected `category: [regex, ...]` or a list of {category, patterns}", path=where)
    return entries


# --------------------------------------------------------------------------- building tables


def _slug(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9-]+", "-", normalise_signal_name(name)).strip("-") or "category"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _header(tax: Taxonomy, path: Path, text: str, fmt: str, name: str | None, version: str) -> dict[str, Any]:
    fallback = load_table(tax.name).fallback
    return {
        "name": name or f"{tax.name}-{normalise_signal_name(path.stem)}",
        "taxonomy": tax.name,
        "version": version,
        "fallback": fallback,
        "provenance": {
            "source": f"imported from {path.name} ({fmt})",
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "semantics": f"first matching category in file order wins, else {fallback}",
        },
    }


def import_yaml_rules(
    path: str | os.PathLike[str],
    *,
    taxonomy: str = "devflow",
    mapping: Mapping[str, str] | None = None,
    ignore_case: bool = False,
    name: str | None = None,
    version: str = "1.0.0",
) -> ImportResult:
    """Import a ``category: [regex, ...]`` YAML file (first match wins, else unknown).

    Parameters
    ----------
    path : the YAML file; either a mapping of category to regex list (optionally under
        one ``categories:``/``rules:`` key) or a list of ``{category, patterns}``.
    taxonomy : the taxonomy whose buckets the categories name (default ``devflow``).
    mapping : category name → bucket, for names that are not bucket names.
    ignore_case : match case-insensitively (Python ``re`` patterns are case-sensitive).
    name, version : the table header.

    Returns
    -------
    ImportResult
        The draft table (one extract rule and one route per regex, in file order).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "rules.yaml"
    >>> _ = p.write_text("compile:\\n  - 'error TS\\\\d+'\\ntest:\\n  - AssertionError\\n")
    >>> r = import_yaml_rules(p)
    >>> [x.bucket for x in r.table.route], r.table.fallback
    (['compile', 'test'], 'unknown')
    """
    p = Path(path)
    text = _read_text(p)
    tax = load_taxonomy(taxonomy)
    mapping = dict(mapping or {})
    entries = _yaml_entries(p, text)
    taken: set[str] = set()
    slugs: dict[str, str] = {}
    counts: dict[str, int] = {}
    extract: list[ExtractRule] = []
    route: list[RouteRule] = []
    cat_bucket: dict[str, str] = {}
    unmapped: list[str] = []
    fallback = load_table(tax.name).fallback
    for e in entries:
        where = f"{p}:{e.line}"
        try:
            body = _translate_python_regex(e.pattern)
            rx = ("(?i)" if ignore_case else "(?-i)") + "(?:" + body + ")"
            _check_re2(rx)
        except ValueError as exc:
            raise _refuse(where, e.category, e.pattern, str(exc)) from None
        if e.category not in cat_bucket:
            bucket = _bucket_for(e.category, tax, mapping)
            if bucket is None:
                unmapped.append(e.category)
                bucket = fallback
            cat_bucket[e.category] = bucket
            slugs[e.category] = _slug(e.category, taken)
        counts[e.category] = counts.get(e.category, 0) + 1
        sid = f"{slugs[e.category]}-{counts[e.category]}"
        extract.append(ExtractRule(id=sid, signal=sid, regex=rx, note=f"{e.category}: {e.pattern} (line {e.line})"))
        route.append(RouteRule(id=sid, bucket=cat_bucket[e.category], any=(sid,), note=f"category {e.category!r}"))
    table = _build(tax, p, text, "yaml", name, version, extract, route,
                   f"Imported from {p.name}: one rule per regex, first match in file order wins, else {fallback}.")
    return ImportResult(
        table=table,
        mapping=tuple(cat_bucket.items()),
        unmapped=tuple(unmapped),
        source=str(p),
        format="yaml",
    )


def _build(tax: Taxonomy, p: Path, text: str, fmt: str, name: str | None, version: str,
           extract: Sequence[ExtractRule], route: Sequence[RouteRule], description: str) -> RuleTable:
    head = _header(tax, p, text, fmt, name, version)
    draft = RuleTable(
        name=head["name"], taxonomy=head["taxonomy"], version=head["version"], fallback=head["fallback"],
        extract=tuple(extract), route=tuple(route), description=description, provenance=head["provenance"],
    )
    # Round-trip through the TOML mapping so the draft is validated exactly as a saved file would be.
    return table_from_mapping(table_to_mapping(draft), path=str(p))


def _allure_line(text: str, value: str) -> int:
    at = text.find(json.dumps(value, ensure_ascii=False)[1:-1])
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _anchored(pattern: str) -> str:
    return "(?s-i)\\A(?:" + pattern + ")\\z"


def import_allure_categories(
    path: str | os.PathLike[str],
    *,
    taxonomy: str = "devflow",
    mapping: Mapping[str, str] | None = None,
    name: str | None = None,
    version: str = "1.0.0",
) -> ImportResult:
    """Import an Allure ``categories.json`` as a rule table, keeping Allure's matching.

    Parameters
    ----------
    path : the ``categories.json`` file (a list of ``{name, messageRegex, traceRegex,
        matchedStatuses, flaky}``).
    taxonomy : the taxonomy to route into (default ``devflow``).
    mapping : category name → bucket; names not given are guessed (:func:`guess_bucket`).
    name, version : the table header.

    Returns
    -------
    ImportResult
        ``unmapped`` lists the categories routed to the fallback bucket for want of one.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "categories.json"
    >>> _ = p.write_text(json.dumps([{"name": "Infrastructure problems",
    ...                                "messageRegex": ".*Connection refused.*"}]))
    >>> r = import_allure_categories(p)
    >>> r.mapping, r.table.extract[0].regex
    ((('Infrastructure problems', 'infra'),), '(?s-i)\\\\A(?:.*Connection refused.*)\\\\z')
    """
    p = Path(path)
    text = _read_text(p)
    where = str(p)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TableError(f"not valid JSON: {exc.msg}", path=f"{where}:{exc.lineno}") from None
    if not isinstance(doc, list):
        raise TableError("expected a JSON list of categories ({name, messageRegex, ...})", path=where)
    tax = load_taxonomy(taxonomy)
    mapping = dict(mapping or {})
    fallback = load_table(tax.name).fallback
    taken: set[str] = set()
    extract: list[ExtractRule] = []
    route: list[RouteRule] = []
    pairs: list[tuple[str, str]] = []
    unmapped: list[str] = []
    for i, cat in enumerate(doc):
        if not isinstance(cat, dict):
            raise TableError(f"category #{i + 1} is not an object", path=where)
        cname = cat.get("name")
        if not isinstance(cname, str) or not cname.strip():
            raise TableError(f"category #{i + 1} has no name", path=where)
        slug = _slug(cname, taken)
        conds: list[str] = []
        for key, target in (("messageRegex", None), ("traceRegex", "statusTrace")):
            pat = cat.get(key)
            if pat is None:
                continue
            at = f"{where}:{_allure_line(text, pat) if isinstance(pat, str) else 1}"
            if not isinstance(pat, str):
                raise TableError(f"category {cname!r}: {key} must be a string", path=at)
            try:
                rx = _anchored(translate_java_regex(pat))
                _check_re2(rx)
            except ValueError as exc:
                raise _refuse(at, cname, pat, str(exc)) from None
            sid = f"{slug}-{'message' if target is None else 'trace'}"
            if target is None:
                extract.append(ExtractRule(id=sid, signal=sid, regex=rx, note=f"{cname}: messageRegex {pat}"))
            else:
                extract.append(ExtractRule(id=sid, signal=sid, field=target, op="matches", value=rx,
                                           note=f"{cname}: traceRegex {pat}"))
            conds.append(sid)
        statuses = cat.get("matchedStatuses") or []
        if not isinstance(statuses, list) or not all(isinstance(s, str) for s in statuses):
            raise TableError(f"category {cname!r}: matchedStatuses must be a list of strings", path=where)
        if statuses:
            sid = f"{slug}-status"
            extract.append(ExtractRule(id=sid, signal=sid, field="status", op="in", value=tuple(statuses),
                                       note=f"{cname}: matchedStatuses"))
            if conds:  # a category with a regex: evidence without a status is not held against it
                extract.append(ExtractRule(id=f"{sid}-absent", signal=sid, field="status", op="missing",
                                           note="evidence without a status is not held against the category"))
            conds.append(sid)
        flaky = cat.get("flaky", False)
        if not isinstance(flaky, bool):
            raise TableError(f"category {cname!r}: flaky must be true or false", path=where)
        sid = f"{slug}-flaky-{'yes' if flaky else 'no'}"
        if flaky:
            extract.append(ExtractRule(id=sid, signal=sid, field="flaky", op="==", value=True, note=f"{cname}: flaky"))
        else:
            extract.append(ExtractRule(id=sid, signal=sid, field="flaky", op="falsy", note=f"{cname}: not flaky"))
            extract.append(ExtractRule(id=f"{sid}-absent", signal=sid, field="flaky", op="missing",
                                       note="Allure's isFlaky() is false unless set"))
        conds.append(sid)
        bucket = _bucket_for(cname, tax, mapping)
        if bucket is None:
            unmapped.append(cname)
            bucket = fallback
        pairs.append((cname, bucket))
        route.append(RouteRule(id=slug, bucket=bucket, all=tuple(conds), note=f"Allure category {cname!r}"))
    # Allure's defaults for results no category matched.
    for status, default in (("failed", "Product defects"), ("broken", "Test defects")):
        bucket = _bucket_for(default, tax, mapping)
        if bucket is None:
            continue
        sid = f"allure-default-{status}"
        extract.append(ExtractRule(id=sid, signal=sid, field="status", op="==", value=status,
                                   note=f"Allure's default category {default!r}"))
        route.append(RouteRule(id=_slug(default, taken), bucket=bucket, any=(sid,),
                               note=f"Allure default: {status} results no category matched"))
    table = _build(tax, p, text, "allure", name, version, extract, route,
                   f"Imported from Allure {p.name}: full-match DOTALL patterns, first matching category wins, else {fallback}.")
    return ImportResult(table=table, mapping=tuple(pairs), unmapped=tuple(unmapped), source=str(p), format="allure")


def import_rules(
    path: str | os.PathLike[str],
    *,
    format: str,
    taxonomy: str = "devflow",
    mapping: Mapping[str, str] | None = None,
    ignore_case: bool = False,
    name: str | None = None,
    version: str = "1.0.0",
) -> ImportResult:
    """Import ``path`` in ``format`` (``"yaml"`` or ``"allure"``); see the two importers.

    >>> import_rules("x.txt", format="csv")
    Traceback (most recent call last):
    ...
    failtax.errors.InputError: unknown import format 'csv'; use one of: yaml, allure
    """
    if format == "yaml":
        return import_yaml_rules(path, taxonomy=taxonomy, mapping=mapping, ignore_case=ignore_case,
                                 name=name, version=version)
    if format == "allure":
        return import_allure_categories(path, taxonomy=taxonomy, mapping=mapping, name=name, version=version)
    raise InputError(f"unknown import format {format!r}; use one of: {', '.join(FORMATS)}")
