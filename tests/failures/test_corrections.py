"""Corrections: which successful command corrects which failing one, and how."""

from __future__ import annotations

import pytest

from pokayokay.failures.corrections import COMMAND, ENVIRONMENT, correction_kind, difference

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
