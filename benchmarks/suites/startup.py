"""The floors and the import row: what starting Python, and pokayokay's CLI, costs."""

from __future__ import annotations

import sys

from benchmarks.fixtures.lab import Lab
from benchmarks.harness import FLOOR, FLOOR_ISOLATED, Case, Measurable, Spec


def specs() -> list[Spec]:
    py = sys.executable

    def floor(name: str, argv: list[str], note: str) -> Spec:
        is_floor = name in (FLOOR, FLOOR_ISOLATED)

        def build(lab: Lab, n: int) -> Measurable:
            return Case(name, argv, n, lab.root, lab.env, note=note, interleave_floor=not is_floor)

        return Spec(name, build)

    return [
        floor(FLOOR, [py, "-c", "pass"], "the baseline: interpreter start, site, exit"),
        floor(FLOOR_ISOLATED, [py, "-I", "-S", "-c", "pass"], "no site: the start-up core"),
        floor(
            "import pokayokay.cli.main",
            [py, "-c", "import pokayokay.cli.main"],
            "import cost of the CLI",
        ),
    ]
