"""The user's classifier rows (settings ``failure_categories:``) for failure capture, without YAML.

Capture runs in a hook on every failing tool call; parsing the settings' YAML there would cost
ruamel's import on every failure. So the rows are compiled once into
``<state>/projects/<slug>/failure-categories.json`` together with the ``[mtime_ns, size]`` of both
settings files; capture stats the two files and reads the JSON while they are unchanged, and
compiles again (YAML, once) when either changed, appeared or went away. No settings file at all
costs two ``stat`` calls.

A settings file that does not load (bad YAML, a bad row) gives no user rows: the failure is still
recorded with the built-in table, the problem is logged once per change of the files, and
``pokayokay doctor``/``status`` report the settings error as they do for any key.
"""

from __future__ import annotations

import os

from pokayokay.names import FAILURE_CATEGORIES_CACHE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pokayokay.failures.classify import Rule

# The settings files, relative to the project (pokayokay.config.settings.TEAM_FILE/LOCAL_FILE;
# not imported: that module imports the memory package, which capture does not need).
_SETTINGS_FILES = (".claude/pokayokay.md", ".claude/pokayokay.local.md")
_VERSION = 1


def _stamp(project_root: str) -> list[list[int] | None]:
    out: list[list[int] | None] = []
    for name in _SETTINGS_FILES:
        try:
            st = os.stat(os.path.join(project_root, name))
        except (OSError, ValueError):
            out.append(None)
            continue
        out.append([st.st_mtime_ns, st.st_size])
    return out


def _compile(project_root: str) -> tuple[list[dict[str, str]], str | None]:
    """The rows the settings hold now (YAML parsed here), or none and the error."""
    from pathlib import Path

    from pokayokay.config.settings import load_settings
    from pokayokay.errors import SettingsError

    try:
        settings = load_settings(Path(project_root))
    except SettingsError as exc:
        return [], exc.message
    return [dict(row) for row in settings.failure_categories], None


def cached_rows(project_root: str, state_dir: str | os.PathLike[str]) -> list[dict[str, str]]:
    """The user rows as plain mappings, from the JSON cache while the settings are unchanged.
    (No pathlib on the way: capture and the prompt's spool gate read this on every failure.)"""
    stamp = _stamp(project_root)
    if stamp == [None, None]:
        return []
    cache = os.path.join(state_dir, FAILURE_CATEGORIES_CACHE)
    try:
        from pokayokay.infra.lean_json import loads  # json's import (and re's) not on this path

        with open(cache, encoding="utf-8") as fh:
            data = loads(fh.read())
        if data.get("version") == _VERSION and data.get("stamp") == stamp:
            rows = data.get("rows")
            if isinstance(rows, list):
                return [r for r in rows if isinstance(r, dict)]
    except (OSError, ValueError, AttributeError):
        pass  # no valid cache: rebuilt below
    rows, error = _compile(project_root)
    import json
    from pathlib import Path

    from pokayokay.infra import logs
    from pokayokay.infra.safe_write import encode_text, write_atomic

    if error is not None:
        logs.log(f"failure_categories: settings not loaded, built-in categories only ({error})")
    try:
        os.makedirs(state_dir, exist_ok=True)
        payload = {"version": _VERSION, "stamp": stamp, "rows": rows, "error": error}
        write_atomic(Path(cache), encode_text(json.dumps(payload, indent=1)))
    except OSError as exc:
        logs.log(f"failure_categories: cannot write {cache} ({exc}); compiled again next time")
    return rows


def user_rules(project_root: str, state_dir: str | os.PathLike[str]) -> tuple[Rule, ...]:
    """The user rows compiled for :func:`pokayokay.failures.classify.classify`; a row that no
    longer compiles (edited cache) is dropped with a log line rather than failing capture."""
    rows = cached_rows(project_root, state_dir)
    if not rows:
        return ()
    # here, not at import: the prompt's spool gate reads cached_rows without re (decision 0150)
    from pokayokay.failures.classify import rules_from_settings
    from pokayokay.infra.regex_budget import Budgeted

    try:
        rules = rules_from_settings(rows)
    except ValueError as exc:
        from pokayokay.infra import logs

        logs.log(f"failure_categories: {exc}; built-in categories only")
        return ()
    for rule in rules:
        for pattern in (rule.tool, rule.command, rule.error):
            if isinstance(pattern, Budgeted):
                pattern.on_timeout = _timed_out
    return rules


def _timed_out(pattern: str, length: int) -> None:
    """The log line for a user pattern that ran past its budget (once per pattern and process)."""
    from pokayokay.infra import logs
    from pokayokay.infra.regex_budget import BUDGET

    logs.log(
        f"failure_categories: the pattern {pattern!r} ran past its {BUDGET * 1000:.0f} ms budget "
        f"on a {length:,}-character text; counted as no match and not run again in this "
        "process: simplify it"
    )
