"""Corrections: which successful command corrects which failing one, and how."""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from pokayokay.failures.corrections import (
    COMMAND,
    ENVIRONMENT,
    correction_kind,
    difference,
    formatter_run,
    parse,
    purpose,
    rehearsal,
    substitutes,
)
from pokayokay.failures.fix_edits import credited_edits

ROWS = [
    ("python -m pytest tests/x.py", ".venv/bin/python -m pytest tests/x.py", ENVIRONMENT),
    ("pytest", "uv run pytest", ENVIRONMENT),
    ("pytest -q", "poetry run pytest -q", ENVIRONMENT),
    ("python3 -m pytest", "python3.12 -m pytest", ENVIRONMENT),
    ("pytest tests", "PYTHONPATH=src pytest tests", ENVIRONMENT),
    ("eslint src", "npx eslint src", ENVIRONMENT),
    ("python scripts/report.py", ".venv/bin/python scripts/report.py", ENVIRONMENT),
    ("mypy src", "node_modules/.bin/mypy src", ENVIRONMENT),
    ("npm test", "npm run test:unit", COMMAND),
    ("cd web && npm test 2>&1 | tail -20", "cd web && npm run test:unit", COMMAND),
    ("pytest tests/x.py", "pytest --import-mode=importlib tests/x.py", COMMAND),
    ("ruff check --select E501 .", "ruff check --select E5 .", COMMAND),  # a flag's value
    ("flake8 --max-line-length 88 src", "flake8 --max-line-length 100 src", COMMAND),
    ("npm ci && npm test", "npm ci && npm run test:unit", COMMAND),  # one link of a chain
    ("cd web && npm test", "cd web && npm run test", ENVIRONMENT),
    ("make build && pytest", "make build && .venv/bin/python -m pytest", ENVIRONMENT),
    # not corrections
    ("pytest tests/a.py", "pytest tests/b.py", None),  # other tests: narrowing is no fix
    ("pytest", "pytest tests/a.py", None),
    ("make test", "make check", None),
    ("npm test", "npm run build", None),
    ("pytest", "pytest", None),
    ("git push origin main", "git push --force origin main", None),  # dangerous
    ("./install.sh", "sudo ./install.sh", None),
    ("ruff check . && pytest", "uv run ruff check . && uv run pytest", None),  # chains
    ("pytest", "ruff check .", None),
    ("pytest -k cart tests", "pytest -k user tests", None),  # selects other tests
    ("pytest -q tests/test_cart.py", "pytest -q tests/test_other.py", None),  # -q is a switch
    ("pytest --lf tests/unit", "pytest --lf tests/api", None),  # a folder is an argument
    ("npx jest -t totalOf", "npx jest -t describeOrder", None),
    ("npm ci && npm test", "npm i && npm run test:unit", None),  # two links changed
    ("pytest tests/test_usr.py", "pytest tests/test_users.py", None),  # files unknown
]


@pytest.mark.parametrize(("failing", "passed", "kind"), ROWS)
def test_correction_kind(failing: str, passed: str, kind: str | None) -> None:
    assert correction_kind(failing, passed) == kind


@pytest.mark.parametrize(
    ("failing", "passed", "expected"),
    [
        (
            "python -m pytest x",
            ".venv/bin/python -m pytest x",
            (("python",), (".venv/bin/python",)),
        ),
        ("pytest", "uv run pytest", ((), ("uv", "run"))),
        ("pytest tests", "PYTHONPATH=src pytest tests", ((), ("PYTHONPATH=",))),
        ("pytest -x", "pytest -q", None),
        ("ruff check . && pytest", "uv run pytest", None),
    ],
)
def test_difference_names_how_the_command_was_run(
    failing: str, passed: str, expected: tuple[tuple[str, ...], tuple[str, ...]] | None
) -> None:
    assert difference(failing, passed) == expected


# --- issue 24 item 5: corrections that are corrections ------------------------------------------


@pytest.mark.parametrize(
    ("failing", "passing"),
    [
        ("npm run lint", "npx xo"),
        ("pnpm run lint", "pnpm exec eslint lib"),
        ("make tests", "make test"),
        ("pytest", "make test"),
        ("yarn typecheck", "npx tsc --noEmit"),
    ],
)
def test_another_command_for_the_same_purpose_is_an_environment_lesson(
    failing: str, passing: str
) -> None:
    assert substitutes(failing, passing)
    assert correction_kind(failing, passing) == ENVIRONMENT


