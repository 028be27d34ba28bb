"""What a prompt asks for, beyond its subject (pure): whether the code, the text or the model
answers it rather than the team's notes or a skill.

Recall holds such a prompt to a clear match of its words
(:func:`pokayokay.relevance.note_index.recall`) and skill suggestion stays out of it
(:func:`pokayokay.skills.suggest.suggest`): every prompt of this kind in the labelled sets of both
calls for neither.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import IGNORECASE, Lazy
from pokayokay.infra.spans import replace_spans
from pokayokay.relevance.scan import case_folded, is_word_char, whole_word_spans

# "write a docstring for …", "explain what … does", "what does … mean?", "the difference between
# … and …", "fix the typo …", "update the link …": a question about the code or text at hand,
# or general knowledge, which the code, the text or the model answers, not the team's notes.
# Read by plain scans (no ``re`` on the prompt's path): what each finds is what the pattern in
# its comment finds, tested against it (``tests/relevance/test_asks_words.py``).

# \bdocstrings?\b | \bdifference between\b | \bfix (?:the|a|this|that) typos?\b
# | \b(?:broken|dead) links?\b | \b(?:fix|update) (?:the|that|this|a) links?\b
_EXPLAINING_WORDS = (
    "docstring", "docstrings", "difference between",
    *(f"fix {a} {typo}" for a in ("the", "a", "this", "that") for typo in ("typo", "typos")),
    *(f"{a} {link}" for a in ("broken", "dead") for link in ("link", "links")),
    *(
        f"{verb} {a} {link}"
        for verb in ("fix", "update")
        for a in ("the", "that", "this", "a")
        for link in ("link", "links")
    ),
)  # fmt: skip
# ^\W*what (?:does|do) .{1,80}?\b(?:do|mean|contain|return|run|change|print|output)\b
_WHAT_DOES = ("what does ", "what do ")
_DOES_VERBS = ("do", "mean", "contain", "return", "run", "change", "print", "output")
# Every text explains_code says yes to holds one of these, or "link" and "404".
EXPLAINS_WORDS = ("docstring", "explain what", "explain the difference", "difference between",
                  "what do", "typo", "link")  # fmt: skip


def _ends_word(text: str, at: int) -> bool:
    """``\\b`` at ``at`` after a word character: the end of the text or a non-word one."""
    return at >= len(text) or not is_word_char(text[at])


def _opening(text: str) -> int:
    """Where ``^\\W*`` ends: the first word character."""
    at = 0
    while at < len(text) and not is_word_char(text[at]):
        at += 1
    return at


def _asks_what_it_does(text: str) -> bool:
    """``^\\W*what (?:does|do) .{1,80}?\\b(?:do|mean|…)\\b``."""
    at = _opening(text)
    for opening in _WHAT_DOES:
        if not text.startswith(opening, at):
            continue
        start = at + len(opening)
        line = text.find("\n", start)
        last = min(start + 80, len(text) if line == -1 else line)
        for q in range(start + 1, last + 1):
            if is_word_char(text[q - 1]):
                continue
            for verb in _DOES_VERBS:
                if text.startswith(verb, q) and _ends_word(text, q + len(verb)):
                    return True
    return False


def _link_that_404s(text: str) -> bool:
    """``\\blinks? [^?!\\n]{0,60}\\b404s?\\b``, read from each whole ``404``: a link
    opening at most 60 characters before it, with no ``?``, ``!`` or line break between."""
    at = text.find("404")
    while at != -1:
        end = at + 4 if text.startswith("404s", at) else at + 3
        if (at == 0 or not is_word_char(text[at - 1])) and _ends_word(text, end):
            start = max(0, at - 66)
            for stop in "?!\n":
                start = max(start, text.rfind(stop, start, at) + 1)
            link = text.find("link", start, at)
            while link != -1:
                after = link + 5 if text.startswith("links ", link) else link + 4
                if (
                    (link == 0 or not is_word_char(text[link - 1]))
                    and text.startswith(" ", after)
                    and at - (after + 1) <= 60
                ):
                    return True
                link = text.find("link", link + 1, at)
        at = text.find("404", at + 1)
    return False


def _explains(text: str) -> bool:
    """The whole pattern: any of its alternatives."""
    at = _opening(text)
    if text.startswith("explain ", at) and any(
        text.startswith(what, at + 8) and _ends_word(text, at + 8 + len(what))
        for what in ("what", "the difference")
    ):
        return True
    return (
        bool(whole_word_spans(text, _EXPLAINING_WORDS))
        or _asks_what_it_does(text)
        or ("404" in text and _link_that_404s(text))
    )


# A relative clause: "that", "which" or "who" and a verb in the present or past ("a tool that
# finds broken links", "the script which explained the difference between …"), up to the end of
# its clause. Its words describe a thing the prompt is about; they are not what it asks:
# \b(?:that|which|who)\s+[a-z]+(?:s|ed)\b[^,.;:!?\n]*
_RELATIVE_WORDS = ("that", "which", "who")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")


def _relative_end(text: str, at: int, word: str) -> int:
    """The end of a relative clause opened by ``word`` at ``at``, or -1."""
    n = len(text)
    q = at + len(word)
    if q >= n or not text[q].isspace():
        return -1
    while q < n and text[q].isspace():
        q += 1
    start = q
    while q < n and text[q] in _LOWER:
        q += 1
    verb = text[start:q]
    if not _ends_word(text, q) or not (
        (len(verb) >= 2 and verb.endswith("s")) or (len(verb) >= 3 and verb.endswith("ed"))
    ):
        return -1
    while q < n and text[q] not in ",.;:!?\n":
        q += 1
    return q


def relative_clause_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``re.finditer`` of the relative-clause pattern above gives."""
    starts = sorted(
        (at, word)
        for word in _RELATIVE_WORDS
        for at in _finds(text, word)
        if at == 0 or not is_word_char(text[at - 1])
    )
    out: list[tuple[int, int]] = []
    for at, word in starts:
        if out and at < out[-1][1]:
            continue
        end = _relative_end(text, at, word)
        if end >= 0:
            out.append((at, end))
    return out


