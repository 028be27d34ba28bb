"""Where pokayokay's own files live: one rule for the state folder and one for a folder's key in
file names, used by the spool (``spool/<key>/``), the lesson lookup (``lessons/<key>.marshal``)
and the rest of pokayokay (:mod:`pokayokay.infra.state`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pokayokay.infra import lesson_lookup, spool
from pokayokay.infra.state import (
    FOLDER_KEY_MAX,
    folder_key,
    state_folder,
    state_home,
    state_home_path,
)

ENVIRONMENTS = [
    {"POKAYOKAY_HOME": "~/state", "HOME": "/home/dev"},
    {"POKAYOKAY_HOME": "/srv/pky"},
    {"HOME": "/home/dev"},
    {"HOME": "/home/dev", "XDG_STATE_HOME": "/var/state"},
    {"HOME": "/home/dev", "LOCALAPPDATA": "/appdata"},
]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_reader_of_the_state_folder_finds_the_same_one(env: dict[str, str]) -> None:
    folder = state_folder(env)
    assert Path(folder) == state_home(env) == Path(state_home_path(env))
    assert spool.spool_root(env) == os.path.join(folder, "spool")
    assert lesson_lookup.lookup_path("/home/dev/app", env).startswith(
        os.path.join(folder, lesson_lookup.LOOKUP_DIR) + os.sep
    )


def test_the_state_folder_follows_pokayokay_home_then_the_platform() -> None:
    assert state_folder({"POKAYOKAY_HOME": "~/state", "HOME": "/home/dev"}) == os.path.expanduser(
        "~/state"
    )
    assert state_folder({"HOME": "/home/dev"}) == "/home/dev/.local/state/pokayokay"
    assert state_folder({"HOME": "/h", "XDG_STATE_HOME": "/var/s"}) == "/var/s/pokayokay"


@given(st.text(max_size=300) | st.text(min_size=FOLDER_KEY_MAX + 1, max_size=300))
@example("")
@example("/home/dev/" + "ü" * 200)
def test_a_folder_key_is_a_file_name_and_the_spool_and_the_lookup_use_it(folder: str) -> None:
    key = folder_key(folder)
    assert key and len(key) <= FOLDER_KEY_MAX + 17
    assert all(c.isascii() and (c.isalnum() or c == "-") for c in key)
    env = {"POKAYOKAY_HOME": "/srv/pky"}
    assert spool.spool_dir(folder, env) == os.path.join("/srv/pky", "spool", key)
    if folder:
        absolute = os.path.abspath(folder)
        assert lesson_lookup.lookup_path(folder, env) == os.path.join(
            "/srv/pky", lesson_lookup.LOOKUP_DIR, folder_key(absolute) + lesson_lookup.LOOKUP_SUFFIX
        )


@given(st.text(min_size=1, max_size=200), st.text(min_size=1, max_size=4))
def test_long_folders_that_differ_only_past_the_cut_keep_distinct_keys(
    tail_a: str, tail_b: str
) -> None:
    stem = "/srv/" + "a" * FOLDER_KEY_MAX
    if tail_a != tail_b:
        assert folder_key(stem + tail_a) != folder_key(stem + tail_b)


def test_keys_are_the_ones_earlier_versions_wrote() -> None:
    """An upgrade must find the spool folders and lesson lookups an earlier version named
    (pinned from that version's ``spool_key``)."""
    assert folder_key("/home/dev/project") == "-home-dev-project"
    assert folder_key("") == "-"
    assert folder_key("/home/dev/ü") == "-home-dev--"
    assert folder_key("/srv/" + "a" * 300).endswith("-7cebb4cfea618ec0")
