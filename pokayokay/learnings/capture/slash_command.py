"""The /remember slash command file pokayokay ships and installs into a project's or the user's
.claude/commands/ folder (and removes again, only when it is pokayokay's)."""

from __future__ import annotations

from pathlib import Path

from pokayokay.errors import PokayokayError
from pokayokay.infra.safe_write import confined

COMMAND_FILE = "remember.md"

# The line that makes a command file pokayokay's /remember (in every version of it).
COMMAND_MARKER = "<<'POKAYOKAY_REMEMBER_END'"


def slash_command_source() -> Path:
    """The shipped ``commands/remember.md``: ``pokayokay/commands/`` in a wheel, the repository's
    ``commands/`` in a source tree."""
    from pokayokay.infra.resources import resource_dir

    candidate = resource_dir("commands") / COMMAND_FILE
    if candidate.is_file():
        return candidate
    raise PokayokayError(
        f"this pokayokay installation lacks commands/{COMMAND_FILE}; reinstall pokayokay"
    )


def slash_command_text() -> str:
    return slash_command_source().read_text("utf-8")


def _command_target(commands_dir: Path, root: Path | None) -> Path:
    return confined(commands_dir / COMMAND_FILE, root)


def install_slash_command(commands_dir: Path, *, root: Path | None = None) -> str:
    """Put ``/remember`` into ``commands_dir`` (``<project>/.claude/commands`` or
    ``~/.claude/commands``). Idempotent; an older pokayokay version of the file is replaced, a
    file of someone else's at that place is left alone. ``root``: the folder the file must stay
    inside once symlinks are resolved (the project). Returns one line for the init report."""
    from pokayokay.infra.safe_write import (
        encode_text,
        read_bytes,
        replace_if_unchanged,
        with_retries,
    )

    target = _command_target(commands_dir, root)
    wanted = encode_text(slash_command_text())

    def step(_attempt: int) -> str:
        current = read_bytes(target)
        if current == wanted:
            return f"/remember already installed in {target}"
        if current is not None and encode_text(COMMAND_MARKER) not in current:
            return (
                f"{target} exists and is not pokayokay's /remember: left as it is "
                "(the plugin's /pokayokay:remember does the same)"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_if_unchanged(target, current, wanted)
        return f"{'updated' if current is not None else 'created'} {target} (/remember)"

    return with_retries(step, what=str(target))


def uninstall_slash_command(commands_dir: Path, *, root: Path | None = None) -> str | None:
    """Remove ``/remember`` from ``commands_dir`` if it is exactly what init installed (a copy
    someone edited is left alone). Returns one line for the uninstall report, None when there
    was nothing of pokayokay's there."""
    from pokayokay.infra.safe_write import encode_text, read_bytes

    target = _command_target(commands_dir, root)
    current = read_bytes(target)
    if current is None or encode_text(COMMAND_MARKER) not in current:
        return None
    if current != encode_text(slash_command_text()):
        return (
            f"{target} differs from the /remember this pokayokay ships (edited, or from another "
            "version): left as it is"
        )
    target.unlink()
    return f"removed {target} (/remember)"
