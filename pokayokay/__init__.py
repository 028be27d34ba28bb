"""pokayokay: mistake-proofing for Claude Code sessions through Claude Code's own memory files."""

__version__ = "0.1.0"
