"""The hooks that are not spooled start without ``site`` (issue 26, decision 0141).

``init --absolute`` registers ``<python> -S -E …/pokayokay/hooks/launch.py <Event>``; the plugin
shim starts the ``pokayokay-event`` script with ``-S -E`` when its shebang is a plain
interpreter and its second line says it may. Both run here as Claude Code runs them (``sh -c``,
the real payloads of tests/data/claude-code-samples) in the two layouts pokayokay is installed
in: a wheel's (a folder holding the package as its site-packages, under this test's own
interpreter, where the dependencies are reachable only through ``site``) and the editable
install of this source tree. ``-X importtime`` (``-E`` ignores ``PYTHONPROFILEIMPORTTIME``)
lists what each hook imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.hooks import sample_payload
from helpers.paths import REPO_ROOT

from benchmarks.fixtures.lab import Lab, Project
from benchmarks.fixtures.memory import encode_payload, moved_payload
from benchmarks.suites.budgets import PATH_PROMPT, WARM_PROMPT, realistic_project
from benchmarks.suites.realistic import registered_argv
from pokayokay.hooks.events import HOOKED_EVENTS
from pokayokay.infra.spool import SPOOLED_EVENTS
from pokayokay.install.handlers import (
    NO_SITE_MARK,
    event_handler,
    handler_argv,
    handler_form,
    no_site_start,
)
from pokayokay.install.wiring import init

SHIM = REPO_ROOT / "hooks" / "pokayokay-hook"
SITE_MODULES = {"site", "_distutils_hack", "sitecustomize", "usercustomize"}
# The non-spooled events, each with a real payload Claude Code sent.
SAMPLES = {
    "SessionStart": "SessionStart.startup.json",
    "UserPromptSubmit": "UserPromptSubmit.json",
    "PreToolUse": "PreToolUse.Bash.json",
    "SubagentStart": "SubagentStart.json",
    "PreCompact": "PreCompact.manual.json",
    "Stop": "Stop.json",
    "SessionEnd": "SessionEnd.other.json",
}
# Settings whose frontmatter the fast reader hands to ruamel.yaml (an anchor): a cold path.
YAML_SETTINGS = "---\nmemory:\n  max_lines: &lines 180\n---\n\nProject settings.\n"
PY = f"python{sys.version_info[0]}.{sys.version_info[1]}"


def site_packages(prefix: Path) -> Path:
    """``<prefix>/lib/pythonX.Y/site-packages`` holding pokayokay and nothing else: a wheel's
    layout whose dependencies this interpreter finds only through ``site``."""
    folder = prefix / "lib" / PY / "site-packages"
    folder.mkdir(parents=True)
    (folder / "pokayokay").symlink_to(REPO_ROOT / "pokayokay", target_is_directory=True)
    return folder


def imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines()
            if line.startswith("import time:")}  # fmt: skip


def not_importtime(stderr: str) -> str:
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("import time:"))


def with_importtime(command: str) -> str:
    """A registered absolute command with ``-X importtime`` before its ``-S -E``."""
    assert command.count(" -S -E ") == 1, command
    return command.replace(" -S -E ", " -X importtime -S -E ")


def run_shell(command: str, payload: bytes, project: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    return subprocess.run(["/bin/sh", "-c", command], input=payload.decode(), env=env,
                          cwd=project, capture_output=True, text=True, timeout=120)  # fmt: skip


def registered(project: Path, event: str) -> str:
    data = json.loads((project / ".claude" / "settings.json").read_text("utf-8"))
    handler = data["hooks"][event][0]["hooks"][0]
    assert handler_form(handler) == "absolute"
    command: str = handler["command"]
    return command


def init_in(root: Path, project: Path) -> None:
    """``init --absolute`` run by this interpreter with its pokayokay imported from ``root``
    (the folder holding the package), as a wheel installed there would run it."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
        "from pokayokay.install.wiring import init; init(Path(sys.argv[2]), absolute=True)"
    )
    subprocess.run([sys.executable, "-c", code, str(root), str(project)], check=True,
                   capture_output=True, timeout=60)  # fmt: skip


