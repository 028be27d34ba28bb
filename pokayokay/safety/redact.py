"""Secrets out of text, before it is stored or shown (pure).

Tool output and commands are hostile *and* careless: a failing ``curl`` carries a Bearer header,
a ``PGPASSWORD=… psql`` prefix carries a password, a stack trace prints a database URL.
:func:`redact` replaces every value of a known secret shape with ``[redacted:<kind>]`` and is
applied at capture, before the failure store sees anything, and again on every way out (rule
files, ``recurring-failures.md``, recall, learnings, CLI output):
:func:`pokayokay.safety.sanitize.clean` runs it first.

The table :data:`SHAPES` is ordered: provider key shapes first (so ``GITHUB_TOKEN=ghp_…`` reads
``GITHUB_TOKEN=[redacted:github-token]``), then the structural shapes, then values in key
positions. Each row is a :class:`Shape`:

=====================  ===================================================================
kind                   what it matches
=====================  ===================================================================
private-key            a PEM/OpenSSH/PGP ``-----BEGIN … PRIVATE KEY-----`` block, whole
                       (to the END line, or to the end of the text when it was cut), an
                       END line whose BEGIN was cut off with the key lines above it, a run
                       of key lines with neither (:mod:`~pokayokay.safety.redact_blocks`)
anthropic-key          ``sk-ant-…`` (api03, admin01, oat01 …)
openai-key             ``sk-…``, ``sk-proj-…``, ``sk-svcacct-…`` with a random-looking body
aws-access-key-id      ``AKIA…``/``ASIA…`` and the other 4-letter IAM prefixes + 16
github-token           ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36, ``github_pat_…``
gitlab-token           ``glpat-…`` and the other ``gl…-`` token prefixes
slack-token            ``xoxb-``/``xoxp-``/``xoxa-``/``xoxr-``/``xoxs-``/``xapp-`` tokens
slack-webhook          the secret path of ``hooks.slack.com/services/…``
stripe-key             ``sk_live_``/``sk_test_``/``rk_…`` secret and restricted keys,
                       ``whsec_`` webhook secrets (publishable ``pk_`` keys are public)
google-api-key         ``AIza`` + 35
google-oauth           ``ya29.`` access tokens, ``GOCSPX-`` client secrets
npm-token              ``npm_`` + 36
pypi-token             ``pypi-`` + a long macaroon
huggingface-token,     ``hf_…``, ``hvs.``/``hvb.``/``hvr.`` (Vault), ``SG.….…`` (SendGrid),
vault-token, …         ``dop_v1_``/``doo_v1_``/``dor_v1_`` + 64 hex (DigitalOcean),
                       ``shpat_``/``shpss_`` + 32 hex (Shopify), ``dapi`` + 32 hex
                       (Databricks), ``AGE-SECRET-KEY-1…``
jwt                    three base64url parts, the first two starting ``eyJ``
bearer-token           the credential after ``Bearer`` / ``Token`` in a header or flag
basic-auth             the credential after ``Basic``, and ``curl -u user:password``
url-password           the password of ``scheme://user:password@host`` (also with no user,
                       ``redis://:pw@host``, and with JSON-escaped slashes)
password, secret,      the value of a key that names a credential, in every key position:
token, api-key,        ``PASSWORD=…``, ``export DB_PASS=…``, ``PGPASSWORD=… psql`` (env prefix),
credential             ``"password": "…"``, ``password: …`` (YAML), ``--token …``/``--token=…``,
                       JSON inside a JSON string (``\\"password\\": \\"…\\"``); docker's
                       ``"auth"`` when it decodes to ``user:password`` or looks random. A
                       quoted value, or one on a YAML/env line, is a literal even when it
                       reads like code (``password: kgj5Sridv.nax``)
high-entropy           a random-looking value (letters and digits, 20+ characters, high
                       entropy) in any other key position: ``client_id=…``, ``"sig": "…"``;
                       32+ hex digits under a key or signature name (``sig=…``, ``hmac: …``)
=====================  ===================================================================

Around the table, for what only its context makes a secret: passwords in a program's own
flag (``mysql -p…``, ``sshpass -p``, ``docker login -p``, ``htpasswd -b``, ``redis-cli -a`` …:
:mod:`~pokayokay.safety.redact_flags`, before the table), provider tokens wrapped across lines
(joined and tested against the provider rows, before the table, which would see only a first
piece) and base64 or hex runs that decode to text holding a secret (after the table):
:mod:`~pokayokay.safety.redact_blocks`.

What survives on purpose (the tests hold it to at most 5% of a corpus of such text touched):
git SHAs and other hex digests, UUIDs, lockfile integrity hashes (``sha512-…``), go.sum's
``h1:`` and every value under a digest's name (``hash``, ``checksum``, ``integrity``,
``contentHash``, ``etag``, ``sha256`` …: at most 2% of generated look-alikes), base64 that
decodes to readable text (test data), file paths, version strings, ordinary words, and values in
key positions that only refer to a secret (``$PGPASSWORD``, ``${{ secrets.TOKEN }}``,
``os.environ["TOKEN"]``, ``<your-token>``, ``***``, type names such as ``str``).

Extending: add a :class:`Shape` to :data:`SHAPES` (or pass ``extra=`` to :func:`redact`). A
pattern must stay linear: no nested or adjacent overlapping quantifiers, every repetition
bounded, and a group named ``secret`` when only part of the match is the secret. ``hints`` are
lowercase substrings one of which must occur in the text for the pattern to run at all (cheap
pre-filter; the hook on every successful command pays for nothing else), and ``gate`` a finer
test on the same lower-cased text (the credential rows: a hint where a key is given a value), run
before the pattern is compiled; both only ever let through less work, never fewer secrets (a
property test holds the filtered table to the unfiltered one).

Limits: the text is examined up to :data:`MAX_INPUT` characters; anything beyond is replaced
by ``[redacted:unscanned]`` rather than passed on unexamined.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from pokayokay.infra import Value
from pokayokay.infra.lazyre import Lazy as _Lazy
from pokayokay.safety.redact_blocks import redact_encoded, redact_pem, redact_split
from pokayokay.safety.redact_flags import redact_flags
from pokayokay.safety.redact_values import (
    HEX,
    NUMBER,
    REFERENCE,
    basic_credential,
    config_line,
    entropic_value,
    mixed,
    random_looking,
    secret_value,
)

TYPE_CHECKING = False  # typing is not imported at run time: the hook after every command loads us
if TYPE_CHECKING:
    from dataclasses import KW_ONLY
    from typing import TypeVar

    _R = TypeVar("_R", bound=tuple)  # type: ignore[type-arg]

__all__ = [
    "MAX_INPUT",
    "SHAPES",
    "Shape",
    "contains_secret",
    "redact",
    "redact_record",
    "redact_tree",
    "redacted_kinds",
]

MAX_INPUT = 1_000_000
MARK = "[redacted:{}]"
_MARK_PREFIX = "[redacted:"
UNSCANNED = "[redacted:unscanned]"


class Shape(Value):
    """One row of the table: a kind, its pattern, an optional check of the candidate secret.

    ``kind_from_key``: a key-position row, whose kind follows the key's name (see ``_key_kind``)
    and whose value groups are ``dq``/``sq``/``bare``. A slotted :class:`Value`, not a dataclass:
    the hook that runs after every successful command imports this module (decision 0154).
    """

    __slots__ = ("_compiled",)  # the pattern, compiled on first use (:attr:`regex`)

    kind: str
    pattern: str
    hints: tuple[str, ...] = ()
    check: Callable[[str], bool] | None = None
    _: KW_ONLY
    kind_from_key: bool = False
    gate: Callable[[str], bool] | None = None  # after the hints: a finer test on the folded text

    def __repr__(self) -> str:
        return f"Shape({self.kind!r}, {self.pattern!r})"

    @property
    def regex(self) -> re.Pattern[str]:
        try:
            return self._compiled
        except AttributeError:  # (not compiled yet: the slot is empty)
            self._compiled: re.Pattern[str] = re.compile(self.pattern)
            return self._compiled


# --- key names --------------------------------------------------------------------------------

# A key that names a credential: its value is redacted whatever it looks like.
_SECRET_KEY = (
    r"[A-Za-z0-9_.-]{0,40}?"
    r"(?:passw(?:or)?d|passwd|_?pwd|_pass\b|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?|_authtoken|(?<![a-z])_?key)"
    r"[A-Za-z0-9_]{0,30}"
)
# Any other key (the high-entropy row).
_ANY_KEY = r"[A-Za-z_][A-Za-z0-9_.-]{0,60}"
# A value: quoted (kept quoted; JSON escapes inside, or the quotes themselves escaped when the
# JSON sits inside another JSON string) or a bare word.
_VALUE = (
    r'(?:\\"(?P<edq>[^"\\\n]{0,512}(?:\\[^"\n][^"\\\n]{0,512}){0,32})\\"'
    r'|"(?P<dq>[^"\\\n]{0,512}(?:\\[^\n][^"\\\n]{0,512}){0,32})"'
    r"""|'(?P<sq>[^'\n]{1,512})'|(?P<bare>(?:[^\s"'`,;&|)}\]]|&(?![&\s])){1,512}))"""
)
_VALUE_GROUPS = ("edq", "dq", "sq", "bare")
# The high-entropy row's value: 20 characters or more (a shorter one is never random-looking;
# the regex rejecting it spares a call back per `subtotal=1999` of a long output).
_LONG_VALUE = (
    r'(?:\\"(?=[^"\n]{20})(?P<edq>[^"\\\n]{0,512}(?:\\[^"\n][^"\\\n]{0,512}){0,32})\\"'
    r'|"(?=[^"\n]{20})(?P<dq>[^"\\\n]{0,512}(?:\\[^\n][^"\\\n]{0,512}){0,32})"'
    r"""|'(?P<sq>[^'\n]{20,512})'|(?P<bare>(?:[^\s"'`,;&|)}\]]|&(?![&\s])){20,512}))"""
)


_AUTH_KEY = _Lazy(r"(?:.*[._-])?auth")
# Keys whose hex value is a key or a signature, not a digest.
_HEX_KEY = _Lazy(
    r"(?:^|[._-])(?:key|sig|signature|hmac)$|(?:signing|encryption|master|session|shared)[._-]?key$"
)
# Keys whose value is a public digest (go.sum's h1:, lockfile hashes, checksums, ETags).
_DIGEST_KEY = _Lazy(r"hash|checksum|digest|integrity|shasum|etag|\Ah1\Z|sha(?:1|256|384|512)?\Z")


def _hex_secret(value: str) -> bool:
    return len(value) >= 32 and HEX.fullmatch(value) is not None


def _high_entropy(value: str, key: str) -> bool:
    """The high-entropy row's test: a random-looking value (hex under a key or signature name),
    and never a digest under a digest's name."""
    if len(value) < 20:  # the common case (subtotal=1999, level: INFO): nothing to look up
        return False
    low = key.lower()
    if entropic_value(value):
        return _DIGEST_KEY.search(low) is None
    return _hex_secret(value) and _HEX_KEY.search(low) is not None and not _DIGEST_KEY.search(low)


