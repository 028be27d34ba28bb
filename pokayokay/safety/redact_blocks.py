"""Secrets spread over lines or hidden in an encoding (pure).

:mod:`pokayokay.safety.redact` matches a secret where it stands whole on one line. Output is
often cut, wrapped or encoded instead; this module finds those:

* **private keys** (:func:`redact_pem`): a ``-----BEGIN … PRIVATE KEY-----`` block to its END
  line (or to the end of the text when it was cut); an END line whose BEGIN was cut off, with
  the key lines above it; and a run of key lines with neither (two or more lines of base64 of
  the same PEM width, 60 to 76 characters), unless it is a certificate's or public key's body
  (its own BEGIN or END line says so) or base64 of readable text (test data);
* **tokens split across lines** (:func:`redact_split`): a provider prefix (``ghp_``,
  ``sk-ant-`` …) whose token runs into a line break and goes on at the start of the next line
  (a terminal's wrap, a logger's width, a shell ``\\`` continuation); the pieces are joined
  and tested against the provider shapes, and every piece goes;
* **encoded secrets** (:func:`redact_encoded`): a base64 or hex run that decodes to readable
  text holding a secret (``echo Z2hwX… | base64 -d``, a hex dump of a token).

The tests of what each row finds are the caller's: these functions take the finder to use, so
that this module stays below :mod:`pokayokay.safety.redact` and never imports it.
"""

from __future__ import annotations

from collections.abc import Callable

from pokayokay.infra.lazyre import Lazy

__all__ = ["redact_encoded", "redact_pem", "redact_split"]

KEY_MARK = "[redacted:private-key]"

