"""Fix episodes as recall documents, and the key that says whether they changed.

Recall reads one thing from the failure store: the texts of the failure groups a later success
closed. Every capture writes the store, but few change those texts, so the recall cache is keyed
by a digest of the texts, not by the store's mtime. The digest is recomputed (one indexed query
over the fixed groups only) when the store's stats moved since it was last computed, and kept in
``recall-fixes.json`` with those stats; the prompts after that open no database at all. A digest
of the raw groups is kept too: when a write changed none of them (a capture of a failure no fix
closed, the usual case), nothing is sanitised or analysed again.
"""

from __future__ import annotations

import os

from pokayokay.names import RECALL_FIXES_FILE
from pokayokay.recall.cache_io import document_row, load_json, save_json
from pokayokay.recall.readers import fix_documents, fix_inputs, fixed_groups, read_fixes

TYPE_CHECKING = False  # the prompt hook imports this module
if TYPE_CHECKING:
    from typing import Any

def fix_rows(state_dir: str) -> list[Any]:
    """The fix documents as cache rows; [] (logged) when the store cannot be read."""
    try:
        return [document_row(*found) for found in read_fixes(state_dir)]
    except Exception as exc:  # an unreadable or newer store: recall goes on without fixes
        _logged(exc)
        return []


def _logged(exc: Exception) -> None:
    from pokayokay.infra.logs import fail_open

    fail_open("recall: reading fix episodes from the failure store", exc)


# The digest of a project without a failure store: no fix documents.
NO_FIXES = "0-none"


def _digest(data: object) -> str:
    from pokayokay.infra.lean_json import dumps  # json.dumps without json's import

    text = dumps(data, separators=(",", ":"), sort_keys=True).encode("ascii", "replace")
    import zlib  # only when the store moved: not on every prompt

    return f"{zlib.crc32(text):08x}-{zlib.adler32(text):08x}"


def fixes_state(state_dir: str, db_key: list[Any]) -> tuple[str, list[Any] | None]:
    """The digest of the fix texts, and their rows when they had to be made for it (None when
    the store's stats ``db_key`` did not move since the digest was computed: nothing was
    opened; or when the groups a fix text is made of are as they were: the store was read,
    nothing sanitised or analysed)."""
    if not db_key[0]:  # no failure store yet (a fresh project): no fix, nothing to digest
        return NO_FIXES, []
    path = os.path.join(state_dir, RECALL_FIXES_FILE)
    stamp = load_json(path)
    known = stamp.get("digest") if isinstance(stamp, dict) else None
    if isinstance(known, str) and stamp.get("db") == db_key:
        return known, None
    rows: list[Any] | None
    try:
        groups = fixed_groups(state_dir)
    except Exception as exc:  # an unreadable or newer store: recall goes on without fixes
        _logged(exc)
        groups = []
    raw = _digest(fix_inputs(groups))
    if isinstance(known, str) and stamp.get("raw") == raw:
        rows = None  # the same groups: the same texts
    else:
        rows = [document_row(*found) for found in fix_documents(groups)]
    digest = known if rows is None and isinstance(known, str) else None
    if digest is None:
        digest = f"{len(rows or [])}-{_digest(rows or [])}"
    save_json(path, {"db": db_key, "raw": raw, "digest": digest}, small=True)
    return digest, rows
