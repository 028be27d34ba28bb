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