@pytest.fixture(params=["wheel", "editable"])
def layout(request: pytest.FixtureRequest, tmp_path: Path, project: Path) -> Path:
    """The folder holding the pokayokay package the registered commands name; ``project`` has
    them registered (``init --absolute``)."""
    if request.param == "editable":
        init(project, absolute=True)
        return REPO_ROOT
    root = site_packages(tmp_path / "prefix")
    init_in(root, project)
    return root


def test_the_absolute_command_names_the_launcher_of_its_layout(layout: Path, project: Path) -> None:
    for event in SAMPLES:
        argv = handler_argv({"command": registered(project, event)})
        assert argv is not None
        assert argv[1:] == ["-S", "-E", str(layout / "pokayokay" / "hooks" / "launch.py"), event]
        assert argv[0] == os.path.abspath(sys.executable)


@pytest.mark.parametrize("event", list(SAMPLES))
def test_each_registered_hook_runs_without_site_on_a_real_payload(
    layout: Path, project: Path, event: str
) -> None:
    payload = encode_payload(sample_payload(SAMPLES[event], project))
    result = run_shell(with_importtime(registered(project, event)), payload, project)
    assert result.returncode == 0, result.stderr
    assert not_importtime(result.stderr) == ""
    modules = imported(result.stderr)
    assert "pokayokay.hooks.runtime" in modules
    # the launcher's own folder was not a top-level import path: its modules came as the package's
    assert not modules & {"runtime", "events", "session", "prompt"}
    assert not modules & SITE_MODULES, f"{event} ran site"
    if event == "SessionStart":
        answer = json.loads(result.stdout)
        assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    else:
        assert result.stdout == "" or json.loads(result.stdout)


@pytest.mark.parametrize(
    "event, sample",
    [
        ("PostToolUseFailure", "PostToolUseFailure.Bash.json"),
        ("PostToolUse", "PostToolUse.Edit.json"),
    ],
)
def test_the_registered_spool_entry_runs_from_the_cached_module(
    layout: Path, project: Path, event: str, sample: str
) -> None:
    """The per-tool-call events' absolute command: spool_launch.py, a few lines, imports
    pokayokay.infra.spool (its .pyc) and appends the payload; no site, no hook runtime."""
    command = registered(project, event)
    assert f"-S -E {layout / 'pokayokay' / 'infra' / 'spool_launch.py'} {event}" in command
    payload = encode_payload(sample_payload(sample, project))
    result = run_shell(with_importtime(command), payload, project)
    assert result.returncode == 0 and not_importtime(result.stderr) == ""
    modules = imported(result.stderr)
    assert "pokayokay.infra.spool" in modules
    assert not modules & (SITE_MODULES | {"pokayokay.hooks.runtime"})
    spooled = list((Path(os.environ["POKAYOKAY_HOME"]) / "spool").glob("*/active.spool"))
    if event == "PostToolUseFailure":  # a success is spooled only in a session with a failure
        [spool] = spooled
        assert spool.read_bytes().startswith(b"\x1epky2 " + event.encode())


def test_a_cold_path_finds_ruamel_through_site_on_demand(layout: Path, project: Path) -> None:
    """SessionEnd with settings only ruamel.yaml reads: in the wheel layout ruamel.yaml is not
    beside the package, so the import that finds nothing runs ``site.main()`` and succeeds."""
    (project / ".claude" / "pokayokay.md").write_text(YAML_SETTINGS, "utf-8")
    payload = encode_payload(sample_payload(SAMPLES["SessionEnd"], project))
    result = run_shell(with_importtime(registered(project, "SessionEnd")), payload, project)
    assert result.returncode == 0 and not_importtime(result.stderr) == ""
    modules = imported(result.stderr)
    assert {"ruamel.yaml", "site"} <= modules
    # no pokayokay log line: nothing failed open
    log = Path(os.environ["POKAYOKAY_HOME"]) / "pokayokay.log"
    assert not log.exists() or "Traceback" not in log.read_text("utf-8", "replace")


