"""Session outcomes: chain learnings, spikes, what pokayokay observed in a session (Recent Bug
Fixes, Completed Work, Key Decisions) and the commit each session started on."""
