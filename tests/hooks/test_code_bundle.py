"""The code a hook imports, read from one file (decision 0189): a module is served from the file
only while its source is the one it was compiled from, the hook's answer is the same with the
file and without it, a file that is damaged, foreign or loose is never used, and a hook that
imported something the file did not serve starts one builder, not one a prompt."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from helpers.hooks import sample_payload

from pokayokay.hooks import code_bundle
from pokayokay.hooks.code_bundle import Bundle

LAUNCH = Path(code_bundle.__file__).with_name("launch.py")
EVENT = "UserPromptSubmit"
HOT = ["pokayokay.relevance.note_index", "pokayokay.relevance.scan", "pokayokay.skills"]


def source_tree(text: str) -> ast.Module:
    return code_bundle.without_docstrings(ast.parse(text))


def test_docstrings_go_and_lines_asserts_and_bodies_stay() -> None:
    text = (
        '"""Module."""\n'
        "import os\n"
        "class A:\n"
        '    """Only a docstring."""\n'
        "def f(x):\n"
        '    """Doc."""\n'
        "    assert x, 'kept'\n"
        "    return 1 / x\n"
        "async def g():\n"
        "    'single quotes'\n"
        "    return 'not a docstring'\n"
    )
    namespace: dict[str, object] = {}
    exec(compile(source_tree(text), "<mod>", "exec"), namespace)
    assert namespace.get("__doc__") is None
    a, f, g = namespace["A"], namespace["f"], namespace["g"]
    assert isinstance(a, type) and a.__doc__ is None
    assert isinstance(f, types.FunctionType) and f.__doc__ is None
    assert isinstance(g, types.FunctionType) and g.__doc__ is None
    with pytest.raises(AssertionError, match="kept"):
        f(0)
    assert f(2) == 0.5
    # the statement's line is the source's, for tracebacks
    code = compile(source_tree(text), "<mod>", "exec")
    lines = {c.co_name: c.co_firstlineno for c in code.co_consts if isinstance(c, types.CodeType)}
    assert lines == {"A": 3, "f": 5, "g": 9}


def test_a_traceback_names_the_source_line() -> None:
    text = '"""Doc."""\n\n\ndef boom():\n    """Doc."""\n    raise ValueError("here")\n'
    namespace: dict[str, object] = {}
    exec(compile(source_tree(text), "<mod>", "exec"), namespace)
    boom = namespace["boom"]
    assert callable(boom)
    with pytest.raises(ValueError) as raised:
        boom()
    assert raised.traceback[-1].lineno + 1 == 6  # pytest counts lines from 0


def test_nothing_pokayokay_runs_reads_a_docstring() -> None:
    package = Path(code_bundle.PACKAGE_DIR)
    readers = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "__doc__" in path.read_text("utf-8") or "getdoc(" in path.read_text("utf-8")
    ]
    assert readers == []


def test_every_module_compiles_without_its_docstrings() -> None:
    package = Path(code_bundle.PACKAGE_DIR)
    for path in package.rglob("*.py"):
        code_bundle.compiled(str(path))


def test_a_built_file_serves_its_modules_in_a_fresh_interpreter() -> None:
    home = os.environ["POKAYOKAY_HOME"]  # the test's own state home (tests/conftest.py)
    path = code_bundle.build(EVENT, [*HOT, "pokayokay.no_such_module", "json"])
    modules, skipped = code_bundle.read(path)
    assert sorted(modules) == sorted(HOT)
    assert skipped == frozenset({"pokayokay.no_such_module", "json"})
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    script = (
        "import sys, json\n"
        f"sys.path.append({code_bundle.PACKAGE_DIR.rsplit(os.sep, 1)[0]!r})\n"
        "from pokayokay.hooks import code_bundle\n"
        f"bundle = code_bundle.install({EVENT!r})\n"
        "import pokayokay.relevance.note_index, pokayokay.relevance.scan\n"
        "m = sys.modules['pokayokay.relevance.note_index']\n"
        "print(json.dumps([sorted(bundle.served), m.__file__, m.__doc__, bundle.missed()]))\n"
    )
    env = dict(os.environ, POKAYOKAY_HOME=home)
    out = subprocess.run(
        [sys.executable, "-S", "-E", "-c", script], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    served, origin, doc, missed = json.loads(out.stdout)
    assert "pokayokay.relevance.note_index" in served and "pokayokay.relevance.scan" in served
    assert origin == modules["pokayokay.relevance.note_index"][0]
    assert doc is None
    assert "pokayokay.relevance.note_index" not in missed


def module_file(tmp_path: Path, text: str) -> tuple[Path, Bundle]:
    source = tmp_path / "mod_for_bundle.py"
    source.write_text(text, "utf-8")
    size, mtime_ns, code = code_bundle.compiled(str(source))
    entry = (str(source), size, mtime_ns, False, code)
    return source, Bundle(EVENT, str(tmp_path / "b"), {"mod_for_bundle": entry}, frozenset())


def test_a_module_is_served_while_its_source_is_unchanged(tmp_path: Path) -> None:
    source, bundle = module_file(tmp_path, "VALUE = 1\n")
    spec = bundle.find_spec("mod_for_bundle")
    assert spec is not None and spec.loader is bundle and spec.origin == str(source)
    module = types.ModuleType("mod_for_bundle")
    bundle.exec_module(module)
    assert module.VALUE == 1 and bundle.served == {"mod_for_bundle"}
    assert bundle.find_spec("another") is None


def test_a_changed_source_goes_to_the_import_system(tmp_path: Path) -> None:
    source, bundle = module_file(tmp_path, "VALUE = 1\n")
    source.write_text("VALUE = 22\n", "utf-8")
    assert bundle.find_spec("mod_for_bundle") is None
    source.unlink()
    assert bundle.find_spec("mod_for_bundle") is None


@pytest.mark.parametrize("entry", [("x.py", 1), None, (1, 2, 3, False, b""), "text"])
def test_an_entry_of_another_shape_goes_to_the_import_system(entry: object) -> None:
    bundle = Bundle(EVENT, "b", {"mod_for_bundle": entry}, frozenset())  # type: ignore[dict-item]
    assert bundle.find_spec("mod_for_bundle") is None


def test_a_damaged_entry_is_loaded_from_its_source(tmp_path: Path) -> None:
    source, bundle = module_file(tmp_path, "VALUE = 3\n")
    entry = bundle.modules["mod_for_bundle"]
    bundle.modules["mod_for_bundle"] = (*entry[:4], b"\x00garbage")
    module = types.ModuleType("mod_for_bundle")
    module.__file__ = str(source)
    bundle.exec_module(module)
    assert module.VALUE == 3 and not bundle.served


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other python", "loose", "symlink"])
def test_a_file_that_cannot_be_trusted_is_not_read(tmp_path: Path, damage: str) -> None:
    path = Path(code_bundle.build(EVENT, HOT, str(tmp_path / "state")))
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"\x00\x01not marshal")
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "other python":
        import marshal

        _, modules, skipped = marshal.loads(data)
        header = (code_bundle.FORMAT, sys.version + " (another build)", code_bundle.PACKAGE_DIR)
        path.write_bytes(marshal.dumps((header, modules, skipped)))
    elif damage == "loose":
        path.chmod(0o666)
    else:
        real = path.with_name("real.marshal")
        path.rename(real)
        path.symlink_to(real)
    assert code_bundle.read(str(path)) == ({}, frozenset())


def test_off_and_other_events_install_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(code_bundle.OFF_VARIABLE, "0")
    assert code_bundle.install(EVENT) is None
    monkeypatch.delenv(code_bundle.OFF_VARIABLE)
    assert code_bundle.install("PreToolUse") is None


def test_one_builder_a_minute_with_every_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(
        "pokayokay.infra.detach.spawn_module", lambda module, args: started.append((module, args))
    )
    entry = ("x.py", 1, 1, False, b"")
    bundle = Bundle(
        EVENT, str(tmp_path / "code" / "b.marshal"), {"pokayokay.x": entry}, frozenset()
    )
    bundle.before = frozenset()
    monkeypatch.setitem(sys.modules, "pokayokay.fresh_for_test", types.ModuleType("fresh"))
    code_bundle.after(bundle)
    assert len(started) == 1
    module, args = started[0]
    assert module == "pokayokay.hooks.code_bundle" and args[0] == EVENT
    assert "pokayokay.fresh_for_test" in args and "pokayokay.x" in args
    code_bundle.after(bundle)  # within the minute: no second builder
    assert len(started) == 1
    mark = Path(bundle.path + code_bundle.BUILDING)
    old = time.time() - code_bundle.BUILD_QUIET_S - 1
    os.utime(mark, (old, old))
    code_bundle.after(bundle)  # a builder that never finished: another may start
    assert len(started) == 2


def test_nothing_missed_starts_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pokayokay.infra.detach.spawn_module", lambda *a: pytest.fail("no builder"))
    bundle = Bundle(EVENT, str(tmp_path / "b.marshal"), {}, frozenset({"pokayokay.fresh"}))
    monkeypatch.setitem(sys.modules, "pokayokay.fresh", types.ModuleType("fresh"))
    code_bundle.after(bundle)  # a name the builder found no source of is never asked again
    code_bundle.after(None)


def run_prompt(
    project: Path, payload: bytes, env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-S", "-E", str(LAUNCH), EVENT],
        input=payload,
        cwd=project,
        env=env,
        capture_output=True,
        timeout=60,
    )


def test_the_hook_builds_its_file_and_answers_the_same_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    payload = sample_payload(
        "UserPromptSubmit.json", project, prompt="fix the failing test in src/app.py (take 1)"
    )
    data = json.dumps(payload).encode()
    env = dict(os.environ)
    path = Path(code_bundle.bundle_file(EVENT, env["POKAYOKAY_HOME"]))
    first = run_prompt(project, data, env)
    assert first.returncode == 0, first.stderr
    deadline = time.monotonic() + 30
    while not path.exists() or Path(str(path) + code_bundle.BUILDING).exists():
        assert time.monotonic() < deadline, "no builder wrote the file"
        time.sleep(0.05)
    modules, _ = code_bundle.read(str(path))
    assert "pokayokay.hooks.runtime" in modules and "pokayokay.hooks.prompt" in modules
    with_file = run_prompt(project, data, env)
    without = run_prompt(project, data, dict(env, **{code_bundle.OFF_VARIABLE: "0"}))
    assert with_file.stdout == without.stdout == first.stdout
    assert with_file.stderr == without.stderr == b""
