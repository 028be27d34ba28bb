"""Shared fixtures. Every test runs with HOME, POKAYOKAY_HOME, CLAUDE_CONFIG_DIR and the XDG
folders pointed into its own temporary folder, so no test can touch the real home folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.gitrepo import git
from helpers.paths import FIXTURE_SAMPLES_DIR
from hypothesis import settings

# CI runs every property test on the same examples (reproducible failures); locally Hypothesis
# explores new ones on every run. CI's slow tier asks for "drawn" (POKAYOKAY_HYPOTHESIS=drawn):
# new examples each run from the seed it draws and prints (pytest --hypothesis-seed=N runs them
# again), so its thousands of examples add up over runs instead of repeating (decision 0155).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("drawn", deadline=None, print_blob=True, database=None)
settings.register_profile("dev", deadline=None)
if os.environ.get("POKAYOKAY_HYPOTHESIS") == "drawn":
    settings.load_profile("drawn")
else:
    settings.load_profile("ci" if os.environ.get("CI") else "dev")



def _is_property(test: object) -> bool:
    """Whether ``test`` is a Hypothesis property (``hypothesis.is_hypothesis_test`` where this
    Hypothesis has it, else the attribute ``@given`` sets on its test)."""
    import hypothesis

    check = getattr(hypothesis, "is_hypothesis_test", None)
    return bool(check(test) if check else getattr(test, "is_hypothesis_test", False))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each property test ``property``: CI's 3.10 and 3.13 tiers leave them to the main
    Python's everyday and slow tiers (decision 0186). With ``POKAYOKAY_PART`` set to ``i/n``,
    keep only the test files of part ``i`` of ``n`` (by a hash of the file's path), and every
    test marked ``every_part``: CI's slow tier runs one half a run, and its 3.10 and 3.13 tiers a
    quarter each, the parts drawn from its seed (decisions 0186, 0207)."""
    for item in items:
        if _is_property(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.property)
    part = _part(os.environ.get("POKAYOKAY_PART", ""))
    if part is None:
        return
    import zlib

    index, count = part
    keep, drop = [], []
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        mine = zlib.crc32(path.encode("utf-8")) % count == index
        (keep if mine or item.get_closest_marker("every_part") else drop).append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)


def _part(text: str) -> tuple[int, int] | None:
    """``i/n`` read as (i, n) when 0 <= i < n; anything else (unset) keeps every file."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit()) or not int(index) < int(count):
        if text:
            raise pytest.UsageError(f"POKAYOKAY_PART must be i/n with 0 <= i < n, not {text!r}")
        return None
    return int(index), int(count)


def _listing(folder: Path) -> set[str]:
    """Names two levels deep under ``folder`` (empty when it does not exist)."""
    found: set[str] = set()
    if folder.is_dir():
        for child in folder.iterdir():
            found.add(child.name)
            if child.is_dir():
                found.update(f"{child.name}/{grandchild.name}" for grandchild in child.iterdir())
    return found


# No resident dense model (decision 0181) unless a test starts one (tests/relevance/test_dense.py):
# every SessionStart a test runs would otherwise start one, each loading the model; set here, not
# only in isolated_home, so that module-scoped labs built before it inherit it too.
os.environ["POKAYOKAY_DENSE"] = "0"


@pytest.fixture(scope="session", autouse=True)
def real_home_untouched() -> Iterator[None]:
    """The session fails if any test wrote where pokayokay or Claude Code keep their files in
    the real home folder (the isolation below is meant to make that impossible)."""
    real = Path(os.path.expanduser("~"))
    places = [real / ".local" / "state" / "pokayokay", real / ".claude" / "projects",
              real / "Library" / "Application Support" / "pokayokay"]  # fmt: skip
    before = {place: _listing(place) for place in places}
    yield
    for place, names in before.items():
        added = sorted(_listing(place) - names)
        assert not added, f"a test wrote into the real home folder: {place}: {added[:5]}"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Its own MonkeyPatch, not the test's: a test calling ``monkeypatch.undo()`` must not put
    the real home folder back under the code it runs next."""
    home = tmp_path_factory.mktemp("home")
    patch = pytest.MonkeyPatch()
    patch.setenv("HOME", str(home))
    patch.setenv("POKAYOKAY_HOME", str(home / "pokayokay-state"))
    patch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    patch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    patch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    patch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    # No resident dense model unless a test starts one (tests/relevance/test_dense.py): every
    # SessionStart a test runs would otherwise start one, each loading the model.
    patch.setenv("POKAYOKAY_DENSE", "0")
    for var in ("CLAUDE_PROJECT_DIR", "CLAUDE_CODE_PROJECT_DIR_NAME", "CLAUDE_CODE_SESSION_ID"):
        patch.delenv(var, raising=False)
    try:
        yield home
    finally:
        patch.undo()


@pytest.fixture(autouse=True)
def catch_up_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """SessionStart's detached catch-up (decision 0130), when a test runs the hook in its own
    process, runs at once in that process: a real detached worker would race the test's next
    steps (its next hook, its git commits). Registered commands a test runs as subprocesses
    start the real worker (tests/hooks/test_session_catch_up.py waits for it)."""
    from pokayokay.hooks import catch_up, catch_up_worker

    def inline(launch: str) -> None:
        catch_up_worker.main([launch])

    monkeypatch.setattr(catch_up_worker, "SETTLE_WAIT", 0.0)
    monkeypatch.setattr(catch_up, "start_worker", inline)


@pytest.fixture
def samples_dir() -> Path:
    """Real hook payloads captured from Claude Code 2.1.330 (copied into tests/data)."""
    return FIXTURE_SAMPLES_DIR




@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty git work tree (branch main) at its real path: the project Claude Code runs in."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return Path(os.path.realpath(root))
