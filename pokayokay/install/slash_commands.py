"""The slash command files pokayokay ships and installs into a project's or the user's
.claude/commands/ folder (and removes again, only when they are pokayokay's): ``/remember``,
which stores a learning, ``/skill-phrases``, which has Claude write how a user might ask for
each installed skill, and ``/learning-phrases``, how a teammate might ask for each stored
learning that has no such phrases yet (decision 0176)."""

from __future__ import annotations

from pathlib import Path

from pokayokay.errors import PokayokayError
from pokayokay.infra.safe_write import confined


class SlashCommand:
    """One shipped command: its file name, and the line that makes a file of that name
    pokayokay's (in every version of it)."""

    __slots__ = ("file", "marker")

    def __init__(self, file: str, marker: str) -> None:
        self.file = file
        self.marker = marker

    @property
    def title(self) -> str:
        return "/" + self.file.removesuffix(".md")


REMEMBER = SlashCommand("remember.md", "<<'POKAYOKAY_REMEMBER_END'")
SKILL_PHRASES = SlashCommand("skill-phrases.md", "pokayokay skills --unasked --reply")
LEARNING_PHRASES = SlashCommand("learning-phrases.md", "pokayokay remember --unasked --reply")
COMMANDS = (REMEMBER, SKILL_PHRASES, LEARNING_PHRASES)
# /remember's, kept under the names callers used before /skill-phrases shipped
COMMAND_FILE = REMEMBER.file
COMMAND_MARKER = REMEMBER.marker


def slash_command_source(command: SlashCommand = REMEMBER) -> Path:
    """The shipped ``commands/<file>``: ``pokayokay/commands/`` in a wheel, the repository's
    ``commands/`` in a source tree."""
    from pokayokay.infra.resources import resource_dir

    candidate = resource_dir("commands") / command.file
    if candidate.is_file():
        return candidate
    raise PokayokayError(
        f"this pokayokay installation lacks commands/{command.file}; reinstall pokayokay"
    )


def slash_command_text(command: SlashCommand = REMEMBER) -> str:
    return slash_command_source(command).read_text("utf-8")


def _command_target(commands_dir: Path, root: Path | None, command: SlashCommand) -> Path:
    return confined(commands_dir / command.file, root)


def install_slash_command(
    commands_dir: Path, *, root: Path | None = None, command: SlashCommand = REMEMBER
) -> str:
    """Put ``command`` into ``commands_dir`` (``<project>/.claude/commands`` or
    ``~/.claude/commands``). Idempotent; an older pokayokay version of the file is replaced, a
    file of someone else's at that place is left alone. ``root``: the folder the file must stay
    inside once symlinks are resolved (the project). Returns one line for the init report."""
    from pokayokay.infra.safe_write import (
        encode_text,
        read_bytes,
        replace_if_unchanged,
        with_retries,
    )

    target = _command_target(commands_dir, root, command)
    wanted = encode_text(slash_command_text(command))

    def step(_attempt: int) -> str:
        current = read_bytes(target)
        if current == wanted:
            return f"{command.title} already installed in {target}"
        if current is not None and encode_text(command.marker) not in current:
            return (
                f"{target} exists and is not pokayokay's {command.title}: left as it is "
                f"(the plugin's /pokayokay:{command.title[1:]} does the same)"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        replace_if_unchanged(target, current, wanted)
        return f"{'updated' if current is not None else 'created'} {target} ({command.title})"

    return with_retries(step, what=str(target))


def uninstall_slash_command(
    commands_dir: Path, *, root: Path | None = None, command: SlashCommand = REMEMBER
) -> str | None:
    """Remove ``command`` from ``commands_dir`` if it is exactly what init installed (a copy
    someone edited is left alone). Returns one line for the uninstall report, None when there
    was nothing of pokayokay's there."""
    from pokayokay.infra.safe_write import encode_text, read_bytes

    target = _command_target(commands_dir, root, command)
    current = read_bytes(target)
    if current is None or encode_text(command.marker) not in current:
        return None
    if current != encode_text(slash_command_text(command)):
        return (
            f"{target} differs from the {command.title} this pokayokay ships (edited, or from "
            "another version): left as it is"
        )
    target.unlink()
    return f"removed {target} ({command.title})"


def install_slash_commands(commands_dir: Path, *, root: Path | None = None) -> list[str]:
    """Every shipped command into ``commands_dir``: one report line each."""
    return [install_slash_command(commands_dir, root=root, command=c) for c in COMMANDS]


def uninstall_slash_commands(commands_dir: Path, *, root: Path | None = None) -> list[str]:
    """Every shipped command out of ``commands_dir``: one report line for each that was
    pokayokay's."""
    lines = (uninstall_slash_command(commands_dir, root=root, command=c) for c in COMMANDS)
    return [line for line in lines if line is not None]
