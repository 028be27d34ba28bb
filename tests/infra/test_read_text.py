"""``safe_write.read_text``: a file's text as pokayokay reads the files it edits (MEMORY.md, the
recurring-failures topic file), with nothing lost on the way back to bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokayokay.errors import PokayokayError
from pokayokay.infra.safe_write import encode_text, read_text


def test_an_absent_file_reads_as_none(tmp_path: Path) -> None:
    assert read_text(tmp_path / "MEMORY.md") is None


def test_bytes_that_are_not_utf8_come_back_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    data = b"# Memory\n\n- caf\xe9 (Latin-1)\n- \xe2\x9c\x93 done\n"
    path.write_bytes(data)
    text = read_text(path)
    assert text is not None and text.startswith("# Memory\n\n- caf")
    assert encode_text(text) == data


def test_a_binary_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"# Memory\n\x00\x01")
    with pytest.raises(PokayokayError, match="NUL byte at offset 9"):
        read_text(path)
