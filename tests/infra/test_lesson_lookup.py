"""The lesson lookup's file: keys, where a hook finds it, the command form it is keyed by."""

from __future__ import annotations

import marshal
import os
import random
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokayokay.infra import lesson_lookup as ll
from pokayokay.infra import packed


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("python -m pytest -q", "python -m pytest -q"),
        ("  python   -m pytest\t-q ", "python -m pytest -q"),
        ("cd /home/dev/project && python -m pytest -q", "python -m pytest -q"),
        ("python -m pytest -q 2>&1 | tail -n 40", "python -m pytest -q"),
        ("python -m pytest -q 2>&1 | head -50 | cat", "python -m pytest -q"),
        ("npm test > /dev/null", "npm test"),
        ("grep -rn foo src | wc -l", "grep -rn foo src | wc -l"),  # a real pipeline stays
        ("make build; make test", "make build; make test"),
    ],
)
def test_command_key(command: str, key: str) -> None:
    assert ll.command_key(command) == key


@given(st.text(max_size=80))
def test_command_key_is_idempotent(command: str) -> None:
    once = ll.command_key(command)
    assert ll.command_key(once) == once


def test_a_hook_finds_the_nearest_lookup_upwards(tmp_path: Path) -> None:
    root, sub = tmp_path / "repo", tmp_path / "repo" / "pkg" / "api"
    sub.mkdir(parents=True)
    assert ll.find_lookup(str(sub)) is None  # no lessons folder at all
    content = {"version": ll.LOOKUP_VERSION, "commands": {}, "always": []}
    [written] = ll.write_lookup([str(root)], content)
    assert ll.find_lookup(str(sub)) == written == ll.find_lookup(str(root))
    assert ll.find_lookup(str(tmp_path)) is None
    assert ll.load_for(str(sub)) == content
    assert oct(os.stat(written).st_mode & 0o777) in ("0o600", "0o644")
    assert ll.write_lookup([str(root)], None) == [written] and ll.find_lookup(str(sub)) is None


def test_unreadable_or_foreign_lookups_are_ignored(tmp_path: Path) -> None:
    path = Path(ll.lookup_path(str(tmp_path)))
    path.parent.mkdir(parents=True)
    foreign = (b"[1, 2]", b'{"version": 99}', b"\xff\xfe", b"{" * 10, b" " * (300 << 10))
    older = packed.header() + marshal.dumps({"version": ll.LOOKUP_VERSION - 1})
    cut = ll.write_lookup([str(tmp_path)], {"version": ll.LOOKUP_VERSION})[0]
    for data in (*foreign, older, Path(cut).read_bytes()[:-3]):
        path.write_bytes(data)
        assert ll.read_lookup(str(path)) is None


def test_command_entry_tolerates_odd_shapes() -> None:
    lookup = {"commands": {"make": {"guard": True}, "odd": "not a dict"}}
    assert ll.command_entry(lookup, "make  ") == {"guard": True}
    assert ll.command_entry(lookup, "odd") is None
    assert ll.command_entry(lookup, None) is None
    assert ll.command_entry({"commands": []}, "make") is None


def _command_key_by_patterns(command: str) -> str:
    """The command key as the patterns in ``command_key``'s docstring define it (what the
    lookup computed before it stopped importing ``re``)."""
    import re

    text = " ".join(command.split())
    text = re.sub(r"^cd\s+\S+\s*&&\s*", "", text)
    while True:
        shorter = re.sub(r"\s*\|\s*(?:tail|head|less|more|cat|tee)\b[^|]*$", "", text)
        shorter = re.sub(r"\s*(?:\d?>&\d|&>\s*/dev/null|\d?>\s*/dev/null)\s*$", "", shorter)
        if shorter == text:
            break
        text = shorter
    return text.strip()


_PIECES = [
    "cd", " ", "  ", "\t", "&&", "&", "|", "||", ">", ">&", "2", "1", "٣", "/dev/null", "dev",
    "tail", "head", "less", "more", "cat", "tee", "tailx", "tail_", "tail-f", "-n", "40", "x",
    "/srv/app", "pytest", "é", "\n",
]  # fmt: skip


@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
@example("cd /srv/app && python -m pytest -q 2>&1 | tail -n 40")
@example("cd a&&b&&c")
@example("x 12>&1")
@example("x 2&>/dev/null")
@example("a || tail x")
def test_command_key_is_what_the_patterns_say(command: str) -> None:
    assert ll.command_key(command) == _command_key_by_patterns(command)


def test_the_lookup_path_imports_neither_json_nor_re(tmp_path: Path) -> None:
    from helpers.paths import run_without_site

    lookup = Path(ll.write_lookup([str(tmp_path)], {"version": ll.LOOKUP_VERSION})[0])
    out = run_without_site(
        "from pokayokay.infra import lesson_lookup as ll\n"
        "from pokayokay.infra.lean_json import dumps\n"
        "ll.command_key('cd /x && pytest -q 2>&1 | tail -n 5')\n"
        "read = ll.read_lookup(sys.argv[2]); dumps({'a': ['b', 1, None]})\n"
        "print(read, sorted(m for m in ('json', 're') if m in sys.modules))\n",
        str(lookup),
    )
    assert out.strip() == f"{{'version': {ll.LOOKUP_VERSION}}} []"


