"""The resident process holding the dense opinion's model, for skills and notes (decision 0181).

    python -m pokayokay.skills.dense_service [--warm PROJECT]

Started detached by SessionStart when ``pokayokay[dense]`` is installed
(:func:`pokayokay.relevance.dense.client.start`), one per state folder. It loads the model once
(:class:`~pokayokay.relevance.dense.model.Encoder`, under a second), encodes the starting
project's skills, then reads requests from its named pipe in pokayokay's private state folder
(:data:`~pokayokay.names.DENSE_FIFO`, mode 0600 in a 0700 folder), encoding the project's notes
a text at a time between them. A request asks, for a prompt and a project,
the cosine of every skill Claude may invoke there (:func:`pokayokay.relevance.dense.texts.
skill_texts`: its name and description, and each way a user might ask for it) and, when the
request names the folders recall reads, of every note (what recall shows of it and the
learning's phrases, read from the learnings themselves), written to the reply pipe the request
names, which must be a pipe in :data:`~pokayokay.names.DENSE_REPLIES`.
Vectors of the skills' texts are kept in memory, so a prompt costs one short forward pass; a
catalog seen for the first time is encoded once, and one that changed has its new texts encoded
a chunk at a time between requests (:data:`REFRESH_CHUNK`, decision 0187).

A request it cannot read is logged and dropped; nothing a request holds is ever run, and
nothing is written but the reply into the pipe the prompt made. It leaves after
:data:`IDLE_SECONDS` without a request, and when its pipe is replaced or removed (another
process took over, or the state folder went). What it does is logged to pokayokay's log.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from pokayokay.relevance.dense.client import ENV_KEYS, NOTE_DIRS  # what the hook sends
from pokayokay.relevance.dense.texts import MAX_PROMPT_CHARS, PROTOCOL, skill_texts

IDLE_SECONDS = 3600.0
# How often it looks whether its pipe is still its own, between requests.
CHECK_SECONDS = 5.0
# How long a reply may wait for room in the prompt's pipe (a pipe holds 64 kB on Linux).
WRITE_SECONDS = 1.0
# A reply pipe older than this was left by a prompt that went away: removed.
STALE_REPLY_SECONDS = 60.0
# Vectors kept (past this many, all are dropped: a catalog's few hundred texts are encoded
# again in a second or two).
MAX_VECTORS = 50_000
# Projects' catalogs kept (past this many, all are dropped and read again when asked).
MAX_CATALOGS = 64
# New texts of a catalog read again are encoded this many at a time, and a request waiting on
# the pipe is answered between two chunks (from the catalog as it was): a prompt waits for one
# chunk at most, never for a whole catalog (2,000 real-size notes take about a minute). One text
# is about 15 ms on one core; larger chunks encode no faster here (decision 0187).
REFRESH_CHUNK = 1
MAX_LINE_BYTES = 1 << 16
# Set to one before numpy loads: its BLAS would otherwise start a thread a core for a 1,000 x 384
# product and keep them spinning, on the cores the prompt hook runs on.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _log(message: str) -> None:
    print(f"pokayokay dense: {message}", file=sys.stderr, flush=True)


class Catalog:
    """One project's skills (or notes) as the model sees them: each one's name, the row of
    ``matrix`` its texts' vectors begin at (one row a text, every one has a text at least, its
    rows run to the next one's start), and the names a line each, as a reply sends them (a
    reply about 2,000 notes then costs one product and one reduction)."""

    __slots__ = ("joined", "matrix", "names", "stamp", "starts")

    def __init__(self, names: list[str], starts: list[int], matrix: Any, stamp: object) -> None:
        import numpy as np

        self.names = names
        self.starts = np.array(starts, dtype=np.intp)
        self.matrix = matrix
        self.stamp = stamp
        self.joined = "\n".join(names)


class Opinion:
    """The model, the vectors it computed (by text) and each project's catalog.

    A prompt is answered from the catalog as it was last read. When the project's cached
    catalog or the phrase table changed since (:func:`catalog_stamp`, two ``stat`` calls), it
    is read again after the answer is written (:meth:`work`): a skill installed a moment ago
    has its cosine once its texts are encoded (the hook names only skills it finds itself), and
    no prompt waits for the catalog to be read or for more than :data:`REFRESH_CHUNK` of its
    new texts to be encoded."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.vectors: dict[str, Any] = {}
        self.catalogs: dict[tuple[str, ...], Catalog] = {}
        self.stale: dict[tuple[str, ...], tuple[str, dict[str, str]]] = {}
        self.notes: dict[tuple[str, str, str], Catalog] = {}
        self._last: tuple[str, Any] | None = None
        self.stale_notes: set[tuple[str, str, str]] = set()
        # catalogs read again, installed once every text of theirs is encoded; those texts
        self.queue: list[tuple[bool, tuple[str, ...], list[tuple[str, list[str]]], object]] = []
        self.backlog: list[str] = []

    def busy(self) -> bool:
        """Whether a catalog waits to be read again or to have its texts encoded."""
        return bool(self.stale or self.stale_notes or self.queue)

    def _queued(self, key: tuple[str, ...]) -> bool:
        return any(k == key for _is_notes, k, _items, _stamp in self.queue)

    def later(
        self, is_notes: bool, key: tuple[str, ...], items: list[tuple[str, list[str]]],
        stamp: object,
    ) -> None:
        """Queue ``items`` read again (a catalog of notes or of skills): their new texts go to
        the backlog, which :meth:`work` encodes a chunk at a time."""
        texts = list(dict.fromkeys(t for _name, group in items for t in group))
        new = [t for t in texts if t not in self.vectors]
        if len(self.vectors) + len(new) > MAX_VECTORS:
            self.vectors.clear()
            new = texts
        self.backlog += new
        self.queue.append((is_notes, key, items, stamp))

    def work(self, interrupted: Callable[[], bool] = lambda: False) -> None:
        """Read again the catalogs answered from since they changed, and encode their new texts
        a chunk at a time, returning as soon as ``interrupted()`` says a request waits (the
        rest is done at the next call); once every text is encoded, the catalogs read again
        replace the old ones."""
        stale, self.stale = self.stale, {}
        for key, (project, environ) in stale.items():
            stamp = catalog_stamp(project, environ)  # before the read: a change meanwhile shows
            self.later(False, key, catalog_items(project, environ), stamp)
        notes, self.stale_notes = self.stale_notes, set()
        for dirs in notes:
            stamp = notes_stamp(dirs)
            self.later(True, dirs, note_items(dirs), stamp)
        while self.backlog:
            taken = dict.fromkeys(self.backlog[:REFRESH_CHUNK])
            del self.backlog[:REFRESH_CHUNK]
            chunk = [t for t in taken if t not in self.vectors]
            if chunk:
                for text, vector in zip(chunk, self.encoder.encode(chunk), strict=True):
                    self.vectors[text] = vector
            if self.backlog and interrupted():
                return
        queue, self.queue = self.queue, []
        for is_notes, key, items, stamp in queue:
            found = self.encoded(items, stamp)
            kept: dict[Any, Catalog] = self.notes if is_notes else self.catalogs
            if len(kept) >= MAX_CATALOGS:
                kept.clear()
            kept[key] = found
            _log(f"{len(found.names)} {'notes' if is_notes else 'skills'} encoded for {key[0]}")

    def vectors_of(self, texts: list[str]) -> list[Any]:
        new = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if new:
            if len(self.vectors) + len(new) > MAX_VECTORS:
                self.vectors.clear()
                new = list(dict.fromkeys(texts))
            for text, vector in zip(new, self.encoder.encode(new), strict=True):
                self.vectors[text] = vector
        return [self.vectors[t] for t in texts]

    def encoded(self, items: list[tuple[str, list[str]]], stamp: object) -> Catalog:
        """``items`` (each a name and its texts) as a :class:`Catalog`, their texts encoded."""
        import numpy as np

        names: list[str] = []
        starts: list[int] = []
        flat: list[str] = []
        for name, texts in items:
            names.append(name)
            starts.append(len(flat))
            flat.extend(texts)
        matrix = np.stack(self.vectors_of(flat)) if flat else np.zeros((0, 384), np.float32)
        return Catalog(names, starts, matrix, stamp)

    def load(self, project: str, environ: dict[str, str]) -> Catalog:
        """Read ``project``'s catalog now and keep it, its texts encoded."""
        stamp = catalog_stamp(project, environ)
        found = self.encoded(catalog_items(project, environ), stamp)
        if len(self.catalogs) >= MAX_CATALOGS:
            self.catalogs.clear()
        self.catalogs[_key(project, environ)] = found
        return found

    def catalog(self, project: str, environ: dict[str, str]) -> Catalog | None:
        """``project``'s catalog as last read (read now the first time, None while a warm
        request's read of it is under way: the prompt then goes without); read again by
        :meth:`work`."""
        key = _key(project, environ)
        found = self.catalogs.get(key)
        if found is None:
            if key in self.stale or self._queued(key):
                return None
            return self.load(project, environ)
        if found.stamp != catalog_stamp(project, environ) and not self._queued(key):
            self.stale[key] = (project, environ)
        return found

    def query(self, prompt: str) -> Any:
        """The prompt's vector (the last one kept: skills and notes often ask for the same)."""
        text = prompt[:MAX_PROMPT_CHARS]
        if self._last is None or self._last[0] != text:
            self._last = (text, self.encoder.encode([text])[0])
        return self._last[1]

    def notes_of(self, dirs: tuple[str, str, str]) -> Catalog | None:
        """The notes of ``dirs`` as last read; read again by :meth:`work` when the index
        changed. None the first time: thousands of notes take seconds to encode, so they are
        read after the answer (SessionStart's warm-up has usually read them already)."""
        found = self.notes.get(dirs)
        if (found is None or found.stamp != notes_stamp(dirs)) and not self._queued(dirs):
            self.stale_notes.add(dirs)
        return found

    def values(self, prompt: str, catalog: Catalog) -> Any:
        """Each skill's or note's best cosine with ``prompt`` over its texts, in the catalog's
        order (rounded to 6 places, as the gate was fitted)."""
        import numpy as np

        if not catalog.names:
            return np.zeros(0, dtype=np.float64)
        best = np.maximum.reduceat(catalog.matrix @ self.query(prompt), catalog.starts)
        return np.round(best.astype(np.float64), 6)

    def packed(self, prompt: str, catalog: Catalog) -> dict[str, str]:
        """:meth:`values` in the reply's form (:func:`packed`)."""
        return packed(catalog.joined, self.values(prompt, catalog))


