"""Where the repository, the test data and the real Claude Code samples are."""

from __future__ import annotations

from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = TESTS_DIR.parent
DATA_DIR = TESTS_DIR / "data"
GOLDEN_DIR = TESTS_DIR / "golden"
GOLDEN_RULES_DIR = TESTS_DIR / "golden_rules"
SAMPLES_DIR = REPO_ROOT.parent / "shared" / "claude-code-samples"
FIXTURE_SAMPLES_DIR = DATA_DIR / "claude-code-samples"


def run_without_site(code: str, *args: str) -> str:
    """The standard output of ``code`` run by a bare interpreter (``-S -E``: no site, no
    environment), as the spool entry runs, with pokayokay importable (its folder is ``argv[1]``,
    ``args`` follow). For checks of what a hot path imports."""
    import subprocess
    import sys

    root = str(REPO_ROOT)
    prelude = "import sys; sys.path.insert(0, sys.argv[1])\n"
    return subprocess.run([sys.executable, "-S", "-E", "-c", prelude + code, root, *args],
                          capture_output=True, text=True, check=True).stdout
