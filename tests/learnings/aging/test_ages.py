"""Entry ages in git-active days and staleness, on real temporary git repositories whose commit
dates are set with GIT_AUTHOR_DATE / GIT_COMMITTER_DATE."""

from __future__ import annotations

import json
import os
import shutil
from datetime import date
from pathlib import Path

import pytest
from helpers.gitrepo import LEARNINGS, GitRepo

from pokayokay.errors import EXIT_USAGE, PokayokayError
from pokayokay.learnings.aging.ages import (
    active_days,
    ages,
    commit_day,
    find_consolidation,
    parse_blame,
)
from pokayokay.learnings.aging.entries import parse_entries

TODAY = date(2026, 3, 1)




def entries_text(*titles: str, preamble: str = "# Learnings\n\n") -> str:
    return preamble + "".join(f"## {t}\n{t} body line.\n\n" for t in titles)


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "repo")


def by_title(report: object) -> dict[str, tuple[int, str]]:
    return {a.title: (a.age, a.added_label) for a in report.ages}  # type: ignore[attr-defined]


# -- pure --------------------------------------------------------------------------------------


def test_active_days_counts_distinct_dates_after_the_added_day_up_to_today() -> None:
    dates = [date(2026, 1, d) for d in (1, 2, 3, 5, 9)]
    assert active_days(dates, date(2026, 1, 1), date(2026, 1, 9)) == 4
    assert active_days(dates, date(2026, 1, 2), date(2026, 1, 5)) == 2  # the 3rd and the 5th
    assert active_days(dates, date(2026, 1, 9), date(2026, 1, 9)) == 0  # added today
    assert active_days(dates, date(2026, 1, 4), date(2026, 1, 4)) == 0
    assert active_days(dates, date(2026, 1, 1), date(2026, 1, 4)) == 2  # the 9th is after today
    assert active_days([], date(2026, 1, 1), date(2026, 2, 1)) == 0


def test_commit_day_uses_the_committers_calendar() -> None:
    # 2026-01-06 07:30 UTC is still the 5th in UTC-8
    assert commit_day(1767684600, "-0800") == date(2026, 1, 5)
    assert commit_day(1767684600, "+0000") == date(2026, 1, 6)
    assert commit_day(1767684600, "+0530") == date(2026, 1, 6)


def test_parse_entries_preamble_fences_and_heading_levels() -> None:
    text = (
        "# Learnings\nintro\n\n"
        "## First ##\nbody\n### sub heading\nmore\n\n"
        "```md\n## not an entry (fenced)\n```\n"
        "##NoSpace is not a heading\n"
        "## Second\nlast line without newline"
    )
    preamble, entries = parse_entries(text)
    assert preamble == ["# Learnings\n", "intro\n", "\n"]
    assert [e.title for e in entries] == ["First", "Second"]
    assert entries[0].line == 4
    assert "## not an entry (fenced)\n" in entries[0].lines
    assert "".join(preamble) + "".join(e.text for e in entries) == text


def test_find_consolidation_needs_a_heading_removed_and_not_added_back() -> None:
    log = [
        "\0aaa 2026-02-03\n",
        "--- a/l.md\n",
        "+++ b/l.md\n",
        "-## Moved\n",
        "+## Moved\n",
        "-### a sub heading is not an entry\n",
        "\0bbb 2026-02-02\n",
        "-## Gone\n",
        "-## Also gone\n",
        "+## New\n",
        "\0ccc 2026-02-01\n",
        "-## Older\n",
    ]
    found = find_consolidation(log)
    assert found is not None
    assert (found.commit, found.day, found.removed) == (
        "bbb",
        date(2026, 2, 2),
        ("Also gone", "Gone"),
    )
    assert find_consolidation(log[:6]) is None
    assert find_consolidation([]) is None


