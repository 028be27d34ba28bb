"""The failure store's one-off upgrades from the command line (:mod:`pokayokay.failures.upgrade`):
``pokayokay upgrade-store``, which SessionEnd starts detached when one is due, and the same work
before the commands that read the store."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from pokayokay.failures.upgrade import UpgradeReport

    Folders = tuple[Path, Path | None]


# What a command that reads the store spends on redaction batches at most before answering
# (the 80,000-row store takes 5 to 7 s in all): the rest waits for the next command, or for
# the `upgrade-store` SessionEnd starts.
READER_BUDGET = 2.0


def upgrade_project_store(
    project_key: str, *, quiet: bool, budget: float | None = None
) -> UpgradeReport | None:
    """Run the upgrades due on the project's store (None: no store, or nothing due), within
    ``budget`` seconds of redaction (None: all of it). Says on stderr that a one-off upgrade is
    running unless ``quiet``; logs what it did."""
    from pokayokay.failures import upgrade
    from pokayokay.failures.store import FailureStore
    from pokayokay.infra import logs
    from pokayokay.infra.state import project_state_dir
    from pokayokay.names import FAILURES_DB

    db = project_state_dir(project_key) / FAILURES_DB
    if not db.is_file():
        return None
    with FailureStore(db) as store:
        names = upgrade.due(store)
        if not names:
            return None
        if not quiet:
            sys.stderr.write(f"pokayokay: upgrading the failure store once ({', '.join(names)})…\n")
        report = upgrade.run(store, budget=budget)
    if report.rewritten:
        upgrade.drop_derived_caches(db.parent)
    logs.log(
        f"failure store {db}: upgrades finished {report.finished or 'none'}, "
        f"{report.rewritten} rows redacted, vacuumed: {report.vacuumed}, "
        f"still due: {report.left or 'none'}{' (another process holds it)' if report.busy else ''}"
    )
    return report


def describe(report: UpgradeReport | None) -> str:
    """One line for ``pokayokay upgrade-store``."""
    if report is None:
        return "The failure store needs no upgrade."
    if report.busy:
        return "Another pokayokay process is upgrading the failure store."
    done = ", ".join(report.finished) or "nothing"
    line = f"Failure store upgraded: {done}; {report.rewritten} rows redacted"
    if report.vacuumed:
        line += "; file rebuilt"
    if report.left:
        line += f"; still due: {', '.join(report.left)}"
    return line + "."


def add_parser(
    sub: Any, common: argparse.ArgumentParser, folders: Callable[[argparse.Namespace], Folders]
) -> None:
    """Register ``upgrade-store`` on the CLI's subparsers; ``folders`` resolves ``--project``
    and ``--memory-dir`` as every command does."""
    p = sub.add_parser(
        "upgrade-store", parents=[common], help="finish the failure store's one-off upgrades"
    )
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(func=lambda ns: run_command(ns, folders(ns)))


def run_command(ns: argparse.Namespace, folders: tuple[Path, Path | None]) -> int:
    """``pokayokay upgrade-store`` (``folders``: the checked --project and --memory-dir)."""
    from pokayokay.infra.locate import resolve_memory_location

    project, memory_dir = folders
    key = str(resolve_memory_location(project, memory_dir=memory_dir).project_key)
    report = upgrade_project_store(key, quiet=True)
    if not ns.quiet:
        print(describe(report))
    return 0


def before_reading(ns: argparse.Namespace) -> None:
    """Before a command that reads the store: its project's upgrades, failing open (logged,
    one stderr line): an upgrade that cannot run never costs the command its answer."""
    from pathlib import Path

    from pokayokay.infra.locate import resolve_memory_location

    try:
        project = getattr(ns, "project", None)
        memory_dir = getattr(ns, "memory_dir", None)
        folder = Path(project or ".").resolve()
        override = Path(memory_dir).expanduser().resolve() if memory_dir else None
        location = resolve_memory_location(folder, memory_dir=override)
        report = upgrade_project_store(str(location.project_key), quiet=False, budget=READER_BUDGET)
        if report is not None and report.left and not report.busy:
            sys.stderr.write("pokayokay: the rest of the upgrade continues next time.\n")
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open(f"{ns.command}: upgrading the failure store", exc)
