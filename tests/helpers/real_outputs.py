"""The real tool outputs the tests hold pattern guards to: the captured outputs in
``tests/data/outputs/`` and those of the labelled failure corpus, whole and as lines."""

from __future__ import annotations

from ruamel.yaml import YAML

from helpers.paths import DATA_DIR


def real_outputs() -> list[str]:
    outputs = [p.read_text("utf-8") for p in sorted((DATA_DIR / "outputs").glob("*.txt"))]
    cases = YAML(typ="safe").load((DATA_DIR / "failure_corpus.yaml").read_text("utf-8"))
    outputs += [str(case["output"]) for case in cases if case.get("output")]
    return outputs


REAL = real_outputs()
REAL_LINES = sorted({line for output in REAL for line in output.split("\n")})