def test_parse_blame_zero_commit_is_uncommitted() -> None:
    out = (
        "1111111111111111111111111111111111111111 3 3 1\n"
        "committer-time 1767684600\ncommitter-tz -0800\nfilename l.md\n\t## A\n"
        f"{'0' * 40} 6 6 1\ncommitter-time 1767684600\ncommitter-tz +0000\n\t## B\n"
    )
    blame = parse_blame(out)
    assert blame[3].day == date(2026, 1, 5)
    assert blame[6].day is None


# -- real repositories -------------------------------------------------------------------------


def test_ages_in_git_active_days(repo: GitRepo) -> None:
    repo.learnings(entries_text("Alpha"), "2026-01-01")
    repo.touch("2026-01-02")
    repo.learnings(entries_text("Alpha", "Beta"), "2026-01-03")
    repo.touch("2026-01-03")  # same day twice: one active day
    # 2026-01-04: no commit, not an active day
    repo.touch("2026-01-05")
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 6))
    assert by_title(report) == {"Alpha": (3, "2026-01-01"), "Beta": (1, "2026-01-03")}
    assert report.display == LEARNINGS
    assert report.file_lines == 8
    assert report.staleness is None and report.last_consolidation is None


def test_entry_added_today_is_zero_days_old(repo: GitRepo) -> None:
    repo.learnings(entries_text("Old"), "2026-02-01")
    repo.touch("2026-02-10")
    repo.learnings(entries_text("Old", "Today"), TODAY.isoformat())
    repo.touch(TODAY.isoformat())
    report = ages(repo.root / LEARNINGS, today=TODAY)
    assert by_title(report) == {"Old": (2, "2026-02-01"), "Today": (0, "2026-03-01")}


def test_uncommitted_entries_are_zero_and_say_so(repo: GitRepo) -> None:
    repo.learnings(entries_text("Committed"), "2026-02-01")
    repo.touch("2026-02-02")
    repo.write(LEARNINGS, entries_text("Committed", "Fresh idea"))
    report = ages(repo.root / LEARNINGS, today=TODAY)
    assert by_title(report) == {"Committed": (1, "2026-02-01"), "Fresh idea": (0, "uncommitted")}
    fresh = report.ages[1]
    assert fresh.commit is None and fresh.added is None
    # a retitled heading is a new, uncommitted line
    repo.write(LEARNINGS, entries_text("Committed, reworded"))
    assert by_title(ages(repo.root / LEARNINGS, today=TODAY)) == {
        "Committed, reworded": (0, "uncommitted")
    }


def test_entry_added_on_a_merged_branch_dates_from_its_branch_commit(repo: GitRepo) -> None:
    repo.learnings(entries_text("On main"), "2026-01-01")
    repo.git("checkout", "-q", "-b", "feature")
    branch_commit = repo.learnings(entries_text("On main", "From the branch"), "2026-01-03")
    repo.git("checkout", "-q", "main")
    repo.touch("2026-01-04")
    repo.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature", day="2026-01-06")
    parents = repo.git("log", "-1", "--format=%P").split()
    assert len(parents) == 2  # a real merge commit
    repo.touch("2026-01-08")
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 9))
    branch_entry = report.ages[1]
    assert branch_entry.title == "From the branch"
    assert branch_entry.commit == branch_commit
    assert (branch_entry.added, branch_entry.age) == (date(2026, 1, 3), 3)  # 4th, 6th, 8th
    assert report.ages[0].age == 4  # 3rd (branch), 4th, 6th, 8th


