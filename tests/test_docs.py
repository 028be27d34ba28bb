"""The documentation says what the code does: the exit-code table, the command list and the
architecture's module map."""

from __future__ import annotations

import re

from helpers.paths import REPO_ROOT

from pokayokay.cli.parser import build_parser
from pokayokay.errors import EXIT_CODES

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
ARCHITECTURE = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    following = re.search(r"^#{1,3} ", text[start + len(heading) :], re.M)
    return text[start : start + len(heading) + (following.start() if following else len(text))]


def test_the_readme_exit_table_is_the_code_table() -> None:
    rows = re.findall(r"^\| (\d+) \| (.+?) \|$", _section(README, "### Exit codes"), re.M)
    assert {int(code) for code, _ in rows} == set(EXIT_CODES)
    for code, meaning in rows:
        assert EXIT_CODES[int(code)] == meaning, code


def _commands() -> set[str]:
    parser = build_parser()
    found: set[str] = set()
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        found.update(getattr(action, "choices", {}) or {})
    return found


def test_every_command_is_documented_and_every_documented_command_exists() -> None:
    commands = _commands()
    documented = set(re.findall(r"^pokayokay ([a-z][a-z-]*)", _section(README, "## Use"), re.M))
    assert documented <= commands, documented - commands
    mentioned = set(re.findall(r"pokayokay ([a-z][a-z-]*)", README))
    assert commands <= mentioned | {"hook"}, commands - mentioned


def _room_paragraph(room: str) -> str:
    """The module map's paragraph for ROOM (``infra/``) or for the top level (``pokayokay/``)."""
    module_map = _section(ARCHITECTURE, "## Module map")
    start = module_map.index(f"`{room}`")
    end = module_map.find("\n\n", start)
    return module_map[start : end if end != -1 else len(module_map)]


def test_every_module_is_on_the_architecture_map() -> None:
    package = REPO_ROOT / "pokayokay"
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if path.name == "__init__.py" and len(rel.parts) > 1:
            continue
        room = f"{rel.parts[0]}/" if len(rel.parts) > 1 else "pokayokay/"
        assert f"`{path.name}`" in _room_paragraph(room), f"{rel} is missing from the module map"


CHANGELOG = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
CHANGELOG_SECTIONS = {
    "Added", "Changed", "Deprecated", "Removed", "Fixed", "Security", "Performance"
}


def test_the_changelog_is_keep_a_changelog_with_short_entries() -> None:
    """Keep a Changelog sections only, and every entry a bullet of one or two lines: the reasons
    go to docs/decisions/, not into the changelog (issue 27)."""
    sections = re.findall(r"^### (.+)$", CHANGELOG, re.M)
    assert sections and set(sections) <= CHANGELOG_SECTIONS, sections
    body = CHANGELOG[CHANGELOG.index("### ") :]
    entries = re.findall(r"^- .*(?:\n  .*)*", body, re.M)
    assert len(entries) > 100
    for line in body.splitlines():
        assert not line or line.startswith(("- ", "  ", "## ", "### ", "[")), line
    long_entries = [entry for entry in entries if entry.count("\n") > 1]
    assert not long_entries, long_entries[:3]


def test_every_decision_file_has_its_row_in_the_index() -> None:
    folder = REPO_ROOT / "docs" / "decisions"
    index = (folder / "README.md").read_text(encoding="utf-8")
    files = sorted(p.name for p in folder.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert files
    linked = re.findall(r"^\| \[\d{4}\]\(([^)]+)\)", index, re.M)
    assert sorted(linked) == files
    assert linked == sorted(linked)  # in number order
