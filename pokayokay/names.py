"""Names every part of pokayokay agrees on: file names, environment variables, markers, fixed
sentences. Standard library only and no imports at all, so the hook hot path may read it."""

# --- environment variables
ENV_HOME = "POKAYOKAY_HOME"  # pokayokay's state folder
ENV_MEMORY_DIR = "POKAYOKAY_MEMORY_DIR"  # overrides the auto-memory folder (tests, odd set-ups)
ENV_PROJECT_DIR = "CLAUDE_PROJECT_DIR"  # set by Claude Code for hooks
ENV_SEMANTIC = "POKAYOKAY_SEMANTIC"  # retired (decision 0142): a warning names it, nothing reads it

# --- pokayokay's settings files in a project (team, then personal)
TEAM_SETTINGS_FILE = ".claude/pokayokay.md"
LOCAL_SETTINGS_FILE = ".claude/pokayokay.local.md"

# --- files in the auto-memory folder
MEMORY_FILE = "MEMORY.md"
RECURRING_FAILURES_FILE = "recurring-failures.md"
SPIKES_FILE = "spike-results.md"
CHAIN_LEARNINGS_FILE = "chain-learnings.md"
LEARNINGS_ARCHIVE_FILE = "learnings-archive.md"
LEARNINGS_DROPPED_FILE = "learnings-dropped.md"
RULES_ARCHIVE_FILE = "rules-archive.md"
# Rewritten whole by learnings.outcomes.chain.
CHAIN_LEARNINGS_ARCHIVE_FILE = "chain-learnings-archive.md"
CONSOLIDATION_REPORT_FILE = "consolidation-report.md"  # rewritten by every consolidation
LEARNING_FILE_PREFIX = "learning-"  # topic files: learning-<topic>.md
ARCHIVE_PART_INFIX = "-part-"  # a split archive's parts: <stem>-part-<n>.md
# Every file pokayokay generates in the memory folder: no configured archive may name one (it
# would be rewritten, or would rewrite it). Consolidation's own two keep their defaults.
GENERATED_MEMORY_FILES = (
    MEMORY_FILE,
    RECURRING_FAILURES_FILE,
    SPIKES_FILE,
    CHAIN_LEARNINGS_FILE,
    CHAIN_LEARNINGS_ARCHIVE_FILE,
    CONSOLIDATION_REPORT_FILE,
    RULES_ARCHIVE_FILE,
    LEARNINGS_ARCHIVE_FILE,
    LEARNINGS_DROPPED_FILE,
)


def generated_memory_file(name: str, own: tuple[str, ...] = ()) -> bool:
    """Is ``name`` (a file in the memory folder) one pokayokay generates, or may come to: the
    files above, a ``learning-*.md`` topic file, a part of a split archive of one of them?
    ``own``: names the caller may use all the same (a key's own default). Case-insensitive, as
    on the file systems that fold case."""
    folded = name.casefold()
    if folded in {n.casefold() for n in own}:
        return False
    if folded.startswith(LEARNING_FILE_PREFIX):
        return True
    for generated in GENERATED_MEMORY_FILES:
        stem = generated.casefold().removesuffix(".md")
        if folded == generated.casefold():
            return True
        number = folded.removeprefix(stem + ARCHIVE_PART_INFIX).removesuffix(".md")
        if folded == f"{stem}{ARCHIVE_PART_INFIX}{number}.md" and number.isdigit():
            return True
    return False


# --- files in a project's state folder
FAILURES_DB = "failures.db"
FAILURES_CHANGED = "failures.db.changed"  # touched after every write to the store
INSTALL_MANIFEST = "install.json"
BACKUPS_DIR = "backups"
RECALL_INDEX_FILE = "recall-index.marshal"  # infra.packed
RECALL_ENTRIES_FILE = "recall-entries.json"
RECALL_FIXES_FILE = "recall-fixes.json"
SKILLS_CACHE_FILE = "skills-catalog.marshal"  # infra.packed
RULE_SCOPES_FILE = "rule-scopes.marshal"  # infra.packed: rules.scopes
# SubagentStart's lessons block, keyed by the stat of every file it is made from.
SUBAGENT_LESSONS_FILE = "subagent-lessons.marshal"  # infra.packed: hooks.subagent
# SessionStart's note on a MEMORY.md past the load limit, keyed by the files it is made from.
OVERFLOW_NOTE_FILE = "overflow-note.marshal"  # infra.packed: hooks.session
# The failure groups the skill suggestion reads, keyed by the store's change marker.
SUGGEST_FAILURES_FILE = "suggest-failures.marshal"  # infra.packed: skills.advice
# Its JSON form before decision 0168: removed when the cache is next written.
LEGACY_SUGGEST_FAILURES_FILE = "suggest-failures.json"
# The skills visible in a project with no phrases (SessionEnd keeps them), and those SessionStart
# has told the user about (skills.phrase_hint, decision 0178).
SKILLS_UNASKED_FILE = "skills-unasked.json"
SKILLS_UNASKED_HINTED_FILE = "skills-unasked-hinted.json"
# In the state home: the pipe the resident process holding the dense opinion's model reads
# requests from (its lock beside it, ``.lock`` appended), and the folder of the pipes each
# prompt reads its answer from: relevance.dense, decision 0181.
DENSE_FIFO = "dense.fifo"
DENSE_REPLIES = "dense-replies"
# Touched whenever pokayokay writes a file recall reads (learnings, MEMORY.md, archives): the
# prompt's quick freshness check (recall.sources) includes its stat.
MEMORY_CHANGED = "memory.changed"
# In the state home: touched when pokayokay installs or removes a SKILL.md (the skill catalog's
# quick freshness check, skills.catalog, includes its stat).
SKILLS_CHANGED = "skills.changed"
# In the state home: how a user might ask for each installed skill (skills.asked), and its lock.
SKILLS_ASKED_FILE = "skills-asked.json"
SKILLS_ASKED_LOCK = "skills-asked.lock"
FAILURE_CATEGORIES_CACHE = "failure-categories.json"  # settings' failure_categories, compiled
# The retired semantic recall (decision 0142) left these derived files: the model, shared by
# every project, in <state home>/models/<name>; each project's note vectors and resolved mode.
# Named only so that `doctor` finds them and `pokayokay semantic remove` deletes exactly them.
MODELS_DIR = "models"
SEMANTIC_MODEL_DIR = "all-MiniLM-L6-v2"
SEMANTIC_VECTORS_FILE = "semantic-vectors.bin"
SEMANTIC_MODE_FILE = "semantic-mode.json"

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

# --- rule file names (.claude/rules/pokayokay/<stem>.md)
ENVIRONMENT_RULE = "environment"  # the one project-wide rule: how commands are run here
# Stems no mistake family's rule file may take: the environment rule's, and the device names
# Windows refuses as file names whatever their extension (a checkout there would fail).
RESERVED_RULE_STEMS = frozenset(
    {ENVIRONMENT_RULE, "con", "prn", "aux", "nul"}
    | {f"com{n}" for n in range(10)}
    | {f"lpt{n}" for n in range(10)}
)
