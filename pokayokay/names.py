"""Names every part of pokayokay agrees on: file names, environment variables, markers, fixed
sentences. Standard library only and no imports at all, so the hook hot path may read it."""

# --- environment variables
ENV_HOME = "POKAYOKAY_HOME"  # pokayokay's state folder
ENV_MEMORY_DIR = "POKAYOKAY_MEMORY_DIR"  # overrides the auto-memory folder (tests, odd set-ups)
ENV_PROJECT_DIR = "CLAUDE_PROJECT_DIR"  # set by Claude Code for hooks

# --- files in the auto-memory folder
MEMORY_FILE = "MEMORY.md"
RECURRING_FAILURES_FILE = "recurring-failures.md"
SPIKES_FILE = "spike-results.md"
CHAIN_LEARNINGS_FILE = "chain-learnings.md"
LEARNINGS_ARCHIVE_FILE = "learnings-archive.md"

# --- files in a project's state folder
FAILURES_DB = "failures.db"
INSTALL_MANIFEST = "install.json"
BACKUPS_DIR = "backups"
RECALL_INDEX_FILE = "recall-index.json"
RECALL_ENTRIES_FILE = "recall-entries.json"
SKILLS_CACHE_FILE = "skills-catalog.json"

# --- files in the project
RULES_SUBDIR = ("rules", "pokayokay")  # .claude/rules/pokayokay/

# --- markers in MEMORY.md (Claude Code strips HTML comments before the model reads them)
SECTION_END_MARKER = "<!-- /pokayokay -->"

# --- fixed sentences pokayokay puts in front of Claude
SESSION_START_TIP = "Tip: Use `/remember <learning>` to capture insights."
# Which recalled notes were injected in which session (recall's once-per-session manners).
RECALL_SHOWN_FILE = "recall-shown.json"
# The HEAD each session started on (Completed Work lists the commits made since).
SESSION_HEADS_FILE = "session-heads.json"