def _finds(text: str, word: str) -> list[int]:
    found = []
    at = text.find(word)
    while at != -1:
        found.append(at)
        at = text.find(word, at + 1)
    return found


def explains_code(lowered: str) -> bool:
    """Whether a prompt (lower-cased) asks to explain or document the code at hand, asks a
    general question ("the difference between …") or fixes a typo or a link. What a relative
    clause says describes a thing, not the request ("a name for my dev tool that finds broken
    links" asks for a name; decision 0134)."""
    if not any(word in lowered for word in EXPLAINS_WORDS) or not _explains(lowered):
        return False
    if "th" not in lowered and "wh" not in lowered:
        return True
    return _explains(replace_spans(lowered, relative_clause_spans(lowered), " , "))


# The place of work is documentation (a README, a changelog, a Markdown file, the docs folder)
# and the edit is not one that explains how something is done: a typo, an image, a link, a fact.
_DOCS = Lazy(r"\breadme\b|\bchangelog\b|\.(?:md|rst)\b|(?<![\w.])docs?/")
_EXPLAINING = Lazy(
    r"\b(?:explain\w*|describ\w*|document\w*|how (?:to|we|do|does|should)|where|why|when to)\b"
)


# Every alternative of _DOCS holds one of these as written (case-sensitive, as above).
DOCS_WORDS = ("readme", "changelog", ".md", ".rst", "doc/", "docs/")


def edits_docs(lowered: str) -> bool:
    """Whether a prompt (lower-cased) edits documentation without explaining how something is
    done ("fix the typo in the README", "resize the image in the README"; not "add a section to
    the README on where component styles go"): a note about the code applies there only on a
    clear match."""
    if not any(word in lowered for word in DOCS_WORDS):
        return False
    return _DOCS.search(lowered) is not None and _EXPLAINING.search(lowered) is None


# A request to write a message (an update, a note, an announcement, an email…) followed, after a
# colon, by what it should say: "write the friday note to my team: k8s migration 60% done".
_MESSAGE = Lazy(
    r"^\W*(?:(?:hey|hi|ok|so|please|pls)\W+)*(?:(?:can|could|would) you\s+|help me\s+"
    r"|i need (?:you )?to\s+)?(?:please\s+)?(?:write|draft|compose|put together|prepare)\b"
    r"[^:\n]{0,80}?\b(?:note|notes|update|updates|message|email|e-mail|announcement|post|summary"
    r"|status|newsletter|memo|report|writeup|write-up|blurb|recap)\b[^:\n]{0,80}?:",
    IGNORECASE,
)


# _MESSAGE matches only a text holding a colon and one of these verbs, case-insensitively: found
# in the text as scan.case_folded lower-cases it (under IGNORECASE "ı" matches "i").
MESSAGE_WORDS = ("write", "draft", "compose", "put together", "prepare")


def message_content(text: str) -> int | None:
    """Where the content begins in a prompt asking to write a message about it ("write this
    week's update for the team: billing migration shipped" → after the colon), else None: those
    words are what the message says, not the task."""
    if ":" not in text:
        return None
    lower = case_folded(text)
    if not any(word in lower for word in MESSAGE_WORDS):
        return None
    found = _MESSAGE.match(text)
    return None if found is None else found.end()