def _key_kind(key: str) -> str:
    low = key.lower()
    if "pass" in low or "pwd" in low:
        return "password"
    if "secret" in low:
        return "secret"
    if "token" in low:
        return "token"
    if "cred" in low or low.strip("\"'\\") == "auth":
        return "credential"
    return "api-key"


def _value_check(value: str, key: str, quoted: bool = False) -> bool:
    """A value in the position of a credential-named key: redacted unless it only refers to one.

    A bare ``*_key``/``key`` name is weaker evidence (``sort_key``, ``primary_key``): there the
    value must look random. ``quoted``: the value stood between quotes, a string literal
    (:func:`~pokayokay.safety.redact_values.secret_value`).
    """
    low = key.lower().strip("\"'")
    if low in ("pwd", "oldpwd"):  # the working folder, not a password
        return False
    if NUMBER.fullmatch(value.strip()):  # max_tokens=4096, "input_tokens": 52
        return _key_kind(key) == "password"
    if _AUTH_KEY.fullmatch(low):  # docker's "auth": base64 of user:password
        return basic_credential(value) or entropic_value(value)
    if _HEX_KEY.search(low) and _hex_secret(value):
        return True
    named = re.search(r"passw|passwd|pwd|_pass$|secret|token|credential|auth", low)
    if named or re.search(r"api[_-]?key|apikey|access[_-]?key|private[_-]?key", low):
        return secret_value(value, quoted)
    if key.isupper() and low.endswith("key"):  # ANTHROPIC_API_KEY, SECRET_KEY, STRIPE_KEY
        return secret_value(value, quoted)
    return entropic_value(value)