def packed(names: str, values: Any) -> dict[str, str]:
    """The reply's form of cosines: ``names``, a line each, and ``values`` (in their order) as
    little-endian float32, in hex (the hook reads 2,000 in under a millisecond: two strings, no
    numbers to parse; :func:`pokayokay.relevance.dense.client.unpacked`)."""
    import numpy as np

    return {"names": names, "cosines": np.asarray(values, dtype="<f4").tobytes().hex()}


def notes_stamp(dirs: tuple[str, str, str]) -> object:
    """What changes when a project's notes do: the stats of its cached recall index and of the
    marker pokayokay touches when it writes a file recall reads."""
    from pokayokay.names import MEMORY_CHANGED, RECALL_INDEX_FILE

    out: list[tuple[int, int] | None] = []
    for name in (RECALL_INDEX_FILE, MEMORY_CHANGED):
        try:
            info = os.stat(os.path.join(dirs[2], name))
            out.append((info.st_mtime_ns, info.st_size))
        except OSError:
            out.append(None)  # none yet
    return tuple(out)


def notes_dirs(project: str) -> tuple[str, str, str]:
    """The folders recall reads ``project``'s notes from, as the prompt hook finds them in this
    process's environment (the session's that started it)."""
    from pokayokay.infra.location_rules import hook_memory_paths
    from pokayokay.infra.state import project_state_path

    paths = hook_memory_paths(project)
    state = project_state_path(str(paths.project_key))
    return str(paths.memory_dir), str(paths.project_dir), state


