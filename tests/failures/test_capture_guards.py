"""The capture pipeline's second half searches a pattern only in a text holding one of the
strings every match of it holds (decision 0170): the evidence paths' error patterns, the
normalising rewrites of a signature line, the fix-path, missing-path and manifest messages.
Each table is the literal reader's answer for its pattern (``required_literals``, itself checked
against ``re``), the verbose temp-folder pattern's by hand and against the pattern; and the
capture's reading with every guard open is the guarded one, over the real outputs in tests/data
and generated outputs built from their lines and the guards' strings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.real_outputs import REAL, REAL_LINES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.failures import (
    evidence_paths,
    fix_paths,
    manifests,
    missing_paths,
    signature,
)
from pokayokay.failures.evidence_paths import extract_paths
from pokayokay.failures.signature import key_lines, normalise
from pokayokay.infra.lazyre import Lazy
from pokayokay.infra.literals import required_literals


def _read(pattern: Lazy) -> tuple[str, ...] | None:
    return required_literals(pattern.pattern, pattern._args[1])


def test_the_evidence_paths_needs_are_the_readers() -> None:
    p = evidence_paths._Patterns()
    for name, needs in evidence_paths.PATTERN_NEEDS.items():
        assert _read(getattr(p, name)) == needs, name


def test_the_normalising_needs_are_the_readers() -> None:
    p = signature._Patterns()
    for name, needs in signature.NORMALISE_NEEDS.items():
        if name != "temp":  # verbose: the reader does not follow it (checked below)
            assert _read(getattr(p, name)) == needs, name
    assert {name for name, _ in signature._GUARDED_REWRITES} == set(signature.NORMALISE_NEEDS)


def test_the_fix_missing_and_manifest_needs_are_the_readers() -> None:
    for lazy in (fix_paths._NO_MODULE, fix_paths._NO_RUN_MODULE, fix_paths._NO_OUTPUT_DIR,
                 fix_paths._NOT_COVERED):  # fmt: skip
        assert lazy._needs == _read(lazy), lazy
    assert _read(fix_paths._SUMMARY) == fix_paths.SUMMARY_NEEDS
    assert _read(missing_paths._MISSING) == missing_paths.MISSING_NEEDS
    assert _read(missing_paths._TO_CREATE) == missing_paths.TO_CREATE_NEEDS
    for patterns, _name in manifests._RULES:
        for lazy in patterns:
            assert lazy._needs == _read(lazy), lazy


TEMP_PIECES = [
    "/private/var/folders/x/T/a", "/var/folders/", "/tmp/build", " /tmp/", "x/tmp/y", "/dev/shm/a",
    "C:\\Users\\me\\AppData\\Local\\Temp\\x.txt", "\\AppData\\Local\\Temp\\", "/tmp",
    "/private/tmp/pytest-of-me/pytest-12/test_a0/f.py", "pytest-of-", "pytest-of-x/pytest-3",
]  # fmt: skip
NEEDS = sorted(
    {need for table in (evidence_paths.PATTERN_NEEDS, signature.NORMALISE_NEEDS)
     for needs in table.values() for need in needs}
    | set(fix_paths.SUMMARY_NEEDS) | set(missing_paths.MISSING_NEEDS)
    | set(missing_paths.TO_CREATE_NEEDS)
)  # fmt: skip
line_strategy = st.one_of(
    st.sampled_from(REAL_LINES),
    st.builds(
        lambda a, b, c: a + b + c,
        st.sampled_from(["", " ", "src/a.py", "E   ", 'File "/x/a.py"', "make: *** [all"]),
        st.sampled_from([*NEEDS, *TEMP_PIECES]),
        st.sampled_from(["", " line 3", "a.c:(.text+0x1a)", "ab-cd 12:30:01", " 0xff", "x"]),
    ),
    st.text(alphabet=st.sampled_from("/:-.0x'\"(),Tmpt_ \n"), max_size=30),
)
output_strategy = st.one_of(
    st.sampled_from(REAL),
    st.lists(line_strategy, max_size=20).map("\n".join),
)


def test_the_temp_needs_hold_for_every_match() -> None:
    temp = re.compile(signature._Patterns().temp.pattern, re.X)
    needs = signature.NORMALISE_NEEDS["temp"]
    for line in [*REAL_LINES, *TEMP_PIECES, *(f"see {piece}: gone" for piece in TEMP_PIECES)]:
        if temp.search(line):
            assert any(need in line for need in needs), line


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=line_strategy)
def test_the_temp_needs_hold_for_generated_lines(line: str) -> None:
    temp = signature._patterns().temp
    if temp.search(line):
        assert any(need in line for need in signature.NORMALISE_NEEDS["temp"]), line


ROOT = "/home/dev/project"


def _reading(output: str, root: Path) -> tuple[object, ...]:
    command = "pytest tests/test_a.py"
    return (
        normalise(output, project_roots=[ROOT], temp_dirs=["/tmp/run"]),
        key_lines(output, project_roots=[ROOT]),
        extract_paths("Bash", {"command": command}, output, ROOT),
        extract_paths(
            "Bash",
            {"command": command},
            output,
            str(root),
            files=evidence_paths.WorkTree(str(root)),
        ),
        fix_paths.without_summaries(output),
        missing_paths.missing_paths(output),
        missing_paths.to_create(output),
        manifests.manifest_names(output),
    )


def _open_reading(output: str, root: Path) -> tuple[object, ...]:
    """The same with every guard open (each pattern searched whatever the text holds)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(evidence_paths, "PATTERN_NEEDS", {})
        mp.setattr(signature, "NORMALISE_NEEDS", dict.fromkeys(signature.NORMALISE_NEEDS, ("",)))
        mp.setattr(fix_paths, "SUMMARY_NEEDS", ("",))
        mp.setattr(missing_paths, "MISSING_NEEDS", ("",))
        mp.setattr(missing_paths, "TO_CREATE_NEEDS", ("",))
        for lazy in (fix_paths._NO_MODULE, fix_paths._NO_RUN_MODULE, fix_paths._NO_OUTPUT_DIR,
                     fix_paths._NOT_COVERED,
                     *(lazy for patterns, _ in manifests._RULES for lazy in patterns)):  # fmt: skip
            mp.setattr(lazy, "_needs", ())
        return _reading(output, root)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project folder with a few of the files the outputs name."""
    folder = tmp_path_factory.mktemp("guards-project")
    for rel in ("src/app/checkout.py", "tests/test_a.py", "package.json", "Makefile"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("x\n", "utf-8")
    return folder


def test_the_real_outputs_read_as_with_every_guard_open(root: Path) -> None:
    assert len(REAL) >= 40
    for output in REAL:
        assert _reading(output, root) == _open_reading(output, root)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(output=output_strategy)
def test_generated_outputs_read_as_with_every_guard_open(root: Path, output: str) -> None:
    assert _reading(output, root) == _open_reading(output, root)