# --- finer pre-filters --------------------------------------------------------------------------

# The hints and gates run on the text lower-cased, with the characters that an ASCII letter of a
# case-insensitive pattern also matches (Python's re: the long s, the dotless i, the dotted
# capital I) folded onto that letter first.
_FOLD = str.maketrans({"ſ": "s", "ı": "i", "İ": "i", "K": "k"})
_CREDENTIAL_HINTS = ("pass", "pwd", "secret", "token", "key", "cred", "auth")
_KEY_TAIL = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_KEY_BODY = _KEY_TAIL | {"."}
_SCAN = 200  # characters walked over from a hint; a longer key is let through to the pattern


def _folded(text: str) -> str:
    return text.lower() if text.isascii() else text.translate(_FOLD).lower()


def _key_ends(lowered: str, hints: tuple[str, ...]) -> Iterable[tuple[int, int]]:
    """(start of a hint, first character past the key name it can stand in) for each hint
    occurrence: a credential key goes on after its hint in letters, digits, ``_`` and ``-``."""
    for hint in hints:
        at = lowered.find(hint)
        while at >= 0:
            end = at + len(hint)
            limit = min(len(lowered), end + _SCAN)
            while end < limit and lowered[end] in _KEY_TAIL:
                end += 1
            yield at, (-1 if end == limit and limit < len(lowered) else end)
            at = lowered.find(hint, at + 1)


