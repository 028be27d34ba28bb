"""The file system's clock asked through a probe file (pokayokay.infra.fs_clock, decision 0153):
when a recorded mtime may be trusted to move on the next change."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from pokayokay.infra import fs_clock


def test_the_probe_reads_the_file_systems_now(tmp_path: Path) -> None:
    written = tmp_path / "written"
    written.write_text("x")
    found = fs_clock.probe_clock(str(tmp_path))
    assert found is not None
    device, stamp = found
    assert device == written.stat().st_dev
    assert stamp >= written.stat().st_mtime_ns  # stamped after it, by the same clock
    assert (tmp_path / fs_clock.PROBE_FILE).stat().st_mtime_ns == stamp


def test_no_probe_in_a_missing_folder(tmp_path: Path) -> None:
    assert fs_clock.probe_clock(str(tmp_path / "gone")) is None
    assert not (tmp_path / "gone").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="O_NOFOLLOW")
def test_a_probe_name_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("kept")
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / fs_clock.PROBE_FILE).symlink_to(target)
    assert fs_clock.probe_clock(str(tmp_path / "state")) is None
    assert target.stat().st_mtime_ns == 1_000_000_000
    assert fs_clock.settled([(str(target), time.time_ns())], str(tmp_path / "state")) is False


def test_an_old_mtime_needs_no_probe(tmp_path: Path) -> None:
    old = time.time_ns() - fs_clock.SETTLE_NS - 1
    assert fs_clock.settled([(str(tmp_path), old), (str(tmp_path / "none"), None)], "/nowhere")
    assert not (tmp_path / fs_clock.PROBE_FILE).exists()


def test_a_recent_mtime_is_trusted_once_the_probe_is_stamped_later(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    recorded = folder.stat().st_mtime_ns
    state = str(tmp_path)
    assert fs_clock.settled([(str(folder), recorded)], state) == (
        (tmp_path / fs_clock.PROBE_FILE).stat().st_mtime_ns > recorded
    )
    # stamped in the same tick, or by a clock ahead of the probe: not trusted
    assert not fs_clock.settled([(str(folder), time.time_ns() + 10**9)], state)


def test_a_probe_on_another_device_proves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    recorded = folder.stat().st_mtime_ns
    device = folder.stat().st_dev
    monkeypatch.setattr(fs_clock, "probe_clock", lambda _f: (device + 1, recorded + 10**9))
    assert not fs_clock.settled([(str(folder), recorded)], str(tmp_path))
    monkeypatch.setattr(fs_clock, "probe_clock", lambda _f: (device, recorded + 10**9))
    assert fs_clock.settled([(str(folder), recorded)], str(tmp_path))
    monkeypatch.setattr(fs_clock, "probe_clock", lambda _f: None)
    assert not fs_clock.settled([(str(folder), recorded)], str(tmp_path))
