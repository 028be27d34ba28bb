"""The learning topic files: one file's format, the stored files read back, and MEMORY.md's
Topic Index lines for them."""
