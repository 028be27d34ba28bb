"""What `status` and `doctor` print: data first (for --json), then text renderings."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from pokayokay.infra import logs
from pokayokay.infra.locate import MemoryLocation
from pokayokay.install import scan
from pokayokay.memory.apply import CurationOutcome, run_curation
from pokayokay.memory.outcome_view import curation_lines, curation_summary
from pokayokay.memory.sections import CLAUDE_MAX_BYTES, CLAUDE_MAX_LINES, Settings
from pokayokay.names import FAILURES_DB


def to_json(data: Any) -> str:
    """The JSON of a report, every string in it redacted (:mod:`pokayokay.safety.redact`)."""
    from pokayokay.safety.redact import redact_tree

    plain = json.loads(json.dumps(data, default=str))
    return json.dumps(redact_tree(plain), indent=2, ensure_ascii=False)


def status(location: MemoryLocation, settings: Settings) -> dict[str, Any]:
    outcome = run_curation(location, settings, write=False, lock_timeout=2.0)
    data = curation_summary(outcome)
    data["location_source"] = location.source
    data["archives"] = []
    for spec in settings.sections:
        path = location.memory_dir / spec.archive
        if path.is_file():
            text = path.read_text("utf-8", "replace")
            data["archives"].append({"name": spec.archive, "lines": text.count("\n")})
    data["due"] = curation_lines(outcome) if outcome.changed else []
    data["free_text_in_sections"] = free_text(outcome, settings)
    data.update(_beyond_memory(location, settings))
    return data


def _beyond_memory(location: MemoryLocation, settings: Settings) -> dict[str, Any]:
    """Rules with their evidence, recurring failures and learnings, for `status` (each best
    effort)."""
    from pokayokay.rules.rule_evidence import project_rule_evidence

    out: dict[str, Any] = {"rules": [], "near_threshold": [], "learnings": 0}
    project = location.project_dir
    found = None
    try:
        from pokayokay.team.plan import project_plan

        # the one plan `failures`, `report` and `team status` read too (the team's in team mode)
        found = project_plan(project, location, settings)
        team_groups = found.groups if found.team else None
        evidence, _ = project_rule_evidence(project, location.project_key, team_groups)
    except Exception as exc:  # a damaged store is doctor's business, not status's
        from pokayokay.rules.files import discover
        from pokayokay.rules.rule_evidence import rule_evidence

        logs.log_exception("status: reading rule evidence", exc)
        out["store_problem"] = f"{type(exc).__name__}: {exc}"
        evidence = rule_evidence(discover(project), [], {})
    out["rules"] = [item.as_dict() for item in evidence]
    if found is not None:
        threshold = settings.graduation_threshold
        k = settings.graduation_teammates
        out["near_threshold"] = [
            {"category": g.category, "sessions": g.sessions, "excerpt": g.excerpt or g.signature}
            | ({"teammates": found.teammates.get(g.signature, 0)} if found.team else {})
            for g in found.groups
            if not found.has_graduated(g)
            and (
                g.sessions == threshold - 1
                or (found.team and found.teammates.get(g.signature, 0) == k - 1)
            )
        ]
        if found.team:
            out["team"] = True
    out["learnings"] = sum(1 for _ in location.memory_dir.glob("learning-*.md"))
    try:
        from pokayokay.learnings.topics.stored import contradicting_learnings

        out["contradictions"] = contradicting_learnings(location.memory_dir)
    except Exception as exc:  # a damaged learning file is doctor's business, not status's
        logs.log_exception("status: comparing the learnings", exc)
    try:
        from datetime import datetime, timezone

        from pokayokay.learnings.capture.capture_metrics import capture_metrics
        from pokayokay.learnings.topics.stored import load_learnings

        stored, _ = load_learnings(location.memory_dir)
        now = datetime.now(timezone.utc)
        out["capture"] = capture_metrics((s.learning for s in stored), now)
    except Exception as exc:  # measures never cost the status
        logs.log_exception("status: capture measures", exc)
    out["recall"] = recall_line(location.memory_dir)
    out["skills"] = skills_line(project)
    from pokayokay.recall.semantic_leftovers import leftover_line, leftovers

    left = leftovers()
    if left:
        out["semantic_leftovers"] = {
            "line": leftover_line(left),
            "files": [{"path": f.path, "bytes": f.size, "what": f.what} for f in left],
        }
    return out


def recall_line(memory_dir: Path) -> str:
    """What recall decides with, for ``status`` and ``doctor``: the shipped relevance gates (a
    learning carrying ``asked`` phrases has its own, decision 0175), and how many of the
    learnings in ``memory_dir`` carry them."""
    from pokayokay.relevance.fitted import RECALL, RECALL_ASKED, gate_name

    line = f"lexical; relevance gates {gate_name(RECALL)}, {gate_name(RECALL_ASKED)}"
    try:
        from pokayokay.learnings.topics.stored import load_learnings

        stored, _problems = load_learnings(memory_dir)
    except OSError as exc:
        return f"{line}; the learnings could not be read ({exc})"
    if not stored:
        return line
    asked = sum(1 for s in stored if s.learning.asked)
    rest = (
        " (/learning-phrases writes the rest: /pokayokay:learning-phrases with the plugin; "
        "`pokayokay init` installs it)"
        if asked < len(stored)
        else ""
    )
    return (
        f"{line}; {asked} of {len(stored)} learnings carry how a teammate might ask for them"
        f"{rest}"
    )


def skills_line(project: Path) -> str:
    """What skill suggestion decides with, for ``status`` and ``doctor``: the shipped gates,
    and how many of the skills visible in ``project`` carry how a user might ask for them
    (decision 0176)."""
    from pokayokay.relevance.fitted import SKILLS, SKILLS_ASKED, gate_name
    from pokayokay.skills.asked import read_table, unasked
    from pokayokay.skills.catalog import load_catalog

    line = f"lexical; relevance gates {gate_name(SKILLS)}, {gate_name(SKILLS_ASKED)}"
    try:
        catalog = load_catalog(project)
    except OSError as exc:
        return f"{line}; the skills could not be listed ({exc})"
    invocable = [s for s in catalog if s.model_invocable and s.description]
    if not invocable:
        return f"{line}; no skill is visible here"
    missing = len(unasked(invocable, read_table()))
    asked = len(invocable) - missing
    rest = (
        " (/skill-phrases writes the rest: /pokayokay:skill-phrases with the plugin; "
        "`pokayokay init` installs it)"
        if missing
        else ""
    )
    return f"{line}; {asked} of {len(invocable)} skills carry how a user might ask for them{rest}"


# ``doctor`` lists at most this many of the retired semantic recall's leftovers by name.
LEFTOVERS_LISTED = 10
# ``doctor`` looks for secrets in at most this many memory files, this much of each, and lists
# at most this many places.
SECRET_FILES = 200
SECRET_FILE_BYTES = 1 << 20
SECRETS_LISTED = 10


def free_text(outcome: CurationOutcome, settings: Settings) -> list[dict[str, Any]]:
    """Lines Claude wrote inside managed sections (no entry): line, section, text."""
    from pokayokay.memory.document import free_text_in_sections, parse

    if outcome.result is None:
        return []
    found = free_text_in_sections(parse(outcome.result.original, settings.sections))
    return [{"section": f.section, "line": f.line, "text": f.text[:120]} for f in found]


def notes_over_line(stat: dict[str, Any]) -> str:
    """What status and doctor say when Claude's own notes alone pass the load limit."""
    return (
        f"Claude's own notes alone are over the limit ({stat['fixed_lines']} lines / "
        f"{stat['fixed_bytes']:,} bytes outside pokayokay's entries): `pokayokay curate` "
        "archives none of its entries for that and adds no section past the cut, since neither "
        "would help; moving detail into topic files linked from MEMORY.md fixes it"
    )


