"""Paths checked against a real project at capture time (``WorkTree``): the work tree or git's
index, folders named by the command, names with spaces kept whole, nothing from outside."""

from __future__ import annotations

from pathlib import Path

from helpers.gitrepo import git
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.failures.evidence_paths import WorkTree, extract_paths


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")


def paths(root: Path, command: str, error: str, cwd: Path | None = None) -> tuple[str, ...]:
    return extract_paths(
        "Bash",
        {"command": command},
        error,
        str(root),
        cwd=str(cwd or root),
        files=WorkTree(str(root)),
    )


def test_a_file_deleted_from_the_work_tree_but_in_git_is_kept(project: Path) -> None:
    make(project, "src/shop/legacy.py", "src/shop/cart.py")
    git(project, "add", "-A")
    (project / "src" / "shop" / "legacy.py").unlink()
    error = (
        "error: pathspec 'src/shop/legacy.py' did not match any file(s) known to git\n"
        "src/shop/cart.py:3:1: F401 `os` imported but unused\n"
        "src/shop/gone.py:1:1: E999 SyntaxError"
    )
    assert paths(project, "ruff check src", error) == ("src/shop/cart.py", "src/shop/legacy.py")


def test_a_package_pattern_is_its_folder_when_no_file_under_it_is_named(project: Path) -> None:
    make(project, "internal/billing/invoice.go")
    error = "FAIL\tgithub.com/acme/shop/internal/billing [setup failed]\nFAIL"
    assert paths(project, "go test ./internal/billing/...", error) == ("internal/billing",)


def test_a_bare_name_is_found_in_the_folders_the_command_names(project: Path) -> None:
    make(project, "internal/billing/invoice_test.go", "internal/cart/invoice_test.go")
    error = "--- FAIL: TestTotal (0.00s)\n    invoice_test.go:42: total = 1049, want 1050\nFAIL"
    assert paths(project, "go test ./internal/billing/", error) == (
        "internal/billing/invoice_test.go",
    )
    # Named by no folder and found twice in the project: ambiguous, so not kept.
    assert paths(project, "go test", error) == ()


def test_home_paths_and_branch_names_never_count(project: Path) -> None:
    make(project, "~/.ssh/id_rsa", "feature/README.md")
    command = "git push origin feature/cart && ssh -i ~/.ssh/id_rsa deploy@prod true"
    error = 'Load key "~/.ssh/id_rsa": bad permissions\n ! [rejected] feature/cart -> feature/cart'
    assert paths(project, command, error) == ()


def test_quoted_names_with_spaces_are_kept_whole_and_never_in_pieces(project: Path) -> None:
    make(project, "src/my module/quote.py", "quote.py", "src/my")
    error = (
        f"python3: can't open file '{project}/src/my module/quote.py': [Errno 2] No such file\n"
        'File "src/my module/quote.py", line 3, in <module>'
    )
    assert paths(project, "python3 'src/my module/quote.py'", error) == ("src/my module/quote.py",)


def test_relative_to_the_folder_the_command_ran_in(project: Path) -> None:
    make(project, "web/src/api/client.ts")
    error = "src/api/client.ts(42,7): error TS2322: Type 'string' is not assignable"
    assert paths(project, "npx tsc --noEmit", error, cwd=project / "web") == (
        "web/src/api/client.ts",
    )


_WORDS = st.sampled_from(
    [
        "src/shop/cart.py", "tests/test_cart.py", "~/.ssh/id_rsa", "../outside.py", "/etc/passwd",
        "feature/cart", "FAIL", "internal/billing/...", "Dockerfile:7", "'my file.py'",
        "cart.py:3:1:", "[warn]", "would reformat", "CONFLICT (content): Merge conflict in",
        "\n", " ", "::", "(3,4)", "error", "src/shop/", "./", "~", '"', "'",
    ]
)  # fmt: skip


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_WORDS, max_size=30), st.lists(_WORDS, max_size=8))
def test_every_path_kept_is_an_existing_project_file(
    project: Path, output: list[str], command: list[str]
) -> None:
    make(project, "src/shop/cart.py", "tests/test_cart.py", "Dockerfile", "my file.py")
    kept = paths(project, " ".join(command), "".join(output))
    for rel in kept:
        assert not rel.startswith(("/", "~", "..")), rel
        assert (project / rel).exists(), rel
        assert "..." not in rel and rel != "FAIL", rel
