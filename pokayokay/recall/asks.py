"""What a prompt asks for, beyond its subject (pure): whether the code, the text or the model
answers it rather than the team's notes or a skill.

Recall holds such a prompt to a clear match of its words (:func:`pokayokay.recall.index.recall`)
and skill suggestion stays out of it (:func:`pokayokay.skills.suggest.suggest`): every prompt of
this kind in the labelled sets of both calls for neither.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import IGNORECASE, Lazy

# A prompt rarely asks any of this: each pattern is compiled only for a text holding a word it
# needs (the lists below, property-tested against the patterns), so most prompts compile none.

# "write a docstring for …", "explain what … does", "what does … mean?", "the difference between
# … and …", "fix the typo …", "update the link …": a question about the code or text at hand,
# or general knowledge, which the code, the text or the model answers, not the team's notes.
_EXPLAINS = Lazy(
    r"\bdocstrings?\b|^\W*explain (?:what|the difference)\b|\bdifference between\b"
    r"|^\W*what (?:does|do) .{1,80}?\b(?:do|mean|contain|return|run|change|print|output)\b"
    r"|\bfix (?:the|a|this|that) typos?\b"
    r"|\b(?:broken|dead) links?\b|\b(?:fix|update) (?:the|that|this|a) links?\b"
    r"|\blinks? [^?!\n]{0,60}\b404s?\b"
)


# A relative clause: "that", "which" or "who" and a verb in the present or past ("a tool that
# finds broken links", "the script which explained the difference between …"), up to the end of
# its clause. Its words describe a thing the prompt is about; they are not what it asks.
_RELATIVE = Lazy(r"\b(?:that|which|who)\s+[a-z]+(?:s|ed)\b[^,.;:!?\n]*")

# Every alternative of _EXPLAINS holds one of these as written (the pattern is case-sensitive):
# a text holding none cannot match, and the pattern is not even compiled for it (most prompts).
EXPLAINS_WORDS = ("docstring", "explain ", "difference between", "what do", "typo", "link")


def explains_code(lowered: str) -> bool:
    """Whether a prompt (lower-cased) asks to explain or document the code at hand, asks a
    general question ("the difference between …") or fixes a typo or a link. What a relative
    clause says describes a thing, not the request ("a name for my dev tool that finds broken
    links" asks for a name; decision 0134)."""
    if not any(word in lowered for word in EXPLAINS_WORDS):
        return False
    found = _EXPLAINS.search(lowered)
    if found is None:
        return False
    if "th" not in lowered and "wh" not in lowered:
        return True
    return _EXPLAINS.search(_RELATIVE.sub(" , ", lowered)) is not None


# The place of work is documentation (a README, a changelog, a Markdown file, the docs folder)
# and the edit is not one that explains how something is done: a typo, an image, a link, a fact.
_DOCS = Lazy(r"\breadme\b|\bchangelog\b|\.(?:md|rst)\b|(?<![\w.])docs?/")
_EXPLAINING = Lazy(
    r"\b(?:explain\w*|describ\w*|document\w*|how (?:to|we|do|does|should)|where|why|when to)\b"
)


# Every alternative of _DOCS holds one of these as written (case-sensitive, as above).
DOCS_WORDS = ("readme", "changelog", ".md", ".rst", "doc")


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


# _MESSAGE matches only a text holding a colon and one of these verbs; case-insensitively, which
# for an ASCII text is the lower-cased text holding them (elsewhere the pattern decides: under
# IGNORECASE "ı" matches "i").
MESSAGE_WORDS = ("write", "draft", "compose", "put together", "prepare")


def message_content(text: str) -> int | None:
    """Where the content begins in a prompt asking to write a message about it ("write this
    week's update for the team: billing migration shipped" → after the colon), else None: those
    words are what the message says, not the task."""
    if ":" not in text:
        return None
    if text.isascii():
        lower = text.lower()
        if not any(word in lower for word in MESSAGE_WORDS):
            return None
    found = _MESSAGE.match(text)
    return None if found is None else found.end()