# --- issue 24 item 6: a lesson about how a tool runs holds for any run of it ---------------------

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-.:/=", min_size=1, max_size=12)
_RUNS = st.sampled_from(
    [
        "python -m pytest",
        "python3.11 -m pytest",
        "pytest",
        ".venv/bin/python -m pytest",
        "PYTHONPATH=src pytest",
        "uv run pytest",
        "node_modules/.bin/eslint",
        "npx eslint",
    ]
)


def _invocation_property(run: str, words: list[str], cd: bool, tail: bool) -> None:
    arguments = [w if w.startswith("-") else "./" + w.lstrip("./") for w in words]
    command = " ".join([run, *arguments])
    if cd:
        command = f"cd /some/where && {command}"
    if tail:
        command += " 2>&1 | tail -n 20"
    assert ll.invocation_key(command) == ll.invocation_key(run)
    assert ll.invocation_key(run) != ""


@given(_RUNS, st.lists(_WORD, max_size=6), st.booleans(), st.booleans())
@settings(max_examples=200, deadline=None)
def test_files_flags_and_dressing_never_change_the_invocation_key(
    run: str, words: list[str], cd: bool, tail: bool
) -> None:
    _invocation_property(run, words, cd, tail)


_WORD_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_-.:/="
_RUN_LIST = [
    "python -m pytest", "python3.11 -m pytest", "pytest", ".venv/bin/python -m pytest",
    "PYTHONPATH=src pytest", "uv run pytest", "node_modules/.bin/eslint", "npx eslint",
]  # fmt: skip


def _seeded_invocation(seed: int) -> tuple[str, list[str], bool, bool]:
    """What the strategies above draw (a run, up to 12 words of 1-12 characters of ``_WORD``'s
    alphabet, the dressing), built from one drawn seed: the slow run's 4,000 examples cost the
    engine one draw each, not one per character."""
    rng = random.Random(seed)
    words = [
        "".join(rng.choices(_WORD_ALPHABET, k=rng.choice([1, 1, 2, 3, 5, 8, 12])))
        for _ in range(rng.randint(0, 12))
    ]
    return rng.choice(_RUN_LIST), words, rng.random() < 0.5, rng.random() < 0.5


@pytest.mark.slow
@given(st.integers(0, 2**64 - 1))
@settings(max_examples=4000, deadline=None)
def test_files_flags_and_dressing_never_change_the_invocation_key_many(seed: int) -> None:
    _invocation_property(*_seeded_invocation(seed))


def test_the_invocation_key_keeps_what_the_lesson_is_about() -> None:
    key = ll.invocation_key
    assert key("python -m pytest -q ./tests/x.py") == "python -m pytest"
    assert key("PYTHONPATH=src pytest tests") == "PYTHONPATH= pytest"
    assert key("./node_modules/.bin/eslint .") == "node_modules/.bin/eslint"
    assert key("python -m pytest && rm -rf build") == ""  # a chain is not one tool run
    assert key(".venv/bin/python -m pytest") != key("python -m pytest")


def test_a_failure_text_is_chosen_by_the_mistake_the_output_shows() -> None:
    link = {"failure": "link fix", "mistakes": [["undefined reference to `parse_config'"]]}
    typo = {"failure": "typo fix", "mistakes": [["src/main.c:", "error: expected"]]}
    entry = {**link, "others": [typo]}
    out = "src/main.c:4:5: error: expected ';' before 'for'"
    assert ll.failure_text(entry, out) == "typo fix"
    assert (
        ll.failure_text(entry, "main.c:(.text+0x20): undefined reference to `parse_config'")
        == "link fix"
    )
    assert ll.failure_text(entry, "collect2: error: ld returned 1") == ""
    assert ll.failure_text({"failure": "how it runs"}, "anything") == "how it runs"


def test_a_lookup_an_earlier_version_wrote_in_json_is_read_until_the_next_write(
    tmp_path: Path,
) -> None:
    import json

    root, sub = tmp_path / "repo", tmp_path / "repo" / "pkg"
    sub.mkdir(parents=True)
    content = {"version": ll.LOOKUP_VERSION, "commands": {"make": {"guard": True}}, "always": []}
    legacy = Path(ll.lookup_path(str(root))).with_suffix(ll.LEGACY_SUFFIX)
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text(json.dumps(content, indent=1), "utf-8")
    assert ll.find_lookup(str(sub)) == str(legacy) and ll.load_for(str(sub)) == content
    written = ll.write_lookup([str(root)], content)
    assert written == [str(legacy), ll.lookup_path(str(root))] and not legacy.exists()
    assert ll.load_for(str(sub)) == content
