"""The recall index's postings as its cache file keeps them (pure; built-ins only: the prompt
hook imports this module). A posting is a flat list ``[document, term frequency, ...]``; the file
packs each as unsigned 32-bit integers and keeps them in buckets of about
:data:`TERMS_PER_BUCKET` terms, so a prompt reads the buckets of its own terms and never the whole
table (decision 0187). ``pokayokay.recall.cache_io`` reads the buckets from the file."""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

# A posting as the cache keeps it: its numbers as unsigned 32-bit integers in the machine's own
# byte order (the cache is private to this machine), read in C by a memoryview's cast.
POSTING_ITEM: Final = "I"
POSTING_ITEM_SIZE = memoryview(bytes(8)).cast(POSTING_ITEM).itemsize  # 4 wherever C is usual


def packed_posting(numbers: list[int]) -> bytes:
    """``numbers`` (document, term frequency, ...) as the cache keeps them."""
    import array  # only when an index is saved

    return array.array(POSTING_ITEM, numbers).tobytes()


def unpacked_posting(data: bytes) -> list[int]:
    """What :func:`packed_posting` gave; ValueError for bytes that are not a whole posting."""
    if len(data) % (2 * POSTING_ITEM_SIZE):
        raise ValueError("inconsistent recall index (a posting cut short)")
    return memoryview(data).cast(POSTING_ITEM).tolist()


def posting_length(data: bytes | list[int]) -> int:
    """How many documents a posting lists, packed or not, without reading its numbers."""
    return len(data) // 2 if isinstance(data, list) else len(data) // (2 * POSTING_ITEM_SIZE)


def idf(n: int, df: int) -> float:
    """The weight of a term ``df`` of ``n`` documents hold, as every recall scorer but BM25
    weighs it: ``ln((n + 1) / (df + 1)) + 1``."""
    return math.log((n + 1) / (df + 1)) + 1.0


# The cache keeps the postings in buckets of about this many terms, a term's bucket fixed by its
# text (:func:`bucket_of`): a prompt reads the buckets of its own terms, never the whole table.
# At 2,000 real notes (some 16,000 terms) the whole table took 5-7 ms to load (decision 0187).
TERMS_PER_BUCKET = 16
# A prime below 2**32: a term's UTF-8 bytes as one number, modulo this, then the bucket count.
_BUCKET_PRIME = 4294967291


def bucket_of(term: str, buckets: int) -> int:
    """The bucket of ``term`` among ``buckets`` (the same on every run and machine: the text's
    bytes as a number, in C; ``hash`` is salted per process)."""
    return int.from_bytes(term.encode("utf-8", "surrogatepass"), "little") % _BUCKET_PRIME % buckets


def packed_buckets(postings: Mapping[str, list[int] | bytes]) -> tuple[list[int], bytes]:
    """``postings`` as the cache keeps them: each bucket's terms and packed postings as one
    marshal value, the buckets' offsets (one more than the buckets) and their bytes."""
    import marshal  # only when an index is saved

    count = max(1, len(postings) // TERMS_PER_BUCKET)
    groups: list[dict[str, bytes]] = [{} for _ in range(count)]
    for term, posting in postings.items():
        data = posting if isinstance(posting, bytes) else packed_posting(posting)
        groups[bucket_of(term, count)][term] = data
    blobs = [marshal.dumps(group) for group in groups]
    offsets = [0]
    for blob in blobs:
        offsets.append(offsets[-1] + len(blob))
    return offsets, b"".join(blobs)
