"""Shared test helpers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timezone

from pokayokay.failures.model import Correction, FailureGroup, FixEdit
from pokayokay.infra.templating import render
from pokayokay.memory.sections import END_MARKER, Settings

TODAY = date(2026, 11, 22)


DAY = 86_400.0


T0 = datetime(2026, 10, 1, tzinfo=timezone.utc).timestamp()


def group(
    signature: str = "FAILED tests/test_cart.py::test_total",
    category: str = "testing",
    sessions: int = 3,
    *,
    paths: Sequence[str] = ("tests/test_cart.py",),
    fix_paths: Sequence[str] = ("src/cart/models.py",),
    fix_commands: Sequence[str] = ("pytest tests/test_cart.py",),
    sample_command: str | None = "pytest tests/test_cart.py",
    excerpt: str = "AssertionError: assert 3 == 4",
    occurrences: int | None = None,
    first: float = T0,
    last: float = T0 + 20 * DAY,
    corrections: Sequence[Correction] = (),
    fix_edits: Sequence[FixEdit] = (),
) -> FailureGroup:
    return FailureGroup(
        signature=signature,
        category=category,
        sessions=sessions,
        occurrences=occurrences if occurrences is not None else sessions * 2,
        first_seen=first,
        last_seen=last,
        paths=tuple(paths),
        fix_paths=tuple(fix_paths),
        fix_commands=tuple(fix_commands),
        sample_command=sample_command,
        excerpt=excerpt,
        corrections=tuple(corrections),
        fix_edits=tuple(fix_edits),
    )


FILES = [
    "src/cart/models.py",
    "src/cart/views.py",
    "src/orders/models.py",
    "src/auth/login.py",
    "tests/test_cart.py",
    "tests/test_orders.py",
    "web/src/app.ts",
    "web/src/app.test.ts",
    "README.md",
]


CLAUDE_TOP = "# Memory\n\n- [User prefers uv](uv.md) — use uv, not pip\n"


CLAUDE_BOTTOM = "\n## My own notes\n\nFree text Claude wrote, with <b>markup</b> & `code`.\n"


def memory_text(ap_body: str = "", topic_body: str = "", newline: str = "\n") -> str:
    sections = render("MEMORY.md.j2", sections=Settings().sections, end_marker=END_MARKER)
    sections = sections.replace("# Memory\n", "", 1)
    sections = sections.replace(
        "<!-- pokayokay: graduated to .claude/rules/ when confirmed -->\n",
        "<!-- pokayokay: graduated to .claude/rules/ when confirmed -->\n" + ap_body,
    ).replace("<!-- pokayokay: links to detail files -->\n", "<!-- pokayokay: links to detail "
              "files -->\n" + topic_body)  # fmt: skip
    text = CLAUDE_TOP + sections + CLAUDE_BOTTOM
    return text.replace("\n", newline)


CLAUDE_AP = (
    "- 2026-09-01 Claude's own pattern: keep migrations small\n  continued on a second line\n"
)

