"""The report page in a real headless Chromium (Debian's ``chromium`` package): it renders, its
three charts are in the DOM Chromium built, and a screenshot is written. Skipped only when no
chromium is installed (``.ci/run`` installs it where apt can)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.team_history import TeamProject, build_team_project

from pokayokay.cli.main import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def team_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TeamProject:
    return build_team_project(tmp_path, monkeypatch)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_page_renders_in_chromium_with_its_charts(
    team_project: TeamProject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert CHROMIUM is not None
    monkeypatch.chdir(team_project.root)
    assert main(["report", "--since", "30d", "--html", str(team_project.html)]) == 0
    capsys.readouterr()
    shot = tmp_path / "report.png"
    run = subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'chromium-profile'}", "--window-size=1200,2200",
            f"--screenshot={shot}", "--dump-dom", team_project.html.as_uri(),
        ],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    # Chromium parsed the page: the DOM it serialises has the sections and the three charts.
    assert "<title>pokayokay report: " in dom
    for section in ('id="rules"', 'id="failures"', 'id="near"', 'id="memory"', 'id="learnings"'):
        assert section in dom
    for css in ("chart-rules", "chart-weeks", "chart-budgets"):
        assert f'<svg class="chart {css}"' in dom, css
    assert dom.count("<rect ") >= 8 + 2 + 2 * 8  # weeks, rule bars, budget tracks and fills
    assert "recurrences after loading" in dom and "orders_v2" in dom
    data = shot.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 20_000, len(data)
