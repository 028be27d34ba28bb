"""`pokayokay recall "<query>" [--json]`: what the prompt hook would inject for a query, with the
near misses below the floor and the size of the corpus."""

from __future__ import annotations

import json

from pokayokay.recall import block as recall_block
from pokayokay.recall.sources import corpus_counts, load
from pokayokay.relevance.note_index import Index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def _hit_data(hit: Any) -> dict[str, Any]:
    from pokayokay.recall.block import safe_text

    doc = hit.doc
    return {
        "id": doc.id,
        "kind": doc.kind,
        "label": doc.label,
        "score": round(hit.score, 4),
        "text": doc.text if doc.clean else safe_text(doc.text),
    }


def recall_cli(
    query: str,
    project_dir: Path,
    *,
    as_json: bool,
    memory_dir: Path | None = None,
) -> tuple[int, str]:
    """What the prompt hook would inject for ``query``: the exit code and the text to print.

    Plain output is the block exactly as injected, or one line saying that nothing would be
    (with the best score below the floor). ``--json`` adds the scores of the near misses below
    the floor and the size of the corpus. Exit 0 either way; an empty query raises
    :class:`pokayokay.errors.PokayokayError` (exit 2 through the CLI's error boundary).
    """
    from pathlib import Path

    from pokayokay.infra.locate import resolve_memory_location
    from pokayokay.infra.state import project_state_dir
    from pokayokay.relevance import note_index as core

    if not query.strip():
        from pokayokay.errors import PokayokayError

        raise PokayokayError('recall needs a query, e.g. pokayokay recall "run the migrations"')
    location = resolve_memory_location(Path(project_dir), memory_dir=memory_dir)
    state_dir = project_state_dir(str(location.project_key))
    index = load(location.memory_dir, location.project_dir, state_dir, budget=60.0).index
    if index is None:
        index = Index.build([])
    result = core.recall(index, query, near_misses=core.NEAR_MISSES)
    block = recall_block.block(result.hits)
    if as_json:
        data = {
            "query": query,
            "memory_dir": str(location.memory_dir),
            "method": core.METHOD,
            "floor": core.FLOOR,
            "top_k": core.TOP_K,
            "budget": recall_block.BUDGET,
            "corpus": corpus_counts(index),
            "injected": bool(block),
            "additionalContext": block,
            "hits": [_hit_data(h) for h in result.hits],
            "near_misses": [_hit_data(h) for h in result.near_misses],
        }
        return 0, json.dumps(data, indent=2, ensure_ascii=False)
    if block:
        return 0, block
    if not len(index):
        where = location.memory_dir
        return 0, f"Nothing would be injected: no learnings, decisions or fixes for {where}."
    best = result.near_misses[0] if result.near_misses else None
    tail = f" (best: {best.score:.2f}, {best.doc.id})" if best else " (no note shares a word)"
    return 0, f"Nothing would be injected: no note scored at least {core.FLOOR:.2f}{tail}."
