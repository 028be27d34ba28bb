"""Files pokayokay ships beside its code: ``templates/``, ``commands/`` and ``skills/``.

In a wheel they live in ``pokayokay/_data/<kind>/``; in a source checkout they are the
repository's own top-level folders. One function finds either, so no module counts parents.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def resource_dir(kind: str) -> Path:
    """The folder of shipped ``kind`` files (``templates``, ``commands`` or ``skills``)."""
    packaged = _PACKAGE / "_data" / kind
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / kind
