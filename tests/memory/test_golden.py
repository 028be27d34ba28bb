"""Golden files for curation: one folder per case under tests/golden/.

Each case holds ``MEMORY.md`` (input), optionally ``archives/`` (archive files before) and
``pokayokay.md`` (settings), and ``expected/`` with the curated MEMORY.md, every archive written
and ``report.txt`` (what curation said it did). Regenerate after an intended change with
``POKAYOKAY_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from datetime import date
from pathlib import Path

import pytest
from helpers.paths import GOLDEN_DIR

from pokayokay.config.settings import load_settings
from pokayokay.memory import invariants
from pokayokay.memory.curation import CurationResult, curate

GOLDEN = GOLDEN_DIR
TODAY = date(2026, 11, 22)
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")


def _report(result: CurationResult) -> str:
    lines = [
        f"before: {result.before.lines} lines, {result.before.bytes} bytes",
        f"after: {result.after.lines} lines, {result.after.bytes} bytes",
    ]
    for move in result.moves:
        lines.append(
            f"moved {len(move.entries)} entries ({move.lines} lines) {move.section_title} -> "
            f"{move.archive} [{move.reason}]"
        )
    lines += [f"added section: {t}" for t in result.added_sections]
    lines += [f"dropped empty section: {t}" for t in result.dropped_sections]
    lines += [f"merged duplicate: {t}" for t in result.merged_duplicates]
    lines += [f"closed: {t}" for t in result.closed_sections]
    lines += [f"linked: {a}" for a in result.added_links]
    lines += [f"note: {n}" for n in result.notes]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", CASES)
def test_golden(case: str, tmp_path: Path) -> None:
    folder = GOLDEN / case
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    if (folder / "pokayokay.md").exists():
        shutil.copy(folder / "pokayokay.md", project / ".claude" / "pokayokay.md")
    settings = load_settings(project)
    if settings.sources.get("empty_sections", "default") == "default":
        # These cases pin curation's mechanics with every managed section written; the cases
        # named no-empty-* set `empty_sections: false` (the default) and show sections without
        # entries left out.
        settings = dataclasses.replace(settings, empty_sections=True)
    archives = {p.name: _read(p) for p in sorted((folder / "archives").glob("*.md"))}
    memory = _read(folder / "MEMORY.md")

    result = curate(memory, settings, archives, TODAY)
    invariants.check(result, settings, archives, TODAY)

    produced = {"MEMORY.md": result.text, "report.txt": _report(result), **result.archives}
    expected_dir = folder / "expected"
    if os.environ.get("POKAYOKAY_UPDATE_GOLDEN"):
        shutil.rmtree(expected_dir, ignore_errors=True)
        expected_dir.mkdir()
        for name, text in produced.items():
            (expected_dir / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    expected = {p.name: _read(p) for p in expected_dir.iterdir()}
    assert sorted(produced) == sorted(expected)
    for name, text in produced.items():
        assert text == expected[name], f"{case}/{name} differs from the golden file"
