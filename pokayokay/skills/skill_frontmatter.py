"""A ``SKILL.md``'s frontmatter read by a small line parser (pure).

The four keys the catalog reads (``name``, ``description``, ``when_to_use``,
``disable-model-invocation``) of a well-formed file, from plain, quoted and block scalars;
None for anything the parser does not understand, which
:func:`pokayokay.skills.catalog.parse_frontmatter` then gives to the YAML parser rule files use.
Standard library only: it runs when a full check reads a new or changed ``SKILL.md``, never on
the prompt's quick path.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import MULTILINE, Lazy

__all__ = ["KEYS", "after_frontmatter", "body_text", "frontmatter_text", "parse_frontmatter_fast"]

KEYS = ("name", "description", "when_to_use", "disable-model-invocation")
_KEY_LINE = Lazy(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$")
_BLOCK = Lazy(r"[|>][+-]?[0-9]?[+-]?$")
_FENCE_END = Lazy(r"^---[ \t]*$", MULTILINE)


def _unquote(value: str) -> str | None:
    """A one-line scalar's text; None when the cheap parser cannot be sure of it."""
    if not value:
        return ""
    first = value[0]
    if first == "'":
        if len(value) < 2 or not value.endswith("'"):
            return None
        return value[1:-1].replace("''", "'")
    if first == '"':
        if len(value) < 2 or not value.endswith('"'):
            return None
        import json  # a full check reads SKILL.md files: not the prompt's quick path

        try:
            out = json.loads(value)
        except ValueError:
            return None
        return out if isinstance(out, str) else None
    if first in "[{&*!|>%@`":
        return None
    # A plain scalar ends at " #" (a comment).
    cut = value.find(" #")
    return (value if cut < 0 else value[:cut]).rstrip()


def parse_frontmatter_fast(head: str) -> dict[str, str] | None:
    """The wanted keys of a frontmatter block (the text between the ``---`` lines), or None
    when it needs the YAML parser."""
    lines = head.splitlines()
    out: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            continue  # a continuation of a key we skip
        found = _KEY_LINE.match(line.rstrip())
        if found is None:
            return None
        key, raw = found[1], (found[2] or "").strip()
        # Collect the indented lines under this key.
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t"):
            block.append(lines[i])
            i += 1
        if key not in KEYS:
            continue
        if _BLOCK.match(raw):
            parts = [b.strip() for b in block]
            if raw.startswith("|"):
                out[key] = "\n".join(parts).strip()
            else:
                out[key] = " ".join(p for p in parts if p)
            continue
        value = _unquote(raw)
        if value is None:
            return None
        extra = [b.strip() for b in block if b.strip()]
        if extra:
            if raw[:1] in "'\"":
                return None  # a multi-line quoted scalar: leave it to YAML
            value = " ".join([value, *extra]).strip()
        out[key] = value
    return out


def after_frontmatter(text: str) -> str:
    """What follows a ``SKILL.md``'s frontmatter (its closing ``---`` line), as written; the
    whole text, less a byte-order mark, when it has no frontmatter."""
    if text.startswith("\ufeff"):
        text = text[1:]
    head = frontmatter_text(text)
    if head is None:
        return text
    close = text.find("\n", text.find("\n") + 1 + len(head))
    return "" if close < 0 else text[close + 1 :]


def body_text(text: str) -> str:
    """The prose of a ``SKILL.md`` after its frontmatter (:func:`after_frontmatter`): the lines
    outside fenced code blocks (:func:`pokayokay.infra.markdown.outside_fences`). What skill
    suggestion reads as the skill's body (decision 0205)."""
    from pokayokay.infra.markdown import outside_fences

    return "".join(outside_fences(after_frontmatter(text).splitlines(keepends=True)))


def frontmatter_text(text: str) -> str | None:
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        return None
    first_nl = text.find("\n")
    if first_nl < 0 or text[:first_nl].strip() != "---":
        return None
    end = _FENCE_END.search(text[first_nl + 1 :])
    if end is None:
        return None
    return text[first_nl + 1 : first_nl + 1 + end.start()]