def _assigned(lowered: str) -> bool:
    """A credential hint where a key is given a value: the key name, an optional quote, up to
    eight spaces or tabs, then ``:`` or ``=`` (the ``key = value`` row's shape)."""
    for _at, end in _key_ends(lowered, _CREDENTIAL_HINTS):
        if end < 0:
            return True
        if lowered.startswith("\\", end):  # a JSON string's escaped quote
            end += 1
        if end < len(lowered) and lowered[end] in "\"'":
            end += 1
        stop = min(len(lowered), end + 8)
        while end < stop and lowered[end] in " \t":
            end += 1
        if end < len(lowered) and lowered[end] in ":=":
            return True
    return False


def _flagged(lowered: str) -> bool:
    """A credential hint in a command-line flag: ``--`` at a word start, key characters up to
    the hint, the key name, then ``=``, a space or a tab (the ``--token value`` row's shape)."""
    for at, end in _key_ends(lowered, _CREDENTIAL_HINTS):
        if end >= 0 and (end >= len(lowered) or lowered[end] not in "= \t"):
            continue
        start = at
        while start > 0 and at - start < _SCAN and lowered[start - 1] in _KEY_BODY:
            start -= 1
        if at - start >= _SCAN:
            return True
        if lowered.startswith("--", start) and (start == 0 or lowered[start - 1].isspace()):
            return True
    return False


