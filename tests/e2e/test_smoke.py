"""Smoke: pokayokay's idea of the memory folder is the real client's."""

from __future__ import annotations

import pytest

from .conftest import E2E
from .memory_docs import SECTIONS, TRUNCATION_WARNING
from .mock_api import text

pytestmark = pytest.mark.e2e


def test_memory_created_by_init_reaches_the_model(e2e: E2E) -> None:
    e2e.init_pokayokay()

    memory = e2e.memory_file()
    assert memory.is_file(), (
        f"`pokayokay init` did not create {memory}; memory folder contents: "
        f"{sorted(p.name for p in e2e.config_dir.rglob('*'))}"
    )
    template = memory.read_text(encoding="utf-8")
    # no empty heading: each managed section appears with its first entry
    assert template == "# Memory\n"
    assert not any(f"## {section.title}" in template for section in SECTIONS)
    # A note of Claude's own, added the way Claude Code adds them: one index line.
    note = "- [Smoke marker](smoke.md) — E2E-SMOKE-7f3a1 the client must load this line"
    memory.write_text(template.rstrip("\n") + "\n\n" + note + "\n", encoding="utf-8")

    run = e2e.run_claude(e2e.project, "smoke: what do you remember?", [[text("SMOKE-DONE")]])

    assert run.exit_code == 0, run.describe()
    assert run.result_event.get("result") == "SMOKE-DONE", run.describe()
    seen = run.first_request.full_text
    # Claude Code names the file it loaded; the path is the one pokayokay resolved.
    assert f"Contents of {memory}" in seen
    assert note in seen and "# Memory" in seen
    assert TRUNCATION_WARNING not in seen