@pytest.mark.parametrize(
    ("failing", "passing"),
    [
        ("npm run lint", "npm run build"),  # another purpose
        ("pytest tests/test_a.py", "make test"),  # a file is involved: narrowing, not a lesson
        ("make tests", "make build"),
        ("pytest -x", "pytest -p no:randomly -x"),  # one tool's options: no substitute
        ("npm run lint", "git status"),
        ("make deploy", "make release"),  # nothing known about either
    ],
)
def test_other_commands_are_no_substitutes(failing: str, passing: str) -> None:
    assert not substitutes(failing, passing)


@pytest.mark.parametrize(
    ("failing", "passing"),
    [
        ("black --check f.py", "black -q f.py"),
        (".venv/bin/black --check src tests", ".venv/bin/black src tests"),
        ("prettier --check src", "prettier --write src"),
        ("npx prettier --check lib src", "npx prettier --write lib src"),
        ("ruff check f.py", "ruff check --fix f.py"),
        ("ruff format --check .", "ruff format ."),
        ("gofmt -l .", "gofmt -w ."),
        ("cargo fmt --check", "cargo fmt"),
        ("black --check . && pytest", "black . && pytest"),  # the one link that changed
    ],
)
def test_a_check_then_its_formatter_is_no_correction(failing: str, passing: str) -> None:
    assert formatter_run(failing, passing)
    assert correction_kind(failing, passing) is None


FILES = {"tests/test_users.py", "tests/test_cart.py", "web/tests/test_users.py", "src"}


def exists(rel: str) -> bool:
    import os

    return os.path.normpath(rel) in FILES


@pytest.mark.parametrize(
    ("failing", "passed", "kind"),
    [
        ("pytest tests/test_usr.py", "pytest tests/test_users.py", COMMAND),
        ("pytest tests/test_usr.py -q", "pytest tests/test_users.py::test_add -q", COMMAND),
        ("cd web && pytest tests/test_usr.py", "cd web && pytest tests/test_users.py", COMMAND),
        ("pytest tests/test_users.py", "pytest tests/test_cart.py", None),  # both exist
        ("pytest tests/test_usr.py", "pytest tests/test_cart.py", None),  # not alike
        ("pytest tests/test_usr.py", "pytest -x tests/test_users.py", None),  # flags too
        ("cd app && pytest tests/test_usr.py", "cd app && pytest tests/test_users.py", None),
    ],
)
def test_a_file_name_corrected_is_a_command_correction(
    failing: str, passed: str, kind: str | None
) -> None:
    assert correction_kind(failing, passed, exists) == kind


_NAME = st.from_regex(r"[a-z]{1,12}", fullmatch=True)


@given(_NAME, _NAME)
def test_running_another_existing_file_is_never_a_correction(one: str, other: str) -> None:
    assume(one != other)
    failing, passed = f"pytest tests/test_{one}.py", f"pytest tests/test_{other}.py"
    assert correction_kind(failing, passed, lambda rel: True) is None
    assert correction_kind(failing, passed, lambda rel: False) is None
    # only a missing failing file and an existing passing one, alike, make a correction
    from difflib import SequenceMatcher

    made = correction_kind(failing, passed, lambda rel: rel.endswith(f"test_{other}.py"))
    alike = SequenceMatcher(None, one, other).ratio() >= 0.6
    assert made == (COMMAND if alike else None)


def test_purpose_reads_tools_scripts_targets_and_subcommands() -> None:
    def of(command: str) -> str | None:
        parsed = parse(command)
        assert parsed is not None
        return purpose(parsed)

    assert [of(c) for c in ("npm run lint", "npx xo", "make tests", "go test ./...")] == [
        "lint",
        "lint",
        "test",
        "test",
    ]
    assert [of(c) for c in ("ruff format .", "cargo clippy", "mypy", "make deploy")] == [
        "format",
        "lint",
        "typecheck",
        None,
    ]


_LINES = st.lists(st.text(alphabet="abcxyz =()", min_size=1, max_size=8), min_size=1, max_size=3)


def _excerpt(old: list[str], new: list[str]) -> str:
    return "\n".join([*(f"- {x}" for x in old), *(f"+ {x}" for x in new)])