# --- the table --------------------------------------------------------------------------------

_B = r"(?<![A-Za-z0-9_])"  # a left word edge that also treats '_' as part of the word
_E = r"(?![A-Za-z0-9_])"

_AWS_PREFIXES = "AKIA ASIA ABIA ACCA AGPA AIDA AIPA ANPA ANVA AROA APKA ASCA".split()  # noqa: SIM905

SHAPES: list[Shape] = [
    Shape("anthropic-key", _B + r"sk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_-]{20,400}", ("sk-ant-",)),
    Shape(
        "openai-key",
        _B + r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,400}",
        ("sk-",),
        check=mixed,
    ),
    Shape(
        "aws-access-key-id",
        _B + "(?:" + "|".join(_AWS_PREFIXES) + ")[A-Z0-9]{16}" + _E,
        tuple(prefix.lower() for prefix in _AWS_PREFIXES),
    ),
    Shape(
        "github-token",
        _B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + _E,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Shape(
        "gitlab-token",
        _B + r"gl(?:pat|dt|rt|ptt|cbt|imt|oas|ffct|soat|ft|agent)-[A-Za-z0-9_-]{20,255}",
        ("gl",),
    ),
    Shape(
        "slack-token",
        _B + r"xox[abposre]-[A-Za-z0-9-]{10,255}|xapp-[A-Za-z0-9-]{20,255}",
        ("xox", "xapp-"),
    ),
    Shape(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]{20,255})",
        ("hooks.slack.com",),
    ),
    Shape(
        "stripe-key",
        _B + r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}|whsec_[A-Za-z0-9+/=]{24,255})",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"),
    ),
    Shape("google-api-key", _B + r"AIza[0-9A-Za-z_-]{35}" + _E, ("aiza",)),
    Shape(
        "google-oauth",
        _B + r"(?:ya29\.[0-9A-Za-z_-]{20,2048}|GOCSPX-[A-Za-z0-9_-]{20,64})",
        ("ya29.", "gocspx-"),
    ),
    Shape("npm-token", _B + r"npm_[A-Za-z0-9]{36}" + _E, ("npm_",)),
    Shape("pypi-token", _B + r"pypi-[A-Za-z0-9_-]{50,512}", ("pypi-",)),
    Shape("huggingface-token", _B + r"hf_[A-Za-z0-9]{30,64}" + _E, ("hf_",), check=mixed),
    Shape("vault-token", _B + r"hv[sbr]\.[A-Za-z0-9_-]{24,512}", ("hv",)),
    Shape("sendgrid-key", _B + r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{32,64}", ("sg.",)),
    Shape(
        "digitalocean-token", _B + r"do[opr]_v1_[0-9a-f]{64}" + _E, ("dop_v1", "doo_v1", "dor_v1")
    ),
    Shape("shopify-token", _B + r"shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}" + _E, ("shp",)),
    Shape("databricks-token", _B + r"dapi[0-9a-f]{32}(?:-[0-9])?" + _E, ("dapi",)),
    Shape("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}", ("age-secret-key-1",)),
    Shape(
        "jwt",
        _B + r"eyJ[A-Za-z0-9_-]{8,2048}\.eyJ[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8,2048}",
        ("eyj",),
    ),
    Shape(
        "url-password",
        r"(?i)\b[a-z][a-z0-9+.-]{1,20}:(?:\\?/){2}[^\s/:@'\"<>\[\]\\]{0,256}:"
        r"(?P<secret>[^\s/@'\"<>\\]{1,256})@",
        ("://", ":\\/\\/"),
        check=lambda v: not REFERENCE.match(v),
    ),
    Shape(
        "bearer-token",
        r"(?i)(?:\bbearer|\bauthorization[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?token)[ \t]{1,8}"
        r"(?P<secret>[A-Za-z0-9._~+/-]{12,4096}=*)",
        ("bearer", "authorization"),
        check=lambda v: (mixed(v) or random_looking(v)) and secret_value(v),
    ),
    Shape(
        "basic-auth",
        r"(?i)\bbasic[ \t]{1,8}(?P<secret>[A-Za-z0-9+/]{8,4096}={0,2})(?![A-Za-z0-9+/=])",
        ("basic",),
        check=lambda v: basic_credential(v),
    ),
    Shape(
        "basic-auth",
        r"(?:^|(?<=\s))(?:-u|--user)[ \t=]{1,4}[\"']?[^\s:\"']{1,128}:(?P<secret>[^\s\"']{1,256})",
        ("-u", "--user"),
        check=lambda v: not REFERENCE.match(v),
    ),
    Shape(
        "aws-secret-key",
        r"(?i)aws_?secret_?access_?key[\"']?[ \t]{0,8}(?::|=)[ \t]{0,8}[\"']?"
        r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ("aws_secret", "awssecret"),
    ),
    # Key positions. Command-line flags: --password X, --token=X, --api-key X.
    Shape(
        "credential",
        r"(?i)(?:^|(?<=\s))--(?P<key>" + _SECRET_KEY + r")(?:=|[ \t]{1,8})" + _VALUE,
        _CREDENTIAL_HINTS,
        kind_from_key=True,
        gate=_flagged,
    ),
    # KEY=value / key: value / "key": "value" / key = 'value' (env prefixes and exports too).
    Shape(
        "credential",
        r"(?i)(?<![A-Za-z0-9_.-])\\?[\"']?(?P<key>"
        + _SECRET_KEY
        + r")\\?[\"']?[ \t]{0,8}(?::=|:|=)"
        r"[ \t]{0,8}" + _VALUE,
        _CREDENTIAL_HINTS,
        kind_from_key=True,
        gate=_assigned,
    ),
    # docker's config.json: "auth" is base64 of user:password (a key named only "auth" is too
    # common to join the credential names; its value must decode so, or look random).
    Shape(
        "credential",
        r"(?i)(?<![A-Za-z0-9_.-])\\?[\"']?(?P<key>auth)\\?[\"']?[ \t]{0,8}(?::|=)[ \t]{0,8}"
        + _VALUE,
        ("auth",),
        kind_from_key=True,
    ),
    Shape(
        "high-entropy",
        r"(?<![A-Za-z0-9_.-])\\?[\"']?(?P<key>"
        + _ANY_KEY
        + r")\\?[\"']?[ \t]{0,8}(?::=|:|=)[ \t]{0,8}"
        + _LONG_VALUE,
        ("=", ":"),
        kind_from_key=True,
    ),
]


