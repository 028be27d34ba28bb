"""What docs/architecture.md says about the code, checked from the source: every hook output
through one builder, one text codec for what is written, and no exception swallowed without a
word. Each check reads the claim's names from the page, so the page and the code move together."""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "pokayokay"
DOC = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
SOURCES = {
    path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8")
    for path in sorted(PACKAGE.rglob("*.py"))
}
TREES = {name: ast.parse(text) for name, text in SOURCES.items()}


def _claim(label: str) -> str:
    """The text of the shared-mechanism bullet ``**label**`` (up to the next bullet)."""
    match = re.search(rf"^- \*\*{re.escape(label)}\*\*:(.*?)(?=^- |\n\n)", DOC, re.M | re.S)
    assert match, f"docs/architecture.md no longer has the **{label}** bullet"
    return match[1]


def _comment_lines(text: str) -> set[int]:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return {token.start[0] for token in tokens if token.type == tokenize.COMMENT}


# --- hook output ---------------------------------------------------------------------------------


def _builder_module() -> str:
    match = re.search(r"`(\w+)/(\w+)\.hook_output\(", _claim("Hook output"))
    assert match, "the **Hook output** bullet names no `room/module.hook_output(` builder"
    return f"{match[1]}/{match[2]}.py"


def hook_output_builders(tree: ast.Module) -> Iterator[int]:
    """Lines building a ``hookSpecificOutput`` object: a dict key or a subscript assignment."""
    for node in ast.walk(tree):
        keys: list[ast.expr | None] = []
        if isinstance(node, ast.Dict):
            keys = list(node.keys)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            keys = [node.slice]
        elif isinstance(node, ast.Call) and any(
            k.arg == "hookSpecificOutput" for k in node.keywords
        ):
            yield node.lineno
        for key in keys:
            if isinstance(key, ast.Constant) and key.value == "hookSpecificOutput":
                yield node.lineno


@pytest.mark.one_python
def test_every_hook_output_is_built_by_the_documented_builder() -> None:
    builder = _builder_module()
    assert list(hook_output_builders(TREES[builder])), f"{builder} builds no hook output"
    elsewhere = [
        f"{name}:{line} builds a hookSpecificOutput itself: call {builder}'s hook_output"
        for name, tree in TREES.items()
        if name != builder
        for line in hook_output_builders(tree)
    ]
    assert not elsewhere, "\n".join(elsewhere)


@pytest.mark.one_python
def test_the_builder_check_sees_each_way_of_building_one() -> None:
    for source in (
        'x = {"hookSpecificOutput": {}}',
        'out["hookSpecificOutput"] = {}',
        "x = dict(hookSpecificOutput={})",
    ):
        assert list(hook_output_builders(ast.parse(source))) == [1], source
    assert list(hook_output_builders(ast.parse('x = out["hookSpecificOutput"]'))) == []


def test_the_builder_gives_what_claude_code_reads() -> None:
    from pokayokay.infra.hook_output import context_output, hook_output

    line = hook_output("PreToolUse", permissionDecision="deny", permissionDecisionReason="r\u00e9")
    assert line.endswith("\n") and line.count("\n") == 1
    assert json.loads(line) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "r\u00e9",
        }
    }
    text = 'a note\nwith `code` and "quotes"'
    assert json.loads(context_output("UserPromptSubmit", text)) == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}
    }


# --- one text codec ------------------------------------------------------------------------------


def strict_encodes(tree: ast.Module) -> Iterator[int]:
    """Lines encoding text as strict UTF-8: ``.encode()``, ``.encode("utf-8")`` with no error
    handler. (A call whose first argument is not a constant is some other ``encode``.)"""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "encode" or len(node.args) > 2:
            continue
        if node.args and not isinstance(node.args[0], ast.Constant):
            continue
        encoding = node.args[0].value if node.args else None  # type: ignore[attr-defined]
        errors = node.args[1] if len(node.args) > 1 else None
        for keyword in node.keywords:
            if keyword.arg == "encoding" and isinstance(keyword.value, ast.Constant):
                encoding = keyword.value.value
            elif keyword.arg == "errors":
                errors = keyword.value
        if errors is None and str(encoding).lower().replace("_", "-") in {"none", "utf-8", "utf8"}:
            yield node.lineno


@pytest.mark.one_python
def test_text_is_never_encoded_as_strict_utf8() -> None:
    claim = _claim("Writing a file Claude may be writing too")
    assert "`encode_text`" in claim and "strict UTF-8" in claim
    found = [
        f"{name}:{line} encodes text as strict UTF-8: use infra.safe_write.encode_text "
        '(or .encode("ascii") for text known to be ASCII)'
        for name, tree in TREES.items()
        for line in strict_encodes(tree)
    ]
    assert not found, "\n".join(found)


