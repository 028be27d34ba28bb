"""``pokayokay skills``: the skills visible in a project and how a user might ask for each
(:mod:`pokayokay.skills.asked`, decision 0176); ``/skill-phrases`` drives it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from pokayokay.skills.catalog import Catalog

HELP = "the skills visible here, and how a user might ask for each (/skill-phrases)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pokayokay.cli.learnings import add_text_arguments
    from pokayokay.cli.phrases import add_phrase_arguments

    add_text_arguments(
        parser,
        "with --asked NAME: the phrases, one per argument ('-' or --stdin: one per line of "
        "standard input)",
        "with --asked: read the phrases from standard input",
    )
    add_phrase_arguments(
        parser,
        "skills",
        "add how a user might ask for the skill NAME (matched by skill suggestion, never shown)",
        "list the skills Claude may invoke that have no phrases yet, with their descriptions",
    )
    parser.add_argument(
        "--reply",
        action="store_true",
        help="answer for the /skill-phrases slash command: every outcome on standard output, "
        "exit 0",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable listing")


def _listing(catalog: Catalog, unasked_only: bool, limit: int, as_json: bool) -> str:
    import json

    from pokayokay.skills.asked import asked_for, read_table, unasked

    table = read_table()
    if unasked_only:
        from pokayokay.cli.phrases import unasked_lines

        missing = unasked(catalog, table)
        if as_json:
            shown = missing[: max(limit, 0)]
            return json.dumps(
                {
                    "unasked": [{"name": s.name, "description": s.description} for s in shown],
                    "more": len(missing) - len(shown),
                },
                indent=2,
                ensure_ascii=False,
            )
        entries = [(s.name, s.description, ()) for s in missing]
        return "\n".join(
            unasked_lines("skill", "the description its SKILL.md gives", entries, limit)
        )
    rows = [(s, asked_for(table, s.name, s.description)) for s in catalog]
    if as_json:
        listed = [
            {"name": s.name, "source": s.source, "invocable": s.model_invocable, "asked": list(a)}
            for s, a in rows
        ]
        return json.dumps(listed, indent=2, ensure_ascii=False)
    if not rows:
        return "No skill is visible in this project."
    return "\n".join(
        f"{s.name} ({s.source}): "
        + (f"{len(a)} phrase(s)" if a else "no phrases" if s.model_invocable else "not invocable")
        for s, a in rows
    )


def run_command(ns: argparse.Namespace, project: Path) -> int:
    """``pokayokay skills``: list, or add phrases (module docstring)."""
    from pokayokay.errors import EXIT_USAGE
    from pokayokay.skills.asked import add_asked
    from pokayokay.skills.catalog import load_catalog

    catalog = load_catalog(project)
    if ns.asked is None and ns.asked_from is None:
        print(_listing(catalog, ns.unasked, ns.limit, ns.json))
        return 0
    from pokayokay.cli.phrases import read_batch, redacted_line, write_answer
    from pokayokay.errors import PokayokayError
    from pokayokay.infra.safe_write import Conflict

    try:
        if ns.asked_from is not None:
            given = read_batch(ns.asked_from)
        else:
            from pokayokay.cli.learnings import input_text

            given = {ns.asked: input_text(ns, "\n")}
        result = add_asked(given, catalog)
    except (PokayokayError, OSError, ValueError, Conflict) as exc:  # a batch that is not one,
        # the lock held too long, a folder where the table should be
        write_answer([f"Nothing added: {exc or type(exc).__name__}."], True, ns.reply)
        return 0 if ns.reply else EXIT_USAGE
    failed = result.exit_code != 0
    write_answer([result.message, *redacted_line(result.redacted)], failed, ns.reply)
    return 0 if ns.reply else result.exit_code
