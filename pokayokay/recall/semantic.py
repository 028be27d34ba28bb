"""Semantic recall (the optional ``pokayokay[semantic]`` extra): a sentence-embedding model's
opinion added to the lexical score.

When numpy is installed and ``pokayokay semantic fetch`` has put the model in pokayokay's state
folder (:mod:`pokayokay.recall.model_fetch`), every recallable note has a vector
(:mod:`pokayokay.recall.encoder`), cached in the project's state folder keyed by a digest of its
text: they are computed when a learning is stored (``pokayokay remember``, ``consolidate``,
``semantic fetch`` call :func:`refresh`, through ``pokayokay.cli.semantic``), so a prompt
embeds only itself — plus at most
:data:`MAX_PROMPT_EMBEDS` notes that appeared some other way (a file edited by hand, a fix
episode), which are then cached too; when more are missing (the model just fetched for another
project full of notes), ``pokayokay semantic refresh`` embeds the rest in the background, started
at most once per :data:`CATCH_UP_INTERVAL`.

The one place the two opinions meet is :func:`boosts`, whose result
:func:`pokayokay.recall.index.recall` adds to the lexical score: a note whose cosine with the
prompt exceeds :data:`BASELINE` gains :data:`BOOST` times the excess (times the note's prior).
With these constants a note needs some lexical evidence: the
model lifts a note the words found too weakly (below the floor) and reorders, it never recalls a
note on meaning alone. Automatic past fixes get no boost (:data:`UNEMBEDDED`). Calibrated on
every set of ``tests/data/recall_eval`` after the lexical scorer's ambiguity rule
(``tests/recall/test_semantic_recall.py`` recomputes it) as the largest lift that costs no set any
silence: hits held-out 0.81 → 0.84, blind 0.43 → 0.49, older set 0.93 → 0.98, the other sets
unchanged, silence unchanged everywhere. Over the wider concept table of issue 12 item 3 the words
find most of that themselves: the same boost adds blind 0.86 → 0.89 and older 0.95 → 0.98, and
a grid of boosts and baselines (additive or proportional to the lexical score) on the tuned and
held-out sets finds nothing better that keeps their silence. Letting a note qualify on the model
alone (a cosine above a threshold, with a margin over the runner-up) was measured and left out:
unrelated prompts reach a top cosine of 0.44 with a 0.21 margin, while the paraphrases the words
miss reach at most 0.38. The boost the previous scorer was calibrated with
(0.75 above 0.10) lifted hits further (held-out 0.90, blind 0.71) but answered unrelated prompts
(held-out silence 0.89 → 0.53): the model alone is weak on paraphrases written to avoid every key
word, and no floor separates its related from its unrelated prompts.

``recall.semantic`` in the settings (or ``POKAYOKAY_SEMANTIC`` in the environment) is ``auto``
(the default: used when installed and fetched), ``on`` (the same; ``doctor`` then reports its
absence as a problem) or ``off``. Anything missing means lexical recall, silently: ``doctor`` and
``status`` say so in one line (:func:`describe`). An error is logged (fail open) and the prompt
gets lexical recall.
"""

from __future__ import annotations

import os

from pokayokay.names import (
    MODELS_DIR,
    SEMANTIC_CATCH_UP_FILE,
    SEMANTIC_MODE_FILE,
    SEMANTIC_MODEL_DIR,
    SEMANTIC_VECTORS_FILE,
)

TYPE_CHECKING = False  # the prompt hook imports this module
if TYPE_CHECKING:
    from typing import Any

    from pokayokay.recall.index import Index

MODES = ("auto", "on", "off")
# Automatic past fixes are machine-written ("E501 Line too long ... Resolved by `ruff format`"):
# the model reads them poorly, and boosting them cost silence on the evaluation set.
UNEMBEDDED = frozenset({"fix"})
ENV_MODE = "POKAYOKAY_SEMANTIC"
BOOST = 0.3
BASELINE = 0.2
# Notes without a cached vector that a prompt embeds itself (10-20 ms each); when more are
# missing, the prompt starts `pokayokay semantic refresh` in the background for the rest.
MAX_PROMPT_EMBEDS = 4
# A background catch-up is started at most this often per project (seconds).
CATCH_UP_INTERVAL = 600
# The prompt is embedded up to this many characters (the model reads 256 tokens at most).
MAX_QUERY_CHARS = 2000
MAGIC = b"pokayokay-vectors 1\n"
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
MAX_VECTOR_BYTES = 256 << 20


# --------------------------------------------------------------------------------------------
# Where things are, and whether semantic recall is on


def model_dir(environ: dict[str, str] | None = None) -> str:
    """The model's folder (shared by every project) in pokayokay's state home."""
    from pokayokay.infra.state import state_home_path

    return os.path.join(state_home_path(environ), MODELS_DIR, SEMANTIC_MODEL_DIR)


def numpy_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("numpy") is not None


# What the encoder reads (pokayokay.recall.encoder's WEIGHTS, CONFIG and VOCAB; named here so
# that the prompt hook's check imports nothing when no model was fetched).
MODEL_FILES = ("model.safetensors", "config.json", "vocab.txt")


