"""Rule effectiveness answered by the store's aggregate queries equals the pure assessment
over every row (the definition), for any history of loads and failures."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore
from pokayokay.rules.effectiveness import assess

SIGNATURES = (
    "FAILED tests/test_cart.py::test_add - assert <n> == <n>",
    "error TS2322: Type 'string' is not assignable to type 'number'.",
    "ModuleNotFoundError: No module named 'requests'",
)
RULES = (".claude/rules/pokayokay/pytest-cart.md", ".claude/rules/pokayokay/ts-types.md")
SESSIONS = ("s1", "s2", "s3", "s4")

events = st.lists(
    st.tuples(
        st.sampled_from(("load", "failure")),
        st.integers(0, 50),  # time
        st.sampled_from(SESSIONS),
        st.integers(0, 2),  # signature / rule index
    ),
    max_size=40,
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(history=events, named=st.sets(st.integers(0, 2)))
def test_aggregates_equal_the_row_by_row_assessment(
    tmp_path: Path, history: list[tuple[str, int, str, int]], named: set[int]
) -> None:
    db = tmp_path / f"store-{abs(hash((tuple(history), tuple(named))))}.db"
    loads, failures = [], []
    with FailureStore(db) as store:
        for n, (kind, t, session, index) in enumerate(history):
            ts = 1_760_000_000.0 + t
            if kind == "load":
                rule = RULES[index % 2]
                store.record_rule_load(session, rule, "src/cart.py", ts)
            else:
                failure = Failure(ts, session, "Bash", "pytest", SIGNATURES[index], "testing",
                                  ("tests/test_cart.py",), "assert 3 == 4", 1)
                store.record_failure(failure, tool_use_id=f"toolu_{n}")
        loads = store.rule_loads()
        failures = store.failures()
        wanted = sorted(SIGNATURES[i] for i in named)
        for rule in RULES:
            expected = assess(rule, wanted, loads, failures)
            got = store.rule_effect(rule, wanted)
            assert got._asdict() == {
                key: value for key, value in expected.as_dict().items()
                if key not in ("rule_path", "signatures", "recurred")
            }
            loose = store.rule_effect(rule, wanted, exact=False)  # SessionEnd's retirement check
            assert (loose.sessions, loose.loads) == (expected.sessions, expected.loads)
            assert bool(loose.recurrences) == expected.recurred
