"""Count the training prompts for which the registered prompt hook imports ``re`` (decision 0184).

    .venv/bin/python scripts/count_prompt_patterns.py            # 400 prompts, seed 1
    .venv/bin/python scripts/count_prompt_patterns.py -n 2000 --show

Each prompt goes, as its own ``UserPromptSubmit`` payload, through the command ``init``
registers, on the benchmarks' realistic project (graduated rules, a failure store, 300
learnings, skills); ``PYTHONPROFILEIMPORTTIME`` lists what the hook's interpreter imported.
``re`` with what it imports costs about half an interpreter start, so the budget rows, which
time a few chosen prompts, say what a prompt costs only when few prompts reach a pattern.
The prompts are the train split's recall and skill prompts (``tests/helpers/splits.py``), never
a test split's. A dev tool: nothing here runs in a hook.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from helpers import splits  # noqa: E402

from benchmarks.fixtures.lab import Lab  # noqa: E402
from benchmarks.fixtures.memory import encode_payload, moved_payload  # noqa: E402
from benchmarks.suites.budgets import realistic_project  # noqa: E402
from benchmarks.suites.realistic import registered_argv  # noqa: E402


def train_prompts() -> list[str]:
    prompts = [
        row["q"] for _corpus, _notes, rows in splits.recall_sources(splits.RECALL_TRAIN)
        for row in rows
    ]  # fmt: skip
    for name in splits.SKILLS_TRAIN:
        prompts += [row["prompt"] for row in splits.skill_rows(splits.SKILLS_FOLDER / name)]
    return prompts


def imports_re(argv: list[str], env: dict[str, str], cwd: Path, payload: bytes) -> bool:
    proc = subprocess.run(
        argv, input=payload, env=env, cwd=cwd, capture_output=True, timeout=120, check=True
    )
    lines = proc.stderr.decode(errors="replace").splitlines()
    modules = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}
    return "re" in modules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=400, help="prompts to send (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", action="store_true", help="print each prompt that imports re")
    args = parser.parse_args(argv)
    prompts = train_prompts()
    random.Random(args.seed).shuffle(prompts)
    prompts = prompts[: args.n]
    with tempfile.TemporaryDirectory() as folder:
        project = realistic_project(Lab(Path(folder)), learnings=300, events=2_000)
        command = registered_argv(project, "UserPromptSubmit")
        if command[:2] == ["/bin/sh", "-c"]:  # -E (decision 0141) would ignore the variable
            command = [*command[:2], command[2].replace(" -S -E ", " -X importtime -S -E ")]
        env = dict(project.env, PYTHONPROFILEIMPORTTIME="1")
        found = []
        for i, prompt in enumerate(prompts):
            payload = moved_payload("UserPromptSubmit.json", project.path, prompt=prompt)
            payload["session_id"] = f"count-{i}"
            if imports_re(command, env, project.path, encode_payload(payload)):
                found.append(prompt)
    share = len(found) / max(len(prompts), 1)
    print(f"{len(found)}/{len(prompts)} prompts import re ({share:.1%})")
    if args.show:
        for prompt in found:
            print("  " + prompt[:120].replace("\n", " "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
