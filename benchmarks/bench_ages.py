"""``ages`` benchmark: a thin wrapper; the row lives in ``benchmarks/run.py``.

    .venv/bin/python benchmarks/bench_ages.py [--quick] [--repeat N] [--json PATH]

is ``benchmarks/run.py --only "ages on"``: ``pokayokay ages FILE --project P`` on a 500-entry
learnings file in a repository of 2,000 commits (built untimed with ``git fast-import``), as a
ratio to ``python -c pass`` measured first and last in the same run. Any other run.py option is
passed on. See benchmarks/README.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.run import main

if __name__ == "__main__":
    sys.exit(main(["--only", "ages on", *sys.argv[1:]]))