def _replace(shape: Shape) -> Callable[[re.Match[str]], str]:
    groups = shape.regex.groupindex

    def repl(match: re.Match[str]) -> str:
        whole = match.group(0)
        if shape.kind_from_key:
            value_group = next(g for g in _VALUE_GROUPS if match.group(g) is not None)
            value = match.group(value_group)
            key = match.group("key")
            if shape.kind == "high-entropy":
                if not _high_entropy(value, key):
                    return whole
                kind = "high-entropy"
            else:
                literal = value_group != "bare" or config_line(match, value_group)
                if not _value_check(value, key, literal):
                    return whole
                kind = _key_kind(key)
            start, end = match.span(value_group)
        elif "secret" in groups:
            value = match.group("secret")
            if shape.check is not None and not shape.check(value):
                return whole
            kind = shape.kind
            start, end = match.span("secret")
        else:
            if shape.check is not None and not shape.check(whole):
                return whole
            return MARK.format(shape.kind)
        offset = match.start()
        return whole[: start - offset] + MARK.format(kind) + whole[end - offset :]

    return repl


# The rows that match a token by its own shape (no key, no context): a token split across
# lines is joined and tested against these.
_PROVIDERS = [s for s in SHAPES if not s.kind_from_key and "(?P<secret>" not in s.pattern]
_PROVIDER_HINTS = tuple(dict.fromkeys(hint for s in _PROVIDERS for hint in s.hints))


