"""The package's shape, checked from the source: the layering in docs/architecture.md, no
import cycles, small modules, and a pure core that does no I/O."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.paths import REPO_ROOT

# The source read as ast and text: the same on every Python (decision 0155).
pytestmark = pytest.mark.one_python

PACKAGE = REPO_ROOT / "pokayokay"
MAX_LINES = 600

# Lower layers never import higher ones (docs/architecture.md, "The dependency rule").
LAYERS: dict[str, int] = {
    "__init__": 0, "errors": 0, "names": 0,
    "infra": 1,
    "safety": 2,
    "memory": 3,
    "config": 4,
    "failures": 5,
    "rules": 6,
    "learnings": 7, "relevance": 7, "team": 7,
    "recall": 8,
    "skills": 9,
    "hooks": 10,
    "install": 11, "watch": 11, "demo": 11, "status": 11, "doctor": 11, "report": 11,
    "cli": 12,
    "__main__": 13,
}  # fmt: skip

# Text in, values out: no file system, processes, database or sockets (docs/architecture.md).
PURE = {
    "errors", "names",
    "safety.sanitize", "safety.redact", "safety.commands", "safety.exact", "safety.instructions",
    "safety.shown", "safety.redact_values", "safety.redact_flags", "safety.redact_blocks",
    "infra.markdown", "infra.lazyre", "infra.literals", "infra.lean_json", "infra.marshal_format",
    "infra.frontmatter",
    "infra.named_tuple",
    "infra.regex_safety", "infra.regex_budget", "infra.hook_output", "infra.private",
    "infra.spans", "infra",
    "memory.document", "memory.structure", "memory.sections", "memory.curation",
    "memory.eviction", "memory.invariants",
    "memory.commonmark", "memory.measures",
    "memory.unmanage", "memory.archives", "memory.oracle", "memory.empty_sections",
    "memory.secrets",
    "failures.model", "failures.schema", "failures.signature", "failures.said", "failures.classify",
    "failures.classify_literals",
    "failures.mistakes", "failures.corrections", "failures.fix_edits", "failures.pairing",
    "rules.claude_match", "rules.js_regex", "rules.js_text", "rules.globs", "rules.rule_text",
    "rules.evidence", "rules.teaching", "rules.graduation", "rules.memory_edit",
    "rules.mistake_kinds",
    "rules.effectiveness", "rules.families", "rules.staleness",
    "learnings.model", "learnings.wording", "learnings.aging.entries",
    "learnings.topics.topic_file", "learnings.consolidate.similarity",
    "learnings.consolidate.routing", "learnings.consolidate.splitting",
    "learnings.consolidate.consolidation", "learnings.consolidate.consolidation_config",
    "recall.block", "recall.turns",
    "relevance.note_index", "relevance.note_scores", "relevance.note_documents",
    "relevance.note_gating",
    "relevance.symptoms", "relevance.asks", "relevance.bm25", "relevance.tfidf",
    "relevance.postings", "relevance.evidence", "relevance.skill_match", "relevance.skill_gating",
    "skills.failure_boost", "skills.suggest",
    "skills.skill_frontmatter",
    "relevance.gate", "relevance.analyser", "relevance.scan", "relevance.scan_names",
    "relevance.concepts", "relevance.skill_terms",
    "relevance.own_words", "relevance.output_lines", "relevance.asked", "relevance.dense.texts",
    "rules.team_view",
    "team.records", "team.aggregate",
    "team.status",
    "hooks.events",
}  # fmt: skip
IO_MODULES = {"os", "subprocess", "sqlite3", "shutil", "tempfile", "fcntl", "socket", "glob"}
# Rendering a bundled template reads package data only: allowed in the pure core.
# So does reading a fitted relevance gate shipped beside its module (relevance/fitted.py), the
# prompt-level models beside theirs (relevance/calls.py, decision 0195), and the vocabulary files
# shipped beside theirs (relevance/vocabulary).
PURE_COMPATIBLE = {
    "infra.templating", "infra.resources", "relevance.fitted", "relevance.calls",
    "relevance.vocabulary",
}  # fmt: skip


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _type_checking_only(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports(path: Path, *, runtime_only: bool = True) -> Iterator[tuple[str, int, list[str]]]:
    """(module, line, imported names) for every import in PATH, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_only(tree) if runtime_only else set()
    here = path.relative_to(PACKAGE.parent).with_suffix("").parts
    for node in ast.walk(tree):
        if node.lineno in skip if hasattr(node, "lineno") else False:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(here[: len(here) - node.level])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            yield module, node.lineno, [alias.name for alias in node.names]


