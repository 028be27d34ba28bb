"""UserPromptSubmit: recall over 2,000 learnings (warm with a related and an unrelated prompt,
one learning changed, cold) and the skill suggestion over 200 skills and 10k stored failures."""

from __future__ import annotations

import shutil
import subprocess

from benchmarks.fixtures.failures import PY_MODULES, store_fixture
from benchmarks.fixtures.lab import REPO, Lab
from benchmarks.fixtures.learnings import (
    RECALL_LEARNINGS,
    RECALL_RELATED,
    RECALL_UNRELATED,
    SUGGEST_SKILLS,
    RecallProject,
    recall_project,
    write_skills,
)
from benchmarks.fixtures.memory import encode_payload, moved_payload
from benchmarks.harness import Measurable, Spec
from benchmarks.suites.common import hook_case, no_output

RECALL = f"hook UserPromptSubmit (recall over {RECALL_LEARNINGS:,} learnings"
RECALL_COLD_CAP = 5


def specs() -> list[Spec]:
    def spec(
        what: str,
        prompt: str,
        note: str,
        *,
        related: bool,
        change_one: bool = False,
        cold: bool = False,
    ) -> Spec:
        name = f"{RECALL}: {what})"

        def build(lab: Lab, n: int) -> Measurable:
            from pokayokay.recall.sources import ENTRIES_FILE, INDEX_FILE

            recall = shared_learnings(lab)
            project = recall.project
            recall.settle()  # warm: whatever an earlier row changed is in the cache again
            payload = moved_payload("UserPromptSubmit.json", project.path, prompt=prompt)
            touched = [0]
            cache = [project.state_dir / file for file in (INDEX_FILE, ENTRIES_FILE)]

            def drop_cache() -> None:
                for path in cache:
                    path.unlink(missing_ok=True)

            def complete() -> bool:
                """Whether the hook's parse budget covered every file (else the next prompt
                resumes, and a block is not guaranteed)."""
                from pokayokay.infra import packed

                index = packed.load(cache[0])
                return isinstance(index, dict) and not str(index["fingerprint"]).startswith(
                    "incomplete"
                )

            def touch_one() -> None:
                """Rewrite one learning file as /remember reinforcing it does: a new file
                renamed over the old one, and pokayokay's memory.changed marker touched."""
                from pokayokay.infra.state import mark_memory_changed

                touched[0] += 1
                path = recall.learning_files[touched[0] * 7 % len(recall.learning_files)]
                text = path.read_text("utf-8")
                tmp = path.with_name(f".{path.name}.bench.tmp")
                tmp.write_text(text.replace("observations: ", "observations: 1", 1), "utf-8")
                tmp.replace(path)
                mark_memory_changed(str(project.location.project_key), project.env)

            def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
                if cold and not complete():
                    return None
                if related and b"<pokayokay-recall>" not in proc.stdout:
                    return f"expected the recall block, got: {proc.stdout[:300]!r}"
                return None if related else no_output(proc)

            return hook_case(
                lab,
                name,
                "UserPromptSubmit",
                project,
                min(n, RECALL_COLD_CAP) if cold else n,
                stdin=encode_payload(payload),
                before_each=touch_one if change_one else drop_cache if cold else None,
                check_each=check,
                note=note,
            )

        return Spec(name, build, prepare=shared_learnings)

    return [
        spec(
            "warm, related prompt",
            RECALL_RELATED,
            "cache current; the prompt matches a learning: prints the fenced block",
            related=True,
        ),
        spec(
            "warm, unrelated prompt",
            RECALL_UNRELATED,
            "cache current; nothing clears the similarity floor: prints nothing",
            related=False,
        ),
        spec(
            "one learning changed",
            RECALL_RELATED,
            "one learning file rewritten (untimed) before each run, as /remember does: "
            "re-read, index rebuilt from the cached entries",
            related=True,
            change_one=True,
        ),
        spec(
            "cold, no cache",
            RECALL_RELATED,
            "cache files deleted (untimed) before each run: every file parsed, within the "
            "hook's parse budget (pokayokay.hooks.recall.PARSE_BUDGET)",
            related=True,
            cold=True,
        ),
    ]