def note_items(dirs: tuple[str, str, str]) -> list[tuple[str, list[str]]]:
    """The notes recall reads for a project (its memory, project and state folders), each with
    its texts (:func:`~pokayokay.relevance.dense.texts.note_texts`: what recall shows, then the
    learning's phrases), in the index's order."""
    from pathlib import Path

    from pokayokay.learnings.topics.stored import load_learnings
    from pokayokay.recall.readers import learning_id
    from pokayokay.recall.sources import load
    from pokayokay.relevance.dense.texts import note_texts

    index = load(*dirs, budget=float("inf"), quick=True).index
    if index is None:
        return []
    stored, _problems = load_learnings(Path(dirs[0]))
    asked = {learning_id(s.file_name): s.learning.asked for s in stored}
    docs = [index.doc(i) for i in range(len(index))]
    return [(d.id, note_texts(d.text, asked.get(d.id, ()))) for d in docs]


def _key(project: str, environ: Mapping[str, str]) -> tuple[str, ...]:
    return (project, *(environ.get(k, "") for k in ENV_KEYS))


def catalog_stamp(project: str, environ: Mapping[str, str]) -> object:
    """What changes when ``project``'s skills or their phrases do: the stats of its cached
    catalog and of the phrase table."""
    from pokayokay.skills.asked import asked_path
    from pokayokay.skills.catalog import cache_stamp

    try:
        info = os.stat(asked_path(environ))
        table = (info.st_mtime_ns, info.st_size)
    except OSError:
        table = None  # no phrases written yet
    return (cache_stamp(project, environ), table)


