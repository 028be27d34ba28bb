"""The optional semantic recall (``pokayokay[semantic]``): the UserPromptSubmit hook with the model
installed, beside the same prompt with it switched off, and numpy's own import as a floor.

Listed only when numpy is installed and a fetched model is found: ``$POKAYOKAY_SEMANTIC_MODEL``,
else ``~/.cache/pokayokay-semantic/models/all-MiniLM-L6-v2`` (where ``.ci/run`` fetches it), else
the model of the real state home. It is linked, read only, into the lab's state home. The note
vectors are computed untimed first (what ``pokayokay remember`` does when a learning is stored),
so a timed prompt embeds only itself.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.fixtures.lab import REPO, Lab, Project
from benchmarks.fixtures.learnings import RECALL_LEARNINGS, recall_project, write_learnings
from benchmarks.fixtures.memory import encode_payload, moved_payload
from benchmarks.harness import Case, Measurable, Spec
from benchmarks.suites.common import hook_case

EVAL = REPO / "tests" / "data" / "recall_eval" / "learnings.json"
# A paraphrase lexical recall finds too weakly among the evaluation set's learnings (L40: CSV
# exports); the model lifts it over the floor.
PARAPHRASE = "admin wants an excel download of all students"
EXPECTED = b"<pokayokay-recall>"
NUMPY_FLOOR = "python -c 'import numpy' (one BLAS thread, as the hook loads it)"
EVAL_ROW = "hook UserPromptSubmit (semantic recall over the 45 evaluation learnings: {})"
LARGE_ROW = f"hook UserPromptSubmit (semantic recall over {RECALL_LEARNINGS:,} learnings: {{}})"


def model_source() -> Path | None:
    """A fetched model to benchmark with, or None (the rows are then not listed)."""
    if importlib.util.find_spec("numpy") is None:
        return None
    from pokayokay.recall.semantic import model_dir

    cache = Path(os.path.expanduser("~")) / ".cache" / "pokayokay-semantic" / "models"
    for candidate in (
        os.environ.get("POKAYOKAY_SEMANTIC_MODEL"),
        str(cache / "all-MiniLM-L6-v2"),
        model_dir(),
    ):
        if candidate and (Path(candidate) / "model.safetensors").is_file():
            return Path(candidate).resolve()
    return None


def _install(lab: Lab, source: Path) -> None:
    from pokayokay.recall.semantic import model_dir

    target = Path(model_dir(lab.env))
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(source, target_is_directory=True)


def _one_blas_thread() -> dict[str, str]:
    from pokayokay.recall.semantic import BLAS_THREAD_VARIABLES

    return {var: "1" for var in BLAS_THREAD_VARIABLES}


def _embed_notes(project: Project) -> None:
    """The notes' vectors, as `pokayokay remember` leaves them (untimed). One BLAS thread, as
    the hook loads numpy: the prebuild runs it beside other fixtures, and on a busy 2-core
    machine a BLAS pool per core took 155 s where one thread takes about 15."""
    subprocess.run(
        [sys.executable, "-c", "import sys\n"
         "from pokayokay.cli.semantic import refresh_location\n"
         "from pokayokay.infra.locate import resolve_memory_location\n"
         "from pathlib import Path\n"
         "print(refresh_location(resolve_memory_location(Path(sys.argv[1]))))",
         str(project.path)],
        env=dict(project.env, POKAYOKAY_SEMANTIC="auto", **_one_blas_thread()), check=True,
        capture_output=True,
    )  # fmt: skip


def _eval_project(lab: Lab) -> Project:
    project = lab.project("semantic-eval-learnings")
    notes = json.loads(EVAL.read_text("utf-8"))["notes"]
    write_learnings(
        project.memory_dir, [(n["text"], n["category"]) for n in notes if n["kind"] == "learning"]
    )
    return project


def specs() -> list[Spec]:
    source = model_source()
    if source is None:
        return []

    def floor(lab: Lab, n: int) -> Measurable:
        from pokayokay.recall.semantic import BLAS_THREAD_VARIABLES

        env = dict(lab.env, **{var: "1" for var in BLAS_THREAD_VARIABLES})
        return Case(NUMPY_FLOOR, [sys.executable, "-c", "import numpy"], n, lab.root, env)

    def ready(lab: Lab, large: bool) -> Project:
        """The model linked in, the learnings written and their vectors computed (shared)."""
        assert source is not None
        lab.shared("the semantic model, linked", lambda: _install(lab, source))
        if large:
            project = lab.shared(
                f"{RECALL_LEARNINGS:,} learnings", lambda: recall_project(lab)
            ).project
        else:
            project = lab.shared("45 evaluation learnings", lambda: _eval_project(lab))
        lab.shared(f"note vectors of {project.path.name}", lambda: _embed_notes(project))
        return project

    def row(name: str, *, large: bool, semantic: bool) -> Spec:
        def build(lab: Lab, n: int) -> Measurable:
            project = ready(lab, large)
            if large:
                prompt = "the nightly job that cleans expired sessions keeps timing out"
            else:
                prompt = PARAPHRASE
            payload = moved_payload("UserPromptSubmit.json", project.path, prompt=prompt)

            def payload_of(run: int) -> bytes:
                """A new session each run: a note shown earlier in a session is not shown
                again (recall's manners), and every run must do the whole work."""
                return encode_payload(dict(payload, session_id=f"semantic-bench-{run}"))
            env = dict(project.env, POKAYOKAY_SEMANTIC="auto" if semantic else "off")
            wired = Project(project.path, project.memory_dir, env, project.location)

            def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
                if semantic and not large and EXPECTED not in proc.stdout:
                    return f"expected the recall block, got: {proc.stdout[:300]!r}"
                if not semantic and EXPECTED in proc.stdout:
                    return "lexical recall was expected to miss this paraphrase"
                return None

            return hook_case(
                lab,
                name,
                "UserPromptSubmit",
                wired,
                n,
                stdin_each=payload_of,
                check_each=check,
                note="note vectors cached; the prompt alone is embedded"
                if semantic
                else "POKAYOKAY_SEMANTIC=off: lexical recall, same prompt",
            )

        return Spec(name, build, prepare=lambda lab: ready(lab, large))

    return [
        Spec(NUMPY_FLOOR, floor),
        row(EVAL_ROW.format("the paraphrase, model on"), large=False, semantic=True),
        row(EVAL_ROW.format("the same prompt, model off"), large=False, semantic=False),
        row(LARGE_ROW.format("warm, model on"), large=True, semantic=True),
    ]
