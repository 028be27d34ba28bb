"""The ``capturing-learnings`` skill pokayokay ships and ``init`` installs into a project's or the
user's ``.claude/skills/`` folder (and ``uninstall --purge`` removes again, only when it is
exactly pokayokay's)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from pokayokay.errors import PokayokayError
from pokayokay.infra.safe_write import confined

SKILL_NAME = "capturing-learnings"
SKILL_FILE = "SKILL.md"
# The line that makes a SKILL.md pokayokay's capturing-learnings skill (in every version of it).
SKILL_MARKER = f"name: {SKILL_NAME}\n"


def skill_source() -> Path:
    from pokayokay.infra.resources import resource_dir

    candidate = resource_dir("skills") / SKILL_NAME / SKILL_FILE
    if candidate.is_file():
        return candidate
    raise PokayokayError(
        f"this pokayokay installation lacks skills/{SKILL_NAME}/{SKILL_FILE}; reinstall pokayokay"
    )


def _target(skills_dir: Path, root: Path | None) -> Path:
    return confined(skills_dir / SKILL_NAME / SKILL_FILE, root)


def is_our_skill(data: bytes) -> bool:
    """Whether a skill file's bytes are the one pokayokay installed (its marker and command)."""
    from pokayokay.infra.safe_write import encode_text

    return encode_text(SKILL_MARKER) in data and b"pokayokay remember" in data


def install_skill(skills_dir: Path, *, root: Path | None = None) -> str:
    """Put the skill into ``skills_dir`` (``<project>/.claude/skills`` or
    ``~/.claude/skills``). Idempotent; an older pokayokay version is replaced, someone else's
    skill of that name is left alone. Returns one line for the init report."""
    from pokayokay.infra.safe_write import read_bytes, replace_if_unchanged, with_retries
    from pokayokay.infra.state import mark_skills_changed

    target = _target(skills_dir, root)
    wanted = skill_source().read_bytes()

    def step(_attempt: int) -> str:
        current = read_bytes(target)
        if current == wanted:
            return f"skill {SKILL_NAME} already installed in {target.parent}"
        if current is not None and not is_our_skill(current):
            return f"{target} exists and is not pokayokay's {SKILL_NAME} skill: left as it is"
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_if_unchanged(target, current, wanted)
        mark_skills_changed()
        verb = "updated" if current is not None else "created"
        return f"{verb} {target} (the {SKILL_NAME} skill: when Claude should offer /remember)"

    return with_retries(step, what=str(target))


def uninstall_skill(skills_dir: Path, *, root: Path | None = None) -> str | None:
    """Remove the skill if it is exactly what init installed (an edited copy is left alone), and
    the folders that leaves empty. None when there was nothing of pokayokay's there."""
    from pokayokay.infra.safe_write import read_bytes

    target = _target(skills_dir, root)
    current = read_bytes(target)
    if current is None or not is_our_skill(current):
        return None
    if current != skill_source().read_bytes():
        return (
            f"{target} differs from the {SKILL_NAME} skill this pokayokay ships (edited, or "
            "from another version): left as it is"
        )
    target.unlink()
    from pokayokay.infra.state import mark_skills_changed

    mark_skills_changed()
    for folder in (target.parent, skills_dir):
        with contextlib.suppress(OSError):  # not empty: kept
            folder.rmdir()  # only when that left it empty
    return f"removed {target} (the {SKILL_NAME} skill)"
