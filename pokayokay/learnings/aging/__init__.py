"""The learnings staging file's entries and their ages (from git history)."""
