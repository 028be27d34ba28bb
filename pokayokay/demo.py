"""`pokayokay demo`: the whole job on a bundled demo project, in a throwaway folder.

It builds a small git project with a messy, over-budget MEMORY.md (Claude's own notes, a section
three times over budget, a bug-fix list past its cap, a duplicated section), points
CLAUDE_CONFIG_DIR and POKAYOKAY_HOME into the same throwaway folder so nothing outside it is
touched, and runs init, status, curate --diff, curate and status again, printing each step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WORK = [
    "checkout page redesign",
    "invoice PDF export",
    "rate limiter for the public API",
    "nightly backup job",
    "search by SKU",
    "webhook signature checks",
]
DECISIONS = [
    (
        "2026-03-04",
        "Use Postgres advisory locks for the job queue",
        "no extra broker to run",
        "workers and the scheduler",
    ),
    (
        "2026-04-11",
        "Money is stored in integer cents",
        "float rounding broke two invoices",
        "every price field",
    ),
    ("2026-05-19", "API versions live in the URL", "clients pin versions explicitly", "routing"),
    (
        "2026-06-02",
        "Feature flags in the database, not env vars",
        "toggling needs no deploy",
        "the admin UI",
    ),
    ("2026-06-30", "One Alembic migration per PR", "reviewable schema changes", "db/migrations"),
    (
        "2026-07-21",
        "Background jobs are idempotent",
        "the queue delivers at least once",
        "all job handlers",
    ),
    ("2026-08-08", "Errors carry a stable code", "support can search by it", "the API layer"),
    (
        "2026-08-29",
        "No ORM lazy loading in views",
        "N+1 queries on the dashboard",
        "templates and serializers",
    ),
    (
        "2026-09-15",
        "Timestamps are UTC in storage",
        "reports across time zones",
        "models and exports",
    ),
    ("2026-10-01", "Secrets only from the vault", "leaked .env in a fork", "settings loading"),
    ("2026-10-20", "Pin the PDF renderer", "layout shifted on a minor upgrade", "invoice export"),
    (
        "2026-11-05",
        "Retry webhooks with backoff up to 24 h",
        "partners have long outages",
        "the webhook sender",
    ),
] * 2
ARCHITECTURE = [
    f"{area} lives in src/shop/{area.split()[0].lower()}/ and is owned by the {team} team"
    for area in (
        "Checkout flow",
        "Invoice rendering",
        "Search indexing",
        "Auth sessions",
        "Webhook delivery",
        "Pricing rules",
        "Inventory sync",
        "Admin UI",
    )
    for team in ("payments", "platform", "growth", "core", "ops")
]
BUGS = [
    "double charge when the user clicks Pay twice",
    "timezone drift in monthly reports",
    "CSV export dropping the last row",
    "cache key collision between tenants",
    "login loop after password reset",
]


def build_demo(root: Path) -> tuple[Path, dict[str, str]]:
    """Create the demo project and its isolated environment under ``root``."""
    from pokayokay.infra.locate import resolve_memory_location
    from pokayokay.infra.templating import render

    project = root / "shop"
    (project / "src" / "shop").mkdir(parents=True)
    (project / "src" / "shop" / "checkout.py").write_text("def total(cents):\n    return cents\n")
    (project / "README.md").write_text("# shop\n")
    env = dict(os.environ)
    env.update(
        HOME=str(root / "home"),
        CLAUDE_CONFIG_DIR=str(root / "home" / ".claude"),
        POKAYOKAY_HOME=str(root / "pokayokay-state"),
    )
    env.pop("CLAUDE_CODE_PROJECT_DIR_NAME", None)
    # The folder of this interpreter holds the `pokayokay` command when installed in a venv.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
    location = resolve_memory_location(project, environ=env)
    location.memory_dir.mkdir(parents=True, exist_ok=True)
    decisions = [{"date": d, "what": w, "why": y, "affects": a} for d, w, y, a in DECISIONS]
    memory = render(
        "demo/MEMORY.md.j2", work=WORK, decisions=decisions, bugs=BUGS, architecture=ARCHITECTURE
    )
    location.memory_file.write_text(memory, encoding="utf-8")
    return project, env


def run_demo(keep: str | None) -> int:
    root = Path(keep).resolve() if keep else Path(tempfile.mkdtemp(prefix="pokayokay-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    project, env = build_demo(root)
    print(f"demo project: {project}")
    print(f"(HOME, CLAUDE_CONFIG_DIR and POKAYOKAY_HOME point into {root})")
    steps = [
        ["status"],
        ["init"],
        ["curate", "--diff"],
        ["curate"],
        ["status"],
        ["curate", "--check"],
    ]
    code = 0
    for step in steps:
        print(f"\n$ pokayokay {' '.join(step)}")
        sys.stdout.flush()
        proc = subprocess.run(
            [sys.executable, "-m", "pokayokay", *step, "--project", str(project)],
            env=env,
            check=False,
        )
        if step == ["curate", "--check"]:
            print(f"(exit code {proc.returncode}: 0 means curating again would change nothing)")
            code = proc.returncode
        elif proc.returncode not in (0, 1):
            return proc.returncode
    if not keep:
        print(f"\nthe demo folder stays for you to look at: {root}")
    return code