def model_fetched(folder: str | None = None) -> bool:
    folder = folder or model_dir()
    return all(os.path.isfile(os.path.join(folder, name)) for name in MODEL_FILES)


def _settings_stats(project_dir: str) -> list[list[int] | None]:
    from pokayokay.recall.readers import SETTINGS_FILES, stat_key

    return [stat_key(os.path.join(project_dir, rel)) for rel in SETTINGS_FILES]


def mode(project_dir: str, state_dir: str, environ: dict[str, str] | None = None) -> str:
    """``auto``, ``on`` or ``off``: the environment, else the settings (``recall.semantic``).

    The settings are parsed only when a settings file changed since the last answer, which is
    kept in the project's state folder: parsing them costs more than the prompt's whole recall.
    """
    env = os.environ if environ is None else environ
    forced = env.get(ENV_MODE, "").strip().lower()
    if forced in MODES:
        return forced
    stats = _settings_stats(project_dir)
    if not any(stats):
        return "auto"
    from pokayokay.recall.cache_io import load_json, save_json

    path = os.path.join(state_dir, SEMANTIC_MODE_FILE)
    cached = load_json(path)
    if isinstance(cached, dict) and cached.get("stats") == stats and cached.get("mode") in MODES:
        return str(cached["mode"])
    try:
        from pathlib import Path

        from pokayokay.config.settings import load_settings

        found = load_settings(Path(project_dir)).recall_semantic
    except Exception as exc:  # a broken settings file must not cost the prompt its recall
        from pokayokay.infra.logs import fail_open

        fail_open("semantic recall: reading the settings (auto used)", exc)
        return "auto"
    save_json(path, {"stats": stats, "mode": found})
    return found


def describe(project_dir: str, state_dir: str) -> tuple[bool, str]:
    """For ``doctor`` and ``status``: (is it a problem, one line saying what semantic recall
    does here). A problem only when the settings ask for ``on`` and something is missing."""
    chosen = mode(project_dir, state_dir)
    if chosen == "off":
        return False, "semantic recall: off (recall.semantic); recall is lexical"
    problem = chosen == "on"
    if not numpy_installed():
        return problem, (
            "semantic recall: not installed (lexical only); "
            "pip install 'pokayokay[semantic]', then pokayokay semantic fetch"
        )
    if not model_fetched():
        return problem, (
            "semantic recall: model not fetched (lexical only); pokayokay semantic fetch"
        )
    keys, _ = load_vectors(os.path.join(state_dir, SEMANTIC_VECTORS_FILE))
    return False, f"semantic recall: on (all-MiniLM-L6-v2; {len(keys)} note vectors cached)"


def active(project_dir: str, state_dir: str) -> bool:
    # Cheapest checks first: most installs have no model, and then nothing else is read.
    return model_fetched() and mode(project_dir, state_dir) != "off" and numpy_installed()


# --------------------------------------------------------------------------------------------
# The vector cache: MAGIC, one JSON line {"dims", "keys"}, then float32 rows in key order


