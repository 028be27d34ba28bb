"""The team the CLI and plan tests read: three clones of one bare remote, where A failed
``test_add`` once and ``test_tax`` twice, B failed ``test_add`` once, and C only pulled."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import team_clones  # a module: conftest names starting pytest_ are read as hooks
from helpers.team_clones import Clone, make_clones, make_remote


@pytest.fixture
def team(tmp_path: Path) -> list[Clone]:
    a, b, c = make_clones(tmp_path, make_remote(tmp_path), 3)
    failure = team_clones.pytest_failure
    a.session([failure("test_add"), failure("test_tax")])
    a.session([failure("test_tax")])
    a.sync()
    b.session([failure("test_add")])
    b.sync()
    assert c.pull()
    return [a, b, c]
