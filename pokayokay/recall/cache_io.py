"""The recall cache's file I/O and row format, shared by the sources and the fix episodes."""

from __future__ import annotations

import marshal
import os

from pokayokay.relevance.note_index import Document, Index
from pokayokay.relevance.postings import bucket_of, packed_buckets

TYPE_CHECKING = False  # the prompt hook imports this module
if TYPE_CHECKING:
    from typing import Any

    from pokayokay.infra.packed import Tail

MAX_TEXT_CHARS = 2000


def shown_text(text: str) -> str:
    """The text a finding will show, cleaned now (on read) and clipped for the block."""
    from pokayokay.recall.block import safe_text

    return safe_text(text[: MAX_TEXT_CHARS * 4])


def document_row(doc: Document, counts: dict[str, int]) -> list[Any]:
    """A document and its term counts as the list row a cache file stores."""
    return [doc.id, doc.kind, doc.label, doc.text, doc.weight, doc.clean, counts, doc.asked]


def load_json(path: str) -> Any:
    """The JSON value of a cache file; None when it is missing or damaged."""
    from pokayokay.infra.lean_json import loads  # json's import costs a prompt more than the read

    try:
        with open(path, encoding="utf-8") as fh:
            return loads(fh.read())
    except (OSError, ValueError):
        return None


def unlink_quietly(path: str) -> None:
    """Remove a cache file; a file already gone or not removable is left to the next rebuild."""
    try:  # noqa: SIM105 - contextlib is one more import on the prompt path
        os.unlink(path)
    except OSError:
        pass  # the next rebuild replaces it


def _load_packed(path: str) -> Any:
    """The recall index file (``pokayokay.infra.packed``: marshal's format, ~6x faster to load
    than JSON at 2,000 learnings), or None."""
    from pokayokay.infra import packed

    return packed.load(path)


def _save_packed(path: str, data: dict[str, Any]) -> None:
    from pokayokay.infra import packed

    packed.save(path, data)


def save_json(path: str, data: object, *, small: bool = False) -> None:
    """Atomically replace ``path``; a cache that cannot be written is only a slower prompt.

    ASCII JSON (file names may carry surrogate escapes), private to the user like the rest of
    the state folder (it quotes memory files). ``small``: a few values, written by
    :func:`pokayokay.infra.lean_json.dumps` (the same text, without json's import: decision 0159).
    """
    from pokayokay.infra.packed import write_private

    if small:
        from pokayokay.infra.lean_json import dumps

        text = dumps(data, separators=(",", ":"))
    else:
        import json

        text = json.dumps(data, separators=(",", ":"))  # the C encoder: fast
    write_private(path, text.encode("ascii"))


# --------------------------------------------------------------------------------------------
# The index file: what every prompt reads in the values, the documents and the learning files'
# stamps in the tail (``pokayokay.infra.packed``), read only for the notes a prompt looks at.


def save_index(path: str, meta: dict[str, Any], index: Index, stamps: str) -> None:
    """Save ``index`` with ``meta`` (fingerprint, quick key ...) and the stamps text: the
    documents' rows and the stamps go to the file's tail, the rows' offsets with the values."""
    import array

    from pokayokay.infra import packed

    text = stamps.encode("utf-8", "surrogatepass")
    read = index._rows
    if isinstance(read, IndexRows):  # read from such a file: rows and postings copied as stored
        columns = Index([], index.lengths, index.norms, {}, index.weights, None, index.cnorms,
                        rare_from=index.rare_idf())  # fmt: skip
        data, offsets, blob = columns.to_data(), read._offsets, read.blob()
        buckets, postings = read.postings.offsets.tobytes(), read.postings.blob()
    else:
        data = index.to_data()
        rows = [row.encode("utf-8", "surrogatepass") for row in data.pop("docs")]
        sizes = array.array("I", [0])
        for row in rows:
            sizes.append(sizes[-1] + len(row))
        offsets, blob = memoryview(sizes), b"".join(rows)
        starts, postings = packed_buckets(data["postings"])
        buckets = array.array("I", starts).tobytes()
    data.pop("docs", None)
    del data["postings"]
    data["buckets"] = buckets
    head = dict(meta, index=data, rows=offsets.tobytes(), stamps=[len(blob), len(text)])
    packed.save(path, dict(head, token=_new_token()), blob + text + postings)


