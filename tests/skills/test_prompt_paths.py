"""Paths named in a prompt: web addresses, with or without a scheme, are never project paths
(a path in a prompt loads the failure signals and the rules that apply there)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.skills.suggest import prompt_paths

_LABEL = st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True)
_TLD = st.from_regex(r"[a-z]{2,8}", fullmatch=True)
_SEGMENT = st.from_regex(r"[A-Za-z0-9_-]{1,12}(\.[a-z]{1,4})?", fullmatch=True)


@given(
    labels=st.lists(_LABEL, min_size=1, max_size=3),
    tld=_TLD,
    segments=st.lists(_SEGMENT, min_size=1, max_size=4),
    scheme=st.sampled_from(["", "https://", "http://", "ftp://", "www."]),
    port=st.sampled_from(["", ":8080"]),
)
def test_a_web_address_is_no_path(
    labels: list[str], tld: str, segments: list[str], scheme: str, port: str
) -> None:
    url = f"{scheme}{'.'.join([*labels, tld])}{port}/{'/'.join(segments)}"
    assert prompt_paths(f"the page at {url} explains it") == []


@given(st.lists(_LABEL, min_size=1, max_size=2), _TLD, st.lists(_LABEL, min_size=1, max_size=2))
def test_a_git_remote_is_no_path(labels: list[str], tld: str, repo: list[str]) -> None:
    remote = f"git@{'.'.join([*labels, tld])}:{'/'.join(repo)}.git"
    assert prompt_paths(f"push to {remote} instead") == []


def test_project_paths_that_look_dotted_are_kept() -> None:
    prompt = "edit .github/workflows/ci.yml, foo.egg-info/PKG-INFO and v1.2/notes.md"
    assert prompt_paths(prompt) == [
        ".github/workflows/ci.yml",
        "foo.egg-info/PKG-INFO",
        "v1.2/notes.md",
    ]
