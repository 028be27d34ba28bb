"""Which notes recall already injected in a session (``recall-shown.json`` in the project's state
folder): a note is injected once per session unless the prompt is about it again
(:data:`pokayokay.relevance.note_index.REPEAT_FLOOR`). Only the most recent :data:`MAX_SESSIONS`
sessions are kept; a file that cannot be read or written only costs the manners, never the
prompt."""

from __future__ import annotations

import os
import time

from pokayokay.names import RECALL_SHOWN_FILE

MAX_SESSIONS = 50
MAX_IDS = 200


def _path(state_dir: str) -> str:
    return os.path.join(state_dir, RECALL_SHOWN_FILE)


def _load(state_dir: str) -> dict[str, dict[str, object]]:
    from pokayokay.infra.lean_json import loads  # json's import costs a prompt more than the read

    try:
        with open(_path(state_dir), encoding="utf-8") as fh:
            data = loads(fh.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, dict)}


def shown(state_dir: str, session: str) -> frozenset[str]:
    """The ids of the notes injected in ``session`` so far."""
    ids = _load(state_dir).get(session, {}).get("ids")
    if not isinstance(ids, list):
        return frozenset()
    return frozenset(i for i in ids if isinstance(i, str))


def record(state_dir: str, session: str, ids: list[str], now: float | None = None) -> None:
    """Add ``ids`` to what ``session`` was shown (atomically; a failure is only logged)."""
    if not ids:
        return
    from pokayokay.infra.lean_json import dumps  # json.dump's text, without json's import

    data = _load(state_dir)
    before = data.pop(session, {}).get("ids")
    known = [i for i in before if isinstance(i, str)] if isinstance(before, list) else []
    known += [i for i in ids if i not in known]
    data[session] = {"t": now if now is not None else time.time(), "ids": known[-MAX_IDS:]}
    recent = sorted(data.items(), key=lambda kv: _stamp(kv[1]))[-MAX_SESSIONS:]
    tmp = f"{_path(state_dir)}.{os.getpid()}.tmp"
    try:
        from pokayokay.infra.state import private_folder

        private_folder(state_dir)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as fh:
            fh.write(dumps(dict(recent)))
        os.replace(tmp, _path(state_dir))
    except OSError as exc:
        from pokayokay.infra.logs import log

        log(f"recall: could not record the notes shown in session {session}: {exc}")
        try:  # noqa: SIM105 - contextlib is one more import on the prompt path
            os.unlink(tmp)
        except OSError:
            pass  # the next writer sweeps the temp


def _stamp(entry: dict[str, object]) -> float:
    t = entry.get("t")
    return float(t) if isinstance(t, (int, float)) else 0.0
