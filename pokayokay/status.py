"""What `status` prints: data first (for --json), then the text rendering; the lines `doctor`
(:mod:`pokayokay.doctor`) shares with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokayokay.infra import logs
from pokayokay.infra.locate import MemoryLocation
from pokayokay.memory.apply import CurationOutcome, run_curation
from pokayokay.memory.outcome_view import curation_lines, curation_summary
from pokayokay.memory.sections import Settings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pokayokay.learnings.topics.stored import StoredLearning


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
    stored: list[StoredLearning] | None = None
    try:
        from datetime import datetime, timezone

        from pokayokay.learnings.capture.capture_metrics import capture_metrics
        from pokayokay.learnings.topics.stored import load_learnings

        stored, _ = load_learnings(location.memory_dir)
        now = datetime.now(timezone.utc)
        out["capture"] = capture_metrics((s.learning for s in stored), now)
    except Exception as exc:  # measures never cost the status
        logs.log_exception("status: capture measures", exc)
    out["recall"] = recall_line(stored)
    out["skills"] = skills_line(project)
    from pokayokay.recall.semantic_leftovers import leftover_line, leftovers

    left = leftovers()
    if left:
        out["semantic_leftovers"] = {
            "line": leftover_line(left),
            "files": [{"path": f.path, "bytes": f.size, "what": f.what} for f in left],
        }
    return out


def opinion_line(kind: str) -> str:
    """The opinions ``kind``'s decisions are taken with (the dense one when it can be had here,
    decision 0181) and the relevance gates that judge them: its own, its ``asked`` one, and
    their dense twins."""
    from pokayokay.relevance.dense.client import describe
    from pokayokay.relevance.fitted import ASKED_KIND, DENSE_KIND, gate_name

    usable, opinions = describe()
    kinds = [kind, ASKED_KIND[kind]]
    if usable:
        kinds += [DENSE_KIND[kind], ASKED_KIND[DENSE_KIND[kind]]]
    return f"{opinions}; relevance gates " + ", ".join(gate_name(k) for k in kinds)


def recall_line(stored: Sequence[StoredLearning] | None) -> str:
    """What recall decides with, for ``status`` and ``doctor``: the shipped relevance gates (a
    learning carrying ``asked`` phrases has its own, decision 0175), and how many of the
    ``stored`` learnings carry them, and how many fewer than /remember asks for (None: they could
    not be read)."""
    from pokayokay.relevance.fitted import RECALL

    line = opinion_line(RECALL)
    if stored is None:
        return f"{line}; the learnings could not be read (see the log)"
    if not stored:
        return line
    from pokayokay.relevance.asked import ASKED_ENOUGH

    asked = sum(1 for s in stored if s.learning.asked)
    few = sum(1 for s in stored if 0 < len(s.learning.asked) < ASKED_ENOUGH)
    rest = (
        " (/learning-phrases writes the rest: /pokayokay:learning-phrases with the plugin; "
        "`pokayokay init` installs it)"
        if asked < len(stored) or few
        else ""
    )
    fewer = f", {few} of them fewer than {ASKED_ENOUGH}" if few else ""
    return (
        f"{line}; {asked} of {len(stored)} learnings carry how a teammate might ask for them"
        f"{fewer}{rest}"
    )


def skills_line(project: Path) -> str:
    """What skill suggestion decides with, for ``status`` and ``doctor``: the lexical opinion,
    and the dense one when it can be had (decision 0181), the shipped gates, and how many of
    the skills visible in ``project`` carry how a user might ask for them (decision 0176)."""
    from pokayokay.relevance.fitted import SKILLS
    from pokayokay.skills.phrase_hint import unasked_here

    line = opinion_line(SKILLS)
    try:
        without, visible = unasked_here(project)
    except OSError as exc:
        return f"{line}; the skills could not be listed ({exc})"
    if not visible:
        return f"{line}; no skill is visible here"
    missing = len(without)
    asked = visible - missing
    rest = (
        " (/skill-phrases writes the rest: /pokayokay:skill-phrases with the plugin; "
        "`pokayokay init` installs it)"
        if missing
        else ""
    )
    return f"{line}; {asked} of {visible} skills carry how a user might ask for them{rest}"


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


def counted(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _rule_lines(rule: dict[str, Any]) -> list[str]:
    """A graduated rule in `status`: where it loads, the failures behind it, what loading did."""
    scope = ", ".join(rule["paths"]) if rule["paths"] else "always loaded"
    lines = [f"{rule['rule']}: {scope}"]
    if rule["signatures"] and rule["last_seen"] is not None:
        lines.append(
            f"  evidence: failed in {counted(rule['failure_sessions'], 'session')}, "
            f"last seen {_day(rule['last_seen'])}"
        )
    if rule["paths"] is not None:
        loads = (
            f"loaded {_times(rule['loads'])} in "
            f"{counted(rule['load_sessions'], 'session')}"
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