def test_age_survives_a_rename_and_staleness_follows_it(repo: GitRepo) -> None:
    repo.commit("2026-01-01", notes__learn_dot_md=entries_text("Kept", "Consolidated"))
    repo.commit("2026-01-02", notes__learn_dot_md=entries_text("Kept"))  # removes an entry
    repo.touch("2026-01-03")
    (repo.root / ".claude").mkdir()
    repo.git("mv", "notes/learn.md", LEARNINGS)
    repo.commit("2026-01-05", "rename")
    repo.learnings(entries_text("Kept", "After rename"), "2026-01-07")
    repo.touch("2026-01-08")
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 9))
    assert by_title(report) == {"Kept": (5, "2026-01-01"), "After rename": (1, "2026-01-07")}
    assert report.last_consolidation is not None
    assert report.last_consolidation.day == date(2026, 1, 2)
    assert report.last_consolidation.removed == ("Consolidated",)
    assert report.staleness == 4  # 3rd, 5th, 7th, 8th


def test_lines_moved_from_another_file_keep_their_age(repo: GitRepo) -> None:
    body = (
        "## Retry the flaky payment webhook with exponential backoff\n"
        "The payment provider drops roughly one webhook in two hundred under load.\n"
        "Retrying with exponential backoff and jitter recovered every lost delivery.\n"
    )
    repo.commit("2026-01-01", docs__old_dot_md="# Old notes\n\n" + body)
    repo.touch("2026-01-02")
    repo.commit(
        "2026-01-04",
        "move into the learnings file",
        docs__old_dot_md="# Old notes\n",
        _dot_claude__learnings_dot_md="# Learnings\n\n" + body,
    )
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 5))
    assert report.ages[0].added == date(2026, 1, 1)
    assert report.ages[0].age == 2


def test_no_prior_consolidation_is_unknown(repo: GitRepo) -> None:
    repo.learnings(entries_text("A"), "2026-01-01")
    repo.learnings(entries_text("A", "B"), "2026-01-02")
    # an entry moved within the file is not a consolidation
    repo.learnings(entries_text("B", "A"), "2026-01-03")
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 4))
    assert report.last_consolidation is None and report.staleness is None
    assert report.last_consolidation_label() == "unknown (no prior consolidation detected)"


def test_staleness_counts_from_the_last_consolidation_commit(repo: GitRepo) -> None:
    repo.learnings(entries_text("A", "B", "C"), "2026-01-01")
    repo.learnings(entries_text("C"), "2026-01-02", "first consolidation")
    repo.learnings(entries_text("C", "D", "E"), "2026-01-03")
    last = repo.learnings(entries_text("E", "F"), "2026-01-05", "second consolidation")
    repo.touch("2026-01-06")
    repo.touch("2026-01-08")
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 9))
    assert report.last_consolidation is not None
    assert report.last_consolidation.commit == last
    assert report.last_consolidation.removed == ("C", "D")
    assert report.staleness == 2
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 5))
    assert report.staleness == 0  # consolidated today


def test_markdown_report_is_seed_004_d2_format(repo: GitRepo) -> None:
    repo.learnings(entries_text("Tool batching unsolved", "Scan triggers tools"), "2026-01-01")
    repo.learnings(entries_text("Scan triggers tools"), "2026-01-02")
    for day in range(3, 12):
        repo.touch(f"2026-01-{day:02d}")
    repo.learnings(entries_text("Scan triggers tools", "New one"), "2026-01-12")
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 12))
    sha = report.last_consolidation.commit[:12] if report.last_consolidation else ""
    assert report.to_markdown() == (
        "# Learning Ages Report\n"
        "\n"
        "**File lines:** 8\n"
        f"**Last consolidation:** 10 active days ago (2026-01-02, commit {sha})\n"
        "**Total entries:** 2\n"
        "**Entries ≥7 active days:** 1\n"
        "\n"
        "## Scan triggers tools\n"
        "- Age: 11 active days\n"
        "- Added: 2026-01-01\n"
        "\n"
        "## New one\n"
        "- Age: 0 active days\n"
        "- Added: 2026-01-12\n"
    )
    data = json.loads(json.dumps(report.to_dict()))
    assert data["staleness"] == 10
    assert data["entries"][0] == {
        "title": "Scan triggers tools",
        "line": 3,
        "age": 11,
        "added": "2026-01-01",
        "commit": data["entries"][0]["commit"],
    }
    assert data["entries_at_least_freshness"] == 1 and data["total_entries"] == 2


