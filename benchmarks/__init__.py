"""pokayokay's benchmarks (run them with ``python benchmarks/run.py``; see README.md)."""
