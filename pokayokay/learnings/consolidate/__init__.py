"""Consolidation of the learnings staging file: the pure plan (similarity, routing, splitting,
its settings) and its edges (apply, report, trigger, the Topic Index lines)."""
