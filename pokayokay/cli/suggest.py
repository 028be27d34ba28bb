"""pokayokay suggest: the skills that fit a prompt and why, as text or JSON (the same advice the
UserPromptSubmit hook gives)."""

from __future__ import annotations

import os

from pokayokay.skills.suggest import FLOOR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def suggest_cli(
    prompt: str,
    project_dir: str | os.PathLike[str],
    *,
    paths: Sequence[str] = (),
    as_json: bool = False,
) -> tuple[int, str]:
    """``pokayokay suggest "<prompt>" [--paths ...] [--json]``: the same advice the hook gives."""
    import json
    from pathlib import Path

    from pokayokay.skills.advice import advice_for

    project = Path(os.path.abspath(os.fspath(project_dir)))
    advice = advice_for(project, prompt, paths=tuple(p.strip() for p in paths if p.strip()))
    if as_json:
        data = {
            "floor": FLOOR,
            "suggestions": [
                {"skill": s.name, "score": s.score, "reasons": s.reasons}
                for s in advice.suggestions
            ],
            "spike": None
            if advice.spike is None
            else {
                "date": advice.spike.day,
                "question": advice.spike.question,
                "verdict": advice.spike.verdict,
                "conclusion": advice.spike.conclusion,
            },
            "rules": [{"rule": r, "path": p} for r, p in advice.rules],
            "failures": list(advice.failures),
            "context": advice.text(),
        }
        return 0, json.dumps(data, indent=2)
    return 0, advice.text() or f"nothing clears the relevance bar ({FLOOR}); the hook stays silent"
