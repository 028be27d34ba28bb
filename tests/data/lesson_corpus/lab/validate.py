# ruff: noqa
"""Check the lesson corpus: every case parses, ids are unique and match file names, labels are
well-formed, and INDEX.tsv lists exactly the cases.  Run: python lab/validate.py [--write-index]"""
import sys
from pathlib import Path

from ruamel.yaml import YAML

HERE = Path(__file__).resolve().parent.parent
CATEGORIES = {"testing", "lint", "types", "build", "dependencies", "git", "edit", "permissions", "shell"}
REQUIRED = ["id", "tool", "tool_version", "command", "cwd", "exit_code", "output", "files",
            "category", "key", "paths", "lesson"]
FIX_KINDS = {"correction", "formatter", "rehearsal", "edit"}


def main() -> int:
    yaml = YAML(typ="safe")
    errors, rows, seen = [], [], set()
    for path in sorted((HERE / "cases").glob("*.yaml")):
        case = yaml.load(path.read_text(encoding="utf-8"))
        cid = case.get("id")
        for field in REQUIRED:
            if field not in case:
                errors.append(f"{path.name}: missing {field}")
        if cid != path.stem:
            errors.append(f"{path.name}: id {cid!r} differs from the file name")
        if cid in seen:
            errors.append(f"{path.name}: duplicate id")
        seen.add(cid)
        if case.get("category") not in CATEGORIES:
            errors.append(f"{path.name}: category {case.get('category')!r}")
        if not isinstance(case.get("exit_code"), int) or case["exit_code"] == 0:
            errors.append(f"{path.name}: exit_code must be a non-zero int")
        if not case.get("key") or not case.get("lesson") or not case.get("tool_version"):
            errors.append(f"{path.name}: empty key, lesson or tool_version")
        if "{root}" not in case.get("output", "") and "/work/corpus_lab" in case.get("output", ""):
            errors.append(f"{path.name}: absolute lab path left in output")
        if "/work/corpus_lab" in case.get("output", "") + case.get("tool_version", ""):
            errors.append(f"{path.name}: absolute lab path left")
        fix = case.get("fix")
        if fix is not None and fix.get("kind") not in FIX_KINDS:
            errors.append(f"{path.name}: fix kind {fix.get('kind')!r}")
        if not isinstance(case.get("paths"), list) or not isinstance(case.get("files"), list):
            errors.append(f"{path.name}: paths and files must be lists")
        rows.append("\t".join([cid, case["tool"], case["category"], case["key"]]))
    index = "id\ttool\tcategory\tkey\n" + "\n".join(rows) + "\n"
    if "--write-index" in sys.argv:
        (HERE / "INDEX.tsv").write_text(index, encoding="utf-8")
    elif (HERE / "INDEX.tsv").read_text(encoding="utf-8") != index:
        errors.append("INDEX.tsv is out of date (run with --write-index)")
    for e in errors:
        print(e)
    print(f"{len(rows)} cases, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
