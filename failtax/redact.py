"""Mask secrets and personal data in text before anything shows or stores it.

Stderr tails and telemetry are written by tools that print whatever they are fed: API
keys, bearer tokens, credential URLs, private keys, emails. :func:`redact` replaces
each one with a placeholder naming its kind, ``[REDACTED:<kind>]``, and keeps the text
around it, so grouping, n-grams and classification of the redacted text still work;
:func:`find_secrets` says where the secrets are without changing anything.

What is found, and the placeholder kind each gets:

- provider keys by their published shapes: ``anthropic-key`` (``sk-ant-…``),
  ``openai-key`` (``sk-…``, ``sk-proj-…``), ``openrouter-key``, ``google-api-key``
  (``AIza…``), ``google-oauth-token`` (``ya29.…``), ``google-oauth-secret``
  (``GOCSPX-…``), ``github-token`` (``ghp_ gho_ ghu_ ghs_ ghr_ github_pat_``),
  ``gitlab-token`` (``glpat-…``), ``slack-token`` (``xox[abpors]-…``, app-level ``xapp-…``),
  ``slack-webhook``, ``stripe-key`` (``sk_live_ rk_live_ sk_test_ whsec_``),
  ``huggingface-token`` (``hf_…``), ``npm-token``, ``pypi-token``, ``sendgrid-key``
  (``SG.….…``), ``twilio-key`` (``AC``/``SK`` + 32 hex), ``groq-key``, ``xai-key``,
  ``replicate-token``, ``perplexity-key``, ``digitalocean-token``, ``shopify-token``,
  ``databricks-token``, ``doppler-token``, ``linear-key``, ``notion-token``;
- ``aws-access-key-id`` (``AKIA…``/``ASIA…``) and ``aws-secret-key`` (after
  ``aws_secret_access_key``), ``azure-storage-key`` (``AccountKey=``),
  ``azure-key`` (``SharedAccessKey=``), ``azure-sas`` (``SharedAccessSignature=``,
  ``sig=``), ``private-key`` (a ``-----BEGIN … PRIVATE KEY-----`` block, also one cut
  off before its END line, and JSON-escaped ones as in GCP service-account files);
- ``jwt`` (``eyJ….eyJ….…``), ``bearer-token`` and ``basic-auth`` (after ``Bearer``
  / ``Basic``), ``url-credentials`` (``scheme://user:pass@host``), ``url-token``
  (``?key=``, ``&code=``, ``X-Amz-Signature=`` …);
- values of secret-looking keys in ``key=value``, ``key: value``, ``"key": "value"``
  form: ``password``, ``oauth-token`` (``access_token``, ``refresh_token``,
  ``id_token``), ``token``, ``api-key``, ``private-key``, ``secret``,
  ``credential``, ``auth``;
- ``email``.

What is left alone, on purpose: git SHAs, UUIDs, timestamps, paths, ``sk-`` inside a
word (``task-runner``), HTTP status lines, phrases that *talk about* secrets without
one (``invalid x-api-key``, ``token limit exceeded``, ``Incorrect API key provided``),
``key: value`` pairs whose value is a plain status word (``password: incorrect``,
``token: expired``), a short number (``auth: 401``), a variable reference
(``${TOKEN}``), an already masked value (``****``) or a path (``PWD=/home/me``), and
``git@host`` remote addresses. A password that is itself one of those status words is
therefore not masked.

How: one pass of one RE2 expression holding every rule (linear time; no input can make
it backtrack) over the UTF-8 bytes, after a literal scan that returns text with none of
the rules' trigger substrings at once. Placeholders never match again, so
``redact(redact(x)) == redact(x)``. 1 MB of typical stderr costs some 20 ms of CPU.

>>> redact("curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com")
"curl -H 'Authorization: Bearer [REDACTED:bearer-token]' https://api.example.com"
>>> redact("invalid x-api-key")
'invalid x-api-key'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import re2

__all__ = [
    "Finding", "KINDS", "TRIGGER_PATTERN", "find_secrets", "placeholder", "redact", "redact_excerpt",
    "redact_json_text", "redact_slice",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One secret found in a text: its kind and where it is (``text[start:end]``)."""

    kind: str
    start: int
    end: int

    @property
    def placeholder(self) -> str:
        """What :func:`redact` puts in its place."""
        return placeholder(self.kind)