def render_status(data: dict[str, Any]) -> str:
    out = [
        f"MEMORY.md  {data['memory_file']}",
        f"  (memory folder from: {data['location_source']})",
    ]
    if not data["exists"]:
        out.append("  no MEMORY.md yet: `pokayokay init` creates it")
        return "\n".join(out)
    now = data["before"]
    verdict = "OVER Claude Code's load limit" if now["over"] else "ok"
    out.append(
        f"  whole file  {now['lines']} / {now['max_lines']} lines  "
        f"{now['bytes']:,} / {now['max_bytes']:,} bytes  {verdict}"
    )
    unmanaged = now["unmanaged_lines"]
    out.append(f"  notes outside managed sections: {unmanaged} line{'' if unmanaged == 1 else 's'}")
    if now.get("notes_over"):
        out.append(f"  {notes_over_line(now)}")
    for item in data.get("free_text_in_sections", []):
        out.append(
            f"  free text inside {item['section']} (line {item['line']}, not an entry: counts "
            f"against the budget, never archived): {item['text']}"
        )
    out.append("")
    out.append(f"  {'section':<22}{'lines':>6}{'budget':>8}{'entries':>9}")
    for sec in now["sections"]:
        if not sec["present"]:
            out.append(
                f"  {sec['title']:<22}{'-':>6}{sec['budget']:>8}{'-':>9}   no entry yet"
            )
            continue
        flag = ""
        if sec["lines"] > sec["budget"]:
            flag = f"   over by {sec['lines'] - sec['budget']}"
        elif sec["max_entries"] is not None and sec["entries"] > sec["max_entries"]:
            flag = f"   over the {sec['max_entries']}-entry cap"
        entries = f"{sec['entries']}" + (f"/{sec['max_entries']}" if sec["max_entries"] else "")
        out.append(f"  {sec['title']:<22}{sec['lines']:>6}{sec['budget']:>8}{entries:>9}{flag}")
    if data["archives"]:
        out.append("")
        out.append(
            "  archives: "
            + ", ".join(f"{a['name']} ({a['lines']} lines)" for a in data["archives"])
        )
    out.append("")
    if data["due"]:
        out.append("  `pokayokay curate` would:")
        out.extend(f"    {line}" for line in data["due"])
    else:
        out.append("  nothing to curate")
    out.extend(f"  note: {note}" for note in data.get("notes", []))
    out.append("")
    rules = data.get("rules", [])
    ours = sum(1 for r in rules if r["pokayokay"])
    out.append(f"  rules: {len(rules)} in .claude/rules/ ({ours} graduated by pokayokay)")
    for rule in rules:
        if rule["pokayokay"]:
            out.extend(f"    {line}" for line in _rule_lines(rule))
    for group in data.get("near_threshold", []):
        sessions = group["sessions"]
        who = group.get("teammates")
        by = "" if who is None else f" by {who} teammate{'' if who == 1 else 's'}"
        out.append(
            f"  near the graduation threshold: {group['category']} failure seen{by} in "
            f"{sessions} session{'' if sessions == 1 else 's'} — {group['excerpt']}"
        )
    if data.get("store_problem"):
        out.append(f"  failure store: {data['store_problem']}")
    out.append(f"  learnings: {data.get('learnings', 0)} (pokayokay remember / /remember)")
    if data.get("recall"):
        out.append(f"  recall: {data['recall']}")
    if data.get("skills"):
        out.append(f"  skills: {data['skills']}")
    if data.get("semantic_leftovers"):
        out.append(f"  {data['semantic_leftovers']['line']}")
    for line in data.get("contradictions", []):
        out.append(f"    contradiction, both kept: {line}")
    capture = data.get("capture")
    if capture:
        share = capture["capture_share"]
        shown = "-" if share is None else f"{share}%"
        out.append(
            f"  session captures: {capture['session_captures']} of {capture['learnings']} "
            f"learnings ({shown}; goal at most {capture['capture_share_goal']:g}%), "
            f"{capture['captures_last_7_days']} in the last 7 days "
            f"(goal at least {capture['captures_weekly_goal']})"
        )
    return "\n".join(out)


