"""What ``pokayokay team status``, ``report`` and ``doctor`` say about team memory (pure).

:func:`team_figures` turns the team's evidence into figures: the writers (by id only), each
mistake with its teammates and sessions, and what graduates next — the mistakes one session or
one teammate short of the team rule (docs/decisions/0112).
"""

from __future__ import annotations

from dataclasses import dataclass

from pokayokay.team.aggregate import TeamEvidence, graduating

__all__ = ["MistakeFigures", "TeamFigures", "render_status", "team_figures"]


@dataclass(frozen=True)
class MistakeFigures:
    mistake: str
    category: str
    teammates: int
    sessions: int
    graduates: bool  # the team rule graduates it now
    next: bool  # one session or one teammate short


@dataclass(frozen=True)
class TeamFigures:
    writer: str  # this user's writer id
    writers: tuple[str, ...]  # every writer with a file, sorted
    mistakes: tuple[MistakeFigures, ...]  # most teammates, then most sessions, first
    retired: int  # mistakes a teammate retired
    threshold: int
    teammates: int  # k
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "writer": self.writer,
            "writers": list(self.writers),
            "threshold": self.threshold,
            "teammates": self.teammates,
            "retired": self.retired,
            "mistakes": [m.__dict__ for m in self.mistakes],
            "problems": list(self.problems),
        }


def team_figures(
    evidence: TeamEvidence,
    *,
    writer: str,
    writers: tuple[str, ...],
    threshold: int,
    teammates: int,
    problems: tuple[str, ...] = (),
    graduated: frozenset[str] | None = None,
) -> TeamFigures:
    """``graduated``: the mistakes the project's plan carries in rules
    (:func:`pokayokay.team.plan.project_plan`, which also honours retirements); without it,
    the team rule's verdict alone."""
    now = graduating(evidence, threshold, teammates) if graduated is None else graduated
    rows = []
    for group in evidence.groups:
        who = evidence.teammates.get(group.signature, 0)
        graduates = group.signature in now
        near = not graduates and (group.sessions == threshold - 1 or who == teammates - 1)
        rows.append(MistakeFigures(group.signature, group.category, who, group.sessions,
                                   graduates, near))
    rows.sort(key=lambda m: (-m.teammates, -m.sessions, m.mistake))
    return TeamFigures(writer, tuple(sorted(writers)), tuple(rows), len(evidence.retired),
                       threshold, teammates, problems)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_status(figures: TeamFigures, *, enabled: bool, limit: int = 20) -> str:
    out = []
    if not enabled:
        out.append("team memory is off here (`team: true` in .claude/pokayokay.md turns it on)")
    you = figures.writer
    shown = [f"{w} (you)" if w == you else w for w in figures.writers]
    out.append(f"writers: {_plural(len(figures.writers), 'writer')}"
               + (f": {', '.join(shown)}" if shown else ""))
    out.append(
        f"a mistake graduates at {_plural(figures.threshold, 'session')} across the team, or "
        f"when {_plural(figures.teammates, 'teammate')} hit it"
    )
    if figures.retired:
        out.append(f"retired by a teammate: {_plural(figures.retired, 'mistake')}")
    if not figures.mistakes:
        out.append("no team evidence yet")
    for m in figures.mistakes[:limit]:
        flag = "RULE" if m.graduates else "NEXT" if m.next else "    "
        out.append(f"  {flag} {_plural(m.teammates, 'teammate')}, "
                   f"{_plural(m.sessions, 'session')}  {m.category:<12} {m.mistake}")
    if len(figures.mistakes) > limit:
        out.append(f"  … and {len(figures.mistakes) - limit} more")
    nxt = [m.mistake for m in figures.mistakes if m.next]
    out.append("graduates next: " + (", ".join(nxt[:5]) if nxt else "nothing is one step short"))
    for line in figures.problems:
        out.append(f"skipped: {line}")
    return "\n".join(out)
