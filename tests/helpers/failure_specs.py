"""Stored failures from compact specs, for the spool gate's property tests: a spec is
(signature, category, session, paths); the store's signals as the prompt reads them."""

from __future__ import annotations

from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore
from pokayokay.skills.failure_boost import FailureSignals, signals_from_groups

Spec = tuple[str, str, str, list[str]]


def failure_of(n: int, spec: Spec, command: str = "pytest") -> Failure:
    """The ``n``-th stored failure of ``spec`` (its time stamps apart by ``n`` seconds)."""
    signature, category, session, paths = spec
    return Failure(
        ts=1_700_000_000.0 + n,
        session_id=session,
        tool="Bash",
        command=command,
        signature=signature,
        category=category,
        paths=tuple(sorted(paths)),
        excerpt=signature,
        exit_code=1,
    )


def signals_of(store: FailureStore) -> FailureSignals:
    """The store's failure signals, as the prompt's suggestion reads them."""
    return signals_from_groups(store.failure_groups(), store.single_session_owners())