def resave_head(path: str, data: dict[str, Any], rows: IndexRows, meta: dict[str, Any]) -> None:
    """Replace the index file that :func:`read_index_file` read as ``data`` and ``rows`` with
    the same file but ``meta`` (fingerprint, quick key ...) in its head: the index's values are
    written back as they were read and the tail (rows and stamps) is copied byte for byte, so
    nothing is serialised again (decision 0123). Call it before the index read from ``data``
    answers a query (its postings are parsed in place then)."""
    from pokayokay.infra import packed

    tail = rows._tail
    try:
        blob = tail.read(0, tail.size)
    except ValueError:
        return  # the file went bad meanwhile: the next prompt rebuilds it
    head = dict(meta, index=data["index"], rows=data["rows"], stamps=data["stamps"])
    packed.save(path, dict(head, token=_new_token()), blob)


# --------------------------------------------------------------------------------------------
# The quick key file (decision 0135): a prompt after Claude rewrote MEMORY.md outside Key
# Decisions only has a new quick key to record. It goes to a small file of its own, tied to the
# index file it vouches for by the token every write of that file draws afresh, instead of a
# rewrite of the whole index file (~1.3 MB at 2,000 learnings).


def quick_file(path: str) -> str:
    """The quick key file beside the index file ``path``."""
    return f"{path}{QUICK_SUFFIX}"


QUICK_SUFFIX = ".quick"


def _new_token() -> str:
    """A token no earlier write of the index file had (so no older quick key file matches)."""
    return os.urandom(8).hex()


def save_quick(path: str, data: dict[str, Any], quick: str, rest: str | None = None) -> bool:
    """Record ``quick`` (and ``rest``, the key without Key Decisions' files, when given) as the
    quick keys of the index file ``path`` read as ``data``; False when that file has no token
    (written by an earlier version: the caller rewrites its head)."""
    from pokayokay.infra import packed

    token = data.get("token")
    if not isinstance(token, str):
        return False
    keys = {"token": token, "quick": quick}
    if rest is not None:
        keys["quick_rest"] = rest
    packed.save(quick_file(path), keys)
    return True