@given(
    st.lists(
        st.tuples(st.sampled_from(["a.py", "b.py"]), _LINES, _LINES).filter(
            lambda c: not set(c[1]) & set(c[2])  # an excerpt never shows a line as both
        ),
        min_size=1,
        max_size=6,
    ),
    st.integers(min_value=0, max_value=5),
)
@example(changes=[("a.py", ["="], ["=="]), ("a.py", ["=", "="], ["=="])], undo=0)
# two edits with the same lines in another order: the undo of the first cancels the first
@example(changes=[("a.py", ["=="], ["=", "=", "a"]), ("a.py", ["=="], ["=", "a", "="])], undo=0)
@settings(max_examples=150, deadline=None)
def test_an_edit_undone_later_is_never_credited(
    changes: list[tuple[str, list[str], list[str]]], undo: int
) -> None:
    """Property: appending the exact inverse of an edit removes that edit from the credit and
    adds nothing; whatever is credited was really made, in order, after the last failure."""
    # An edit that another one already undoes (the same lines, swapped) leaves the appended
    # inverse as a real change of its own: the property is about one undo.
    shapes = [(p, tuple(sorted(o)), tuple(sorted(n))) for p, o, n in changes]
    assume(not any((p, n, o) in shapes for p, o, n in shapes))
    edits = [(float(i), path, _excerpt(old, new)) for i, (path, old, new) in enumerate(changes)]
    path, old, new = changes[undo % len(changes)]
    reverted = [*edits, (float(len(edits)), path, _excerpt(new, old))]
    credited = credited_edits(reverted, None)
    assert set(credited) <= {(p, e) for _, p, e in edits}
    assert len(credited) <= len(credited_edits(edits, None))
    undone = (path, _excerpt(old, new))
    if [(p, e) for _, p, e in edits].count(undone) == 1:
        assert undone not in credited
    cut = float(undo % len(changes))
    later = credited_edits(edits, cut)
    assert all((p, e) in {(q, f) for t, q, f in edits if t >= cut} for p, e in later)


# Real pairs (a failing command, then a dry run of it or of its correction that passed): the
# dry run proves nothing about the real run, so none is a correction (decision 0117).
REHEARSALS = [
    ("make tests", "make -n test"),  # the lesson corpus's lab ran exactly this
    ("make tests", "make --dry-run test"),
    ("make tests", "make --just-print test"),
    ("make tests", "make -ns test"),
    ("make", "make -n"),
    ("git push origin main", "git push --dry-run origin main"),
    ("git push origin main", "git push -n origin main"),
    ("npm publish", "npm publish --dry-run"),
    ("pnpm publish", "pnpm publish --dry-run"),
    ("cargo publish", "cargo publish --dry-run"),
    ("pip install -r requirements.txt", "pip install --dry-run -r requirements.txt"),
    ("terraform apply", "terraform plan"),
    ("pulumi up", "pulumi preview"),
    ("rsync -a build/ host:/srv", "rsync -an build/ host:/srv"),
    ("kubectl apply -f k8s.yaml", "kubectl apply --dry-run=client -f k8s.yaml"),
]


@pytest.mark.parametrize(("failing", "rehearsed"), REHEARSALS)
def test_a_dry_run_that_passes_is_no_correction(failing: str, rehearsed: str) -> None:
    assert rehearsal(rehearsed) and not rehearsal(failing)
    assert correction_kind(failing, rehearsed) is None


@pytest.mark.parametrize(
    ("failing", "passed", "kind"),
    [
        ("make -n tests", "make -n test", ENVIRONMENT),  # both rehearse: the target is the fix
        ("git commit -m x", "git commit -n -m x", COMMAND),  # -n skips hooks: it commits
        ("kubectl apply -f k.yaml", "kubectl apply --dry-run=none -f k.yaml", COMMAND),
        ("terraform plan", "terraform validate", None),
    ],
)
def test_a_real_run_is_not_a_rehearsal(failing: str, passed: str, kind: str | None) -> None:
    assert correction_kind(failing, passed) == kind
    for command in ("pytest -n 2 tests", "head -n 5 log", "grep -n x f", "git commit -n"):
        assert not rehearsal(command), command  # -n is a dry run only for some tools


_DRY_FLAGS = st.sampled_from(["--dry-run", "--dryrun", "--dry-run=client", "--simulate"])


@given(row=st.sampled_from([r for r in ROWS if r[2] is not None]), flag=_DRY_FLAGS)
def test_adding_a_dry_run_flag_to_a_correction_undoes_it(
    row: tuple[str, str, str | None], flag: str
) -> None:
    """Any correction in the table stops being one when the passing command only rehearses."""
    failing, passed, _ = row
    if "&&" in passed:  # a chain: the flag goes on the link that changed
        head, _, tail = passed.rpartition(" && ")
        passed = f"{head} && {tail} {flag}"
    else:
        passed = f"{passed} {flag}"
    assert correction_kind(failing, passed) is None
