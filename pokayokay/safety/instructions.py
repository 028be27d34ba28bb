"""Whether a text speaks to the model (pure): instruction phrases, role markers, imperatives,
dangerous commands and links, found in tool output or file names before anything of it is shown.

pokayokay never rewrites text to make it harmless; it decides whether a piece of tool text may
be shown at all (:func:`pokayokay.safety.sanitize.tool_line`, the file names of
:mod:`pokayokay.rules.evidence`). :func:`speaks` says no to a text that

* holds an instruction-pattern phrase — "IMPORTANT:", "NOTE TO AI", "ignore (all) (the)
  previous/prior/above instructions" and its kin ("forget", "override", "bypass"), "disregard …",
  "you are now", "from now on", "new instructions", "system prompt", "pretend you are",
  "developer mode", "jailbreak", "do anything now", "system reminder" —, a role marker
  (``system:``, ``assistant:``, ``user:``, ``human:``, ``developer:``), ``[INST]`` or a
  chat-template token. Matching ignores case, tolerates look-alike letters (Cyrillic and Greek
  homoglyphs, ``1``/``!``/``|`` for ``i``, ``0`` for ``o`` …), spaced-out letters, invisible
  characters, HTML entities and Unicode compatibility forms, and any short run of punctuation or
  white space between words;
* addresses the reader: an imperative verb at the start of a clause ("… and run git push",
  "; delete the tests folder", "Please install …") or "you must / you should / you need to /
  make sure";
* holds a dangerous command (:func:`pokayokay.safety.commands.danger`) or a link;
* starts a line with a markdown heading (``#``), or holds a tag a model reads as a turn or a
  program (``<system>``, ``<script>``, ``<|im_start|>``).

It errs on the side of silence: a tool message that says "Run `cargo fix`" is not shown either.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator

__all__ = ["has_link", "injected", "speaks"]

_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x85\u2028\u2029")
# Letters and symbols that render as nothing: used to hide words.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")

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


def _skeleton(text: str) -> str:
    """The text the phrase patterns run on.

    ASCII letters are lowercased and look-alike letters folded onto them; the one or two
    characters between spaced-out single letters ("i g n o r e", "i.g.n.o.r.e") are left out,
    so the patterns need no gap between letters. The patterns are then small ASCII expressions,
    cheap to compile (hooks import this module), where case-insensitive Unicode classes and
    gaps everywhere took most of a second.

    Only a yes or no comes out of it: ``text`` is already a normal form (NFKC, entities, tags
    gone: :func:`_normal`), whose indices are not those of the text shown, so no index of it is
    kept that a caller could cut the original with.
    """
    folded = text.translate(_SKELETON)
    gaps: set[int] = set()
    for run in _SPACED.finditer(folded):
        gaps.update(i for i in range(run.start(), run.end()) if not folded[i].isalnum())
    if not gaps:
        return folded
    return "".join(ch for i, ch in enumerate(folded) if i not in gaps)


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


_ENTITY = _Lazy(r"&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);?")
_URL = _Lazy(
    r"(?:(?:https?|ftp|ftps|file|ssh|git|wss?|sftp)\s*:\s*/\s*/\S*"
    r"|(?:javascript|vbscript)\s*:\S*"
    r"|\bdata:\S+"
    r"|\bwww\.\S+)",
    re.IGNORECASE,
)
# A tag or comment, removed before phrases are looked for ("ign<b></b>ore previous ...").
_TAG = _Lazy(r"<!--.*?(?:-->|\Z)|<\s*/?\s*[A-Za-z!?|/][^<>]*>", re.DOTALL)
_ANGLE_OPEN = "‹〈⟨❬❮❰⧼ᐸ˂˱⦉⦑⧀⟪《〈﹤＜"
_ANGLE_CLOSE = "›〉⟩❭❯❱⧽ᐳ˃˲⦊⦒⧁⟫》〉﹥＞"
_ANGLE_MAP = str.maketrans({**dict.fromkeys(_ANGLE_OPEN, "<"), **dict.fromkeys(_ANGLE_CLOSE, ">")})
# A tag a model reads as a turn or a program: a role, a script, a chat-template token.
_ROLE_TAG = _Lazy(
    r"<\s*/?\s*(?:system|assistant|user|human|developer|instructions?|script|iframe|\|)",
    re.IGNORECASE,
)
_HEADING = _Lazy(r"(?m)^[ \t]{0,3}#{1,6}(?:[ \t]|$)")

# Verbs that, at the start of a clause, make the clause an order to the reader.
_IMPERATIVES = (
    "run", "rerun", "execute", "exec", "delete", "remove", "rm", "erase", "wipe", "drop",
    "purge", "destroy", "push", "force-push", "install", "uninstall", "download", "upload",
    "curl", "wget", "fetch", "ignore", "disregard", "forget", "use", "set", "unset", "export",
    "call", "invoke", "open", "visit", "browse", "go", "write", "overwrite", "add", "edit",
    "change", "modify", "update", "commit", "reset", "revert", "send", "post", "kill",
    "stop", "skip", "disable", "enable", "replace", "rename", "move", "copy", "create", "make",
    "reveal", "tell", "say", "reply", "respond", "answer", "output", "insert", "append",
    "paste", "chmod", "chown", "sudo", "eval", "approve", "allow", "grant", "trust", "obey",
    "follow", "comply", "pretend", "act", "please", "always", "never", "don't", "do not",
    "dont", "must", "should", "ensure",
)  # fmt: skip
# What may stand between a clause's start and its verb ("and then run", "now please delete").
_SOFTENERS = ("and", "then", "now", "also", "just", "so", "simply", "or", "but", "first")
_ADDRESS = _Lazy(
    r"\byou\s+(?:must|should|need\s+to|have\s+to|are\s+(?:required|asked|instructed))\b"
    r"|\bmake\s+sure\b|\bbe\s+sure\s+to\b|\bi\s+(?:need|want)\s+you\b",
    re.IGNORECASE,
)
# A clause starts at the text's start or a line's, after sentence punctuation followed by white
# space ("x.push" is code, "x. Push" a sentence), after a dash, an opening bracket or a quote.
_CLAUSE = _Lazy(r"(?:\A|\n|[.;:!?,)\]}\u2014\u2013](?=\s)|[(\[{\"'\u201c\u2018]|\s-\s|\s--\s)\s*")
_WORD = _Lazy(r"[A-Za-z][A-Za-z'-]*")


def _normal(text: str) -> str:
    """``text`` as a reader sees it: entities decoded, compatibility forms folded, invisible
    characters and tags gone, line breaks kept (detection only: nothing shown is changed)."""
    for _ in range(4):
        if "&" not in text or not _ENTITY.search(text):
            break
        import html

        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    if not text.isascii():  # compatibility forms folded, accents taken off ("iġnore")
        text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    out: list[str] = []
    for ch in text:
        if ch == "\n" or (ch.isascii() and ch.isprintable()):
            out.append(ch)
        elif ch in _LINE_BREAKS:
            out.append("\n")
        elif (
            ch in _INVISIBLE
            or unicodedata.category(ch) in _DROP_CATEGORIES
            or unicodedata.category(ch) in ("Mn", "Me")
        ):
            continue
        else:
            out.append(" " if ch.isspace() else ch)
    return "".join(out).translate(_ANGLE_MAP)


def _forms(text: str) -> tuple[str, ...]:
    """The normal form of ``text``, and that form without its tags when it has any."""
    normal = _normal(text)
    bare = _TAG.sub("", normal) if "<" in normal else normal
    return (normal,) if bare == normal else (normal, bare)


def _phrase_found(text: str) -> bool:
    skeleton = _skeleton(text)
    canon = skeleton.translate(_CANON)
    for needs, pattern in _PHRASES:
        # a pattern is compiled and run only when the words it needs are there
        if all(any(word in canon for word in g) for g in needs) and pattern.search(skeleton):
            return True
    return False


def _imperative_found(text: str) -> bool:
    """An imperative verb starting a clause, followed by white space ("make: *** Error 1" is a
    tool's name, "make sure" and "run git push" are orders)."""
    for clause in _CLAUSE.finditer(text):
        rest = text[clause.end() : clause.end() + 80]
        words: list[tuple[str, int]] = []
        for match in _WORD.finditer(rest):
            words.append((match[0].lower().strip("'"), match.end()))
            if len(words) >= 4:
                break
        while words and words[0][0] in _SOFTENERS:
            words.pop(0)
        if not words:
            continue
        (first, end), pair = words[0], " ".join(w for w, _ in words[:2])
        followed = end < len(rest) and rest[end] in " \t"
        if (first in _IMPERATIVE_SET and followed) or pair in _IMPERATIVE_SET:
            return True
    return False


_IMPERATIVE_SET = frozenset(_IMPERATIVES)


def has_link(text: str) -> bool:
    """Whether ``text`` holds a link: a URL of any scheme (``javascript:``, ``data:`` too), or
    a scheme-less, defanged or spaced one (:func:`pokayokay.safety.commands.strip_links`)."""
    from pokayokay.safety.commands import strip_links

    return any(_URL.search(form) or strip_links(form) != form for form in _forms(text))


def injected(text: str) -> bool:
    """Whether ``text`` holds an instruction phrase or addresses the reader ("you must"), the
    part of :func:`speaks` that applies to code and commands, which are imperative by nature."""
    if not text:
        return False
    return any(_phrase_found(form) or _ADDRESS.search(form) is not None for form in _forms(text))


def speaks(text: str) -> bool:
    """Whether ``text`` would read to the model as something said to it (see the module)."""
    if not text:
        return False
    from pokayokay.safety.commands import danger, strip_links

    for form in _forms(text):
        if _phrase_found(form) or _imperative_found(form) or _ADDRESS.search(form):
            return True
        if _URL.search(form) or _HEADING.search(form) or _ROLE_TAG.search(form):
            return True
        if danger(form) is not None or strip_links(form) != form:
            return True
    return False
