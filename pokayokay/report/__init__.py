"""``pokayokay report``: what pokayokay learned and whether it helps, over a period.

:mod:`.model` builds the content from values (pure), :mod:`.collect` reads the project's files
and failure store into it, :mod:`.text` and :mod:`.html` render it for the terminal and as one
self-contained page.
"""
