"""The settings files init writes (project, local, user scope) and the install manifest in the
state folder: where they are, reading them strictly (duplicate keys and non-objects refused with
the file named) and writing them back safely."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pokayokay.errors import PokayokayError
from pokayokay.infra.regular import read_regular
from pokayokay.infra.safe_write import encode_text, replace_if_unchanged, update

SCOPES: tuple[str, ...] = ("project", "local", "user")


MANIFEST_NAME = "install.json"


MANIFEST_VERSION = 1


JsonObject = dict[str, Any]


def absolute_project(project_dir: Path) -> Path:
    """``project_dir`` made absolute, symbolic links kept (the folder Claude Code runs in)."""
    return Path(os.path.abspath(project_dir))


def settings_file(
    project_dir: Path, scope: str = "project", environ: Mapping[str, str] | None = None
) -> Path:
    """The Claude Code settings file of ``scope`` for a project launched in ``project_dir``."""
    from pokayokay.infra.locate import claude_config_dir, find_git_toplevel

    project = absolute_project(project_dir)
    if scope == "project":
        return project / ".claude" / "settings.json"
    if scope == "local":
        # Claude Code reads settings.local.json at the repository's top level (v2.1.211+).
        top = find_git_toplevel(project)
        return (top if top is not None else project) / ".claude" / "settings.local.json"
    if scope == "user":
        return claude_config_dir(environ) / "settings.json"
    raise PokayokayError(f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")


def manifest_project_key(project_dir: Path) -> str:
    """The key of a project's state folder: its git root, or the real path when it has none."""
    from pokayokay.infra.locate import find_git_root

    project = Path(os.path.realpath(project_dir))
    root = find_git_root(project)
    return str(root if root is not None else project)


def manifest_path(project_dir: Path, environ: Mapping[str, str] | None = None) -> Path:
    from pokayokay.infra.state import project_state_dir

    env = None if environ is None else dict(environ)
    return project_state_dir(manifest_project_key(project_dir), env) / MANIFEST_NAME


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> JsonObject:
    result: JsonObject = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def read_json_file(path: Path, *, what: str = "settings file") -> tuple[bytes | None, JsonObject]:
    """The raw bytes (None if missing) and the parsed object of a JSON file."""
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise PokayokayError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PokayokayError(f"{path}: not UTF-8 text; nothing was changed") from None
    if not text.strip():
        return raw, {}
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise PokayokayError(
            f"{path}: invalid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "nothing was changed"
        ) from None
    except ValueError as exc:
        raise PokayokayError(f"{path}: {exc}; fix it by hand, nothing was changed") from None
    if not isinstance(data, dict):
        raise PokayokayError(
            f"{path}: holds {_json_kind(data)}, not a JSON object; nothing was changed"
        )
    return raw, data


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "an array" if isinstance(value, list) else "a string"


def dump_json(data: JsonObject) -> bytes:
    """``data`` as settings files are written: indented UTF-8 JSON ending in a newline."""
    return encode_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_settings_atomic(path: Path, data: bytes, expected: bytes | None) -> None:
    """Replace ``path`` by ``data`` atomically, provided it still holds ``expected`` (None: must
    not exist). Raises ``Conflict`` if it does not."""
    replace_if_unchanged(path, expected, data)


def read_manifest(path: Path) -> JsonObject:
    """The install manifest at ``path``, normalised; an empty one when missing or unreadable."""
    try:
        _, data = read_json_file(path, what="install manifest")
    except PokayokayError:
        return {"version": MANIFEST_VERSION, "installs": []}  # unreadable: start afresh
    installs = data.get("installs")
    if not isinstance(installs, list):
        installs = []
    return {
        "version": MANIFEST_VERSION,
        "installs": [entry for entry in installs if isinstance(entry, dict)],
    }


def manifest_entry(manifest: JsonObject, target: Path) -> JsonObject | None:
    """The install manifest's entry for the settings file ``target``, or None."""
    for entry in manifest["installs"]:
        if entry.get("settings_file") == str(target):
            return entry  # type: ignore[no-any-return]
    return None


def save_manifest(path: Path, manifest: JsonObject) -> None:
    """Write ``manifest`` to ``path`` (safely); remove the file when nothing is installed."""
    if not manifest["installs"]:
        with contextlib.suppress(FileNotFoundError):  # already gone
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    data = dump_json(manifest)
    update(path, lambda _current: data)
