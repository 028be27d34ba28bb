"""Starting pokayokay work in the background, out of a hook's time budget.

A detached command runs in its own session (Claude Code cutting a hook short cannot kill it),
with no input and its output appended to pokayokay's log, after a line saying why it was
started. Used by SessionEnd (curation, the store's one-off upgrades) and by a prompt that finds
notes without a semantic vector.
"""

from __future__ import annotations


def detach_command(args: list[str], why: str) -> None:
    """Run ``python -m pokayokay <args>`` detached; ``why`` goes to the log first."""
    import subprocess
    import sys

    from pokayokay.infra import logs

    log = logs.log(why)
    with open(log, "ab") as sink:
        subprocess.Popen(
            [sys.executable, "-m", "pokayokay", *args],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
            close_fds=True,
        )
