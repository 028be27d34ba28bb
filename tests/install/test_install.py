from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.gitrepo import git
from helpers.paths import REPO_ROOT

from pokayokay import __version__
from pokayokay.errors import PokayokayError
from pokayokay.hooks.events import HOOKED_EVENTS, HookSpec
from pokayokay.install import wiring as install
from pokayokay.install.handlers import (
    NOT_INSTALLED_NOTE,
    handler_form,
    no_site_start,
    plugin_hooks_json,
    render_plugin_hooks_json,
)
from pokayokay.install.scan import find_installed_hooks
from pokayokay.install.wiring import init, uninstall

EVENTS = [spec.event for spec in HOOKED_EVENTS]
TIMEOUTS = {spec.event: spec.timeout for spec in HOOKED_EVENTS}


def dump(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def make_executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def env_on_path(bin_dir: Path) -> dict[str, str]:
    """An environment where `pokayokay` (and its `pokayokay-spool`, `pokayokay-event`) is on
    PATH."""
    make_executable(bin_dir / "pokayokay")
    make_executable(bin_dir / "pokayokay-spool")
    make_executable(bin_dir / "pokayokay-event")
    return dict(os.environ, PATH=str(bin_dir))


@pytest.fixture
def env_off_path(bin_dir: Path) -> dict[str, str]:
    """An environment where `pokayokay` is not on PATH."""
    return dict(os.environ, PATH=str(bin_dir))


@pytest.fixture(autouse=True)
def fake_template(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[Any]]:
    """Most tests stub the MEMORY.md template; `real_template` tests use the real one."""
    calls: list[Any] = []
    if "real_template" not in request.fixturenames:
        def fake(location: Any, settings: Any) -> str:
            calls.append((location, settings))
            return "memory template: stub"

        monkeypatch.setattr(install, "_ensure_memory_template", fake)
    yield calls


@pytest.fixture
def real_template() -> None:
    return None


def group(event: str, handler: dict[str, Any]) -> dict[str, Any]:
    """A matcher group as init writes it: the event's matcher (if any) first."""
    spec = next(spec for spec in HOOKED_EVENTS if spec.event == event)
    return {"matcher": spec.matcher, "hooks": [handler]} if spec.matcher else {"hooks": [handler]}


def path_handler(event: str) -> dict[str, Any]:
    return {"type": "command", "command": "pokayokay", "args": ["hook", event],
            "timeout": TIMEOUTS.get(event, 10)}


SPOOLED = ("PostToolUse", "PostToolUseFailure", "PostToolBatch", "InstructionsLoaded")
# Registered with "async": true: Claude Code runs them in the background and waits for nothing.
BACKGROUND = ("Stop",)


def timed(handler: dict[str, Any], event: str) -> dict[str, Any]:
    """The handler with the event's timeout (and "async": true for a background event)."""
    if event in BACKGROUND:
        handler["async"] = True
    handler["timeout"] = TIMEOUTS.get(event, 10)
    return handler


def installed(event: str) -> dict[str, Any]:
    """What init registers with pokayokay on PATH: a guarded shell command (exit 0 without
    pokayokay; SessionStart says so once), the per-tool-call events through pokayokay-spool, the
    others through pokayokay-event, each tried first without site (decision 0141)."""
    guard = "command -v {} >/dev/null 2>&1 || "
    if event in SPOOLED:
        command = guard.format("pokayokay-spool") + (
            f"exit 0; {no_site_start(event, 'pokayokay-spool')}; exec pokayokay-spool {event}"
        )
    elif event == "SessionStart":
        note = json.dumps({"systemMessage": NOT_INSTALLED_NOTE}).replace("'", "'\"'\"'")
        command = guard.format("pokayokay-event") + (
            "{ printf '%s\\n' '" + note + "'; exit 0; }; "
            f"{no_site_start(event)}; exec pokayokay-event SessionStart"
        )
    else:
        command = guard.format("pokayokay-event") + (
            f"exit 0; {no_site_start(event)}; exec pokayokay-event {event}"
        )
    return timed({"type": "command", "command": command}, event)


def absolute_handler(event: str, python: str = "/opt/old/bin/python3") -> dict[str, Any]:
    return {"type": "command", "command": python, "args": ["-m", "pokayokay", "hook", event],
            "timeout": TIMEOUTS.get(event, 10)}


# --- init on a fresh project ------------------------------------------------------------------


def test_fresh_project_gets_a_valid_settings_file(
    project: Path, env_on_path: dict[str, str], fake_template: list[Any]
) -> None:
    report = init(project, environ=env_on_path)
    target = project / ".claude" / "settings.json"
    assert report.settings_file == target
    assert report.created_file and report.changed and report.form == "path"
    text = target.read_text()
    assert text.endswith("}\n") and text == dump(load(target))
    assert load(target) == {
        "hooks": {event: [group(event, installed(event))] for event in EVENTS}
    }
    assert [c.event for c in report.added] == EVENTS
    assert report.memory == "memory template: stub" and len(fake_template) == 1
    lines = report.lines()
    assert lines[0] == f"created {target}"
    assert f"{EVENTS[0]}: added `pokayokay-event {EVENTS[0]}`" in lines
    assert report.render() == "\n".join(lines)


def test_matcher_is_written_when_the_spec_has_one(
    project: Path, env_on_path: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = (HookSpec("PostToolUse", "Bash|Edit", 5, "capture:post_tool_use"),)
    monkeypatch.setattr(install, "HOOKED_EVENTS", specs)
    init(project, environ=env_on_path)
    groups = load(project / ".claude" / "settings.json")["hooks"]["PostToolUse"]
    assert groups == [{"matcher": "Bash|Edit", "hooks": [
        {**installed("PostToolUse"), "timeout": 5}]}]
    assert init(project, environ=env_on_path).changed is False


def test_absolute_form_when_not_on_path(project: Path, env_off_path: dict[str, str]) -> None:
    report = init(project, environ=env_off_path)
    data = load(project / ".claude" / "settings.json")
    python = os.path.abspath(sys.executable)
    handler = data["hooks"]["SessionEnd"][0]["hooks"][0]
    # The interpreter with no site and no PYTHON* variables on the package's launcher: no
    # runpy, no CLI, no site (issue 26, decision 0141).
    launcher = str(REPO_ROOT / "pokayokay" / "hooks" / "launch.py")
    assert handler == {
        "type": "command",
        "command": f"[ -x {python} ] && [ -f {launcher} ] || exit 0; "
        f"exec {python} -S -E {launcher} SessionEnd",
        "timeout": TIMEOUTS["SessionEnd"],
    }
    assert handler_form(handler) == "absolute"
    # The per-tool-call events run the spool's entry the same way (a few lines: spool.py's code
    # comes from its .pyc).
    spool_py = str(REPO_ROOT / "pokayokay" / "infra" / "spool_launch.py")
    assert data["hooks"]["PostToolUseFailure"][0]["hooks"][0]["command"] == (
        f"[ -x {python} ] && [ -f {spool_py} ] || exit 0; "
        f"exec {python} -S -E {spool_py} PostToolUseFailure"
    )
    assert report.form == "absolute"
    assert any("not on PATH" in note for note in report.notes)


def test_absolute_flag_forces_the_interpreter_path(
    project: Path, env_on_path: dict[str, str]
) -> None:
    report = init(project, environ=env_on_path, absolute=True)
    handler = load(project / ".claude" / "settings.json")["hooks"]["SessionStart"][0]["hooks"][0]
    python = os.path.abspath(sys.executable)
    launcher = str(REPO_ROOT / "pokayokay" / "hooks" / "launch.py")
    assert handler["command"].startswith(f"[ -x {python} ] && [ -f {launcher} ] || {{ printf ")
    assert handler["command"].endswith(f"; exec {python} -S -E {launcher} SessionStart")
    assert handler_form(handler) == "absolute"
    assert report.form == "absolute"
    assert not any("not on PATH" in note for note in report.notes)


def test_manifest_records_what_init_added(project: Path, env_on_path: dict[str, str]) -> None:
    report = init(project, environ=env_on_path)
    assert report.manifest is not None and report.manifest.name == "install.json"
    assert report.manifest == install.manifest_path(project, env_on_path)
    assert str(report.manifest).startswith(os.environ["POKAYOKAY_HOME"])
    manifest = load(report.manifest)
    assert manifest["version"] == 1
    [entry] = manifest["installs"]
    assert entry["scope"] == "project"
    assert entry["settings_file"] == str(project / ".claude" / "settings.json")
    assert entry["created_file"] is True and entry["created_dir"] is True
    assert entry["created_keys"] == ["hooks", *(f"hooks.{e}" for e in EVENTS)]
    assert entry["handlers"] == [
        {"event": s.event, "matcher": s.matcher, "handler": installed(s.event)}
        for s in HOOKED_EVENTS
    ]
    assert entry["pokayokay_version"] == __version__


def test_manifest_is_keyed_by_the_git_root(tmp_path: Path, env_on_path: dict[str, str]) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q")
    assert install.manifest_path(repo / "sub", env_on_path) == install.manifest_path(
        repo, env_on_path
    )
    report = init(repo / "sub", environ=env_on_path)
    assert any("launched in" in note for note in report.notes)


# --- merging with an existing file ------------------------------------------------------------


OTHER_HANDLER = {"type": "command", "command": "notify-send", "args": ["done"]}
EXISTING: dict[str, Any] = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(npm test)"], "deny": []},
    "model": "opus",
    "hooks": {
        "SessionEnd": [
            {"hooks": [OTHER_HANDLER]},
            {"matcher": "", "hooks": []},
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}
        ],
    },
    "env": {"GREETING": "héllo ✓"},
    "enabledPlugins": {},
}