def placeholder(kind: str) -> str:
    """The stable placeholder of a kind of secret.

    >>> placeholder("email")
    '[REDACTED:email]'
    """
    return f"[REDACTED:{kind}]"


# --------------------------------------------------------------------------- rules
#
# Each rule is one alternative of the combined expression. A rule may mark the part it
# keeps (``pre``, e.g. ``password=``) and the part it masks (``sec``); without them
# the whole match is masked. Character classes of masked parts never include ``[``,
# so a placeholder cannot be swallowed into a later match (idempotence).

# Secret-looking keys for key=value pairs; the key must *end* with one of these words
# (so ``max_tokens``, ``tokenizer`` and ``author`` are not keys of secrets).
_SECRET_WORD = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|private[_-]?key(?:[_-]?id)?"
    r"|(?:access|secret|signing|encryption|master|account|client)[_-]?key"
    r"|client[_-]?secret|auth|authorization|credentials?)"
)
_CAMEL_WORD = (
    r"(?:Token|Secret|Password|Passwd|Passphrase|Pwd|Credentials?|ApiKey|AccessKey"
    r"|SecretKey|PrivateKey|AccountKey|SigningKey|Auth|Authorization)"
)
_KEY = (
    r"\b[_.-]*(?:(?i:(?:[a-z0-9]+[_.-])*" + _SECRET_WORD + r")"
    r"|(?-i:[a-z][a-zA-Z0-9]*[a-z0-9]" + _CAMEL_WORD + r"))"
)
_WS = r" \t\n\r\f\v"  # whitespace, spelled out: RE2 and re disagree on \v in \s
_SEP = r"[ \t]*(?:=>|:=|=|:)[ \t]*"
_SCHEME = r"(?:(?i:bearer|basic|token|digest|negotiate|ntlm)[ \t]+)?"
# Quoted values, escapes allowed; written as unrolled loops, which both engines run fast.
_DQ_VALUE = r'(?P<sec>(?:[^"\\\n\[]|\\.)[^"\\\n]*(?:\\.[^"\\\n]*)*)"?'
_SQ_VALUE = r"(?P<sec>(?:[^'\\\n\[]|\\.)[^'\\\n]*(?:\\.[^'\\\n]*)*)'?"
_BARE_VALUE = r"(?P<sec>[^" + _WS + r"\"'`,;&<>(){}\[\]]+)"

_B64 = r"[A-Za-z0-9+/_]"
# Rules whose match may end inside a word take the rest of the word too, so a
# placeholder never leaves a word fragment that a second pass would read differently.
_TAIL = r"[0-9A-Za-z_]*"
_PK_BEGIN = r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
_PK_END = r"-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: str  # a placeholder kind, or "pair"/"query"/"auth-header" (decided per match)
    pattern: str
    check: Callable[[str], bool] | None = None  # a test the masked part must pass


_DIGIT = re.compile(r"[0-9]")
_MASK = re.compile(r"[*xX•.\-_#?]+")


def _has_digit_or_mixed_case(v: str) -> bool:
    # Real keys and tokens are random: some digit, or upper and lower case letters.
    # Words and kebab-case identifiers (``sk-learn-compatible-estimator``) are not.
    if _DIGIT.search(v):
        return True
    return v != v.lower() and v != v.upper()


def _looks_random(v: str) -> bool:
    return len(v) >= 8 and _has_digit_or_mixed_case(v) and not v.isdigit()


# Plain words that follow "token:" / "password=" in ordinary error text.
_NOT_SECRETS = frozenset(
    """
    true false yes no on off null nil none undefined unset set empty blank missing
    required optional invalid valid incorrect wrong bad expired revoked denied refused
    rejected failed failure error unknown unauthorized forbidden ok present absent
    provided supplied given found notfound not is was the a an your you this that it
    please check see use must should cannot can for of to and or if any all
    bearer basic token tokens password passwords secret secrets key keys auth
    authentication authorization credential credentials hidden masked redacted omitted
    string str int bool object null_value example default value
    """.split()
)


def _plausible_value(v: str) -> bool:
    """A key=value value that could be a secret (not a status word, reference or mask)."""
    s = v.strip()
    if not s:
        return False
    if s.lower() in _NOT_SECRETS:
        return False
    if s[0] in "$%*<{/~.(" or _MASK.fullmatch(s):
        return False  # ${VAR}, %(name)s, ****, <redacted>, {{ tmpl }}, /a/path, ~/p, ./p
    if s.isdigit() and len(s) < 6:
        return False  # status codes, counts ("auth: 401", "token: 3")
    return True


