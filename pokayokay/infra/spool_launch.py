"""`python -S -E <this file> <Event>`: the per-tool-call hooks' registered entry (decision 0141).
A few lines, since a file run as a script is compiled on every start (spool.py itself, 380
lines, cost a tool call some 17 million instructions to compile); spool.py's code comes from its
cached .pyc. Standard library (sys, os) and pokayokay.infra.spool only, as before."""

import os
import sys

if __name__ == "__main__":
    _here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.realpath(sys.path[0]) == os.path.realpath(_here):
        del sys.path[0]  # infra/ modules are no top-level names
    sys.path.append(os.path.dirname(os.path.dirname(_here)))  # after the standard library
    from pokayokay.infra.spool import main

    sys.exit(main())