def catalog_items(project: str, environ: Mapping[str, str]) -> list[tuple[str, list[str]]]:
    """The skills Claude may invoke in ``project``, each with its texts, as the prompt hook's
    quick check finds them (the same cached catalog)."""
    from pokayokay.skills.asked import asked_for, read_table
    from pokayokay.skills.catalog import load_catalog

    skills = load_catalog(project, environ, quick=True)
    table = read_table(environ)
    return [
        (s.name, skill_texts(s.name, s.description, asked_for(table, s.name, s.description)))
        for s in skills
        if s.model_invocable and s.description
    ]


def answer(opinion: Opinion, request: object) -> dict[str, Any]:
    """The reply to one request (a JSON value): ``{"v", "cosines"}``, ``{"v", "ok"}`` for a
    warm-up, or ``{"v", "error"}``."""
    if not isinstance(request, dict) or request.get("v") != PROTOCOL:
        return {"v": PROTOCOL, "error": "not a request of this protocol"}
    op, project, env = request.get("op"), request.get("project"), request.get("env", {})
    if op not in ("skills", "warm"):
        return {"v": PROTOCOL, "error": "unknown request"}
    if not isinstance(project, str) or not os.path.isabs(project) or not isinstance(env, dict):
        return {"v": PROTOCOL, "error": "a request names an absolute project folder"}
    prompt = request.get("prompt")
    if op == "skills" and not isinstance(prompt, str):
        return {"v": PROTOCOL, "error": "a request for skills holds the prompt"}
    environ = dict(os.environ)
    environ.update({k: v for k, v in env.items() if k in ENV_KEYS and isinstance(v, str)})
    if op == "warm":  # read after the answer, by work(): a prompt waits for one chunk at most
        notes = request.get("recall")
        if isinstance(notes, dict):
            dirs = tuple(notes.get(k) for k in NOTE_DIRS)
            if all(isinstance(d, str) and os.path.isabs(d) for d in dirs):
                opinion.stale_notes.add(dirs)  # type: ignore[arg-type]
        opinion.stale[_key(project, environ)] = (project, environ)
        return {"v": PROTOCOL, "ok": True}
    assert isinstance(prompt, str)
    reply: dict[str, Any] = {"v": PROTOCOL}
    notes = request.get("recall")
    if isinstance(notes, dict):  # the notes first: recall reads its answer before suggestion
        dirs = tuple(notes.get(k) for k in NOTE_DIRS)
        text = notes.get("prompt")
        if all(isinstance(d, str) and os.path.isabs(d) for d in dirs) and isinstance(text, str):
            known = opinion.notes_of(dirs)  # type: ignore[arg-type]
            if known is not None:
                packed = opinion.packed(text, known)
                reply.update(notes=packed["names"], note_cosines=packed["cosines"])
    catalog = opinion.catalog(project, environ)
    return reply if catalog is None else {**reply, **opinion.packed(prompt, catalog)}


def reply_to(path: object, replies: str, text: bytes) -> bool:
    """Write ``text`` into the prompt's pipe ``path``, which must be a pipe directly inside
    ``replies`` (never a link, never another file); False when it is not, or its reader left."""
    import select

    if not isinstance(path, str) or os.path.dirname(path) != replies:
        return False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW)  # ENXIO: reader gone
    except OSError:
        return False
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False
        deadline = time.monotonic() + WRITE_SECONDS
        while text:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [fd], [], left)[1]:
                return False
            text = text[os.write(fd, text) :]
        return True
    except OSError:  # the reader left while it was written: that prompt decided without it
        return False
    finally:
        os.close(fd)


def handle(opinion: Opinion, line: bytes, replies: str) -> None:
    """One request line: answered into its reply pipe, if it names one."""
    from pokayokay.infra.lean_json import decode, dumps, loads

    try:
        request = loads(decode(line))
    except ValueError as exc:
        _log(f"a request that is not JSON was dropped ({exc})")
        return
    try:
        reply = answer(opinion, request)
    except Exception as exc:  # a bad request or project never stops the service
        reply = {"v": PROTOCOL, "error": f"{type(exc).__name__}: {exc}"[:300]}
    if "error" in reply:
        _log(f"a request was refused: {reply['error']}")
    target = request.get("reply") if isinstance(request, dict) else None
    if target is not None:
        reply_to(target, replies, dumps(reply, separators=(",", ":")).encode("ascii") + b"\n")


