"""The pre-execution decision (seed 000 §A): replay the saved script, or regenerate it?

Per impacted test case, before anything runs, rules fire in order and the first match wins:

1. no replayable (succeeded) script for the test case → ``regen`` (``rule-1-no-script``);
2. a changed file looks like UI / markup mapped to this test case → ``regen``
   (``rule-2-ui-changed``);
3. the last successful run was more than 30 days ago → ``regen`` (``rule-3-stale-30d``;
   exactly 30 days is not more than 30: replay);
4. otherwise → ``replay`` (``rule-4-default-replay``).

The rules live in the ``preexec`` rule table, not here: :func:`decide_mode` builds the
evidence fields ``hasReplayableScript``, ``changedFilesMatched`` and ``lastPassedAgeDays``
and calls :func:`failtax.classify` with ``taxonomy="preexec"``, so a tuned table changes
the decision. The table routes rules 1–3; rule 4 is its fallback.

**Changed file → test case.** Only UI-like files count (:func:`is_ui_file`): markup and
component files (``.jsx .tsx .vue .svelte .html`` and other template languages), files
under component / page / route / view / template / layout folders, and style sheets
(``.css .scss .sass .less``) — a style sheet whose diff is given and touches only
cosmetic declarations (colour, shadow, font family …) has no DOM impact and does not
count. Test files and stories never count. A UI file then maps to the test case when a
meaningful token of its path (``app/auth/signup/page.tsx`` → ``auth``, ``signup``) meets
a token of the test case's title, description, instructions or goal (``"Submit signup
form"`` → ``submit``, ``signup``; ``"Sign up"`` also gives ``signup``). When in doubt the
file counts, because a needless regen only wastes budget while a stale replay fails for
the wrong reason: every UI file counts when no test-case text is given, and so does a
UI file with no specific token (``app/layout.tsx``, ``styles/globals.css``) or one in a
shared folder (``components/ui/``, ``shared/``, ``common/``), which every page uses.

>>> d = decide_mode(has_replayable_script=True, changed_files=["app/auth/signup/page.tsx"],
...                 test_case={"title": "Submit signup form"}, last_passed_age_days=3)
>>> d.mode, d.signal, d.changed_files_matched
('regen', 'rule-2-ui-changed', ('app/auth/signup/page.tsx',))
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from failtax.classify import classify
from failtax.errors import InputError

__all__ = [
    "ChangedFile",
    "DEFAULT_REPLAY_SIGNAL",
    "PreexecDecision",
    "compute_age_days",
    "decide_mode",
    "is_ui_file",
    "match_changed_files",
    "tokenize_test_case",
]

#: The signal recorded when no rule fired and the table's fallback (replay) decided.
DEFAULT_REPLAY_SIGNAL = "rule-4-default-replay"
EVENT_TYPE = "pre-execution-classification"

_MARKUP_EXT = {
    ".jsx", ".tsx", ".vue", ".svelte", ".html", ".htm", ".astro", ".mdx", ".hbs",
    ".handlebars", ".ejs", ".erb", ".twig", ".jinja", ".jinja2", ".j2", ".njk", ".mustache",
    ".pug", ".jade", ".liquid", ".cshtml", ".razor", ".xhtml", ".marko", ".heex", ".leex",
}
_STYLE_EXT = {".css", ".scss", ".sass", ".less", ".styl", ".pcss"}
_CODE_EXT = {".js", ".ts", ".mjs", ".cjs", ".mts", ".cts", ".dart", ".kt", ".swift"}
_UI_DIRS = {
    "component", "components", "page", "pages", "route", "routes", "view", "views",
    "template", "templates", "layout", "layouts", "screen", "screens", "partial",
    "partials", "widget", "widgets", "ui",
}
_UI_STEMS = {"page", "layout", "template", "route", "+page", "+layout", "_app", "_document"}
_SHARED_DIRS = {"ui", "shared", "common", "primitives", "design-system", "designsystem", "base"}
_TEST_MARKERS = re.compile(
    r"(^|/)(__tests__|__mocks__|tests?|spec|e2e|cypress|playwright|\.storybook|stories)(/|$)"
    r"|\.(test|spec|stories|story|cy|e2e)\.[a-z0-9]+$",
    re.IGNORECASE,
)
# Path tokens that say where a file lives, not what it is about.
_GENERIC_PATH_TOKENS = {
    "app", "apps", "src", "source", "lib", "libs", "pages", "page", "components",
    "component", "routes", "route", "views", "view", "templates", "template", "layouts",
    "layout", "index", "main", "default", "ui", "web", "client", "frontend", "front",
    "public", "static", "assets", "styles", "style", "css", "scss", "sass", "less", "tsx",
    "jsx", "vue", "svelte", "html", "htm", "js", "ts", "www", "packages", "package",
    "modules", "module", "features", "feature", "containers", "container", "screens",
    "screen", "partials", "partial", "widgets", "widget", "shared", "common", "core",
    "base", "global", "globals", "theme", "root", "loading", "error", "not", "found",
    "head", "module", "astro", "mdx", "hbs", "ejs", "erb", "twig", "jinja", "njk", "pug",
    "liquid", "cshtml", "razor", "primitives", "design", "system", "document", "www",
    "resources", "res", "frontend", "website", "site",
}
# Words in test-case text that name no feature.
_STOP_WORDS = {
    "the", "and", "for", "with", "from", "into", "onto", "that", "this", "then", "when",
    "after", "before", "should", "can", "cannot", "will", "click",
    "clicks", "clicking", "open", "opens", "navigate", "navigates", "verify", "verifies",
    "check", "checks", "test", "tests", "page", "pages", "form", "button", "field",
    "fields", "fill", "fills", "enter", "enters", "see", "sees", "are", "was", "were",
    "has", "have", "its", "their", "your", "new", "valid", "invalid", "successfully",
    "correct", "correctly", "shows", "show", "displayed", "display", "visible", "there",
    "goal", "step", "steps", "expect", "expected", "make", "sure", "able", "via", "using",
    "use", "all", "any", "some", "one", "two", "out", "not", "but", "also", "only",
}
# Cosmetic declarations: changing them moves no element and renames no selector.
_COSMETIC_PROPS = {
    "color", "background", "background-color", "background-image", "border-color",
    "outline-color", "box-shadow", "text-shadow", "fill", "stroke", "caret-color",
    "accent-color", "text-decoration", "text-decoration-color", "cursor", "font-family",
    "font-weight", "font-style", "border-radius", "transition", "transition-duration",
    "transition-timing-function", "filter", "backdrop-filter",
    "-webkit-font-smoothing", "-moz-osx-font-smoothing", "stroke-width",
}
_DECLARATION = re.compile(r"^\s*([a-zA-Z-]+)\s*:[^{};]*;?\s*(/\*.*\*/)?\s*$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass(frozen=True)
class ChangedFile:
    """A file in the change summary: its path and, when known, its diff text."""

    path: str
    diff: str | None = None

    @classmethod
    def from_value(cls, value: Any) -> ChangedFile:
        """A path string, a ``ChangedFile``, or a mapping with ``path`` (and ``diff``).

        >>> ChangedFile.from_value({"path": "a.css", "diff": "+color: red;"}).diff
        '+color: red;'
        """
        if isinstance(value, ChangedFile):
            return value
        if isinstance(value, str):
            if not value.strip():
                raise InputError("a changed file path is empty")
            return cls(path=value.strip())
        if isinstance(value, Mapping) and isinstance(value.get("path"), str) and value["path"].strip():
            diff = value.get("diff")
            if diff is not None and not isinstance(diff, str):
                raise InputError(f"changed file {value['path']!r}: 'diff' must be text")
            return cls(path=value["path"].strip(), diff=diff)
        raise InputError(f"a changed file must be a path or a mapping with 'path', got {value!r:.60}")


@dataclass(frozen=True)
class PreexecDecision:
    """Replay or regen for one test case, and why.

    Attributes
    ----------
    mode : ``"replay"`` or ``"regen"``.
    rule : id of the table route that decided (``"rule-1"`` …) or ``"fallback"``.
    signal : the signal of the deciding rule (``rule-1-no-script``, ``rule-2-ui-changed``,
        ``rule-3-stale-30d``) or :data:`DEFAULT_REPLAY_SIGNAL` when the fallback decided.
    signals : the deciding signal first, then every other rule signal that held (all
        matched signals are kept, as the seed asks).
    changed_files_matched : the UI files mapped to this test case, in input order.
    last_passed_age_days : as given (``None`` when unknown).
    has_replayable_script : as given.
    table_version : version of the preexec table that decided.
    suggestion : the taxonomy's suggestion for the mode.
    """

    mode: str
    rule: str
    signal: str
    signals: tuple[str, ...]
    changed_files_matched: tuple[str, ...]
    last_passed_age_days: float | None
    has_replayable_script: bool
    table_version: str
    suggestion: str | None = None

    def to_event(
        self,
        *,
        skill_name: str = "muggle-test",
        test_case_id: str | None = None,
        project_id: str | None = None,
        user_action: str | None = None,
    ) -> dict[str, Any]:
        """The ``pre-execution-classification`` telemetry payload (seed 000 §A).

        Keys the caller did not give are absent, not null; the emitter adds ``ts``.

        >>> d = decide_mode(has_replayable_script=False)
        >>> e = d.to_event(test_case_id="tc-1")
        >>> e["eventType"], e["aiClassification"], e["signals"]
        ('pre-execution-classification', 'regen', ['rule-1-no-script'])
        """
        event: dict[str, Any] = {
            "eventType": EVENT_TYPE,
            "skillName": skill_name,
            "aiClassification": self.mode,
        }
        if self.suggestion is not None:
            event["aiSuggestion"] = self.suggestion
        if user_action is not None:
            event["userAction"] = user_action
        if test_case_id is not None:
            event["testCaseId"] = test_case_id
        if project_id is not None:
            event["projectId"] = project_id
        event["signals"] = list(self.signals)
        metadata: dict[str, Any] = {}
        if self.last_passed_age_days is not None:
            metadata["lastPassedAgeDays"] = self.last_passed_age_days
        metadata["changedFilesMatched"] = list(self.changed_files_matched)
        event["metadata"] = metadata
        return event


def _split_tokens(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text):
        for part in _CAMEL.split(word):
            if part:
                out.append(part.lower())
    return out


def _stem(token: str) -> str:
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def _with_bigrams(tokens: list[str], keep: set[str] | None = None) -> set[str]:
    """Stemmed tokens plus adjacent pairs joined (``sign up`` → ``signup``)."""
    out = {_stem(t) for t in tokens if keep is None or t in keep}
    for a, b in zip(tokens, tokens[1:], strict=False):
        out.add(_stem(a + b))
    return out


def tokenize_test_case(test_case: Any) -> frozenset[str]:
    """The meaningful tokens of a test case's title, description, instructions and goal.

    ``test_case`` is a mapping (keys ``title``, ``description``, ``instructions``,
    ``goal``; other keys ignored), a plain string, or ``None``.

    >>> sorted(tokenize_test_case({"title": "Submit the Sign up form"}))
    ['sign', 'signup', 'submit']
    """
    if test_case is None:
        return frozenset()
    if isinstance(test_case, str):
        texts = [test_case]
    elif isinstance(test_case, Mapping):
        texts = []
        for key in ("title", "description", "instructions", "goal", "name"):
            v = test_case.get(key)
            if isinstance(v, str):
                texts.append(v)
            elif isinstance(v, list):
                texts.extend(x for x in v if isinstance(x, str))
    else:
        raise InputError(f"test_case must be a mapping or text, got {type(test_case).__name__}")
    out: set[str] = set()
    for text in texts:
        raw = _split_tokens(text)
        keep = {t for t in raw if len(t) >= 3 and t not in _STOP_WORDS and not t.isdigit()}
        singles = {_stem(t) for t in keep}
        pairs = {_stem(a + b) for a, b in zip(raw, raw[1:], strict=False)
                 if a not in _STOP_WORDS and b not in _STOP_WORDS and len(a + b) >= 5}
        out |= singles | pairs
    return frozenset(out)


def _path_parts(path: str) -> tuple[list[str], str, str]:
    p = PurePosixPath(path.replace("\\", "/"))
    name = p.name
    suffix = p.suffix.lower()
    stem = name[: -len(p.suffix)] if p.suffix else name
    dirs = [d for d in p.parent.parts if d not in ("/", ".", "..")]
    return dirs, stem, suffix


def _css_has_dom_impact(diff: str) -> bool:
    """True unless every changed line of a style-sheet diff is a cosmetic declaration."""
    for line in diff.splitlines():
        if line.startswith(("+++", "---", "@@")) or not line.startswith(("+", "-")):
            continue
        body = line[1:].strip()
        if not body or body.startswith(("/*", "*", "//")):
            continue
        m = _DECLARATION.match(body)
        if m is None:  # a selector, a brace, an at-rule: the structure changed
            return True
        prop = m.group(1).lower()
        if prop not in _COSMETIC_PROPS:
            return True
    return False


def is_ui_file(changed: str | ChangedFile | Mapping[str, Any]) -> bool:
    """True when a changed file looks like UI or markup that selectors depend on.

    >>> is_ui_file("app/auth/signup/page.tsx"), is_ui_file("server/db/users.py")
    (True, False)
    >>> is_ui_file({"path": "styles/button.css", "diff": "-  color: red;\\n+  color: blue;"})
    False
    >>> is_ui_file("src/components/Button.test.tsx")
    False
    """
    cf = ChangedFile.from_value(changed)
    path = cf.path.replace("\\", "/")
    if _TEST_MARKERS.search(path):
        return False
    dirs, stem, suffix = _path_parts(path)
    if suffix in _STYLE_EXT:
        return True if cf.diff is None else _css_has_dom_impact(cf.diff)
    if suffix in _MARKUP_EXT:
        return True
    lowered_dirs = {d.lower() for d in dirs}
    if suffix in _CODE_EXT and (lowered_dirs & _UI_DIRS or stem.lower() in _UI_STEMS):
        return True
    return False


def _file_tokens(path: str) -> tuple[set[str], bool]:
    """Specific tokens of a path and whether it lives in a shared UI folder."""
    dirs, stem, _suffix = _path_parts(path)
    shared = any(d.lower() in _SHARED_DIRS for d in dirs)
    tokens: list[str] = []
    for seg in [*dirs, stem]:
        if seg.startswith("[") and seg.endswith("]"):  # a route parameter: [id], [...slug]
            continue
        tokens.extend(_split_tokens(seg))
    specific = {t for t in tokens if t not in _GENERIC_PATH_TOKENS and len(t) >= 3 and not t.isdigit()}
    if not specific:  # app/layout.tsx, styles/globals.css: used by every page
        return set(), shared
    return _with_bigrams(tokens, specific) - {_stem(t) for t in _GENERIC_PATH_TOKENS}, shared


def match_changed_files(changed_files: Iterable[Any], test_case: Any = None) -> tuple[str, ...]:
    """The changed UI files that map to the test case (seed 000 §A's rule 2), in order.

    Parameters
    ----------
    changed_files : paths, :class:`ChangedFile` objects, or mappings with ``path`` and
        optionally ``diff``.
    test_case : a mapping with ``title``/``description``/``instructions``/``goal``, a
        string, or ``None`` (then every UI file counts: it cannot be ruled out).

    >>> match_changed_files(["app/billing/page.tsx", "app/auth/signup/page.tsx",
    ...                      "api/signup.py"], {"goal": "Sign up with email"})
    ('app/auth/signup/page.tsx',)
    """
    words = tokenize_test_case(test_case)
    out: list[str] = []
    for value in changed_files:
        cf = ChangedFile.from_value(value)
        if cf.path in out or not is_ui_file(cf):
            continue
        if not words:
            out.append(cf.path)
            continue
        tokens, shared = _file_tokens(cf.path)
        if shared or not tokens or tokens & words:
            out.append(cf.path)
    return tuple(out)


def compute_age_days(last_passed: datetime | str | None, *, now: datetime) -> float | None:
    """Days from ``last_passed`` (a datetime or ISO-8601 text) to ``now``; ``None`` stays ``None``.

    Both must be timezone-aware or both naive. ``now`` is explicit so the result is
    reproducible.

    >>> from datetime import timezone
    >>> compute_age_days("2026-01-01T00:00:00Z", now=datetime(2026, 1, 31, tzinfo=timezone.utc))
    30.0
    """
    if last_passed is None:
        return None
    if isinstance(last_passed, str):
        try:
            last_passed = datetime.fromisoformat(last_passed.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InputError(f"last passed timestamp {last_passed!r} is not ISO-8601") from None
    try:
        return (now - last_passed).total_seconds() / 86400.0
    except TypeError:
        raise InputError("last passed timestamp and now must both carry a time zone, or neither") from None


def _check_age(age: Any) -> float | None:
    if age is None:
        return None
    if isinstance(age, bool) or not isinstance(age, int | float):
        raise InputError(f"last_passed_age_days must be a number of days or None, got {age!r:.40}")
    if math.isnan(age) or age < 0:
        raise InputError(f"last_passed_age_days must be 0 or more, got {age!r}")
    return age


def decide_mode(
    *,
    has_replayable_script: bool,
    changed_files: Iterable[Any] = (),
    test_case: Any = None,
    last_passed_age_days: float | None = None,
    table: Any = None,
) -> PreexecDecision:
    """Decide replay or regen for one test case with the ``preexec`` rule table.

    Parameters
    ----------
    has_replayable_script : a replayable / succeeded script exists for the test case in
        this run's lane (local or remote).
    changed_files : the paths in the change summary (``git diff --name-only``), or
        mappings / :class:`ChangedFile` with the diff text, which lets a style-only CSS
        change count as no DOM impact.
    test_case : title / description / instructions / goal (mapping or text), used to map
        UI files to the test case; ``None`` means every UI file counts.
    last_passed_age_days : days since the last successful run (see :func:`compute_age_days`);
        ``None`` when unknown, which never fires rule 3 on its own.
    table : a tuned preexec table (object, name or path); the shipped one by default.

    Returns
    -------
    PreexecDecision

    Raises
    ------
    InputError
        for an age that is not a number ≥ 0, a non-bool ``has_replayable_script``, or a
        changed file that is not a path.

    >>> decide_mode(has_replayable_script=True, last_passed_age_days=30).mode
    'replay'
    >>> decide_mode(has_replayable_script=True, last_passed_age_days=30.5).signal
    'rule-3-stale-30d'
    """
    if not isinstance(has_replayable_script, bool):
        raise InputError(f"has_replayable_script must be True or False, got {has_replayable_script!r:.40}")
    age = _check_age(last_passed_age_days)
    if isinstance(changed_files, str | ChangedFile | Mapping):
        changed_files = [changed_files]
    from failtax.table import load_table

    tbl = load_table(table if table is not None else "preexec")
    if tbl.taxonomy != "preexec":
        raise InputError(
            f"table {tbl.path or tbl.name} is for taxonomy {tbl.taxonomy!r}; decide_mode needs a preexec table"
        )
    matched = match_changed_files(changed_files, test_case)
    fields: dict[str, Any] = {
        "hasReplayableScript": has_replayable_script,
        "changedFilesMatched": list(matched),
    }
    if age is not None:
        fields["lastPassedAgeDays"] = age
    c = classify({"fields": fields}, taxonomy="preexec", table=tbl)
    if c.rule == "fallback":
        signal = DEFAULT_REPLAY_SIGNAL if c.bucket == "replay" else f"fallback-{c.bucket}"
    else:
        route = tbl.route_by_id(c.rule)
        signal = next((s for s in route.positive_signals if s in c.signals), c.rule)
    signals = (signal, *(s for s in c.signals if s != signal))
    return PreexecDecision(
        mode=c.bucket,
        rule=c.rule,
        signal=signal,
        signals=signals,
        changed_files_matched=matched,
        last_passed_age_days=age,
        has_replayable_script=has_replayable_script,
        table_version=c.table_version,
        suggestion=c.suggestion,
    )
