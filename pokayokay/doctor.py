"""What `doctor` checks and prints: data first (for --json), then the text rendering. The
figures it shares with `status` (the file against its budgets, how recall and skill suggestion
decide) come from :mod:`pokayokay.status`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from pokayokay.infra import logs
from pokayokay.infra.locate import MemoryLocation
from pokayokay.install import scan
from pokayokay.memory.sections import CLAUDE_MAX_BYTES, CLAUDE_MAX_LINES, Settings
from pokayokay.names import FAILURES_DB
from pokayokay.status import counted, notes_over_line, recall_line, skills_line, status

# ``doctor`` lists at most this many of the retired semantic recall's leftovers by name.
LEFTOVERS_LISTED = 10
# ``doctor`` looks for secrets in at most this many memory files, this much of each, and lists
# at most this many places.
SECRET_FILES = 200
SECRET_FILE_BYTES = 1 << 20
SECRETS_LISTED = 10


def _check(checks: list[dict[str, Any]], level: str, name: str, detail: str) -> None:
    checks.append({"level": level, "check": name, "detail": detail})


def doctor(project: Path, location: MemoryLocation, settings: Settings) -> dict[str, Any]:
    from pokayokay import __version__
    from pokayokay.infra.state import state_home

    checks: list[dict[str, Any]] = []
    _check(
        checks,
        "ok",
        "pokayokay",
        f"{__version__} on Python {sys.version.split()[0]} ({sys.executable})",
    )

    registered: set[str] = set()
    plugin_on = False
    for found in scan.find_installed_hooks(project):
        if found.error:
            _check(checks, "problem", "hooks", f"{found.path}: {found.error}")
            continue
        if found.plugins:
            plugin_on = True
            _check(
                checks, "ok", "hooks", f"{found.path}: plugin {', '.join(found.plugins)} enabled"
            )
        if not found.hooks:
            continue
        registered.update(found.events)
        detail = f"{found.scope} settings {found.path}: {', '.join(found.events)}"
        if found.resolves:
            _check(checks, "ok", "hooks", detail)
        else:
            _check(checks, "problem", "hooks", f"{detail} — command not found: {found.command}")
    from pokayokay.hooks.events import HOOKED_EVENTS

    missing = [spec.event for spec in HOOKED_EVENTS if spec.event not in registered]
    if missing and not plugin_on:
        _check(
            checks,
            "problem",
            "hooks",
            f"not registered for {', '.join(missing)}: run `pokayokay init` "
            "(or enable the pokayokay plugin)",
        )
    if plugin_on and registered:
        _check(
            checks,
            "warn",
            "hooks",
            "both the plugin and settings hooks are active: every hook runs twice "
            "(`pokayokay uninstall` removes the settings ones)",
        )
    _check(
        checks,
        "ok",
        "launch folder",
        f"{project}: Claude Code reads .claude/settings.json only from the folder it is "
        "launched in",
    )

    for cand in location.candidates:
        level = "ok"
        mark = "USED" if cand.used else "    "
        _check(
            checks,
            level,
            "memory folder",
            f"{mark} {cand.label}: {cand.path or '-'}{' — ' + cand.note if cand.note else ''}",
        )
    for problem in location.problems:
        _check(checks, "warn", "memory folder", problem)
    memory_file = location.memory_file
    if memory_file.exists():
        _check(checks, "ok", "MEMORY.md", str(memory_file))
    else:
        _check(checks, "warn", "MEMORY.md", f"{memory_file} does not exist yet (`pokayokay init`)")

    for name in (".claude/pokayokay.md", ".claude/pokayokay.local.md"):
        path = project / name
        _check(checks, "ok", "settings", f"{path}: {'read' if path.exists() else 'absent'}")
    for warning in settings.warnings:
        _check(checks, "warn", "settings", warning)

    reported: tuple[str, str] | None = None  # the recall and skills lines: status has them
    if memory_file.exists():
        try:
            data = status(location, settings)
        except Exception as exc:  # report, don't crash the doctor
            logs.log_exception("doctor: budgets", exc)
            _check(checks, "problem", "budgets", f"cannot curate: {exc}")
        else:
            reported = (data["recall"], data["skills"])
            now = data["before"]
            level = "problem" if now["over"] else "ok"
            _check(
                checks,
                level,
                "budgets",
                f"{now['lines']}/{CLAUDE_MAX_LINES} lines, {now['bytes']:,}/"
                f"{CLAUDE_MAX_BYTES:,} bytes"
                + (" (over: see `pokayokay status`)" if now["over"] else ""),
            )
            if now["over"] and now.get("notes_over"):
                _check(checks, "problem", "budgets", notes_over_line(now))
            for item in data.get("free_text_in_sections", []):
                _check(
                    checks,
                    "warn",
                    "MEMORY.md",
                    f"line {item['line']} inside {item['section']} is free text, not an entry: "
                    "it counts against the section's budget and is never archived; moving it "
                    f"out of the section keeps it safe ({item['text'][:60]})",
                )
            fixes = "`pokayokay curate` fixes it" if data["due"] else "curate cannot move it"
            for sec in now["sections"]:
                if sec["over"]:
                    _check(
                        checks,
                        "warn",
                        "budgets",
                        f"{sec['title']} {sec['lines']}/{sec['budget']} lines: {fixes}",
                    )

    _check_secrets(checks, location)
    if reported is None:
        from pokayokay.learnings.topics.stored import load_learnings

        reported = (recall_line(load_learnings(location.memory_dir)[0]), skills_line(project))
    _check(checks, "ok", "recall", reported[0])
    _check(checks, "ok", "skills", reported[1])
    _check_dense(checks)
    _check_leftovers(checks)

    from pokayokay.rules.lint import lint

    try:
        findings = lint(project)
    except Exception as exc:
        logs.log_exception("doctor: rules lint", exc)
        _check(checks, "problem", "rules", f"cannot lint .claude/rules/: {exc}")
    else:
        if findings:
            for finding in findings[:10]:
                _check(checks, "warn", "rules", f"{finding.rule}: {finding.message}")
        else:
            _check(checks, "ok", "rules", "no frontmatter Claude Code would mis-load")
    _check_store(checks, location)
    _check_quarantine(checks)
    _check_team(checks, project, settings)

    from pokayokay.infra.state import private_folder

    home = state_home()
    try:
        private_folder(home)
        probe = home / f".doctor-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        _check(checks, "ok", "state folder", str(home))
    except OSError as exc:
        _check(checks, "problem", "state folder", f"{home} is not writable: {exc}")

    ok = not any(c["level"] == "problem" for c in checks)
    return {"ok": ok, "checks": checks, "memory_dir": str(location.memory_dir)}


def _check_store(checks: list[dict[str, Any]], location: MemoryLocation) -> None:
    import sqlite3
    from datetime import datetime, timezone

    from pokayokay.failures.store_files import moved_aside
    from pokayokay.infra.state import project_state_dir

    db = project_state_dir(str(location.project_key)) / FAILURES_DB
    for aside in moved_aside(db):
        when = aside.name.rsplit("-", 1)[-1]
        stamp = (
            datetime.fromtimestamp(int(when), timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            if when.isdigit()
            else "an earlier run"
        )
        detail = (
            f"THE FAILURE STORE WAS CORRUPT: on {stamp} {db.name} was not a readable SQLite "
            f"database, so it was moved aside to {aside} and a fresh, empty store was started; "
            "the failures recorded before that are only in the old file (delete it once you "
            "have looked at it)"
        )
        logs.log(f"doctor: {detail}")
        _check(checks, "problem", "failure store", detail)
    if not db.exists():
        _check(checks, "ok", "failure store", f"{db}: no failures recorded yet")
        return
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        _check(checks, "problem", "failure store", f"{db}: {exc}")
        return
    level = "ok" if verdict == "ok" else "problem"
    _check(checks, level, "failure store", f"{db}: integrity {verdict}")


def _check_team(checks: list[dict[str, Any]], project: Path, settings: Settings) -> None:
    """Team memory: the writers' files read, each skipped file or refused line one warning."""
    from pokayokay.team.files import read_team
    from pokayokay.team.stamp import TEAM_DIR

    if not settings.team:
        return
    files = read_team(project)
    for line in files.problems:
        _check(checks, "warn", "team", line)
    taken = sum(len(r) for r in files.records.values())
    _check(checks, "ok", "team", f"{TEAM_DIR}: {counted(len(files.records), 'writer')}, "
           f"{counted(taken, 'record')} read, {counted(files.refused, 'line')} refused")


