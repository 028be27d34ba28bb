"""What a candidate secret value looks like: random, a reference, a credential (pure).

The checks :mod:`pokayokay.safety.redact`'s rows run on a value they found in a secret's
position, before they replace it: :func:`random_looking` (a generated credential, not a word,
path or digest), :func:`secret_value` (a value, not a reference to one such as ``$TOKEN`` or
``<your-token>``, nor code), :func:`entropic_value`, :func:`basic_credential`, and
:func:`config_line` (an unquoted value on a YAML or env line is a literal, never code).
"""

from __future__ import annotations

import re

from pokayokay.infra.lazyre import Lazy as _Lazy

__all__ = [
    "HEX",
    "NUMBER",
    "REFERENCE",
    "basic_credential",
    "config_line",
    "entropic_value",
    "entropy",
    "mixed",
    "random_looking",
    "readable_base64",
    "secret_value",
]


def entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    size = len(value)
    from math import log2  # on the first value long enough to weigh: most outputs have none

    return -sum(n / size * log2(n / size) for n in counts.values())


HEX = _Lazy(r"[0-9a-fA-F]+")
_UUID = _Lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DIGEST_PREFIX = _Lazy(r"(?i)(?:sha(?:1|224|256|384|512)|md5|blake2b?|sri)[-:]")
_B64_BODY = _Lazy(r"[A-Za-z0-9+/]{8,}={0,2}|[A-Za-z0-9_-]{8,}={0,2}")


def readable_base64(value: str) -> bool:
    """True when ``value`` is base64 of readable text (test data, not a key)."""
    if len(value) < 12 or not _B64_BODY.fullmatch(value):
        return False
    import base64
    import binascii

    body = value.replace("-", "+").replace("_", "/")
    body += "=" * (-len(body) % 4)
    try:
        raw = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return False
    if not raw:
        return False
    printable = sum(1 for b in raw if 32 <= b < 127 or b in (9, 10, 13))
    return printable / len(raw) >= 0.95


def random_looking(value: str) -> bool:
    """A value that reads like a generated credential rather than a word, path or digest."""
    core = value.strip("=")
    if len(core) < 20:
        return False
    if HEX.fullmatch(core) or _UUID.fullmatch(core) or _DIGEST_PREFIX.match(core):
        return False
    if readable_base64(value):
        return False
    digits = sum(ch.isdigit() for ch in core)
    upper = sum(ch.isupper() for ch in core)
    lower = sum(ch.islower() for ch in core)
    if digits == 0 or (upper == 0 and lower == 0):
        return False
    classes = (digits > 0) + (upper > 0) + (lower > 0)
    if classes < 3 and digits < 4:
        return False
    return entropy(core) >= 3.6


def mixed(value: str) -> bool:
    """A token body with both letters and digits (a kebab-case name is not a key)."""
    return any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value)


# Values that only stand for a secret, or are not one at all.
REFERENCE = _Lazy(
    r"""(?ix)\A(?:
        ["'`]?\$\{?[A-Za-z_][\w.]*\}?["'`]?          # $VAR, ${VAR}
      | .*\$\{\{.*                                    # ${{ secrets.X }}
      | .*\{\{.*\}\}.*                                # {{ template }}
      | %[A-Za-z_]\w*%                                # %VAR%
      | <[^<>]*>                                      # <your-token>
      | [*x.•-]{1,64}                                 # ***, xxxx
      | \[redacted:.*                                 # already done
      | (?:os\.environ|os\.getenv|getenv|process\.env|env|ENV|settings|config|self|cls|this)
        (?:\.|\[|\().*                                # a lookup, not a value
      | (?:none|null|nil|true|false|undefined|str|string|bytes|int|bool|optional|secretstr
        |required|changeme|redacted|hidden|placeholder|dummy)
    )\Z""",
)


# An identifier as people write them: snake_case, UPPER_CASE, camelCase, PascalCase.
_IDENTIFIER = _Lazy(
    r"[a-z_][a-z0-9_]*|[A-Z_][A-Z0-9_]*|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+[A-Z]?"
    r"|(?:[A-Z][a-z0-9]+)+[A-Z]?"
)


def secret_value(value: str, quoted: bool = False) -> bool:
    """A value, not a reference to one. ``quoted``: the value stood between quotes, so it is a
    string literal (JSON, a quoted YAML or shell value, a string in code): only the reference
    shapes (``$VAR``, ``{{ template }}``, ``<your-token>``, ``os.environ[…]``…) spare it, never
    its looking like an attribute chain (``"kgj5Sridv.nax"`` is a password, not code)."""
    value = value.strip()
    if not value or REFERENCE.match(value):
        return False
    if quoted:
        return True
    # A Python/JS identifier that is a call or attribute (get_token(), self.password) is code;
    # a dotted word whose parts are not identifiers as people write them is a password.
    if re.fullmatch(r"[A-Za-z_][\w.]*\(.*\)?", value):
        return False
    if not re.fullmatch(r"[A-Za-z_]\w*\.[A-Za-z_][\w.]*", value):
        return True
    digits = sum(ch.isdigit() for ch in value)
    return digits > 1 or not all(_IDENTIFIER.fullmatch(part) for part in value.split(".") if part)


NUMBER = _Lazy(r"[0-9]{1,64}(?:\.[0-9]{1,64})?")
_TOKEN_CHARS = _Lazy(r"[A-Za-z0-9+/_=-]{20,1024}")


def entropic_value(value: str) -> bool:
    """A random-looking token (no dots, colons or ``//``: URLs, paths and versions are not)."""
    return (
        _TOKEN_CHARS.fullmatch(value) is not None
        and "//" not in value
        and random_looking(value)  # before the reference check: "=====" rules end here
        and secret_value(value)
    )


def basic_credential(value: str) -> bool:
    """The value after ``Basic``: base64 of ``user:password``, or a random-looking token."""
    import base64
    import binascii

    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in raw or random_looking(value)


def config_line(match: re.Match[str], value_group: str) -> bool:
    """Whether an unquoted value stands on a configuration line, where it is a literal however
    much it reads like code: a YAML mapping (``password: kgj5Sridv.nax``) or an env/properties
    line (``DB_PASSWORD=kgj5Sridv.nax``, ``export …``) whose unquoted key starts the line (after
    indentation, ``- `` or ``export ``) and whose value ends it (a ``#`` comment may follow).
    ``password = self.password`` (spaces around ``=``), a call's ``password=creds.password``
    and a dict's ``"password": creds.password,`` are code and stay as they are."""
    text = match.string
    key_start, key_end = match.span("key")
    value_start, value_end = match.span(value_group)
    line_start = text.rfind("\n", 0, key_start) + 1
    before = text[line_start:key_start].strip()
    if before not in ("", "-", "export"):
        return False
    between = text[key_end:value_start].lstrip(" \t")
    if between[:2] == ":=" or (between[:1] != ":" and text[key_end : key_end + 1] != "="):
        return False  # quoted keys, ``key = value`` and Go's ``:=`` are code, not such a line
    line_end = text.find("\n", value_end)
    after = text[value_end : len(text) if line_end < 0 else line_end].strip()
    return after == "" or after.startswith("#")