# skill-155 is "Profile the payment gateway with redis" (no other skill pairs the two);
# elasticsearch is past the 200 generated skills' tools, so the old prompt's "profile the search
# indexing with elasticsearch" fitted none of them alone (tests/benchmarks/test_row_outcomes.py
# checks in the everyday tier that the rows' prompts still get what their checks want)
SUGGEST_PROMPT = "profile the payment gateway with redis, it times out under load"
SUGGEST_FAILING_PROMPT = (
    f"clean up src/app/{PY_MODULES[0]}.py and export the totals as a spreadsheet"
)
SUGGEST_NAME = (
    f"hook UserPromptSubmit (suggestion over {SUGGEST_SKILLS} skills, 10k stored failures)"
)


def shared_learnings(lab: Lab) -> RecallProject:
    """The 2,000 learnings every recall row shares."""
    return lab.shared(f"{RECALL_LEARNINGS:,} learnings", lambda: recall_project(lab))


def store_10k(lab: Lab) -> object:
    return store_fixture(lab, 10_000, "10k")


def suggest_spec() -> Spec:
    """Issue 5's goal: the UserPromptSubmit hook with 200 skills and 10k stored failure events
    (recall and suggestion both run; the prompt names a file with recorded failures)."""

    def build(lab: Lab, n: int) -> Measurable:
        g = store_fixture(lab, 10_000, "10k")
        project = g.project
        if not (project.path / ".claude" / "skills").exists():
            write_skills(project.path, SUGGEST_SKILLS, project.env)
        payload = moved_payload("UserPromptSubmit.json", project.path, prompt=SUGGEST_PROMPT)

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            if b"skills that fit this prompt" not in proc.stdout:
                return f"expected a skill suggestion, got: {proc.stdout[:300]!r}"
            return None

        return hook_case(
            lab,
            SUGGEST_NAME,
            "UserPromptSubmit",
            project,
            n,
            stdin=encode_payload(payload),
            check_each=check,
            note="catalog cached after the warm-up run; recall finds nothing, a skill fits",
        )

    return Spec(SUGGEST_NAME, build, prepare=store_10k)


EVAL_SKILLS = REPO / "tests" / "data" / "skills_eval" / "skills"
SUGGEST_FAILING_NAME = (
    f"hook UserPromptSubmit (suggestion over {SUGGEST_SKILLS} + 38 realistic skills, "
    "a file with recurring failures)"
)


def suggest_failing_spec() -> Spec:
    """Issue 12: the suggestion on a catalog of realistic skills (long descriptions, triggers,
    negative clauses) beside the 200 generated ones, for a prompt naming a project file whose
    tests failed in many sessions: the path is checked, the failure groups are read from the
    10k-event store and the skill concerning the failing tool is found."""

    def build(lab: Lab, n: int) -> Measurable:
        g = store_fixture(lab, 10_000, "10k")
        project = g.project
        skills = project.path / ".claude" / "skills"
        if not skills.exists():
            write_skills(project.path, SUGGEST_SKILLS, project.env)
        if not (skills / "xlsx").exists():
            shutil.copytree(EVAL_SKILLS, skills, dirs_exist_ok=True)
        payload = moved_payload(
            "UserPromptSubmit.json", project.path, prompt=SUGGEST_FAILING_PROMPT
        )

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            # "ruff failures recurred in 3 sessions …", or a failing test's "test `…` failed in …"
            told = b"failures recurred in " in proc.stdout or b"` failed in " in proc.stdout
            if not told or b"/xlsx" not in proc.stdout:
                return f"expected the failures and /xlsx, got: {proc.stdout[:400]!r}"
            return None

        return hook_case(
            lab,
            SUGGEST_FAILING_NAME,
            "UserPromptSubmit",
            project,
            n,
            stdin=encode_payload(payload),
            check_each=check,
            note="catalog cached after the warm-up run; the pytest failures of the file named",
        )

    return Spec(SUGGEST_FAILING_NAME, build, prepare=store_10k)
