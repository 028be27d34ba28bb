"""Sanitising text that came from tools, commands or users before it reaches a memory file (pure).

Whatever pokayokay quotes into a file Claude Code loads (a rule under ``.claude/rules/``, a topic
file, recalled learnings) is read by the model in every later session, so it is a prompt-injection
surface. :func:`clean` turns arbitrary text into one harmless line; :func:`excerpt` also shortens
it. Both are pure, deterministic and idempotent (``clean(clean(x)) == clean(x)``).

What :func:`clean` does, repeated until the text stops changing:

0. replaces secrets (API keys, tokens, passwords in key positions, URL credentials, private
   keys …) with ``[redacted:<kind>]`` (:func:`pokayokay.safety.redact.redact`), so whatever is
   quoted into a memory file or printed never carries one, whichever way it came in;
1. drops terminal escape sequences (ANSI colours), decodes HTML entities (``&lt;system&gt;``
   becomes a tag, and is then removed as one) and folds Unicode compatibility forms with NFKC
   (fullwidth ``＜ｓｙｓｔｅｍ＞`` becomes ``<system>``); the ellipsis ``…`` is kept as it is;
2. drops invisible characters: control and format characters (zero-width spaces and joiners,
   bidi overrides, Unicode tag characters, the BOM), private-use, unassigned and surrogate code
   points, invisible fillers (Hangul fillers, braille blank) and combining marks stacked on ASCII
   letters; line and paragraph separators count as whitespace;
3. treats angle-bracket look-alikes (``‹ › 〈 〉 ⟨ ⟩ ❮ ❯ ˂ ˃`` …) as ``<`` and ``>``;
4. removes ``<script>`` and ``<style>`` blocks with their content, HTML comments and CDATA, every
   ``<...>``-looking tag (``<system-reminder>``, ``</x>``, ``<|im_start|>``; an unterminated
   ``<tagname`` too), keeping the text between tags;
5. keeps the label of markdown links and images and drops their URL (``[label](url)``,
   ``![alt](url)``), removes link reference definitions (``[ref]: url``) and bare URLs
   (``http(s)://``, ``ftp://``, ``file://``, ``ssh://``, ``git://``, ``ws(s)://``, ``www.``,
   ``javascript:``, ``data:``, ``vbscript:``);
6. removes instruction-pattern phrases — "IMPORTANT:", "NOTE TO AI", "ignore (all) (the)
   previous/prior/above instructions" and its kin ("forget", "override", "bypass"), "disregard …",
   "you are now", "from now on", "new instructions", "system prompt", "pretend you are",
   "developer mode", "jailbreak", "do anything now" — and the role markers ``system:``,
   ``assistant:``, ``user:``, ``human:``, ``developer:`` wherever they stand, ``[INST]`` and
   chat-template tokens. Matching ignores case, tolerates look-alike letters (Cyrillic and Greek
   homoglyphs, ``1``/``!``/``|`` for ``i``, ``0`` for ``o`` …) and any short run of punctuation or
   whitespace between words, including a line break;
7. removes code fences (runs of two or more backticks, three or more tildes) — a single backtick
   stays —, every remaining ``<``/``>`` and look-alike, and breaks ``](`` apart;
8. collapses all whitespace (line breaks included) into single spaces: the result is one line.

A removal leaves a space, and the steps run again until nothing changes, so pieces that only
form a dangerous phrase once something between them is gone ("ign<b></b>ore previous
instructions") are caught too. Input that is still changing after a bounded number of rounds is
reduced to plain ASCII words with every trigger word dropped.

Comparison operators survive as ``≤``, ``≥``, arrows as ``→`` and ``⇒``; other ``<`` and ``>``
are removed, so excerpts of code lose them: excerpts are evidence for a human-sized summary, not
something to run.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator

from pokayokay.safety.redact import redact

__all__ = ["DEFAULT_LIMIT", "clean", "excerpt"]

DEFAULT_LIMIT = 160
ELLIPSIS = "…"
MAX_ROUNDS = 12
# excerpt() never needs more than this much raw input per character of output.
_RAW_PER_CHAR = 24
_RAW_MIN = 4096

# --- characters -------------------------------------------------------------------------------

_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x85\u2028\u2029")
# Letters and symbols that render as nothing: used to hide words.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")

# Single angle brackets that read as < and >; mapped before tags are removed.
_ANGLE_OPEN = "‹〈⟨❬❮❰⧼ᐸ˂˱⦉⦑⧀⟪《〈﹤＜"
_ANGLE_CLOSE = "›〉⟩❭❯❱⧽ᐳ˃˲⦊⦒⧁⟫》〉﹥＞"
_ANGLE_MAP = str.maketrans({**dict.fromkeys(_ANGLE_OPEN, "<"), **dict.fromkeys(_ANGLE_CLOSE, ">")})
# Other angle-ish characters: removed outright (guillemets are quotes, not tags).
_ANGLE_OTHER = "«»≮≯⋖⋗⪡⪢≺≻"

# Latin letters and the characters that pass for them: non-ASCII look-alikes are folded onto the
# letter in the skeleton (see _skeleton); ASCII digits and symbols stay, and the phrase patterns
# accept them where a letter is expected (SYMBOLS).
_CONFUSABLES: dict[str, str] = {
    "a": "аАαΑɑ",
    "b": "ЬвВβΒ",
    "c": "сСϲϹ",
    "d": "ԁ",
    "e": "еЕεΕёЁ",
    "g": "ɡ",
    "h": "һҺΗ",
    "i": "іІıΙιӏ",
    "j": "јЈ",
    "k": "кКκΚ",
    "m": "мМΜ",
    "n": "Νп",
    "o": "оОοΟσ",
    "p": "рРρΡ",
    "q": "ԛ",
    "r": "гГ",
    "s": "ѕЅ",
    "t": "тТτΤ",
    "u": "υ",
    "v": "νѵ",
    "w": "ѡԝ",
    "x": "хХχΧ",
    "y": "уУγ",
    "z": "Ζ",
}
_SYMBOLS: dict[str, str] = {
    "a": "@4",
    "e": "3",
    "i": "1!|l",
    "l": "1|i",
    "o": "0",
    "s": "5$",
    "t": "7",
}


class _Lazy:
    """A regular expression compiled on first use: importing this module stays cheap."""

    __slots__ = ("_args", "_regex")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._regex: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = re.compile(*self._args)
        return self._regex

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.regex.sub(repl, text)

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.regex.finditer(text)


def _skeleton_table() -> dict[int, str]:
    table = {ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
    for letter, chars in _CONFUSABLES.items():
        for ch in chars:
            table.setdefault(ord(ch), letter)
    return table


_SKELETON = _skeleton_table()


def _skeleton(text: str) -> tuple[str, list[int]]:
    """The text the phrase patterns run on, and where each of its characters comes from.

    ASCII letters are lowercased and look-alike letters folded onto them; the one or two
    characters between spaced-out single letters ("i g n o r e", "i.g.n.o.r.e") are left out,
    so the patterns need no gap between letters. The patterns are then small ASCII expressions,
    cheap to compile (hooks import this module), where case-insensitive Unicode classes and
    gaps everywhere took most of a second.
    """
    folded = text.translate(_SKELETON)
    gaps: set[int] = set()
    for run in _SPACED.finditer(folded):
        gaps.update(i for i in range(run.start(), run.end()) if not folded[i].isalnum())
    if not gaps:
        return folded, list(range(len(folded)))
    keep = [i for i in range(len(folded)) if i not in gaps]
    return "".join(folded[i] for i in keep), keep


# Three or more single letters (or look-alike digits and symbols) one or two characters apart.
_SPACED = _Lazy(r"(?<![a-z0-9])[a-z0-9@$!|](?:[\W_]{1,2}[a-z0-9@$!|](?![a-z0-9])){2,}")


# --- patterns ---------------------------------------------------------------------------------

_FLAGS = re.IGNORECASE | re.DOTALL

_NOT_LETTER = r"[\W_]"
# Between the words of a phrase: up to six characters that are not letters (spaces, a line
# break, punctuation, markdown emphasis), or nothing (CamelCase).
_SEP = _NOT_LETTER + "{0,6}"
_SEP1 = _NOT_LETTER + "{1,6}"
_LEFT = r"(?<![a-z])"


def _fuzzy(word: str) -> str:
    """A skeleton regex for ``word``: digits and symbols that pass for its letters accepted."""
    out = []
    for ch in word:
        symbols = _SYMBOLS.get(ch)
        out.append(f"[{re.escape(ch + symbols)}]" if symbols else re.escape(ch))
    return "".join(out)


def _words(*alternatives: str) -> str:
    return "(?:" + "|".join(_fuzzy(w) for w in alternatives) + ")"


def _phrase(*parts: str, sep: str = _SEP) -> str:
    return sep.join(parts)


_QUANTS = ("all", "any", "every", "each", "the", "your", "my", "these", "those", "of", "its")
_QUALS = (
    "previous",
    "prior",
    "above",
    "earlier",
    "preceding",
    "former",
    "foregoing",
    "original",
    "initial",
    "system",
    "safety",
    "other",
)
_NOUNS = (
    "instructions",
    "instruction",
    "prompts",
    "prompt",
    "directions",
    "directives",
    "directive",
    "rules",
    "rule",
    "guidelines",
    "guidance",
    "messages",
    "message",
    "context",
    "commands",
    "constraints",
    "orders",
    "conversation",
    "everything",
)
_VERBS = ("ignore", "forget", "override", "bypass")
_ADDRESSEES = ("ai", "assistant", "claude", "model", "llm", "agent", "system", "bot")
_NEW_WHAT = ("instructions", "instruction", "rules", "task")
_SYSTEM_WHAT = ("prompt", "prompts", "message", "override")
_MODES = ("developer", "god", "dan", "jailbreak", "unrestricted")
_ROLES = ("system", "assistant", "user", "human", "developer")
_TOKENS = ("im_start", "im_end", "im_sep", "endoftext")
_QUANT = _words(*_QUANTS)
_QUAL = _words(*_QUALS)
_NOUN = _words(*_NOUNS)
_VERB = _words(*_VERBS)


def _canon_table() -> dict[int, str]:
    """Each letter of :data:`_SYMBOLS` and the characters that pass for it, as one character
    (``i``, ``l``, ``1``, ``!`` and ``|`` share one, since ``1`` passes for both letters)."""
    parent: dict[str, str] = {}

    def root(ch: str) -> str:
        while parent.get(ch, ch) != ch:
            ch = parent[ch]
        return ch

    for letter, symbols in _SYMBOLS.items():
        for ch in symbols:
            parent[root(ch)] = root(letter)
    return {ord(ch): root(ch) for ch in parent}


_CANON = _canon_table()


def _need(*words: str) -> tuple[str, ...]:
    """One of ``words`` must be in the canonical skeleton (:data:`_CANON`) for a phrase to
    match: a fuzzy letter of a word matches only characters of its canonical class."""
    return tuple(w.translate(_CANON) for w in words)


# Matched against the skeleton (lowercase). Phrases match inside words too ("xignore previous
# instructionsx" reads the same to a model); only the role markers and "important:" need a word
# start ("subsystem:", "unimportant:"). Each pattern comes with what it needs: words (and
# literal characters) of which one per group must be in the canonical skeleton, checked before
# the pattern is compiled or run, so a text without them costs no regex work.
_PHRASES: tuple[tuple[tuple[tuple[str, ...], ...], _Lazy], ...] = tuple(
    (needs, _Lazy(p, re.DOTALL))
    for needs, p in (
        # ignore (all) (the) previous instructions, forget everything above, ...
        (
            (_need(*_VERBS), _need(*_QUALS)),
            _VERB + f"(?:{_SEP}{_QUANT})*(?:{_SEP}{_QUAL})+(?:{_SEP}{_NOUN})?",
        ),
        ((_need(*_VERBS), _need(*_NOUNS)), _VERB + f"(?:{_SEP}{_QUANT})*{_SEP}{_NOUN}"),
        # disregard, with whatever qualifies it
        (
            (_need("disregard"),),
            _fuzzy("disregard")
            + f"(?:{_words('ed', 'ing', 's')})?(?:{_SEP}(?:{_QUANT}|{_QUAL}|{_NOUN}))*",
        ),
        ((_need("important"),), _LEFT + _fuzzy("important") + r"\s*[:!]+"),
        (
            (_need("note"), _need("to"), _need(*_ADDRESSEES)),
            _phrase(
                _fuzzy("note"),
                _fuzzy("to"),
                f"(?:{_fuzzy('the')}{_SEP})?" + _words(*_ADDRESSEES),
                sep=_SEP1,
            ),
        ),
        (
            (_need("you"), _need("are"), _need("now")),
            _phrase(_fuzzy("you"), _fuzzy("are"), _fuzzy("now"), sep=_SEP1),
        ),
        (
            (_need("from"), _need("now"), _need("on")),
            _phrase(_fuzzy("from"), _fuzzy("now"), _fuzzy("on"), sep=_SEP1),
        ),
        ((_need("new"), _need(*_NEW_WHAT)), _phrase(_fuzzy("new"), _words(*_NEW_WHAT))),
        (
            (_need("system"), _need(*_SYSTEM_WHAT)),
            _phrase(_fuzzy("system"), _words(*_SYSTEM_WHAT)),
        ),
        (
            (_need("pretend"), _need("to be", "you are", "that")),
            _phrase(_fuzzy("pretend"), _words("to be", "you are", "that"), sep=_SEP1),
        ),
        ((_need(*_MODES), _need("mode")), _phrase(_words(*_MODES), _fuzzy("mode"))),
        ((_need("jailbreak"),), _phrase(_fuzzy("jailbreak") + "(?:s|ed|ing)?")),
        (
            (_need("do"), _need("anything"), _need("now")),
            _phrase(_fuzzy("do"), _fuzzy("anything"), _fuzzy("now"), sep=_SEP1),
        ),
        # role markers, at a line start or anywhere
        ((_need(*_ROLES), (":",)), _LEFT + _words(*_ROLES) + r"\s*:"),
        # chat-template debris
        ((_need("inst", "sys"), ("[",), ("]",)), r"\[\s*/?\s*" + _words("inst", "sys") + r"\s*\]"),
        ((_need(*_TOKENS),), _LEFT + r"\|?\s*" + _words(*_TOKENS) + r"\s*\|?"),
        (
            (_need("system"), _need("reminder")),
            _fuzzy("system") + r"[\s_-]*" + _fuzzy("reminder") + "s?",
        ),
    )
)

# Terminal colour and cursor sequences (their letters would glue onto the next word).
_ANSI = _Lazy(
    r"\x1b\[[0-9;?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[()][A-Za-z0-9]"
    r"|\x9b[0-9;?]*[@-~]"
)
_SCRIPT_STYLE = _Lazy(r"<\s*(script|style)\b[^>]*>.*?<\s*/\s*\1\s*>", _FLAGS)
_SCRIPT_STYLE_OPEN = _Lazy(r"<\s*(?:script|style)\b.*\Z", _FLAGS)
_CDATA = _Lazy(r"<!\[CDATA\[.*?(?:\]\]>|\Z)", re.DOTALL)
# A run of adjacent comments, chat-template tokens and tags, removed as one piece.
_TAGS = _Lazy(r"(?:<!--.*?(?:-->|\Z)|<\|[^<>]*?\|>|<\s*/?\s*[A-Za-z!?|/][^<>]*>)+", re.DOTALL)
_TAG_UNTERMINATED = _Lazy(r"<\s*/?\s*[A-Za-z][\w:.-]*")
_LINK_TARGET = r"\((?:[^()]|\([^()]*\))*\)"
_IMAGE = _Lazy(r"!\[([^\[\]]*)\]" + _LINK_TARGET)
_LINK = _Lazy(r"\[([^\[\]]*)\]" + _LINK_TARGET)
_REF_DEF = _Lazy(r"(?m)^[ \t]{0,3}\[[^\[\]]+\]:[ \t]*\S+.*$")
_URL = _Lazy(
    r"(?:(?:https?|ftp|ftps|file|ssh|git|wss?|sftp)\s*:\s*/\s*/\S*"
    r"|(?:javascript|vbscript)\s*:\S*"
    r"|\bdata:\S+"
    r"|\bwww\.\S+)",
    re.IGNORECASE,
)
_FENCE = _Lazy(r"`{2,}|~{3,}")
_LINK_JOIN = _Lazy(r"\]\s*\(")
_OPERATORS = (("<=", "≤"), (">=", "≥"), ("->", "→"), ("=>", "⇒"))
_ANGLES = _Lazy("[<>" + re.escape(_ANGLE_OTHER) + "]")
_SPACES = _Lazy(r"\s+")
_ENTITY = _Lazy(r"&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);?")

# Words that make the fallback drop a token (the last resort for input that keeps changing).
_TRIGGERS = frozenset(
    {
        "ignore",
        "disregard",
        "forget",
        "override",
        "bypass",
        "important",
        "instructions",
        "instruction",
        "system",
        "assistant",
        "user",
        "human",
        "developer",
        "prompt",
        "jailbreak",
        "pretend",
        "reminder",
    }
)


# --- steps ------------------------------------------------------------------------------------


def _decode_entities(text: str) -> str:
    for _ in range(8):
        if "&" not in text or not _ENTITY.search(text):
            return text
        import html  # only for text with an entity in it

        decoded = html.unescape(text)
        if decoded == text:
            return text
        text = decoded
    return text


def _nfkc(text: str) -> str:
    """NFKC, except that the ellipsis stays one character (excerpts end with it)."""
    if text.isascii():
        return text
    return ELLIPSIS.join(unicodedata.normalize("NFKC", part) for part in text.split(ELLIPSIS))


def _visible(chars: Iterable[str]) -> str:
    out: list[str] = []
    for ch in chars:
        if ch in _LINE_BREAKS:
            out.append("\n")  # kept until the end of the round, for line-anchored patterns
            continue
        if ch == "\t":
            out.append(" ")
            continue
        if ch.isascii() and ch.isprintable():
            out.append(ch)
            continue
        if ch in _INVISIBLE:
            continue
        category = unicodedata.category(ch)
        if category in _DROP_CATEGORIES:
            continue
        if category in ("Mn", "Me") and out and out[-1].isascii():
            continue  # a mark stacked on an ASCII letter hides it from the phrase patterns
        out.append(ch)
    return "".join(out)


def _gone(match: re.Match[str]) -> str:
    """What a removed tag leaves: nothing inside a word ("ign<b></b>ore"), else a space."""
    text = match.string
    start, end = match.start(), match.end()
    inside = start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
    return "" if inside else " "


def _strip_markup(text: str) -> str:
    text = _SCRIPT_STYLE.sub(" ", text)
    text = _SCRIPT_STYLE_OPEN.sub(" ", text)
    text = _CDATA.sub(" ", text)
    text = _TAGS.sub(_gone, text)
    text = _TAG_UNTERMINATED.sub(" ", text)
    text = _REF_DEF.sub(" ", text)
    text = _IMAGE.sub(lambda m: f" {m[1]} ", text)
    text = _LINK.sub(lambda m: f" {m[1]} ", text)
    return text


def _strip_phrases(text: str) -> str:
    skeleton, origin = _skeleton(text)
    canon = skeleton.translate(_CANON)
    for needs, pattern in _PHRASES:
        if not all(any(word in canon for word in group) for group in needs):
            continue  # the pattern cannot match: neither compiled nor run
        spans = [
            (origin[m.start()], origin[m.end() - 1] + 1)
            for m in pattern.finditer(skeleton)
            if m.end() > m.start()
        ]
        if not spans:
            continue
        parts, last = [], 0
        for start, end in spans:
            parts.append(text[last:start])
            parts.append(" ")
            last = end
        parts.append(text[last:])
        text = "".join(parts)
        skeleton, origin = _skeleton(text)
        canon = skeleton.translate(_CANON)
    return text


def _scrub(text: str) -> str:
    for op, sign in _OPERATORS:
        text = text.replace(op, f" {sign} ")
    text = _ANGLES.sub(" ", text)
    text = _FENCE.sub(" ", text)
    text = _LINK_JOIN.sub("] ", text)
    return text


def _round(text: str) -> str:
    text = redact(text)
    text = _ANSI.sub("", text)
    text = _decode_entities(text)
    text = _nfkc(text)
    text = _visible(text)
    text = text.translate(_ANGLE_MAP)
    text = _strip_markup(text)
    text = _URL.sub(" ", text)
    text = _strip_phrases(text)
    text = _scrub(text)
    return _SPACES.sub(" ", text).strip()


def _last_resort(text: str) -> str:
    """Plain ASCII words without a trigger word: for input that never settles."""
    words = re.sub(r"[^A-Za-z0-9 .,;:=+/_-]", " ", text).split()
    kept = [w for w in words if re.sub(r"[^a-z]", "", w.lower()) not in _TRIGGERS]
    return " ".join(w.rstrip(":") for w in kept)


def clean(text: str) -> str:
    """``text`` made safe to quote into a memory file: one line, no markup, no instructions."""
    if not text:
        return ""
    current = text
    for _ in range(MAX_ROUNDS):
        following = _round(current)
        if following == current:
            return current
        current = following
    fallback = _last_resort(current)
    return fallback if _round(fallback) == fallback else ""


def excerpt(text: str, limit: int = DEFAULT_LIMIT) -> str:
    """A short, sanitised, single-line excerpt of ``text``: at most ``limit`` characters.

    Longer text is cut at a word boundary (or mid-word when a single word is too long) and ends
    with "…".
    """
    if limit <= 0 or not text:
        return ""
    raw_cap = max(_RAW_MIN, limit * _RAW_PER_CHAR)
    cleaned = clean(text[:raw_cap])
    if len(cleaned) <= limit:
        return cleaned
    if limit == 1:
        return ELLIPSIS
    head = cleaned[: limit - 1]
    if cleaned[limit - 1] != " ":
        space = head.rfind(" ")
        if space >= (limit - 1) // 2:
            head = head[:space]
    head = head.rstrip(" .,;:-") or cleaned[: limit - 1]
    # A cut can end a word that was safe only because more letters followed ("disregarded"):
    # the shortened text is cleaned once more.
    head = clean(head).rstrip(" .,;:-")
    return head + ELLIPSIS