def _provider_at_start(joined: str) -> tuple[str, int] | None:
    head = joined[:20].lower()
    for shape in _PROVIDERS:
        if not any(head.startswith(hint) for hint in shape.hints):
            continue
        match = shape.regex.match(joined)
        if match is not None and (shape.check is None or shape.check(match.group(0))):
            return shape.kind, match.end()
    return None


def _secret_in_decoded(decoded: str) -> str | None:
    kinds = redacted_kinds(decoded, encoded=True)
    return kinds[0] if kinds else None


def _has(found: dict[str, bool], lowered: str, hint: str) -> bool:
    seen = found.get(hint)
    if seen is None:
        seen = found[hint] = hint in lowered
    return seen


def redact(text: str, extra: Iterable[Shape] = (), *, encoded: bool = False) -> str:
    """``text`` with every value of a secret shape replaced by ``[redacted:<kind>]``.

    Idempotent; linear in the length of the text (bounded by :data:`MAX_INPUT`). ``encoded``:
    the text was itself decoded from base64 or hex (its own encoded runs are not decoded again).
    """
    if not text:
        return text
    if len(text) > MAX_INPUT:
        text = text[:MAX_INPUT] + UNSCANNED
    text = redact_pem(text)
    lowered = _folded(text)
    flagged = redact_flags(text, lowered)
    if flagged != text:
        text, lowered = flagged, _folded(flagged)
    found: dict[str, bool] = {}  # hint -> in lowered (the split step and the table share it)
    if "\n" in text:  # before the table: a token's first line alone may match a shorter row
        prefixes = tuple(hint for hint in _PROVIDER_HINTS if _has(found, lowered, hint))
        split = redact_split(text, lowered, prefixes, _provider_at_start) if prefixes else text
        if split != text:
            text, lowered, found = split, _folded(split), {}
    for shape in (*SHAPES, *extra):
        if shape.hints and not any(_has(found, lowered, hint) for hint in shape.hints):
            continue
        if shape.gate is not None and not shape.gate(lowered):
            continue
        changed = shape.regex.sub(_replace(shape), text)
        if changed != text:
            text = changed
            lowered = _folded(text)
            found = {}
    if not encoded and len(text) >= 24:
        text = redact_encoded(text, _secret_in_decoded)
    return text


def redacted_kinds(text: str, *, encoded: bool = False) -> list[str]:
    """The kinds :func:`redact` finds in ``text``, each once, in order of first appearance."""
    before = re.findall(r"\[redacted:([a-z0-9-]+)\]", text)
    found = re.findall(r"\[redacted:([a-z0-9-]+)\]", redact(text, encoded=encoded))
    for kind in before:  # markers already in the text are not new finds
        if kind in found:
            found.remove(kind)
    return list(dict.fromkeys(found))


def contains_secret(text: str) -> bool:
    """True when :func:`redact` would change ``text``."""
    return redact(text) != text


def redact_tree(value: object) -> object:
    """Every string inside a JSON-like value (dicts, lists, tuples) redacted; keys included."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_tree(k): redact_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_tree(v) for v in value]
    return value


def redact_record(record: _R) -> _R:
    """A named tuple with every text field (and every text in a tuple field) redacted."""
    changes: dict[str, object] = {}
    for name in getattr(record, "_fields", ()):
        value = getattr(record, name)
        if isinstance(value, str):
            new: object = redact(value)
        elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            new = tuple(dict.fromkeys(redact(v) for v in value))
        else:
            continue
        if new != value:
            changes[name] = new
    if not changes:
        return record
    replaced: _R = record._replace(**changes)  # type: ignore[attr-defined]
    return replaced