def work(opinion: Opinion, interrupted: Callable[[], bool]) -> None:
    """:meth:`Opinion.work`, after the answers; a failure is logged, never the service's end."""
    try:
        opinion.work(interrupted)
    except Exception as exc:  # a project that cannot be read now is read at its next prompt
        opinion.queue, opinion.backlog = [], []
        _log(f"a catalog could not be read again ({type(exc).__name__}: {exc})")


def remove_stale_replies(replies: str, now: float | None = None) -> None:
    """Remove the reply pipes prompts left behind (a hook killed before it read its answer)."""
    now = time.time() if now is None else now
    try:
        names = os.listdir(replies)
    except OSError:
        return  # no folder: nothing was left
    for name in names:
        path = os.path.join(replies, name)
        try:
            info = os.lstat(path)
            if stat.S_ISFIFO(info.st_mode) and now - info.st_mtime > STALE_REPLY_SECONDS:
                os.unlink(path)
        except OSError:
            continue  # removed by its prompt meanwhile


def serve(fifo: str, replies: str, opinion: Opinion, idle: float = IDLE_SECONDS) -> None:
    """Answer the requests written to ``fifo`` until idle for ``idle`` seconds, or until the
    pipe is no longer the one made here."""
    import select

    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # read-write: never an end of file
    mine = os.fstat(fd).st_ino
    last = time.monotonic()
    pending = b""
    _log(f"serving on {fifo}")
    try:
        while time.monotonic() - last < idle:
            try:
                if os.stat(fifo).st_ino != mine:
                    break  # another service took over
            except OSError:
                break  # the pipe, or the state folder, was removed: nobody can ask any more
            waiting = lambda: bool(select.select([fd], [], [], 0)[0])  # noqa: E731
            if not select.select([fd], [], [], 0 if opinion.busy() else CHECK_SECONDS)[0]:
                if opinion.busy():
                    work(opinion, waiting)  # a chunk or more, until a request comes
                else:
                    remove_stale_replies(replies)
                continue
            try:
                pending += os.read(fd, MAX_LINE_BYTES)
            except BlockingIOError:
                continue  # another reader took it (none should): wait for the next
            last = time.monotonic()
            *lines, pending = pending.split(b"\n")
            if len(pending) > MAX_LINE_BYTES:
                pending = b""  # no request is this long: the rest of it is dropped
            for line in lines:
                if line.strip():
                    handle(opinion, line, replies)
            work(opinion, waiting)  # after the answers: no prompt waits for a catalog's check
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):  # removed by whoever took over, or with the folder
            if os.stat(fifo).st_ino == mine:
                os.unlink(fifo)
        _log("stopped")


def main(argv: list[str] | None = None) -> int:
    """``--warm PROJECT``: encode that project's skills first. When a service already runs
    (it holds the lock), ask it to encode them and leave."""
    import argparse
    import fcntl

    from pokayokay.infra.state import private_folder, state_home_path
    from pokayokay.relevance.dense.client import places, warm
    from pokayokay.relevance.dense.model import Encoder, ModelUnavailable

    for name in BLAS_THREADS:  # one thread, never spinning: the prompt hook needs the other core
        os.environ.setdefault(name, "1")
    parser = argparse.ArgumentParser(prog="python -m pokayokay.skills.dense_service")
    parser.add_argument("--warm", metavar="PROJECT", help="encode this project's skills first")
    parser.add_argument(
        "--notes",
        nargs=3,
        metavar=("MEMORY_DIR", "PROJECT_DIR", "STATE_DIR"),
        help="and the notes recall reads from these folders",
    )
    args = parser.parse_args(argv)
    found = places()
    if found is None:
        _log("not started: it needs a POSIX system")
        return 1
    fifo, replies = found
    private_folder(state_home_path())
    private_folder(replies)
    lock = os.open(fifo + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a service runs (or is starting): it encodes the project instead
            if args.warm:
                warm(args.warm, notes=args.notes)
            return 0
        started = time.monotonic()
        try:
            opinion = Opinion(Encoder())
            if args.warm:  # the skills before the pipe is made (a few seconds); the notes, over
                # a minute at 2,000, a chunk at a time once it serves (no opinion on notes until)
                project = os.path.abspath(args.warm)
                opinion.load(project, dict(os.environ))
                notes = args.notes or notes_dirs(project)
                opinion.stale_notes.add((notes[0], notes[1], notes[2]))
        except ModelUnavailable as exc:
            _log(f"not started: {exc}")
            return 1
        with contextlib.suppress(FileNotFoundError):  # none was left
            os.unlink(fifo)  # the pipe of a service that was killed
        os.mkfifo(fifo, 0o600)
        _log(f"ready in {time.monotonic() - started:.2f} s")
        serve(fifo, replies, opinion)
    finally:
        os.close(lock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
