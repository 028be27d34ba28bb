"""The text of one settings file (``.claude/pokayokay.md``, ``.local.md``): read as a regular
file of bounded size, its YAML frontmatter parsed, every problem a :class:`SettingsError` naming
the file and the line. The simple blocks people write are read without a YAML library
(:mod:`pokayokay.infra.frontmatter`); ruamel.yaml reads the rest and words its errors.
"""

from __future__ import annotations

from pathlib import Path

from pokayokay.errors import SettingsError

MAX_FILE_BYTES = 1_000_000


def _split_frontmatter(text: str) -> tuple[str, int] | None:
    """The frontmatter text and the file line number its first line has, or None if there is
    none. Raises ``ValueError`` when the opening ``---`` is never closed."""
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return "\n".join(lines[1:index]) + "\n", 2
    raise ValueError("unclosed frontmatter")


def read_frontmatter(path: Path, label: str) -> object:
    """The parsed frontmatter of one settings file (None when it has none)."""
    from pokayokay.infra.regular import read_regular

    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except OSError as exc:
        raise SettingsError(f"{label}: cannot read the file ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise SettingsError(f"{label}: too large for a settings file (over {MAX_FILE_BYTES} bytes)")
    if b"\0" in data:
        raise SettingsError(f"{label}: not a text file (it contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SettingsError(
            f"{label}: line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x})"
        ) from None
    text = text.removeprefix("\ufeff")
    try:
        found = _split_frontmatter(text)
    except ValueError:
        raise SettingsError(
            f"{label}: line 1: frontmatter opened with '---' is never closed by a '---' line"
        ) from None
    if found is None:
        return None
    frontmatter, first_line = found
    if not frontmatter.strip():
        return None
    from pokayokay.infra.frontmatter import UNSUPPORTED, load

    simple = load(frontmatter)  # the usual settings block needs no YAML library
    if simple is not UNSUPPORTED:
        return simple

    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return YAML(typ="safe").load(frontmatter)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + first_line}: " if mark is not None else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise SettingsError(f"{label}: {where}invalid YAML frontmatter ({problem})") from None
    except YAMLError as exc:
        position = getattr(exc, "position", None)
        where = ""
        if isinstance(position, int):
            where = f"line {frontmatter.count(chr(10), 0, position) + first_line}: "
        detail = str(exc).splitlines()[0] if str(exc) else "invalid YAML"
        raise SettingsError(f"{label}: {where}invalid YAML frontmatter ({detail})") from None
