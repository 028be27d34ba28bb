"""A learning's topic file in Claude Code's memory format: rendering it (frontmatter pokayokay
writes with its own small YAML emitter) and parsing it back (a fast reader for that frontmatter,
ruamel.yaml for anything else)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pokayokay.infra import frontmatter
from pokayokay.learnings.model import (
    ASKED_CHARS,
    ASKED_MAX,
    CATEGORIES,
    CONFIDENCES,
    MEMORY_TYPE,
    SEVERITIES,
    STRUCTURED_FIELDS,
    Learning,
    LearningFormatError,
    identity,
    infer_category,
)

_PLAIN_SAFE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


# Plain words some YAML parsers read as something other than a string.
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf"})


_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
}


def _yaml_printable(ch: str) -> bool:
    point = ord(ch)
    return (
        0x20 <= point <= 0x7E
        or 0xA0 <= point <= 0xD7FF
        or 0xE000 <= point <= 0xFFFD
        or 0x10000 <= point <= 0x10FFFF
    ) and point != 0xFEFF


def quote(value: str) -> str:
    """``value`` as a one-line YAML scalar: plain when it is an unambiguous slug, else double
    quoted with every character outside YAML's printable set escaped."""
    if _PLAIN_SAFE.fullmatch(value) and value not in _YAML_WORDS:
        return value
    out = ['"']
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif _yaml_printable(ch):
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    return quote(str(value))


def _extra_lines(mapping: Mapping[str, object], indent: str) -> list[str]:
    lines: list[str] = []
    for key, value in mapping.items():
        if isinstance(value, (str, int, bool)) or value is None:
            lines.append(f"{indent}{quote(str(key))}: {_scalar(value)}")
        else:
            # Nested values Claude (or a person) added: written back in flow style.
            lines.append(f"{indent}{quote(str(key))}: {_flow(value)}")
    return lines


def _flow(value: object) -> str:
    if isinstance(value, Mapping):
        inner = ", ".join(f"{quote(str(k))}: {_flow(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, (str, int, bool)) or value is None:
        return _scalar(value)
    return quote(str(value))


def render(learning: Learning) -> str:
    """The topic file for ``learning`` (frontmatter, then the body, ending with a newline)."""
    lines = [
        "---",
        f"name: {quote(learning.name)}",
        f"description: {quote(learning.description)}",
        *_extra_lines(learning.extra, ""),
        "metadata:",
        f"  type: {quote(learning.memory_type)}",
        f"  category: {quote(learning.category)}",
        f"  confidence: {quote(learning.confidence)}",
        f"  source: {quote(learning.source)}",
        f"  observations: {int(learning.observations)}",
        f'  hash: "{learning.hash}"',
        f"  created: {quote(learning.created)}",
        f"  last_seen: {quote(learning.last_seen)}",
        *(
            f"  {key}: {quote(getattr(learning, key))}"
            for key in STRUCTURED_FIELDS
            if getattr(learning, key)
        ),
        *([f"  asked: {_flow(list(learning.asked))}"] if learning.asked else []),
        *_extra_lines(learning.extra_metadata, "  "),
        "---",
    ]
    body = learning.text.rstrip("\n")
    return "\n".join(lines) + "\n" + body + "\n"


_KNOWN_TOP = ("name", "description", "metadata")


_KNOWN_META = (
    *STRUCTURED_FIELDS,
    "asked",
    "type",
    "category",
    "confidence",
    "source",
    "observations",
    "hash",
    "created",
    "last_seen",
)


def _slow_frontmatter(block: str) -> object:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="safe", pure=True).load(block)
    except YAMLError as exc:
        raise LearningFormatError(f"invalid YAML frontmatter ({exc})") from None


def split_frontmatter(text: str) -> tuple[str, str] | None:
    """The frontmatter block and the body of a markdown file, or None without frontmatter."""
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return None
    lines = text.split("\n")
    if lines[0].rstrip("\r").rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r").rstrip() == "---":
            block = "\n".join(line.rstrip("\r") for line in lines[1:index])
            body = "\n".join(lines[index + 1 :])
            return block, body
    return None


def _text(value: object) -> str:
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def parse(text: str) -> Learning:
    """The learning in a topic file. Raises :class:`LearningFormatError` when the file has no
    frontmatter mapping or no body; fields pokayokay did not write get defaults (the hash is
    computed from the body when the file has none)."""
    parts = split_frontmatter(text)
    if parts is None:
        raise LearningFormatError("no frontmatter (the file does not start with a '---' block)")
    block, body = parts
    data = frontmatter.load(block)  # the usual block needs no YAML library
    if data is frontmatter.UNSUPPORTED:
        data = _slow_frontmatter(block)
    if not isinstance(data, Mapping):
        raise LearningFormatError("the frontmatter is not a mapping")
    meta_raw = data.get("metadata")
    meta: Mapping[object, object] = meta_raw if isinstance(meta_raw, Mapping) else {}
    body_text = body.strip("\r\n")
    if not body_text.strip():
        raise LearningFormatError("the file has no body text")
    observations = meta.get("observations")
    count = observations if isinstance(observations, int) and observations > 0 else 1
    digest = _text(meta.get("hash")).strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        digest = identity(body_text)
    name = _text(data.get("name")).strip()
    category = _text(meta.get("category")).strip()
    confidence = _text(meta.get("confidence")).strip()
    severity = _text(meta.get("severity")).strip().upper()
    return Learning(
        name=name,
        description=" ".join(_text(data.get("description")).split()),
        text=body_text,
        category=category if category in CATEGORIES else infer_category(body_text),
        confidence=confidence if confidence in CONFIDENCES else "medium",
        source=_text(meta.get("source")).strip() or "user",
        observations=count,
        hash=digest,
        created=_text(meta.get("created")).strip(),
        last_seen=_text(meta.get("last_seen")).strip(),
        memory_type=_text(meta.get("type")).strip() or MEMORY_TYPE,
        extra={str(k): v for k, v in data.items() if k not in _KNOWN_TOP},
        extra_metadata={str(k): v for k, v in meta.items() if k not in _KNOWN_META},
        trigger=_one_line(meta.get("trigger")),
        insight=_one_line(meta.get("insight")),
        action=_one_line(meta.get("action")),
        severity=severity if severity in SEVERITIES else "",
        asked=_phrases(meta.get("asked")),
    )


def _phrases(value: object) -> tuple[str, ...]:
    """The ``asked`` phrases of a learning's metadata: a list of strings, each on one line and
    cut to :data:`ASKED_CHARS`, at most :data:`ASKED_MAX`; anything else is none."""
    if not isinstance(value, list):
        return ()
    out = [" ".join(_text(v).split())[:ASKED_CHARS] for v in value if isinstance(v, str)]
    return tuple(p for p in out if p)[:ASKED_MAX]


def _one_line(value: object) -> str:
    return " ".join(_text(value).split())