def test_unrelated_keys_and_hooks_survive_a_round_trip_byte_for_byte(
    project: Path, env_on_path: dict[str, str]
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    original = dump(EXISTING).encode()
    target.write_bytes(original)

    report = init(project, environ=env_on_path)
    assert not report.created_file
    data = load(target)
    assert list(data) == list(EXISTING)  # key order kept
    for key in ("$schema", "permissions", "model", "env", "enabledPlugins"):
        assert data[key] == EXISTING[key]
    # The user's own PreToolUse guard stays first and untouched; pokayokay's is added after it.
    assert data["hooks"]["PreToolUse"][0] == EXISTING["hooks"]["PreToolUse"][0]
    assert [g["matcher"] for g in data["hooks"]["PreToolUse"]] == ["Bash", "Bash"]
    assert data["hooks"]["SessionEnd"] == [
        *EXISTING["hooks"]["SessionEnd"], {"hooks": [installed("SessionEnd")]},
    ]

    removed = uninstall(project, environ=env_on_path)
    assert [c.event for c in removed.removed] == [e for e in data["hooks"] if e in EVENTS]
    assert not removed.deleted_file
    assert target.read_bytes() == original


def test_round_trip_of_a_file_init_created_deletes_it(
    project: Path, env_on_path: dict[str, str]
) -> None:
    init(project, environ=env_on_path)
    report = uninstall(project, environ=env_on_path)
    assert report.deleted_file and report.changed
    assert f"deleted {project / '.claude' / 'settings.json'}" in report.render()
    assert not (project / ".claude").exists()  # init created the folder too
    assert not install.manifest_path(project, env_on_path).exists()


def test_uninstall_keeps_the_file_when_someone_else_added_to_it(
    project: Path, env_on_path: dict[str, str]
) -> None:
    init(project, environ=env_on_path)
    target = project / ".claude" / "settings.json"
    data = load(target)
    data["model"] = "sonnet"
    target.write_text(dump(data))
    uninstall(project, environ=env_on_path)
    assert load(target) == {"model": "sonnet"}


def test_uninstall_keeps_empty_containers_that_were_there_before_init(
    project: Path, env_on_path: dict[str, str]
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    original = dump({"hooks": {"SessionStart": []}}).encode()
    target.write_bytes(original)
    init(project, environ=env_on_path)
    uninstall(project, environ=env_on_path)
    assert target.read_bytes() == original


def test_uninstall_never_touches_other_handlers_in_the_same_group(
    project: Path, env_on_path: dict[str, str]
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    mixed = {"hooks": {"SessionEnd": [
        {"hooks": [OTHER_HANDLER, absolute_handler("SessionEnd"), {"type": "http", "url": "x"}]}
    ]}}
    target.write_text(dump(mixed))
    report = init(project, environ=env_on_path)
    # The old-form handler is replaced where it stood, in the user's group.
    assert load(target)["hooks"]["SessionEnd"] == [
        {"hooks": [OTHER_HANDLER, installed("SessionEnd"), {"type": "http", "url": "x"}]}
    ]
    assert [c.event for c in report.replaced] == ["SessionEnd"]
    uninstall(project, environ=env_on_path)
    assert load(target)["hooks"]["SessionEnd"] == [
        {"hooks": [OTHER_HANDLER, {"type": "http", "url": "x"}]}
    ]


def test_uninstall_without_manifest_removes_by_recognition(
    project: Path, env_on_path: dict[str, str]
) -> None:
    target = project / ".claude" / "settings.json"
    init(project, environ=env_on_path)
    install.manifest_path(project, env_on_path).unlink()
    report = uninstall(project, environ=env_on_path)
    assert len(report.removed) == len(EVENTS)
    assert load(target) == {}  # init's record is gone, so the file is not deleted


# --- idempotency and replacement --------------------------------------------------------------


def test_init_twice_changes_nothing(project: Path, env_on_path: dict[str, str]) -> None:
    init(project, environ=env_on_path)
    target = project / ".claude" / "settings.json"
    manifest = install.manifest_path(project, env_on_path)
    before = (target.read_bytes(), target.stat().st_mtime_ns, manifest.read_bytes())
    report = init(project, environ=env_on_path)
    assert not report.changed and not report.added and not report.replaced
    assert f"pokayokay hooks already installed in {target}" in report.lines()
    assert (target.read_bytes(), target.stat().st_mtime_ns, manifest.read_bytes()) == before
    # The manifest still knows init created the file.
    assert load(manifest)["installs"][0]["created_file"] is True


def test_init_does_not_rewrite_a_differently_formatted_file_when_installed(
    project: Path, env_on_path: dict[str, str]
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    compact = {"hooks": {e: [group(e, installed(e))] for e in EVENTS}}
    target.write_text(json.dumps(compact))
    report = init(project, environ=env_on_path)
    assert not report.changed
    assert target.read_text() == json.dumps(compact)


@pytest.mark.parametrize(
    "old",
    [
        absolute_handler("SessionStart"),
        {"type": "command", "command": "/home/u/.local/bin/pokayokay",
         "args": ["hook", "SessionStart"]},
        {"type": "command", "command": "pokayokay hook SessionStart"},
        {"type": "command", "command": "python3 -m pokayokay hook SessionStart", "timeout": 3},
        {**path_handler("SessionStart"), "timeout": 99},
    ],
    ids=["absolute", "full-path", "shell-form", "shell-absolute", "old-timeout"],
)
def test_an_old_form_handler_is_replaced_not_duplicated(
    project: Path, env_on_path: dict[str, str], old: dict[str, Any]
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text(dump({"hooks": {"SessionStart": [{"hooks": [old]}]}}))
    report = init(project, environ=env_on_path)
    assert load(target)["hooks"]["SessionStart"] == [{"hooks": [installed("SessionStart")]}]
    assert [(c.event, c.old) for c in report.replaced] == [("SessionStart", old)]
    assert any(line.startswith("SessionStart: replaced `") for line in report.lines())


def test_switching_forms_back_and_forth(project: Path, env_on_path: dict[str, str]) -> None:
    target = project / ".claude" / "settings.json"
    init(project, environ=env_on_path, absolute=True)
    init(project, environ=env_on_path)
    assert load(target) == {"hooks": {e: [group(e, installed(e))] for e in EVENTS}}


def test_duplicates_and_stale_events_are_cleaned_up(
    project: Path, env_on_path: dict[str, str]
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text(dump({"hooks": {
        "SessionStart": [{"hooks": [path_handler("SessionStart")]},
                         {"hooks": [absolute_handler("SessionStart")]}],
        "Notification": [{"hooks": [path_handler("Notification")]}],
        "SubagentStop": [{"hooks": [OTHER_HANDLER, path_handler("SubagentStop")]}],
    }}))
    report = init(project, environ=env_on_path)
    data = load(target)["hooks"]
    assert data["SessionStart"] == [{"hooks": [installed("SessionStart")]}]
    assert "Notification" not in data
    assert data["SubagentStop"] == [{"hooks": [OTHER_HANDLER]}]
    assert sorted(c.event for c in report.removed) == [
        "Notification", "SessionStart", "SubagentStop"
    ]


def test_an_old_synchronous_stop_handler_becomes_the_background_one(
    project: Path, env_on_path: dict[str, str]
) -> None:
    # A Stop handler of ours without "async" (hand-written, or from a build that ran it in the
    # foreground) would make Claude wait for the ingest at the end of every turn.
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text(dump({"hooks": {
        "Stop": [{"hooks": [OTHER_HANDLER, path_handler("Stop")]}],
    }}))
    report = init(project, environ=env_on_path)
    [stop_group] = load(target)["hooks"]["Stop"]
    assert stop_group == {"hooks": [OTHER_HANDLER, installed("Stop")]}
    assert stop_group["hooks"][1]["async"] is True
    assert stop_group["hooks"][1]["command"].endswith("; exec pokayokay-event Stop")
    assert [(c.event, c.handler is not None) for c in report.replaced] == [("Stop", True)]
    uninstall(project, environ=env_on_path)
    assert load(target).get("hooks", {}).get("Stop") == [{"hooks": [OTHER_HANDLER]}]


# --- scopes -----------------------------------------------------------------------------------


def test_project_scope_writes_the_launch_folder(
    tmp_path: Path, env_on_path: dict[str, str]
) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q")
    report = init(repo / "sub", environ=env_on_path)
    assert report.settings_file == repo / "sub" / ".claude" / "settings.json"
    assert report.settings_file.exists()


def test_local_scope_writes_the_git_root(tmp_path: Path, env_on_path: dict[str, str]) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q")
    report = init(repo / "sub", scope="local", environ=env_on_path)
    target = repo / ".claude" / "settings.local.json"
    assert report.settings_file == target and target.exists()
    assert not (repo / "sub" / ".claude").exists()
    assert uninstall(repo / "sub", scope="local", environ=env_on_path).deleted_file


def test_local_scope_outside_git_writes_the_project(
    project: Path, env_on_path: dict[str, str]
) -> None:
    report = init(project, scope="local", environ=env_on_path)
    assert report.settings_file == project / ".claude" / "settings.local.json"


def test_user_scope_writes_the_config_dir(
    project: Path, env_on_path: dict[str, str], tmp_path: Path
) -> None:
    config = tmp_path / "config"
    env = dict(env_on_path, CLAUDE_CONFIG_DIR=str(config))
    report = init(project, scope="user", environ=env)
    assert report.settings_file == config / "settings.json"
    assert (config / "settings.json").exists() and not (project / ".claude").exists()


def test_user_scope_defaults_to_home(project: Path, env_on_path: dict[str, str],
                                     tmp_path: Path) -> None:
    env = {k: v for k, v in env_on_path.items() if k != "CLAUDE_CONFIG_DIR"}
    env["HOME"] = str(tmp_path / "h")
    report = init(project, scope="user", environ=env)
    assert report.settings_file == tmp_path / "h" / ".claude" / "settings.json"


def test_scopes_are_independent(project: Path, env_on_path: dict[str, str]) -> None:
    init(project, environ=env_on_path)
    init(project, scope="user", environ=env_on_path)
    manifest = load(install.manifest_path(project, env_on_path))
    assert [entry["scope"] for entry in manifest["installs"]] == ["project", "user"]
    uninstall(project, environ=env_on_path)
    assert not (project / ".claude" / "settings.json").exists()
    assert install.settings_file(project, "user", env_on_path).exists()
    assert [e["scope"] for e in load(install.manifest_path(project, env_on_path))["installs"]] \
        == ["user"]


def test_unknown_scope(project: Path) -> None:
    with pytest.raises(PokayokayError, match="unknown scope 'global'"):
        init(project, scope="global")


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"hooks": {', "invalid JSON (line 1, column 12: Expecting property name enclosed "
                         "in double quotes); nothing was changed"),
        (b"[1, 2]", "holds an array, not a JSON object; nothing was changed"),
        (b'"text"', "holds a string, not a JSON object; nothing was changed"),
        (b'{"model": "a", "model": "b"}', "duplicate key 'model'; fix it by hand, nothing was "
                                          "changed"),
        (b"{\"model\": \"caf\xe9\"}", "not UTF-8 text; nothing was changed"),
        (b'{"hooks": []}', '"hooks" is not a JSON object; nothing was changed'),
        (b'{"hooks": {"SessionEnd": {}}}', '"hooks.SessionEnd" is not a JSON array; nothing was '
                                           "changed"),
    ],
    ids=["invalid", "array", "string", "duplicate-key", "not-utf8", "hooks-array",
         "event-object"],
)
def test_bad_settings_file_is_left_untouched(
    project: Path, env_on_path: dict[str, str], fake_template: list[Any], content: bytes,
    message: str,
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_bytes(content)
    with pytest.raises(PokayokayError) as info:
        init(project, environ=env_on_path)
    assert info.value.message == f"{target}: {message}"
    assert target.read_bytes() == content
    assert fake_template == []  # nothing at all was written, the memory template neither
    assert not install.manifest_path(project, env_on_path).exists()
    assert sorted(p.name for p in target.parent.iterdir()) == ["settings.json"]


def test_uninstall_of_invalid_json_is_an_error(project: Path, env_on_path: dict[str, str]) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text("{oops")
    with pytest.raises(PokayokayError, match="invalid JSON"):
        uninstall(project, environ=env_on_path)
    assert target.read_text() == "{oops"


def test_empty_settings_file_counts_as_empty_object(
    project: Path, env_on_path: dict[str, str]
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text("")
    report = init(project, environ=env_on_path)
    assert not report.created_file
    assert set(load(target)["hooks"]) == set(EVENTS)


def test_symlink_leading_outside_the_project_is_refused(
    project: Path, env_on_path: dict[str, str], tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").symlink_to(outside)
    with pytest.raises(PokayokayError, match="outside the project"):
        init(project, environ=env_on_path)
    assert outside.read_text() == "{}\n"


def test_symlink_inside_the_project_is_written_through(
    project: Path, env_on_path: dict[str, str]
) -> None:
    real = project / "config" / "claude.json"
    real.parent.mkdir()
    real.write_text("{}\n")
    (project / ".claude").mkdir()
    link = project / ".claude" / "settings.json"
    link.symlink_to(real)
    init(project, environ=env_on_path)
    assert link.is_symlink() and set(load(real)["hooks"]) == set(EVENTS)


def test_file_mode_is_kept(project: Path, env_on_path: dict[str, str]) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text("{}\n")
    target.chmod(0o600)
    init(project, environ=env_on_path)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_concurrent_writer_is_not_overwritten(
    project: Path, env_on_path: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text(dump({"model": "opus"}))
    real_plan = install._plan_init
    calls = []

    def racing_plan(*args: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:  # the first call is init's dry run; the race hits the real pass
            target.write_text(dump({"model": "opus", "permissions": {"allow": ["Read"]}}))
        return real_plan(*args)

    monkeypatch.setattr(install, "_plan_init", racing_plan)
    init(project, environ=env_on_path)
    data = load(target)
    assert data["permissions"] == {"allow": ["Read"]} and set(data["hooks"]) == set(EVENTS)
    assert len(calls) == 3


def test_uninstall_when_nothing_is_installed(project: Path, env_on_path: dict[str, str]) -> None:
    report = uninstall(project, environ=env_on_path)
    assert not report.changed and report.removed == []
    assert report.lines() == [
        f"no pokayokay hooks in {project / '.claude' / 'settings.json'}; nothing to remove"
    ]
    assert not (project / ".claude").exists()
    assert not install.manifest_path(project, env_on_path).exists()


def test_uninstall_of_a_file_without_our_hooks_leaves_it_alone(
    project: Path, env_on_path: dict[str, str]
) -> None:
    target = project / ".claude" / "settings.json"
    target.parent.mkdir()
    text = '{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "x"}]}]}}'
    target.write_text(text)
    report = uninstall(project, environ=env_on_path)
    assert not report.changed and target.read_text() == text


# --- the real MEMORY.md template --------------------------------------------------------------


def test_init_creates_the_memory_template(
    project: Path, env_on_path: dict[str, str], real_template: None
) -> None:
    from pokayokay.infra.locate import resolve_memory_location

    location = resolve_memory_location(project, environ=env_on_path)
    report = init(project, environ=env_on_path)
    assert location.memory_file.exists()
    assert report.memory and str(location.memory_file) in report.memory
    text = location.memory_file.read_text()
    # no empty heading: a managed section appears with its first entry
    assert text == "# Memory\n" and "first entries" in report.memory
    # Existing content is not disturbed on a second run.
    location.memory_file.write_text(text + "- [A note](note.md) — Claude's own\n")
    init(project, environ=env_on_path)
    assert "- [A note](note.md) — Claude's own\n" in location.memory_file.read_text()


# --- recognising pokayokay's handlers ---------------------------------------------------------


@pytest.mark.parametrize(
    ("handler", "form"),
    [
        (path_handler("SessionEnd"), "path"),
        ({"type": "command", "command": "/usr/local/bin/pokayokay", "args": ["hook", "X"]}, "path"),
        ({"type": "command", "command": "C:\\Tools\\pokayokay.exe", "args": ["hook", "X"]},
         "path"),
        (absolute_handler("SessionEnd"), "absolute"),
        ({"type": "command", "command": "uv", "args": ["run", "-m", "pokayokay", "hook"]}, None),
        ({"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/pokayokay-hook",
          "args": ["SessionEnd"]}, "plugin"),
        ({"type": "command", "command": '"${CLAUDE_PLUGIN_ROOT}/hooks/pokayokay-hook" Stop'},
         "plugin"),
        ({"type": "command", "command": "pokayokay hook SessionEnd"}, "path"),
        ({"type": "command", "command": "pokayokay-event SessionEnd"}, "path"),
        ({"type": "command", "command": "/opt/bin/pokayokay-event", "args": ["Stop"]}, "path"),
        ({"type": "command", "command": "pokayokay-event SessionEnd extra"}, None),
        # The launcher (decision 0141) and the spool file, by absolute path, with -S -E.
        ({"type": "command", "command": "[ -x /p/python ] && [ -f /s/pokayokay/hooks/launch.py ]"
          " || exit 0; exec /p/python -S -E /s/pokayokay/hooks/launch.py Stop"}, "absolute"),
        ({"type": "command", "command": "/p/python",
          "args": ["-S", "-E", "/s/pokayokay/infra/spool.py", "PostToolUse"]}, "absolute"),
        ({"type": "command", "command": "/p/python",
          "args": ["-S", "-E", "/s/pokayokay/infra/spool_launch.py", "PostToolUse"]}, "absolute"),
        ({"type": "command", "command": "/p/python",
          "args": ["-S", "-E", "/s/other/hooks/launch.py", "Stop"]}, None),
        ({"type": "command", "command": "/p/python",
          "args": ["-S", "-E", "/s/pokayokay/hooks/runtime.py", "Stop"]}, None),
        ({"type": "command", "command": "pokayokay hook SessionEnd && rm -rf x"}, None),
        ({"type": "command", "command": "pokayokay", "args": ["curate"]}, None),
        ({"type": "command", "command": "pokayokay", "args": "hook SessionEnd"}, None),
        ({"type": "http", "url": "http://x/pokayokay"}, None),
        ({"command": "pokayokay", "args": ["hook", "X"]}, None),
        ("pokayokay hook X", None),
        ({"type": "command", "command": "notify-send", "args": ["pokayokay", "hook"]}, None),
    ],
)
def test_handler_form(handler: Any, form: str | None) -> None:
    assert handler_form(handler) == form


# --- find_installed_hooks ---------------------------------------------------------------------


def test_find_installed_hooks_lists_every_settings_file(
    project: Path, env_on_path: dict[str, str], tmp_path: Path
) -> None:
    init(project, environ=env_on_path)
    user = install.settings_file(project, "user", env_on_path)
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(dump({
        "hooks": {"SessionEnd": [{"hooks": [absolute_handler("SessionEnd", "/nope/python")]}]},
        "enabledPlugins": {"pokayokay@pokayokay-tools": True, "other@x": True},
    }))
    local = project / ".claude" / "settings.local.json"
    local.write_text("{broken")
    managed = tmp_path / "managed-settings.json"
    managed.write_text(dump({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/pokayokay-hook",
         "args": ["Stop"]}]}]}}))

    found = find_installed_hooks(project, env_on_path, managed_settings=managed)
    by_scope = {f.scope: f for f in found}
    assert [f.scope for f in found] == ["user", "project", "local", "managed"]

    proj = by_scope["project"]
    assert proj.exists and proj.error is None and proj.missing_events == ()
    assert [h.event for h in proj.hooks] == EVENTS
    assert all(h.form == "path" and h.resolves for h in proj.hooks)
    assert proj.hooks[0].resolved == str(Path(env_on_path["PATH"]) / "pokayokay-event")
    assert proj.events == tuple(EVENTS) and proj.resolves and proj.command is None

    usr = by_scope["user"]
    assert [(h.event, h.form, h.resolves) for h in usr.hooks] == [
        ("SessionEnd", "absolute", False)
    ]
    assert usr.plugins == ("pokayokay@pokayokay-tools",)
    assert not usr.resolves and usr.command == "/nope/python"
    assert "SessionStart" in usr.missing_events

    assert by_scope["local"].error is not None and "invalid JSON" in by_scope["local"].error
    assert by_scope["managed"].hooks[0].form == "plugin"
    assert by_scope["managed"].hooks[0].resolves is None


def test_find_installed_hooks_when_nothing_is_installed(
    project: Path, env_off_path: dict[str, str], tmp_path: Path
) -> None:
    found = find_installed_hooks(project, env_off_path, managed_settings=tmp_path / "none.json")
    assert [(f.scope, f.exists, f.hooks) for f in found] == [
        ("user", False, ()), ("project", False, ()), ("local", False, ()),
    ]
    assert found[0].missing_events == tuple(EVENTS)


def test_find_installed_hooks_command_not_on_path(
    project: Path, env_on_path: dict[str, str], env_off_path: dict[str, str]
) -> None:
    init(project, environ=env_on_path)
    for name in ("pokayokay", "pokayokay-spool", "pokayokay-event"):
        (Path(env_on_path["PATH"]) / name).unlink()
    proj = find_installed_hooks(project, env_off_path)[1]
    assert proj.hooks and not any(h.resolves for h in proj.hooks)
    assert proj.command == "pokayokay-event"


# --- the plugin -------------------------------------------------------------------------------


def test_committed_hooks_json_is_generated_from_the_table() -> None:
    committed = (REPO_ROOT / "hooks" / "hooks.json").read_text()
    assert committed == render_plugin_hooks_json(), (
        "hooks/hooks.json is stale: regenerate it with python -c 'from pokayokay.install"
        ".handlers import render_plugin_hooks_json as r; "
        "open(\"hooks/hooks.json\", \"w\").write(r())'"
    )
    data = plugin_hooks_json()
    assert set(data) == {"description", "hooks"}
    assert list(data["hooks"]) == EVENTS
    for spec in HOOKED_EVENTS:
        [group] = data["hooks"][spec.event]
        assert group["hooks"] == [timed({
            "type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/pokayokay-hook",
            "args": [spec.event],
        }, spec.event)]
        assert handler_form(group["hooks"][0]) == "plugin"


def test_plugin_manifest() -> None:
    manifest = load(REPO_ROOT / ".claude-plugin" / "plugin.json")
    assert manifest["name"] == "pokayokay"
    assert manifest["version"] == __version__
    assert manifest["description"]
    assert "hooks" not in manifest  # hooks/hooks.json loads by itself; listing it twice doubles


SHIM = REPO_ROOT / "hooks" / "pokayokay-hook"


def run_shim(path: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SHIM), *args], input=stdin, capture_output=True, text=True,
                          env={"PATH": path, "HOME": os.environ["HOME"]}, timeout=30)


def test_shim_is_an_executable_posix_script() -> None:
    assert os.access(SHIM, os.X_OK)
    assert SHIM.read_text().startswith("#!/bin/sh\n")


def test_shim_without_pokayokay_is_quiet_and_session_start_says_so_once(bin_dir: Path) -> None:
    # A python3 that runs without site-packages, so `import pokayokay` fails.
    base = Path(sys.base_prefix) / "bin" / "python3"
    python = base if base.exists() else Path(sys.executable)
    make_executable(bin_dir / "python3", f'#!/bin/sh\nexec "{python}" -I -S "$@"\n')
    for spec in HOOKED_EVENTS:
        result = run_shim(str(bin_dir), spec.event, stdin=json.dumps({"hook_event_name": "x"}))
        assert result.returncode == 0 and result.stderr == ""
        if spec.event != "SessionStart":
            assert result.stdout == ""
            continue
        [line] = result.stdout.splitlines()
        assert json.loads(line) == {"systemMessage": NOT_INSTALLED_NOTE}


def test_shim_without_any_python(bin_dir: Path) -> None:
    result = run_shim(str(bin_dir), "PostToolUse", stdin='{"tool_name": "Bash"}')
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_shim_sends_per_tool_call_events_to_the_spool(bin_dir: Path) -> None:
    make_executable(bin_dir / "pokayokay", '#!/bin/sh\necho "pokayokay:$*"\n')
    make_executable(bin_dir / "pokayokay-spool",
                    '#!/bin/sh\necho "spool:$*"\nwhile read -r line; do echo "in:$line"; done\n')
    result = run_shim(str(bin_dir), "PostToolUseFailure", stdin="payload\n")
    assert (result.returncode, result.stdout) == (0, "spool:PostToolUseFailure\nin:payload\n")
    assert run_shim(str(bin_dir), "SessionEnd").stdout == "pokayokay:hook SessionEnd\n"
    # With pokayokay-event installed, the other events go to it.
    make_executable(bin_dir / "pokayokay-event",
                    '#!/bin/sh\necho "event:$*"\nwhile read -r line; do echo "in:$line"; done\n')
    result = run_shim(str(bin_dir), "SessionEnd", stdin="payload\n")
    assert (result.returncode, result.stdout) == (0, "event:SessionEnd\nin:payload\n")


def test_shim_execs_pokayokay_on_path(bin_dir: Path) -> None:
    make_executable(bin_dir / "pokayokay",
                    '#!/bin/sh\necho "args:$*"\nwhile read -r line; do echo "in:$line"; done\n')
    result = run_shim(str(bin_dir), "SessionEnd", stdin="payload\n")
    assert result.returncode == 0
    assert result.stdout == "args:hook SessionEnd\nin:payload\n"


def test_shim_falls_back_to_python_module(bin_dir: Path) -> None:
    make_executable(
        bin_dir / "python3",
        '#!/bin/sh\nif [ "$1" = "-c" ]; then exit 0; fi\necho "python:$*"\n'
        'while read -r line; do echo "$line"; done\n',
    )
    result = run_shim(str(bin_dir), "PreCompact", stdin="payload\n")
    assert result.returncode == 0
    assert result.stdout == "python:-m pokayokay hook PreCompact\npayload\n"