_RULES: tuple[_Rule, ...] = (
    # Already-redacted text stays as it is (consumed whole, so nothing inside matches).
    _Rule("placeholder", r"\[REDACTED:[a-z0-9-]{1,40}\]"),
    # Blocks first: they contain base64 that other rules would cut up.
    _Rule("private-key", _PK_BEGIN + r"(?:[^-]|-[^-])*?" + _PK_END),
    _Rule(
        "private-key",
        _PK_BEGIN + r"(?:[" + _WS + r"]|\\[nr]|" + _B64 + r"{16,}=*|" + _B64 + r"*={1,2}"
        r"|(?:Proc-Type|DEK-Info|Comment):[^\n\\]*)*",
    ),
    # Provider keys (case-sensitive prefixes).
    _Rule("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    _Rule("openrouter-key", r"\bsk-or-v1-[A-Za-z0-9]{32,}" + _TAIL),
    _Rule("openai-key", r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}", _has_digit_or_mixed_case),
    _Rule("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _TAIL),
    _Rule("stripe-key", r"\bwhsec_[A-Za-z0-9]{24,}" + _TAIL),
    _Rule("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}" + _TAIL),
    _Rule("google-oauth-token", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    _Rule("google-oauth-secret", r"\bGOCSPX-[0-9A-Za-z_-]{20,}"),
    _Rule("github-token", r"\bgh[pousr]_[A-Za-z0-9]{30,}" + _TAIL),
    _Rule("github-token", r"\bgithub_pat_[A-Za-z0-9_]{40,}"),
    _Rule("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|soat|cbt|oas|ft)-[A-Za-z0-9_.-]{20,}"),
    _Rule("slack-webhook", r"\bhttps://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}"),
    _Rule("slack-token", r"\bxox[abposr]-[A-Za-z0-9_-]{10,}"),
    _Rule("slack-token", r"\bxapp-[0-9]+-[A-Za-z0-9_-]{10,}"),
    _Rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}" + _TAIL),
    _Rule("npm-token", r"\bnpm_[A-Za-z0-9]{36,}" + _TAIL),
    _Rule("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
    _Rule("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,}"),
    _Rule("twilio-key", r"\b(?:AC|SK)[0-9a-f]{32}\b"),
    _Rule("groq-key", r"\bgsk_[A-Za-z0-9]{40,}" + _TAIL),
    _Rule("xai-key", r"\bxai-[A-Za-z0-9]{60,}" + _TAIL),
    _Rule("replicate-token", r"\br8_[A-Za-z0-9]{30,}" + _TAIL),
    _Rule("perplexity-key", r"\bpplx-[A-Za-z0-9]{40,}" + _TAIL),
    _Rule("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}" + _TAIL),
    _Rule("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _TAIL),
    _Rule("databricks-token", r"\bdapi[a-f0-9]{32}(?:-[0-9])?" + _TAIL),
    _Rule("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}" + _TAIL),
    _Rule("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}" + _TAIL),
    _Rule("notion-token", r"\b(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})" + _TAIL),
    _Rule("aws-access-key-id", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}\b"),
    _Rule(
        "aws-secret-key",
        r"(?P<pre>\b(?i:aws_?secret_?access_?key|aws_?secret_?key|secretaccesskey)[\"']?" + _SEP + r"[\"']?)"
        r"(?P<sec>[A-Za-z0-9/+=]{40})\b",
    ),
    _Rule("azure-storage-key", r"(?P<pre>\b(?i:AccountKey)=)(?P<sec>[A-Za-z0-9+/_]{20,}=*)"),
    _Rule("azure-key", r"(?P<pre>\b(?i:SharedAccessKey)=)(?P<sec>[A-Za-z0-9+/_]{20,}=*)"),
    _Rule("azure-sas", r"(?P<pre>\b(?i:SharedAccessSignature)=)(?P<sec>[^" + _WS + r";\"'<>\[\]]+)"),
    _Rule("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    # Credentials in URLs: the whole user:password part.
    _Rule("url-credentials", r"(?P<pre>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<sec>[^" + _WS + r"/?#@:\[\]\"'<>]+:[^" + _WS + r"/?#\[\]\"'<>]*)@"),
    # Query parameters that carry secrets under names too generic for the pair rule.
    _Rule(
        "query",
        r"(?P<pre>[?&](?P<qk>(?i:key|sig|signature|code|x-amz-signature|x-amz-credential"
        r"|x-goog-signature|x-goog-credential))=)(?P<sec>[^" + _WS + r"&#\"'<>\[\]]+)",
    ),
    # key=value, key: value, "key": "value"; Authorization: Bearer … decides its kind.
    _Rule("pair", r"(?P<pre>[\"']?" + _KEY + r"[\"']?" + _SEP + _SCHEME + r"\")" + _DQ_VALUE),
    _Rule("pair", r"(?P<pre>[\"']?" + _KEY + r"[\"']?" + _SEP + _SCHEME + r"')" + _SQ_VALUE),
    _Rule("pair", r"(?P<pre>[\"']?" + _KEY + r"[\"']?" + _SEP + _SCHEME + r")" + _BARE_VALUE),
    _Rule("bearer-token", r"(?P<pre>\b(?i:bearer)[ \t]+)(?P<sec>[A-Za-z0-9_.~+/-]{8,}=*)", _looks_random),
    _Rule("basic-auth", r"(?P<pre>\b(?i:basic)[ \t]+)(?P<sec>[A-Za-z0-9+/_]{8,}={0,2})", _looks_random),
    _Rule("email", r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
)

#: Every placeholder kind :func:`redact` can produce, sorted.
KINDS: tuple[str, ...] = tuple(
    sorted(
        {r.kind for r in _RULES if r.kind not in ("placeholder", "pair", "query")}
        | {"password", "oauth-token", "token", "api-key", "private-key", "secret", "credential", "auth",
           "url-token", "azure-sas"}
    )
)


# --------------------------------------------------------------------------- engine
#
# Three steps, each linear in the text:
# 1. a trigger scan (RE2, literals only): text with none of them holds no secret;
# 2. the combined expression without groups (RE2) finds the next match's span —
#    leftmost, and among rules starting there the first in order;
# 3. at that span's start only, the rules that can begin with its first byte are tried
#    in order, each its own small expression (Python ``re``, few groups): the first to
#    match is the one RE2 chose (the same leftmost-first semantics) and says which part
#    to mask. Should the two engines ever disagree, RE2 with groups decides.
# Both engines run on the UTF-8 bytes, RE2 in Latin-1 mode, so classes behave alike
# and every span falls on a character boundary (patterns are ASCII).

def _re2_options() -> re2.Options:
    opts = re2.Options()
    opts.encoding = re2.Options.Encoding.LATIN1
    opts.log_errors = False
    opts.max_mem = 64 << 20
    return opts


def _alternatives(*, groups: bool) -> str:
    parts = []
    for i, rule in enumerate(_RULES):
        pat = rule.pattern
        if groups:
            for g in ("pre", "sec", "qk"):
                pat = pat.replace(f"(?P<{g}>", f"(?P<{g}{i}>")
            parts.append(f"(?P<r{i}>{pat})")
        else:
            parts.append("(?:" + _without_groups(pat) + ")")
    return "|".join(parts)


def _without_groups(pat: str) -> str:
    return re.sub(r"\(\?P<[a-z0-9]+>", "(?:", pat)


# Literals (some case-insensitive) at least one of which every rule needs.
_TRIGGER_WORDS_CS = (
    "sk-", "sk_", "rk_", "whsec_", "AIza", "ya29.", "GOCSPX-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "gloas-", "glft-",
    "hooks.slack.com", "xox", "xapp-", "hf_", "npm_", "pypi-", "SG.", "gsk_", "xai-", "r8_", "pplx-", "_v1_",
    "shpat_", "shpca_", "shppa_", "shpss_", "dapi", "dp.", "lin_api_", "lin_oauth_", "ntn_", "secret_",
    "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "APKA", "AROA",
    "eyJ", "PRIVATE KEY", "://", "@",
)
_TRIGGER_WORDS_CI = (
    "pwd", "secret", "token", "apikey", "api_key", "api-key", "private", "auth", "credential",
    "accesskey", "access_key", "access-key", "signingkey", "signing_key", "signing-key",
    "encryptionkey", "encryption_key", "encryption-key", "masterkey", "master_key", "master-key",
    "accountkey", "account_key", "account-key", "clientkey", "client_key", "client-key",
    "sharedaccess", "bearer", "basic", "key=", "sig=", "signature=", "code=", "credential=",
)
# "pass" only where a rule can use it: in password, passwd and passphrase, or ending a key
# (a quote, a blank or a separator follows). Not in passed, passing or PASSED, which test
# tallies print and seed 000's lastPassedAgeDays holds: there the trigger only cost a
# needless look (one line in eight of simulated telemetry sent its metadata to the masker).
_TRIGGER_CI = (r"pass(?:[wp]|[^a-z]|$)",)


def _trigger_pattern() -> bytes:
    return (
        "|".join(re.escape(w) for w in _TRIGGER_WORDS_CS)
        + "|(?i:" + "|".join([*_TRIGGER_CI, *(re.escape(w) for w in _TRIGGER_WORDS_CI)]) + ")"
        + r"|(?:AC|SK)[0-9a-f]{32}"
    ).encode()


def _pair_kind(key: str) -> str:
    k = key.strip("\"' \t").lower().replace("-", "_").replace(".", "_")
    k = "".join(ch for ch in k if ch.isalnum() or ch == "_")
    if k.endswith(("password", "passwd", "passphrase", "pass", "pwd")):
        return "password"
    if k.endswith(("access_token", "refresh_token", "id_token", "accesstoken", "refreshtoken", "idtoken")):
        return "oauth-token"
    if k.endswith("token"):
        return "token"
    if k.endswith(("api_key", "apikey")):
        return "api-key"
    if "private_key" in k or "privatekey" in k:
        return "private-key"
    if k.endswith(("credential", "credentials")):
        return "credential"
    if k.endswith(("auth", "authorization")):
        return "auth"
    return "secret"


def _decide(rule: _Rule, pre: bytes, sec_b: bytes, match: bytes) -> str | None:
    """The kind of one match, or None when it is not a secret after all."""
    kind = rule.kind
    sec = sec_b.decode("utf-8", "surrogatepass")
    if rule.check is not None and not rule.check(sec):
        return None
    if kind in _KEEPS_FREE_TEXT and _scan(pre):
        # The part that would be kept (a key name, a URL scheme) holds a secret itself:
        # not this match, then; the secret is found on its own further on.
        return None
    if kind == "pair":
        if not _plausible_value(sec):
            return None  # "Bearer undefined" stays readable: it is the diagnosis
        low = pre.lower().rstrip(b"\"'")
        if low.endswith((b" ", b"\t")):  # a scheme word came before the value
            scheme = low.split()[-1]
            if scheme in (b"bearer", b"token"):
                return "bearer-token"
            if scheme == b"basic":
                return "basic-auth"
            if scheme in (b"digest", b"negotiate", b"ntlm"):
                return "auth"
        known = _known_kind(sec_b)
        if known is not None:
            return known
        key = pre.decode("utf-8", "surrogatepass")
        for sep in ("=>", ":=", "=", ":"):
            if sep in key:
                key = key.split(sep, 1)[0]
                break
        return _pair_kind(key)
    if kind == "query":
        name = pre.lower().strip(b"?&=")
        if name == b"sig":
            return "azure-sas"
        if name == b"code" and (sec.isdigit() or len(sec) < 6):
            return None
        if not _plausible_value(sec):
            return None
        return _known_kind(sec_b) or "url-token"
    if kind == "email" and match.split(b"@", 1)[0].lower() in (b"git", b"noreply", b"no-reply"):
        return None
    return kind


def _known_kind(value: bytes) -> str | None:
    """The kind of a key=value value when the value is wholly one known kind of key."""
    inner = _scan(value)
    if len(inner) == 1 and inner[0][1] == 0 and inner[0][2] == len(value):
        return inner[0][0]
    return None


_KEEPS_FREE_TEXT = frozenset({"pair", "url-credentials"})
_NEEDS_DECISION = frozenset({"pair", "query", "email", "url-credentials"})


def _first_byte_candidates() -> tuple[tuple[int, ...], ...]:
    """Per first byte of a match: the rules (in order) whose matches can start with it."""
    bounds = []
    for rule in _RULES:
        try:
            lo, hi = re2.compile(rule.pattern.encode(), _re2_options()).possiblematchrange(1)
            bounds.append((lo[0] if lo else 0, hi[0] if hi else 255))
        except Exception:  # no bound known: always a candidate
            bounds.append((0, 255))
    return tuple(tuple(i for i, (lo, hi) in enumerate(bounds) if lo <= b <= hi) for b in range(256))


@dataclass(frozen=True, slots=True)
class _Engine:
    trigger: Any  # RE2: any trigger literal
    span: Any  # RE2: every rule, no groups
    rules: tuple[Any, ...]  # Python re: each rule on its own, with its groups
    candidates: tuple[tuple[int, ...], ...]  # per first byte: rules that can start there
    grouped: Any  # RE2: every rule with groups (the arbiter)
    group_numbers: tuple[tuple[int, int], ...]  # per rule: whole group, masked group


@functools.cache
def _engine() -> _Engine:
    """Compile the expressions once, on first use (importing failtax compiles nothing)."""
    grouped = re2.compile(_alternatives(groups=True).encode(), _re2_options())
    index = {(k.decode() if isinstance(k, bytes) else k): v for k, v in grouped.groupindex.items()}
    return _Engine(
        trigger=re2.compile(_trigger_pattern(), _re2_options()),
        span=re2.compile(_alternatives(groups=False).encode(), _re2_options()),
        rules=tuple(re.compile(rule.pattern.encode()) for rule in _RULES),
        candidates=_first_byte_candidates(),
        grouped=grouped,
        group_numbers=tuple((index[f"r{i}"], index.get(f"sec{i}", -1)) for i in range(len(_RULES))),
    )


def _groups_at(eng: _Engine, data: bytes, start: int, end: int) -> tuple[int, int, int] | None:
    """(rule index, masked start, masked end) of the match RE2 found at ``start``.

    The first rule, in order, that matches at ``start`` is the one RE2's leftmost-first
    search chose; each rule's own expression (few groups, so Python's engine is quick)
    says which part to mask. Should the engines ever disagree, RE2 decides.
    """
    for i in eng.candidates[data[start]]:
        m = eng.rules[i].match(data, start, end)
        if m is None:
            continue
        if m.end() != end:
            break
        if "sec" in eng.rules[i].groupindex:
            s0, s1 = m.span("sec")
        else:
            s0, s1 = start, end
        return i, s0, s1
    m2 = eng.grouped.fullmatch(data, start, end)
    if m2 is None:
        return None
    i = next(j for j, (g, _) in enumerate(eng.group_numbers) if m2.start(g) >= 0)
    gsec = eng.group_numbers[i][1]
    s0, s1 = m2.span(gsec) if gsec >= 0 else (-1, -1)
    if s0 < 0:
        s0, s1 = start, end
    return i, s0, s1


_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED if hasattr(re2, "_re2") else None


def _re2_span(rx: Any, data: bytes, pos: int = 0) -> tuple[int, int]:
    """``(start, end)`` of the leftmost match of RE2 ``rx`` at or after byte ``pos`` of
    ``data``, or ``(-1, -1)``: what ``rx.search(data, pos).span()`` says, without
    building a match object (a third of a short search's cost)."""
    if pos > len(data):
        return (-1, -1)
    raw = getattr(rx, "_regexp", None)
    if raw is not None and _UNANCHORED is not None:
        return raw.Match(_UNANCHORED, data, pos, len(data))[0]
    m = rx.search(data, pos)  # pragma: no cover - other builds of the re2 module
    return (-1, -1) if m is None else m.span()


def _scan(data: bytes) -> list[tuple[str, int, int]]:
    """(kind, start, end) byte spans of the secrets in UTF-8 ``data``, in order."""
    out: list[tuple[str, int, int]] = []
    eng = _engine()
    if _re2_span(eng.trigger, data)[0] < 0:
        return out
    pos, n = 0, len(data)
    span = eng.span
    # After a near miss the scan looks again one character on, so a secret inside the
    # miss is still found. Text built of nested near misses (``sk-sk-sk-…``) would
    # make that quadratic; past a budget proportional to the line, it moves on instead.
    # The budget is the line's own, so a line holds the same secrets scanned alone as
    # inside its text (see _secrets_within_lines).
    budget, line_end = 0, -1
    while pos <= n:
        start, end = _re2_span(span, data, pos)
        if start < 0:
            break
        found = _groups_at(eng, data, start, end) if end > start else None
        kind, s0, s1 = None, start, end
        if found is not None:
            i, s0, s1 = found
            rule = _RULES[i]
            if rule.kind == "placeholder":
                pos = end
                continue
            if rule.check is None and rule.kind not in _NEEDS_DECISION:
                kind = rule.kind
            elif s1 > s0:
                kind = _decide(rule, data[start:s0], data[s0:s1], data[start:end])
        if kind is None:
            if start > line_end:  # the first near miss of this line
                line_end = data.find(b"\n", start)
                line_end = n if line_end < 0 else line_end
                budget = max(4 * (line_end - data.rfind(b"\n", 0, start) - 1), 1 << 16)
            budget -= end - start + 1
            if budget < 0 and end > start:
                pos = end
                continue
            pos = start + 1
            while pos < n and (data[pos] & 0xC0) == 0x80:
                pos += 1
            continue
        out.append((kind, s0, s1))
        pos = end
    return out


#: The one literal every rule whose match can run over a line break needs (a private-key
#: block); the tests check that no other rule can.
_MULTILINE_LITERAL = b"PRIVATE KEY"


def _secrets_within_lines(data: bytes) -> bool:
    """True when no secret of UTF-8 ``data`` can run over a line break, so that the
    secrets of each line are those :func:`find_secrets` finds in the line alone.

    No rule but the private-key blocks can match a line break, none is anchored to the
    start or end of the text (only ``\\b``, which reads a line break as the text's
    edge), and a near miss's budget is its line's own: given no private-key literal, a
    line's scan never depends on the lines around it.
    """
    return _MULTILINE_LITERAL not in data


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from surrogateescape decoding
        return text.encode("utf-8", "surrogatepass")


def find_secrets(text: str) -> list[Finding]:
    """Find the secrets and personal data in ``text``, in order, without changing it.

    Parameters
    ----------
    text : any text (stderr tail, log line, JSON). Lone surrogates are allowed.

    Returns
    -------
    list[Finding]
        One finding per masked span (``kind``, ``start``, ``end`` as ``str`` indices);
        spans never overlap. Empty when nothing is found.

    Examples
    --------
    >>> find_secrets("mail ops@example.com, key AKIAIOSFODNN7EXAMPLE")
    [Finding(kind='email', start=5, end=20), Finding(kind='aws-access-key-id', start=26, end=46)]
    """
    if not text:
        return []
    data = _encode(text)
    spans = _scan(data)
    if not spans or text.isascii():
        return [Finding(kind=k, start=s, end=e) for k, s, e in spans]
    out = []
    last_b, last_c = 0, 0
    for kind, s, e in spans:  # byte offsets to str offsets, in one pass
        cs = last_c + len(data[last_b:s].decode("utf-8", "surrogatepass"))
        ce = cs + len(data[s:e].decode("utf-8", "surrogatepass"))
        out.append(Finding(kind=kind, start=cs, end=ce))
        last_b, last_c = e, ce
    return out


def redact(text: str, *, findings: Sequence[Finding] | None = None) -> str:
    """Mask every secret and email in ``text`` with ``[REDACTED:<kind>]``; keep the rest.

    Pure and idempotent (``redact(redact(x)) == redact(x)``) and linear in the length
    of the text; text without any trigger substring costs one literal scan.

    Parameters
    ----------
    text : any text. Lone surrogates are allowed and kept.
    findings : what :func:`find_secrets` returned for this very ``text``, to mask
        without scanning again.

    Returns
    -------
    str
        The text with each secret replaced by its kind's placeholder.

    Examples
    --------
    >>> redact("export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345")
    'export GITHUB_TOKEN=[REDACTED:github-token]'
    >>> redact('{"password": "hunter2", "user": "ana@example.org"}')
    '{"password": "[REDACTED:password]", "user": "[REDACTED:email]"}'
    >>> redact("HTTP/1.1 401 Unauthorized: token limit exceeded")
    'HTTP/1.1 401 Unauthorized: token limit exceeded'
    """
    if not text:
        return text
    if findings is not None:
        return _apply(text, findings, 0, len(text))
    data = _encode(text)
    spans = _scan(data)
    if not spans:
        return text
    pieces: list[bytes] = []
    last = 0
    for kind, s, e in spans:
        pieces.append(data[last:s])
        pieces.append(placeholder(kind).encode())
        last = e
    pieces.append(data[last:])
    return b"".join(pieces).decode("utf-8", "surrogatepass")


def redact_slice(text: str, start: int, end: int, *, findings: Sequence[Finding] | None = None) -> str:
    """Redact the excerpt ``text[start:end]`` as it reads inside the whole text.

    Cutting first and redacting after would miss a secret the cut runs through (the
    middle lines of a private-key block look like nothing on their own); this masks
    every secret of the whole text that overlaps the excerpt, partly or wholly.

    Parameters
    ----------
    text : the whole text.
    start, end : the excerpt's bounds (``str`` indices, clipped to the text).
    findings : :func:`find_secrets` of ``text``, when already known.

    Returns
    -------
    str
        The excerpt with each overlapping secret replaced by its placeholder.

    Examples
    --------
    >>> t = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----"
    >>> line = t.splitlines()[1]
    >>> redact(line) == line, redact_slice(t, 28, 28 + len(line))
    (True, '[REDACTED:private-key]')
    """
    start = max(0, min(start, len(text)))
    end = max(start, min(end, len(text)))
    if findings is None:
        findings = find_secrets(text)
    return _apply(text, findings, start, end)


def redact_excerpt(excerpt: str, whole: str, *, findings: Sequence[Finding] | None = None) -> str:
    """Redact a piece cut out of ``whole`` (a matched line, a captured value) in context.

    For callers that kept the excerpt but not its position: it is looked up in
    ``whole`` and redacted there with :func:`redact_slice`; an excerpt not found in
    ``whole`` is redacted on its own.

    Parameters
    ----------
    excerpt : the piece to show.
    whole : the text it was cut from.
    findings : :func:`find_secrets` of ``whole``, when already known.

    Returns
    -------
    str
        The excerpt with every secret that overlaps it in ``whole`` masked.

    Examples
    --------
    >>> whole = "Error: bad key\\nKEY=sk-ant-api03-abcdefghijklmnopqrstuvwx"
    >>> redact_excerpt("KEY=sk-ant-api03-abcdefghij", whole)
    'KEY=[REDACTED:anthropic-key]'
    """
    if not excerpt:
        return excerpt
    if findings is None:
        findings = find_secrets(whole)
    if not findings:
        return excerpt if excerpt in whole else redact(excerpt)
    at = whole.find(excerpt)
    if at < 0:
        return redact(excerpt)
    return _apply(whole, findings, at, at + len(excerpt))


def _apply(text: str, findings: Sequence[Finding], start: int, end: int) -> str:
    pieces: list[str] = []
    pos = start
    for f in findings:
        if f.end <= start or f.start >= end:
            continue
        if f.start > pos:
            pieces.append(text[pos : f.start])
        pieces.append(placeholder(f.kind))
        pos = max(pos, f.end)
    if pos < end:
        pieces.append(text[pos:end])
    return "".join(pieces)


def redact_json_text(text: str | None) -> str | None:
    """Mask secrets in every string (keys and values) of a JSON document; keep it valid JSON.

    Text that is not JSON is masked as plain text. A document nested deeper than Python's
    recursion limit (DuckDB and other parsers read such documents) has each string token
    masked on its own, the rest kept as written.

    >>> redact_json_text('{"note": "mail bob@example.com"}')
    '{"note": "mail [REDACTED:email]"}'
    >>> redact_json_text('{"a":' * 2000 + '"token=abc123"' + '}' * 2000).count("token=abc123")
    0
    """
    if text is None:
        return None
    import json

    try:
        doc = json.loads(text)
    except RecursionError:
        return _redact_json_strings(text)
    except ValueError:
        return redact(text)

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return redact(v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {redact(k): walk(x) for k, x in v.items()}
        return v

    try:
        return json.dumps(walk(doc), ensure_ascii=False)
    except RecursionError:  # parsed, but too deep to walk or write back
        return _redact_json_strings(text)


#: One JSON string token, quotes included.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _redact_json_strings(text: str) -> str:
    """``text`` (JSON) with each string token masked on its own and the rest as written."""
    import json

    def mask(m: re.Match[str]) -> str:
        value = json.loads(m.group(0))
        masked = redact(value)
        return m.group(0) if masked == value else json.dumps(masked, ensure_ascii=False)

    return _JSON_STRING.sub(mask, text)


def __getattr__(name: str) -> Any:
    # The trigger expression (RE2 syntax, so DuckDB's regexp_matches can prefilter rows).
    if name == "TRIGGER_PATTERN":
        return _trigger_pattern().decode()
    raise AttributeError(name)