def _check_quarantine(checks: list[dict[str, Any]]) -> None:
    from pokayokay.infra.spool_quarantine import report_lines

    lines = report_lines()
    for line in lines or ["no spooled tool call was kept aside"]:
        _check(checks, "warn" if lines else "ok", "spool", line)


def _check_secrets(checks: list[dict[str, Any]], location: MemoryLocation) -> None:
    """What looks like a secret in the memory folder's markdown files (MEMORY.md, topic and
    archive files): each place a warning, by file, line and kind, never the value; at most
    :data:`SECRETS_LISTED` by name. pokayokay never edits those lines (``memory/secrets``)."""
    from pokayokay.memory.secrets import secret_lines

    try:
        files = sorted(location.memory_dir.glob("*.md"))[:SECRET_FILES]
    except OSError:  # no memory folder to read: the memory-folder check above says so
        return
    found: list[str] = []
    for path in files:
        try:
            with open(path, "rb") as fh:
                data = fh.read(SECRET_FILE_BYTES)
        except OSError:  # gone or unreadable since the listing: nothing of it can be shown
            continue
        for number, kinds in secret_lines(data.decode("utf-8", "replace")):
            found.append(f"{path.name}:{number}: {', '.join(kinds)}")
    if not found:
        _check(checks, "ok", "memory secrets", f"none found in {counted(len(files), 'file')}")
        return
    for place in found[:SECRETS_LISTED]:
        _check(checks, "warn", "memory secrets", place)
    if len(found) > SECRETS_LISTED:
        _check(checks, "warn", "memory secrets", f"and {len(found) - SECRETS_LISTED} more")
    _check(
        checks,
        "warn",
        "memory secrets",
        f"{location.memory_dir}: Claude Code reads these files into sessions (MEMORY.md into "
        "every one); pokayokay never edits your text: remove each secret by hand, and rotate it",
    )


