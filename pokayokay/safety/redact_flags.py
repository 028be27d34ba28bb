"""Passwords given to a program on its command line, in the program's own flag (pure).

The key-position rows of :mod:`pokayokay.safety.redact` catch ``--password X`` and
``PASSWORD=X``; a short flag says nothing on its own (``-p`` is a port for ``docker run`` and a
password for ``mysql``), so these rows name the program first and the flag second:

=====================================  ==========================================================
program                                the password
=====================================  ==========================================================
``mysql``, ``mysqldump``, ``mariadb``  ``-p<pw>`` attached (``-p pw`` with a space prompts, and
and the other ``mysql*`` tools         ``pw`` is then the database name)
``sshpass``                            ``-p <pw>`` / ``-p<pw>``
``docker``/``podman``/``buildah``/     ``-p <pw>`` after ``login``
``skopeo``/``helm registry`` ``login``
``htpasswd -b``                        the last argument (``-b file user pw``, ``-nb user pw``)
``redis-cli``                          ``-a <pw>``, ``--pass <pw>``
``mongo``/``mongosh``/``mongodump``    ``-p <pw>``
``sqlcmd``/``bcp``                     ``-P <pw>``
``ldapsearch`` and the ``ldap*`` tools ``-w <pw>``
``openssl``                            ``pass:<pw>`` after ``-pass``/``-passin``/``-passout``,
                                       ``-k <pw>``
any program                            ``echo <pw> | … --password-stdin``
=====================================  ==========================================================

:func:`redact_flags` works segment by segment (a segment ends at ``;``, ``&``, ``|`` or a line
end), so a flag is read only in its own program's arguments. Every pattern is linear and bounded.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import Lazy

TYPE_CHECKING = False  # typing is not imported at run time (the hook after every command)
if TYPE_CHECKING:
    import re

__all__ = ["FLAG_HINTS", "redact_flags"]

PASSWORD_MARK = "[redacted:password]"

# Lower-case substrings one of which a command must hold for any row here to apply.
FLAG_HINTS = (
    "mysql", "mariadb", "sshpass", "login", "htpasswd", "redis-cli", "mongo", "sqlcmd", "bcp",
    "ldap", "openssl", "password-stdin",
)  # fmt: skip

# An argument: quoted (the quotes are kept) or a bare word.
_ARG = r"""(?:"(?P<dq>[^"\n]{1,512})"|'(?P<sq>[^'\n]{1,512})'|(?P<bare>[^\s'";&|]{1,512}))"""
_ARG_SPACE = r"[ \t]{1,8}" + _ARG
_AT = r"(?:(?<=[ \t])|^)"  # a flag starts an argument

# (program, then the flag and its value, within the program's segment).
_ROWS: tuple[tuple[str, str], ...] = (
    (r"(?:mysql\w{0,12}|mariadb\w{0,12})", _AT + r"-p" + _ARG),
    (r"sshpass", _AT + r"-p(?:[ \t]{1,8})?" + _ARG),
    (
        r"(?:docker|podman|buildah|skopeo|nerdctl|helm[ \t]{1,8}registry|oras)[ \t]{1,8}login",
        _AT + r"-p(?:=|[ \t]{1,8})?" + _ARG,
    ),
    (r"redis-cli", _AT + r"(?:-a|--pass)(?:=|[ \t]{1,8})" + _ARG),
    (r"(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)", _AT + r"-p" + _ARG_SPACE),
    (r"(?:sqlcmd|bcp)", _AT + r"-P(?:[ \t]{1,8})?" + _ARG),
    (r"ldap\w{1,12}", _AT + r"-w" + _ARG_SPACE),
    (r"openssl", _AT + r"-(?:pass(?:in|out)?)[ \t]{1,8}(?:pass|env|file):?" + _ARG),
    (r"openssl", _AT + r"-k" + _ARG_SPACE),
)

_PROGRAM = Lazy(r"(?i)(?<![\w./-])(?:" + "|".join(program for program, _ in _ROWS) + r")(?![\w-])")
_FLAGS = [Lazy(flag) for _, flag in _ROWS]
_PROGRAMS = [Lazy(r"(?i)\A(?:" + program + r")\Z") for program, _ in _ROWS]
_SEGMENT_END = Lazy(r"[;&|\n]")
_ECHOED = Lazy(
    r"(?:^|(?<=[\s;&|(]))(?:echo|printf)(?:[ \t]{1,8}-[neE]{1,3})?[ \t]{1,8}"
    + _ARG
    + r"[ \t]{0,8}\|[^\n|;&]{0,400}--password-stdin"
)
# Its arguments: to the segment's end or the next htpasswd (each run's words are its own).
_HTPASSWD = Lazy(
    r"(?<![\w./-])htpasswd(?![\w-])(?P<args>(?:(?!(?<![\w./-])htpasswd(?![\w-]))[^;&|\n]){1,2000})"
)
_WORD = Lazy(r"""[ \t]{0,8}(?:"[^"\n]{0,512}"|'[^'\n]{0,512}'|[^\s'";&|]{1,512})""")
_REFERENCE = Lazy(r"""\A(?:["']?\$\{?[A-Za-z_]\w{0,80}\}?["']?|<[^<>]{0,80}>|\*{1,64})\Z""")


def _value(match: re.Match[str]) -> tuple[int, int] | None:
    """The span of the password in a flag match; ``None`` when it only refers to one."""
    for group in ("dq", "sq", "bare"):
        if match.group(group) is not None:
            value = match.group(group)
            if _REFERENCE.match(value) or value.startswith("-"):
                return None
            return match.span(group)
    return None


def _spans_in_segment(text: str, start: int, end: int, row: int) -> list[tuple[int, int]]:
    spans = []
    flag = _FLAGS[row]
    pos = start
    while pos < end:
        match = flag.search(text, pos, end)
        if match is None:
            break
        span = _value(match)
        if span is not None:
            spans.append(span)
        pos = max(match.end(), pos + 1)
    return spans


def _htpasswd_spans(text: str) -> list[tuple[int, int]]:
    """``htpasswd -b[flags] [file] user password``: the password is the last positional."""
    spans = []
    for match in _HTPASSWD.finditer(text):
        pos, end = match.start("args"), match.end("args")
        flags = ""
        words: list[tuple[int, int]] = []
        while pos < end:
            word = _WORD.match(text, pos, end)
            if word is None:
                break
            raw = word.group(0).lstrip(" \t")
            if raw.startswith("-") and not words:
                flags += raw[1:]
            elif raw:
                words.append((word.end() - len(raw), word.end()))
            pos = word.end()
            if not raw:
                break
        if "b" not in flags:
            continue
        at = 1 if "n" in flags else 2
        if len(words) > at:
            start, stop = words[at]
            if text[start] in "\"'":
                start, stop = start + 1, stop - 1
            if start < stop and not _REFERENCE.match(text[start:stop]):
                spans.append((start, stop))
    return spans


def redact_flags(text: str, lowered: str) -> str:
    """``text`` with each password given in a program's own flag replaced by
    ``[redacted:password]``; ``lowered`` is ``text`` lower-cased (the caller has it)."""
    if not any(hint in lowered for hint in FLAG_HINTS):
        return text
    spans: list[tuple[int, int]] = []
    programs = list(_PROGRAM.finditer(text))
    for i, program in enumerate(programs):
        # The program's arguments: to the end of its segment or the next program named, so
        # that no stretch of text is read twice (a text of nothing but "mysql -p" is linear).
        limit = programs[i + 1].start() if i + 1 < len(programs) else len(text)
        stop = _SEGMENT_END.search(text, program.end(), limit)
        end = stop.start() if stop else limit
        name = program.group(0)
        for row, matcher in enumerate(_PROGRAMS):
            if matcher.match(name):
                spans += _spans_in_segment(text, program.end(), end, row)
    if "htpasswd" in lowered:
        spans += _htpasswd_spans(text)
    if "password-stdin" in lowered:
        for match in _ECHOED.finditer(text):
            span = _value(match)
            if span is not None:
                spans.append(span)
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in sorted(set(spans)):
        if start < pos:  # overlapping finds: the first covers it
            continue
        if text.startswith("[redacted:", start):
            out.append(text[pos:end])
        else:
            out.append(text[pos:start] + PASSWORD_MARK)
        pos = end
    out.append(text[pos:])
    return "".join(out)
