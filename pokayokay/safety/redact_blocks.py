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
  and tested against the provider shapes, and every piece goes (past 256 such tokens in one
  text, a text built to be slow, the rest are replaced unread: ``[redacted:unscanned]``);
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
_HEX_LINE = Lazy(r"[0-9a-fA-F]+")
_WIDE = Lazy(r"(?m)^[ \t]{0,8}[A-Za-z0-9+/]{60,76}[ \t]{0,8}\r?$")


def _mixed(piece: str) -> bool:
    return any(c.isdigit() for c in piece) and any(c.isalpha() for c in piece)


def _replace_spans(text: str, spans: list[tuple[int, int]], mark: str) -> str:
    out: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start < pos:  # overlaps the span before: one mark for both
            pos = max(pos, end)
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


def _random_piece(piece: str) -> bool:
    """A cut key line: letters and digits, or ``+``/``/``, or both cases over 12 characters."""
    piece = piece.strip().rstrip("=")
    if len(piece) < 4:
        return False
    if "+" in piece or "/" in piece or _mixed(piece):
        return True
    return len(piece) >= 12 and piece != piece.lower() and piece != piece.upper()


def _body_spans(text: str) -> list[tuple[int, int]]:
    """Runs of key lines of one width (60 to 76), with a cut line either side: two lines or
    more in all."""
    spans = []
    lines = list(_WIDE.finditer(text))
    i = 0
    covered = 0
    while i < len(lines):
        if lines[i].start() < covered:  # the cut line below the run before
            i += 1
            continue
        run = [lines[i]]
        width = len(lines[i].group(0).strip())
        while (
            i + len(run) < len(lines)
            and lines[i + len(run)].start() == run[-1].end() + 1
            and len(lines[i + len(run)].group(0).strip()) == width
        ):
            run.append(lines[i + len(run)])
        i += len(run)
        full = [m.group(0).strip() for m in run]
        if all(_HEX_LINE.fullmatch(line) for line in full):
            continue  # digests
        start, end, count = run[0].start(), run[-1].end(), len(run)
        if start > 0:  # a cut first line above
            prev_start = text.rfind("\n", 0, start - 1) + 1
            tail = _key_tail(text, prev_start, start - 1)
            if tail is not None and _random_piece(text[tail : start - 1]):
                start, count = tail, count + 1
        if end < len(text):  # a last, shorter line below
            next_end = text.find("\n", end + 1)
            next_end = len(text) if next_end < 0 else next_end
            if _KEY_LINE.fullmatch(text, end + 1, next_end) and _random_piece(
                text[end + 1 : next_end]
            ):
                end, count = next_end, count + 1
                covered = end
        if count < 2 or _public_armor(text, run[0].start(), run[-1].end()):
            continue
        if _readable(_decoded_lines(full)):
            continue  # base64 of readable text: test data
        spans.append((start, end))
    return spans


def may_be_wide(text: str) -> bool:
    """A necessary condition of ``_WIDE.search(text)``, read without compiling it: a line with
    at most eight spaces or tabs before sixty base64 characters (most outputs have none, and
    the pattern is then never compiled; ``tests/safety/test_prefilters.py`` holds it to the
    pattern)."""
    for line in text.split("\n"):
        body = line.lstrip(" \t")
        if len(body) >= 60 and len(line) - len(body) <= 8:
            head = body[:60].replace("+", "a").replace("/", "a")
            if head.isascii() and head.isalnum():
                return True
    return False


def redact_pem(text: str) -> str:
    """``text`` with private keys, whole or in fragments, replaced by ``[redacted:private-key]``."""
    if "PRIVATE KEY" in text:
        text = _whole_blocks(text)
        if "-----END" in text:
            spans = _orphan_end_spans(text)
            if spans:
                text = _replace_spans(text, spans, KEY_MARK)
    if "\n" in text and may_be_wide(text) and _WIDE.search(text) is not None:
        spans = _body_spans(text)
        if spans:
            text = _replace_spans(text, spans, KEY_MARK)
    return text


# --- split tokens -----------------------------------------------------------------------------

_TOKEN = "A-Za-z0-9_+/=.~-"
_PIECE = Lazy(r"[ \t]{0,8}(?:[|>][ \t]{0,4})?(?P<piece>[" + _TOKEN + r"]{1,400})")
_BREAK = Lazy(r"\\?\r?\n")
_MAX_LINES = 24  # lines a token may go on over (a JWT wrapped at 8 columns)
_MAX_CANDIDATES = 256  # tokens tested per text; any more are replaced unread
_TO_BREAK = Lazy(r"[a-z0-9_+/=.~-]{1,400}(?=\\?\r?\n)")
_EDGE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _starts(lowered: str, prefixes: tuple[str, ...]) -> list[tuple[int, int]]:
    """Each token that starts with one of ``prefixes`` at a word edge and runs into a line
    break: (start, end), in the lower-cased text."""
    found: dict[int, int] = {}
    for prefix in prefixes:
        at = lowered.find(prefix)
        while at >= 0:
            if (at == 0 or lowered[at - 1] not in _EDGE) and at not in found:
                run = _TO_BREAK.match(lowered, at)
                if run is not None:
                    found[at] = run.end()
            at = lowered.find(prefix, at + 1)
    return sorted(found.items())


