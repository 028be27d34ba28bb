"""`python -S -E <this file> <Event>`: the hooks that are not spooled (decision 0141). Short:
a file run as a script is compiled on every start; the rest is pokayokay.hooks.site_on_demand."""

import os
import sys

if __name__ == "__main__":
    _here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.realpath(sys.path[0]) == os.path.realpath(_here):
        del sys.path[0]  # hooks/ modules are no top-level names
    sys.path.append(os.path.dirname(os.path.dirname(_here)))  # after the standard library
    from pokayokay.hooks.site_on_demand import run_hook, site_on_demand

    site_on_demand()
    sys.exit(run_hook(sys.argv[1:]))