def internal_deps(path: Path, known: dict[str, Path]) -> set[str]:
    deps = set()
    for module, _, names in imports(path):
        if not module.startswith("pokayokay"):
            continue
        inner = module.removeprefix("pokayokay").lstrip(".")
        for name in names or [""]:
            candidate = f"{inner}.{name}".strip(".")
            deps.add(candidate if candidate in known else inner)
    return {dep for dep in deps if dep}


def layer(module: str) -> int:
    return LAYERS[module.split(".")[0]]


MODULES = modules()


def test_every_top_level_room_has_a_layer() -> None:
    assert {name.split(".")[0] for name in MODULES} <= set(LAYERS) | {""}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_lower_layers_never_import_higher_ones(module: str) -> None:
    if not module:
        return
    for dep in internal_deps(MODULES[module], MODULES):
        assert layer(dep) <= layer(module), f"{module} (layer {layer(module)}) imports {dep}"


def test_hooks_never_import_the_cli_or_the_installer() -> None:
    for module, path in MODULES.items():
        if module.startswith("hooks"):
            for dep in internal_deps(path, MODULES):
                forbidden = ("cli", "install", "watch", "status", "doctor")
                assert not dep.startswith(forbidden), (module, dep)


def test_no_import_cycles() -> None:
    graph = {module: internal_deps(path, MODULES) for module, path in MODULES.items() if module}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if dep == node or dep not in graph:
                continue
            if state.get(dep) == 1:
                cycle = [*stack[stack.index(dep) :], dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_the_top_level_stays_small_and_split_into_rooms() -> None:
    top_modules = [p for p in PACKAGE.glob("*.py")]
    subpackages = [p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()]
    assert len(top_modules) <= 12, sorted(p.name for p in top_modules)
    assert len(subpackages) >= 5


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_over_the_size_limit(module: str) -> None:
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{module} has {lines} lines; split it by responsibility"


@pytest.mark.parametrize("module", sorted(PURE))
def test_the_pure_core_does_no_io(module: str) -> None:
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for name, line, names in imports(path):
        top = name.split(".")[0]
        assert top not in IO_MODULES, f"{module}:{line} imports {name}"
        if top == "pathlib":
            assert all(n.startswith("Pure") for n in names), f"{module}:{line} imports {names}"
        if top == "pokayokay":
            dep = name.removeprefix("pokayokay").lstrip(".")
            targets = {f"{dep}.{n}" if f"{dep}.{n}" in MODULES else dep for n in names} or {dep}
            for target in targets:
                assert target in PURE | PURE_COMPATIBLE, f"{module}:{line} imports {target}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in {"open", "print", "input"}, f"{module}:{node.lineno}"
        if isinstance(node, ast.Attribute) and node.attr in {"read_text", "write_text", "open"}:
            raise AssertionError(f"{module}:{node.lineno} does file I/O ({node.attr})")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(module: str, path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, defining module, name) for each private name ``module`` takes from another module:
    ``from pokayokay.x import _y``, or ``x._y`` on a pokayokay module it imported."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    aliases: dict[str, str] = {}  # local name -> the pokayokay module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                source = ".".join(["pokayokay", *base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if not source.startswith("pokayokay"):
                continue
            for alias in node.names:
                inner = f"{source}.{alias.name}".removeprefix("pokayokay").lstrip(".")
                if inner in MODULES:
                    aliases[alias.asname or alias.name] = inner
                if _private(alias.name):
                    yield node.lineno, source.removeprefix("pokayokay").lstrip("."), alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("pokayokay.") and alias.asname:
                    aliases[alias.asname] = alias.name.removeprefix("pokayokay.")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not _private(node.attr):
            continue
        target = node.value
        if isinstance(target, ast.Name) and target.id in aliases:
            yield node.lineno, aliases[target.id], node.attr
        elif isinstance(target, ast.Attribute) and ast.unparse(target).startswith("pokayokay."):
            yield node.lineno, ast.unparse(target).removeprefix("pokayokay."), node.attr


def test_no_module_uses_another_modules_private_names() -> None:
    """A name used outside its module is public (renamed at its definition and documented):
    a leading underscore promises the module may change it without looking elsewhere."""
    found = [
        f"{module}:{line} uses {name!r} of {source}: make it public where it is defined"
        for module, path in MODULES.items()
        if module
        for line, source, name in private_uses(module, path)
        if source != module
    ]
    assert not found, "\n".join(found)


def private_library_imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, name) for each private module or name ``path`` imports from outside pokayokay:
    ``import _json``, ``from json import _x``, ``from re import _compiler`` (dunders aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.startswith("pokayokay"):
                continue
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            if any(_private(part) for part in name.split(".")):
                yield node.lineno, name


def test_no_module_imports_private_internals_of_the_interpreter_or_a_library() -> None:
    """docs/architecture.md: no module depends on private CPython internals (decisions 0009,
    0163): a private module such as ``_json`` may change in any release."""
    found = [
        f"{module}:{line} imports {name}"
        for module, path in MODULES.items()
        for line, name in private_library_imports(path)
    ]
    assert not found, "\n".join(found)


def test_the_private_internals_check_sees_each_form_of_import(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text(
        "import _json\nimport os, re._parser\nfrom re import _compiler\nfrom _sre import x\n"
        "from __future__ import annotations\nfrom .x import _y\nimport __main__\n",
        encoding="utf-8",
    )
    assert [name for _, name in private_library_imports(path)] == [
        "_json", "re._parser", "re._compiler", "_sre", "_sre.x",
    ]  # fmt: skip


def test_the_private_name_check_sees_each_form_of_use(tmp_path: Path) -> None:
    spikes, chain = "learnings.outcomes.spikes", "learnings.outcomes.chain"
    dotted = f"pokayokay.{spikes}"
    cases = {
        f"from {dotted} import _topic_lock\n": (spikes, "_topic_lock"),
        "from .spikes import _topic_lock\n": (spikes, "_topic_lock"),
        "from . import spikes\nspikes._topic_lock\n": (spikes, "_topic_lock"),
        "from pokayokay.learnings.outcomes import spikes as s\ns._topic_lock\n": (
            spikes,
            "_topic_lock",
        ),
        f"import {dotted} as s\ns._lock\n": (spikes, "_lock"),
        f"import {dotted}\n{dotted}._lock\n": (spikes, "_lock"),
    }
    for source, expected in cases.items():
        path = tmp_path / "chain.py"
        path.write_text(source, encoding="utf-8")
        assert [use[1:] for use in private_uses(chain, path)] == [expected], source
    path.write_text(f"from {dotted} import topic_lock, __all__\n", "utf-8")
    assert list(private_uses(chain, path)) == []


def test_the_documented_pure_core_is_the_checked_one() -> None:
    """docs/architecture.md's list under "The pure core" names exactly the modules PURE checks."""
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The pure core", 1)[1].split("The modules named", 1)[0]
    documented = {name.replace("/", ".") for name in re.findall(r"`([^`]+)`", section)}
    assert documented - PURE == set(), "documented as pure, not checked: add them to PURE"
    assert PURE - documented == set(), "checked as pure, not in docs/architecture.md's list"