# A word: lower case, Capitalised, UPPER, or CamelCase of syllables (three letters or more, a
# vowel in each: random letters seldom are).
_WORD = Lazy(r"[A-Z]?[a-z]+|[A-Z]+|(?:[A-Z](?=[a-z]{0,40}[aeiouy])[a-z]{2,})+")


def _token_like(piece: str) -> bool:
    """A line's first word that goes on a token: letters and digits, or eight characters or
    more that are not a word (lower, Capitalised, UPPER or CamelCase)."""
    return _mixed(piece) or (len(piece) >= 8 and _WORD.fullmatch(piece) is None)


def _first_whole(texts: list[str], find: Callable[[str], tuple[str, int] | None]) -> int:
    """The most of the ``texts`` (a token's pieces, line by line) that joined hold a whole
    provider token ending exactly at their last line break; ``len(texts)`` when none do (the
    most: ``sk-ant-api03-…`` wrapped at 8 columns is already a whole key after ten lines).

    A token may end there: a line after it belongs to the token only if it starts with
    something token-like. ``ghp_…`` wrapped over two lines and then ``401 Unauthorized`` keeps
    the ``401``, which the greedy row would otherwise take as the token's tail.
    """
    joined = ""
    whole = 0
    for count, piece in enumerate(texts[:-1], 1):
        joined += piece
        found = find(joined)
        if found is not None and found[1] == len(joined):
            whole = count  # a shape of variable length may also end at a later break
    return whole or len(texts)


def redact_split(
    text: str,
    lowered: str,
    prefixes: tuple[str, ...],
    find: Callable[[str], tuple[str, int] | None],
) -> str:
    """``text`` with provider tokens cut by line breaks replaced, all pieces.

    ``lowered``: ``text`` lower-cased; ``prefixes``: the lower-case prefixes the provider
    shapes start with that occur in it; ``find(joined)``: the kind and end of a provider shape
    matching at the start of ``joined``, or ``None``.
    """
    if "\n" not in text:
        return text
    spans: list[tuple[int, int, str]] = []
    if len(lowered) != len(text):  # a character whose lower case is longer (U+0130)
        from pokayokay.infra.spans import lower_in_place  # rare: imported only here

        lowered = lower_in_place(text)
    for tested, (start, end) in enumerate(_starts(lowered, prefixes)):
        pieces = [(start, end)]
        pos = end
        for _ in range(_MAX_LINES):
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
        texts = [text[a:b] for a, b in pieces]
        if tested >= _MAX_CANDIDATES:  # a text built to make this slow: not passed on unread
            if sum(map(len, texts)) >= 20:
                spans.extend((a, b, "unscanned") for a, b in pieces)
            continue
        ends = _first_whole(texts, find)
        for k in range(len(pieces), 1, -1):  # the most lines the token reaches into
            if ends < k and not all(_token_like(piece) for piece in texts[ends:k]):
                continue  # whole at a line break, and a later line starts with a word
            found = find("".join(texts[:k]))
            if found is not None and found[1] > sum(len(t) for t in texts[: k - 1]):
                spans.extend((a, b, found[0]) for a, b in pieces[:k])
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

# A run of base64 (standard or URL-safe) or hex characters, classified after the match: one
# scan of the text, whatever the encoding.
_ENCODED_RUN = Lazy(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,8192}={0,2}(?![A-Za-z0-9+/_=-])")
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")


_B64_VALUE = {
    ch: value
    for value, ch in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
}


def head_bytes(head: str) -> bytes:
    """``base64.b64decode(head, validate=True)`` for 16 characters of the standard alphabet
    (12 bytes, no padding): read here, so that an output whose runs are no base64 (most
    identifiers of 24 characters or more) costs no import of base64, struct and binascii."""
    n = 0
    for ch in head:
        n = n << 6 | _B64_VALUE[ch]
    return n.to_bytes(12, "big")


def _decode(run: str) -> str | None:
    if len(run) % 2 == 0 and _HEX_CHARS.issuperset(run):
        try:
            raw = bytes.fromhex(run)
        except ValueError:
            return None
    else:
        if ("-" in run or "_" in run) and ("+" in run or "/" in run):
            return None  # neither alphabet
        body = run.replace("-", "+").replace("_", "/").rstrip("=")
        if len(body) % 4 == 1:
            return None
        # The first twelve bytes first: most runs are binary, or no base64 at all. The run's
        # 24 characters or more (the pattern), all of the alphabet once "-" and "_" are mapped.
        if not _readable(head_bytes(body[:16])):
            return None
        import base64
        import binascii

        try:
            raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        except (binascii.Error, ValueError):
            return None
    # readable is 95% printable ASCII: the other bytes are replaced, never a decoding error
    return raw.decode("ascii", "replace") if _readable(raw) else None


def redact_encoded(text: str, find: Callable[[str], str | None]) -> str:
    """``text`` with each base64 or hex run that decodes to text holding a secret replaced by
    ``[redacted:<kind>]``; ``find(decoded)``: the kind of the first secret in it, or ``None``."""
    spans: list[tuple[int, int, str]] = []
    for run in _ENCODED_RUN.finditer(text):
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