def test_time_zones_follow_git_log_short_dates(repo: GitRepo) -> None:
    # 23:30 in UTC-8 is already the next day in UTC: both blame and log use the committer's day
    repo.learnings(entries_text("Late"), "2026-01-05")
    repo.git("commit", "-q", "--amend", "--no-edit", day="2026-01-05", at="23:30:00-0800")
    repo.touch("2026-01-06", at="10:00:00-0800")
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 7))
    assert report.ages[0].added == date(2026, 1, 5)
    assert report.ages[0].age == 1


def test_odd_file_names_and_any_markdown_file(repo: GitRepo) -> None:
    name = "docs/lérnings [draft] *.md"
    repo.write(name, entries_text("Unicode path"))
    repo.commit("2026-01-01")
    repo.touch("2026-01-02")
    report = ages(repo.root / name, today=date(2026, 1, 3))
    assert report.display == name
    assert by_title(report) == {"Unicode path": (1, "2026-01-01")}


def test_a_file_staged_in_a_repository_without_commits(repo: GitRepo) -> None:
    repo.write(LEARNINGS, entries_text("First"))
    repo.git("add", LEARNINGS)
    report = ages(repo.root / LEARNINGS, today=TODAY)
    assert by_title(report) == {"First": (0, "uncommitted")}
    assert report.staleness is None


def test_ages_from_a_subfolder_with_an_explicit_repo_root(repo: GitRepo) -> None:
    repo.learnings(entries_text("A"), "2026-01-01")
    repo.touch("2026-01-02")
    report = ages(repo.root / LEARNINGS, repo.root / ".claude", today=date(2026, 1, 3))
    assert report.repo_root == repo.root.resolve()
    assert by_title(report) == {"A": (1, "2026-01-01")}


# -- errors ------------------------------------------------------------------------------------


def error_of(*args: object, **kwargs: object) -> PokayokayError:
    with pytest.raises(PokayokayError) as caught:
        ages(*args, **kwargs)  # type: ignore[arg-type]
    assert caught.value.exit_code == EXIT_USAGE
    assert "\n" not in caught.value.message
    return caught.value


def test_not_a_git_repository(tmp_path: Path) -> None:
    path = tmp_path / "learnings.md"
    path.write_text(entries_text("A"))
    assert "is not a git repository" in error_of(path).message


def test_untracked_file_suggests_git_add(repo: GitRepo) -> None:
    repo.touch("2026-01-01")
    path = repo.write(LEARNINGS, entries_text("A"))
    message = error_of(path).message
    assert "not tracked by git" in message and f"git add {LEARNINGS}" in message


def test_git_missing_from_path(repo: GitRepo, tmp_path: Path) -> None:
    repo.learnings(entries_text("A"), "2026-01-01")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    message = error_of(repo.root / LEARNINGS, environ=env).message
    assert "git is not on PATH" in message


def test_git_missing_from_the_process_path(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.learnings(entries_text("A"), "2026-01-01")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert shutil.which("git") is None
    assert "git is not on PATH" in error_of(repo.root / LEARNINGS).message


def test_missing_and_binary_files(repo: GitRepo) -> None:
    assert "no such file" in error_of(repo.root / "nope.md").message
    binary = repo.root / "bin.md"
    binary.write_bytes(b"## a\n\0\n")
    assert "binary" in error_of(binary).message
    assert "not a regular file" in error_of(repo.root).message


def test_file_outside_the_given_repository(repo: GitRepo, tmp_path: Path) -> None:
    repo.touch("2026-01-01")
    other = GitRepo(tmp_path / "other")
    other.learnings(entries_text("A"), "2026-01-01")
    assert "outside the git repository" in error_of(other.root / LEARNINGS, repo.root).message
