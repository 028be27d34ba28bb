"""pokayokay's own state folder: logs, backups of replaced MEMORY.md versions, install records.

``POKAYOKAY_HOME`` wins; otherwise the platform's user state folder. Inside it every project
gets ``projects/<slug>/`` keyed by the same slug Claude Code uses for the project's memory.
"""

from __future__ import annotations

from pathlib import Path

BACKUPS_KEPT = 10


def state_home(environ: dict[str, str] | None = None) -> Path:
    from pokayokay.infra.spool import state_home as spool_state_home  # the one copy of the rule

    return Path(spool_state_home(environ))


def project_state_dir(project_key: str, environ: dict[str, str] | None = None) -> Path:
    """The state folder of one project; ``project_key`` is the path Claude Code keys memory by."""
    from pokayokay.infra.locate import slugify

    return state_home(environ) / "projects" / slugify(project_key)


def log_file(environ: dict[str, str] | None = None) -> Path:
    """One log for every project: hooks run before we know which project is at stake."""
    return state_home(environ) / "logs" / "pokayokay.log"
