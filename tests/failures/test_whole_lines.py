"""A pytest summary line cut short (``FAILED id - AssertionError: assert 0.3...``) is stored,
shown in the rule and told on the prompt by the line that holds its message whole (pytest's
``E`` line), taken as the tool wrote it; nothing else of the excerpt changes. Likewise a line
that names a failing test but not what it said: Rust's libtest result and panic lines give way
to the panic's message, ``go test``'s ``--- FAIL:`` line to what the test logged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.hooks import run_hook
from helpers.hooks import sample_payload as sample
from helpers.paths import REPO_ROOT
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.failures.signature import whole_lines
from pokayokay.failures.store import FailureStore

OUTPUTS = REPO_ROOT / "tests" / "data" / "outputs"
CUT = OUTPUTS / "pytest_cut_short_summary.txt"  # real pytest 8 output, -q, 80 columns
TWO = OUTPUTS / "pytest_two_failures.txt"
CARGO = OUTPUTS / "cargo_test_inline_assert_message.txt"  # real cargo 1.95 output, 2>&1
CARGO_QUIET = OUTPUTS / "cargo_test_quiet_inline.txt"  # the same run, cargo test -q
CARGO_TWO = OUTPUTS / "cargo_test_two_failures.txt"
GO_TWO = OUTPUTS / "go_test_v_two_failures.txt"
JEST_ONE = OUTPUTS / "jest_one_failure_values.txt"
JEST_TWO = OUTPUTS / "jest_two_failures.txt"
SHARES = "assertion `left == right` failed: shares were [333, 333, 333]"


def test_the_cut_short_summary_gives_way_to_the_assertion_pytest_printed_whole() -> None:
    text = CUT.read_text("utf-8")
    summary = "FAILED tests/test_cart.py::test_total_is_decimal - AssertionError: assert 0.3..."
    assert summary in text.splitlines()
    assert whole_lines([summary], text) == [
        "E       AssertionError: assert 0.30000000000000004 == Decimal('0.30')"
    ]


def test_each_of_two_failures_finds_its_own_line() -> None:
    text = TWO.read_text("utf-8")
    cut = "FAILED tests/test_cart.py::test_normalise_keeps_trailing[ab ] - AssertionErro..."
    whole = "FAILED tests/test_cart.py::test_total - assert (2 * 3) == 7"
    assert whole_lines([cut, whole], text) == [
        "E       AssertionError: assert 'ab' == 'ab '",
        whole,
    ]


def test_a_line_not_cut_short_or_not_a_summary_stays() -> None:
    text = "Loading...\nLoading modules\nE   x\n"
    lines = ("Loading...", "FAILED a.py::t - fine", "note - Loading...", "FAILED a.py::t - ...")
    for line in lines:
        assert whole_lines([line], text) == [line]


def test_a_cut_short_line_with_nothing_to_complete_it_stays() -> None:
    line = "FAILED a.py::t - AssertionError: assert 0.3..."
    assert whole_lines([line], line + "\n1 failed in 0.1s\n") == [line]


def test_a_rust_test_gives_way_to_its_panic_message() -> None:
    from pokayokay.failures.mistakes import find_mistakes
    from pokayokay.failures.signature import key_lines

    for path, command in ((CARGO, "cargo test"), (CARGO_QUIET, "cargo test -q")):
        text = path.read_text("utf-8")
        [mistake] = find_mistakes(text, command)
        assert mistake.key == "test:tests::shares_add_up_to_the_total"
        # the panic's message, then the sides of the comparison as libtest printed them
        assert whole_lines([mistake.line], text) == [SHARES, "left: 999", "right: 1000"]
        assert whole_lines(key_lines(text), text)[0] == SHARES  # the panic line, swapped


def test_each_of_two_rust_or_go_failures_keeps_its_own_report() -> None:
    """Each failing test's mistake holds its own report (its place: ``src/lib.rs:14:9``), and
    its line gives way to its own message."""
    from pokayokay.failures.mistakes import find_mistakes

    cargo = {m.key: m for m in find_mistakes(CARGO_TWO.read_text("utf-8"), "cargo test")}
    empty, sums = cargo["test:tests::empty_is_zero"], cargo["test:tests::sums_prices"]
    assert "src/lib.rs:14:9" in empty.text and "src/lib.rs:10:9" not in empty.text
    assert "src/lib.rs:10:9" in sums.text and "left: 5" in sums.text
    assert whole_lines([empty.line], empty.text) == [
        "assertion `left == right` failed", "left: 1", "right: 0"
    ]
    go = {m.key: m for m in find_mistakes(GO_TWO.read_text("utf-8"), "go test -v ./...")}
    assert [whole_lines([m.line], m.text) for m in go.values()] == [
        ["cart_test.go:7: Add(2, 2) = 5; want 4"],
        ["cart_test.go:13: Add(0, 0) = 1; want 0"],
    ]
    plain = "--- FAIL: TestAdd (0.00s)\n    cart_test.go:7: got 5\nFAIL\n"  # without -v
    assert whole_lines(["--- FAIL: TestAdd (0.00s)"], plain) == ["cart_test.go:7: got 5"]


def test_a_jest_header_gives_way_to_its_matcher_and_the_values_it_compared() -> None:
    from pokayokay.failures.mistakes import find_mistakes

    text = JEST_ONE.read_text("utf-8")  # real jest 29 output
    [mistake] = find_mistakes(text, "npx jest")
    assert whole_lines([mistake.line], text) == [
        "expect(received).toBe(expected) // Object.is equality", "Expected: 400",
        "Received: 399.6",
    ]
    two = {m.key: m for m in find_mistakes(JEST_TWO.read_text("utf-8"), "npx jest")}
    throws = two["test:src/cart.test.js > cart › an order with a missing price is rejected"]
    assert whole_lines([throws.line], throws.text) == [
        "expect(received).toThrow(expected)", 'Expected substring: "price"'
    ]


def test_an_old_rust_panic_line_holds_its_message_and_a_missing_one_changes_nothing() -> None:
    old = "test cart::total ... FAILED\nthread 'cart::total' panicked at 'no price', src/a.rs:3:5\n"
    assert whole_lines(["test cart::total ... FAILED"], old) == [
        "thread 'cart::total' panicked at 'no price', src/a.rs:3:5"
    ]
    for line, text in (
        ("test cart::total ... FAILED", "test cart::total ... FAILED\n"),
        ("thread 'x' panicked at src/a.rs:3:5:", "thread 'x' panicked at src/a.rs:3:5:\n"),
        ("--- FAIL: TestAdd (0.00s)", "--- FAIL: TestAdd (0.00s)\nFAIL\n"),
    ):
        assert whole_lines([line], text) == [line]


_lines = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), max_size=6)


@given(_lines, st.text(st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_every_line_kept_is_one_given_or_a_line_of_the_output(lines: list[str], text: str) -> None:
    out = whole_lines(lines, text)
    stripped = {raw.strip() for raw in text.splitlines()}
    assert all(line in lines or line in stripped for line in out)
    assert len(out) <= 3 * len(lines)  # a line, or its message and the comparison's two sides
    named = ("panicked at ", "... FAILED", " --- FAILED", "--- FAIL: ", "● ")
    if not any(line.rstrip().endswith("...") or any(n in line for n in named) for line in lines):
        assert out == lines


def failing_run(project: Path, session: str, n: int) -> dict[str, Any]:
    payload = sample(
        "PostToolUseFailure.Bash.json",
        project,
        session_id=session,
        tool_use_id=f"toolu_{n:04d}",
        error="Exit code 1\n" + CUT.read_text("utf-8"),
    )
    command = "python -m pytest -q tests/test_cart.py"
    payload["tool_input"] = {"command": command, "description": "run"}
    return payload


def test_the_registered_capture_stores_the_whole_assertion(project: Path) -> None:
    for name in ("tests/test_cart.py", "src/shop/cart.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("# project file\n", encoding="utf-8")
    assert run_hook("PostToolUseFailure", failing_run(project, "s1", 1)) == (0, "", "")
    with FailureStore.for_project(project) as store:
        [group] = store.failure_groups()
    assert group.signature == "test:tests/test_cart.py::test_total_is_decimal"
    assert group.excerpt == "E       AssertionError: assert 0.30000000000000004 == Decimal('0.30')"


def test_the_registered_capture_stores_a_rust_tests_message(project: Path) -> None:
    (project / "src").mkdir(exist_ok=True)
    (project / "src" / "lib.rs").write_text("// project file\n", encoding="utf-8")
    payload = sample("PostToolUseFailure.Bash.json", project, session_id="s1",
                     tool_use_id="toolu_0001", error="Exit code 101\n" + CARGO.read_text("utf-8"))
    payload["tool_input"] = {"command": "cargo test", "description": "run"}
    assert run_hook("PostToolUseFailure", payload) == (0, "", "")
    with FailureStore.for_project(project) as store:
        [group] = store.failure_groups()
    assert group.signature == "test:tests::shares_add_up_to_the_total"
    assert group.excerpt.split(" | ")[0] == SHARES
    assert "src/lib.rs" in group.paths