@pytest.mark.one_python
def test_the_codec_check_sees_each_strict_form() -> None:
    for source in (
        "t.encode()",
        't.encode("utf-8")',
        't.encode("UTF8")',
        't.encode(encoding="utf-8")',
    ):
        assert list(strict_encodes(ast.parse(source))) == [1], source
    for source in (
        't.encode("ascii")',
        't.encode("utf-8", "surrogateescape")',
        't.encode("utf-8", errors="replace")',
        "tokenizer.encode(text, vocab, 3)",
    ):
        assert list(strict_encodes(ast.parse(source))) == [], source


def test_the_one_codec_gives_back_the_bytes_it_read(tmp_path: Path) -> None:
    """Why strict UTF-8 is refused: a file name that is not UTF-8 decodes to a lone surrogate,
    which ``encode_text`` writes back as the same byte and ``.encode("utf-8")`` cannot write."""
    from pokayokay.infra.safe_write import decode_text, encode_text

    data = "caf\u00e9 ".encode() + b"\xff\xfe- name\n"
    text = decode_text(data, tmp_path / "MEMORY.md")
    assert encode_text(text) == data
    with pytest.raises(UnicodeEncodeError):
        text.encode("utf-8")


# --- no silent except ----------------------------------------------------------------------------

BROAD = {"Exception", "BaseException"}
LOGGERS = {"fail_open", "log_exception", "log"}


def _does_nothing(handler: ast.ExceptHandler) -> bool:
    return all(
        isinstance(stmt, (ast.Pass, ast.Continue, ast.Break))
        or (isinstance(stmt, ast.Return) and stmt.value is None)
        or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        for stmt in handler.body
    )


def _caught(handler: ast.ExceptHandler) -> set[str]:
    if handler.type is None:
        return {"BaseException"}
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {ast.unparse(each) for each in types}


def _logs_or_raises(handler: ast.ExceptHandler) -> bool:
    for node in (inner for stmt in handler.body for inner in ast.walk(stmt)):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            name = node.func.id if isinstance(node.func, ast.Name) else name
            if name in LOGGERS:
                return True
    return False


def silent_handlers(text: str) -> Iterator[tuple[int, str]]:
    """(line, what) for each handler that swallows without saying why: a handler that does
    nothing, a broad one that neither logs nor re-raises, a ``suppress``, and
    ``suppress(Exception)`` (never). The reason is a comment on the handler's own lines; for a
    ``suppress``, on its line, the line above it or its first body line."""
    comments = _comment_lines(text)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ExceptHandler):
            lines = range(node.lineno, (node.end_lineno or node.lineno) + 1)
            if any(line in comments for line in lines):
                continue
            if _does_nothing(node):
                yield node.lineno, "an except that does nothing"
            elif _caught(node) & BROAD and not _logs_or_raises(node):
                yield node.lineno, "a broad except that neither logs nor re-raises"
        elif isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if not (isinstance(call, ast.Call) and ast.unparse(call.func).endswith("suppress")):
                    continue
                if {ast.unparse(arg) for arg in call.args} & BROAD:
                    yield node.lineno, "suppress(Exception): catch it and log it"
                elif not {node.lineno - 1, node.lineno, node.body[0].lineno} & comments:
                    yield node.lineno, "a suppress with no reason"


@pytest.mark.one_python
def test_no_exception_is_swallowed_without_a_word() -> None:
    found = [
        f"pokayokay/{name}:{line}: {what}; log it, re-raise it, or say why in a comment there"
        for name, text in SOURCES.items()
        for line, what in silent_handlers(text)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("source", "silent"),
    [
        ("try:\n    f()\nexcept OSError:\n    pass\n", True),
        ("for x in y:\n    try:\n        f()\n    except OSError:\n        continue\n", True),
        ("try:\n    f()\nexcept Exception:\n    x = None\n", True),
        ("try:\n    f()\nexcept:\n    x = 1\n", True),
        ("with contextlib.suppress(OSError):\n    f()\n", True),
        ("with suppress(Exception):  # why\n    f()\n", True),
        ("try:\n    f()\nexcept OSError:\n    pass  # gone already\n", False),
        ("try:\n    f()\nexcept OSError:  # gone already\n    pass\n", False),
        ("try:\n    f()\nexcept ValueError:\n    return None\n", False),
        ("try:\n    f()\nexcept Exception as exc:\n    fail_open('x', exc)\n", False),
        ("try:\n    f()\nexcept Exception:\n    cleanup()\n    raise\n", False),
        ("with contextlib.suppress(OSError):  # gone already\n    f()\n", False),
        ("with contextlib.suppress(OSError):\n    f()  # only when empty\n", False),
    ],
)
@pytest.mark.one_python
def test_the_silence_check_tells_a_reason_from_none(source: str, silent: bool) -> None:
    wrapped = "def g():\n" + "".join(f"    {line}\n" for line in source.splitlines())
    assert bool(list(silent_handlers(wrapped))) is silent


