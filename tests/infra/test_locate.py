"""Tests for pokayokay.infra.locate: slug rule, git root without git, and memory-folder
resolution."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.gitrepo import git
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.infra import locate
from pokayokay.infra.locate import (
    Candidate,
    MemoryLocation,
    base36,
    claude_config_dir,
    find_git_root,
    find_git_toplevel,
    js_string_hash,
    resolve_memory_location,
    slugify,
)

NODE = shutil.which("node")

# --------------------------------------------------------------------------------------------
# Slug and hash


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/home/u/my_proj.v2", "-home-u-my-proj-v2"),
        ("/home/u/proj", "-home-u-proj"),
        ("/Users/Ann Lee/Code/App-1", "-Users-Ann-Lee-Code-App-1"),
        ("/home/u/café", "-home-u-caf-"),  # é: one UTF-16 unit, one dash
        ("/home/u/naïve-Ω", "-home-u-na-ve--"),
        ("/home/u/😀x", "-home-u---x"),  # emoji: a surrogate pair, two dashes
        ("/home/u/a\U00010348b", "-home-u-a--b"),
        ("", ""),
    ],
)
def test_slugify_examples(path: str, expected: str) -> None:
    assert slugify(path) == expected


@given(st.text(max_size=260))
def test_slugify_is_the_rule_over_utf16_code_units(text: str) -> None:
    """The rule as Claude Code's JS applies it, written independently: every UTF-16 code unit
    outside [A-Za-z0-9] becomes one dash (the slug is a plain scan now, no regex)."""
    raw = text.encode("utf-16-le", "surrogatepass")
    units = [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]
    expected = "".join(chr(u) if chr(u).isascii() and chr(u).isalnum() else "-" for u in units)
    slug = slugify(text)
    if len(expected) <= 200:
        assert slug == expected
    else:
        assert slug == f"{expected[:200]}-{base36(abs(js_string_hash(text)))}"


def test_slugify_accepts_path_objects() -> None:
    assert slugify(Path("/home/u/my_proj.v2")) == "-home-u-my-proj-v2"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("a", 97),
        ("ab", 97 * 31 + 98),
        ("hello", 99162322),  # same algorithm as Java's String.hashCode
        ("Hello World", -862545276),  # wraps around to a negative value
        ("polygenelubricants", -(2**31)),  # wraps exactly to the smallest int32
    ],
)
def test_js_string_hash_known_values(text: str, expected: int) -> None:
    assert js_string_hash(text) == expected


def test_js_string_hash_counts_utf16_code_units() -> None:
    # U+1F600 is the surrogate pair D83D DE00 in UTF-16.
    assert js_string_hash("😀") == 0xD83D * 31 + 0xDE00


def test_js_string_hash_stays_in_int32_for_long_text() -> None:
    value = js_string_hash("/very/long/" * 500 + "😀é")
    assert -(2**31) <= value < 2**31


def test_slug_of_exactly_200_characters_is_not_hashed() -> None:
    path = "/" + "a" * 199
    assert slugify(path) == "-" + "a" * 199


def test_long_slug_is_cut_and_suffixed_with_base36_hash() -> None:
    path = "/" + "x" * 250
    slug = slugify(path)
    expected_hash = abs(js_string_hash(path))
    prefix, suffix = slug[:200], slug[201:]
    assert prefix == "-" + "x" * 199
    assert slug[200] == "-"
    assert int(suffix, 36) == expected_hash
    assert suffix == suffix.lower()
    assert len(slug) == 201 + len(suffix)


def test_base36_of_min_int32_hash() -> None:
    # abs(-2**31) is 2**31 (as in JS Math.abs); JS (2147483648).toString(36) == "zik0zk".
    assert locate.base36(abs(js_string_hash("polygenelubricants"))) == "zik0zk"
    assert locate.base36(0) == "0"
    assert locate.base36(35) == "z"
    assert locate.base36(36) == "10"


def _node_slug_and_hash(path: str) -> tuple[str, int]:
    assert NODE is not None
    script = (
        "const s=process.argv[1];let h=0;"
        "for(let i=0;i<s.length;i++)h=((h<<5)-h+s.charCodeAt(i))|0;"
        "let slug=s.replace(/[^a-zA-Z0-9]/g,'-');"
        "if(slug.length>200)slug=slug.slice(0,200)+'-'+Math.abs(h).toString(36);"
        "process.stdout.write(JSON.stringify([slug,h]))"
    )
    out = subprocess.run([NODE, "-e", script, path], check=True, capture_output=True, text=True)
    slug, value = json.loads(out.stdout)
    return str(slug), int(value)


LONG_PATHS = [
    "/home/user/" + "deeply-nested_folder.name/" * 12 + "project",
    "/srv/" + "é" * 150 + "/😀/" + "z" * 80,
    "/tmp/" + "Mixed Case 123 " * 20,
]


@pytest.mark.parametrize("path", LONG_PATHS)
def test_long_slug_matches_node(path: str) -> None:
    assert len(slugify(path)) > 200
    if NODE is None:
        pytest.skip("node is not on PATH: cannot compare with a real JavaScript engine")
    node_slug, node_hash = _node_slug_and_hash(path)
    assert js_string_hash(path) == node_hash
    assert slugify(path) == node_slug


def test_short_slugs_match_node() -> None:
    if NODE is None:
        pytest.skip("node is not on PATH: cannot compare with a real JavaScript engine")
    for path in ("/home/u/my_proj.v2", "/home/u/café/😀", "/a b/c-d/e_f.g"):
        node_slug, node_hash = _node_slug_and_hash(path)
        assert slugify(path) == node_slug
        assert js_string_hash(path) == node_hash


# --------------------------------------------------------------------------------------------
# Git root


def _git_common_root(cwd: Path) -> Path:
    """What real git says: the parent of the absolute common git dir."""
    common = git(cwd, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    return Path(common).parent


def _init_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "commit", "-q", "--allow-empty", "-m", "init")
    return Path(os.path.realpath(path))


def test_git_root_of_repo_and_subfolder(tmp_path: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    assert find_git_root(repo) == repo
    assert find_git_root(sub) == repo
    assert find_git_root(sub) == _git_common_root(sub)
    assert find_git_toplevel(sub) == repo


def test_git_root_through_a_symlink_is_the_real_path(tmp_path: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    (repo / "sub").mkdir()
    link = tmp_path / "link"
    link.symlink_to(repo / "sub")
    assert find_git_root(link) == repo


def test_linked_worktree_shares_the_main_root(tmp_path: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(worktree))
    (worktree / "deep").mkdir()
    worktree = Path(os.path.realpath(worktree))
    assert (worktree / ".git").is_file()
    assert find_git_root(worktree) == repo
    assert find_git_root(worktree / "deep") == repo
    assert find_git_root(worktree / "deep") == _git_common_root(worktree / "deep")
    # The working tree's own top level stays the worktree.
    assert find_git_toplevel(worktree / "deep") == worktree


def test_worktree_inside_the_main_repo(tmp_path: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    git(repo, "worktree", "add", "-q", "-b", "nested", str(repo / ".claude" / "worktrees" / "x"))
    inner = repo / ".claude" / "worktrees" / "x"
    assert find_git_root(inner) == repo == _git_common_root(inner)
    assert find_git_toplevel(inner) == inner


def test_submodule_root_is_its_own_working_tree(tmp_path: Path) -> None:
    library = _init_repo(tmp_path / "library")
    (library / "lib.txt").write_text("x\n")
    git(library, "add", "lib.txt")
    git(library, "commit", "-q", "-m", "lib")
    superproject = _init_repo(tmp_path / "super")
    git(superproject, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
        str(library), "vendor/lib")
    sub = superproject / "vendor" / "lib"
    assert (sub / ".git").is_file()
    toplevel = Path(git(sub, "rev-parse", "--show-toplevel").strip())
    assert find_git_root(sub) == toplevel == sub
    # git's common dir for a submodule is <super>/.git/modules/…: not a `.git`, so no parent.
    common = git(sub, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    assert Path(common).name != ".git"
    assert find_git_root(superproject / "vendor") == superproject


def test_no_git(tmp_path: Path) -> None:
    plain = tmp_path / "plain" / "folder"
    plain.mkdir(parents=True)
    real_git = subprocess.run(
        ["git", "rev-parse", "--git-common-dir"], cwd=plain, capture_output=True, text=True,
        env=dict(os.environ, GIT_CEILING_DIRECTORIES=str(tmp_path.parent)),
    )
    if real_git.returncode == 0:
        pytest.skip("the temporary folder is itself inside a git repository")
    assert find_git_root(plain) is None
    assert find_git_toplevel(plain) is None


def test_worktree_of_a_bare_repository_keys_on_the_bare_folder(tmp_path: Path) -> None:
    origin = _init_repo(tmp_path / "origin")
    bare = tmp_path / "proj.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin), str(bare))
    bare = Path(os.path.realpath(bare))
    worktree = tmp_path / "proj-main"
    git(bare, "worktree", "add", "-q", str(worktree), "main")
    common = git(worktree, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    assert Path(common) == bare
    assert find_git_root(worktree) == bare
    # Inside the bare repository itself there is no `.git`: Claude Code's walk finds nothing.
    assert find_git_root(bare) is None


def test_malformed_git_file_falls_back_to_its_folder(tmp_path: Path) -> None:
    project = tmp_path / "odd"
    (project / "sub").mkdir(parents=True)
    (project / ".git").write_text("this is not a gitdir line\n")
    assert find_git_root(project / "sub") == Path(os.path.realpath(project))


def test_git_file_pointing_nowhere_falls_back_to_its_folder(tmp_path: Path) -> None:
    project = tmp_path / "dangling"
    project.mkdir()
    (project / ".git").write_text(f"gitdir: {tmp_path / 'missing' / 'worktrees' / 'x'}\n")
    assert find_git_root(project) == Path(os.path.realpath(project))


def test_git_file_borrowing_another_repos_worktree_is_not_followed(tmp_path: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    git(repo, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"))
    gitdir = (tmp_path / "wt" / ".git").read_text().split(":", 1)[1].strip()
    impostor = tmp_path / "impostor"
    impostor.mkdir()
    (impostor / ".git").write_text(f"gitdir: {gitdir}\n")
    # The worktree's `gitdir` back-link names wt/.git, not impostor/.git.
    assert find_git_root(impostor) == Path(os.path.realpath(impostor))


def test_find_git_root_spawns_no_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _init_repo(tmp_path / "repo")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(worktree))

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("find_git_root must not spawn a process")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse, raising=False)
    monkeypatch.setattr(os, "fork", refuse, raising=False)
    assert find_git_root(worktree) == repo


# --------------------------------------------------------------------------------------------
# Config folder


def test_claude_config_dir_from_env(tmp_path: Path) -> None:
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg"), "HOME": "/x"}) == (
        tmp_path / "cfg"
    )


def test_claude_config_dir_defaults_to_home(tmp_path: Path) -> None:
    assert claude_config_dir({"HOME": str(tmp_path)}) == tmp_path / ".claude"
    assert claude_config_dir({"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": ""}) == (
        tmp_path / ".claude"
    )


def test_claude_config_dir_defaults_to_os_environ(isolated_home: Path) -> None:
    assert claude_config_dir() == isolated_home / ".claude"


# --------------------------------------------------------------------------------------------
# Resolution


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return Path(os.path.realpath(path))


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "cfg")}


@pytest.fixture
def managed(tmp_path: Path) -> Path:
    """Stands in for /etc/claude-code/managed-settings.json (absent unless a test writes it)."""
    return tmp_path / "etc" / "claude-code" / "managed-settings.json"


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _resolve(project: Path, env: dict[str, str], managed: Path,
             memory_dir: Path | None = None) -> MemoryLocation:
    location = resolve_memory_location(project, memory_dir=memory_dir, environ=env,
                                       managed_settings=managed)
    assert sum(candidate.used for candidate in location.candidates) == 1
    used = next(candidate for candidate in location.candidates if candidate.used)
    assert used.path == location.memory_dir
    return location


def test_default_in_git_subfolder_uses_git_root(tmp_path: Path, env: dict[str, str],
                                                managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    sub = repo / "src"
    sub.mkdir()
    location = _resolve(sub, env, managed)
    config = Path(env["CLAUDE_CONFIG_DIR"])
    assert location.config_dir == config
    assert location.project_dir == sub
    assert location.project_key == repo
    assert location.memory_dir == config / "projects" / slugify(str(repo)) / "memory"
    assert location.memory_file == location.memory_dir / "MEMORY.md"
    assert location.source == "default (git root)"
    assert location.problems == ()
    launch = location.candidates[-1]
    assert launch.label == "default for the launch folder"
    assert launch.path == config / "projects" / slugify(str(sub)) / "memory"
    assert not launch.used
    assert "NOT" in launch.note


def test_default_outside_git_uses_project_folder(tmp_path: Path, env: dict[str, str],
                                                 managed: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    location = _resolve(project, env, managed)
    expected_key = Path(os.path.realpath(project))
    if location.project_key != expected_key:
        pytest.skip("the temporary folder is itself inside a git repository")
    assert location.source == "default (project folder)"
    assert location.memory_dir == (
        Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / slugify(str(expected_key)) / "memory"
    )
    # No launch-folder candidate: it would be the same folder.
    assert [c.label for c in location.candidates][-1] == "default (project folder)"


def test_linked_worktree_and_main_share_one_memory_folder(tmp_path: Path, env: dict[str, str],
                                                          managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(worktree))
    assert _resolve(worktree, env, managed).memory_dir == _resolve(repo, env, managed).memory_dir


def test_without_claude_config_dir_uses_home(tmp_path: Path, home: Path, managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    location = _resolve(repo, {"HOME": str(home)}, managed)
    assert location.config_dir == home / ".claude"
    assert location.memory_dir == home / ".claude" / "projects" / slugify(str(repo)) / "memory"


def test_candidate_order(tmp_path: Path, env: dict[str, str], managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    sub = repo / "sub"
    sub.mkdir()
    location = _resolve(sub, env, managed, memory_dir=tmp_path / "override")
    labels = [candidate.label for candidate in location.candidates]
    config = Path(env["CLAUDE_CONFIG_DIR"])
    assert labels == [
        "--memory-dir",
        f"autoMemoryDirectory in {managed} (managed policy settings)",
        f"autoMemoryDirectory in {repo / '.claude' / 'settings.local.json'} "
        "(local project settings)",
        f"autoMemoryDirectory in {sub / '.claude' / 'settings.json'} (shared project settings)",
        f"autoMemoryDirectory in {config / 'settings.json'} (user settings)",
        "CLAUDE_CODE_PROJECT_DIR_NAME",
        "default (git root)",
        "default for the launch folder",
    ]
    assert all(isinstance(candidate, Candidate) for candidate in location.candidates)
    notes = {c.label: c.note for c in location.candidates}
    assert notes["CLAUDE_CODE_PROJECT_DIR_NAME"] == "not set"
    assert notes[labels[1]] == "file not found"


def _four_settings(repo: Path, launch: Path, env: dict[str, str], managed: Path,
                   tmp_path: Path) -> dict[str, Path]:
    files = {
        "managed": managed,
        "local": repo / ".claude" / "settings.local.json",
        "project": launch / ".claude" / "settings.json",
        "user": Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json",
    }
    for name, path in files.items():
        _write_json(path, {"autoMemoryDirectory": str(tmp_path / f"mem-{name}"),
                           "other": True})
    return files


def test_auto_memory_directory_precedence(tmp_path: Path, env: dict[str, str],
                                          managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    launch = repo / "sub"
    launch.mkdir()
    files = _four_settings(repo, launch, env, managed, tmp_path)
    # The repository root's shared settings are not read when launched in a subfolder.
    _write_json(repo / ".claude" / "settings.json", {"autoMemoryDirectory": "/never/used"})
    for name in ("managed", "local", "project", "user"):
        location = _resolve(launch, env, managed)
        assert location.memory_dir == tmp_path / f"mem-{name}", name
        assert location.source == f"autoMemoryDirectory in {files[name]}"
        assert location.problems == ()
        files[name].unlink()
    location = _resolve(launch, env, managed)
    assert location.source == "default (git root)"


def test_memory_dir_argument_wins_over_everything(tmp_path: Path, env: dict[str, str],
                                                  managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    _four_settings(repo, repo, env, managed, tmp_path)
    env = dict(env, CLAUDE_CODE_PROJECT_DIR_NAME="named")
    location = _resolve(repo, env, managed, memory_dir=tmp_path / "cli")
    assert location.memory_dir == tmp_path / "cli"
    assert location.source == "--memory-dir"
    assert location.candidates[0].used


def test_memory_dir_argument_is_made_absolute(tmp_path: Path, env: dict[str, str],
                                              managed: Path, home: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    location = _resolve(repo, env, managed, memory_dir=Path("~/mem"))
    assert location.memory_dir == home / "mem"


def test_tilde_expansion_uses_home_from_environ(tmp_path: Path, env: dict[str, str],
                                                managed: Path, home: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    _write_json(Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json",
                {"autoMemoryDirectory": "~/notes/claude-memory/"})
    location = _resolve(repo, env, managed)
    assert location.memory_dir == home / "notes" / "claude-memory"
    assert location.problems == ()


@pytest.mark.parametrize("value", ["~", "~/", "~/.", "~/.."])
def test_tilde_naming_home_itself_is_rejected(tmp_path: Path, env: dict[str, str],
                                              managed: Path, value: str) -> None:
    repo = _init_repo(tmp_path / "repo")
    _write_json(Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json", {"autoMemoryDirectory": value})
    location = _resolve(repo, env, managed)
    assert location.source == "default (git root)"
    assert len(location.problems) == 1
    assert "home folder" in location.problems[0]


@pytest.mark.parametrize("value", ["memory", "./memory", "../memory", "~other/memory"])
def test_relative_value_is_rejected_and_falls_through(tmp_path: Path, env: dict[str, str],
                                                      managed: Path, value: str) -> None:
    repo = _init_repo(tmp_path / "repo")
    local = repo / ".claude" / "settings.local.json"
    _write_json(local, {"autoMemoryDirectory": value})
    _write_json(Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json",
                {"autoMemoryDirectory": str(tmp_path / "user-mem")})
    location = _resolve(repo, env, managed)
    assert location.memory_dir == tmp_path / "user-mem"
    assert len(location.problems) == 1
    assert str(local) in location.problems[0]
    assert "relative" in location.problems[0]
    local_candidate = location.candidates[1]
    assert local_candidate.path is None
    assert not local_candidate.used
    assert "ignored" in local_candidate.note


def test_root_folder_value_is_rejected(tmp_path: Path, env: dict[str, str],
                                       managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    _write_json(managed, {"autoMemoryDirectory": "/"})
    location = _resolve(repo, env, managed)
    assert location.source == "default (git root)"
    assert "root" in location.problems[0]


@pytest.mark.parametrize(
    ("content", "expected_problem"),
    [
        ("{not json", "invalid JSON"),
        ("", "invalid JSON"),
        ("[1, 2]", "not an object"),
        ('"just a string"', "not an object"),
        ("null", "not an object"),
        ('{"autoMemoryDirectory": 42}', "must be a string"),
        ('{"autoMemoryDirectory": ["/a"]}', "must be a string"),
        (b"\xff\xfe{}", "not valid UTF-8"),
    ],
)
def test_bad_settings_files_are_recorded_not_raised(tmp_path: Path, env: dict[str, str],
                                                    managed: Path, content: str | bytes,
                                                    expected_problem: str) -> None:
    repo = _init_repo(tmp_path / "repo")
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    if isinstance(content, bytes):
        settings.write_bytes(content)
    else:
        settings.write_text(content)
    location = _resolve(repo, env, managed)
    assert location.source == "default (git root)"
    assert len(location.problems) == 1
    assert str(settings) in location.problems[0]
    assert expected_problem in location.problems[0]


def test_settings_without_the_key_or_with_empty_value_are_not_problems(
    tmp_path: Path, env: dict[str, str], managed: Path
) -> None:
    repo = _init_repo(tmp_path / "repo")
    _write_json(repo / ".claude" / "settings.json", {"hooks": {}})
    _write_json(Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json", {"autoMemoryDirectory": ""})
    location = _resolve(repo, env, managed)
    assert location.problems == ()
    assert location.source == "default (git root)"
    notes = [c.note for c in location.candidates]
    assert "not set" in notes


def test_settings_with_utf8_bom_is_read(tmp_path: Path, env: dict[str, str],
                                        managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b"\xef\xbb\xbf" + json.dumps(
        {"autoMemoryDirectory": str(tmp_path / "bom")}).encode())
    assert _resolve(repo, env, managed).memory_dir == tmp_path / "bom"


def test_settings_path_that_is_a_folder_is_a_problem(tmp_path: Path, env: dict[str, str],
                                                     managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    (repo / ".claude" / "settings.json").mkdir(parents=True)
    location = _resolve(repo, env, managed)
    assert location.source == "default (git root)"
    assert len(location.problems) == 1
    assert "cannot be read" in location.problems[0]


def test_local_settings_are_read_from_the_worktree_top_level(tmp_path: Path, env: dict[str, str],
                                                             managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(worktree))
    (worktree / "sub").mkdir()
    _write_json(worktree / ".claude" / "settings.local.json",
                {"autoMemoryDirectory": str(tmp_path / "wt-local")})
    location = _resolve(worktree / "sub", env, managed)
    assert location.memory_dir == tmp_path / "wt-local"
    assert location.project_key == repo


def test_project_dir_name_with_config_dir(tmp_path: Path, env: dict[str, str],
                                          managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    env = dict(env, CLAUDE_CODE_PROJECT_DIR_NAME="my_Project-1")
    location = _resolve(repo, env, managed)
    assert location.memory_dir == Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "my_Project-1" / (
        "memory"
    )
    assert location.source == "CLAUDE_CODE_PROJECT_DIR_NAME"
    assert location.problems == ()


def test_auto_memory_directory_beats_project_dir_name(tmp_path: Path, env: dict[str, str],
                                                      managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    _write_json(Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json",
                {"autoMemoryDirectory": str(tmp_path / "user-mem")})
    env = dict(env, CLAUDE_CODE_PROJECT_DIR_NAME="named")
    assert _resolve(repo, env, managed).memory_dir == tmp_path / "user-mem"


def test_project_dir_name_without_config_dir_is_ignored(tmp_path: Path, home: Path,
                                                        managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    env = {"HOME": str(home), "CLAUDE_CODE_PROJECT_DIR_NAME": "named"}
    location = _resolve(repo, env, managed)
    assert location.memory_dir == home / ".claude" / "projects" / slugify(str(repo)) / "memory"
    assert len(location.problems) == 1
    assert "CLAUDE_CONFIG_DIR" in location.problems[0]


@pytest.mark.parametrize("name", ["a/b", "has space", "x" * 65, "dot.name", "é"])
def test_invalid_project_dir_name_is_ignored(tmp_path: Path, env: dict[str, str], managed: Path,
                                             name: str) -> None:
    repo = _init_repo(tmp_path / "repo")
    location = _resolve(repo, dict(env, CLAUDE_CODE_PROJECT_DIR_NAME=name), managed)
    assert location.source == "default (git root)"
    assert len(location.problems) == 1
    assert "1-64 characters" in location.problems[0]


def test_project_dir_name_of_64_characters_is_valid(tmp_path: Path, env: dict[str, str],
                                                    managed: Path) -> None:
    repo = _init_repo(tmp_path / "repo")
    location = _resolve(repo, dict(env, CLAUDE_CODE_PROJECT_DIR_NAME="x" * 64), managed)
    assert location.source == "CLAUDE_CODE_PROJECT_DIR_NAME"


def test_environ_defaults_to_os_environ(tmp_path: Path, isolated_home: Path, managed: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _init_repo(tmp_path / "repo")
    monkeypatch.setenv("CLAUDE_CODE_PROJECT_DIR_NAME", "from-os-environ")
    location = resolve_memory_location(repo, managed_settings=managed)
    assert location.memory_dir == (
        isolated_home / ".claude" / "projects" / "from-os-environ" / "memory"
    )


def test_long_path_prefers_an_existing_folder_with_the_same_prefix(
    tmp_path: Path, env: dict[str, str], managed: Path
) -> None:
    project = tmp_path / ("long-folder-name-" * 14)
    project.mkdir()
    key = Path(os.path.realpath(project))
    slug = slugify(str(key))
    assert len(slug) > 200
    config = Path(env["CLAUDE_CONFIG_DIR"])
    location = _resolve(project, env, managed)
    if location.project_key != key:
        pytest.skip("the temporary folder is itself inside a git repository")
    assert location.memory_dir == config / "projects" / slug / "memory"
    # A folder made by a runtime with another hash (same 200-character prefix) is found.
    other = config / "projects" / f"{slug[:200]}-otherhash" / "memory"
    other.mkdir(parents=True)
    assert _resolve(project, env, managed).memory_dir == other
    # Once our own folder exists it wins.
    (config / "projects" / slug / "memory").mkdir(parents=True)
    assert _resolve(project, env, managed).memory_dir == config / "projects" / slug / "memory"


@pytest.mark.parametrize("scenario", ["plain", "override", "settings", "named", "bad"])
def test_exactly_one_candidate_is_used(tmp_path: Path, env: dict[str, str], managed: Path,
                                       scenario: str) -> None:
    repo = _init_repo(tmp_path / "repo")
    launch = repo / "a" / "b"
    launch.mkdir(parents=True)
    memory_dir = tmp_path / "cli" if scenario == "override" else None
    if scenario == "settings":
        _four_settings(repo, launch, env, managed, tmp_path)
    if scenario == "named":
        env = dict(env, CLAUDE_CODE_PROJECT_DIR_NAME="named")
    if scenario == "bad":
        _write_json(managed, {"autoMemoryDirectory": "rel"})
        (launch / ".claude").mkdir()
        (launch / ".claude" / "settings.json").write_text("{")
        env = dict(env, CLAUDE_CODE_PROJECT_DIR_NAME="bad name")
    location = resolve_memory_location(launch, memory_dir=memory_dir, environ=env,
                                       managed_settings=managed)
    used = [candidate for candidate in location.candidates if candidate.used]
    assert len(used) == 1
    assert used[0].path == location.memory_dir
    assert len(location.candidates) >= 7