def _day(ts: float | None) -> str:
    from datetime import datetime, timezone

    return "-" if ts is None else datetime.fromtimestamp(ts, timezone.utc).date().isoformat()


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _rule_lines(rule: dict[str, Any]) -> list[str]:
    """A graduated rule in `status`: where it loads, the failures behind it, what loading did."""
    scope = ", ".join(rule["paths"]) if rule["paths"] else "always loaded"
    lines = [f"{rule['rule']}: {scope}"]
    if rule["signatures"] and rule["last_seen"] is not None:
        lines.append(
            f"  evidence: failed in {_count(rule['failure_sessions'], 'session')}, "
            f"last seen {_day(rule['last_seen'])}"
        )
    if rule["paths"] is not None:
        loads = (
            f"loaded {_times(rule['loads'])} in "
            f"{_count(rule['load_sessions'], 'session')}"
        )
        if rule["verdict"] == "recurred":
            loads += (
                f"; the failure came back {_times(rule['recurrences_after_loading'])} "
                "after loading"
            )
        elif rule["verdict"] == "holding":
            loads += "; no recurrence since"
        lines.append(f"  {loads}")
    if rule.get("stale"):
        lines.append(
            f"  stale: {rule['stale']}; retired at the next session end "
            "(or now: `pokayokay rules retire --due`)"
        )
    return lines


# -- doctor ---------------------------------------------------------------------------------------
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

    if memory_file.exists():
        try:
            data = status(location, settings)
        except Exception as exc:  # report, don't crash the doctor
            logs.log_exception("doctor: budgets", exc)
            _check(checks, "problem", "budgets", f"cannot curate: {exc}")
        else:
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
    _check(checks, "ok", "recall", recall_line(location.memory_dir))
    _check(checks, "ok", "skills", skills_line(project))
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
    _check(checks, "ok", "team", f"{TEAM_DIR}: {_count(len(files.records), 'writer')}, "
           f"{_count(taken, 'record')} read, {_count(files.refused, 'line')} refused")


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
        _check(checks, "ok", "memory secrets", f"none found in {_count(len(files), 'file')}")
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
