"""Fix episodes as recall documents, and the key that says whether they changed.

Recall reads one thing from the failure store: the texts of the failure groups a later success
closed. Every capture writes the store, but few change those texts, so the recall cache is keyed
by a digest of the texts, not by the store's mtime. The digest is recomputed (one indexed query
over the fixed groups only) when the store's stats moved since it was last computed, and kept in
``recall-fixes.json`` with those stats; the prompts after that open no database at all.
"""

from __future__ import annotations

import json
import os
import zlib

from pokayokay.names import RECALL_FIXES_FILE
from pokayokay.recall.cache_io import _load_json, _row, _save_json
from pokayokay.recall.readers import read_fixes

TYPE_CHECKING = False  # the prompt hook imports this module
if TYPE_CHECKING:
    from typing import Any

def fix_rows(state_dir: str) -> list[Any]:
    """The fix documents as cache rows; [] (logged) when the store cannot be read."""
    try:
        return [_row(*found) for found in read_fixes(state_dir)]
    except Exception as exc:  # an unreadable or newer store: recall goes on without fixes
        from pokayokay.infra.logs import fail_open

        fail_open("recall: reading fix episodes from the failure store", exc)
        return []


def fixes_state(state_dir: str, db_key: list[Any]) -> tuple[str, list[Any] | None]:
    """The digest of the fix texts, and their rows when they had to be read for it (None when
    the store's stats ``db_key`` did not move since the digest was computed: nothing was
    opened)."""
    path = os.path.join(state_dir, RECALL_FIXES_FILE)
    stamp = _load_json(path)
    if isinstance(stamp, dict) and stamp.get("db") == db_key:
        digest = stamp.get("digest")
        if isinstance(digest, str):
            return digest, None
    rows = fix_rows(state_dir) if db_key[0] else []
    data = json.dumps(rows, separators=(",", ":"), sort_keys=True).encode("ascii", "replace")
    digest = f"{len(rows)}-{zlib.crc32(data):08x}-{zlib.adler32(data):08x}"
    if db_key[0]:
        _save_json(path, {"db": db_key, "digest": digest})
    return digest, rows