_PEM_BEGIN = Lazy(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = Lazy(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_ARMOR = Lazy(r"-----(?P<edge>BEGIN|END) (?P<label>[A-Z0-9 ]{1,60})-----")
_KEY_HEADER = Lazy(r"[ \t]{0,8}(?:Proc-Type|DEK-Info|Comment|Version|Hash):[^\n]{0,200}")
_KEY_LINE = Lazy(r"[ \t]{0,8}[A-Za-z0-9+/]{1,100}={0,2}[ \t]{0,8}\r?")
_KEY_TAIL = Lazy(r"[A-Za-z0-9+/]{8,100}={0,2}[ \t]{0,8}\r?\Z")
_WIDE = Lazy(r"(?m)^[ \t]{0,8}[A-Za-z0-9+/]{60,76}[ \t]{0,8}\r?$")


def _replace_spans(text: str, spans: list[tuple[int, int]], mark: str) -> str:
    out: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start < pos:
            start = pos
        if end <= start:
            continue
        out.append(text[pos:start] + mark)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _whole_blocks(text: str) -> str:
    out: list[str] = []
    pos = 0
    while True:
        begin = _PEM_BEGIN.search(text, pos)
        if begin is None:
            break
        end = _PEM_END.search(text, begin.end())
        out.append(text[pos : begin.start()] + KEY_MARK)
        if end is None:
            pos = len(text)
            break
        pos = end.end()
    out.append(text[pos:])
    return "".join(out)


def _key_tail(text: str, start: int, end: int) -> int | None:
    """Where the key characters ending the line ``text[start:end]`` begin: the whole line when
    it holds nothing else, else a random-looking tail of 16 or more (a cut key line after other
    text); ``None`` when the line is not part of a key."""
    if _KEY_LINE.fullmatch(text, start, end) or _KEY_HEADER.fullmatch(text, start, end):
        return start
    tail = _KEY_TAIL.search(text, start, end)
    if tail is None or tail.end() - tail.start() < 16:
        return None
    body = tail.group(0)
    mixed = any(c.isdigit() for c in body) and any(c.isupper() for c in body)
    return tail.start() if mixed and any(c.islower() for c in body) else None


def _orphan_end_spans(text: str) -> list[tuple[int, int]]:
    """Each END line left (its BEGIN was cut off), with the key lines above it."""
    spans = []
    for end in _PEM_END.finditer(text):
        line_start = text.rfind("\n", 0, end.start()) + 1
        start = end.start()
        if text[line_start:start].strip(" \t\r"):
            tail = _key_tail(text, line_start, start)
            if tail is not None:
                start = tail
            if tail != line_start:
                spans.append((start, end.end()))
                continue
        start = line_start
        while start > 0:
            prev_start = text.rfind("\n", 0, start - 1) + 1
            tail = _key_tail(text, prev_start, start - 1)
            if tail is None or not text[prev_start : start - 1].strip():
                break
            start = tail
            if tail != prev_start:
                break
        spans.append((start, end.end()))
    return spans


def _readable(raw: bytes) -> bool:
    if not raw:
        return False
    printable = sum(1 for b in raw if 32 <= b < 127 or b in (9, 10, 13))
    return printable / len(raw) >= 0.95


def _decoded_lines(lines: list[str]) -> bytes:
    import base64
    import binascii

    body = "".join(line.strip() for line in lines)
    body = body[: len(body) - len(body) % 4]
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return b""


def _public_armor(text: str, start: int, end: int) -> bool:
    """A certificate's or public key's body: the armor line next to the run says so."""
    before = text.rfind("\n", 0, max(0, start - 1)) + 1
    above = _ARMOR.search(text, before, start)
    if above is not None and above.group("edge") == "BEGIN":
        return "PRIVATE" not in above.group("label")
    below = _ARMOR.match(text, end + 1) if end < len(text) else None
    if below is None:
        below = _ARMOR.match(text, end)
    return below is not None and "PRIVATE" not in below.group("label")


def _body_spans(text: str) -> list[tuple[int, int]]:
    """Runs of two or more key lines of one width (60 to 76), with a partial line either side."""
    spans = []
    lines = list(_WIDE.finditer(text))
    i = 0
    while i < len(lines):
        run = [lines[i]]
        width = len(lines[i].group(0).strip())
        while (
            i + len(run) < len(lines)
            and lines[i + len(run)].start() == run[-1].end() + 1
            and len(lines[i + len(run)].group(0).strip()) == width
        ):
            run.append(lines[i + len(run)])
        i += len(run)
        if len(run) < 2:
            continue
        start, end = run[0].start(), run[-1].end()
        if _public_armor(text, start, end) or _readable(_decoded_lines([m.group(0) for m in run])):
            continue
        if start > 0:  # a cut first line above
            prev_start = text.rfind("\n", 0, start - 1) + 1
            tail = _key_tail(text, prev_start, start - 1)
            if tail is not None and text[prev_start : start - 1].strip():
                start = tail
        if end < len(text):  # a last, shorter line below
            next_end = text.find("\n", end + 1)
            next_end = len(text) if next_end < 0 else next_end
            if _KEY_LINE.fullmatch(text, end + 1, next_end):
                end = next_end
        spans.append((start, end))
    return spans


def redact_pem(text: str) -> str:
    """``text`` with private keys, whole or in fragments, replaced by ``[redacted:private-key]``."""
    if "PRIVATE KEY" in text:
        text = _whole_blocks(text)
        if "-----END" in text:
            spans = _orphan_end_spans(text)
            if spans:
                text = _replace_spans(text, spans, KEY_MARK)
    if "\n" in text and _WIDE.search(text) is not None:
        spans = _body_spans(text)
        if spans:
            text = _replace_spans(text, spans, KEY_MARK)
    return text


# --- split tokens -----------------------------------------------------------------------------

_TOKEN = "A-Za-z0-9_+/=.~-"
_PIECE = Lazy(r"[ \t]{0,8}(?:[|>][ \t]{0,4})?(?P<piece>[" + _TOKEN + r"]{1,400})")
_BREAK = Lazy(r"\\?\r?\n")
_split_scanners: dict[tuple[str, ...], Lazy] = {}


def _scanner(prefixes: tuple[str, ...]) -> Lazy:
    scanner = _split_scanners.get(prefixes)
    if scanner is None:
        import re

        alternatives = "|".join(re.escape(prefix) for prefix in prefixes)
        scanner = Lazy(r"(?i)(?:" + alternatives + r")[" + _TOKEN + r"]{0,400}(?=\\?\r?\n)")
        _split_scanners[prefixes] = scanner
    return scanner


def redact_split(
    text: str,
    lowered: str,
    prefixes: tuple[str, ...],
    find: Callable[[str], tuple[str, int] | None],
) -> str:
    """``text`` with provider tokens cut by line breaks replaced, all pieces.

    ``prefixes``: the lower-case prefixes the provider shapes start with; ``find(joined)``: the
    kind and end of a provider shape matching at the start of ``joined``, or ``None``.
    """
    if "\n" not in text or not any(prefix in lowered for prefix in prefixes):
        return text
    spans: list[tuple[int, int, str]] = []
    for first in _scanner(prefixes).finditer(text):
        pieces = [(first.start(), first.end())]
        pos = first.end()
        for _ in range(16):  # at most 16 more lines
            brk = _BREAK.match(text, pos)
            if brk is None:
                break
            piece = _PIECE.match(text, brk.end())
            if piece is None:
                break
            pieces.append(piece.span("piece"))
            pos = piece.end()
        if len(pieces) < 2:
            continue
        joined = "".join(text[a:b] for a, b in pieces)
        found = find(joined)
        if found is None:
            continue
        kind, end = found
        if end <= pieces[0][1] - pieces[0][0]:
            continue  # whole on its first line: the table's own rows have it
        used = 0
        for a, b in pieces:
            spans.append((a, b, kind))
            used += b - a
            if used >= end:
                break
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    last_kind = ""
    for start, end, kind in sorted(spans):
        if start < pos:
            continue
        same = kind == last_kind and text[pos:start].strip(" \t\r\n\\|>") == ""
        out.append(text[pos:start] + ("" if same and out else f"[redacted:{kind}]"))
        last_kind = kind
        pos = end
    out.append(text[pos:])
    return "".join(out)


# --- encoded secrets --------------------------------------------------------------------------

_BASE64_RUN = Lazy(
    r"(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{24,8192}={0,2}|[A-Za-z0-9_-]{24,8192}={0,2})"
    r"(?![A-Za-z0-9+/=_-])"
)
_HEX_RUN = Lazy(r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{2}){12,4096}(?![0-9A-Za-z])")


def _decode(run: str) -> str | None:
    import base64
    import binascii

    if len(run) % 2 == 0 and all(ch in "0123456789abcdefABCDEF" for ch in run):
        try:
            raw = bytes.fromhex(run)
        except ValueError:
            return None
    else:
        body = run.replace("-", "+").replace("_", "/").rstrip("=")
        if len(body) % 4 == 1:
            return None
        try:
            raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        except (binascii.Error, ValueError):
            return None
    return raw.decode("ascii") if _readable(raw) else None


def redact_encoded(text: str, find: Callable[[str], str | None]) -> str:
    """``text`` with each base64 or hex run that decodes to text holding a secret replaced by
    ``[redacted:<kind>]``; ``find(decoded)``: the kind of the first secret in it, or ``None``."""
    spans: list[tuple[int, int, str]] = []
    for pattern in (_BASE64_RUN, _HEX_RUN):
        for run in pattern.finditer(text):
            decoded = _decode(run.group(0))
            if decoded is None:
                continue
            kind = find(decoded)
            if kind is not None:
                spans.append((run.start(), run.end(), kind))
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end, kind in sorted(spans):
        if start < pos:
            continue
        out.append(text[pos:start] + f"[redacted:{kind}]")
        pos = end
    out.append(text[pos:])
    return "".join(out)
