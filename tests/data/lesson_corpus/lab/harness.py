# ruff: noqa
# Capture script used to produce the corpus (run from /work/corpus_lab with ruamel.yaml); kept for the record.
"""Run a real command in a lab project and write one corpus case YAML."""
import json, os, subprocess, sys
from pathlib import Path
from ruamel.yaml import YAML

LAB = Path("/work/corpus_lab")
OUT = Path("/work/wt/corpus/tests/data/lesson_corpus/cases")
BASE_ENV = {
    "PATH": "/root/.cargo/bin:/root/.pyenv/shims:/root/.pyenv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/root", "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
    "FORCE_COLOR": "0", "CI": "", "GIT_PAGER": "cat", "PAGER": "cat",
    "CARGO_TERM_COLOR": "never", "GOPROXY": "off",
}
_versions = {}

def q(s):
    return json.dumps(s, ensure_ascii=False)

def literal(text):
    if text == "":
        return q("")
    if text.endswith("\n\n"):
        ind = "|2+"
    elif text.endswith("\n"):
        ind = "|2"
    else:
        ind = "|2-"
    body = text[:-1] if text.endswith("\n") else text
    lines = body.split("\n")
    return ind + "\n" + "\n".join(("  " + l) if l else "" for l in lines)

def run(cmd, cwd, env_extra=None, timeout=300):
    env = dict(BASE_ENV)
    if env_extra:
        env.update(env_extra)
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")

def version(vcmd, root, env_extra=None):
    k = (vcmd, str(root))
    if k not in _versions:
        rc, out = run(vcmd, root, env_extra)
        _versions[k] = out.strip().splitlines()[0].strip()
    return _versions[k]

def case(id, tool, project, command, category, key, paths, lesson, files=None, cwd="",
         version_cmd=None, env=None, fix=None, expect_fail=True, note=None):
    root = LAB / project
    rc, out = run(command, root / cwd if cwd else root, env)
    out = out.replace(str(root), "{root}")
    if expect_fail and rc == 0:
        print(f"!! {id}: exit 0 (not a failure)\n{out}", file=sys.stderr)
        return None
    raw_cr = any(ord(ch) < 32 and ch not in "\n\t" for ch in out)
    if raw_cr:
        print(f"-- {id}: control characters kept; output stored double-quoted", file=sys.stderr)
    tv = (version(version_cmd, root, env) if version_cmd else "").replace(str(root), "{root}")
    files = files if files is not None else paths
    for f in files:
        if not (root / f).exists():
            print(f"!! {id}: file missing {f}", file=sys.stderr)
    fixd = None
    if fix:
        fcmd, kind = fix[0], fix[1]
        fixd = {"command": fcmd, "kind": kind}
        if kind == "edit":
            # fix = (verify command, "edit", description, apply-edit shell, revert shell)
            fixd["edit"] = fix[2]
            subprocess.run(fix[3], shell=True, check=True, cwd=root)
            frc, fout = run(fcmd, root / cwd if cwd else root, env)
            fixd["exit_code"] = frc
            subprocess.run(fix[4], shell=True, check=True, cwd=root)
            if frc != 0:
                print(f"!! {id}: edit fix exit {frc}\n{fout[-800:]}", file=sys.stderr)
            fix = fix[:2]
        if kind in ("correction", "formatter", "rehearsal"):
            frc, fout = run(fcmd, root / cwd if cwd else root, env)
            fixd["exit_code"] = frc
            if frc != 0:
                print(f"!! {id}: fix exit {frc}\n{fout[-800:]}", file=sys.stderr)
        if len(fix) > 2:
            fixd["note"] = fix[2]
    y = [f"id: {id}", f"tool: {tool}", f"tool_version: {q(tv)}", f"project: {project}",
         f"command: {q(command)}", f"cwd: {q(cwd)}", f"exit_code: {rc}",
         f"output: {q(out) if raw_cr else literal(out)}", "files:"]
    y += [f"  - {q(f)}" for f in files] if files else []
    if not files:
        y[-1] = "files: []"
    y += [f"category: {category}", f"key: {q(key)}", "paths:"]
    y += [f"  - {q(p)}" for p in paths] if paths else []
    if not paths:
        y[-1] = "paths: []"
    y.append(f"lesson: {q(lesson)}")
    if fixd:
        y.append("fix:")
        y += [f"  {k}: {q(v) if isinstance(v, str) else v}" for k, v in fixd.items()]
    if note:
        y.append(f"note: {q(note)}")
    text = "\n".join(y) + "\n"
    data = YAML(typ="safe").load(text)
    assert data["output"] == out, f"{id}: round-trip mismatch"
    assert data["id"] == id
    if key not in out:
        print(f"?? {id}: key not verbatim in output", file=sys.stderr)
    (OUT / f"{id}.yaml").write_text(text)
    print(f"ok {id} rc={rc} {len(out)}ch")
    return out