def key(text: str) -> str:
    """The cache key of a note: a digest of the text it is embedded from."""
    import hashlib

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def load_vectors(path: str) -> tuple[list[str], Any]:
    """The cached keys and their vectors (a ``len(keys) × dims`` float32 array; None when
    there are none). A damaged or foreign file counts as empty."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_VECTOR_BYTES + 1)
    except OSError:
        return [], None
    if not data.startswith(MAGIC) or len(data) > MAX_VECTOR_BYTES:
        return [], None
    end = data.find(b"\n", len(MAGIC))
    import json

    try:
        header = json.loads(data[len(MAGIC) : end])
        keys, dims = header["keys"], int(header["dims"])
    except (ValueError, KeyError, TypeError):
        return [], None
    body = data[end + 1 :]
    if not isinstance(keys, list) or dims <= 0 or len(body) != 4 * dims * len(keys) or not keys:
        return [], None
    import numpy as np

    return [str(k) for k in keys], np.frombuffer(body, dtype="<f4").reshape(len(keys), dims)


def save_vectors(path: str, keys: list[str], matrix: Any) -> None:
    """Atomically replace the cache (a cache that cannot be written is only a slower prompt)."""
    import json

    import numpy as np

    from pokayokay.infra.packed import write_private

    header = json.dumps({"dims": int(matrix.shape[1]), "keys": keys}, separators=(",", ":"))
    body = np.ascontiguousarray(matrix, dtype="<f4").tobytes()
    write_private(path, MAGIC + header.encode("ascii") + b"\n" + body)


def _vectors_for(
    index: Index, state_dir: str, model: Any, limit: int | None, project_dir: str
) -> tuple[Any, list[int]]:
    """The vectors of the index's notes, in index order, embedding those missing from the cache
    (at most ``limit`` of them) and saving the cache when anything was added or is stale.
    Returns the matrix and the index positions it covers."""
    import numpy as np

    path = os.path.join(state_dir, SEMANTIC_VECTORS_FILE)
    keys, matrix = load_vectors(path)
    if matrix is not None and matrix.shape[1] != model.hidden:
        keys, matrix = [], None
    where = {k: i for i, k in enumerate(keys)}
    wanted = [
        (d, key(doc.text))
        for d, doc in ((d, index.doc(d)) for d in range(len(index)))
        if doc.kind not in UNEMBEDDED
    ]
    missing: list[tuple[int, str]] = []
    queued: set[str] = set()
    for d, k in wanted:
        if k not in where and k not in queued:
            queued.add(k)
            missing.append((d, k))
    if limit is not None and len(missing) > limit:
        _catch_up_later(state_dir, project_dir)
        missing = missing[:limit]
    if missing:
        fresh = model.embed([index.doc(d).text for d, _ in missing])
        base = len(keys)
        keys = keys + [k for _, k in missing]
        matrix = fresh if matrix is None else np.vstack([matrix, fresh])
        where.update({k: base + i for i, (_, k) in enumerate(missing)})
    covered = [d for d, k in wanted if k in where]
    if matrix is None or not covered:
        return None, []
    rows = [where[k] for d, k in wanted if k in where]
    live = sorted(set(rows))
    if limit is None and len(live) < len(keys):
        # Only the current notes' vectors are kept (a deleted note's goes with it) — when every
        # note was looked at: a prompt's index may be incomplete (its parse budget).
        save_vectors(path, [keys[i] for i in live], matrix[live])
    elif missing:
        save_vectors(path, keys, matrix)
    return matrix[rows], covered


def _catch_up_later(state_dir: str, project_dir: str) -> None:
    """More notes lack a vector than a prompt may embed (the model was just fetched for a
    project with many notes, or notes arrived by hand): ``pokayokay semantic refresh`` embeds
    them in the background, started at most once per :data:`CATCH_UP_INTERVAL` per project."""
    import time

    marker = os.path.join(state_dir, SEMANTIC_CATCH_UP_FILE)
    try:
        if time.time() - os.stat(marker).st_mtime < CATCH_UP_INTERVAL:
            return
    except OSError:
        pass  # no marker: catch up now
    try:
        from pokayokay.infra.state import PRIVATE_FILE, private_folder

        private_folder(state_dir)
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{time.time():.0f}\n")
    except OSError:
        return  # no marker, no start: a storm of background processes is worse than a slow catch-up
    _detach_refresh(project_dir)


def _detach_refresh(project_dir: str) -> None:
    from pokayokay.infra.detach import detach_command

    args = ["semantic", "refresh", "--quiet", "--project", project_dir]
    detach_command(args, "semantic recall: notes without a vector, embedded in the background")


# --------------------------------------------------------------------------------------------
# The two entry points: at prompt time, and when notes are stored


def boosts(
    index: Index,
    prompt: str,
    state_dir: str,
    project_dir: str,
    *,
    embed_limit: int | None = MAX_PROMPT_EMBEDS,
) -> dict[int, float] | None:
    """What semantic similarity adds to each note's lexical score for ``prompt`` (document
    index → boost, before the note's prior); None when semantic recall is off or unavailable.
    At most ``embed_limit`` notes missing from the cache are embedded (None: all of them; a
    command can wait, a prompt cannot)."""
    if not len(index) or not active(project_dir, state_dir):
        return None
    # One BLAS thread: a prompt is a few small matrix products, and OpenBLAS starting its
    # thread pool when numpy loads costs more than they do (numpy's import, measured: about
    # 140 ms → 80 ms on a 2-core machine). Read once, when numpy is first imported.
    for var in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(var, "1")
    try:
        from pokayokay.recall.encoder import load

        model = load(model_dir())
        matrix, covered = _vectors_for(index, state_dir, model, embed_limit, project_dir)
        if matrix is None:
            return None
        query = model.embed([prompt[:MAX_QUERY_CHARS]])[0]
        sims = matrix @ query
    except Exception as exc:  # a broken model or cache costs the prompt only its semantic part
        from pokayokay.infra.logs import fail_open

        fail_open("semantic recall (lexical used)", exc)
        return None
    return {
        d: BOOST * (float(s) - BASELINE)
        for d, s in zip(covered, sims.tolist(), strict=True)
        if s > BASELINE
    }


def refresh(index: Index | None, state_dir: str, project_dir: str) -> int:
    """Embed every note of ``index`` missing from the vector cache (and drop the vectors of
    notes gone); the number of notes embedded. Nothing (0) when semantic recall is off or
    unavailable. Errors propagate: the caller decides how loud to be."""
    if index is None or not len(index) or not active(project_dir, state_dir):
        return 0
    from pokayokay.recall.encoder import load

    path = os.path.join(state_dir, SEMANTIC_VECTORS_FILE)
    before = set(load_vectors(path)[0])
    model = load(model_dir())
    _vectors_for(index, state_dir, model, None, project_dir)
    return len(set(load_vectors(path)[0]) - before)