def _check_dense(checks: list[dict[str, Any]]) -> None:
    """With ``pokayokay[dense]`` installed and on: whether its model can run (decision 0181)."""
    from pokayokay.relevance.dense.client import installed, turned_off

    if turned_off() or not installed():
        return  # the skills line says so
    from pokayokay.relevance.dense.model import check

    problem = check()
    if problem is None:
        _check(checks, "ok", "dense", "the model's file is the published one, and it can run")
    else:
        _check(checks, "problem", "dense", f"the dense opinion cannot run: {problem}")


def _check_leftovers(checks: list[dict[str, Any]]) -> None:
    """The retired semantic recall's derived files, each with its size, and the command that
    deletes them: a warning, never a problem (decision 0142)."""
    from pokayokay.recall.semantic_leftovers import leftover_line, leftovers, size_text

    found = leftovers()
    line = leftover_line(found)
    if line is None:
        return
    for item in found[:LEFTOVERS_LISTED]:
        _check(checks, "warn", "semantic leftovers", f"{item.path}: {item.what}, "
               f"{size_text(item.size)}")  # fmt: skip
    if len(found) > LEFTOVERS_LISTED:
        more = found[LEFTOVERS_LISTED:]
        size = size_text(sum(item.size for item in more))
        _check(checks, "warn", "semantic leftovers", f"and {len(more)} more ({size})")
    _check(checks, "warn", "semantic leftovers", line)


def render_doctor(data: dict[str, Any]) -> str:
    marks = {"ok": "ok  ", "warn": "warn", "problem": "FAIL"}
    out = [f"[{marks[c['level']]}] {c['check']}: {c['detail']}" for c in data["checks"]]
    out.append("")
    out.append("everything is wired" if data["ok"] else "problems found (see FAIL lines)")
    return "\n".join(out)