def test_without_site_ruamel_is_out_of_reach_in_the_wheel_layout(tmp_path: Path) -> None:
    """The control of the test above: the wheel layout alone does not reach ruamel.yaml."""
    root = site_packages(tmp_path / "prefix")
    code = "import sys; sys.path.append(sys.argv[1]); import pokayokay; import ruamel.yaml"
    result = subprocess.run([sys.executable, "-S", "-E", "-c", code, str(root)],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 1 and "No module named 'ruamel'" in result.stderr


def test_site_on_demand_runs_site_once_and_only_for_a_top_level_miss() -> None:
    code = """
import sys
sys.path.append(sys.argv[1])
from pokayokay.hooks.site_on_demand import SiteOnDemand, site_on_demand
site_on_demand(); site_on_demand()
assert sum(isinstance(f, SiteOnDemand) for f in sys.meta_path) == 1
assert isinstance(sys.meta_path[-1], SiteOnDemand)
try:
    import encodings.no_such_codec_module
except ImportError:
    pass
assert "site" not in sys.modules, "a submodule miss ran site"
for probe in ("_winapi", "org"):  # the standard library probing for other platforms
    try:
        __import__(probe)
    except ImportError:
        pass
assert "site" not in sys.modules, "a standard library probe ran site"
import json  # found by the standard finders: no site
assert "site" not in sys.modules
try:
    import no_such_module_anywhere
except ImportError:
    pass
assert "site" in sys.modules
import site
calls = []
site.main = lambda: calls.append(1)
try:
    import no_such_module_again
except ImportError:
    pass
assert calls == [], "site ran twice"
import ruamel.yaml  # the venv's site-packages, added by the first miss
print("ok")
"""
    result = subprocess.run([sys.executable, "-S", "-E", "-c", code, str(REPO_ROOT)],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert (result.returncode, result.stdout, result.stderr) == (0, "ok\n", "")


# Names outside the standard library that it imports where site may well help (a tool
# installed beside it), or that site itself imports: SiteOnDemand may run site for them.
SITE_MAY_HELP = {
    "__main__", "docutils", "pip", "test", "sitecustomize", "usercustomize",
    "Mailman",  # 3.10's smtpd.py, for a Mailman installed beside it
    "pep517",  # 3.10's importlib.metadata, building a source tree's metadata
}  # fmt: skip


def test_every_other_platform_probe_of_the_standard_library_is_known() -> None:
    """Every module the running standard library imports that is not one of its own is either
    a probe for another platform (``OTHER_PLATFORMS``: a miss SiteOnDemand lets pass, so a hot
    path that meets one keeps starting without site) or one site may find."""
    import ast
    import sysconfig

    from pokayokay.hooks.site_on_demand import OTHER_PLATFORMS

    lib = Path(sysconfig.get_paths()["stdlib"])
    skip = {"site-packages", "dist-packages", "test", "tests", "idlelib", "lib2to3", "__pycache__"}
    outside: dict[str, str] = {}
    for folder, subfolders, files in os.walk(lib):
        subfolders[:] = [d for d in subfolders if d not in skip]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = Path(folder, name)
            try:
                tree = ast.parse(path.read_bytes())
            except (SyntaxError, ValueError):
                continue  # a template or a file for another version
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    tops = [alias.name.split(".")[0] for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    tops = [node.module.split(".")[0]]
                else:
                    continue
                for top in tops:
                    if top not in sys.stdlib_module_names:
                        outside.setdefault(top, str(path.relative_to(lib)))
    assert "java" in outside  # the scan sees platform.py's probe (copy's "org" went in 3.13)
    unknown = {k: v for k, v in outside.items() if k not in OTHER_PLATFORMS | SITE_MAY_HELP}
    assert not unknown, f"classify these (launch.OTHER_PLATFORMS or SITE_MAY_HELP): {unknown}"


# --- the plugin shim ---------------------------------------------------------------------


def install_event_script(prefix: Path, shebang: str, name: str = "pokayokay-event") -> Path:
    """``<prefix>/bin/<name>``: this source tree's script, its first line replaced as an
    installer would (pip writes ``#!<interpreter>``)."""
    bin_dir = prefix / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    body = (REPO_ROOT / "scripts" / name).read_text("utf-8").split("\n", 1)[1]
    script = bin_dir / name
    script.write_text(f"{shebang}\n{body}", "utf-8")
    script.chmod(0o755)
    return script


def logging_python(bin_dir: Path, log: Path) -> Path:
    """``<bin>/python3``: this test's interpreter, noting the arguments it was started with
    and listing its imports (``-X importtime``)."""
    wrapper = bin_dir / "python3"
    wrapper.write_text(f'#!/bin/sh\nprintf \'%s\\n\' "$*" >> "{log}"\n'
                       f'exec "{sys.executable}" -X importtime "$@"\n')  # fmt: skip
    wrapper.chmod(0o755)
    return wrapper


# The two entries that find `pokayokay-event` on PATH and may start it with -S -E: the plugin's
# shim, and the handler init registers by name (pokayokay on PATH, decision 0141).
ENTRIES = ["plugin shim", "name form"]


def run_entry(
    entry: str, event: str, payload: bytes, project: Path, path: str
) -> subprocess.CompletedProcess[str]:
    """``event``'s hook as Claude Code starts it through ``entry`` with ``path`` as PATH."""
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project), PATH=path)
    if entry == "plugin shim":
        argv = [str(SHIM), event]
    else:
        spec = next(s for s in HOOKED_EVENTS if s.event == event)
        handler = event_handler(spec, "pokayokay", ["hook"], {"PATH": path})
        script = "pokayokay-spool" if event in SPOOLED_EVENTS else "pokayokay-event"
        assert handler_argv(handler) == [script, event]
        argv = ["/bin/sh", "-c", handler["command"]]
    return subprocess.run(argv, input=payload.decode(), env=env, cwd=project,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def editable_site_packages(prefix: Path) -> Path:
    """``<prefix>/lib/pythonX.Y/site-packages`` of an editable install by hatchling: no package,
    the ``.pth`` file naming this source tree (which site would append to sys.path)."""
    folder = prefix / "lib" / PY / "site-packages"
    folder.mkdir(parents=True)
    (folder / "_editable_impl_pokayokay.pth").write_text(f"{REPO_ROOT}\n", "utf-8")
    return folder


def installed_prefix(tmp_path: Path, where: str) -> Path:
    """A prefix whose site-packages holds pokayokay as a wheel (``"wheel"``) or hatchling's
    editable ``.pth`` (``"editable"``) installs it, or nothing (any other layout)."""
    prefix = tmp_path / "prefix"
    if where == "wheel":
        site_packages(prefix)
    elif where == "editable":
        editable_site_packages(prefix)
    return prefix


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("where", ["wheel", "editable", "other"])
@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"])
def test_the_event_script_on_path_starts_without_site(
    tmp_path: Path, project: Path, entry: str, where: str, event: str
) -> None:
    """Wheel layout (the package in the site-packages beside the script) and editable layout
    (hatchling's ``.pth`` there naming the source tree): the script finds pokayokay without site,
    which never runs. Any other layout: the script runs site itself, as before, still under
    -S."""
    prefix = installed_prefix(tmp_path, where)
    log = tmp_path / "argv.log"
    script = install_event_script(prefix, f"#!{prefix / 'bin' / 'python3'}")
    logging_python(prefix / "bin", log)
    payload = encode_payload(sample_payload(SAMPLES[event], project))
    result = run_entry(entry, event, payload, project, f"{prefix / 'bin'}:/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert not_importtime(result.stderr) == ""
    assert log.read_text().splitlines() == [f"-S -E {script} {event}"]
    modules = imported(result.stderr)
    assert "pokayokay.hooks.runtime" in modules
    if where == "other":
        assert "site" in modules
    else:
        assert not modules & SITE_MODULES
    if event == "SessionStart":
        assert json.loads(result.stdout)["hookSpecificOutput"]["hookEventName"] == event


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("where", ["wheel", "editable", "other"])
def test_the_spool_script_on_path_starts_without_site(
    tmp_path: Path, project: Path, entry: str, where: str
) -> None:
    """``pokayokay-spool`` the same way: started with -S -E, it finds pokayokay beside itself
    (or runs site itself, in any other layout) and appends the real payload to the spool."""
    prefix = installed_prefix(tmp_path, where)
    log = tmp_path / "argv.log"
    script = install_event_script(prefix, f"#!{prefix / 'bin' / 'python3'}", "pokayokay-spool")
    logging_python(prefix / "bin", log)
    payload = encode_payload(sample_payload("PostToolUseFailure.Bash.json", project))
    path = f"{prefix / 'bin'}:/usr/bin:/bin"
    result = run_entry(entry, "PostToolUseFailure", payload, project, path)
    assert result.returncode == 0 and not_importtime(result.stderr) == ""
    assert log.read_text().splitlines() == [f"-S -E {script} PostToolUseFailure"]
    modules = imported(result.stderr)
    assert "pokayokay.infra.spool" in modules and "pokayokay.hooks.runtime" not in modules
    assert ("site" in modules) if where == "other" else not modules & SITE_MODULES
    [spool] = (Path(os.environ["POKAYOKAY_HOME"]) / "spool").glob("*/active.spool")
    assert spool.read_bytes().startswith(b"\x1epky2 PostToolUseFailure ")


@pytest.mark.parametrize("where", ["wheel", "editable"])
def test_the_event_script_reaches_ruamel_through_site_on_demand(
    tmp_path: Path, project: Path, where: str
) -> None:
    """The script's cold path: SessionEnd with settings only ruamel.yaml reads, through the
    plugin shim, in layouts where ruamel.yaml is reachable through site alone."""
    prefix = tmp_path / "prefix"
    (site_packages if where == "wheel" else editable_site_packages)(prefix)
    (project / ".claude").mkdir()
    (project / ".claude" / "pokayokay.md").write_text(YAML_SETTINGS, "utf-8")
    log = tmp_path / "argv.log"
    script = install_event_script(prefix, f"#!{prefix / 'bin' / 'python3'}")
    logging_python(prefix / "bin", log)
    payload = encode_payload(sample_payload(SAMPLES["SessionEnd"], project))
    path = f"{prefix / 'bin'}:/usr/bin:/bin"
    result = run_entry("plugin shim", "SessionEnd", payload, project, path)
    assert result.returncode == 0 and not_importtime(result.stderr) == ""
    assert log.read_text().splitlines() == [f"-S -E {script} SessionEnd"]
    assert {"ruamel.yaml", "site"} <= imported(result.stderr)


@pytest.mark.parametrize(
    "first, second",
    [
        ("#!/usr/bin/env python3", None),  # env finds the interpreter: not a plain path
        ("#!{python} -u", None),  # arguments of its own
        ("#!{python}", ""),  # an older pokayokay-event, without the line that says it may
    ],
)
@pytest.mark.parametrize("entry", ENTRIES)
def test_a_script_that_must_not_be_touched_starts_as_today(
    tmp_path: Path, project: Path, entry: str, first: str, second: str | None
) -> None:
    prefix = tmp_path / "prefix"
    site_packages(prefix)
    log = tmp_path / "argv.log"
    (prefix / "bin").mkdir()
    python = logging_python(prefix / "bin", log)
    script = install_event_script(prefix, first.format(python=python))
    if second is not None:  # the second line dropped, as an older script has none
        lines = script.read_text("utf-8").split("\n")
        script.write_text("\n".join([lines[0], *lines[2:]]), "utf-8")
    payload = encode_payload(sample_payload(SAMPLES["SessionStart"], project))
    result = run_entry(entry, "SessionStart", payload, project, f"{prefix / 'bin'}:/usr/bin:/bin")
    # exec pokayokay-event, as before: its interpreter gets the script alone (with site)
    started = log.read_text().splitlines()
    assert started == [f"{script} SessionStart"] or started == [f"-u {script} SessionStart"]
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "site" in imported(result.stderr)


@pytest.mark.parametrize("entry", ENTRIES)
def test_the_first_event_script_on_path_is_the_one_started(
    tmp_path: Path, project: Path, entry: str
) -> None:
    """As ``command -v`` would: a later one that could start without site is not taken."""
    first, later = tmp_path / "first", tmp_path / "later"
    first.mkdir()
    (first / "pokayokay-event").write_text('#!/bin/sh\necho "first:$*"\n')
    (first / "pokayokay-event").chmod(0o755)
    site_packages(later)
    log = tmp_path / "argv.log"
    (later / "bin").mkdir()
    install_event_script(later, f"#!{logging_python(later / 'bin', log)}")
    path = f"{first}::{later / 'bin'}:/usr/bin:/bin"
    result = run_entry(entry, "SessionEnd", b"{}", project, path)
    assert (result.returncode, result.stdout) == (0, "first:SessionEnd\n")
    assert not log.exists()


def test_the_mark_is_the_scripts_second_line_and_the_shims_pattern() -> None:
    """One mark in three places: the script says it, the shim and the registered handler look
    for it (a mark changed in one place alone would send every start back to site)."""
    for name in ("pokayokay-event", "pokayokay-spool"):
        script = (REPO_ROOT / "scripts" / name).read_text("utf-8")
        assert script.split("\n")[1].startswith(NO_SITE_MARK)
    assert f"'{NO_SITE_MARK}'*)" in SHIM.read_text("utf-8")
    assert f"'{NO_SITE_MARK}'*)" in no_site_start("Stop")
    assert f"'{NO_SITE_MARK}'*)" in no_site_start("PostToolUse", "pokayokay-spool")


# --- the benchmark's realistic project ---------------------------------------------------


@pytest.fixture(scope="module")
def realistic(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The budget rows' project (smaller), its hooks registered by ``init --absolute``, as
    ``benchmarks/run.py --init-absolute`` registers them."""
    lab = Lab(tmp_path_factory.mktemp("lab"), init_args=("--absolute",))
    return realistic_project(lab, learnings=300, events=2_000, memory_lines=200)


@pytest.mark.parametrize("kind", ["path prompt", "plain prompt", "SessionStart"])
def test_the_realistic_prompt_and_session_start_import_no_site(
    realistic: Project, kind: str
) -> None:
    event = "SessionStart" if kind == "SessionStart" else "UserPromptSubmit"
    argv = registered_argv(realistic, event)
    assert argv[:2] == ["/bin/sh", "-c"] and "/pokayokay/hooks/launch.py " in argv[2]
    if event == "SessionStart":
        payload = moved_payload("SessionStart.startup.json", realistic.path)
    else:
        prompt = PATH_PROMPT if kind == "path prompt" else WARM_PROMPT
        payload = moved_payload("UserPromptSubmit.json", realistic.path, prompt=prompt)
    payload["session_id"] = f"no-site-{kind.replace(' ', '-')}"
    result = subprocess.run(
        ["/bin/sh", "-c", with_importtime(argv[2])], input=encode_payload(payload),
        env=realistic.env, cwd=realistic.path, capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    modules = imported(result.stderr.decode(errors="replace"))
    assert "pokayokay.hooks.runtime" in modules
    if kind != "SessionStart":
        assert "pokayokay.relevance.scan" in modules and "pokayokay.recall.sources" in modules
    if kind == "path prompt":
        assert b"hookSpecificOutput" in result.stdout
    assert not modules & SITE_MODULES, f"the {kind} ran site: {sorted(modules & SITE_MODULES)}"
