"""jinja2 templates shipped with pokayokay (``templates/`` in the source tree and the wheel)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def templates_dir() -> Path:
    from pokayokay.infra.resources import resource_dir

    return resource_dir("templates")


_ENV: Any = None


def _environment() -> Any:
    """One environment per process, so each template is compiled once."""
    global _ENV
    if _ENV is None:
        _ENV = _new_environment()
    return _ENV


def render(name: str, **context: Any) -> str:
    return str(_environment().get_template(name).render(**context))


def _new_environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