def _with_quick(path: str, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the quick key its quick key file holds, when that file is for this very
    write of the index file (same token); else ``data`` as read."""
    from pokayokay.infra import packed

    token = data.get("token")
    if not isinstance(token, str):
        return data
    found = packed.load(quick_file(path))
    if not (
        isinstance(found, dict)
        and found.get("token") == token
        and isinstance(found.get("quick"), str)
    ):
        return data
    kept = dict(data, quick=found["quick"])
    if isinstance(found.get("quick_rest"), str):
        kept["quick_rest"] = found["quick_rest"]
    return kept


class IndexPostings:
    """The postings of an index file, kept in buckets after its rows and stamps
    (:func:`pokayokay.relevance.postings.packed_buckets`): a bucket is read from the file the first
    time a term of it is asked for, the others never."""

    __slots__ = ("_buckets", "_start", "_tail", "offsets")

    def __init__(self, tail: Tail, start: int, offsets: memoryview) -> None:
        self._tail = tail
        self._start = start
        self.offsets = offsets
        self._buckets: dict[int, dict[str, bytes]] = {}

    def blob(self) -> bytes:
        """Every bucket, as stored."""
        return self._tail.read(self._start, int(self.offsets[-1]))

    def terms(self) -> list[str]:
        """Every term of every bucket (each bucket read)."""
        found: list[str] = []
        for at in range(len(self.offsets) - 1):
            found += self._bucket(at)
        return found

    def get(self, term: str) -> bytes | None:
        """``term``'s packed posting, None when no note holds it; ValueError for a damaged
        bucket (the caller drops the file and answers from the sources)."""
        return self._bucket(bucket_of(term, len(self.offsets) - 1)).get(term)

    def _bucket(self, at: int) -> dict[str, bytes]:
        bucket = self._buckets.get(at)
        if bucket is None:
            start, end = int(self.offsets[at]), int(self.offsets[at + 1])
            try:
                bucket = marshal.loads(self._tail.read(self._start + start, end - start))
            except (EOFError, ValueError, TypeError):  # a read outside the tail: ValueError
                bucket = None
            if not (isinstance(bucket, dict) and set(map(type, bucket.values())) <= _BYTES):
                raise ValueError("inconsistent recall index (a bucket of postings)")
            self._buckets[at] = bucket
        return bucket


_BYTES = frozenset({bytes})


class IndexRows:
    """The documents' rows of an index file, each read from the file when asked for, and its
    postings (:class:`IndexPostings`, which :meth:`Index.from_data` takes from here)."""

    __slots__ = ("_offsets", "_tail", "postings")

    def __init__(self, tail: Tail, offsets: memoryview, postings: IndexPostings) -> None:
        self._tail = tail
        self._offsets = offsets
        self.postings = postings

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def blob(self) -> bytes:
        """Every row, as stored."""
        return self._tail.read(0, int(self._offsets[-1]))

    def __getitem__(self, i: int) -> str:
        if not 0 <= i < len(self._offsets) - 1:
            raise IndexError(i)
        start, end = int(self._offsets[i]), int(self._offsets[i + 1])
        return self._tail.read(start, end - start).decode("utf-8", "surrogatepass")


class IndexStamps:
    """The stamps text of an index file, read from the file once, when first asked for ("" when
    it cannot be: every hit then counts as changed, and the full check runs)."""

    __slots__ = ("_at", "_tail", "_text")

    def __init__(self, tail: Tail, at: list[int]) -> None:
        self._tail = tail
        self._at = at
        self._text: str | None = None

    def text(self) -> str:
        text = self._text
        if text is None:
            try:
                text = self._tail.read(self._at[0], self._at[1]).decode("utf-8", "surrogatepass")
            except ValueError:
                text = ""
            self._text = text
        return text


def read_index_file(path: str) -> tuple[dict[str, Any], IndexRows, IndexStamps] | None:
    """The values of an index file (its quick key as its quick key file has it, when that file
    is for this write of the index: :func:`save_quick`), its rows and its stamps (both read
    lazily); None when the file is missing, damaged or of another layout (the caller rebuilds
    it)."""
    from pokayokay.infra import packed

    found = packed.load_head(path)
    if found is None:
        return None
    data, tail = found
    offsets, at = (data.get(k) if isinstance(data, dict) else None for k in ("rows", "stamps"))
    values = data.get("index") if isinstance(data, dict) else None
    buckets = values.get("buckets") if isinstance(values, dict) else None
    if not (
        isinstance(offsets, bytes)
        and isinstance(buckets, bytes)
        and _offsets_column(offsets, 1)
        and _offsets_column(buckets, 2)
        and isinstance(at, list)
        and len(at) == 2
        and all(type(x) is int and x >= 0 for x in at)
    ):
        return None
    column, starts = memoryview(offsets).cast("I"), memoryview(buckets).cast("I")
    if column[0] or starts[0] or column[-1] != at[0] or at[0] + at[1] + starts[-1] != tail.size:
        return None
    postings = IndexPostings(tail, at[0] + at[1], starts)
    return _with_quick(path, data), IndexRows(tail, column, postings), IndexStamps(tail, at)


def _offsets_column(value: bytes, least: int) -> bool:
    """Whether ``value`` holds at least ``least`` offsets as unsigned 32-bit integers."""
    return len(value) % 4 == 0 and len(value) >= 4 * least
