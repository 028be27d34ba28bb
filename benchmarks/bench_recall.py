"""Recall benchmarks: a thin wrapper; the rows live in ``benchmarks/run.py``.

    .venv/bin/python benchmarks/bench_recall.py [--quick] [--repeat N] [--json PATH]

is ``benchmarks/run.py --only "hook UserPromptSubmit"``: the UserPromptSubmit hook over 2,000
learnings (warm with a related and an unrelated prompt, one learning changed, cold), as ratios
to ``python -c pass`` measured first and last in the same run. Any other run.py option is passed
on. See benchmarks/README.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.run import main

if __name__ == "__main__":
    sys.exit(main(["--only", "hook UserPromptSubmit", *sys.argv[1:]]))