# --- value types ---------------------------------------------------------------------------------


def _module_name(relative: str) -> str:
    parts = relative.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(relative: str, tree: ast.Module, known: set[str]) -> set[str]:
    """The pokayokay modules ``relative`` imports anywhere (lazy imports in functions too)."""
    here = _module_name(relative).split(".")
    package = here if relative.endswith("__init__.py") else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = (node.module or "").removeprefix("pokayokay").lstrip(".")
                if not (node.module or "").startswith("pokayokay"):
                    continue
            for alias in node.names:
                inner = f"{source}.{alias.name}".strip(".")
                found.add(inner if inner in known else source)
        elif isinstance(node, ast.Import):
            found.update(
                alias.name.removeprefix("pokayokay.")
                for alias in node.names
                if alias.name.startswith("pokayokay.")
            )
    return found & known


def hook_reach() -> set[str]:
    """Every module a hook can import: from ``hooks/`` and the spool, through every import."""
    names = {_module_name(relative): relative for relative in SOURCES}
    graph = {
        name: _imported(relative, TREES[relative], set(names)) for name, relative in names.items()
    }
    stack = [name for name in graph if name.startswith("hooks")] + ["infra.spool"]
    reached: set[str] = set()
    while stack:
        name = stack.pop()
        if name not in reached:
            reached.add(name)
            stack.extend(graph[name])
    return reached


def hand_written_value_classes(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Classes whose ``__init__`` only stores its arguments and that write ``__eq__``,
    ``__repr__`` or ``__hash__`` themselves: what ``@dataclass`` writes."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or node.decorator_list:
            continue
        bases = {ast.unparse(base) for base in node.bases}
        if bases & {"Exception", "BaseException", "Protocol", "NamedTuple"}:
            continue
        methods = {item.name: item for item in node.body if isinstance(item, ast.FunctionDef)}
        init = methods.get("__init__")
        if init is None or not {"__eq__", "__repr__", "__hash__"} & set(methods):
            continue
        if all(
            isinstance(stmt, (ast.Assign, ast.AnnAssign))
            or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
            for stmt in init.body
        ):
            yield node.lineno, node.name


@pytest.mark.one_python
def test_value_types_are_dataclasses_off_the_hook_paths() -> None:
    """docs/decisions/0107: a value type is a frozen dataclass unless a hook imports its module
    (``dataclasses`` costs a hook ~10 ms and 38 modules, and each class ~0.4 ms to build)."""
    assert "docs/decisions/0107" in DOC
    reached = hook_reach()
    assert {"hooks.runtime", "infra.locate", "relevance.note_documents"} <= reached
    assert "cli.rules" not in reached and "report.model" not in reached
    found = [
        f"pokayokay/{relative}:{line} {name} writes by hand what @dataclass(frozen=True) writes, "
        "and no hook imports its module: make it a dataclass"
        for relative, tree in TREES.items()
        if _module_name(relative) not in reached
        for line, name in hand_written_value_classes(tree)
    ]
    assert not found, "\n".join(found)


@pytest.mark.one_python
def test_hand_written_value_classes_are_the_listed_ones() -> None:
    """docs/decisions/0126: the hand-written value classes are named on the architecture page,
    and no other is written (a new one on a hook path is a choice the page records)."""
    claim = _claim("Value types")
    assert "docs/decisions/0126" in claim
    listed = set(re.findall(r"`(\w+(?:/\w+)+\.[A-Z]\w*)`", claim))
    found = {
        f"{relative.removesuffix('.py')}.{name}"
        for relative, tree in TREES.items()
        for _, name in hand_written_value_classes(tree)
    }
    assert found - listed == set(), (
        f"hand-written value classes not on the Value types list: {sorted(found - listed)}; "
        "make them frozen dataclasses, or list them in docs/architecture.md and say why"
    )
    assert listed - found == set(), (
        f"listed as hand-written but no longer found: {sorted(listed - found)}; "
        "take them off the Value types list in docs/architecture.md"
    )


@pytest.mark.one_python
def test_the_value_class_check_sees_one() -> None:
    source = (
        "class Spot:\n"
        "    def __init__(self, x: int) -> None:\n"
        "        self.x = x\n"
        "    def __eq__(self, other: object) -> bool:\n"
        "        return isinstance(other, Spot) and other.x == self.x\n"
    )
    assert list(hand_written_value_classes(ast.parse(source))) == [(1, "Spot")]
    behaviour = source.replace("        self.x = x\n", "        self.x = x\n        run(x)\n")
    assert list(hand_written_value_classes(ast.parse(behaviour))) == []
    assert list(hand_written_value_classes(ast.parse("@dataclass\n" + source))) == []
